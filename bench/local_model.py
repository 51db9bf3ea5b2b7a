"""Local model: does a debate with default settings finish against a small local server?

Runs the exact command a new user would run, N times, one after another:

    python -m debate_core run data/cases/national_will_formalities.json --protocol cross_critique \
        --rounds 2 --provider openai --base-url URL --model smollm2

against an OpenAI-compatible server (CI: llama-cpp-python serving SmolLM2-135M, see
scripts/local_llm_server.sh). Nothing is tuned: no timeout, cap, concurrency or attempt flags.
For each run it records the status, the wall time, the failing step and its reason, the calls,
the tokens, the re-asks and the reply caps, read back from the run's own database.

Goal: completed (any verdict) in at least 4 of 5 runs; each completed run under 10 minutes on
2 cores; a failing run fails within 3 minutes with a reason that names the step and the cause.

    python bench/local_model.py --base-url http://127.0.0.1:8765/v1 --runs 5 [--out runs.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import benchlib

from debate_core.store import DebateStore

CASE = benchlib.ROOT / "data" / "cases" / "national_will_formalities.json"
COMPLETED_LIMIT_S = 600
FAILED_LIMIT_S = 180


def command(base_url: str, model: str, db: Path) -> list[str]:
    return [sys.executable, "-m", "debate_core", "--db", str(db), "run", str(CASE), "--protocol", "cross_critique",
            "--rounds", "2", "--provider", "openai", "--base-url", base_url, "--model", model, "--json"]


def one_run(base_url: str, model: str, limit_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "debates.db"
        started = time.perf_counter()
        try:
            proc = subprocess.run(command(base_url, model, db), cwd=benchlib.ROOT, capture_output=True, text=True,
                                  timeout=limit_s, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        except subprocess.TimeoutExpired:
            return {"status": "killed", "wall_s": round(time.perf_counter() - started, 1),
                    "reason": f"still running after {limit_s:.0f} s"}
        wall = time.perf_counter() - started
        try:
            out = json.loads(proc.stdout)
        except json.JSONDecodeError:
            return {"status": "crashed", "wall_s": round(wall, 1), "exit": proc.returncode,
                    "reason": proc.stderr.strip()[-500:]}
        store = DebateStore(db, readonly=True)
        try:
            steps = store.steps(out["debate_id"])
        finally:
            store.close()
    usage = out.get("usage") or {}
    return {
        "status": out["status"],
        "exit": proc.returncode,
        "wall_s": round(wall, 1),
        "failed_step": out.get("failed_step"),
        "reason": out.get("error"),
        "confidence": (out.get("verdict") or {}).get("confidence"),
        # A tiny model's verdict should go to a human: whether it did, and why.
        "flagged": (out.get("verdict") or {}).get("needs_human_review"),
        "reasons": ((out.get("verdict") or {}).get("escalation_reasons") or [])[:3],
        "structured_output": (out.get("provider") or {}).get("structured_output"),
        "steps_ok": sum(1 for s in steps if s["status"] == "ok"),
        "steps": len(steps),
        "calls": usage.get("calls"),
        "input_tokens": usage.get("input_tokens"),
        "output_tokens": usage.get("output_tokens"),
        "re_asks": sum(max(0, (s["attempts"] or 1) - 1) for s in steps),
        "reply_caps": sorted({s["reply_cap"] for s in steps if s.get("reply_cap")}),
        "step_errors": [f"{s['step_id']}: {e}" for s in steps for e in (s["errors"] or [])][:12],
        "progress": proc.stderr.strip().splitlines()[:3],
    }


def verdict(runs: list[dict[str, Any]]) -> dict[str, Any]:
    completed = [r for r in runs if r["status"] == "completed"]
    failed = [r for r in runs if r["status"] != "completed"]
    return {
        "runs": len(runs),
        "completed": len(completed),
        "completion_goal_met": len(completed) >= 4 * len(runs) / 5,
        "completed_under_10_min": all(r["wall_s"] < COMPLETED_LIMIT_S for r in completed),
        "failed_within_3_min": all(r["wall_s"] < FAILED_LIMIT_S for r in failed),
        "failures_name_step_and_cause": all(r.get("failed_step") and r.get("reason") for r in failed),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", default=os.environ.get("LOCAL_LLM_BASE_URL"), required=False)
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--limit", type=float, default=1200.0, help="seconds after which a run is killed")
    parser.add_argument("--out", help="append each run as a JSON line to this file as it ends")
    args = parser.parse_args()
    if not args.base_url:
        parser.error("--base-url (or LOCAL_LLM_BASE_URL) is required")
    runs = []
    for i in range(1, args.runs + 1):
        run = {"run": i, **one_run(args.base_url, args.model, args.limit)}
        runs.append(run)
        line = (f"run {i}: {run['status']} in {run['wall_s']:.0f} s; {run.get('calls')} calls, "
                f"{run.get('input_tokens')}+{run.get('output_tokens')} tokens, {run.get('re_asks')} re-asks")
        if run["status"] != "completed":
            line += f"; {run.get('failed_step')}: {run.get('reason')}"
        print(line, flush=True)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(run, ensure_ascii=False) + "\n")
    summary = verdict(runs)
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
