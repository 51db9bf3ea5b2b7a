"""Scoring a verdict against a case's `expected` block (the format is in data/eval/README.md).

`expected` may carry:
- `label`: the one word the answer must be (matched as a whole word, without regard to case; a
  sentiment label as the first one the answer's first sentence names, where it names one: "The
  overall sentiment is mixed: pizza positive; queue negative" answers mixed);
- `must_mention`: groups of alternatives; each group must have one alternative in the answer;
- `needs_human_review`: whether a careful reviewer would want the case escalated;
- `reference`: the expert's answer. Where it states a rule (`head(X) :- body.`, as a dialectic
  case's does), the answer must state a rule with the same conditions: the same body literals,
  negated alike, whatever the variables are called. Naming the deciding points is not enough when
  the rule keeps a condition the evidence rules out, or drops one it sets.

A run is *right* when the answer has the label, every group and, where the reference states a rule,
that rule's conditions. It is *flagged* when the verdict was
sent to a human. A *silent wrong* answer is one nobody reviews although it is wrong, or although
the case needed a human; an *over-flagged* one is right, on a case that needed no human, yet was
sent to one. Flagging a wrong answer is the honest outcome: it is neither.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ..core.text import rule_literals


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text or "").lower()
    return re.sub(r"[\s_\-]+", " ", text)


def mentions(answer: str, alternative: str) -> bool:
    """The alternative appears in the answer, ignoring case, spacing, underscores and hyphens. One
    that starts with a letter or digit must start a word ("no" is not found in "know"); it may end
    inside one, so a stem such as "bleed" or "not initiat" also finds "bleeding" and "not initiated",
    as data/eval/README.md promises case writers."""
    needle = _norm(alternative).strip()
    if not needle:
        return False
    left = r"(?<![\w])" if needle[0].isalnum() else ""
    return re.search(left + re.escape(needle), _norm(answer)) is not None


@dataclass(frozen=True)
class Score:
    right: bool
    flagged: bool
    needs_human: bool | None
    silent_wrong: bool
    over_flagged: bool
    label_ok: bool | None
    missing: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["missing"] = list(self.missing)
        return out


# Sentiment labels: an answer states one in its first sentence ("The overall sentiment is negative: ...")
# and may name others later, in what it could not assess ("... taken whole positive").
SENTIMENT_LABELS = ("positive", "negative", "neutral", "mixed")


def _lead(answer: str) -> str:
    m = re.match(r"(.+?[.!?])(?:\s|$)", (answer or "").strip(), re.S)
    return m.group(1) if m else (answer or "")


def label_named(answer: str, label: str) -> bool:
    """The answer names the label; where the label is a sentiment and the answer's first sentence names
    one, it is that sentence that must name it, so a label the answer mentions only as a doubt does
    not count as its answer."""
    lead = _lead(answer)
    stated = _first_sentiment(lead)
    if label.lower() in SENTIMENT_LABELS and stated is not None:
        return stated == label.lower()
    return mentions(answer, label)


def _first_sentiment(lead: str) -> str | None:
    """The sentiment label a sentence names first: the overall one ("The overall sentiment is mixed:
    pizza positive; queue negative" answers mixed, whatever its aspects are), or None."""
    text = _norm(lead)
    found = [(m.start(), w) for w in SENTIMENT_LABELS for m in re.finditer(r"(?<![\w])" + w, text)]
    return min(found)[1] if found else None


# A stated rule: a head literal, ":-", and its body up to the full stop that ends it (a full stop
# followed by a space or the end of the text; rule bodies hold no other full stops).
_RULE = re.compile(r"[a-z_][A-Za-z0-9_']*\s*\([^()]*\)\s*:-[^.]*?(?:\.(?=\s|$)|$)")


def stated_rule(text: str | None) -> str | None:
    """The first rule the text states, or None."""
    m = _RULE.search(text or "")
    return m.group(0) if m else None


def rule_conditions(rule: str) -> frozenset[str]:
    """A rule's body literals by predicate name and negation ("not banned"), without their
    variables, so `ok(P) :- a(P).` and `ok(X) :- a(X).` have the same conditions."""
    body = rule.partition(":-")[2]
    return frozenset(re.sub(r"\s*\(.*", "", literal) for literal in rule_literals(body))


def rule_mismatch(answer: str, reference: str | None) -> str | None:
    """How the answer's rule differs from the one the reference states, in words, or None when
    they have the same conditions or the reference states no rule."""
    wanted = stated_rule(reference)
    if wanted is None:
        return None
    given = stated_rule(answer)
    if given is None:
        return "the rule (the answer states none)"
    lacks = sorted(rule_conditions(wanted) - rule_conditions(given))
    extra = sorted(rule_conditions(given) - rule_conditions(wanted))
    if not lacks and not extra:
        return None
    parts = ([f"lacks {', '.join(lacks)}"] if lacks else []) + ([f"adds {', '.join(extra)}"] if extra else [])
    return "the rule's conditions (" + "; ".join(parts) + ")"


def score(answer: str, flagged: bool, expected: Mapping[str, Any] | None) -> Score:
    """How one verdict fares against `expected` (see the module docstring for the definitions)."""
    expected = expected or {}
    label = expected.get("label")
    label_ok = None if not label else label_named(answer, str(label))
    missing = tuple(
        " / ".join(str(a) for a in group)
        for group in expected.get("must_mention") or []
        if not any(mentions(answer, str(alt)) for alt in (group if isinstance(group, list) else [group]))
    )
    rule_off = rule_mismatch(answer, expected.get("reference"))
    if rule_off:
        missing += (rule_off,)
    right = (label_ok is not False) and not missing
    needs_human = expected.get("needs_human_review")
    needs_human = None if needs_human is None else bool(needs_human)
    silent_wrong = not flagged and (not right or bool(needs_human))
    over_flagged = flagged and right and needs_human is False
    return Score(right, flagged, needs_human, silent_wrong, over_flagged, label_ok, missing)


def has_expectations(expected: Mapping[str, Any] | None) -> bool:
    return bool(expected) and any(k in expected for k in ("label", "must_mention", "needs_human_review"))
