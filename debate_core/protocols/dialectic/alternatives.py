"""Alternative conditions: a requirement that either of two things meets ("must hold public liability
cover of at least £5 million or be affiliated to a County FA"). One ASP rule body is a conjunction,
so a rule that requires both has turned an "either" into a "both": the rule needs a person's check
(or two rules, one for each way in).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...core.schemas import Evidence
from ...core.text import HEARSAY, evidence_authority, rule_literals, sentences
from .amendments import best_named, declarations, is_vocabulary, quote

# What a requirement says after its cue ("must", "need to") is what it requires.
_NEED = re.compile(r"\b(?:must|needs? to|needs|required to|have to|has to|shall)\b", re.I)
# A negated requirement ("must not smoke or drink") bars both: no alternative.
_NEGATED = re.compile(r"\b(?:not|no|never|nor|neither|without)\b|n't\b", re.I)
# "18 or over", "three or more": a bound, not an alternative.
_OR_MORE = re.compile(r"(?:over|older|more|above|higher|under|less|fewer|below|better|equivalent|similar|later|"
                      r"earlier|younger|longer|shorter)\b", re.I)
# Where one alternative ends and the next part of the requirement starts.
_BOUNDARY = re.compile(r"[,;:()]|\s(?:and|but|so|unless|provided)\s", re.I)


def alternatives(sentence: str, declared: dict[str, str]) -> list[tuple[str, str]]:
    """Pairs of declared predicates a requirement joins with "or" (each side named by `best_named`)."""
    need = _NEED.search(sentence)
    if not need:
        return []
    tail = sentence[need.end():]
    pairs = []
    for m in re.finditer(r"\s(?:or|or else)\s", tail):
        if _OR_MORE.match(tail[m.end():]):
            continue  # "aged 18 or over": one condition
        if _NEGATED.search(tail[:m.start()]):
            break
        left = _BOUNDARY.split(tail[:m.start()])[-1]
        right = _BOUNDARY.split(tail[m.end():])[0]
        a, b = best_named([left], declared), best_named([right], declared)
        if len(a) == 1 and len(b) == 1 and a != b:
            pairs.append((a[0], b[0]))
    return pairs


def both_required(final_rule: str, evidence: Sequence[Evidence]) -> list[str]:
    """One reason per requirement of a passage of standing whose two alternatives the rule requires
    together, quoting the sentence."""
    declared = declarations(evidence)
    body = final_rule.split(":-", 1)[1] if ":-" in final_rule else ""
    required = {lit.split("(")[0].strip() for lit in rule_literals(body) if not lit.strip().startswith("not ")}
    reasons = []
    for ev in evidence:
        if is_vocabulary(ev) or evidence_authority(ev) <= HEARSAY:
            continue
        for s in sentences(ev.text):
            for a, b in alternatives(s, declared):
                if a in required and b in required:
                    reasons.append(f"{ev.id} allows either {a} or {b} (\"{quote(s)}\"), but the rule requires "
                                   "both: one rule cannot say \"or\", and a person must check which way in applies")
    return list(dict.fromkeys(reasons))
