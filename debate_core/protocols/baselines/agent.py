"""The offline single agent of the baselines: the cross-critique answering agent, on its own.

It reads the case the way a debating agent answers in round 1 (the passages most relevant to the
question, its confidence capped by how much of the question they cover) and answers in the fields
of a verdict: the answer, the mean confidence of its claims, and what it could not assess. Being
rule-based it is deterministic, so the samples of a majority vote agree with each other.
"""

from __future__ import annotations

from typing import Any

from ...core.schemas import AgentOutput
from ...providers.offline.agents import handler_for, register


def _answer(payload: dict[str, Any]) -> dict[str, Any]:
    debating_answer = handler_for("cross_critique", "answer")  # the registry's, not an import of its agent
    assert debating_answer is not None
    out = AgentOutput.model_validate(debating_answer({"case": payload["case"], "agent": payload["agent"]}))
    confidences = [c.confidence for c in out.claims]
    # No claim means no passage to stand on: the agent cannot be confident of anything.
    confidence = round(sum(confidences) / len(confidences), 4) if confidences else 0.0
    cited = sorted({e for c in out.claims for e in c.evidence})
    rationale = "; ".join([f"from passages {', '.join(cited)}" if cited else "no passage cited", *out.uncertainties])
    return {"answer": out.answer, "confidence": confidence, "rationale": rationale}


register("single", "single")(_answer)
register("majority", "single")(_answer)
