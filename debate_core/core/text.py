"""Text helpers shared by the protocols, moderators and offline agents: tokens, passage ranking,
numbers, negation, sentences, set similarity, evidence ids named in free text, and the sentences
in which an author says the point is open (`doubt`)."""

from __future__ import annotations

import difflib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import pysbd
import snowballstemmer

from . import lexicons

# Doubt has its own module; its readers are re-exported here.
from .doubt import awaits_answer as awaits_answer
from .doubt import holds_open as holds_open
from .doubt import states_doubt

if TYPE_CHECKING:
    from .schemas import Evidence

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)\s*(%|percent|persen|ha|hectares?|hektar|m2|m²|km|ms|s|gb|mb|tb|years?|tahun)?(?![\w])", re.IGNORECASE)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
# Abbreviations pysbd's English rules do not know, after which a full stop does not end a sentence:
# legal citations ("arts. 830", "para. 2") and Indonesian addresses and company forms ("Jl.", "Kab.",
# "PT.", "Tbk."), which the sample cases carry. pysbd has no Indonesian or Korean rules; its English
# ones split both at ". ", "!" and "?", which is where their sentences end too.
_ABBREV = re.compile(r"\b(?:arts?|No|Nos|no|nr|para|paras|cf|e\.g|i\.e|vs|etc|Mr|Mrs|Dr|Prof|St|Jl|Kab|Kec|Tbk|PT|ha)\.$", re.IGNORECASE)

# Function words and negations come from data/lexicons/ (their sources are listed there).
# An item of a list inside a sentence ("only (a) for damage ..., or (b) for cleaning ..."): pysbd
# splits before its mark, but until the text before it ends a sentence it is the same sentence.
_LIST_ITEM = re.compile(r"\(([a-z]{1,4}|\d{1,3})\)\s")
_ENDED = re.compile(r"[.!?…][\"'”’)\]]*$")
STOPWORDS = lexicons.stopwords()
NEGATIONS = lexicons.negations()
IRREGULAR = lexicons.irregular_forms()
SPELLING = lexicons.spelling_variants()
# The calendar's names, in order, for the readers of dates and periods.
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
# Numbers written as words, each at its value's index ("six" is 6), for readers of counts and limits.
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve")
# Dates as documents write them: "19 January 2026", "January 19, 2026", "2026-01-19", "June 2026".
_MONTH_NAME = (r"(january|february|march|april|may|june|july|august|september|october|november|december|"
               r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?")
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})\s+{_MONTH_NAME}\s+(\d{{4}})\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH_NAME}\s+(\d{{1,2}}),?\s+(\d{{4}})\b", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b{_MONTH_NAME}\s+(\d{{4}})\b", re.IGNORECASE)
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def tokens(text: str) -> list[str]:
    return [t.lower() for t in _WORD.findall(text or "")]


def content_tokens(text: str) -> list[str]:
    return [t for t in tokens(text) if t not in STOPWORDS and len(t) > 1]


_LOCAL = threading.local()  # snowballstemmer and pysbd objects keep state while they work


def _stemmers() -> tuple[snowballstemmer.stemmer, snowballstemmer.stemmer]:
    if not hasattr(_LOCAL, "stemmers"):
        _LOCAL.stemmers = (snowballstemmer.stemmer("english"), snowballstemmer.stemmer("indonesian"))
    return _LOCAL.stemmers


_MISSION = re.compile(r"^([a-z]{2,})missions?$")


@lru_cache(maxsize=65536)  # Snowball is pure Python; a case repeats its words
def stem(token: str) -> str:
    """The Snowball stem of a lower-case token, so that 'heirs'/'heir' and 'warisan'/'waris' meet.
    The cases mix English with Indonesian terms, so a token first loses its Indonesian suffixes
    ('-an', '-nya', '-kan', '-lah') by the Snowball Indonesian stemmer, its prefixes kept (an English
    word such as 'diagnosis' would otherwise lose 'di-'), then goes through the English stemmer."""
    english, indonesian = _stemmers()
    token = SPELLING.get(token, token)  # "licence" meets "licensing", "colour" "color"
    token = IRREGULAR.get(token, token)  # "paid" meets "pay", which no suffix rule reaches
    m = _MISSION.match(token)
    if m:  # "permission" meets "permit", "admission" "admit": a Latin pair no suffix rule reaches
        token = m.group(1) + "mit"
    if len(token) >= 6:
        bare = indonesian.stemWord(token)
        # Only a stem that begins the word: what Snowball removed was suffixes alone.
        if token.startswith(bare) and len(bare) >= 4:
            token = bare
    return english.stemWord(token)


def terms(text: str) -> list[str]:
    return [stem(t) for t in content_tokens(text)]


def _segmenter() -> pysbd.Segmenter:
    if not hasattr(_LOCAL, "segmenter"):
        _LOCAL.segmenter = pysbd.Segmenter(language="en", clean=False)
    return _LOCAL.segmenter


@lru_cache(maxsize=4096)
def _split(text: str) -> tuple[str, ...]:
    parts: list[str] = []
    for piece in (s.strip() for s in _segmenter().segment(text)):
        if not piece:
            continue
        if parts and (_ABBREV.search(parts[-1]) or (_LIST_ITEM.match(piece) and not _ENDED.search(parts[-1]))):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return tuple(parts)


def sentences(text: str) -> list[str]:
    """The sentences of `text`, split by pysbd's English rules (abbreviations such as "e.g." and
    "Dr.", decimals, initials), kept together after the citation and Indonesian abbreviations above."""
    if not text or not text.strip():
        return []
    return list(_split(text)) or [text.strip()]


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


# "11½ rounders", "2¾ miles", "½ a point": a vulgar fraction is part of the number it follows, or a
# number of its own. As written, the fraction is a letter to the number pattern and hid the figure.
_FRACTIONS = {"½": 0.5, "¼": 0.25, "¾": 0.75, "⅓": 1 / 3, "⅔": 2 / 3, "⅕": 0.2, "⅖": 0.4, "⅗": 0.6, "⅘": 0.8,
              "⅙": 1 / 6, "⅚": 5 / 6, "⅛": 0.125, "⅜": 0.375, "⅝": 0.625, "⅞": 0.875}
_FRACTION = re.compile(r"(?<![\w.,])(\d+)?\s?([" + "".join(_FRACTIONS) + r"])")


def _decimal_fractions(text: str) -> str:
    """The text with each vulgar fraction written as a decimal ("11½" and "3 ½" as "11.5" and "3.5", "½" as "0.5")."""
    return _FRACTION.sub(lambda m: f"{int(m.group(1) or 0) + _FRACTIONS[m.group(2)]:.4f}".rstrip("0"), text)


def numbers(text: str) -> list[tuple[float, str]]:
    out = []
    for m in _NUMBER.finditer(_decimal_fractions(text or "")):
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


def doubts(text: str) -> list[str]:
    """The sentences of a text in which its author says the point is not settled."""
    return [s for s in sentences(text) if states_doubt(s)]


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
    """Rank documents against a query with BM25 over stemmed content terms (ties by id order).

    Scored by bm25s's Lucene variant (idf = ln(1 + (N - df + 0.5) / (df + 0.5))), multiplied by
    k1 + 1 so that scores read as the classic Okapi form; a document sharing no term scores 0."""
    ids = list(docs)
    corpus = [terms(docs[doc_id]) for doc_id in ids]
    vocabulary = {t for doc in corpus for t in doc}
    query_terms = [t for t in terms(query) if t in vocabulary]
    scores = [0.0] * len(ids)
    if query_terms:
        # Imported on first use: bm25s brings numpy and scipy.sparse, most of a second that a CLI
        # command which ranks nothing should not pay.
        import bm25s

        model = bm25s.BM25(k1=k1, b=b, method="lucene", dtype="float64")
        model.index(corpus, show_progress=False)
        scores = [float(s) * (k1 + 1) for s in model.get_scores(query_terms)]
    ranked = sorted(range(len(ids)), key=lambda i: (-round(scores[i], 4), i))
    return [Ranked(ids[i], round(scores[i], 4)) for i in ranked]


def best_sentence(text: str, query: str) -> str:
    sents = sentences(text)
    if not sents:
        return text
    scored = [(overlap(query, s) + 0.001 * (len(sents) - i), s) for i, s in enumerate(sents)]
    return max(scored)[1]


def clauses(sentence: str) -> list[str]:
    """A sentence cut after its commas, semicolons and colons, never inside brackets: the pieces a
    shorter statement can be made of ("(class III: harm)" stays whole)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(sentence):
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
        if depth == 0 and ch in ",;:" and sentence[i + 1: i + 2] == " ":
            parts.append(sentence[start: i + 1].strip())
            start = i + 1
    parts.append(sentence[start:].strip())
    return [p for p in parts if p]


def _as_statement(span: str) -> str:
    span = span.strip().rstrip(",;:").strip()
    span = span[:1].upper() + span[1:]
    return span if span.endswith((".", "!", "?")) else span + "."


# A clause that starts with one of these words adds to what came before it (a contrast, a reason,
# a qualification): a statement may end just before it and still say its point whole.
_ADDED_CLAUSE = frozenset("""and but or nor which who whose while whereas although though because since unless
except including largely mainly mostly so as yet where when after before then though""".split())


def _adds(clause: str) -> bool:
    first = clause.split(" ", 1)[0].lower().strip("(")
    return first in _ADDED_CLAUSE or clause.startswith("(")


# "and", "or" and "nor" may also open an aside set off by two commas inside a clause ("if you get,
# or have applied for, the enhanced rate"): the clause goes on after the aside, so a statement that
# stops before it would be cut in the middle ("The exception is if you get.").
_ASIDE_OPENERS = frozenset({"and", "or", "nor"})


def _may_end_before(parts: list[str], b: int) -> bool:
    clause = parts[b]
    if not _adds(clause):
        return False
    aside = (clause.split(" ", 1)[0].lower() in _ASIDE_OPENERS and clause.endswith(",")
             and b + 1 < len(parts) and not _adds(parts[b + 1]))
    return not aside


def best_span(text: str, query: str, limit: int) -> str:
    """The passage's statement closest to `query` that fits `limit` characters: its best sentence
    (`best_sentence`) when that fits; otherwise the run of that sentence's clauses closest to the query
    that says a point whole (it starts the sentence or follows a semicolon or colon, and ends the
    sentence or stops before a clause that only adds to it: "but ...", "which ..."); failing that, the
    sentence cut at a word with an ellipsis, so that a shortened claim never reads as complete when it
    is not. A rule-based writer states a shorter claim rather than cut a sentence in the middle."""
    sent = best_sentence(text, query)
    if len(sent) <= limit:
        return sent
    parts = clauses(sent)
    candidates: list[tuple[float, int, str]] = []
    for a in range(len(parts)):
        if a and not parts[a - 1].endswith((";", ":")):
            continue
        for b in range(a + 1, len(parts) + 1):
            span = _as_statement(" ".join(parts[a:b]))
            if len(span) > limit:
                break
            if b == len(parts) or _may_end_before(parts, b):
                # Among spans as close to the query, the longer one says more of the sentence.
                candidates.append((overlap(query, span), len(span), span))
    if not candidates:
        return clip_words(sent, limit)
    return max(candidates)[2]


# Authority scores this far apart (primary or official against a blog or a forum post) are no
# contest of equals: the stronger source settles the point on its own.
DECISIVE_AUTHORITY_GAP = 0.3


# Sources at or below this standing (opinion, forum, blog, a chat message) report what others say.
HEARSAY = 0.3

# Words that, anywhere in an authority label, mark what someone says in passing or a text no longer in force.
_DISCOUNTED = frozenset({"opinion", "forum", "blog", "social", "comment", "anecdote", "rumour", "outdated", "chat",
                         "gossip", "hearsay", "repealed", "superseded", "withdrawn"})


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
        # The documents that create or record a right or a measurement are primary sources ...
        "deed": 0.85, "register": 0.85, "regulator": 0.85, "accredited_lab": 0.85, "contract": 0.8,
        "certificate": 0.8, "guidance": 0.8, "guideline": 0.8, "bylaw": 0.8, "order": 0.8,
        "professional_code": 0.75, "expert": 0.7, "reference": 0.6,
        # ... and what someone says in passing is hearsay, below the press and level with a blog.
        "press": 0.4, "media": 0.4, "newsletter": 0.4, "opinion": 0.3, "forum": 0.25, "social": 0.2,
        "social_media": 0.2, "comment": 0.2, "anecdote": 0.2, "rumour": 0.15, "outdated": 0.2,
        "chat": 0.2, "gossip": 0.15, "hearsay": 0.2, "repealed": 0.2, "superseded": 0.2, "withdrawn": 0.2,
    }
    if label in levels:
        return levels[label]
    # A label in words of its own ("government guidance", "group chat", "statute (repealed)"): what
    # marks it as hearsay or as no longer in force decides; otherwise its strongest known word does.
    words = re.findall(r"[a-z_]+", label)
    known = [levels[w] for w in words if w in levels]
    discounted = [levels[w] for w in words if w in _DISCOUNTED]
    if discounted:
        return min(discounted)
    return max(known, default=0.5)


# What a passage's source calls itself when it is hearsay (a forum post, a group chat, a social media
# page): read only when the case gives the passage no authority of its own.
# A business's own live or customer service chat ("chat transcript") is the business speaking, not hearsay.
_HEARSAY_SOURCE = re.compile(r"\b(?:forums?(?!\s+(?:minutes|meetings?|decisions?|resolutions?)\b)|(?<!service )(?<!live )(?<!support )(?<!customer )chats?(?! transcripts?\b)|whatsapp|facebook|reddit|twitter|tweets?|instagram|tiktok"
                             r"|mumsnet|slack|discord|blogs?|rumou?rs?|gossip|social media|message board)\b", re.I)


def evidence_authority(ev: Evidence) -> float:
    """A passage's authority (`authority_score`): its declared `authority`; without one, hearsay's
    level when its source calls it a forum post, a chat or a social media page, else the middle."""
    if ev.authority is not None:
        return authority_score(ev.authority)
    return authority_score("forum") if _HEARSAY_SOURCE.search(ev.source or "") else authority_score(None)


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


def month_number(name: str) -> int:
    """1 to 12 for a month's name or its abbreviation ("Sept.", "jan")."""
    name = name.lower().rstrip(".")
    return next(n for n, m in enumerate(MONTHS, start=1) if m.startswith(name))


def calendar_days(text: str) -> set[tuple[int, int, int]]:
    """The (year, month, day) of every day a text names ("19 January 2026", "January 19, 2026",
    "2026-01-19"); not checked as a real date."""
    days = {(int(m.group(3)), month_number(m.group(2)), int(m.group(1))) for m in _DAY_MONTH_YEAR.finditer(text)}
    days |= {(int(m.group(3)), month_number(m.group(1)), int(m.group(2))) for m in _MONTH_DAY_YEAR.finditer(text)}
    days |= {(int(m.group(1)), int(m.group(2)), int(m.group(3))) for m in _ISO_DAY.finditer(text)}
    return days


def calendar_months(text: str) -> set[tuple[int, int]]:
    """The (year, month) of every month a text names with its year ("June 2026", also inside "1 June 2026")."""
    return {(int(m.group(2)), month_number(m.group(1))) for m in _MONTH_YEAR.finditer(text)}


# A literal of an ASP rule: an atom, maybe negated ("not banned(P)"). The dialectic protocol reads
# rules by it, and the scorer compares an answer's rule with a reference's.
_LITERAL = re.compile(r"(?:\bnot\s+)?-?[a-z_][A-Za-z0-9_']*\s*\([^()]*\)")


def rule_literals(rule: str) -> list[str]:
    """Head and body literals of an ASP-looking rule, whitespace-normalised, in order."""
    return [" ".join(m.group(0).split()) for m in _LITERAL.finditer(rule)]
