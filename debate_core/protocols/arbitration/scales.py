"""Unit tables the arbiter converts between, and units that name rather than measure."""

from __future__ import annotations

import re

# Units of mass and length, by their exact names, in kilograms and metres (the international yard and
# pound of 1959). A bare "m" is left out: reports write it for millions as often as for metres.
PHYSICAL_UNITS: dict[str, tuple[str, float]] = {
    **{u: ("mass", 1.0) for u in ("kg", "kgs", "kilogram", "kilograms", "kilo", "kilos")},
    **{u: ("mass", 1e-3) for u in ("g", "gram", "grams", "gramme", "grammes")},
    **{u: ("mass", 1e3) for u in ("tonne", "tonnes", "metric ton", "metric tons")},
    **{u: ("mass", 0.45359237) for u in ("lb", "lbs", "pound", "pounds")},
    **{u: ("mass", 0.028349523125) for u in ("oz", "ounce", "ounces")},
    **{u: ("mass", 6.35029318) for u in ("st", "stone", "stones")},
    **{u: ("length", 1.0) for u in ("metre", "metres", "meter", "meters")},
    **{u: ("length", 1e-2) for u in ("cm", "centimetre", "centimetres", "centimeter", "centimeters")},
    **{u: ("length", 1e-3) for u in ("mm", "millimetre", "millimetres", "millimeter", "millimeters")},
    **{u: ("length", 1e3) for u in ("km", "kilometre", "kilometres", "kilometer", "kilometers")},
    **{u: ("length", 0.3048) for u in ("ft", "foot", "feet")},
    **{u: ("length", 0.0254) for u in ("in", "inch", "inches")},
    **{u: ("length", 0.9144) for u in ("yd", "yds", "yard", "yards")},
    **{u: ("length", 1609.344) for u in ("mile", "miles", "mi")},
    **{u: ("length", 1852.0) for u in ("nautical mile", "nautical miles", "nmi")},
    # Data sizes, in bytes: the decimal units (a GB is 10^9 bytes) and the binary ones (a GiB is 2^30),
    # so that a limit of 2,048 MiB and the 2.147 GB a tool prints for it are one figure.
    **{u: ("data", 1.0) for u in ("byte", "bytes")},
    **{u: ("data", 1e3 ** k) for k, names in enumerate((("kb", "kilobyte", "kilobytes"),
                                                        ("mb", "megabyte", "megabytes"),
                                                        ("gb", "gigabyte", "gigabytes"),
                                                        ("tb", "terabyte", "terabytes")), start=1) for u in names},
    **{u: ("data", 1024.0 ** k) for k, names in enumerate((("kib", "kibibyte", "kibibytes"),
                                                          ("mib", "mebibyte", "mebibytes"),
                                                          ("gib", "gibibyte", "gibibytes"),
                                                          ("tib", "tebibyte", "tebibytes")), start=1) for u in names},
}


# A unit that names a version or release ("Gradle version", "release"): its figures are names in a
# sequence, not amounts, so how far apart two of them are says nothing.
_VERSION = re.compile(r"\b(?:version|release|revision|firmware|build number)s?\b", re.I)


def names_a_version(unit: str | None) -> bool:
    """Whether a report's unit names a version or release ("Gradle version")."""
    return bool(_VERSION.search(unit or ""))
