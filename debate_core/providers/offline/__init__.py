"""Offline provider: deterministic rule-based agents that read the case's evidence. No network.

Each protocol registers its rule-based agents by stage in `debate_core.providers.offline.agents`; this provider
looks the handler up, calls it with the step's structured payload and passes the JSON it returns
through the same validation path as a real model's reply. The agents write to the same form a
model is held to: text longer than a field allows is cut at a sentence end (core/bounds.py).
"""

from __future__ import annotations

import json

from ...core.bounds import fit_to_bounds
from ..base import Provider, RawReply, StepFailed, StepRequest
from .agents import handler_for


class OfflineProvider(Provider):
    name = "offline"
    label = "offline (rule-based agents, no model)"

    def __init__(self, *, latency_ms: float = 0.0) -> None:
        super().__init__(max_attempts=1, latency_ms=latency_ms, model="offline-rules")

    async def _reply(self, req: StepRequest, messages: list[dict[str, str]], attempt: int) -> RawReply:
        handler = handler_for(req.protocol, req.stage)
        if handler is None:
            raise StepFailed(req.step_id, f"no offline agent for {req.protocol}/{req.stage}")
        data = fit_to_bounds(handler(req.payload), req.output_model)
        return RawReply(text=json.dumps(data, ensure_ascii=False), data=data)
