"""Store at scale: do listing, search and loading a debate stay instant with 10,000 debates?

The database comes from `store_fill.py` (through the store's own API; built once, then reused
while the generator and the requested size are unchanged; `--rebuild` forces a new one). Reads go
through a read-only `DebateStore`, as the pages open it. Each query runs 7 times: the table shows
the first (cold) and the median time, and the goal (50 ms) is judged on the median. Writes: how
many debates per second the fill recorded in its first and last thousand (flat means a write does
not get dearer as history grows).

The History page and the Debate page (on the large debate: 3 agents x 3 rounds x 10 claims) are
then run under Streamlit's AppTest with DEBATE_DB pointing at the database; goal 1.5 s per run.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any

import benchlib
import store_fill
from benchlib import Figure

from debate_core.store import DebateStore

QUERY_GOAL_MS = 50.0
PAGE_GOAL_S = 1.5
RUNS = 7


def _extra(parser) -> None:
    parser.add_argument("--db", default=None,
                        help="database file (default data/bench_store.db, with --quick data/bench_store_quick.db)")
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


def page_timings(db: Path, large_id: str) -> dict[str, tuple[float, float, list[str], str]] | str:
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


def main() -> None:
    args = benchlib.parse_args(__doc__.splitlines()[0], _extra)
    db = Path(args.db or benchlib.ROOT / "data" / ("bench_store_quick.db" if args.quick else "bench_store.db"))
    debates = args.debates or (2000 if args.quick else 10000)
    cmd = benchlib.command("store_scale.py", args)
    print(f"Store at scale: {db} with {debates} debates")
    meta = store_fill.ensure(db, debates, rebuild=args.rebuild)
    print(f"  {'reused' if meta.get('reused') else 'filled'}: {meta['counts']}, {meta['bytes'] / 2**20:.0f} MiB, "
          f"fill took {meta['fill_seconds']} s\n")
    store = DebateStore(db)  # applies any pending migration once, as the app does on first use
    store.close()
    store = DebateStore(db, readonly=True)
    try:
        groups = query_table(store, meta["large_debate"])
        large = store.get_debate(meta["large_debate"])
        claims = store.claims(meta["large_debate"])
    finally:
        store.close()
    rows = [[group, name, f"{first:.1f}", f"{median:.1f}", size] for group, items in groups.items()
            for name, first, median, size in items]
    benchlib.print_table(["kind", "query", "first ms", "median ms", "rows"], rows)
    per_output = {}
    for c in claims:
        per_output[c["step_id"]] = per_output.get(c["step_id"], 0) + 1
    print(f"\nlarge debate {large['id']}: {large['rounds']} rounds, {len(large['steps'])} steps, "
          f"{len(claims)} claims, claims per output {sorted(set(per_output.values()))}")

    figures = []
    for group, label in (("list", "list with filters"), ("search", "full-text search"),
                         ("load", "load the large debate")):
        worst = max(groups[group], key=lambda r: r[2])
        figures.append(Figure(f"store at {debates} debates: {label} (slowest median: {worst[0]})",
                              f"{worst[2]:.1f} ms", f"< {QUERY_GOAL_MS:.0f} ms", worst[2] < QUERY_GOAL_MS, cmd))
    analytics = dict((r[0], r) for r in groups["other"])["analytics (per protocol)"]
    figures.append(Figure(f"store at {debates} debates: analytics per protocol", f"{analytics[2]:.1f} ms",
                          f"< {QUERY_GOAL_MS:.0f} ms", analytics[2] < QUERY_GOAL_MS, cmd))
    rates = meta.get("rates") or []
    if len(rates) >= 10:
        head, tail = statistics.mean(rates[:5]), statistics.mean(rates[-5:])
        figures.append(Figure(f"store writes: debates recorded per second, first vs last {5 * meta['batch']}",
                              f"{head:.0f}/s vs {tail:.0f}/s", "flat", None, cmd))

    if args.no_pages:
        benchlib.report(figures, args)
        return
    pages = page_timings(db, meta["large_debate"])
    print()
    if isinstance(pages, str):
        print(f"AppTest page timings skipped: {pages}")
        figures.append(Figure("pages at scale", f"not measured: {pages}", f"< {PAGE_GOAL_S} s", None, cmd))
    else:
        benchlib.print_table(["page (AppTest run)", "first s", "median s", "exceptions", "what it showed"],
                             [[k, f"{a:.2f}", f"{b:.2f}", len(e), shown[:110]] for k, (a, b, e, shown) in pages.items()])
        for label, (_first, median, errors, _shown) in pages.items():
            ok = median < PAGE_GOAL_S and not errors
            value = f"{median:.2f} s" + (f" ({len(errors)} exception(s): {errors[0][:80]})" if errors else "")
            figures.append(Figure(f"{label} at {debates} debates, AppTest run", value, f"< {PAGE_GOAL_S} s", ok, cmd))
    benchlib.report(figures, args)


if __name__ == "__main__":
    main()
