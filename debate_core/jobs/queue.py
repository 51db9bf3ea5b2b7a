"""Debates as jobs on a PostgreSQL job queue (procrastinate), run by workers on any machine.

With a PostgreSQL store, a debate started from the app or with `submit` is a row in the store
(created at once, so its page exists) and a job on the queue; `python -m debate_core worker` takes
jobs and runs them. The queue's tables live in the same database (procrastinate's own schema, set
up once by the store). What the queue gives and this module relies on:

- a job is taken by one worker only (`FOR UPDATE SKIP LOCKED`), and jobs of one debate share a
  lock, so two workers never run the same debate at once;
- a worker that dies (kill -9, a lost machine) stops sending heartbeats; every worker looks for
  the jobs of stalled workers and puts them back on the queue. The debate then goes on from its
  stored steps (continuation.prepare_job): nothing completed is called or stored again;
- pause and stop requests are rows in the store, read by the engine at each pause point, so they
  reach a debate on whichever worker runs it.

SQLite stores keep the in-process worker threads (worker.py); nothing here is used with them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from ..core.events import Event
from ..engine.run import plain_reason
from ..evaluation import queued as queued_eval
from ..providers import Provider, make_provider
from ..store import DEFAULT_BUSY_TIMEOUT_S, DebateStore, StoreError
from . import continuation

log = logging.getLogger(__name__)

QUEUE = "debates"
RUN_TASK = "debate_core.run_debate"
EVAL_TASK = "debate_core.evaluation_run"
# How often a worker says it is alive, and how long without a word makes it dead: a killed worker's
# debate waits at most about STALLED_AFTER_S + CHECK_EVERY_S for another worker.
HEARTBEAT_S = 5.0
STALLED_AFTER_S = 20.0
CHECK_EVERY_S = 5.0
# How long a debate whose database went away waits for it before its job gives up.
DB_WAIT_S = 300.0


class QueueError(StoreError):
    """The job queue cannot be used (procrastinate missing, the database refused the job)."""


def _procrastinate() -> Any:
    try:
        import procrastinate
    except ImportError as exc:  # pragma: no cover - it is in requirements.txt
        raise QueueError("the job queue needs the procrastinate package (pip install -r requirements.txt)") from exc
    return procrastinate


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# Databases whose queue tables this process has seen in place: a submit does not check again.
_SCHEMA_READY: set[str] = set()


def ensure_schema(db_url: str, db_timeout: float = DEFAULT_BUSY_TIMEOUT_S) -> bool:
    """Set up the queue's tables in the store's database once; True when this call did."""
    if db_url in _SCHEMA_READY:
        return False
    procrastinate = _procrastinate()
    store = DebateStore(db_url, busy_timeout=db_timeout)
    try:
        done = store.ensure_job_queue(procrastinate.schema.SchemaManager.get_schema())
    finally:
        store.close()
    _SCHEMA_READY.add(db_url)
    return done


def make_app(db_url: str, *, runner: Callable[..., None] | None = None,
             db_timeout: float = DEFAULT_BUSY_TIMEOUT_S) -> Any:
    """A procrastinate app on the store's database with the debate task registered. `runner` runs
    one job (run_job, by default; the benchmark and tests use the real one too)."""
    procrastinate = _procrastinate()
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=db_url, min_size=1, max_size=4))
    run = runner or run_job

    # A sync task: procrastinate runs it in a thread, where the debate gets its own event loop and
    # store connection, as the in-process worker threads do.
    @app.task(name=RUN_TASK, queue=QUEUE, pass_context=True)
    def run_debate(context: Any, debate_id: str, resume_at: str | None = None, fork_of: str | None = None,
                   fork_round: int | None = None, resume_of: str | None = None) -> None:
        job = context.job
        run(db_url, debate_id, resume_at=resume_at, fork_of=fork_of, fork_round=fork_round, resume_of=resume_of,
            job_id=job.id, attempt=job.attempts, worker=context.worker_name or worker_name(), db_timeout=db_timeout)

    @app.task(name=EVAL_TASK, queue=QUEUE, pass_context=True)
    def evaluation_run(context: Any, payload: dict[str, Any]) -> None:
        store = DebateStore(db_url, busy_timeout=db_timeout)
        try:
            queued_eval.run_one(store, payload)
        finally:
            store.close()

    return app


def submit_evaluation(db_url: str, plan: Any, *, actor: Any = None) -> str:
    """Record an evaluation and put each of its runs on the queue; returns its id at once. The
    workers store the rows; the last one closes the evaluation with its summary."""
    queued_eval.check_queueable(plan)
    ensure_schema(db_url)
    store = DebateStore(db_url)
    try:
        evaluation_id = store.create_evaluation(
            protocol=plan.protocol, methods=[m.name for m in plan.methods], cases=[c.id for c in plan.cases],
            settings={**plan.settings_record(), "runner": queued_runner({"pid": os.getpid(),
                                                                         "host": socket.gethostname()})},
            total_runs=plan.total_runs, actor=actor)
    finally:
        store.close()
    jobs = queued_eval.payloads(plan, evaluation_id)
    app = make_app(db_url)
    try:
        with app.open():
            task = app.tasks[EVAL_TASK]
            for payload in jobs:
                task.defer(payload=payload)
    except Exception as exc:  # noqa: BLE001 - the connector's errors vary: the evaluation must not wait forever
        store = DebateStore(db_url)
        try:
            store.finish_evaluation(evaluation_id, status="failed",
                                    error=f"the evaluation could not be queued: {plain_reason(exc)}")
        finally:
            store.close()
        raise QueueError(f"the evaluation could not be queued: {plain_reason(exc)}") from exc
    return evaluation_id


def submit(db_url: str, debate_id: str, *, resume_at: str | None = None, fork_of: str | None = None,
           fork_round: int | None = None, resume_of: str | None = None) -> int:
    """Put a debate that exists in the store on the queue; returns the job's id."""
    ensure_schema(db_url)
    app = make_app(db_url)
    try:
        with app.open():
            task = app.tasks[RUN_TASK].configure(lock=f"debate:{debate_id}")
            return int(task.defer(debate_id=debate_id, resume_at=resume_at, fork_of=fork_of, fork_round=fork_round,
                                  resume_of=resume_of))
    except Exception as exc:  # noqa: BLE001 - the connector's errors vary; the debate must not wait forever
        raise QueueError(f"the debate could not be queued: {plain_reason(exc)}") from exc


def queued_runner(submitted_by: dict[str, Any]) -> dict[str, Any]:
    """The runner a queued debate is stored with until a worker takes it: the queue owns it, so no
    process check marks it interrupted while it waits (worker.interruption_reason)."""
    return {"queue": QUEUE, "submitted_by": submitted_by}


# ---------------------------------------------------------------------------
# One job
# ---------------------------------------------------------------------------


def provider_for(config: dict[str, Any] | None, name: str | None) -> Provider:
    """The provider a queued debate runs on, from what was stored with it and this worker's own
    configuration: the offline agents as stored; an OpenAI-compatible server by its stored model and
    base URL, with this worker's key only if its operator configured the key for that server."""
    config = config or {}
    name = name or config.get("provider") or "offline"
    if name == "offline":
        return make_provider("offline", latency_ms=config.get("latency_ms") or 0)
    if name == "openai":
        options = {k: config.get(k) for k in ("base_url", "temperature", "timeout", "max_tokens", "method")}
        return make_provider("openai", model=config.get("model"), **{k: v for k, v in options.items() if v})
    raise QueueError(f"a worker cannot run a debate on the {name} provider; run it with the command line "
                     "(python -m debate_core run) where its files are")


def run_job(db_url: str, debate_id: str, *, resume_at: str | None = None, fork_of: str | None = None,
            fork_round: int | None = None, resume_of: str | None = None, job_id: int | None = None, attempt: int = 0,
            worker: str | None = None, wait_for_db: float = DB_WAIT_S,
            db_timeout: float = DEFAULT_BUSY_TIMEOUT_S) -> None:
    """Run (or go on with) one queued debate. A debate that is no longer running (stopped while it
    waited, or finished by a worker that died just after) is left as it is. Every failure ends the
    debate as failed, steps kept; a database that goes away mid-run is waited for (`wait_for_db`
    seconds), and the debate is then failed with what it stored kept, to be resumed. A write waits
    `db_timeout` seconds for the database (a short outage passes unnoticed) before the run gives up."""
    store = DebateStore(db_url, busy_timeout=db_timeout)
    try:
        row = store.get_debate(debate_id, with_steps=False)
        if row["status"] != "running":
            log.info("debate %s is %s; job %s has nothing to do", debate_id, row["status"], job_id)
            return
        store.record(debate_id, Event("run_claimed", None, {
            "queue": QUEUE, "job_id": job_id, "attempt": attempt, "worker": worker or worker_name(),
            "host": socket.gethostname(), "pid": os.getpid()}))
        try:
            provider = provider_for(row.get("provider_config"), row.get("provider"))
            plan = continuation.prepare_job(store, debate_id, provider, resume_at=resume_at, fork_of=fork_of,
                                            fork_round=fork_round, resume_of=resume_of)
            continuation.run_steered(store, plan)
        except StoreError as exc:
            _fail_when_back(db_url, debate_id, exc, wait_for_db, db_timeout)
        except BaseException as exc:  # noqa: BLE001 - whatever happens, the debate must not stay "running"
            log.error("debate %s crashed:\n%s", debate_id, traceback.format_exc())
            store.record(debate_id, Event("failed", None, {
                "error": f"the debate stopped unexpectedly: {plain_reason(exc)}"}))
    finally:
        store.close()


def _fail_when_back(db_url: str, debate_id: str, exc: StoreError, wait_for_db: float, db_timeout: float) -> None:
    """The database went away mid-run: every step stored before it did is kept. Wait for it to come
    back, then mark the debate failed in plain words so a reviewer can resume it; a database that
    stays away leaves the job to the queue's stalled-job check (its status is still running)."""
    log.error("debate %s lost its database: %s", debate_id, exc)
    deadline = time.monotonic() + wait_for_db
    while True:
        try:
            store = DebateStore(db_url, busy_timeout=db_timeout)
        except StoreError:
            if time.monotonic() > deadline:
                raise exc from None
            time.sleep(1.0)
            continue
        try:
            store.record(debate_id, Event("failed", None, {
                "error": f"the database could not be reached while the debate ran ({exc}); the steps stored "
                         "before are kept: resume it to go on from there"}))
            return
        finally:
            store.close()


# ---------------------------------------------------------------------------
# The worker
# ---------------------------------------------------------------------------


async def _requeue_stalled(app: Any, stalled_after: float, every: float) -> None:
    """Put the jobs of workers that stopped sending heartbeats back on the queue, every `every` s."""
    while True:
        try:
            for job in await app.job_manager.get_stalled_jobs(queue=QUEUE, seconds_since_heartbeat=stalled_after):
                log.warning("job %s (%s) belonged to a worker that stopped; putting it back on the queue",
                            job.id, job.task_kwargs.get("debate_id"))
                await app.job_manager.retry_job(job)
        except Exception as exc:  # noqa: BLE001 - a lost database is reported by the worker loop
            log.debug("stalled-job check failed: %s", exc)
        await asyncio.sleep(every)


class WorkerHandle:
    """A running worker's loop and procrastinate worker, so another thread can stop it."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.worker: Any = None
        self.stopping = False

    def stop(self) -> None:
        self.stopping = True
        if self.loop is not None and self.worker is not None:
            self.loop.call_soon_threadsafe(self.worker.stop)


async def _work(db_url: str, concurrency: int, name: str, heartbeat: float, stalled_after: float,
                wait: bool, db_timeout: float, handle: WorkerHandle, signals: bool) -> None:
    _procrastinate()
    from procrastinate.worker import Worker

    app = make_app(db_url, db_timeout=db_timeout)
    async with app.open_async():
        checker = asyncio.create_task(_requeue_stalled(app, stalled_after, min(CHECK_EVERY_S, stalled_after / 2)))
        try:
            handle.worker = Worker(
                app=app, queues=[QUEUE], concurrency=concurrency, name=name, wait=wait,
                update_heartbeat_interval=heartbeat, stalled_worker_timeout=stalled_after,
                install_signal_handlers=signals, delete_jobs="successful")
            handle.loop = asyncio.get_running_loop()
            if handle.stopping:
                return
            await handle.worker.run()
        finally:
            checker.cancel()


def run_worker(db_url: str, *, concurrency: int = 1, name: str | None = None, heartbeat: float = HEARTBEAT_S,
               stalled_after: float = STALLED_AFTER_S, wait: bool = True, reconnect_after: float = 5.0,
               db_timeout: float = DEFAULT_BUSY_TIMEOUT_S, say: Callable[[str], None] = print,
               handle: WorkerHandle | None = None, signals: bool = True) -> None:
    """Run a worker until it is stopped (Ctrl-C, SIGTERM, `handle.stop()`), or with `wait=False`
    until the queue is empty. A database that goes away is waited for: the worker says so and
    reconnects when it is back, and the jobs it was running are put back on the queue by whichever
    worker sees them stall. `signals`: False in a thread (only the main thread may take signals)."""
    name = name or worker_name()
    handle = handle or WorkerHandle()
    ensure_schema(db_url, db_timeout)
    while not handle.stopping:
        try:
            asyncio.run(_work(db_url, concurrency, name, heartbeat, stalled_after, wait, db_timeout, handle,
                              signals))
            return
        except KeyboardInterrupt:
            return
        except Exception as exc:  # noqa: BLE001 - the database went away: wait for it and start again
            say(f"worker {name}: the database cannot be reached ({plain_reason(exc)}); "
                f"trying again in {reconnect_after:g} s")
            time.sleep(reconnect_after)
            while not handle.stopping and not _reachable(db_url, db_timeout):
                time.sleep(reconnect_after)
            if not handle.stopping:
                say(f"worker {name}: the database is back; taking jobs again")


# One worker inside the app's process per database, so that PostgreSQL mode runs debates with no
# other process to start; a team with worker machines turns it off (DEBATE_APP_WORKER=0).
_EMBEDDED: dict[str, tuple[threading.Thread, WorkerHandle]] = {}
_EMBEDDED_LOCK = threading.Lock()


def app_worker_wanted(environ: Mapping[str, str] | None = None) -> bool:
    value = (os.environ if environ is None else environ).get("DEBATE_APP_WORKER", "1").strip().lower()
    return value not in ("0", "false", "no", "off")


def start_app_worker(db_url: str, *, concurrency: int = 2) -> bool:
    """Start this process's worker thread for the database once; True when this call started it."""
    with _EMBEDDED_LOCK:
        running = _EMBEDDED.get(db_url)
        if running is not None and running[0].is_alive():
            return False
        handle = WorkerHandle()
        thread = threading.Thread(
            target=run_worker, args=(db_url,), name="debate-queue-worker", daemon=True,
            kwargs={"concurrency": concurrency, "name": f"{worker_name()} (app)", "signals": False,
                    "handle": handle, "say": log.warning})
        _EMBEDDED[db_url] = (thread, handle)
        thread.start()
        return True


def stop_app_workers(timeout: float = 30.0) -> None:
    """Stop this process's worker threads (tests; at exit the daemon threads simply end)."""
    with _EMBEDDED_LOCK:
        running = list(_EMBEDDED.values())
        _EMBEDDED.clear()
    for _thread, handle in running:
        handle.stop()
    for thread, _handle in running:
        thread.join(timeout)


def _reachable(db_url: str, db_timeout: float) -> bool:
    try:
        DebateStore(db_url, busy_timeout=db_timeout).close()
        return True
    except StoreError:
        return False
