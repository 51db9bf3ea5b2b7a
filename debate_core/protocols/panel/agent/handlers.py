"""The offline panel's handlers: a persona's turn and the judge's summary."""

from __future__ import annotations

from typing import Any

from ....core.text import mentioned_ids
from ....providers.offline.agents import register
from .claims import claims_of
from .passages import _caveats, _passage_turn, _pick_sentence
from .phrasing import _LABEL_WORD, _ids, display_name, say
from .reading import Reading, _short, quote_text, read_case
from .sentence import asks_label, sentence_judge, sentence_turn
from .stances import _side_turn, analyst_turn


@register("panel", "turn")
def turn(payload: dict[str, Any]) -> dict[str, Any]:
    case = payload["case"]
    persona = payload["persona"]
    history = list(payload.get("history") or [])
    personas = list(payload.get("personas") or [persona])
    rnd = int(payload.get("round") or 1)
    reading = read_case(case, dict(payload.get("context") or {}))
    if not reading.aspects and _sentence_mode(case, reading):
        return sentence_turn(case, reading, persona, rnd, history, personas)
    if not reading.aspects:
        return _passage_turn(case, reading, persona, rnd, history, personas)
    stance = str(persona.get("stance", "neutral")).lower()
    if stance == "con":
        return _side_turn(reading, persona, rnd, history, personas, "negative")
    if stance == "pro":
        return _side_turn(reading, persona, rnd, history, personas, "positive")
    return analyst_turn(reading, persona, rnd, history, personas)


def _sentence_mode(case: Any, r: Reading) -> bool:
    """A case that asks for a sentiment but names no aspects is answered with the sentence's own label
    (sentence.py). English only: the sentiment reading (VADER) reads English; other languages keep the
    passage-level debate."""
    return r.lang == "en" and asks_label(case.question)


# Words the judge may use for a label without tipping Rule E's keyword inference toward it.
_SAFE_WORD = {
    "ko": {"positive": "우호적", "negative": "불리한 쪽", "neutral": "유보적", "mixed": "갈린 평가"},
    "en": {"positive": "favourable", "negative": "unfavourable", "neutral": "undecided", "mixed": "split"},
}
_INFERENCE_ORDER = ("mixed", "positive", "negative", "neutral")


def judge_word(label: str, overall: str, lang: str) -> str:
    """A label's plain word, unless Rule E checks that label before the overall one (then a paraphrase)."""
    if label != overall and _INFERENCE_ORDER.index(label) < _INFERENCE_ORDER.index(overall):
        return _SAFE_WORD[lang][label]
    return _LABEL_WORD[lang][label]


def _winner(r: Reading, turns: list[dict[str, Any]]) -> str | None:
    scores: dict[str, int] = {}
    for speaker in dict.fromkeys(str(t.get("speaker")) for t in turns):
        claims: dict[str, str] = {}
        for t in turns:
            if t.get("speaker") == speaker:
                claims.update(claims_of(t, r.index))
        scores[speaker] = sum(1 if r.by_name(a) and r.by_name(a).label == p else -1
                              for a, p in claims.items() if r.by_name(a))
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    if not ranked or (len(ranked) > 1 and ranked[0][1] - ranked[1][1] < 1):
        return None
    return ranked[0][0]


@register("panel", "judge_summary")
def judge_summary(payload: dict[str, Any]) -> dict[str, Any]:
    case = payload["case"]
    turns = list(payload.get("turns") or [])
    personas = list(payload.get("personas") or [])
    r = read_case(case, dict(payload.get("context") or {}))
    lang = r.lang
    if not r.aspects and _sentence_mode(case, r):
        return sentence_judge(case, r, turns, personas)
    if not r.aspects:
        return _passage_judge(case, r, turns, personas)
    overall = r.overall
    positions: dict[str, dict[str, str]] = {}
    for t in turns:
        for aspect, pol in claims_of(t, r.index).items():
            positions.setdefault(aspect, {})[str(t.get("speaker"))] = pol
    agreements, disagreements = [], []
    for view in r.aspects:
        said = positions.get(view.aspect, {})
        if not said:
            continue
        w = judge_word(view.label, overall, lang)
        ids = _ids(view.ids(view.label) or [m.evidence_id for m in view.mentions if m.evidence_id][:3])
        dissent = {sp: p for sp, p in said.items() if p != view.label}
        if not dissent:
            who = ", ".join(display_name(sp, personas, lang) for sp in said)
            agreements.append(say(lang, "judge_agreement", aspect=view.aspect, label=w, who=who, ids=ids))
        else:
            parts = ", ".join(f"{display_name(sp, personas, lang)}={judge_word(p, overall, lang)}"
                              for sp, p in said.items())
            disagreements.append(say(lang, "judge_disagreement", aspect=view.aspect, parts=parts, label=w, ids=ids))
    winner = _winner(r, turns)
    by_label: dict[str, list[str]] = {}
    for view in r.aspects:
        by_label.setdefault(view.label, []).append(view.aspect)
    detail = ", ".join(f"{', '.join(names)} {judge_word(label, overall, lang)}" for label, names in by_label.items())
    consensus = say(lang, "judge_consensus", label=_LABEL_WORD[lang][overall], overall=overall, detail=detail)
    rationale = say(lang, "judge_rationale", disputed=len(disagreements), agreed=len(agreements))
    if winner:
        rationale += say(lang, "judge_winner", winner=display_name(winner, personas, lang))
    distinct = distinct_evidence(r, turns)
    confidence = judge_confidence(r, distinct)
    uncertainties = r.uncertainties()
    rationale += say(lang, "judge_confidence", confidence=confidence, distinct=distinct)
    summary = {"winner": winner, "consensus": consensus, "key_agreements": agreements,
               "key_disagreements": disagreements, "rationale": rationale,
               "confidence": confidence, "uncertainties": uncertainties}
    return summary


# Each further distinct passage the panel quotes for a label adds this much, up to the cap: agreement
# that rests on one quote repeated adds nothing.
CORROBORATION_STEP = 0.03
CORROBORATION_CAP = 0.09


def distinct_evidence(r: Reading, turns: list[dict[str, Any]]) -> int:
    """How many different clauses the panel quoted in support of the labels the reading gives."""
    blob = "\n".join(str(t.get("message") or "") for t in turns)
    quoted = {quote_text(m.clause) for a in r.aspects for m in a.read_mentions
              if m.polarity == a.label and quote_text(m.clause) in blob}
    return len(quoted)


def judge_confidence(r: Reading, distinct: int) -> float:
    """The reading's confidence, raised a little by each further distinct passage quoted for it;
    a weak reading stays capped."""
    base = r.confidence()
    if r.weak:
        return base
    bonus = min(CORROBORATION_CAP, CORROBORATION_STEP * max(0, distinct - 1))
    return round(min(0.95, base + bonus), 4)


def _passage_judge(case: Any, r: Reading, turns: list[dict[str, Any]], personas: list[dict[str, Any]]) -> dict[str, Any]:
    lang = r.lang
    by_id = case.evidence_by_id()
    ids = list(by_id)
    # A passage a speaker builds on (in its key points) is "cited"; one it only names in the message
    # while answering someone else is "contested".
    cited: dict[str, list[str]] = {}
    contested: dict[str, list[str]] = {}
    for t in turns:
        sp = str(t.get("speaker"))
        own = mentioned_ids(" ".join(str(k) for k in t.get("key_points") or []), ids) or \
            mentioned_ids(str(t.get("message")), ids)
        for ev_id in own:
            if sp not in cited.setdefault(ev_id, []):
                cited[ev_id].append(sp)
        for ev_id in mentioned_ids(str(t.get("message")), ids):
            if ev_id not in own and sp not in contested.setdefault(ev_id, []):
                contested[ev_id].append(sp)
    rank = {ev_id: n for n, ev_id in enumerate(r.ranked or ids)}
    by_rank = sorted(cited, key=lambda i: rank.get(i, len(rank)))
    shared = [i for i in by_rank if len(cited[i]) >= 2]
    single = [i for i in by_rank if len(cited[i]) == 1]

    def who(ev_id: str) -> str:
        return ", ".join(display_name(sp, personas, lang) for sp in cited[ev_id])

    agreements = [f"{i}: {who(i)}" for i in shared]
    disagreements = []
    for i in by_rank:
        against = [sp for sp in contested.get(i, []) if sp not in cited[i]]
        if against:
            names = ", ".join(display_name(sp, personas, lang) for sp in against)
            disagreements.append(say(lang, "passage_disagreement", id=i, who=who(i), names=names))
    if not shared:
        return {"winner": None, "consensus": "", "key_agreements": [], "key_disagreements": disagreements,
                "rationale": say(lang, "passage_none_shared")}
    answer = _short(_pick_sentence(by_id[shared[0]].text, case.question, False), 160)
    caveat_ids = [i for i in by_rank if _caveats(by_id[i].text)]
    caveat = _short(_pick_sentence(by_id[caveat_ids[0]].text, case.question, True), 120) if caveat_ids else ""
    consensus = say(lang, "passage_consensus", answer=answer, id=shared[0])
    if caveat:
        consensus += say(lang, "passage_caveat", caveat=caveat, id=caveat_ids[0])
    rationale = say(lang, "passage_rationale", shared=len(shared), single=len(single))
    return {"winner": None, "consensus": consensus, "key_agreements": agreements,
            "key_disagreements": disagreements, "rationale": rationale}
