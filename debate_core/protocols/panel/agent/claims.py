"""What the others said: the positions a turn asserts, and the turns a speaker answers."""

from __future__ import annotations

import re
from typing import Any

from ..rules import TermIndex
from .reading import clause_polarity, clauses

_EXPLICIT = re.compile(r"(?:→|->|=|:)\s*(긍정|부정|중립|혼합|positive|negative|neutral|mixed)\b", re.IGNORECASE)
# A label named in the clause itself ("I read the price as neutral", "가격은 중립"): the panel's own words.
_NAMED = re.compile(r"(긍정|부정|중립|혼합)|\b(positive|negative|neutral|mixed)\b", re.IGNORECASE)
_WORD_LABEL = {"긍정": "positive", "부정": "negative", "중립": "neutral", "혼합": "mixed"}
# A point that says the aspect was not read claims nothing about it (its "no" is not a judgement).
_UNREAD = re.compile(r"->\s*not read|→\s*판단 보류|could not assess|평가하지 못한", re.IGNORECASE)


def claims_of(turn: dict[str, Any], index: TermIndex) -> dict[str, str]:
    """Aspect -> polarity a turn asserts: an explicit "aspect: label" in a key point, else the one label
    a clause names, else the lexicon polarity of its key points, then of its message clauses."""
    out: dict[str, str] = {}
    points = [str(k) for k in turn.get("key_points") or []]
    texts = [(t, True) for t in points] + [(t, False) for t in clauses(str(turn.get("message") or ""))]
    for text, is_point in texts:
        found = index.find(text)
        if not found or _UNREAD.search(text):
            continue
        explicit = _EXPLICIT.findall(text) if is_point else []
        named = {_WORD_LABEL.get(w.lower(), w.lower()) for m in _NAMED.findall(text) for w in m if w}
        if explicit:
            word = explicit[-1].lower()
            pol = _WORD_LABEL.get(word, word)
        elif len(named) == 1:
            pol = named.pop()
        else:
            pol, cues = clause_polarity(text)
            if not cues:
                continue
        if pol == "mixed":
            continue
        for aspect in found:
            out.setdefault(aspect, pol)
    return out


def _last_turns(history: list[dict[str, Any]], me: str) -> list[dict[str, Any]]:
    """The most recent turn of every other speaker, newest first."""
    seen: set[str] = set()
    out = []
    for turn in reversed(history):
        sp = str(turn.get("speaker"))
        if sp != me and sp not in seen:
            seen.add(sp)
            out.append(turn)
    return out


class QuotedSoFar:
    """What the panel has quoted so far, as one text: a quote is "already used" when any earlier
    message contains it. A speaker brings new evidence or says it has none."""

    def __init__(self, history: list[dict[str, Any]]) -> None:
        self._blob = "\n".join(str(t.get("message") or "") for t in history)

    def __contains__(self, quote: object) -> bool:
        return bool(quote) and str(quote) in self._blob

    def add(self, quote: str) -> None:
        self._blob += "\n" + quote
