"""The three agents: the generator (thesis), the critic (antithesis) and the synthesizer, each
with an ASP way when the passages declare predicates and a plain-language way otherwise."""

from __future__ import annotations

import re
from typing import Any

from ....core.schemas import Case
from ....core.text import terms
from ....providers.offline.agents import register
from ....providers.offline.reading import Reading
from ..amendments import successor_names, withdrawn_names
from ..rules import ENGINE_ISSUE_PREFIX, check_asp
from .cues import (
    asks_for_asp,
    covers,
    cue_kind,
    evidence_sentences,
    not_required_clause,
    repeals,
    shortened,
    split_exception,
    subject_of,
)
from .gaps import asp_reading
from .plain import no_rule, plain_reading, plain_rule, reflected, statements
from .predicates import (
    PRED_NAME,
    Pred,
    body_parts,
    build_rule,
    common_terms,
    head_of,
    is_type,
    literal_name,
    matches,
    only_way,
    vocabulary,
)

# Added per resolved issue: each evidence-backed fix makes the synthesizer a little surer.
CONFIDENCE_PER_FIX = 0.02
CONFIDENCE_CAP = 0.9
# A thesis built from declared predicates, and one written in words from the passages' conditions.
ASP_CONFIDENCE = 0.65
PLAIN_CONFIDENCE = 0.6
# What an agent states when it could not build a rule from the passages at all.
NO_RULE_CONFIDENCE = 0.2


def _plain_thesis(case: Case, asp_asked: bool) -> dict[str, Any]:
    subject = subject_of(case.question)
    found = statements(case, subject)
    gaps: list[str] = []
    if asp_asked:
        gaps.append("an ASP rule: the passages declare no predicates (name(X): meaning) to write it with")
    if not found:
        gaps.append(f"which conditions the passages set for {subject}")
        reading = plain_reading(case, found, gaps)
        return {"rule": no_rule(subject), "reasoning": "No passage sentence states a requirement, an exception "
                "or a prohibition about the question's subject.", "confidence": NO_RULE_CONFIDENCE,
                "uncertainties": reading.uncertainties()}
    reading = plain_reading(case, found, gaps)
    confidence = reading.cap(PLAIN_CONFIDENCE)
    if asp_asked:
        confidence = min(confidence, NO_RULE_CONFIDENCE + 0.1)
    named = "; ".join(f"{s.evidence_id}: {s.kind}" for s in found)
    return {"rule": plain_rule(subject, found),
            "reasoning": f"Written in words from the conditions and exceptions the passages state ({named}).",
            "confidence": round(confidence, 4), "uncertainties": reading.uncertainties()}


@register("dialectic", "thesis")
def thesis(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    preds, vocab_ids = vocabulary(case)
    head = head_of(case.question, preds)
    if not preds or head is None:
        # Without declared predicates, or a head the question asks to define, an ASP rule would be made up.
        return _plain_thesis(case, asks_for_asp(case.question))
    head_name, var = head
    q_terms = set(terms(case.question))
    # The generator reads the knowledge gap: it starts from the declared predicates the question names.
    body = [p.literal(var) for p in preds if p.group == "subject" or (
        p.group not in ("defeater", "repealed") and covers(q_terms, set(terms(p.name.replace("_", " ")))))]
    rule = build_rule(f"{head_name}({var})", body)
    reading = asp_reading(case, rule, preds, vocab_ids)
    named = ", ".join(body) if body else "no conditions"
    return {
        "rule": rule,
        "reasoning": f"The knowledge gap names these conditions, mapped to the declared predicates: {named}.",
        "confidence": reading.cap(ASP_CONFIDENCE if body else NO_RULE_CONFIDENCE),
        "uncertainties": reading.uncertainties(),
    }


def _plain_antithesis(case: Case, rule: str) -> dict[str, Any]:
    subject = subject_of(case.question)
    found = statements(case, subject)
    issues = [f"Missing {s.kind} from {s.evidence_id}: the rule does not reflect \"{shortened(s.sentence, 200)}\"; add it."
              for s in found if not reflected(s, rule)]
    edge_cases = [f"{s} ({eid})" for eid, s in evidence_sentences(case, set()) if cue_kind(s) == "not_required"]
    if not found:
        recommendation = "accept" if rule.startswith("No rule could be built") else "revise"
        if recommendation == "revise":
            issues.append("No passage states a condition this rule could rest on; say that no rule can be built.")
    else:
        recommendation = "revise" if issues else "accept"
    reading = plain_reading(case, found, [] if found else [f"which conditions the passages set for {subject}"])
    return _antithesis_out(issues, edge_cases, [], recommendation, reading)


def _antithesis_out(issues: list[str], edge_cases: list[str], contradictions: list[str], recommendation: str,
                    reading: Reading) -> dict[str, Any]:
    argument = (f"Identified {len(issues)} issues, {len(edge_cases)} edge cases, {len(contradictions)} contradictions. "
                f"Recommendation: {recommendation}")
    if issues:
        argument += f". First issue: {issues[0]}"
    return {"issues": issues, "edge_cases": edge_cases, "contradictions": contradictions,
            "recommendation": recommendation, "argument": argument, "uncertainties": reading.uncertainties()}


def _said_not_needed(case: Case, vocab_ids: set[str], preds: list[Pred],
                     common: set[str]) -> list[tuple[Pred, str, str]]:
    """(predicate, passage id, sentence) for each predicate a sentence of its own says is not needed
    ("It doesn't matter whether you fostered the child before the order"): a sentence that says so
    of exactly one condition settles it, and a looser match elsewhere (a long sentence listing who
    may apply) does not add it back."""
    out = []
    for eid, sent in evidence_sentences(case, vocab_ids):
        if cue_kind(sent) == "not_required" and not repeals(sent):
            # What kind of thing the rule is about ("licence(L)") is no condition a sentence can drop.
            clause = not_required_clause(sent)
            hits = [p for p in preds if matches(clause, p, common) and not is_type(p)]
            if len(hits) == 1 and hits[0].group == "condition":
                out.append((hits[0], eid, sent))
    return out


@register("dialectic", "antithesis")
def antithesis(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    rule: str = payload["thesis"]["rule"]
    preds, vocab_ids = vocabulary(case)
    head_q = head_of(case.question, preds)
    if not preds or head_q is None:
        return _plain_antithesis(case, rule)
    by_name = {p.name: p for p in preds}
    common = common_terms(preds)
    head, body = body_parts(rule)
    head_name, var = head_q
    var = var if head is None else (re.findall(r"\(([A-Z]\w*)", head) or [var])[0]
    positive = {literal_name(b) for b in body if not b.startswith("not ")}
    negated = {literal_name(b) for b in body if b.startswith("not ")}

    issues: list[str] = []
    edge_cases: list[str] = []
    contradictions: list[str] = []
    check = check_asp(rule)
    if not check.ok:
        issues.append(f"Syntax: the rule is not valid ASP ({check.error}); rewrite it as one clingo rule ending with a period.")
    for name in sorted((positive | negated) - set(by_name) - {head_name}):
        issues.append(f"Unknown predicate {name}({var}) is not declared in the vocabulary; remove it or use a declared predicate.")
    for name in sorted(positive & negated):
        contradictions.append(f"{name}({var}) is required and negated in the same body, so the rule can never fire.")

    reported: set[str] = set()
    described = {p.name: p.desc for p in preds}
    for p, eid, sent in _said_not_needed(case, vocab_ids, preds, common):
        if p.name in positive and p.name not in reported:
            issues.append(f"Over-restrictive condition {p.literal(var)}: {eid} says it is not required "
                          f"(\"{sent}\"); remove it.")
        reported.add(p.name)
    for eid, sent in evidence_sentences(case, vocab_ids):
        kind = cue_kind(sent)
        scope = not_required_clause(sent) if kind == "not_required" else sent
        hits = [p for p in preds if matches(scope, p, common)]
        covered = [p.literal(var) for p in hits if p.name in positive]
        note = f"{eid}; partly covered by {', '.join(covered)}" if covered else eid
        if repeals(sent):
            # A later text withdrew what it names: the rule must not keep it, as a condition or an exception.
            named = set(withdrawn_names(sent, described))
            for p in preds:
                if p.name in named and p.name in positive | negated and p.name not in reported:
                    issues.append(f"Over-restrictive condition {p.literal(var)}: {eid} says it no longer applies "
                                  f"(\"{sent}\"); remove it.")
                    reported.add(p.name)
            # "The induction is replaced by a capsize check": what takes the withdrawn condition's place.
            for name in successor_names(sent, described):
                p = by_name[name]
                if p.group == "condition" and name not in positive and name not in reported:
                    issues.append(f"Missing condition {p.literal(var)}: {eid} puts it in place of what it "
                                  f"withdraws (\"{sent}\"); add it.")
                    reported.add(name)
            continue
        if kind == "exception":
            edge_cases.append(f"{sent} ({note})")
            rule_part, carved_out = split_exception(sent)
            for p in preds:
                if p.name in reported or p.name in negated:
                    continue
                if p.group == "defeater" and matches(carved_out, p, common):
                    issues.append(f"Unhandled defeater: add not {p.literal(var)}; {eid} says \"{sent}\"")
                    reported.add(p.name)
                elif p.group == "condition" and p.name not in positive and (
                        matches(rule_part, p, common) or matches(only_way(sent), p, common)):
                    issues.append(f"Missing condition {p.literal(var)}: {eid} requires it (\"{sent}\"); add it.")
                    reported.add(p.name)
            continue
        if kind == "prohibition" and not any(p.group == "defeater" for p in hits):
            edge_cases.append(f"{sent} ({note})")
        for p in hits:
            if p.name in reported:
                continue
            if kind == "not_required":
                if p.name in positive and not is_type(p):
                    issues.append(f"Over-restrictive condition {p.literal(var)}: {eid} says it is not required "
                                  f"(\"{sent}\"); remove it.")
                    reported.add(p.name)
            elif p.group == "condition" and p.name not in positive:
                issues.append(f"Missing condition {p.literal(var)}: {eid} requires it (\"{sent}\"); add it.")
                reported.add(p.name)
            elif p.group == "defeater" and p.name in positive:
                contradictions.append(f"Defeater {p.literal(var)} appears as a requirement, but {eid} says it "
                                      f"defeats the rule; negate it.")
                reported.add(p.name)
            elif p.group == "defeater" and p.name not in negated:
                issues.append(f"Unhandled defeater: add not {p.literal(var)}; {eid} says \"{sent}\"")
                edge_cases.append(f"A case where {p.desc} ({eid}).")
                reported.add(p.name)
    # A condition no passage sets (a fact of the case the question mentions, "a tenant of a half plot
    # has asked") narrows the rule to that case: the rule keeps only what the passages require.
    for name in sorted(positive):
        p = by_name.get(name)
        if p is not None and p.group == "other" and name not in reported:
            issues.append(f"Over-restrictive condition {p.literal(var)}: no passage makes it a condition of "
                          f"{head_name}; remove it.")
            reported.add(name)
    # Defeaters the vocabulary itself states ("... unless the consumer cancels"), not backed by a passage sentence.
    for p in preds:
        if p.group == "defeater" and p.name not in reported and p.name not in negated:
            issues.append(f"Unhandled defeater: add not {p.literal(var)}; the vocabulary says the rule fails "
                          f"when {p.desc}.")
            reported.add(p.name)

    known = (positive | negated) & set(by_name)
    if not check.ok and not known:
        recommendation = "reject"
    elif issues or contradictions:
        recommendation = "revise"
    else:
        recommendation = "accept"
    return _antithesis_out(issues, edge_cases, contradictions, recommendation,
                           asp_reading(case, rule, preds, vocab_ids))


def _plain_synthesis(case: Case, thesis_out: dict[str, Any], anti: dict[str, Any]) -> dict[str, Any]:
    subject = subject_of(case.question)
    found = statements(case, subject)
    rule = thesis_out["rule"]
    raised = " ".join(anti.get("issues", []))
    keep = [s for s in found if reflected(s, rule) or shortened(s.sentence, 200) in raised]
    added = [s for s in keep if not reflected(s, rule)]
    if not keep:
        reading = plain_reading(case, [], [f"which conditions the passages set for {subject}"])
        return {"rule": no_rule(subject), "argument": "No passage states a condition the rule could rest on.",
                "confidence": NO_RULE_CONFIDENCE, "uncertainties": reading.uncertainties()}
    reading = plain_reading(case, keep, [])
    base = float(thesis_out.get("confidence", PLAIN_CONFIDENCE))
    confidence = reading.cap(min(CONFIDENCE_CAP, base + CONFIDENCE_PER_FIX * len(added)))
    changes = [f"added the {s.kind} from {s.evidence_id}" for s in added]
    argument = ("Rewrote the rule from the passages' conditions. Changes: " + "; ".join(changes) + "."
                if changes else "No change: the critique named no condition the passages state that the rule misses.")
    return {"rule": plain_rule(subject, keep), "argument": argument, "confidence": confidence,
            "uncertainties": reading.uncertainties()}


@register("dialectic", "synthesis")
def synthesis(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    thesis_out = payload["thesis"]
    anti = payload["antithesis"]
    preds, vocab_ids = vocabulary(case)
    head_q = head_of(case.question, preds)
    if not preds or head_q is None:
        return _plain_synthesis(case, thesis_out, anti)
    order = {p.name: i for i, p in enumerate(preds)}
    group = {p.name: p.group for p in preds}
    head, body = body_parts(thesis_out["rule"])
    head_name, var = head_q
    if head is None:
        head = f"{head_name}({var})"
    var = (re.findall(r"\(([A-Z]\w*)", head) or [var])[0]

    body = list(dict.fromkeys(body))
    changes: list[str] = []
    for issue in [*anti.get("issues", []), *anti.get("contradictions", [])]:
        named = [n for n in PRED_NAME.findall(issue) if n in order]
        if issue.startswith(ENGINE_ISSUE_PREFIX) or issue.startswith("Syntax:"):
            changes.append("rewrote the rule from its literals so that it parses")
            continue
        if issue.startswith("Unknown predicate"):
            unknown = PRED_NAME.findall(issue)[:1]
            body = [b for b in body if literal_name(b) not in unknown]
            changes.append(f"removed undeclared {unknown[0]}" if unknown else "removed an undeclared predicate")
            continue
        for name in named[:1]:
            lit = f"{name}({var})"
            if issue.startswith("Over-restrictive"):
                body = [b for b in body if literal_name(b) != name]
                changes.append(f"removed {lit}")
            elif group.get(name) == "defeater":
                body = [b for b in body if literal_name(b) != name] + [f"not {lit}"]
                changes.append(f"added not {lit}")
            elif f"{lit}" not in body:
                body.append(lit)
                changes.append(f"added {lit}")
    # Conditions first in vocabulary order, negated defeaters last, so equal rules read the same.
    body.sort(key=lambda b: (b.startswith("not "), order.get(literal_name(b), len(order))))
    rule = build_rule(head, body)
    changes = list(dict.fromkeys(changes))
    reading = asp_reading(case, rule, preds, vocab_ids)
    base = float(thesis_out.get("confidence", 0.5))
    confidence = reading.cap(min(CONFIDENCE_CAP, base + CONFIDENCE_PER_FIX * len(changes)))
    argument = ("Synthesized rule by addressing critique issues. Changes: " + "; ".join(changes) + "."
                if changes else "No change: the critique raised nothing the declared predicates can express.")
    return {"rule": rule, "argument": argument, "confidence": round(confidence, 4),
            "uncertainties": reading.uncertainties()}
