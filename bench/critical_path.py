"""Critical path: does the engine add anything to model latency?

For each protocol, its sample case is run offline once and recorded as a cassette; the cassette is
then replayed (no agent CPU) with the SQLite store as the event sink, as the app runs debates:

- at zero latency (the engine's own work: prompts, validation, moderator, store writes);
- at L ms per call with the default concurrency limit (8, above every sample's widest stage);
- at L ms per call with a limit of 1, so every call runs after the previous one, as the research
  repositories run them.

The number of sequential stages is derived from the latency run's events (see
`benchlib.sequential_stages`). Figures:

- stage overhead = (wall at L - wall at 0) / (stages x L); 1.00 means the engine adds nothing to
  the latency of the critical path; goal <= 1.10;
- speed-up over one-after-another = wall with limit 1 / wall with the default limit, next to its
  ideal, calls / stages.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import benchlib
from benchlib import Figure

from debate_core.core.events import MemorySink
from debate_core.engine.runtime import DebateSettings, Limiter
from debate_core.jobs.debates import run_debate
from debate_core.protocols import PROTOCOLS
from debate_core.providers import ReplayProvider
from debate_core.store import DebateStore

GOAL = 1.10


def _extra(parser) -> None:
    parser.add_argument("--latency-ms", type=float, default=None, help="simulated latency per call (default 100)")
    parser.add_argument("--repeats", type=int, default=None, help="runs per measurement; the fastest counts")


def measure(protocol: str, store: DebateStore, latency_ms: float, repeats: int) -> dict | str:
    case = benchlib.case_for(protocol)
    recorded, cassette = benchlib.record_cassette(case, protocol)
    if not cassette:
        return f"the offline run failed: {recorded.error}"
    settings = DebateSettings()

    def once(latency: float, limiter: Limiter):
        return run_debate(case, protocol, provider=ReplayProvider(cassette, latency_ms=latency), settings=settings,
                          store=store, limiter=limiter)

    once(0, Limiter(settings.concurrency))  # warm imports, prompt templates and caches
    # Alternate the two so both see the same background load; the fastest of each counts.
    walls0, walls = [], []
    for _ in range(repeats):
        t0, _ = benchlib.timed(lambda: once(0, Limiter(settings.concurrency)), 1)
        t, result = benchlib.timed(lambda: once(latency_ms, Limiter(settings.concurrency)), 1)
        walls0.append(t0)
        walls.append(t)
    wall0, wall = min(walls0), min(walls)
    if result.status != "completed":
        return f"the replayed run failed: {result.error}"
    calls = benchlib.calls_from_events([(result.debate_id, _Ev(e)) for e in store.events(result.debate_id)])
    serial, _ = benchlib.timed(lambda: once(latency_ms, Limiter(1)), 1 if repeats > 1 else repeats)
    stages = benchlib.sequential_stages(calls)
    latency = latency_ms / 1000.0
    return {
        "calls": len(calls),
        "stages": stages,
        "widest": benchlib.widest_stage(calls),
        "wall0": wall0,
        "wall": wall,
        "serial": serial,
        "overhead": (wall - wall0) / (stages * latency),
        "speedup": serial / wall,
        "ideal_speedup": len(calls) / stages,
        "verdict_same": result.verdict.model_dump() == recorded.verdict.model_dump(),
    }


class CountingReplay(ReplayProvider):
    """A replay provider that counts how many of its calls are in flight at once."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.in_flight = self.most = self.calls = 0

    async def complete(self, req):
        self.in_flight += 1
        self.calls += 1
        self.most = max(self.most, self.in_flight)
        try:
            return await super().complete(req)
        finally:
            self.in_flight -= 1


def limit_honoured(latency_ms: float, limit: int = 2) -> tuple[int, int]:
    """The most calls inside the provider at once when the arbitration sample (one stage of five
    calls) runs with `DebateSettings(concurrency=limit)` and no limiter passed in, so the engine
    takes the shared one for that size."""
    case = benchlib.case_for("arbitration")
    _, cassette = benchlib.record_cassette(case, "arbitration")
    provider = CountingReplay(cassette, latency_ms=latency_ms)
    run_debate(case, "arbitration", provider=provider, settings=DebateSettings(concurrency=limit), sink=MemorySink())
    return provider.most, provider.calls


class _Ev:
    """A stored event row seen through the attributes `calls_from_events` reads."""

    def __init__(self, row: dict) -> None:
        self.kind, self.step_id, self.data, self.ts = row["kind"], row["step_id"], row["data"], row["ts"]


def main() -> None:
    args = benchlib.parse_args(__doc__.splitlines()[0], _extra)
    latency_ms = args.latency_ms or (50.0 if args.quick else 100.0)
    repeats = args.repeats or (3 if args.quick else 5)
    cmd = benchlib.command("critical_path.py", args)
    print(f"Critical path at {latency_ms:.0f} ms per call, replayed cassettes, SQLite store as sink, "
          f"fastest of {repeats} run(s)\n")
    rows, figures, failures = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        store = DebateStore(Path(tmp) / "bench.db")
        try:
            for protocol in PROTOCOLS:
                m = measure(protocol, store, latency_ms, repeats)
                if isinstance(m, str):
                    rows.append([protocol, "-", "-", "-", "-", "-", "-", m, "-", "-"])
                    failures.append(protocol)
                    continue
                rows.append([protocol, m["calls"], m["stages"], m["widest"], f"{m['wall0'] * 1000:.0f}",
                             f"{m['wall'] * 1000:.0f}", f"{m['serial'] * 1000:.0f}", f"{m['overhead']:.3f}",
                             f"{m['speedup']:.2f}x (ideal {m['ideal_speedup']:.2f}x)", m["verdict_same"]])
                figures.append(Figure(f"critical path: {protocol}, stage overhead", f"{m['overhead']:.3f}",
                                      f"<= {GOAL:.2f}", m["overhead"] <= GOAL, cmd))
                figures.append(Figure(f"critical path: {protocol}, speed-up over one call after another",
                                      f"{m['speedup']:.2f}x (ideal {m['ideal_speedup']:.2f}x)", "", None, cmd))
        finally:
            store.close()
    benchlib.print_table(
        ["protocol", "calls", "stages", "widest", "wall@0 ms", f"wall@{latency_ms:.0f} ms", "one-by-one ms",
         "stage overhead", "speed-up", "same verdict"], rows)
    print("\nstage overhead = (wall@L - wall@0) / (stages x L); speed-up = one-by-one wall / wall with the "
          "default limit; ideal = calls / stages")
    in_flight, width = limit_honoured(latency_ms)
    print(f"\nconcurrency limit: arbitration's stage of {width} calls with DebateSettings(concurrency=2) had at "
          f"most {in_flight} calls inside the provider at once")
    figures.append(Figure("critical path: DebateSettings(concurrency=2) on a 5-call stage, most calls in flight",
                          str(in_flight), "2", in_flight == 2, cmd))
    for protocol in failures:
        figures.append(Figure(f"critical path: {protocol}", "not measured (the sample debate failed)", "", None, cmd))
    benchlib.report(figures, args)


if __name__ == "__main__":
    main()
