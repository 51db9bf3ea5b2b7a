"""Dialectic (the dialectic (thesis-antithesis-synthesis) source protocol): engine-side ASP checks and the rule-based verdict.

The critic is a model and may wave an unparsable rule through, so the engine checks every rule
that looks like ASP with clingo itself. A rule that does not parse (or cannot be grounded because
a variable is unsafe) is a critical issue the engine adds to the critic's list; the debate cannot
converge on it and a final rule that still fails escalates to a human.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...core.schemas import Evidence, Verdict
from ...core.text import rule_literals, sentences
from ...engine.convergence import Stop
from ..common import low_confidence_reason, short_answer, unassessed_reason
from .alternatives import both_required
from .amendments import (
    declarations,
    kept_superseded,
    kept_withdrawn,
    lifts,
    not_in_force,
    quote,
    starts_after_question,
    withdrawing_sentences,
    withdrawn_names,
)
from .conflicts import unsettled_conflicts
from .disputes import disagreement_on_record, undecided_on_record
from .variants import variant_conflicts

ENGINE_ISSUE_PREFIX = "[engine] CRITICAL:"
# The dialectic source protocol: consecutive rules converge when their Jaccard similarity reaches 0.85.
JACCARD_THRESHOLD = 0.85
# A final rule held with less confidence than this goes to a human.
REVIEW_BELOW_CONFIDENCE = 0.5

# A rule "is ASP" when it has a rule neck (`:-`), starts with a directive (`#`) or starts like an
# atom (`name(` or `not name(`).
# Plain-language rules ("A tenant may sublet only if ...") never start with `word(`, so they are
# left alone instead of being reported as syntax errors.
_ATOM_START = re.compile(r"^\s*(?:not\s+)?-?[a-z_][A-Za-z0-9_']*\s*\(")


def looks_like_asp(rule: str) -> bool:
    return ":-" in rule or rule.lstrip().startswith("#") or bool(_ATOM_START.match(rule))


@dataclass(frozen=True)
class AspCheck:
    is_asp: bool
    ok: bool
    error: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {"is_asp": self.is_asp, "ok": self.ok, "error": self.error}


def _first_error(messages: list[str], fallback: str) -> str:
    for m in messages:
        text = " ".join(m.split())
        if "error" in text:
            return text.replace("<string>:", "").replace("<block>:", "")
    return fallback


def check_asp(rule: str, mode: str = "auto") -> AspCheck:
    """Parse (and, when safe to do so, ground) a rule with clingo.

    mode: "auto" checks rules that look like ASP, "always" checks every rule, "off" checks none.
    """
    if mode == "off" or (mode == "auto" and not looks_like_asp(rule)):
        return AspCheck(is_asp=mode != "off" and looks_like_asp(rule), ok=True)
    if "#" in rule:
        # Directives are not part of a rule, and #script would run code inside the checker.
        return AspCheck(True, False, "directives (#...) are not allowed in a rule")
    # clingo is heavy and needed only for a rule written in ASP: loaded here, not at the top.
    import clingo
    import clingo.ast

    messages: list[str] = []
    try:
        clingo.ast.parse_string(rule, lambda _stm: None, logger=lambda _c, m: messages.append(m), message_limit=5)
    except RuntimeError:
        return AspCheck(True, False, "syntax error: " + _first_error(messages, "clingo could not parse the rule"))
    if ".." in rule:
        # Intervals can make grounding arbitrarily large; the syntax check above is enough here.
        return AspCheck(True, True)
    messages.clear()
    ctl = clingo.Control(["--warn=none"], logger=lambda _c, m: messages.append(m), message_limit=5)
    try:
        ctl.add("base", [], rule)
        ctl.ground([("base", [])])
    except RuntimeError:
        return AspCheck(True, False, "cannot be grounded: " + _first_error(messages, "clingo rejected the rule"))
    return AspCheck(True, True)


def engine_issue(check: AspCheck) -> str | None:
    """The critical issue the engine adds to the critic's list for a rule that is not valid ASP."""
    if check.ok:
        return None
    return f"{ENGINE_ISSUE_PREFIX} the rule is not valid ASP ({check.error}); it must parse before it can be accepted."


def rule_diff(before: str, after: str) -> dict[str, list[str]]:
    """Which literals a revision added and removed: what a reviewer wants to see between rounds."""
    a, b = rule_literals(before), rule_literals(after)
    return {"added": [x for x in b if x not in a], "removed": [x for x in a if x not in b]}


def stabilised(jaccard: float, threshold: float = JACCARD_THRESHOLD) -> bool:
    """The thesis and its synthesis are similar enough to count as the same rule."""
    return jaccard >= threshold


def stabilised_but_not_valid(jaccard: float, rule_parses: bool, threshold: float = JACCARD_THRESHOLD) -> bool:
    """The rule stopped changing but does not parse: the engine refuses to converge on it."""
    return stabilised(jaccard, threshold) and not rule_parses


def stop_reason(
    *,
    round_no: int,
    max_rounds: int,
    recommendation: str,
    jaccard: float | None = None,
    rule_parses: bool = True,
    threshold: float = JACCARD_THRESHOLD,
) -> Stop | None:
    """Whether the debate stops now, and why; None carries on.

    The dialectic source protocol's convergence check: "Similar to previous? (Jaccard > 0.85) → CONVERGE; Critic accepts?
    → CONVERGE; Max rounds reached? → STOP". A critic's accept stops before any synthesis (there is
    nothing to merge); `jaccard` is None until the round's synthesis exists, and only then do the
    similarity and the round budget count. A rule that stabilised but is not valid ASP does not
    converge (see `stabilised_but_not_valid`).
    """
    if recommendation == "accept":
        return Stop(True, "Critic accepted thesis")
    if jaccard is None:
        return None
    if stabilised(jaccard, threshold) and rule_parses:
        return Stop(True, f"Convergence score {jaccard:.2f} exceeded threshold")
    if round_no >= max_rounds:
        return Stop(False, f"Max rounds ({max_rounds}) reached")
    return None


def _words(literals: list[str]) -> str:
    names = [m.group(1).replace("_", " ") if (m := re.match(r"(?:not\s+)?-?([a-z_][A-Za-z0-9_']*)", lit)) else lit
             for lit in literals]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def rule_in_words(rule: str, check: AspCheck) -> str:
    """The first sentence of the verdict: the rule stated in words. A plain-language rule already is;
    an ASP rule is read out ("X holds for C when a, b and c hold, unless d or e holds") and then given."""
    if not check.is_asp:
        return rule.strip()
    head_text, neck, body_text = rule.partition(":-")
    head = rule_literals(head_text)
    if not head:
        return f"The rule, as written in ASP: {rule.strip()}"
    body = rule_literals(body_text) if neck else []
    positive = [b for b in body if not b.startswith("not ")]
    negated = [b for b in body if b.startswith("not ")]
    args = head[0][head[0].index("(") + 1:head[0].rindex(")")].strip()
    sentence = f"{_words(head)} holds for {args}" if args else f"{_words(head)} holds"
    if positive:
        sentence += f" when {_words(positive)} " + ("holds" if len(positive) == 1 else "all hold")
    if negated:
        sentence += ", unless " + _words(negated).replace(" and ", " or ") + " holds"
    sentence = sentence[0].upper() + sentence[1:]
    return f"{sentence}. As an ASP rule: {rule.strip()}"


def withdrawn_left_out(final_rule: str, evidence: Sequence[Evidence]) -> list[str]:
    """Rule: "the answer names what the rule leaves out because a passage withdrew it", so a reviewer
    sees why a predicate the older text required is not there: one note per withdrawing sentence."""
    literals = set(re.findall(r"\b([a-z][a-z0-9_]*)\s*\(", final_rule))
    described = declarations(evidence)
    if not described:
        return []
    notes = []
    # A sentence that stops holding something back ("no longer withhold ... because of debts other than
    # tuition fees") withdraws it as surely as one that says it "no longer applies".
    lifting = [(ev, sent) for ev in evidence for sent in sentences(ev.text) if lifts(sent)]
    for ev, sent in [*((ev, sent) for ev, sent, _ in withdrawing_sentences(evidence)), *lifting]:
        gone = [name for name in withdrawn_names(sent, described) if name not in literals]
        if gone:
            notes.append(f"Left out as withdrawn: {', '.join(gone)} ({ev.id}: \"{quote(sent, 120)}\").")
    return notes


def low_confidence(speaker: str, confidence: float, threshold: float) -> str | None:
    """Rule: "a final rule its author holds with low confidence goes to a human"; the reason or None."""
    return low_confidence_reason({speaker: confidence}, threshold)


def not_assessed(uncertainties: Sequence[str]) -> str | None:
    """Rule: "a final rule whose agents could not assess part of the case goes to a human"; the reason or None."""
    return unassessed_reason(uncertainties)


def superseded_rule(final_rule: str, evidence: Sequence[Evidence]) -> list[str]:
    """Rule: "a final rule that keeps what a later amendment in the passages changed goes to a human";
    one reason per amendment, naming the amended passage and the amendment (amendments.py)."""
    return kept_superseded(final_rule, evidence)


def withdrawn_kept(final_rule: str, evidence: Sequence[Evidence]) -> list[str]:
    """Rule: "a final rule that keeps what a passage says no longer applies goes to a human"; one
    reason per withdrawing sentence, naming the passage and what the rule keeps (amendments.py)."""
    return kept_withdrawn(final_rule, evidence)


def conflicting_passages(final_rule: str, evidence: Sequence[Evidence]) -> list[str]:
    """Rule: "passages that set different figures on the rule's subject (amendments.py), or of the same
    standing name different forms of one of its conditions (variants.py), neither amending the other,
    or a passage that says the documents disagree on a point still to be decided, or that the point
    is not yet decided at all (disputes.py), send the rule to a human"; one reason per pair or
    passage, naming the passages."""
    return (unsettled_conflicts(final_rule, evidence) + variant_conflicts(evidence) + disagreement_on_record(evidence)
            + undecided_on_record(evidence))


def alternatives_both_required(final_rule: str, evidence: Sequence[Evidence]) -> list[str]:
    """Rule: "a final rule that requires both of two things a passage of standing says either of will
    do ("must hold £5 million cover or be affiliated to a County FA") goes to a human"; one reason per
    such requirement, quoting it (alternatives.py)."""
    return both_required(final_rule, evidence)


def amendment_not_in_force(evidence: Sequence[Evidence]) -> list[str]:
    """Rule: "an amendment that takes effect only on a day still to be appointed, with no passage
    saying it has, sends the rule to a human"; one reason per such passage (amendments.py)."""
    return not_in_force(evidence)


def amendment_starts_later(evidence: Sequence[Evidence], question: str) -> list[str]:
    """Rule: "an amendment that takes effect from no date, or from a date after the time the question
    asks about, leaves open which version applies then"; one reason per such passage (amendments.py)."""
    return starts_after_question(evidence, question)


def verdict(
    *,
    final_rule: str,
    final_confidence: float,
    final_check: AspCheck,
    last_recommendation: str | None,
    converged: bool,
    convergence_reason: str,
    rounds: int,
    max_rounds_escalates: bool = True,
    min_confidence: float = 0.0,
    final_speaker: str = "the final rule's author",
    uncertainties: Sequence[str] = (),
    superseded: Sequence[str] = (),
    withdrawn: Sequence[str] = (),
    conflicts: Sequence[str] = (),
    not_in_force: Sequence[str] = (),
    starts_later: Sequence[str] = (),
    left_out: Sequence[str] = (),
    either: Sequence[str] = (),
) -> Verdict:
    """The final rule, stated in words first, escalated when it does not parse, the critic rejected it,
    the critic never accepted it within the round budget, its confidence is below `min_confidence`,
    the agents said what they could not assess, or it keeps what a later amendment changed
    (`superseded`: the reasons amendments.kept_superseded gives, each naming both passages), or keeps
    what a passage says no longer applies (`withdrawn`: amendments.kept_withdrawn), or rests on passages
    that disagree with neither amending the other (`conflicts`: amendments.unsettled_conflicts), or the
    passages hold an amendment not yet in force (`not_in_force`: amendments.not_in_force), or one that
    starts from no date or after the time the question asks about (`starts_later`), or it requires both
    of two things a passage says either of will do (`either`: alternatives.both_required)."""
    reasons: list[str] = []
    rules: list[str] = []
    if superseded:
        reasons.extend(superseded)
        rules.append("kept_superseded_rule")
    if withdrawn:
        reasons.extend(withdrawn)
        rules.append("kept_withdrawn_rule")
    if conflicts:
        reasons.extend(conflicts)
        rules.append("conflicting_passages")
    if not_in_force:
        reasons.extend(not_in_force)
        rules.append("amendment_not_in_force")
    if starts_later:
        reasons.extend(starts_later)
        rules.append("amendment_starts_later")
    if either:
        reasons.extend(either)
        rules.append("alternatives_both_required")
    if not final_check.ok:
        reasons.append(f"The final rule is not valid ASP: {final_check.error}")
        rules.append("final_rule_unparsable")
    if last_recommendation == "reject":
        reasons.append("The critic's last word on the rule was reject")
        rules.append("critic_rejected")
    if not converged and max_rounds_escalates:
        reasons.append(f"No convergence after {rounds} round(s): the critic never accepted the rule")
        rules.append("max_rounds_without_acceptance")
    low = low_confidence(final_speaker, final_confidence, min_confidence)
    if low:
        reasons.append(low[0].upper() + low[1:])
        rules.append("low_confidence")
    unassessed = not_assessed(uncertainties)
    if unassessed:
        reasons.append(unassessed[0].upper() + unassessed[1:])
        rules.append("not_assessed")
    if not rules:
        rules.append("converged_rule_accepted")
    check_note = "parses with clingo" if final_check.is_asp and final_check.ok else (
        "is not checked as ASP" if not final_check.is_asp else "does not parse")
    rationale = f"{convergence_reason}. The final rule {check_note}."
    return Verdict(
        answer=" ".join([rule_in_words(final_rule, final_check), *left_out]),
        short_answer=short_answer(rule_in_words(final_rule, final_check)),
        confidence=round(max(0.0, min(1.0, final_confidence)), 4),
        needs_human_review=bool(reasons),
        escalation_reasons=reasons,
        rationale=rationale,
        applied_rules=rules,
    )
