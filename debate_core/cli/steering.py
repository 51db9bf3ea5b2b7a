"""Steering a stored debate: pause, stop, continue, intervene, fork."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..core.review_rules import ReviewError
from ..core.steering import SteeringError
from ..jobs.continuation import intervene, prepare_continue, prepare_fork, run_steered
from ..jobs.worker import runner_info
from ..protocols import CaseUnfit, SettingsError
from ..store import NotFound
from .common import (
    EXIT_OK,
    BadInput,
    _budget_flag,
    _budget_info,
    _emit_result,
    _kv,
    _pause_round,
    _preset,
    _provider_from_args,
    _reconcile,
    _running,
    _settings_from_args,
    _store,
)
from .progress import ProgressSink


def _steering(action: Any) -> Any:
    """A steering action whose refusal (wrong state, unknown reference, a role it needs) is one line, exit 2."""
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
    store = _store(args.db)
    parent = _steering(lambda: store.get_debate(args.id, with_steps=False))
    args.protocol = parent["protocol"]
    args.concurrency = getattr(args, "concurrency", None)
    # A preset (--preset) changes what it sets, as on the New debate page; flags beside it win.
    preset = _preset(parent["protocol"], args.preset, args.db) if args.preset else {}
    agents = preset.get("agents")
    if args.agents is not None or args.agents_file:
        agents = _settings_from_args(_fork_settings_args(args)).agents
    options = {**(preset.get("options") or {}), **_kv(args.option, "--option")}
    rounds = args.rounds if args.rounds is not None else preset.get("rounds")
    _pause_round(args)
    provider = _provider_from_args(args) if args.provider else None
    plan = _steering(lambda: prepare_fork(
        store, args.id, args.from_round, provider=provider, options=options or None,
        agents=agents, rounds=rounds, runner=runner_info(), pause_after_round=args.pause_after_round,
        reviewer=args.reviewer or "", max_total_tokens=_budget_flag(args)))
    budget_info = _budget_info(plan.settings, plan.provider, args)
    sink = ProgressSink(store, quiet=args.quiet)
    result = _running(store, plan.debate_id, lambda: run_steered(store, plan, sink=sink))
    result.budget = budget_info
    return _emit_result(result, args.json)


def _fork_settings_args(args: argparse.Namespace) -> argparse.Namespace:
    """The fork's agent flags read the way `run` reads them."""
    return argparse.Namespace(**{**vars(args), "option": None, "rounds": None, "concurrency": None, "preset": None,
                                 "max_tokens_per_call": None, "max_total_tokens": None,
                                 "pause_after_round": None})
