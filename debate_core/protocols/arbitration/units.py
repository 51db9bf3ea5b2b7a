"""A figure a report gives in one unit while the passage that carries it gives another ("7.5" read
as km where the app's screen says "7.5 mi"): the unit the evidence states is the one the figure is in.
And a percentage a report works out from two figures it quotes, which its source need not print."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...core.schemas import Evidence
from .contradictions import (
    MATCH_TOLERANCE,
    exceeds,
    plain_number,
    quoted_numbers,
    relative_difference,
    unit_scale,
)

# A figure followed by its unit word: "7.5 mi", "6.5 nm", "12 km".
_FIGURE_UNIT = re.compile(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)\s*([A-Za-z]+)\b")
# Unit words that are as often ordinary words after a figure ("7 in the morning", "1 st").
_AMBIGUOUS = {"in", "st"}
# Pilots' and sailors' "nm" is the nautical mile; read so only here, where the figure must then agree
# with the other report (a nanometre never would).
_READ_AS = {"nm": "nmi"}


# Units with a second size under the same name, in kilograms: precious metals are weighed in troy
# ounces and pounds, everyday goods in avoirdupois ones ("32.15 oz" is a kilogram of silver).
_VARIANT_KG = {"ounces": (0.0311034768,), "pounds": (0.3732417216,)}


def in_a_variant(said_kg: float, value: float, unit: str | None) -> bool:
    """Whether `value` is `said_kg` kilograms in another size of the unit the report names (troy for
    avoirdupois ounces): a conversion that is right in that size, not a misread."""
    name = _NAMES.get((unit or "").strip().lower(), (unit or "").strip().lower())
    return any(relative_difference(said_kg / size, value) <= MATCH_TOLERANCE for size in _VARIANT_KG.get(name, ()))


# The names a reader knows abbreviated units by.
_NAMES = {"nm": "nautical miles", "nmi": "nautical miles", "mi": "miles", "km": "kilometres", "ft": "feet",
          "yd": "yards", "yds": "yards", "cm": "centimetres", "mm": "millimetres", "kg": "kilograms",
          "kgs": "kilograms", "g": "grams", "lb": "pounds", "lbs": "pounds", "oz": "ounces"}


@dataclass(frozen=True)
class Misread:
    passage: str
    said: str
    converted: float
    # True where the report converted a figure of its citation from the wrong unit ("115 miles").
    from_citation: bool = False

    @property
    def lead(self) -> str:
        """How the misreading is told: the figure is in another unit, or was converted from one."""
        return ("was converted from a figure in the wrong unit" if self.from_citation
                else "is in another unit")

    @property
    def shown(self) -> str:
        """The figure as the passage gives it, with its unit's name where it is abbreviated ("7.5 mi", in miles)."""
        name = _NAMES.get(re.sub(r"^[\d.,]+\s*", "", self.said).lower())
        return f'"{self.said}"' + (f", in {name}" if name else "")


def misread_unit(value: float | None, unit: str | None, other_value: float | None, other_unit: str | None,
                 passages: Sequence[Evidence], citation: str = "") -> Misread | None:
    """Rule: where a passage gives a report's figure in another unit of the same kind (a length, a
    mass) than the report does, and the figure in that unit agrees with the other report once
    converted, the report misread the unit and the two agree. So too for a figure the report's
    citation converted ("115 miles, which is 185 km") where the passage gives it in another unit
    ("115 nm"): that figure, converted from the unit the passage states, agrees with the other."""
    mine, theirs = unit_scale(unit), unit_scale(other_unit)
    if value is None or other_value is None or not mine or not theirs or mine[0] not in ("length", "mass") \
            or theirs[0] != mine[0]:
        return None
    converted_from = [q for q in quoted_numbers(citation) if relative_difference(q, value) > MATCH_TOLERANCE]
    for ev in passages:
        for m in _FIGURE_UNIT.finditer(ev.text or ""):
            word = _READ_AS.get(m.group(2).lower(), m.group(2).lower())
            stated = unit_scale(word) if word not in _AMBIGUOUS else None
            if not stated or stated[0] != mine[0]:
                continue
            said = float(m.group(1).replace(",", ""))
            from_citation = False
            if stated[1] != mine[1] and relative_difference(said, value) <= MATCH_TOLERANCE:
                converted = value * stated[1] / theirs[1]
            elif stated[1] != mine[1] and any(relative_difference(said, q) <= MATCH_TOLERANCE for q in converted_from):
                # Only a figure the passage gives in another unit can have been converted from it: the
                # same unit ("Green coffee charged: 612.0 kg" beside "Roasted coffee out: 517.8 kg") is
                # another figure, not the report's misread.
                converted, from_citation = said * stated[1] / theirs[1], True
                if not exceeds(relative_difference(converted, value)) or in_a_variant(said * stated[1], value, unit):
                    continue  # the citation's conversion was right (in troy ounces, for a precious metal)
            else:
                continue
            if not exceeds(relative_difference(converted, other_value)):
                return Misread(ev.id, m.group(0), converted, from_citation)
    return None


def misread_words(agent: str, shown: str, unit: str, other_agent: str, other_shown: str, other_unit: str,
                  found: Misread) -> str:
    return (f"{agent}'s {shown} {found.lead}: where the figure is given ({found.passage}: {found.shown}) it "
            f"is about {plain_number(round(found.converted, 1))} {other_unit} once converted, "
            f"which agrees with {other_agent}'s {other_shown}. Decided by the unit the evidence states: "
            f"{other_agent}'s {other_shown} stands.")


def share_pairs(value: float | None, unit: str | None, citation: str | None) -> list[tuple[float, float]]:
    """The (part, whole) pairs among the figures a citation quotes whose share, in percent, is a
    report's percentage to the precision it gives it ("Oil 132 kg. Herb 38.0 t" for 0.35%)."""
    if value is None or not ("%" in (unit or "") or "percent" in (unit or "").lower()):
        return []
    text = f"{value}"
    places = len(text.split(".")[1]) if "." in text and not text.endswith(".0") else 0
    half = 0.5 * 10 ** -places + 1e-9
    quoted = _measured(citation or "")
    return [(x[2], y[2]) for x in quoted for y in quoted
            if x[1] == y[1] and 0 < x[0] < y[0] and abs(100.0 * x[0] / y[0] - value) <= half]


# A figure with the word after it, which may be its unit ("132 kg", "24.5 tonnes", "38.0 t", "250").
_QUOTED_FIGURE = re.compile(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)(?:\s*([A-Za-z]+))?")


def _measured(text: str) -> list[tuple[float, str, float]]:
    """The figures a text gives, each as (value in its kind's base unit, its kind, value as written):
    a mass or a length in kilograms or metres, anything else as a plain count ("" kind)."""
    out = []
    for m in _QUOTED_FIGURE.finditer(text):
        value = float(m.group(1).replace(",", ""))
        word = (m.group(2) or "").lower()
        scale = unit_scale("tonnes" if word == "t" else word) if word and word not in _AMBIGUOUS else None
        kind, factor = scale if scale and scale[0] in ("mass", "length") else ("", 1.0)
        out.append((value * factor, kind, value))
    return out


def derived_share(value: float | None, unit: str | None, citation: str | None) -> bool:
    """Rule: a percentage a report works out from two figures its citation quotes ("Lambs slaughtered:
    250 ... liver fluke 38" for 15.2%) is found in its source as surely as one the source prints."""
    return bool(share_pairs(value, unit, citation))


def same_part_of_different_wholes(value1: float | None, unit1: str | None, citation1: str | None,
                                  value2: float | None, unit2: str | None, citation2: str | None) -> str | None:
    """Rule: two percentages that work out the same part over different wholes ("132 kg of oil from
    24.5 tonnes of wilted mint" for 0.54%, "Oil 132 kg. Herb 38.0 t" for 0.35%) measure different
    things: each is right out of its own total."""
    for x1, y1 in share_pairs(value1, unit1, citation1):
        for x2, y2 in share_pairs(value2, unit2, citation2):
            if x1 == x2 and relative_difference(y1, y2) > MATCH_TOLERANCE:
                return (f"they work out the same {plain_number(x1)} as a share of different totals "
                        f"({plain_number(y1)} and {plain_number(y2)})")
    return None


def is_year(v: float) -> bool:
    """A whole number a year could be (1900-2099): a date's year, not a figure."""
    return v.is_integer() and 1900 <= v <= 2099


def worked_from(value: float | None, other: float | None, citation: str | None) -> bool:
    """Rule: a figure a report works out in one step from the other report's figure and another its
    citation quotes ("Maximum altitude 146 m", less "Launch point altitude 98 m", for 48 m above the
    field) is the same reading, raw and worked out: that the raw one is printed and the worked-out one
    is not does not say which the question asks for. Years, 0 and 1 take no part (any figure is
    itself times one)."""
    if value is None or other is None or value <= 0:
        return False
    figures = [f for f in dict.fromkeys(quoted_numbers(citation or ""))
               if f > 1 and not is_year(f) and relative_difference(f, value) > MATCH_TOLERANCE]
    raw = [f for f in figures if relative_difference(f, other) <= MATCH_TOLERANCE]
    return any(got > 0 and relative_difference(got, value) <= MATCH_TOLERANCE
               for a in raw for b in figures if b != a for got in (a - b, b - a, a + b, a * b, a / b, b / a))
