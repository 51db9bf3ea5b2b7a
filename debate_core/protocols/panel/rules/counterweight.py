"""What in a text sounds the other way to the panel's label: shown with the answer, so that a reviewer
weighs it against the label instead of finding it later ("I cried all the way home" in a review the
panel calls positive, "Five stars for creativity" in one it calls negative)."""

from __future__ import annotations

from ....core.text import sentences
from ....core.vader import analyzer

# VADER's compound score from which a sentence sounds clearly one way (VADER's own threshold for a
# positive or negative sentence is 0.05; this asks for a plain tone, not a trace of one).
OTHER_WAY = 0.4
# At most this many sentences, the clearest first, each clipped to this many characters.
SHOWN = 3
CLIP = 120


def clip_sentence(sentence: str) -> str:
    """A sentence as the answer quotes it: on one line, without its full stop, clipped to CLIP."""
    said = " ".join(sentence.split()).rstrip(".")  # the answer's own sentence closes the quote
    return said if len(said) <= CLIP else said[:CLIP].rsplit(" ", 1)[0] + "…"


def other_way_sentences(text: str | None, label: str | None) -> list[str]:
    """Rule: for a positive or a negative label, the sentences of the text whose own words (VADER's
    lexicon, read sentence by sentence) sound clearly the other way, clearest first, as the text words
    them, clipped; none for a mixed or a neutral label, which already says the text goes both ways."""
    sign = {"positive": -1.0, "negative": 1.0}.get(str(label or "").lower())
    if sign is None:
        return []
    scored = [(sign * analyzer().polarity_scores(s)["compound"], s) for s in sentences(text or "")]
    clear = sorted((score, i, s) for i, (score, s) in enumerate(scored) if score >= OTHER_WAY)[::-1]
    return [clip_sentence(s) for _, _, s in clear[:SHOWN]]


def other_way_note(text: str | None, label: str | None) -> str:
    """The answer's sentence quoting what sounds the other way to the label, or ""."""
    said = other_way_sentences(text, label)
    if not said:
        return ""
    tone = "negative" if str(label).lower() == "positive" else "positive"
    return (f" Words in the text that sound {tone}, weighed against the rest: "
            + "; ".join(f'"{s}"' for s in said) + ".")
