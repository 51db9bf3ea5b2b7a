"""What the benchmark scripts share: the repository on sys.path, sample cases per protocol,
recorded cassettes, the critical path of a debate derived from its events, and the way figures
are printed (a table for people, JSON for `run_all.py`).

Importing this module first is what lets `python bench/<name>.py` find `debate_core`.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from debate_core.core.cases import load_case  # noqa: E402
from debate_core.core.schemas import Case  # noqa: E402
from debate_core.engine.run import DebateResult  # noqa: E402
from debate_core.jobs.debates import run_debate  # noqa: E402
from debate_core.present import export  # noqa: E402
from debate_core.providers import make_provider  # noqa: E402
from debate_core.store import DebateStore  # noqa: E402

CASES = ROOT / "data" / "cases"
# One representative sample case per protocol: the one its contributors wrote for it.
SAMPLE_CASE = {
    "cross_critique": CASES / "adat_minangkabau_inheritance.json",
    "panel": CASES / "panel_laptop_review.json",
    "refinement": CASES / "refinement_hdfs_datanode.json",
    "dialectic": CASES / "dialectic_contract_enforceability.json",
    "arbitration": CASES / "arbitration_qatar_labour.json",
}


@dataclass
class Figure:
    """One line of the table in docs/benchmarks.md."""

    figure: str
    value: str
    goal: str
    met: bool | None  # None: informational, no goal
    command: str


def parse_args(description: str, extra: Any = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (a smoke run)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only (for run_all.py)")
    if extra:
        extra(parser)
    return parser.parse_args()


def command(script: str, args: argparse.Namespace) -> str:
    return f"python bench/{script}" + (" --quick" if args.quick else "")


def case_for(protocol: str) -> Case:
    return load_case(SAMPLE_CASE[protocol])


def record_cassette(case: Case, protocol: str) -> tuple[DebateResult, dict[str, Any]]:
    """Run the debate offline into an in-memory store and export it as a replay cassette.

    Replaying it costs no agent CPU, so what a replayed debate spends is the engine's own work."""
    store = DebateStore(memory=True)
    try:
        result = run_debate(case, protocol, provider=make_provider("offline"), store=store)
        if result.status != "completed":
            return result, {}
        return result, export.cassette(store, result.debate_id)
    finally:
        store.close()


@dataclass
class Call:
    step_id: str
    call: int
    started: float
    finished: float


def calls_from_events(events: list[tuple[str, Any]] | list[Any]) -> list[Call]:
    """Pair turn_started with turn_finished/turn_failed events (a MemorySink's list)."""
    started: dict[tuple[str, int], float] = {}
    out: list[Call] = []
    for item in events:
        event = item[1] if isinstance(item, tuple) else item
        key = (event.step_id, event.data.get("call", 1))
        if event.kind == "turn_started":
            started[key] = event.ts
        elif event.kind in ("turn_finished", "turn_failed") and key in started:
            out.append(Call(key[0], key[1], started.pop(key), event.ts))
    return sorted(out, key=lambda c: c.started)


def sequential_stages(calls: list[Call]) -> int:
    """The number of calls on the debate's critical path.

    A call depends on every call that had finished when it started (it may have read their
    output); its depth is one more than the deepest of those. Calls of one stage start together,
    before any of them finishes, so they share a depth, and a call re-asked after its first reply
    adds one. Measured on a run with simulated latency and a concurrency limit above the widest
    stage, so start and finish order reflect the protocol's structure, not CPU scheduling."""
    depth: list[int] = []
    for i, c in enumerate(calls):
        before = [depth[j] for j in range(i) if calls[j].finished <= c.started]
        depth.append(1 + max(before, default=0))
    return max(depth, default=0)


def widest_stage(calls: list[Call]) -> int:
    """The most calls in flight at once."""
    points = sorted([(c.started, 1) for c in calls] + [(c.finished, -1) for c in calls], key=lambda p: (p[0], p[1]))
    now = best = 0
    for _, delta in points:
        now += delta
        best = max(best, now)
    return best


def timed(fn: Any, repeats: int) -> tuple[float, Any]:
    """The fastest of `repeats` runs (seconds) and the last run's return value.

    The minimum is the figure least disturbed by other work on a shared machine."""
    times, value = [], None
    for _ in range(max(1, repeats)):
        started = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - started)
    return min(times), value


def print_table(headers: list[str], rows: list[list[Any]]) -> None:
    cells = [[str(h) for h in headers]] + [[_fmt(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for n, row in enumerate(cells):
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def verdict_mark(met: bool | None) -> str:
    return "n/a" if met is None else ("met" if met else "MISSED")


def report(figures: list[Figure], args: argparse.Namespace) -> None:
    """Print the figures as a table with whether each goal is met; with --json, then one last line
    of JSON that run_all.py reads."""
    print()
    print_table(["figure", "value", "goal", "goal met"],
                [[f.figure, f.value, f.goal or "-", verdict_mark(f.met)] for f in figures])
    if args.json:
        print(json.dumps([asdict(f) for f in figures], ensure_ascii=False))


def free_port() -> int:
    """A port on the loopback interface nothing listens on now, for a server a benchmark starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_processes(procs: list[subprocess.Popen]) -> None:
    """Ask each process to stop as Ctrl-C would, all at once, then wait; one that hangs is killed."""
    for proc in procs:
        proc.send_signal(signal.SIGINT)
    for proc in procs:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
