"""Offline arbiter for the arbitration protocol (seed 004): deterministic, rule-based, no model.

It follows the seed's debate prompt step by step. First it asks whether the two findings measure
the same thing (same period, same unit, same definition); if not, both are valid. Otherwise it
compares the two sides on the seed's criteria in the seed's order and lets the first criterion
that separates them decide: source authority (the configured order, e.g. GCC-STAT > World Bank
> other, then the evidence passages' own authority), data freshness (publication dates of the
cited sources' passages), citation completeness (the citation names source, period and value,
and the value is found in a passage of the cited source) and agent confidence. When no criterion
separates them, or neither value can be found in its own cited source, it rules neither valid
and flags the contradiction for review.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..contradictions import (
    period_end,
    period_key,
    quoted_numbers,
    relative_difference,
    same_period,
    unit_key,
)
from ..moderator.arbitration import authority_order
from ..schemas import Case, Evidence
from ..text import authority_score, numbers
from . import register

# How far apart two sides must be on a criterion before it decides.
AUTHORITY_STEP = 0.1
COMPLETENESS_STEP = 0.19  # one of the five completeness checks
CONFIDENCE_STEP = 0.05
# A quoted or found number matches a reported value when within 0.5% of it (rounding in sources).
MATCH_TOLERANCE = 0.005
_DATE = re.compile(r"((?:19|20)\d\d)(?:[-/.](\d{1,2}))?")


def _norm(text: str | None) -> str:
    return re.sub(r"[^0-9a-z]+", "", (text or "").lower())


def _matches(value: float, found: float) -> bool:
    return relative_difference(value, found) <= MATCH_TOLERANCE


def _names(source: str | None, citation: str) -> bool:
    """Most of the source's words appear in the citation ("Gulf Jobs Watch blog" in "... Gulf Jobs Watch 2023")."""
    words = set(re.findall(r"[0-9a-z]+", (source or "").lower()))
    if not words:
        return False
    found = set(re.findall(r"[0-9a-z]+", citation.lower()))
    return len(words & found) / len(words) >= 0.5 or _norm(source) in _norm(citation)


def _is_year(v: float) -> bool:
    return v.is_integer() and 1900 <= v <= 2099


def _date(text: str | None) -> tuple[int, int] | None:
    m = _DATE.search(text or "")
    if not m:
        return None
    return int(m.group(1)), int(m.group(2) or 12)


@dataclass
class Side:
    n: int
    agent: str
    value: float | None
    unit: str | None
    source: str | None
    period: str | None
    citation: str
    confidence: float
    interpretation: str | None
    definition: str | None
    passages: list[Evidence]

    @property
    def cited(self) -> list[Evidence]:
        """The source's passages that carry the reported value, or all of them when none does."""
        if self.value is None:
            return self.passages
        value = self.value
        hits = [ev for ev in self.passages if any(_matches(value, v) for v in quoted_numbers(ev.text))]
        return hits or self.passages

    @property
    def label(self) -> str:
        return f"agent {self.n} ({self.agent})"

    def shown(self) -> str:
        if self.value is None:
            return f"'{self.interpretation or 'no reading'}'"
        return f"{self.value:g}%" if unit_key(self.unit) == "%" else f"{self.value:g} {self.unit or ''}".rstrip()


def _passages_for(source: str | None, citation: str, evidence: list[Evidence]) -> list[Evidence]:
    key = _norm(source)
    cited_ids = set(re.findall(r"[\w.-]+", citation or ""))
    out = []
    for ev in evidence:
        ev_key = _norm(ev.source)
        if ev.id in cited_ids or (key and ev_key and (key in ev_key or ev_key in key)):
            out.append(ev)
    return out


def _side(n: int, c: dict[str, Any], case: Case | None) -> Side:
    p = f"agent{n}_"
    definition = None
    report_pos = c.get(f"report{n}")
    if case is not None and isinstance(report_pos, int) and 0 <= report_pos < len(case.reports):
        extra = case.reports[report_pos].model_extra or {}
        definition = extra.get("definition") or extra.get("methodology")
    evidence = list(case.evidence) if case is not None else []
    return Side(
        n=n,
        agent=c[p + "name"],
        value=c.get(p + "value"),
        unit=c.get(p + "unit"),
        source=c.get(p + "source"),
        period=c.get(p + "period"),
        citation=c.get(p + "citation") or "",
        confidence=float(c.get(p + "confidence") or 0.0),
        interpretation=c.get(p + "interpretation"),
        definition=str(definition) if definition else None,
        passages=_passages_for(c.get(p + "source"), c.get(p + "citation") or "", evidence),
    )


# ---------------------------------------------------------------------------
# The four criteria
# ---------------------------------------------------------------------------


def authority(side: Side, order: list[str]) -> tuple[float, str]:
    """Sources in the configured order score above 2, by rank; others score their passages' authority (0-1)."""
    ranked = [name for name in order if _norm(name) and _norm(name) != "other"]
    haystack = _norm(side.source) or _norm(side.citation)
    for rank, name in enumerate(ranked):
        if _norm(name) in haystack:
            return 2.0 + len(ranked) - rank, f"{name}, rank {rank + 1} in {' > '.join(ranked + ['other'])}"
    levels = [authority_score(ev.authority) for ev in side.cited if ev.authority is not None]
    if levels:
        return max(levels), f"{side.source or 'unnamed source'}, passage authority {max(levels):.2f}"
    return authority_score(None), f"{side.source or 'unnamed source'}, authority unknown"


def freshness(side: Side) -> tuple[tuple[int, int] | None, str]:
    dates = [d for d in (_date(ev.date) for ev in side.cited) if d is not None]
    if dates:
        latest = max(dates)
        return latest, f"published {latest[0]}-{latest[1]:02d}"
    end = period_end(side.period)
    if end is not None:
        return end, f"period {side.period}"
    return None, "undated"


def verification(side: Side) -> str:
    """verified / not found (the cited source's passages give other figures) / no figures / no passage / no value."""
    if side.value is None:
        return "no value"
    if not side.passages:
        return "no passage"
    figures = [v for ev in side.passages for v, unit in numbers(ev.text) if unit or not _is_year(v)]
    if any(_matches(side.value, v) for v in figures):
        return "verified"
    # Passages without any figure neither support nor contradict the value.
    return "not found" if figures else "no figures"


def completeness(side: Side) -> tuple[float, list[str]]:
    cite = side.citation or ""
    checks = {
        "has a citation": bool(cite.strip()),
        "names the source": _names(side.source, cite),
        "names the period": bool(side.period) and (
            _norm(side.period) in _norm(cite) or period_key(side.period) == period_key(cite)
        ),
        "quotes the value": side.value is not None and any(_matches(side.value, v) for v in quoted_numbers(cite)),
        "value found in the cited source": verification(side) == "verified",
    }
    missing = [name for name, ok in checks.items() if not ok]
    return sum(checks.values()) / len(checks), missing


def _favour(a: float | None, b: float | None, step: float) -> int:
    if a is None or b is None or abs(a - b) < step:
        return 0
    return 1 if a > b else 2


def _favour_dates(a: tuple[int, int] | None, b: tuple[int, int] | None) -> int:
    if a is None or b is None or a == b:
        return 0
    return 1 if a > b else 2


# ---------------------------------------------------------------------------
# The ruling
# ---------------------------------------------------------------------------


def _different_measures(s1: Side, s2: Side, kinds: list[str]) -> str | None:
    if "source_conflict" in kinds:
        return None
    if s1.unit and s2.unit and unit_key(s1.unit) != unit_key(s2.unit):
        return f"they use different units ({s1.unit} vs {s2.unit}), so they measure different things"
    if same_period(s1.period, s2.period) is False:
        return f"they cover different periods ({s1.period} vs {s2.period})"
    if s1.definition and s2.definition and _norm(s1.definition) != _norm(s2.definition):
        return f"they use different definitions ({s1.definition} vs {s2.definition})"
    return None


def _result(resolution: str, action: str, explanation: str, value: Any, citation: str | None,
            confidence: float) -> dict[str, Any]:
    return {
        "resolution": resolution,
        "explanation": explanation,
        "recommended_value": value,
        "recommended_citation": citation or None,
        "confidence": round(max(0.0, min(1.0, confidence)), 2),
        "action": action,
    }


def arbitrate_contradiction(c: dict[str, Any], case: Case | None, order: list[str]) -> dict[str, Any]:
    s1, s2 = _side(1, c, case), _side(2, c, case)
    kinds = list(c.get("kinds") or [])
    metric = c.get("metric_name", "the metric")

    if kinds == ["confidence"]:
        a1, a2 = authority(s1, order)[0], authority(s2, order)[0]
        keep = s2 if a2 > a1 + AUTHORITY_STEP else s1
        return _result(
            "both_valid", "use_both",
            f"A{s1.label[1:]} and {s2.label} report the same {metric} ({s1.shown()} and {s2.shown()}, within the "
            f"threshold); they differ only in how sure they are ({s1.confidence:.2f} vs {s2.confidence:.2f}). "
            f"The finding stands; the gap in confidence is kept as context.",
            keep.value, keep.citation, 0.75,
        )

    differ = _different_measures(s1, s2, kinds)
    if differ:
        fresher = _favour_dates(period_end(s1.period), period_end(s2.period))
        recent = {1: s1, 2: s2}.get(fresher)
        tail = f" The more recent figure is {recent.shown()} ({recent.source}, {recent.period})." if recent else ""
        return _result(
            "both_valid", "use_both",
            f"Both findings on {metric} can be correct: {differ}. {s1.agent} reports {s1.shown()} "
            f"({s1.source or 'unnamed source'}, {s1.period or 'no period'}); {s2.agent} reports {s2.shown()} "
            f"({s2.source or 'unnamed source'}, {s2.period or 'no period'}).{tail}",
            recent.value if recent else None, recent.citation if recent else None, 0.8,
        )

    v1, v2 = verification(s1), verification(s2)
    if v1 == "not found" and v2 == "not found":
        return _result(
            "neither_valid", "flag_for_review",
            f"Neither value on {metric} appears in the passages of its own cited source "
            f"({s1.source}: {s1.shown()}; {s2.source}: {s2.shown()}); both extractions need checking.",
            None, None, 0.7,
        )

    (au1, why1), (au2, why2) = authority(s1, order), authority(s2, order)
    (f1, fwhy1), (f2, fwhy2) = freshness(s1), freshness(s2)
    (co1, miss1), (co2, miss2) = completeness(s1), completeness(s2)
    criteria = [
        ("source authority", _favour(au1, au2, AUTHORITY_STEP),
         f"{why1} vs {why2}" + (" (a gap under 0.1 does not count)"
                                if "passage authority" in why1 and "passage authority" in why2 else "")),
        ("data freshness", _favour_dates(f1, f2), f"{fwhy1} vs {fwhy2}"),
        ("citation completeness", _favour(co1, co2, COMPLETENESS_STEP),
         f"{round(co1 * 5)}/5 vs {round(co2 * 5)}/5 checks"
         + (f"; agent 1 lacks: {', '.join(miss1)}" if miss1 else "")
         + (f"; agent 2 lacks: {', '.join(miss2)}" if miss2 else "")),
        ("agent confidence", _favour(s1.confidence, s2.confidence, CONFIDENCE_STEP),
         f"{s1.confidence:.2f} vs {s2.confidence:.2f}"),
    ]
    what = "reading" if "value" not in kinds else "finding"
    lines = [f"Both findings concern {metric} for the same period ({s1.period or s2.period or 'unstated'}), "
             f"so at most one {what} can be correct."]
    for name, fav, detail in criteria:
        verdict = {0: "no difference", 1: f"favours {s1.label}", 2: f"favours {s2.label}"}[fav]
        lines.append(f"{name.capitalize()}: {detail} - {verdict}.")
    deciding = next(((name, fav) for name, fav, _ in criteria if fav), None)
    if deciding is None:
        lines.append("No criterion separates them, so the contradiction needs a human decision.")
        return _result("neither_valid", "flag_for_review", " ".join(lines), None, None, 0.5)
    name, winner = deciding
    agree = sum(1 for _, fav, _ in criteria if fav == winner)
    oppose = sum(1 for _, fav, _ in criteria if fav and fav != winner)
    win = s1 if winner == 1 else s2
    lines.append(f"Decided by {name}: {win.agent}'s {win.shown()} stands.")
    confidence = max(0.35, min(0.95, 0.45 + 0.1 * agree - 0.1 * oppose))
    return _result(f"agent{winner}_correct", f"use_agent{winner}", " ".join(lines), win.value,
                   win.citation, confidence)


@register("arbitration", "arbitrate")
def arbitrate(payload: dict[str, Any]) -> dict[str, Any]:
    order = payload.get("authority_order")
    if order is None:
        order = authority_order(getattr(payload.get("settings"), "options", None))
    return arbitrate_contradiction(payload["contradiction"], payload.get("case"), list(order))
