"""What the commands share: exit codes, the errors `main` turns into one line, the store as a
command opens it, the provider and settings read from the flags, and the result printed at the end."""

from __future__ import annotations

import argparse
import copy
import json
import os
import shlex
import sqlite3
import sys
from typing import Any

from ..core.app_settings import SettingsError as AppSettingsError
from ..core.app_settings import load_settings
from ..core.cases import CaseError
from ..core.credentials import ServerCredentials, server_credentials
from ..core.identity import Actor, operator
from ..core.inputs import parse_option_pairs
from ..core.pricing import PriceTableError, price_table_from_env
from ..core.profiles import load_profiles
from ..engine.budget import describe as budget_describe
from ..engine.run import DebateResult, plain_reason
from ..engine.runtime import DebateSettings
from ..jobs.worker import DEFAULT_STALE_AFTER_S, recover_interrupted
from ..protocols import SettingsError, UnknownProtocol, get_spec, validate_settings
from ..providers import CassetteError, make_provider
from ..store import DebateStore, StoreError, StoreOutdated, db_location, store_error

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


def _kv(pairs: list[str] | None, flag: str) -> dict[str, Any]:
    try:
        return parse_option_pairs(pairs, flag)
    except CaseError as exc:
        raise BadInput(str(exc)) from exc


def _db_path(path: str | None) -> Any:
    """The `--db` location: a file path, or a postgresql:// URL kept as a str."""
    return db_location(path)


def _store(path: str | None, *, writes: bool = True) -> Any:
    """The store. Commands that write open it writable: checked for damage, created when new and
    migrated when older, after a copy of the older file is taken (named on stderr). Commands that
    only read (`list`, `show`, `diff`, `export`) open it read-only and change nothing: a missing
    file is StoreMissing, and an older one is refused with the command that upgrades it, since
    reading it would mean migrating it first."""
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
    return f"python -m debate_core --db {shlex.quote(path)} upgrade" if path else "python -m debate_core upgrade"


def operator_actor(name: str | None = None) -> Actor:
    """Whoever runs the command line is the server's operator: recorded as such, under `name` (the
    --reviewer flag) or the login name of the account running it."""
    if not (name or "").strip():
        try:
            import getpass

            name = getpass.getuser()
        except (OSError, KeyError):  # no login name in a container: the record still says "operator"
            name = None
    return operator(name)


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


def _saved_presets(db: str | None, protocol: str) -> dict[str, dict[str, Any]]:
    """The presets saved on the New debate page for this protocol (the app's settings next to the
    database); none when there are none or the settings file cannot be read (Settings reports it)."""
    try:
        return {str(k): dict(v) for k, v in load_settings(_db_path(db)).presets.get(protocol, {}).items()}
    except (AppSettingsError, OSError):
        return {}


def _preset(protocol: str, name: str, db: str | None) -> dict[str, Any]:
    """The preset `name` of `protocol`, as the New debate page offers it: the protocol's own preset of
    that name first, else one saved in the app's settings. An unknown name is bad input naming both kinds."""
    try:
        spec = get_spec(protocol)
    except UnknownProtocol as exc:
        raise BadInput(str(exc)) from None
    if name in spec.presets:
        return copy.deepcopy(dict(spec.presets[name]))
    saved = _saved_presets(db, protocol)
    if name in saved:
        return copy.deepcopy(saved[name])

    def listed(names: Any) -> str:
        return ", ".join(json.dumps(str(n), ensure_ascii=False) for n in names) or "none"

    raise BadInput(f"{protocol} has no preset {json.dumps(name, ensure_ascii=False)}; its presets: {listed(spec.presets)}"
                   f"; saved in the app's settings: {listed(saved)}")


def _settings_from_args(args: argparse.Namespace) -> DebateSettings:
    """The settings of `run`: the preset (--preset) if any, then the flags given beside it, which win:
    --rounds and --agents/--agents-file replace the preset's, each --option replaces that key."""
    agents = None
    if args.agents is not None and getattr(args, "agents_file", None):
        raise BadInput("give the agents either as --agents ids or as --agents-file profiles, not both")
    preset = _preset(args.protocol, args.preset, args.db) if getattr(args, "preset", None) else {}
    if args.agents is not None:
        agents = [{"id": a.strip()} for a in args.agents.split(",") if a.strip()]
    if getattr(args, "agents_file", None):
        try:
            agents = load_profiles(args.agents_file)
        except SettingsError as exc:
            raise BadInput(str(exc)) from None
    if args.concurrency is not None and args.concurrency < 1:
        raise BadInput(f"--concurrency must be at least 1, got {args.concurrency}")
    pause = _pause_round(args)
    if agents is None and preset.get("agents") is not None:
        agents = preset["agents"]
    settings = DebateSettings(
        rounds=args.rounds if args.rounds is not None else preset.get("rounds"), agents=agents,
        concurrency=args.concurrency or 8, max_tokens_per_call=args.max_tokens_per_call,
        max_total_tokens=args.max_total_tokens, pause_after_round=pause,
        options={**(preset.get("options") or {}), **_kv(args.option, "--option")},
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


def _price_table(db: str | None) -> Any:
    """The prices for cost figures: the file `$DEBATE_PRICES` names, else the Settings page's table;
    None when neither sets any."""
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


# What `run --json` says of the provider: which server answered and how its replies were held to
# their schema (a grammar on llama.cpp, vLLM, Ollama; validation elsewhere).
PROVIDER_FIELDS = ("provider", "model", "server_kind", "method_in_use", "structured_output")


def _emit_result(result: DebateResult, as_json: bool, extra: dict[str, Any] | None = None,
                 provider: Any = None) -> int:
    """The result on stdout; `extra` adds fields to the JSON object (the evidence selection of `run`),
    and `provider` what `run --json` says of the server that answered."""
    if as_json:
        out = {**result.to_json(), **(extra or {})}
        if provider is not None:
            config = provider.public_config()
            out["provider"] = {k: config[k] for k in PROVIDER_FIELDS if k in config}
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        print(_summary_text(result))
    return EXIT_OK if result.status in ("completed", "paused", "stopped") else EXIT_FAILED


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
    try:
        return load_settings(db_location(db)).stale_after_minutes * 60
    except (AppSettingsError, OSError):
        return DEFAULT_STALE_AFTER_S


def _reconcile(store: Any, db: str | None) -> None:
    """Mark debates whose process is gone as interrupted (failed, resumable), as the app does."""
    try:
        recover_interrupted(store, stale_after=_stale_after(db))
    except Exception as exc:  # noqa: BLE001 - the command must still work on a database that cannot be written
        print(f"warning: could not mark interrupted debates: {plain_reason(exc)}", file=sys.stderr)


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
