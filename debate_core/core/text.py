"""Text helpers shared by the protocols, moderators and offline agents: tokens, passage ranking,
numbers, negation, sentences, set similarity, evidence ids named in free text."""

from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from . import lexicons

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)\s*(%|percent|persen|ha|hectares?|hektar|m2|m²|km|ms|s|gb|mb|tb|years?|tahun)?(?![\w])", re.IGNORECASE)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
# Abbreviations after which a full stop does not end a sentence ("art. 914", "No. 3", "e.g. the").
_ABBREV = re.compile(r"\b(?:arts?|No|Nos|no|nr|para|paras|cf|e\.g|i\.e|vs|etc|Mr|Mrs|Dr|Prof|St|Jl|Kab|Kec|Tbk|PT|ha)\.$", re.IGNORECASE)

# Function words and negations come from data/lexicons/ (their sources are listed there).
STOPWORDS = lexicons.stopwords()
NEGATIONS = lexicons.negations()


def tokens(text: str) -> list[str]:
    return [t.lower() for t in _WORD.findall(text or "")]


def content_tokens(text: str) -> list[str]:
    return [t for t in tokens(text) if t not in STOPWORDS and len(t) > 1]


def stem(token: str) -> str:
    """A light stemmer so that 'heirs'/'heir' and 'warisan'/'waris' meet."""
    for suffix in ("ings", "ing", "ies", "es", "s", "an", "nya"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 4:
            return token[: -len(suffix)]
    return token


def terms(text: str) -> list[str]:
    return [stem(t) for t in content_tokens(text)]


def sentences(text: str) -> list[str]:
    parts: list[str] = []
    for piece in (s.strip() for s in _SENTENCE.split(text or "")):
        if not piece:
            continue
        if parts and _ABBREV.search(parts[-1]):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return parts or ([text.strip()] if text and text.strip() else [])


SHORT_ANSWER_LIMIT = 160


def clip_words(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word boundary, with an ellipsis when cut; a
    single word longer than the limit is kept whole rather than broken."""
    text = (text or "").strip()
    if len(text) <= limit:
        return text
    cut = text[:limit].rstrip()
    space = cut.rfind(" ")
    if space <= 0:
        word = re.match(r"\S+", text)
        return (word.group(0) if word else text) + "…"
    return cut[:space].rstrip(" ,;:") + "…"


def first_sentence(text: str, limit: int = SHORT_ANSWER_LIMIT) -> str:
    """The first sentence of `text`, cut at a sentence end; a first sentence longer than `limit`
    is cut at a word boundary, never inside a word."""
    found = sentences(text or "")
    return clip_words(found[0], limit) if found else ""


def numbers(text: str) -> list[tuple[float, str]]:
    out = []
    for m in _NUMBER.finditer(text or ""):
        raw = m.group(1)
        # "906,000" groups thousands; "2,3" (as Indonesian writes 2.3) is a decimal comma.
        raw = raw.replace(",", "") if _THOUSANDS.fullmatch(raw) else raw.replace(",", ".")
        try:
            out.append((float(raw), (m.group(2) or "").lower()))
        except ValueError:
            continue
    return out


def has_negation(text: str) -> bool:
    return any(t in NEGATIONS for t in tokens(text))


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def overlap(a: str, b: str) -> float:
    """Share of a's content terms found in b."""
    ta = set(terms(a))
    if not ta:
        return 0.0
    return len(ta & set(terms(b))) / len(ta)


@dataclass(frozen=True)
class Ranked:
    id: str
    score: float


def bm25_rank(query: str, docs: dict[str, str], k1: float = 1.4, b: float = 0.75) -> list[Ranked]:
    """Rank documents against a query with BM25 over stemmed content terms (ties by id order)."""
    tokenized = {doc_id: terms(text) for doc_id, text in docs.items()}
    n = len(tokenized) or 1
    avgdl = sum(len(t) for t in tokenized.values()) / n or 1.0
    df: Counter[str] = Counter()
    for toks in tokenized.values():
        df.update(set(toks))
    q = terms(query)
    ranked = []
    for order, (doc_id, toks) in enumerate(tokenized.items()):
        tf = Counter(toks)
        score = 0.0
        for term in q:
            if term not in tf:
                continue
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            denom = tf[term] + k1 * (1 - b + b * len(toks) / avgdl)
            score += idf * tf[term] * (k1 + 1) / denom
        ranked.append((score, -order, doc_id))
    ranked.sort(reverse=True)
    return [Ranked(doc_id, round(score, 4)) for score, _, doc_id in ranked]


def best_sentence(text: str, query: str) -> str:
    sents = sentences(text)
    if not sents:
        return text
    scored = [(overlap(query, s) + 0.001 * (len(sents) - i), s) for i, s in enumerate(sents)]
    return max(scored)[1]


def authority_score(value: float | str | None) -> float:
    """Evidence authority as a number in [0, 1]: numbers pass through, labels map to levels."""
    if value is None:
        return 0.5
    if isinstance(value, (int, float)):
        v = float(value)
        return max(0.0, min(1.0, v / 10.0 if v > 1.0 else v))
    label = str(value).strip().lower()
    levels = {
        "constitution": 1.0, "statute": 0.95, "law": 0.9, "supreme_court": 0.9, "regulation": 0.8,
        "official": 0.85, "primary": 0.85, "high": 0.8, "court": 0.75, "jurisprudence": 0.75,
        "customary": 0.7, "adat": 0.7, "secondary": 0.6, "medium": 0.6, "academic": 0.55,
        "low": 0.35, "news": 0.4, "blog": 0.25, "unknown": 0.3,
    }
    return levels.get(label, 0.5)


def mentioned_ids(text: str, ids: Iterable[str]) -> list[str]:
    """Evidence ids named in free text, whole-word, in order of first mention."""
    found = []
    for eid in ids:
        m = re.search(rf"(?<![\w-]){re.escape(eid)}(?![\w-])", text or "")
        if m:
            found.append((m.start(), eid))
    return [eid for _, eid in sorted(found)]


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """Word-level diff as (op, text) pairs, op in {"=", "-", "+"}."""
    a, b = before.split(), after.split()
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("=", " ".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(("-", " ".join(a[i1:i2])))
        if op in ("insert", "replace"):
            out.append(("+", " ".join(b[j1:j2])))
    return out
