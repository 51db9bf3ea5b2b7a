"""General word lists from data/lexicons/ (sources and licences in its README): stop words, negation,
contrast and reported failures (sentiment valence itself comes from the `vaderSentiment` package).
Loaded once; nothing here is written for a particular case."""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path

LEXICON_DIR = Path(__file__).resolve().parents[2] / "data" / "lexicons"


def _words(name: str) -> frozenset[str]:
    words: set[str] = set()
    for line in (LEXICON_DIR / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        if " " in line.strip() and name.startswith("contrast"):
            words.add(line.strip().lower())  # a phrase such as "even though"
            continue
        words.update(w.lower() for w in line.split())
    return frozenset(words)


@cache
def _forms_of(filename: str) -> dict[str, str]:
    """A file of one word per line with its other forms after it: each other form -> the first."""
    out: dict[str, str] = {}
    for line in (LEXICON_DIR / filename).read_text(encoding="utf-8").splitlines():
        words = line.lower().split()
        if words and not line.startswith("#"):
            out.update({form: words[0] for form in words[1:]})
    return out


def irregular_forms() -> dict[str, str]:
    """English irregular past forms and their base ("paid" -> "pay", "written" -> "write")."""
    return _forms_of("irregular_verbs_en.txt")


def spelling_variants() -> dict[str, str]:
    """Words spelt two ways and the one form they are read as ("licence" -> "license")."""
    return _forms_of("spelling_variants_en.txt")


@lru_cache(maxsize=1)
def double_edged() -> tuple[str, ...]:
    """Phrases said in praise and in irony alike ("won't forget in a hurry", "I suppose")."""
    lines = (LEXICON_DIR / "double_edged_en.txt").read_text(encoding="utf-8").splitlines()
    return tuple(line.strip().lower() for line in lines if line.strip() and not line.startswith("#"))


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    return _words("stopwords_en.txt") | _words("stopwords_id.txt")


@lru_cache(maxsize=1)
def negations() -> frozenset[str]:
    return _words("negation_vader.txt") | _words("negation_extra.txt")


@lru_cache(maxsize=1)
def contrasts() -> frozenset[str]:
    return _words("contrast_en.txt")


def sectioned(file_name: str) -> dict[str, list[str]]:
    """A lexicon file of `[section]` headers and one lower-cased entry per line ("#" comments and
    blank lines skipped), as section -> entries in file order."""
    out: dict[str, list[str]] = {}
    section = ""
    for line in (LEXICON_DIR / file_name).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        out.setdefault(section, []).append(line.lower())
    return out


@lru_cache(maxsize=1)
def failure_events() -> dict[str, frozenset[str]]:
    """Words and phrases that report something going wrong, by section: "breakdown" (the word itself
    reports it: "broke", "stop working") and "performance" (its negation does: "never answered")."""
    out = sectioned("failure_events_en.txt")
    return {k: frozenset(v) for k, v in out.items()}
