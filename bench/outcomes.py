"""Outcomes of the offline agents on every case with `expected`: right, silent wrong, over-flagged.

Each case runs once, offline, under the protocol it was written for (its `protocol` field), and its
verdict is scored against `expected` (debate_core/evaluation/scoring.py):
- right: the answer has the label and every must-mention group (flagged or not);
- flagged: sent to a human (right or not);
- silent wrong: not sent to a human, yet wrong, or the case needed a human;
- over-flagged: right, on a case that needed no human, yet sent to one;
- names none: the question offers options ("positive, negative, neutral or mixed", "yes or no";
  debate_core/core/options.py) and the answer names none of them; and how many of those were flagged.

Figures are given per split (dev, holdout, samples: the folder under data/eval/ the case file is
in; a case elsewhere counts as "other") and per protocol, and over everything.

Goal: no silent wrong answer; at most one in six right answers over-flagged; and, so that flagging
everything does not meet it, at least a quarter of the cases that need no human answered right
without a flag; and every answer that names none of the options its question offers flagged. The
goal is checked over every case, and each split's misses are listed too. The holdout cases
(data/eval/holdout/) have their own rows: they are kept out of every test that tunes the offline
agents, so they measure generalisation.

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

from debate_core.core.options import named_options, offered_options
from debate_core.evaluation.harness import case_files, case_protocol, labelled_cases, score_result
from debate_core.jobs.debates import run_debate
from debate_core.protocols import PROTOCOLS, get_spec
from debate_core.providers import make_provider
from debate_core.store import DebateStore

ROOT = Path(__file__).resolve().parent.parent
# data/eval/samples/ links the sample cases, so data/eval alone is the whole labelled set.
DEFAULT_SOURCES = [ROOT / "data" / "eval"]
SPLITS = ("dev", "holdout", "samples")
ALL = "all"


def case_split(path: Path) -> str:
    """dev, holdout or samples by the nearest such folder in the path (a sample case named
    directly from data/cases/ counts as samples); "other" for a case file anywhere else."""
    for part in reversed(path.parts[:-1]):
        if part in SPLITS:
            return part
    return "samples" if path.parent.name == "cases" else "other"


def option_fields(question: str, answer: str | None) -> dict:
    """The options the question offers, the ones the answer names, and whether it names none."""
    options = offered_options(question)
    named = named_options(answer or "", options) if options else []
    return {"options": options, "named_options": named, "names_none": bool(options) and not named}


def run_all(files: list[Path], db: Path) -> list[dict]:
    rows = []
    store = DebateStore(db)
    for path, case in labelled_cases(files):
        protocol = case_protocol(case)
        if protocol not in PROTOCOLS:
            continue
        spec = get_spec(protocol)
        if not spec.fits(case):
            rows.append({"case": case.id, "protocol": protocol, "split": case_split(path),
                         "error": "the case does not fit its protocol"})
            continue
        result = run_debate(case, protocol, provider=make_provider("offline"), store=store)
        scored = score_result(result, case.expected)
        if scored["status"] != "completed":
            rows.append({"case": case.id, "protocol": protocol, "split": case_split(path), "error": scored["error"]})
            continue
        split = case_split(path)
        rows.append({
            "case": case.id, "protocol": protocol, "split": split, "holdout": split == "holdout",
            **{k: scored[k] for k in ("answer", "confidence", "reasons", "right", "flagged", "needs_human",
                                      "silent_wrong", "over_flagged", "label_ok", "missing")},
            **option_fields(case.question, scored["answer"]),
        })
    store.close()
    return rows


def figures(items: list[dict]) -> dict:
    """The counts for one group of rows."""
    scored = [r for r in items if "error" not in r]
    right = [r for r in scored if r["right"]]
    no_human = [r for r in scored if r["needs_human"] is False]
    names_none = [r for r in scored if r.get("names_none")]
    return {
        "cases": len(items),
        "errors": len(items) - len(scored),
        "right": len(right),
        "right_flagged": sum(r["flagged"] for r in right),
        "flagged": sum(r["flagged"] for r in scored),
        "silent_wrong": sum(r["silent_wrong"] for r in scored),
        "over_flagged": sum(r["over_flagged"] for r in scored),
        "no_human_cases": len(no_human),
        "no_human_right_unflagged": sum(r["right"] and not r["flagged"] for r in no_human),
        "flagged_wrong": sum(r["flagged"] and not r["right"] for r in scored),
        "offers_options": sum(bool(r.get("options")) for r in scored),
        "names_none": len(names_none),
        "names_none_flagged": sum(r["flagged"] for r in names_none),
    }


def group_key(split: str, protocol: str) -> str:
    """The summary key of a group: "all" over everything, a protocol's or a split's name over all of
    it, "split/protocol" for both."""
    if split == ALL:
        return protocol
    return split if protocol == ALL else f"{split}/{protocol}"


def summarise(rows: list[dict]) -> dict[str, dict]:
    """Figures per split and protocol, per split, per protocol and overall (keys: see group_key).
    The keys of earlier versions ("all", each protocol, "holdout") keep their meaning."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        split = r.get("split", "other")
        for s in (split, ALL):
            for p in (r["protocol"], ALL):
                groups[group_key(s, p)].append(r)
    return {name: figures(items) for name, items in groups.items()}


def goal(summary: dict, key: str = ALL) -> tuple[bool, list[str]]:
    s = summary.get(key, {})
    checks = [
        (s.get("errors", 0) == 0, f"every case ran ({s.get('errors', 0)} errors)"),
        (s.get("silent_wrong", 1) == 0, f"no silent wrong answer ({s.get('silent_wrong')})"),
        (s.get("over_flagged", 0) * 6 <= max(s.get("right", 0), 0),
         f"over-flagged at most one in six right answers ({s.get('over_flagged')} of {s.get('right')})"),
        (s.get("no_human_right_unflagged", 0) * 4 >= s.get("no_human_cases", 0),
         f"at least a quarter of the no-human cases right without a flag "
         f"({s.get('no_human_right_unflagged')} of {s.get('no_human_cases')})"),
        (s.get("names_none", 0) == s.get("names_none_flagged", 0),
         f"every answer that names none of the question's options is flagged "
         f"({s.get('names_none_flagged')} of {s.get('names_none')})"),
    ]
    return all(ok for ok, _ in checks), [("met: " if ok else "MISSED: ") + text for ok, text in checks]


TABLE_HEAD = ("| split | protocol | cases | right | flagged | silent wrong | over-flagged | "
              "no-human right unflagged | offer options | names none (flagged) |")


def table(summary: dict) -> list[str]:
    """The compact table: per split its protocols and its total, then the protocols and the total
    over every split."""
    lines = [TABLE_HEAD, "|---" * (TABLE_HEAD.count("|") - 1) + "|"]
    splits = [s for s in (*SPLITS, "other") if s in summary]
    if len(splits) > 1:
        splits.append(ALL)  # with one split, its rows are the totals already
    for split in splits:
        for protocol in [*PROTOCOLS, ALL]:
            key = group_key(split, protocol)
            if key not in summary:
                continue
            s = summary[key]
            err = f" ({s['errors']} errors)" if s["errors"] else ""
            name = f"**{protocol}**" if protocol == ALL else protocol
            lines.append(
                f"| {split} | {name} | {s['cases']}{err} | {s['right']} | {s['flagged']} | {s['silent_wrong']} | "
                f"{s['over_flagged']} | {s['no_human_right_unflagged']} of {s['no_human_cases']} | "
                f"{s['offers_options']} | {s['names_none']} ({s['names_none_flagged']}) |")
    return lines


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
                print(f"  {r['split']:<8} {r['protocol']:<14} {r['case']:<48} ERROR {r['error']}", file=sys.stderr)
                continue
            kind = ("SILENT WRONG" if r["silent_wrong"] else "over-flagged" if r["over_flagged"]
                    else "right" if r["right"] else "wrong, flagged")
            extra = f" (missing: {'; '.join(r['missing'])})" if r["missing"] else ""
            if r["names_none"]:
                extra += f" (names none of: {', '.join(r['options'])})"
            print(f"  {r['split']:<8} {r['protocol']:<14} {r['case']:<48} {kind:<14} flagged={r['flagged']!s:<5} "
                  f"needs_human={r['needs_human']}{extra}", file=sys.stderr)
    if args.json:
        print(json.dumps({"rows": rows, "summary": summary, "goal_met": met, "checks": lines,
                          "checks_by_split": {s: goal(summary, s)[1] for s in SPLITS if s in summary}},
                         ensure_ascii=False))
        return 0
    print("\n".join(table(summary)))
    print()
    print("Goals over every case:")
    for line in lines:
        print("  " + line)
    for split in SPLITS:
        if split in summary:
            split_met, _ = goal(summary, split)
            missed = [text for text in goal(summary, split)[1] if text.startswith("MISSED")]
            print(f"  {split}: " + ("all goals met" if split_met else "; ".join(missed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
