"""Claims checked against the web article each cites: the offline cross critique on WiCE.

The data are WiCE (Kamoi, Goyal, Rodriguez and Durrett, "WiCE: Real-World Entailment for Claims in
Wikipedia", EMNLP 2023; annotations ODC-BY, texts from Wikipedia and Common Crawl): per claim, a
sentence from a Wikipedia article, the sentences of the web page it cites, and the label people gave
after reading the page: supported, partially supported or not supported. The claim-level files
(`data/entailment_retrieval/claim/{dev,test}.jsonl` of the WiCE repository) are downloaded on first
use into a cache directory outside the repository (default ~/.cache/debate-workbench/wice/,
`--cache-dir` to change), or read from a copy given with `--data FILE`.

Each claim becomes a cross-critique case with the default agents (a proponent and a skeptic): the
question quotes the claim and offers the three labels; the evidence is the cited page, cut into
passages of a few sentences in page order. It runs offline through `run_debate`, the entry the CLI's
`run` uses. The answer's label is the option it names first (debate_core/core/options.py); an answer
that names none is wrong. Flagged is `needs_human_review`; silent wrong is wrong and not flagged.

Goal (from the issue on verdicts that answer): every answer names a label, and at least half are
right. The table also gives the label every claim would get from always answering the commonest
gold label of the sample, since "partially supported" alone is right on about half of WiCE.

    python bench/claims.py [--split dev|test] [--n 30] [--seed 1] [--data FILE] [--json] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import benchlib  # noqa: F401 - puts the repository on sys.path
from sentiment import answer_label

from debate_core.core.schemas import Case
from debate_core.core.settings import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.protocols import get_spec
from debate_core.providers import make_provider

URL = "https://raw.githubusercontent.com/ryokamoi/wice/main/data/entailment_retrieval/claim/{split}.jsonl"
DEFAULT_CACHE = Path.home() / ".cache" / "debate-workbench" / "wice"
LABELS = ("supported", "partially supported", "not supported")
GOLD = {"supported": "supported", "partially_supported": "partially supported", "not_supported": "not supported"}
PASSAGE_CHARS = 700  # a passage is the page's sentences, in order, up to about this many characters
MAX_PASSAGES = 40  # pages longer than this many passages are cut (a few are whole books)
META_TITLE = "(meta data) TITLE:"
PROGRESS_EVERY = 5


class DataError(Exception):
    """The claims could not be fetched or read (one line, for the user)."""


@dataclass(frozen=True)
class Claim:
    id: str
    claim: str
    gold: str
    page: list[str]
    title: str


def fetch(split: str, cache_dir: Path) -> Path:
    path = cache_dir / f"{split}.jsonl"
    if path.is_file():
        return path
    cache_dir.mkdir(parents=True, exist_ok=True)
    url = URL.format(split=split)
    try:
        with urllib.request.urlopen(url, timeout=60) as resp:  # noqa: S310 - a fixed https address
            data = resp.read()
    except (urllib.error.URLError, OSError) as exc:
        raise DataError(f"could not download {url}: {exc}; give a copy with --data FILE") from exc
    tmp = path.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


def load(path: Path) -> list[Claim]:
    """One JSON object per line (label, claim, evidence sentences, meta.id); lines that do not
    parse or carry an unknown label are skipped."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
            gold = GOLD[row["label"]]
            sentences = [s.strip() for s in row["evidence"] if isinstance(s, str) and s.strip()]
            claim = row["claim"].strip()
            cid = str(row.get("meta", {}).get("id") or len(out))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        title = next((s[len(META_TITLE):].strip() for s in sentences if s.startswith(META_TITLE)), "")
        page = [s for s in sentences if not s.startswith("(meta data)")]
        if claim and page:
            out.append(Claim(cid, claim, gold, page, title))
    return out


def sample(claims: list[Claim], n: int, seed: int) -> list[Claim]:
    """`n` claims drawn with `seed` (all when n covers the file), in file order. Not stratified:
    the labels keep the shares people gave them."""
    if n >= len(claims):
        return list(claims)
    chosen = random.Random(seed).sample(range(len(claims)), n)
    return [claims[i] for i in sorted(chosen)]


def passages(page: list[str]) -> list[str]:
    out, current = [], ""
    for sentence in page:
        if current and len(current) + 1 + len(sentence) > PASSAGE_CHARS:
            out.append(current)
            current = ""
        current = f"{current} {sentence}".strip()
    if current:
        out.append(current)
    return out[:MAX_PASSAGES]


def question_for(claim: str) -> str:
    quoted = claim.replace('"', "'")
    return (f'Claim: "{quoted}" Is this claim supported, partially supported or not supported by the '
            "web page it cites?")


def make_case(claim: Claim) -> Case:
    source = f"Cited web page: {claim.title}" if claim.title else "Cited web page"
    return Case(
        id=f"wice_{claim.id}",
        title=f"WiCE claim {claim.id}",
        question=question_for(claim.claim),
        domain_hint="checking a Wikipedia sentence against the web page it cites",
        evidence=[{"id": f"P{i}", "source": f"{source}, part {i}", "text": text}
                  for i, text in enumerate(passages(claim.page), start=1)],
    )


def run_claim(claim: Claim) -> dict:
    case = make_case(claim)
    settings = DebateSettings()
    get_spec("cross_critique").check_case(case, settings)
    result = run_debate(case, "cross_critique", provider=make_provider("offline"), settings=settings)
    row = {"id": claim.id, "gold": claim.gold, "claim": claim.claim, "passages": len(case.evidence)}
    if result.status != "completed" or result.verdict is None:
        return {**row, "label": None, "flagged": False, "error": result.error or result.status, "answer": None}
    v = result.verdict
    return {**row, "label": answer_label(case.question, v.answer), "flagged": bool(v.needs_human_review),
            "error": None, "answer": v.answer, "confidence": v.confidence}


def summarise(rows: list[dict]) -> dict:
    right = [r["label"] == r["gold"] for r in rows]
    flagged = [r["flagged"] for r in rows]
    commonest, n_common = Counter(r["gold"] for r in rows).most_common(1)[0] if rows else (None, 0)
    return {
        "claims": len(rows),
        "right": sum(right),
        "flagged": sum(flagged),
        "silent_wrong": sum(not ok and not f for ok, f in zip(right, flagged, strict=True)),
        "right_flagged": sum(ok and f for ok, f in zip(right, flagged, strict=True)),
        "names_none": sum(r["label"] is None and not r["error"] for r in rows),
        "errors": sum(bool(r["error"]) for r in rows),
        "commonest_gold": commonest,
        "commonest_right": n_common,
        "answered": {label: sum(r["label"] == label for r in rows) for label in LABELS},
        "right_by_gold": {g: sum(ok for r, ok in zip(rows, right, strict=True) if r["gold"] == g) for g in LABELS},
    }


def goal(s: dict) -> tuple[bool, list[str]]:
    checks = [
        (s["names_none"] == 0 and s["errors"] == 0,
         f"every answer names a label ({s['names_none']} name none"
         + (f", {s['errors']} failed debates" if s["errors"] else "") + ")"),
        (2 * s["right"] >= s["claims"], f"at least half right ({s['right']} of {s['claims']})"),
    ]
    return all(ok for ok, _ in checks), [("met: " if ok else "MISSED: ") + text for ok, text in checks]


def table(s: dict, gold_counts: dict) -> list[str]:
    head = ("| claims | right | flagged | silent wrong | right and flagged | names no label | "
            "answered (sup / part / not) | right per gold label (sup / part / not) | commonest label alone |")
    by = " / ".join(f"{s['right_by_gold'][g]} of {gold_counts.get(g, 0)}" for g in LABELS)
    answered = " / ".join(str(s["answered"][g]) for g in LABELS)
    err = f" ({s['errors']} failed)" if s["errors"] else ""
    return [head, "|---" * (head.count("|") - 1) + "|",
            f"| {s['claims']}{err} | {s['right']} | {s['flagged']} | {s['silent_wrong']} | {s['right_flagged']} | "
            f"{s['names_none']} | {answered} | {by} | {s['commonest_right']} ({s['commonest_gold']}) |"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "test"), default="test", help="WiCE split (default test)")
    ap.add_argument("--n", type=int, default=30, help="claims in the sample (default 30)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the sample (default 1)")
    ap.add_argument("--data", type=Path, help="a local copy of the split's claim-level .jsonl file")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help=f"download cache (default {DEFAULT_CACHE})")
    ap.add_argument("--json", action="store_true", help="print the figures and the rows as JSON")
    ap.add_argument("--verbose", action="store_true", help="one line per claim on stderr")
    args = ap.parse_args(argv)
    if args.n < 1:
        ap.error("--n must be at least 1")
    started = time.perf_counter()
    try:
        path = args.data or fetch(args.split, args.cache_dir.expanduser())
        claims = load(path)
    except (DataError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not claims:
        print(f"error: no claims could be read from {path}", file=sys.stderr)
        return 2
    chosen = sample(claims, args.n, args.seed)
    rows = []
    for i, claim in enumerate(chosen, 1):
        rows.append(run_claim(claim))
        if args.verbose:
            r = rows[-1]
            print(f"{r['id']} gold={r['gold']} label={r['label']} flagged={r['flagged']} | {r['claim'][:90]}",
                  file=sys.stderr, flush=True)
        elif i % PROGRESS_EVERY == 0 or i == len(chosen):
            print(f"{i}/{len(chosen)} claims", file=sys.stderr, flush=True)
    wall = time.perf_counter() - started
    gold_counts = dict(Counter(c.gold for c in chosen))
    summary = summarise(rows)
    met, lines = goal(summary)
    if args.json:
        print(json.dumps({"split": args.split, "file_claims": len(claims), "n": len(chosen), "seed": args.seed,
                          "gold_counts": gold_counts, "summary": summary, "goal_met": met, "goal": lines,
                          "wall_seconds": round(wall, 1), "rows": rows}, ensure_ascii=False))
        return 0
    print(f"WiCE {args.split}: {len(chosen)} of {len(claims)} claims (seed {args.seed}); gold "
          + ", ".join(f"{g} {gold_counts.get(g, 0)}" for g in LABELS))
    print("\n".join(table(summary, gold_counts)))
    print("\n".join(lines))
    print(f"Wall time {wall:.1f} s for {len(chosen)} claims ({time.strftime('%Y-%m-%d')}).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
