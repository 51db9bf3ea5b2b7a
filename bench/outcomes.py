"""Outcomes of the offline agents on every case with `expected`: right, silent wrong, over-flagged.

Each case runs once, offline, under the protocol it was written for (its `protocol` field), and its
verdict is scored against `expected` (debate_core/evaluation/scoring.py):
- right: the answer has the label and every must-mention group (flagged or not);
- silent wrong: not sent to a human, yet wrong, or the case needed a human;
- over-flagged: right, on a case that needed no human, yet sent to one.

Goal: no silent wrong answer; at most one in six right answers over-flagged; and, so that flagging
everything does not meet it, at least a quarter of the cases that need no human answered right
without a flag. The holdout cases (data/eval/holdout/) are reported on their own line: they are kept
out of every test that tunes the offline agents, so they measure generalisation.

    python bench/outcomes.py [--json] [--cases DIR_OR_FILE ...] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import benchlib  # noqa: F401 - puts the repository on sys.path

from debate_core.evaluation.harness import case_files, case_protocol, labelled_cases, score_result
from debate_core.jobs.debates import run_debate
from debate_core.protocols import PROTOCOLS, get_spec
from debate_core.providers import make_provider
from debate_core.store import DebateStore

ROOT = Path(__file__).resolve().parent.parent
# data/eval/samples/ links the sample cases, so data/eval alone is the whole labelled set.
DEFAULT_SOURCES = [ROOT / "data" / "eval"]


def run_all(files: list[Path], db: Path) -> list[dict]:
    rows = []
    store = DebateStore(db)
    for path, case in labelled_cases(files):
        protocol = case_protocol(case)
        if protocol not in PROTOCOLS:
            continue
        spec = get_spec(protocol)
        if not spec.fits(case):
            rows.append({"case": case.id, "protocol": protocol, "error": "the case does not fit its protocol"})
            continue
        result = run_debate(case, protocol, provider=make_provider("offline"), store=store)
        scored = score_result(result, case.expected)
        if scored["status"] != "completed":
            rows.append({"case": case.id, "protocol": protocol, "error": scored["error"]})
            continue
        rows.append({
            "case": case.id, "protocol": protocol, "holdout": "holdout" in path.parts,
            **{k: scored[k] for k in ("answer", "confidence", "reasons", "right", "flagged", "needs_human",
                                      "silent_wrong", "over_flagged", "label_ok", "missing")},
        })
    store.close()
    return rows


def summarise(rows: list[dict]) -> dict[str, dict]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[r["protocol"]].append(r)
        groups["all"].append(r)
        if r.get("holdout"):
            groups["holdout"].append(r)
    out = {}
    for name, items in groups.items():
        scored = [r for r in items if "error" not in r]
        right = [r for r in scored if r["right"]]
        no_human = [r for r in scored if r["needs_human"] is False]
        out[name] = {
            "cases": len(items),
            "errors": len(items) - len(scored),
            "right": len(right),
            "right_flagged": sum(r["flagged"] for r in right),
            "silent_wrong": sum(r["silent_wrong"] for r in scored),
            "over_flagged": sum(r["over_flagged"] for r in scored),
            "no_human_cases": len(no_human),
            "no_human_right_unflagged": sum(r["right"] and not r["flagged"] for r in no_human),
            "flagged_wrong": sum(r["flagged"] and not r["right"] for r in scored),
        }
    return out


def goal(summary: dict) -> tuple[bool, list[str]]:
    s = summary.get("all", {})
    checks = [
        (s.get("errors", 0) == 0, f"every case ran ({s.get('errors', 0)} errors)"),
        (s.get("silent_wrong", 1) == 0, f"no silent wrong answer ({s.get('silent_wrong')})"),
        (s.get("over_flagged", 0) * 6 <= max(s.get("right", 0), 0),
         f"over-flagged at most one in six right answers ({s.get('over_flagged')} of {s.get('right')})"),
        (s.get("no_human_right_unflagged", 0) * 4 >= s.get("no_human_cases", 0),
         f"at least a quarter of the no-human cases right without a flag "
         f"({s.get('no_human_right_unflagged')} of {s.get('no_human_cases')})"),
    ]
    return all(ok for ok, _ in checks), [("met: " if ok else "MISSED: ") + text for ok, text in checks]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", nargs="*", type=Path, help="case files or directories (default: data/eval, which links the samples)")
    ap.add_argument("--json", action="store_true", help="print the rows and the summary as JSON")
    ap.add_argument("--verbose", action="store_true", help="one line per case on stderr")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        rows = run_all(case_files(args.cases or DEFAULT_SOURCES), Path(tmp) / "outcomes.db")
    summary = summarise(rows)
    met, lines = goal(summary)
    if args.verbose or not args.json:
        for r in rows:
            if "error" in r:
                print(f"  {r['protocol']:<14} {r['case']:<48} ERROR {r['error']}", file=sys.stderr)
                continue
            kind = ("SILENT WRONG" if r["silent_wrong"] else "over-flagged" if r["over_flagged"]
                    else "right" if r["right"] else "wrong, flagged")
            extra = f" (missing: {'; '.join(r['missing'])})" if r["missing"] else ""
            print(f"  {r['protocol']:<14} {r['case']:<48} {kind:<14} flagged={r['flagged']!s:<5} "
                  f"needs_human={r['needs_human']}{extra}", file=sys.stderr)
    if args.json:
        print(json.dumps({"rows": rows, "summary": summary, "goal_met": met, "checks": lines}, ensure_ascii=False))
        return 0
    print("| group | cases | right (flagged) | silent wrong | over-flagged | no-human cases right, unflagged |")
    print("|---|---|---|---|---|---|")
    for name in [*PROTOCOLS, "holdout", "all"]:
        if name in summary:
            s = summary[name]
            print(f"| {name} | {s['cases']} | {s['right']} ({s['right_flagged']}) | {s['silent_wrong']} | "
                  f"{s['over_flagged']} | {s['no_human_right_unflagged']} of {s['no_human_cases']} |")
    print()
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
