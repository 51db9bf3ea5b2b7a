"""Reading the evidence: clauses, cue-word polarity with negation and hedges, and each aspect's
mentions across the sentence under review and the case's passages."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...moderator.panel import TermIndex, normalize_text
from ...text import bm25_rank

_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_LATIN = re.compile(r"[A-Za-z]")

_KO_POS = ("맛있", "맛나", "훌륭", "최고", "좋았", "좋아", "좋고", "좋은", "좋다", "좋더", "만족", "추천",
           "(?<!불)친절", "깔끔", "신선", "괜찮", "넉넉", "푸짐", "합리적", "저렴", "부드럽", "감동", "완벽",
           "빨랐", "빠르", "긍정", "진하고", "딱 좋")
_KO_NEG = ("불친절", "느리", "느렸", "늦", "기다렸", "오래 걸", "비싸", "비쌌", "실망", "최악", "별로", "짰",
           "짜서", "싱겁", "식어", "식었", "불만", "아쉽", "아쉬웠", "아쉬운", "더럽", "불결", "붐비", "붐벼",
           "시끄", "부족", "불편", "부정", "무성의")
_KO_HEDGE = ("그럭저럭", "무난", "보통", "평범", "그저 그", "나쁘지 않", "편이", "중립", "유보")
_KO_NEGATION_BEFORE = ("안 ", "못 ", "안", "못")
_KO_NEGATION_AFTER = ("지 않", "지않", "지 못", " 않", " 없", "없")

_EN_POS = ("delicious", "tasty", "great", "excellent", "amazing", "friendly", "fresh", "generous", "reasonable",
           "affordable", "perfect", "loved?", "enjoy(?:ed)?", "recommend(?:ed)?", "good", "nice", "quick", "fast",
           "attentive", "worth", "positive", "satisf(?:ied|ying)", "gorgeous", "beautiful", "stunning", "praised?",
           "reliable", "smooth")
_EN_NEG = ("rude", "slow", "cold", "bland", "overpriced", "expensive", "pricey", "disappointing", "disappointed",
           "dirty", "noisy", "crowded", "waited", "terrible", "awful", "worst", "bad", "poor", "unfriendly", "late",
           "salty", "greasy", "stale", "negative", "broke(?:n)?", "complain(?:ed|ts?|s)?", "fail(?:ed|ing|s|ure)?",
           "faulty", "defective", "ignored", "never (?:replied|answered|responded)")
_EN_HEDGE = ("okay", "ok", "fine", "decent", "average", "alright", "so-so", "not bad", "neutral", "mediocre")
_EN_NEGATION = {"not", "no", "never", "hardly", "without", "isn't", "wasn't", "aren't", "weren't", "didn't",
                "don't", "doesn't", "nothing"}

_KO_POS_RE = re.compile("|".join(_KO_POS))
_KO_NEG_RE = re.compile("|".join(_KO_NEG))
_EN_POS_RE = re.compile(r"\b(?:" + "|".join(_EN_POS) + r")\b", re.IGNORECASE)
_EN_NEG_RE = re.compile(r"\b(?:" + "|".join(_EN_NEG) + r")\b", re.IGNORECASE)
_EN_HEDGE_RE = re.compile(r"\b(?:" + "|".join(re.escape(h) for h in _EN_HEDGE) + r")\b", re.IGNORECASE)

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?。])\s+|\n+")
_CLAUSE_SPLIT = re.compile(
    r"(?<=는데)[,\s]+|(?<=지만)[,\s]+|[;；]\s*|,\s*(?:하지만|그런데|그러나|다만|반면)\s+"
    r"|,?\s+(?=(?:but|although|though|however|whereas|while)\b)",
    re.IGNORECASE,
)
_RATING = re.compile(r"([^\W\d_]+)\s*[:：]?\s*(\d(?:\.\d+)?)\s*/\s*5\b")
_CAVEAT = re.compile(
    r"\b(?:however|but|except|unless|only|not|no|risk|limited|uncertain|may|tidak|namun|kecuali|bukan)\b"
    r"|다만|그러나|예외|않|없",
    re.IGNORECASE,
)


def language_of(*texts: str) -> str:
    blob = " ".join(t for t in texts if t)
    return "ko" if len(_HANGUL.findall(blob)) > len(_LATIN.findall(blob)) * 0.3 else "en"


def _negated_ko(clause: str, start: int, end: int) -> bool:
    before, after = clause[max(0, start - 2):start], clause[end:end + 4]
    return any(before.endswith(n) for n in _KO_NEGATION_BEFORE) or any(after.startswith(n) or n in after[:4]
                                                                       for n in _KO_NEGATION_AFTER)


def _negated_en(clause: str, start: int) -> bool:
    words = re.findall(r"[a-z']+", clause[:start].lower())[-3:]
    return any(w in _EN_NEGATION or w.endswith("n't") for w in words)


def clause_polarity(clause: str) -> tuple[str, list[str]]:
    """A clause's polarity from cue words, with local negation and hedges; returns the cues found."""
    pos: list[str] = []
    neg: list[str] = []
    hedged = False
    for m in _KO_POS_RE.finditer(clause):
        (neg if _negated_ko(clause, m.start(), m.end()) else pos).append(m.group(0))
    for m in _KO_NEG_RE.finditer(clause):
        if _negated_ko(clause, m.start(), m.end()) and m.group(0) in ("불만", "부족", "불편", "별로"):
            hedged = True  # "불만 없었다": a complaint denied is not praise, but no longer a complaint
            continue
        neg.append(m.group(0))
    for m in _EN_POS_RE.finditer(clause):
        (neg if _negated_en(clause, m.start()) else pos).append(m.group(0))
    for m in _EN_NEG_RE.finditer(clause):
        if _negated_en(clause, m.start()):
            hedged = True
            continue
        neg.append(m.group(0))
    if any(h in clause for h in _KO_HEDGE) or _EN_HEDGE_RE.search(clause):
        hedged = True
    cues = pos + neg
    if len(neg) > len(pos):
        return "negative", cues
    if len(pos) > len(neg):
        return ("neutral" if hedged else "positive"), cues
    return "neutral", cues


def clauses(text: str) -> list[str]:
    out = []
    for sent in _SENTENCE_SPLIT.split(text or ""):
        out += [c.strip(" ,") for c in _CLAUSE_SPLIT.split(sent) if c and c.strip(" ,")]
    return out


@dataclass
class Mention:
    evidence_id: str | None  # None: the review sentence itself, when no passage holds it
    clause: str
    polarity: str
    cues: list[str]
    target: bool  # from the sentence under review


@dataclass
class AspectView:
    aspect: str
    mentions: list[Mention] = field(default_factory=list)
    stage1: tuple[str, float] | None = None

    def ids(self, polarity: str, *, target: bool | None = None) -> list[str]:
        return list(dict.fromkeys(
            m.evidence_id for m in self.mentions
            if m.polarity == polarity and m.evidence_id and (target is None or m.target == target)
        ))

    def count(self, polarity: str) -> int:
        return sum(1 for m in self.mentions if m.polarity == polarity)

    @property
    def label(self) -> str:
        """The sentence under review decides; without it the other passages' majority does."""
        own = [m for m in self.mentions if m.target]
        pool = own or self.mentions
        pos = sum(1 for m in pool if m.polarity == "positive")
        neg = sum(1 for m in pool if m.polarity == "negative")
        return "positive" if pos > neg else "negative" if neg > pos else "neutral"

    def quote(self, polarity: str, skip: set[str] = frozenset()) -> Mention | None:
        ranked = sorted((m for m in self.mentions if m.polarity == polarity),
                        key=lambda m: (not m.target, len(m.clause)))
        fresh = [m for m in ranked if quote_text(m.clause) not in skip]
        return (fresh or ranked or [None])[0]


@dataclass
class Reading:
    lang: str
    text: str
    aspects: list[AspectView]
    index: TermIndex
    stage1_ate: tuple[str, float] | None
    issues: list[str]
    ranked: list[str]  # evidence ids by relevance to the question (passage-level debates)

    def by_name(self, name: str) -> AspectView | None:
        return next((a for a in self.aspects if a.aspect == name), None)

    @property
    def overall(self) -> str:
        labels = {a.label for a in self.aspects}
        if {"positive", "negative"} <= labels:
            return "mixed"
        for label in ("positive", "negative"):
            if label in labels:
                return label
        return "neutral"


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def quote_text(clause: str) -> str:
    return _short(clause.rstrip(" .!?。"))


def _signal(ctx: dict[str, Any], key: str) -> dict[str, Any]:
    value = ctx.get(key)
    return value if isinstance(value, dict) else {}


def read_case(case: Any, context: dict[str, Any]) -> Reading:
    text = str(context.get("text") or "")
    lang = str(context.get("language") or "") or language_of(case.question, text, *(e.text for e in case.evidence))
    atsa = _signal(context, "stage1_atsa").get("aspect_sentiments") or []
    terms = list(context.get("aspect_terms") or [])
    terms += [s.get("aspect") or s.get("aspect_term") for s in atsa if isinstance(s, dict)]
    index = TermIndex.build([t for t in terms if isinstance(t, str)], context.get("synonym_hints") or {})
    views = {t: AspectView(t) for t in index.aspect_terms}
    for s in atsa:
        if isinstance(s, dict) and (s.get("aspect") or s.get("aspect_term")) in views:
            views[s.get("aspect") or s.get("aspect_term")].stage1 = (str(s.get("polarity")), float(s.get("confidence", 0)))

    norm_text = normalize_text(text)
    units: list[tuple[str | None, str, bool]] = []
    held = False
    for ev in case.evidence:
        target = bool(norm_text) and norm_text in normalize_text(ev.text)
        held = held or target
        units.append((ev.id, ev.text, target))
    if text and not held:
        units.insert(0, (None, text, True))
    for ev_id, body, target in units:
        for m in _RATING.finditer(body):
            score = float(m.group(2))
            pol = "positive" if score >= 4.0 else "negative" if score <= 3.0 else "neutral"
            for aspect in index.find(m.group(1)):
                views[aspect].mentions.append(Mention(ev_id, m.group(0), pol, [m.group(0)], False))
        body = _RATING.sub(" ", body)
        target_norm = norm_text if target else ""
        for clause in clauses(body):
            found = index.find(clause)
            if not found:
                continue
            pol, cues = clause_polarity(clause)
            in_target = bool(target_norm) and normalize_text(clause) in target_norm
            for aspect in found:
                views[aspect].mentions.append(Mention(ev_id, clause, pol, cues, in_target))
    stage1 = _signal(context, "stage1_ate")
    s1 = (str(stage1["label"]), float(stage1.get("confidence", 0))) if stage1.get("label") else None
    issues = []
    for issue in _signal(context, "validator").get("issues") or []:
        if isinstance(issue, dict):
            issues.append(str(issue.get("type") or issue.get("description") or "issue"))
        else:
            issues.append(str(issue))
    ranked = [r.id for r in bm25_rank(case.question, {e.id: e.text for e in case.evidence}) if r.score > 0]
    return Reading(lang, text, list(views.values()), index, s1, issues, ranked)
