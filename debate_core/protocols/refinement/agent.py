"""Offline agents for hypothesis refinement (the hypothesis-refinement source protocol): root-cause reasoners and a judge.

A general reading of log-like evidence, with no vocabulary of any system: every sentence of the
current incident's passages becomes an event with a time (the clock times it names), and generic
cues from data/lexicons/incident_cues_en.tsv mark what it reports: a log severity tag (ERROR, WARN,
...), a change (deployed, rolled out, moved, ...), a quantity at a limit (max, limit,
exceeded, too many, ...) or a healthy reading. The reasoners find the earliest anomaly, what changed
just before it and which limit was crossed, and write hypotheses that quote the passages they found,
so a hypothesis names the components the evidence names. Each reasoner measures its reading
(debate_core/providers/offline/reading.py); a weak reading, or a change record that made several changes at
once, lowers its confidence and says what it could not assess.

The judge scores what it can check: the hypothesis cites passages that exist and that say what it
says, it accounts for the earliest anomaly and the change before it, and its causes come before
their effects. A hypothesis resting on no cited passage scores low.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ...core.lexicons import LEXICON_DIR
from ...core.schemas import Case, Evidence
from ...core.text import bm25_rank, content_tokens, sentences, stem, terms
from ...providers.offline.agents import register
from ...providers.offline.reading import read

_CLOCK = re.compile(r"(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?![\d:])")
_ENTITY = re.compile(r"\b[A-Za-z][\w.]*(?:[-_.][\w]+)+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b")
_STEP_SPLIT = re.compile(r";|\n")
_RULES_OUT = re.compile(r"\brules? out\s+(?:an?\s+|the\s+)?([\w-]+)", re.I)
# Quotes stay short enough to read in one line of a verdict.
QUOTE_CHARS = 240
# A reasoner's confidence on a complete reading; gaps and weak readings lower it.
BASE_CONFIDENCE = 0.4
GAP_CONFIDENCE = 0.45
HISTORY_KINDS = ("incident", "knowledge", "pattern", "history", "postmortem")


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


def kind(ev: Evidence) -> str:
    """The kind of a passage, by its source: history (past incidents, patterns, reference knowledge),
    metric, config or log."""
    s = ev.source.lower()
    if any(w in s for w in HISTORY_KINDS):
        return "history"
    if any(w in s for w in ("metric", "monitor", "dashboard", "exporter")):
        return "metric"
    if "config" in s or "change" in s:
        return "config"
    return "log" if "log" in s else "other"


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
    fallback = clock_minutes(ev.source)
    for s in sentences(ev.text):
        times = clock_minutes(s) or fallback
        severity = "error" if found("error", s) else "warning" if found("warning", s) else ""
        out.append(Event(ev, s, min(times) if times else None, severity, tuple(dict.fromkeys(found("change", s))),
                         tuple(found("limit", s)), bool(found("normal", s)) and not severity))
    return out


@dataclass
class Timeline:
    """The current incident's events, and what a root-cause reading finds in them."""

    events: list[Event]
    first_anomaly: Event | None
    changes_before: list[Event]
    linked_config: list[Evidence]
    limit: Event | None


def _distinct(text: str) -> set[str]:
    """The tokens that name things (hosts, versions, services): they contain a digit, a hyphen or a dot."""
    return {t.lower() for t in re.findall(r"[\w.-]+", text) if re.search(r"\d|[-.]\w", t) and len(t) > 3}


def timeline(case: Case) -> Timeline:
    events = [e for ev in case.evidence if kind(ev) != "history" for e in events_of(ev)]
    dated = sorted((e for e in events if e.anomaly and e.time is not None), key=lambda e: e.time)
    first = dated[0] if dated else next((e for e in events if e.anomaly), None)
    if first is not None and first.time is not None:
        before = [e for e in events if e.changes and e.time is not None and e.time <= first.time and not e.anomaly]
    else:
        before = [e for e in events if e.changes and not e.anomaly]
    before.sort(key=lambda e: -(e.time or 0))
    before = sorted(before[:2], key=lambda e: e.time or 0)
    # A configuration record that names what a dated change shipped (same version, same service)
    # is the content of that change.
    named = set().union(*(_distinct(e.text) for e in before)) if before else set()
    linked = [ev for ev in case.evidence if kind(ev) == "config" and ev.id not in {e.ev.id for e in before}
              and named & _distinct(ev.source + " " + ev.text) and found("change", ev.text)]
    anchor = " ".join([first.text if first else "", *(e.text for e in before)])
    # A limit a change set ("lowered the limit") is part of that change, not a limit crossed.
    limits = [e for e in events if e.limits and not e.changes and re.search(r"\d", e.text) and e is not first]
    limit = max(limits, key=lambda e: (len(set(terms(e.text)) & set(terms(anchor))), -(e.time or 0)), default=None)
    return Timeline(events, first, before, linked, limit)


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """A passage sentence without its leading clock time and severity tag, cut at a word."""
    text = _CLOCK.sub("", text, count=1) if _CLOCK.match(text.strip()) else text
    text = _pattern("error").sub("", text, count=1) if found("error", text[:20]) else text
    text = _pattern("warning").sub("", text, count=1) if found("warning", text[:20]) else text
    text = " ".join(text.split()).strip(" :;,.")
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "..."


def change_quote(ev: Evidence) -> str:
    """A change record from its first sentence that reports a change, whole sentences up to the quote length."""
    sents = sentences(ev.text)
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


# ---------------------------------------------------------------------------
# Reasoners
# ---------------------------------------------------------------------------


def _focus(agent: dict[str, Any]) -> set[str]:
    kinds = agent.get("evidence_kinds")
    return set(kinds) if kinds else {"log", "metric", "config", "history", "other"}


def _best_history(case: Case, anchor: str) -> Evidence | None:
    """The past incident or reference passage that shares most content words with the current story
    (at least three), or None."""
    mine = set(terms(anchor))
    scored = [(len(set(terms(ev.text)) & mine), ev) for ev in case.evidence if kind(ev) == "history"]
    scored = [(n, ev) for n, ev in scored if n >= 3]
    return max(scored, key=lambda x: x[0])[1] if scored else None


def _category(cause_kind: str, has_limit: bool) -> str:
    if cause_kind == "config":
        return "config"
    return "resource" if has_limit else "software"


def _resolution(tl: Timeline, cause: list[Evidence]) -> str:
    steps = []
    if cause:
        steps.append(f"Revert or correct the change in {', '.join(ev.id for ev in cause)} and confirm the errors stop")
    if tl.limit is not None:
        steps.append(f"Bring the load back under the limit reported in {tl.limit.ev.id} ({quote(tl.limit.text, 80)})")
    if tl.first_anomaly is not None:
        names = entities(tl.first_anomaly.text)
        steps.append(f"Check {', '.join(names[:2]) or 'the component in ' + tl.first_anomaly.ev.id} recovered")
    steps.append("Prevent a recurrence: review such changes against the limits they touch before release, "
                 "and alert before the limit is reached")
    return "; ".join(steps)


def incident_statement(question: str) -> str:
    """What the question reports about the incident: its sentences that are not questions. The
    question sentence itself ("what is the root cause?") is the task, not something to cover."""
    told = [s for s in sentences(question) if not s.rstrip().endswith("?")]
    return " ".join(told) or question


def symptom_passages(case: Case, n: int = 2) -> list[Evidence]:
    """The current-incident passages that best match the reported symptoms (BM25); a passage that
    reports a change is a candidate cause, not an effect."""
    docs = {ev.id: ev.text for ev in case.evidence
            if kind(ev) != "history" and not any(e.changes for e in events_of(ev))}
    by_id = case.evidence_by_id()
    return [by_id[r.id] for r in bm25_rank(incident_statement(case.question), docs)[:n] if r.score > 0]


def _reading(case: Case, cited: list[Evidence], gaps: list[str]) -> tuple[float, list[str]]:
    """Confidence capped by the reading, and the uncertainties the reasoner reports. The reading is
    measured against the incident the question reports, over the cited passages."""
    r = read(incident_statement(case.question), [ev.text for ev in cited], passages=len(cited), gaps=gaps)
    confidence = BASE_CONFIDENCE + 0.1 * min(4, len(cited))
    if gaps:
        # Something the cause depends on could not be assessed: not confident enough to stand unreviewed.
        confidence = min(confidence, GAP_CONFIDENCE)
    return r.cap(confidence), r.uncertainties()


def _hypothesis(case: Case, text: str, cited: list[Evidence], category: str, reasoning: list[str],
                gaps: list[str], resolution: str) -> dict[str, Any]:
    cited = list({ev.id: ev for ev in cited}.values())
    confidence, notes = _reading(case, cited, gaps)
    names = [n for ev in cited for n in entities(ev.text)][:6]
    return {
        "hypothesis": text,
        "confidence": max(0.05, round(confidence, 2)),
        # "could not assess: ..." lines are what the moderator reads as the reasoner's limits.
        "reasoning": "\n".join([*reasoning, *notes]),
        "evidence": [ev.id for ev in cited],
        "category": category,
        "affected_components": names,
        "suggested_resolution": resolution,
        "changes_made": "",
    }


def change_led(case: Case, tl: Timeline, with_history: bool) -> dict[str, Any] | None:
    """The root cause is what changed just before the earliest anomaly."""
    if not tl.changes_before:
        return None
    first = tl.first_anomaly
    change_ev = list({ev.id: ev for ev in [*(e.ev for e in tl.changes_before), *tl.linked_config]}.values())
    parts = [f"\"{change_quote(ev)}\" ({ev.id})" for ev in change_ev]
    text = "Root cause: the change just before the first anomaly, " + "; then ".join(parts) + "."
    cited = list(change_ev)
    reasoning = [f"{e.ev.id} reports a change ({', '.join(e.changes)}) at {e.when}." for e in tl.changes_before]
    gaps = []
    if first is not None:
        text += f" The first anomaly followed at {first.when}: \"{quote(first.text)}\" ({first.ev.id})."
        cited.append(first.ev)
        reasoning.append(f"The earliest {first.severity} line is {first.ev.id} at {first.when}.")
    else:
        gaps.append("when the first anomaly happened: no passage carries a dated error or warning line")
    if tl.limit is not None:
        text += f" A limit was reached: \"{quote(tl.limit.text)}\" ({tl.limit.ev.id})."
        cited.append(tl.limit.ev)
    effects = [ev for ev in symptom_passages(case) if ev.id not in {c.id for c in cited}]
    if effects:
        text += " The reported effects: " + "; ".join(f"\"{quote(sentences(ev.text)[0], 120)}\" ({ev.id})"
                                                     for ev in effects) + "."
        cited += effects
    many = [e for e in tl.changes_before if len(e.changes) > 1]
    for e in many:
        gaps.append(f"which of the changes made together in {e.ev.id} ({', '.join(e.changes)}) caused it")
    if with_history:
        past = _best_history(case, text)
        if past is not None:
            text += f" A past incident or known pattern reads the same way ({past.id})."
            cited.append(past)
    cause_kind = "config" if any(kind(ev) == "config" for ev in change_ev) else kind(change_ev[0])
    return _hypothesis(case, text, cited, _category(cause_kind, tl.limit is not None), reasoning, gaps,
                       _resolution(tl, change_ev))


def limit_led(case: Case, tl: Timeline) -> dict[str, Any] | None:
    """The root cause is a quantity that reached its limit."""
    if tl.limit is None:
        return None
    text = f"Root cause: a limit was reached: \"{quote(tl.limit.text)}\" ({tl.limit.ev.id})."
    cited = [tl.limit.ev]
    gaps = ["what drove the quantity to its limit"] if not tl.changes_before else []
    if tl.first_anomaly is not None:
        text += f" It surfaced at {tl.first_anomaly.when}: \"{quote(tl.first_anomaly.text)}\" ({tl.first_anomaly.ev.id})."
        cited.append(tl.first_anomaly.ev)
    return _hypothesis(case, text, cited, "resource", [f"{tl.limit.ev.id} reports a quantity at a limit."], gaps,
                       _resolution(tl, []))


def anomaly_led(case: Case, tl: Timeline) -> dict[str, Any] | None:
    """The root cause lies in the component named by the earliest error line itself."""
    first = tl.first_anomaly
    if first is None:
        return None
    names = entities(first.text)
    where = ", ".join(names[:3]) or f"the component in {first.ev.id}"
    text = (f"Root cause: a fault in {where}, first seen at {first.when}: \"{quote(first.text)}\" ({first.ev.id}).")
    gaps = ["what made the component fail: no change or limit explains it"] if not (tl.changes_before or tl.limit) \
        else ["why the component itself would fail: the change and limit readings point elsewhere"]
    return _hypothesis(case, text, [first.ev], "software", [f"{first.ev.id} is the earliest anomaly."], gaps,
                       _resolution(tl, []))


def history_led(case: Case, tl: Timeline) -> dict[str, Any] | None:
    """The incident repeats a past incident or a known pattern."""
    anchor = " ".join(e.text for e in [tl.first_anomaly, *tl.changes_before, tl.limit] if e is not None)
    past = _best_history(case, anchor)
    if past is None:
        return None
    text = f"Root cause: a repeat of a known pattern: \"{quote(sentences(past.text)[0])}\" ({past.id})."
    cited = [past]
    if tl.first_anomaly is not None:
        text += f" The current incident's first anomaly: \"{quote(tl.first_anomaly.text)}\" ({tl.first_anomaly.ev.id})."
        cited.append(tl.first_anomaly.ev)
    return _hypothesis(case, text, cited, _category(kind(tl.changes_before[0].ev), tl.limit is not None)
                       if tl.changes_before else "software", [f"{past.id} shares the most words with this incident."],
                       ["whether the past pattern's cause is this incident's cause"], _resolution(tl, []))


def unread(case: Case, n: int) -> dict[str, Any]:
    """What a reasoner says when the passages give it nothing to stand on."""
    return _hypothesis(case, f"No root cause could be read from the passages (reading {n}).", [], "software", [],
                       ["which passage shows the first failure or what changed before it"], "Collect the logs "
                       "around the first failure and the change records of the hours before it")


def initial_hypotheses(case: Case, agent: dict[str, Any]) -> list[dict[str, Any]]:
    focus = _focus(agent)
    tl = timeline(case)
    history_first = focus == {"history"}
    made = [change_led(case, tl, with_history="history" in focus), limit_led(case, tl), anomaly_led(case, tl),
            history_led(case, tl)]
    out = [h for h in made if h is not None]
    if history_first:
        out.sort(key=lambda h: not h["hypothesis"].startswith("Root cause: a repeat"))
    # The agent's own terms break ties between equally confident hypotheses, never override them.
    own = {stem(t.lower()) for t in (agent.get("terms") or []) for t in content_tokens(t)}
    out.sort(key=lambda h: (-h["confidence"], -len(own & set(terms(h["hypothesis"])))) if not history_first
             else 0)
    n = 1
    while len(out) < 3:
        out.append(unread(case, n))
        n += 1
    return out[:5]


@register("refinement", "hypotheses")
def hypotheses(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    agent = payload["agent"]
    if payload.get("round", 1) == 1 or "previous" not in payload:
        return {"hypotheses": initial_hypotheses(case, agent)}
    return {"hypotheses": refine(case, agent, payload["previous"], payload.get("others", []))}


_CITE = re.compile(r"Cite ([A-Za-z0-9_-]+)")
_DROP = re.compile(r"Drop ([A-Za-z0-9_-]+)")


def refine(case: Case, agent: dict[str, Any], prev: dict[str, Any], others: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Act on the judge's feedback for the previous top hypothesis: cite the passages it named,
    drop those it found inconsistent, and re-measure the reading. The other hypotheses are re-read."""
    by_id = case.evidence_by_id()
    notes = prev.get("feedback", "")
    evidence = [e for e in prev["evidence"] if e in by_id]
    changes: list[str] = []
    dropped = [e for e in _DROP.findall(notes) if e in evidence]
    if dropped:
        evidence = [e for e in evidence if e not in dropped]
        changes.append(f"dropped {', '.join(dropped)} as the judge found it inconsistent")
    added = [e for e in _CITE.findall(notes) if e in by_id and e not in evidence]
    text = prev["hypothesis"].rstrip()
    for e in added:
        ev = by_id[e]
        evidence.append(e)
        text += f" Also: \"{quote(sentences(ev.text)[0])}\" ({e})."
    if added:
        changes.append(f"cited {', '.join(added)} as the judge asked")
    if prev.get("unverified_evidence"):
        changes.append(f"dropped unverified ids {', '.join(prev['unverified_evidence'])}")
    cited = [by_id[e] for e in evidence]
    gaps = [line.split(":", 1)[1].strip() for line in prev.get("reasoning", "").splitlines()
            if line.lower().startswith("could not assess:") and not line.lower().startswith("could not assess: the parts")]
    confidence, notes_out = _reading(case, cited, gaps)
    kept = [line for line in prev.get("reasoning", "").splitlines()
            if not line.lower().startswith(("could not assess:", "weak reading:"))]
    refined = {
        **{k: prev[k] for k in ("category", "affected_components", "suggested_resolution") if k in prev},
        "hypothesis": text,
        "confidence": max(0.05, round(min(confidence, float(prev["confidence"]) + 0.05), 2)),
        "reasoning": "\n".join([*kept, *notes_out]),
        "evidence": evidence,
        "changes_made": "; ".join(changes) if changes else "No change: the feedback named nothing I can act on.",
    }
    rest = [h for h in initial_hypotheses(case, agent) if h["hypothesis"] != prev["hypothesis"]]
    return [refined, *rest][:5]


# ---------------------------------------------------------------------------
# Judge
# ---------------------------------------------------------------------------


def self_contradiction(h: dict[str, Any]) -> str | None:
    """A hypothesis that says it rules out its own category contradicts itself."""
    text = f"{h.get('hypothesis', '')} {h.get('reasoning', '')}"
    for m in _RULES_OUT.finditer(text):
        if stem(m.group(1).lower()) == stem(str(h.get("category", "")).lower()):
            return f"it says it rules out {m.group(1)}, its own category"
    return None


def _says_the_same(h_text: str, ev: Evidence) -> bool:
    """The hypothesis states something of the passage: at least three of its content words, or a
    distinctive name of it."""
    mine = set(terms(h_text))
    return len(mine & set(terms(ev.text))) >= 3 or bool(_distinct(ev.text) & _distinct(h_text))


def assess(case: Case, h: dict[str, Any]) -> dict[str, Any]:
    by_id = case.evidence_by_id()
    text = h["hypothesis"]
    cited = [by_id[e] for e in h.get("evidence", []) if e in by_id]
    unverified = [e for e in h.get("evidence", []) if e not in by_id]
    tl = timeline(case)
    strengths: list[str] = []
    weak: list[tuple[int, str, str]] = []  # (points at stake, weakness, feedback)

    # Grounding (30): passages that exist and that the hypothesis actually states.
    consistent = [ev for ev in cited if _says_the_same(text, ev)]
    only_normal = [ev for ev in consistent if kind(ev) != "history"
                   and all(e.normal for e in events_of(ev))]
    support = [ev for ev in consistent if ev not in only_normal]
    grounding = 30 * (1 - 0.5 ** len(support)) / (1 - 0.5 ** 3) if support else 0.0
    grounding = min(30.0, grounding)
    if support:
        strengths.append(f"States what {', '.join(ev.id for ev in support)} report")
    else:
        weak.append((30, "Rests on no cited passage that says what it says", "Cite the passages the cause rests on"))
    for ev in cited:
        if ev not in consistent:
            weak.append((5, f"{ev.id} is cited but the hypothesis states nothing it reports", f"Drop {ev.id}"))
            grounding -= 5
    for ev in only_normal:
        weak.append((8, f"{ev.id} reports a healthy reading, which supports no cause", f"Drop {ev.id}"))
        grounding -= 8
    grounding -= 5 * len(unverified)
    if unverified:
        weak.append((5, f"Cites evidence ids not in the case: {', '.join(unverified)}", "Cite only passage ids from the case"))

    # The earliest anomaly (20) and what changed just before it (20).
    first = tl.first_anomaly
    anomaly_pts = 0.0
    if first is None:
        weak.append((20, "No passage carries a dated error or warning, so the first anomaly cannot be checked",
                     "Say which observation marks the start of the incident"))
    elif first.ev in cited:
        anomaly_pts = 20
        strengths.append(f"Accounts for the first anomaly ({first.ev.id}, {first.when})")
    else:
        weak.append((20, f"Does not account for the first anomaly, {first.ev.id} at {first.when}",
                     f"Cite {first.ev.id}, the first anomaly"))
    change_pts = 0.0
    before = {e.ev.id for e in tl.changes_before}
    if not tl.changes_before:
        change_pts = 10  # nothing to account for, but nothing confirms a cause either
    elif before & {ev.id for ev in cited}:
        change_pts = 20
        strengths.append("Accounts for what changed just before it")
    else:
        e = tl.changes_before[0]
        weak.append((20, f"Does not consider the change just before the first anomaly ({e.ev.id}, {e.when})",
                     f"Cite {e.ev.id}, a change just before the first anomaly"))

    # Time order (15): a change cited as a cause must come before the first anomaly.
    order_pts = 15.0
    if first is not None and first.time is not None:
        for ev in cited:
            late = [e for e in events_of(ev) if e.changes and e.time is not None and e.time > first.time
                    and not any(x.time is not None and x.time <= first.time for x in events_of(ev) if x.changes)]
            if late and ev.id in text and kind(ev) != "history":
                order_pts = 0.0
                weak.append((15, f"{ev.id} happened at {late[0].when}, after the first anomaly at {first.when}, "
                             "so it cannot have caused it", f"Drop {ev.id}"))
                break
    contradiction = self_contradiction(h)
    if contradiction:
        order_pts = 0.0
        weak.append((15, f"The hypothesis contradicts itself: {contradiction}", "Drop the contradicting statement"))

    # Resolution (10): immediate steps and a preventive one.
    steps = [s for s in _STEP_SPLIT.split(h.get("suggested_resolution", "")) if s.strip()]
    res = min(10.0, 3.0 * len(steps))
    if len(steps) < 2:
        weak.append((6, "The resolution has fewer than two steps", "Give an immediate fix and a preventive step"))

    # Calibration (5): confidence no higher than the support carries.
    conf = float(h.get("confidence", 0.0))
    carried = 0.3 + 0.15 * len(support)
    calib = 5.0 if conf <= carried + 0.1 else 0.0
    if not calib:
        weak.append((5, f"Confidence {conf:.2f} is above what {len(support)} supporting passage(s) carry",
                     f"Lower the confidence to about {carried:.2f}"))

    score = max(0.0, min(100.0, grounding + anomaly_pts + change_pts + order_pts + res + calib))
    if not support:
        score = min(score, 20.0)
    weak.sort(key=lambda w: -w[0])
    feedback = " ".join(f"{i}) {w[2]}." for i, w in enumerate(weak[:3], 1)) if weak else "No change needed."
    return {"score": round(score), "strengths": strengths, "weaknesses": [w[1] for w in weak], "feedback": feedback}


@register("refinement", "judge")
def judge(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    scores = []
    for reasoner, items in payload["hypotheses"].items():
        for i, h in enumerate(items):
            scores.append({"reasoner": reasoner, "index": i, **assess(case, h)})
    return {"scores": scores}
