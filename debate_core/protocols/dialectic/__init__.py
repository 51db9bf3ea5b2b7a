"""Dialectic, after the dialectic (thesis-antithesis-synthesis) source protocol:
thesis -> antithesis -> synthesis on a rule, the synthesis becoming the next thesis.

Round 1 starts from the generator's thesis; every round the critic answers with an antithesis and,
unless it accepts, the synthesizer merges both into a new rule. The debate stops when the critic
accepts, when the thesis and its synthesis reach the Jaccard threshold, or at the round budget.
Rules that look like ASP are checked with clingo by the engine itself: an unparsable rule becomes a
critical issue on the critic's list, overrides a critic's "accept" and blocks Jaccard convergence.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...core import profiles, prompts, steps
from ...core.schemas import ShortLine, items
from ...engine.convergence import rule_jaccard
from ...engine.runtime import DebateFailed, DebateRun, Outcome
from ...engine.spec import CaseNeed, ProtocolSpec, StageSpec
from .. import run_options
from . import rows, rules
from .models import Antithesis, Synthesis, Thesis

NAME = "dialectic"
DEFAULT_ROUNDS = 3
MAX_ROUNDS = 6
MIN_AGENTS = MAX_AGENTS = 3


class Options(BaseModel):
    """The dialectic options (``settings.options``)."""

    model_config = ConfigDict(extra="forbid")

    convergence_threshold: float = Field(
        rules.JACCARD_THRESHOLD, ge=0, le=1,
        description="the debate converges when a thesis and its synthesis share this much (Jaccard similarity)")
    asp_check: Literal["auto", "always", "off"] = Field(
        "auto", description="check rules with clingo: when they look like ASP, always, or never")
    escalate_at_max_rounds: bool = Field(
        True, description="send the verdict to a human when the critic never accepted the rule")
    review_below_confidence: float = Field(
        rules.REVIEW_BELOW_CONFIDENCE, ge=0, le=1,
        description="send the verdict to a human when the final rule's confidence is below this")

# The three parts of the debate, taken by position. A profile's role describes the agent; where a
# chosen profile has none, the part's own description stands in.
DEFAULT_AGENTS: list[dict[str, Any]] = [
    {"id": "generator", "name": "Generator",
     "role": "proposes a rule that closes the knowledge gap, built from the conditions the evidence states "
             "(and from the predicates it defines, when it defines any)"},
    {"id": "critic", "name": "Critic",
     "role": "finds missing conditions, edge cases, contradictions and syntax problems in the rule"},
    {"id": "synthesizer", "name": "Synthesizer",
     "role": "merges the thesis and the critique into a better rule that resolves the issues"},
]


class RuleThesis(Thesis):
    """A thesis, with what its author said it could not assess."""

    uncertainties: list[ShortLine] = items(3)


class RuleAntithesis(Antithesis):
    uncertainties: list[ShortLine] = items(3)


class RuleSynthesis(Synthesis):
    uncertainties: list[ShortLine] = items(3)


PRESETS: dict[str, dict[str, Any]] = {
    # Every default the dialectic source protocol states: generator, critic, synthesizer;
    # max_rounds=3; converged when the rule sets' Jaccard similarity reaches 0.85.
    "as in the source: 3 rounds, Jaccard 0.85": {
        "rounds": 3, "agents": [dict(a) for a in DEFAULT_AGENTS], "options": {"convergence_threshold": 0.85}},
    "strict stability (Jaccard 0.95)": {"options": {"convergence_threshold": 0.95}},
    "always check ASP syntax": {"options": {"asp_check": "always"}},
    "five rounds": {"rounds": 5},
}

def _agents(run: DebateRun) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    agents = run.agent_profiles(DEFAULT_AGENTS)
    ids = [a.get("id") for a in agents]
    if len(agents) != 3 or not all(ids) or len(set(ids)) != 3:
        raise DebateFailed("dialectic needs exactly three agents with distinct ids: generator, critic, synthesizer")
    merged = [{**agent, "role": agent.get("role") or default["role"]}
              for default, agent in zip(DEFAULT_AGENTS, agents, strict=True)]
    return merged[0], merged[1], merged[2]


def _thesis_step(generator_id: str) -> str:
    return steps.in_round(1, "thesis", generator_id)


def _entry(round_no: int, phase: str, speaker: str, step: str | None, content: str, **extra: Any) -> dict[str, Any]:
    return {"round": round_no, "phase": phase, "speaker": speaker, "step": step, "content": content, **extra}


def _critique_summary(anti: Antithesis) -> str:
    return (f"Identified {len(anti.issues)} issues, {len(anti.edge_cases)} edge cases, "
            f"{len(anti.contradictions)} contradictions. Recommendation: {anti.recommendation}")


async def run(run: DebateRun) -> Outcome:
    generator, critic, synthesizer = _agents(run)
    opts: Options = run_options(run)
    max_rounds = SPEC.rounds(run.settings.rounds, run.warn)
    threshold = opts.convergence_threshold
    asp_mode = opts.asp_check
    question = prompts.data_block("knowledge gap", run.case.question)
    evidence = prompts.evidence_block(run.case.evidence)
    domain_hint = run.case.domain_hint or "(none)"

    def new_evidence(iv: Any) -> None:
        """A reviewer's passage (the runtime has added it to the case) joins the following prompts."""
        nonlocal evidence
        if iv.kind == "evidence":
            evidence = prompts.evidence_block(run.case.evidence)

    run.on_intervention(new_evidence)

    thesis_sid = _thesis_step(generator["id"])
    first = await run.step(
        thesis_sid, RuleThesis, "dialectic/thesis",
        {"identity": profiles.identity(generator), "question": question, "evidence": evidence,
         "domain_hint": domain_hint},
        {"agent": generator},
    )
    initial = {"rule": first.rule.strip(), "reasoning": first.reasoning, "confidence": first.confidence}
    current = {**initial, "speaker": generator["id"], "step": thesis_sid, "uncertainties": first.uncertainties}
    transcript: list[dict[str, Any]] = []
    rounds_out: list[dict[str, Any]] = []
    trajectory: list[dict[str, Any]] = []
    final: dict[str, Any] = {}
    converged = False
    reason = ""
    last_recommendation: str | None = None
    critic_uncertainties: list[str] = []

    for n in range(1, max_rounds + 1):
        thesis_check = rules.check_asp(current["rule"], asp_mode)
        transcript.append(_entry(n, "thesis", current["speaker"], current["step"],
                                 f"Proposed: {current['rule']} Reasoning: {current['reasoning']}".strip(),
                                 confidence=current["confidence"], carried_over=n > 1))

        anti_sid = steps.in_round(n, "antithesis", critic["id"])
        engine_issue = rules.engine_issue(thesis_check)
        critic_said: dict[str, str] = {}

        def enforce(out: RuleAntithesis, sid: str = anti_sid, issue: str | None = engine_issue,
                    said: dict[str, str] = critic_said) -> RuleAntithesis:
            said["recommendation"] = out.recommendation
            if issue is None:
                return out
            # Idempotent, so that replaying an exported debate (which stores this output) adds it once.
            update: dict[str, Any] = {"issues": out.issues if issue in out.issues else [issue, *out.issues]}
            if out.recommendation == "accept":
                update["recommendation"] = "revise"
                run.warn(f"{sid}: the critic accepted a rule that is not valid ASP; the engine treats it as revise", sid)
            return out.model_copy(update=update)

        anti = await run.step(
            anti_sid, RuleAntithesis, "dialectic/antithesis",
            {"identity": profiles.identity(critic), "question": question, "evidence": evidence,
             "round": str(n), "thesis": prompts.data_block("thesis", current["rule"]),
             "thesis_reasoning": prompts.data_block("thesis reasoning", current["reasoning"] or "(none)"),
             "syntax_check": _syntax_note(thesis_check)},
            {"agent": critic, "thesis": dict(current), "round": n},
            postprocess=enforce,
        )
        last_recommendation = anti.recommendation
        critic_uncertainties = anti.uncertainties
        transcript.append(_entry(n, "antithesis", critic["id"], anti_sid, anti.argument or _critique_summary(anti),
                                 summary=_critique_summary(anti), recommendation=anti.recommendation))
        round_rec: dict[str, Any] = {
            "round_number": n,
            "thesis": {"rule": current["rule"], "reasoning": current["reasoning"], "confidence": current["confidence"],
                       "speaker": current["speaker"], "step": current["step"], "asp_check": thesis_check.as_dict()},
            "antithesis": {**anti.model_dump(mode="json"), "step": anti_sid,
                           "critic_recommendation": critic_said.get("recommendation", anti.recommendation),
                           "engine_issues": [engine_issue] if engine_issue else []},
            "synthesis": None,
            "jaccard": None,
            "rule_diff": {"added": [], "removed": []},
        }
        traj: dict[str, Any] = {
            "round": n, "confidence": {"thesis": current["confidence"]}, "issues": len(anti.issues),
            "edge_cases": len(anti.edge_cases), "contradictions": len(anti.contradictions),
            "recommendation": anti.recommendation, "thesis_parses": thesis_check.ok,
        }

        stop = rules.stop_reason(round_no=n, max_rounds=max_rounds, recommendation=anti.recommendation)
        if stop is not None:
            converged, reason = stop.converged, stop.reason
            final = {**current, "asp_check": thesis_check.as_dict()}
            transcript.append(_entry(n, "converged", "engine", None, "No synthesis needed. Thesis accepted by critic."))
            rounds_out.append(round_rec)
            trajectory.append(traj)
            run.emit("round_closed", round=n, metrics=traj)
            break

        syn_sid = steps.in_round(n, "synthesis", synthesizer["id"])
        syn = await run.step(
            syn_sid, RuleSynthesis, "dialectic/synthesis",
            {"identity": profiles.identity(synthesizer), "question": question, "evidence": evidence,
             "thesis": prompts.data_block("thesis", current["rule"]),
             "antithesis": prompts.data_block("antithesis", json.dumps(anti.model_dump(mode="json"), indent=1))},
            {"agent": synthesizer, "thesis": dict(current), "antithesis": anti.model_dump(mode="json"), "round": n},
        )
        syn_rule = syn.rule.strip()
        syn_check = rules.check_asp(syn_rule, asp_mode)
        jac = rule_jaccard(current["rule"], syn_rule)
        transcript.append(_entry(n, "synthesis", synthesizer["id"], syn_sid, syn.argument or f"Synthesized: {syn_rule}",
                                 rule=syn_rule, confidence=syn.confidence, convergence_score=jac))
        round_rec["synthesis"] = {"rule": syn_rule, "argument": syn.argument, "confidence": syn.confidence,
                                  "step": syn_sid, "asp_check": syn_check.as_dict()}
        round_rec["jaccard"] = jac
        round_rec["rule_diff"] = rules.rule_diff(current["rule"], syn_rule)
        traj.update(jaccard=jac, synthesis_parses=syn_check.ok)
        traj["confidence"]["synthesis"] = syn.confidence
        rounds_out.append(round_rec)
        trajectory.append(traj)
        run.emit("round_closed", round=n, metrics=traj)

        current = {"rule": syn_rule, "reasoning": syn.argument, "confidence": syn.confidence,
                   "speaker": synthesizer["id"], "step": syn_sid, "uncertainties": syn.uncertainties}
        if rules.stabilised_but_not_valid(jac, syn_check.ok, threshold):
            run.warn(f"{syn_sid}: the rule stabilised (Jaccard {jac:.2f}) but is not valid ASP; not converged", syn_sid)
        stop = rules.stop_reason(round_no=n, max_rounds=max_rounds, recommendation=anti.recommendation,
                                 jaccard=jac, rule_parses=syn_check.ok, threshold=threshold)
        if stop is not None:
            converged, reason = stop.converged, stop.reason
            final = {**current, "asp_check": syn_check.as_dict()}
            break

    final_check = rules.AspCheck(**{k: final["asp_check"][k] for k in ("is_asp", "ok", "error")})
    improvement = round(final["confidence"] - initial["confidence"], 4)
    verdict = rules.verdict(
        final_rule=final["rule"], final_confidence=final["confidence"], final_check=final_check,
        last_recommendation=last_recommendation, converged=converged, convergence_reason=reason,
        rounds=len(rounds_out),
        max_rounds_escalates=opts.escalate_at_max_rounds,
        min_confidence=opts.review_below_confidence,
        final_speaker=final["speaker"],
        uncertainties=[*final.get("uncertainties", []), *critic_uncertainties],
        superseded=rules.superseded_rule(final["rule"], run.case.evidence),
        withdrawn=rules.withdrawn_kept(final["rule"], run.case.evidence),
        conflicts=rules.conflicting_passages(final["rule"], run.case.evidence),
        either=rules.alternatives_both_required(final["rule"], run.case.evidence),
        not_in_force=rules.amendment_not_in_force(run.case.evidence),
        starts_later=rules.amendment_starts_later(run.case.evidence, run.case.question),
        left_out=rules.withdrawn_left_out(final["rule"], run.case.evidence),
    )
    result = {
        "initial_proposal": initial,
        "final_rule": {"rule": final["rule"], "reasoning": final["reasoning"], "confidence": final["confidence"],
                       "source_step": final["step"], "asp_check": final["asp_check"],
                       "uncertainties": list(final.get("uncertainties", []))},
        "rounds": rounds_out,
        "total_rounds": len(rounds_out),
        "converged": converged,
        "convergence_reason": reason,
        "improvement_score": improvement,
        "transcript": transcript,
        "settings": {"convergence_threshold": threshold, "asp_check": asp_mode, "max_rounds": max_rounds},
    }
    return Outcome(
        rounds=len(rounds_out), converged=converged, convergence_reason=reason, verdict=verdict,
        trajectory=trajectory, result=result,
        summary={"final_rule": final["rule"], "improvement_score": improvement, "arguments": len(transcript)},
    )


def _syntax_note(check: rules.AspCheck) -> str:
    if not check.is_asp:
        return "The rule is not written in ASP; no syntax check was run."
    if check.ok:
        return "The engine parsed the rule with clingo: it is valid ASP."
    return f"The engine could not parse the rule with clingo: {check.error}. This is a critical issue."


# ---------------------------------------------------------------------------
# The specification the CLI, the app and the exports read
# ---------------------------------------------------------------------------

GLOSSARY = {
    "final_rule_unparsable": "The final rule is written as ASP but does not parse.",
    "critic_rejected": "The critic's last word on the rule was to reject it.",
    "max_rounds_without_acceptance": "The critic never accepted the rule within the round budget.",
    "low_confidence": "The final rule's confidence is below the review threshold.",
    "not_assessed": "The agents said what they could not assess from the question and the passages.",
    "converged_rule_accepted": "The critic accepted the rule, or it stopped changing.",
    "kept_superseded_rule": "The final rule keeps what a later amendment in the passages changed.",
    "kept_withdrawn_rule": "The final rule keeps a condition or an exception a passage says no longer applies.",
    "conflicting_passages": "Passages set different figures or forms of a condition on the rule's subject, and "
                            "neither amends the other.",
    "amendment_starts_later": "An amendment in the passages takes effect from no date the passages give, or "
                              "from a date after the time the question asks about: which version applies then "
                              "is for a person to check.",
    "amendment_not_in_force": "An amendment in the passages takes effect only on a day still to be appointed, "
                              "and no passage says it has.",
    "alternatives_both_required": "The final rule requires both of two things a passage says either of will do: "
                                  "one rule cannot say \"or\".",
}

SPEC = ProtocolSpec(
    name=NAME,
    title="Thesis, antithesis, synthesis",
    description=(
        "A generator proposes a rule (a thesis), a critic answers with its issues, edge cases and "
        "contradictions (an antithesis), and a synthesizer merges both into a better rule, which becomes the "
        "next thesis. It stops when the critic accepts or the rule stops changing; rules written as ASP are "
        "checked for syntax."
    ),
    default_agents=tuple(DEFAULT_AGENTS),
    min_agents=MIN_AGENTS,
    max_agents=MAX_AGENTS,
    min_rounds=1,
    max_rounds=MAX_ROUNDS,
    default_rounds=DEFAULT_ROUNDS,
    options_model=Options,
    run=run,
    stages=(
        StageSpec("thesis", "Thesis", RuleThesis, "the first rule", reply_cap=1000, noun="thesis"),
        StageSpec("antithesis", "Antithesis", RuleAntithesis, "the critic's issues and recommendation",
                  reply_cap=1150, noun="antithesis"),
        StageSpec("synthesis", "Synthesis", RuleSynthesis, "the rule merged from the thesis and its critique",
                  reply_cap=1000, noun="synthesis"),
    ),
    presets=PRESETS,
    case_needs=(
        CaseNeed("evidence", "definitions, facts or clauses the rule is built on", lambda case: bool(case.evidence),
                 required=False, without="the rule is argued from the question alone"),
    ),
    moderator=(rules.check_asp, rules.engine_issue, rules.stop_reason, rules.stabilised_but_not_valid,
               rules.low_confidence, rules.not_assessed, rules.superseded_rule, rules.withdrawn_kept,
               rules.conflicting_passages, rules.amendment_not_in_force, rules.amendment_starts_later,
               rules.alternatives_both_required,
               rules.rule_in_words,
               rules.verdict),
    glossary=GLOSSARY,
    interventions=("evidence",),
        offline_agent=f"{__name__}.agent",
        plot_thresholds=rows.plot_thresholds,
        rows={"rounds": rows.dialectic_rounds},
        review_threshold=("review_below_confidence", 1.0),
    )
