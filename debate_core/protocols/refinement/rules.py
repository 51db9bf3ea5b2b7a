"""Hypothesis refinement (the hypothesis-refinement source protocol): judge-score validation, consensus, and the rule-based verdict."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...core.schemas import Verdict
from ...core.text import MONTHS, WEEKDAYS, jaccard, sentences, terms
from ...engine.convergence import Stop, score_plateau
from .. import common
from ..common import short_answer

REVIEW_SCORE_THRESHOLD = 70.0
CONSENSUS_OVERLAP = 0.5
# The hypothesis-refinement source protocol: a score plateau is a top-score gain below 5 points.
SCORE_PLATEAU_POINTS = 5.0
# Two reasoners' different causes are not separated by the judge when their scores are this close.
CLOSE_POINTS = 10.0
# A message is the same as another when they share at least this many content words (figures and
# clock times left out) and at least this share of the shorter one's.
SAME_MESSAGE_WORDS = 3
SAME_MESSAGE_SHARE = 0.5
# How a passage says something happens when nothing fails: it recurs routinely, or it happened
# without an outage. General English of frequency and of no impact, no system's vocabulary.
# A recurrence that starts on a stated day ("daily from 6 July") is a new routine, itself a change,
# not something seen to happen before when nothing failed.
_STARTED = r"(?!,?\s+(?:from|since|starting|beginning)\b)"
# "replaced after the old one failed its weekly check": the check recurs, not what it found.
_CHECKED = r"(?!\s+(?:[\w-]+\s+)?(?:checks?|tests?|inspections?|calibrations?|audits?|walk-?rounds?)\b)"
_NOTHING_FAILS = re.compile(
    r"\b(?:every (?:day|night|morning|evening|week|month|hour|weekday|weekend|run|deploy)" + _STARTED +
    r"|(?:daily|nightly|hourly|weekly)" + _STARTED + _CHECKED + r"|(?:routinely|regularly|usually|habitually|always)"
    r"|most (?:days|nights|weeks|mornings|runs)|as (?:it|they|this|that) (?:does|do|did|has|have)"
    r"|as usual|for (?:weeks|months|years)|in (?:healthy|normal|quiet) (?:periods?|times|operation|weeks|days)"
    r"|(?:while|when) (?:nothing|no (?:\w+ )?(?:was|were) )(?:fail\w*|wrong|affected|impacted|down)"
    r"|without (?:an? |any )?(?:outage|failure|impact|incident|errors?|effect|consequence|user impact)s?"
    r"|(?:no|with no) (?:outage|impact|failure|incident|user impact)s?"
    r"|(?:harmless|benign|cosmetic|expected noise|known noise|false alarm))\b", re.I)


def normalise_reasoner(name: str) -> str:
    return name.strip().lower()


def judge_coverage_problems(scores: Iterable[Any], expected: Mapping[str, int]) -> list[str]:
    """What is wrong with a judge's score list, given how many hypotheses each reasoner gave.

    Every hypothesis must be scored exactly once; a score for an unknown reasoner or an index
    outside that reasoner's list refers to nothing and makes the evaluation unusable.
    """
    known = {normalise_reasoner(r): r for r in expected}
    seen: dict[tuple[str, int], int] = {}
    problems: list[str] = []
    for s in scores:
        key = normalise_reasoner(s.reasoner)
        if key not in known:
            problems.append(f"unknown reasoner {s.reasoner!r} (expected one of: {', '.join(expected)})")
            continue
        reasoner = known[key]
        if not 0 <= s.index < expected[reasoner]:
            problems.append(f"{reasoner} has hypotheses 0..{expected[reasoner] - 1}, index {s.index} is out of range")
            continue
        seen[(reasoner, s.index)] = seen.get((reasoner, s.index), 0) + 1
    for (reasoner, index), count in seen.items():
        if count > 1:
            problems.append(f"{reasoner}#{index} is scored {count} times")
    missing = [f"{r}#{i}" for r, n in expected.items() for i in range(n) if (r, i) not in seen]
    if missing:
        problems.append(f"not scored: {', '.join(missing)}")
    return problems


def consensus(tops: Sequence[Mapping[str, Any]], min_overlap: float = CONSENSUS_OVERLAP) -> tuple[bool, float]:
    """All top hypotheses agree: same category and every pair shares at least `min_overlap` of its
    content terms (Jaccard over stemmed content words of the hypothesis text). Returns the verdict
    and the lowest pairwise overlap."""
    if len(tops) < 2:
        return False, 0.0
    lowest = 1.0
    for i, a in enumerate(tops):
        for b in tops[i + 1:]:
            lowest = min(lowest, jaccard(terms(a["hypothesis"]), terms(b["hypothesis"])))
    same_category = len({t["category"] for t in tops}) == 1
    return same_category and lowest >= min_overlap, round(lowest, 4)


def agreement_basis(evidence: Mapping[str, Sequence[str]]) -> str:
    """What the reasoners' top hypotheses rest on ({reasoner: the case passages it cites}), and
    whether the agreement is independent: some reasoners cite no passage in common, so each reached
    the cause from its own evidence, or they all share passages."""
    if len(evidence) < 2:
        return ""
    if len({frozenset(ids) for ids in evidence.values()}) == 1:
        return f"all rest on the same passages: {', '.join(next(iter(evidence.values()))) or 'none'}"
    cites = "; ".join(f"{r}: {', '.join(ids) or 'none'}" for r, ids in evidence.items())
    names = list(evidence)
    apart = [f"{a} and {b}" for i, a in enumerate(names) for b in names[i + 1:]
             if evidence[a] and evidence[b] and not set(evidence[a]) & set(evidence[b])]
    if apart:
        return f"reached from independent evidence ({', '.join(apart)} cite no passage in common): {cites}"
    shared = set.intersection(*(set(ids) for ids in evidence.values()))
    if shared:
        return f"all cite {', '.join(sorted(shared))}: {cites}"
    return f"each pair shares a passage: {cites}"


def stop_reason(
    top_scores: Sequence[float],
    *,
    agreed: bool,
    lowest_overlap: float,
    category: str,
    max_rounds: int,
    plateau_points: float = SCORE_PLATEAU_POINTS,
    basis: str = "",
) -> Stop | None:
    """Whether the refinement stops after the latest round (`top_scores` has one entry per round), and
    why; None carries on.

    The hypothesis-refinement source protocol: "Debate stops early if: 1. Score plateau: Top score improves < 5 points 2. Consensus
    reached: All reasoners agree on same hypothesis", and in any case at `max_rounds`. A plateau
    needs two rounds to compare: round 1 is not measured against a score of 0. `agreed`,
    `lowest_overlap` and `category` are the round's `consensus` and its top hypothesis' category;
    `basis` (see `agreement_basis`) says what the agreeing hypotheses rest on.
    """
    if score_plateau(top_scores, plateau_points):
        gain = round(top_scores[-1] - top_scores[-2], 2)
        return Stop(True, f"Score plateau: top score changed by {gain:+.1f} points (< {plateau_points:g})")
    if agreed:
        return Stop(True, f"Consensus: all reasoners' top hypotheses agree "
                          f"(category {category}, overlap {lowest_overlap:.2f})" + (f"; {basis}" if basis else ""))
    if len(top_scores) >= max_rounds:
        return Stop(False, f"Max rounds ({max_rounds}) reached")
    return None


# Dates say when, not what: two lines of the same day are not the same message.
_CALENDAR = frozenset(terms(" ".join([*MONTHS, *WEEKDAYS])))


def message_words(text: str) -> set[str]:
    """The content words of a message, stemmed, without figures, clock times and dates."""
    return {t for t in terms(text) if not any(ch.isdigit() for ch in t) and t not in _CALENDAR}


def same_message(a: str, b: str) -> bool:
    """Two texts report the same thing: they share `SAME_MESSAGE_WORDS` content words or more, and at
    least `SAME_MESSAGE_SHARE` of the shorter one's."""
    wa, wb = message_words(a), message_words(b)
    shared = wa & wb
    return len(shared) >= SAME_MESSAGE_WORDS and len(shared) >= SAME_MESSAGE_SHARE * min(len(wa), len(wb))


def nothing_fails(sentence: str) -> str | None:
    """The words with which a sentence says something happens when nothing fails (it recurs
    routinely, or it happened without an outage), or None."""
    m = _NOTHING_FAILS.search(sentence)
    return m.group(0) if m else None


# A sentence that speaks of the one before it ("It does so every night") opens with a word that
# points back; one that opens otherwise speaks of something else, however close it stands.
_ANAPHOR = re.compile(r"\s*(?:it|this|that|they|these|those|the same|such|so)\b", re.IGNORECASE)


def seen_when_nothing_fails(message: str, passages: Iterable[tuple[str, str]]) -> tuple[str, str] | None:
    """The first passage, as (id, sentence), that shows `message` where nothing fails: a sentence (or
    a sentence that points back to the one before it) that reports the same thing and says it recurs
    routinely or happened without an outage. The message's own sentence counts ("..., as it does most days")."""
    for pid, text in passages:
        sents = sentences(text)
        for i, s in enumerate(sents):
            if not nothing_fails(s):
                continue
            if same_message(message, s) or (i and _ANAPHOR.match(s) and same_message(message, f"{sents[i - 1]} {s}")):
                return pid, s
    return None


def stated_cause(hypothesis: str) -> str:
    """The part of a hypothesis that names the cause: its first sentence (a hypothesis states the
    root cause first; what follows is the timeline and the effects it explains)."""
    first = sentences(str(hypothesis or ""))
    return first[0] if first else str(hypothesis or "")


def healthy_cause_reasons(final: Mapping[str, Any], passages: Sequence[tuple[str, str]]) -> list[str]:
    """Rule: "a root cause that the evidence shows also occurs when nothing fails goes to a human,
    naming the passage that shows it". Each sentence of a passage the hypothesis cites and restates
    in its stated cause (`stated_cause`: an effect it lists may well be routine) is looked up in
    every passage of the case (`passages`: (id, text))."""
    by_id = dict(passages)
    cause = stated_cause(final["hypothesis"])
    reasons: list[str] = []
    named: set[str] = set()
    for pid in final.get("verified_evidence") or []:
        for s in sentences(by_id.get(pid, "")):
            if not same_message(cause, s):
                continue
            seen = seen_when_nothing_fails(s, passages)
            if seen is None or seen[0] in named:
                continue
            named.add(seen[0])
            where = f"{seen[0]} says so itself" if seen[0] == pid else f"{seen[0]} shows it"
            reasons.append(f"The hypothesis rests on something that also happens when nothing fails: {pid} "
                           f"reports \"{_cut(s)}\", and {where} (\"{_cut(seen[1])}\"); whether it caused "
                           "this incident is not shown")
    return reasons


# What names the thing a change brought in: a proper name inside the sentence ("Mossgate") or a code
# that carries a figure ("2601", "v4.2", "KB-77"), not a day, a month, a year, a clock time or a
# passage id. Two of them in one sentence of a record tie that sentence to the change.
_NAME = re.compile(r"(?<![.:!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b|\b(?=[\w.-]*\d)[A-Za-z]*[\w.-]{3,}\b")
_NOT_A_NAME = re.compile(r"(?:\d{1,2}(?::\d\d)?|(?:19|20)\d\d|[A-Z]\d{1,2}|\d+(?:st|nd|rd|th))", re.I)
# How a record says the trouble did not come: "no cracks", "without errors", "never leaked".
_NO_TROUBLE = re.compile(r"\b(?:no|without|never|zero|nil)\s+(?:\w+\s+){0,1}?([a-z]{4,})\b", re.I)
# Words that follow "no" without naming the trouble ("no change", "no other", "no longer").
_NOT_TROUBLE = frozenset(terms("change changes other longer more further need sign signs issue one time day days"))


# Days and months, written out or cut short ("Mon", "Sept"): dates, not names.
_CALENDAR_WORDS = frozenset([*MONTHS, *WEEKDAYS, *(w[:3] for w in (*MONTHS, *WEEKDAYS)), "sept", "tues", "thur", "thurs"])


def change_markers(sentence: str) -> set[str]:
    """The names and codes in a change's sentence that name what it brought in (`_NAME`)."""
    out = set()
    for m in _NAME.finditer(sentence):
        word = m.group(0).strip(".-")
        if _NOT_A_NAME.fullmatch(word) or word.lower() in _CALENDAR_WORDS:
            continue
        out.add(word.lower())
    return out


def change_without_trouble_reasons(final: Mapping[str, Any], passages: Sequence[tuple[str, str]],
                                   question: str = "") -> list[str]:
    """Rule: "a root cause that the evidence shows also occurs when nothing fails goes to a human",
    for a change: a sentence of the record that names at least two of the change's names and codes
    (`change_markers`: the same batch, the same version) and says the trouble the question reports
    did not come there ("no cracks" where the question says "cracked"). The change's own sentence
    does not count."""
    cause = stated_cause(final["hypothesis"])
    markers = change_markers(cause)
    trouble = set(terms(question)) - _NOT_TROUBLE
    if len(markers) < 2 or not trouble:
        return []
    for pid, text in passages:
        for s in sentences(text):
            if same_message(cause, s):
                continue
            named = {w for w in markers if re.search(rf"(?<![\w.-]){re.escape(w)}(?![\w-])", s, re.I)}
            if len(named) < 2:
                continue
            for m in _NO_TROUBLE.finditer(s):
                if terms(m.group(1)) and terms(m.group(1))[0] in trouble:
                    return [f"The hypothesis blames a change that the case shows in place where the trouble "
                            f"did not come: {pid} reports \"{_cut(s)}\"; whether it caused this incident is not shown"]
    return []

# A change made to numbered or lettered units named together: "kilns 1 and 2", "lines A, B and C".
_UNITS = re.compile(r"\b([A-Za-z]{3,}s)\s+((?:[A-Z0-9]{1,3}\s*,\s*){0,4}[A-Z0-9]{1,3})\s+(?:and|&)\s+([A-Z0-9]{1,3})\b")
# How a clause says a unit runs as it should (general English, no trade's vocabulary).
_SOUND = re.compile(r"(?<!not )(?<!no longer )\b(?:on target|on spec(?:ification)?|within (?:spec|limits|tolerance|target)"
                    r"|fine|normal(?:ly)?|unaffected|healthy|as before|no (?:problems?|trouble|faults?|issues?"
                    r"|errors?|failures?|complaints?))\b", re.I)
_CLAUSE = re.compile(r"[;,()]|\b(?:while|whereas|but|although|though)\b", re.I)


def units_changed(sentence: str) -> list[str]:
    """The units a change's sentence names together ("kilns 1 and 2" gives "kiln 1", "kiln 2")."""
    out: list[str] = []
    for m in _UNITS.finditer(sentence):
        ids = [*re.split(r"\s*,\s*", m.group(2).strip()), m.group(3)]
        plural = m.group(1).lower()
        noun = plural[:-2] if re.search(r"(?:ss|x|ch|sh)es$", plural) else plural[:-1]
        out += [f"{noun} {i}" for i in ids]
    return out


def _says_of(clause: str, unit: str) -> bool:
    noun, ident = unit.rsplit(" ", 1)
    return re.search(rf"\b{re.escape(noun)}(?:e?s)?\s+(?:no\.?\s*)?{re.escape(ident)}\b(?![.,]?\d)", clause, re.I) is not None


def change_on_a_sound_unit_reasons(final: Mapping[str, Any], passages: Sequence[tuple[str, str]],
                                   question: str = "") -> list[str]:
    """Rule: "a root cause that the evidence shows also occurs when nothing fails goes to a human",
    for a change made to several units at once (`units_changed`): the question or a passage says in
    one clause that one of those units runs as it should ("kiln 1 ... on target"), while the question
    names another of them. The change's own sentence does not count."""
    cause = stated_cause(final["hypothesis"])
    units = units_changed(cause)
    if len(units) < 2:
        return []
    troubled = [u for u in units if any(_says_of(c, u) and not _SOUND.search(c) for c in _CLAUSE.split(question))]
    if not troubled:
        return []
    for pid, text in [("the question", question), *passages]:
        for s in sentences(text):
            if same_message(cause, s):
                continue
            for clause in _CLAUSE.split(s):
                sound = [u for u in units if u not in troubled and _says_of(clause, u)]
                if sound and _SOUND.search(clause) and not any(_says_of(clause, u) for u in troubled):
                    said = re.sub(r"^\s*(?:and|while|whereas|but)\s+", "", clause.strip(), flags=re.I)
                    return [f"The hypothesis blames a change made to {' and '.join(units)} alike, and {pid} says "
                            f"{sound[0]} runs as it should (\"{_cut(said)}\"); whether the change caused this "
                            "incident is not shown"]
    return []


# How a passage says the failing and the sound units share a thing: "Same blend, same yeast and pH
# 3.7-3.8 in all ten", "the same firmware on every camera". What follows "same" (up to three words,
# to a comma or "and") is the thing shared; the quantifier says it is shared by all of them.
_SAME_THING = re.compile(r"\bsame\s+((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)(?=\s*(?:,|\band\b|\bin\b|\bon\b|\bacross\b"
                         r"|\bfor\b|\bas\b|$))", re.I)
_ALL_UNITS = re.compile(r"\b(?:in|on|across|for|to)\s+(?:all|every|each|both)\b|\b(?:all|both)\s+(?:of\s+them|\w+\s+\w+s)\b",
                        re.I)


# The words every hypothesis's opening carries ("Root cause: the change just before the first
# anomaly, ..."): they name no thing.
_TEMPLATE_WORDS = frozenset(terms("root cause change just before first anomaly fault limit reached standing condition "
                                  "affected component repeat known pattern"))


def shared_by_all(cause: str, sentence: str) -> bool:
    """A sentence says that every unit, the sound ones with the failing, has the thing `cause` names
    ("Same blend, same yeast and pH 3.7-3.8 in all ten"): a thing named after "same" shares a
    content word with the cause, and the sentence says all (or both, or each) of the units have it.
    "Not the same ..." says the opposite."""
    if not _ALL_UNITS.search(sentence):
        return False
    wanted = message_words(cause) - _TEMPLATE_WORDS
    return any(message_words(m.group(1)) & wanted for m in _SAME_THING.finditer(sentence)
               if not re.search(r"\b(?:not|never)\s+(?:quite\s+)?(?:the\s+)?$", sentence[:m.start()], re.I))


def shared_with_sound_units_reasons(final: Mapping[str, Any], passages: Sequence[tuple[str, str]]) -> list[str]:
    """Rule: "a root cause that the evidence shows also occurs when nothing fails goes to a human",
    for a thing the failing units share with the sound ones (`shared_by_all`): it cannot be what
    singles the failing ones out. The change's own sentence does not count."""
    cause = stated_cause(final["hypothesis"])
    for pid, text in passages:
        for s in sentences(text):
            if not same_message(cause, s) and shared_by_all(cause, s):
                return [f"The hypothesis blames something the failing and the sound units share: {pid} reports "
                        f"\"{_cut(s)}\"; what sets the failing ones apart is not shown"]
    return []


# How a test takes a change out of the picture (general English of undoing: no system's vocabulary),
# and how it says the trouble went on regardless.
_UNDONE = re.compile(r"\b(?:bypass(?:ed)?|rolled back|reverted|disabled|switched off|turned off|unplugged"
                     r"|disconnected|removed|taken out|swapped back|downgraded|uninstalled)\b", re.I)
_WENT_ON = re.compile(r"\b(?:still|continued|carried on|persisted|went on|no difference|changed nothing"
                      r"|made no difference|did(?:n't| not) (?:help|stop|change))\b", re.I)


def _names_cause_before(cause: str, sentence: str, at: int, separators: str) -> bool:
    """Whether the clause of `sentence` that ends at `at` (cut at `separators`) names what `cause`
    names: the two share a content word."""
    clause = re.split(separators, sentence[:at])[-1]
    return bool(message_words(clause) & message_words(cause))


def undone_without_effect(cause: str, sentence: str) -> bool:
    """A sentence reports a test that undid the thing `cause` names ("UV unit and filter bypassed")
    and says the trouble went on ("hot taps still smelled"): what was undone is named before the
    undoing words and shares a content word with the cause. A conditional ("if it still fails after
    the rollback") reports no test."""
    undo, on = _UNDONE.search(sentence), _WENT_ON.search(sentence)
    if not undo or not on or undo.start() > on.start() or re.search(r"\b(?:if|unless|whether)\b", sentence, re.I):
        return False
    return _names_cause_before(cause, sentence, undo.start(), r"[:;]")


# How a test says the changed thing gives what it gave before: "reproduces last year's published
# figures exactly", "gives the same results as the old version" (not "reproduces the fault").
_SAME_AS_BEFORE = re.compile(
    r"\b(?:reproduc\w*|gives?|gave|returns?|returned|produces?|produced|matche[sd])\s+(?:exactly\s+)?(?:the\s+)?"
    r"(?:same|identical|previous|earlier|old|published|expected|original|correct|(?:last )?\w+['’]s)(?!\w)(?:\s+[\w'’]+){0,3}?"
    r"\s+(?:figures|results|values|outputs?|numbers|readings|totals|counts|answers)\b", re.I)


def behaves_as_before(cause: str, sentence: str) -> bool:
    """A sentence reports a test in which the thing `cause` names gave the results it gave before
    ("Dashboard software 3.2 reproduces last year's published figures exactly"): what is tested is
    named before those words and shares a content word with the cause. A conditional reports no test."""
    m = _SAME_AS_BEFORE.search(sentence)
    if not m or re.search(r"\b(?:if|unless|whether|should)\b", sentence[:m.start()], re.I):
        return False
    return _names_cause_before(cause, sentence, m.start(), r"[:;,]")


def ruled_out_cause_reasons(final: Mapping[str, Any], passages: Sequence[tuple[str, str]]) -> list[str]:
    """Rule: "a root cause the case's own test has ruled out goes to a human, naming the passage":
    a passage reports that the stated cause (`stated_cause`) was undone and the trouble went on, or
    that the changed thing, tested, gave the results it gave before (`behaves_as_before`)."""
    cause = stated_cause(final["hypothesis"])
    for pid, text in passages:
        for s in sentences(text):
            if undone_without_effect(cause, s) or (not same_message(cause, s) and behaves_as_before(cause, s)):
                return [f"The hypothesis names a cause the case's own test rules out: {pid} reports "
                        f"\"{_cut(s)}\"; what caused this incident is not shown"]
    return []


def rival_reasons(final: Mapping[str, Any], rivals: Sequence[Mapping[str, Any]], *, review_threshold: float,
                  min_overlap: float = CONSENSUS_OVERLAP, close: float = CLOSE_POINTS) -> list[str]:
    """Rule: "when another reasoner's top hypothesis names a different cause and the judge does not
    separate the two (their scores are within `close` points, or both reach the review threshold),
    the verdict goes to a human naming both and the passages each rests on". Different causes: the
    texts overlap less than `min_overlap` and each cites a passage the other does not."""
    mine = list(final.get("verified_evidence") or [])
    score = float(final["judge_score"])
    out: list[str] = []
    for r in rivals:
        if normalise_reasoner(str(r.get("reasoner", ""))) == normalise_reasoner(str(final["source"])):
            continue
        theirs = list(r.get("verified_evidence") or [])
        if (not theirs or not set(theirs) - set(mine) or not set(mine) - set(theirs)
                or jaccard(terms(final["hypothesis"]), terms(r["hypothesis"])) >= min_overlap):
            continue
        other = float(r["judge_score"])
        if abs(score - other) >= close and min(score, other) < review_threshold:
            continue
        why = (f"the judge scored them {score:.0f} and {other:.0f}" if abs(score - other) < close
               else f"both reach the review threshold ({score:.0f} and {other:.0f})")
        out.append(f"The reasoners disagree on the cause and the evidence does not separate them ({why}): "
                   f"{final['source']} says \"{_cut(final['hypothesis'])}\" from {', '.join(mine)}; "
                   f"{r['reasoner']} says \"{_cut(r['hypothesis'])}\" from {', '.join(theirs)}")
    return out


def _cut(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "..."


def reasoner_confidence_reason(final: Mapping[str, Any], threshold: float = common.LOW_CONFIDENCE) -> str | None:
    """Rule: "the best hypothesis goes to a human when its own reasoner is not confident in it"."""
    return common.low_confidence_reason({f"the reasoner {final['source']}": float(final["confidence"])}, threshold)


def reasoner_unassessed_reason(final: Mapping[str, Any]) -> str | None:
    """Rule: "the best hypothesis goes to a human when its reasoner said what it could not assess"
    (lines of its reasoning that start with "could not assess:")."""
    lines = str(final.get("reasoning") or "").splitlines()
    return common.unassessed_reason(lines, who=f"the reasoner {final['source']}")


def verdict(
    *,
    final: Mapping[str, Any],
    converged: bool,
    convergence_reason: str,
    rounds: int,
    review_threshold: float = REVIEW_SCORE_THRESHOLD,
    escalate_without_convergence: bool = True,
    passages: Sequence[tuple[str, str]] = (),
    rivals: Sequence[Mapping[str, Any]] = (),
    question: str = "",
) -> Verdict:
    """The best hypothesis, escalated when it scores below `review_threshold`, the debate did not
    converge, its evidence is not in the case, its reasoner is not confident in it, its reasoner
    said what it could not assess, the case's passages (`passages`: (id, text)) show its cause also
    happens when nothing fails, or another reasoner's top hypothesis of the last round (`rivals`)
    names a different cause the judge does not separate from it. The answer starts with the
    hypothesis: the root cause first."""
    reasons: list[str] = []
    applied: list[str] = []
    score = float(final["judge_score"])
    if score < review_threshold:
        reasons.append(f"Final judge score {score:.0f}/100 is below the review threshold {review_threshold:.0f}")
        applied.append("final_score_below_threshold")
    if not converged and escalate_without_convergence:
        reasons.append(f"No plateau or consensus within {rounds} round(s)")
        applied.append("no_convergence_at_max_rounds")
    if final.get("unverified_evidence"):
        reasons.append(f"The final hypothesis cites evidence ids not in the case: {', '.join(final['unverified_evidence'])}")
        applied.append("unverified_evidence")
    if not final.get("verified_evidence"):
        reasons.append("The final hypothesis cites no evidence from the case")
        applied.append("no_verified_evidence")
    low = reasoner_confidence_reason(final)
    if low:
        reasons.append(low[0].upper() + low[1:])
        applied.append("low_reasoner_confidence")
    unassessed = reasoner_unassessed_reason(final)
    if unassessed:
        reasons.append(unassessed[0].upper() + unassessed[1:])
        applied.append("reasoner_could_not_assess")
    healthy = (healthy_cause_reasons(final, passages) or change_without_trouble_reasons(final, passages, question)
               or change_on_a_sound_unit_reasons(final, passages, question)
               or shared_with_sound_units_reasons(final, passages))
    if healthy:
        reasons += healthy
        applied.append("cause_seen_when_nothing_fails")
    ruled_out = ruled_out_cause_reasons(final, passages)
    if ruled_out:
        reasons += ruled_out
        applied.append("cause_ruled_out_by_test")
    rival = rival_reasons(final, rivals, review_threshold=review_threshold)
    if rival:
        reasons += rival
        applied.append("reasoners_disagree_unseparated")
    if not applied:
        applied.append("converged_with_sufficient_score")
    answer = final["hypothesis"]
    if final.get("resolution"):
        answer += f"\nResolution: {final['resolution']}"
    rationale = (f"{convergence_reason}. Best hypothesis from {final['source']} (round {final['rounds_refined']}), "
                 f"judge score {score:.0f}/100, self-reported confidence {final['confidence']:.2f}.")
    return Verdict(
        answer=answer,
        short_answer=short_answer(final["hypothesis"]),
        # The judge's score, not the reasoner's self-assessment, is the calibrated confidence.
        confidence=round(max(0.0, min(1.0, score / 100.0)), 4),
        needs_human_review=bool(reasons),
        escalation_reasons=reasons,
        rationale=rationale,
        applied_rules=applied,
    )
