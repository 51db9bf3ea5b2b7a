"""Arbitration's table for the app: each contradiction with its ruling."""

from __future__ import annotations

import re
from typing import Any

from ...core.steps import outputs_by_stage


def contradiction_rows(debate: dict[str, Any], steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Arbitration: each contradiction with its arbiter's resolution (by contradiction number)."""
    result = debate.get("result") or {}
    described: dict[int, dict[str, Any]] = {}
    for i, c in enumerate(result.get("contradictions") or [], start=1):
        if isinstance(c, dict):
            described[int(c.get("index") or i)] = c
    rows = []
    for s in outputs_by_stage(steps, "arbitrate"):
        m = re.match(r"^c(\d+)\.", s["step_id"])
        idx = int(m.group(1)) if m else 0
        out = s["output"]
        c = described.get(idx, {})
        rows.append({
            "contradiction": idx,
            "metric": c.get("metric_name") or c.get("metric"),
            "severity": c.get("severity"),
            "agent1": _finding(c, "agent1"),
            "agent2": _finding(c, "agent2"),
            "why": "; ".join(str(r) for r in c.get("reasons") or []),
            "resolution": out.get("resolution"), "action": out.get("action"),
            "recommended_value": None if out.get("recommended_value") is None else str(out.get("recommended_value")),
            "recommended_citation": out.get("recommended_citation"),
            "confidence": out.get("confidence"), "explanation": out.get("explanation"),
        })
    rows.sort(key=lambda r: r["contradiction"])
    return rows


def _finding(c: dict[str, Any], who: str) -> str:
    """One side of a contradiction as 'agent: value unit (citation)', from the flat fields the contradiction-arbitration source protocol uses."""
    name = c.get(f"{who}_name")
    if name is None:
        return ""
    value = c.get(f"{who}_value")
    unit = c.get(f"{who}_unit") or ""
    text = f"{name}: {'' if value is None else value}{unit if unit == '%' else ' ' + unit}".rstrip()
    cite = c.get(f"{who}_citation") or c.get(f"{who}_source")
    return f"{text} ({cite})" if cite else text
