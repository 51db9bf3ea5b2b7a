"""The concurrency limit is shared by every debate in the process, across threads and event loops."""

from __future__ import annotations

import asyncio
import threading

from helpers import small_case

from debate_core.core.events import MemorySink
from debate_core.engine.runtime import DebateSettings, Limiter
from debate_core.jobs.debates import run_debate_async
from debate_core.providers import make_provider


class Gauge:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.peak = 0

    def __enter__(self):
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def __exit__(self, *exc):
        with self.lock:
            self.now -= 1


def test_limit_holds_across_threads_and_loops():
    limiter = Limiter(3)
    gauge = Gauge()

    async def worker():
        async def one():
            async with limiter.slot():
                with gauge:
                    await asyncio.sleep(0.01)

        await asyncio.gather(*(one() for _ in range(20)))

    threads = [threading.Thread(target=lambda: asyncio.run(worker())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert gauge.peak == 3
    assert limiter.in_use == 0


def test_cancelled_waiters_do_not_leak_slots():
    limiter = Limiter(1)

    async def main():
        await limiter.acquire()
        waiter = asyncio.ensure_future(limiter.acquire())
        await asyncio.sleep(0)
        waiter.cancel()
        limiter.release()
        await asyncio.sleep(0)
        # The only slot is free again: a new acquire goes straight through.
        await asyncio.wait_for(limiter.acquire(), 1)
        limiter.release()

    asyncio.run(main())
    assert limiter.in_use == 0


def test_debates_in_two_threads_share_one_limit():
    """Two debates in their own threads and loops (as the app's worker runs them) share the limit."""
    limiter = Limiter(1)
    sinks = [MemorySink(), MemorySink()]

    def go(sink):
        asyncio.run(run_debate_async(small_case(), "cross_critique", provider=make_provider("offline", latency_ms=30),
                                     settings=DebateSettings(concurrency=1), sink=sink, limiter=limiter))

    threads = [threading.Thread(target=go, args=(s,)) for s in sinks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    spans = []
    for sink in sinks:
        started = {e.step_id: e.ts for _, e in sink.events if e.kind == "turn_started"}
        finished = {e.step_id: e.ts for _, e in sink.events if e.kind == "turn_finished"}
        spans += [(started[s], finished[s]) for s in finished]
    # turn_started is emitted before waiting for a slot, so overlap is measured from the finish times:
    # with one slot, no two calls can finish less than the simulated latency apart.
    ends = sorted(end for _, end in spans)
    gaps = [b - a for a, b in zip(ends, ends[1:], strict=False)]
    # At least 7 steps a debate: 2 answers, 2 critiques, 2 revisions and the supervisor.
    assert len(ends) >= 14 and min(gaps) >= 0.025
