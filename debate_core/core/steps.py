"""Stable step ids (docs/contracts.md, "Step ids"): the key of every model call in the store, transcript and cassette.

The engine takes round, agent, target and speaker from the step id, never from model output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_ROUND = re.compile(r"^r(?P<round>\d+)\.(?P<stage>[a-z_]+)(?:\.(?P<agent>[\w-]+))?(?:\.(?P<target>[\w-]+))?$")
_FINAL = re.compile(r"^final\.(?P<agent>[\w-]+)$")
_CONTRA = re.compile(r"^c(?P<index>\d+)\.(?P<stage>[a-z_]+)\.(?P<agent>[\w-]+)$")


@dataclass(frozen=True)
class StepKey:
    step_id: str
    stage: str
    round: int | None = None
    agent: str | None = None
    target: str | None = None
    index: int | None = None  # contradiction number for arbitration steps


def parse_step_id(step_id: str) -> StepKey:
    m = _ROUND.match(step_id)
    if m:
        stage = m["stage"]
        agent = m["agent"] or stage  # a round step without an agent is its stage's one role (r3.judge)
        return StepKey(step_id, stage, round=int(m["round"]), agent=agent, target=m["target"])
    m = _FINAL.match(step_id)
    if m:
        return StepKey(step_id, "final", agent=m["agent"])
    m = _CONTRA.match(step_id)
    if m:
        return StepKey(step_id, m["stage"], agent=m["agent"], index=int(m["index"]))
    raise ValueError(f"not a step id: {step_id!r}")


def in_round(round_no: int, stage: str, *parties: str) -> str:
    """A step of a round: `r2.revise.pharmacist`, `r1.critique.nla.ala` (critic, then target),
    `r3.judge` (a stage taken by one role, named after it)."""
    return ".".join([f"r{round_no}", stage, *parties])


def per_contradiction(index: int, stage: str, agent: str) -> str:
    """A step about one contradiction: `c3.arbitrate.arbiter`."""
    return f"c{index}.{stage}.{agent}"


def final(role: str) -> str:
    return f"final.{role}"


# Stored steps (dicts as the store returns them), as every protocol's tables read them


def latest_calls(steps: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last call of each step id (a re-asked step keeps only its final answer), in run order.
    A reviewer's interventions share one step id per round, one call each: every one is kept."""
    last: dict[Any, dict[str, Any]] = {}
    for s in steps:
        key = (s["step_id"], s.get("call")) if s.get("stage") == "human" else s["step_id"]
        prev = last.get(key)
        if prev is None or (s.get("call") or 1) >= (prev.get("call") or 1):
            last[key] = s
    return sorted(last.values(), key=lambda s: s.get("seq") or 0)


def latest_ok_calls_in_order(steps: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every successful call in run order (a re-asked step keeps all its calls: the rules pick one)."""
    return sorted((s for s in steps if s.get("status") == "ok"), key=lambda s: (s.get("seq") or 0, s.get("call") or 1))


def outputs_by_stage(steps: Iterable[dict[str, Any]], stage: str) -> list[dict[str, Any]]:
    return [s for s in latest_calls(steps) if s.get("stage") == stage and s.get("status") == "ok"
            and isinstance(s.get("output"), dict)]
