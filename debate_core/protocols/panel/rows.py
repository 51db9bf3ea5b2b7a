"""The panel's table for the app: one row per persona turn."""

from __future__ import annotations

from typing import Any

from ...core.steps import outputs_by_stage


def persona_rows(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Panel: one row per turn with the persona's stance taken from its step, not from the model."""
    rows = []
    for s in outputs_by_stage(steps, "turn"):
        out = s["output"]
        rows.append({"round": s.get("round"), "persona": s.get("agent"), "stance": out.get("stance") or "",
                     "key_points": list(out.get("key_points") or []), "message": out.get("message") or "",
                     "planning": out.get("planning") or "", "reflection": out.get("reflection") or ""})
    return rows
