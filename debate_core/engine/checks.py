"""The checks every verdict passes, whatever the protocol: does the answer settle on one of the options
the question offers, is it an answer rather than a copied passage, is the evidence usable, does it
address the question, and is the question a question.

Each check is a pure function that returns a reason in plain words (naming the evidence that caused
it) or None. `run.py` applies them after the protocol's own moderator: a reason sends the verdict to
a human; an evidence or question problem also means the debate did not converge.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..core import lexicons, text
from ..core.options import named_options, offered_options

# Rule codes recorded in the verdict's applied_rules (present/glossary.py gives their words).
NO_OPTION = "check.no_option_named"
COPIED_PASSAGE = "check.copied_passage"
DEGENERATE_EVIDENCE = "check.degenerate_evidence"
NOT_ADDRESSED = "check.question_not_addressed"
NOT_A_QUESTION = "check.not_a_question"

# Answer copying: a run of at least this many words, copied in order from one passage, that is at
# least this share of the answer's words.
COPY_MIN_RUN = 15
COPY_MIN_SHARE = 0.6
COPY_SHINGLE = 6  # words per shingle when finding the copied run
# Degenerate passages.
REPEAT_MIN_WORDS = 30  # a passage this long or longer can be judged as repeating itself
REPEAT_SHARE = 0.5  # share of its 5-word shingles that occur earlier in the same passage
REPEAT_SHINGLE = 5
KEYWORD_MIN_WORDS = 15  # a text this long with no sentence and (almost) no function words is a keyword list
KEYWORD_MAX_FUNCTION_SHARE = 0.05
NEAR_IDENTICAL = 0.9  # word-set similarity between every pair of passages
# The question and the evidence: some passage shares at least this many content terms (and this
# share of the question's terms) with the question.
MIN_SHARED_TERMS = 2
# A question of fewer content words than this is too short to tell whether a passage addresses it.
MIN_QUESTION_TERMS = 4
LONG_QUESTION_TERMS = 8
MIN_SHARED_SHARE = 0.05
MAX_COPY_TOKENS = 60_000  # words of a passage read for copying and repetition (a 200 KB passage is cut)

_TAG = re.compile(r"<\s*/?\s*[A-Za-z][^<>]{0,200}>|<!--.*?-->", re.DOTALL)
_SENTENCE_END = re.compile(r"[.!?。！？](?:\s|$)|[.!?。！？][\"'”’)]")
_VOWELS = set("aeiouyAEIOUY")


@dataclass(frozen=True)
class Finding:
    code: str
    reason: str
    blocks_convergence: bool  # an evidence or question problem: the debate cannot have converged


def _passages(evidence: Iterable[Any]) -> list[tuple[str, str]]:
    out = []
    for item in evidence or []:
        if isinstance(item, tuple):
            out.append((str(item[0]), str(item[1])))
        elif isinstance(item, dict):
            out.append((str(item.get("id", "")), str(item.get("text", ""))))
        else:
            out.append((str(getattr(item, "id", "")), str(getattr(item, "text", ""))))
    return out


def _shingles(words: list[str], size: int) -> list[tuple[str, ...]]:
    return [tuple(words[i:i + size]) for i in range(len(words) - size + 1)]


def _names(ids: list[str], limit: int = 5) -> str:
    shown = ", ".join(f'"{i}"' for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _lead(answer: str) -> str:
    """The answer's first clause: up to its first sentence end, colon, semicolon or line break."""
    return re.split(r"[.;:\n](?:\s|$)|\n", (answer or "").strip(), maxsplit=1)[0]


def answer_names_no_option(question: str, answer: str) -> str | None:
    """Rule: when the question explicitly offers options (core/options.py), the answer names exactly
    one of them, either overall or in its first clause ("Mixed: screen positive, keyboard negative"
    settles on "mixed"). Naming none, or several with none first, is not settling the question."""
    options = offered_options(question)
    if not options:
        return None
    named = named_options(answer, options)
    if len(named) == 1:
        return None
    listed = ", ".join(f'"{o}"' for o in options)
    if named and len(named_options(_lead(answer), options)) == 1:
        return None
    if named:
        how = "it names " + " and ".join(f'"{o}"' for o in named) + " without choosing"
    else:
        how = "it names none of them"
    return f"the debate did not settle on one of the options the question offers ({listed}): {how}"


def _copied_run(answer_words: list[str], passage_words: list[str]) -> int:
    """Words in the longest stretch of the answer whose every 6-word shingle appears in the passage."""
    size = COPY_SHINGLE
    if len(answer_words) < size or len(passage_words) < size:
        return 0
    grams = set(_shingles(passage_words[:MAX_COPY_TOKENS], size))
    best = run = 0
    for gram in _shingles(answer_words, size):
        run = run + 1 if gram in grams else 0
        best = max(best, run)
    return best + size - 1 if best else 0


def answer_copies_a_passage(answer: str, evidence: Iterable[Any]) -> str | None:
    """Rule: an answer is the debate's own words. When one run of at least 15 words copied in order
    from a single passage makes up most (60%) of the answer, the verdict is that passage restated,
    not an answer; a quotation inside a longer answer is fine."""
    words = text.tokens(answer)
    if len(words) < COPY_MIN_RUN:
        return None
    for pid, body in _passages(evidence):
        run = _copied_run(words, text.tokens(body))
        if run >= COPY_MIN_RUN and run >= COPY_MIN_SHARE * len(words):
            share = round(100 * min(run, len(words)) / len(words))
            return (f'the answer is mostly a passage copied from the evidence: {share}% of its words are '
                    f'copied in order from passage "{pid}", so it restates the source instead of answering')
    return None


def _repeats_itself(words: list[str]) -> bool:
    words = words[:MAX_COPY_TOKENS]
    if len(words) < REPEAT_MIN_WORDS:
        return False
    grams = _shingles(words, REPEAT_SHINGLE)
    repeated = len(grams) - len(set(grams))
    return repeated >= REPEAT_SHARE * len(grams)


def _keyword_list(body: str, words: list[str]) -> bool:
    if len(words) < KEYWORD_MIN_WORDS or _SENTENCE_END.search(body):
        return False
    latin = [w for w in words if w.isascii() and w.isalpha()]
    if len(latin) < 0.8 * len(words):
        return False  # a script the function-word lists do not cover: no judgement
    function = sum(1 for w in words if w in lexicons.stopwords())
    return function <= KEYWORD_MAX_FUNCTION_SHARE * len(words)


def degenerate_evidence(evidence: Iterable[Any]) -> str | None:
    """Rule: evidence is text a reader can weigh. A passage that repeats the same few words over and
    over, a keyword list (15 words or more with no sentence and almost no function words), a passage
    with no words at all, or a set of two or more passages that are all near-identical (90% of their
    words shared) gives the debate nothing to reason from."""
    passages = _passages(evidence)
    problems: list[str] = []
    repeating, keywords, empty = [], [], []
    word_sets = []
    for pid, body in passages:
        words = text.tokens(body[: MAX_COPY_TOKENS * 12])
        word_sets.append(set(words))
        if not words:
            empty.append(pid)
        elif _repeats_itself(words):
            repeating.append(pid)
        elif _keyword_list(body, words):
            keywords.append(pid)
    if repeating:
        problems.append(f"{_names(repeating)} repeat{'s' if len(repeating) == 1 else ''} the same few words over and over")
    if keywords:
        problems.append(f"{_names(keywords)} {'is a list' if len(keywords) == 1 else 'are lists'} of keywords with no sentences")
    if empty:
        problems.append(f"{_names(empty)} {'has' if len(empty) == 1 else 'have'} no words")
    if len(passages) >= 2 and all(word_sets):
        pairs = [text.jaccard(a, b) for i, a in enumerate(word_sets) for b in word_sets[i + 1:]]
        if min(pairs) >= NEAR_IDENTICAL:
            problems.append(f"all the passages ({_names([p for p, _ in passages])}) say nearly the same thing word for word")
    if not problems:
        return None
    return "the evidence is not usable as it stands: " + "; ".join(problems)


def question_not_addressed(question: str, evidence: Iterable[Any]) -> str | None:
    """Rule: some passage addresses the question: it shares at least two content words (after stop
    words, lightly stemmed; one for a question of fewer than eight) and at least 5% of the question's
    content words with it. A question of fewer than four content words, or a case with no passages,
    is not judged here."""
    asked = set(text.terms(question))
    passages = _passages(evidence)
    if len(asked) < MIN_QUESTION_TERMS or not passages:
        return None
    best = 0
    for _, body in passages:
        best = max(best, len(asked & set(text.terms(body[: MAX_COPY_TOKENS * 12]))))
    # One shared word settles nothing in a long question; in a short one it may be all there is
    # ("rice field" answered by a passage on "sawah"), so only a question of many words needs two.
    needed = MIN_SHARED_TERMS if len(asked) >= LONG_QUESTION_TERMS else 1
    if best >= needed and best >= MIN_SHARED_SHARE * len(asked):
        return None
    ids = [pid for pid, _ in passages]
    shared = "no passage shares a content word with it" if best == 0 else (
        f"the closest passage shares only {best} of its {len(asked)} content words")
    return (f"the evidence does not address the question: {shared} (passages {_names(ids)}); "
            "the debate could only answer from outside the evidence")


def _gibberish(word: str) -> bool:
    if not word.isascii():
        return False  # other scripts are read as words
    if any(c.isdigit() for c in word) and any(c.isalpha() for c in word):
        return True  # "x7f9q"
    if len(word) >= 4 and not (set(word) & _VOWELS):
        return True  # "qwrtzk"
    return len(word) > 25


def not_a_question(question: str) -> str | None:
    """Rule: a question is words a person asked. Text that is mostly markup (HTML or XML tags, with
    fewer than three words outside them), that has no words at all, or whose words are mostly random
    strings (letters mixed with digits, no vowels) and include no function word, is not a question
    the debate can answer."""
    raw = question or ""
    tags = _TAG.findall(raw)
    outside = html.unescape(_TAG.sub(" ", raw))
    words = text.tokens(outside)
    if tags and (len(words) < 3 or sum(len(t) for t in tags) > 0.5 * len(raw.strip())):
        return f"the question is markup rather than a question: {len(tags)} HTML or XML tags and {len(words)} words outside them"
    if not words:
        return "the question has no words"
    odd = [w for w in words if _gibberish(w)]
    plain_words = Counter(w for w in words if w in lexicons.stopwords())
    if len(odd) >= 0.6 * len(words) and not plain_words:
        return f"the question reads as random strings rather than words ({len(odd)} of its {len(words)} tokens)"
    return None


def verdict_findings(question: str, answer: str, evidence: Iterable[Any],
                     material: Iterable[Any] | None = None) -> list[Finding]:
    """Every check on one verdict, in order: the question, the evidence, then the answer (whether
    the evidence addresses the question is not asked of text that is no question). `material` is
    all the debate reads (passages with their sources, reports, the text under review): whether
    the question is addressed is judged on it, the passages alone on the rest."""
    passages = _passages(evidence)
    found: list[Finding] = []
    not_asked = not_a_question(question)
    for code, reason, blocks in (
        (NOT_A_QUESTION, not_asked, True),
        (DEGENERATE_EVIDENCE, degenerate_evidence(passages), True),
        (NOT_ADDRESSED, None if not_asked else question_not_addressed(
            question, passages if material is None else _passages(material)), True),
        (NO_OPTION, answer_names_no_option(question, answer), False),
        (COPIED_PASSAGE, answer_copies_a_passage(answer, passages), False),
    ):
        if reason:
            found.append(Finding(code, reason, blocks))
    return found
