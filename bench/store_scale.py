"""Store at scale: do listing, search and loading a debate stay instant with 10,000 debates?

The database comes from `store_fill.py` (through the store's own API; built once, then reused
while the generator and the requested size are unchanged; `--rebuild` forces a new one). Reads go
through a read-only `DebateStore`, as the pages open it. Each query runs 7 times: the table shows
the first (cold) and the median time, and the goal (50 ms) is judged on the median. Writes: how
many debates per second the fill recorded in its first and last thousand (flat means a write does
not get dearer as history grows).

The History page and the Debate page (on the large debate: 3 agents x 3 rounds x 10 claims) are
then run under Streamlit's AppTest with DEBATE_DB pointing at the database; goal 1.5 s per run.

With `--db postgresql://USER@HOST:PORT/DB` (or `--postgres`, which starts a throwaway cluster as the
tests do, for a machine without a server) the same queries and pages also run on PostgreSQL, filled
by the same generator with the same seed, and the table shows both backends side by side; the
SQLite file is then `--sqlite` (default as above).

    python bench/store_scale.py --postgres
    python bench/store_scale.py --db postgresql://postgres@127.0.0.1:5432/bench_store
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import benchlib
import store_fill
from benchlib import Figure

from debate_core.store import DebateStore, is_postgres_url, redacted

QUERY_GOAL_MS = 50.0
PAGE_GOAL_S = 1.5
RUNS = 7


def _extra(parser) -> None:
    parser.add_argument("--db", default=None,
                        help="database file (default data/bench_store.db, with --quick data/bench_store_quick.db), "
                             "or a postgresql:// URL to measure next to that SQLite file")
    parser.add_argument("--sqlite", default=None, help="the SQLite file when --db is a PostgreSQL URL")
    parser.add_argument("--postgres", action="store_true",
                        help="also measure PostgreSQL on a throwaway cluster (initdb and pg_ctl, as the tests)")
    parser.add_argument("--debates", type=int, default=None, help="debates in the database (default 10000)")
    parser.add_argument("--rebuild", action="store_true", help="fill the database again even if it exists")
    parser.add_argument("--no-pages", action="store_true", help="skip the AppTest page timings")


def timed_ms(fn: Any) -> tuple[float, float, Any]:
    times, value = [], None
    for _ in range(RUNS):
        started = time.perf_counter()
        value = fn()
        times.append((time.perf_counter() - started) * 1000.0)
    return times[0], statistics.median(times), value


def query_table(store: DebateStore, large_id: str) -> dict[str, list[tuple[str, float, float, int]]]:
    month_ago = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 30 * 86400))
    two_months_ago = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 60 * 86400))
    groups: dict[str, dict[str, Any]] = {
        "list": {
            "newest 1000 (History page, no filter)": lambda: store.list_debates(limit=1000),
            "newest 50 (Debate page picker)": lambda: store.list_debates(limit=50),
            "protocol": lambda: store.list_debates(protocol="cross_critique", limit=1000),
            "status completed": lambda: store.list_debates(status="completed", limit=1000),
            "escalated (completed, needs review)": lambda: store.list_debates(
                status="completed", needs_review=True, limit=1000),
            "failed": lambda: store.list_debates(status="failed", limit=1000),
            "verdict state escalated (queue)": lambda: store.escalation_queue(),
            "reviewer": lambda: store.list_debates(reviewer="ayu", limit=1000),
            "created in one month": lambda: store.list_debates(since=two_months_ago, until=month_ago, limit=1000),
            "protocol + state + since": lambda: store.list_debates(
                protocol="panel", review_state="accepted", since=two_months_ago, limit=1000),
        },
        "search": {
            "common word (pusaka)": lambda: store.list_debates(search="pusaka", limit=1000),
            "prefix (sentan)": lambda: store.list_debates(search="sentan", limit=1000),
            "two words (Gianyar certificate)": lambda: store.list_debates(search="Gianyar certificate", limit=1000),
            "rare (matter 04321)": lambda: store.list_debates(search="matter 04321", limit=1000),
            "word + protocol + escalated": lambda: store.list_debates(
                search="kaum", protocol="cross_critique", status="completed", needs_review=True, limit=1000),
            "word + reviewer": lambda: store.list_debates(search="pusaka", reviewer="ayu", limit=1000),
        },
        "load": {
            "get_debate (large debate, with steps)": lambda: store.get_debate(large_id),
            "Debate page load (debate, claims, critiques, events)": lambda: (
                store.get_debate(large_id), store.claims(large_id), store.critiques(large_id),
                store.events(large_id)),
        },
        "other": {
            "count": lambda: store.count_debates(),
            "reviewers": lambda: store.reviewers(),
            "analytics (per protocol)": lambda: store.analytics(),
        },
    }
    out: dict[str, list[tuple[str, float, float, int]]] = {}
    for group, queries in groups.items():
        rows = []
        for name, fn in queries.items():
            first, median, value = timed_ms(fn)
            size = len(value) if isinstance(value, list) else len(value[0]["steps"]) if isinstance(value, tuple) \
                else len(value.get("steps", [])) if isinstance(value, dict) else value
            rows.append((name, first, median, size))
        out[group] = rows
    return out


def page_timings(db: str | Path, large_id: str) -> dict[str, tuple[float, float, list[str], str]] | str:
    """Run the History and Debate pages under AppTest on the big database; seconds per run."""
    root = benchlib.ROOT
    for page in ("pages/history.py", "pages/debate.py", "app.py"):
        if not (root / page).exists():
            return f"{page} does not exist yet"
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    # As in tests/conftest.py: AppTest forgets between runs that st.navigation was called and would
    # otherwise run a switched-to page on its own; a real server remembers.
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init
    os.environ["DEBATE_DB"] = str(db)
    # Pages are timed, no debate runs: on PostgreSQL the app would start its job-queue worker in this
    # process, polling the database during the timings and installing the queue's schema in it.
    worker = os.environ.get("DEBATE_APP_WORKER")
    os.environ["DEBATE_APP_WORKER"] = "0"
    previous = os.getcwd()
    os.chdir(root)
    try:
        app = AppTest.from_file(str(root / "app.py"), default_timeout=120)
        app.run()  # the default page, opening and migrating the database once, as a server's first visitor
        out: dict[str, tuple[float, float, list[str], str]] = {}
        for label, page, params in (("History page", "pages/history.py", {}),
                                    ("Debate page (large debate)", "pages/debate.py", {"id": large_id})):
            times = []
            for _ in range(3):
                app.switch_page(page)
                for key, value in params.items():
                    app.query_params[key] = value
                started = time.perf_counter()
                app.run()
                times.append(time.perf_counter() - started)
            errors = [e.message for e in app.exception]
            shown = [t.value for t in app.title][:1] + [c.value for c in app.caption if " of " in c.value][:1]
            shown.append(f"{len(app.dataframe)} table(s), {len(app.tabs)} tab(s), "
                         f"{len(app.get('plotly_chart'))} chart(s)")
            out[label] = (times[0], statistics.median(times), errors, "; ".join(shown))
        return out
    finally:
        os.chdir(previous)
        PagesManager.__init__ = original
        if worker is None:
            os.environ.pop("DEBATE_APP_WORKER", None)
        else:
            os.environ["DEBATE_APP_WORKER"] = worker


def measure(location: str | Path, debates: int, rebuild: bool) -> dict[str, Any]:
    """Fill (or reuse) one database and time the query table on it."""
    meta = store_fill.ensure(location, debates, rebuild=rebuild)
    print(f"  {redacted(location)}: {'reused' if meta.get('reused') else 'filled'}: {meta['counts']}, "
          f"{meta['bytes'] / 2**20:.0f} MiB, fill took {meta['fill_seconds']} s")
    store = DebateStore(location)  # applies any pending migration once, as the app does on first use
    store.close()
    store = DebateStore(location, readonly=True)
    try:
        groups = query_table(store, meta["large_debate"])
        large = store.get_debate(meta["large_debate"])
        claims = store.claims(meta["large_debate"])
    finally:
        store.close()
    per_output: dict[str, int] = {}
    for c in claims:
        per_output[c["step_id"]] = per_output.get(c["step_id"], 0) + 1
    return {"meta": meta, "groups": groups,
            "large": f"large debate {large['id']}: {large['rounds']} rounds, {len(large['steps'])} steps, "
                     f"{len(claims)} claims, claims per output {sorted(set(per_output.values()))}"}


def side_by_side(results: dict[str, dict[str, Any]]) -> None:
    """One table: each query's first and median time on every backend, and the rows it returned."""
    names = list(results)
    prefix = (lambda n: f"{n} ") if len(names) > 1 else (lambda n: "")
    headers = ["kind", "query"] + [f"{prefix(n)}{c}" for n in names for c in ("first ms", "median ms")] + ["rows"]
    first = results[names[0]]["groups"]
    rows = []
    for group, items in first.items():
        for i, (query, *_rest) in enumerate(items):
            cells: list[Any] = [group, query]
            sizes = []
            for n in names:
                _q, t0, median, size = results[n]["groups"][group][i]
                cells += [f"{t0:.1f}", f"{median:.1f}"]
                sizes.append(str(size))
            # The same generator and seed: the sizes agree unless a date window moved between fills.
            rows.append(cells + [sizes[0] if len(set(sizes)) == 1 else " / ".join(sizes)])
    benchlib.print_table(headers, rows)


def query_figures(name: str, debates: int, result: dict[str, Any], cmd: str) -> list[Figure]:
    """`name` is the backend, as the figures say it ("" when only SQLite was measured: today's names)."""
    groups, meta = result["groups"], result["meta"]
    figures = []
    for group, label in (("list", "list with filters"), ("search", "full-text search"),
                         ("load", "load the large debate")):
        worst = max(groups[group], key=lambda r: r[2])
        figures.append(Figure(f"store at {debates} debates{name}: {label} (slowest median: {worst[0]})",
                              f"{worst[2]:.1f} ms", f"< {QUERY_GOAL_MS:.0f} ms", worst[2] < QUERY_GOAL_MS, cmd))
    analytics = dict((r[0], r) for r in groups["other"])["analytics (per protocol)"]
    figures.append(Figure(f"store at {debates} debates{name}: analytics per protocol", f"{analytics[2]:.1f} ms",
                          f"< {QUERY_GOAL_MS:.0f} ms", analytics[2] < QUERY_GOAL_MS, cmd))
    rates = meta.get("rates") or []
    if len(rates) >= 10:
        head, tail = statistics.mean(rates[:5]), statistics.mean(rates[-5:])
        figures.append(Figure(f"store writes{name}: debates recorded per second, first vs last {5 * meta['batch']}",
                              f"{head:.0f}/s vs {tail:.0f}/s", "flat", None, cmd))
    return figures


def page_figures(name: str, debates: int, location: str | Path, large_id: str, cmd: str) -> list[Figure]:
    pages = page_timings(location, large_id)
    print(f"\n{name.lstrip(', ') or 'SQLite'}:")
    if isinstance(pages, str):
        print(f"AppTest page timings skipped: {pages}")
        return [Figure(f"pages at scale{name}", f"not measured: {pages}", f"< {PAGE_GOAL_S} s", None, cmd)]
    benchlib.print_table(["page (AppTest run)", "first s", "median s", "exceptions", "what it showed"],
                         [[k, f"{a:.2f}", f"{b:.2f}", len(e), shown[:110]] for k, (a, b, e, shown) in pages.items()])
    figures = []
    for label, (_first, median, errors, _shown) in pages.items():
        ok = median < PAGE_GOAL_S and not errors
        value = f"{median:.2f} s" + (f" ({len(errors)} exception(s): {errors[0][:80]})" if errors else "")
        figures.append(Figure(f"{label} at {debates} debates{name}, AppTest run", value, f"< {PAGE_GOAL_S} s",
                              ok, cmd))
    return figures


def main() -> None:
    args = benchlib.parse_args(__doc__.splitlines()[0], _extra)
    default_file = benchlib.ROOT / "data" / ("bench_store_quick.db" if args.quick else "bench_store.db")
    url = args.db if is_postgres_url(args.db) else None
    if args.db and url is None and args.sqlite:
        raise SystemExit("--sqlite names the SQLite file only when --db is a postgresql:// URL")
    if url and args.postgres:
        raise SystemExit("--postgres starts its own server: give it or a postgresql:// --db, not both")
    db = Path(args.sqlite or (default_file if url else args.db or default_file))
    debates = args.debates or (2000 if args.quick else 10000)
    cmd = benchlib.command("store_scale.py", args) + (" --postgres" if args.postgres else "") + \
        (" --db postgresql://..." if url else "")
    cluster = None
    settings_dir: str | None = None
    figures: list[Figure] = []
    if args.postgres:
        from tests.pg_support import fresh_database, start_cluster

        cluster, why = start_cluster()
        if cluster is None:
            print(f"PostgreSQL not measured: {why}")
            figures.append(Figure("store on PostgreSQL", f"not measured: {why}", "-", None, cmd))
        else:
            url = fresh_database(cluster)
            # The app keeps a PostgreSQL store's settings file in data/<database>.settings.json; a
            # throwaway database's belongs with the cluster, not in the repository's data folder.
            settings_dir = tempfile.mkdtemp(prefix="bench-settings-")
            os.environ["DEBATE_SETTINGS"] = str(Path(settings_dir) / "settings.json")
    locations: dict[str, str | Path] = {"SQLite": db}
    if url:
        locations["PostgreSQL"] = url
    try:
        print(f"Store at scale: {debates} debates on {', '.join(f'{k} ({redacted(v)})' for k, v in locations.items())}")
        results = {name: measure(location, debates, args.rebuild) for name, location in locations.items()}
        print()
        side_by_side(results)
        print()
        for name, result in results.items():
            print(f"{name}: {result['large']}")
        tag = {name: f", {name}" if len(locations) > 1 else "" for name in locations}
        for name, result in results.items():
            figures += query_figures(tag[name], debates, result, cmd)
        if not args.no_pages:
            for name, location in locations.items():
                figures += page_figures(tag[name], debates, location, results[name]["meta"]["large_debate"], cmd)
        benchlib.report(figures, args)
    finally:
        if cluster is not None:
            from debate_core.store.postgres_backend import close_pools

            close_pools()
            cluster.stop()
        if settings_dir is not None:
            shutil.rmtree(settings_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
