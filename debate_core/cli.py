"""Command line: python -m debate_core run|list|show|diff|export|review|annotate|resume|eval|upgrade, and
the steering commands pause|stop|continue|intervene|fork. list, show, diff and export only read: they
never create, migrate or otherwise write the database.

Exit codes: 0 the debate completed (escalated or not), paused or stopped; 1 the debate failed or was
interrupted (saved, id printed); 2 bad input (nothing saved), a review the reviewer may not take, or
a database that cannot be opened or written (one line naming the file and the reason).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from . import export as exporter
from .budget import apply_budget
from .budget import describe as budget_describe
from .cases import CaseError, load_case
from .credentials import ServerCredentials, server_credentials
from .engine import DebateResult, plain_reason, prepare_resume, run_debate, run_plan
from .events import Event, EventSink
from .files import FileProblem, check_target, write_text_atomic
from .inputs import parse_option_pairs
from .protocols import PROTOCOLS, CaseUnfit, SettingsError, UnknownProtocol, get_spec, validate_settings
from .providers import PROVIDERS, CassetteError, make_provider
from .runtime import DebateSettings
from .store import StoreError, store_error

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class BadInput(Exception):
    pass


class StoreFailed(Exception):
    """The database could not record a debate (a full disk, a read-only file): one line, exit 1."""


class Interrupted(Exception):
    """Ctrl-C during a stored debate, which is now marked interrupted and can be resumed."""

    def __init__(self, debate_id: str) -> None:
        super().__init__(debate_id)
        self.debate_id = debate_id


class ProgressSink(EventSink):
    """Writes every event to the store and a one-line progress note to stderr.

    Running steps show their tokens so far and tokens per second: on a terminal as one line that
    updates in place, otherwise (a log file, CI) as a line per step every `every_s` seconds."""

    def __init__(self, inner: EventSink, stream: Any = sys.stderr, quiet: bool = False,
                 live: bool | None = None, every_s: float = 10.0) -> None:
        self.inner, self.stream, self.quiet = inner, stream, quiet
        self.done = 0
        self.live = bool(getattr(stream, "isatty", lambda: False)()) if live is None else live
        self.every_s = every_s
        self.running: dict[str, str] = {}  # step id -> its progress, while it runs
        self._printed_at: dict[str, float] = {}
        self._caps: dict[str, int] = {}
        self._status_shown = False

    def record(self, debate_id: str, event: Event) -> None:
        self.inner.record(debate_id, event)
        if self.quiet:
            return
        d = event.data
        line = None
        step = event.step_id or ""
        if event.kind == "debate_started":
            provider = d.get("provider", {})
            line = f"debate {debate_id} started ({d.get('protocol')}, {provider.get('provider')})"
            if provider.get("concurrency_note"):
                line += f"\n  concurrency: {provider['concurrency_note']}"
        elif event.kind == "continued":
            line = f"debate {debate_id} continues from {d.get('resume_at')}"
        elif event.kind in ("paused", "stopped"):
            line = f"debate {debate_id} {event.kind} {d.get('where')}"
        elif event.kind == "turn_started":
            self.running[step] = "waiting"
            if d.get("reply_cap"):
                self._caps[step] = d["reply_cap"]
            self._redraw()
        elif event.kind == "turn_progress":
            rate = d.get("tokens_per_s")
            tokens = d.get("tokens") or 0
            self.running[step] = (f"{tokens} tokens" + (f", {rate:.1f} tokens/s" if rate else "")
                                  if tokens else "waiting for the first token")
            if self.live:
                self._redraw()
            else:
                now = time.monotonic()
                if now - self._printed_at.get(step, 0.0) >= self.every_s:
                    self._printed_at[step] = now
                    line = f"  {step} running: {self.running[step]}"
        elif event.kind == "turn_finished":
            self.done += 1
            self._forget(step)
            cap = f", reply cap {self._caps[step]}" if self._caps.get(step) else ""
            line = (f"  [{self.done:>2}] {event.step_id} done: {d.get('input_tokens', 0)}+{d.get('output_tokens', 0)} tokens, "
                    f"{d.get('latency_ms', 0):.0f} ms" + (f", {d.get('attempts')} attempts" if (d.get("attempts") or 1) > 1 else "")
                    + cap)
        elif event.kind == "turn_failed":
            self._forget(step)
            line = f"  {event.step_id} FAILED: {d.get('error')}"
        elif event.kind == "round_closed":
            line = f"round {d.get('round')} closed"
        elif event.kind == "warning":
            line = f"  warning: {d.get('message')}"
        if line:
            self._clear_status()
            print(line, file=self.stream, flush=True)
            self._redraw()

    def _forget(self, step: str) -> None:
        self.running.pop(step, None)
        self._printed_at.pop(step, None)

    def _clear_status(self) -> None:
        if self._status_shown:
            self.stream.write("\r\033[K")
            self._status_shown = False

    def _redraw(self) -> None:
        if not self.live:
            return
        self._clear_status()
        if self.running:
            status = " | ".join(f"{step}: {state}" for step, state in self.running.items())
            self.stream.write(f"  running {status}"[:240])
            self.stream.flush()
            self._status_shown = True


def _kv(pairs: list[str] | None, flag: str) -> dict[str, Any]:
    try:
        return parse_option_pairs(pairs, flag)
    except CaseError as exc:
        raise BadInput(str(exc)) from exc


def _db_path(path: str | None) -> Path:
    from .store import default_db_path

    return Path(path) if path else default_db_path()


def _store(path: str | None, *, writes: bool = True) -> Any:
    """The store. Commands that write open it writable: checked for damage, created when new and
    migrated when older, after a copy of the older file is taken (named on stderr). Commands that
    only read (`list`, `show`, `diff`, `export`) open it read-only and change nothing: a missing
    file is StoreMissing, and an older one is refused with the command that upgrades it, since
    reading it would mean migrating it first."""
    from .store import DebateStore, StoreOutdated

    db = _db_path(path)
    if not writes:
        try:
            return DebateStore.for_reading(db)
        except StoreOutdated as exc:
            raise StoreError(f"{exc}; upgrade it with  {_upgrade_command(path)}  (a backup is taken first)") from None
    store = DebateStore(db)
    if store.backup_path is not None:
        print(f"upgraded the database {db} ({', '.join(store.migrated)}); the copy from before is "
              f"{store.backup_path}", file=sys.stderr)
    return store


def _upgrade_command(path: str | None) -> str:
    """The command line that upgrades the database `path` (the --db flag only when one was given)."""
    import shlex

    return f"python -m debate_core --db {shlex.quote(path)} upgrade" if path else "python -m debate_core upgrade"


def _operator_credentials(args: argparse.Namespace) -> ServerCredentials:
    """The environment's key, for its configured base URLs and the one given with --base-url: at the
    command line the person typing is the operator, who owns the environment and its key already."""
    return server_credentials().including(args.base_url)


def _provider_from_args(args: argparse.Namespace, profiles: list[dict[str, Any]] | None = None) -> Any:
    # A profile's own model is the default for that agent; --agent-model AGENT=MODEL wins over it.
    agent_models = {str(p["id"]): str(p["model"]) for p in profiles or [] if p.get("model")}
    agent_models.update({k: str(v) for k, v in _kv(args.agent_model, "--agent-model").items()})
    options = {
        "model": args.model, "base_url": args.base_url, "temperature": args.temperature, "timeout": args.timeout,
        "max_attempts": args.max_attempts, "method": args.method, "latency_ms": args.latency_ms,
        "agent_models": agent_models or None,
        "max_tokens": args.max_output_tokens, "cassette": args.cassette,
        "transport_retries": args.transport_retries, "stall_timeout": args.stall_timeout,
        "timeout_retries": args.timeout_retries, "repair": args.repair,
        # An explicit --concurrency also bounds the provider, so a local server's default of one
        # call at a time gives way to it.
        "max_concurrency": getattr(args, "concurrency", None),
        "server_credentials": _operator_credentials(args),
    }
    try:
        return make_provider(args.provider, **options)
    except (CassetteError, ValueError) as exc:
        raise BadInput(str(exc)) from exc


def _settings_from_args(args: argparse.Namespace) -> DebateSettings:
    agents = None
    if args.agents is not None and getattr(args, "agents_file", None):
        raise BadInput("give the agents either as --agents ids or as --agents-file profiles, not both")
    if args.agents is not None:
        agents = [{"id": a.strip()} for a in args.agents.split(",") if a.strip()]
    if getattr(args, "agents_file", None):
        from .profiles import load_profiles

        try:
            agents = load_profiles(args.agents_file)
        except SettingsError as exc:
            raise BadInput(str(exc)) from None
    if args.concurrency is not None and args.concurrency < 1:
        raise BadInput(f"--concurrency must be at least 1, got {args.concurrency}")
    pause = _pause_round(args)
    settings = DebateSettings(
        rounds=args.rounds, agents=agents, concurrency=args.concurrency or 8,
        max_tokens_per_call=args.max_tokens_per_call, max_total_tokens=args.max_total_tokens,
        options=_kv(args.option, "--option"), pause_after_round=pause,
    )
    try:
        return validate_settings(args.protocol, settings)
    except SettingsError as exc:
        raise BadInput(str(exc)) from None


def _pause_round(args: argparse.Namespace) -> int | None:
    """`--pause-after-round N`, checked: a round number, from 1."""
    pause = getattr(args, "pause_after_round", None)
    if pause is not None and pause < 1:
        raise BadInput(f"--pause-after-round must be at least 1, got {pause}")
    return pause


def _summary_text(result: DebateResult) -> str:
    lines = [f"debate {result.debate_id} ({result.protocol}): {result.status}"]
    if result.status in ("paused", "stopped") and result.pause_point is not None:
        where = result.pause_point.describe()
        if result.status == "paused":
            lines.append(f"paused for review {where}. Intervene with  python -m debate_core intervene "
                         f"{result.debate_id} --reviewer NAME ...;  go on with  python -m debate_core continue "
                         f"{result.debate_id}")
        else:
            lines.append(f"stopped {where}; every step so far is kept. Fork it with  python -m debate_core fork "
                         f"{result.debate_id} --from-round N")
    if result.status == "failed":
        lines.append(f"failed at {result.failed_step}: {result.error}" if result.failed_step
                     else f"failed: {result.error}")
        if "--max-total-tokens" not in (result.error or ""):  # a budget stop names its own command
            lines.append(f"resume with: python -m debate_core resume {result.debate_id}")
        return "\n".join(lines)
    lines.append(f"rounds: {result.rounds}; converged: {'yes' if result.converged else 'no'} ({result.convergence_reason})")
    for entry in result.trajectory:
        parts = [f"round {entry['round']}"]
        if entry.get("stage"):
            parts.append(str(entry["stage"]))
        if "severity" in entry:
            sev = entry["severity"]
            parts.append(f"critiques {sev.get('CRITICAL', 0)} critical / {sev.get('MAJOR', 0)} major / {sev.get('MINOR', 0)} minor")
        if "answer_change" in entry:
            parts.append("answer change " + ", ".join(f"{a} {v:.0%}" for a, v in entry["answer_change"].items()))
        if "open_severity" in entry:
            o = entry["open_severity"]
            parts.append(f"open {o.get('CRITICAL', 0)}/{o.get('MAJOR', 0)}/{o.get('MINOR', 0)}")
        for key in ("top_score", "jaccard"):
            if key in entry:
                parts.append(f"{key} {entry[key]}")
        lines.append("  " + "; ".join(parts))
    v = result.verdict
    if v:
        lines.append(f"verdict ({v.confidence:.2f}): {v.answer}")
        lines.append(f"needs human review: {'YES' if v.needs_human_review else 'no'}")
        for r in v.escalation_reasons:
            lines.append(f"  - {r}")
        if v.applied_rules:
            lines.append("applied rules: " + ", ".join(v.applied_rules))
    for w in result.warnings:
        lines.append(f"warning: {w}")
    u = result.usage
    lines.append(f"usage: {u.get('calls', 0)} calls, {u.get('input_tokens', 0)} input + {u.get('output_tokens', 0)} output tokens")
    return "\n".join(lines)


def _emit_result(result: DebateResult, as_json: bool) -> int:
    if as_json:
        print(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    else:
        print(_summary_text(result))
    return EXIT_OK if result.status in ("completed", "paused", "stopped") else EXIT_FAILED


def cmd_run(args: argparse.Namespace) -> int:
    try:
        spec = get_spec(args.protocol)
    except UnknownProtocol as exc:
        raise BadInput(str(exc)) from exc
    settings = _settings_from_args(args)
    try:
        case = load_case(args.case)
        spec.check_case(case, settings)
    except (CaseError, CaseUnfit, SettingsError) as exc:
        raise BadInput(str(exc)) from exc
    from .profiles import resolve

    provider = _provider_from_args(args, resolve(settings.agents, case, list(spec.default_agents), spec.name))
    if args.provider == "replay" and getattr(provider, "protocol", None) not in (None, args.protocol):
        raise BadInput(f"the cassette was recorded for protocol {provider.protocol!r}, not {args.protocol!r}")
    apply_budget(settings, provider)  # --max-total-tokens, else the default for a paid provider
    budget_info = _budget_info(settings, provider, args)
    store = _store(args.db)
    sink = ProgressSink(store, quiet=args.quiet)
    from .worker import runner_info

    # Record which process runs the debate, so the app can tell at once when a killed CLI left it running.
    stored_settings = {**settings.as_dict(), "runner": runner_info()}
    debate_id = _saving(lambda: store.create_debate(case, args.protocol, provider.public_config(), stored_settings),
                        "the debate could not be saved")
    result = _running(store, debate_id, lambda: run_debate(case, args.protocol, provider=provider, settings=settings,
                                                           store=store, sink=sink, debate_id=debate_id))
    result.budget = budget_info
    return _emit_result(result, args.json)


def _budget_flag(args: argparse.Namespace) -> int | None:
    """`--max-total-tokens N` of resume, continue and fork, checked as `run` checks it."""
    value = getattr(args, "max_total_tokens", None)
    if value is not None and value < 1:
        raise BadInput(f"--max-total-tokens must be at least 1, got {value}")
    return value


def _budget_info(settings: DebateSettings, provider: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The `budget` object of `run --json`, with the budget's estimated cost when a price table is
    known; a default budget is also said on stderr before the debate starts, with how to change it."""
    try:
        table = _price_table(args.db)
    except BadInput:
        table = None  # a broken price file costs only the cost figure here
    info = budget_describe(settings, provider, table)
    if info["source"] == "default" and not getattr(args, "quiet", False):
        cost = (f", at most about {info['estimated_cost']:,.2f} {info['currency']}"
                if info["estimated_cost"] is not None else "")
        print(f"token budget: {info['max_total_tokens']:,} tokens, the default for a paid model{cost}; "
              "set another with --max-total-tokens N", file=sys.stderr)
    return info


# -- steering: pause, stop, continue, intervene, fork ------------------------------------------------


def _steering(action: Any) -> Any:
    """A steering action whose refusal (wrong state, unknown reference, a role it needs) is one line, exit 2."""
    from .review import ReviewError
    from .steering import SteeringError
    from .store import NotFound

    try:
        return action()
    except (SteeringError, ReviewError, NotFound, SettingsError, CaseUnfit) as exc:
        raise BadInput(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc)) from None


def cmd_pause(args: argparse.Namespace) -> int:
    return _control(args, "pause")


def cmd_stop(args: argparse.Namespace) -> int:
    return _control(args, "stop")


def _control(args: argparse.Namespace, action: str) -> int:
    store = _store(args.db)
    _reconcile(store, args.db)
    status = _steering(lambda: store.request_control(args.id, action, reviewer=args.reviewer or ""))
    if status == "stopped":
        print(f"debate {args.id} was paused and is now stopped; every step so far is kept")
    else:
        print(f"debate {args.id} will {action} at its next pause point (the end of the current stage or round)")
    return EXIT_OK


def cmd_continue(args: argparse.Namespace) -> int:
    from .continuation import prepare_continue, run_steered
    from .worker import runner_info

    store = _store(args.db)
    _pause_round(args)
    provider = _provider_from_args(args) if args.provider else None
    budget = _budget_flag(args)
    plan = _steering(lambda: prepare_continue(store, args.id, provider, runner=runner_info(),
                                              reviewer=args.reviewer or "", pause_after_round=args.pause_after_round,
                                              max_total_tokens=budget))
    budget_info = _budget_info(plan.settings, plan.provider, args)
    sink = ProgressSink(store, quiet=args.quiet)
    result = _running(store, plan.debate_id, lambda: run_steered(store, plan, sink=sink))
    result.budget = budget_info
    return _emit_result(result, args.json)


def cmd_intervene(args: argparse.Namespace) -> int:
    from .continuation import intervene

    store = _store(args.db)
    if args.critique is not None:
        if not args.target or not args.severity:
            raise BadInput("a critique needs --target REF (agent.claim_id) and --severity CRITICAL|MAJOR|MINOR")
        fields = {"kind": "critique", "target": args.target, "severity": args.severity, "text": args.critique,
                  "fix": args.fix}
    elif args.evidence is not None:
        fields = {"kind": "evidence", "evidence": args.evidence}
    elif args.pin is not None:
        fields = {"kind": "pin", "target": args.pin}
    elif args.strike is not None:
        fields = {"kind": "strike", "target": args.strike}
    else:
        fields = {"kind": "resolve", "target": args.resolve}
    step_id, iv = _steering(lambda: intervene(store, args.id, reviewer=args.reviewer, **fields))
    if args.json:
        print(json.dumps({"debate_id": args.id, "step_id": step_id, **iv.model_dump(mode="json")},
                         ensure_ascii=False, indent=2))
    else:
        print(f"{step_id}: {iv.summary()}")
        print(f"it applies when the debate goes on:  python -m debate_core continue {args.id}")
    return EXIT_OK


def cmd_fork(args: argparse.Namespace) -> int:
    from .continuation import prepare_fork, run_steered
    from .worker import runner_info

    store = _store(args.db)
    parent = _steering(lambda: store.get_debate(args.id, with_steps=False))
    args.protocol = parent["protocol"]
    args.concurrency = getattr(args, "concurrency", None)
    agents = None
    if args.agents is not None or args.agents_file:
        agents = _settings_from_args(_fork_settings_args(args)).agents
    _pause_round(args)
    provider = _provider_from_args(args) if args.provider else None
    plan = _steering(lambda: prepare_fork(
        store, args.id, args.from_round, provider=provider, options=_kv(args.option, "--option") or None,
        agents=agents, rounds=args.rounds, runner=runner_info(), pause_after_round=args.pause_after_round,
        reviewer=args.reviewer or "", max_total_tokens=_budget_flag(args)))
    budget_info = _budget_info(plan.settings, plan.provider, args)
    sink = ProgressSink(store, quiet=args.quiet)
    result = _running(store, plan.debate_id, lambda: run_steered(store, plan, sink=sink))
    result.budget = budget_info
    return _emit_result(result, args.json)


def _fork_settings_args(args: argparse.Namespace) -> argparse.Namespace:
    """The fork's agent flags read the way `run` reads them."""
    return argparse.Namespace(**{**vars(args), "option": None, "rounds": None, "concurrency": None,
                                 "max_tokens_per_call": None, "max_total_tokens": None,
                                 "pause_after_round": None})


def _saving(action: Any, what: str) -> Any:
    """Run a store write; a database that cannot be written is one line for the user, not a traceback."""
    try:
        return action()
    except (BadInput, SettingsError, StoreError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - sqlite and OS errors alike: the message is what matters
        raise StoreFailed(f"{what}: {plain_reason(exc)}") from exc


def _running(store: Any, debate_id: str, action: Any) -> DebateResult:
    """Run a stored debate to its end. Ctrl-C marks it interrupted (failed, resumable) and names it;
    an error the engine could not even record is one line naming the debate."""
    try:
        return action()
    except KeyboardInterrupt:
        try:
            store.mark_interrupted(debate_id, "interrupted: stopped with Ctrl-C")
        except Exception:  # noqa: BLE001 - nothing more can be saved; list and show will mark it later
            pass
        raise Interrupted(debate_id) from None
    except (StoreError, sqlite3.Error) as exc:
        # What was written before the fault is kept; the debate cannot be marked failed in a store
        # that refuses writes, so list, show and the app mark it interrupted later and it can be resumed.
        line = exc if isinstance(exc, StoreError) else store_error(exc, store.path, "write")
        raise StoreError(f"{line or plain_reason(exc)}; debate {debate_id} stopped there") from exc
    except Exception as exc:  # noqa: BLE001 - the engine records every failure it can; this one it could not
        raise StoreFailed(f"debate {debate_id} stopped and its failure could not be saved: {plain_reason(exc)}") from exc


def _stale_after(db: str | None) -> float:
    """The app's setting for when a silent debate counts as dead, or the default."""
    from .app_settings import SettingsError as AppSettingsError
    from .app_settings import load_settings
    from .store import default_db_path
    from .worker import DEFAULT_STALE_AFTER_S

    try:
        return load_settings(Path(db) if db else default_db_path()).stale_after_minutes * 60
    except (AppSettingsError, OSError):
        return DEFAULT_STALE_AFTER_S


def _reconcile(store: Any, db: str | None) -> None:
    """Mark debates whose process is gone as interrupted (failed, resumable), as the app does."""
    from .worker import recover_interrupted

    try:
        recover_interrupted(store, stale_after=_stale_after(db))
    except Exception as exc:  # noqa: BLE001 - the command must still work on a database that cannot be written
        print(f"warning: could not mark interrupted debates: {plain_reason(exc)}", file=sys.stderr)


def cmd_resume(args: argparse.Namespace) -> int:
    from .worker import interruption_reason, runner_info

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
    return _emit_result(result, args.json)


def cmd_upgrade(args: argparse.Namespace) -> int:
    """Apply the migrations an older database needs; the store copies the file next to itself first."""
    from .store import DebateStore

    db = _db_path(args.db)
    if not db.exists():  # creating a database is a run's job; an upgrade only changes one that exists
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


def _shown_interrupted(debate: dict[str, Any], reason: str | None) -> dict[str, Any]:
    """A running debate whose process is gone, shown as the app or `resume` will record it (failed,
    "interrupted: ..."). Read commands write nothing, so the stored row still says running."""
    if reason:
        debate.update(status="failed", error=f"interrupted: {reason}")
    return debate


def _interruption(debate: dict[str, Any], db: str | None) -> str | None:
    from .worker import interruption_reason

    return interruption_reason(debate, stale_after=_stale_after(db))


def _listed(store: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The debates `list` prints, with running debates whose process is gone shown as interrupted;
    `--status` filters on the status shown."""
    from .worker import find_interrupted

    dead = find_interrupted(store, stale_after=_stale_after(args.db))
    query = {"protocol": args.protocol, "review_state": args.review_state, "search": args.search}
    if not dead or args.status not in ("running", "failed"):
        rows = store.list_debates(status=args.status, limit=args.limit, **query)
    elif args.status == "running":
        rows = [r for r in store.list_debates(status="running", limit=args.limit + len(dead), **query)
                if r["id"] not in dead]
    else:
        rows = store.list_debates(status="failed", limit=args.limit, **query) + [
            r for r in store.list_debates(status="running", limit=10_000, **query) if r["id"] in dead]
        rows.sort(key=lambda r: (r["created_at"] or "", r["id"]), reverse=True)
    return [_shown_interrupted(r, dead.get(r["id"])) for r in rows[:max(args.limit, 0)]]


def cmd_list(args: argparse.Namespace) -> int:
    from .store import StoreMissing

    try:
        store = _store(args.db, writes=False)
    except StoreMissing:  # nothing stored yet, and a read creates no file
        rows = []
    else:
        rows = _listed(store, args)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    if not rows:
        print("no debates yet: run one with  python -m debate_core run data/cases/<case>.json --protocol cross_critique")
        return EXIT_OK
    for r in rows:
        review = "REVIEW" if r["needs_human_review"] else ""
        lineage = f"  (fork of {r['parent_id']} after round {r['fork_round']})" if r.get("parent_id") else ""
        print(f"{r['id']}  {r['protocol']:<14} {r['status']:<9} {r['review_state']:<10} {review:<6} {r['title'][:60]}"
              f"{lineage}")
    return EXIT_OK


def _reading(args: argparse.Namespace, debate_id: str) -> Any:
    """The read-only store of a command that reads the debate `debate_id`; no file means no debate."""
    from .store import StoreMissing

    try:
        return _store(args.db, writes=False)
    except StoreMissing as exc:
        raise BadInput(f"no debate with id {debate_id!r} ({exc})") from None


def cmd_show(args: argparse.Namespace) -> int:
    store = _reading(args, args.id)
    try:
        debate = store.get_debate(args.id)
    except KeyError as exc:
        raise BadInput(str(exc.args[0])) from exc
    _shown_interrupted(debate, _interruption(debate, args.db))
    if args.json:
        debate["provider_config"] = exporter.public_settings(debate["provider_config"])
        print(json.dumps(debate, ensure_ascii=False, indent=2, default=str))
    else:
        print(exporter.transcript_markdown(debate))
    return EXIT_OK


def _price_table(db: str | None) -> Any:
    """The prices for cost figures: the file `$DEBATE_PRICES` names, else the Settings page's table;
    None when neither sets any."""
    from .app_settings import SettingsError as AppSettingsError
    from .app_settings import load_settings
    from .pricing import PriceTableError, price_table_from_env

    try:
        table = price_table_from_env()
    except PriceTableError as exc:
        raise BadInput(str(exc)) from exc
    if table is not None:
        return table
    try:
        return load_settings(_db_path(db)).price_table()
    except (AppSettingsError, OSError):
        return None  # a broken settings file only costs the cost figures here; Settings reports it


def cmd_diff(args: argparse.Namespace) -> int:
    """Compare two stored debates (debate_core/compare.py): text by default, the dict with --json."""
    from . import compare

    store = _reading(args, args.a)
    sides = []
    for debate_id in (args.a, args.b):
        try:
            side = compare.load_debate(store, debate_id)
        except KeyError as exc:
            raise BadInput(str(exc.args[0])) from exc
        sides.append(_shown_interrupted(side, _interruption(side, args.db)))
    result = compare.compare(sides[0], sides[1], prices=_price_table(args.db))
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(compare.diff_text(result))
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    store = _store(args.db, writes=False)
    try:
        store.get_debate(args.id, with_steps=False)
    except KeyError as exc:
        raise BadInput(str(exc.args[0])) from exc
    if not args.dir and not args.cassette and not args.csv:
        raise BadInput("export needs --dir D, --cassette F or --csv F")
    files = exporter.export_files(store, args.id) if args.dir else {}
    tape = json.dumps(exporter.cassette(store, args.id), ensure_ascii=False, indent=2) if args.cassette else ""
    table = exporter.claims_csv(store, args.id) if args.csv else ""
    # Every target is checked before the first file is written: one bad path (a file given as the
    # folder, a directory as the file, a symbolic link) refuses the whole export, nothing written.
    if args.dir:
        exporter.check_export_dir(args.dir, files)
    if args.cassette:
        check_target(args.cassette, "the cassette")
    if args.csv:
        check_target(args.csv, "the CSV file")
    if args.dir:
        written = exporter.write_export_dir(store, args.id, args.dir, files)
        print(f"wrote {len(written)} files to {args.dir}")
    if args.cassette:
        write_text_atomic(args.cassette, tape, "the cassette")
        print(f"wrote cassette {args.cassette}")
    if args.csv:
        write_text_atomic(args.csv, table, "the CSV file")
        print(f"wrote {args.csv}")
    return EXIT_OK


def cmd_review(args: argparse.Namespace) -> int:
    from .review import ReviewConflict, ReviewError

    store = _store(args.db)
    try:
        entry = store.review(args.id, action=args.action, reviewer=args.reviewer, answer=args.answer,
                             reason=args.reason, supervisor=args.supervisor)
    except KeyError as exc:
        raise BadInput(str(exc.args[0])) from exc
    except (ReviewError, ReviewConflict) as exc:
        raise BadInput(str(exc)) from exc
    print(f"{args.id}: {entry['state_before']} -> {entry['state_after']} by {entry['reviewer']}")
    return EXIT_OK


def cmd_annotate(args: argparse.Namespace) -> int:
    from .annotations import AnnotationError

    kind, ref = ("claim", args.claim) if args.claim is not None else ("critique", args.critique)
    store = _store(args.db)
    try:
        entry = store.annotate(args.id, kind=kind, ref=ref, label=args.label, reviewer=args.reviewer,
                               severity=args.severity, comment=args.comment)
    except KeyError as exc:
        raise BadInput(str(exc.args[0])) from exc
    except AnnotationError as exc:
        raise BadInput(str(exc)) from exc
    severity = f", severity {entry['severity']}" if entry["severity"] else ""
    print(f"{args.id}: {kind} {entry['ref']} marked {entry['label']}{severity} by {entry['reviewer']}")
    return EXIT_OK


def cmd_protocols(args: argparse.Namespace) -> int:
    """Every protocol spec: what it does, its agents, rounds, presets, options (JSON Schema), case needs."""
    from .protocols import specs

    described = [spec.describe() for spec in specs()]
    if args.json:
        print(json.dumps(described, ensure_ascii=False, indent=2))
        return EXIT_OK
    for d in described:
        agents = ", ".join(str(a.get("id")) for a in d["agents"]["default"])
        rounds = d["rounds"]
        print(f"{d['name']}: {d['title']}")
        print(f"  {d['description']}")
        print(f"  agents: {agents} (takes {d['agents']['min']}"
              f"{' or more' if d['agents']['max'] is None else ' to ' + str(d['agents']['max'])})")
        print(f"  rounds: {rounds['default']} (from {rounds['min']} to {rounds['max']})")
        for key, prop in d["options"].get("properties", {}).items():
            print(f"  --option {key}={json.dumps(prop.get('default'))}  {prop.get('description', '')}")
        for need in d["case_requirements"]:
            kind = "needs" if need["required"] else "uses"
            tail = f" (without it: {need['without']})" if need.get("without") else ""
            print(f"  case {kind} '{need['field']}': {need['description']}{tail}")
        if d["presets"]:
            print(f"  presets: {', '.join(d['presets'])}")
        print()
    return EXIT_OK


class EvalProgress:
    """A progress bar on stderr: runs done, time left and tokens spent. On a terminal one line
    redrawn in place; otherwise (a log file, CI) a line at every tenth of the runs."""

    WIDTH = 24

    def __init__(self, stream: Any = None, quiet: bool = False) -> None:
        self.stream, self.quiet = stream or sys.stderr, quiet
        self.live = bool(getattr(stream, "isatty", lambda: False)())
        self._last_step = -1

    def line(self, p: Any) -> str:
        filled = int(self.WIDTH * p.done / p.total) if p.total else self.WIDTH
        eta = "-" if p.eta_s is None else f"{p.eta_s:.0f} s"
        return (f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {p.done}/{p.total} runs, "
                f"about {eta} left, {p.tokens:,} tokens")

    def __call__(self, p: Any) -> None:
        if self.quiet:
            return
        if self.live:
            self.stream.write("\r\033[K" + self.line(p) + ("\n" if p.done == p.total else ""))
            self.stream.flush()
            return
        step = p.done * 10 // max(p.total, 1)
        if step != self._last_step or p.done == p.total:
            self._last_step = step
            print(self.line(p), file=self.stream, flush=True)


def _eval_prices(args: argparse.Namespace) -> Any:
    """The price table: --prices FILE, else $DEBATE_PRICES, else the app's settings next to the database."""
    from .app_settings import SettingsError as AppSettingsError
    from .app_settings import load_settings
    from .pricing import PriceTableError, load_price_table, price_table_from_env

    try:
        if args.prices:
            return load_price_table(args.prices)
        table = price_table_from_env()
        if table is not None:
            return table
    except PriceTableError as exc:
        raise BadInput(str(exc)) from None
    try:
        return load_settings(_db_path(args.db)).price_table()
    except (AppSettingsError, OSError):
        return None


def _eval_text(report: dict[str, Any]) -> str:
    from .eval_report import markdown_table, summary_table

    lines = [f"evaluation {report['evaluation_id']} of {report['protocol']}: {len(report['cases'])} cases, "
             f"{len(report['rows'])} runs"]
    lines.append(markdown_table(summary_table(report["summary"], report.get("currency"))))
    for s in report.get("skipped") or []:
        lines.append(f"left out {s['case']}: {s['reason']}")
    failed = [r for r in report["rows"] if r.get("status") != "completed"]
    for r in failed[:10]:
        lines.append(f"failed run {r['case']} / {r['method']} (debate {r['debate_id']}): {r['error']}")
    if len(failed) > 10:
        lines.append(f"... and {len(failed) - 10} more failed runs")
    return "\n".join(lines)


def cmd_eval(args: argparse.Namespace) -> int:
    from . import evaluation
    from .app_settings import SettingsError as AppSettingsError
    from .app_settings import load_settings

    baselines = [b.strip() for b in (args.baselines or "").split(",") if b.strip()]
    try:
        saved = load_settings(_db_path(args.db)).presets.get(args.protocol, {})
    except (AppSettingsError, OSError):
        saved = {}
    options = {
        "model": args.model, "base_url": args.base_url, "temperature": args.temperature, "timeout": args.timeout,
        "max_attempts": args.max_attempts, "method": args.method, "latency_ms": args.latency_ms,
        "agent_models": _kv(args.agent_model, "--agent-model") or None, "max_tokens": args.max_output_tokens,
        "cassette": args.cassette, "transport_retries": args.transport_retries, "stall_timeout": args.stall_timeout,
        "timeout_retries": args.timeout_retries, "repair": args.repair,
        "server_credentials": _operator_credentials(args),
    }
    try:
        plan = evaluation.prepare(
            args.cases, args.protocol, presets=args.preset or [], baselines=baselines, samples=args.samples,
            repeat=args.repeat, concurrency=args.concurrency, provider=args.provider, provider_options=options,
            judge_model=args.judge_model, prices=_eval_prices(args), saved_presets=saved, seed=args.seed)
    except evaluation.EvaluationError as exc:
        raise BadInput(str(exc)) from None
    if args.out:
        from .eval_report import check_out_dir

        check_out_dir(args.out)  # a report folder that cannot be written is refused before any run
    store = _store(args.db)
    if not args.quiet:
        print(f"evaluating {args.protocol}: {len(plan.cases)} cases x {len(plan.methods)} methods x {plan.repeat} "
              f"= {plan.total_runs} runs", file=sys.stderr)
    try:
        report = evaluation.run(plan, store, on_progress=EvalProgress(quiet=args.quiet))
    except KeyboardInterrupt:
        raise StoreFailed("the evaluation was stopped with Ctrl-C; the runs that finished are stored") from None
    if args.out:
        from .eval_report import write_out_dir

        written = write_out_dir(report, args.out)
        if not args.quiet:
            print(f"wrote {', '.join(p.name for p in written)} to {args.out}", file=sys.stderr)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2, default=str))
    else:
        print(_eval_text(report))
    return EXIT_OK


def _add_provider_flags(p: argparse.ArgumentParser, default_provider: str | None = "offline") -> None:
    p.add_argument("--provider", choices=PROVIDERS, default=default_provider)
    p.add_argument("--cassette", help="replay cassette file (for --provider replay)")
    p.add_argument("--model", help="model name (openai provider)")
    p.add_argument("--base-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1 (or OPENAI_BASE_URL)")
    p.add_argument("--temperature", type=float)
    p.add_argument("--timeout", type=float, help="seconds a model call may take once it has its slot (default 120; 80 for a server on this machine or the local network)")
    p.add_argument("--max-attempts", type=int, help="validation attempts per step (default 3)")
    p.add_argument("--method", choices=("function_calling", "json_schema", "json_mode"),
                   help="structured output method (default: json_schema for OpenAI, function_calling otherwise)")
    p.add_argument("--agent-model", action="append", metavar="AGENT=MODEL", help="per-agent model override")
    p.add_argument("--latency-ms", type=float, default=0.0, help="simulated latency per call (offline, replay)")
    p.add_argument("--max-tokens-per-call", type=int, help="bound on prompt plus reply tokens of one call")
    p.add_argument("--max-output-tokens", type=int,
                   help="cap on the reply tokens of one call (openai; default: a cap per output model)")
    p.add_argument("--transport-retries", type=int, help="retries on 429, 5xx and refused connections (openai)")
    p.add_argument("--stall-timeout", type=float,
                   help="seconds without a token before a streaming reply counts as stalled (openai; default 30, 0 off)")
    p.add_argument("--timeout-retries", type=int,
                   help="tries after a reply that did not finish in time or stalled (openai; default 1)")
    p.add_argument("--repair", choices=("none", "clamp"),
                   help="clamp: after one re-ask, set out-of-range numbers to their bounds and warn (openai)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m debate_core", description="Run and review structured debates.")
    parser.add_argument("--db", help="SQLite database (default: $DEBATE_DB or data/debates.db)")
    sub = parser.add_subparsers(dest="command", required=True)
    db_flag = argparse.ArgumentParser(add_help=False)
    db_flag.add_argument("--db", dest="db_sub", help=argparse.SUPPRESS)

    run = sub.add_parser("run", parents=[db_flag], help="run a debate on a case file")
    run.add_argument("case", help="case JSON file")
    run.add_argument("--protocol", required=True, help=", ".join(PROTOCOLS))
    _add_provider_flags(run)
    run.add_argument("--rounds", type=int, help="round budget (protocol default when omitted)")
    run.add_argument("--agents", help="comma-separated agent ids, overriding the case's and the protocol's agents")
    run.add_argument("--agents-file", metavar="FILE",
                     help="a JSON list of agent profiles {id, name, role, instructions, model, terms}")
    run.add_argument("--option", action="append", metavar="KEY=VALUE", help="protocol-specific setting (JSON value)")
    run.add_argument("--concurrency", type=int,
                     help="max model calls in flight (default 8; 1 for a local server unless it reports more slots)")
    run.add_argument("--max-total-tokens", type=int, metavar="N",
                     help="token budget for the whole debate (default: 200,000 for a paid model, none otherwise)")
    run.add_argument("--pause-after-round", type=int, metavar="N",
                     help="pause for review once round N closes (status paused, exit 0); go on with 'continue'")
    run.add_argument("--json", action="store_true", help="print the result object as JSON")
    run.add_argument("--quiet", action="store_true", help="no progress on stderr")
    run.set_defaults(func=cmd_run)

    resume = sub.add_parser("resume", parents=[db_flag], help="continue a failed or interrupted debate from its failed step")
    resume.add_argument("id")
    _add_provider_flags(resume, default_provider=None)
    resume.add_argument("--max-total-tokens", type=int, metavar="N",
                        help="token budget, replacing the stored one; it counts the tokens already spent")
    resume.add_argument("--json", action="store_true")
    resume.add_argument("--quiet", action="store_true")
    resume.set_defaults(func=cmd_resume)

    for name, text in (("pause", "ask a running debate to pause after the current stage (works across processes)"),
                       ("stop", "ask a running debate to stop after the current stage, or stop a paused one")):
        ctl = sub.add_parser(name, parents=[db_flag], help=text)
        ctl.add_argument("id")
        ctl.add_argument("--reviewer", help="who asks (kept in the audit trail)")
        ctl.set_defaults(func=cmd_pause if name == "pause" else cmd_stop)

    cont = sub.add_parser("continue", parents=[db_flag],
                          help="continue a paused debate, with its settings and the interventions made while paused")
    cont.add_argument("id")
    _add_provider_flags(cont, default_provider=None)
    cont.add_argument("--pause-after-round", type=int, metavar="N", help="pause again once round N closes")
    cont.add_argument("--max-total-tokens", type=int, metavar="N",
                      help="token budget, replacing the stored one; it counts the steps already run")
    cont.add_argument("--reviewer", help="who continues it (kept in the audit trail)")
    cont.add_argument("--json", action="store_true")
    cont.add_argument("--quiet", action="store_true")
    cont.set_defaults(func=cmd_continue)

    itv = sub.add_parser("intervene", parents=[db_flag], help="act on a paused debate: critique, add evidence, "
                         "pin or withdraw a claim, resolve your critique")
    itv.add_argument("id")
    itv.add_argument("--reviewer", required=True)
    what = itv.add_mutually_exclusive_group(required=True)
    what.add_argument("--critique", metavar="TEXT", help="raise a critique (with --target and --severity)")
    what.add_argument("--evidence", metavar='"ID | SOURCE | TEXT"', help="add a passage for the following rounds")
    what.add_argument("--pin", metavar="REF", help="the claim (agent.claim_id) is established: agents may not drop it")
    what.add_argument("--strike", metavar="REF", help="the claim (agent.claim_id) is withdrawn from the debate")
    what.add_argument("--resolve", metavar="REF", help="close your critique (reviewer->agent:H1); a supervisor may "
                      "close anyone's")
    itv.add_argument("--target", metavar="REF", help="the claim a critique is on: agent.claim_id (nla.C1)")
    itv.add_argument("--severity", help="CRITICAL, MAJOR or MINOR")
    itv.add_argument("--fix", help="the fix you suggest")
    itv.add_argument("--json", action="store_true")
    itv.set_defaults(func=cmd_intervene)

    frk = sub.add_parser("fork", parents=[db_flag], help="a new debate sharing the first N rounds of another, "
                         "continued with changed settings, agents or model")
    frk.add_argument("id")
    frk.add_argument("--from-round", type=int, required=True, metavar="N")
    frk.add_argument("--option", action="append", metavar="KEY=VALUE", help="protocol setting to change (JSON value)")
    frk.add_argument("--agents", help="comma-separated agent ids")
    frk.add_argument("--agents-file", metavar="FILE", help="JSON list of agent profiles")
    frk.add_argument("--rounds", type=int, help="round budget")
    _add_provider_flags(frk, default_provider=None)
    frk.add_argument("--pause-after-round", type=int, metavar="N", help="pause the fork once round N closes")
    frk.add_argument("--max-total-tokens", type=int, metavar="N",
                     help="token budget of the fork's own calls (default: the parent's, or the paid default)")
    frk.add_argument("--reviewer", help="who forks it (kept in the audit trail)")
    frk.add_argument("--json", action="store_true")
    frk.add_argument("--quiet", action="store_true")
    frk.set_defaults(func=cmd_fork)

    lst = sub.add_parser("list", parents=[db_flag], help="list stored debates")
    lst.add_argument("--protocol")
    lst.add_argument("--status")
    lst.add_argument("--review-state")
    lst.add_argument("--search", help="full-text search over questions, answers and claims")
    lst.add_argument("--limit", type=int, default=50)
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(func=cmd_list)

    show = sub.add_parser("show", parents=[db_flag], help="show one debate")
    show.add_argument("id")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_show)

    diff = sub.add_parser("diff", parents=[db_flag], help="compare two debates: verdicts, claims, critiques, "
                          "rounds, tokens and cost")
    diff.add_argument("a", help="the first debate's id (A)")
    diff.add_argument("b", help="the second debate's id (B), compared against A")
    diff.add_argument("--json", action="store_true", help="print the comparison as one JSON object")
    diff.set_defaults(func=cmd_diff)

    exp = sub.add_parser("export", parents=[db_flag], help="export transcript files, a cassette or a CSV")
    exp.add_argument("id")
    exp.add_argument("--dir", help="write the seed's transcript files and transcript.md here")
    exp.add_argument("--cassette", help="write a replay cassette to this file")
    exp.add_argument("--csv", help="write claims and critiques as CSV to this file")
    exp.set_defaults(func=cmd_export)

    evl = sub.add_parser("eval", parents=[db_flag], help="score a protocol, its presets and baselines on labelled cases")
    evl.add_argument("cases", nargs="+", help="case files or directories; every case with 'expected' is scored")
    evl.add_argument("--protocol", required=True, help=", ".join(PROTOCOLS))
    evl.add_argument("--preset", action="append", metavar="NAME", help="also run this preset of the protocol (repeatable)")
    evl.add_argument("--baselines", default="", help="comma-separated: single, majority")
    evl.add_argument("--samples", type=int, default=3, help="single agents voting in the majority baseline (default 3)")
    evl.add_argument("--repeat", type=int, default=1, help="runs of every case and method (default 1)")
    _add_provider_flags(evl)
    evl.add_argument("--concurrency", type=int, default=8, help="model calls in flight, shared by all runs (default 8)")
    evl.add_argument("--judge-model", help="a model that compares each answer with the case's reference answer")
    evl.add_argument("--prices", help="price table JSON (default: $DEBATE_PRICES, else the app's settings)")
    evl.add_argument("--seed", type=int, default=20240601, help="seed of the bootstrap interval")
    evl.add_argument("--out", help="write rows.csv, summary.json and report.md here")
    evl.add_argument("--json", action="store_true", help="print the report object as JSON")
    evl.add_argument("--quiet", action="store_true", help="no progress on stderr")
    evl.set_defaults(func=cmd_eval)

    protos = sub.add_parser("protocols", help="describe every protocol: agents, rounds, options, case needs")
    protos.add_argument("--json", action="store_true", help="print the specs as JSON (options as JSON Schema)")
    protos.set_defaults(func=cmd_protocols)

    upg = sub.add_parser("upgrade", parents=[db_flag],
                         help="migrate a database written by an older version, after copying it next to itself")
    upg.set_defaults(func=cmd_upgrade)

    rev = sub.add_parser("review", parents=[db_flag], help="accept, override or escalate a verdict")
    rev.add_argument("id")
    rev.add_argument("--action", required=True, choices=("accept", "override", "escalate", "approve", "undo"),
                     help="undo takes back the reviewer's own last action while nothing happened after it")
    rev.add_argument("--reviewer", required=True)
    rev.add_argument("--answer", help="corrected answer (override)")
    rev.add_argument("--reason", help="required for override and escalate")
    rev.add_argument("--supervisor", action="store_true",
                     help="decide an escalated debate as a supervisor (named in <db>.settings.json)")
    rev.set_defaults(func=cmd_review)

    ann = sub.add_parser("annotate", parents=[db_flag], help="mark one claim or critique of a debate")
    ann.add_argument("id")
    which = ann.add_mutually_exclusive_group(required=True)
    which.add_argument("--claim", metavar="REF", help="the claim as the app shows it: agent.claim_id (nla.C1), "
                       "rN:agent.claim_id for one round's version")
    which.add_argument("--critique", metavar="REF", help="the critique as the app shows it: critic->target:id "
                       "(nla->ala:K1), rN:critic->target:id for one round's")
    ann.add_argument("--label", required=True,
                     help="claims: correct, incorrect, unsupported, needs_source; critiques: valid, invalid")
    ann.add_argument("--severity", help="critiques: the severity you would give (CRITICAL, MAJOR, MINOR)")
    ann.add_argument("--comment", help="why")
    ann.add_argument("--reviewer", required=True)
    ann.set_defaults(func=cmd_annotate)
    return parser


def _broken_pipe() -> int:
    """The reader of stdout went away (`show ID | head`). Python's documented recipe: point stdout
    at devnull, so the flush at exit cannot fail again with a traceback; then one line, exit 2."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout without a file descriptor (captured in-process): nothing left to flush
    try:
        print("error: standard output was closed before everything was written (broken pipe)",
              file=sys.stderr, flush=True)
    except OSError:
        pass  # stderr went the same way
    return EXIT_BAD_INPUT


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the usage error
        return EXIT_BAD_INPUT if exc.code else EXIT_OK
    # --db is accepted before or after the subcommand.
    args.db = getattr(args, "db_sub", None) or args.db
    # The engine logs the traceback of an unexpected error for the app's server log; at the command
    # line the failed debate's one-line reason is the message, so Python's last-resort handler,
    # which would print the traceback, is kept out.
    logger = logging.getLogger("debate_core")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())
    try:
        code = args.func(args)
        sys.stdout.flush()  # a reader that went away shows here, not in Python's shutdown
        return code
    except BrokenPipeError:
        return _broken_pipe()
    except (BadInput, FileProblem) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (StoreError, sqlite3.Error) as exc:
        # A database that cannot be opened or written: one line, never a traceback. A plain
        # sqlite3 error here comes from a read of a file damaged after it was opened.
        line = exc if isinstance(exc, StoreError) else store_error(exc, _db_path(args.db), "read")
        if line is None:
            raise
        print(f"error: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except StoreFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Interrupted as exc:
        print(f"interrupted: debate {exc.debate_id} is saved up to its last completed step; "
              f"resume with python -m debate_core resume {exc.debate_id}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:  # before any debate was created: nothing to resume
        print("interrupted: nothing was saved", file=sys.stderr)
        return EXIT_FAILED
