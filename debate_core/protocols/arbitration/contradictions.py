"""Contradiction detection between agent reports (section 1 of the contradiction-arbitration source
protocol), as pure functions.

Four rules, documented in docs/protocols/arbitration.md:

- ``value``: same metric, values more than ``threshold`` (5%) apart. The relative difference is
  taken against the smaller magnitude, |a - b| / min(|a|, |b|): it is symmetric, and it is the
  reading the source protocol's own example uses (0.10 vs 0.12 is a "20% relative difference").
- ``interpretation``: opposing readings of the same metric ("improving" vs "declining",
  "increase" vs "decrease", "rising" vs "falling", ...) from a small lexicon with two axes.
- ``confidence``: the same claim (values within the threshold) held with confidences at least
  ``confidence_gap`` apart: the source protocol's "different confidence levels for same claim".
- ``source_conflict``: a value conflict where both reports cite the same source for the same
  period; one of the two extractions must be wrong, so it cannot be "both valid".

Reports on one metric are compared pairwise (three disagreeing agents give three contradictions),
and contradictions are numbered from 1 ordered by metric, then agent names (docs/protocols/arbitration.md, "Numbering").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from itertools import combinations
from typing import Any

from ...core.schemas import AgentReport, Evidence
from ...core.text import MONTHS, NEGATIONS, STOPWORDS, numbers, tokens
from .scales import PHYSICAL_UNITS, names_a_version

VALUE_THRESHOLD = 0.05
CONFIDENCE_GAP = 0.3
# A number in a passage is a reported figure when within 0.5% of it (rounding in sources).
MATCH_TOLERANCE = 0.005
# Relative differences are compared with a tolerance so that 100 vs 105 (exactly 5%) is not
# flagged because of binary floating point (1.0 vs 1.05 computes to 0.05000000000000004).
_EPS = 1e-9
SEVERITIES = ("low", "medium", "high")
# Upper bounds of the relative difference for the low and medium bands; above is high.
LOW_BAND, MEDIUM_BAND = 0.15, 0.50
CONFIDENT, TENTATIVE = 0.8, 0.5

_FAMILIES: dict[tuple[str, int], str] = {
    ("direction", +1): """increase increases increased increasing rise rises rising rose risen grow grows growing
        grew growth expand expands expanding expanded expansion climb climbs climbing climbed accelerate
        accelerates accelerating accelerated upward upwards""",
    ("direction", -1): """decrease decreases decreased decreasing fall falls falling fell fallen decline declines
        declining declined drop drops dropping dropped shrink shrinks shrinking shrank contraction
        slowing slowed slowdown downward downwards""",
    ("assessment", +1): """improve improves improving improved improvement strengthen strengthens strengthening
        strengthened stronger recovering recovery""",
    # "declining" is both a direction and a verdict: the source protocol's own example pairs it with "improving".
    ("assessment", -1): """deteriorate deteriorates deteriorating deteriorated worsen worsens worsening worsened
        weaken weakens weakening weakened weaker decline declines declining declined""",
}


def _build_lexicon() -> dict[str, list[tuple[str, int]]]:
    lexicon: dict[str, list[tuple[str, int]]] = {}
    for (axis, sign), words in _FAMILIES.items():
        for word in words.split():
            lexicon.setdefault(word, []).append((axis, sign))
    return lexicon


_LEXICON = _build_lexicon()
_NEGATION_WINDOW = 3
_UNITS = {"percent": "%", "pct": "%", "per cent": "%", "persen": "%"}
# Units that are one scale of another: a share written per hundred, per thousand or per ten thousand,
# and a count written in thousands, millions or billions. Two reports in units of one family are
# compared after conversion; units of no common family cannot be compared at all.
_RATE_SCALES = (
    (re.compile(r"%|\bper ?cent\b|\bpercent(?:age)?\b|\bpct\b|\bpersen\b"), 1e-2),
    (re.compile(r"‰|\bper ?mill?e\b|\bper (?:one )?thousand\b|\bper 1,?000\b"), 1e-3),
    (re.compile(r"‱|\bbasis points?\b|\bbps?\b|\bper (?:ten thousand|10,?000)\b"), 1e-4),
    (re.compile(r"\bper (?:hundred thousand|100,?000)\b"), 1e-5),
)
_COUNT_SCALES = (
    (re.compile(r"\b(?:thousands?|k|'000s?|000s)\b"), 1e3),
    (re.compile(r"\b(?:millions?|mn|mio|m)\b"), 1e6),
    (re.compile(r"\b(?:billions?|bn|b)\b"), 1e9),
)


def metric_key(name: str) -> str:
    """Metric names meet when they differ only in case, spacing or punctuation."""
    return re.sub(r"[^0-9a-z]+", "_", name.strip().lower()).strip("_")


def _norm(text: str | None) -> str:
    return re.sub(r"[^0-9a-z]+", "", (text or "").lower())


def metric_words(metric: str) -> str:
    """A metric's name as words ("tank_ammonia" -> "tank ammonia")."""
    return metric.replace("_", " ")


def _source_words(text: str | None) -> set[str]:
    return {t for t in tokens(text or "") if t not in STOPWORDS}


# A question that offers both figures as an answer ("Which figure should the report use, or do both
# stand?").
BOTH_OFFERED = re.compile(r"\bboth (?:stand|valid|hold|apply|correct|right)|\bor both\b|\bor neither\b", re.I)


def source_passages(source: str | None, citation: str | None, evidence: Sequence[Evidence]) -> list[Evidence]:
    """The passages a report rests on: those its citation names by id or quotes word for word, or
    whose source names its source, written together ("Statistics Office" in "Statistics Office,
    release 12") or word by word ("Trust Annual Report 2025" in "Trust, Annual Report and Accounts
    2025, page 4")."""
    key, words = _norm(source), _source_words(source)
    cited = set(re.findall(r"[\w.-]+", citation or ""))
    out = []
    for ev in evidence:
        ev_key = _norm(ev.source)
        if ev.id in cited or (key and ev_key and (key in ev_key or ev_key in key)) \
                or (len(words) >= 2 and words <= _source_words(ev.source)) or _quotes(citation, ev.text):
            out.append(ev)
    return out


# What a citation quotes ("[Per extraction: 'Of the 318 who replied, 71% had it back' from ...]"), in
# pieces between its ellipses; a piece this short ("71%") could be anywhere.
_QUOTE = re.compile(r"['‘\"“]([^'’\"”]{12,})['’\"”]")
MIN_QUOTED_CHARS = 12
# The whole of what a citation quotes, apostrophes and inner quotes included ("'Note: thrower held
# on 'Go' for a lull' from the score sheet"): it opens after a space or bracket and closes where the
# citation goes on ("from the ...", "and '...'", the bracket's end).
_WHOLE_QUOTE = re.compile(r"(?:^|(?<=[\s\[(:]))['‘\"“](.{12,}?)['’\"”]"
                          r"(?=\s+(?:from|in|and|on|of|at|by)\b|\s*[\]);,.]|\s*$)", re.S)


def cited_words(citation: str | None) -> str:
    """The first piece a citation quotes ("Items brought in: 948. Outcome fixed: 561"), or ""."""
    m = _WHOLE_QUOTE.search(citation or "") or _QUOTE.search(citation or "")
    return m.group(1).strip() if m else ""


def _quotes(citation: str | None, text: str) -> bool:
    """Whether the passage carries, word for word, what the citation quotes (every piece of it)."""
    flat = " ".join(text.lower().split())
    for quoted in _QUOTE.findall(citation or ""):
        pieces = [" ".join(p.lower().split()) for p in re.split(r"\.\.\.|…", quoted)]
        pieces = [p for p in pieces if len(p) >= MIN_QUOTED_CHARS]
        if pieces and all(p in flat for p in pieces):
            return True
    return False


def unit_key(unit: str | None) -> str:
    u = (unit or "").strip().lower()
    return _UNITS.get(u, u)


def unit_scale(unit: str | None) -> tuple[str, float] | None:
    """(family, factor) of a unit: "%" is ("share", 0.01), "per mille" ("share", 0.001), "million persons"
    ("count persons", 1e6), "lb" ("mass", 0.45359237); None without a unit. A unit with no scale word
    is its own family."""
    u = " ".join((unit or "").strip().lower().split())
    if not u:
        return None
    if u.rstrip(".") in PHYSICAL_UNITS:
        return PHYSICAL_UNITS[u.rstrip(".")]
    for pattern, factor in _RATE_SCALES:
        if pattern.search(u):
            rest = " ".join(re.findall(r"[a-z]+", pattern.sub(" ", u)))
            return f"share {rest}".strip(), factor
    for pattern, factor in _COUNT_SCALES:
        if pattern.search(u):
            rest = " ".join(re.findall(r"[a-z]+", pattern.sub(" ", u)))
            return f"count {rest}".strip(), factor
    return f"count {' '.join(re.findall(r'[a-z]+', u))}".strip(), 1.0


def convertible(a: str | None, b: str | None) -> tuple[float, float] | None:
    """The factors that bring two units to one scale, or None when they measure in different families."""
    sa, sb = unit_scale(a), unit_scale(b)
    if sa is None or sb is None or sa[0] != sb[0]:
        return None
    return sa[1], sb[1]


def relative_difference(a: float, b: float) -> float:
    """|a - b| / min(|a|, |b|); infinite when exactly one of them is zero."""
    if a == b:
        return 0.0
    base = min(abs(a), abs(b))
    if base == 0.0:
        return math.inf
    return abs(a - b) / base


def exceeds(diff: float, threshold: float = VALUE_THRESHOLD) -> bool:
    return diff > threshold + _EPS


# ---------------------------------------------------------------------------
# Periods: "Q1-2024", "2024", "H1 2023", "March 2024", "FY2023"
# ---------------------------------------------------------------------------

_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_QUARTER = re.compile(r"(?<![a-z])q([1-4])(?!\d)|(?<!\d)([1-4])q(?![a-z])", re.IGNORECASE)
_HALF = re.compile(r"(?<![a-z])h([12])(?![a-z0-9])", re.IGNORECASE)


def period_key(period: str | None) -> tuple[int, str] | None:
    """(year, sub-period) where sub-period is "Q1".."Q4", "H1", "H2", "M01".."M12" or "" (a year)."""
    if not period:
        return None
    text = period.strip().lower()
    year = _YEAR.search(text)
    if not year:
        return None
    rest = text.replace(year.group(1), " ")
    q = _QUARTER.search(rest)
    if q:
        return int(year.group(1)), "Q" + next(g for g in q.groups() if g)
    h = _HALF.search(rest)
    if h:
        return int(year.group(1)), "H" + h.group(1)
    words = set(re.findall(r"[a-z]+", rest))
    for i, name in enumerate(MONTHS, start=1):
        if name in words or name[:3] in words or name[:4] in words:
            return int(year.group(1)), f"M{i:02d}"
    return int(year.group(1)), ""


def period_end(period: str | None) -> tuple[int, int] | None:
    """(year, last month) of a period, to say which of two periods is more recent."""
    key = period_key(period)
    if key is None:
        return None
    year, sub = key
    month = 12
    if sub.startswith("Q"):
        month = 3 * int(sub[1])
    elif sub.startswith("H"):
        month = 6 * int(sub[1])
    elif sub.startswith("M"):
        month = int(sub[1:])
    return year, month


def same_period(p1: str | None, p2: str | None) -> bool | None:
    """True or False when both periods are known; None when either is missing."""
    if not p1 or not p2:
        return None
    k1, k2 = period_key(p1), period_key(p2)
    if k1 is not None and k2 is not None:
        return k1 == k2
    return _norm(p1) == _norm(p2)


# ---------------------------------------------------------------------------
# Interpretations
# ---------------------------------------------------------------------------


def polarity(text: str | None) -> dict[str, tuple[int, str]]:
    """Per axis, the sign a reading takes and the word that gave it; axes read both ways are left out."""
    toks = tokens(text or "")
    seen: dict[str, dict[int, str]] = {}
    for i, tok in enumerate(toks):
        for axis, sign in _LEXICON.get(tok, ()):
            window = toks[max(0, i - _NEGATION_WINDOW) : i]
            negated = any(t in NEGATIONS for t in window)
            word = f"not {tok}" if negated else tok
            seen.setdefault(axis, {}).setdefault(-sign if negated else sign, word)
    return {axis: next(iter(signs.items())) for axis, signs in seen.items() if len(signs) == 1}


# A reading that places the figure against a reference ("above the 92% level", "below target").
_SIDES = {"above": +1, "exceeds": +1, "exceed": +1, "exceeding": +1, "exceeded": +1, "over": +1,
          "below": -1, "beneath": -1, "under": -1, "inside": -1, "within": -1}
# How far after the side word its reference is looked for ("below the 92% level": 3 words).
_REFERENCE_WINDOW = 4


def sides(text: str | None) -> dict[str, tuple[int, str]]:
    """Per reference (the first figure or content word after "above"/"below"), the side a reading puts
    the figure on and the words that say so; a reference read on both sides is left out."""
    toks = tokens(text or "")
    seen: dict[str, dict[int, str]] = {}
    for i, tok in enumerate(toks):
        sign = _SIDES.get(tok)
        if sign is None:
            continue
        after = [t for t in toks[i + 1:i + 1 + _REFERENCE_WINDOW] if t not in STOPWORDS]
        if not after:
            continue
        negated = any(t in NEGATIONS for t in toks[max(0, i - _NEGATION_WINDOW):i])
        side = -sign if negated else sign
        said = re.search(rf"\b{tok}\b(?:\W+\w+){{0,{_REFERENCE_WINDOW - 1}}}?\W+{re.escape(after[0])}\S*(?:\s+[a-z]+)?",
                         text or "", re.I)
        words = " ".join(said.group(0).split()) if said else f"{tok} {after[0]}"
        seen.setdefault(after[0], {}).setdefault(side, ("not " if negated else "") + words)
    return {ref: next(iter(signs.items())) for ref, signs in seen.items() if len(signs) == 1}


def interpretation_conflict(a: str | None, b: str | None) -> tuple[str, str, str] | None:
    """(axis, word in a, word in b) when the two readings take opposite signs on one axis, or put the
    figure on opposite sides of one reference ("above the 92% level" against "below the 92% level")."""
    pa, pb = polarity(a), polarity(b)
    for axis in ("direction", "assessment"):
        if axis in pa and axis in pb and pa[axis][0] == -pb[axis][0]:
            return axis, pa[axis][1], pb[axis][1]
    sa, sb = sides(a), sides(b)
    for ref in sa:
        if ref in sb and sa[ref][0] == -sb[ref][0]:
            return "reference", sa[ref][1], sb[ref][1]
    # "in tune" against "out of tune", "within spec" against "out of spec": one state and its opposite.
    for x, y in ((a, b), (b, a)):
        for m in _OUT_OF.finditer(x or ""):
            inside = re.search(rf"(?<!out of )\b(?:in|within) {re.escape(m.group(1))}\b", y or "", re.I)
            if inside and not _NEGATED_STATE.search((x or "")[max(0, m.start() - 12):m.start()]):
                return ("reference", m.group(0), inside.group(0)) if x is a else ("reference", inside.group(0), m.group(0))
    return None


_OUT_OF = re.compile(r"\bout of (\w+)", re.I)
_NEGATED_STATE = re.compile(r"\b(?:not|isn't|aren't|wasn't|never)\s*$", re.I)


# ---------------------------------------------------------------------------
# Contradictions
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Contradiction:
    """The source protocol's Contradiction, plus what the arbiter and the consensus need to see."""

    index: int
    metric_name: str
    agent1_name: str
    agent1_value: float | None
    agent1_citation: str
    agent1_confidence: float
    agent2_name: str
    agent2_value: float | None
    agent2_citation: str
    agent2_confidence: float
    severity: str
    kinds: tuple[str, ...]
    reasons: tuple[str, ...]
    relative_difference: float | None  # None when not comparable or when one value is zero
    report1: int  # positions of the two reports in the case's report list
    report2: int
    agent1_source: str | None = None
    agent1_period: str | None = None
    agent1_unit: str | None = None
    agent1_interpretation: str | None = None
    agent2_source: str | None = None
    agent2_period: str | None = None
    agent2_unit: str | None = None
    agent2_interpretation: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["kinds"] = list(self.kinds)
        out["reasons"] = list(self.reasons)
        return out

    def side(self, n: int) -> dict[str, Any]:
        """One side's fields without the agent1_/agent2_ prefix."""
        prefix = f"agent{n}_"
        d = self.to_dict()
        return {k[len(prefix):]: v for k, v in d.items() if k.startswith(prefix)}


def severity(
    *,
    value_diff: float | None,
    interpretation: bool,
    confidences: tuple[float, float],
    same_source: bool = False,
    unit_mismatch: bool = False,
) -> str:
    """low / medium / high from the size of the disagreement, then adjusted by who holds it.

    Base: a value gap of at most 15% is low, at most 50% medium, above that high; an opposing
    reading alone is medium; a value gap together with an opposing reading is one level above
    the larger of the two; a confidence gap alone is low. Then: both agents confident (>= 0.8)
    raises one level (two sure agents disagreeing matter more), either agent tentative (< 0.5)
    lowers one, the same source for the same period raises one (an extraction is wrong),
    different units lower one (likely different measures).
    """
    level = 0
    if value_diff is not None:
        level = 0 if value_diff <= LOW_BAND + _EPS else 1 if value_diff <= MEDIUM_BAND + _EPS else 2
    if interpretation:
        level = max(level, 1) + (1 if value_diff is not None else 0)
    if value_diff is None and not interpretation:
        return "low"
    low_conf = min(confidences)
    if low_conf >= CONFIDENT:
        level += 1
    elif low_conf < TENTATIVE:
        level -= 1
    if same_source:
        level += 1
    if unit_mismatch:
        level -= 1
    return SEVERITIES[max(0, min(2, level))]


def plain_number(v: float) -> str:
    """A figure as people write it: 1,238,000 and 0.12, never 1.238e+06 (six significant digits)."""
    if math.isnan(v) or math.isinf(v):
        return str(v)
    if float(v).is_integer():
        return f"{int(v):,}"
    digits = max(0, 5 - math.floor(math.log10(abs(v))))
    return f"{v:,.{digits}f}".rstrip("0").rstrip(".")


def shown_value(v: float | None, unit: str | None) -> str:
    """"0.12%", "1,238,000 deaths", "no value"."""
    if v is None:
        return "no value"
    if unit_key(unit) == "%":
        return f"{plain_number(v)}%"
    return f"{plain_number(v)} {unit or ''}".rstrip()


def _fmt(v: float | None, unit: str | None) -> str:
    return shown_value(v, unit)


def _compare(
    i: int, a: AgentReport, j: int, b: AgentReport, threshold: float, confidence_gap: float | None
) -> Contradiction | None:
    kinds: list[str] = []
    reasons: list[str] = []
    diff: float | None = None
    value_conflict = False
    units_differ = bool(a.unit and b.unit and unit_key(a.unit) != unit_key(b.unit))
    scales = convertible(a.unit, b.unit) if units_differ else None
    if a.value is not None and b.value is not None:
        # Figures in two scales of one unit (percent and per mille, thousands and millions) are
        # compared once converted: 5% and 50 per mille are the same figure.
        va, vb = (a.value * scales[0], b.value * scales[1]) if scales else (a.value, b.value)
        rd = relative_difference(va, vb)
        # Two versions (Gradle 8.4 and 8.5) are two answers however close their numbers are.
        versions = rd > 0 and names_a_version(a.unit) and names_a_version(b.unit)
        if exceeds(rd, threshold) or versions:
            value_conflict = True
            diff = rd
            kinds.append("value")
            shown = f"{_fmt(a.value, a.unit)} vs {_fmt(b.value, b.unit)}"
            if exceeds(rd, threshold):
                pct = "infinitely" if math.isinf(rd) else f"{rd:.1%}"
                converted = " once converted to one unit" if scales else ""
                reasons.append(f"values differ by {pct}{converted} (over {threshold:.0%}): {shown}")
            else:
                reasons.append(f"different versions, {shown}: a version is a name, not an amount, so any "
                               "difference is a different answer")
            if units_differ:
                kinds.append("unit_mismatch")
                reasons.append(f"units differ: {a.unit} vs {b.unit}"
                               + ("" if scales else ", which cannot be converted into each other"))
            if a.source and b.source and _norm(a.source) == _norm(b.source) and same_period(a.period, b.period):
                kinds.append("source_conflict")
                reasons.append(f"both cite {a.source} for {a.period}: the same data cannot give both values")
            elif same_period(a.period, b.period) is False:
                # Figures for two periods can both hold: said, so nobody reads them as a clash of values.
                reasons.append(f"the periods differ ({a.period} vs {b.period}), so both figures may hold")
        elif units_differ and not scales:
            # One number on two scales that do not convert (0.2 logMAR and decimal 0.2) is not one
            # finding: the two reports read the same digits as different things.
            kinds.append("unit_mismatch")
            reasons.append(f"the same number in units that cannot be converted into each other "
                           f"({a.unit} vs {b.unit}), so the two reports read it as different things")
    conflict = interpretation_conflict(a.interpretation, b.interpretation)
    if conflict:
        kinds.append("interpretation")
        reasons.append(f"opposing readings ({conflict[0]}): '{conflict[1]}' vs '{conflict[2]}'")
    if not kinds and confidence_gap is not None:
        both_valued = a.value is not None and b.value is not None
        both_read = a.value is None and b.value is None and bool(polarity(a.interpretation)) and (
            polarity(a.interpretation) == polarity(b.interpretation)
        )
        gap = abs(a.confidence - b.confidence)
        if (both_valued or both_read) and gap + _EPS >= confidence_gap:
            kinds.append("confidence")
            reasons.append(
                f"same claim held with different confidence: {a.confidence:.2f} vs {b.confidence:.2f}"
            )
    if not kinds:
        return None
    sev = severity(
        value_diff=diff if value_conflict else None,
        interpretation=conflict is not None,
        confidences=(a.confidence, b.confidence),
        same_source="source_conflict" in kinds,
        unit_mismatch=units_differ and value_conflict,
    )
    return Contradiction(
        index=0,
        metric_name=metric_key(a.metric),
        agent1_name=a.agent,
        agent1_value=a.value,
        agent1_citation=a.citation or "",
        agent1_confidence=a.confidence,
        agent2_name=b.agent,
        agent2_value=b.value,
        agent2_citation=b.citation or "",
        agent2_confidence=b.confidence,
        severity=sev,
        kinds=tuple(kinds),
        reasons=tuple(reasons),
        relative_difference=None if diff is None or math.isinf(diff) else round(diff, 6),
        report1=i,
        report2=j,
        agent1_source=a.source,
        agent1_period=a.period,
        agent1_unit=a.unit,
        agent1_interpretation=a.interpretation,
        agent2_source=b.source,
        agent2_period=b.period,
        agent2_unit=b.unit,
        agent2_interpretation=b.interpretation,
    )


def as_reports(reports: Iterable[AgentReport | dict[str, Any]]) -> list[AgentReport]:
    return [r if isinstance(r, AgentReport) else AgentReport.model_validate(r) for r in reports]


def detect_contradictions(
    reports: Sequence[AgentReport | dict[str, Any]],
    *,
    threshold: float = VALUE_THRESHOLD,
    confidence_gap: float | None = CONFIDENCE_GAP,
) -> list[Contradiction]:
    """All pairwise contradictions, numbered from 1 by (metric, agent1, agent2).

    Within a pair, agent 1 is the report whose agent name sorts first (then the earlier report),
    so the numbering does not depend on the order the reports arrive in.
    """
    items = as_reports(reports)
    groups: dict[str, list[int]] = {}
    for pos, rep in enumerate(items):
        groups.setdefault(metric_key(rep.metric), []).append(pos)
    found: list[Contradiction] = []
    for positions in groups.values():
        ordered = sorted(positions, key=lambda p: (items[p].agent, p))
        for i, j in combinations(ordered, 2):
            c = _compare(i, items[i], j, items[j], threshold, confidence_gap)
            if c is not None:
                found.append(c)
    found.sort(key=lambda c: (c.metric_name, c.agent1_name, c.agent2_name, c.report1, c.report2))
    return [replace(c, index=n) for n, c in enumerate(found, start=1)]


# A duration written with colons ("38:42", "1:02:03"): minutes and seconds, or hours, minutes and
# seconds. Its total in the smaller unit is one more figure the text gives (38:42 is 2,322 seconds, or
# 2,322 minutes where it is hours and minutes): a report in seconds or minutes quotes it that way.
_DURATION = re.compile(r"(?<![\d:.])(\d{1,3}):([0-5]\d)(?::([0-5]\d))?(?![\d:])")


def durations(text: str | None) -> list[float]:
    """Each colon-written duration's total in its smaller unit ("38:42" is 2,322)."""
    return [float(int(a) * 3600 + int(b) * 60 + int(c)) if c else float(int(a) * 60 + int(b))
            for a, b, c in _DURATION.findall(text or "")]


def quoted_numbers(text: str | None) -> list[float]:
    return [v for v, _ in numbers(text or "")] + durations(text)


# "Listing details supplied by the business; last updated by the business in May 2022": a page is as
# old as its content, whenever it was last looked at.
LAST_UPDATED = re.compile(r"\blast (?:updated|revised|edited|amended)\b[^.;]{0,40}?\b(?:in|on)\s+([^.;]{3,30})", re.I)
