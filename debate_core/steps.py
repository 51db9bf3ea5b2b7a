"""Stable step ids (docs/contracts.md, "Step ids"): the key of every model call in the store, transcript and cassette.

The engine takes round, agent, target and speaker from the step id, never from model output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
        agent = m["agent"] or (stage if stage == "judge" else None)
        return StepKey(step_id, stage, round=int(m["round"]), agent=agent, target=m["target"])
    m = _FINAL.match(step_id)
    if m:
        return StepKey(step_id, "final", agent=m["agent"])
    m = _CONTRA.match(step_id)
    if m:
        return StepKey(step_id, m["stage"], agent=m["agent"], index=int(m["index"]))
    raise ValueError(f"not a step id: {step_id!r}")


def answer(agent: str) -> str:
    return f"r1.answer.{agent}"


def critique(round_no: int, critic: str, target: str) -> str:
    return f"r{round_no}.critique.{critic}.{target}"


def revise(round_no: int, agent: str) -> str:
    return f"r{round_no}.revise.{agent}"


def turn(round_no: int, persona: str) -> str:
    return f"r{round_no}.turn.{persona}"


def hypotheses(round_no: int, reasoner: str) -> str:
    return f"r{round_no}.hypotheses.{reasoner}"


def judge(round_no: int) -> str:
    return f"r{round_no}.judge"


def thesis() -> str:
    return "r1.thesis.generator"


def antithesis(round_no: int, critic: str = "critic") -> str:
    return f"r{round_no}.antithesis.{critic}"


def synthesis(round_no: int, synthesizer: str = "synthesizer") -> str:
    return f"r{round_no}.synthesis.{synthesizer}"


def arbitrate(index: int, arbiter: str = "arbiter") -> str:
    return f"c{index}.arbitrate.{arbiter}"


def final(role: str) -> str:
    return f"final.{role}"
