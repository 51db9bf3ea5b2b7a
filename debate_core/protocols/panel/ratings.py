"""A reviewer's rating out of 5 as reviews write it ("rated 1 of 5 stars", "2/5 stars", "5 out of 5"),
read by the offline readers and by the moderator's answer alike."""

from __future__ import annotations

import re

from ...core.text import NUMBER_WORDS

_WORDS = NUMBER_WORDS[:6]  # "zero" to "five", each at its value's index
# Not a count of items ("3 of 5 most ...", "2 of 5: the ..."), which the same words can start. In
# words ("Two out of five, and one of those is for Mrs Okafor") only where no noun follows: "two
# out of five pupils" counts pupils.
OWN_RATING = re.compile(r"(?<![\d.])(\d(?:\.\d+)?)\s*(?:/|of|out of)\s*5(?:\s*stars?)?\b(?!\s*[:,]?\s*(?:most|the))"
                        r"|\b(" + "|".join(_WORDS) + r")\s+(?:out of|of)\s+five\b(?=\s*(?:stars?\b|[.,;!)]|$))",
                        re.IGNORECASE)


def rating_value(m: re.Match[str]) -> float:
    """The rating an `OWN_RATING` match gives, written in figures or in words."""
    return float(m.group(1)) if m.group(1) else float(_WORDS.index(m.group(2).lower()))


def ratings_in(text: str | None) -> list[float]:
    """Every rating out of 5 the text gives."""
    return [rating_value(m) for m in OWN_RATING.finditer(text or "")]


def shown_rating(value: float) -> str:
    """A rating as reviews write it: "5 of 5", "3.5 of 5"."""
    return f"{value:g} of 5"
