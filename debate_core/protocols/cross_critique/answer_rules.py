"""The moderator's rules on the final answer itself: it names exactly one of the answers a question
offers, and its writer is confident enough in it to stand without a reviewer."""

from __future__ import annotations

from ...core.options import named_options, offered_options
from .. import common


def option_reason(question: str, answer: str, confidence: float, threshold: float = common.LOW_CONFIDENCE) -> str | None:
    """Rule: when the question offers answers, the final answer names exactly one, with enough confidence."""
    options = offered_options(question)
    if not options:
        return None
    listed, named = ", ".join(f'"{o}"' for o in options), named_options(answer, options)
    if len(named) != 1:
        what = "more than one of them (" + ", ".join(f'"{o}"' for o in named) + ")" if named else "none of them"
        return f"the question offers {listed}, and the final answer names {what}"
    if confidence < threshold:
        return (f"the final answer chooses \"{named[0]}\" among {listed} with confidence {confidence:.0%}, too "
                "little to stand without a reviewer")
    return None


def unsure_verdict(confidence: float, threshold: float = common.LOW_CONFIDENCE) -> str | None:
    """Rule: a final answer its own writer gives less than the threshold does not go out alone,
    whatever the agents' confidence in their claims (a question without options; `option_reason`
    says the same for one with options)."""
    if confidence < threshold:
        return f"the final answer is given with confidence {confidence:.0%}, too little to stand without a reviewer"
    return None


def answer_reason(question: str, answer: str, confidence: float) -> tuple[str, str] | None:
    """The reason the final answer goes to a person and the rule that gives it, or None: the option
    rule for a question that offers answers, the confidence rule for any other."""
    if offered_options(question):
        reason = option_reason(question, answer, confidence)
        return (reason, "S9.unsure_option") if reason else None
    reason = unsure_verdict(confidence)
    return (reason, "unsure_verdict") if reason else None
