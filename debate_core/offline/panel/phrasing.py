"""Phrasing: label and role words, Korean particles, citations and the per-language message table."""

from __future__ import annotations

from typing import Any

from .reading import Mention, quote_text

_LABEL_WORD = {
    "ko": {"positive": "긍정", "negative": "부정", "neutral": "중립", "mixed": "혼합"},
    "en": {"positive": "positive", "negative": "negative", "neutral": "neutral", "mixed": "mixed"},
}
_ROLE_NAME = {
    "ko": {"analyst": "분석가", "critic": "비평가", "empath": "공감가"},
    "en": {"analyst": "the analyst", "critic": "the critic", "empath": "the empath"},
}


def _has_batchim(word: str) -> bool:
    last = word.strip()[-1:] if word.strip() else ""
    return bool(last) and "\uac00" <= last <= "\ud7a3" and (ord(last) - 0xAC00) % 28 != 0


def josa(word: str, pair: str) -> str:
    """Attach the Korean particle that fits the word's last syllable: josa('응대', '은/는') -> '응대는'."""
    if "/" not in pair:
        return word + pair
    with_b, without_b = pair.split("/")
    last = word.strip()[-1:]
    if not last or not ("\uac00" <= last <= "\ud7a3"):
        return f"{word}{with_b}({without_b})"
    return word + (with_b if _has_batchim(word) else without_b)


def particle(word: str, pair: str) -> str:
    """Only the particle, for a word followed by a parenthesis: f"긍정(0.62){particle('긍정', '으로/로')}"."""
    return josa(word, pair)[len(word):]


def _join(items: list[str], lang: str) -> str:
    if lang == "ko" or len(items) < 2:
        return ", ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _capital(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def _ids(ids: list[str]) -> str:
    return ", ".join(ids) if ids else "-"


def _cite(m: Mention, lang: str) -> str:
    where = m.evidence_id or ("리뷰 문장" if lang == "ko" else "the sentence")
    text = quote_text(m.clause)
    return f"'{text}'({where})" if lang == "ko" else f"\"{text}\" ({where})"


def display_name(persona_id: str, personas: list[dict[str, Any]], lang: str) -> str:
    if persona_id in _ROLE_NAME[lang]:
        return _ROLE_NAME[lang][persona_id]
    for p in personas:
        if p.get("id") == persona_id:
            return str(p.get("name") or persona_id)
    return persona_id
