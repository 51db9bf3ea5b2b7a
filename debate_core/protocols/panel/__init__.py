"""The persona panel, after the persona-panel source protocol.

Three personas with stances (analyst neutral, critic con, empath pro) speak in a fixed order for a
number of rounds, each turn planned, reflected on and then spoken (DebateTurn), each speaker seeing
the topic, its persona, the shared context JSON (the case's Stage1 signals) and the history so far.
A judge then summarises the debate (DebateSummary).

When the case carries stage ``signals`` the panel's turns become the Debate Review Context
(aspect hints with stance weights), the debate override corrects aspect polarities with a clear
panel signal, and the rule-based moderator (rules Z, B, M, C, A, D, E) decides the final label.
After the debate, the Stage2 reviews (validator corrections, aspect review, sentiment review: three
recorded steps, stage2.py) revise the Stage1 labels with the Debate Review Context, in the source's
order, before the debate override; a case that carries Stage2 output skips them. With
``enable_debate`` and ``stage2_review`` off there are no model calls: the moderator decides alone.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...core import profiles, prompts, steps
from ...core.schemas import Verdict
from ...engine.runtime import DebateFailed, DebateRun, Outcome
from ...engine.spec import CaseNeed, ProtocolSpec, StageSpec
from .. import run_options
from ..common import short_answer
from . import rows, stage2
from . import rules as mod
from .models import AspectReview, DebateSummary, DebateTurn, SentimentReview, ValidatorReview

NAME = "panel"
DEFAULT_ROUNDS = 2
MAX_ROUNDS = 6
DEFAULT_ORDER = ["analyst", "critic", "empath"]
MIN_AGENTS, MAX_AGENTS = 1, None

DEFAULT_AGENTS: list[dict[str, Any]] = [
    {"id": "analyst", "name": "Analyst", "stance": "neutral", "role": "analyst panelist",
     "style": "dry and evidence-based", "goal": "give a neutral judgement grounded in the evidence"},
    {"id": "critic", "name": "Critic", "stance": "con", "role": "critic panelist",
     "style": "sharp and logical", "goal": "strengthen the negative, critical reading"},
    {"id": "empath", "name": "Empath", "stance": "pro", "role": "empath panelist",
     "style": "warm and emotionally attuned", "goal": "strengthen the positive, supportive reading"},
]
_PERSONA_FIELDS = ("name", "stance", "role", "style", "goal")
_ID = re.compile(r"^[\w-]+$")

# Below this final confidence a verdict goes to a human; it is the boundary Rule E treats as low.
DEFAULT_REVIEW_CONFIDENCE = mod.RULE_E_MAX_CONFIDENCE


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------


class PersonaFields(BaseModel):
    """What `personas` may change about a persona."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, description="the name the persona speaks as")
    stance: str | None = Field(None, description="neutral, pro or con (others weigh in between)")
    role: str | None = Field(None, description="the persona's role on the panel")
    style: str | None = Field(None, description="how the persona speaks")
    goal: str | None = Field(None, description="what the persona argues for")


class OverrideOptions(BaseModel):
    """When the panel's signal may correct an aspect's polarity (the debate override)."""

    model_config = ConfigDict(extra="forbid")

    min_total: float = Field(mod.OverrideThresholds.min_total, ge=0,
                             description="fewest stance-weighted votes on an aspect before it may be corrected")
    min_margin: float = Field(mod.OverrideThresholds.min_margin, ge=0,
                              description="smallest lead of one polarity over the other")
    min_target_conf: float = Field(mod.OverrideThresholds.min_target_conf, ge=0, le=1,
                                   description="confidence given to a corrected aspect")


_WARN = mod.DEFAULT_WARN_THRESHOLDS


class WarnOptions(BaseModel):
    """When the debate metrics are worth a warning."""

    model_config = ConfigDict(extra="forbid")

    coverage_warn: float = Field(_WARN["coverage_warn"], ge=0, le=1, description="warn when mapping coverage is below this")
    coverage_high: float = Field(_WARN["coverage_high"], ge=0, le=1, description="severe when mapping coverage is below this")
    no_match_warn: float = Field(_WARN["no_match_warn"], ge=0, le=1, description="warn when the no-match rate is above this")
    no_match_high: float = Field(_WARN["no_match_high"], ge=0, le=1, description="severe when the no-match rate is above this")
    neutral_warn: float = Field(_WARN["neutral_warn"], ge=0, le=1, description="warn when the neutral-stance rate is above this")
    neutral_high: float = Field(_WARN["neutral_high"], ge=0, le=1, description="severe when the neutral-stance rate is above this")


class Options(BaseModel):
    """The panel options (``settings.options``)."""

    model_config = ConfigDict(extra="forbid")

    enable_debate: bool = Field(True, description="let the personas debate; off leaves the rule-based moderator alone")
    enable_debate_override: bool = Field(True, description="let a clear panel signal correct aspect polarities")
    stage2_review: bool = Field(True, description="run the Stage2 reviews (validator corrections, aspect review, "
                                "sentiment review) when the case carries no Stage2 output")
    personas: dict[str, PersonaFields] = Field(default_factory=dict,
                                               description="changes to personas, by persona id")
    order: list[str] | None = Field(None, min_length=1, description="the speaking order, by persona id",
                                    json_schema_extra={"expects": "a non-empty list of persona ids"})
    debate_override: OverrideOptions = Field(default_factory=OverrideOptions,
                                             description="thresholds of the debate override")
    debate_thresholds: WarnOptions = Field(default_factory=WarnOptions,
                                           description="thresholds of the metric warnings")
    review_confidence: float = Field(DEFAULT_REVIEW_CONFIDENCE, ge=0, le=1,
                                     description="send the verdict to a human when its confidence is below this")


# Every default the source protocol states (sections 2.1 and 8: its personas in its order, 2 rounds,
# override thresholds 1.6 / 0.8 / 0.7), then its ablations (section 8), as presets.
PRESETS: dict[str, dict[str, Any]] = {
    "as in the source: analyst, critic, empath, 2 rounds": {
        "rounds": 2, "agents": [dict(a) for a in DEFAULT_AGENTS],
        "options": {"enable_debate": True, "enable_debate_override": True, "order": ["analyst", "critic", "empath"],
                    "debate_override": {"min_total": 1.6, "min_margin": 0.8, "min_target_conf": 0.7}}},
    "abl_no_debate (no panel)": {"options": {"enable_debate": False, "enable_debate_override": False}},
    "abl_no_debate_override": {"options": {"enable_debate": True, "enable_debate_override": False}},
    "one round": {"rounds": 1},
}

def personas_for(run: DebateRun) -> list[dict[str, Any]]:
    """Personas in speaking order: the debate's agent profiles (chosen, the case's own, or the
    defaults; a default persona's stance is kept when a profile with its id does not set one), then
    options.personas overrides, then options.order."""
    options: Options = run_options(run)
    base = run.agent_profiles(DEFAULT_AGENTS)
    defaults = {a["id"]: a for a in DEFAULT_AGENTS}
    personas: dict[str, dict[str, Any]] = {}
    for agent in base:
        pid = str(agent.get("id") or "").strip()
        if not _ID.match(pid):
            raise DebateFailed(f"panel persona id {pid!r} must be letters, digits, '_' or '-'")
        if pid in personas:
            raise DebateFailed(f"panel persona id {pid!r} appears twice")
        merged = {**defaults.get(pid, {}), **agent, "id": pid}
        merged.setdefault("name", pid)
        merged.setdefault("stance", "neutral")
        personas[pid] = merged
    for pid, fields in options.personas.items():
        if pid not in personas:
            raise DebateFailed(f"panel option 'personas' names unknown persona '{pid}'")
        personas[pid].update(fields.model_dump(exclude_none=True))
    order = options.order
    if order is None:
        order = [p for p in DEFAULT_ORDER if p in personas] + [p for p in personas if p not in DEFAULT_ORDER]
    unknown = [str(p) for p in order if p not in personas]
    if unknown:
        raise DebateFailed(f"panel option 'order' names unknown persona(s): {', '.join(unknown)}")
    if len(set(order)) != len(order):
        raise DebateFailed("panel option 'order' repeats a persona")
    out = []
    for pid in order:
        p = dict(personas[pid])
        p["stance"] = str(p.get("stance") or "neutral").strip().lower()
        p["weight"] = mod.stance_weight(p["stance"])
        p["polarity"] = mod.stance_to_polarity(p["stance"])
        out.append(p)
    return out


def _persona_json(p: dict[str, Any]) -> str:
    return json.dumps({k: p.get(k, "") for k in ("id", *_PERSONA_FIELDS)}, ensure_ascii=False)


def persona_identity(p: dict[str, Any]) -> str:
    """The persona's identity for its prompts: its profile (name, role, instructions, terms) and its stance."""
    return f"{profiles.identity(p)}\nYour stance on the panel: {p['stance']}."


def _options(run: DebateRun) -> dict[str, Any]:
    options: Options = run_options(run)
    return {
        "enable_debate": options.enable_debate,
        "enable_debate_override": options.enable_debate_override,
        "stage2_review": options.stage2_review,
        "debate_override": mod.OverrideThresholds(**options.debate_override.model_dump()),
        "debate_thresholds": options.debate_thresholds.model_dump(),
        "review_confidence": options.review_confidence,
    }


# ---------------------------------------------------------------------------
# Signals and shared context
# ---------------------------------------------------------------------------


def _stage_json(stage: mod.StageSignal | None) -> dict[str, Any] | None:
    return stage.model_dump(mode="json", exclude_none=True) if stage is not None else None


def shared_context(case: Any, signals: mod.PanelSignals | None) -> dict[str, Any]:
    """What every speaker sees besides the evidence: the Stage1 outputs (the debate runs before Stage2)."""
    if signals is None:
        return {"text": case.question}
    stage1_atsa = signals.stage1_atsa
    terms = list(signals.aspect_terms) or [s.aspect for s in (stage1_atsa.aspect_sentiments if stage1_atsa else [])]
    return {
        "text": signals.text or case.question,
        "language": signals.language,
        "stage1_ate": _stage_json(signals.stage1_ate),
        "stage1_atsa": _stage_json(mod.resolve_stage(stage1_atsa)),
        "validator": signals.validator.model_dump(mode="json") if signals.validator else None,
        "aspect_terms": list(dict.fromkeys(terms)),
        "synonym_hints": signals.synonym_hints,
    }


# ---------------------------------------------------------------------------
# The debate
# ---------------------------------------------------------------------------


def _turn_record(step_id: str, rnd: int, persona: dict[str, Any], out: DebateTurn) -> dict[str, Any]:
    # Speaker and stance come from the step id and the panel's configuration, never from the model.
    return {"step": step_id, "round": rnd, "speaker": persona["id"], "name": persona.get("name", persona["id"]),
            "stance": persona["stance"], "planning": out.planning, "reflection": out.reflection,
            "message": out.message, "key_points": list(out.key_points)}


def _history_view(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    keys = ("round", "speaker", "stance", "message", "key_points")
    return [{k: t[k] for k in keys} for t in history]


async def _debate(run: DebateRun, personas: list[dict[str, Any]], rounds: int, context: dict[str, Any],
                  index: mod.TermIndex | None, atsa: list[mod.AspectSentiment]
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], DebateSummary]:
    case = run.case
    topic = prompts.data_block("topic", case.question)
    evidence = prompts.evidence_block(case.evidence)
    context_block = prompts.data_block("shared context json", context)

    def new_evidence(iv: Any) -> None:
        """A reviewer's passage (the runtime has added it to the case) joins the following turns."""
        nonlocal evidence
        if iv.kind == "evidence":
            evidence = prompts.evidence_block(run.case.evidence)

    run.on_intervention(new_evidence)
    history: list[dict[str, Any]] = []
    rounds_out: list[dict[str, Any]] = []
    trajectory: list[dict[str, Any]] = []
    for rnd in range(1, rounds + 1):
        turns: list[dict[str, Any]] = []
        for persona in personas:
            sid = steps.in_round(rnd, "turn", persona["id"])
            out = await run.step(
                sid, DebateTurn, "panel/turn",
                {"identity": persona_identity(persona),
                 "persona_json": _persona_json(persona), "persona_name": persona.get("name", persona["id"]),
                 "stance": persona["stance"], "round": str(rnd), "rounds": str(rounds), "topic": topic,
                 "shared_context": context_block, "evidence": evidence,
                 "history": prompts.data_block("history", _history_view(history) or "(no turns yet)")},
                {"persona": persona, "personas": personas, "round": rnd, "rounds": rounds,
                 "history": list(history), "context": context},
            )
            record = _turn_record(sid, rnd, persona, out)
            turns.append(record)
            history.append(record)
        rounds_out.append({"round": rnd, "turns": turns})
        point = _round_point(rnd, personas, turns, history, index, atsa)
        trajectory.append(point)
        run.emit("round_closed", round=rnd, metrics=point)
    summary = await run.step(
        steps.final("judge"), DebateSummary, "panel/judge",
        {"topic": topic, "evidence": evidence, "shared_context": context_block,
         "personas": prompts.data_block("personas", [json.loads(_persona_json(p)) for p in personas]),
         "persona_names": ", ".join(f"{p.get('name') or p['id']} ({p['id']}, {p['stance']})" for p in personas),
         "all_turns": prompts.data_block("all turns", _history_view(history))},
        {"turns": list(history), "personas": personas, "context": context},
        stage="judge_summary",
    )
    return rounds_out, trajectory, summary


def _round_point(rnd: int, personas: list[dict[str, Any]], turns: list[dict[str, Any]],
                 history: list[dict[str, Any]], index: mod.TermIndex | None,
                 atsa: list[mod.AspectSentiment]) -> dict[str, Any]:
    """One trajectory point: stance weights, per-persona mapping, and the cumulative aspect scores."""
    balance = {"positive": 0.0, "negative": 0.0, "neutral": 0.0}
    per: dict[str, Any] = {}
    for t in turns:
        p = next(x for x in personas if x["id"] == t["speaker"])
        info: dict[str, Any] = {"stance": p["stance"], "weight": p["weight"], "polarity_hint": p["polarity"],
                                "key_points": len(t["key_points"]), "message_chars": len(t["message"])}
        if index is not None:
            point = mod.map_turn(t, index, atsa)
            info.update(aspect_refs=point["aspect_refs"], mapping=point["mapping"])
        per[p["id"]] = info
        balance[p["polarity"]] = round(balance[p["polarity"]] + p["weight"], 4)
    out: dict[str, Any] = {"round": rnd, "stance_weights": {p["id"]: p["weight"] for p in personas},
                           "polarity_balance": balance, "personas": per}
    if index is not None:
        hints: dict[str, list[dict[str, Any]]] = {}
        for t in history:
            point = mod.map_turn(t, index, atsa)
            for aspect in point["aspect_refs"]:
                hints.setdefault(aspect, []).append(point)
        out["aspect_scores"] = mod.aspect_scores(hints)
    return out


# ---------------------------------------------------------------------------
# Verdict
# ---------------------------------------------------------------------------


def _checked_winner(run: DebateRun, summary: DebateSummary, personas: list[dict[str, Any]]) -> str | None:
    """The judge's winner as a persona id; a name the panel does not have is dropped with a warning."""
    if summary.winner is None or not str(summary.winner).strip():
        return None
    named = str(summary.winner).strip().lower()
    for p in personas:
        if named in (p["id"].lower(), str(p.get("name", "")).lower()):
            return p["id"]
    run.warn(f"the judge named a winner that is not on the panel ({summary.winner!r}); ignored",
             steps.final("judge"))
    return None


def _stage2_sentence(info: dict[str, Any], corrections: list[dict[str, Any]]) -> str:
    if info["source"] == "reviews":
        return mod.stage2_summary(corrections)
    if info["source"] == "case":
        return "Stage2 output came with the case, so its review steps were not run."
    return "The Stage2 review steps were turned off; Stage1's labels went to the moderator."


def _readable(decision: mod.ModeratorOutput, final_aspects: list[mod.AspectSentiment],
              summary: DebateSummary | None, override: dict[str, Any] | None,
              stage2_info: dict[str, Any], corrections: list[dict[str, Any]]) -> str:
    parts = [f"Final label {decision.final_label} (confidence {decision.confidence:.2f}, "
             f"{decision.selected_stage} selected). {decision.rationale}"]
    if summary is not None and summary.consensus.strip():
        parts.append(f"Panel consensus: {summary.consensus.strip()}")
    if final_aspects:
        parts.append("Aspects: " + ", ".join(f"{s.aspect}={s.polarity} ({s.confidence:.2f})" for s in final_aspects) + ".")
    if override and override.get("enabled"):
        stats = override["stats"]
        parts.append("Debate override: " + ", ".join(f"{k} {v}" for k, v in stats.items()) + ".")
    parts.append(_stage2_sentence(stage2_info, corrections))
    return " ".join(parts)


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


async def run(run: DebateRun) -> Outcome:
    case = run.case
    personas = personas_for(run)
    opts = _options(run)
    rounds = SPEC.rounds(run.settings.rounds, run.warn)
    try:
        signals = mod.parse_signals(case.signals) if case.signals else None
    except mod.SignalsError as exc:
        raise DebateFailed(str(exc)) from exc
    debated = opts["enable_debate"]
    if not debated and signals is None:
        raise DebateFailed("panel: enable_debate=false leaves only the moderator, which needs the case's "
                           "stage signals; this case has none")
    context = shared_context(case, signals)
    stage1_atsa = mod.resolve_stage(signals.stage1_atsa) if signals else None
    atsa = list(stage1_atsa.aspect_sentiments) if stage1_atsa else []
    index = mod.TermIndex.build(context.get("aspect_terms") or [], signals.synonym_hints) if signals else None

    rounds_out: list[dict[str, Any]] = []
    trajectory: list[dict[str, Any]] = []
    summary: DebateSummary | None = None
    winner: str | None = None
    if debated:
        rounds_out, trajectory, summary = await _debate(run, personas, rounds, context, index, atsa)
        winner = _checked_winner(run, summary, personas)
    turns = [t for r in rounds_out for t in r["turns"]]
    summary_json = summary.model_dump(mode="json") | {"winner": winner} if summary is not None else None

    if signals is None:
        return _judge_only_outcome(run, personas, rounds, rounds_out, trajectory, summary, summary_json, context)

    review = None
    if debated:
        review = mod.build_review_context(turns, summary_json, aspect_terms=context["aspect_terms"],
                                          atsa_sentiments=atsa, synonym_hints=signals.synonym_hints)
    stage2_ate, stage2_atsa = signals.stage2_ate, signals.stage2_atsa
    stage2_state: mod.Stage2State | None = None
    if opts["stage2_review"] and not mod.case_has_stage2(signals):
        start = mod.Stage2State(list(context["aspect_terms"]), [s.model_copy() for s in atsa])
        stage2_state, aspect_review = await stage2.run_reviews(run, context, review, start)
        stage2_ate = mod.StageSignal(label=aspect_review.label, confidence=aspect_review.confidence)
        stage2_atsa = mod.StageSignal(aspect_sentiments=stage2_state.sentiments)
    # The override patches the final aspect sentiments: Stage2's when it has them, else Stage1's.
    if stage2_state is not None:
        base_sentiments = [s.model_copy() for s in stage2_state.sentiments]
    else:
        base = stage2_atsa if stage2_atsa and stage2_atsa.aspect_sentiments else signals.stage1_atsa
        base_sentiments = list(base.aspect_sentiments) if base else []
    override: dict[str, Any] = {"enabled": bool(debated and opts["enable_debate_override"]),
                                "thresholds": vars(opts["debate_override"]),
                                "stats": dict.fromkeys(mod.OVERRIDE_OUTCOMES, 0), "log": [], "decisions": {}}
    final_sentiments = base_sentiments
    if override["enabled"] and review is not None:
        hints = mod.renamed_hints(review["aspect_hints"], stage2_state.log if stage2_state else [])
        res = mod.apply_debate_override(hints, base_sentiments, opts["debate_override"])
        final_sentiments = res.sentiments
        override.update(stats=res.stats, log=res.log, decisions=res.decisions)

    if stage2_state is not None:
        stage2_atsa = mod.resolve_stage(mod.StageSignal(aspect_sentiments=final_sentiments))
    elif stage2_atsa is not None and stage2_atsa.aspect_sentiments:
        stage2_atsa = mod.resolve_stage(stage2_atsa, final_sentiments)
    decision = mod.decide(signals.stage1_ate, stage1_atsa, signals.validator, stage2_ate, stage2_atsa,
                          summary_json if debated else None)
    corrections = [*(stage2_state.log if stage2_state else []),
                   *({"stage": "debate_override", **e} for e in override["log"])]
    stage2_info = {
        "source": "reviews" if stage2_state is not None else "case" if mod.case_has_stage2(signals) else "off",
        "terms": list(stage2_state.terms) if stage2_state else None,
        "counts": mod.stage2_counts(corrections),
    }

    metrics = mod.debate_metrics(review["mapping_stats"] if review else None,
                                 review["mapping_fail_reasons"] if review else None,
                                 override["stats"] if override["enabled"] else None) | stage2_info["counts"]
    warnings = mod.metric_warnings(metrics, opts["debate_thresholds"]) if review else []
    for w in warnings:
        run.warn(w)

    reasons = mod.escalation_reasons(decision, summary, debated, signals.validator, opts["review_confidence"])
    reasons += mod.panel_reading_reasons(turns, summary, judge="the judge")
    converged, why = mod.convergence(debated, summary, decision.final_label,
                                  decision.arbiter_flags.debate_inferred_label, len(rounds_out))
    quotes = mod.aspect_quotes(signals and signals.text, [s.aspect for s in final_sentiments],
                               signals and signals.synonym_hints)
    final_aspects = [s.model_dump(mode="json") | {"evidence": s.evidence or quotes.get(s.aspect, "")}
                     for s in final_sentiments]
    verdict = Verdict(
        answer=mod.verdict_answer(decision.final_label, [(s.aspect, s.polarity) for s in final_sentiments],
                                  mod.panel_uncertainties(turns, summary), quotes, signals),
        short_answer=mod.label_sentence(decision.final_label),
        confidence=decision.confidence,
        needs_human_review=bool(reasons),
        escalation_reasons=reasons,
        rationale=_readable(decision, final_sentiments, summary, override, stage2_info, corrections),
        applied_rules=decision.applied_rules,
    )
    result = {
        "personas": personas,
        "order": [p["id"] for p in personas],
        "rounds": rounds_out,
        "summary": summary_json,
        "moderator": decision.model_dump(mode="json"),
        "review_context": review,
        "override": override,
        "stage2": stage2_info,
        "correction_applied_log": corrections,
        "final_aspects": final_aspects,
        "metrics": metrics,
        "metric_warnings": warnings,
        "shared_context": context,
        "stages": {
            "stage1_ate": _stage_json(signals.stage1_ate),
            "stage1_atsa": _stage_json(stage1_atsa),
            "stage2_ate": _stage_json(stage2_ate),
            "stage2_atsa": _stage_json(stage2_atsa),
            "validator": signals.validator.model_dump(mode="json") if signals.validator else None,
        },
        "settings": {"rounds": rounds, "enable_debate": debated,
                     "enable_debate_override": opts["enable_debate_override"],
                     "stage2_review": opts["stage2_review"],
                     "debate_override": vars(opts["debate_override"]),
                     "debate_thresholds": opts["debate_thresholds"],
                     "review_confidence": opts["review_confidence"]},
    }
    return Outcome(
        rounds=len(rounds_out), converged=converged, convergence_reason=why, verdict=verdict,
        trajectory=trajectory, result=result,
        summary={"final_label": decision.final_label, "confidence": decision.confidence,
                 "applied_rules": decision.applied_rules, "winner": winner,
                 "consensus": summary.consensus if summary else None,
                 "override_applied": override["stats"]["applied"]},
    )


def _judge_only_outcome(run: DebateRun, personas: list[dict[str, Any]], rounds: int,
                        rounds_out: list[dict[str, Any]], trajectory: list[dict[str, Any]],
                        summary: DebateSummary | None, summary_json: dict[str, Any] | None,
                        context: dict[str, Any]) -> Outcome:
    """A case without signals: no moderator rules, the verdict is the judge's consensus."""
    assert summary is not None
    run.warn("the case has no stage signals: the rule-based moderator did not run; the verdict is the "
             "judge's consensus")
    agreed, disputed = len(summary.key_agreements), len(summary.key_disagreements)
    # No rule stands behind a judge-only verdict, so the balance of agreements bounds it; a judge that
    # states a lower confidence of its own is taken at its word.
    confidence = mod.judge_only_confidence(agreed, disputed)
    if summary.confidence is not None:
        confidence = min(confidence, summary.confidence)
    reasons = mod.judge_only_escalation_reasons(summary)
    turns = [t for r in rounds_out for t in r["turns"]]
    reasons += mod.panel_reading_reasons(turns, summary, judge="the judge")
    converged, why = mod.convergence(True, summary, None, None, len(rounds_out))
    rationale = (f"No stage signals in the case, so the moderator rules did not run. Judge: "
                 f"{summary.rationale.strip() or '(no rationale)'} Agreements {agreed}, disagreements {disputed}.")
    answer = (summary.consensus.strip() or "no consensus") + mod.provisional_note(mod.panel_uncertainties(turns, summary))
    verdict = Verdict(answer=answer, short_answer=short_answer(answer), confidence=confidence,
                      needs_human_review=bool(reasons), escalation_reasons=reasons, rationale=rationale,
                      applied_rules=[])
    result = {"personas": personas, "order": [p["id"] for p in personas], "rounds": rounds_out,
              "summary": summary_json, "moderator": None, "review_context": None, "override": None,
              "final_aspects": [], "metrics": {}, "metric_warnings": [], "shared_context": context,
              "stages": None, "settings": {"rounds": rounds, "enable_debate": True}}
    return Outcome(rounds=len(rounds_out), converged=converged, convergence_reason=why, verdict=verdict,
                   trajectory=trajectory, result=result,
                   summary={"final_label": None, "confidence": confidence, "applied_rules": [],
                            "winner": summary_json.get("winner") if summary_json else None,
                            "consensus": summary.consensus, "override_applied": 0})


# ---------------------------------------------------------------------------
# The specification the CLI, the app and the exports read
# ---------------------------------------------------------------------------

GLOSSARY = {
    "RuleZ": "Both earlier stages gave no signal (confidence 0), so the label is neutral with no confidence.",
    "RuleB": f"The second stage's label is preferred unless its confidence dropped by {mod.STAGE2_DROP_GUARD:g} or more.",
    "RuleM": "The first and second stages disagree, so the label is mixed.",
    "RuleC": "The validator vetoed the label (a critical issue such as negation, irony or contrast, "
             "or a validator at least as confident).",
    "RuleA": f"The aspect spans line up (overlap {mod.SPAN_IOU_MIN:g} or more), so the confidence is averaged.",
    "RuleD": "Sentence-level and aspect-level labels disagree; the more confident one wins, the sentence "
             f"when they are within {mod.TIEBREAK_DIFF:g}.",
    "RuleE": "The panel's consensus overrides a low-confidence or mixed label.",
    "DEBATE_OVERRIDE": "The panel's clear stance corrected an aspect's polarity.",
    "FLIP_POLARITY": "The validator corrected an aspect's polarity.",
    "DROP_ASPECT": "The validator dropped an aspect the sentence does not have.",
    "REVISE_SPAN": "The validator revised an aspect to the words the sentence uses.",
}

SPEC = ProtocolSpec(
    name=NAME,
    title="Persona panel",
    description=(
        "Personas with fixed stances (a neutral analyst, a critic against, an empath for) discuss the text in "
        "turns; a judge summarises the discussion. When the case carries earlier-stage labels, rule-based "
        "moderator rules decide the final label and the panel may correct an aspect's polarity."
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
        StageSpec("turn", "Turns", DebateTurn, "one persona's planned, reflected and spoken turn",
                  reply_cap=800, noun="turn"),
        StageSpec("judge_summary", "Judge", DebateSummary, "the judge's summary of the discussion",
                  reply_cap=1100, noun="judge's summary"),
        StageSpec("validator_review", "Stage2 validator", ValidatorReview,
                  "the validator's correction proposals for the Stage1 aspects", reply_cap=1350,
                  noun="validator's corrections"),
        StageSpec("aspect_review", "Stage2 aspect review", AspectReview,
                  "the aspect-term review: revised, dropped and added aspects, and Stage2's sentence label",
                  reply_cap=1250, noun="aspect review"),
        StageSpec("sentiment_review", "Stage2 sentiment review", SentimentReview,
                  "the aspect-sentiment review: each aspect's polarity kept, flipped, dropped or added",
                  reply_cap=1150, noun="sentiment review"),
    ),
    presets=PRESETS,
    case_needs=(
        CaseNeed("signals", "labels and confidences from earlier stages, for the moderator's rules",
                 lambda case: bool(case.signals), required=False,
                 without="discussion only: the judge's summary is the answer and no moderator rule applies"),
    ),
    moderator=(mod.decide, mod.apply_validator_corrections, mod.apply_aspect_review, mod.apply_sentiment_review,
               mod.case_has_stage2, mod.apply_debate_override, mod.build_review_context, mod.debate_metrics,
               mod.metric_warnings, mod.escalation_reasons, mod.convergence, mod.judge_only_confidence,
               mod.judge_only_escalation_reasons),
    glossary=GLOSSARY,
    interventions=("evidence",),
        offline_agent=f"{__name__}.agent",
        rows={"personas": rows.persona_rows, "corrections": rows.correction_rows},
        review_threshold=("review_confidence", 1.0),
    )
