"""The settings common to every protocol, the error for one that cannot be used, and the agent-id rule.

Low in the import order on purpose: the runtime, the protocols, their validation and the agent
profiles all read these, and none of them has to import another to get them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# How a structured reply is asked of an OpenAI-compatible server, in the order they are tried.
METHODS = ("json_schema", "function_calling", "json_mode")

AGENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")  # an agent id: letters, digits, '_' and '-', at most 40


class SettingsError(ValueError):
    """A setting that cannot be used. The message is one line naming the key; nothing was saved."""


@dataclass
class DebateSettings:
    """Settings common to all protocols; protocol-specific ones go in `options`."""

    rounds: int | None = None  # None: the protocol's default
    agents: list[dict[str, Any]] | None = None  # None: the protocol's default agents
    concurrency: int = 8
    max_tokens_per_call: int | None = None
    max_total_tokens: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    pause_after_round: int | None = None  # pause for review once this round closes (steering.py)
    # Where max_total_tokens came from: "default" (a paid provider's default, budget.py) or "set".
    budget_source: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out = {
            "rounds": self.rounds,
            "agents": self.agents,
            "concurrency": self.concurrency,
            "max_tokens_per_call": self.max_tokens_per_call,
            "max_total_tokens": self.max_total_tokens,
            "options": self.options,
        }
        if self.pause_after_round is not None:
            out["pause_after_round"] = self.pause_after_round
        if self.budget_source is not None:
            out["budget_source"] = self.budget_source
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> DebateSettings:
        data = dict(data or {})
        return cls(
            rounds=data.get("rounds"),
            agents=data.get("agents"),
            concurrency=int(data.get("concurrency") or 8),
            max_tokens_per_call=data.get("max_tokens_per_call"),
            max_total_tokens=data.get("max_total_tokens"),
            options=dict(data.get("options") or {}),
            pause_after_round=data.get("pause_after_round"),
            budget_source=data.get("budget_source"),
        )
