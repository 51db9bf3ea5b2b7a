"""Offline agents for the dialectic protocol (seed 003): generator, critic and synthesizer.

They work from the case itself. A vocabulary passage declares the predicates the rule may use
(`name(C): description`, grouped under labels such as "Conditions:", "Defeaters:", "Other facts:").
The generator builds a thesis from the conditions the question names; the critic reads every
other passage sentence by sentence and maps it to a predicate: a condition the evidence requires
but the rule lacks is an issue, a defeater the rule does not negate is an issue, a condition the
evidence says is not needed is an over-restriction, and clingo reports real syntax problems. The
synthesizer applies the issues literally, rebuilding the rule so that it parses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..moderator.dialectic import ENGINE_ISSUE_PREFIX, check_asp, rule_literals
from ..schemas import Case
from ..text import sentences, terms
from . import register

_DECL = re.compile(r"\b([a-z][a-z0-9_]*)\(([A-Z][A-Za-z0-9_]*(?:\s*,\s*[A-Z][A-Za-z0-9_]*)*)\)\s*:\s*([^;.]+)")
_LABEL = re.compile(r"([A-Z][A-Za-z ]{2,30}):\s")
_HEAD = re.compile(r"\b([a-z][a-z0-9_]*)\(([A-Z][A-Za-z0-9_]*)\)")
_PRED_NAME = re.compile(r"\b([a-z][a-z0-9_]*)\s*\(")

DISPENSABLE = re.compile(r"\b(need not|not required|not necessary|no need|are binding|is binding)\b", re.I)
EXCEPTION = re.compile(r"\b(only|except|unless|such as)\b", re.I)
VOID = re.compile(r"\b(void|voidable|unenforceable|invalid|cannot be enforced)\b", re.I)
# Added per resolved issue: each evidence-backed fix makes the synthesizer a little surer.
CONFIDENCE_PER_FIX = 0.02
CONFIDENCE_CAP = 0.9


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


def vocabulary(case: Case) -> tuple[list[Pred], set[str]]:
    """Declared predicates and the ids of the passages that declare them."""
    preds: list[Pred] = []
    vocab_ids: set[str] = set()
    for ev in case.evidence:
        decls = list(_DECL.finditer(ev.text))
        if len(decls) < 2:
            continue
        vocab_ids.add(ev.id)
        labels = [(m.start(), _group(m.group(1))) for m in _LABEL.finditer(ev.text)]
        for d in decls:
            group = "other"
            for pos, g in labels:
                if pos < d.start():
                    group = g
            if d.group(1) not in {p.name for p in preds}:
                preds.append(Pred(d.group(1), d.group(2), d.group(3).strip(), group))
    return preds, vocab_ids


def _common_terms(preds: list[Pred]) -> set[str]:
    """Terms shared by many descriptions ("contract", "party") say nothing about which predicate is meant."""
    counts: dict[str, int] = {}
    for p in preds:
        for t in set(terms(p.desc)):
            counts[t] = counts.get(t, 0) + 1
    return {t for t, c in counts.items() if c >= 3}


def matches(sentence: str, pred: Pred, common: set[str]) -> bool:
    words = set(terms(sentence))
    name_terms = set(terms(pred.name.replace("_", " ")))
    # A name made only of common terms (the domain predicate "contract") would match every sentence.
    if name_terms - common and name_terms <= words:
        return True
    desc = set(terms(pred.desc)) - common - name_terms
    hit = desc & words
    return len(hit) >= 2 and len(hit) >= 0.6 * len(desc)


def head_of(question: str, preds: list[Pred]) -> tuple[str, str]:
    declared = {p.name for p in preds}
    for m in _HEAD.finditer(question):
        if m.group(1) not in declared:
            return m.group(1), m.group(2)
    return "conclusion", (preds[0].args.split(",")[0].strip() if preds else "X")


def _body_parts(rule: str) -> tuple[str | None, list[str]]:
    lits = rule_literals(rule)
    if ":-" not in rule:
        return (lits[0] if lits else None), lits[1:]
    head_text, _, body_text = rule.partition(":-")
    head = rule_literals(head_text)
    return (head[0] if head else None), rule_literals(body_text)


def _name(literal: str) -> str:
    m = _PRED_NAME.search(literal)
    return m.group(1) if m else literal


def build_rule(head: str, body: list[str]) -> str:
    return f"{head} :- {', '.join(body)}." if body else f"{head}."


@register("dialectic", "thesis")
def thesis(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    preds, _ = vocabulary(case)
    head_name, var = head_of(case.question, preds)
    q_terms = set(terms(case.question))
    # The generator reads only the knowledge gap: it uses the declared predicates the question names.
    body = [p.literal(var) for p in preds if p.group != "defeater" and set(terms(p.name.replace("_", " "))) <= q_terms]
    if not preds:
        body = [f"{w}({var})" for w in _question_conditions(case.question)]
    rule = build_rule(f"{head_name}({var})", body)
    named = ", ".join(body) if body else "no conditions"
    return {
        "rule": rule,
        "reasoning": f"The knowledge gap names these conditions, mapped to the knowledge-base predicates: {named}.",
        "confidence": 0.65 if preds else 0.4,
    }


def _question_conditions(question: str) -> list[str]:
    """Without a vocabulary, one predicate per condition clause after 'if'/'when' (last content word)."""
    m = re.search(r"\b(?:if|when)\b(.*)", question, re.I | re.S)
    if not m:
        return []
    clauses = re.split(r",|\band\b|\.", m.group(1))
    out: list[str] = []
    for clause in clauses:
        words = [w for w in re.findall(r"[a-z]+", clause.lower()) if len(w) > 3]
        if words and words[-1] not in out:
            out.append(words[-1])
    return out[:5]


@register("dialectic", "antithesis")
def antithesis(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    rule: str = payload["thesis"]["rule"]
    preds, vocab_ids = vocabulary(case)
    by_name = {p.name: p for p in preds}
    common = _common_terms(preds)
    head, body = _body_parts(rule)
    head_name, var = head_of(case.question, preds)
    var = var if head is None else (re.findall(r"\(([A-Z]\w*)", head) or [var])[0]
    positive = {_name(b) for b in body if not b.startswith("not ")}
    negated = {_name(b) for b in body if b.startswith("not ")}

    issues: list[str] = []
    edge_cases: list[str] = []
    contradictions: list[str] = []
    check = check_asp(rule)
    if not check.ok:
        issues.append(f"Syntax: the rule is not valid ASP ({check.error}); rewrite it as one clingo rule ending with a period.")
    for name in sorted((positive | negated) - set(by_name) - {head_name}):
        if preds:
            issues.append(f"Unknown predicate {name}({var}) is not declared in the vocabulary; remove it or use a declared predicate.")
    for name in sorted(positive & negated):
        contradictions.append(f"{name}({var}) is required and negated in the same body, so the rule can never fire.")

    reported: set[str] = set()
    for ev in case.evidence:
        if ev.id in vocab_ids:
            continue
        for sent in sentences(ev.text):
            hits = [p for p in preds if matches(sent, p, common)]
            covered = [p.literal(var) for p in hits if p.name in positive]
            note = f"{ev.id}; partly covered by {', '.join(covered)}" if covered else ev.id
            if EXCEPTION.search(sent):
                edge_cases.append(f"{sent} ({note})")
                continue
            if VOID.search(sent) and not any(p.group == "defeater" for p in hits):
                edge_cases.append(f"{sent} ({note})")
            for p in hits:
                key = p.name
                if key in reported:
                    continue
                if DISPENSABLE.search(sent):
                    if p.name in positive:
                        issues.append(f"Over-restrictive condition {p.literal(var)}: {ev.id} says it is not required "
                                      f"(\"{sent}\"); remove it.")
                        reported.add(key)
                elif p.group == "condition" and p.name not in positive:
                    issues.append(f"Missing condition {p.literal(var)}: {ev.id} requires it (\"{sent}\"); add it.")
                    reported.add(key)
                elif p.group == "defeater" and p.name in positive:
                    contradictions.append(f"Defeater {p.literal(var)} appears as a requirement, but {ev.id} says it "
                                          f"defeats enforceability; negate it.")
                    reported.add(key)
                elif p.group == "defeater" and p.name not in negated:
                    issues.append(f"Unhandled defeater: add not {p.literal(var)}; {ev.id} says \"{sent}\"")
                    edge_cases.append(f"A case where {p.desc} ({ev.id}).")
                    reported.add(key)

    known = (positive | negated) & set(by_name)
    if not check.ok and preds and not known:
        recommendation = "reject"
    elif issues or contradictions:
        recommendation = "revise"
    else:
        recommendation = "accept"
    argument = (f"Identified {len(issues)} issues, {len(edge_cases)} edge cases, {len(contradictions)} contradictions. "
                f"Recommendation: {recommendation}")
    if issues:
        argument += f". First issue: {issues[0]}"
    return {"issues": issues, "edge_cases": edge_cases, "contradictions": contradictions,
            "recommendation": recommendation, "argument": argument}


@register("dialectic", "synthesis")
def synthesis(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    thesis_out = payload["thesis"]
    anti = payload["antithesis"]
    preds, _ = vocabulary(case)
    order = {p.name: i for i, p in enumerate(preds)}
    group = {p.name: p.group for p in preds}
    head, body = _body_parts(thesis_out["rule"])
    head_name, var = head_of(case.question, preds)
    if head is None:
        head = f"{head_name}({var})"
    var = (re.findall(r"\(([A-Z]\w*)", head) or [var])[0]

    body = list(dict.fromkeys(body))
    changes: list[str] = []
    for issue in [*anti.get("issues", []), *anti.get("contradictions", [])]:
        named = [n for n in _PRED_NAME.findall(issue) if n in order]
        if issue.startswith(ENGINE_ISSUE_PREFIX) or issue.startswith("Syntax:"):
            changes.append("rewrote the rule from its literals so that it parses")
            continue
        if issue.startswith("Unknown predicate"):
            unknown = _PRED_NAME.findall(issue)[:1]
            body = [b for b in body if _name(b) not in unknown]
            changes.append(f"removed undeclared {unknown[0]}" if unknown else "removed an undeclared predicate")
            continue
        for name in named[:1]:
            lit = f"{name}({var})"
            if issue.startswith("Over-restrictive"):
                body = [b for b in body if _name(b) != name]
                changes.append(f"removed {lit}")
            elif group.get(name) == "defeater":
                body = [b for b in body if _name(b) != name] + [f"not {lit}"]
                changes.append(f"added not {lit}")
            elif f"{lit}" not in body:
                body.append(lit)
                changes.append(f"added {lit}")
    # Conditions first in vocabulary order, negated defeaters last, so equal rules read the same.
    body.sort(key=lambda b: (b.startswith("not "), order.get(_name(b), len(order))))
    rule = build_rule(head, body)
    changes = list(dict.fromkeys(changes))
    confidence = min(CONFIDENCE_CAP, float(thesis_out.get("confidence", 0.5)) + CONFIDENCE_PER_FIX * len(changes))
    argument = ("Synthesized rule by addressing critique issues. Changes: " + "; ".join(changes) + "."
                if changes else "No change: the critique raised nothing the declared predicates can express.")
    return {"rule": rule, "argument": argument, "confidence": round(confidence, 4)}
