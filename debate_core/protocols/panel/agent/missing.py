"""What a text under review leaves out: the rest of a sentence it stops in the middle of, or an
earlier text of its author's that it rests its judgement on. Either way its sentiment is not all in
the words the panel can read."""

from __future__ import annotations

import re

from ....core.text import STOPWORDS

_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def cut_off(text: str) -> str | None:
    """The reason a text under review reads as cut off: it stops without a sentence end on a word that
    cannot end one ("... when we got to reception the"), so what it was going to say is unknown."""
    words = re.findall(r"[A-Za-z']+", text or "")
    stripped = (text or "").rstrip()
    if not words or stripped.endswith((".", "!", "?", ")", '"', "'", "\u201d", "\u2026")) or _HANGUL.search(stripped):
        return None
    if words[-1].lower() not in STOPWORDS:
        return None
    tail = " ".join(stripped.split()[-6:])
    return (f"what the text goes on to say: it is cut off mid-sentence (\"\u2026{tail}\"), so the "
            "sentiment of what follows is unknown")


# "Everything I said in my first review still stands", "as I said in my last review": the judgement
# is in another text of the author's.
_ELSEWHERE = re.compile(
    r"[^.!?]*\b(?:(?:my|the|her|his|their)\s+(?:first|earlier|previous|original|last|other|old)\s+(?:review|post|"
    r"comment)|(?:as|what|everything|all)\s+(?:i|we)\s+(?:said|wrote|mentioned)\s+(?:before|earlier|last time|"
    r"previously)"
    # "Anyone who read what I put on here after the first one knows exactly how I feel": the same, said
    # through the reader of the earlier text.
    r"|(?:what|everything)\s+(?:i|we)\s+(?:said|wrote|put|posted)\b[^.!?]{0,40}?\b(?:first|earlier|previous|last)\b"
    r"|knows?\s+(?:exactly\s+|just\s+)?how\s+(?:i|we)\s+(?:feel|felt))\b[^.!?]*[.!?]?", re.I)


def refers_elsewhere(text: str) -> str | None:
    """Rule: a text that rests its judgement on an earlier one of its author's ("Everything I said in
    my first review still stands") carries a sentiment the panel cannot read; what that text said
    is for a person to find."""
    m = _ELSEWHERE.search(text or "")
    if not m:
        return None
    said = " ".join(m.group(0).split())
    return f"the sentiment it takes from an earlier review, not under review and so unknown (\"{said[:60]}…\")"
