"""Run one debate: case -> the protocol's spec (through the provider) -> typed events -> sink.

The engine runs the spec it is given and writes through the event sink (the store implements it);
it knows neither the protocol registry nor the store. `jobs.debates` looks a protocol up by name.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from ..core.documents import selection_note
from ..core.events import EventSink, MemorySink
from ..core.ids import new_debate_id
from ..core.schemas import Case, Verdict
from ..core.settings import SettingsError
from ..core.steering import DebatePaused, DebateStopped, PausePoint, Steering
from ..providers import Provider, make_provider
from . import budget as budget_mod
from . import checks
from .runtime import DebateFailed, DebateRun, DebateSettings, Limiter, Outcome
from .spec import CaseUnfit, ProtocolSpec

log = logging.getLogger(__name__)


@dataclass
class DebateResult:
    debate_id: str
    protocol: str
    status: str  # "completed", "failed", "paused" or "stopped"
    rounds: int = 0
    converged: bool = False
    convergence_reason: str = ""
    verdict: Verdict | None = None
    trajectory: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    agent_usage: dict[str, dict[str, int]] = field(default_factory=dict)
    result: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    failed_step: str | None = None
    wall_ms: float = 0.0
    pause_point: PausePoint | None = None  # where a paused or stopped debate stands
    reused_steps: int = 0  # a fork's steps taken from its parent, with no model call
    # {max_total_tokens, source, estimated_cost, currency} (budget.describe); the CLI adds the cost.
    budget: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The object `run --json` prints (docs/contracts.md, "run --json"), plus the error of a failed debate."""
        verdict = self.verdict.model_dump() if self.verdict else None
        if verdict is not None:
            verdict = {k: verdict[k] for k in (
                "answer", "confidence", "needs_human_review", "escalation_reasons", "rationale", "applied_rules")}
        out: dict[str, Any] = {
            "debate_id": self.debate_id,
            "protocol": self.protocol,
            "status": self.status,
            "rounds": self.rounds,
            "converged": self.converged,
            "convergence_reason": self.convergence_reason,
            "verdict": verdict,
            "trajectory": self.trajectory,
            "usage": self.usage,
            "budget": self.budget or budget_mod.describe(None),
        }
        if self.warnings:
            out["warnings"] = self.warnings
        if self.error:
            out["error"] = self.error
            out["failed_step"] = self.failed_step
        if self.pause_point is not None:
            out["paused_after_round"] = self.pause_point.round if self.pause_point.round_end else None
            out["pause_point"] = self.pause_point.label
            out["next_round"] = self.pause_point.next_round
        if self.reused_steps:
            out["reused_steps"] = self.reused_steps
        return out


async def run_protocol_async(
    case: Case,
    spec: ProtocolSpec,
    *,
    provider: Provider | None = None,
    settings: DebateSettings | None = None,
    store: Any = None,
    sink: EventSink | None = None,
    debate_id: str | None = None,
    limiter: Limiter | None = None,
    steering: Steering | None = None,
    budget_spent: int = 0,
) -> DebateResult:
    """Run a debate. With a `store`, pause and stop requests are read from it at every pause point;
    `sink` (which must write to that store) may replace it as the sink, for progress output.
    `budget_spent`: tokens spent by the debates this one resumes, counted against its token budget."""
    protocol = spec.name
    provider = provider or make_provider("offline")
    settings = settings or DebateSettings()
    if store is not None:
        if debate_id is None:
            debate_id = store.create_debate(case, protocol, provider.public_config(), settings.as_dict())
        sink = sink or store
    debate_id = debate_id or new_debate_id()
    sink = sink or MemorySink()
    steering = steering or Steering(interventions=list(getattr(provider, "interventions", lambda: [])()))
    if steering.pause_after_round is None:
        steering.pause_after_round = settings.pause_after_round
    if steering.control is None and store is not None:
        steering.control = lambda: store.control_request(debate_id)
    run = DebateRun(
        debate_id=debate_id, case=case, protocol=protocol, settings=settings, provider=provider,
        sink=sink, limiter=limiter, spec=spec, steering=steering,
    )
    run.budget_spent_before = budget_spent
    started = time.perf_counter()
    if steering.continued:
        run.emit("continued", protocol=protocol, provider=provider.public_config(), resume_at=steering.resume_at)
    else:
        run.emit("debate_started", protocol=protocol, provider=provider.public_config(), settings=settings.as_dict())
    try:
        try:  # callers check first, before anything is saved; this guards direct use of the engine
            spec.validate(settings)
            spec.check_case(case, settings)
        except (SettingsError, CaseUnfit) as exc:
            raise DebateFailed(str(exc)) from None
        for need in spec.reduced(case):
            run.warn(f"the case has no '{need.field}': {need.without}")
        # A case built from documents larger than it holds says so with every verdict on it.
        note = selection_note(case)
        if note:
            run.warn(note)
        outcome = apply_checks(await spec.run(run), run.case)
    except DebatePaused as exc:
        return _halted(run, started, "paused", exc.point, asked_by=exc.asked_by)
    except DebateStopped as exc:
        return _halted(run, started, "stopped", exc.point)
    except DebateFailed as exc:
        return _failed(run, started, str(exc), exc.step_id)
    except Exception as exc:  # noqa: BLE001 - a bug must end as a failed, resumable debate, never `running`
        log.error("debate %s stopped unexpectedly", debate_id, exc_info=True)
        return _failed(run, started, f"the debate stopped unexpectedly: {plain_reason(exc)}", None)
    result = DebateResult(
        debate_id=debate_id,
        protocol=protocol,
        status="completed",
        rounds=outcome.rounds,
        converged=outcome.converged,
        convergence_reason=outcome.convergence_reason,
        verdict=outcome.verdict,
        trajectory=outcome.trajectory,
        usage=run.usage.as_dict(),
        agent_usage={k: v.as_dict() for k, v in run.agent_usage.items()},
        result=outcome.result,
        summary=outcome.summary,
        warnings=run.warnings,
        wall_ms=(time.perf_counter() - started) * 1000,
        reused_steps=run.reused_steps,
        budget=budget_mod.describe(settings),
    )
    if outcome.verdict.needs_human_review:
        run.emit("escalated", reasons=outcome.verdict.escalation_reasons)
    elif outcome.converged:
        run.emit("converged", reason=outcome.convergence_reason)
    run.emit(
        "completed",
        rounds=result.rounds,
        converged=result.converged,
        convergence_reason=result.convergence_reason,
        verdict=outcome.verdict.model_dump(),
        trajectory=result.trajectory,
        usage=result.usage,
        agent_usage=result.agent_usage,
        result=result.result,
        summary=result.summary,
        warnings=result.warnings,
    )
    return result


def _material(case: Case) -> list[tuple[str, str]]:
    """What the debate reads: each passage with its source, the agents' reports (arbitration) and the
    text under review (the panel's signals), so a question about a report's metric is addressed."""
    out = [(e.id, f"{e.source}. {e.text}") for e in case.evidence]
    for n, r in enumerate(case.reports or [], start=1):
        fields = r.model_dump()
        words = " ".join(str(fields.get(k) or "") for k in ("metric", "source", "period", "citation", "unit"))
        out.append((f"report {n}", words.replace("_", " ")))
    signals = case.signals if isinstance(case.signals, dict) else {}
    if signals.get("text"):
        out.append(("the text under review", str(signals["text"])))
    return out


def apply_checks(outcome: Outcome, case: Case) -> Outcome:
    """The checks every verdict passes, whatever the protocol (engine/checks.py): each reason found
    is added to the verdict's escalation reasons and sends it to a human; an evidence or question
    problem also means the debate did not converge, with that reason as the convergence reason."""
    findings = checks.verdict_findings(case.question, outcome.verdict.answer, case.evidence, _material(case))
    if not findings:
        return outcome
    verdict = outcome.verdict
    reasons = list(verdict.escalation_reasons) + [f.reason for f in findings if f.reason not in verdict.escalation_reasons]
    rules = list(verdict.applied_rules) + [f.code for f in findings if f.code not in verdict.applied_rules]
    outcome.verdict = verdict.model_copy(update={
        "needs_human_review": True, "escalation_reasons": reasons, "applied_rules": rules})
    blocking = [f.reason for f in findings if f.blocks_convergence]
    if blocking:
        outcome.converged = False
        outcome.convergence_reason = "; ".join(blocking)
    return outcome


def plain_reason(exc: BaseException) -> str:
    """An unexpected error in words a reader can use: its message, or what kind of error it was."""
    text = " ".join(str(exc).split())
    if isinstance(exc, KeyError | IndexError | AttributeError) or not text:
        return f"an internal error ({type(exc).__name__}{': ' + text if text else ''})"
    return text[:300]


def _failed(run: DebateRun, started: float, error: str, step_id: str | None) -> DebateResult:
    """Record the failure (every completed step stays stored) and build the result."""
    result = DebateResult(
        debate_id=run.debate_id, protocol=run.protocol, status="failed", usage=run.usage.as_dict(),
        agent_usage={k: v.as_dict() for k, v in run.agent_usage.items()}, warnings=run.warnings,
        error=error, failed_step=step_id, wall_ms=(time.perf_counter() - started) * 1000,
        budget=budget_mod.describe(run.settings),
    )
    run.emit("failed", step_id, error=error, usage=result.usage, agent_usage=result.agent_usage)
    return result


def _halted(run: DebateRun, started: float, status: str, point: PausePoint, asked_by: str = "") -> DebateResult:
    """Record a pause or a stop at a pause point; every step so far stays stored."""
    result = DebateResult(
        debate_id=run.debate_id, protocol=run.protocol, status=status, rounds=point.round,
        usage=run.usage.as_dict(), agent_usage={k: v.as_dict() for k, v in run.agent_usage.items()},
        warnings=run.warnings, wall_ms=(time.perf_counter() - started) * 1000, pause_point=point,
        reused_steps=run.reused_steps, budget=budget_mod.describe(run.settings),
    )
    run.emit(status, None, at=point.label, round=point.round, next_round=point.next_round,
             round_end=point.round_end, where=point.describe(), asked_by=asked_by, usage=result.usage,
             agent_usage=result.agent_usage)
    return result


def run_protocol(case: Case, spec: ProtocolSpec, **kwargs: Any) -> DebateResult:
    """Synchronous wrapper for callers without an event loop."""
    return asyncio.run(run_protocol_async(case, spec, **kwargs))
