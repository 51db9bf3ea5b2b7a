"""Offline agents for hypothesis refinement (seed 002): three root-cause reasoners and a judge.

Evidence passages are sorted into kinds by their source (log, metric, config, history = past
incidents and knowledge-graph patterns) and into root-cause categories by a small lexicon. Each
reasoner reads the kinds its focus names, ranks categories by the passages that support them and
writes hypotheses that cite those passages. The judge scores every hypothesis by a fixed rubric
(evidence support, specificity, resolution quality, calibration) and says concretely what is
missing, naming evidence ids. A refining reasoner applies that feedback: it cites what the judge
named, adds the measured values, the trigger, the contributing factor and a preventive step, and
takes supporting evidence from the other reasoners' top hypotheses. Evidence support has
diminishing returns, so scores rise when feedback is applied and then level off.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any

from ..schemas import Case, Evidence
from ..text import best_sentence, mentioned_ids, terms
from . import register

CATEGORIES = ("resource", "config", "hardware", "network", "software")
_LEXICON_WORDS = {
    # Resource covers both sides of exhaustion: the capacity that ran out and the load that filled it.
    "resource": "disk space usage full capacity exhausted exhaustion remaining quota memory heap oom filled "
                "volume replication replicated traffic decommission surge rebalancing throughput load cpu",
    "config": "config configuration xml dfs setting set reserved parameter property misconfigured "
              "misconfiguration du default",
    "hardware": "hardware faulty bad sector smart ecc replaced controller fan power firmware failure failed",
    "network": "network timeout connection packet latency switch heartbeat unreachable dns interface slow rack",
    "software": "exception bug version upgrade regression leak deadlock crash patch null pointer",
}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_HOST = re.compile(r"\b[a-z]{2,}-\d{1,3}\b")
_COMPONENT = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b")
_PROPERTY = re.compile(r"\b[a-z]+(?:\.[a-z_]+){2,}\b")
_INCIDENT = re.compile(r"\b[A-Z]{2,}[_-]\d{2,}\b")
_CAUSAL = re.compile(r"\b(after|following|starting with|due to|caused by|triggered by)\s+([^.;,]+)|([^:.;]*->[^.;]*)", re.I)
_MECHANISM_CUES = re.compile(r"\b(after|following|due to|because|caused by|driven by|triggered|followed)\b", re.I)
_PERCENT = re.compile(r"\b\d+(?:\.\d+)?%")
_MEASURE = re.compile(r"\b\d+(?:\.\d+)?\s*(?:%|ms|gb|mb|tb|times|blocks per minute)\b", re.I)
_STEP_SPLIT = re.compile(r";|\n|(?:^|\s)\d+[.)]\s")
_IMMEDIATE = re.compile(r"\b(free|clear|clean|delete|restart|replace|add|roll|increase|remove|move|rebalance|drain|fix)", re.I)
_PREVENTIVE = re.compile(r"\b(alert|monitor|prevent|recur|reserve|limit|throttl|cap\b|enforce|test)", re.I)
_RULE_OUT = {"healthy", "normal", "nominal", "unaffected"}

KIND_LABEL = {"log": "log", "metric": "metric", "config": "configuration", "history": "past-incident"}
CAUSE = {
    "resource": "Resource exhaustion", "config": "Misconfiguration", "hardware": "Hardware failure",
    "network": "Network connectivity failure", "software": "Software defect",
}
FIRST_STEPS = {
    "resource": ["Free capacity on {comp} (remove temporary files and old logs)",
                 "Add capacity or move load away from {comp}"],
    "config": ["Correct the setting on {comp} to match the rest of the cluster", "Restart the service to apply it"],
    "hardware": ["Replace the failed hardware on {comp}", "Run hardware diagnostics on {comp}"],
    "network": ["Check the switch and interfaces serving {comp}", "Re-establish the connections once the path is healthy"],
    "software": ["Roll back or patch the failing software on {comp}", "Restart the service on {comp}"],
}
PREVENTION = {
    "resource": "Add alerts at 85% utilisation on {comp} and throttle background load such as re-replication",
    "config": "Enforce the setting through configuration management so nodes cannot drift",
    "hardware": "Monitor hardware health and replace parts before they fail",
    "network": "Monitor packet loss and latency with alerts",
    "software": "Add a regression test and alert on the error rate",
}


def _split_camel(text: str) -> str:
    return _CAMEL.sub(" ", text)


LEXICON = {c: set(terms(words)) for c, words in _LEXICON_WORDS.items()}


def kind(ev: Evidence) -> str:
    s = ev.source.lower()
    if any(w in s for w in ("incident", "knowledge", "pattern", "history", "postmortem")):
        return "history"
    if any(w in s for w in ("metric", "monitor", "dashboard", "exporter")):
        return "metric"
    if "config" in s:
        return "config"
    if "log" in s:
        return "log"
    return "other"


@lru_cache(maxsize=1024)
def _text_hits(text: str) -> tuple[tuple[str, int], ...]:
    words = set(terms(_split_camel(text)))
    return tuple((c, len(words & LEXICON[c])) for c in CATEGORIES)


def hits(ev: Evidence) -> dict[str, int]:
    # The judge weighs every passage for every hypothesis; the lexicon count depends on the text only.
    return dict(_text_hits(ev.text))


def rules_out(ev: Evidence) -> bool:
    """Passages reporting something healthy rule causes out; they support none."""
    return bool(_RULE_OUT & set(terms(ev.text)))


def ruled_out(ev: Evidence) -> list[str]:
    """The categories a healthy-readings passage speaks about (at least two of their terms)."""
    if not rules_out(ev):
        return []
    h = hits(ev)
    return [c for c in CATEGORIES if h[c] >= 2]


def supports(ev: Evidence, category: str) -> bool:
    if rules_out(ev):
        return False
    h = hits(ev)
    return h[category] >= 2 or (h[category] >= 1 and h[category] >= max(h.values()))


def top_category(ev: Evidence) -> str:
    h = hits(ev)
    return max(CATEGORIES, key=lambda c: (h[c], -CATEGORIES.index(c)))


def current_strength(case: Case, category: str) -> int:
    """How strongly the current incident's passages (not past incidents) point to a category."""
    return sum(hits(ev)[category] for ev in case.evidence if kind(ev) != "history" and supports(ev, category))


def pool(case: Case, category: str) -> list[Evidence]:
    """Every passage that supports a category, strongest first (ties in case order)."""
    found = [ev for ev in case.evidence if supports(ev, category)]
    return sorted(found, key=lambda ev: -hits(ev)[category])


def _hosts(texts: list[str]) -> Counter[str]:
    return Counter(h for t in texts for h in _HOST.findall(t))


def component(case: Case, passages: list[Evidence]) -> tuple[str, list[str]]:
    """The affected component: the host the question and current-incident passages name most,
    with the component type their log lines name (DataNode, NameNode, ...)."""
    current = [ev.text for ev in passages if kind(ev) != "history"]
    hosts = _hosts([case.question] * 2 + current)
    types = Counter(t for text in [case.question, *current] for t in _COMPONENT.findall(text)
                    if not t.endswith(("Exception", "Error", "Checker", "Processor", "Client", "Manager")))
    host = hosts.most_common(1)[0][0] if hosts else ""
    ctype = types.most_common(1)[0][0] if types else ""
    label = " ".join(x for x in (ctype, host) if x) or "the affected service"
    return label, [x for x in (ctype, host) if x]


def causal_clause(ev: Evidence) -> str | None:
    m = _CAUSAL.search(ev.text)
    if not m:
        return None
    if m.group(3):
        links = [x.strip() for x in m.group(3).split("->")]
        return " -> ".join(links[:3])
    return " ".join(m.group(2).split()[:10])


def measures(ev: Evidence) -> list[str]:
    found = _PERCENT.findall(ev.text) or _MEASURE.findall(ev.text)
    return list(dict.fromkeys(found))


def resolution_steps(ev: Evidence) -> list[str]:
    m = re.search(r"Resolution:\s*(.+)", ev.text)
    if not m:
        return []
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+(?=[a-z]+ed\b)", m.group(1).rstrip("."))
    return [p.strip()[:1].upper() + p.strip()[1:] for p in parts if p.strip()]


def steps_of(resolution: str) -> list[str]:
    return [s.strip() for s in _STEP_SPLIT.split(resolution or "") if s and s.strip()]


# ---------------------------------------------------------------------------
# Reasoners
# ---------------------------------------------------------------------------


def _focus(agent: dict[str, Any]) -> set[str]:
    kinds = agent.get("evidence_kinds")
    return set(kinds) if kinds else {"log", "metric", "config", "history", "other"}


def _style(agent: dict[str, Any]) -> str:
    focus = _focus(agent)
    if focus == {"history"}:
        return "history"
    return "hybrid" if "history" in focus else "current"


def _imperative(step: str) -> str:
    """Past-incident resolutions are written in the past tense ("Added alerts"); steps are orders."""
    first, _, rest = step.partition(" ")
    if first.endswith("ed") and len(first) > 4:
        root = first[:-2]
        first = root + "e" if root.endswith(("c", "s", "v", "z", "g", "at")) else root
    return f"{first} {rest}".strip()


def short_fact(ev: Evidence) -> str:
    """A compact statement of a passage: `property=value` for settings, else its first words."""
    m = re.search(r"\b([a-z]+(?:\.[a-z_]+){2,})\s+(?:is\s+)?set\s+to\s+([\w.]+)", ev.text)
    if m:
        return f"{m.group(1)}={m.group(2)}"
    words = ev.text.split()
    return " ".join(words[:10]).rstrip(",;.") + ("..." if len(words) > 10 else "")


def _hypothesis(case: Case, agent: dict[str, Any], category: str, cited: list[Evidence]) -> dict[str, Any]:
    label, comps = component(case, cited or case.evidence)
    text_all = " ".join(_split_camel(ev.text) for ev in cited)
    cause = CAUSE[category]
    if category == "resource" and {"disk", "space"} & set(terms(text_all)):
        cause = "Disk space exhaustion"
    elif category == "resource" and {"memory", "heap"} & set(terms(text_all)):
        cause = "Memory exhaustion"
    elif category == "config":
        props = [p for ev in cited for p in _PROPERTY.findall(ev.text)]
        cause = f"Misconfiguration of {props[0]}" if props else cause
    exceptions = [t for ev in cited for t in _COMPONENT.findall(ev.text) if t.endswith("Exception")]
    history = [ev for ev in cited if kind(ev) == "history"]
    incidents = [m for ev in history for m in _INCIDENT.findall(ev.source + " " + ev.text)]
    style = _style(agent)
    text = f"{cause} on {label}"
    if style == "history" and incidents:
        # The knowledge-graph reasoner argues from precedent and the causal path it knows.
        text = f"Recurrence of the {incidents[0]} pattern: {text[0].lower()}{text[1:]}"
        chain = next((c for ev in history if (c := causal_clause(ev)) and "->" in c), None)
        if chain:
            text += f", following the path {chain}"
    else:
        if exceptions:
            text += f", surfacing as {exceptions[0]}"
        if style == "hybrid":
            # The hybrid reasoner tells one story: the current trigger and the precedent it matches.
            trigger = next(((ev, c) for ev in cited if kind(ev) != "history" and (c := causal_clause(ev))), None)
            if trigger:
                text += f", after {trigger[1]} ({trigger[0].id})"
            if incidents:
                text += f", as in past incident {incidents[0]}"
    steps = next((s for ev in history if (s := resolution_steps(ev))), None)
    if steps and style == "history":
        resolution = "; ".join(_imperative(x) for x in steps)
    else:
        resolution = "; ".join(x.format(comp=label) for x in FIRST_STEPS[category])
    quotes = "; ".join(f"{ev.id}: {best_sentence(ev.text, text)[:110]}" for ev in cited)
    return {
        "hypothesis": text + ".",
        "confidence": round(0.45 + 0.12 * min(3, len(cited)), 2) if cited else 0.2,
        "reasoning": (f"{len(cited)} passage(s) in my focus point to a {category} cause. {quotes}"
                      if cited else f"No passage in my focus supports a {category} cause; listed to be ruled out."),
        "evidence": [ev.id for ev in cited],
        "category": category,
        "affected_components": comps,
        "suggested_resolution": resolution,
        "changes_made": "",
    }


def _cite(agent: dict[str, Any], support: list[Evidence], current: list[Evidence], category: str) -> list[Evidence]:
    """Which of the supporting passages a reasoner cites, by its focus."""
    style = _style(agent)
    if style == "history":
        # Linked to the current incident through the current passage that best shares the category.
        linked = sorted((ev for ev in current if supports(ev, category)), key=lambda ev: -hits(ev)[category])[:1]
        return support[:2] + linked if support else []
    if style == "hybrid":
        # One passage per kind, strongest first: breadth over depth.
        picked: dict[str, Evidence] = {}
        for ev in support:
            picked.setdefault(kind(ev), ev)
        return list(picked.values())[:3]
    return support[:3]


def initial_hypotheses(case: Case, agent: dict[str, Any]) -> list[dict[str, Any]]:
    focus = _focus(agent)
    mine = [ev for ev in case.evidence if kind(ev) in focus]
    current = [ev for ev in case.evidence if kind(ev) != "history"]
    ranked: list[tuple[float, str, list[Evidence]]] = []
    for c in CATEGORIES:
        support = sorted((ev for ev in mine if supports(ev, c)), key=lambda ev: -hits(ev)[c])
        ranked.append((sum(hits(ev)[c] for ev in support), c, _cite(agent, support, current, c)))
    ranked.sort(key=lambda x: (-x[0], CATEGORIES.index(x[1])))
    chosen = [r for r in ranked if r[0] > 0][:4]
    for r in ranked:
        if len(chosen) >= 3:
            break
        if r not in chosen:
            chosen.append(r)
    return [_hypothesis(case, agent, c, cited) for _, c, cited in chosen]


@register("refinement", "hypotheses")
def hypotheses(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    agent = payload["agent"]
    if payload.get("round", 1) == 1 or "previous" not in payload:
        return {"hypotheses": initial_hypotheses(case, agent)}
    return {"hypotheses": refine(case, agent, payload["previous"], payload.get("others", []),
                                 payload.get("previous_hypotheses", []))}


def refine(case: Case, agent: dict[str, Any], prev: dict[str, Any], others: list[dict[str, Any]],
           previous_list: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Act on the judge's feedback for the previous top hypothesis; keep the other hypotheses.

    The feedback lists the changes with the most points at stake; the reasoner makes those, takes
    supporting passages from the other reasoners' top hypotheses of the same category, and drops
    ids the case does not have. What the judge did not ask for stays as it was."""
    by_id = case.evidence_by_id()
    notes = prev.get("feedback", "")
    switch = re.search(r"Reconsider: the current evidence points to an? (\w+) cause", notes)
    if switch and switch.group(1) != prev["category"]:
        # The judge finds the evidence points elsewhere: refine my own hypothesis of that category.
        target = switch.group(1)
        candidates = [h for h in previous_list if h.get("category") == target]
        base = candidates[0] if candidates else next(
            (h for h in initial_hypotheses(case, agent) if h["category"] == target), None)
        if base is not None:
            base = {**base, "changes_made": ""}
            refined = refine(case, agent, base, others, [])
            refined[0]["changes_made"] = (f"switched from my {prev['category']} hypothesis to {target}, as the judge "
                                          f"found the current evidence points there; " + refined[0]["changes_made"])
            return refined
    cat = prev["category"]
    evidence = [e for e in prev["evidence"] if e in by_id]
    text = prev["hypothesis"].rstrip(".")
    reasoning = prev.get("reasoning", "")
    confidence = float(prev["confidence"])
    label, comps = component(case, [by_id[e] for e in evidence] or case.evidence)
    changes: list[str] = []

    named = [e for e in mentioned_ids(notes, by_id) if e not in evidence]
    if named:
        evidence += named
        changes.append(f"cited {', '.join(named)} as the judge asked")
    borrowed = [e for o in others if o.get("category") == cat for e in o.get("evidence", [])
                if e in by_id and e not in evidence and supports(by_id[e], cat)]
    borrowed = list(dict.fromkeys(borrowed))
    if borrowed:
        evidence += borrowed
        changes.append(f"took {', '.join(borrowed)} from the other reasoners' top hypotheses")
    if prev.get("unverified_evidence"):
        changes.append(f"dropped unverified ids {', '.join(prev['unverified_evidence'])}")
    cited = [by_id[e] for e in evidence]

    if "Name the component" in notes and label not in text:
        text += f" on {label}"
        changes.append("named the component")
    if "measured value" in notes:
        metric = max((ev for ev in cited if measures(ev)), key=lambda ev: (kind(ev) == "metric", len(measures(ev))),
                     default=None)
        if metric is not None:
            values = f"{label} ({metric.id}: {' -> '.join(measures(metric)[:4])})"
            text = text.replace(label, values, 1) if label in text else f"{text} ({values})"
            changes.append("stated the measured values")
    if "trigger" in notes and not _MECHANISM_CUES.search(text):
        trigger = next(((ev, c) for ev in cited if kind(ev) != "history" and (c := causal_clause(ev))), None)
        if trigger:
            text += f", triggered by {trigger[1]} ({trigger[0].id})"
            changes.append("explained the trigger")
    if "contributed" in notes:
        factor = next((by_id[e] for e in mentioned_ids(notes, by_id) if not supports(by_id[e], cat)), None)
        if factor is not None:
            text += f"; contributing factor: {short_fact(factor)} ({factor.id})"
            changes.append(f"added the contributing factor from {factor.id}")
    if "Rule out" in notes:
        for ev in (by_id[e] for e in mentioned_ids(notes, by_id)):
            if rules_out(ev):
                reasoning += f" {ev.id} rules out {', '.join(ruled_out(ev))}: {short_fact(ev)}"
                changes.append(f"ruled out {', '.join(ruled_out(ev))} with {ev.id}")

    steps = steps_of(prev.get("suggested_resolution", ""))
    if "preventive" in notes:
        past = [_imperative(x) for ev in cited if kind(ev) == "history" and supports(ev, cat) for x in resolution_steps(ev)]
        extra = [x for x in past if _PREVENTIVE.search(x)] or [PREVENTION[cat].format(comp=label)]
        steps += [x for x in extra if x not in steps]
        changes.append("added a preventive step")
    if "three concrete steps" in notes:
        steps += [x.format(comp=label) for x in FIRST_STEPS[cat] if x.format(comp=label) not in steps]
        changes.append("added resolution steps")
    if "specific to" in notes:
        steps = [f"{steps[0]} on {label}", *steps[1:]] if steps else [f"Fix {label}"]
        changes.append("made the resolution specific")

    m = re.search(r"about (0\.\d+)", notes)
    if "Lower the confidence" in notes and m:
        confidence = float(m.group(1))
        changes.append("recalibrated confidence")
    elif changes:
        # More support cited, a little more certainty; the judge checks it against the support.
        confidence = min(0.95, confidence + 0.05)

    refined = {
        "hypothesis": text + ".",
        "confidence": round(confidence, 2),
        "reasoning": f"{reasoning} Refined: {'; '.join(changes)}." if changes else reasoning,
        "evidence": evidence,
        "category": cat,
        "affected_components": list(dict.fromkeys([*prev.get("affected_components", []), *comps])),
        "suggested_resolution": "; ".join(dict.fromkeys(steps)),
        "changes_made": "; ".join(changes) if changes else "No change: the feedback named nothing I can act on.",
    }
    rest = [h for h in initial_hypotheses(case, agent) if h["category"] != cat]
    return [refined, *rest][:5]


# ---------------------------------------------------------------------------
# Judge
# ---------------------------------------------------------------------------


def _short(ev: Evidence, query: str) -> str:
    s = best_sentence(ev.text, query)
    return s if len(s) <= 120 else s[:117] + "..."


def assess(case: Case, h: dict[str, Any]) -> dict[str, Any]:
    by_id = case.evidence_by_id()
    cat = h["category"]
    text = h["hypothesis"]
    verified = [by_id[e] for e in h.get("evidence", []) if e in by_id]
    unverified = [e for e in h.get("evidence", []) if e not in by_id]
    sup = [ev for ev in verified if supports(ev, cat)]
    available = pool(case, cat)
    strengths: list[str] = []
    weak: list[tuple[int, str, str]] = []  # (points at stake, weakness, feedback)

    # Evidence support (40): diminishing returns per supporting passage, plus breadth of kinds.
    support_pts = 28 * (1 - 0.55 ** len(sup))
    kinds_available = {kind(ev) for ev in available}
    kinds_cited = {kind(ev) for ev in sup}
    breadth = 12 * len(kinds_cited & kinds_available) / len(kinds_available) if kinds_available else 0
    evidence_pts = support_pts + breadth
    # Precedent and breadth do not make up for thin current evidence: the judge weighs how strongly
    # the current incident's passages point to this category against the best-supported one.
    strength = {c: current_strength(case, c) for c in CATEGORIES}
    best = max(CATEGORIES, key=lambda c: (strength[c], -CATEGORIES.index(c)))
    ratio = strength[cat] / strength[best] if strength[best] else 1.0
    if ratio < 0.5:
        lost = evidence_pts * 0.6 * (1 - ratio)
        evidence_pts -= lost
        best_ids = ", ".join(ev.id for ev in pool(case, best) if kind(ev) != "history")[:40]
        weak.append((round(lost), f"Current evidence for a {cat} cause is weak next to {best} ({best_ids})",
                     f"Reconsider: the current evidence points to a {best} cause ({best_ids})"))
    evidence_pts -= 5 * len(unverified)
    if sup:
        strengths.append(f"Supported by {', '.join(ev.id for ev in sup)}")
    else:
        example = ", ".join(ev.id for ev in available[:2]) or "passages that bear on it"
        weak.append((28, f"None of the cited passages supports a {cat} cause",
                     f"Cite evidence that supports it, such as {example}"))
    for k in sorted(kinds_available - kinds_cited):
        ev = next(e for e in available if kind(e) == k)
        weak.append((6, f"No {KIND_LABEL.get(k, k)} evidence cited although {ev.id} bears on it",
                     f"Cite {ev.id} ({KIND_LABEL.get(k, k)}: \"{_short(ev, text)}\")"))
    if unverified:
        weak.append((5, f"Cites evidence ids not in the case: {', '.join(unverified)}", "Cite only passage ids from the case"))
    against = [ev for ev in case.evidence if rules_out(ev) and cat in ruled_out(ev)]
    for ev in against:
        evidence_pts -= 8
        weak.append((8, f"{ev.id} reports healthy {cat} readings, which contradicts this cause",
                     f"Drop this hypothesis or explain {ev.id}: \"{_short(ev, ev.text)}\""))

    # Specificity (25): component, measured values, mechanism, contributing factor, alternatives.
    label, comps = component(case, verified or case.evidence)
    spec = 0.0
    host = comps[-1] if comps else ""
    if host and host in text:
        spec += 5
    else:
        weak.append((5, "Does not name the affected component", f"Name the component ({label})"))
    numbers_cited = {n for ev in verified for n in measures(ev)}
    if any(n in text for n in numbers_cited):
        spec += 5
        strengths.append("States measured values")
    else:
        metric = max((ev for ev in available if measures(ev)), key=lambda ev: (kind(ev) == "metric", len(measures(ev))),
                     default=None)
        if metric is not None:
            weak.append((5, "No measured value in the hypothesis",
                         f"State the measured value, e.g. {' -> '.join(measures(metric)[:4])} from {metric.id}"))
        else:
            spec += 5
    if _MECHANISM_CUES.search(text):
        spec += 7
        strengths.append("Explains the mechanism")
    else:
        cause_ev = [ev for ev in available if kind(ev) != "history" and causal_clause(ev)]
        hint = f": {cause_ev[0].id} shows \"{causal_clause(cause_ev[0])}\"" if cause_ev else \
            " (no current passage names one; a past incident's trigger is not this incident's)"
        weak.append((7, "Does not explain what drove it", f"Explain the trigger{hint}"))
    factors = [ev for ev in case.evidence if not supports(ev, cat) and not rules_out(ev) and host and host in ev.text
               and kind(ev) != "history" and max(hits(ev).values()) >= 2]
    factors.sort(key=lambda ev: -max(hits(ev).values()))
    if not factors or any(ev.id in h.get("evidence", []) for ev in factors):
        spec += 4
    else:
        ev = factors[0]
        weak.append((4, f"Does not say whether {ev.id} ({top_category(ev)}) contributed",
                     f"Consider {ev.id}, which contributed: \"{_short(ev, ev.text)}\""))
    rivals = [ev for ev in case.evidence if rules_out(ev) and cat not in ruled_out(ev) and ruled_out(ev)]
    if not rivals or any(ev.id in h.get("evidence", []) for ev in rivals):
        spec += 4
    else:
        ev = rivals[0]
        weak.append((4, f"Does not rule out {', '.join(ruled_out(ev))} although {ev.id} can",
                     f"Rule out {', '.join(ruled_out(ev))}: {ev.id} reports \"{_short(ev, ev.text)}\""))

    # Resolution (25): steps, an immediate action, a preventive step, specifics.
    resolution = h.get("suggested_resolution", "")
    steps = steps_of(resolution)
    res = 3 * min(len(steps), 4)
    if len(steps) < 3:
        weak.append((3 * (3 - len(steps)), f"Resolution has only {len(steps)} step(s)", "Give at least three concrete steps"))
    if _IMMEDIATE.search(resolution):
        res += 4
    if _PREVENTIVE.search(resolution):
        res += 5
        strengths.append("Resolution includes prevention")
    else:
        past = next((ev for ev in available if kind(ev) == "history" and resolution_steps(ev)), None)
        hint = f"; {past.id} shows what worked before" if past else ""
        weak.append((5, "No preventive step in the resolution", f"Add a preventive step so it does not recur{hint}"))
    if (host and host in resolution) or _PROPERTY.search(resolution) or re.search(r"\d", resolution):
        res += 4
    else:
        weak.append((4, "Resolution is generic", f"Make the resolution specific to {label}"))

    # Calibration (10): confidence no higher than the cited support carries.
    expected = 0.35 + 0.6 * min(1.0, len(sup) / 3)
    conf = float(h.get("confidence", 0.0))
    calib = 10.0
    if conf > expected + 0.15:
        calib = max(0.0, 10 - 40 * (conf - expected - 0.15))
        weak.append((10 - int(calib), f"Confidence {conf:.2f} is above what {len(sup)} supporting passage(s) carry",
                     f"Lower the confidence to about {expected:.2f} or cite more support"))

    score = max(0.0, min(100.0, evidence_pts + spec + res + calib))
    weak.sort(key=lambda w: -w[0])
    # The feedback names the three changes with the most points at stake, so that each round's
    # refinement is focused and its effect on the score can be read off the next round.
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
