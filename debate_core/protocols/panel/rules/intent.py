"""What a reviewer says they will do next ("Already entered for next Sunday", "It's gone back"): the
text's own verdict on the thing, shown with the answer so that a reviewer reads the label against
it."""

from __future__ import annotations

import re

from ....core.text import sentences
from .counterweight import clip_sentence

# Going back or not, booking again, recommending or not, returning the thing: a plan the reviewer
# states, in the first person or as done. Bounded alternations, matched within one sentence.
_INTENT = re.compile(
    r"\b(?:(?:already\s+)?(?:entered|booked|signed\s+up|registered|re-?booked|ordered)\s+(?:again|for\s+next|another"
    r"|the\s+next)"
    r"|(?:will|I'll|we'll|shall)\s+(?:definitely\s+|certainly\s+|surely\s+)?(?:be\s+back|return|be\s+returning"
    r"|be\s+going\s+back|be\s+coming\s+back|book\s+again|recommend)"
    r"|(?:won't|will\s+not|wouldn't|would\s+not|never)\s+(?:be\s+back|return|go\s+back|book\s+again|recommend)"
    r"|never\s+again|(?:sent|took|taken|gone|going)\s+(?:it\s+|them\s+)?back\b(?!\s+(?:to\s+)?(?:my|the|in|on)\b)"
    r"|would\s+(?:definitely\s+|highly\s+)?recommend|highly\s+recommend|see\s+you\s+next)\b", re.I)
SHOWN = 2


def stated_intent(text: str | None) -> list[str]:
    """Rule: the sentences in which the text's author says what they will do about the thing reviewed
    (go back or not, book again, recommend it, return it), as the text words them, at most SHOWN."""
    return [clip_sentence(s) for s in sentences(text or "") if _INTENT.search(s)][:SHOWN]


def intent_note(text: str | None, answer: str) -> str:
    """The answer's sentence quoting what the reviewer says they will do, leaving out what the answer
    already quotes; or ""."""
    said = [s for s in stated_intent(text) if s not in answer]
    if not said:
        return ""
    return " What the reviewer says they will do: " + "; ".join(f'"{s}"' for s in said) + "."
