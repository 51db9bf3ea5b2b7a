"""Reading the evidence: clauses, lexicon polarity with negation and contrast, and each aspect's
mentions across the sentence under review and the case's passages.

Nothing here knows a domain. Aspects come from the case (its signals and the aspects the question
lists); sentiment comes from VADER (the vaderSentiment package) and the failures a clause reports
(sentiment.py). A clause naming several aspects is read part by part. A clause neither can read
takes, in turn, the earlier stage's label for its aspect (when that stage was reasonably sure), the
opposite of the clause a contrast word ("but", "-지만") sets it against, or the polarity of the part
"and" joins it to.
What the reading could not settle it says in plain words: an aspect the text never mentions, an
aspect whose sentiment it could not read, and irony, which no word list can read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ....core import lexicons
from ....core.options import offered_options
from ....core.text import bm25_rank
from ....providers.offline import reading as measure
from ..ratings import OWN_RATING, rating_value
from ..rules import TermIndex, normalize_text
from .missing import cut_off, meaning_left_open, refers_elsewhere
from .rating_sides import POLAR, rating_against_text, rating_agrees
from .sentiment import clause_polarity as clause_polarity  # re-exported: the panel's one clause reader
from .sentiment import compound, double_edged, double_edged_gap, polarity_of, read_clause, unseen_content

_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_LATIN = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")

# An earlier stage's aspect label is borrowed for a clause the lexicon cannot score only from this
# confidence up: below it the stage itself was unsure (the shared low-confidence line).
SIGNAL_MIN_CONFIDENCE = 0.5
# How much an aspect's label is worth by where it came from; an earlier stage's label counts as its
# own confidence. The judge's confidence rests on these.
SOURCE_STRENGTH = {"lexicon": 1.0, "event": 0.8, "rating": 0.8, "contrast": 0.6, "coordination": 0.5}

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?。])\s+|\n+")
# Korean contrast endings and conjunctions are grammar ("-는데", "-지만", "하지만", ...), not vocabulary.
_KO_CONTRAST = r"(?<=는데)[,\s]+|(?<=지만)[,\s]+|,\s*(?:하지만|그런데|그러나|다만|반면)\s+"
_EN_CONTRAST = ",?\\s+(?=(?:" + "|".join(re.escape(w).replace("\\ ", "\\s+") for w in sorted(
    lexicons.contrasts(), key=len, reverse=True)) + ")\\b)"
_CONTRAST_SPLIT = re.compile(_KO_CONTRAST + "|" + _EN_CONTRAST, re.IGNORECASE)
_RATING = re.compile(r"([^\W\d_]+)\s*[:：]?\s*(\d(?:\.\d+)?)\s*/\s*5\b")
# The reviewer's own rating of the whole review ("rated 1 of 5 stars", "2/5 stars", "5 out of 5").
_OWN_RATING = OWN_RATING
# A reviewer's own rating this far out decides a review whose aspects point both ways: the reviewer
# has said which side weighs more (a few mild compliments against one severe complaint).
EXTREME_LOW_RATING = 1.5
EXTREME_HIGH_RATING = 4.5
_CAVEAT = re.compile(
    r"\b(?:however|but|except|unless|only|not|no|risk|limited|uncertain|may|tidak|namun|kecuali|bukan)\b"
    r"|다만|그러나|예외|않|없",
    re.IGNORECASE,
)
# Where the question lists its aspects: "each aspect (A, B)", "측면(A, B)".
_ASKED_ASPECTS = re.compile(r"(?:aspects?|측면)[^()（）]{0,40}[(（]([^()（）]+)[)）]", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“]([^\"”]{12,})[\"”]")
# Issues an earlier stage may name that a word list cannot settle.
_IRONY_ISSUE = re.compile(r"iron|sarcas|반어|풍자|비꼬", re.IGNORECASE)


def language_of(*texts: str) -> str:
    blob = " ".join(t for t in texts if t)
    return "ko" if len(_HANGUL.findall(blob)) > len(_LATIN.findall(blob)) * 0.3 else "en"


def clauses(text: str) -> list[str]:
    return [c for _, c in _clauses_with_contrast(text)]


# A sentence that opens with a subordinating contrast ("Although the room was small, ...") turns at
# its first comma; one that opens with a contrastive adverb ("However, ...") turns against the one before.
_LEADING_CONTRAST = re.compile(r"^((?:although|though|even though|despite|in spite of|whereas|while)\b[^,]{3,}),\s*(.+)$",
                               re.IGNORECASE | re.DOTALL)
_OPENING_CONTRAST = re.compile(r"^(?:but|however|yet|still|nevertheless|nonetheless|then again)\b", re.IGNORECASE)
# A coordinated part shorter than this ("Great", "oh well") comments on its neighbour rather than
# saying something of its own, and is read with it.
MIN_PART_WORDS = 3
# The contrast word a clause opens with, left out of what is quoted (the flag keeps the contrast).
_LEAD_WORD = re.compile(r"^(?:but|however|yet|although|though|even though|whereas|nevertheless|nonetheless)\b,?\s*",
                        re.IGNORECASE)
# Where a clause naming several things divides ("the screen is bright, the keys are loose and the fan
# is loud"): commas, semicolons and the coordinating "and", "while", "whereas".
_COORDINATION = re.compile(r"\s*[;,]\s*(?:and\s+)?|\s+(?:and|while|whereas)\s+", re.IGNORECASE)


def _clauses_with_contrast(text: str) -> list[tuple[bool, str]]:
    """Clauses, each with whether a contrast word joins it to the clause before it."""
    out: list[tuple[bool, str]] = []
    for sent in _SENTENCE_SPLIT.split(text or ""):
        sent = sent.strip()
        lead = _LEADING_CONTRAST.match(sent)
        pieces = [lead.group(1), lead.group(2)] if lead else [sent]
        parts: list[str] = []
        for piece in pieces:
            parts += [c.strip(" ,") for c in _CONTRAST_SPLIT.split(piece) if c and c.strip(" ,")]
        opening = bool(out) and bool(_OPENING_CONTRAST.match(sent))
        out += [(i > 0 or opening, _LEAD_WORD.sub("", c) or c) for i, c in enumerate(parts)]
    return out


def segments(clause: str) -> list[str]:
    """A clause's coordinated parts, for reading each thing it names on its own."""
    return [c.strip(" ,;") for c in _COORDINATION.split(clause) if c and c.strip(" ,;")]


_OPPOSITE = {"positive": "negative", "negative": "positive"}


@dataclass
class Mention:
    evidence_id: str | None  # None: the review sentence itself, when no passage holds it
    clause: str
    polarity: str
    cues: list[str]
    target: bool  # from the sentence under review
    source: str = "lexicon"  # lexicon, event, rating, contrast, signal; none or conflict: not read
    strength: float = 1.0


@dataclass
class AspectView:
    aspect: str
    mentions: list[Mention] = field(default_factory=list)
    stage1: tuple[str, float] | None = None

    def ids(self, polarity: str, *, target: bool | None = None) -> list[str]:
        return list(dict.fromkeys(
            m.evidence_id for m in self.read_mentions
            if m.polarity == polarity and m.evidence_id and (target is None or m.target == target)
        ))

    @property
    def read_mentions(self) -> list[Mention]:
        return [m for m in self.mentions if m.source not in ("none", "conflict")]

    def count(self, polarity: str) -> int:
        return sum(1 for m in self.read_mentions if m.polarity == polarity)

    def _pool(self) -> list[Mention]:
        own = [m for m in self.read_mentions if m.target]
        return own or self.read_mentions

    @property
    def determined(self) -> bool:
        """Whether the reading found the aspect's sentiment at all (a sentiment word, a rating, a
        contrast or a confident earlier stage)."""
        return bool(self._pool())

    @property
    def in_target(self) -> bool:
        return any(m.target for m in self.mentions)

    @property
    def label(self) -> str:
        """The sentence under review decides; without it the other passages' majority does."""
        pool = self._pool()
        pos = sum(1 for m in pool if m.polarity == "positive")
        neg = sum(1 for m in pool if m.polarity == "negative")
        return "positive" if pos > neg else "negative" if neg > pos else "neutral"

    @property
    def strength(self) -> float:
        """How well the label is read: the best source among the mentions that decide it."""
        pool = [m for m in self._pool() if m.polarity == self.label]
        return max((m.strength for m in pool), default=0.0)

    def quote(self, polarity: str, skip: set[str] = frozenset()) -> Mention | None:
        ranked = sorted((m for m in self.read_mentions if m.polarity == polarity),
                        key=lambda m: (not m.target, len(m.clause)))
        fresh = [m for m in ranked if quote_text(m.clause) not in skip]
        return (fresh or ranked or [None])[0]

    def fresh_quote(self, polarity: str, skip: set[str]) -> Mention | None:
        """A quote nobody has used yet, or None: the panel does not agree by repeating one sentence."""
        ranked = sorted((m for m in self.read_mentions if m.polarity == polarity),
                        key=lambda m: (not m.target, len(m.clause)))
        return next((m for m in ranked if quote_text(m.clause) not in skip), None)


@dataclass
class Reading:
    lang: str
    text: str
    aspects: list[AspectView]
    index: TermIndex
    stage1_ate: tuple[str, float] | None
    issues: list[str]
    ranked: list[str]  # evidence ids by relevance to the question (passage-level debates)
    gaps: list[str] = field(default_factory=list)
    irony: bool = False
    measured: measure.Reading | None = None
    # Polarities of clauses of the text under review that name no aspect: still part of its sentiment.
    unattached: list[str] = field(default_factory=list)
    own_rating: float | None = None  # the reviewer's own rating of the whole review, out of 5
    offers_mixed: bool = True  # the question's options include "mixed" (or it offers none)

    def by_name(self, name: str) -> AspectView | None:
        return next((a for a in self.aspects if a.aspect == name), None)

    @property
    def overall(self) -> str:
        labels = {a.label for a in self.aspects if a.determined} | set(self.unattached)
        label = overall_label(labels, self.own_rating)
        if label == "mixed" and not self.offers_mixed:
            # A scale without "mixed": the side VADER weighs more over the whole text.
            return whole_text_label(self.text)
        return label

    @property
    def weak(self) -> bool:
        return self.irony or (self.measured is not None and self.measured.weak) or bool(self.gaps)

    def confidence(self) -> float:
        """The reading's own confidence in its overall label: the middle, raised by how well each
        aspect was read, and capped when the reading is weak."""
        read = [a.strength for a in self.aspects]
        base = 0.45 + 0.4 * (sum(read) / len(read)) if read else 0.3
        if self.weak:
            return round(min(base, measure.WEAK_CONFIDENCE_CAP), 4)
        return round(base, 4)

    def uncertainties(self) -> list[str]:
        notes = [f"could not assess: {gap}" for gap in self.gaps]
        if self.measured is not None:
            # The shared measure's "the aspects X" repeats, more briefly, a gap already named above.
            notes += [n for n in self.measured.uncertainties()
                      if n not in notes and not n.startswith("could not assess: the aspects ")]
        return notes


def whole_text_label(text: str) -> str:
    """VADER's label for a whole text (its contrastive "but" weighing the clause after it more)."""
    return polarity_of(compound(text))


def opposite_leaning(label: str | None, text: str) -> str | None:
    """Rule: two readers that point opposite ways are no answer. When the label read part by part is
    positive and VADER's reading of the whole text is negative, or the reverse, one of them misread it
    (a comparison, a joke, a negation the parts lost), and a word list cannot tell which."""
    if label not in POLAR or not text:
        return None
    score = compound(text)
    whole = polarity_of(score)
    if whole not in POLAR or whole == label:
        return None
    return f"which way the text leans: read part by part it is {label}, taken whole {whole} (VADER {score:+.2f})"


def overall_label(labels: set[str], own_rating: float | None = None) -> str:
    """Rule: the text is mixed when its parts read both positive and negative, unless the reviewer's
    own rating of the whole review is extreme (`EXTREME_LOW_RATING`, `EXTREME_HIGH_RATING`): then the
    reviewer has weighed the parts, and the side the rating takes decides."""
    if {"positive", "negative"} <= labels:
        if own_rating is not None and own_rating <= EXTREME_LOW_RATING:
            return "negative"
        if own_rating is not None and own_rating >= EXTREME_HIGH_RATING:
            return "positive"
        return "mixed"
    for label in ("positive", "negative"):
        if label in labels:
            return label
    return "neutral"


def own_rating(evidence: list[Any]) -> float | None:
    """The reviewer's own rating of the whole review: a rating out of 5 in a primary passage (its
    source line or text), not an aggregate of other people's ratings; None when there is none or
    the primary passages disagree."""
    found = set()
    for ev in evidence:
        if str(getattr(ev, "authority", "") or "").lower() != "primary":
            continue
        for where in (ev.source or "", ev.text or ""):
            for m in _OWN_RATING.finditer(where):
                before = where[max(0, m.start() - 25):m.start()].lower()
                if re.search(r"average|mean|ratings?\b[^.]*\d|reviews?:|\b(?:from|was|previously|originally)\s*$", before):
                    continue
                found.add(rating_value(m))
    return found.pop() if len(found) == 1 else None


def attach_by_elimination(aspects: list[AspectView], loose: list[Mention]) -> AspectView | None:
    """Rule: when exactly one aspect the text is asked about is not named in it, and the read clauses
    of the text that name no aspect all speak one way, they speak of that aspect (what is left over
    on both sides). Returns the aspect they were attached to, or None."""
    missing = [a for a in aspects if not a.in_target]
    if len(missing) != 1 or not loose or len({m.polarity for m in loose}) != 1:
        return None
    missing[0].mentions.extend(loose)
    return missing[0]


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def quote_text(clause: str) -> str:
    return _short(clause.rstrip(" .!?。"))


def _signal(ctx: dict[str, Any], key: str) -> dict[str, Any]:
    value = ctx.get(key)
    return value if isinstance(value, dict) else {}


def asked_aspects(question: str) -> list[str]:
    """The aspects a question lists in parentheses after the word "aspect" (or "측면")."""
    out: list[str] = []
    for m in _ASKED_ASPECTS.finditer(question or ""):
        out += [a.strip(" .") for a in re.split(r"[,、/]|\band\b", m.group(1)) if a.strip(" .")]
    return list(dict.fromkeys(out))


def target_text(case: Any, context: dict[str, Any]) -> str:
    """The text under review: the signals' text, else a long quotation in the question."""
    text = str(context.get("text") or "")
    if text and text != case.question:
        return text
    m = _QUOTED.search(case.question or "")
    return m.group(1) if m else ""


def _stage_labels(atsa: list[Any]) -> dict[str, tuple[str, float]]:
    out: dict[str, tuple[str, float]] = {}
    for s in atsa:
        if isinstance(s, dict) and (s.get("aspect") or s.get("aspect_term")):
            out[str(s.get("aspect") or s.get("aspect_term"))] = (str(s.get("polarity")), float(s.get("confidence", 0)))
    return out


def _split_for_reading(clause: str, index: TermIndex, skip: frozenset[str]) -> list[str]:
    """The clause, or its coordinated parts when it names several aspects or its words and the
    failures it reports disagree ("the staff were lovely and the wifi dropped"). A part that names
    no aspect stays with the part before it."""
    if len(index.find(clause)) < 2 and read_clause(clause, skip).source != "conflict":
        return [clause]
    cuts = [0] + [x for m in _COORDINATION.finditer(clause) for x in (m.start(), m.end())] + [len(clause)]
    spans = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts), 2) if clause[cuts[i]:cuts[i + 1]].strip(" ,;")]
    if len(spans) < 2:
        return [clause]
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        short = len(_WORD.findall(clause[start:end].lower())) < MIN_PART_WORDS
        if merged and (short or index.aspect_terms and not index.find(clause[start:end])):
            merged[-1] = (merged[-1][0], end)  # the original words, so it is still found in the text
        else:
            merged.append((start, end))
    if len(merged) > 1 and len(_WORD.findall(clause[merged[0][0]:merged[0][1]].lower())) < MIN_PART_WORDS:
        merged[:2] = [(merged[0][0], merged[1][1])]  # an opening "Great," is said of what follows
    return [clause[a:b].strip(" ,;") for a, b in merged]


def _read_clauses(body: str, index: TermIndex, signal: dict[str, tuple[str, float]] | None,
                  keep_unnamed: bool = False) -> list[tuple[str, list[str], str, list[str], str, float]]:
    """Each clause of a passage that names an aspect: (clause, aspects, polarity, cues, source, strength).

    VADER and the reported failures read a clause first (sentiment.read_clause); a clause whose words
    and failures disagree has source "conflict" and no polarity. A clause they cannot read takes,
    when the passage is the text under review (`signal` given), the earlier stage's label for its
    aspects if that stage was sure enough and they agree; else the opposite of the clause a contrast
    word sets it against."""
    skip = aspect_words(index)
    split = [(contrasted and j == 0, j > 0, seg) for contrasted, clause in _clauses_with_contrast(body)
             for j, seg in enumerate(_split_for_reading(clause, index, skip))]
    parts = [(contrasted, seg) for contrasted, _joined, seg in split]
    joined = [j for _c, j, _s in split]  # the part continues the clause of the part before it
    read: list[list[Any]] = []
    for _contrasted, clause in parts:
        found = index.find(clause)
        got = read_clause(clause, skip)
        if got.read:
            read.append([clause, found, got.polarity, got.cues, got.source, SOURCE_STRENGTH[got.source]])
            continue
        if got.source == "conflict":
            read.append([clause, found, "neutral", got.cues, "conflict", 0.0])
            continue
        labels = {signal[a] for a in found if signal and a in signal and signal[a][1] >= SIGNAL_MIN_CONFIDENCE}
        if len({pol for pol, _ in labels}) == 1:
            pol, conf = min(labels, key=lambda x: x[1])
            read.append([clause, found, pol, [], "signal", conf])
        else:
            read.append([clause, found, "neutral", [], "none", 0.0])
    for i, (contrasted, _clause) in enumerate(parts):
        if read[i][4] != "none":
            continue
        # The clause a contrast word joins to this one: the one before (this clause opens with "but")
        # or the one after (the next clause does).
        neighbours = ([i - 1] if contrasted and i > 0 else []) + \
            ([i + 1] if i + 1 < len(parts) and parts[i + 1][0] else [])
        for j in neighbours:
            if read[j][4] in ("lexicon", "event", "signal") and read[j][2] in _OPPOSITE:
                read[i][2:6] = [_OPPOSITE[read[j][2]], [f"contrast with \"{quote_text(read[j][0])}\""],
                                "contrast", SOURCE_STRENGTH["contrast"]]
                break
    for i in range(len(parts)):
        if read[i][4] != "none":
            continue
        # Parts joined by "and" within one clause mostly share their polarity, as "but" turns it
        # (Hatzivassiloglou and McKeown, 1997): the part before, else the part after.
        neighbours = ([i - 1] if joined[i] else []) + ([i + 1] if i + 1 < len(parts) and joined[i + 1] else [])
        for j in neighbours:
            if read[j][4] in ("lexicon", "event", "signal") and read[j][2] in _OPPOSITE:
                read[i][2:6] = [read[j][2], [f"joined to \"{quote_text(read[j][0])}\""],
                                "coordination", SOURCE_STRENGTH["coordination"]]
                break
    return [tuple(r) for r in read if r[1] or keep_unnamed or not index.aspect_terms]


def aspect_words(index: TermIndex) -> frozenset[str]:
    """The words of the aspects' names and synonyms."""
    words = {w for t in index.aspect_terms for w in _WORD.findall(t.lower())}
    words |= {w for syn in index.synonym_hints.values() for t in syn for w in _WORD.findall(str(t).lower())}
    return frozenset(words)


def _irony_suspected(target: list[tuple[str, list[str], str, list[str], str, float]], context: dict[str, Any],
                     issues: list[str]) -> bool:
    """A word list cannot read irony. It is suspected when the text's lexicon polarity meets a cue
    that points the other way: an earlier stage naming irony or sarcasm, earlier stages reading the
    text as opposite polarities, or exclamations of praise (`exclaims`) next to a negative clause."""
    lexical = {r[2] for r in target if r[4] in ("lexicon", "event") and r[2] in _OPPOSITE}
    if not lexical:
        return False
    if any(_IRONY_ISSUE.search(i) for i in issues):
        return True
    stages = {str(_signal(context, k).get("label") or "") for k in ("stage1_ate", "stage2_ate")}
    if {"positive", "negative"} <= stages:
        return True
    praised = any(r[2] == "positive" and r[4] in ("lexicon", "signal") and exclaims(r[0]) for r in target)
    return praised and any(r[2] == "negative" and r[4] not in ("none", "conflict") for r in target)


# An exclamative says its praise aloud without an exclamation mark: "What a bargain.", "How lovely."
_EXCLAMATIVE = re.compile(r"^\W*(?:what an?|how)\s+\S+(?:\s+\S+){0,3}\s*[.!]?\W*$", re.I)


def exclaims(sentence: str) -> bool:
    """Whether a sentence is an exclamation: it has an exclamation mark, or it is a short exclamative
    ("What a bargain.")."""
    return "!" in sentence or bool(_EXCLAMATIVE.match(sentence.strip()))


def read_case(case: Any, context: dict[str, Any]) -> Reading:
    text = target_text(case, context)
    lang = str(context.get("language") or "") or language_of(case.question, text, *(e.text for e in case.evidence))
    atsa = _signal(context, "stage1_atsa").get("aspect_sentiments") or []
    asked = asked_aspects(case.question)
    terms = list(context.get("aspect_terms") or [])
    terms += [s.get("aspect") or s.get("aspect_term") for s in atsa if isinstance(s, dict)]
    terms += asked
    index = TermIndex.build([t for t in terms if isinstance(t, str)], context.get("synonym_hints") or {})
    views = {t: AspectView(t) for t in index.aspect_terms}
    stage = _stage_labels(atsa)
    for name, label in stage.items():
        if name in views:
            views[name].stage1 = label

    norm_text = normalize_text(text)
    units: list[tuple[str | None, str, bool]] = []
    held = False
    for ev in case.evidence:
        target = bool(norm_text) and norm_text in normalize_text(ev.text)
        held = held or target
        units.append((ev.id, ev.text, target))
    if text and not held:
        units.insert(0, (None, text, True))
    target_read: list[tuple[str, list[str], str, list[str], str, float]] = []
    loose: list[Mention] = []
    used: list[str] = []
    for ev_id, body, target in units:
        for m in _RATING.finditer(body):
            score = float(m.group(2))
            pol = "positive" if score >= 4.0 else "negative" if score <= 3.0 else "neutral"
            for aspect in index.find(m.group(1)):
                views[aspect].mentions.append(Mention(ev_id, m.group(0), pol, [m.group(0)], False, "rating",
                                                      SOURCE_STRENGTH["rating"]))
        body = _RATING.sub(" ", body)
        target_norm = norm_text if target else ""
        for clause, found, pol, cues, source, strength in _read_clauses(body, index, stage if target else None,
                                                                           keep_unnamed=target):
            in_target = bool(target_norm) and normalize_text(clause) in target_norm
            if not found and index.aspect_terms:
                # A clause of the text under review that names no aspect still carries its sentiment.
                if in_target and source in ("lexicon", "event") and pol in _OPPOSITE:
                    loose.append(Mention(ev_id, clause, pol, cues, True, source, strength))
                continue
            if in_target:
                target_read.append((clause, found, pol, cues, source, strength))
            if source not in ("none", "conflict"):
                used.append(clause)
            for aspect in found:
                views[aspect].mentions.append(Mention(ev_id, clause, pol, cues, in_target, source, strength))
    stage1 = _signal(context, "stage1_ate")
    s1 = (str(stage1["label"]), float(stage1.get("confidence", 0))) if stage1.get("label") else None
    issues = []
    for issue in _signal(context, "validator").get("issues") or []:
        if isinstance(issue, dict):
            issues.append(" ".join(str(issue.get(k) or "") for k in ("type", "description")).strip() or "issue")
        else:
            issues.append(str(issue))
    ranked = [r.id for r in bm25_rank(case.question, {e.id: e.text for e in case.evidence}) if r.score > 0]
    aspects = list(views.values())
    if text and attach_by_elimination([views[a] for a in asked if a in views], loose):
        loose = []
    options = offered_options(case.question or "")
    reading = Reading(lang, text, aspects, index, s1, issues, ranked,
                      unattached=[m.polarity for m in loose], own_rating=own_rating(case.evidence),
                      offers_mixed=not options or "mixed" in options)
    if aspects:
        # Clauses naming no aspect still show praise said aloud next to a complaint ("What a bargain.").
        _measure(reading, case, text, used, asked, target_read, context,
                 [(m.clause, [], m.polarity, m.cues, m.source, m.strength) for m in loose])
    reading.gaps += [gap for gap in (cut_off(text), refers_elsewhere(text), meaning_left_open(text, case.evidence)) if gap]
    return reading


def _measure(r: Reading, case: Any, text: str, used: list[str], asked: list[str],
             target_read: list[tuple[str, list[str], str, list[str], str, float]], context: dict[str, Any],
             unnamed: list[tuple[str, list[str], str, list[str], str, float]] = ()) -> None:
    """What the reading could not settle, in plain words, and the shared measure of it."""
    gaps: list[str] = []
    wanted = [a.aspect for a in r.aspects]
    # Where there is a text under review, an aspect counts as found only when that text names it.
    matched = [a.aspect for a in r.aspects if (a.in_target if text else a.mentions)]
    for a in r.aspects:
        if a.aspect not in matched:
            where = "the text under review does not mention it" if text else "no passage mentions it"
            gaps.append(f"the aspect {a.aspect} ({where})")
    undecided = [a for a in r.aspects if a.aspect in matched and not a.determined]
    # An aspect whose sentiment was not read matters only while it could still change the overall
    # label: once the text is both positive and negative, it is mixed whatever that aspect is.
    # An aspect the question asks about is part of the answer, so it matters whatever the label.
    if undecided and (r.overall != "mixed" or any(a.aspect in asked for a in undecided)):
        gaps.append("the sentiment towards " + ", ".join(a.aspect for a in undecided)
                    + " (no sentiment word, rating or contrast in its clause)")
    for clause in dict.fromkeys(t[0] for t in target_read if t[4] == "conflict"):
        gaps.append(f"the sentiment of \"{quote_text(clause)}\" (its words praise while it reports a failure, "
                    "or the reverse: mixed or ironic, which a word list cannot tell apart)")
    r.irony = _irony_suspected([*target_read, *unnamed], context, r.issues)
    if r.irony:
        gaps.append("whether the text is ironic or sarcastic: its words read one way while other cues point "
                    "the other, and a word list cannot read irony")
    gaps += [g for g in [unseen_content(text)] if g]
    phrase = double_edged(text)
    if phrase and not r.irony and not rating_agrees(r.own_rating, r.overall):
        r.irony = True  # no rating of the reviewer's own takes the reading's side to settle it
        gaps.append(double_edged_gap(phrase))
    leaning = opposite_leaning(r.overall, text)
    if leaning and not rating_agrees(r.own_rating, r.overall):
        gaps.append(leaning)
    gaps += [g for g in [rating_against_text(r.overall, r.own_rating)] if g]
    r.gaps = gaps
    passages = {m.evidence_id or "text" for a in r.aspects for m in a.read_mentions}
    # The question is measured against what the reading used (the text under review, the clauses it
    # read) and the claims it answers with (the overall label, each aspect's label).
    claims = [f"The overall sentiment is {r.overall}."] + \
        [f"The sentiment towards {a.aspect} is {a.label}." for a in r.aspects if a.determined]
    answered = [text, *used, *claims]
    r.measured = measure.read(case.question, answered, passages=len(passages), aspects_asked=wanted,
                              aspects_matched=matched)
