"""Evaluation speed: does `eval` keep every call slot busy, so that many runs finish near the
critical path?

50 labelled cases (the shipped ones, copied under new ids until there are 50) x 4 methods (the
protocol, one preset, single, majority of 3) are first run offline and recorded as cassettes, one
per case and method. The evaluation is then replayed from that cassette directory (no agent CPU)
at L ms per call, with the SQLite store as every run's sink and the shared limiter at
`--concurrency` N (8), as `python -m debate_core eval` runs it.

The critical path is the larger of two bounds: the longest run's sequential calls x L (no schedule
can beat the deepest debate), and all calls x L / N (no schedule can beat full slots). Each run's
sequential calls are measured from its events in a replay with no slot limit. Figure: wall time /
critical path; goal <= 1.30.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import benchlib
from benchlib import Figure

from debate_core.engine.runtime import Limiter
from debate_core.evaluation import harness as evaluation
from debate_core.present import export
from debate_core.store import DebateStore

GOAL = 1.30
PROTOCOL = "dialectic"
PRESET = "strict stability (Jaccard 0.95)"
SOURCES = [benchlib.ROOT / "data" / "eval" / "dev", benchlib.ROOT / "data" / "eval" / "holdout",
           benchlib.ROOT / "data" / "cases"]


def _extra(parser) -> None:
    parser.add_argument("--latency-ms", type=float, default=None, help="simulated latency per call (default 50)")
    parser.add_argument("--cases", type=int, default=None, help="cases (default 50; 20 with --quick)")
    parser.add_argument("--concurrency", type=int, default=8, help="calls in flight (default 8)")


def case_dir(tmp: Path, count: int) -> Path:
    """`count` labelled cases: the shipped ones, then copies under new ids."""
    shipped = [json.loads(p.read_text(encoding="utf-8")) for p in evaluation.case_files(SOURCES)]
    shipped = [c for c in shipped if c.get("expected")]
    out = tmp / "cases"
    out.mkdir()
    for i in range(count):
        case = dict(shipped[i % len(shipped)])
        if i >= len(shipped):
            case["id"] = f"{case['id']}_copy{i // len(shipped)}"
        (out / f"{case['id']}.json").write_text(json.dumps(case), encoding="utf-8")
    return out


def record(cases: Path, tmp: Path) -> Path:
    """Run the evaluation offline once and keep each run as a cassette named for its case and method."""
    plan = evaluation.prepare([cases], PROTOCOL, presets=[PRESET], baselines=["single", "majority"])
    store = DebateStore(tmp / "record.db")
    report = evaluation.run(plan, store, limiter=Limiter(64))
    tapes = tmp / "cassettes"
    tapes.mkdir()
    slugs = {m.name: m.slug for m in plan.methods}
    for row in report["rows"]:
        (tapes / f"{row['case']}.{slugs[row['method']]}.json").write_text(
            json.dumps(export.cassette(store, row["debate_id"])), encoding="utf-8")
    store.close()
    return tapes


class _Ev:
    def __init__(self, row: dict) -> None:
        self.kind, self.step_id, self.data, self.ts = row["kind"], row["step_id"], row["data"], row["ts"]


def replay(cases: Path, tapes: Path, db: Path, latency_ms: float, limit: int) -> tuple[float, dict, DebateStore]:
    plan = evaluation.prepare([cases], PROTOCOL, presets=[PRESET], baselines=["single", "majority"],
                              provider="replay", provider_options={"cassette": str(tapes), "latency_ms": latency_ms},
                              concurrency=limit)
    store = DebateStore(db)
    started = time.perf_counter()
    report = evaluation.run(plan, store, limiter=Limiter(limit))
    return time.perf_counter() - started, report, store


def main() -> None:
    args = benchlib.parse_args(__doc__.splitlines()[0], _extra)
    latency_ms = args.latency_ms or 50.0
    count = args.cases or (20 if args.quick else 50)
    limit = args.concurrency
    cmd = benchlib.command("eval_concurrency.py", args)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cases = case_dir(tmp, count)
        tapes = record(cases, tmp)
        # The shape of every run: its sequential calls, measured with no slot limit.
        _, shape, shape_store = replay(cases, tapes, tmp / "shape.db", latency_ms, 100_000)
        depth = {}
        for row in shape["rows"]:
            calls = benchlib.calls_from_events([_Ev(e) for e in shape_store.events(row["debate_id"])])
            depth[(row["case"], row["method"])] = benchlib.sequential_stages(calls)
        shape_store.close()
        wall, report, store = replay(cases, tapes, tmp / "eval.db", latency_ms, limit)
        store.close()
    rows = report["rows"]
    failed = [r for r in rows if r["status"] != "completed"]
    calls = sum(r["calls"] for r in rows)
    latency = latency_ms / 1000.0
    deepest = max(depth.values())
    critical = max(deepest * latency, calls * latency / limit)
    ratio = wall / critical
    print(f"{count} cases x {len(report['methods'])} methods = {len(rows)} runs ({len(failed)} failed), {calls} calls "
          f"at {latency_ms:.0f} ms, concurrency {limit}")
    print(f"deepest run: {deepest} sequential calls; critical path {critical:.2f} s "
          f"(max of {deepest * latency:.2f} s deepest and {calls * latency / limit:.2f} s full slots)")
    print(f"wall {wall:.2f} s; wall / critical path {ratio:.2f}")
    benchlib.report([
        Figure(f"eval: {count} cases x 4 methods at {latency_ms:.0f} ms, concurrency {limit}, wall / critical path",
               f"{ratio:.2f} ({wall:.1f} s / {critical:.1f} s)", f"<= {GOAL:.2f}", ratio <= GOAL and not failed, cmd),
    ], args)


if __name__ == "__main__":
    main()
