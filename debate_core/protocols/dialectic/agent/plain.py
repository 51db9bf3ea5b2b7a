"""Plain-language rules: written in words from the conditions the passages state (joined by "and")
and what they rule out (joined by "unless"), each citing its passage."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ....core.schemas import Case
from ....core.text import terms
from ....providers.offline.reading import Reading, quoted_material, read
from .cues import cue_kind, evidence_sentences, matched_terms, topic_of

_SECTION_REF = re.compile(r"\s*\((?=[^()]*\d)[^()]*(?:\([^()]*\)[^()]*)*\)")


def _clause(sentence: str) -> str:
    """A passage sentence as a clause of the rule, without its closing period and citation marks."""
    s = " ".join(sentence.split()).rstrip(".")
    # Section references in parentheses ("(section 2(2))") cite the source; the passage id does that here.
    s = _SECTION_REF.sub("", s)
    # An amendment's lead-in ("Clause 7 is amended to read:") says where the text comes from, not what it says.
    s = re.sub(r"^.*?\b(?:amended to read|now reads?|(?:is|are) replaced (?:by|with)|substituted by)\s*:?\s*", "", s,
               count=1, flags=re.I)
    m = re.search(r"\bexcept (?:in so far as|where|when|if)\b(.+)$", s, re.I)
    if m:  # "cannot ... except in so far as X": X is the condition.
        return m.group(1).strip()
    return s[0].lower() + s[1:] if s[:1].isupper() and not s[1:2].isupper() else s


@dataclass(frozen=True)
class Statement:
    """A passage sentence that states a condition or something that rules the conclusion out."""

    evidence_id: str
    sentence: str
    kind: str  # "condition", "exception" or "permission"

    @property
    def clause(self) -> str:
        return _clause(self.sentence)


def statements(case: Case, subject: str) -> list[Statement]:
    """The conditions and exceptions the passages state about the question's subject."""
    topic = set(terms(subject)) | set(terms(case.question))
    out: list[Statement] = []
    for eid, sent in evidence_sentences(case, set()):
        kind = cue_kind(sent)
        if kind is None or kind == "not_required" or not matched_terms(set(terms(sent)), topic):
            continue
        if kind == "permission":
            out.append(Statement(eid, sent, "permission"))
            continue
        is_condition = kind == "obligation" or re.search(r"\bexcept (?:in so far as|where|when|if)\b", sent, re.I)
        out.append(Statement(eid, sent, "condition" if is_condition else "exception"))
    return out


def _cited(found: list[Statement]) -> list[str]:
    """Each distinct clause once, citing every passage that states it."""
    ids: dict[str, list[str]] = {}
    for s in found:
        ids.setdefault(s.clause, [])
        if s.evidence_id not in ids[s.clause]:
            ids[s.clause].append(s.evidence_id)
    return [f"{clause} ({', '.join(eids)})" for clause, eids in ids.items()]


def plain_rule(subject: str, found: list[Statement]) -> str:
    conditions = _cited([s for s in found if s.kind == "condition"])
    exceptions = _cited([s for s in found if s.kind == "exception"])
    subj = subject[0].upper() + subject[1:]
    if conditions:
        rule = f"{subj} only if " + " and ".join(conditions)
    else:
        rule = f"{subj}, as far as the passages say"
    if exceptions:
        rule += ", unless the passages rule it out: " + "; ".join(exceptions)
    permissions = _cited([s for s in found if s.kind == "permission"])
    if permissions:
        rule += "; the passages permit: " + "; ".join(permissions)
    return rule + "."


def reflected(statement: Statement, rule: str) -> bool:
    """Whether a rule reflects a passage's statement: most of its content words appear in the rule."""
    wanted = set(terms(statement.clause))
    return bool(wanted) and len(matched_terms(wanted, set(terms(rule)))) >= 0.6 * len(wanted)


def plain_reading(case: Case, found: list[Statement], gaps: list[str]) -> Reading:
    ids = sorted({s.evidence_id for s in found})
    texts = [ev.text for ev in case.evidence if ev.id in ids]
    return read(topic_of(case.question), texts + quoted_material(case.question), passages=len(ids), gaps=gaps)


def no_rule(subject: str) -> str:
    return (f"No rule could be built from the passages: none of them states a condition for, or an "
            f"exception to, {subject[0].lower() + subject[1:]}.")
