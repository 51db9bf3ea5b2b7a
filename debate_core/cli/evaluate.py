"""The eval command: a protocol, its presets and baselines scored on labelled cases."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from ..core.app_settings import SettingsError as AppSettingsError
from ..core.app_settings import load_settings
from ..core.pricing import PriceTableError, load_price_table, price_table_from_env
from ..evaluation import harness as evaluation
from ..evaluation import queued as queued_eval
from ..evaluation.report import check_out_dir, markdown_table, summary_table, write_out_dir
from ..jobs import queue
from ..protocols import PROTOCOLS, get_spec
from ..store import is_postgres_url
from .common import (
    EXIT_OK,
    BadInput,
    StoreFailed,
    _db_path,
    _kv,
    _operator_credentials,
    _preset,
    _saved_presets,
    _store,
    operator_actor,
)


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


def _queued(plan: Any, args: argparse.Namespace, progress: EvalProgress) -> dict[str, Any]:
    """Queue every run for the workers, then follow the evaluation in the store until it closes."""
    url = str(_db_path(args.db))
    started = time.perf_counter()
    evaluation_id = queue.submit_evaluation(url, plan, actor=operator_actor())
    if not args.quiet:
        print(f"queued evaluation {evaluation_id}: {plan.total_runs} runs for the workers "
              "(python -m debate_core worker)", file=sys.stderr)
    store = _store(args.db)
    shown = -1
    while True:
        ev = store.get_evaluation(evaluation_id)
        done = int(ev.get("done_runs") or 0)
        if done != shown:
            shown = done
            progress(evaluation.Progress(done, plan.total_runs, int(ev.get("tokens") or 0),
                                         time.perf_counter() - started))
        if ev["status"] != "running":
            break
        time.sleep(0.5)
    if ev["status"] != "completed":
        raise StoreFailed(f"evaluation {evaluation_id} {ev['status']}: {ev.get('error') or 'no reason was stored'}")
    return queued_eval.report(store, evaluation_id, plan, time.perf_counter() - started)


def cmd_eval(args: argparse.Namespace) -> int:
    baselines = [b.strip() for b in (args.baselines or "").split(",") if b.strip()]
    saved = _saved_presets(args.db, args.protocol)
    if args.protocol in PROTOCOLS:
        # A preset name resolves as for `run --preset`: the protocol's own preset first, then a saved one.
        built_in = get_spec(args.protocol).presets
        for name in args.preset or []:
            _preset(args.protocol, name, args.db)
        saved = {k: v for k, v in saved.items() if k not in built_in}
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
    if args.queue:
        if not is_postgres_url(str(_db_path(args.db))):
            raise BadInput("--queue spreads the runs over the workers of a PostgreSQL store: pass --db postgresql://... "
                           "(or set DEBATE_DB)")
        try:
            queued_eval.check_queueable(plan)
        except evaluation.EvaluationError as exc:
            raise BadInput(str(exc)) from None
    if args.out:
        check_out_dir(args.out)  # a report folder that cannot be written is refused before any run
    store = _store(args.db)
    if not args.quiet:
        print(f"evaluating {args.protocol}: {len(plan.cases)} cases x {len(plan.methods)} methods x {plan.repeat} "
              f"= {plan.total_runs} runs", file=sys.stderr)
    try:
        if args.queue:
            report = _queued(plan, args, EvalProgress(quiet=args.quiet))
        else:
            report = evaluation.run(plan, store, on_progress=EvalProgress(quiet=args.quiet))
    except KeyboardInterrupt:
        raise StoreFailed("the evaluation was stopped with Ctrl-C; the runs that finished are stored") from None
    if args.out:
        written = write_out_dir(report, args.out)
        if not args.quiet:
            print(f"wrote {', '.join(p.name for p in written)} to {args.out}", file=sys.stderr)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2, default=str))
    else:
        print(_eval_text(report))
    return EXIT_OK
