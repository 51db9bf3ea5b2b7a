"""Variant predicates: a vocabulary that declares two forms of one condition
(`sibling_at_school_on_closing_date` and `sibling_at_school_on_admission_date`,
`shodan_under_16` and `shodan_under_14`) offers a choice the passages must make. When two passages
of the same standing make it differently, each naming one form and not the other, and neither amends
the other, a rule has nothing to choose between them by.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ...core.schemas import Evidence
from ...core.text import evidence_authority, sentences, terms
from .amendments import declarations, is_vocabulary, quote, supersessions

# Passage authorities closer than this are the same standing.
SAME_STANDING = 0.1


def _shared_parts(a: list[str], b: list[str]) -> int:
    """How many name parts two names share at their start or at their end, whichever is more."""
    start = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    end = next((i for i, (x, y) in enumerate(zip(reversed(a), reversed(b), strict=False)) if x != y),
               min(len(a), len(b)))
    return max(start, end)


def _figure_apart(a: list[str], b: list[str]) -> bool:
    """Names alike but for one figure ("aged_8_plus", "aged_10_plus")."""
    differ = [(x, y) for x, y in zip(a, b, strict=False) if x != y]
    return len(a) == len(b) and len(differ) == 1 and all(part.isdigit() for part in differ[0])


def variant_pairs(declared: dict[str, str]) -> list[tuple[str, str]]:
    """Pairs of declared predicates that are forms of one condition: their names share at least half
    their parts, at the start or at the end ("shodan_under_16", "shodan_under_14"), or differ only in a
    figure ("aged_8_plus", "aged_10_plus")."""
    names = sorted(declared)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            pa, pb = a.split("_"), b.split("_")
            if _shared_parts(pa, pb) >= max(1, math.ceil(max(len(pa), len(pb)) / 2)) or _figure_apart(pa, pb):
                pairs.append((a, b))
    return pairs


def _names(sentence_terms: set[str], own: set[str]) -> bool:
    """A sentence names a form when it carries at least half the words that set the form apart."""
    return bool(own) and len(sentence_terms & own) >= max(1, math.ceil(len(own) / 2))


def _words_and_figures(text: str) -> set[str]:
    """A text's content terms and its figures ("P is 8 or older": the 8 is what sets aged_8_plus apart
    from aged_10_plus, and a one-digit figure is no term)."""
    return set(terms(text)) | set(re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", text))


def variant_conflicts(evidence: Sequence[Evidence]) -> list[str]:
    """For each pair of forms of one condition: passages of the same standing that each name one form
    and not the other, neither amending the other. A rule that uses either form has chosen on no
    ground, and one that uses neither has left the condition out. One reason per pair, naming both
    passages."""
    declared = declarations(evidence)
    found = supersessions(evidence)
    gone = {(s.old_id, s.old_sentence) for s in found}
    amended = {(s.old_id, s.new_id) for s in found} | {(s.new_id, s.old_id) for s in found}
    reasons: list[str] = []
    for a, b in variant_pairs(declared):
        ta, tb = _words_and_figures(declared[a]), _words_and_figures(declared[b])
        own = {a: ta - tb, b: tb - ta}
        naming: dict[str, list[tuple[Evidence, str]]] = {a: [], b: []}
        for ev in evidence:
            if is_vocabulary(ev):
                continue
            for s in sentences(ev.text):
                st = _words_and_figures(s)
                said = [n for n in (a, b) if _names(st, own[n])]
                if len(said) == 1 and (ev.id, s) not in gone:
                    naming[said[0]].append((ev, s))
        pair = next(((x, y) for x in naming[a] for y in naming[b]
                     if x[0].id != y[0].id and (x[0].id, y[0].id) not in amended
                     and abs(evidence_authority(x[0]) - evidence_authority(y[0])) < SAME_STANDING),
                    None)
        if pair:
            (ev_a, sa), (ev_b, sb) = pair
            reasons.append(
                f"{ev_a.id} and {ev_b.id} set the condition differently and neither amends the other: {ev_a.id} "
                f"says \"{quote(sa)}\" ({a}) and {ev_b.id} says \"{quote(sb)}\" ({b}); a person must decide "
                "which governs before the rule is relied on")
    return reasons
