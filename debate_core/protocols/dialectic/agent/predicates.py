"""The vocabulary of declared predicates (`name(C): description`) and the ASP rules written over it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ....core.schemas import Case
from ....core.text import terms
from ....providers.offline.reading import Reading, quoted_material, read
from ..rules import rule_literals
from .cues import covers, cue_kind, evidence_sentences, matched_terms, shortened, topic_of

_DECL = re.compile(r"\b([a-z][a-z0-9_]*)\(([A-Z][A-Za-z0-9_]*(?:\s*,\s*[A-Z][A-Za-z0-9_]*)*)\)\s*:\s*([^;.]+)")
_LABEL = re.compile(r"([A-Z][A-Za-z ]{2,30}):\s")
_HEAD = re.compile(r"\b([a-z][a-z0-9_]*)\(([A-Z][A-Za-z0-9_]*)\)")
PRED_NAME = re.compile(r"\b([a-z][a-z0-9_]*)\s*\(")
_UNLESS_CLAUSE = re.compile(r"\b(?:unless|except (?:where|when|if))\b([^;.,]+)", re.I)


@dataclass(frozen=True)
class Pred:
    name: str
    args: str
    desc: str
    group: str  # "condition", "defeater" or "other"

    def literal(self, var: str) -> str:
        return f"{self.name}({var})"


def _group(label: str) -> str:
    low = label.lower()
    if any(w in low for w in ("defeat", "exception", "void", "bar")):
        return "defeater"
    if any(w in low for w in ("condition", "requirement", "element")):
        return "condition"
    return "other"


def _declared(case: Case) -> tuple[list[Pred], set[str], bool]:
    """Declared predicates, the ids of the passages that declare them, and whether labels group them."""
    preds: list[Pred] = []
    vocab_ids: set[str] = set()
    labelled = False
    for ev in case.evidence:
        decls = list(_DECL.finditer(ev.text))
        if len(decls) < 2:
            continue
        vocab_ids.add(ev.id)
        labels = [(m.start(), _group(m.group(1))) for m in _LABEL.finditer(ev.text)]
        labelled = labelled or any(g != "other" for _, g in labels)
        for d in decls:
            group = "other"
            for pos, g in labels:
                if pos < d.start():
                    group = g
            if d.group(1) not in {p.name for p in preds}:
                preds.append(Pred(d.group(1), d.group(2), d.group(3).strip(), group))
    return preds, vocab_ids, labelled


def common_terms(preds: list[Pred]) -> set[str]:
    """Terms shared by many descriptions (the subject every predicate is about) say nothing about which is meant."""
    counts: dict[str, int] = {}
    for p in preds:
        for t in set(terms(p.desc)):
            counts[t] = counts.get(t, 0) + 1
    return {t for t, c in counts.items() if c >= 3}


def matches(sentence: str, pred: Pred, common: set[str]) -> bool:
    words = set(terms(sentence))
    name_terms = set(terms(pred.name.replace("_", " ")))
    # A name made only of common terms (the subject predicate itself) would match every sentence.
    if name_terms - common and covers(words, name_terms):
        return True
    desc = set(terms(pred.desc)) - common - name_terms
    hit = matched_terms(desc, words)
    return len(hit) >= 2 and len(hit) >= 0.6 * len(desc)


def vocabulary(case: Case) -> tuple[list[Pred], set[str]]:
    """Declared predicates (each with its group) and the ids of the passages that declare them.

    Labels in the vocabulary passage group the predicates. Without them the passages do: a
    predicate an "unless" clause names is a defeater, one a requirement sentence names is a
    condition, the rest are other facts.
    """
    preds, vocab_ids, labelled = _declared(case)
    if labelled or not preds:
        return preds, vocab_ids
    common = common_terms(preds)
    unless = [m.group(1) for p in preds for m in _UNLESS_CLAUSE.finditer(p.desc)]
    unless += [m.group(1) for _, s in evidence_sentences(case, vocab_ids) for m in _UNLESS_CLAUSE.finditer(s)]
    required = [s for _, s in evidence_sentences(case, vocab_ids) if cue_kind(s) == "obligation"]
    grouped: list[Pred] = []
    for p in preds:
        name_terms = set(terms(p.name.replace("_", " ")))
        if any(covers(set(terms(clause)), name_terms) for clause in unless):
            group = "defeater"
        elif any(matches(s, p, common) for s in required):
            group = "condition"
        else:
            group = "other"
        grouped.append(Pred(p.name, p.args, p.desc, group))
    return grouped, vocab_ids


def head_of(question: str, preds: list[Pred]) -> tuple[str, str] | None:
    """The head the question asks to define (`name(X)` not declared as a predicate), if it names one."""
    declared = {p.name for p in preds}
    for m in _HEAD.finditer(question):
        if m.group(1) not in declared:
            return m.group(1), m.group(2)
    return None


def body_parts(rule: str) -> tuple[str | None, list[str]]:
    lits = rule_literals(rule)
    if ":-" not in rule:
        return (lits[0] if lits else None), lits[1:]
    head_text, _, body_text = rule.partition(":-")
    head = rule_literals(head_text)
    return (head[0] if head else None), rule_literals(body_text)


def literal_name(literal: str) -> str:
    m = PRED_NAME.search(literal)
    return m.group(1) if m else literal


def build_rule(head: str, body: list[str]) -> str:
    return f"{head} :- {', '.join(body)}." if body else f"{head}."


def unexpressed(case: Case, preds: list[Pred], vocab_ids: set[str]) -> list[tuple[str, str]]:
    """Requirement sentences no declared predicate expresses: what an ASP rule over them cannot assess."""
    common = common_terms(preds)
    return [(eid, s) for eid, s in evidence_sentences(case, vocab_ids)
            if cue_kind(s) == "obligation" and not any(matches(s, p, common) for p in preds)]


def asp_reading(case: Case, rule: str, preds: list[Pred], vocab_ids: set[str]) -> Reading:
    """How much of the case an ASP rule over the declared predicates could use."""
    common = common_terms(preds)
    _, body = body_parts(rule)
    used_names = {literal_name(b) for b in body}
    used = [p for p in preds if p.name in used_names]
    # The passages the agent mapped onto the vocabulary: those it relied on to add, keep or drop a literal.
    backing = sorted({eid for eid, s in evidence_sentences(case, vocab_ids)
                      if any(matches(s, p, common) for p in preds)})
    texts = [p.desc for p in used] + [ev.text for ev in case.evidence if ev.id in backing]
    gaps = [f"the requirement in {eid} that no declared predicate expresses (\"{shortened(s)}\")"
            for eid, s in unexpressed(case, preds, vocab_ids)]
    return read(topic_of(case.question), texts + quoted_material(case.question), passages=len(backing), gaps=gaps)
