"""Who ran a debate, in words: the process that started it, or the queue's workers that took it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

WAITING = ("Waiting for a worker: this debate is queued and starts when a worker takes it "
           "(the app's own worker, or python -m debate_core worker on another machine).")


def workers_of(events: Sequence[dict[str, Any]]) -> list[str]:
    """The queue workers that took the debate, in order (one name per time a worker took it)."""
    return [str((ev.get("data") or {}).get("worker") or "a worker") for ev in events
            if ev.get("kind") == "run_claimed"]


def runner_note(debate: dict[str, Any], events: Sequence[dict[str, Any]]) -> str | None:
    """One sentence on where the debate runs or ran; None for a debate run in one process as usual."""
    runner = (debate.get("settings") or {}).get("runner") or {}
    workers = workers_of(events)
    if not workers:
        return WAITING if runner.get("queue") and debate.get("status") == "running" else None
    if len(workers) == 1:
        doing = "Running on" if debate.get("status") == "running" else "Run by"
        return f"{doing} worker {workers[0]}."
    earlier = ", then ".join(workers[:-1])
    return (f"Run by worker {earlier}, then {workers[-1]}: a worker that stopped left the debate to the next, "
            "which went on from the stored steps without running them again.")
