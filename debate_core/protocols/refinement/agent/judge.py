"""The offline judge: it scores what it can check against the whole case.

The hypothesis cites passages that exist and that say what it says, it accounts for the earliest
anomaly and the change before it, and its causes come before their effects. A hypothesis resting
on no cited passage scores low. The feedback names passage ids ("Cite L1, the first anomaly",
"Drop L2"), which the reasoners act on in the next round.
"""

from __future__ import annotations

import re
from typing import Any

from ....core.schemas import Case, Evidence
from ....core.text import stem, terms
from ....providers.offline.agents import register
from .reading import distinct, events_of, kind, timeline

_STEP_SPLIT = re.compile(r";|\n")
_RULES_OUT = re.compile(r"\brules? out\s+(?:an?\s+|the\s+)?([\w-]+)", re.I)


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
    return len(mine & set(terms(ev.text))) >= 3 or bool(distinct(ev.text) & distinct(h_text))


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
    if first is not None and (first.time is not None or first.day is not None):
        for ev in cited:
            changes = [e for e in events_of(ev) if e.changes]
            late = [e for e in changes if tl.precedes(e, first) is False
                    and not any(tl.precedes(x, first) for x in changes)]
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
