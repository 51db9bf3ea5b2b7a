"""Passages that set different figures on one subject ("within 30 days" against "within 14 days"),
neither amending the other: the rule about that subject is unsettled until a person decides which
governs (read by the moderator; no model calls)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...core.schemas import Evidence
from ...core.text import STOPWORDS, sentences, terms
from .amendments import (
    AMENDING_WORDS,
    MEASURES,
    NUMBER_VALUES,
    STATES,
    is_amendment,
    is_vocabulary,
    quote,
    same_subject,
    supersessions,
    term_share,
)

# A figure with the measure it counts ("30 days", "5 %", "10 GB"): passages on the same subject that
# give one such figure each, and different ones, disagree unless one amends the other.
_FIGURE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(%|per ?cent|percent|[A-Za-z]+)", re.I)


# A count of things ("at least three club time trials", "four or more club time trials", "6 birds"): the
# number, an "or more"-style bound, and the word counted.
_COUNT = re.compile(r"(?<![\w.])(\d+|" + "|".join(NUMBER_VALUES) + r")\s+(?:or (?:more|fewer|less|over|under)\s+)?"
                    r"([a-z][a-z-]+)", re.I)


# An age limit ("aged 16 and over", "under 18", "18 years old"): a dimension of its own.
_AGE = re.compile(r"\b(?:aged|ages?|under|over)\s+(\d{1,3})\b(?!\s*(?:%|per|[a-z]*metre|m\b|km|kg|g\b))"
                  r"|\b(\d{1,3})(?:\s+years?\s+old|-year-olds?\b)", re.I)


def _figures(sentence: str) -> dict[str, set[float]]:
    """The sentence's figures by dimension, converted to the dimension's base unit; a count of things
    is a dimension of its own, one per word counted ("count:club"), and so is an age."""
    out: dict[str, set[float]] = {}
    for m in _AGE.finditer(sentence):
        out.setdefault("age", set()).add(float(m.group(1) or m.group(2)))
    for m in _FIGURE.finditer(sentence):
        unit = m.group(2).lower().rstrip("s'") if m.group(2).lower() not in ("%",) else "%"
        if unit in MEASURES:
            dim, size = MEASURES[unit]
            out.setdefault(dim, set()).add(round(float(m.group(1)) * size, 6))
    for m in _COUNT.finditer(sentence):
        number, word = m.group(1).lower(), m.group(2).lower()
        counted = word.rstrip("s'")
        if counted in MEASURES or counted in STOPWORDS or word in STOPWORDS:
            continue
        if number.isdigit() and not word.endswith("s"):
            continue  # "rule 9 says", "Article 3 of": a digit counts things only before a plural
        value = float(number) if number.isdigit() else float(NUMBER_VALUES[number])
        out.setdefault(f"count:{counted}", set()).add(value)
    return out


# Content words a rule must share with a passage sentence to be about its subject (ASP names are short).
ABOUT_TERMS = 2


def unsettled_conflicts(rule: str, evidence: Sequence[Evidence]) -> list[str]:
    """Rule: passages that set different figures on the same subject ("within 30 days" against
    "within 14 days", "30 days" against "30 months"), neither amending the other, leave the rule
    unsettled when it is about that subject (it names either figure, most of the subject's words, or
    two of them): a person decides which passage governs, and a later date or a wording closer to the
    question is not enough to choose. One reason per pair."""
    found = supersessions(evidence)
    gone = {(s.old_id, s.old_sentence) for s in found}
    amended_pairs = {(s.old_id, s.new_id) for s in found}
    # Each sentence with figures, read once: (passage, sentence, its figures by dimension).
    rows = [(ev, s, figures) for ev in evidence if not is_vocabulary(ev)
            for s in sentences(ev.text) if (ev.id, s) not in gone and not is_amendment(s)
            for figures in [_figures(s)] if figures]
    rule_numbers = {float(n) for n in re.findall(r"(?<![A-Za-z])(\d+(?:\.\d+)?)", rule)}
    have = set(terms(" ".join(re.split(r"[_()]", rule))))
    reasons: list[str] = []
    for i, (ev_a, sa, fa) in enumerate(rows):
        for ev_b, sb, fb in rows[i + 1:]:
            if ev_a.id == ev_b.id or (ev_a.id, ev_b.id) in amended_pairs or (ev_b.id, ev_a.id) in amended_pairs:
                continue
            if not same_subject(sa, sb):
                continue
            raw_numbers = {float(n) for n in re.findall(r"(?<![A-Za-z])(\d+(?:\.\d+)?)", f"{sa} {sb}")}
            for dim in sorted(set(fa) & set(fb)):
                va, vb = fa[dim], fb[dim]
                # One or two figures each ("5 m, provided a barrier at least 2 m high"), none in common.
                if len(va) > 2 or len(vb) > 2 or any(abs(x - y) <= 0.05 * max(x, y) for x in va for y in vb):
                    continue
                subject = set(terms(sa)) - AMENDING_WORDS
                about = (raw_numbers & rule_numbers or term_share(subject, have) >= STATES
                         or len(subject & have) >= ABOUT_TERMS)
                if not about:
                    continue
                reasons.append(
                    f"{ev_a.id} and {ev_b.id} disagree and neither amends the other: {ev_a.id} says \"{quote(sa)}\" "
                    f"and {ev_b.id} says \"{quote(sb)}\"; a person must decide which governs before the rule is relied on")
                break
    return reasons
