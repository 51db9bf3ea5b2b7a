"""What opening a writable store costs at scale: the damage check (PRAGMA quick_check) against an open without it.

A writable DebateStore checks its file once per process before anything writes to it. The check
reads the whole file, so its cost grows with the database; this measures it on the generated
store (bench/store_fill.py) so the figure is known, not guessed.

    python bench/store_open.py                 # data/bench_store.db, 10,000 debates
    python bench/store_open.py --quick         # data/bench_store_quick.db, 2,000 debates
"""

from __future__ import annotations

import argparse
from pathlib import Path

import benchlib
import store_fill
from benchlib import Figure

from debate_core import store as store_module
from debate_core.store import DebateStore

# An open that checks runs once per process (a CLI command that writes, the app's first request);
# a few seconds there is acceptable, more would be felt.
CHECK_GOAL_S = 5.0


def _extra(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=None, help="database file (default as bench/store_scale.py)")
    parser.add_argument("--debates", type=int, default=None, help="debates in the database (default 10000)")


def _open(db: Path, check: bool) -> None:
    store_module._CHECKED.clear()  # measure the first open of a process, not a remembered one
    DebateStore(db, check=check).close()


def main() -> None:
    args = benchlib.parse_args(__doc__.splitlines()[0], _extra)
    db = Path(args.db or benchlib.ROOT / "data" / ("bench_store_quick.db" if args.quick else "bench_store.db"))
    debates = args.debates or (2000 if args.quick else 10000)
    cmd = benchlib.command("store_open.py", args)
    meta = store_fill.ensure(db, debates)
    size_mib = db.stat().st_size / 2**20
    repeats = 2 if args.quick else 5
    checked, _ = benchlib.timed(lambda: _open(db, True), repeats)
    plain, _ = benchlib.timed(lambda: _open(db, False), repeats)
    benchlib.print_table(["open", "fastest s"], [["writable, with quick_check", f"{checked:.3f}"],
                                                 ["writable, without", f"{plain:.3f}"]])
    figures = [
        Figure(f"open a writable store at {meta['debates']} debates ({size_mib:.0f} MiB) with its damage check",
               f"{checked:.2f} s", f"< {CHECK_GOAL_S:.0f} s", checked < CHECK_GOAL_S, cmd),
        Figure(f"open a writable store at {meta['debates']} debates without the check", f"{plain * 1000:.1f} ms",
               "", None, cmd),
    ]
    benchlib.report(figures, args)


if __name__ == "__main__":
    main()
