"""Offline agents for the dialectic protocol (the dialectic source protocol): generator, critic and synthesizer.

They read the question and the passages, nothing else. Sentences state rules through general cues
(`data/lexicons/rule_cues_en.txt`: "must", "need not", "unless", "void", ...).

- ASP, when a vocabulary passage declares the predicates the rule may use (`name(C): description`,
  optionally grouped under labels such as "Conditions:" or "Defeaters:"), or when the question asks
  for ASP. Without labels, a predicate is a condition when a passage sentence requires what it
  describes, and a defeater when a description or passage says "unless" it holds. The generator
  starts from the predicates the question names; the critic maps every other passage sentence to a
  predicate (a required condition the rule lacks, an unnegated defeater, a condition the evidence
  says is not needed) and clingo reports real syntax problems; the synthesizer applies the issues.
- Plain language otherwise: the rule is written in words from the conditions the passages state
  (joined by "and") and what they rule out (joined by "unless"), each citing its passage.

Each agent measures its reading (debate_core/providers/offline/reading.py): a requirement no predicate can
express, or a question the passages barely cover, lowers its confidence and is named as something it
could not assess. When no rule can be built from the passages it says so; it never makes one up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ...core.lexicons import LEXICON_DIR
from ...core.schemas import Case
from ...core.text import sentences, terms
from ...providers.offline.agents import register
from ...providers.offline.reading import Reading, quoted_material, read
from .rules import ENGINE_ISSUE_PREFIX, check_asp, rule_literals

_DECL = re.compile(r"\b([a-z][a-z0-9_]*)\(([A-Z][A-Za-z0-9_]*(?:\s*,\s*[A-Z][A-Za-z0-9_]*)*)\)\s*:\s*([^;.]+)")
_LABEL = re.compile(r"([A-Z][A-Za-z ]{2,30}):\s")
_HEAD = re.compile(r"\b([a-z][a-z0-9_]*)\(([A-Z][A-Za-z0-9_]*)\)")
_PRED_NAME = re.compile(r"\b([a-z][a-z0-9_]*)\s*\(")
_ASKS_ASP = re.compile(r"\b(ASP|answer set program\w*|clingo|logic program)\b", re.I)
# A prohibition of failing to do something ("unlawful ... to fail to", "charge ... without") is a requirement.
_DOUBLE_NEGATIVE = re.compile(r"\b(fail(?:s|ing)? to|without)\b", re.I)
_UNLESS_CLAUSE = re.compile(r"\b(?:unless|except (?:where|when|if))\b([^;.,]+)", re.I)
_LABEL_PREFIX = re.compile(r"^\s*[A-Z][A-Za-z ]{0,30}:\s+")
_WHEN_CLAUSE = re.compile(r"\bwhen\b\s+(.+?)(?:,?\s+and\s+when\b|[?;]|\.(?:\s|$)|$)", re.I | re.S)
_SECTION_REF = re.compile(r"\s*\((?=[^()]*\d)[^()]*(?:\([^()]*\)[^()]*)*\)")
_WHETHER_CLAUSE = re.compile(r"\bwhether\b\s+(.+?)(?:[?;]|\.(?:\s|$)|$)", re.I | re.S)

# Added per resolved issue: each evidence-backed fix makes the synthesizer a little surer.
CONFIDENCE_PER_FIX = 0.02
CONFIDENCE_CAP = 0.9
# A thesis built from declared predicates, and one written in words from the passages' conditions.
ASP_CONFIDENCE = 0.65
PLAIN_CONFIDENCE = 0.6
# What an agent states when it could not build a rule from the passages at all.
NO_RULE_CONFIDENCE = 0.2
# Words of a predicate name match a sentence's words when one is a prefix of the other at least
# this long ("cancel"/"cancelled", "clear"/"clearly"): the light stemmer leaves such pairs apart.
MIN_PREFIX = 4


@lru_cache(maxsize=1)
def cues() -> dict[str, tuple[str, ...]]:
    """The rule cues by section, from data/lexicons/rule_cues_en.txt (sources in its README)."""
    out: dict[str, list[str]] = {}
    section = ""
    for line in (LEXICON_DIR / "rule_cues_en.txt").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        out.setdefault(section, []).append(line.lower())
    # Longest first, so that "does not require" is found before "require".
    return {k: tuple(sorted(v, key=len, reverse=True)) for k, v in out.items()}


def _has_cue(sentence: str, section: str) -> bool:
    low = sentence.lower()
    return any(re.search(rf"\b{re.escape(c)}s?\b", low) for c in cues()[section])


def cue_kind(sentence: str) -> str | None:
    """What a sentence does to a rule: 'not_required', 'exception', 'obligation', 'prohibition' or None."""
    if _has_cue(sentence, "not_required"):
        return "not_required"
    if _has_cue(sentence, "exception"):
        return "exception"
    if _has_cue(sentence, "prohibition"):
        return "obligation" if _DOUBLE_NEGATIVE.search(sentence) else "prohibition"
    if _has_cue(sentence, "obligation"):
        return "obligation"
    return None


def asks_for_asp(question: str) -> bool:
    return bool(_ASKS_ASP.search(question))


# ---------------------------------------------------------------------------
# The vocabulary of declared predicates
# ---------------------------------------------------------------------------


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


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    return len(short) >= MIN_PREFIX and long_.startswith(short)


def _covers(words: set[str], wanted: set[str]) -> bool:
    return bool(wanted) and all(any(_same(w, x) for x in words) for w in wanted)


def _hits(wanted: set[str], words: set[str]) -> set[str]:
    return {w for w in wanted if any(_same(w, x) for x in words)}


def _common_terms(preds: list[Pred]) -> set[str]:
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
    if name_terms - common and _covers(words, name_terms):
        return True
    desc = set(terms(pred.desc)) - common - name_terms
    hit = _hits(desc, words)
    return len(hit) >= 2 and len(hit) >= 0.6 * len(desc)


def _evidence_sentences(case: Case, skip: set[str]) -> list[tuple[str, str]]:
    return [(ev.id, s) for ev in case.evidence if ev.id not in skip for s in sentences(ev.text)]


def vocabulary(case: Case) -> tuple[list[Pred], set[str]]:
    """Declared predicates (each with its group) and the ids of the passages that declare them.

    Labels in the vocabulary passage group the predicates. Without them the passages do: a
    predicate an "unless" clause names is a defeater, one a requirement sentence names is a
    condition, the rest are other facts.
    """
    preds, vocab_ids, labelled = _declared(case)
    if labelled or not preds:
        return preds, vocab_ids
    common = _common_terms(preds)
    unless = [m.group(1) for p in preds for m in _UNLESS_CLAUSE.finditer(p.desc)]
    unless += [m.group(1) for _, s in _evidence_sentences(case, vocab_ids) for m in _UNLESS_CLAUSE.finditer(s)]
    required = [s for _, s in _evidence_sentences(case, vocab_ids) if cue_kind(s) == "obligation"]
    grouped: list[Pred] = []
    for p in preds:
        name_terms = set(terms(p.name.replace("_", " ")))
        if any(_covers(set(terms(clause)), name_terms) for clause in unless):
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


def unexpressed(case: Case, preds: list[Pred], vocab_ids: set[str]) -> list[tuple[str, str]]:
    """Requirement sentences no declared predicate expresses: what an ASP rule over them cannot assess."""
    common = _common_terms(preds)
    return [(eid, s) for eid, s in _evidence_sentences(case, vocab_ids)
            if cue_kind(s) == "obligation" and not any(matches(s, p, common) for p in preds)]


def asp_reading(case: Case, rule: str, preds: list[Pred], vocab_ids: set[str]) -> Reading:
    """How much of the case an ASP rule over the declared predicates could use."""
    common = _common_terms(preds)
    _, body = _body_parts(rule)
    used_names = {_name(b) for b in body}
    used = [p for p in preds if p.name in used_names]
    # The passages the agent mapped onto the vocabulary: those it relied on to add, keep or drop a literal.
    backing = sorted({eid for eid, s in _evidence_sentences(case, vocab_ids)
                      if any(matches(s, p, common) for p in preds)})
    texts = [p.desc for p in used] + [ev.text for ev in case.evidence if ev.id in backing]
    gaps = [f"the requirement in {eid} that no declared predicate expresses (\"{_short(s)}\")"
            for eid, s in unexpressed(case, preds, vocab_ids)]
    return read(topic_of(case.question), texts + quoted_material(case.question), passages=len(backing), gaps=gaps)


def _short(sentence: str, limit: int = 120) -> str:
    s = " ".join(sentence.split())
    return s if len(s) <= limit else s[: limit - 3].rstrip() + "..."


# ---------------------------------------------------------------------------
# Plain-language rules
# ---------------------------------------------------------------------------


def _unquoted(question: str) -> str:
    """The question without the text it quotes: a quoted clause is material, not what is asked."""
    return re.sub(r"\"[^\"]*\"|“[^”]*”", " ", question)


def subject_of(question: str) -> str:
    """What the rule is about: the question's "when ..." (else "whether ...") clause, else the question."""
    text = _unquoted(question)
    for pattern in (_WHEN_CLAUSE, _WHETHER_CLAUSE):
        for sent in reversed(sentences(text)):
            m = pattern.search(sent)
            if m and len(m.group(1).split()) >= 2:
                return " ".join(m.group(1).split()).rstrip(".?")
    return " ".join(_LABEL_PREFIX.sub("", question).split()).rstrip(".?")


def topic_of(question: str) -> str:
    """The part of the question a reading is measured against: what the rule is about, without the
    instruction to write it (a sentence asking for the "rule" keeps only its "when" clause) and
    without a leading label such as "Knowledge gap:"."""
    parts: list[str] = []
    for sent in sentences(question):
        sent = _LABEL_PREFIX.sub("", sent)
        if re.search(r"\brules?\b", _unquoted(sent), re.I):
            m = _WHEN_CLAUSE.search(_unquoted(sent))
            if m:
                parts.append(m.group(1))
            continue
        parts.append(sent)
    return " ".join(parts) or question


def _clause(sentence: str) -> str:
    """A passage sentence as a clause of the rule, without its closing period and citation marks."""
    s = " ".join(sentence.split()).rstrip(".")
    # Section references in parentheses ("(section 2(2))") cite the source; the passage id does that here.
    s = _SECTION_REF.sub("", s)
    m = re.search(r"\bexcept (?:in so far as|where|when|if)\b(.+)$", s, re.I)
    if m:  # "cannot ... except in so far as X": X is the condition.
        return m.group(1).strip()
    return s[0].lower() + s[1:] if s[:1].isupper() and not s[1:2].isupper() else s


@dataclass(frozen=True)
class Statement:
    """A passage sentence that states a condition or something that rules the conclusion out."""

    evidence_id: str
    sentence: str
    kind: str  # "condition" or "exception"

    @property
    def clause(self) -> str:
        return _clause(self.sentence)


def statements(case: Case, subject: str) -> list[Statement]:
    """The conditions and exceptions the passages state about the question's subject."""
    topic = set(terms(subject)) | set(terms(case.question))
    out: list[Statement] = []
    for eid, sent in _evidence_sentences(case, set()):
        kind = cue_kind(sent)
        if kind is None or kind == "not_required" or not _hits(set(terms(sent)), topic):
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
    return rule + "."


def reflected(statement: Statement, rule: str) -> bool:
    """Whether a rule reflects a passage's statement: most of its content words appear in the rule."""
    wanted = set(terms(statement.clause))
    return bool(wanted) and len(_hits(wanted, set(terms(rule)))) >= 0.6 * len(wanted)


def plain_reading(case: Case, found: list[Statement], gaps: list[str]) -> Reading:
    ids = sorted({s.evidence_id for s in found})
    texts = [ev.text for ev in case.evidence if ev.id in ids]
    return read(topic_of(case.question), texts + quoted_material(case.question), passages=len(ids), gaps=gaps)


def _no_rule(subject: str) -> str:
    return (f"No rule could be built from the passages: none of them states a condition for, or an "
            f"exception to, {subject[0].lower() + subject[1:]}.")


def _plain_thesis(case: Case, asp_asked: bool) -> dict[str, Any]:
    subject = subject_of(case.question)
    found = statements(case, subject)
    gaps: list[str] = []
    if asp_asked:
        gaps.append("an ASP rule: the passages declare no predicates (name(X): meaning) to write it with")
    if not found:
        gaps.append(f"which conditions the passages set for {subject}")
        reading = plain_reading(case, found, gaps)
        return {"rule": _no_rule(subject), "reasoning": "No passage sentence states a requirement, an exception "
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


# ---------------------------------------------------------------------------
# The three agents
# ---------------------------------------------------------------------------


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
    body = [p.literal(var) for p in preds
            if p.group != "defeater" and _covers(q_terms, set(terms(p.name.replace("_", " "))))]
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
    issues = [f"Missing {s.kind} from {s.evidence_id}: the rule does not reflect \"{_short(s.sentence, 200)}\"; add it."
              for s in found if not reflected(s, rule)]
    edge_cases = [f"{s} ({eid})" for eid, s in _evidence_sentences(case, set()) if cue_kind(s) == "not_required"]
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


@register("dialectic", "antithesis")
def antithesis(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    rule: str = payload["thesis"]["rule"]
    preds, vocab_ids = vocabulary(case)
    head_q = head_of(case.question, preds)
    if not preds or head_q is None:
        return _plain_antithesis(case, rule)
    by_name = {p.name: p for p in preds}
    common = _common_terms(preds)
    head, body = _body_parts(rule)
    head_name, var = head_q
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
        issues.append(f"Unknown predicate {name}({var}) is not declared in the vocabulary; remove it or use a declared predicate.")
    for name in sorted(positive & negated):
        contradictions.append(f"{name}({var}) is required and negated in the same body, so the rule can never fire.")

    reported: set[str] = set()
    for eid, sent in _evidence_sentences(case, vocab_ids):
        kind = cue_kind(sent)
        hits = [p for p in preds if matches(sent, p, common)]
        covered = [p.literal(var) for p in hits if p.name in positive]
        note = f"{eid}; partly covered by {', '.join(covered)}" if covered else eid
        if kind == "exception":
            edge_cases.append(f"{sent} ({note})")
            continue
        if kind == "prohibition" and not any(p.group == "defeater" for p in hits):
            edge_cases.append(f"{sent} ({note})")
        for p in hits:
            if p.name in reported:
                continue
            if kind == "not_required":
                if p.name in positive:
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
    keep = [s for s in found if reflected(s, rule) or _short(s.sentence, 200) in raised]
    added = [s for s in keep if not reflected(s, rule)]
    if not keep:
        reading = plain_reading(case, [], [f"which conditions the passages set for {subject}"])
        return {"rule": _no_rule(subject), "argument": "No passage states a condition the rule could rest on.",
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
    head, body = _body_parts(thesis_out["rule"])
    head_name, var = head_q
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
    reading = asp_reading(case, rule, preds, vocab_ids)
    base = float(thesis_out.get("confidence", 0.5))
    confidence = reading.cap(min(CONFIDENCE_CAP, base + CONFIDENCE_PER_FIX * len(changes)))
    argument = ("Synthesized rule by addressing critique issues. Changes: " + "; ".join(changes) + "."
                if changes else "No change: the critique raised nothing the declared predicates can express.")
    return {"rule": rule, "argument": argument, "confidence": round(confidence, 4),
            "uncertainties": reading.uncertainties()}
