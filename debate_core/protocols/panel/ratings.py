"""A reviewer's rating out of 5 as reviews write it ("rated 1 of 5 stars", "2/5 stars", "5 out of 5"),
read by the offline readers and by the moderator's answer alike."""

from __future__ import annotations

import re

# Not a count of items ("3 of 5 most ...", "2 of 5: the ..."), which the same words can start.
OWN_RATING = re.compile(r"(?<![\d.])(\d(?:\.\d+)?)\s*(?:/|of|out of)\s*5(?:\s*stars?)?\b(?!\s*[:,]?\s*(?:most|the))",
                        re.IGNORECASE)


def ratings_in(text: str | None) -> list[float]:
    """Every rating out of 5 the text gives."""
    return [float(m.group(1)) for m in OWN_RATING.finditer(text or "")]


def shown_rating(value: float) -> str:
    """A rating as reviews write it: "5 of 5", "3.5 of 5"."""
    return f"{value:g} of 5"
