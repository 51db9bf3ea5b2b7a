"""Many debates: N cross-critique debates in one event loop under one shared concurrency limit.

The Minangkabau sample case is run offline once and recorded as a cassette; N debates then replay
it at L ms per call (no agent CPU, so the engine's own work is what competes with the latency),
all started at once through `run_debate_async` with one shared `Limiter(C)`. Each debate has its
own MemorySink, dropped when the debate ends, as a worker would hand events to the store.

The ideal wall time is the lower bound that no scheduler can beat, from the debate's structure
as derived from its events (calls, sequential stages, widest stage):

- slot bound: every call holds one of the C slots for L, so N x calls x L / C;
- path bound: a debate cannot finish before its own critical path, stages x L;
- ideal = the larger of the two. For reference the output also shows the coarser estimate
  "stages x L x N / (debates that fit side by side, C // widest stage)".

Memory: resident set size (from /proc) after a warm-up batch, while the measured batch runs (after
every 100 finished debates) and after it; then further batches of 100 with tracemalloc, comparing
the Python heap still held after each batch (after a garbage collection): flat means no growth
per 100 debates beyond noise.
"""

from __future__ import annotations

import asyncio
import gc
import math
import time
import tracemalloc
from pathlib import Path

import benchlib
from benchlib import Figure

from debate_core.core.events import MemorySink
from debate_core.engine.runtime import Limiter
from debate_core.jobs.debates import run_debate, run_debate_async
from debate_core.providers import ReplayProvider

WALL_GOAL = 1.2
# Growth of the retained Python heap per 100 debates that still counts as flat: one debate's
# events and outputs are ~0.3 MB, so a leak of even one debate in ten would show above this.
FLAT_KIB_PER_100 = 512


def _extra(parser) -> None:
    parser.add_argument("--debates", type=int, default=None, help="debates in the measured batch (default 200)")
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--protocol", default="cross_critique", help="the protocol whose sample case is run")


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


async def batch(protocol: str, case, cassette, n: int, latency_ms: float, limiter: Limiter, on_done=None) -> list[str]:
    async def one() -> str:
        result = await run_debate_async(case, protocol, provider=ReplayProvider(cassette, latency_ms=latency_ms),
                                        sink=MemorySink(), limiter=limiter)
        if on_done:
            on_done()
        return result.status

    return list(await asyncio.gather(*(one() for _ in range(n))))


def structure(protocol: str, case, cassette, latency_ms: float) -> tuple[int, int, int, float]:
    """Calls, sequential stages and widest stage of one debate, and its zero-latency wall time."""
    sink = MemorySink()
    run_debate(case, protocol, provider=ReplayProvider(cassette, latency_ms=latency_ms), sink=sink,
               limiter=Limiter(64))
    calls = benchlib.calls_from_events(sink.events)
    cpu, _ = benchlib.timed(lambda: run_debate(case, protocol, provider=ReplayProvider(cassette), sink=MemorySink()), 5)
    return len(calls), benchlib.sequential_stages(calls), benchlib.widest_stage(calls), cpu


def main() -> None:
    args = benchlib.parse_args(__doc__.splitlines()[0], _extra)
    n = args.debates or (100 if args.quick else 200)
    latency_ms, limit, protocol = args.latency_ms, args.concurrency, args.protocol
    latency = latency_ms / 1000.0
    cmd = benchlib.command("many_debates.py", args) + (f" --protocol {protocol}" if protocol != "cross_critique" else "")
    case = benchlib.case_for(protocol)
    _, cassette = benchlib.record_cassette(case, protocol)
    calls, stages, widest, engine_s = structure(protocol, case, cassette, latency_ms)

    slot_bound = n * calls * latency / limit
    path_bound = stages * latency
    ideal = max(slot_bound, path_bound)
    side_by_side = max(1, limit // widest)
    coarse = stages * latency * math.ceil(n / side_by_side)

    asyncio.run(batch(protocol, case, cassette, 20, latency_ms, Limiter(limit)))  # warm-up
    gc.collect()
    rss_before = rss_mib()
    samples: list[tuple[int, float]] = []
    done = 0

    def on_done() -> None:
        nonlocal done
        done += 1
        if done % 100 == 0:
            samples.append((done, rss_mib()))

    cpu0 = time.process_time()
    started = time.perf_counter()
    statuses = asyncio.run(batch(protocol, case, cassette, n, latency_ms, Limiter(limit), on_done))
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu0
    gc.collect()
    rss_after = rss_mib()
    completed = statuses.count("completed")

    # Retained Python heap across further batches of 100: flat means no growth per batch.
    tracemalloc.start()
    retained = []
    for _ in range(2 if args.quick else 3):
        asyncio.run(batch(protocol, case, cassette, 100, 0, Limiter(limit)))
        gc.collect()
        retained.append(tracemalloc.get_traced_memory()[0] / 1024.0)
    tracemalloc.stop()
    growth = [b - a for a, b in zip(retained, retained[1:], strict=False)]
    growth_per_100 = max(growth) if growth else 0.0

    print(f"{n} {protocol} debates in one event loop, Limiter({limit}), replay at {latency_ms:.0f} ms per call\n")
    benchlib.print_table(["per debate", "value"], [
        ["calls", calls], ["sequential stages", stages], ["widest stage", widest],
        ["engine time at zero latency (ms)", f"{engine_s * 1000:.1f}"],
    ])
    print()
    benchlib.print_table(["ideal", "seconds", "how"], [
        ["slot bound", f"{slot_bound:.2f}", f"{n} x {calls} calls x {latency_ms:.0f} ms / {limit} slots"],
        ["path bound", f"{path_bound:.2f}", f"{stages} stages x {latency_ms:.0f} ms"],
        ["ideal (larger of the two)", f"{ideal:.2f}", ""],
        ["coarse estimate", f"{coarse:.2f}",
         f"{stages} stages x {latency_ms:.0f} ms x ceil({n} / ({limit} // {widest}))"],
    ])
    print()
    ratio = wall / ideal
    benchlib.print_table(["measured", "value"], [
        ["completed", f"{completed}/{n}"],
        ["wall (s)", f"{wall:.2f}"],
        ["wall / ideal", f"{ratio:.2f}"],
        ["process CPU during the batch (s)", f"{cpu:.2f}"],
        ["RSS before / after (MiB)", f"{rss_before:.1f} / {rss_after:.1f}"],
        ["RSS after every 100 finished (MiB)", ", ".join(f"{k}: {v:.1f}" for k, v in samples) or "-"],
        ["retained heap after each further 100 (KiB)", ", ".join(f"{v:.0f}" for v in retained)],
        ["retained heap growth per 100 (KiB, largest)", f"{growth_per_100:.0f}"],
    ])
    figures = [
        Figure(f"many debates: {n} x {protocol} at {latency_ms:.0f} ms, Limiter({limit}), wall / ideal",
               f"{ratio:.2f} ({wall:.2f} s vs {ideal:.2f} s)", f"<= {WALL_GOAL}",
               ratio <= WALL_GOAL and completed == n, cmd),
        Figure("many debates: retained memory growth per 100 debates", f"{growth_per_100:.0f} KiB "
               f"(RSS {rss_before:.0f} -> {rss_after:.0f} MiB)", f"flat (< {FLAT_KIB_PER_100} KiB)",
               growth_per_100 < FLAT_KIB_PER_100, cmd),
    ]
    benchlib.report(figures, args)


if __name__ == "__main__":
    main()
