"""Which side a reviewer's own rating out of 5 takes, read against the side its text takes: the rule
by which a rating settles a reading, and the one by which a rating and its text that part send the
review to a person."""

from __future__ import annotations

POLAR = ("positive", "negative")
# A rating out of 5 that takes a side: 4 or more praises, 2 or less complains; a 3 takes neither.
RATING_PRAISES = 4.0
RATING_COMPLAINS = 2.0


def rating_side(rating: float | None) -> str | None:
    """The side a rating out of 5 takes, "positive" or "negative"; None for a 3 or no rating."""
    if rating is None:
        return None
    return "positive" if rating >= RATING_PRAISES else "negative" if rating <= RATING_COMPLAINS else None


def rating_against_text(label: str | None, rating: float | None) -> str | None:
    """Rule: a review whose own rating takes the other side of its text (praise rated 1 of 5, a
    complaint rated 5 of 5), or a side its mixed text does not, cannot be labelled from either alone:
    a slip of the finger and a complaint left unsaid read the same, and only a person can ask."""
    side = rating_side(rating)
    if label in POLAR and rating is not None and side is None:
        # A middling rating (3 of 5) is the reviewer saying the good and the bad weigh alike.
        return (f"which way the review leans: its text reads {label}, while the reviewer's own rating "
                f"({rating:g} of 5) takes neither side")
    if label == "mixed" and side in POLAR:  # parts both ways, rated 2 of 5: the reviewer leaned one way
        return f"which way the review leans: its parts read both ways, while its own rating ({rating:g} of 5) is {side}"
    if label not in POLAR or side not in POLAR or side == label:
        return None
    return f"which way the review leans: its text reads {label}, at odds with the reviewer's own rating ({rating:g} of 5)"


def rating_agrees(rating: float | None, label: str) -> bool:
    """The reviewer's own rating of the whole review is a third reader: when it takes the label's side,
    the label stands."""
    return rating_side(rating) == label
