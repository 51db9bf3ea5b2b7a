"""When the panel's verdict goes to a human and whether the debate converged (sections 2.3 and 6 of the
persona-panel source protocol).

The source protocol ends the debate with the judge: "모든 라운드 종료 후 심판 에이전트가 토론을 요약·판단한다"
(after all rounds the judge summarises and judges the debate), and its moderator rules decide the
label. These functions read the judge's summary and the moderator's decision; they call no model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ....core.text import sentences
from ....engine.spec import LOW_CONFIDENCE
from ...common import UNASSESSED_PREFIX, low_confidence_reason, unassessed, unassessed_reason
from ..models import DebateSummary
from ..ratings import ratings_in, shown_rating
from .counterweight import other_way_note
from .intent import intent_note
from .review_context import TermIndex
from .rules import ModeratorOutput
from .signals import PanelSignals, ValidatorSignal

# How a judge says it found no consensus, in English or Korean.
NO_CONSENSUS = re.compile(
    r"no consensus|not reach|did not agree|no agreement|합의(?:하지|되지|에 이르지|가 없|없음|불가|\s*실패)",
    re.IGNORECASE,
)
# A judge-only verdict (no stage signals) has no rule behind it: its confidence starts at the middle
# and moves at most this far with the balance of agreements, so it stays within 0.2..0.8.
JUDGE_ONLY_BASE_CONFIDENCE = 0.5
JUDGE_ONLY_CONFIDENCE_SPREAD = 0.3


def judge_has_consensus(summary: DebateSummary | None) -> bool:
    """The judge reports a consensus (section 2.3 of the source protocol: the summary carries ``consensus``) unless it is empty
    or says in words that none was reached."""
    if summary is None:
        return False
    text = summary.consensus.strip()
    return bool(text) and not NO_CONSENSUS.search(text)


def escalation_reasons(decision: ModeratorOutput, summary: DebateSummary | None, debated: bool,
                       validator: ValidatorSignal | None, review_conf: float) -> list[str]:
    """Why the moderator's decision goes to a human, in the order a reviewer should read them.

    Section 6.3 of the source protocol, Rule Z: "stage1_ate.confidence == 0 그리고 stage2_ate.confidence == 0 이면 즉시
    final_label="neutral", confidence=0" (insufficient signal), so nothing else is worth checking.
    Otherwise a confidence below ``review_conf`` (by default Rule E's "confidence < 0.55"), a
    "mixed" label only Rule M produced, a judge without consensus, and a panel consensus Rule E
    could not apply because the confidence was too high each escalate.
    """
    rules = decision.applied_rules
    flags = decision.arbiter_flags
    if "RuleZ" in rules:
        return ["insufficient_signal: RuleZ fired, both Stage1 and Stage2 confidences are 0"]
    reasons = []
    if decision.confidence < review_conf:
        reasons.append(f"low_confidence: the final confidence {decision.confidence:.2f} is below {review_conf:.2f}")
    if decision.final_label == "mixed" and "RuleM" in rules:
        by_validator = flags.validator_override_applied and validator is not None and \
            validator.suggested_label == "mixed"
        by_panel = flags.debate_inferred_label == "mixed"
        if not (by_validator or by_panel):
            reasons.append("unresolved_conflict: 'mixed' comes only from Stage1 and Stage2 disagreeing (RuleM); "
                           "neither the validator nor the panel confirms a mixed reading")
    if debated and not judge_has_consensus(summary):
        reasons.append("no_consensus: the judge reported no consensus")
    if flags.rule_e_block_reason == "confidence_too_high":
        reasons.append(f"panel_dissent: the panel's consensus ({flags.debate_inferred_label}) differs from the "
                       f"final label ({decision.final_label}), which RuleE kept at confidence {decision.confidence:.2f}")
    return reasons


def judge_only_escalation_reasons(summary: DebateSummary) -> list[str]:
    """Without stage signals no moderator rule runs; the source protocol's judge "요약·판단한다" alone, so only a
    missing consensus sends the verdict to a human."""
    return [] if judge_has_consensus(summary) else ["no_consensus: the judge reported no consensus"]


def judge_only_confidence(agreements: int, disagreements: int) -> float:
    """The confidence of a verdict that is only the judge's consensus (section 2.3 of the source protocol: ``key_agreements``,
    ``key_disagreements``): the middle, moved by the balance of agreements over disagreements."""
    total = agreements + disagreements
    balance = (agreements - disagreements) / total if total else 0.0
    return round(JUDGE_ONLY_BASE_CONFIDENCE + JUDGE_ONLY_CONFIDENCE_SPREAD * balance, 4)


def convergence(debated: bool, summary: DebateSummary | None, final_label: str | None, inferred: str | None,
                rounds: int) -> tuple[bool, str]:
    """Whether the panel converged, and why.

    Section 2.3 of the source protocol: "모든 라운드 종료 후 심판 에이전트가 토론을 요약·판단한다" (after all rounds the judge
    summarises and judges), so the panel converges when the judge reports a consensus that agrees
    with the moderator's label (Rule E infers the judge's label: "debate_summary에서
    _infer_label_from_debate로 레이블 추론"). With ``enable_debate`` off nothing converges.
    """
    if not debated:
        return False, "debate disabled (enable_debate=false): the moderator decided from the stage signals alone"
    if not judge_has_consensus(summary):
        return False, f"the judge reported no consensus after {rounds} round(s)"
    if final_label is None:
        return True, f"the judge reported a consensus after {rounds} round(s)"
    if inferred is None:
        return True, "the judge reported a consensus without naming a sentiment label"
    if inferred == final_label:
        return True, f"the judge's consensus agrees with the moderator's label ({final_label})"
    return False, f"the judge's consensus ({inferred}) differs from the moderator's label ({final_label})"


# "could not assess: X" inside a longer text (a key point, a rationale), up to the end of its sentence.
_UNASSESSED = re.compile(re.escape(UNASSESSED_PREFIX) + r"\s*(.+?)(?:\.\s|\.$|\n|$)", re.IGNORECASE)


def panel_uncertainties(turns: Sequence[dict[str, Any]], summary: DebateSummary | None) -> list[str]:
    """What the panel said it could not assess: the judge's uncertainties, then every "could not
    assess: ..." in the speakers' key points, without repeats."""
    found: list[str] = list(summary.uncertainties) if summary is not None else []
    for turn in turns:
        for point in turn.get("key_points") or []:
            found += [f"{UNASSESSED_PREFIX} {m}" for m in _UNASSESSED.findall(str(point))]
    return [f"{UNASSESSED_PREFIX} {item}" for item in unassessed(found)]


def panel_low_confidence_reason(summary: DebateSummary | None, judge: str = "the judge") -> str | None:
    """Rule: a judge that states a confidence below the shared low line sends the verdict to a human."""
    if summary is None or summary.confidence is None:
        return None
    return low_confidence_reason({judge: summary.confidence}, LOW_CONFIDENCE)


def panel_unassessed_reason(turns: Sequence[dict[str, Any]], summary: DebateSummary | None) -> str | None:
    """Rule: a verdict the panel could not fully assess goes to a human, naming what it could not assess."""
    return unassessed_reason(panel_uncertainties(turns, summary), who="the panel")


def panel_reading_reasons(turns: Sequence[dict[str, Any]], summary: DebateSummary | None,
                          judge: str = "the judge") -> list[str]:
    """The shared rules on the panel's own reading: low stated confidence, then what it could not assess."""
    return [r for r in (panel_low_confidence_reason(summary, judge), panel_unassessed_reason(turns, summary)) if r]


# A clause ends at a sentence end, a semicolon, a dash, or a contrast that turns the sentence: an
# English contrast word, or a Korean contrastive ending ("맛있었는데, ...", "좋지만, ...").
_CLAUSE_BREAK = re.compile(r"(?<=[.!?;:])\s+|\s+[-\u2013\u2014]\s+|,?\s+(?=(?:but|however|although|though|whereas|"
                           r"while|yet)\b)|(?<=는데|은데|지만),\s*", re.IGNORECASE)
# A quote keeps at most this many words, starting a few words before the aspect's name: short enough
# to read at a glance and well under the 15 copied words that make an answer a copied passage.
QUOTE_WORDS = 12
QUOTE_LEAD = 4
MAX_QUOTES = 5


def _quote(clause: str, at: int | None) -> str:
    """The clause, or QUOTE_WORDS of it starting a few words before character ``at``."""
    words = clause.split()
    if len(words) <= QUOTE_WORDS:
        return clause.strip(" ,;:")
    first = len(clause[:at].split()) if at else 0
    start = max(0, min(first - QUOTE_LEAD, len(words) - QUOTE_WORDS))
    cut = " ".join(words[start:start + QUOTE_WORDS]).strip(" ,;:")
    return ("\u2026" if start else "") + cut + ("\u2026" if start + QUOTE_WORDS < len(words) else "")


def aspect_quotes(text: str | None, aspects: Sequence[str],
                  synonym_hints: Mapping[str, Sequence[str]] | None = None) -> dict[str, str]:
    """Rule: each aspect's sentiment is shown with the words of the text under review that carry it,
    the first clause naming the aspect (or one of its synonyms), so a reviewer checks the reading
    against the text rather than taking it on trust. An aspect the text never names gets no quote."""
    if not text or not aspects:
        return {}
    index = TermIndex.build(aspects, synonym_hints)
    clauses = [c for c in _CLAUSE_BREAK.split(text) if c and c.strip()]
    quotes: dict[str, str] = {}
    for clause in clauses:
        for aspect in index.find(clause):
            if aspect not in quotes and len(quotes) < MAX_QUOTES:
                quotes[aspect] = _quote(clause, index.where(clause, aspect))
    return {a: quotes[a] for a in aspects if a in quotes}


def asked_name(aspect: str, signals: PanelSignals | None) -> str:
    """Rule: an aspect the review names in its own words (the stage-2 validator's revised span, "Reg's")
    is shown under the aspect the question asks about, with those words: "tutor (Reg's)"."""
    asked = [t for t in (signals.aspect_terms if signals else []) if isinstance(t, str)]
    if not signals or any(aspect.lower() == t.lower() for t in asked):
        return aspect
    for term in asked:
        if any(aspect.lower() == str(h).lower() for h in signals.synonym_hints.get(term, [])):
            return f"{term} ({aspect})"
    return aspect


# A worry the text itself says came to nothing ("I dreaded walking into Greaves & Sons. I needn't
# have."): its dark words are not a complaint, and the reader is shown why they were set aside.
# Each part is bounded and starts where a sentence or clause does, so a long passage without
# punctuation is read in linear time.
_UNFOUNDED = re.compile(
    r"(?:^|(?<=[.!?;,]))([^.!?;,]{0,200}\b(?:dread(?:ed|ing)?|nervous|worried|apprehensive|anxious|scared|terrified)"
    r"\b[^.!?;,]{0,200})"
    r"[.!?;,]\s*((?:but\s+)?(?:I|we)\s+(?:needn't|need\s+not|shouldn't|should\s+not)\s+have\b[^.!?]{0,200}"
    r"|(?:but\s+)?(?:there\s+was\s+)?no\s+need\s+to\s+(?:worry|have\s+worried|be)\b[^.!?]{0,200})", re.I)
# What a text must say for a worry in it to have come to nothing: looked for first, as most texts do not.
_CAME_TO_NOTHING = re.compile(r"\b(?:needn't|need\s+not|shouldn't|should\s+not)\s+have\b|\bno\s+need\s+to\b", re.I)


def unfounded_worries(text: str) -> list[str]:
    """Rule: the worries the text says came to nothing ("I dreaded walking in. I needn't have."), as it
    words them, to show with the answer: they read as complaints and are none."""
    if not _CAME_TO_NOTHING.search(text or ""):
        return []
    return [" ".join(m.group(0).split()) for m in _UNFOUNDED.finditer(text)]


def without_unfounded_worries(text: str) -> str:
    """The text with the worries it says came to nothing taken out: what is left is what it judges."""
    return _UNFOUNDED.sub(" ", text) if _CAME_TO_NOTHING.search(text or "") else (text or "")


# "... at another record office years ago, I ... came out feeling seasick. Not here.": a short turn
# that sets what came before it on another time, place or firm.
_TURN_AWAY = re.compile(r"(?:^|(?<=[.!?]))\s*(Not (?:here|this time|this year|with (?:them|this lot|these (?:guys|people)))"
                        r"\s*[.!]+)", re.I)


def set_aside_before_turn(text: str) -> list[tuple[str, str]]:
    """Rule: what a text says just before a turn such as "Not here." or "Not this time." (the sentence
    it turns from, as it words it, clipped) with the turn: it speaks of another time, place or firm,
    not of the one reviewed."""
    out = []
    for m in _TURN_AWAY.finditer(text or ""):
        before = [s for s in sentences(text[:m.start(1)]) if s.strip()]
        if before:
            said = " ".join(before[-1].split())
            out.append((m.group(1).strip(), said if len(said) <= 140 else said[:140].rsplit(" ", 1)[0] + "…"))
    return out


def without_set_aside(text: str) -> str:
    """The text without each sentence a "Not here." turns from, nor the turn: what is left judges the
    one reviewed."""
    for turn, said in set_aside_before_turn(text):
        full = said.rstrip("…")
        start = (text or "").find(full)
        end = (text or "").find(turn, start)
        if start >= 0 and end >= 0:
            text = text[:start] + " " + text[end + len(turn):]
    return text or ""


def set_aside_note(text: str) -> str:
    """The answer's sentence quoting what a turn such as "Not here." sets aside, or ""."""
    # Said of what came before, not judged: "The last café had great coffee. Not here." turns from praise.
    return "".join(f' What the text says before "{turn}" is about another time, place or firm, not the one '
                   f'reviewed: "{said}".' for turn, said in set_aside_before_turn(text))


# What the panel could not assess that puts the label itself in doubt (not one aspect's reading), each
# with how the answer says so up front: a reader who stops at the first sentences still learns the
# label is provisional, not only one who reads the list at the end.
_LABEL_DOUBTS = (
    ("how the text was meant", "how the text was meant"),
    ("which way the text leans", "which way the review leans"),
    ("which way the review leans", "which way the review leans"),
    ("what the words marked", "what its missing words said"),
    ("how its author now feels", "how its author now feels"),
)


def label_doubts(items: Sequence[str]) -> list[str]:
    """Rule: the points the panel could not assess that decide the label itself ("how the text was
    meant", "which way the review leans"), in plain words, each once and in the order they were raised."""
    out: list[str] = []
    for item in items:
        for start, said in _LABEL_DOUBTS:
            if item.startswith(start) and said not in out:
                out.append(said)
    return out


def provisional_note(uncertainties: Sequence[str]) -> str:
    """The sentence that says the label is provisional, and on what, or "" when nothing puts it in doubt."""
    doubts = label_doubts(unassessed(uncertainties))
    return f" That label is provisional: {' and '.join(doubts)} cannot be settled from the text alone." if doubts else ""


def verdict_answer(label: str, aspects: Sequence[tuple[str, str]], uncertainties: Sequence[str] = (),
                   quotes: Mapping[str, str] | None = None, signals: PanelSignals | None = None) -> str:
    """The answer to the question asked, label first: "The overall sentiment is mixed: screen positive;
    keyboard negative." then, in the text's own words, what carries each aspect, and what the panel
    could not assess."""
    # An aspect the readings reached twice with one polarity is said once ("value, value positive").
    aspects = list(dict.fromkeys(aspects))
    by_label: dict[str, list[str]] = {}
    for aspect, polarity in aspects:
        by_label.setdefault(polarity, []).append(asked_name(aspect, signals))
    detail = "; ".join(f"{', '.join(names)} {pol}" for pol, names in by_label.items())
    # The reviewer's own rating, where the text under review gives one, is shown with the label: the
    # reader can set one against the other.
    rated = set(ratings_in(signals.text)) if signals else set()
    rating = f" (the reviewer's own rating: {shown_rating(rated.pop())})" if len(rated) == 1 else ""
    answer = f"The overall sentiment is {label}{rating}" + (f": {detail}." if detail else ".")
    items = unassessed(uncertainties)
    answer += provisional_note(uncertainties)
    shown = list(dict.fromkeys(f'{asked_name(aspect, signals)}: "{quotes[aspect]}"' for aspect, _ in aspects
                               if quotes and aspect in quotes))
    if shown:
        answer += " In the text's words: " + "; ".join(shown) + "."
    worries = unfounded_worries(signals.text) if signals else []
    if worries:
        answer += " A worry the text says came to nothing, no complaint: " + "; ".join(f'"{w}"' for w in worries) + "."
    answer += set_aside_note(signals.text) if signals else ""
    answer += other_way_note(signals.text, label) if signals else ""
    answer += intent_note(signals.text, answer) if signals else ""
    if items:
        answer += " The panel could not assess: " + "; ".join(items) + "."
    return answer


def label_sentence(label: str | None) -> str:
    """Rule: the panel's short answer is its final label said as a sentence ("The overall sentiment
    is mixed.")."""
    return f"The overall sentiment is {label or 'undecided'}."
