"""What kind of statistic a figure is, from the cue phrases next to it (an annual average or a
12-month change, a survey or a register count, a first or a revised estimate), what a rate is out
of and what the terms count it per, whether a figure was measured or worked out from a rating or a
standard rate, and whether a period's figure still holds: the readings by which two figures of one
quantity turn out to be different measures, or one of them the measure asked for."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ...core.lexicons import LEXICON_DIR
from ...core.schemas import Evidence
from ...core.text import MONTHS, clip_words, sentences, stem
from .contradictions import MATCH_TOLERANCE, period_end, quoted_numbers, relative_difference

MEASURES_FILE = "statistical_measures_en.tsv"
# Cue groups whose kinds name different measures of one quantity; "estimate" only says how sure a figure is.
DEFINITION_GROUPS = ("basis", "method", "release")


@dataclass(frozen=True)
class Cue:
    group: str
    kind: str
    label: str
    phrases: tuple[str, ...]


def _words(text: str | None) -> str:
    """Lower-case words separated by single spaces, padded, so phrases match on word boundaries."""
    return " " + " ".join(re.findall(r"[0-9a-z]+", (text or "").lower())) + " "


@lru_cache(maxsize=1)
def measure_cues() -> tuple[Cue, ...]:
    """The general cue phrases of data/lexicons/statistical_measures_en.tsv (sources in its README)."""
    out = []
    for line in (LEXICON_DIR / MEASURES_FILE).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        group, kind, label, phrases = line.split("\t")
        out.append(Cue(group, kind, label, tuple(_words(p).strip() for p in phrases.split("|") if p.strip())))
    return tuple(out)


def cues_in(text: str | None) -> dict[str, dict[str, list[str]]]:
    """group -> kind -> the cue phrases found in the text."""
    words = _words(text)
    found: dict[str, dict[str, list[str]]] = {}
    for cue in measure_cues():
        hits = [p for p in cue.phrases if f" {p} " in words]
        if hits:
            found.setdefault(cue.group, {})[cue.kind] = hits
    return found


def label_of(group: str, kind: str) -> str:
    return next(c.label for c in measure_cues() if c.group == group and c.kind == kind)


# "96% of candidates entered", "77% of pupils in the graded classes": a rate and what it is out of.
_RATE_OF = re.compile(r"\d\s*%\s+of\s+(?:the\s+|all\s+|those\s+)?([a-z]+)", re.I)


def rates_of_different_totals(reading1: str | None, reading2: str | None) -> str | None:
    """Rule: two rates whose reports say they are out of different totals ("96% of candidates entered
    passed", "77% of pupils in the graded classes passed") measure different things."""
    bases = [{stem(m.group(1).lower()) for m in _RATE_OF.finditer(r or "")} for r in (reading1, reading2)]
    if len(bases[0]) != 1 or len(bases[1]) != 1 or bases[0] == bases[1]:
        return None
    return f"they are rates out of different totals: '{reading1}' against '{reading2}'"


# "between April 2025 and March 2026", "April 2025 to March 2026": a span of months a figure covers.
_MONTH = r"(" + "|".join(m[:3] + r"[a-z]*" for m in MONTHS) + r")\.?\s+((?:19|20)\d\d)"
_SPAN = re.compile(_MONTH + r"\s*(?:-|–|to|and|until|till)\s*" + _MONTH, re.I)
# "2025/26", "2025-26": a year that runs across two calendar years.
_SPLIT_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d\s*[/–-]\s*\d\d(?!\d)")
_YEAR_KINDS = {"calendar": "the calendar year (January to December)",
               "offset": "a twelve-month year that does not start in January (a financial, tax or season year)"}


def _month(name: str) -> int:
    return next(n for n, m in enumerate(MONTHS, start=1) if m.startswith(name.lower()[:3]))


def year_kind(text: str | None) -> tuple[str, str] | None:
    """Which kind of year a text says its figure covers, and the words that say so: a twelve-month
    span of months, a split year ("2025/26"), or the cue phrases of the "year" group."""
    kinds: dict[str, str] = {}
    for m in _SPAN.finditer(text or ""):
        start, end = (_month(m.group(1)), int(m.group(2))), (_month(m.group(3)), int(m.group(4)))
        months = (end[1] - start[1]) * 12 + end[0] - start[0] + 1
        if months == 12:
            kinds.setdefault("calendar" if start[0] == 1 else "offset", m.group(0))
    split = _SPLIT_YEAR.search(text or "")
    if split:
        kinds.setdefault("offset", split.group(0))
    for kind, said in cues_in(text).get("year", {}).items():
        kinds.setdefault(kind, said[0])
    return next(iter(kinds.items())) if len(kinds) == 1 else None


def years_of_different_kinds(text1: str | None, text2: str | None, figure1: str, figure2: str) -> str | None:
    """Rule: two yearly figures, one for the calendar year and one for a year that starts in another
    month (April to March), cover different periods, whatever year each report names."""
    k1, k2 = year_kind(text1), year_kind(text2)
    if not k1 or not k2 or k1[0] == k2[0]:
        return None
    return (f"they cover different years: {figure1} is for {_YEAR_KINDS[k1[0]]} ('{k1[1]}'), {figure2} for "
            f"{_YEAR_KINDS[k2[0]]} ('{k2[1]}')")


# A passage that sets the measure a figure is judged by: grant terms, a contract, a licence condition.
_GOVERNING = re.compile(r"\b(?:terms|conditions?|contract|agreement|grant|regulations?|rules?|rulebook|policy|"
                        r"licen[cs]e|permit|scheme|standard|statute|act|by-?laws?|bye-?laws?|guidance|specification|"
                        r"constitution)\b", re.I)
# "water use per kilogram of washing capacity used", "per 100,000 scheduled collections": what a rate
# is counted per (up to three words after "per", numbers skipped); "per cent" is a percentage.
# A citation's "[Per extraction: ...]" and "as per the contract" are not rates.
_PER = re.compile(r"(?<!\bas )\bper\s+(?:[\d,.]+\s+)?((?!cent\b|extraction\b)[a-z]+(?:\s+[a-z]+){0,2})", re.I)
# Units people write short for the word a definition spells out.
_PER_SHORT = {"kg": "kilogram", "kilo": "kilogram", "kilos": "kilogram", "km": "kilometr", "hr": "hour",
              "hrs": "hour", "h": "hour", "l": "litr", "capita": "head", "person": "head", "people": "head"}

# Words that end what a rate is per ("per kilogram of washing capacity": kilogram).
_PER_ENDS = frozenset({"of", "the", "a", "an", "and", "or", "in", "on", "at", "for", "to", "is", "was", "each",
                       "every", "from", "than", "as", "with", "by"})


def _per_words(text: str | None) -> set[str]:
    """The stems of what a text counts its rates per ("per kg" and "per kilogram" both "kilogram")."""
    out = set()
    for m in _PER.finditer(text or ""):
        for word in m.group(1).lower().split():
            if word in _PER_ENDS:
                break
            out.add(_PER_SHORT.get(word) or stem(word))
    return out


# Terms that show a rate next to another measure ("a unit price (per 100 g) as well as the price of
# the pack, so that packs can be compared") set neither as the one the figure must be counted by.
_SIDE_BY_SIDE = re.compile(r"\b(?:as well as|alongside|together with|in addition to)\b", re.I)


def rate_the_terms_count(context1: str, context2: str, passages: list[tuple[str, str]]) -> tuple[int, str] | None:
    """Rule: where the terms that set the measure count it per something ("water use per kilogram of
    washing capacity used"), a figure counted per that thing measures what the terms count, and a
    figure counted per nothing (a total on the meter) does not: (1 or 2, the sentence of the terms).
    `passages` are (label, text): the label is a passage's source and authority."""
    own = (_per_words(context1), _per_words(context2))
    for label, text in passages:
        if not _GOVERNING.search(label):
            continue
        for sentence in re.split(r"(?<=[.;])\s+", text):
            counted = _per_words(sentence)
            if not counted or _SIDE_BY_SIDE.search(sentence):
                continue
            matched = [bool(words & counted) for words in own]
            if matched.count(True) == 1 and not own[matched.index(False)]:
                return matched.index(True) + 1, sentence.strip()
    return None


# An amount just before "per" ("22.0 m² at £38.50 per m²", "35 kg per sack") is a rate of its own, a
# price or a standard, not what the reported figure is counted per.
_AMOUNT_BEFORE = re.compile(r"\d[\d,.]*\s*[^\s\d]{0,6}\s*$")


def _counted_per(text: str) -> set[str]:
    """What a report's own words count its figure per ("Per year of memorial, the cost has gone from
    £240 to £192"), leaving out the rates an amount carries ("at £38.50 per m²") and "per the
    client's sketch" (according to)."""
    return {m.group(1).split()[0].lower() for m in _PER.finditer(text or "")
            if not _AMOUNT_BEFORE.search(text[:m.start()]) and not text[m.end():].startswith(("'s", "\u2019s"))
            and m.group(1).split()[0].lower() not in _PER_ENDS}


_PERCENT = frozenset({"%", "percent", "per cent", "percentage", "pct"})


def _change_per(context: str, unit: str | None) -> set[str]:
    """What a percentage change is counted per: the rate of the prices it is worked out from ("Was
    £1.39 per 100 g, now £1.66": a change in the price per 100 g, not in the price of the pack)."""
    if (unit or "").strip().lower() not in _PERCENT:
        return set()
    return _per_words(" ".join(m.group(0) for m in _PER.finditer(context or "")
                               if _AMOUNT_BEFORE.search(context[:m.start()])))


def per_unit_against_whole(context1: str, context2: str, figure1: str, figure2: str,
                           unit1: str | None = None, unit2: str | None = None) -> str | None:
    """Rule: a figure its report counts per something ("Per year of memorial, the cost has gone from
    £240 to £192") and one counted per nothing (the fee, up from £1,200 to £1,920) measure different
    things: a change in the one is not a change in the other. `context1` and `context2` are each
    report's own words (its reading, definition and citation), not the passages around its figure:
    "area per client's sketch" there says whose figure it is, not what it is counted per. A figure
    whose unit is itself a rate ("g per 100 g") is counted per what its unit names, whatever its
    citation's arithmetic ("0.80 x 2.5 = 2.0 g per 100 g") shows."""
    own = (_counted_per(context1) | _per_words(unit1) | _change_per(context1, unit1),
           _counted_per(context2) | _per_words(unit2) | _change_per(context2, unit2))
    if bool(own[0]) == bool(own[1]):
        return None
    rate, whole = (figure1, figure2) if own[0] else (figure2, figure1)
    unit = " and ".join(sorted(own[0] or own[1]))
    return f"{rate} is counted per {unit}, {whole} for the whole, so they measure different things"


# A period whose figure says it still holds ("2019 survey, track unchanged since", "2021, still
# current"): it covers every later period too.
_STILL_HOLDS = re.compile(r"\b(?:unchanged|not changed|no change|the same|still (?:current|valid|applies|in force|holds?))"
                          r"(?:\s+(?:since|ever since|to date|since then))?\b", re.I)


def still_holds(p1: str | None, p2: str | None) -> bool:
    """Rule: two periods are not different when one of them says its figure still holds ("2019
    survey, track unchanged since") and the other falls after it (2026): the older figure is also
    a figure for the later period."""
    for older, newer in ((p1, p2), (p2, p1)):
        if not older or not newer or not _STILL_HOLDS.search(older):
            continue
        end_old, end_new = period_end(older), period_end(newer)
        if end_old and end_new and end_old <= end_new:
            return True
    return False


# How a report says its figure is worked out from what a thing can do ("pump rating times 24 hours"),
# and how one says its figure was measured ("metered volume on the highest day").
_CAPACITY = re.compile(r"\b(?:rated|rating|capacity|theoretical|maximum possible|flat out|round the clock|"
                       r"(?:24|twenty-four) hours|if it ran|at full (?:speed|power|load))\b"
                       # "11 kW x 10.5 h": a power or a flow rate times the hours is what it would draw flat out.
                       r"|\b\d[\d.,]*\s*(?:kW|W|hp|l/min|l/h|m³/h|m3/h|litres per (?:minute|hour))\s*(?:x|×|\*|times)\s*"
                       r"\d[\d.,]*\s*(?:h|hrs?|hours?)\b", re.I)
_MEASURED = re.compile(r"\b(?:meter(?:ed)?|measured|readings?|counted|logged|recorded|weighed|weighbridge|surveyed)\b",
                       re.I)


# "weights on certificates are calculated at our standard 35 kg per sack": the source says its
# figures are worked out from a standard rate, not measured.
STANDARD_RATE = re.compile(r"\b(?:calculated|worked out|estimated|charged|priced) (?:at|on|from|using) (?:our |a |the )?"
                           r"(?:standard|nominal|flat|assumed|typical)\b", re.I)


def measured_not_capacity(measured: str, worked_out: str, source_says: str = "") -> bool:
    """Whether one report's account of its figure (definition, citation, reading) says it was measured
    and the other's that it is worked out from a rating or capacity, or its own source's passages
    say its figures are calculated at a standard rate (`source_says`), and neither account says
    both: a capacity says what could be, a measurement what was."""
    return bool(_MEASURED.search(measured) and not _CAPACITY.search(measured)
                and (_CAPACITY.search(worked_out) or STANDARD_RATE.search(source_says))
                and not _MEASURED.search(worked_out))


# "defined in the data note as 'the average age ... on the date each of them moved in'": what a
# report's own citation says its figure counts.
_DEFINED_AS = re.compile(r"\bdefined (?:[\w ]{0,40} )?as '([^']{6,160})'", re.I)


def defined_as(agent1: str, citation1: str | None, agent2: str, citation2: str | None) -> str:
    """The definition one report's citation quotes for its own figure, said as the end of a sentence
    giving how two figures differ (", and Brochure's figure is defined as '...'"), or ""."""
    for agent, citation in ((agent1, citation1), (agent2, citation2)):
        m = _DEFINED_AS.search(citation or "")
        if m:
            return f", and {agent}'s figure is defined as '{m.group(1)}'"
    return ""


DIFFERENCE_QUOTE = 140


def difference_counted(value1: float | None, unit1: str | None, value2: float | None, unit2: str | None,
                       passages: list[Evidence]) -> str:
    """Where one of the sources' own passages (`passages`) counts what separates the two figures ("17
    started in a chimney before spreading", between 131 and 148), that passage, quoted: it shows how
    the measures differ. Not for percentages: the points between two shares (99.6% and 94.6%) are
    no count a passage would give, and a "5" or a "13.25" found there is something else."""
    if value1 is None or value2 is None or unit1 != unit2 or (unit1 or "").strip().lower() in _PERCENT:
        return ""
    gap = round(abs(float(value1) - float(value2)), 6)
    if not gap:
        return ""
    for ev in passages:
        for sentence in sentences(ev.text):
            if any(relative_difference(gap, v) <= MATCH_TOLERANCE for v in quoted_numbers(sentence)):
                quoted = clip_words(sentence.rstrip("."), DIFFERENCE_QUOTE)
                return f"; the difference, {gap:g}, is counted in {ev.id}: \"{quoted}\""
    return ""
