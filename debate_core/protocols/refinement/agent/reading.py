"""The offline reasoners' reading of an incident's passages: their kind, their events and timeline.

A general reading of log-like evidence, with no vocabulary of any system: every sentence of a
current-incident passage becomes an event with a time (the clock times it names), and generic
cues from data/lexicons/incident_cues_en.tsv mark what it reports: a log severity tag (ERROR, WARN,
...), a quantity at a limit (max, limit, exceeded, too many, ...) or a healthy reading. A change is
read from the sentence's structure as much as from the cues (deployed, rolled out, ...): a passive
past participle ("the cert store was re-keyed", "the volume was remounted") or a past-tense verb
acting on an object ("ops rotated the keys", "the rollout lowered the limit"); a verb followed by a
figure ("throughput tripled from 01:00") reports a quantity moving, not a change made.

An anomaly that the case shows also happens when nothing fails (the same message in a healthy
period, or a past incident in which it occurred without an outage; rules.seen_when_nothing_fails)
does not mark the start of the incident, and neither does a change that routinely recurs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache

from ....core.lexicons import LEXICON_DIR
from ....core.schemas import Case, Evidence
from ....core.text import MONTHS, bm25_rank, calendar_days, sentences, terms
from ..rules import seen_when_nothing_fails

_CLOCK = re.compile(r"(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?![\d:])")
_ENTITY = re.compile(r"\b[A-Za-z][\w.]*(?:[-_.][\w]+)+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b")
# Quotes stay short enough to read in one line of a verdict.
QUOTE_CHARS = 240
HISTORY_KINDS = ("incident", "knowledge", "pattern", "history", "postmortem", "causal")
# The optional `kind` field of a passage says what it is, in these words (or their aliases below).
KINDS = ("log", "metric", "config", "topology", "history", "other")
KIND_ALIASES = {
    "logs": "log", "event": "log", "events": "log", "metrics": "metric",
    "configuration": "config", "change": "config",
    "dependency": "topology", "dependencies": "topology", "relation": "topology", "entity": "topology",
    "incident": "history", "past_incident": "history", "similar_incident": "history", "pattern": "history",
    "causal_path": "history", "knowledge": "history", "postmortem": "history",
}
# The two sides of the source protocol's input: what a log parser gives (events, error messages,
# a timeline) and what a knowledge graph gives (similar incidents, causal paths, patterns and the
# context of the entities: their configuration and how they depend on each other).
LOG_SIDE = frozenset({"log", "metric"})
KG_SIDE = frozenset({"config", "topology", "history"})
@lru_cache(maxsize=1)
def cues() -> dict[str, tuple[str, ...]]:
    """The cue lexicon by kind (error, warning, change, limit, normal)."""
    out: dict[str, list[str]] = {}
    for line in (LEXICON_DIR / "incident_cues_en.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or "\t" not in line:
            continue
        cue, kind_ = line.split("\t", 1)
        out.setdefault(kind_.strip(), []).append(cue.strip())
    return {k: tuple(v) for k, v in out.items()}


@lru_cache(maxsize=16)
def _pattern(kind_: str) -> re.Pattern[str]:
    words = sorted(cues()[kind_], key=len, reverse=True)
    # Severity tags are matched as loggers write them, in upper case; other cues in any case.
    flags = 0 if kind_ in ("error", "warning") else re.I
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(w) for w in words) + r")(?![\w-])", flags)


def found(kind_: str, text: str) -> list[str]:
    return [m.group(0).lower() for m in _pattern(kind_).finditer(text)]


# The structure of a sentence that reports a change: a form of "to be" (or "got") before a past
# participle (regular "-ed", or "-en" of six letters or more: "taken", "rewritten"), or a past-tense
# "-ed" verb followed by what it acted on (a determiner, a name with a digit, a dot, a hyphen or a
# slash, or "from"/"to"/"out"/"over"/"off"/"back"/"down" not followed by a figure).
_WORD = re.compile(r"[A-Za-z][\w'/.-]*")
_BE = frozenset({"was", "were", "been", "got", "being"})
_NOT = frozenset({"not", "never", "no", "nothing", "wasn't", "weren't", "isn't", "aren't", "hasn't", "hadn't"})
_OBJECT = frozenset({"the", "a", "an", "its", "their", "his", "her", "our", "all", "every", "each", "both", "them",
                     "it", "this", "that", "these", "those"})
_PARTICLE = frozenset({"from", "to", "out", "over", "off", "back", "down", "into", "onto"})
# Verbs that report how something turned out, not a change made to it ("every write has failed the
# same way since").
_OUTCOME = frozenset({"failed", "crashed", "errored", "stalled", "succeeded", "worked", "timed"})
# In a change record, "fan replaced with a quieter model", "valve fitted by the installer": the
# record's subject was changed (a record says what was done, not what happened by itself).
_RECORD_LINK = frozenset({"with", "by", "in", "on", "at", "as"})
_HEDGE = frozenset({"about", "around", "roughly", "nearly", "almost", "approximately", "over", "under", "up"})


# Words that open a clause giving the reason or the occasion of a change ("after the neighbour
# mentioned the hum"): the verb in it is no change made.
_REASON_GIVEN = frozenset({"after", "because", "since", "once", "when", "as", "before", "until"})


def _participle(word: str) -> bool:
    w = word.lower().rstrip(".,;:")
    return (len(w) > 4 and w.endswith("ed")) or (len(w) >= 6 and w.endswith("en") and not w.endswith("een"))


def _figure(tokens: list[str]) -> bool:
    """The next words give a figure (a number, possibly after a hedge such as "about")."""
    rest = list(tokens[:3])
    while rest and rest[0].lower() in _HEDGE:
        rest = rest[1:]
    return bool(rest) and bool(re.match(r"[\d$€£]", rest[0]))


def _named(token: str) -> bool:
    return bool(re.search(r"[A-Za-z]", token)) and bool(re.search(r"\d|[-./_]\w", token) or token.startswith("/"))


def change_verbs(sentence: str, record: bool = False) -> list[tuple[int, str]]:
    """The verbs with which a sentence reports a change made, with their positions, read from its
    structure (see the module notes), whatever the verb: "was re-keyed", "remounted /data". In a
    change record (`record`) a verb that takes a figure from one value to another reports a change
    made ("array extended from 16 to 22 panels"); elsewhere it is a reading that moved ("latency rose
    from 20 to 80 ms")."""
    toks = [(m.start(), m.group(0)) for m in re.finditer(r"\S+", sentence)]
    words = [t.strip("()[]\"',;:").rstrip(".") for _, t in toks]
    out = []
    for i, w in enumerate(words):
        if not _WORD.fullmatch(w) or not _participle(w) or found("limit", w) or found("normal", w) \
                or w.lower() in _OUTCOME:
            continue
        before = [x.lower() for x in words[max(0, i - 3):i]]
        if any(x in _NOT or x.endswith("n't") or re.sub(r"['’]s$", "", x) in _NOT for x in before):
            continue
        if any(x in _REASON_GIVEN for x in before):
            # "set after the neighbour mentioned the hum": why the change was made, not a change.
            continue
        after = words[i + 1:i + 5]
        passive = bool(before) and (before[-1] in _BE or (len(before) > 1 and before[-2] in _BE
                                                          and before[-1].endswith("ly")))
        nxt = after[0].lower() if after else ""
        acted = bool(after) and (nxt in _OBJECT or _named(after[0])
                                 or (nxt in _PARTICLE and (record or not _figure(after[1:])))
                                 or (record and nxt in _RECORD_LINK))
        if passive or acted:
            out.append((toks[i][0], w.lower()))
    return out


# A log line tagged as routine information reports what a system did while it ran ("INFO token
# issued to ..."): only a change cue ("deployed", "restarted") makes it a change.
_ROUTINE_TAG = re.compile(r"(?<![\w-])(?:INFO|DEBUG|TRACE|NOTICE)(?![\w-])")


# A negation just before a change cue ("not moved", "never replaced", "no changes"): the cue is denied.
# "Nothing's changed": the negation may carry a contracted "has" or "is".
_DENIED = re.compile(r"\b(?:" + "|".join(sorted(_NOT | {"haven't"})) + r")(?:['’]s)?\s+(?:\w+\s+)?$", re.I)


def changes_in(sentence: str, record: bool = False) -> tuple[str, ...]:
    """What a sentence reports as changed: the change cues and the change verbs, in the order they
    appear, without repeats (`record`: the sentence is from a change record, see change_verbs)."""
    # "Screen not moved or altered": a change cue its sentence denies reports no change.
    cued = [(m.start(), m.group(0).lower()) for m in _pattern("change").finditer(sentence)
            if not _DENIED.search(sentence[max(0, m.start() - 20):m.start()])]
    verbs = [] if _ROUTINE_TAG.search(sentence) else change_verbs(sentence, record)
    seen: dict[str, int] = {}
    for pos, w in sorted([*cued, *verbs]):
        if not any(w in k or k in w for k in seen):
            seen[w] = pos
    return tuple(seen)


def declared_kind(ev: Evidence) -> str | None:
    """The passage's own `kind` field, when it has a known one."""
    raw = (ev.model_extra or {}).get("kind")
    if not isinstance(raw, str):
        return None
    k = raw.strip().lower().replace(" ", "_").replace("-", "_")
    k = KIND_ALIASES.get(k, k)
    return k if k in KINDS else None


def kind(ev: Evidence) -> str:
    """The kind of a passage: its `kind` field when it has one, else read from its source (history:
    past incidents, patterns, causal paths; topology: dependencies; metric; config; log), else from
    its text (a dated line with a severity tag is a log line); "other" when nothing tells."""
    declared = declared_kind(ev)
    if declared:
        return declared
    s = ev.source.lower()
    if any(w in s for w in HISTORY_KINDS):
        return "history"
    if any(w in s for w in ("topology", "dependenc", "depends")):
        return "topology"
    if any(w in s for w in ("metric", "monitor", "dashboard", "exporter")):
        return "metric"
    if "config" in s or "change" in s:
        return "config"
    if "log" in s:
        return "log"
    if _CLOCK.search(ev.text) and (found("error", ev.text) or found("warning", ev.text)):
        return "log"
    return "other"


def day_of(text: str) -> int | None:
    """The calendar day a sentence names ("19 January 2026", "January 19, 2026", "2026-01-19"), as a
    day number that orders days; None when it names none (or more than one, which says nothing of
    when it happened)."""
    out = set()
    for y, mo, d in calendar_days(text):
        try:
            out.add(date(y, mo, d).toordinal())
        except ValueError:
            continue
    return out.pop() if len(out) == 1 else None


# "10 June:" in a change record dated 2026: a day and month without their year.
_DAY_MONTH = re.compile(r"\b(\d{1,2})\s+(" + "|".join(MONTHS) + r")\b(?!,?\s+\d{4})", re.I)


# "October 2025 workshop: ..." opening an item of a change record: a month, no day. The item is
# dated by the month's first day, so it is not taken for the record's own (later) date.
_MONTH_YEAR_HEAD = re.compile(r"^\s*(" + "|".join(MONTHS) + r")\s+(\d{4})\b", re.I)


def month_opening(text: str) -> int | None:
    """The first day of the month a sentence opens with ("October 2025 workshop: ..."), or None."""
    m = _MONTH_YEAR_HEAD.match(text)
    return date(int(m.group(2)), MONTHS.index(m.group(1).lower()) + 1, 1).toordinal() if m else None


def day_in_year(text: str, year: int | None) -> int | None:
    """The one day a sentence names by day and month alone ("12 June: firmware v4.2 pushed"), in the
    year of its passage; None without a year or with more than one such day."""
    if year is None:
        return None
    out = set()
    for d, month in _DAY_MONTH.findall(text):
        try:
            out.add(date(year, MONTHS.index(month.lower()) + 1, int(d)).toordinal())
        except ValueError:
            continue
    return out.pop() if len(out) == 1 else None


def _stamp(ev: Evidence) -> tuple[int | None, float | None]:
    """The day and the clock time of a passage's `date` field ("2026-01-19T20:00:00"), where given."""
    raw = (ev.date or "").strip()
    try:
        when = datetime.fromisoformat(raw)
    except ValueError:
        return day_of(raw), None
    timed = "T" in raw or " " in raw
    return when.date().toordinal(), (when.hour * 60 + when.minute + when.second / 60) if timed else None


def clock_minutes(text: str) -> list[float]:
    return [int(h) * 60 + int(m) + (int(s) / 60 if s else 0) for h, m, s in _CLOCK.findall(text)]


def clock_label(minutes: float) -> str:
    h, rest = divmod(minutes, 60)
    m, s = divmod(round(rest * 60), 60)
    return f"{int(h):02d}:{int(m):02d}" + (f":{int(s):02d}" if s else "")


@dataclass(frozen=True)
class Event:
    """One sentence of a current-incident passage and what the cues say it reports."""

    ev: Evidence
    text: str
    time: float | None
    severity: str  # "error", "warning" or ""
    changes: tuple[str, ...]
    limits: tuple[str, ...]
    normal: bool
    day: int | None = None  # the calendar day, when the sentence or its passage gives one
    dated: bool = False  # the sentence names its own day ("12 June: firmware v4.2 pushed")

    @property
    def anomaly(self) -> bool:
        return bool(self.severity)

    @property
    def when(self) -> str:
        return clock_label(self.time) if self.time is not None else "time not stated"


def events_of(ev: Evidence) -> list[Event]:
    out = []
    # A sentence without a clock time of its own takes its passage's source time (a change record
    # often dates itself in its source line).
    # Failing that, its `date` field, which may carry a day and a time.
    day, time = _stamp(ev)
    fallback = clock_minutes(ev.source) or ([time] if time is not None else [])
    record = kind(ev) == "config"
    for s in sentences(ev.text):
        times = clock_minutes(s) or fallback
        severity = "error" if found("error", s) else "warning" if found("warning", s) else ""
        normal = bool(found("normal", s)) and not severity
        own_day = day_of(s)
        if own_day is None:
            own_day = month_opening(s)
        if own_day is None and day is not None:
            own_day = day_in_year(s, date.fromordinal(day).year)
        # "unchanged" says so of its own clause: "array extended ...; inverter settings unchanged" reports a change.
        changed = tuple(dict.fromkeys(c for part in s.split(";") if not found("normal", part)
                                      for c in changes_in(part, record)))
        out.append(Event(ev, s, min(times) if times else None, severity, changed,
                         tuple(found("limit", s)), normal, own_day if own_day is not None else day,
                         own_day is not None))
    return out


def precedes(a: Event, b: Event, incident_day: int | None = None) -> bool | None:
    """Whether `a` happened no later than `b`: by their days when both are known (an event with no
    day of its own is on the incident's day) and differ, else by their clock times; None when
    nothing tells."""
    da = a.day if a.day is not None else incident_day
    db = b.day if b.day is not None else incident_day
    if da is not None and db is not None and da != db:
        return da < db
    if a.time is not None and b.time is not None:
        return a.time <= b.time
    return None


@dataclass
class Timeline:
    """The current incident's events, and what a root-cause reading finds in them."""

    events: list[Event]
    first_anomaly: Event | None
    changes_before: list[Event]
    linked_config: list[Evidence]
    limit: Event | None
    # Anomalies and changes the case shows also happen when nothing fails, each with the passage id
    # and sentence that shows it: none of them marks the start of the incident.
    routine: list[tuple[Event, str, str]] = field(default_factory=list)
    incident_day: int | None = None  # the latest day an anomaly names: an event without a day is on it

    def precedes(self, a: Event, b: Event) -> bool | None:
        return precedes(a, b, self.incident_day)


def distinct(text: str) -> set[str]:
    """The tokens that name things (hosts, versions, services): they contain a digit, a hyphen or a dot."""
    # A name that ends a sentence keeps no full stop or hyphen of the text around it.
    found = (t.strip(".-") for t in re.findall(r"[\w.-]+", text))
    return {t.lower() for t in found if re.search(r"\d|[-.]\w", t) and len(t) > 3}


def names(text: str) -> set[str]:
    """The names of things a text gives (`distinct` tokens with a letter in them: no bare figures)."""
    return {t for t in distinct(text) if re.search(r"[a-z]", t)}


def timeline(case: Case) -> Timeline:
    events = [e for ev in case.evidence if kind(ev) != "history" for e in events_of(ev)]
    passages = [(ev.id, ev.text) for ev in case.evidence]
    routine: list[tuple[Event, str, str]] = []
    kept: list[Event] = []
    for e in events:
        seen = seen_when_nothing_fails(e.text, passages) if (e.anomaly or e.changes) else None
        if seen is None:
            kept.append(e)
        else:
            routine.append((e, *seen))
    # Anomalies are ordered by day, then clock time; an event with no day is on the incident's day,
    # the latest day an anomaly names (older days belong to changes and history leading up to it).
    incident_day = max((e.day for e in kept if e.anomaly and e.day is not None), default=None)

    def when(e: Event) -> tuple[int, float]:
        return (e.day if e.day is not None else incident_day or 0, e.time if e.time is not None else 0.0)

    dated = sorted((e for e in kept if e.anomaly and e.time is not None), key=when)
    first = dated[0] if dated else next((e for e in kept if e.anomaly), None)
    if first is not None and (first.time is not None or first.day is not None):
        before = [e for e in kept if e.changes and not e.anomaly and precedes(e, first, incident_day)]
    else:
        before = [e for e in kept if e.changes and not e.anomaly]
    # The latest change of each passage, for the two passages that changed last: two sentences of
    # one change record are one change.
    before.sort(key=when, reverse=True)
    latest = list({e.ev.id: e for e in reversed(before)}.values())[::-1]
    before = sorted(latest[:2], key=when)
    # A configuration record that names what a dated change shipped (same version, same service)
    # is the content of that change.
    named = set().union(*(distinct(e.text) for e in before)) if before else set()
    linked = [ev for ev in case.evidence if kind(ev) == "config" and ev.id not in {e.ev.id for e in before}
              and named & distinct(ev.source + " " + ev.text) and found("change", ev.text)]
    anchor = " ".join([first.text if first else "", *(e.text for e in before)])
    # A limit a change set ("lowered the limit") is part of that change, not a limit crossed.
    limits = [e for e in events if e.limits and not e.changes and re.search(r"\d", e.text) and e is not first]
    limit = max(limits, key=lambda e: (len(set(terms(e.text)) & set(terms(anchor))), -(e.time or 0)), default=None)
    return Timeline(events, first, before, linked, limit, routine, incident_day)


def unseparated(tl: Timeline, question: str = "") -> list[Event]:
    """The changes before the first anomaly when the evidence does not say which one caused it: two
    or more changes that name different things (changes that name the same thing, "orders-api
    rolled out" and "orders-api pods restarted", are one change), and not exactly one of them names
    what the first anomaly or the limit names beyond what the question already names (the affected
    service shows up in every line about it, so it singles out nothing). Empty when there is one
    change, or one is singled out."""
    groups: list[list[Event]] = []
    for e in tl.changes_before:
        mine = names(e.text)
        home = next((g for g in groups if mine & set().union(*(names(x.text) for x in g))), None)
        if home is None:
            groups.append([e])
        else:
            home.append(e)
    if len(groups) < 2:
        return []
    effect = names(" ".join(x.text for x in (tl.first_anomaly, tl.limit) if x is not None)) - names(question)
    tied = [g for g in groups if effect & set().union(*(names(x.text) for x in g))]
    return [] if len(tied) == 1 else [g[0] for g in groups]


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """A passage sentence without its leading clock time and severity tag, cut at a word."""
    text = _CLOCK.sub("", text, count=1) if _CLOCK.match(text.strip()) else text
    text = _pattern("error").sub("", text, count=1) if found("error", text[:20]) else text
    text = _pattern("warning").sub("", text, count=1) if found("warning", text[:20]) else text
    text = " ".join(text.split()).strip(" :;,.")
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "..."


def change_quote(ev: Evidence, first: str | None = None) -> str:
    """A change record from its first sentence that reports a change (or from `first`, the change the
    timeline took from it: "12 June: firmware v4.2 pushed" after "10 June: new bottles"), whole
    sentences up to the quote length."""
    sents = sentences(ev.text)
    start = next((i for i, s in enumerate(sents) if s == first), None) if first else None
    if start is None:
        start = next((i for i, s in enumerate(sents) if found("change", s)), 0)
    out = ""
    for s in sents[start:]:
        if out and len(out) + len(s) > QUOTE_CHARS:
            break
        out = f"{out} {s}".strip()
    return quote(out, QUOTE_CHARS + 60)


def entities(text: str) -> list[str]:
    """Names of things in a line: hosts, services, dotted settings, CamelCase components."""
    return list(dict.fromkeys(m.group(0).strip(".") for m in _ENTITY.finditer(text)))[:6]



def incident_statement(question: str) -> str:
    """What the question reports about the incident: its sentences that are not questions. The
    question sentence itself ("what is the root cause?") is the task, not something to cover."""
    told = [s for s in sentences(question) if not s.rstrip().endswith("?")]
    return " ".join(told) or question


def symptom_passages(case: Case, n: int = 2) -> list[Evidence]:
    """The current-incident passages that best match the reported symptoms (BM25); a passage that
    reports a change is a candidate cause, not an effect."""
    docs = {ev.id: ev.text for ev in case.evidence
            if kind(ev) in ("log", "metric", "other") and not any(e.changes for e in events_of(ev))}
    by_id = case.evidence_by_id()
    return [by_id[r.id] for r in bm25_rank(incident_statement(case.question), docs)[:n] if r.score > 0]


