"""When an accepted arbitration ruling still goes to a human because of the evidence itself
(the moderator's rules, read from the reports and the case's passages; no model calls).

- ``units_mismatch_reason``: the two reports give the metric in different units. Either the
  units cannot be converted into each other (a share against a count) or, converted, the figures
  still differ: a person must check which unit each source really uses before any figure is chosen.
- ``weak_tie_break_reason``: one figure was chosen over the other, for the same period and unit,
  although neither source outranks the other (the configured authority order, else the passages'
  own `authority`; the case must give both sources' passages), both figures appear in their own
  cited passages (or neither does), and the figures are more
  than ``WIDE_GAP`` apart. Nothing but a tie-break (a newer publication, a fuller citation, a
  surer agent) then separates two figures that cannot both be right: the source protocol's
  criteria are applied, and the choice is sent to a person with both sources and figures named.
  A newer publication is more than a tie-break when it supersedes the older one
  (``supersedes``): it says it replaces, revises or updates earlier figures, or it came out
  ``SUPERSEDED_AFTER_DAYS`` or more later (a later edition); then the newer figure stands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...core.schemas import Evidence
from ...core.text import authority_score, sentences
from .contradictions import (
    LAST_UPDATED,
    LOW_BAND,
    MATCH_TOLERANCE,
    Contradiction,
    plain_number,
    quoted_numbers,
    relative_difference,
    same_period,
    shown_value,
    source_passages,
    unit_scale,
)
from .measures import STANDARD_RATE, measured_not_capacity
from .units import misread_unit

# Figures further apart than this (the upper bound of the low severity band) are too far apart to
# be settled by a tie-break: a small gap may be a revision, a wide one is a conflict of evidence.
WIDE_GAP = LOW_BAND
# Passage authorities closer than this are the same standing (the offline arbiter's step).
AUTHORITY_STEP = 0.1
# A publication this many days after another of the same standing is a later edition, not a
# tie-break: a month between two releases is not.
SUPERSEDED_AFTER_DAYS = 365
# How a passage says it takes the place of earlier figures (general English of revision).
_REPLACES = re.compile(r"\b(?:replac(?:es|ed|ing)|supersed(?:es|ed|ing)|revis(?:es|ed|ion)|updat(?:es|ed)"
                       r"|withdraw(?:s|n)|no longer (?:applies|valid|current))\b", re.IGNORECASE)
_DATE = re.compile(r"(?<!\d)((?:19|20)\d\d)(?:[-/.](\d{1,2}))?(?:[-/.](\d{1,2}))?")


def _norm(text: str | None) -> str:
    return re.sub(r"[^0-9a-z]+", "", (text or "").lower())


def carries(passages: Sequence[Evidence], value: float | None) -> list[Evidence]:
    """The passages that give a figure (within half a per cent)."""
    if value is None:
        return []
    return [ev for ev in passages
            if any(relative_difference(value, v) <= MATCH_TOLERANCE for v in quoted_numbers(ev.text))]


def _rank(source: str | None, citation: str | None, order: Sequence[str]) -> int | None:
    hay = _norm(source) or _norm(citation)
    for rank, name in enumerate(order):
        if _norm(name) and _norm(name) in hay:
            return rank
    return None


def _standing(passages: Sequence[Evidence]) -> float:
    known = [authority_score(ev.authority) for ev in passages if ev.authority is not None]
    return max(known) if known else authority_score(None)


def _published(passages: Sequence[Evidence]) -> str | None:
    dates = sorted(ev.date for ev in passages if ev.date and _DATE.search(ev.date))
    return dates[-1] if dates else None


def _day(date: str | None) -> int | None:
    m = _DATE.search(date or "")
    if not m:
        return None
    y, mo, d = int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1)
    return y * 365 + (min(max(mo, 1), 12) - 1) * 30 + min(max(d, 1), 31)


def supersedes(newer: Sequence[Evidence], older: Sequence[Evidence]) -> str | None:
    """Rule: the newer passages take the place of the older ones, in plain words, or None: they
    were published `SUPERSEDED_AFTER_DAYS` or more later, or they say they replace, revise or update
    earlier figures."""
    d_new, d_old = _day(_published(newer)), _day(_published(older))
    if d_new is None or d_old is None or d_new <= d_old:
        return None
    says = next((m.group(0) for ev in newer for m in [_REPLACES.search(ev.text or "")] if m), None)
    if says:
        return f"the newer passage says it {says.lower()} earlier figures"
    if d_new - d_old >= SUPERSEDED_AFTER_DAYS:
        return f"it was published {round((d_new - d_old) / 365)} year(s) later, a later edition"
    return None


def _side(c: Contradiction, n: int) -> str:
    s = c.side(n)
    basis = ", ".join(x for x in (s["source"], s["period"]) if x)
    return f"{s['name']}'s {shown_value(s['value'], s['unit'])}" + (f" ({basis})" if basis else "")


def different_bases(a: str | None, b: str | None) -> bool:
    """Two rates that each name what they count per ("per 1,000 passengers", "per 1,000 checked bags"):
    the units say themselves that the figures measure different things, with nothing to check."""
    sa, sb = unit_scale(a), unit_scale(b)
    return bool(sa and sb and sa[0].startswith("share ") and sb[0].startswith("share ") and sa[0] != sb[0])


def units_mismatch_reason(c: Contradiction) -> str | None:
    """Rule: two reports on one metric in different units are not arbitrated silently, unless both
    are rates that name different bases (`different_bases`)."""
    if "unit_mismatch" not in c.kinds or different_bases(c.agent1_unit, c.agent2_unit):
        return None
    return (f"units mismatch: {_side(c, 1)} is given in {c.agent1_unit} and {_side(c, 2)} in {c.agent2_unit}; "
            f"a person must check which unit each source uses before either figure is used")


def weak_tie_break_reason(c: Contradiction, resolution: str | None, evidence: Sequence[Evidence],
                          order: Sequence[str] = ()) -> str | None:
    """Rule: a choice between two equally authoritative, verified figures far apart rests on a tie-break."""
    if resolution not in ("agent1_correct", "agent2_correct") or "value" not in c.kinds:
        return None
    if "unit_mismatch" in c.kinds or same_period(c.agent1_period, c.agent2_period) is False:
        return None
    v1, v2 = c.agent1_value, c.agent2_value
    if v1 is None or v2 is None:
        return None
    p1 = source_passages(c.agent1_source, c.agent1_citation, evidence)
    p2 = source_passages(c.agent2_source, c.agent2_citation, evidence)
    c1, c2 = carries(p1, v1), carries(p2, v2)
    beyond = beyond_stated_uncertainty(v1, c1, v2, c2)
    if relative_difference(v1, v2) <= WIDE_GAP and not beyond:
        return None
    if not p1 or not p2:
        return None  # without both sources' passages nothing shows that they stand equal
    if bool(c1) != bool(c2):
        return None  # one figure is missing from its own source: verification, not a tie-break, decides
    if misread_unit(v1, c.agent1_unit, v2, c.agent2_unit, evidence, c.agent1_citation) \
            or misread_unit(v2, c.agent2_unit, v1, c.agent1_unit, evidence, c.agent2_citation):
        return None  # the unit the evidence states for one figure decides: the two agree
    said1, said2 = (" ".join(x for x in (c.agent1_citation, c.agent1_interpretation) if x),
                    " ".join(x for x in (c.agent2_citation, c.agent2_interpretation) if x))
    won, lost = (said1, said2) if resolution == "agent1_correct" else (said2, said1)
    lost_passages = (c2 or p2) if resolution == "agent1_correct" else (c1 or p1)
    if measured_not_capacity(won, lost, " ".join(ev.text for ev in lost_passages)):
        return None  # a measurement against a figure worked out from a rating or a standard rate: it decides
    r1, r2 = _rank(c.agent1_source, c.agent1_citation, order), _rank(c.agent2_source, c.agent2_citation, order)
    if r1 != r2:
        return None  # the configured authority order decides
    a1, a2 = _standing(c1 or p1), _standing(c2 or p2)
    if abs(a1 - a2) >= AUTHORITY_STEP:
        return None  # the passages' own authority decides
    d1, d2 = _published(c1 or p1), _published(c2 or p2)
    if supersedes(c1 or p1, c2 or p2) or supersedes(c2 or p2, c1 or p1):
        return None  # a later edition replaces the older figure: freshness decides, not a tie-break
    dates = f", published {d1} and {d2}" if d1 and d2 and d1 != d2 else ""
    gap = beyond or f"{relative_difference(v1, v2):.0%} apart"
    return (f"settled only by a weak tie-break: {_side(c, 1)} and {_side(c, 2)} are {gap} for the "
            f"same period and their sources carry the same authority{dates}; only a tie-break (a newer "
            f"publication, a fuller citation or a surer agent) chose between them, so a person must decide "
            f"which figure is right")


# A measurement's own stated uncertainty: "±0.1% vol", "+/- 0.3", "uncertainty of 0.2", "margin of error 1.5".
_UNCERTAINTY = re.compile(r"(?:±|\+/-|\+-)\s*(\d+(?:\.\d+)?)"
                          r"|\b(?:uncertainty|margin of error|error margin)\s+(?:of\s+|is\s+|was\s+)?(\d+(?:\.\d+)?)",
                          re.IGNORECASE)


def _stated_uncertainty(passages: Sequence[Evidence], value: float) -> float | None:
    """The uncertainty a passage states in the sentence that gives the figure, if it states one."""
    for ev in passages:
        for sentence in sentences(ev.text):
            if any(relative_difference(value, v) <= MATCH_TOLERANCE for v in quoted_numbers(sentence)):
                m = _UNCERTAINTY.search(sentence)
                if m:
                    return float(m.group(1) or m.group(2))
    return None


def beyond_stated_uncertainty(v1: float, p1: Sequence[Evidence], v2: float, p2: Sequence[Evidence]) -> str | None:
    """Rule: two measurements whose sources each state an uncertainty cannot both be right when they
    differ by more than the two uncertainties combined (root sum of squares, the usual test of whether
    two results agree), however small the gap is next to the figures: "13.8 ±0.1" and "14.6 ±0.1"
    disagree. Returns how far apart they are, said in words, or None."""
    u1, u2 = _stated_uncertainty(p1, v1), _stated_uncertainty(p2, v2)
    if u1 is None or u2 is None:
        return None
    combined = (u1 ** 2 + u2 ** 2) ** 0.5
    gap = abs(v1 - v2)
    if combined <= 0 or gap <= combined:
        return None
    return (f"{gap:g} apart, {gap / combined:.0f} times the uncertainty their sources state (±{u1:g} and "
            f"±{u2:g})")


def ruling_context(c: Contradiction, leader: str | None, evidence: Sequence[Evidence]) -> str | None:
    """What the winning source itself says of the rejected figure, quoted for the reviewer, or None
    (only a ruling for one side is explained this way): the sentence in which it gives both figures
    ("93.4%, up from 89.0% in the same quarter of 2024") says what the rejected figure is; failing
    that, the sentence of the passage carrying the winning figure that says it replaces an earlier
    one ("This value supersedes the provisional figure"); failing that, a sentence outside the
    rejected figure's source that says a quantity it was worked out from is not what counts
    (`_working_refuted`); failing that, the sentence of one of the winning source's passages (the
    cited one included) that gives the rejected figure; failing that, the sentence of a passage of
    neither source that gives it; with either, or alone, that the rejected figure is an exact multiple
    of the one kept."""
    if leader not in ("agent1_correct", "agent2_correct"):
        return None
    won = c.agent1_value if leader == "agent1_correct" else c.agent2_value
    lost = c.agent2_value if leader == "agent1_correct" else c.agent1_value
    if won is None or lost is None or relative_difference(won, lost) <= MATCH_TOLERANCE:
        return None
    citation = c.agent1_citation if leader == "agent1_correct" else c.agent2_citation
    source = c.agent1_source if leader == "agent1_correct" else c.agent2_source
    lost_citation = c.agent2_citation if leader == "agent1_correct" else c.agent1_citation
    lost_reading = c.agent2_interpretation if leader == "agent1_correct" else c.agent1_interpretation
    won_unit, lost_unit = (c.agent1_unit, c.agent2_unit) if leader == "agent1_correct" else (c.agent2_unit, c.agent1_unit)
    misread = misread_unit(lost, lost_unit, won, won_unit, evidence, lost_citation)
    basis = re.search(r"'([^']{4,})'", citation or "")
    kept = f"; the figure kept rests on \"{basis.group(1)}\"" if basis else ""
    if misread:
        return (f"The other figure {misread.lead} where the evidence gives it ({misread.passage}: "
                f"{misread.shown}), about {plain_number(round(misread.converted, 1))} {won_unit} once converted"
                + kept)
    won_reading = c.agent1_interpretation if leader == "agent1_correct" else c.agent2_interpretation
    if measured_not_capacity(f"{citation} {won_reading or ''}", f"{lost_citation} {lost_reading or ''}"):
        quoted = re.search(r"'([^']{8,})'", lost_citation or "")
        return ("The other figure is worked out from a rating or capacity, not measured"
                + (f": \"{quoted.group(1).rstrip('.')}\"" if quoted else ""))
    lost_source = c.agent2_source if leader == "agent1_correct" else c.agent1_source
    standard = next((s for ev in source_passages(lost_source, lost_citation, evidence) for s in sentences(ev.text)
                     if STANDARD_RATE.search(s)), None)
    if standard and measured_not_capacity(f"{citation} {won_reading or ''}", f"{lost_citation} {lost_reading or ''}",
                                          standard):
        return f"The other figure is calculated at a standard rate, not measured: \"{' '.join(standard.split()).rstrip('.')}\""
    carrying = carries(source_passages(source, citation, evidence), won)
    for ev in carrying:
        for sent in sentences(ev.text):
            found = quoted_numbers(sent)
            if any(relative_difference(won, v) <= MATCH_TOLERANCE for v in found) and \
                    any(relative_difference(lost, v) <= MATCH_TOLERANCE for v in found):
                return f"{ev.source} gives both figures in one sentence: \"{' '.join(sent.split()).rstrip('.')}\""
    for ev in carrying:
        said = next((s for s in sentences(ev.text) if _REPLACES.search(s)), None)
        if said:
            return f"{ev.source} says: \"{' '.join(said.split()).rstrip('.')}\""
    # The rejected figure's own page saying how old its content is ("last updated by the business in
    # May 2022").
    lost_source = c.agent2_source if leader == "agent1_correct" else c.agent1_source
    for ev in carries(source_passages(lost_source, lost_citation, evidence), lost):
        said = next((s for s in sentences(ev.text) if LAST_UPDATED.search(s)), None)
        if said:
            return f"{ev.source} says of the other figure: \"{' '.join(said.split()).rstrip('.')}\""
    refuted = _working_refuted(lost_citation, (won, lost), evidence, lost_source, lost_reading)
    if refuted:
        said_of = "the other figure's working" if refuted[2] == "working" else refuted[2]
        return f"{refuted[0].source} says of {said_of}: \"{refuted[1]}\""
    # Failing both, a passage of the winning source, the cited one included, that gives the rejected
    # figure for something else ("in 2018/19 that brought the season's total to around 51,000", or
    # "Green coffee charged: 612.0 kg" in the roast log whose roasted weight is kept).
    # With either, or alone: that the rejected figure is an exact multiple of the one kept (`whole_multiple`).
    times = whole_multiple(won, lost)
    also = f"; {times[0].lower()}{times[1:]}" if times else ""
    for ev in carries(source_passages(source, citation, evidence), lost):
        return f"{ev.source} gives the other figure for something else: \"{_sentence_giving(ev, lost)}\"" + kept + also
    # Failing that, a passage of neither source that gives the rejected figure too ("Total 240 copies"
    # on the distributor's invoice, for a blog's "we sold 240"): where the figure may have come from,
    # shown so the reviewer can judge what it counts.
    own = {ev.id for ev in [*source_passages(source, citation, evidence), *source_passages(lost_source, lost_citation, evidence)]}
    for ev in carries([ev for ev in evidence if ev.id not in own], lost):
        return f"{ev.source} gives the other figure too: \"{_sentence_giving(ev, lost)}\"" + also
    return times


_TIMES = {2: "twice", 3: "three times", 4: "four times"}


def whole_multiple(won: float | None, lost: float | None) -> str | None:
    """Rule: a rejected figure that is exactly two, three or four times the figure kept (5,212 hours
    against 2,606) is said to be so: a count that takes each item more than once gives such a figure."""
    if not won or not lost or won <= 0:
        return None
    times = round(lost / won)
    if times not in _TIMES or relative_difference(lost, times * won) > 0.001:
        return None
    return (f"The other figure is exactly {_TIMES[times]} the figure kept ({plain_number(lost)} = {times} x "
            f"{plain_number(won)}), as a count that takes each item {_TIMES[times]} would give")


# A quantity with its unit as a working shows it ("it charges at 5 V", "27 Ah"; "27 x 5" multiplies, it
# is no unit), and words that deny it.
_QUANTITY = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s?(?![xX]\b)([A-Za-z%\u00b0]{1,4})\b")
_DENIES = re.compile(r"\b(?:not|isn't|aren't|wasn't|doesn't|don't|never|overstates?|understates?|wrongly|mistakenly|"
                     r"instead of)\b", re.I)


def _quantities(text: str) -> set[tuple[float, str]]:
    """The quantities with units a text gives ("27 Ah", "5 V"), as (value, unit in lower case)."""
    return {(float(v.replace(",", ".")), u.lower()) for v, u in _QUANTITY.findall(text)}


# "Counting from the apostille, the certificate was 49 days old": what a period was counted from.
_COUNTED_FROM = re.compile(r"\b(?:counting|counted|measured|reckoned|running|calculated) from (?:the |its |their |his |her )?"
                           r"(?:date of (?:the |its )?)?([a-z]{4,})\b", re.I)


# Words that say when a count starts, not from what ("counting from the first day").
_NO_START = frozenset({"first", "start", "beginning", "date", "last", "time", "moment", "point", "when", "then",
                       "that", "this", "there", "each", "every"})


# Words that label a reading without saying where it was taken ("Minimum found: 3.9").
_LABEL_STOP = frozenset({"through", "from", "with", "found", "minimum", "maximum", "total", "about", "after",
                         "before", "their", "this", "that", "were", "been", "reading", "value", "measured",
                         "figure", "result", "average", "mean", "overall"})


def _words(text: str) -> set[str]:
    """A text's words of four letters or more, lower case, a plural's "s" dropped. Not `terms`: its
    stems and short words let two unrelated sentences share two "place" words."""
    return {w[:-1] if w.endswith("s") and len(w) > 4 else w for w in re.findall(r"[a-z]{4,}", text.lower())}


def _measured_where(quoted: str, lost: float) -> set[str]:
    """The words just before the rejected figure in its own quoted working, which say where or on
    what it was taken ("Microsection through an M10 tapped hole, thread root: 3.9 µm")."""
    for m in re.finditer(r"\d+(?:[.,]\d+)?", quoted):
        if relative_difference(float(m.group(0).replace(",", ".")), lost) <= MATCH_TOLERANCE:
            before = re.split(r"[.;]\s|\.\.\.", quoted[max(0, m.start() - 80):m.start()])[-1]
            return _words(before) - _LABEL_STOP
    return set()


def _working_refuted(lost_citation: str | None, figures: tuple[float, float], evidence: Sequence[Evidence],
                     lost_source: str | None, lost_reading: str | None = None) -> tuple[Evidence, str, str] | None:
    """A sentence, in a passage outside the rejected figure's own source, that names a quantity the
    rejected figure was worked out from and says it is not what counts ("The 5 V a power bank puts
    out over USB is ... not the battery's nominal voltage", for the figure's working "27 x 5 = 135
    Wh"), or names what its report counted the period from and says it does not start it ("The date
    of an apostille ... does not start them again", for "counting from the apostille"): the
    evidence's own word on how the other figure went wrong. Or it names two words of where the
    rejected figure was taken and says that is not what counts ("The M10 tapped holes ... are not
    significant surfaces", for "Microsection through an M10 tapped hole, thread root: 3.9 µm"). The
    third item says which: "working" or "where the other figure was taken"."""
    quoted = " ".join(re.findall(r"'([^']{4,})'", lost_citation or ""))
    working = {(v, u) for v, u in _quantities(quoted) if all(relative_difference(v, f) > MATCH_TOLERANCE for f in figures)}
    start = _COUNTED_FROM.search(lost_reading or "")
    start = start if start and start.group(1).lower() not in _NO_START else None
    where = _measured_where(quoted, figures[1])
    if not working and not start and not where:
        return None
    own = {ev.id for ev in source_passages(lost_source, lost_citation, evidence)}
    for ev in evidence:
        if ev.id in own:
            continue
        for sent in sentences(ev.text):
            said = _quantities(sent)
            named = bool(start) and re.search(rf"\b{re.escape(start.group(1))}", sent, re.I) is not None
            place = len(where & _words(sent)) >= 2
            if (said & working or named or place) and _DENIES.search(sent):
                what = "working" if said & working or named else "where the other figure was taken"
                return ev, " ".join(sent.split()).rstrip("."), what
    return None


def _sentence_giving(ev: Evidence, value: float) -> str:
    """The first sentence of a passage that carries the figure (`carries` found one), as quoted."""
    said = next(s for s in sentences(ev.text)
                if any(relative_difference(value, v) <= MATCH_TOLERANCE for v in quoted_numbers(s)))
    return " ".join(said.split()).rstrip(".")
