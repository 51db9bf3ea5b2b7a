"""Offline persona panel (seed 001): rule-based speakers and judge that read the case's evidence.

Every passage is split into clauses at contrast markers ("-는데", "-지만", "but", ...); each clause
is tied to the case's aspects (terms and synonyms) and given a polarity from small Korean and
English cue lexicons with local negation and hedges; "맛 4.6/5"-style ratings count too. The
sentence under review decides an aspect's label; other passages corroborate or contradict it.

On that reading each persona argues its stance: the analyst (neutral) tallies evidence per aspect
and checks the others' claims against it; the critic (con) presses the negative evidence and
overconfident labels; the empath (pro) brings out the positive evidence and answers the critic.
From round 2 each speaker answers what the others said in the history. The judge compares every
speaker's claims with the evidence. Cases without aspects get a passage-level debate instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..moderator.panel import TermIndex, normalize_text
from ..text import bm25_rank, mentioned_ids
from . import register

# ---------------------------------------------------------------------------
# Reading the evidence
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# Phrasing
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# What the others said
# ---------------------------------------------------------------------------


_EXPLICIT = re.compile(r"(?:→|->|=|:)\s*(긍정|부정|중립|혼합|positive|negative|neutral|mixed)\b", re.IGNORECASE)
_WORD_LABEL = {"긍정": "positive", "부정": "negative", "중립": "neutral", "혼합": "mixed"}


def claims_of(turn: dict[str, Any], index: TermIndex) -> dict[str, str]:
    """Aspect -> polarity a turn asserts: an explicit "aspect: label" in a key point, else the cue words
    of its key points, else of its message clauses."""
    out: dict[str, str] = {}
    points = [str(k) for k in turn.get("key_points") or []]
    texts = [(t, True) for t in points] + [(t, False) for t in clauses(str(turn.get("message") or ""))]
    for text, is_point in texts:
        found = index.find(text)
        if not found:
            continue
        explicit = _EXPLICIT.findall(text) if is_point else []
        if explicit:
            word = explicit[-1].lower()
            pol = _WORD_LABEL.get(word, word)
        else:
            pol, cues = clause_polarity(text)
            if not cues and pol == "neutral" and not (any(h in text for h in _KO_HEDGE) or _EN_HEDGE_RE.search(text)):
                continue
        if pol == "mixed":
            continue
        for aspect in found:
            out.setdefault(aspect, pol)
    return out


def _last_turns(history: list[dict[str, Any]], me: str) -> list[dict[str, Any]]:
    """The most recent turn of every other speaker, newest first."""
    seen: set[str] = set()
    out = []
    for turn in reversed(history):
        sp = str(turn.get("speaker"))
        if sp != me and sp not in seen:
            seen.add(sp)
            out.append(turn)
    return out


def _own_quotes(history: list[dict[str, Any]], me: str) -> set[str]:
    quoted: set[str] = set()
    for turn in history:
        if turn.get("speaker") == me:
            for m in re.findall(r"['\"]([^'\"]+)['\"]", str(turn.get("message") or "")):
                quoted.add(m)
    return quoted


# ---------------------------------------------------------------------------
# The three stances
# ---------------------------------------------------------------------------


def _tally(view: AspectView, lang: str) -> str:
    pos, neg, neu = view.ids("positive"), view.ids("negative"), view.ids("neutral")
    word = _LABEL_WORD[lang]
    if lang == "ko":
        return (f"{view.aspect}: 긍정 {view.count('positive')}건({_ids(pos)}), 부정 {view.count('negative')}건"
                f"({_ids(neg)}), 유보 {view.count('neutral')}건({_ids(neu)}) → {word[view.label]}")
    return (f"{view.aspect}: {view.count('positive')} positive ({_ids(pos)}), {view.count('negative')} negative "
            f"({_ids(neg)}), {view.count('neutral')} hedged ({_ids(neu)}) -> {view.label}")


def analyst_turn(r: Reading, persona: dict[str, Any], rnd: int, history: list[dict[str, Any]],
                 personas: list[dict[str, Any]]) -> dict[str, Any]:
    lang, word = r.lang, _LABEL_WORD[r.lang]
    me = str(persona["id"])
    names = ", ".join(a.aspect for a in r.aspects)
    key_points = [_tally(a, lang) for a in r.aspects]
    diffs = [a for a in r.aspects if a.stage1 and a.stage1[0] != a.label]
    overall = r.overall
    if lang == "ko":
        planning = f"{rnd}라운드: 측면({names})별로 증거를 집계하고 Stage1 레이블 및 다른 패널의 주장과 대조한다."
        if r.stage1_ate:
            w1 = word.get(r.stage1_ate[0], r.stage1_ate[0])
            s1 = f"Stage1 ATE는 문장을 {w1}({r.stage1_ate[1]:.2f}){particle(w1, '으로/로')} 봤다"
        else:
            s1 = "Stage1 문장 레이블은 없다"
        issues = f"검증기는 {', '.join(r.issues)}를 지적했다" if r.issues else "검증기 지적은 없다"
        reflection = f"{s1}. {issues}. 어느 쪽에도 기대지 않고 증거 수로만 판단한다."
        if rnd == 1:
            body = ["증거 집계 결과입니다. " + "; ".join(key_points) + "."]
        else:
            body = ["집계는 그대로입니다: " + ", ".join(f"{a.aspect} {word[a.label]}" for a in r.aspects) + "."]
        for a in diffs if rnd == 1 else []:
            w1 = word.get(a.stage1[0], a.stage1[0])
            body.append(f"{josa(a.aspect, '은/는')} Stage1에서 {w1}({a.stage1[1]:.2f}){particle(w1, '이었/였')}지만, "
                        f"리뷰 문장 자체의 표현은 {word[a.label]} 쪽입니다.")
    else:
        planning = (f"Round {rnd}: tally the evidence per aspect ({names}) and check it against the Stage1 "
                    "labels and the other panelists' claims.")
        s1 = f"Stage1 ATE labelled the sentence {r.stage1_ate[0]} ({r.stage1_ate[1]:.2f})" if r.stage1_ate \
            else "There is no Stage1 sentence label"
        issues = f"the validator flags {', '.join(r.issues)}" if r.issues else "the validator flags nothing"
        reflection = f"{s1}; {issues}. I should lean on neither and go by the evidence count."
        if rnd == 1:
            body = ["Evidence tally: " + "; ".join(key_points) + "."]
        else:
            body = ["The tally stands: " + ", ".join(f"{a.aspect} {a.label}" for a in r.aspects) + "."]
        for a in diffs if rnd == 1 else []:
            body.append(f"{a.aspect} was {a.stage1[0]} ({a.stage1[1]:.2f}) in Stage1, but the sentence itself "
                        f"reads {a.label}.")
    if rnd > 1:
        agreed: list[str] = []
        misfits: list[str] = []
        for turn in _last_turns(history, me):
            who = display_name(str(turn.get("speaker")), personas, lang)
            fits = []
            for aspect, claimed in claims_of(turn, r.index).items():
                view = r.by_name(aspect)
                if view is None:
                    continue
                if claimed == view.label:
                    fits.append(aspect)
                    continue
                support = view.ids(claimed)
                body.append(
                    f"{who}의 {aspect} {word[claimed]} 주장은 리뷰 문장과 어긋납니다: 문장은 {word[view.label]}이고 "
                    f"그 주장을 받치는 근거는 {_ids(support)}뿐입니다." if lang == "ko" else
                    f"{who}'s {claimed} claim on {aspect} departs from the sentence, which reads {view.label}; "
                    f"only {_ids(support)} back it.")
                misfits.append(f"{who}/{aspect}")
            if fits:
                agreed.append(f"{who}의 {', '.join(fits)} 판단" if lang == "ko" else f"{who} on {', '.join(fits)}")
        if agreed:
            body.append(f"{', '.join(agreed)}은 증거와 맞습니다." if lang == "ko"
                        else f"The evidence bears out {'; '.join(agreed)}.")
        if misfits:
            reflection += (f" 증거와 맞지 않는 주장: {', '.join(misfits)}." if lang == "ko"
                           else f" Claims that do not fit the evidence: {', '.join(misfits)}.")
    if lang == "ko":
        body.append(f"따라서 문장 전체는 {word[overall]}({overall})으로 읽는 것이 타당합니다.")
        key_points.append(f"문장 전체: {word[overall]}")
    else:
        body.append(f"So the sentence as a whole reads {overall}.")
        key_points.append(f"overall sentence label: {overall}")
    if lang == "en":
        body = [_capital(b) for b in body]
    return {"speaker": me, "stance": persona.get("stance", "neutral"), "planning": planning,
            "reflection": reflection, "message": " ".join(body), "key_points": key_points}


def _side_turn(r: Reading, persona: dict[str, Any], rnd: int, history: list[dict[str, Any]],
               personas: list[dict[str, Any]], side: str) -> dict[str, Any]:
    """The critic (side='negative') and the empath (side='positive') argue mirror-image cases."""
    lang, word = r.lang, _LABEL_WORD[r.lang]
    me = str(persona["id"])
    other = "positive" if side == "negative" else "negative"
    skip = _own_quotes(history, me)
    ours = sorted((a for a in r.aspects if a.label == side), key=lambda a: (-a.count(side), a.aspect))
    # Aspects the sentence itself hedges: the critic reads a hedge as withheld praise, the empath as no complaint.
    hedged = [a for a in r.aspects if a.label == "neutral" and a not in ours and a.mentions]
    theirs = [a for a in r.aspects if a.label == other]
    body: list[str] = []
    key_points: list[str] = []
    critic = side == "negative"

    if rnd > 1:
        handled: set[str] = set()
        concede: dict[str, list[AspectView]] = {}
        for turn in _last_turns(history, me):
            who = display_name(str(turn.get("speaker")), personas, lang)
            for aspect, claimed in claims_of(turn, r.index).items():
                view = r.by_name(aspect)
                if view is None or aspect in handled or claimed == side:
                    continue
                label = view.label
                if claimed == label == "neutral":
                    continue
                handled.add(aspect)
                if claimed == label and view.count(claimed) >= 2:
                    # Strong evidence on the other side: conceded below, one sentence per speaker.
                    concede.setdefault(who, []).append(view)
                elif label == side:
                    q = view.quote(side)
                    ref = _cite(q, lang) if q else _ids(view.ids(side))
                    body.append(f"{josa(who, '은/는')} {josa(aspect, '을/를')} {word[claimed]}으로 보지만, 문장은 분명히 "
                                f"{word[side]}입니다: {ref}." if lang == "ko" else
                                f"{who} reads {aspect} as {claimed}, but the sentence is plainly {side}: {ref}.")
                    key_points.append(f"{aspect}: {word[side]} — {who} 반박" if lang == "ko"
                                      else f"{aspect}: {side} — answers {who}")
                else:
                    q = view.quote("neutral") or view.quote(label)
                    ref = _cite(q, lang) if q else _ids(view.ids(label))
                    body.append(f"{josa(who, '은/는')} {josa(aspect, '을/를')} {word[claimed]}으로 보지만, 근거가 약합니다: {ref}."
                                if lang == "ko" else
                                f"{who} reads {aspect} as {claimed}, but the evidence is thin: {ref}.")
                    key_points.append(f"{aspect}: {word['neutral']} — {who}의 {word[claimed]} 판단 반박" if lang == "ko"
                                      else f"{aspect}: neutral — disputes {who}'s {claimed} reading")

        for who, views in concede.items():
            names = _join([v.aspect for v in views], lang)
            ids = _ids(sorted({i for v in views for i in v.ids(v.label)}))
            what = word[views[0].label]
            if lang == "ko":
                body.insert(0, f"{who}의 말대로 {josa(names, '이/가')} {what}이라는 점은 인정합니다({ids}). 하지만 그것이 "
                               "다른 측면의 문제를 지우지는 못합니다." if critic else
                               f"{who}의 지적처럼 {names} 쪽은 아쉬웠던 게 맞아요({ids}). 그 불편함은 충분히 공감해요.")
            else:
                verb = "was" if len(views) == 1 else "were"
                body.insert(0, f"I grant {who} that {names} {verb} {what} ({ids}), but that does not erase the "
                               "problems elsewhere." if critic else
                               f"{who} is right that {names} fell short ({ids}); that frustration is real.")

    for n, view in enumerate(ours[:2]):
        q = view.quote(side, skip)
        extra = [i for i in view.ids(side) if q is None or i != q.evidence_id]
        if q is None:
            continue
        skip.add(quote_text(q.clause))
        if lang == "ko":
            if critic:
                lead = f"{josa(view.aspect, '이/가')} 이 리뷰의 핵심 문제입니다" if n == 0 else \
                    f"{josa(view.aspect, '도')} 다르지 않습니다"
                body.append(f"{lead}: {_cite(q, lang)}." + (f" {_ids(extra)}도 같은 문제를 확인합니다." if extra else ""))
            else:
                lead = f"{josa(view.aspect, '은/는')} 분명 좋은 기억으로 남았어요" if n == 0 else \
                    f"{josa(view.aspect, '도')} 빛났어요"
                body.append(f"{lead}: {_cite(q, lang)}." + (f" {_ids(extra)}에서도 같은 마음이 보여요." if extra else ""))
            key_points.append(f"{view.aspect}: {word[side]} — {_ids(view.ids(side))}")
        else:
            if critic:
                lead = f"{view.aspect} is the real problem here" if n == 0 else f"{view.aspect} is no better"
                body.append(f"{lead}: {_cite(q, lang)}." + (f" {_ids(extra)} confirm it." if extra else ""))
            else:
                lead = f"{view.aspect} clearly left a warm impression" if n == 0 else f"{view.aspect} shines too"
                body.append(f"{lead}: {_cite(q, lang)}." + (f" {_ids(extra)} say the same." if extra else ""))
            key_points.append(f"{view.aspect}: {side} — {_ids(view.ids(side))}")

    for view in hedged[:1]:
        q = view.quote("neutral")
        if q is None or view.aspect in {k.split(":")[0] for k in key_points}:
            continue
        support = view.ids("positive")
        if quote_text(q.clause) in skip:
            # Already quoted in an earlier round: restate the position briefly instead of quoting again.
            if lang == "ko":
                body.append(f"{josa(view.aspect, '은/는')} 앞서 말한 그대로" + (
                    "입니다: 유보일 뿐 칭찬이 아닙니다." if critic else
                    (f"예요: {_ids(support)}에서도 만족한 목소리가 있어요." if support else "예요: 불만은 없었어요.")))
                key_points.append(f"{view.aspect}: " + ("중립 — 유보적 표현" if critic or not support
                                                        else f"긍정 — {_ids(support)}"))
            else:
                body.append(f"On {view.aspect} I stand by what I said: " + (
                    "hedged, not praise." if critic else
                    (f"{_ids(support)} were satisfied too." if support else "no complaint.")))
                key_points.append(f"{view.aspect}: " + ("neutral — hedged" if critic or not support
                                                        else f"positive — {_ids(support)}"))
            continue
        if lang == "ko":
            if critic:
                body.append(f"{josa(view.aspect, '은/는')} {_cite(q, lang)}라고만 했습니다. 칭찬이 아니라 유보입니다.")
                key_points.append(f"{view.aspect}: 중립 — 칭찬이 아닌 유보적 표현")
            elif support:
                body.append(f"{josa(view.aspect, '은/는')} {_cite(q, lang)}라고 했어요. 불만이 아니라 만족에 가깝고, "
                            f"{_ids(support)}에서도 만족한 목소리가 있어요.")
                key_points.append(f"{view.aspect}: 긍정 — {_ids(support)}")
            else:
                body.append(f"{josa(view.aspect, '은/는')} {_cite(q, lang)}라고 했어요. 적어도 불만은 아니에요.")
                key_points.append(f"{view.aspect}: 중립 — 불만 없음")
        else:
            if critic:
                body.append(f"On {view.aspect} the review only says {_cite(q, lang)}: withheld praise, not praise.")
                key_points.append(f"{view.aspect}: neutral — hedged, not praise")
            elif support:
                body.append(f"On {view.aspect} the review says {_cite(q, lang)}: closer to content than complaint, "
                            f"and {_ids(support)} found it satisfying too.")
                key_points.append(f"{view.aspect}: positive — {_ids(support)}")
            else:
                body.append(f"On {view.aspect} the review says {_cite(q, lang)}: at least no complaint.")
                key_points.append(f"{view.aspect}: neutral — no complaint")

    if critic and rnd == 1 and r.stage1_ate and r.stage1_ate[0] not in ("negative", "mixed") and ours:
        contrast = any(i.lower().startswith(("contrast", "negation", "irony")) for i in r.issues)
        body.append(
            f"Stage1 ATE가 문장을 {word.get(r.stage1_ate[0], r.stage1_ate[0])}({r.stage1_ate[1]:.2f})"
            f"{particle(word.get(r.stage1_ate[0], r.stage1_ate[0]), '으로/로')} 본 것은 "
            + ("대비 구문 뒤의 부정 절을 놓친 과신입니다." if contrast else "부정 근거를 무시한 과신입니다.")
            if lang == "ko" else
            f"Stage1 ATE calling the sentence {r.stage1_ate[0]} ({r.stage1_ate[1]:.2f}) is overconfident: "
            + ("it missed the negative clause after the contrast." if contrast else "it ignores the negative evidence."))
        key_points.append(f"Stage1 ATE {r.stage1_ate[0]}({r.stage1_ate[1]:.2f}) 과신" if lang == "ko"
                          else f"Stage1 ATE {r.stage1_ate[0]} ({r.stage1_ate[1]:.2f}) is overconfident")
    if not ours:
        body.append("이 측면들에서는 제 입장을 받칠 근거가 보이지 않습니다." if lang == "ko"
                    else "I find no evidence on these aspects that supports my side.")
    if not critic and theirs and rnd == 1:
        # Acknowledged without naming the aspect: round 1 is for the empath's own case.
        body.append("불편했던 부분도 있었겠지만, 리뷰를 쓴 분이 좋았던 순간을 분명히 적었다는 점을 함께 봐 주세요."
                    if lang == "ko" else
                    "Something clearly went wrong, but the reviewer still wrote down what they enjoyed.")

    ours_names = ", ".join(a.aspect for a in ours) or "-"
    if lang == "ko":
        planning = (f"{rnd}라운드: {ours_names}의 {word[side]} 근거를 전면에 세우고"
                    + (", 앞선 발언에 답한다." if rnd > 1 else ", 다른 패널의 반론에 대비한다."))
        reflection = ("근거 없는 공격은 하지 않는다: 인용한 구절이 실제로 말하는 것만 주장한다." if critic else
                      "불편했던 경험을 무시하지 않으면서, 리뷰를 쓴 분이 실제로 좋았다고 쓴 부분만 근거로 삼는다.")
    else:
        planning = (f"Round {rnd}: put the {side} evidence on {ours_names} first"
                    + ("; answer the previous speakers." if rnd > 1 else "; anticipate the other panelists."))
        reflection = ("No attack without a quote: I claim only what the cited passages say." if critic else
                      "Without dismissing the friction, I rely only on what the reviewer actually praised.")
    if lang == "en":
        body = [_capital(b) for b in body]
    return {"speaker": me, "stance": persona.get("stance", ""), "planning": planning, "reflection": reflection,
            "message": " ".join(body), "key_points": key_points or [body[0] if body else planning]}


# ---------------------------------------------------------------------------
# Passage-level debate (cases without aspects)
# ---------------------------------------------------------------------------


def _sentences(text: str) -> list[str]:
    return [x.strip() for x in _SENTENCE_SPLIT.split(text or "") if x.strip()]


def _caveats(sentence: str) -> int:
    return len(_CAVEAT.findall(sentence))


def _pick_sentence(text: str, query: str, want_caveat: bool | None) -> str:
    """The passage's sentence closest to the question, preferring (or avoiding) qualifying language."""
    from ..text import overlap

    sents = _sentences(text) or [text]
    def key(i_s: tuple[int, str]) -> tuple[float, float]:
        i, sent = i_s
        bonus = 0.0 if want_caveat is None else (1.0 if (_caveats(sent) > 0) == want_caveat else 0.0)
        return (bonus, overlap(query, sent) - 0.001 * i)
    return max(enumerate(sents), key=key)[1]


def _passage_turn(case: Any, r: Reading, persona: dict[str, Any], rnd: int, history: list[dict[str, Any]],
                  personas: list[dict[str, Any]]) -> dict[str, Any]:
    """Cases without aspects: the panel weighs passages. The critic presses qualifying passages, the
    empath the ones that answer plainly, the analyst the most relevant ones; each avoids repeating itself."""
    lang = r.lang
    me = str(persona["id"])
    stance = str(persona.get("stance", "neutral")).lower()
    by_id = case.evidence_by_id()
    ids = list(by_id)
    pool = (r.ranked or ids)[:6]
    mine = [i for t in history if t.get("speaker") == me for i in mentioned_ids(str(t.get("message")), ids)]
    want = {"con": True, "pro": False}.get(stance)
    if want is None:
        order = pool
    else:
        # Stable sort: among equally qualified passages the more relevant one comes first.
        order = sorted(pool, key=lambda i: -_caveats(by_id[i].text) if want else _caveats(by_id[i].text))
    picks = ([i for i in order if i not in mine] or order)[:2]
    lines, points = [], []
    for ev_id in picks:
        sent = _short(_pick_sentence(by_id[ev_id].text, case.question, want), 140)
        lines.append(f"'{sent}'({ev_id})" if lang == "ko" else f"\"{sent}\" ({ev_id})")
        points.append(f"{ev_id}: {_short(sent, 90)}")
    replies = []
    for turn in _last_turns(history, me) if rnd > 1 else []:
        who = display_name(str(turn.get("speaker")), personas, lang)
        theirs = [i for i in mentioned_ids(str(turn.get("message")), ids) if i not in picks]
        if not theirs:
            continue
        other = theirs[0]
        if stance == "con" and _caveats(by_id[other].text):
            limit = _short(_pick_sentence(by_id[other].text, case.question, True), 110)
            replies.append(f"{josa(who, '이/가')} 인용한 {other}도 스스로 한계를 둡니다: '{limit}'." if lang == "ko"
                           else f"{who} cites {other}, but it qualifies itself: \"{limit}\".")
        elif stance == "pro" and str(turn.get("stance", "")).lower() != "con":
            plain = _short(_pick_sentence(by_id[other].text, case.question, False), 110)
            replies.append(f"{josa(who, '이/가')} 짚은 {other}도 같은 방향입니다: '{plain}'." if lang == "ko" else
                           f"{who} points to {other}, and it points the same way: \"{plain}\".")
        elif stance == "pro":
            plain = _short(_pick_sentence(by_id[other].text, case.question, False), 110)
            replies.append(f"{josa(who, '이/가')} 짚은 {other}의 단서는 인정하지만, 같은 구절의 요지는 이것입니다: '{plain}'."
                           if lang == "ko" else
                           f"I accept the caveat {who} found in {other}, but its main point stands: \"{plain}\".")
        elif stance not in ("con", "pro"):
            replies.append(f"{josa(who, '이/가')} 인용한 {other}는 관련성 순위 {pool.index(other) + 1 if other in pool else '-'}위입니다."
                           if lang == "ko" else
                           f"{who} relies on {other}, which ranks "
                           f"{pool.index(other) + 1 if other in pool else 'outside the top'} for relevance.")
    if lang == "ko":
        lead = {"con": "이 근거들은 질문을 확정하지 못합니다", "pro": "이 근거들은 분명한 답을 받쳐 줍니다"}.get(
            stance, "가장 관련 높은 근거는 이렇습니다")
        planning = f"{rnd}라운드: 질문과 가장 관련 있는 구절을 찾아 입장에 맞게 평가한다."
        reflection = "인용한 구절이 실제로 말하는 것 이상은 주장하지 않는다."
    else:
        lead = {"con": "This evidence does not settle the question", "pro": "This evidence supports a clear answer"}.get(
            stance, "The most relevant passages say")
        planning = f"Round {rnd}: find the passages most relevant to the question and weigh them from my stance."
        reflection = "I claim no more than the cited passages say."
    message = " ".join([f"{lead}: " + "; ".join(lines) + ".", *(replies if lang == "ko" else map(_capital, replies))])
    return {"speaker": me, "stance": persona.get("stance", ""), "planning": planning, "reflection": reflection,
            "message": message, "key_points": points}


# ---------------------------------------------------------------------------
# Handlers
# ---------------------------------------------------------------------------


@register("panel", "turn")
def turn(payload: dict[str, Any]) -> dict[str, Any]:
    case = payload["case"]
    persona = payload["persona"]
    history = list(payload.get("history") or [])
    personas = list(payload.get("personas") or [persona])
    rnd = int(payload.get("round") or 1)
    reading = read_case(case, dict(payload.get("context") or {}))
    if not reading.aspects:
        return _passage_turn(case, reading, persona, rnd, history, personas)
    stance = str(persona.get("stance", "neutral")).lower()
    if stance == "con":
        return _side_turn(reading, persona, rnd, history, personas, "negative")
    if stance == "pro":
        return _side_turn(reading, persona, rnd, history, personas, "positive")
    return analyst_turn(reading, persona, rnd, history, personas)


# Words the judge may use for a label without tipping Rule E's keyword inference toward it.
_SAFE_WORD = {
    "ko": {"positive": "우호적", "negative": "불리한 쪽", "neutral": "유보적", "mixed": "갈린 평가"},
    "en": {"positive": "favourable", "negative": "unfavourable", "neutral": "undecided", "mixed": "split"},
}
_INFERENCE_ORDER = ("mixed", "positive", "negative", "neutral")


def judge_word(label: str, overall: str, lang: str) -> str:
    """A label's plain word, unless Rule E checks that label before the overall one (then a paraphrase)."""
    if label != overall and _INFERENCE_ORDER.index(label) < _INFERENCE_ORDER.index(overall):
        return _SAFE_WORD[lang][label]
    return _LABEL_WORD[lang][label]


def _winner(r: Reading, turns: list[dict[str, Any]]) -> str | None:
    scores: dict[str, int] = {}
    for speaker in dict.fromkeys(str(t.get("speaker")) for t in turns):
        claims: dict[str, str] = {}
        for t in turns:
            if t.get("speaker") == speaker:
                claims.update(claims_of(t, r.index))
        scores[speaker] = sum(1 if r.by_name(a) and r.by_name(a).label == p else -1
                              for a, p in claims.items() if r.by_name(a))
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    if not ranked or (len(ranked) > 1 and ranked[0][1] - ranked[1][1] < 1):
        return None
    return ranked[0][0]


@register("panel", "judge_summary")
def judge_summary(payload: dict[str, Any]) -> dict[str, Any]:
    case = payload["case"]
    turns = list(payload.get("turns") or [])
    personas = list(payload.get("personas") or [])
    r = read_case(case, dict(payload.get("context") or {}))
    lang = r.lang
    if not r.aspects:
        return _passage_judge(case, r, turns, personas)
    overall = r.overall
    positions: dict[str, dict[str, str]] = {}
    for t in turns:
        for aspect, pol in claims_of(t, r.index).items():
            positions.setdefault(aspect, {})[str(t.get("speaker"))] = pol
    agreements, disagreements = [], []
    for view in r.aspects:
        said = positions.get(view.aspect, {})
        if not said:
            continue
        w = judge_word(view.label, overall, lang)
        ids = _ids(view.ids(view.label) or [m.evidence_id for m in view.mentions if m.evidence_id][:3])
        dissent = {sp: p for sp, p in said.items() if p != view.label}
        if not dissent:
            who = ", ".join(display_name(sp, personas, lang) for sp in said)
            agreements.append(f"{view.aspect}: {w} — {who} 동의 ({ids})" if lang == "ko"
                              else f"{view.aspect}: {w} — agreed by {who} ({ids})")
        else:
            parts = ", ".join(f"{display_name(sp, personas, lang)}={judge_word(p, overall, lang)}"
                              for sp, p in said.items())
            disagreements.append(f"{view.aspect}: {parts}; 리뷰 문장 기준 {w} ({ids})" if lang == "ko"
                                 else f"{view.aspect}: {parts}; by the sentence itself {w} ({ids})")
    winner = _winner(r, turns)
    by_label: dict[str, list[str]] = {}
    for view in r.aspects:
        by_label.setdefault(view.label, []).append(view.aspect)
    detail = ", ".join(f"{', '.join(names)} {judge_word(label, overall, lang)}" for label, names in by_label.items())
    if lang == "ko":
        consensus = f"문장 전체는 {_LABEL_WORD['ko'][overall]}({overall}): {detail}."
        rationale = (f"리뷰 문장이 측면별 레이블을 정하고 다른 근거가 이를 뒷받침하거나 반박한다. 쟁점 {len(disagreements)}건, "
                     f"합의 {len(agreements)}건."
                     + (f" {display_name(winner, personas, lang)}의 주장이 증거와 가장 잘 맞았다." if winner else ""))
    else:
        consensus = f"The sentence as a whole is {overall}: {detail}."
        rationale = (f"The sentence under review sets each aspect's label; the other passages corroborate or "
                     f"contradict it. {len(disagreements)} disputed aspect(s), {len(agreements)} agreed."
                     + (f" {display_name(winner, personas, lang)}'s claims fit the evidence best." if winner else ""))
    summary = {"winner": winner, "consensus": consensus, "key_agreements": agreements,
               "key_disagreements": disagreements, "rationale": rationale}
    return summary


def _passage_judge(case: Any, r: Reading, turns: list[dict[str, Any]], personas: list[dict[str, Any]]) -> dict[str, Any]:
    lang = r.lang
    by_id = case.evidence_by_id()
    ids = list(by_id)
    # A passage a speaker builds on (in its key points) is "cited"; one it only names in the message
    # while answering someone else is "contested".
    cited: dict[str, list[str]] = {}
    contested: dict[str, list[str]] = {}
    for t in turns:
        sp = str(t.get("speaker"))
        own = mentioned_ids(" ".join(str(k) for k in t.get("key_points") or []), ids) or \
            mentioned_ids(str(t.get("message")), ids)
        for ev_id in own:
            if sp not in cited.setdefault(ev_id, []):
                cited[ev_id].append(sp)
        for ev_id in mentioned_ids(str(t.get("message")), ids):
            if ev_id not in own and sp not in contested.setdefault(ev_id, []):
                contested[ev_id].append(sp)
    rank = {ev_id: n for n, ev_id in enumerate(r.ranked or ids)}
    by_rank = sorted(cited, key=lambda i: rank.get(i, len(rank)))
    shared = [i for i in by_rank if len(cited[i]) >= 2]
    single = [i for i in by_rank if len(cited[i]) == 1]

    def who(ev_id: str) -> str:
        return ", ".join(display_name(sp, personas, lang) for sp in cited[ev_id])

    agreements = [f"{i}: {who(i)}" for i in shared]
    disagreements = []
    for i in by_rank:
        against = [sp for sp in contested.get(i, []) if sp not in cited[i]]
        if against:
            names = ", ".join(display_name(sp, personas, lang) for sp in against)
            disagreements.append(f"{i}: {who(i)} / {names} 반론" if lang == "ko" else f"{i}: {who(i)} vs {names}")
    if not shared:
        return {"winner": None, "consensus": "", "key_agreements": [], "key_disagreements": disagreements,
                "rationale": "No passage was cited by more than one panelist." if lang == "en"
                else "두 명 이상이 인용한 구절이 없다."}
    answer = _short(_pick_sentence(by_id[shared[0]].text, case.question, False), 160)
    caveat_ids = [i for i in by_rank if _caveats(by_id[i].text)]
    caveat = _short(_pick_sentence(by_id[caveat_ids[0]].text, case.question, True), 120) if caveat_ids else ""
    if lang == "ko":
        consensus = f"패널 합의: {answer} ({shared[0]})" + (f"; 남은 단서: {caveat} ({caveat_ids[0]})" if caveat else "")
        rationale = f"두 명 이상이 인용한 구절 {len(shared)}건, 한 명만 인용한 구절 {len(single)}건."
    else:
        consensus = f"The panel agrees: {answer} ({shared[0]})" + (
            f"; open caveat: {caveat} ({caveat_ids[0]})" if caveat else "")
        rationale = f"{len(shared)} passage(s) cited by two or more panelists, {len(single)} by only one."
    return {"winner": None, "consensus": consensus, "key_agreements": agreements,
            "key_disagreements": disagreements, "rationale": rationale}
