"""Workers on the job queue: does throughput grow with the number of worker processes?

40 debates (the panel sample case, offline agents with 200 ms of simulated latency per call) are
queued on a PostgreSQL store and run by 1, 2 and 4 worker processes (`python -m debate_core
worker`, one debate at a time each). The clock starts when the first debate is queued (the workers
are up and waiting) and stops when the last one is stored as completed. The goal: 4 workers reach
at least 3.2 times the throughput of 1 (the ideal is 4).

`--db postgresql://...` uses that server (one new database per worker count is created in it, so
the URL's user needs CREATEDB); without it a throwaway cluster is started as the tests start one
(Debian's postgresql package).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from typing import Any

import benchlib
from benchlib import Figure

from debate_core.core.ids import runner_info
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs import queue
from debate_core.providers import make_provider
from debate_core.store import DebateStore

PROTOCOL = "panel"
LATENCY_MS = 200.0
GOAL_RATIO = 3.2


def _extra(parser) -> None:
    parser.add_argument("--db", help="a postgresql:// URL of a server to create the benchmark's databases in")
    parser.add_argument("--debates", type=int, default=None, help="debates per worker count (default 40)")


def _new_database(server_url: str) -> str:
    import psycopg

    name = f"bench_workers_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + "/" + name


def _start_workers(url: str, count: int) -> list[subprocess.Popen]:
    procs = [subprocess.Popen([sys.executable, "-m", "debate_core", "--db", url, "worker", "--name", f"bench-{i}"],
                              cwd=benchlib.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**os.environ, "PYTHONPATH": str(benchlib.ROOT)})
             for i in range(count)]
    for proc in procs:  # each says so once it takes jobs
        line = proc.stdout.readline() if proc.stdout else ""
        if "taking debates" not in line:
            raise SystemExit(f"a worker did not start: {line.strip()}")
    time.sleep(1.0)  # connected and listening for new jobs
    return procs


def one_count(server_url: str, workers: int, debates: int) -> dict[str, Any]:
    url = _new_database(server_url)
    queue.ensure_schema(url)
    store = DebateStore(url)
    case = benchlib.case_for(PROTOCOL)
    provider = make_provider("offline", latency_ms=LATENCY_MS)
    settings = {**DebateSettings().as_dict(), "runner": queue.queued_runner(runner_info())}
    procs = _start_workers(url, workers)
    try:
        started = time.perf_counter()
        ids = []
        for _ in range(debates):
            debate_id = store.create_debate(case, PROTOCOL, provider.public_config(), settings)
            queue.submit(url, debate_id)
            ids.append(debate_id)
        pending = set(ids)
        while pending:
            time.sleep(0.1)
            pending = {i for i in pending if store.get_debate(i, with_steps=False)["status"] == "running"}
        wall = time.perf_counter() - started
        statuses = {store.get_debate(i, with_steps=False)["status"] for i in ids}
        by_worker: dict[str, int] = {}
        for debate_id in ids:
            runner = store.get_debate(debate_id, with_steps=False)["settings"].get("runner") or {}
            by_worker[runner.get("worker", "?")] = by_worker.get(runner.get("worker", "?"), 0) + 1
    finally:
        benchlib.stop_processes(procs)
        store.close()
    return {"workers": workers, "wall_s": wall, "per_s": debates / wall, "statuses": statuses, "by_worker": by_worker}


def main() -> None:
    args = benchlib.parse_args(__doc__.splitlines()[0], _extra)
    debates = args.debates or (12 if args.quick else 40)
    cluster = None
    server = args.db
    if not server:
        from tests.pg_support import start_cluster

        cluster, why = start_cluster()
        if cluster is None:
            raise SystemExit(f"no PostgreSQL to measure on: {why} (or pass --db postgresql://...)")
        server = cluster.url
    try:
        results = [one_count(server, n, debates) for n in (1, 2, 4)]
    finally:
        from debate_core.store.postgres_backend import close_pools

        close_pools()
        if cluster is not None:
            cluster.stop()
    base = results[0]["per_s"]
    rows = [[r["workers"], f"{r['wall_s']:.1f}", f"{r['per_s']:.2f}", f"{r['per_s'] / base:.2f}", f"{r['workers']:.2f}",
             ", ".join(f"{n}" for _, n in sorted(r["by_worker"].items())), "/".join(sorted(r["statuses"]))]
            for r in results]
    print(f"{debates} debates ({PROTOCOL}, offline agents, {LATENCY_MS:.0f} ms per call) through 1, 2 and 4 workers\n")
    benchlib.print_table(["workers", "wall s", "debates/s", "ratio to 1 worker", "ideal", "debates per worker",
                          "status"], rows)
    four = results[-1]["per_s"] / base
    cmd = benchlib.command("workers.py", args)
    figures = [
        Figure("queue workers: throughput with 2 workers / 1", f"{results[1]['per_s'] / base:.2f}", "ideal 2",
               None, cmd),
        Figure("queue workers: throughput with 4 workers / 1", f"{four:.2f}", f">= {GOAL_RATIO} (ideal 4)",
               four >= GOAL_RATIO and all(r["statuses"] == {"completed"} for r in results), cmd),
    ]
    benchlib.report(figures, args)


if __name__ == "__main__":
    main()
