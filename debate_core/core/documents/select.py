"""Which passages a case keeps when the documents give more than it holds: the most relevant to the
question, ranked with BM25 (core/text.py's `bm25_rank`, the same ranking the offline agents use),
kept in their documents' order so they read as they were written."""

from __future__ import annotations

from typing import Any

from ..text import bm25_rank
from .bounds import Budget, passage_size


def select(passages: list[dict[str, Any]], question: str, budget: Budget) -> tuple[list[dict[str, Any]], list[str]]:
    """(the passages kept, in their original order; the ids left out, in their original order).

    Passages are taken best first while the budget's count and bytes allow; a passage too large for
    the bytes left is passed over for smaller ones further down. Passages sharing no word with the
    question all score 0 and keep their document order, so without a useful question the first
    ones are kept."""
    total = sum(passage_size(p) for p in passages)
    if budget.fits(len(passages), total):
        return list(passages), []
    ranked = bm25_rank(question, {p["id"]: p["text"] for p in passages})
    by_id = {p["id"]: p for p in passages}
    chosen: set[str] = set()
    used = 0
    for entry in ranked:
        if len(chosen) >= budget.passages:
            break
        size = passage_size(by_id[entry.id])
        if used + size <= budget.size:
            chosen.add(entry.id)
            used += size
    kept = [p for p in passages if p["id"] in chosen]
    return kept, [p["id"] for p in passages if p["id"] not in chosen]
