"""Run every benchmark and print one markdown table of figures for docs/benchmarks.md.

Each script runs in its own process (so timings and memory figures do not disturb each other);
its detailed output goes to stderr here, and its figures are read from the JSON line it prints last.

    python bench/run_all.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SCRIPTS = ["simulated_latency.py", "critical_path.py", "prompt_growth.py", "many_debates.py", "store_scale.py",
           "workers.py", "eval_concurrency.py", "api_load.py"]


def load_average() -> str:
    try:
        return " / ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def run(script: str, quick: bool) -> tuple[list[dict], str | None]:
    cmd = [sys.executable, str(BENCH / script), "--json"] + (["--quick"] if quick else [])
    proc = subprocess.run(cmd, cwd=BENCH.parent, capture_output=True, text=True)
    sys.stderr.write(proc.stdout.rsplit("\n", 2)[0] + "\n")
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return [], tail
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    try:
        return json.loads(last), None
    except json.JSONDecodeError:
        return [], "no figures printed"


def cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="run every script with --quick")
    args = parser.parse_args()
    started = time.time()
    load_before = load_average()
    rows = []
    for script in SCRIPTS:
        sys.stderr.write(f"\n=== {script} ===\n")
        figures, error = run(script, args.quick)
        if error:
            quick = " --quick" if args.quick else ""
            rows.append(["`" + script + "` failed", error, "", "", f"`python bench/{script}{quick}`"])
        for f in figures:
            met = "n/a" if f["met"] is None else ("yes" if f["met"] else "**no**")
            rows.append([f["figure"], f["value"], f["goal"] or "-", met, f"`{f['command']}`"])
    print("| figure | value | goal | met | command |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(cell(c) for c in row) + " |")
    print(f"\nMeasured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores, load average {load_before} before "
          f"and {load_average()} after, {time.time() - started:.0f} s in all.")


if __name__ == "__main__":
    main()
