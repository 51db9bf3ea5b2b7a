"""An evaluation spread over the queue's workers: each run (case x method x repeat) is one job.

The job carries everything a worker on another machine needs, as plain JSON: the case as it was
read, the method and its settings, the provider's name and public options (never a key: a worker
uses its own operator's), the judge's model and the price table. Each job stores its row as the
in-process harness does; the job that stores the last row closes the evaluation with its summary,
so the report reads the same whichever way the evaluation ran.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from ..core.pricing import PriceTable, parse_price_table
from ..core.schemas import Case
from ..engine.runtime import DebateSettings, shared_limiter
from ..store import NotFound
from .harness import (
    EvaluationError,
    EvaluationPlan,
    Judge,
    Method,
    ProviderSource,
    _failed_row,
    _one,
)
from .summary import DEFAULT_SEED, summarise

# The provider options a job may carry: what describes the server and the calls, never a secret.
_PUBLIC_OPTIONS = ("model", "base_url", "temperature", "timeout", "max_attempts", "method", "latency_ms",
                   "agent_models", "max_tokens", "transport_retries", "stall_timeout", "timeout_retries", "repair",
                   "max_concurrency")


def check_queueable(plan: EvaluationPlan) -> None:
    """Refuse, before anything is saved, an evaluation a worker elsewhere could not run."""
    if plan.providers.name == "replay":
        raise EvaluationError("an evaluation on recorded cassettes runs where its files are: leave out --queue")


def payloads(plan: EvaluationPlan, evaluation_id: str) -> list[dict[str, Any]]:
    """The jobs of an evaluation, one per run, protocol runs first (as the harness orders them)."""
    check_queueable(plan)
    options = {k: v for k, v in plan.providers.options.items() if k in _PUBLIC_OPTIONS and v is not None}
    prices = None
    if plan.prices is not None:
        prices = {"currency": plan.prices.currency,
                  "models": {name: {"input": p.input_per_1m, "output": p.output_per_1m}
                             for name, p in plan.prices.prices.items()}}
    common = {"evaluation_id": evaluation_id, "provider": plan.providers.name, "provider_options": options,
              "judge_model": plan.judge.model if plan.judge else None, "prices": prices,
              "concurrency": plan.concurrency}
    runs = sorted(((c, m, r) for r in range(1, plan.repeat + 1) for c in plan.cases for m in plan.methods),
                  key=lambda x: x[1].kind == "baseline")
    return [{**common, "case": case.model_dump(mode="json"), "repeat": repeat,
             "method": {"name": m.name, "kind": m.kind, "protocol": m.protocol, "settings": m.settings.as_dict()}}
            for case, m, repeat in runs]


def _plan(payload: Mapping[str, Any]) -> tuple[EvaluationPlan, Case, Method]:
    case = Case.model_validate(payload["case"])
    spec = payload["method"]
    method = Method(spec["name"], spec["kind"], spec["protocol"], DebateSettings.from_dict(spec["settings"]))
    options = dict(payload.get("provider_options") or {})
    providers = ProviderSource(payload["provider"], options)
    judge = (Judge(payload["judge_model"], payload["provider"], options, providers)
             if payload.get("judge_model") else None)
    prices: PriceTable | None = parse_price_table(payload["prices"]) if payload.get("prices") else None
    plan = EvaluationPlan(method.protocol, [method], [case], providers, 1, int(payload.get("concurrency") or 8),
                          judge, prices)
    return plan, case, method


def run_one(store: Any, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Run one queued run, store its row, and close the evaluation if it was the last; the row."""
    evaluation_id = payload["evaluation_id"]
    repeat = int(payload["repeat"])
    try:
        plan, case, method = _plan(payload)
    except Exception as exc:  # noqa: BLE001 - a run that cannot even start is a failed row, as in the harness
        case = Case.model_validate(payload["case"])
        spec = payload["method"]
        method = Method(spec["name"], spec["kind"], spec["protocol"], DebateSettings())
        row = _failed_row(case, method, repeat, exc)
    else:
        try:
            row = asyncio.run(_one(plan, store, shared_limiter(plan.concurrency), evaluation_id, case, method, repeat))
        except Exception as exc:  # noqa: BLE001 - one run's failure is its row, not the evaluation's end
            row = _failed_row(case, method, repeat, exc)
    store.add_evaluation_row(evaluation_id, row)
    finish_if_done(store, evaluation_id)
    return row


def finish_if_done(store: Any, evaluation_id: str) -> bool:
    """Close the evaluation with its summary once every run stored its row; True when it is closed."""
    try:
        ev = store.get_evaluation(evaluation_id)
    except NotFound:
        return False
    if ev["status"] != "running" or len(ev["rows"]) < int(ev["total_runs"] or 0):
        return ev["status"] != "running"
    seed = (ev.get("settings") or {}).get("seed", DEFAULT_SEED)
    store.finish_evaluation(evaluation_id, status="completed", summary=summarise(ev["rows"], ev["methods"], seed=seed))
    return True


def report(store: Any, evaluation_id: str, plan: EvaluationPlan, wall_s: float) -> dict[str, Any]:
    """The report of a queued evaluation, as the harness returns one: rows in case and method order."""
    ev = store.get_evaluation(evaluation_id)
    case_order = {c.id: i for i, c in enumerate(plan.cases)}
    method_order = {m.name: i for i, m in enumerate(plan.methods)}
    rows = sorted(ev["rows"], key=lambda r: (case_order.get(r["case"], 0), method_order.get(r["method"], 0),
                                             r["repeat"]))
    return {"evaluation_id": evaluation_id, "protocol": plan.protocol, "methods": [m.name for m in plan.methods],
            "cases": [c.id for c in plan.cases], "skipped": plan.skipped, "rows": rows,
            "summary": ev.get("summary") or summarise(rows, [m.name for m in plan.methods], seed=plan.seed),
            "currency": plan.prices.currency if plan.prices else None, "wall_s": round(wall_s, 3)}
