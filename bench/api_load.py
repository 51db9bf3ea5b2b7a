"""The HTTP API under load: 50 concurrent submissions, and reads while debates run.

The API server runs as its own process (`python -m debate_core api`), as it is deployed, so the
clients here do not share its interpreter. 50 debates (cross_critique, offline agents with a small
latency per call) are submitted at once through `POST /v1/debates`; every one must complete. Then,
while 8 debates run (a longer latency per call keeps them running), `GET /v1/debates` and
`GET /v1/debates/{id}` are timed from 4 client threads; the goal is a 95th percentile under 200 ms.

On SQLite the server runs the debates in its own threads, as the app does; with `--postgres` (a
throwaway cluster, as tests/pg_support.py starts it) they go on the job queue and two worker
processes (`python -m debate_core worker`) run them.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import benchlib
from benchlib import Figure

from debate_core.client import Client
from debate_core.core.identity import operator
from debate_core.store import DebateStore

PROTOCOL = "cross_critique"
SUBMISSIONS = 50
RUNNING = 8
LOAD_LATENCY_MS = 20.0  # per offline call while the 50 run
SLOW_LATENCY_MS = 400.0  # per offline call while the reads are timed, so the 8 debates keep running
GOAL_MS = 200.0
WORKERS = 2


def _extra(parser: Any) -> None:
    parser.add_argument("--postgres", action="store_true",
                        help="also measure PostgreSQL on a throwaway cluster, with queue workers")
    parser.add_argument("--reads", type=int, default=None, help="reads of each route while debates run (default 300)")


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(benchlib.ROOT)}


def _start(cmd: list[str], ready: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "debate_core", *cmd], cwd=benchlib.ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    if ready not in line:
        proc.kill()
        raise SystemExit(f"{cmd[2]} did not start: {line.strip()}")
    return proc


def _wait_up(url: str) -> None:
    deadline = time.monotonic() + 30
    with Client(url) as c:
        while True:
            try:
                c.health()
                return
            except Exception:  # noqa: BLE001 - not listening yet
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _wait_all(c: Client, ids: list[str], timeout: float) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    statuses: dict[str, str] = {}
    for debate_id in ids:
        left = max(1.0, deadline - time.monotonic())
        statuses[debate_id] = c.wait(debate_id, timeout=left, every=0.25)["status"]
    return statuses


def measure(db: str | Path, reads: int) -> dict[str, Any]:
    store = DebateStore(db)
    token = store.create_token(name=f"bench {time.time_ns()}", role="reviewer", actor=operator("bench"))
    store.close()
    port = benchlib.free_port()
    url = f"http://127.0.0.1:{port}"
    procs = [_start(["--db", str(db), "api", "--port", str(port), "--log-level", "warning"], "serving the API")]
    try:
        if isinstance(db, str):  # PostgreSQL: the queue's workers run the debates
            procs += [_start(["--db", db, "worker", "--name", f"bench-{i}", "--concurrency", "8"], "taking debates")
                      for i in range(WORKERS)]
        _wait_up(url)
        case = benchlib.case_for(PROTOCOL).model_dump(mode="json", exclude_none=True)

        def submit(latency: float) -> tuple[str, float]:
            with Client(url, token) as c:
                t0 = time.perf_counter()
                debate_id = c.submit(case, PROTOCOL, provider={"name": "offline", "latency_ms": latency})["id"]
                return debate_id, (time.perf_counter() - t0) * 1000

        t0 = time.perf_counter()
        with ThreadPoolExecutor(SUBMISSIONS) as pool:
            submitted = list(pool.map(lambda _: submit(LOAD_LATENCY_MS), range(SUBMISSIONS)))
        with Client(url, token) as c:
            statuses = _wait_all(c, [i for i, _ in submitted], timeout=600)
        wall = time.perf_counter() - t0
        submit_ms = [ms for _, ms in submitted]

        with ThreadPoolExecutor(RUNNING) as pool:
            running_ids = [i for i, _ in pool.map(lambda _: submit(SLOW_LATENCY_MS), range(RUNNING))]
        timings: dict[str, list[float]] = {"list": [], "one": []}
        still_running: list[int] = []
        lock = threading.Lock()

        def reader(n: int) -> None:
            with Client(url, token) as c:
                for k in range(reads // 4):
                    for route in ("list", "one"):
                        t = time.perf_counter()
                        if route == "list":
                            page = c.list(limit=50)
                        else:
                            c.get(running_ids[(n + k) % RUNNING])
                        with lock:
                            timings[route].append((time.perf_counter() - t) * 1000)
                    if k % 10 == 0:
                        with lock:
                            still_running.append(sum(d["status"] == "running" for d in page["debates"]))

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(reader, range(4)))
        with Client(url, token) as c:
            for debate_id in running_ids:  # the 8 are not needed any longer: stop them
                try:
                    c.control(debate_id, "stop")
                except Exception:  # noqa: BLE001 - already finished
                    pass
            _wait_all(c, running_ids, timeout=300)
    finally:
        benchlib.stop_processes(procs)
    return {
        "completed": sum(s == "completed" for s in statuses.values()), "statuses": sorted(set(statuses.values())),
        "wall_s": wall, "submit_p50": statistics.median(submit_ms), "submit_p95": _pct(submit_ms, 0.95),
        "list_p50": statistics.median(timings["list"]), "list_p95": _pct(timings["list"], 0.95),
        "one_p50": statistics.median(timings["one"]), "one_p95": _pct(timings["one"], 0.95),
        "reads": len(timings["list"]) + len(timings["one"]), "running_min": min(still_running),
        "running_max": max(still_running),
    }


def figures_for(name: str, r: dict[str, Any], cmd: str) -> list[Figure]:
    return [
        Figure(f"API, {name}: {SUBMISSIONS} concurrent submissions completed", f"{r['completed']}/{SUBMISSIONS}",
               f"{SUBMISSIONS}/{SUBMISSIONS}", r["completed"] == SUBMISSIONS, cmd),
        Figure(f"API, {name}: submission answered (p50 / p95)", f"{r['submit_p50']:.0f} / {r['submit_p95']:.0f} ms",
               "-", None, cmd),
        Figure(f"API, {name}: {SUBMISSIONS} debates submitted to all completed", f"{r['wall_s']:.1f} s", "-", None, cmd),
        Figure(f"API, {name}: GET /v1/debates p95 while {RUNNING} run",
               f"{r['list_p95']:.0f} ms (p50 {r['list_p50']:.0f})", f"< {GOAL_MS:.0f} ms", r["list_p95"] < GOAL_MS, cmd),
        Figure(f"API, {name}: GET /v1/debates/{{id}} p95 while {RUNNING} run",
               f"{r['one_p95']:.0f} ms (p50 {r['one_p50']:.0f})", f"< {GOAL_MS:.0f} ms", r["one_p95"] < GOAL_MS, cmd),
    ]


def main() -> None:
    args = benchlib.parse_args(__doc__.splitlines()[0], _extra)
    reads = args.reads or (80 if args.quick else 300)
    cmd = benchlib.command("api_load.py", args) + (" --postgres" if args.postgres else "")
    workdir = tempfile.mkdtemp(prefix="bench-api-")
    # The app keeps its settings next to the store; the throwaway stores' belong in the temporary folder.
    os.environ["DEBATE_SETTINGS"] = str(Path(workdir) / "settings.json")
    locations: dict[str, str | Path] = {"SQLite": Path(workdir) / "api.db"}
    cluster = None
    figures: list[Figure] = []
    if args.postgres:
        from tests.pg_support import fresh_database, start_cluster

        cluster, why = start_cluster()
        if cluster is None:
            figures.append(Figure("API on PostgreSQL", f"not measured: {why}", "-", None, cmd))
        else:
            locations["PostgreSQL"] = fresh_database(cluster)
    try:
        for name, location in locations.items():
            print(f"{name}: {SUBMISSIONS} concurrent submissions ({PROTOCOL}, offline, {LOAD_LATENCY_MS:.0f} ms per "
                  f"call), then {reads} reads per route while {RUNNING} debates run", flush=True)
            r = measure(location, reads)
            print(f"  statuses {', '.join(r['statuses'])}; {r['reads']} reads; debates running during the reads: "
                  f"{r['running_min']} to {r['running_max']}", flush=True)
            figures += figures_for(name, r, cmd)
        benchlib.report(figures, args)
    finally:
        if cluster is not None:
            from debate_core.store.postgres_backend import close_pools

            close_pools()
            cluster.stop()


if __name__ == "__main__":
    main()
