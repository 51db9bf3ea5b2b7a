"""General word lists from data/lexicons/ (sources and licences in its README): stop words, negation,
contrast and sentiment valence. Loaded once; nothing here is written for a particular case."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

LEXICON_DIR = Path(__file__).resolve().parents[2] / "data" / "lexicons"


def _words(name: str) -> frozenset[str]:
    words: set[str] = set()
    for line in (LEXICON_DIR / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        if " " in line.strip() and name.startswith("contrast"):
            words.add(line.strip().lower())  # a phrase such as "even though"
            continue
        words.update(w.lower() for w in line.split())
    return frozenset(words)


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    return _words("stopwords_en.txt") | _words("stopwords_id.txt")


@lru_cache(maxsize=1)
def negations() -> frozenset[str]:
    return _words("negation_vader.txt") | _words("negation_extra.txt")


@lru_cache(maxsize=1)
def contrasts() -> frozenset[str]:
    return _words("contrast_en.txt")


@lru_cache(maxsize=1)
def valence() -> dict[str, float]:
    """Word -> mean sentiment valence (-4 .. +4) from VADER's lexicon."""
    out: dict[str, float] = {}
    for line in (LEXICON_DIR / "sentiment_vader.tsv").read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) >= 2:
            try:
                out[parts[0].lower()] = float(parts[1])
            except ValueError:
                continue
    return out
