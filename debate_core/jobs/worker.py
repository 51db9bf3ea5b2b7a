"""Run debates in background threads so that no page rerun or closed browser can stop them.

A Streamlit script run is interrupted by any click, so a debate must not live inside one. Each
debate started here gets its own thread, its own event loop and its own store connection; it
writes every event to the store as it happens, and the pages only read the store. A debate that
crashes for an unexpected reason is saved as failed with a readable message.

A debate left `running` by a process that died (server restart, killed CLI) would otherwise stay
`running` forever; `recover_interrupted` finds those and marks them interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import socket
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.events import Event
from ..core.identity import Actor, require
from ..core.ids import (  # runner_info also re-exported: the CLI imports it from here
    new_debate_id,
    runner_info,
)
from ..core.schemas import Case
from ..core.steering import SteeringError
from ..engine.budget import apply_budget
from ..engine.run import plain_reason
from ..engine.runtime import DebateSettings
from ..evaluation import harness as evaluation
from ..protocols import get_spec
from ..providers import Provider, make_provider
from ..store import DebateStore, NotFound, StoreError, db_location, is_postgres_url
from . import continuation, queue
from .debates import prepare_resume, run_debate_async, run_plan

log = logging.getLogger(__name__)

# A debate whose owner cannot be checked is presumed dead when nothing was written for this long.
# Generous, because one real model call (with its retries) can take minutes without an event.
DEFAULT_STALE_AFTER_S = 30 * 60


@dataclass
class _Job:
    debate_id: str
    thread: threading.Thread
    started: float = field(default_factory=time.time)


_JOBS: dict[str, _Job] = {}
_JOBS_LOCK = threading.Lock()


def start_debate(
    case: Case,
    protocol: str,
    provider: Provider,
    settings: DebateSettings | None = None,
    *,
    db_path: str | Path,
    actor: Actor | None = None,
) -> str:
    """Create the debate row, start the run in a background thread and return the id at once.
    `actor`: who starts it (the store checks their role and keeps who it was)."""
    settings = dataclasses.replace(settings) if settings is not None else DebateSettings()
    # The token budget it runs with, stored with it: the page's, else the default for a paid provider.
    apply_budget(settings, provider)
    # An unknown protocol, a bad setting or a case the protocol cannot use is bad input (UnknownProtocol,
    # SettingsError, CaseUnfit): refuse it before anything is saved, with the same one-line message as
    # the CLI and the New debate page.
    spec = get_spec(protocol)
    spec.validate(settings)
    spec.check_case(case, settings)
    debate_id = new_debate_id()
    if on_queue(db_path, provider):
        return _submit_new(debate_id, case, protocol, provider, settings, str(db_location(db_path)), actor)
    thread = threading.Thread(
        target=_run, args=(debate_id, case, protocol, provider, settings, db_location(db_path)),
        name=f"debate-{debate_id}",
        # A daemon thread does not hold the server open at shutdown; a debate cut off that way is
        # found by recover_interrupted on the next start.
        daemon=True,
    )
    with _owned(debate_id, thread):
        store = DebateStore(db_path)
        try:
            stored_settings = {**settings.as_dict(), "runner": runner_info()}
            store.create_debate(case, protocol, provider.public_config(), stored_settings, debate_id=debate_id,
                                actor=actor)
        finally:
            store.close()
    thread.start()
    return debate_id


def on_queue(db_path: str | Path | None, provider: Provider | None = None) -> bool:
    """Whether a debate goes to the job queue: with a PostgreSQL store, unless its provider holds
    what only this process has (a key typed for this debate, a cassette file): those run here."""
    location = db_location(db_path)
    if not is_postgres_url(str(location)):
        return False
    if provider is None:
        return True
    if provider.name == "openai":
        return not getattr(provider, "key_typed", False)
    return provider.name == "offline"


def _submit_new(debate_id: str, case: Case, protocol: str, provider: Provider, settings: DebateSettings,
                url: str, actor: Actor | None) -> str:
    store = DebateStore(url)
    try:
        stored_settings = {**settings.as_dict(), "runner": queue.queued_runner(runner_info())}
        store.create_debate(case, protocol, provider.public_config(), stored_settings, debate_id=debate_id,
                            actor=actor)
    finally:
        store.close()
    _queue_or_fail(url, debate_id)
    return debate_id


def _queue_or_fail(url: str, debate_id: str, **job: Any) -> None:
    """Queue a debate whose row exists; a refused job fails the debate (it would wait forever) and
    the refusal is raised for the page or command to show."""
    try:
        queue.submit(url, debate_id, **job)
    except StoreError as exc:
        _mark_failed(None, url, debate_id, str(exc))
        raise


@contextlib.contextmanager
def _owned(debate_id: str, thread: threading.Thread, busy: str | None = None) -> Iterator[None]:
    """Register a debate's job while its row is created or claimed, so that no other session sees it
    running without an owner; a failure inside unregisters it. `busy`: refuse (that message) when
    this process already runs the debate."""
    with _JOBS_LOCK:
        if busy is not None and debate_id in _JOBS:
            raise SteeringError(busy)
        _JOBS[debate_id] = _Job(debate_id, thread)
    try:
        yield
    except BaseException:
        with _JOBS_LOCK:
            _JOBS.pop(debate_id, None)
        raise


def _run(
    debate_id: str, case: Case, protocol: str, provider: Provider, settings: DebateSettings, db_path: Path
) -> None:
    store: DebateStore | None = None
    try:
        store = DebateStore(db_path)
        asyncio.run(run_debate_async(case, protocol, provider=provider, settings=settings, store=store,
                                     debate_id=debate_id))
    except StoreError as exc:
        # The database refused a write (disk full, file damaged or made read-only): say so plainly.
        # Marking the debate failed may be refused too; then the next start marks it interrupted.
        log.error("debate %s stopped: %s", debate_id, exc)
        _mark_failed(store, db_path, debate_id, f"the debate stopped: {exc}")
    except BaseException as exc:  # noqa: BLE001 - whatever happens, the debate must not stay "running"
        message = f"the debate stopped unexpectedly: {plain_reason(exc)}"
        log.error("debate %s crashed:\n%s", debate_id, traceback.format_exc())
        _mark_failed(store, db_path, debate_id, message)
    finally:
        if store is not None:
            store.close()
        with _JOBS_LOCK:
            _JOBS.pop(debate_id, None)


def _mark_failed(store: DebateStore | None, db_path: str | Path, debate_id: str, message: str) -> None:
    try:
        own = store is None
        store = store or DebateStore(db_path)
        try:
            store.record(debate_id, Event("failed", None, {"error": message}))
        finally:
            if own:
                store.close()
    except Exception:  # noqa: BLE001 - the database itself is unusable; the log has the details
        log.exception("could not mark debate %s as failed", debate_id)


# ---------------------------------------------------------------------------
# Continuing a paused debate, forking a debate from one of its rounds
# ---------------------------------------------------------------------------


def _stored_provider(config: dict[str, Any] | None, name: str | None, debate_id: str, doing: str) -> Provider:
    """The provider a stored debate ran on, rebuilt from what was stored with it. Only the offline
    provider can be: an openai debate's key is never stored and a replay's cassette is not kept, so
    those are refused with the command that does it."""
    config = config or {}
    name = name or config.get("provider") or "offline"
    if name == "offline":
        # The stored delay per call too, so a continued debate can be watched arriving as the first part was.
        return make_provider("offline", latency_ms=config.get("latency_ms") or 0)
    command = doing if doing in ("continue", "resume") else "fork"
    flags = ("--provider replay --cassette FILE" if name == "replay"
             else "--provider openai --model MODEL [--base-url URL]")
    what = "a recorded cassette" if name == "replay" else "an openai-compatible model"
    extra = " --from-round N" if command == "fork" else ""
    raise SteeringError(
        f"this debate ran on {what}, which the app cannot set up again for it; {doing} it from the command "
        f"line with the provider flags: python -m debate_core {command} {debate_id}{extra} {flags}")


def _job_thread(debate_id: str, holder: dict[str, Any], db_path: str | Path) -> threading.Thread:
    """A thread that runs the plan put in `holder` once it is prepared (the job is registered first)."""
    return threading.Thread(target=lambda: _run_steered(holder["plan"], db_path), name=f"debate-{debate_id}",
                            daemon=True)


def start_continue(debate_id: str, *, db_path: str | Path, reviewer: str = "", actor: Actor | None = None,
                   provider: Provider | None = None) -> str:
    """Continue a paused debate in a background thread; returns its id (the same) at once.

    The debate is claimed here, in the calling thread, so a refusal (not paused, someone else
    continued it first, a provider the app cannot rebuild) raises SteeringError before anything
    starts; the run itself goes on in the background like start_debate's, or on a queue worker."""
    db_path = db_location(db_path)
    holder: dict[str, Any] = {}
    thread = _job_thread(debate_id, holder, db_path)
    # Registered before the debate is claimed (its status becomes running).
    with _owned(debate_id, thread,
                busy=f"debate {debate_id} is still finishing its last step here; try again in a moment"):
        store = DebateStore(db_path)
        try:
            if provider is None:
                row = store.get_debate(debate_id, with_steps=False)
                if row["status"] == "paused":  # otherwise prepare_continue says what the state is
                    provider = _stored_provider(row.get("provider_config"), row.get("provider"), debate_id,
                                                "continue")
            queued = on_queue(db_path, provider)
            runner = queue.queued_runner(runner_info()) if queued else runner_info()
            holder["plan"] = continuation.prepare_continue(store, debate_id, provider, runner=runner,
                                                          reviewer=reviewer, actor=actor)
        finally:
            store.close()
    if queued:
        with _JOBS_LOCK:
            _JOBS.pop(debate_id, None)
        _queue_or_fail(str(db_path), debate_id, resume_at=holder["plan"].steering.resume_at)
        return debate_id
    thread.start()
    return debate_id


def start_fork(parent_id: str, from_round: int, *, db_path: str | Path, options: dict[str, Any] | None = None,
               agents: list[dict[str, Any]] | None = None, rounds: int | None = None,
               reviewer: str = "", actor: Actor | None = None, provider: Provider | None = None) -> str:
    """Fork a debate after one of its closed rounds, with changed protocol options (and agents or a
    round budget), and run the fork
    in a background thread (or on a queue worker); returns the fork's id at once.

    Prepared in the calling thread: a refusal (a running parent, a round that did not close, a bad
    option, a provider the app cannot rebuild) raises before the fork exists."""
    db_path = db_location(db_path)
    holder: dict[str, Any] = {}
    fork_id = new_debate_id()
    thread = _job_thread(fork_id, holder, db_path)
    with _owned(fork_id, thread):  # registered before its row exists, as start_debate does
        try:
            store = DebateStore(db_path)
            try:
                if provider is None:
                    parent = store.get_debate(parent_id, with_steps=False)
                    if parent["status"] != "running":  # otherwise prepare_fork says it is running
                        provider = _stored_provider(parent.get("provider_config"), parent.get("provider"),
                                                    parent_id, "fork")
                queued = on_queue(db_path, provider)
                runner = queue.queued_runner(runner_info()) if queued else runner_info()
                holder["plan"] = continuation.prepare_fork(store, parent_id, from_round, provider=provider,
                                                           options=options, agents=agents, rounds=rounds, runner=runner,
                                                           reviewer=reviewer, actor=actor, debate_id=fork_id)
            finally:
                store.close()
        except BaseException as exc:
            if _exists(db_path, fork_id):
                # The row exists but its run never started: it must not stay running.
                _mark_failed(None, db_path, fork_id, f"the fork could not start: {plain_reason(exc)}")
            raise
    if queued:
        with _JOBS_LOCK:
            _JOBS.pop(fork_id, None)
        _queue_or_fail(str(db_path), fork_id, fork_of=parent_id, fork_round=from_round)
        return fork_id
    thread.start()
    return fork_id


def start_resume(debate_id: str, *, db_path: str | Path, actor: Actor | None = None,
                 provider: Provider | None = None) -> str:
    """Resume a failed (or interrupted) debate as a new debate linked to it, in a background thread
    or on a queue worker; returns the new debate's id at once. Its completed steps are served from
    the store, the failed step and everything after run again.

    Refused before anything is created: a debate that did not fail (continue a paused one; a
    running one may still be alive), a provider the app cannot set up again, a role that may not
    start debates."""
    db_path = db_location(db_path)
    store = DebateStore(db_path)
    try:
        old = store.get_debate(debate_id, with_steps=False)
        if old["status"] == "running":
            reason = interruption_reason(old)
            if reason is None:
                raise SteeringError(f"debate {debate_id} is still running; wait for it, or stop it first")
            store.mark_interrupted(debate_id, f"interrupted: {reason}")
        elif old["status"] != "failed":
            hint = " (continue it instead)" if old["status"] == "paused" else ""
            raise SteeringError(f"debate {debate_id} is {old['status']}; only a failed debate can be resumed{hint}")
        if actor is not None:
            require(actor, "start")
        if provider is None:
            provider = _stored_provider(old.get("provider_config"), old.get("provider"), debate_id, "resume")
        queued = on_queue(db_path, provider)
        if queued:
            plan = prepare_resume(store, debate_id, provider, runner=queue.queued_runner(runner_info()), actor=actor)
        else:
            new_id = new_debate_id()
            holder: dict[str, Any] = {}
            thread = threading.Thread(target=lambda: _run_resumed(holder["plan"], db_path), name=f"debate-{new_id}",
                                      daemon=True)
            with _owned(new_id, thread):  # registered before its row exists, as start_debate does
                plan = holder["plan"] = prepare_resume(store, debate_id, provider, runner=runner_info(), actor=actor,
                                                       new_id=new_id)
    finally:
        store.close()
    if queued:
        _queue_or_fail(str(db_path), plan.debate_id, resume_of=debate_id)
        return plan.debate_id
    thread.start()
    return plan.debate_id


def _run_resumed(plan: Any, db_path: str | Path) -> None:
    _run_guarded(plan, db_path, run_plan)


def _exists(db_path: str | Path, debate_id: str) -> bool:
    try:
        store = DebateStore(db_path)
    except StoreError:
        return False
    try:
        store.get_debate(debate_id, with_steps=False)
        return True
    except NotFound:
        return False
    finally:
        store.close()


def _run_steered(plan: Any, db_path: str | Path) -> None:
    # continuation.run_steered is read at call time: tests replace it.
    _run_guarded(plan, db_path, lambda store, p: continuation.run_steered(store, p))


def _run_guarded(plan: Any, db_path: str | Path, run: Any) -> None:
    """A prepared continuation, fork or resume in its thread: to its end, its next pause or a stop;
    failures are saved as failed, as _run saves them."""
    store: DebateStore | None = None
    try:
        store = DebateStore(db_path)
        run(store, plan)
    except StoreError as exc:
        log.error("debate %s stopped: %s", plan.debate_id, exc)
        _mark_failed(store, db_path, plan.debate_id, f"the debate stopped: {exc}")
    except BaseException as exc:  # noqa: BLE001 - whatever happens, the debate must not stay "running"
        log.error("debate %s crashed:\n%s", plan.debate_id, traceback.format_exc())
        _mark_failed(store, db_path, plan.debate_id, f"the debate stopped unexpectedly: {plain_reason(exc)}")
    finally:
        if store is not None:
            store.close()
        with _JOBS_LOCK:
            _JOBS.pop(plan.debate_id, None)


def is_running_here(debate_id: str) -> bool:
    """True from the moment the debate is created until its thread has saved how it ended."""
    with _JOBS_LOCK:
        return debate_id in _JOBS


def running_here() -> list[str]:
    with _JOBS_LOCK:
        return list(_JOBS)


def wait(debate_id: str, timeout: float | None = None) -> bool:
    """Block until the debate's thread ends (for the CLI and tests). False on timeout."""
    with _JOBS_LOCK:
        job = _JOBS.get(debate_id)
    if job is None:
        return True
    job.thread.join(timeout)
    return not job.thread.is_alive()


# ---------------------------------------------------------------------------
# Debates left running by a dead process
# ---------------------------------------------------------------------------


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _age_seconds(stamp: str | None, now: float) -> float:
    if not stamp:
        return float("inf")
    try:
        ts = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return float("inf")
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return now - ts.timestamp()


def interruption_reason(debate: dict[str, Any], *, stale_after: float = DEFAULT_STALE_AFTER_S,
                        now: float | None = None) -> str | None:
    """Why a `running` debate is presumed dead, or None while it may still be alive."""
    if debate.get("status") != "running" or is_running_here(debate["id"]):
        return None
    now = time.time() if now is None else now
    runner = (debate.get("settings") or {}).get("runner") or {}
    if runner.get("queue"):
        # The job queue owns it: a worker that dies stops its heartbeats and another worker takes
        # the job up again (queue.py), however long it waits for one.
        return None
    pid, host = runner.get("pid"), runner.get("host")
    if isinstance(pid, int) and host == socket.gethostname():
        if pid == os.getpid():
            return "the debate's worker thread is gone (the server was restarted or the thread was lost)"
        if not _pid_alive(pid):
            return f"the process that ran it (pid {pid}) is no longer running"
    age = _age_seconds(debate.get("updated_at"), now)
    if age > stale_after:
        return f"nothing was written for {int(age // 60)} minutes"
    return None


def find_interrupted(store: DebateStore, *, stale_after: float = DEFAULT_STALE_AFTER_S,
                     now: float | None = None) -> dict[str, str]:
    """Running debates presumed dead, with the reason for each. Works on a read-only store."""
    found: dict[str, str] = {}
    for row in store.list_debates(status="running", include_evaluations=True, limit=10_000):
        try:
            debate = store.get_debate(row["id"], with_steps=False)
        except NotFound:
            continue
        reason = interruption_reason(debate, stale_after=stale_after, now=now)
        if reason:
            found[debate["id"]] = reason
    return found


def recover_interrupted(store: DebateStore, *, stale_after: float = DEFAULT_STALE_AFTER_S,
                        now: float | None = None) -> dict[str, str]:
    """Mark every running debate presumed dead as interrupted (failed, steps kept). Needs a writable store."""
    found = find_interrupted(store, stale_after=stale_after, now=now)
    for debate_id, reason in found.items():
        store.mark_interrupted(debate_id, f"interrupted: {reason}")
    return found


# ---------------------------------------------------------------------------
# Evaluations
# ---------------------------------------------------------------------------

_EVAL_JOBS: dict[str, threading.Thread] = {}


def start_evaluation(plan: Any, *, db_path: str | Path, actor: Actor | None = None) -> str:
    """Record an evaluation (debate_core/evaluation/harness.py, a prepared plan) and run it in a background
    thread; return its id at once. Its rows reach the store as runs finish, so a page follows it by
    reading the store. With a PostgreSQL store its runs go to the queue's workers instead."""
    if on_queue(db_path) and plan.providers.name != "replay":
        return queue.submit_evaluation(str(db_location(db_path)), plan, actor=actor)
    store = DebateStore(db_path)
    try:
        evaluation_id = store.create_evaluation(
            protocol=plan.protocol, methods=[m.name for m in plan.methods], cases=[c.id for c in plan.cases],
            settings={**plan.settings_record(), "runner": runner_info()}, total_runs=plan.total_runs, actor=actor)
    finally:
        store.close()

    def work() -> None:
        own: DebateStore | None = None
        try:
            own = DebateStore(db_path)
            evaluation.run(plan, own, evaluation_id=evaluation_id)
        except BaseException as exc:  # noqa: BLE001 - the evaluation must not stay "running"
            log.error("evaluation %s stopped:\n%s", evaluation_id, traceback.format_exc())
            try:
                if own is not None:
                    own.finish_evaluation(evaluation_id, status="failed",
                                          error=f"the evaluation stopped: {plain_reason(exc)}")
            except Exception:  # noqa: BLE001 - the database itself is unusable; the log has the details
                log.exception("could not mark evaluation %s as failed", evaluation_id)
        finally:
            if own is not None:
                own.close()
            with _JOBS_LOCK:
                _EVAL_JOBS.pop(evaluation_id, None)

    thread = threading.Thread(target=work, name=f"evaluation-{evaluation_id}", daemon=True)
    with _JOBS_LOCK:
        _EVAL_JOBS[evaluation_id] = thread
    thread.start()
    return evaluation_id


def evaluation_running_here(evaluation_id: str) -> bool:
    with _JOBS_LOCK:
        return evaluation_id in _EVAL_JOBS


def wait_evaluation(evaluation_id: str, timeout: float | None = None) -> bool:
    """Block until the evaluation's thread ends (tests). False on timeout."""
    with _JOBS_LOCK:
        thread = _EVAL_JOBS.get(evaluation_id)
    if thread is None:
        return True
    thread.join(timeout)
    return not thread.is_alive()
