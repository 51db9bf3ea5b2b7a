"""Run, resume and continue debates by protocol name: the registry gives the spec, the engine runs it.

This is the one entry point the CLI, the app's background worker, the evaluation and the
benchmarks share.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from ..core.events import EventSink
from ..core.schemas import Case
from ..core.steering import stored_interventions
from ..engine import budget as budget_mod
from ..engine.run import DebateResult, run_protocol_async
from ..engine.runtime import DebateSettings
from ..protocols import get_spec
from ..providers import Provider, make_provider
from ..providers.base import StepRequest, StepResult, Usage


async def run_debate_async(case: Case, protocol: str, **kwargs: Any) -> DebateResult:
    """Run a debate of the named protocol (keywords as `engine.run.run_protocol_async`)."""
    return await run_protocol_async(case, get_spec(protocol), **kwargs)


def run_debate(case: Case, protocol: str, **kwargs: Any) -> DebateResult:
    """Synchronous wrapper for callers without an event loop (CLI, worker thread, tests)."""
    return asyncio.run(run_debate_async(case, protocol, **kwargs))



class _ResumeProvider(Provider):
    """Answers the steps a stored debate already completed from the store, the rest from the live
    provider, so a failed or interrupted debate continues from the step that failed."""

    def __init__(self, stored: dict[str, list[dict[str, Any]]], live: Provider,
                 interventions: list[Any] | None = None) -> None:
        super().__init__(max_attempts=1, model=live.model)
        self.name, self.label, self.live = live.name, live.label, live
        self._stored = stored
        self._served: dict[str, int] = {}
        self._interventions = list(interventions or [])

    def interventions(self) -> list[Any]:
        """The reviewers' interventions of the debate being resumed, applied again where they were made."""
        return list(self._interventions)

    def model_for(self, agent: str | None) -> str:
        return self.live.model_for(agent)

    def public_config(self) -> dict[str, Any]:
        return self.live.public_config()

    def reply_cap(self, req: StepRequest) -> int | None:
        return self.live.reply_cap(req)

    def has_stored(self, step_id: str) -> bool:
        """Whether the next call of this step is answered from the store (no model call, no tokens)."""
        return self._served.get(step_id, 0) < len(self._stored.get(step_id, []))

    async def complete(self, req: StepRequest) -> StepResult:
        outputs = self._stored.get(req.step_id, [])
        index = self._served.get(req.step_id, 0)
        self._served[req.step_id] = index + 1
        if index < len(outputs):
            output = req.output_model.model_validate(outputs[index])
            return StepResult(output=output, raw=json.dumps(outputs[index], ensure_ascii=False), usage=Usage(),
                              attempts=0, latency_ms=0.0, model="stored")
        return await self.live.complete(req)


@dataclass
class ResumePlan:
    """A resumed debate, created in the store and ready to run."""

    debate_id: str
    case: Case
    protocol: str
    provider: Provider
    settings: DebateSettings
    budget_spent: int = 0  # tokens spent by the debates it resumes, counted against its budget


def resume_provider(old: dict[str, Any], live: Provider) -> Provider:
    """The provider of a debate resuming `old` (a stored debate with its steps): `old`'s completed
    steps from the store, the rest from `live`, `old`'s interventions applied where they were made."""
    stored: dict[str, list[dict[str, Any]]] = {}
    for step in old["steps"]:
        if step["status"] == "ok" and step["output"] is not None and step.get("stage") != "human":
            stored.setdefault(step["step_id"], []).append(step["output"])
    return _ResumeProvider(stored, live, stored_interventions(old["steps"]))


def prepare_resume(store: Any, debate_id: str, provider: Provider | None = None, *,
                   runner: dict[str, Any] | None = None, max_total_tokens: int | None = None,
                   actor: Any = None, new_id: str | None = None) -> ResumePlan:
    """Create the debate that continues a failed or interrupted one (`resumed_from`): completed
    steps will be taken from the store, the failed step and everything after it run live.
    `runner` (who runs it) is stored with the settings so other processes can tell if it died.
    `max_total_tokens` replaces the stored token budget (a debate stopped by its budget goes on
    with a higher one); the budget counts the tokens the resumed debates spent (budget.py).
    `actor` (resumed from the app): their role must allow starting debates; the start is audited.
    `new_id` names the new debate (a worker registers it as its own before the row exists)."""
    old = store.get_debate(debate_id)
    if old["status"] == "completed":
        raise ValueError(f"debate {debate_id} completed; there is nothing to resume")
    case = Case.model_validate(old["case"])
    settings = DebateSettings.from_dict(old["settings"])
    get_spec(old["protocol"]).validate(settings)
    if settings.pause_after_round is not None and any(
            (s.get("round") or 0) > settings.pause_after_round for s in old["steps"]):
        settings.pause_after_round = None  # the debate went past that pause already
    live = provider or make_provider(old["provider"] or "offline")
    budget_mod.apply_budget(settings, live, explicit=max_total_tokens)
    get_spec(old["protocol"]).validate(settings)
    spent = int(old.get("input_tokens") or 0) + int(old.get("output_tokens") or 0) + budget_mod.spent_before(store, old)
    resumed = resume_provider(old, live)
    stored_settings = {**settings.as_dict(), **({"runner": runner} if runner else {})}
    # A resumed evaluation run is still that evaluation's run: it stays out of History and the queues.
    new_id = store.create_debate(case, old["protocol"], live.public_config(), stored_settings, resumed_from=debate_id,
                                 evaluation_id=old.get("evaluation_id"), actor=actor, debate_id=new_id)
    return ResumePlan(new_id, case, old["protocol"], resumed, settings, budget_spent=spent)


def resume_debate(store: Any, debate_id: str, provider: Provider | None = None) -> DebateResult:
    """Continue a failed or interrupted debate as a new debate linked to the old one."""
    plan = prepare_resume(store, debate_id, provider)
    return run_plan(store, plan)


def run_plan(store: Any, plan: ResumePlan, sink: EventSink | None = None) -> DebateResult:
    """Run a prepared resume; `sink` (which must write to the store) replaces the store as the sink."""
    if sink is not None:
        return run_debate(plan.case, plan.protocol, provider=plan.provider, settings=plan.settings, sink=sink,
                          debate_id=plan.debate_id, budget_spent=plan.budget_spent)
    return run_debate(plan.case, plan.protocol, provider=plan.provider, settings=plan.settings, store=store,
                      debate_id=plan.debate_id, budget_spent=plan.budget_spent)
