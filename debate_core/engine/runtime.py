"""The per-debate runtime that protocols drive: call a step, emit events, run stages concurrently.

Protocols never talk to providers or the store directly. They call `DebateRun.step`, which
renders the prompt, waits for a slot in the shared concurrency limiter, calls the provider
(validation and retries live there), records usage and emits typed events that the store
persists as they happen.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import defaultdict, deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ..core import profiles, prompts
from ..core.events import Event, EventSink
from ..core.schemas import Case, Evidence, Verdict
from ..core.settings import DebateSettings  # also re-exported: most callers import it from here
from ..core.steering import (
    STOP,
    DebatePaused,
    DebateStopped,
    Intervention,
    PausePoint,
    Steering,
    critique_row,
    human_step_id,
    round_end,
    target_agent,
)
from ..core.steps import parse_step_id
from ..providers.base import Provider, StepFailed, StepRequest, Usage, messages_tokens


class DebateFailed(Exception):
    """A debate that cannot go on. The store keeps everything up to the failing step."""

    def __init__(self, message: str, step_id: str | None = None) -> None:
        super().__init__(message)
        self.step_id = step_id


class Limiter:
    """A concurrency limit shared by every debate in the process, whichever thread and event loop it
    runs on: the app runs each debate in its own worker thread, and they all draw from one limit.

    Slots are handed over first come, first served: a release passes its slot straight to the
    oldest waiter (waking it on its own loop), so a busy loop cannot starve the others.
    """

    def __init__(self, limit: int = 8) -> None:
        self.limit = max(1, int(limit))
        self._lock = threading.Lock()
        self._in_use = 0
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    @property
    def in_use(self) -> int:
        return self._in_use

    async def acquire(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._in_use < self.limit and not self._waiters:
                self._in_use += 1
                return
            fut: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, fut))
        try:
            await fut
        except asyncio.CancelledError:
            with self._lock:
                if (loop, fut) in self._waiters:
                    self._waiters.remove((loop, fut))
                    raise
            # The slot was handed to us as we were cancelled: pass it on instead of leaking it.
            if fut.done() and not fut.cancelled():
                self.release()
            raise

    def release(self) -> None:
        with self._lock:
            if self._waiters:
                loop, fut = self._waiters.popleft()
                loop.call_soon_threadsafe(self._hand_over, fut)
                return
            self._in_use -= 1

    def _hand_over(self, fut: asyncio.Future[None]) -> None:
        if fut.cancelled():
            self.release()  # the waiter gave up before the slot arrived
        else:
            fut.set_result(None)

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """`async with limiter.slot():` holds one slot for the duration of a call."""
        await self.acquire()
        try:
            yield
        finally:
            self.release()


_LIMITERS: dict[int, Limiter] = {}
_LIMITERS_LOCK = threading.Lock()


def shared_limiter(limit: int) -> Limiter:
    """One limiter per configured size, shared across debates (and threads) in this process."""
    with _LIMITERS_LOCK:
        if limit not in _LIMITERS:
            _LIMITERS[limit] = Limiter(limit)
        return _LIMITERS[limit]


@dataclass
class Outcome:
    """What a protocol returns: the common result plus its own `result` dict."""

    rounds: int
    converged: bool
    convergence_reason: str
    verdict: Verdict
    trajectory: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)


class DebateRun:
    def __init__(
        self,
        *,
        debate_id: str,
        case: Case,
        protocol: str,
        settings: DebateSettings,
        provider: Provider,
        sink: EventSink,
        limiter: Limiter | None = None,
        spec: Any = None,
        steering: Steering | None = None,
    ) -> None:
        self.debate_id = debate_id
        self.steering = steering or Steering()
        self._intervention_handler: Any = None
        self.reused_steps = 0
        self.spec = spec  # the ProtocolSpec being run (None for a protocol run by hand in a test)
        self.case = case
        self.protocol = protocol
        self.settings = settings
        self.provider = provider
        self.sink = sink
        self.limiter = limiter or shared_limiter(settings.concurrency)
        self.usage = Usage()
        self.agent_usage: dict[str, Usage] = defaultdict(Usage)
        self.warnings: list[str] = []
        self.outputs: dict[str, BaseModel] = {}
        self._calls: dict[str, int] = defaultdict(int)
        # Tokens spent by the debates this one resumes: its budget counts them as used (budget.py).
        self.budget_spent_before = 0
        self._calls_under_way = 0  # model calls sent and not yet answered

    # -- events -------------------------------------------------------------
    def emit(self, kind: str, step_id: str | None = None, **data: Any) -> None:
        if kind == "round_closed":
            # Every protocol closes its rounds through here, so every round end is a pause point.
            # A continued debate replays rounds the store has already closed: not recorded twice.
            if data.get("round") not in self.steering.closed_rounds:
                self.sink.record(self.debate_id, Event(kind, step_id, data))  # type: ignore[arg-type]
            self.pause_point(round_end(int(data.get("round") or 0)))
            return
        self.sink.record(self.debate_id, Event(kind, step_id, data))  # type: ignore[arg-type]

    def warn(self, message: str, step_id: str | None = None) -> None:
        self.warnings.append(message)
        if message in self.steering.known_warnings:  # said already, before the debate paused
            return
        self.emit("warning", step_id, message=message)

    # -- steering -----------------------------------------------------------
    def on_intervention(self, handler: Any) -> None:
        """The protocol's function that applies a reviewer's intervention to its own state."""
        self._intervention_handler = handler

    def add_evidence(self, evidence: Evidence) -> None:
        """A passage joins the case for the steps that follow (a reviewer's evidence)."""
        if evidence.id not in self.case.evidence_by_id():
            self.case = self.case.model_copy(update={"evidence": [*self.case.evidence, evidence]})

    def pause_point(self, point: PausePoint) -> None:
        """Apply the interventions made here, then pause or stop if that was asked for."""
        for iv in self.steering.at(point.label):
            self._apply(iv)
        decision = self.steering.decide(point)
        if decision == STOP:
            raise DebateStopped(point)
        if decision is not None:
            setting = self.steering.pause_after_round
            asked = "setting" if point.round_end and setting == point.round else "request"
            raise DebatePaused(point, asked)

    def _apply(self, iv: Intervention) -> None:
        if not self.steering.continued:
            # A fork, a resumed debate or a replay applies interventions made elsewhere: each is
            # recorded in this debate where it is applied. A continued debate has them stored already.
            self.emit("intervention", human_step_id(iv.round, iv.reviewer), intervention=iv.model_dump(mode="json"),
                      summary=iv.summary(), target_agent=target_agent(iv), critique_row=critique_row(iv))
        if iv.kind == "evidence" and iv.evidence is not None:
            self.add_evidence(Evidence(id=iv.evidence.id, source=iv.evidence.source, text=iv.evidence.text))
        if self._intervention_handler is not None:
            self._intervention_handler(iv)
        elif iv.kind != "evidence":
            self.warn(f"{self.protocol} does not take {iv.kind} interventions; {iv.summary()} was not applied")

    # -- steps --------------------------------------------------------------
    async def step(
        self,
        step_id: str,
        output_model: type[BaseModel],
        prompt: str,
        variables: dict[str, Any],
        payload: dict[str, Any] | None = None,
        *,
        stage: str | None = None,
        postprocess: Any = None,
    ) -> BaseModel:
        """Run one model call. `postprocess(output) -> output` applies engine-side checks (evidence
        verification, claim caps) before the output is recorded, so the store holds what the engine used."""
        key = parse_step_id(step_id)
        stage = stage or key.stage
        messages = prompts.render(prompt, **variables)
        stored = self.steering.stored.get(step_id, self._calls[step_id] + 1) if self.steering.stored else None
        if stored is not None:
            self._calls[step_id] += 1
            return self._serve_stored(step_id, key, stage, output_model, messages, stored, postprocess)
        limit = self.settings.max_tokens_per_call
        # A resumed debate's completed steps are answered from the store: they cost nothing now.
        total = None if self._answered_from_store(step_id) else self.settings.max_total_tokens
        # Estimating a long prompt costs about a millisecond; only the bounds below need it.
        prompt_tokens = messages_tokens(messages) if limit or total else 0
        if limit and prompt_tokens > limit:
            raise self._fail_bound(step_id, f"the prompt has about {prompt_tokens} tokens, over the per-call bound {limit}")
        if total and self.budget_used() + prompt_tokens > total:
            # The calls of this stage already under way were sent, and will be paid for: let them
            # finish and be stored (a resume reuses them) instead of cancelling them with the stage.
            while self._calls_under_way:
                await asyncio.sleep(0.02)
            raise self._fail_budget(step_id, total, prompt_tokens)
        self._calls[step_id] += 1
        call = self._calls[step_id]
        req = StepRequest(
            step_id=step_id,
            protocol=self.protocol,
            stage=stage,
            agent=key.agent,
            output_model=output_model,
            messages=messages,
            payload={"case": self.case, "settings": self.settings, **(payload or {})},
            call=call,
            reply_cap=self._reply_cap(stage),
        )
        req.progress = self._progress_reporter(step_id, call)
        self.emit("turn_started", step_id, call=call, stage=stage, agent=key.agent, target=key.target,
                  round=key.round, prompt=messages, model=self.provider.model_for(key.agent),
                  reply_cap=self.provider.reply_cap(req))
        try:
            async with self.limiter.slot():
                self._calls_under_way += 1
                try:
                    result = await self.provider.complete(req)
                finally:
                    self._calls_under_way -= 1
        except StepFailed as exc:
            self.usage.add(exc.usage)
            self.agent_usage[key.agent or stage].add(exc.usage)
            self.emit("turn_failed", step_id, call=call, error=exc.message, raw=exc.raw, attempts=exc.attempts,
                      errors=exc.errors, **exc.usage.as_dict())
            raise DebateFailed(str(exc), step_id) from exc
        except Exception as exc:  # a bug or an unexpected library error must not crash the debate unsaved
            message = f"step {step_id} failed with an unexpected error: {type(exc).__name__}: {exc}"
            self.emit("turn_failed", step_id, call=call, error=message, raw=None, attempts=1, errors=[message])
            raise DebateFailed(message, step_id) from exc
        except asyncio.CancelledError:
            # A sibling in the same stage failed (see gather): record this call so no step is left open.
            message = f"step {step_id} was cancelled because another call of the same stage failed"
            self.emit("turn_failed", step_id, call=call, error=message, raw=None, attempts=0, errors=[message])
            raise
        # Leaving the limiter woke the next waiting call, but it only starts once this task yields.
        # Yield before the follow-up work (checks, recording, the protocol's next step) so the freed
        # slot is used at once; otherwise calls that finish together hand their slots over together,
        # and the engine's work between them adds to the latency of every wave.
        cancelled: asyncio.CancelledError | None = None
        try:
            await asyncio.sleep(0)
        except asyncio.CancelledError as exc:  # a sibling failed meanwhile: this call still finished
            cancelled = exc
        self.usage.add(result.usage)
        self.agent_usage[key.agent or stage].add(result.usage)
        if postprocess is not None:
            result.output = postprocess(result.output)
        self.outputs[step_id] = result.output
        output = result.output.model_dump(mode="json")
        self.emit("turn_finished", step_id, call=call, output=output,
                  raw=result.raw, attempts=result.attempts, errors=result.errors,
                  latency_ms=round(result.latency_ms, 2), model=result.model, **self._projected(key, output),
                  **result.usage.as_dict())
        for warning in result.warnings:
            self.warn(f"{step_id}: {warning}", step_id)
        if cancelled is not None:
            raise cancelled
        return result.output

    def _serve_stored(self, step_id: str, key: Any, stage: str, output_model: type[BaseModel],
                      messages: list[dict[str, str]], stored: dict[str, Any], postprocess: Any) -> BaseModel:
        """A step answered from the store: a continued debate's own step (nothing recorded again, its
        tokens counted once more in the run's totals) or a parent's step a fork reuses (recorded in the
        fork as reused, with no tokens of its own: no model was called)."""
        call = self._calls[step_id]
        output = output_model.model_validate(stored["output"])
        if postprocess is not None:
            output = postprocess(output)
        self.outputs[step_id] = output
        plan = self.steering.stored
        if plan is not None and plan.own:
            used = Usage(input_tokens=stored.get("input_tokens") or 0, output_tokens=stored.get("output_tokens") or 0,
                         calls=stored.get("attempts") or 1)
            self.usage.add(used)
            self.agent_usage[key.agent or stage].add(used)
            return output
        self.reused_steps += 1
        dumped = output.model_dump(mode="json")
        self.emit("turn_started", step_id, call=call, stage=stage, agent=key.agent, target=key.target,
                  round=key.round, prompt=messages, model=stored.get("model"), reply_cap=stored.get("reply_cap"))
        self.emit("turn_finished", step_id, call=call, output=dumped, raw=stored.get("raw_output"),
                  attempts=0, errors=[], latency_ms=0.0, model=stored.get("model"),
                  reused_from=plan.reused_from if plan else None, **self._projected(key, dumped),
                  input_tokens=0, output_tokens=0, calls=0)
        return output

    def _projected(self, key: Any, output: dict[str, Any]) -> dict[str, Any]:
        """The rows the protocol's spec keeps beside this output (claims, critiques), so the store
        persists them without knowing any protocol's stages."""
        projection = getattr(self.spec, "projection", None)
        rows: dict[str, Any] = {}
        for kind in ("claims", "critiques"):
            fn = getattr(projection, kind, None) if projection is not None else None
            if fn is not None:
                found = fn(key, output)
                if found:
                    rows[f"{kind}_rows"] = found
        return rows

    PROGRESS_INTERVAL_S = 0.5

    def _progress_reporter(self, step_id: str, call: int) -> Any:
        """A callback for the provider: `turn_progress` events, at most one per interval per call
        (a stream delivers tokens far faster than a store or a screen needs them)."""
        last = [0.0]

        def report(update: dict[str, Any]) -> None:
            now = time.monotonic()
            if not update.get("tokens"):
                # A try starting from nothing always shows, and the first token after it too.
                last[0] = 0.0
            elif now - last[0] < self.PROGRESS_INTERVAL_S:
                return
            else:
                last[0] = now
            self.emit("turn_progress", step_id, call=call, **update)

        return report

    def _reply_cap(self, stage: str) -> int | None:
        """The stage's reply cap from the spec being run (None without a spec: the provider's default)."""
        spec_stage = self.spec.stage(stage) if self.spec is not None else None
        return spec_stage.reply_cap if spec_stage is not None else None

    def budget_used(self) -> int:
        """Tokens counted against the budget: this run's, plus those of the debates it resumes."""
        return self.budget_spent_before + self.usage.input_tokens + self.usage.output_tokens

    def _answered_from_store(self, step_id: str) -> bool:
        stored = getattr(self.provider, "has_stored", None)
        return bool(stored is not None and stored(step_id))

    def _fail_budget(self, step_id: str, total: int, prompt_tokens: int) -> DebateFailed:
        """The budget is spent: the debate fails here, every completed step kept, and the message
        says how to go on (a resume reuses those steps; see budget.py for what it counts)."""
        used = self.budget_used()
        before = f", {self.budget_spent_before:,} of them before it was resumed" if self.budget_spent_before else ""
        # Double the budget, or more when the debate already went past it.
        higher = max(2 * total, used + prompt_tokens + total // 2)
        message = (f"stopped by the token budget of {total:,} tokens at {step_id} (used {used:,} tokens{before}; "
                   f"the next prompt has about {prompt_tokens:,}); resume with a higher budget: "
                   f"python -m debate_core resume {self.debate_id} --max-total-tokens {higher}")
        self.emit("warning", step_id, message=message)
        return DebateFailed(message, step_id)

    def _fail_bound(self, step_id: str, message: str) -> DebateFailed:
        self.emit("warning", step_id, message=f"stopped by a bound: {message}")
        return DebateFailed(f"stopped by a bound at {step_id}: {message}", step_id)

    async def gather(self, *coros: Any) -> list[Any]:
        """Run one stage's calls concurrently; the first failure fails the stage.

        The calls still running are cancelled and awaited before the failure propagates, so their
        records land before the debate's own failure record instead of never."""
        tasks = [asyncio.ensure_future(c) for c in coros]
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    def agent_ids(self, defaults: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return self.agent_profiles(defaults)

    def agent_profiles(self, defaults: Any) -> list[dict[str, Any]]:
        """The debate's agents as profiles: the chosen ones (completed from a known profile with the
        same id), else the case's own `agents`, else the protocol's defaults (debate_core/core/profiles.py)."""
        return profiles.resolve(self.settings.agents, self.case, list(defaults), self.protocol)
