"""Passage-level debate, for cases without aspects: the panel weighs passages instead."""

from __future__ import annotations

from typing import Any

from ....core.text import mentioned_ids, overlap
from .claims import _last_turns
from .phrasing import display_name, say, sentence_case
from .reading import _CAVEAT, _SENTENCE_SPLIT, Reading, _short


def _sentences(text: str) -> list[str]:
    return [x.strip() for x in _SENTENCE_SPLIT.split(text or "") if x.strip()]


def _caveats(sentence: str) -> int:
    return len(_CAVEAT.findall(sentence))


def _pick_sentence(text: str, query: str, want_caveat: bool | None) -> str:
    """The passage's sentence closest to the question, preferring (or avoiding) qualifying language."""
    sents = _sentences(text) or [text]
    def key(i_s: tuple[int, str]) -> tuple[float, float]:
        i, sent = i_s
        bonus = 0.0 if want_caveat is None else (1.0 if (_caveats(sent) > 0) == want_caveat else 0.0)
        return (bonus, overlap(query, sent) - 0.001 * i)
    return max(enumerate(sents), key=key)[1]


def _passage_turn(case: Any, r: Reading, persona: dict[str, Any], rnd: int, history: list[dict[str, Any]],
                  personas: list[dict[str, Any]]) -> dict[str, Any]:
    """Cases without aspects: the panel weighs passages. The critic presses qualifying passages, the
    empath the ones that answer plainly, the analyst the most relevant ones; each avoids repeating itself."""
    lang = r.lang
    me = str(persona["id"])
    stance = str(persona.get("stance", "neutral")).lower()
    by_id = case.evidence_by_id()
    ids = list(by_id)
    pool = (r.ranked or ids)[:6]
    mine = [i for t in history if t.get("speaker") == me for i in mentioned_ids(str(t.get("message")), ids)]
    want = {"con": True, "pro": False}.get(stance)
    if want is None:
        order = pool
    else:
        # Stable sort: among equally qualified passages the more relevant one comes first.
        order = sorted(pool, key=lambda i: -_caveats(by_id[i].text) if want else _caveats(by_id[i].text))
    picks = ([i for i in order if i not in mine] or order)[:2]
    lines, points = [], []
    for ev_id in picks:
        sent = _short(_pick_sentence(by_id[ev_id].text, case.question, want), 140)
        lines.append(say(lang, "cite", text=sent, where=ev_id))
        points.append(f"{ev_id}: {_short(sent, 90)}")
    replies = []
    for turn in _last_turns(history, me) if rnd > 1 else []:
        who = display_name(str(turn.get("speaker")), personas, lang)
        theirs = [i for i in mentioned_ids(str(turn.get("message")), ids) if i not in picks]
        if not theirs:
            continue
        other = theirs[0]
        if stance == "con" and _caveats(by_id[other].text):
            limit = _short(_pick_sentence(by_id[other].text, case.question, True), 110)
            replies.append(say(lang, "reply_qualifies", who=who, other=other, quote=limit))
        elif stance == "pro" and str(turn.get("stance", "")).lower() != "con":
            plain = _short(_pick_sentence(by_id[other].text, case.question, False), 110)
            replies.append(say(lang, "reply_same_way", who=who, other=other, quote=plain))
        elif stance == "pro":
            plain = _short(_pick_sentence(by_id[other].text, case.question, False), 110)
            replies.append(say(lang, "reply_caveat_granted", who=who, other=other, quote=plain))
        elif stance not in ("con", "pro"):
            rank = pool.index(other) + 1 if other in pool else say(lang, "rank_outside")
            replies.append(say(lang, "reply_rank", who=who, other=other, rank=rank))
    lead = say(lang, f"passage_lead_{stance}" if stance in ("con", "pro") else "passage_lead_other")
    planning = say(lang, "passage_planning", rnd=rnd)
    reflection = say(lang, "passage_reflection")
    message = " ".join([f"{lead}: " + "; ".join(lines) + ".", *sentence_case(lang, replies)])
    return {"speaker": me, "stance": persona.get("stance", ""), "planning": planning, "reflection": reflection,
            "message": message, "key_points": points}
