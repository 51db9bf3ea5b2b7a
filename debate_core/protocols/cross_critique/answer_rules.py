"""The moderator's rules on the final answer itself: it names exactly one of the answers a question
offers, and its writer is confident enough in it to stand without a reviewer."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ...core.options import named_options, offered_options
from ...core.schemas import AgentOutput, Evidence
from .. import common

# The words with which a sentence makes what it grants depend on something ("provided the leak is
# repaired within 30 days", "only if", "unless").
_CONDITION = re.compile(r"\b(?:provided(?: that)?|providing|only if|only where|only when|as long as|so long as|"
                        r"on condition that|unless|subject to|except|if|where|when)\b", re.I)
_OPENING_REF = re.compile(r"\[([\w-]+)\.(C\d+)(?:;[^\]]*)?\]")


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


def dropped_condition(answer: str, finals: Mapping[str, AgentOutput], evidence: Sequence[Evidence]) -> str | None:
    """Rule: an answer whose opening claim is cut off before the condition its passage sets ("we will
    reduce your bill..." without "provided the leak is repaired within 30 days") answers without
    the condition: whether the case meets it is for a person to check. The reason quotes the
    condition and names the passage."""
    ref = _OPENING_REF.search(answer or "")
    out = finals.get(ref.group(1)) if ref else None
    claim = next((c for c in out.claims if c.id == ref.group(2)), None) if out else None
    if claim is None or not claim.statement.rstrip().endswith(("…", "...")):
        return None
    kept = " ".join(claim.statement.rstrip().rstrip("….").split())
    by_id = {ev.id: ev for ev in evidence}
    for eid in claim.evidence:
        text = " ".join(by_id[eid].text.split()) if eid in by_id else ""
        at = text.find(kept)
        if at < 0:
            continue
        # The rest of the sentence, and the next one ("For this purpose a club counts if ...").
        rest = " ".join(re.split(r"(?<=[.!?])\s", text[at + len(kept):], maxsplit=2)[:2])
        cue = _CONDITION.search(rest)
        if cue:
            left_out = rest[cue.start():].strip().rstrip(".")
            left_out = left_out if len(left_out) <= 160 else left_out[:157].rsplit(" ", 1)[0] + "..."
            return (f"the answer quotes {eid} without the condition it sets (\"{left_out}\"): whether the case "
                    "meets it is for a person to check")
    return None


# A question that asks for a yes or a no opens with one of these words ("Do we need to notify the
# council?", "Can she have lessons from 16?", "Will the insurance pay?").
_POLAR_OPENERS = frozenset({"do", "does", "did", "can", "could", "may", "must", "is", "are", "was", "were", "will",
                            "would", "should", "shall", "has", "have", "had", "need", "am"})
# "Yes, ...", "No - ...", "No it does not": a yes or a no; "No law forbids burying ..." opens with
# the word but answers neither way in it.
_SAYS_YES_OR_NO = re.compile(r"^\W*(?:yes|no)\b(?=\s*(?:[,.;:!\u2013\u2014-]|$)|\s+(?:it|they|she|he|you|we|i)\b)", re.I)
_OPENING_PHRASE = re.compile(r"^\W*(?:as of|as at|by|from|in|on|after|before|so|then|now|today|given|with|in that case|"
                             r"if so|failing that)\b[^,?]{0,40},\s*"
                             # "If the business files a complaint, will it get the domain?": a condition first.
                             r"|^\W*(?:if|once|assuming|supposing|unless)\b[^,?]{0,80},\s*")
_OR_ANY = re.compile(r"\s+or\s+(?:any|anything|anyone|anybody|anywhere|not)\b")


def asks_yes_or_no(question: str) -> bool:
    """Whether the question's last asking sentence is a yes-or-no question that lists no options of
    its own ("Do we need to notify the council?", not "Is it X or Y?")."""
    asking = [s for s in re.split(r"(?<=[.?!])\s+", (question or "").strip()) if s.rstrip().endswith("?")]
    if not asking or offered_options(question):
        return False
    # "As of 20 February, can Jade open on 2 March?": the question starts after its opening phrase.
    words = re.findall(r"[A-Za-z']+", _OPENING_PHRASE.sub("", asking[-1].lower(), count=1))
    # "without a TEN or any other licence" widens what is asked about, and "... or not?" restates the
    # question; neither offers a second answer.
    choice = _OR_ANY.sub(" ", f" {asking[-1].lower()} ")
    return bool(words) and words[0] in _POLAR_OPENERS and " or " not in choice


# How the offline supervisor opens when no claim the agents agreed on answers the question.
NO_AGREED_ANSWER = "The agreed claims do not answer the question."


def no_agreed_answer(answer: str) -> str | None:
    """Rule: an answer that says none of the agreed claims answers the question is no answer, whatever
    the question's shape (a choice, a yes or no, a figure): a person answers it."""
    if not (answer or "").startswith(NO_AGREED_ANSWER):
        return None
    return ("none of the claims the agents agreed on answers the question: the debate settled no answer, and a "
            "person must give one")


def yes_no_unanswered(question: str, answer: str) -> str | None:
    """Rule: a question that asks for a yes or a no is answered by one: an answer that opens with
    neither (a passage quoted, however apt) leaves the reader to draw it, so a person checks which
    it is."""
    if not asks_yes_or_no(question) or _SAYS_YES_OR_NO.search(answer or ""):
        return None
    return ("the question asks for a yes or a no, and the answer gives neither: the debate did not settle on one "
            "of the answers the question allows")
