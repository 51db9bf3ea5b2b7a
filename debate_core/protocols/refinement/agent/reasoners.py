"""The offline reasoners: each reads the passages of its kinds and writes 3-5 hypotheses from them.

A profile's `evidence_kinds` says what a reasoner reads (debate_core/protocols/refinement/__init__.py:
the log reasoner the log lines and metrics, the knowledge-graph reasoner past incidents, causal
paths, patterns and the configuration and dependency facts of the components, the hybrid both); a
passage nothing classifies is read by all. So two reasoners agree only when their evidence does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ....core.schemas import Case, Evidence
from ....core.text import bm25_rank, content_tokens, doubts, sentences, stem, terms
from ....providers.offline.reading import question_terms, read
from ..models import HYPOTHESIS_CHARS
from .reading import (
    KINDS,
    LOG_SIDE,
    Timeline,
    change_quote,
    entities,
    incident_statement,
    kind,
    quote,
    symptom_passages,
    timeline,
    unseparated,
)

# A reasoner's confidence on a complete reading; gaps and weak readings lower it.
BASE_CONFIDENCE = 0.4
GAP_CONFIDENCE = 0.45


def focus(agent: dict[str, Any]) -> set[str]:
    """The kinds of passage a reasoner reads: its profile's `evidence_kinds`, else all. A passage
    whose kind nothing tells ("other") is everyone's."""
    kinds = agent.get("evidence_kinds")
    return {*(kinds or KINDS), "other"}


def view(case: Case, agent: dict[str, Any], extra: Iterable[str] = ()) -> Case:
    """The case as a reasoner reads it: the passages of its kinds, plus the passages named in `extra`
    (those the judge pointed it to, or it cited before)."""
    kinds, more = focus(agent), set(extra)
    return case.model_copy(update={"evidence": [ev for ev in case.evidence if kind(ev) in kinds or ev.id in more]})


def reads_logs(agent: dict[str, Any]) -> bool:
    return bool(focus(agent) & LOG_SIDE)


def routine_notes(tl: Timeline) -> list[str]:
    """What the reasoner set aside because the case shows it also happens when nothing fails."""
    return [f"Set aside \"{quote(e.text, 100)}\" ({e.ev.id}): {pid} shows it also happens when nothing fails "
            f"(\"{quote(s, 100)}\")." for e, pid, s in tl.routine]


def routine_gaps(tl: Timeline) -> list[str]:
    """What made the component fail, when the only candidates the timeline offers were set aside as
    routine: each named with the passage that shows it also happens when nothing fails."""
    return [f"whether \"{quote(e.text, 100)}\" ({e.ev.id}) caused this incident: {pid} shows it also happens "
            f"when nothing fails (\"{quote(s, 100)}\"), and nothing else explains the failure"
            for e, pid, s in tl.routine]


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


def answerable(case: Case) -> str:
    """What of the reported incident a reading of the case can cover: the words of the question's
    statement that some passage of the case mentions. A word no passage mentions ("online shop",
    "HTTP 500" in a question about database logs) is not a reasoner's gap; but the reading is never
    measured against fewer than half the statement's words, so a case whose passages hardly speak
    of the incident still reads weak."""
    statement = incident_statement(case.question)
    wanted = question_terms(statement)
    spelled: dict[str, str] = {}
    for tok in content_tokens(statement):
        spelled.setdefault(stem(tok), tok)
    in_case = {stem(t) for ev in case.evidence for t in content_tokens(ev.text)}
    mentioned = [t for t in wanted if t in in_case]
    lacking = [t for t in wanted if t not in in_case]
    keep = set(mentioned) | set(lacking[:max(0, (len(wanted) + 1) // 2 - len(mentioned))])
    return " ".join(spelled.get(t, t) for t in wanted if t in keep) or statement


def _reading(case: Case, cited: list[Evidence], gaps: list[str]) -> tuple[float, list[str]]:
    """Confidence capped by the reading, and the uncertainties the reasoner reports. The reading is
    measured against what of the incident the case can tell (`answerable`), over the cited passages."""
    r = read(answerable(case), [ev.text for ev in cited], passages=len(cited), gaps=gaps)
    confidence = BASE_CONFIDENCE + 0.1 * min(4, len(cited))
    if gaps:
        # Something the cause depends on could not be assessed: not confident enough to stand unreviewed.
        confidence = min(confidence, GAP_CONFIDENCE)
    return r.cap(confidence), r.uncertainties()


def open_in_the_record(case: Case) -> list[str]:
    """Rule: where a passage says the cause is not yet established ("nobody has yet compared the 2,310
    accounts with the 2,950 matches", "cannot be confirmed"), the hypothesis cannot settle it either:
    what the passage leaves open is something the reasoner could not assess, quoted."""
    return [f"whether the cause is established: {ev.id} says \"{quote(sentence, 160)}\""
            for ev in case.evidence for sentence in doubts(ev.text)][:2]


def _hypothesis(case: Case, text: str, cited: list[Evidence], category: str, reasoning: list[str],
                gaps: list[str], resolution: str) -> dict[str, Any]:
    cited = list({ev.id: ev for ev in cited}.values())
    gaps = [*gaps, *open_in_the_record(case)]
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


def _changes_told(changes: list[Evidence], said: dict[str, str], limit: int | None = None) -> str:
    """The change-led hypothesis's opening, quoting each change from the sentence the timeline took."""
    quoted = (change_quote(ev, said.get(ev.id)) for ev in changes)
    if limit is not None:
        quoted = (quote(q, limit) for q in quoted)
    return ("Root cause: the change just before the first anomaly, "
            + "; then ".join(f"\"{q}\" ({ev.id})" for q, ev in zip(quoted, changes, strict=True)) + ".")


# An item of a change record that opens with its day ("Tue 24 Feb:", "3-4 Nov:", "12 June 2026 -").
_ITEM_DAY = re.compile(r"^\s*(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\s+)?\d{1,2}(?:\s*[-–]\s*(?:[a-z]{3,9}\.?\s+)?"
                       r"\d{1,2})?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.I)


def undated_items(ev: Evidence, tl: Timeline) -> list[str]:
    """The items of a change record that each open with a day, when the timeline could not date any
    of them ("Tue 24 Feb: ...", "Sat 28 Feb: ..." with no year the reading could place): which came
    just before the failure is then not known."""
    if any(e.dated for e in tl.changes_before if e.ev.id == ev.id):
        return []
    return [s for s in sentences(ev.text) if _ITEM_DAY.match(s)]


def change_led(case: Case, tl: Timeline, with_history: bool) -> dict[str, Any] | None:
    """The root cause is what changed just before the earliest anomaly."""
    if not tl.changes_before:
        return None
    first = tl.first_anomaly
    change_ev = list({ev.id: ev for ev in [*(e.ev for e in tl.changes_before), *tl.linked_config]}.values())
    # A record of dated items ("10 June: new bottles. 12 June: firmware pushed") is quoted from the
    # item the timeline took; an undated record from its first change.
    said = {e.ev.id: e.text for e in tl.changes_before if e.dated}
    text = _changes_told(change_ev, said)
    if len(text) > HYPOTHESIS_CHARS // 2:
        # The changes leave room for the anomaly and the limit they led to: quoted shorter.
        text = _changes_told(change_ev[:3], said, 80)
    cited = list(change_ev)
    reasoning = [f"{e.ev.id} reports a change ({', '.join(e.changes)}) at {e.when}." for e in tl.changes_before]
    gaps = []
    if first is not None:
        text += f" The first anomaly followed at {first.when}: \"{quote(first.text)}\" ({first.ev.id})."
        cited.append(first.ev)
        reasoning.append(f"The earliest {first.severity} line is {first.ev.id} at {first.when}.")
    elif len(change_ev) > 1:
        # Which change came just before the failure needs the failure's time; with one change it does not.
        gaps.append("when the first anomaly happened: no passage carries a dated error or warning line")
    if tl.limit is not None:
        text += f" A limit was reached: \"{quote(tl.limit.text)}\" ({tl.limit.ev.id})."
        cited.append(tl.limit.ev)
    effects = [ev for ev in symptom_passages(case) if ev.id not in {c.id for c in cited}]
    if effects:
        # The effects are told when the hypothesis has room for them: the cause comes first.
        told = " The reported effects: " + "; ".join(f"\"{quote(sentences(ev.text)[0], 120)}\" ({ev.id})"
                                                     for ev in effects) + "."
        if len(text) + len(told) <= HYPOTHESIS_CHARS:
            text += told
        cited += effects
    for ev in change_ev:
        items = undated_items(ev, tl)
        if len(items) > 1:
            gaps.append(f"which of the changes {ev.id} lists on different days caused it, as their days could "
                        "not be placed against the failure: " + "; ".join(f"\"{quote(x, 80)}\"" for x in items[:3]))
    many = [e for e in tl.changes_before if len(e.changes) > 1]
    for e in many:
        gaps.append(f"which of the changes made together in {e.ev.id} ({', '.join(e.changes)}) caused it")
    apart = unseparated(tl, case.question)
    if apart:
        gaps.append("which of the changes before the first anomaly caused it, as nothing in the evidence ties one of "
                    "them to the failure: " + "; ".join(f"\"{quote(e.text, 120)}\" ({e.ev.id}, {e.when})"
                                                        for e in apart))
    reasoning += routine_notes(tl)
    if with_history:
        past = _best_history(case, text)
        if past is not None:
            if len(text) + 60 <= HYPOTHESIS_CHARS:
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
    gaps = (routine_gaps(tl) or ["what made the component fail: no change or limit explains it"]) \
        if not (tl.changes_before or tl.limit) \
        else ["why the component itself would fail: the change and limit readings point elsewhere"]
    return _hypothesis(case, text, [first.ev], "software", [f"{first.ev.id} is the earliest anomaly.",
                                                            *routine_notes(tl)], gaps, _resolution(tl, []))


def history_led(case: Case, tl: Timeline) -> dict[str, Any] | None:
    """The incident repeats a past incident or a known pattern."""
    anchor = " ".join(e.text for e in [tl.first_anomaly, *tl.changes_before, tl.limit] if e is not None)
    if not anchor:
        # No timeline to match (a reasoner that reads no logs): the incident as the question reports
        # it, with the facts known about its components.
        anchor = " ".join([incident_statement(case.question), *(ev.text for ev in _facts(case))])
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
                       [f"whether the cause of the past pattern in {past.id} is this incident's cause: no "
                        "change or limit in the current incident's evidence shows it"
                        if not (tl.changes_before or tl.limit)
                        else f"whether the cause of the past pattern in {past.id} is this incident's cause"],
                       _resolution(tl, []))




def _facts(case: Case) -> list[Evidence]:
    """The standing facts about the components: their configuration and their dependencies."""
    return [ev for ev in case.evidence if kind(ev) in ("config", "topology")]


def fact_led(case: Case, tl: Timeline) -> dict[str, Any] | None:
    """The root cause is a standing fact about an affected component (the knowledge graph's entity
    context: a configuration or a dependency), the fact that best matches the reported incident."""
    used = {e.ev.id for e in tl.changes_before} | {ev.id for ev in tl.linked_config}
    facts = {ev.id: ev.text for ev in _facts(case) if ev.id not in used}
    story = " ".join([incident_statement(case.question), *(e.text for e in [tl.first_anomaly, tl.limit] if e)])
    ranked = [r for r in bm25_rank(story, facts) if r.score > 0] if facts else []
    if not ranked:
        return None
    fact = case.evidence_by_id()[ranked[0].id]
    text = f"Root cause: a standing condition of the affected component: \"{quote(sentences(fact.text)[0])}\" ({fact.id})."
    cited = [fact]
    reasoning = [f"{fact.id} is the {kind(fact)} fact that best matches the reported incident."]
    past = _best_history(case, f"{story} {fact.text}")
    if past is not None:
        text += f" A past incident or known pattern reads the same way: \"{quote(sentences(past.text)[0], 160)}\" ({past.id})."
        cited.append(past)
    if tl.first_anomaly is not None:
        text += f" It surfaced at {tl.first_anomaly.when}: \"{quote(tl.first_anomaly.text)}\" ({tl.first_anomaly.ev.id})."
        cited.append(tl.first_anomaly.ev)
    gaps = [] if tl.changes_before else ["what turned this standing condition into a failure now: no dated change is read"]
    category = "config" if kind(fact) == "config" else "software"
    return _hypothesis(case, text, cited, category, reasoning, gaps, _resolution(tl, [fact]))


def unread(case: Case, n: int) -> dict[str, Any]:
    """What a reasoner says when the passages give it nothing to stand on."""
    return _hypothesis(case, f"No root cause could be read from the passages (reading {n}).", [], "software", [],
                       ["which passage shows the first failure or what changed before it"], "Collect the logs "
                       "around the first failure and the change records of the hours before it")


def is_unread(h: dict[str, Any]) -> bool:
    return h["hypothesis"].startswith("No root cause could be read")


def generate(case: Case, agent: dict[str, Any]) -> list[dict[str, Any]]:
    """Every hypothesis the passages of `case` support, in the reasoner's order: a reasoner that
    reads logs leads with the timeline (the most confident first), one that reads only the
    knowledge-graph side with past incidents and patterns, then the standing facts."""
    kinds = focus(agent)
    tl = timeline(case)
    made = [change_led(case, tl, with_history="history" in kinds), limit_led(case, tl), anomaly_led(case, tl),
            history_led(case, tl), fact_led(case, tl)]
    out = [h for h in made if h is not None]
    if reads_logs(agent):
        # The agent's own terms break ties between equally confident hypotheses, never override them.
        own = {stem(t.lower()) for t in (agent.get("terms") or []) for t in content_tokens(t)}
        out.sort(key=lambda h: (-h["confidence"], -len(own & set(terms(h["hypothesis"])))))
    return out


def fill(case: Case, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """3-5 hypotheses: what was read, then as many "nothing could be read" as the minimum needs."""
    out = list({h["hypothesis"]: h for h in out}.values())[:5]
    n = 1
    while len(out) < 3:
        out.append(unread(case, n))
        n += 1
    return out


def initial_hypotheses(case: Case, agent: dict[str, Any]) -> list[dict[str, Any]]:
    """Round 1: the hypotheses from the passages of the reasoner's kinds only."""
    return fill(case, generate(view(case, agent), agent))
