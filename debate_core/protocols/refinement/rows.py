"""Refinement's tables for the app: the judge's scores joined with the hypotheses they score, and the hypotheses."""

from __future__ import annotations

from typing import Any

from ...core.steps import outputs_by_stage


def judge_score_rows(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Refinement: every judge score joined with the hypothesis it scores (same round, same reasoner)."""
    hyps: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for s in outputs_by_stage(steps, "hypotheses"):
        hyps[(s.get("round") or 0, s.get("agent") or "")] = s["output"].get("hypotheses") or []
    rows = []
    for s in outputs_by_stage(steps, "judge"):
        rnd = s.get("round") or 0
        for sc in s["output"].get("scores") or []:
            reasoner = str(sc.get("reasoner") or "")
            idx = sc.get("index")
            listed = hyps.get((rnd, reasoner), [])
            hyp = listed[idx] if isinstance(idx, int) and 0 <= idx < len(listed) else {}
            rows.append({
                "round": rnd, "reasoner": reasoner, "index": idx, "score": sc.get("score"),
                "hypothesis": hyp.get("hypothesis", "(no such hypothesis)"), "category": hyp.get("category"),
                "confidence": hyp.get("confidence"),
                "strengths": "; ".join(sc.get("strengths") or []),
                "weaknesses": "; ".join(sc.get("weaknesses") or []),
                "feedback": sc.get("feedback") or "",
            })
    rows.sort(key=lambda r: (r["round"], -(r["score"] or 0)))
    return rows


def hypothesis_rows(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for s in outputs_by_stage(steps, "hypotheses"):
        for i, h in enumerate(s["output"].get("hypotheses") or []):
            rows.append({"round": s.get("round"), "reasoner": s.get("agent"), "index": i,
                         "hypothesis": h.get("hypothesis"), "category": h.get("category"),
                         "confidence": h.get("confidence"), "evidence": list(h.get("evidence") or []),
                         "changes_made": h.get("changes_made") or ""})
    return rows


def plot_thresholds(options: Any) -> dict[str, tuple[float, str]]:
    """The score-improvement line of the per-round plot: below it the scores have reached a plateau."""
    plateau = options.plateau_points
    return {"improvement": (float(plateau), f"plateau below {plateau:g} points")}
