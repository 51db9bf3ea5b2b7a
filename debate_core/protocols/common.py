"""Rules every protocol's moderator applies: a verdict goes to a human when the agents who decide it
are not confident enough, or when they said what they could not assess.

The reason is written for the reviewer, in plain words, for example "the agents could not assess:
which passage supports the tenant".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..core.text import first_sentence
from ..engine.spec import LOW_CONFIDENCE

UNASSESSED_PREFIX = "could not assess:"
_CITATION = re.compile(r"\s*\[[\w.:>-]+\]")


def low_confidence_reason(confidences: Mapping[str, float], threshold: float = LOW_CONFIDENCE) -> str | None:
    """Rule: "a verdict whose deciding agents are not confident goes to a human". Returns the reason
    naming each agent below the threshold, or None."""
    low = {who: c for who, c in confidences.items() if c is not None and c < threshold}
    if not low:
        return None
    named = ", ".join(f"{who} {c:.0%}" for who, c in sorted(low.items()))
    return f"the deciding agents are not confident enough (below {threshold:.0%}): {named}"


def unassessed(uncertainties: Iterable[str]) -> list[str]:
    """What the agents said they could not assess, without repeats, in the order they said it."""
    out: list[str] = []
    for u in uncertainties:
        text = str(u).strip()
        if text.lower().startswith(UNASSESSED_PREFIX):
            item = text[len(UNASSESSED_PREFIX):].strip().rstrip(".")
            if item and item not in out:
                out.append(item)
    return out


def unassessed_reason(uncertainties: Iterable[str], who: str = "the agents") -> str | None:
    """Rule: "a verdict its agents could not fully assess goes to a human". Returns the reason, or None."""
    items = unassessed(uncertainties)
    if not items:
        return None
    return f"{who} could not assess: " + "; ".join(items)


def short_answer(answer: str) -> str:
    """Rule: "the verdict opens with one sentence that answers the question". The answer's first
    sentence, cut at its end (or, when it runs on, at a word boundary, never inside a word).
    Bracketed citations such as "[nla.C1]" are dropped first: they sit after a sentence's full stop
    and would glue it to the next one."""
    return first_sentence(_CITATION.sub("", answer or ""))
