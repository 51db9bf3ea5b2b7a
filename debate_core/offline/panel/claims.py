"""What the others said: the positions a turn asserts, and the turns a speaker answers."""

from __future__ import annotations

import re
from typing import Any

from ...moderator.panel import TermIndex
from .reading import _EN_HEDGE_RE, _KO_HEDGE, clause_polarity, clauses

_EXPLICIT = re.compile(r"(?:→|->|=|:)\s*(긍정|부정|중립|혼합|positive|negative|neutral|mixed)\b", re.IGNORECASE)
_WORD_LABEL = {"긍정": "positive", "부정": "negative", "중립": "neutral", "혼합": "mixed"}


def claims_of(turn: dict[str, Any], index: TermIndex) -> dict[str, str]:
    """Aspect -> polarity a turn asserts: an explicit "aspect: label" in a key point, else the cue words
    of its key points, else of its message clauses."""
    out: dict[str, str] = {}
    points = [str(k) for k in turn.get("key_points") or []]
    texts = [(t, True) for t in points] + [(t, False) for t in clauses(str(turn.get("message") or ""))]
    for text, is_point in texts:
        found = index.find(text)
        if not found:
            continue
        explicit = _EXPLICIT.findall(text) if is_point else []
        if explicit:
            word = explicit[-1].lower()
            pol = _WORD_LABEL.get(word, word)
        else:
            pol, cues = clause_polarity(text)
            if not cues and pol == "neutral" and not (any(h in text for h in _KO_HEDGE) or _EN_HEDGE_RE.search(text)):
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


def _own_quotes(history: list[dict[str, Any]], me: str) -> set[str]:
    quoted: set[str] = set()
    for turn in history:
        if turn.get("speaker") == me:
            for m in re.findall(r"['\"]([^'\"]+)['\"]", str(turn.get("message") or "")):
                quoted.add(m)
    return quoted
