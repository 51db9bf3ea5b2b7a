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


# Plain words for the correction log's stages and actions (the source's codes stay in the export).
STAGE_WORDS = {"validator": "Validator", "aspect_review": "Aspect review", "sentiment_review": "Sentiment review",
               "debate_override": "Debate override"}
ACTION_WORDS = {
    "FLIP_POLARITY": "correct the polarity", "DROP_ASPECT": "drop the aspect", "REVISE_SPAN": "rename the aspect",
    "revise_span": "rename the aspect", "drop": "drop", "add": "add", "maintain": "keep",
    "flip_polarity": "correct the polarity", "DEBATE_OVERRIDE": "follow the panel's stance",
}


def action_words(code: str) -> str:
    return ACTION_WORDS.get(code, code.replace("_", " ").lower())


def correction_rows(debate: dict[str, Any], steps: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Panel: every Stage2 correction and debate override in the order applied, in plain words:
    who asked, what, for which aspect, whether it was applied and what changed."""
    log = (debate.get("result") or {}).get("correction_applied_log") or []
    return [{"step": STAGE_WORDS.get(e.get("stage") or "", e.get("stage") or ""),
             "action": action_words(str(e.get("proposal_type") or "")),
             "aspect": e.get("target_aspect") or "",
             "applied": "yes" if e.get("applied") else "no",
             "what changed": str(e.get("reason") or "").replace("->", "→").replace("_", " "),
             "why": e.get("rationale") or ""} for e in log if isinstance(e, dict)]
