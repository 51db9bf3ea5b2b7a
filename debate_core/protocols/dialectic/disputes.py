"""A disagreement on record: a passage that says two of the case's documents say different things
on a point and that the point is still to be decided ("the handbook and the T&Cs say different
things about guests on weekday evenings. It's going to the committee"). A rule written from either
document has chosen what the people responsible have not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...core.schemas import Evidence
from ...core.text import HEARSAY, evidence_authority, sentences, states_doubt
from .amendments import quote

# How a text says two others differ on a point.
_DIFFER = re.compile(
    r"\b(?:say|says|said|state|states|give|gives) (?:different|conflicting|contradictory|inconsistent) things\b"
    r"|\b(?:say|says|said) different\b|\b(?:given|gave|give|got)(?: me| us)? different answers\b|\b(?:contradict|disagree with) each other\b|\b(?:do not|don't|doesn't|does not) agree\b"
    r"|\b(?:an? |the )?(?:inconsistency|conflict|discrepancy|contradiction) between (?:the|them|these|those|our)\b"
    # "I'm not sure ... which one was voted on": which of two documents is meant is not known.
    r"|\bwhich (?:one|version|paper|text|copy) (?:was|is|applies|counts)\b", re.I)
# How it says the point is still to be decided.
_PENDING = re.compile(
    r"\b(?:is|it's|it is) going to (?:the|a)\b|\b(?:has been|was|is being|will be) referred to\b"
    r"|\b(?:has|have) not (?:yet )?(?:decided|ruled|settled|resolved)\b|\bnot yet (?:decided|settled|resolved)\b"
    r"|\bawaiting (?:a |the )?(?:decision|ruling)\b|\buntil (?:the|a) [\w ]{1,30} (?:decides|rules|meets)\b"
    r"|\b(?:passed|referred|sent) (?:it|this|the (?:question|matter)) (?:on )?to\b"
    r"|\bfor now\b|\bin the meantime\b"
    r"|\b(?:will|is to|are to|is going to) (?:sort (?:it |this )?out|decide|settle|rule on|confirm)\b", re.I)
# How a passage says the point itself is not yet decided ("Nothing is decided", "still with the
# veterinary committee"): the rule that will apply is not known, whichever document the rule follows.
_UNDECIDED = re.compile(
    r"\bnothing (?:is|has been|was) (?:yet )?(?:decided|agreed|settled)\b"
    r"|\bno decision (?:has been|was|is) (?:yet )?(?:made|taken)\b|\bnot (?:yet )?(?:been )?decided\b"
    r"|\bstill (?:with|before) the [\w ]{0,30}?(?:committee|board|council|panel)\b"
    r"|\b(?:has|have) yet to (?:decide|agree|rule)\b"
    # "Until we've decided, the GM guide is what counts": the decision is still to come.
    r"|\buntil (?:we|they|the \w+)(?:'ve| have)? (?:decided|agreed)\b"
    # "The committee will settle how clause 14 applies at its meeting on 1 July".
    r"|\b(?:will|is to|are to) (?:settle|decide|rule on|determine)\b[^.]{0,60}?\bat (?:its|their|the|our) (?:next )?meeting\b"
    r"|\bwill be confirmed (?:after|at) the (?:next )?meeting\b"
    # "not reached for lack of time; carried forward to the meeting of 11 June", "I don't know what
    # council will decide on 11 June".
    r"|\b(?:carried|held|put|deferred|adjourned|postponed)(?: over| forward)? (?:to|until) (?:the|its|their|our|an?) "
    r"(?:next )?(?:meeting|general meeting|EGM|AGM|hearing|vote)\b"
    # "The EGM on 12 September will vote on the dispensation" (an appeal still to be heard, and one who
    # "can't tell you how it will go", are doubts of their own, `states_doubt`).
    r"|\bwill vote\b|\b(?:an|the) appeal (?:is|remains) (?:pending|outstanding)\b"
    r"|\b(?:don't|do not|doesn't|does not) know what (?:the )?[\w ]{0,30}?(?:will|is going to) (?:decide|rule|agree)\b",
    re.I)
# How a passage says it was decided.
_SETTLED = re.compile(r"\b(?:has|have|had) (?:now )?(?:decided|ruled|resolved|settled)\b|\b(?:decided|ruled|resolved) that\b",
                      re.I)
# A decision named as one still to come ("Until the board has decided on the 24th, carry on"): the
# words of a decision taken, in a clause that waits for it.
_WAITS_FOR = re.compile(r"\b(?:until|till|once|when|unless|if|before|after)\b[^.;,]{0,40}$", re.I)


def records_decision(text: str) -> bool:
    """Whether the text says the point was decided ("the committee has decided that ..."), not only that
    it will be ("until the board has decided")."""
    return any(not _WAITS_FOR.search(text[:m.start()]) for m in _SETTLED.finditer(text))


def disagreement_on_record(evidence: Sequence[Evidence]) -> list[str]:
    """One reason per passage that says documents of the case disagree on a point still to be decided,
    quoting where it says so; nothing when any passage records the decision."""
    if any(records_decision(ev.text) for ev in evidence):
        return []
    reasons = []
    for ev in evidence:
        said = next((s for s in sentences(ev.text) if _DIFFER.search(s)), None)
        if said and _PENDING.search(ev.text):
            reasons.append(f"{ev.id} says the documents disagree and the point is still to be decided "
                           f"(\"{quote(said)}\"): a person must decide which governs before the rule is relied on")
    return reasons


def undecided_on_record(evidence: Sequence[Evidence]) -> list[str]:
    """One reason per passage (hearsay aside) that says the point is not yet decided, quoting where it
    says so; nothing when any passage records the decision, or for a passage that already says the
    documents disagree (`disagreement_on_record` names it)."""
    if any(records_decision(ev.text) for ev in evidence):
        return []
    reasons = []
    for ev in evidence:
        if evidence_authority(ev) <= HEARSAY or any(_DIFFER.search(s) for s in sentences(ev.text)):
            continue
        said = next((s for s in sentences(ev.text) if _UNDECIDED.search(s) or states_doubt(s)), None)
        if said:
            reasons.append(f"{ev.id} says the point is not yet decided (\"{quote(said)}\"): a person must wait "
                           "for the decision before the rule is relied on")
    return reasons
