"""Typed events the engine emits while a debate runs.

The store persists each event as it happens, so a crash loses at most the call in flight and a
live page only has to read the store. Events are plain data: a kind, an optional step id and a
JSON-serialisable payload.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

EventKind = Literal[
    "debate_started",
    "turn_started",
    "turn_progress",
    "turn_finished",
    "turn_failed",
    "round_closed",
    "warning",
    "converged",
    "escalated",
    "completed",
    "failed",
    "paused",
    "stopped",
    "continued",
    "intervention",
    "run_claimed",
]


@dataclass(frozen=True)
class Event:
    kind: EventKind
    step_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    ts: float = field(default_factory=time.time)


# Progress of a streaming reply: frequent and superseded by the next one, so the store keeps only the
# latest on the step's row instead of appending each to the event log.
TRANSIENT_EVENTS = frozenset({"turn_progress"})


class EventSink:
    """Receives events. The store is the real sink; tests and benchmarks may use MemorySink."""

    def record(self, debate_id: str, event: Event) -> None:  # pragma: no cover - interface
        raise NotImplementedError


class MemorySink(EventSink):
    def __init__(self) -> None:
        self.events: list[tuple[str, Event]] = []

    def record(self, debate_id: str, event: Event) -> None:
        self.events.append((debate_id, event))

    def kinds(self) -> list[str]:
        return [e.kind for _, e in self.events]
