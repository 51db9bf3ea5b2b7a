"""The supervisor: the first sentence answers the question from the agreed claim that covers the
most of it; the supporting points, the disputes and what a human must decide follow."""

from __future__ import annotations

import re
from typing import Any

from ....core.options import named_options, offered_options
from ....core.schemas import AgentOutput, Case
from ....core.text import HEARSAY, evidence_authority, has_negation, sentences, terms
from ....providers.offline import reading
from ....providers.offline.agents import register
from ...common import unassessed
from ..answer_rules import NO_AGREED_ANSWER
from .scoring import NEUTRAL_YIELD_MARK, YIELD_MARK, asked, contradiction, standing

# The opening claim must carry at least this share of the question's terms; otherwise the verdict
# says the agreed claims do not answer it rather than quote a passage about something else.
OPENING_COVERAGE = 0.2
# A statement checked against the evidence counts as supported when a few sentences running in one
# passage carry this share of its terms, and as partly supported from PARTLY_COVERED on (set on the
# WiCE dev split, bench/claims.py).
FULLY_COVERED = 0.7
PARTLY_COVERED = 0.2
UNSURE_CONFIDENCE = 0.45  # the supervisor's confidence in an option it chose without clear grounds


def _authority(case: Case, row: dict[str, Any]) -> float:
    """The standing of a claim's evidence, or hearsay's when its statement is a forum post's own words:
    citing a guide beside the post ("..., subject to OLD_GUIDE") does not make the post's words more."""
    by_id = case.evidence_by_id()
    opening_words = " ".join(row["statement"].split()[:8])
    if any(evidence_authority(by_id[e]) <= HEARSAY and opening_words in " ".join(by_id[e].text.split())
           for e in row.get("evidence", []) if e in by_id):
        return min(evidence_authority(by_id[e]) for e in row.get("evidence", []) if e in by_id)
    return standing(row.get("evidence", []), by_id)


def _opening(claims: list[dict[str, Any]], question: str, case: Case) -> dict[str, Any] | None:
    """The agreed claim the verdict opens with: among the supported claims that bear on the question
    (not the agents' statements about whose sources decide) and carry at least a fifth of its terms,
    the one that covers the most of them, weighted by its confidence and its evidence's authority."""
    q_terms = reading.question_terms(question)

    def covers(row: dict[str, Any]) -> float:
        return len(reading.covered(q_terms, [row["statement"]])) / len(q_terms) if q_terms else 0.0

    usable = [r for r in claims if r["supported"] and covers(r) >= OPENING_COVERAGE
              and not _about_sources(r["statement"])]
    # What a friend's message or a forum post says never opens the answer: hearsay is no answer.
    usable = [r for r in usable if _authority(case, r) > HEARSAY]
    return max(usable, key=lambda r: (covers(r) * r["confidence"] * (0.5 + _authority(case, r)), r["confidence"],
                                      r["ref"]), default=None)


def _checked_statement(question: str) -> str:
    """What a question with options asks to check: the statement it quotes ('Claim: "..." Is it
    supported?'), else its statements, else the question itself."""
    quoted = reading.quoted_material(question)
    if quoted:
        return " ".join(quoted)
    stated = [s for s in sentences(question) if not s.rstrip().endswith("?")]
    return " ".join(stated) or question


RESTATES = 0.9  # share of a passage's terms that are the statement's, for a passage that only restates it


def restates(passage: str, statement: str) -> bool:
    """The passage says nothing but the statement: nearly all its terms are the statement's."""
    p_terms, s_terms = set(terms(passage)), set(terms(statement))
    return bool(p_terms) and len(p_terms & s_terms) >= RESTATES * len(p_terms)


def _scale(options: list[str]) -> dict[str, str]:
    """Options on one scale of support: the base label, the ones that contain it with a negation
    ("not supported") and the ones that contain it with a qualifier ("partially supported").
    Yes/no is the same scale. {} when the options are not such a scale."""
    if set(options) == {"yes", "no"}:
        return {"yes": "positive", "no": "negative"}
    base = min(options, key=len)
    words = set(base.split())
    if not all(words <= set(o.split()) for o in options if o != base):
        return {}
    return {o: "positive" if o == base else "negative" if has_negation(o) else "partial" for o in options}


def choose_option(question: str, options: list[str], agreed: list[dict[str, Any]], disputed: list[dict[str, Any]],
                  case: Case) -> tuple[str, str, bool]:
    """The offered option the debate supports, why, and whether the grounds are clear. On a scale of
    support: a passage that contradicts the checked statement makes it the negative option; agreed
    claims that carry most of its terms, undisputed, the positive one; some of them, the partial one.
    Otherwise the option the supported claims and their passages name most, by confidence and authority."""
    supported = [r for r in agreed if r["supported"] and not _about_sources(r["statement"])]
    by_id = case.evidence_by_id()
    scale = _scale(options)
    if scale:
        checked = _checked_statement(question)
        # A passage that only restates the statement (the worksheet the claim was copied from) is its
        # source, not evidence for it.
        sources = {e.id: e.text for e in case.evidence if not restates(e.text, checked)}
        cited = list(dict.fromkeys(e for r in [*agreed, *disputed] for e in r.get("evidence", []) if e in sources))
        against = next(((e, how) for e in cited if (how := contradiction(checked, sources[e]))), None)
        pick = {v: k for k, v in scale.items()}
        # What the statement says must be found together in the evidence, not scattered over it.
        found = reading.support(terms(checked), sources)
        share = found.share if found else 0.0
        where = f"{found.evidence_id} carries {share:.0%} of its terms in a few sentences" if found else \
            "no passage carries its terms"
        if against and "negative" in pick:
            if share >= PARTLY_COVERED and "partial" in pick and found.evidence_id != against[0]:
                # One passage denies part of it while another says the rest: partly supported.
                return pick["partial"], f"{where}, but {against[0]} contradicts part of it: {against[1]}", False
            return pick["negative"], f"{against[0]} contradicts it: {against[1]}", True
        if share >= FULLY_COVERED:
            # The agents' disputes are about their own claims; the check is of the statement itself.
            return pick["positive"], where + (", though some claims are disputed" if disputed else ""), not disputed
        if share >= PARTLY_COVERED and "partial" in pick:
            return pick["partial"], where, False
        return pick.get("negative") or options[-1], f"only {where}" if found else where, False
    scores = {}
    for option in options:
        scores[option] = sum(r["confidence"] * (0.5 + _authority(case, r))
                             for r in supported
                             if named_options(" ".join([r["statement"], *(by_id[e].text for e in r.get("evidence", [])
                                                                         if e in by_id)]), [option]))
    ranked = sorted(options, key=lambda o: -scores[o])
    best = ranked[0]
    clear = scores[best] > 0 and (len(ranked) < 2 or scores[best] > 1.5 * scores[ranked[1]])
    why = ("the supported claims and their passages point to it" if scores[best] > 0
           else "no supported claim names any of the options")
    return best, why, clear


def _before_comma(source: str) -> str:
    """A source's name: what comes before its first comma outside brackets ("Consumer Contracts
    (Information, Cancellation ...) Regulations 2013, as commonly summarised")."""
    depth = 0
    for i, ch in enumerate(source):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            return source[:i].strip()
    return source.strip()


def _source_named(case: Case, claim: dict[str, Any]) -> str:
    """The source the opening claim rests on, by its name ("; Regulatory Reform (Fire Safety) Order
    2005"): the reviewer sees where the answer comes from, not only which agent said it."""
    by_id = {e.id: e for e in case.evidence}
    names = [_before_comma(by_id[e].source) for e in claim.get("evidence", []) if e in by_id and by_id[e].source]
    names = [re.sub(r"\s*\((?:fictitious|public fact[^)]*)\)", "", n).strip() for n in names]
    return f"; {names[0]}" if names and names[0] else ""


def _about_sources(statement: str) -> bool:
    """An agent's statement about whose sources decide, not about the question itself."""
    return any(mark in statement for mark in ("should be decided primarily on the sources of",
                                              "bear most directly on the question", "point the same way",
                                              "lies outside it", "lead to the same result", YIELD_MARK,
                                              NEUTRAL_YIELD_MARK))


@register("cross_critique", "supervisor")
def supervisor(payload: dict[str, Any]) -> dict[str, Any]:
    finals: dict[str, AgentOutput] = payload["finals"]
    summary = payload["summary"]
    case: Case = payload["case"]
    agreed = summary["agreed_claims"]
    disputed = summary["disputed_claims"]
    opening = _opening(agreed, asked(case.question), case)
    parts = [opening["statement"] if opening else NO_AGREED_ANSWER]
    options = offered_options(case.question)
    chosen, clear = None, True
    if options:
        # The question offers answers: the verdict opens by naming exactly one of them.
        chosen, why, clear = choose_option(case.question, options, agreed, disputed, case)
        parts = [f"{chosen[:1].upper()}{chosen[1:]}: {why}" + ("." if clear else "; a reviewer should confirm this.")]
    # Hearsay is no supporting point: what a forum post says is not support for the answer.
    rest = sorted((c for c in agreed if c is not opening and c["supported"] and not _about_sources(c["statement"])
                   and _authority(case, c) > HEARSAY),
                  key=lambda c: (-c["confidence"], c["ref"]))
    seen = {parts[0]}
    points = []
    for c in rest:
        if c["statement"] not in seen:
            seen.add(c["statement"])
            points.append(f"{c['statement']} [{c['ref']}]")
    if opening:
        parts[0] += f" [{opening['ref']}{_source_named(case, opening)}]"
    if points:
        parts.append("Supporting points: " + " ".join(f"({i}) {p}" for i, p in enumerate(points[:3], start=1)))
    if disputed:
        parts.append("Disputed: " + " ".join(f"{c['statement']} [{c['ref']}]" for c in disputed[:3]))
    gaps = unassessed(u for out in finals.values() for u in out.uncertainties)
    if gaps:
        parts.append("The agents could not assess: " + "; ".join(gaps[:3]) + ".")
    if summary.get("escalation_reasons"):
        parts.append("A human reviewer must decide: " + "; ".join(summary["escalation_reasons"][:3]))
    if options and chosen:
        # Nothing after the opening may name another offered answer: a reader must see one proposal.
        parts = parts[:1] + [p for p in parts[1:] if named_options(p, options) in ([], [chosen])]
    confs = [c["confidence"] for c in agreed if c["supported"]]
    confidence = sum(confs) / len(confs) if confs else 0.3
    if disputed:
        confidence *= max(0.5, 1 - 0.08 * len(disputed))
    if gaps:
        confidence = min(confidence, reading.WEAK_CONFIDENCE_CAP)
    if not clear:
        confidence = min(confidence, UNSURE_CONFIDENCE)
    rationale = (
        f"{len(agreed)} claims stood after {summary['rounds']} rounds, {len(disputed)} remain disputed; "
        "open critiques: " + (", ".join(f"{n} {sev}" for sev, n in summary["open_critiques"].items() if n) or "none")
        + "."
    )
    return {
        "answer": " ".join(parts),
        "confidence": round(min(0.95, confidence), 2),
        "rationale": rationale,
        "agreed_claims": [c["ref"] for c in agreed],
        "disputed_claims": [c["ref"] for c in disputed],
    }
