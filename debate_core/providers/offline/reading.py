"""How much of a case an offline agent could actually use: a reading it can measure and report.

The offline agents are rule-based. They can rank passages and compare numbers, but they do not
understand a question the way a model would, so each one measures its own reading and says when it
is weak: the share of the question's content words its chosen passages cover, how many passages it
could cite, whether it found numbers to compare, and which of the question's aspects it matched.
A weak reading caps the agent's confidence and names, in plain words, what it could not assess;
the moderators send such verdicts to a human (debate_core/protocols/common.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ...core.options import offered_options
from ...core.text import MONTHS, content_tokens, sentences, stem

# Below these the reading is weak: the agent used less than half of what the question asks about,
# or found no passage to stand on.
MIN_COVERAGE = 0.5
MIN_PASSAGES = 1
# The most confidence an agent may state on a weak reading: low enough that every moderator's
# review threshold sends it to a human.
WEAK_CONFIDENCE_CAP = 0.4


def question_terms(question: str) -> list[str]:
    """The question's content words, stemmed, in order, without repeats."""
    return list(_term_words(question))


_ASIDE = re.compile(r"\(([^()]*)\)")
# Days and months are parts of a date, which is compared as a date, not looked up as a word.
_DATE_WORDS = frozenset((*MONTHS, "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))


def _term_words(question: str) -> dict[str, str]:
    """Stem -> the word as the question wrote it (the first time), for reasons a reviewer reads.

    Figures (dates, amounts, times) and the names of days and months are left out: they are compared
    as numbers and dates, not looked up as words. So are one- or two-word asides in parentheses, such as "(fictitious)": they qualify the
    question without being part of what it asks."""
    text = _ASIDE.sub(lambda m: " " if len(m.group(1).split()) <= 2 else f" {m.group(1)} ", question)
    seen: dict[str, str] = {}
    for tok in content_tokens(text):
        s = stem(tok)
        if len(s) > 2 and s not in seen and not any(ch.isdigit() for ch in tok) and tok.lower() not in _DATE_WORDS:
            seen[s] = tok
    return seen


# Text the question quotes at length (a clause, a review, a log line) is material the question hands
# the agent to analyse, like a passage: its words are covered by the question itself.
_QUOTED = re.compile(r'"([^"]{40,})"|\u201c([^\u201d]{40,})\u201d')


def quoted_material(question: str) -> list[str]:
    """The passages a question quotes at length (40 characters or more between quotation marks)."""
    return [a or b for a, b in _QUOTED.findall(question)]


def covered(terms: Sequence[str], texts: Iterable[str]) -> list[str]:
    """The terms that appear (stemmed) in any of the texts."""
    present = {stem(t) for text in texts for t in content_tokens(text)}
    return [t for t in terms if t in present]


# Support for a statement must be found together: in a few sentences running, not scattered over a page.
SUPPORT_WINDOW = 3


@dataclass(frozen=True)
class Support:
    """Where the evidence comes closest to saying a statement: the passage, the sentences running
    there that carry the most of the statement's terms, and the share they carry."""

    evidence_id: str
    share: float
    sentences: str


def support(statement_terms: Sequence[str], passages: dict[str, str], window: int = SUPPORT_WINDOW) -> Support | None:
    """The best run of up to `window` consecutive sentences, within one passage, by the share of
    `statement_terms` (stemmed) it carries; None when there are no terms or no passages."""
    wanted = list(dict.fromkeys(statement_terms))
    if not wanted or not passages:
        return None
    best: Support | None = None
    for eid, text in passages.items():
        sents = sentences(text) or [text]
        stems = [{stem(t) for t in content_tokens(s)} for s in sents]
        for i in range(len(sents)):
            present = set().union(*stems[i:i + window])
            share = sum(t in present for t in wanted) / len(wanted)
            if best is None or share > best.share:
                best = Support(eid, share, " ".join(sents[i:i + window]))
    return best


@dataclass
class Reading:
    """What an agent could use of the case. `gaps` name, in plain words, what it could not assess."""

    coverage: float
    passages: int
    numbers_compared: int = 0
    aspects_matched: int = 0
    aspects_asked: int = 0
    gaps: list[str] = field(default_factory=list)

    @property
    def weak(self) -> bool:
        return (self.coverage < MIN_COVERAGE or self.passages < MIN_PASSAGES
                or (self.aspects_asked > 0 and self.aspects_matched < self.aspects_asked))

    def cap(self, confidence: float) -> float:
        """The confidence the agent may state on this reading."""
        return round(min(confidence, WEAK_CONFIDENCE_CAP), 4) if self.weak else round(confidence, 4)

    def uncertainties(self) -> list[str]:
        """The reading as the agent reports it: what it could not assess, then how much it covered."""
        notes = [f"could not assess: {gap}" for gap in self.gaps]
        if self.weak:
            notes.append(f"weak reading: the cited passages cover {self.coverage:.0%} of the question's terms "
                         f"({self.passages} passage(s) cited)")
        return notes


def read(question: str, used_texts: Sequence[str], *, passages: int, numbers_compared: int = 0,
         aspects_asked: Sequence[str] = (), aspects_matched: Sequence[str] = (),
         gaps: Sequence[str] = ()) -> Reading:
    """Measure a reading: `used_texts` are the passages (and claims) the agent actually relied on."""
    # The answers a question offers ("positive, negative or neutral") are what it asks to choose
    # between, not parts of its subject a passage must cover.
    offered = {stem(w) for option in offered_options(question) for w in content_tokens(option)}
    terms = [t for t in question_terms(question) if t not in offered]
    hit = covered(terms, [*used_texts, *quoted_material(question)])
    coverage = len(hit) / len(terms) if terms else 1.0
    missing = [t for t in terms if t not in hit]
    all_gaps = list(gaps)
    if coverage < MIN_COVERAGE and missing:
        words = _term_words(question)
        all_gaps.append("the parts of the question about " + ", ".join(words.get(t, t) for t in missing[:6]))
    unmatched = [a for a in aspects_asked if a not in set(aspects_matched)]
    if unmatched:
        all_gaps.append("the aspects " + ", ".join(unmatched))
    if passages < MIN_PASSAGES:
        all_gaps.append("which passage answers the question")
    return Reading(round(coverage, 4), passages, numbers_compared, len(aspects_matched), len(aspects_asked),
                   all_gaps)
