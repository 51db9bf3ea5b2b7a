"""Rules on the whole verdict, read from the question and the case's passages: a question asking for
one figure (or about one time) answered with several, a figure measured after the day the question asks about, a point a
passage of the case says is still open, a day asked about that no record shows, two counts of one thing
that differ, a yes-or-no part of the question the answer leaves unanswered. Each returns the reason a
person must look, or None."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ....core.schemas import AgentReport, Evidence
from ....core.text import (
    MONTHS,
    authority_score,
    awaits_answer,
    calendar_days,
    doubts,
    holds_open,
    numbers,
    sentences,
    terms,
)
from ..contradictions import (
    BOTH_OFFERED,
    MATCH_TOLERANCE,
    Contradiction,
    metric_key,
    metric_words,
    plain_number,
    quoted_numbers,
    relative_difference,
    same_period,
    shown_value,
    source_passages,
    unit_key,
)
from ..escalation import carries
from ..models import Decision

_ONE_FIGURE = re.compile(r"\b(?:which|what) (?:one )?(?:figure|number|value|amount|estimate)\b|"
                         r"\b(?:one|a single) (?:figure|number|value|amount|estimate)\b|\bhow (?:many|much)\b"
                         # "How hot were the chillies?", "How long was the catch?": one measure.
                         r"|\bhow (?:hot|cold|long|far|heavy|high|tall|fast|old|deep|wide|loud|large|big|strong)\b"
                         # "What is the dough's hydration as bakers measure it?": the measure, in the singular.
                         r"|\bwhat (?:is|was) (?:the|its|their|\w+'s) ", re.I)
# "Which figure should go on the banner?", "Which time is the record?", "Which count is right?": the
# question asks to choose between the figures it was given.
_CHOOSE = re.compile(r"\bwhich\b[^?.]{0,40}?\b(?:figure|number|value|amount|estimate|count|total|time|reading|"
                     r"level|one)\b|\bwhich\b[^?.]{0,40}?\b(?:stands?|is (?:right|correct))\b"
                     # "Which team wins the award?": the close figures decide who is first.
                     r"|\b(?:which|who)\b[^?.]{0,40}?\b(?:wins?|won|leads?|is (?:ahead|top|first)|champion|winner)\b"
                     # "Which is the largest known piece?": the close figures decide which is the most.
                     r"|\bwhich\b[^?.]{0,40}?\b(?:largest|biggest|heaviest|longest|tallest|highest|fastest|oldest|"
                     r"greatest|smallest|lightest|shortest|lowest)\b"
                     # "What is the club's 10K record: 33:58 or 34:21?": the question offers the two figures.
                     r"|[£$€]?(?!(?:19|20)\d\d\b)\d[\d:.,]*\s*(?:[a-z%°]+\s+)?or\s+[£$€]?(?!(?:19|20)\d\d\b)\d[\d:.,]*"
                     r"\s*(?:[a-z%°]+)?\s*\?", re.I)


def _spreads(reports: Sequence[AgentReport]) -> list[tuple[str, float, float, str | None]]:
    """Per metric whose reports give more than one figure, all in one unit: the metric, the lowest and
    highest figure, and the unit as the reports write it."""
    out = []
    for metric in sorted({metric_key(r.metric) for r in reports}):
        valued = [r for r in reports if metric_key(r.metric) == metric and r.value is not None]
        figures = {(float(r.value), unit_key(r.unit)) for r in valued}
        if len(figures) > 1 and len({u for _, u in figures}) == 1:
            out.append((metric, min(v for v, _ in figures), max(v for v, _ in figures), valued[0].unit))
    return out


def differ_under_threshold(question: str, reports: Sequence[AgentReport]) -> str | None:
    """Rule: reports whose figures differ, by less than the threshold at which the protocol sees a
    contradiction, do not agree when the question asks to choose between them: which one to use (a
    course record of 15:02 or 15:31), which wins, which is the largest. The difference is the
    question, and a person chooses."""
    if BOTH_OFFERED.search(question or ""):
        return None
    asked = quoted_numbers(question)
    # "The quote gave £7,920 a year; the letter says £7,680. What will his annuity pay?": a question that
    # names both figures sets them against each other, whatever its last words ask.
    spreads = [s for s in _spreads(reports) if _CHOOSE.search(question or "")
               or all(any(relative_difference(v, a) <= MATCH_TOLERANCE for a in asked) for v in s[1:3])]
    apart = [f"{metric_words(metric)} ({shown_value(lo, unit)} and {shown_value(hi, unit)}, "
             f"{relative_difference(lo, hi):.1%} apart)" for metric, lo, hi, unit in spreads]
    if not apart:
        return None
    return (f"the reports give different figures for {'; '.join(apart)}, too close for the protocol to call "
            f"a contradiction, and the question asks to choose between them: a person must choose")


def either_side_of_asked(question: str, reports: Sequence[AgentReport]) -> str | None:
    """Rule: reports whose figures differ by less than a contradiction needs do not agree when they
    fall strictly either side of a figure the question names (8.24 m and 7.86 m against an 8.00 m
    record): which one holds decides the answer, and a person chooses."""
    asked = quoted_numbers(question)
    for metric, lo, hi, unit in _spreads(reports):
        between = [v for v in asked if lo < v < hi]
        if between:
            return (f"the reports give {shown_value(lo, unit)} and {shown_value(hi, unit)} for {metric_words(metric)}, "
                    f"too close for the protocol to call a contradiction, but either side of the "
                    f"{shown_value(between[0], unit)} the question turns on: a person must choose")
    return None


# "How many species were recorded...": the thing counted, as the question names it.
_HOW_MANY = re.compile(r"\bhow many\s+(?:\w+\s+){0,2}?([a-z]{3,})\b", re.I)


def counts_differ(question: str, reports: Sequence[AgentReport]) -> str | None:
    """Rule: a count is exact. Where the question asks how many of something and the reports give
    different whole numbers of it (21 species and 22), they do not agree, however small the gap next
    to the threshold the protocol sets for measured figures: one of the counts is wrong, or counts
    something the other does not, and a person checks which."""
    asked = {m.group(1).lower().rstrip("s") for m in _HOW_MANY.finditer(question or "")}
    if not asked:
        return None
    for metric, lo, hi, unit in _spreads(reports):
        counted = {w.rstrip("s") for w in re.findall(r"[a-z]{3,}", (unit or "").lower())}
        if lo.is_integer() and hi.is_integer() and asked & counted:
            return (f"the question asks how many {unit}, and the reports count {plain_number(lo)} and {plain_number(hi)} for "
                    f"{metric_words(metric)}: a count is exact, so a gap too small for the protocol to call a "
                    f"contradiction still means one count is wrong or counts something the other does not; "
                    f"a person must check which")
    return None


# A yes-or-no question joined to the question for a figure: "How long was the catch, and is it a
# championship record?"
_AND_WHETHER = re.compile(r"\band ((?:is|was|are|were|did|does|do|has|have|had|can|could|should|will|would)\b[^?]*)\?",
                          re.I)


# "Do the two sources disagree?" is answered by "The reports agree" or "the same figure": the words
# of agreement and disagreement answer one question.
_AGREEMENT = {"agre", "disagre", "differ", "same", "contradict", "conflict", "match", "consist", "inconsist"}


def _agreement_as_one(words: Sequence[str]) -> set[str]:
    """The words, with every word of (dis)agreement read as one."""
    return {"agre" if w in _AGREEMENT else w for w in words}


def part_unanswered(question: str, answer: str) -> str | None:
    """Rule: an answer answers the question as asked. Where the question joins a yes-or-no question to
    the one about figures ("and is it a championship record?") and the answer, given in figures and
    the readings of the reports, uses none of that part's words, that part is not answered: a person
    answers it."""
    said = _agreement_as_one(terms(answer or ""))
    for m in _AND_WHETHER.finditer(question or ""):
        asked = _agreement_as_one(terms(m.group(1)))
        if asked and not asked & said:
            return (f"the question also asks \"{m.group(1).strip()}?\", and the answer, given in the reports' "
                    "figures, does not say: a person must answer that part")
    return None


def one_figure_asked(question: str, contradictions: list[Contradiction], decisions: dict[int, Decision]) -> str | None:
    """Rule: a question that asks for one figure is not answered by figures that are each valid in
    their own context; the verdict goes to a person, naming the metric, to choose the one it means."""
    if not _ONE_FIGURE.search(question or "") or BOTH_OFFERED.search(question or ""):
        return None
    both = sorted({c.metric_name for c in contradictions
                   if decisions[c.index].resolved and decisions[c.index].resolution == "both_valid"})
    if not both:
        return None
    return (f"the question asks for one figure, and the arbiters found several figures for "
            f"{', '.join(metric_words(m) for m in both)} each valid in its own context: a person must choose "
            "the one the question means")


# What in a question is a date or a time of day, not a figure: "1-28 July 2026", "3 March", "22:41",
# "2026". Taken out before the question's figures are compared with the reports'.
_DATE_OR_TIME = re.compile(
    r"\b\d{1,2}(?:st|nd|rd|th)?(?:\s*[-\u2013]\s*\d{1,2}(?:st|nd|rd|th)?)?\s+(?:of\s+)?(?:" + "|".join(MONTHS)
    + r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b\.?"
    r"|\b(?:" + "|".join(MONTHS) + r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+\d{1,2}\b"
    # "22:41", "2.30 pm": a clock time; "12.50%" stays a figure.
    r"|\b\d{1,2}:\d{2}\b|\b\d{1,2}\.\d{2}\s*(?:am|pm|a\.m\.|p\.m\.)|\b(?:19|20)\d{2}\b", re.I)


def asked_figures(question: str) -> list[tuple[float, str]]:
    """The figures a question names, with the unit written on them ("10%"), leaving out its dates,
    years and times of day."""
    return numbers(_DATE_OR_TIME.sub(" ", question or ""))


def _bare(unit: str | None) -> str:
    """A unit without the method or basis written after it in brackets ("% alpha acids (LCV, as is)")."""
    return re.sub(r"\s*\([^()]*\)", "", unit or "").strip()


def _scale(unit: str | None) -> str:
    return unit_key(_bare(unit))


def _is_percent(unit: str | None) -> bool:
    return "%" in (unit or "") or "percent" in (unit or "").lower()


def valid_either_side(question: str, contradictions: list[Contradiction],
                      decisions: dict[int, Decision]) -> str | None:
    """Rule: figures found valid each in its own context (14.1% against a heatwave week, 1.9% against
    last July) do not answer a question that turns on a figure between them (the 10% a plan assumed):
    one context says yes and the other no, and which one the question means is for a person."""
    for c in contradictions:
        d = decisions[c.index]
        # "% alpha acids (LCV)" and "% alpha acids (HPLC)": one scale, read by two methods; and shares of one
        # thing on two bases ("% of outer surface area", "% by weight") are both percentages.
        same_scale = _scale(c.agent1_unit) == _scale(c.agent2_unit)
        if not (d.resolved and d.resolution == "both_valid") or not (
                same_scale or all(_is_percent(u) for u in (c.agent1_unit, c.agent2_unit))):
            continue
        try:
            lo, hi = sorted((float(c.agent1_value), float(c.agent2_value)))
        except (TypeError, ValueError):
            continue
        # A figure written with a percent sign is compared only with figures in percent.
        percent = _is_percent(c.agent1_unit)
        between = [v for v, unit in asked_figures(question) if lo < v < hi
                   and (not unit or (unit in ("%", "percent", "persen")) == percent)]
        if between:
            return (f"the arbiters found {c.agent1_name}'s {shown_value(c.agent1_value, c.agent1_unit)} and "
                    f"{c.agent2_name}'s {shown_value(c.agent2_value, c.agent2_unit)} for {metric_words(c.metric_name)} "
                    f"each valid in its own context, but they fall either side of the "
                    f"{shown_value(between[0], _bare(c.agent1_unit) if same_scale else '%')} the question turns on: which context the question "
                    "means decides the answer, and a person must choose")
    return None


# A question about the present state ("What is the floor area of unit B14 today?").
_PRESENT = re.compile(r"\b(?:today|now|currently|at present|at the moment|as things stand|as it stands)\b", re.I)


def one_time_asked(question: str, contradictions: list[Contradiction], decisions: dict[int, Decision]) -> str | None:
    """Rule: a question about one time (today, now) is not answered by figures each valid for a
    different period: one of them may no longer hold, and which one is for a person to decide."""
    m = _PRESENT.search(question or "")
    if not m or BOTH_OFFERED.search(question or ""):
        return None
    for c in contradictions:
        d = decisions[c.index]
        if d.resolved and d.resolution == "both_valid" and same_period(c.agent1_period, c.agent2_period) is False:
            return (f"the question asks about one time ({m.group(0)}), and the figures for "
                    f"{metric_words(c.metric_name)} were found valid for different periods ({c.agent1_period} "
                    f"and {c.agent2_period}): a person must decide which holds at the time asked about")
    return None


def _days(text: str | None) -> list[tuple[int, int, int]]:
    """The days a period or question names; "10-11 March 2026" names the 10th as well as the 11th."""
    text = re.sub(r"\b(\d{1,2})\s*[-–]\s*(\d{1,2})(\s+[A-Za-z]+\s+\d{4})", r"\1\3 \2\3", text or "")
    return sorted(calendar_days(text))


def measured_after_question(question: str, contradictions: list[Contradiction],
                            decisions: dict[int, Decision]) -> str | None:
    """Rule: where the question asks about a day ("when the fish died on 9 March 2026") and the figure
    chosen was measured only after it, while the rejected one was measured on it, the choice puts a
    later state in place of the one asked about: a person decides whether it still shows that day."""
    asked = _days(question)
    if not asked:
        return None
    for c in contradictions:
        d = decisions[c.index]
        if not d.resolved or d.resolution not in ("agent1_correct", "agent2_correct"):
            continue
        first = d.resolution == "agent1_correct"
        won, lost = (c.agent1_period, c.agent2_period) if first else (c.agent2_period, c.agent1_period)
        who = c.agent1_name if first else c.agent2_name
        won_days, lost_days = _days(won), _days(lost)
        when = _day_words(asked[-1])
        later = won_days and won_days[0] > asked[-1] and lost_days and lost_days[0] <= asked[-1]
        # On the day asked about itself, the clock decides: a gust read at 14:20 against one at 14:10.
        asked_clock, won_clock, lost_clock = _clock(question, first=True), _clock(won), _clock(lost)
        if (not later and won_days == lost_days == [asked[-1]] and asked_clock is not None
                and won_clock is not None and lost_clock is not None and won_clock > asked_clock >= lost_clock):
            later, when = True, f"{_clock_words(asked_clock)} on {when}"
        if later:
            return (f"the figure chosen for {metric_words(c.metric_name)} ({who}'s) was measured on {won}, after "
                    f"the time the question asks about ({when}), while the other was measured on {lost}: a person "
                    f"must decide whether the later figure still shows that time")
    return None


# A time of day: "14:10", "2:10 pm", "2.10pm".
_CLOCK = re.compile(r"\b(\d{1,2}):(\d\d)\b(?:\s*([ap])\.?m\b\.?)?|\b(\d{1,2})\.(\d\d)\s*([ap])\.?m\b\.?", re.I)


def _clock(text: str | None, first: bool = False) -> int | None:
    """The one time of day a text names, in minutes after midnight; None for none or several. With
    `first`, the first it names: a question sets the time of its event before the readings it quotes
    ("At 14:10 the section lifted ... a gust at 14:20")."""
    found: set[int] = set()
    for m in _CLOCK.finditer(text or ""):
        hour, minute, half = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5), m.group(6))
        h = int(hour) % 12 + (12 if half and half.lower() == "p" else 0) if half else int(hour)
        if h < 24 and int(minute) < 60:
            found.add(h * 60 + int(minute))
            if first:
                break
    return found.pop() if len(found) == 1 else None


def _clock_words(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _seen_on(value: float | None, source: str | None, citation: str | None,
             evidence: Sequence[Evidence], day: tuple[int, int, int]) -> list[tuple[int, int, int]] | None:
    """The dates of the passages that carry a report's figure; None where any of them is undated or
    names the day asked about itself (then it may well tell that day)."""
    if value is None:
        return None
    carrying = carries(source_passages(source, citation, evidence), value)
    # A figure worked out from what a passage shows ("bays 31-36 blocked") rests on the passage its
    # citation quotes or names, else on its source's passages.
    quoted = source_passages(None, citation, evidence)
    carrying = carrying or quoted or source_passages(source, citation, evidence)
    # A figure converted from a passage its citation quotes ("'6.5 nm' from the log of 16 August") was
    # seen when that passage was written.
    if any(day in _days(ev.date) for ev in quoted):
        return None
    dates = [_days(ev.date) for ev in carrying]
    if not carrying or any(not d for d in dates) or any(day in _days(ev.text) for ev in carrying):
        return None
    return [d[0] for d in dates]


def observed_either_side(question: str, contradictions: list[Contradiction], decisions: dict[int, Decision],
                         evidence: Sequence[Evidence]) -> str | None:
    """Rule: where the question asks about one day ("available on the review date, 1 April 2026") and
    the two figures were each seen on another day, one before it and one after, the state on that
    day is in neither record: a ruling for either side guesses when the change came, so a person
    must check the day itself."""
    asked = set(_days(question))
    if len(asked) != 1:
        return None
    day = next(iter(asked))
    for c in contradictions:
        d = decisions[c.index]
        if not d.resolved or d.resolution not in ("agent1_correct", "agent2_correct"):
            continue
        one = _seen_on(c.agent1_value, c.agent1_source, c.agent1_citation, evidence, day)
        two = _seen_on(c.agent2_value, c.agent2_source, c.agent2_citation, evidence, day)
        if not one or not two:
            continue
        early, late = (one, two) if max(one) < day else (two, one)
        if max(early) < day < min(late):
            return (f"the question asks about {_day_words(day)}, and the figures for {metric_words(c.metric_name)} "
                    f"were seen only before and after it ({c.agent1_name}'s on {_day_words(min(one))}, "
                    f"{c.agent2_name}'s on {_day_words(min(two))}): which held that day, and when it changed, is for a person to check")
    return None


def _day_words(day: tuple[int, int, int]) -> str:
    """(2026, 4, 1) as "1 April 2026"."""
    year, month, day_of_month = day
    return f"{day_of_month} {MONTHS[month - 1].capitalize()} {year}"


# The authority of hearsay (a forum, a comment, a chat; core/text.py's levels) and below.
HEARSAY = 0.25
# Words of a source's name that say what kind of thing it is, not which one.
_GENERIC_SOURCE = frozenset(terms("report record records data summary figure figures page export exported "
                                  "table document documents email letter note notes the of for and"))


def open_in_the_record(contradictions: list[Contradiction], decisions: dict[int, Decision],
                       evidence: Sequence[Evidence]) -> str | None:
    """Rule: where a passage of the case says the point the arbiters settled (for one side, or both
    standing) is still open ("the two counts have not been reconciled", "the tally cannot be checked",
    "makes no finding"), a ruling does not close it: the verdict goes to a person, quoting the
    passage. The passage is on the point when it shares a word with a settled contradiction's
    metric, sources or citations."""
    # A ruling for a side held back for its low confidence is named too: the record's own word on the
    # point is the reason a reviewer can check.
    settled = [c for c in contradictions
               if decisions[c.index].resolution in ("agent1_correct", "agent2_correct")
               or (decisions[c.index].resolved and decisions[c.index].resolution == "both_valid")]
    if not settled:
        return None
    about = set()
    carrying: set[str] = set()
    # Who the sides' sources are ("Fenmoor ICB data extraction"): a doubt from one of them, in a passage
    # its source names ("Email from the ICB's commissioning manager"), is on the point.
    parties = {t for c in settled for src in (c.agent1_source, c.agent2_source) for t in terms(src or "")} \
        - _GENERIC_SOURCE
    for c in settled:
        about |= set(terms(" ".join(str(x or "") for x in (
            metric_words(c.metric_name), c.agent1_source, c.agent2_source, c.agent1_citation, c.agent2_citation,
            c.agent1_interpretation, c.agent2_interpretation))))
        # A doubt in a passage that gives one of the figures is about it, whatever its words.
        carrying |= {ev.id for value, source, citation in ((c.agent1_value, c.agent1_source, c.agent1_citation),
                                                           (c.agent2_value, c.agent2_source, c.agent2_citation))
                     for ev in carries(source_passages(source, citation, evidence), value)}
    for ev in evidence:
        if authority_score(ev.authority) <= HEARSAY and ev.id not in carrying:
            # A forum poster's "no idea if that proves anything" holds nothing open: hearsay is no record.
            continue
        for sentence in doubts(ev.text):
            # Whoever holds the point open ("I won't sign anything until ...") names it in the passage,
            # not always in that sentence ("The 2021 calibration ... doesn't count for this claim.").
            if ev.id in carrying or set(terms(sentence)) & about or set(terms(ev.source or "")) & parties \
                    or ((holds_open(sentence) or awaits_answer(sentence)) and set(terms(ev.text)) & about):
                return (f'{ev.id} says the point is still open ("{sentence.strip()}"), so the ruling cannot close '
                        "it: a person must decide once it is settled")
    return None


# "the portal has the wrong baseline", "the app's figure is incorrect": a passage's own word that a source
# went wrong; "is not wrong" denies it.
_CALLED_WRONG = re.compile(r"(?<!not )(?<!n't )\b(?:wrong|incorrect|mistaken|in error|erroneous|miscalculated|"
                           r"miscounted|misread)\b", re.I)


def kept_called_wrong(contradictions: list[Contradiction], decisions: dict[int, Decision],
                      evidence: Sequence[Evidence]) -> str | None:
    """Rule: where the ruling kept one source's figure and a passage outside both sources says that
    source went wrong ("Agree the portal has the wrong baseline"), naming it by a word of its name
    that the other source's name does not share, and not naming the other source, the ruling stands
    against the case's own word: a person must look, with the sentence quoted."""
    for c in contradictions:
        d = decisions[c.index]
        if not d.resolved or d.resolution not in ("agent1_correct", "agent2_correct"):
            continue
        won, lost = (1, 2) if d.resolution == "agent1_correct" else (2, 1)
        w, lo = c.side(won), c.side(lost)
        mine = set(terms(w["source"] or "")) - _GENERIC_SOURCE
        theirs = set(terms(lo["source"] or ""))
        named, other = mine - theirs, theirs - mine - _GENERIC_SOURCE
        if not named:
            continue
        # The losing side's own passage calling the other wrong is the dispute itself, not the case's word.
        own = {ev.id for side in (w, lo) for ev in source_passages(side["source"], side["citation"], evidence)}
        for ev in evidence:
            if ev.id in own:
                continue
            for sentence in sentences(ev.text):
                said = set(terms(sentence))
                if _CALLED_WRONG.search(sentence) and said & named and not said & other:
                    return (f'{ev.id} says {w["name"]}\'s source went wrong ("{sentence.strip()}"), yet the ruling '
                            f"kept its {shown_value(w['value'], w['unit'])}: a person must check it")
    return None
