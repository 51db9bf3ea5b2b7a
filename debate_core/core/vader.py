"""One VADER analyzer for the whole engine: the panel's clause reader and its counterweight rule both
read with it, and loading VADER's lexicon file once is enough."""

from __future__ import annotations

from functools import lru_cache

from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer


@lru_cache(maxsize=1)
def analyzer() -> SentimentIntensityAnalyzer:
    """VADER's analyzer over its own lexicon, built once."""
    return SentimentIntensityAnalyzer()
