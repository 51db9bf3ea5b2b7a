"""Offline arbiter for the arbitration protocol (the contradiction-arbitration source protocol): deterministic, rule-based, no model.

It follows the source protocol's debate prompt step by step. First it asks whether the two findings measure
the same thing: same unit, same period, same definition. Definitions are read from the reports
(`period`, `unit`, `interpretation`, `definition`) and from the sentence of the cited passage that
carries each figure, with general cue phrases (annual average or end of period, survey or
administrative count, first or revised estimate) from data/lexicons/statistical_measures_en.tsv.
If they measure different things, both are valid, each with its context. Two modelled estimates of
the same thing that disagree are left to a person: a publisher's standing does not settle which
model is right. A figure (or a reading) its own cited passage does not carry is unverified and
does not win over one that is verified. Otherwise it compares the two sides on the source protocol's criteria
in the source protocol's order and lets the first criterion that separates them decide: source authority (the
configured order, if any, then the evidence passages' own `authority`), data freshness (publication
dates of the cited passages), citation completeness and agent confidence. When no criterion
separates them it rules neither valid and flags the contradiction for review.

Every ruling carries a measured reading (debate_core/providers/offline/reading.py): how much of the metric
the cited passages cover and whether each figure could be checked. A weak reading caps the
confidence and says, in plain words, what the arbiter could not assess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...core.schemas import Case, Evidence
from ...core.text import (
    DECISIVE_AUTHORITY_GAP,
    authority_score,
    calendar_months,
    clip_words,
    numbers,
    sentences,
)
from ...providers.offline.agents import register
from ...providers.offline.reading import read
from .contradictions import (
    BOTH_OFFERED,
    LAST_UPDATED,
    MATCH_TOLERANCE,
    durations,
    period_end,
    period_key,
    polarity,
    quoted_numbers,
    relative_difference,
    same_period,
    shown_value,
    source_passages,
    unit_key,
)
from .measures import (
    DEFINITION_GROUPS,
    cues_in,
    defined_as,
    difference_counted,
    label_of,
    measured_not_capacity,
    per_unit_against_whole,
    rate_the_terms_count,
    rates_of_different_totals,
    still_holds,
    years_of_different_kinds,
)
from .rules import authority_order
from .units import (
    derived_share,
    is_year,
    misread_unit,
    misread_words,
    same_part_of_different_wholes,
    worked_from,
)

# How far apart two sides must be on a criterion before it decides.
AUTHORITY_STEP = 0.1
COMPLETENESS_STEP = 0.19  # one of the five completeness checks
CONFIDENCE_STEP = 0.05
# Source authority that differs by DECISIVE_AUTHORITY_GAP (core/text.py) decides on its own: the later criteria
# are tie-breaks; a newer date, a fuller citation or a surer agent on the weaker side does not lower its ruling.
DECISIVE_CONFIDENCE = 0.75
SELF_SAID_CONFIDENCE = 0.45  # a ruling only the agents' own confidence decides: under the review bar (0.5)
_DATE = re.compile(r"((?:19|20)\d\d)(?:[-/.](\d{1,2}))?")


def _norm(text: str | None) -> str:
    return re.sub(r"[^0-9a-z]+", "", (text or "").lower())


def _matches(value: float, found: float) -> bool:
    return relative_difference(value, found) <= MATCH_TOLERANCE


def _names(source: str | None, citation: str) -> bool:
    """Most of the source's words appear in the citation ("City Data blog" in "... from City Data 2023")."""
    words = set(re.findall(r"[0-9a-z]+", (source or "").lower()))
    if not words:
        return False
    found = set(re.findall(r"[0-9a-z]+", citation.lower()))
    return len(words & found) / len(words) >= 0.5 or _norm(source) in _norm(citation)


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
    evidence: list[Evidence] = field(default_factory=list)

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
        return shown_value(self.value, self.unit)

    @property
    def value_passages(self) -> list[Evidence]:
        """Only the passages that carry the reported value (none when it is not found)."""
        if self.value is None:
            return []
        value = self.value
        return [ev for ev in self.passages if any(_matches(value, v) for v in quoted_numbers(ev.text))]

    def value_clauses(self) -> list[str]:
        """The sentence parts (split at ';') of the cited passages that carry the reported value."""
        if self.value is None:
            return []
        value = self.value
        out = []
        for ev in self.value_passages:
            for sentence in sentences(ev.text):
                for part in sentence.split(";"):
                    if any(_matches(value, v) for v in quoted_numbers(part)):
                        out.append(part.strip())
        return out

    def context(self) -> str:
        """What says which measure the figure is: the report's own fields and the figure's clauses."""
        own = [self.period, self.unit, self.interpretation, self.definition, self.citation]
        return " ".join([*(x for x in own if x), *self.value_clauses()])


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
        passages=source_passages(c.get(p + "source"), c.get(p + "citation") or "", evidence),
        evidence=evidence,
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


def _content_date(ev: Evidence) -> tuple[int, int] | None:
    """A passage's date, or the earlier date it says its content was last updated."""
    dated = _date(ev.date)
    said = LAST_UPDATED.search(ev.text)
    months = sorted(calendar_months(said.group(1))) if said else []
    if months and (dated is None or months[-1] < dated):
        return months[-1]
    return dated


def freshness(side: Side) -> tuple[tuple[int, int] | None, str]:
    dates = [d for d in (_content_date(ev) for ev in side.cited) if d is not None]
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
    figures = [v for ev in side.passages for v, unit in numbers(ev.text) if unit or not is_year(v)] \
        + [v for ev in side.passages for v in durations(ev.text)]
    if any(_matches(side.value, v) for v in figures) or derived_share(side.value, side.unit, side.citation):
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


def definition_difference(s1: Side, s2: Side) -> str | None:
    """Two figures are different measures when, in one cue group, each side's context names a kind
    and the two sets of kinds do not meet (an annual average against a 12-month change, a survey
    against a claims count, a first estimate against a revised one). A context naming both kinds of
    a group says nothing about that group."""
    c1, c2 = cues_in(s1.context()), cues_in(s2.context())
    for group in DEFINITION_GROUPS:
        k1, k2 = c1.get(group, {}), c2.get(group, {})
        if len(k1) == 1 and len(k2) == 1 and set(k1) != set(k2):
            (kind1, said1), (kind2, said2) = next(iter(k1.items())), next(iter(k2.items()))
            quote1 = ", ".join(f"'{w}'" for w in said1[:3])
            quote2 = ", ".join(f"'{w}'" for w in said2[:3])
            return (f"they measure different things: {s1.shown()} ({s1.source or 'unnamed source'}) is "
                    f"{label_of(group, kind1)} (its citation and passage say {quote1}), while {s2.shown()} "
                    f"({s2.source or 'unnamed source'}) is {label_of(group, kind2)} (they say {quote2})")
    return None


def modelled(side: Side) -> list[str]:
    """The cue phrases that present this side's figure as a modelled estimate (in its own passages)."""
    found = cues_in(" ".join(ev.text for ev in side.value_passages)).get("estimate", {})
    return [w for ws in found.values() for w in ws]


def reading_support(side: Side) -> str:
    """Whether the side's own passages state its reading: supported / contradicted / not stated."""
    wanted = polarity(side.interpretation)
    stated = polarity(" ".join(ev.text for ev in (side.value_passages or side.passages)))
    signs = [(wanted[a][0], stated[a][0]) for a in wanted if a in stated]
    if any(w == s for w, s in signs):
        return "supported"
    if signs:
        return "contradicted"
    return "not stated"


def _different_measures(s1: Side, s2: Side, kinds: list[str]) -> str | None:
    if s1.unit and s2.unit and unit_key(s1.unit) != unit_key(s2.unit) and "source_conflict" not in kinds:
        return f"they use different units ({s1.unit} vs {s2.unit}), so they measure different things"
    defined = (f"they use different definitions ({s1.definition} vs {s2.definition})"
               if s1.definition and s2.definition and _norm(s1.definition) != _norm(s2.definition) else None)
    if same_period(s1.period, s2.period) is False and "source_conflict" not in kinds \
            and not still_holds(s1.period, s2.period):
        # Both differences, where both are stated: the period alone would hide what each one counts.
        periods = f"they cover different periods ({s1.period} vs {s2.period})"
        return f"{periods} and {defined[5:]}" if defined else periods + defined_as(s1.agent, s1.citation, s2.agent, s2.citation)
    if defined:
        return defined
    # The cited passages can show two measures even where one source gives both figures.
    return (definition_difference(s1, s2) or rates_of_different_totals(s1.interpretation, s2.interpretation)
            or same_part_of_different_wholes(s1.value, s1.unit, s1.citation, s2.value, s2.unit, s2.citation)
            or per_unit_against_whole(*(" ".join(filter(None, [s.interpretation, s.definition, s.citation]))
                                        for s in (s1, s2)), s1.shown(), s2.shown(), s1.unit, s2.unit)
            or years_of_different_kinds(*(" ".join([s.context(), *(ev.text for ev in s.value_passages)])
                                          for s in (s1, s2)), s1.shown(), s2.shown()))


# Words by which a passage giving two figures says one replaces the other: then they are one measure,
# revised, not two.
_REVISION = re.compile(r"\b(?:revis|correct|provisional|final|updat|replac|instead|supersed|wrong|error|mistak|"
                       r"amend|restat)\w*", re.I)


def both_from_one_source(s1: Side, s2: Side) -> str | None:
    """Two figures that one side's own passage gives, in different sentences or items, for different
    things ("carpet: 22.0 m²", "gripper and underlay: 18.4 m²"): the source that states both does
    not hold them to contradict. Not where the passage says one revises or replaces the other. Read
    only where the question offers both figures as an answer ("or do both stand?"): a question that
    asks for one measure is answered by the figure its source gives for that measure."""
    if s1.value is None or s2.value is None:
        return None
    for side in (s1, s2):
        for ev in side.passages:
            if _REVISION.search(ev.text):
                continue
            items = [p for sent in sentences(ev.text) for p in re.split(r"(?<=[.;])\s+", sent)]
            one = [p for p in items if any(_matches(float(s1.value), v) for v in quoted_numbers(p))]
            two = [p for p in items if any(_matches(float(s2.value), v) for v in quoted_numbers(p))]
            if one and two and not set(one) & set(two):
                return (f"{ev.id} ({side.source or 'unnamed source'}) gives both figures, for different things: "
                        f"\"{clip_words(one[0].rstrip('.'), 90)}\" and \"{clip_words(two[0].rstrip('.'), 90)}\"")
    return None


def capacity_against_measure(s1: Side, s2: Side) -> tuple[Side, Side] | None:
    """(the measured side, the side worked out from a rating) where one report's own account says its
    figure comes from what something can do and the other's that its figure was measured: a
    capacity says what could be, and the measurement what was. None otherwise."""
    def said(side: Side) -> str:
        return " ".join(x for x in (side.definition, side.citation, side.interpretation) if x)

    # Reports that state different definitions of their own say what each measures: a passage's
    # standard rate does not make one of them the measure asked for.
    defined = bool(s1.definition and s2.definition and _norm(s1.definition) != _norm(s2.definition))
    for a, b in ((s1, s2), (s2, s1)):
        if measured_not_capacity(said(a), said(b), "" if defined else " ".join(ev.text for ev in b.value_passages)):
            return a, b
    return None


def _result(resolution: str, action: str, explanation: str, value: Any, citation: str | None,
            confidence: float, uncertainties: list[str] | None = None) -> dict[str, Any]:
    return {
        "resolution": resolution,
        "explanation": explanation,
        "recommended_value": value,
        "recommended_citation": citation or None,
        "confidence": round(max(0.0, min(1.0, confidence)), 2),
        "action": action,
        "uncertainties": list(uncertainties or []),
    }


def _checkable(side: Side) -> str | None:
    """What cannot be checked about a side's figure, in plain words, or None."""
    state = verification(side)
    if state == "no passage":
        return f"which passage carries {side.agent}'s {side.shown()}: no passage of {side.source or 'its source'} is given"
    if state == "no figures":
        return f"whether {side.agent}'s {side.shown()} is right: the passages of {side.source or 'its source'} give no figures"
    return None


def arbitrate_contradiction(c: dict[str, Any], case: Case | None, order: list[str]) -> dict[str, Any]:
    """The ruling, with its confidence capped and its gaps named when the reading was weak."""
    s1, s2 = _side(1, c, case), _side(2, c, case)
    metric = str(c.get("metric_name", "the metric"))
    offered = bool(case is not None and BOTH_OFFERED.search(case.question or ""))
    ruling = _rule(s1, s2, list(c.get("kinds") or []), metric, order, both_offered=offered)
    used = {ev.id: ev for s in (s1, s2) for ev in s.cited}
    gaps = [g for g in (_checkable(s1), _checkable(s2)) if g]
    # The arbiter's question is the disputed measure, so the reading measures how much of it the
    # cited passages speak to, and how many of the two figures could be checked there.
    reading = read(metric.replace("_", " "), [f"{ev.source} {ev.text}" for ev in used.values()],
                   passages=len(used), numbers_compared=sum(verification(s) == "verified" for s in (s1, s2)),
                   gaps=gaps)
    ruling["confidence"] = round(reading.cap(ruling["confidence"]), 2)
    ruling["uncertainties"] = [*ruling["uncertainties"], *reading.uncertainties()]
    return ruling


def _rule(s1: Side, s2: Side, kinds: list[str], metric: str, order: list[str],
          both_offered: bool = False) -> dict[str, Any]:
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

    capacity = capacity_against_measure(s1, s2)
    if capacity:
        measured, worked_out = capacity
        return _result(
            f"agent{measured.n}_correct", f"use_agent{measured.n}",
            f"{worked_out.agent}'s {worked_out.shown()} is worked out from a rating or capacity "
            f"({worked_out.definition or worked_out.citation}): what could be, not what was. "
            f"{measured.agent}'s {measured.shown()} is measured ({measured.definition or measured.citation}), "
            f"and a measurement answers how much {metric.replace('_', ' ')} there was. Decided by measurement: "
            f"{measured.agent}'s {measured.shown()} stands.",
            measured.value, measured.citation, 0.75,
        )

    for wrong, right in ((s1, s2), (s2, s1)):
        found = misread_unit(wrong.value, wrong.unit, right.value, right.unit, wrong.evidence, wrong.citation)
        if found:
            return _result(f"agent{right.n}_correct", f"use_agent{right.n}",
                           misread_words(wrong.agent, wrong.shown(), wrong.unit or "", right.agent, right.shown(),
                                         right.unit or "", found), right.value, right.citation, 0.8)

    counted = rate_the_terms_count(s1.context(), s2.context(), [(f"{ev.source} {ev.authority}", ev.text)
                                                                for ev in s1.evidence])
    if counted:
        right, wrong = (s1, s2) if counted[0] == 1 else (s2, s1)
        return _result(f"agent{right.n}_correct", f"use_agent{right.n}",
                       f"The terms count {metric.replace('_', ' ')} per unit (\"{clip_words(counted[1], 40)}\"). "
                       f"{right.agent}'s {right.shown()} is counted that way; {wrong.agent}'s {wrong.shown()} is not "
                       f"({wrong.interpretation or wrong.citation}). Decided by the terms' measure: {right.agent}'s "
                       f"{right.shown()} stands.", right.value, right.citation, 0.75)

    differ = _different_measures(s1, s2, kinds) or (both_offered and both_from_one_source(s1, s2))
    if differ:
        differ += difference_counted(s1.value, s1.unit, s2.value, s2.unit, [*s1.passages, *s2.passages])
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
            [f"could not assess: which value on {metric} is right: neither appears in its own cited source"],
        )

    m1, m2 = modelled(s1), modelled(s2)
    if m1 and m2 and "value" in kinds:
        cues = ", ".join(f"'{w}'" for w in dict.fromkeys([*m1, *m2]))
        return _result(
            "neither_valid", "flag_for_review",
            f"Both figures on {metric} are modelled estimates for the same period ({s1.shown()} from "
            f"{s1.source or 'an unnamed source'} and {s2.shown()} from {s2.source or 'an unnamed source'}; "
            f"their passages say {cues}). The gap comes from their methods and data, and a publisher's standing "
            f"does not settle which model is right, so neither can be declared correct from this material: "
            f"keep both with their methods and uncertainty, and let a person choose.",
            None, None, 0.6,
            [f"could not assess: which of two modelled estimates of {metric} is right, as they differ in method "
             f"and the passages give no complete count to check them against"],
        )

    for a, b in ((s1, s2), (s2, s1)):
        if verification(a) == "verified" and verification(b) == "not found":
            # A figure worked out from the printed one is not shown wrong by being unprinted.
            raw_and_worked = worked_from(b.value, a.value, b.citation)
            return _result(
                f"agent{a.n}_correct", f"use_agent{a.n}",
                f"Both findings concern {metric} for the same period ({a.period or b.period or 'unstated'}). "
                f"{a.agent}'s {a.shown()} appears in its cited source ({a.source or 'unnamed source'}); "
                f"{b.agent}'s {b.shown()} does not appear in the passages of {b.source or 'its source'}, so it is "
                f"unverified. Decided by verification: {a.agent}'s {a.shown()} stands.",
                a.value, a.citation, SELF_SAID_CONFIDENCE if raw_and_worked else 0.7,
                [f"could not assess: which of the two the question asks for: {b.agent}'s {b.shown()} is worked out "
                 f"from {a.agent}'s {a.shown()}"] if raw_and_worked else None,
            )

    if "interpretation" in kinds:
        r1, r2 = reading_support(s1), reading_support(s2)
        for a, b, ra, rb in ((s1, s2, r1, r2), (s2, s1, r2, r1)):
            if ra == "supported" and rb != "supported":
                return _result(
                    f"agent{a.n}_correct", f"use_agent{a.n}",
                    f"The two readings of {metric} oppose each other. {a.agent}'s reading '{a.interpretation}' "
                    f"is stated in its cited source ({a.source or 'unnamed source'}); {b.agent}'s reading "
                    f"'{b.interpretation}' is {'contradicted by' if rb == 'contradicted' else 'not stated in'} "
                    f"the passages of {b.source or 'its source'}, so it is unverified. Decided by verification: "
                    f"{a.agent}'s {a.shown()}, read as '{a.interpretation}', stands.",
                    a.value, a.citation, 0.7,
                )

    (au1, why1), (au2, why2) = authority(s1, order), authority(s2, order)
    (f1, fwhy1), (f2, fwhy2) = freshness(s1), freshness(s2)
    (co1, miss1), (co2, miss2) = completeness(s1), completeness(s2)
    criteria = [
        ("source authority", _favour(au1, au2, AUTHORITY_STEP),
         f"{why1} vs {why2}" + (" (a gap under 0.1 does not count)"
                                if "passage authority" in why1 and "passage authority" in why2
                                and abs(au1 - au2) < AUTHORITY_STEP else "")),
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
    confidence = ruling_confidence(name, abs(au1 - au2), agree, oppose)
    # Only the agents' own say-so separating two figures of equal standing is no ground a reviewer
    # could check: the ruling stays below the bar for going out alone.
    self_said = [f"could not assess: which figure on {metric} is right, as nothing in the sources separates them "
                 f"and only the agents' own confidence chose {win.agent}'s"] if name == "agent confidence" else []
    return _result(f"agent{winner}_correct", f"use_agent{winner}", " ".join(lines), win.value, win.citation,
                   min(confidence, SELF_SAID_CONFIDENCE) if self_said else confidence, self_said)


def ruling_confidence(deciding: str, authority_gap: float, agree: int, oppose: int) -> float:
    """How sure a ruling by the criteria is: the criteria that agree with the deciding one raise it,
    those against lower it; but when source authority decides by `DECISIVE_AUTHORITY_GAP` or more,
    the ruling is at least `DECISIVE_CONFIDENCE` (the tie-breaks against it do not count)."""
    confidence = max(0.35, min(0.95, 0.45 + 0.1 * agree - 0.1 * oppose))
    if deciding == "source authority" and authority_gap >= DECISIVE_AUTHORITY_GAP:
        confidence = max(confidence, DECISIVE_CONFIDENCE)
    return confidence


@register("arbitration", "arbitrate")
def arbitrate(payload: dict[str, Any]) -> dict[str, Any]:
    order = payload.get("authority_order")
    if order is None:
        order = authority_order(getattr(payload.get("settings"), "options", None))
    return arbitrate_contradiction(payload["contradiction"], payload.get("case"), list(order))
