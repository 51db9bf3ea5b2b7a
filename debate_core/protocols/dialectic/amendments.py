"""What the passages say about each other: which sentence amends which, and so which statement a
later amendment supersedes (read by the offline agents and by the moderator; no model calls).

A sentence is an amendment when it says so in general English ("is amended", "amended to read",
"is replaced by", "supersedes", "is repealed", "no longer", "instead of", "notwithstanding", ...:
`AMENDMENT_CUES`). What it amends, in this order: the passages it names by id; the passages whose
source or text carries the clause, section or article it names ("clause 4.2", "section 17602");
else, the sentences of other passages on the same subject (most of the shorter sentence's content
terms shared). It supersedes them only when it is later: both passages dated, the amendment's date
is the later one; a date missing, the amendment comes later in the case. An amendment never
supersedes a passage of higher authority (a contract's amendment does not override a statute).

`kept_superseded` is the moderator's rule: a final rule that still states what an amended sentence
said (its own terms, such as the old figure) or leaves out what the amendment changed goes to a
person, with both passages named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...core.schemas import Evidence
from ...core.text import authority_score, mentioned_ids, sentences, terms

# General English wording by which a text changes an earlier one (no case's own words).
AMENDMENT_CUES = (
    "is amended", "are amended", "is hereby amended", "amended to read", "amended so that", "amends",
    "as amended by", "is replaced by", "are replaced by", "is replaced with", "shall be replaced", "replaces",
    "is substituted", "substituted by", "substituted for", "supersedes", "is superseded", "are superseded",
    "is repealed", "are repealed", "repeals", "is revoked", "revokes", "is deleted", "is struck out",
    "no longer", "instead of", "in place of", "notwithstanding", "with effect from", "now reads", "shall now",
)
# Words of the amending act itself, not of what the rule says.
_AMENDING_WORDS = set(terms(" ".join(AMENDMENT_CUES)) + terms("clause section article paragraph amendment read"))
_REFERENCE = re.compile(
    r"\b(clause|section|article|paragraph|rule|regulation|schedule|part|s\.|§)\s*(\d+[0-9a-z]*(?:[.(]\d+[0-9a-z]*\)?)*)",
    re.I)
_DATE = re.compile(r"(?<!\d)((?:19|20)\d\d)(?:[-/.](\d{1,2}))?(?:[-/.](\d{1,2}))?")
# Share of the shorter sentence's content terms two sentences must share to be on the same subject.
SAME_SUBJECT = 0.5
# Share of a sentence's distinctive terms a rule must carry to be said to state it.
STATES = 0.5


def is_amendment(sentence: str) -> bool:
    low = " ".join(sentence.lower().split())
    return any(re.search(rf"\b{re.escape(cue)}\b", low) for cue in AMENDMENT_CUES)


def _references(text: str) -> set[tuple[str, str]]:
    return {(m.group(1).lower().rstrip("."), m.group(2).lower().rstrip(".")) for m in _REFERENCE.finditer(text)}


def _date(ev: Evidence) -> tuple[int, int, int] | None:
    m = _DATE.search(ev.date or "")
    if not m:
        return None
    return int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0)


def later(amending: Evidence, amended: Evidence, evidence: Sequence[Evidence]) -> bool:
    """Whether the amending passage comes after the amended one and may override it."""
    if amending.authority is not None and amended.authority is not None and \
            authority_score(amended.authority) > authority_score(amending.authority):
        return False
    d1, d2 = _date(amending), _date(amended)
    if d1 is not None and d2 is not None:
        return d1 > d2
    ids = [ev.id for ev in evidence]
    return ids.index(amending.id) > ids.index(amended.id)


def _same_subject(a: str, b: str) -> bool:
    ta, tb = set(terms(a)) - _AMENDING_WORDS, set(terms(b)) - _AMENDING_WORDS
    if not ta or not tb:
        return False
    return len(ta & tb) >= SAME_SUBJECT * min(len(ta), len(tb))


@dataclass(frozen=True)
class Supersession:
    """One earlier sentence and the later amendment that supersedes it."""

    old_id: str
    old_sentence: str
    new_id: str
    new_sentence: str
    new_date: str | None = None

    @property
    def old_terms(self) -> set[str]:
        """What only the old sentence says (an old figure, a dropped condition)."""
        return set(terms(self.old_sentence)) - set(terms(self.new_sentence)) - _AMENDING_WORDS

    @property
    def new_terms(self) -> set[str]:
        """What only the amendment says (the new figure, the added condition)."""
        return set(terms(self.new_sentence)) - set(terms(self.old_sentence)) - _AMENDING_WORDS


def supersessions(evidence: Sequence[Evidence]) -> list[Supersession]:
    """Every (earlier sentence, later amendment) pair the passages give, in passage order."""
    out: list[Supersession] = []
    for amending in evidence:
        for sent in sentences(amending.text):
            if not is_amendment(sent):
                continue
            others = [ev for ev in evidence if ev.id != amending.id]
            named = set(mentioned_ids(sent, [ev.id for ev in others]))
            refs = _references(sent)
            targets = [ev for ev in others if ev.id in named or (refs and refs & _references(f"{ev.source} {ev.text}"))]
            pairs: list[tuple[Evidence, str]] = []
            for ev in targets:
                on_subject = [s for s in sentences(ev.text) if _same_subject(s, sent) and not is_amendment(s)]
                pairs += [(ev, s) for s in (on_subject or sentences(ev.text)[:1])]
            if not targets:
                pairs = [(ev, s) for ev in others for s in sentences(ev.text)
                         if not is_amendment(s) and _same_subject(s, sent)]
            out += [Supersession(ev.id, s, amending.id, sent, amending.date)
                    for ev, s in pairs if later(amending, ev, evidence)]
    return out


def superseded_sentences(evidence: Sequence[Evidence]) -> dict[tuple[str, str], Supersession]:
    """(passage id, sentence) -> what supersedes it."""
    return {(s.old_id, s.old_sentence): s for s in supersessions(evidence)}


def _share(wanted: set[str], rule_terms: set[str]) -> float:
    return len(wanted & rule_terms) / len(wanted) if wanted else 0.0


def _quote(sentence: str, limit: int = 140) -> str:
    s = " ".join(sentence.split())
    return s if len(s) <= limit else s[: limit - 3].rstrip() + "..."


def kept_superseded(rule: str, evidence: Sequence[Evidence]) -> list[str]:
    """Rule: a final rule that keeps a statement a later amendment superseded goes to a person.

    It keeps it when it carries what only the old sentence says, or carries the old sentence's
    subject without what the amendment changed. One plain-words reason per amendment."""
    words = " ".join(re.split(r"[_()]", rule))
    have = set(terms(words))
    reasons: list[str] = []
    for s in supersessions(evidence):
        old_only, new_only = s.old_terms, s.new_terms
        states_old = bool(old_only) and _share(old_only, have) >= STATES
        on_subject = _share(set(terms(s.old_sentence)) - _AMENDING_WORDS, have) >= STATES
        misses_new = bool(new_only) and _share(new_only, have) < STATES
        if not (states_old or (on_subject and misses_new)):
            continue
        when = f", dated {s.new_date}" if s.new_date else ""
        reason = (f"The final rule keeps what {s.old_id} said (\"{_quote(s.old_sentence)}\") although the later "
                  f"amendment in {s.new_id}{when} changes it (\"{_quote(s.new_sentence)}\"); a person must check "
                  f"the rule against the amendment")
        if reason not in reasons:
            reasons.append(reason)
    return reasons
