"""What the text helpers cost on a realistic case: BM25 ranking of 500 passages, sentence splitting, stemming.

The offline agents rank a case's passages against a question or a claim (`bm25_rank`), split
evidence into sentences (`sentences`) and compare stemmed terms (`terms`). The passages here are
the sentences of the sample cases (data/cases/), repeated to 500, so the words are real case text.

    python bench/text_ranking.py            # 500 passages, 20 repeats
    python bench/text_ranking.py --quick    # 100 passages, 3 repeats
"""

from __future__ import annotations

import json
import time

import benchlib
from benchlib import Figure

from debate_core.core import text

# A ranking call runs several times per agent turn; above this the offline agents would be felt.
RANK_GOAL_MS = 50.0


def _case_texts() -> tuple[list[str], list[str]]:
    questions, evidence = [], []
    for path in sorted(benchlib.CASES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        questions.append(str(data.get("question") or ""))
        evidence += [str(e.get("text") or "") for e in data.get("evidence") or [] if isinstance(e, dict)]
    return [q for q in questions if q], [e for e in evidence if e]


def _uncached_split(evidence: list[str]) -> list[list[str]]:
    split = getattr(text, "_split", None)
    if hasattr(split, "cache_clear"):
        split.cache_clear()
    return [text.sentences(e) for e in evidence]


def _cold(fn) -> float:
    """Seconds for one run with the helpers' memo caches emptied (a process's first case)."""
    for helper in (text.stem, getattr(text, "_split", None)):
        if hasattr(helper, "cache_clear"):
            helper.cache_clear()
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> None:
    args = benchlib.parse_args(__doc__.splitlines()[0])
    cmd = benchlib.command("text_ranking.py", args)
    n, repeats = (100, 3) if args.quick else (500, 20)
    questions, evidence = _case_texts()
    pieces = [s for e in evidence for s in text.sentences(e)]
    passages = {f"p{i}": pieces[i % len(pieces)] + f" ({i})" for i in range(n)}
    query = max(questions, key=len)

    rank_s, ranked = benchlib.timed(lambda: text.bm25_rank(query, passages), repeats)
    split_s, split = benchlib.timed(lambda: _uncached_split(evidence), repeats)
    words = [t for e in evidence for t in text.content_tokens(e)]
    stem_s, _ = benchlib.timed(lambda: [text.stem(w) for w in words], repeats)
    cold_s = _cold(lambda: (text.bm25_rank(query, passages), [text.sentences(e) for e in evidence]))

    benchlib.print_table(["measure", "fastest ms"], [
        [f"bm25_rank: {n} passages, a {len(text.terms(query))}-term question", f"{rank_s * 1000:.2f}"],
        [f"sentences: {len(evidence)} evidence texts ({sum(map(len, split))} sentences)", f"{split_s * 1000:.2f}"],
        [f"stem: {len(words)} words", f"{stem_s * 1000:.2f}"],
        ["first ranking and split of a process (caches empty)", f"{cold_s * 1000:.2f}"],
    ])
    print("top 3:", [(r.id, r.score) for r in ranked[:3]])
    benchlib.report([
        Figure(f"rank {n} case passages against a question with BM25", f"{rank_s * 1000:.1f} ms",
               f"< {RANK_GOAL_MS:.0f} ms", rank_s * 1000 < RANK_GOAL_MS, cmd),
        Figure(f"split the {len(evidence)} sample evidence texts into sentences", f"{split_s * 1000:.1f} ms", "", None, cmd),
        Figure(f"stem {len(words)} words", f"{stem_s * 1000:.1f} ms", "", None, cmd),
        Figure("first ranking and split of a process (caches empty)", f"{cold_s * 1000:.1f} ms", "", None, cmd),
    ], args)


if __name__ == "__main__":
    main()
