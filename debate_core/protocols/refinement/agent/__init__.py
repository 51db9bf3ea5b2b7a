"""Offline agents for hypothesis refinement (the hypothesis-refinement source protocol): root-cause
reasoners and a judge, rule-based and with no vocabulary of any system.

- reading.py: what kind a passage is (its `kind` field, else its source, else its text), and the
  timeline of the current incident: the earliest anomaly, what changed just before it, which limit
  was crossed.
- reasoners.py: each reasoner reads only the passages of its kinds (the log reasoner the log lines
  and metrics; the knowledge-graph reasoner past incidents, causal paths, patterns and the
  configuration and dependency facts; the hybrid all) and writes hypotheses that quote them, so
  reasoners agree only when their evidence does. Each measures its reading
  (debate_core/providers/offline/reading.py); a weak reading, a change record that made several
  changes at once, or changes before the first anomaly that nothing in the evidence separates,
  lowers its confidence and says what it could not assess. An anomaly the case shows also happens
  when nothing fails is set aside.
- refine.py: from round 2, the reasoners act on the judge's scores and feedback.
- judge.py: the judge scores what it can check against the whole case.
"""

from __future__ import annotations

from typing import Any

from ....core.schemas import Case
from ....providers.offline.agents import register
from .judge import assess, judge, self_contradiction
from .reading import kind, timeline
from .reasoners import focus, initial_hypotheses, view
from .refine import refine


@register("refinement", "hypotheses")
def hypotheses(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    agent = payload["agent"]
    if payload.get("round", 1) == 1 or "previous" not in payload:
        return {"hypotheses": initial_hypotheses(case, agent)}
    # The judge's scores and feedback on every hypothesis it gave last round; the top one alone
    # when the flow passes only that.
    previous = payload.get("previous_hypotheses") or [payload["previous"]]
    return {"hypotheses": refine(case, agent, previous)}


__all__ = ["assess", "focus", "hypotheses", "initial_hypotheses", "judge", "kind", "refine", "self_contradiction",
           "timeline", "view"]
