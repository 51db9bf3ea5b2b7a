"""Consensus and verdict for the arbitration protocol (sections 3 and 4 of the contradiction-arbitration
source protocol). No model calls.

Per contradiction, the arbiters' resolutions are pooled by a confidence-weighted vote: a
resolution is accepted when it holds more than half of the arbiters and more than half of their
confidence; otherwise the decision is split and flagged for human review. An accepted ruling is
still flagged when its action is flag_for_review, it rules neither valid, its action contradicts
its resolution, its confidence is under the minimum, or it recommends a value nobody reported.

An accepted ruling also goes to a human when its arbiters are not confident enough or said what
they could not assess (the rules every moderator applies, debate_core/protocols/common.py).

Per metric, accepted pairwise rulings must fit together: when every report on a metric lost at
least one ruling (A beats B, B beats C, C beats A) the metric is a split decision and its rulings
are flagged. Reports that lost adopt the value of the report that beat them, followed up to a
report that never lost; both-valid pairs keep both values with context.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ....core.schemas import AgentReport, Evidence, Verdict
from ...common import low_confidence_reason, short_answer, unassessed_reason
from ..contradictions import (
    VALUE_THRESHOLD,
    Contradiction,
    cited_words,
    exceeds,
    metric_words,
    quoted_numbers,
    relative_difference,
)
from ..escalation import ruling_context, units_mismatch_reason, weak_tie_break_reason
from ..models import Decision, Resolution
from .agreeing import figure_shown as _shown
from .verdict import (
    kept_called_wrong,
    measured_after_question,
    observed_either_side,
    one_figure_asked,
    one_time_asked,
    open_in_the_record,
    part_unanswered,
    valid_either_side,
)

MIN_RESOLUTION_CONFIDENCE = 0.5
RESOLUTIONS = ("agent1_correct", "agent2_correct", "both_valid", "neither_valid")
_FITTING_ACTION = {"agent1_correct": "use_agent1", "agent2_correct": "use_agent2", "both_valid": "use_both"}
# No source is ranked above another unless the reviewer says so: by default the evidence passages'
# own `authority` decides.
DEFAULT_AUTHORITY_ORDER: tuple[str, ...] = ()


def authority_order(options: dict[str, Any] | None) -> list[str]:
    """The configured source order (settings.options["authority_order"]), list or "A > B > other"."""
    raw = (options or {}).get("authority_order", DEFAULT_AUTHORITY_ORDER)
    if isinstance(raw, str):
        raw = [part.strip() for part in raw.split(">")]
    return [str(x).strip() for x in raw if str(x).strip() and str(x).strip().lower() != "other"]


def value_reported(c: Contradiction, resolution: str, value: float | str | None,
                   threshold: float = VALUE_THRESHOLD) -> bool:
    """A recommended value must be one the agents reported (or, for both valid, within their range).

    "Reported" uses the debate's own value threshold: a value within `threshold` of a reported one
    is the same figure, just as two reports that close do not contradict each other (the contradiction-arbitration source protocol,
    section 1: "Same metric name, different values (>5% difference)")."""
    if value is None:
        return True
    found = [value] if isinstance(value, (int, float)) else quoted_numbers(str(value))
    reported = [v for v in (c.agent1_value, c.agent2_value) if v is not None]
    if not found or not reported:
        return True
    if resolution in ("agent1_correct", "agent2_correct"):
        own = c.agent1_value if resolution == "agent1_correct" else c.agent2_value
        allowed = [own] if own is not None else reported
        return all(any(not exceeds(relative_difference(v, a), threshold) for a in allowed) for v in found)
    lo, hi = min(reported), max(reported)
    return all(lo <= v <= hi or any(not exceeds(relative_difference(v, a), threshold) for a in reported)
               for v in found)


def low_confidence_rule(rulings: dict[str, Resolution], majority: list[str],
                        min_confidence: float = MIN_RESOLUTION_CONFIDENCE) -> str | None:
    """Rule: a ruling whose arbiters are, on average, less confident than the minimum goes to a human.
    The reason names each arbiter under the minimum."""
    mean = sum(rulings[n].confidence for n in majority) / len(majority)
    if mean >= min_confidence:
        return None
    return low_confidence_reason({n: rulings[n].confidence for n in majority}, min_confidence)


def unassessed_rule(rulings: dict[str, Resolution], majority: list[str]) -> str | None:
    """Rule: a ruling its arbiters could not fully assess goes to a human, with what they could not assess."""
    who = "the arbiter" if len(majority) == 1 else "the arbiters"
    return unassessed_reason((u for n in majority for u in rulings[n].uncertainties), who)


def decide(
    c: Contradiction, rulings: dict[str, Resolution], min_confidence: float = MIN_RESOLUTION_CONFIDENCE,
    value_threshold: float = VALUE_THRESHOLD, evidence: Sequence[Evidence] = (), order: Sequence[str] = (),
) -> Decision:
    """Pool the arbiters' rulings on one contradiction (confidence-weighted majority); `value_threshold`
    is the debate's, so a recommended value is checked against the reports with the same tolerance
    that found the contradiction. Whatever the arbiters say, two reports in different units go to a
    person, and so does a choice between two figures far apart that only a tie-break made
    (escalation.py; `evidence` is the case's passages, `order` the configured authority order)."""
    units = units_mismatch_reason(c)
    weights: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    for r in rulings.values():
        weights[r.resolution] += r.confidence
        counts[r.resolution] += 1
    total_w, total_n = sum(weights.values()), sum(counts.values())
    leader = max(RESOLUTIONS, key=lambda k: (weights[k], counts[k], -RESOLUTIONS.index(k)))
    majority = [name for name, r in rulings.items() if r.resolution == leader]
    arbiters = {name: r.model_dump(mode="json") for name, r in sorted(rulings.items())}
    votes = {k: round(weights[k], 4) for k in RESOLUTIONS if counts[k]}
    weight_ok = weights[leader] > total_w / 2 if total_w > 0 else counts[leader] > total_n / 2
    if not (counts[leader] > total_n / 2 and weight_ok):
        split = ", ".join(f"{name}: {r.resolution}" for name, r in sorted(rulings.items()))
        d = Decision(c.index, "resolved", None, "flag_for_review",
                     round(max(r.confidence for r in rulings.values()), 4),
                     f"The arbiters split ({split}).", votes=votes, arbiters=arbiters)
        d.flag(f"split decision among arbiters ({split})")
        if units:
            d.flag(units)
        return d
    best = max(majority, key=lambda name: (rulings[name].confidence, name))
    top = rulings[best]
    actions: Counter[str] = Counter()
    for name in majority:
        actions[rulings[name].action] += rulings[name].confidence
    action = max(sorted(actions), key=lambda a: actions[a])
    confidence = round(sum(rulings[n].confidence for n in majority) / len(majority), 4)
    d = Decision(c.index, "resolved", leader, action, confidence, top.explanation,
                 top.recommended_value, top.recommended_citation, votes=votes, arbiters=arbiters)
    if leader == "neither_valid":
        d.flag("the arbiter found neither value valid")
    elif action == "flag_for_review":
        d.flag("the arbiter asked for human review")
    elif action != _FITTING_ACTION[leader]:
        d.flag(f"the action {action} does not fit the resolution {leader}")
    low = low_confidence_rule(rulings, majority, min_confidence)
    if low:
        d.flag(low)
    gaps = unassessed_rule(rulings, majority)
    if gaps:
        d.flag(gaps)
    if d.resolved and not value_reported(c, leader, top.recommended_value, value_threshold):
        d.flag(f"the recommended value {top.recommended_value!r} is not among the reported values")
    if units:
        d.flag(units)
    tie = weak_tie_break_reason(c, leader, evidence, order)
    if tie:
        d.flag(tie)
    d.context = ruling_context(c, leader, evidence)
    return d


# ---------------------------------------------------------------------------
# Consensus across contradictions
# ---------------------------------------------------------------------------


@dataclass
class ConsensusResult:
    """Section 3 of the contradiction-arbitration source protocol, plus the per-metric view the narrative and the app use."""

    resolved_contradictions: int
    flagged_for_review: int
    consensus_narrative: str
    adjusted_reports: list[dict[str, Any]]
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "resolved_contradictions": self.resolved_contradictions,
            "flagged_for_review": self.flagged_for_review,
            "consensus_narrative": self.consensus_narrative,
            "adjusted_reports": self.adjusted_reports,
            "metrics": self.metrics,
        }


def _winner_loser(c: Contradiction, d: Decision) -> tuple[int, int] | None:
    if not d.resolved or d.resolution not in ("agent1_correct", "agent2_correct"):
        return None
    return (c.report1, c.report2) if d.resolution == "agent1_correct" else (c.report2, c.report1)


def check_metrics(contradictions: list[Contradiction], decisions: dict[int, Decision]) -> dict[str, dict[str, Any]]:
    """Fit the accepted pairwise rulings of each metric together; flag metrics whose rulings cycle."""
    metrics: dict[str, dict[str, Any]] = {}
    for metric in sorted({c.metric_name for c in contradictions}):
        cs = [c for c in contradictions if c.metric_name == metric]
        beats: dict[int, list[tuple[int, float]]] = {}  # loser -> [(winner, ruling confidence)]
        for c in cs:
            wl = _winner_loser(c, decisions[c.index])
            if wl:
                beats.setdefault(wl[1], []).append((wl[0], decisions[c.index].confidence))
        involved = sorted({p for c in cs for p in (c.report1, c.report2)})
        standing = [p for p in involved if p not in beats]
        winners = {w for lst in beats.values() for w, _ in lst}
        status = "resolved"
        if beats and not (winners & set(standing)):
            status = "split"
            for c in cs:
                d = decisions[c.index]
                if _winner_loser(c, d):
                    d.flag(f"split decision: the pairwise rulings on {metric} contradict each other")
            beats = {}
        adopted = {loser: _adopt(loser, beats) for loser in beats}
        if any(not decisions[c.index].resolved for c in cs) and status == "resolved":
            status = "flagged"
        metrics[metric] = {
            "status": status,
            "contradictions": [c.index for c in cs],
            "standing_reports": standing if status != "split" else [],
            "superseded_reports": sorted(beats),
            "adopted_from": {str(k): v for k, v in sorted(adopted.items())},
        }
    return metrics


def _adopt(loser: int, beats: dict[int, list[tuple[int, float]]]) -> int:
    """Follow the most confident ruling against a report up to one that never lost."""
    seen = {loser}
    current = loser
    while current in beats:
        nxt = max(beats[current], key=lambda wc: (wc[1], -wc[0]))[0]
        if nxt in seen:
            break
        seen.add(nxt)
        current = nxt
    return current


def _finding(r: AgentReport, reading: bool = False) -> str:
    """"0.1% (Statistics Office, Q1-2024)", with the agent's reading when the dispute is about it."""
    what = _shown(r.value, r.unit) if r.value is not None else "no value"
    if reading and r.interpretation:
        what = f"'{r.interpretation}'" if r.value is None else f"{what}, read as '{r.interpretation}'"
    basis = ", ".join(x for x in (r.source, r.period) if x)
    return what + (f" ({basis})" if basis else "")


def _describe(r: AgentReport, reading: bool = False) -> str:
    return f"{r.agent} reports {_finding(r, reading)}"


_OUTCOME_RANK = {"flagged_for_review": 4, "corrected": 3, "kept_with_context": 2, "confirmed": 1, "uncontested": 0}


def apply_resolutions(
    reports: list[AgentReport], contradictions: list[Contradiction], decisions: dict[int, Decision],
    metrics: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    """Reports with the debate's outcome written in; originals kept next to any corrected field."""
    out = [r.model_dump(mode="json") | {"debate_outcome": "uncontested", "debate_notes": []} for r in reports]

    def mark(pos: int, outcome: str, note: str) -> None:
        if _OUTCOME_RANK[outcome] > _OUTCOME_RANK[out[pos]["debate_outcome"]]:
            out[pos]["debate_outcome"] = outcome
        out[pos]["debate_notes"].append(note)

    for c in contradictions:
        d = decisions[c.index]
        tag = f"contradiction {c.index}"
        if not d.resolved:
            for pos in (c.report1, c.report2):
                mark(pos, "flagged_for_review", f"{tag}: flagged for review ({d.review_reason})")
        elif d.resolution == "both_valid":
            for pos, other in ((c.report1, c.report2), (c.report2, c.report1)):
                mark(pos, "kept_with_context", f"{tag}: both valid; also {_describe(reports[other], True)}")
        else:
            winner, loser = _winner_loser(c, d) or (c.report1, c.report2)
            mark(winner, "confirmed", f"{tag}: confirmed over {reports[loser].agent}")
    for info in metrics.values():
        for loser_s, source_pos in info["adopted_from"].items():
            loser, src = int(loser_s), reports[source_pos]
            rec = out[loser]
            rec["original_value"], rec["original_citation"] = rec["value"], rec["citation"]
            rec["original_interpretation"] = rec["interpretation"]
            rec["value"], rec["citation"], rec["unit"] = src.value, src.citation, src.unit
            if src.interpretation:
                rec["interpretation"] = src.interpretation
            rec["confidence"] = min(rec["confidence"], src.confidence)
            mark(loser, "corrected", f"corrected to {src.agent}'s finding: {_finding(src, True)}")
    return out


def _metric_sentence(metric: str, info: dict[str, Any], contradictions: list[Contradiction],
                     decisions: dict[int, Decision], reports: list[AgentReport],
                     value_threshold: float = VALUE_THRESHOLD) -> str:
    cs = [c for c in contradictions if c.metric_name == metric]
    reading = any("interpretation" in c.kinds for c in cs)
    if info["status"] == "split":
        members = sorted({c.report1 for c in cs} | {c.report2 for c in cs})
        return (f"{metric}: the pairwise rulings contradict each other ("
                + "; ".join(_describe(reports[p], reading) for p in members) + "); flagged for human review.")
    parts: list[str] = []
    superseded = info["superseded_reports"]
    if superseded:
        kept = sorted(set(info["adopted_from"].values()))
        parts.append(f"{metric}: " + " and ".join(f"{reports[p].agent}'s {_finding(reports[p], reading)}" for p in kept)
                     + " accepted over "
                     + " and ".join(f"{reports[p].agent}'s {_finding(reports[p], reading)}" for p in superseded)
                     + _readings_told(kept, superseded, reports, reading) + ".")
        parts.extend(dict.fromkeys(f"{d.context}." for c in cs for d in [decisions[c.index]] if d.resolved and d.context))
    valid = [c for c in cs if decisions[c.index].resolved and decisions[c.index].resolution == "both_valid"]
    if valid:
        members = sorted({p for c in valid for p in (c.report1, c.report2)} - set(superseded))
        vals = [reports[p].value for p in members if reports[p].value is not None]
        units = {reports[p].unit for p in members}
        unit = reports[members[0]].unit if members else None
        if len(vals) > 1 and exceeds(relative_difference(min(vals), max(vals)), value_threshold):
            why = "; ".join(dict.fromkeys(_first_sentence(decisions[c.index].explanation) for c in valid))
            # Figures in different units are no range: each is shown in its own (in _describe).
            spread = ((f" ranges {_shown(min(vals), unit)} to {_shown(max(vals), unit)}, both valid" if len(units) == 1
                       else " has figures in different units, both valid")
                      + (f" ({why})" if why else " depending on source and period"))
        else:
            spread = ": the findings agree; both are kept with their confidence as context"
        parts.append(f"{metric}{spread}: " + "; ".join(_describe(reports[p], reading) for p in members) + ".")
    for c in cs:
        d = decisions[c.index]
        if not d.resolved:
            parts.append(f"{metric}: {reports[c.report1].agent}'s {_finding(reports[c.report1], reading)} and "
                         f"{reports[c.report2].agent}'s {_finding(reports[c.report2], reading)} could not be "
                         f"reconciled ({d.review_reason}); flagged for human review.")
    return " ".join(parts)


def _readings_told(kept: list[int], superseded: list[int], reports: list[AgentReport], reading: bool) -> str:
    """What the figure kept and the figures it replaces each rest on, in their reports' own words
    (": 'arrival delay of 2 h 20 min: 50% due' against 'departure delay under two hours: 25% due'"):
    the reader sees why one stands. Told only where the figures, not the readings, are in dispute
    (there _finding already quotes them)."""
    said = [[reports[p].interpretation for p in group if reports[p].interpretation] for group in (kept, superseded)]
    if reading or not all(said):
        return ""
    return (": " + " and ".join(f"'{x}'" for x in said[0]) + " against " + " and ".join(f"'{x}'" for x in said[1])
            # The words the kept figure's record is cited with say what else that record counts.
            + "".join(f" ({reports[p].agent} cites '{q}')" for p in kept for q in [cited_words(reports[p].citation)]
                      if q and q.lower() not in (reports[p].interpretation or "").lower()))


def _first_sentence(text: str) -> str:
    """The first sentence of an arbiter's explanation (a decimal point does not end it)."""
    m = re.match(r"(.+?[.!?])(?:\s+[A-Z]|\s*$)", (text or "").strip(), re.S)
    return (m.group(1) if m else (text or "")).strip().rstrip(".")


def _use(r: AgentReport, by_period: bool) -> str:
    """"0.12% for 2024" when the periods tell the figures apart, else "0.12% (Central Bank, 2024)"."""
    if by_period and r.period:
        return f"{_shown(r.value, r.unit)} for {r.period}"
    return _finding(r)


def _metric_answer(metric: str, info: dict[str, Any], contradictions: list[Contradiction],
                   decisions: dict[int, Decision], reports: list[AgentReport],
                   value_threshold: float = VALUE_THRESHOLD) -> list[str]:
    """What to use for one metric, in a clause of the answer's first sentence."""
    cs = [c for c in contradictions if c.metric_name == metric]
    name = metric_words(metric)
    members = sorted({p for c in cs for p in (c.report1, c.report2)})
    if info["status"] == "split":
        return [f"a person must choose for {name} between " + " and ".join(_finding(reports[p]) for p in members)]
    out: list[str] = []
    superseded = set(info["superseded_reports"])
    kept = sorted(set(info["adopted_from"].values()))
    if kept:
        out.append("use " + " and ".join(_finding(reports[p]) for p in kept) + f" for {name}")
    valid = [c for c in cs if decisions[c.index].resolved and decisions[c.index].resolution == "both_valid"]
    standing = sorted({p for c in valid for p in (c.report1, c.report2)} - superseded)
    vals = [reports[p].value for p in standing if reports[p].value is not None]
    if standing and len(vals) > 1 and exceeds(relative_difference(min(vals), max(vals)), value_threshold):
        periods = {reports[p].period for p in standing}
        by_period = len(periods) == len(standing) and None not in periods
        out.append("use " + " and ".join(_use(reports[p], by_period) for p in standing)
                   + f" for {name}: both valid, each in its own context")
    elif standing:
        best = max(standing, key=lambda p: (reports[p].confidence, -p))
        out.append(f"use {_finding(reports[best])} for {name}: the figures agree")
    pending = [c for c in cs if not decisions[c.index].resolved]
    if pending:
        open_members = sorted({p for c in pending for p in (c.report1, c.report2)})
        out.append(f"a person must choose for {name} between "
                   + " and ".join(_finding(reports[p]) for p in open_members))
    return out


def answer_lead(contradictions: list[Contradiction], decisions: dict[int, Decision],
                metrics: dict[str, dict[str, Any]], reports: list[AgentReport],
                value_threshold: float = VALUE_THRESHOLD) -> str:
    """The answer's first sentence: which figures to use, metric by metric, before any detail."""
    clauses = [clause for m, info in metrics.items()
               for clause in _metric_answer(m, info, contradictions, decisions, reports, value_threshold)]
    if not clauses:
        return ""
    text = "; ".join(clauses)
    return text[0].upper() + text[1:] + "."


def build_consensus(
    reports: list[AgentReport], contradictions: list[Contradiction], decisions: dict[int, Decision],
    value_threshold: float = VALUE_THRESHOLD,
) -> ConsensusResult:
    """Section 3 of the contradiction-arbitration source protocol: the resolved and flagged counts, the adjusted reports and the narrative."""
    metrics = check_metrics(contradictions, decisions)
    adjusted = apply_resolutions(reports, contradictions, decisions, metrics)
    resolved = sum(1 for d in decisions.values() if d.resolved)
    flagged = len(decisions) - resolved
    head = (f"{len(contradictions)} contradiction(s) among {len(reports)} report(s) on "
            f"{len(metrics)} metric(s): {resolved} resolved, {flagged} flagged for review.")
    body = [_metric_sentence(m, info, contradictions, decisions, reports, value_threshold)
            for m, info in metrics.items()]
    lead = answer_lead(contradictions, decisions, metrics, reports, value_threshold)
    narrative = " ".join([x for x in (lead, head) if x] + [b for b in body if b])
    return ConsensusResult(resolved, flagged, narrative, adjusted, metrics)


# ---------------------------------------------------------------------------
# Verdict and trajectory
# ---------------------------------------------------------------------------


def provisional(narrative: str, needs_human: bool) -> str:
    """An answer that goes to a person opens as a proposal, not a ruling: "Provisionally, use 1.42 kg ...".
    Every contradiction may be resolved while the record still holds the point open; a reviewer
    reading "Use 1.42 kg" first would take it as settled."""
    if needs_human and narrative.startswith("Use "):
        return "Provisionally, use " + narrative[len("Use "):]
    return narrative


# A question that asks for one figure ("Which figure belongs in that sentence?").
def verdict(contradictions: list[Contradiction], decisions: dict[int, Decision], consensus: ConsensusResult,
            question: str = "", evidence: Sequence[Evidence] = ()) -> Verdict:
    """The consensus narrative as the answer; any flagged contradiction sends it to a human, and so does
    a question asking for one figure answered with several (`one_figure_asked`) or about one time
    answered with figures for different periods (`one_time_asked`)."""
    by_index = {c.index: c for c in contradictions}
    flagged = [d for d in decisions.values() if not d.resolved]
    reasons = [
        f"contradiction {d.index} on {by_index[d.index].metric_name} "
        f"({by_index[d.index].agent1_name} vs {by_index[d.index].agent2_name}): {d.review_reason}"
        for d in sorted(flagged, key=lambda d: d.index)
    ]
    # A question about one time answered by figures of other periods says the more precise thing.
    once = one_time_asked(question, contradictions, decisions)
    several = None if once else one_figure_asked(question, contradictions, decisions)
    straddled = None if once or several else valid_either_side(question, contradictions, decisions)
    reasons += [r for r in (once, several, straddled) if r]
    # The first of the rules on the record that speaks, with its code.
    later, later_rule = next(((reason, code) for code, rule in (
        ("escalate.measured_after_question", lambda: measured_after_question(question, contradictions, decisions)),
        ("escalate.observed_either_side", lambda: observed_either_side(question, contradictions, decisions, evidence)),
        ("escalate.open_in_the_record", lambda: open_in_the_record(contradictions, decisions, evidence)),
        ("escalate.kept_called_wrong", lambda: kept_called_wrong(contradictions, decisions, evidence)),
    ) for reason in [rule()] if reason), (None, None))
    if later:
        reasons.append(later)
    unanswered = part_unanswered(question, consensus.consensus_narrative)
    if unanswered:
        reasons.append(unanswered)
    resolved = [d for d in decisions.values() if d.resolved]
    mean = sum(d.confidence for d in resolved) / len(resolved) if resolved else 0.0
    # Flagged contradictions carry no confidence: the verdict is as sure as its resolved share.
    confidence = round(mean * len(resolved) / len(decisions), 4) if decisions else 0.0
    rules = ["detect.pairwise_by_metric", "consensus.confidence_weighted_majority"]
    kinds = {k for c in contradictions for k in c.kinds}
    rules += [f"detect.{k}" for k in ("value", "interpretation", "confidence", "source_conflict", "unit_mismatch")
              if k in kinds]
    if any(d.resolution == "both_valid" and d.resolved for d in decisions.values()):
        rules.append("consensus.both_valid_with_context")
    if any(info["status"] == "split" for info in consensus.metrics.values()):
        rules.append("consensus.metric_split_flagged")
    if flagged:
        rules.append("escalate.flagged_for_review")
    if several:
        rules.append("escalate.one_figure_asked")
    if once:
        rules.append("escalate.one_time_asked")
    if straddled:
        rules.append("escalate.valid_either_side")
    if later_rule:
        rules.append(later_rule)
    if unanswered:
        rules.append("escalate.part_unanswered")
    said = " ".join(d.review_reason or "" for d in flagged)
    rules += [code for code, mark in (("escalate.units_mismatch", "units mismatch:"),
                                      ("escalate.weak_tie_break", "weak tie-break:")) if mark in said]
    counts = Counter(d.resolution or "split" for d in decisions.values())
    needs_human = bool(flagged or several or once or straddled or later or unanswered)
    # A flagged contradiction already says in the first sentence that a person must choose.
    answer = provisional(consensus.consensus_narrative, needs_human and not flagged)
    return Verdict(
        answer=answer,
        short_answer=short_answer(answer),
        confidence=confidence,
        needs_human_review=needs_human,
        escalation_reasons=reasons,
        rationale=(f"{len(contradictions)} contradiction(s) arbitrated; rulings: "
                   + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
                   + f"; {consensus.resolved_contradictions} resolved, {consensus.flagged_for_review} flagged."),
        applied_rules=rules,
    )


def trajectory_entry(contradictions: list[Contradiction], decisions: dict[int, Decision]) -> dict[str, Any]:
    resolutions = {k: 0 for k in (*RESOLUTIONS, "split")}
    for d in decisions.values():
        resolutions[d.resolution or "split"] += 1
    severity = {"high": 0, "medium": 0, "low": 0}
    for c in contradictions:
        severity[c.severity] += 1
    per_arbiter: dict[str, list[float]] = {}
    for d in decisions.values():
        for name, r in d.arbiters.items():
            per_arbiter.setdefault(name, []).append(float(r["confidence"]))
    return {
        "round": 1,
        "contradictions": len(contradictions),
        "resolved": sum(1 for d in decisions.values() if d.resolved),
        "flagged_for_review": sum(1 for d in decisions.values() if not d.resolved),
        "resolutions": resolutions,
        "contradiction_severity": severity,
        "confidence": {k: round(sum(v) / len(v), 4) for k, v in sorted(per_arbiter.items())},
    }
