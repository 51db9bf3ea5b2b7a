"""Section 4 of the persona-panel source protocol: the Debate Review Context, i.e. rebuttal points mapped onto the case's
aspects with stance weights and polarity hints."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ....core.text import stem
from .signals import AspectSentiment

STANCE_WEIGHTS = {"neutral": 0.6, "pro": 1.0, "con": 1.0}
OTHER_STANCE_WEIGHT = 0.8


def stance_weight(stance: str | None) -> float:
    return STANCE_WEIGHTS.get((stance or "").strip().lower(), OTHER_STANCE_WEIGHT)


def stance_to_polarity(stance: str | None) -> str:
    s = (stance or "").strip().lower()
    return {"pro": "positive", "con": "negative"}.get(s, "neutral")


_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
# Korean particles that stick to a noun ("음식은", "직원이"); stripped from aspect terms only.
_PARTICLES = ("에서", "으로", "은", "는", "이", "가", "을", "를", "도", "의", "에", "로", "과", "와")


def normalize_text(text: str) -> str:
    """Lower-case with whitespace and punctuation removed, as the source protocol's mapping does."""
    return _NON_WORD.sub("", (text or "").lower())


def strip_particle(term: str) -> str:
    term = term.strip()
    for suffix in _PARTICLES:
        # Keep at least two characters so that a noun ending in a particle-like syllable survives.
        if term.endswith(suffix) and len(term) - len(suffix) >= 2:
            return term[: -len(suffix)]
    return term


# Conservative synonym groups (Korean and English) for review aspects. A term that shares a
# group with another expands to the whole group; case-level synonym_hints are added on top.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("가격", "비용", "가성비", "금액", "price", "cost", "value"),
    ("배송", "배달", "출고", "delivery", "shipping"),
    ("서비스", "응대", "직원", "종업원", "고객응대", "service", "staff", "waiter", "waitress"),
    ("품질", "퀄리티", "마감", "quality"),
    ("맛", "풍미", "taste", "flavor", "flavour"),
    ("음식", "요리", "메뉴", "food", "dish", "dishes", "meal"),
    ("분위기", "인테리어", "atmosphere", "ambience", "ambiance", "decor"),
    ("디자인", "외관", "스타일", "design"),
    ("성능", "속도", "퍼포먼스", "performance", "speed"),
    ("대기", "웨이팅", "기다림", "waiting", "queue"),
    ("위생", "청결", "hygiene", "cleanliness"),
    ("배터리", "충전", "battery", "charging"),
)


def expand_synonyms(term: str, extra: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    norm = normalize_text(strip_particle(term))
    out: list[str] = []
    for group in SYNONYM_GROUPS:
        if any(normalize_text(g) == norm for g in group):
            out += [g for g in group if normalize_text(g) != norm]
    for key, values in (extra or {}).items():
        if normalize_text(strip_particle(key)) == norm:
            out += [str(v) for v in values if str(v).strip()]
    return list(dict.fromkeys(out))


REVIEW_GUIDANCE = (
    "Map rebuttal points to aspect-level review actions where applicable. Use aspect_refs when "
    "available; if empty, infer from context cautiously. Cite provenance_hint in review reasons."
)
FALLBACK_MAPPING_POLICY = (
    "If a turn names no aspect, map it to the Stage1 ATSA aspect whose polarity matches the turn's "
    "polarity_hint (highest confidence first), otherwise to the highest-confidence aspect; a neutral "
    "turn is mapped only when Stage1 ATSA has exactly one aspect."
)
FAIL_REASONS = ("no_aspects", "no_match", "neutral_stance", "fallback_used")


MIN_STEM = 4  # shorter stems ("art", "bag") would match inside unrelated words
# What may follow a stem in a word of the text: an inflection, not another word ("bill" is not "billion").
_INFLECTED = r"(?:s|es|e|ed|d|ing|er|ers|ies|y)?(?![a-z])"


@dataclass
class TermIndex:
    """Normalised surface forms (terms, particle-stripped terms, synonyms) -> canonical aspect term."""

    aspect_terms: list[str]
    synonym_hints: dict[str, list[str]]
    forms: dict[str, str] = field(default_factory=dict)
    # An English term also matches other forms of its words ("toilets" in "the toilet block", "billing"
    # in "billed us"): each word by its stem, at a word start, the words in order.
    stemmed: list[tuple[re.Pattern[str], str]] = field(default_factory=list)

    @classmethod
    def build(cls, aspect_terms: Iterable[str], extra_synonyms: Mapping[str, Sequence[str]] | None = None) -> TermIndex:
        terms = list(dict.fromkeys(t.strip() for t in aspect_terms if t and t.strip()))
        hints = {t: expand_synonyms(t, extra_synonyms) for t in terms}
        forms: dict[str, str] = {}
        # Exact terms claim their forms before any synonym does, so a synonym never steals a term.
        for t in terms:
            for cand in (t, strip_particle(t)):
                key = normalize_text(cand)
                if key and key not in forms:
                    forms[key] = t
        for t in terms:
            for cand in hints[t]:
                key = normalize_text(strip_particle(cand))
                if key and key not in forms:
                    forms[key] = t
        stemmed = []
        for t in terms:
            words = normalize_text(t).split()
            if words and all(re.fullmatch(r"[a-z]+", w) for w in words):
                stems = [stem(w) for w in words]
                if all(len(x) >= MIN_STEM for x in stems):
                    stemmed.append((re.compile(r"(?<![a-z])" + (_INFLECTED + r"\W+").join(map(re.escape, stems)) + _INFLECTED), t))
        return cls(terms, hints, forms, stemmed)

    def find(self, text: str) -> list[str]:
        blob = normalize_text(text)
        hits: list[tuple[int, str]] = []
        for key, term in self.forms.items():
            pos = blob.find(key)
            if pos != -1:
                hits.append((pos, term))
        low = (text or "").lower()
        for pattern, term in self.stemmed:
            m = pattern.search(low)
            if m:
                hits.append((len(normalize_text(low[:m.start()])), term))  # its place in the blob
        hits.sort()
        return list(dict.fromkeys(term for _, term in hits))

    def where(self, text: str, term: str) -> int | None:
        """The character offset in ``text`` where the term, one of its synonyms or an inflected form
        ("billed" for "billing") is first named, or None."""
        low = (text or "").lower()
        keys = [k.lower().strip() for k in (term, *self.synonym_hints.get(term, [])) if k.strip()]
        places = [m.start() for k in keys if (m := re.search(r"(?<!\w)" + re.escape(k), low))]
        places += [m.start() for pattern, t in self.stemmed if t == term and (m := pattern.search(low))]
        return min(places) if places else None


def fallback_map(sentiments: Sequence[AspectSentiment], polarity_hint: str) -> list[str]:
    """The source protocol's ATSA-polarity fallback for a turn that names no aspect."""
    named = [s for s in sentiments if s.aspect.strip()]
    if not named:
        return []
    if polarity_hint == "neutral":
        distinct = list(dict.fromkeys(s.aspect for s in named))
        return distinct if len(distinct) == 1 else []
    candidates = [s for s in named if s.polarity == polarity_hint] or named
    best = max(candidates, key=lambda s: s.confidence)
    return [best.aspect]


def map_turn(
    turn: Mapping[str, Any], index: TermIndex, atsa_sentiments: Sequence[AspectSentiment]
) -> dict[str, Any]:
    """One rebuttal point: the turn mapped onto aspects, with weight, polarity hint and provenance."""
    speaker, stance = str(turn.get("speaker") or ""), str(turn.get("stance") or "")
    key_points = [str(k) for k in turn.get("key_points") or []]
    message = str(turn.get("message") or "")
    refs = index.find(" ".join([message, *key_points]))
    polarity = stance_to_polarity(stance)
    mapping = "direct" if refs else "none"
    if not refs:
        refs = fallback_map(atsa_sentiments, polarity)
        if refs:
            mapping = "fallback"
    reason = None
    if mapping == "fallback":
        reason = "fallback_used"
    elif mapping == "none":
        if not index.aspect_terms:
            reason = "no_aspects"
        elif polarity == "neutral":
            reason = "neutral_stance"
        else:
            reason = "no_match"
    return {
        "round": turn.get("round"),
        "speaker": speaker,
        "stance": stance,
        "key_points": key_points,
        "message": message,
        "aspect_refs": refs,
        "mapping": mapping,
        "mapping_fail_reason": reason,
        "weight": stance_weight(stance),
        "polarity_hint": polarity,
        "provenance_hint": f"source:{speaker}/{stance}",
    }


def build_review_context(
    turns: Sequence[Mapping[str, Any]],
    summary: Mapping[str, Any] | None,
    *,
    aspect_terms: Iterable[str],
    atsa_sentiments: Sequence[AspectSentiment] = (),
    synonym_hints: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """Section 4 of the source protocol. ``turns`` carry speaker and stance from the panel's configuration."""
    index = TermIndex.build(aspect_terms, synonym_hints)
    points = [map_turn(t, index, atsa_sentiments) for t in turns]
    stats = {"direct": 0, "fallback": 0, "none": 0}
    fails = dict.fromkeys(FAIL_REASONS, 0)
    aspect_hints: dict[str, list[dict[str, Any]]] = {}
    for p in points:
        stats[p["mapping"]] += 1
        if p["mapping_fail_reason"]:
            fails[p["mapping_fail_reason"]] += 1
        for aspect in p["aspect_refs"]:
            aspect_hints.setdefault(aspect, []).append(
                {k: p[k] for k in ("speaker", "stance", "round", "weight", "polarity_hint", "mapping")}
            )
    return {
        "summary": dict(summary) if summary else {},
        "rebuttal_points": points,
        "aspect_terms": index.aspect_terms,
        "synonym_hints": index.synonym_hints,
        "aspect_hints": aspect_hints,
        "mapping_stats": stats,
        "mapping_fail_reasons": fails,
        "review_guidance": REVIEW_GUIDANCE,
        "fallback_mapping_policy": FALLBACK_MAPPING_POLICY,
    }


def aspect_scores(aspect_hints: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, dict[str, float]]:
    """Per aspect, the summed weights of positive and negative hints (neutral hints carry no sign)."""
    out = {}
    for aspect, hints in aspect_hints.items():
        pos = sum((float(h.get("weight") or 0) for h in hints if h.get("polarity_hint") == "positive"), 0.0)
        neg = sum((float(h.get("weight") or 0) for h in hints if h.get("polarity_hint") == "negative"), 0.0)
        out[aspect] = {"positive": round(pos, 4), "negative": round(neg, 4)}
    return out
