"""Commands that start or revive a debate: run, resume; and upgrade, which migrates the database."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from ..core.cases import CaseError
from ..core.profiles import resolve
from ..engine.budget import apply_budget
from ..jobs import queue
from ..jobs.debates import prepare_resume, run_debate, run_plan
from ..jobs.worker import interruption_reason, on_queue, runner_info
from ..protocols import CaseUnfit, SettingsError, UnknownProtocol, get_spec
from ..store import DebateStore, StoreError, is_postgres_url
from ..store.connection import copy_database
from .common import (
    EXIT_OK,
    BadInput,
    _budget_flag,
    _budget_info,
    _db_path,
    _emit_result,
    _provider_from_args,
    _running,
    _saving,
    _settings_from_args,
    _stale_after,
    _store,
    operator_actor,
)
from .documents import case_from_args, selection_of
from .progress import ProgressSink


def _prepared_run(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """The case, settings and provider of `run` or `submit`, every flag checked before anything is saved."""
    try:
        spec = get_spec(args.protocol)
    except UnknownProtocol as exc:
        raise BadInput(str(exc)) from exc
    settings = _settings_from_args(args)
    case = case_from_args(args)  # a case file, or --question with --evidence documents
    try:
        spec.check_case(case, settings)
    except (CaseError, CaseUnfit, SettingsError) as exc:
        raise BadInput(str(exc)) from exc
    provider = _provider_from_args(args, resolve(settings.agents, case, list(spec.default_agents), spec.name))
    if args.provider == "replay" and getattr(provider, "protocol", None) not in (None, args.protocol):
        raise BadInput(f"the cassette was recorded for protocol {provider.protocol!r}, not {args.protocol!r}")
    apply_budget(settings, provider)  # --max-total-tokens, else the default for a paid provider
    return case, settings, provider


def cmd_run(args: argparse.Namespace) -> int:
    case, settings, provider = _prepared_run(args)
    budget_info = _budget_info(settings, provider, args)
    store = _store(args.db)
    sink = ProgressSink(store, quiet=args.quiet)
    # Record which process runs the debate, so the app can tell at once when a killed CLI left it running.
    stored_settings = {**settings.as_dict(), "runner": runner_info()}
    debate_id = _saving(lambda: store.create_debate(case, args.protocol, provider.public_config(), stored_settings,
                                                    actor=operator_actor()),
                        "the debate could not be saved")
    result = _running(store, debate_id, lambda: run_debate(case, args.protocol, provider=provider, settings=settings,
                                                           store=store, sink=sink, debate_id=debate_id))
    result.budget = budget_info
    selection = selection_of(case)
    return _emit_result(result, args.json, {"evidence_selection": selection} if selection else None, provider)


def cmd_submit(args: argparse.Namespace) -> int:
    """Queue a debate for the workers (PostgreSQL store) and print its id at once."""
    db = _db_path(args.db)
    if not is_postgres_url(str(db)):
        raise BadInput("submit queues debates for workers, which needs a PostgreSQL store: pass --db postgresql://... "
                       "(or set DEBATE_DB); with a database file, run the debate with 'run'")
    case, settings, provider = _prepared_run(args)
    if not on_queue(db, provider):
        raise BadInput(f"a worker cannot run a debate on the {provider.name} provider (its files or key are only "
                       "here); run it with 'run'")
    store = _store(args.db)
    stored_settings = {**settings.as_dict(), "runner": queue.queued_runner(runner_info())}
    debate_id = _saving(lambda: store.create_debate(case, args.protocol, provider.public_config(), stored_settings,
                                                    actor=operator_actor()),
                        "the debate could not be saved")
    try:
        job_id = queue.submit(str(db), debate_id)
    except StoreError:
        store.mark_interrupted(debate_id, "the debate could not be queued")
        raise
    if args.json:
        print(json.dumps({"debate_id": debate_id, "job_id": job_id, "status": "queued"}))
    else:
        print(debate_id)
    return EXIT_OK


def cmd_worker(args: argparse.Namespace) -> int:
    """Take debates from the queue and run them until stopped (Ctrl-C) or, with --once, until it is empty."""
    db = _db_path(args.db)
    if not is_postgres_url(str(db)):
        raise BadInput("a worker takes debates from the job queue of a PostgreSQL store: pass --db postgresql://... "
                       "(or set DEBATE_DB)")
    if args.concurrency < 1:
        raise BadInput(f"--concurrency must be at least 1, got {args.concurrency}")
    if args.heartbeat <= 0 or args.stalled_after <= args.heartbeat:
        raise BadInput("--stalled-after must be longer than --heartbeat, and both above 0")
    if args.db_timeout <= 0:
        raise BadInput(f"--db-timeout must be above 0, got {args.db_timeout:g}")
    # A database that cannot be reached is one line, before anything starts; the process's pool
    # takes its wait from this first open.
    DebateStore(db, busy_timeout=args.db_timeout).close()
    name = args.name or queue.worker_name()
    print(f"worker {name}: taking debates from the queue ({args.concurrency} at a time); Ctrl-C stops it",
          flush=True)
    queue.run_worker(str(db), concurrency=args.concurrency, name=name, heartbeat=args.heartbeat,
                     stalled_after=args.stalled_after, wait=not args.once, db_timeout=args.db_timeout,
                     say=lambda line: print(line, flush=True))
    return EXIT_OK


def cmd_resume(args: argparse.Namespace) -> int:
    store = _store(args.db)
    try:
        old = store.get_debate(args.id, with_steps=False)
    except KeyError as exc:
        raise BadInput(str(exc.args[0])) from exc
    if old["status"] == "completed":
        raise BadInput(f"debate {args.id} completed; there is nothing to resume")
    if old["status"] == "running":
        reason = interruption_reason(old, stale_after=_stale_after(args.db))
        if reason is None:
            pid = ((old.get("settings") or {}).get("runner") or {}).get("pid")
            owner = f" (pid {pid})" if pid else ""
            raise BadInput(f"debate {args.id} is still running{owner}; wait for it or stop that process")
        _saving(lambda: store.mark_interrupted(args.id, f"interrupted: {reason}"), "the debate could not be updated")
    if not args.provider and args.cassette and old["provider"] == "replay":
        args.provider = "replay"
    if (args.provider or old["provider"]) == "replay" and not args.cassette:
        raise BadInput("resuming a replay debate needs its cassette again: --provider replay --cassette FILE")
    provider = None
    if args.provider:
        provider = _provider_from_args(args)
    elif old["provider"] == "openai":
        raise BadInput("resuming an openai debate needs the provider flags again (--provider openai --model ...)")
    budget = _budget_flag(args)
    try:
        plan = _saving(lambda: prepare_resume(store, args.id, provider, runner=runner_info(), max_total_tokens=budget),
                       "the resumed debate could not be saved")
    except SettingsError as exc:
        raise BadInput(f"debate {args.id} cannot be resumed: {exc}") from None
    budget_info = _budget_info(plan.settings, plan.provider, args)
    sink = ProgressSink(store, quiet=args.quiet)
    result = _running(store, plan.debate_id, lambda: run_plan(store, plan, sink=sink))
    result.budget = budget_info
    return _emit_result(result, args.json, provider=plan.provider)


def cmd_upgrade(args: argparse.Namespace) -> int:
    """Apply the migrations an older database needs; the store copies the file next to itself first."""
    db = _db_path(args.db)
    if not isinstance(db, str) and not db.exists():  # creating a database is a run's job; an upgrade only changes one that exists
        raise BadInput(f"the database {db} does not exist; there is nothing to upgrade")
    store = DebateStore(db)
    store.close()
    if not store.migrated:
        print(f"the database {db} is up to date; nothing to do")
    elif store.backup_path is None:
        print(f"set up the empty database {db} ({', '.join(store.migrated)})")
    else:
        print(f"upgraded the database {db} ({', '.join(store.migrated)})")
        print(f"the database as it was before is copied to {store.backup_path}")
    return EXIT_OK


def _check_copy(path: Path) -> int:
    """The copy reads back whole (SQLite's quick check); returns how many debates it holds."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            raise StoreError(f"the copy {path} did not read back whole ({verdict}); nothing was kept")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return conn.execute("SELECT COUNT(*) FROM debates").fetchone()[0] if "debates" in tables else 0
    finally:
        conn.close()


def cmd_backup(args: argparse.Namespace) -> int:
    """Copy the database to a new file while the app and other commands keep using it (SQLite's
    online backup), then check the copy reads back whole."""
    db = _db_path(args.db)
    if isinstance(db, str):  # a postgresql:// URL: the server's own tool takes a consistent copy
        raise BadInput("a PostgreSQL database is backed up with PostgreSQL's own tool: "
                       "pg_dump --format=custom --file FILE URL")
    if not db.exists():
        raise BadInput(f"the database {db} does not exist; there is nothing to back up")
    target = Path(args.target)
    if target.exists() or target.is_symlink():
        raise BadInput(f"{target} already exists; give the backup a new file name")
    if not target.parent.is_dir():
        raise BadInput(f"the folder {target.parent} does not exist")
    # Written under a temporary name and renamed once checked: a half-written copy never carries the name asked for.
    partial = target.with_name(f".{target.name}.partial")
    try:
        copy_database(db, partial)
        debates = _check_copy(partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    print(f"backed up {db} to {target} ({debates} debate(s), {target.stat().st_size:,} bytes)")
    return EXIT_OK
