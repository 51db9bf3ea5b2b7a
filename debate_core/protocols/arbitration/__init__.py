"""Arbitration (the contradiction-arbitration source protocol): detect contradictions between agent reports, arbitrate each, build consensus.

Flow: case.reports -> contradictions (pure rules, contradictions.py) -> one arbiter call
per contradiction and arbiter at step ``c{i}.arbitrate.{arbiter}``, all at once through
``run.gather`` (the shared concurrency limiter bounds how many are in flight) -> confidence-weighted
consensus, adjusted reports and a rule-based verdict (debate_core.protocols.arbitration.rules).
With no contradictions the debate is skipped without a single model call.

Settings (``settings.options``): ``value_threshold`` (0.05), ``confidence_gap`` (0.3; null turns the
rule off), ``authority_order`` (empty: the evidence passages' own ``authority`` decides; or a list, or
"A > B > other"), ``min_resolution_confidence`` (0.5). The arbiters are profiles (the chosen agents,
the case's ``agents``, else one neutral ``arbiter``); each arbiter's identity enters its prompt.
"""

from __future__ import annotations

import re
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...core import prompts, steps
from ...core.profiles import identity
from ...core.schemas import Case, Evidence
from ...core.text import bm25_rank
from ...engine.runtime import DebateRun, Outcome
from ...engine.spec import CaseNeed, ProtocolSpec, StageSpec
from .. import run_options
from . import rows
from .contradictions import CONFIDENCE_GAP, VALUE_THRESHOLD, Contradiction, detect_contradictions, shown_value
from .models import Resolution
from .rules import (
    DEFAULT_AUTHORITY_ORDER,
    MIN_RESOLUTION_CONFIDENCE,
    authority_order,
    build_consensus,
    decide,
    trajectory_entry,
    value_reported,
    verdict,
)
from .rules.agreeing import skipped_verdict
from .rules.verdict import (
    kept_called_wrong,
    measured_after_question,
    observed_either_side,
    one_figure_asked,
    one_time_asked,
    open_in_the_record,
    valid_either_side,
)

NAME = "arbitration"
DEFAULT_AGENTS: list[dict[str, Any]] = [{
    "id": "arbiter", "name": "Arbiter",
    "role": "neutral arbitrator who checks what each figure measures and weighs both findings against the "
            "cited evidence",
}]
DEFAULT_ROUNDS = 1
MAX_ROUNDS = 1
MAX_PASSAGES = 8
EXTRA_PASSAGES = 2
MIN_AGENTS, MAX_AGENTS = 1, None


class Options(BaseModel):
    """The arbitration options (``settings.options``)."""

    model_config = ConfigDict(extra="forbid")

    value_threshold: float = Field(
        VALUE_THRESHOLD, ge=0, le=10,
        description="two values contradict when they differ by more than this share of the smaller one")
    confidence_gap: float | None = Field(
        CONFIDENCE_GAP, ge=0, le=1,
        description="two reports contradict when their confidences differ by more than this (null: never)")
    authority_order: list[str] = Field(
        list(DEFAULT_AUTHORITY_ORDER),
        description="sources in order of authority, most trusted first",
        json_schema_extra={"expects": "a list of source names or text such as 'Statistics Office > Central Bank > other'"})
    min_resolution_confidence: float = Field(
        MIN_RESOLUTION_CONFIDENCE, ge=0, le=1,
        description="an arbiter's ruling with less confidence than this is flagged for human review")

    @field_validator("authority_order", mode="before")
    @classmethod
    def _order_from_text(cls, value: Any) -> Any:
        # "A > B > other" is how people write an order; the list form is what the rules use.
        if isinstance(value, str) or (isinstance(value, list) and all(isinstance(x, str) for x in value)):
            return authority_order({"authority_order": value})
        return value



PRESETS: dict[str, dict[str, Any]] = {
    # Every default the source states: one neutral arbitrator, values more than 5% apart contradict,
    # and source authority ranks GCC-STAT > World Bank > other ("other" is implied after the list).
    "as in the source: GCC-STAT > World Bank > other, 5% apart": {
        "rounds": 1,
        "agents": [dict(a) for a in DEFAULT_AGENTS],
        "options": {"value_threshold": 0.05, "authority_order": ["GCC-STAT", "World Bank"]},
    },
    "tolerant (10% before a contradiction)": {"options": {"value_threshold": 0.10}},
    "three arbiters voting": {"agents": [{"id": "arbiter"}, {"id": "arbiter2"}, {"id": "arbiter3"}]},
}

def _side_text(c: Contradiction, n: int) -> str:
    s = c.side(n)
    value = shown_value(s["value"], s["unit"])
    lines = [f"- Agent {n} ({s['name']}): {value} {s['citation'] or '(no citation)'} (confidence: {s['confidence']})"]
    details = [f"{k}: {s[k]}" for k in ("source", "period", "interpretation") if s.get(k)]
    if details:
        lines.append("  " + "; ".join(details))
    return "\n".join(lines)


def contradiction_text(c: Contradiction) -> str:
    """The source protocol's CONTRADICTION block, plus source, period and reading of each side."""
    diff = "" if c.relative_difference is None else f"\n- Relative difference: {c.relative_difference:.1%}"
    return (f"- Metric: {c.metric_name}\n{_side_text(c, 1)}\n{_side_text(c, 2)}{diff}\n"
            f"- Why flagged: {'; '.join(c.reasons)}\n- Severity: {c.severity}")


def relevant_evidence(case: Case, c: Contradiction) -> list[Evidence]:
    """Passages from either side's source or cited by id first, then the best matches for the metric."""
    keys = [re.sub(r"[^0-9a-z]+", "", (s or "").lower()) for s in (c.agent1_source, c.agent2_source)]
    cited = set(re.findall(r"[\w.-]+", f"{c.agent1_citation} {c.agent2_citation}"))
    chosen: list[Evidence] = []
    for ev in case.evidence:
        ev_key = re.sub(r"[^0-9a-z]+", "", ev.source.lower())
        if ev.id in cited or any(k and (k in ev_key or ev_key in k) for k in keys):
            chosen.append(ev)
    by_id = case.evidence_by_id()
    rest = {e.id: f"{e.source} {e.text}" for e in case.evidence if e not in chosen}
    ranked = bm25_rank(c.metric_name.replace("_", " "), rest) if rest else []
    # Only close matches for the metric join the cited sources' passages, and only a few.
    extra = [r.id for r in ranked if r.score > 0 and r.score >= 0.5 * ranked[0].score][:EXTRA_PASSAGES]
    return (chosen + [by_id[i] for i in extra])[:MAX_PASSAGES]


def authority_text(order: list[str]) -> str:
    """How the prompt states the authority criterion: the configured order, if any, then the passages'."""
    stated = "the authority each evidence passage states (official statistics above secondary sources and blogs)"
    if not order:
        return stated
    return " > ".join([*order, "other"]) + "; among other sources, " + stated


async def run(run: DebateRun) -> Outcome:
    started = time.perf_counter()
    options: Options = run_options(run)
    reports = list(run.case.reports)
    min_conf = options.min_resolution_confidence
    order = options.authority_order
    contradictions = detect_contradictions(
        reports, threshold=options.value_threshold, confidence_gap=options.confidence_gap
    )

    if not contradictions:
        if not reports:
            run.warn("the case has no reports: nothing to arbitrate")
        skipped = skipped_verdict(reports, run.case.question)
        empty = build_consensus(reports, [], {})
        empty.consensus_narrative = skipped.answer
        # The source protocol reports a skipped debate with zero latency: no arbitration took place.
        results = {"contradictions_found": 0, "resolved": 0, "flagged_for_review": 0,
                   "consensus_narrative": skipped.answer, "latency_ms": 0, "status": "skipped"}
        return Outcome(
            rounds=0, converged=True, convergence_reason="no contradictions", verdict=skipped,
            trajectory=[],
            result={"debate_results": results, "contradictions": [], "consensus": empty.to_dict()},
            summary={"contradictions": 0, "status": "skipped"},
        )

    profiles = {str(a["id"]): a for a in run.agent_profiles(DEFAULT_AGENTS)}
    arbiters = list(profiles)

    async def arbitrate(c: Contradiction, arbiter: str) -> tuple[int, str, Resolution, float]:
        t0 = time.perf_counter()
        out = await run.step(
            steps.per_contradiction(c.index, "arbitrate", arbiter),
            Resolution,
            "arbitration/arbitrate",
            {
                "identity": identity(profiles[arbiter]),
                "index": str(c.index),
                "kinds": ", ".join(c.kinds),
                "contradiction": prompts.data_block("contradiction", contradiction_text(c)),
                "evidence": prompts.evidence_block(relevant_evidence(run.case, c)),
                "authority_order": authority_text(order),
            },
            {"contradiction": c.to_dict(), "authority_order": order, "agent": profiles[arbiter]},
        )
        # Wall time of the call as the protocol saw it, including any wait for a concurrency slot.
        return c.index, arbiter, out, (time.perf_counter() - t0) * 1000

    replies = await run.gather(*(arbitrate(c, a) for c in contradictions for a in arbiters))
    rulings: dict[int, dict[str, Resolution]] = {c.index: {} for c in contradictions}
    latency: dict[int, float] = {c.index: 0.0 for c in contradictions}
    for index, arbiter, out, ms in replies:
        rulings[index][arbiter] = out  # type: ignore[assignment]
        latency[index] = max(latency[index], ms)
    threshold = options.value_threshold
    decisions = {c.index: decide(c, rulings[c.index], min_conf, threshold, run.case.evidence, order)
                 for c in contradictions}
    consensus = build_consensus(reports, contradictions, decisions, threshold)
    final = verdict(contradictions, decisions, consensus, run.case.question, run.case.evidence)
    entry = trajectory_entry(contradictions, decisions)
    run.emit("round_closed", round=1, metrics=entry)
    total_ms = round((time.perf_counter() - started) * 1000, 2)

    records = []
    for c in contradictions:
        d = decisions[c.index]
        records.append({
            **c.to_dict(),
            "step_ids": [steps.per_contradiction(c.index, "arbitrate", a) for a in arbiters],
            **d.to_dict(),
            "latency_ms": round(latency[c.index], 2),
        })
    results = {
        "contradictions_found": len(contradictions),
        "resolved": consensus.resolved_contradictions,
        "flagged_for_review": consensus.flagged_for_review,
        "consensus_narrative": consensus.consensus_narrative,
        "latency_ms": total_ms,
        "status": "complete",
    }
    flagged = consensus.flagged_for_review
    return Outcome(
        rounds=1,
        converged=flagged == 0,
        convergence_reason=("all contradictions resolved" if flagged == 0
                            else f"{flagged} contradiction(s) flagged for human review"),
        verdict=final,
        trajectory=[entry],
        result={"debate_results": results, "contradictions": records, "consensus": consensus.to_dict()},
        summary={"contradictions": len(contradictions), "resolved": consensus.resolved_contradictions,
                 "flagged_for_review": flagged, "status": "complete"},
    )


# ---------------------------------------------------------------------------
# The specification the CLI, the app and the exports read
# ---------------------------------------------------------------------------

GLOSSARY = {
    "detect.pairwise_by_metric": "Every pair of reports on the same measure was compared.",
    "consensus.confidence_weighted_majority": "The consensus weighs each ruling by its confidence.",
    "detect.value": "Two reports give values that differ by more than the threshold.",
    "detect.interpretation": "Two reports read the same measure in opposite directions.",
    "detect.confidence": "Two reports hold the same finding with clearly different confidence.",
    "detect.source_conflict": "Two reports cite different sources for the same measure.",
    "consensus.both_valid_with_context": "Both figures stand, each in its own context (period, scope or method).",
    "escalate.differ_under_threshold": "The figures differ by less than a contradiction needs, and the question "
                                       "asks to choose between them (which to use, which wins, which is the "
                                       "largest).",
    "escalate.either_side_of_asked": "The figures differ by less than a contradiction needs, but fall either side "
                                     "of a figure the question names.",
    "escalate.counts_differ": "The question asks how many, and the reports give different counts, however "
                              "close: a count is exact.",
    "escalate.part_unanswered": "The question also asks a yes-or-no question that the answer, given in "
                                "figures, does not address.",
    "escalate.one_figure_asked": "The question asks for one figure, and several stand, each in its own context.",
    "escalate.valid_either_side": "Figures that stand each in its own context fall either side of the figure the "
                                  "question turns on: which context it means decides the answer.",
    "escalate.one_time_asked": "The question asks about one time, and the figures stand for different periods.",
    "escalate.measured_after_question": "The figure chosen was measured after the day the question asks about, "
                                        "while the other was measured on it.",
    "escalate.observed_either_side": "The question asks about one day, and the figures were seen only before and "
                                     "after it: a person checks that day.",
    "escalate.open_in_the_record": "A passage of the case says the point the ruling settled is still open.",
    "escalate.kept_called_wrong": "A passage of the case says the source whose figure the ruling kept went wrong.",
    "consensus.metric_split_flagged": "The arbiters split on a measure, so it is flagged.",
    "escalate.flagged_for_review": "At least one contradiction could not be resolved with enough confidence.",
    "detect.unit_mismatch": "Two reports give the same measure in different units.",
    "escalate.units_mismatch": "Two reports give the same measure in different units: a person checks the units.",
    "escalate.weak_tie_break": "Two equally authoritative figures far apart were separated only by a tie-break "
                               "(a newer date, a fuller citation, a surer agent): a person decides.",
    "skip.no_contradictions": "The reports agree, so no arbitration was needed.",
}

SPEC = ProtocolSpec(
    name=NAME,
    title="Contradiction arbitration",
    description=(
        "Finds where agents' reported figures and readings contradict each other (values apart by more than a "
        "threshold, opposite readings, or clearly different confidence), asks an arbiter to resolve each "
        "contradiction from the evidence, and builds a consensus; contradictions it cannot resolve with "
        "enough confidence go to a human."
    ),
    default_agents=tuple(DEFAULT_AGENTS),
    min_agents=MIN_AGENTS,
    max_agents=MAX_AGENTS,
    min_rounds=DEFAULT_ROUNDS,
    max_rounds=MAX_ROUNDS,
    default_rounds=DEFAULT_ROUNDS,
    options_model=Options,
    run=run,
    stages=(
        StageSpec("arbitrate", "Arbitration", Resolution, "one arbiter's ruling on one contradiction",
                  reply_cap=750, noun="ruling"),
    ),
    presets=PRESETS,
    case_needs=(
        CaseNeed("reports", "the agents' findings to compare: agent, metric, value, unit, period, source",
                 lambda case: bool(case.reports)),
    ),
    moderator=(detect_contradictions, decide, value_reported, build_consensus, one_figure_asked, one_time_asked,
               valid_either_side, measured_after_question, observed_either_side, open_in_the_record, kept_called_wrong,
               verdict),
    glossary=GLOSSARY,
    agents_title="arbiters",
        offline_agent=f"{__name__}.agent",
        rows={"contradictions": rows.contradiction_rows},
        review_threshold=("min_resolution_confidence", 1.0),
    )
