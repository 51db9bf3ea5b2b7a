"""Labels, colours and text formatting shared by the pages (no Streamlit, no SQL).

A debate's status and review state as words and badge colours, the provider's label, markdown
escaping for untrusted text, numbers and percentages, internal codes as plain words, and a word
diff as markdown.
"""

from __future__ import annotations

import re
from typing import Any

# ---------------------------------------------------------------------------
# Labels and colours
# ---------------------------------------------------------------------------

OFFLINE_LABEL = "offline (rule-based agents, no model)"

# The moderator's outcome (or, before there is one, where the run stands). The review state is a
# separate field with its own words (REVIEW_STATE_LABELS): "escalated" is only ever a reviewer's act.
FLAGGED = "flagged for a human"
NOT_CONVERGED = "not converged"
STATUS_COLORS = {
    "running": "blue",
    "converged": "green",
    NOT_CONVERGED: "gray",
    FLAGGED: "orange",
    "failed": "red",
    "paused": "violet",
    "stopped": "gray",
}
STATUS_HELP = {
    "running": "the debate is still running; this page refreshes by itself",
    "converged": "the agents converged; the moderator's verdict awaits review",
    NOT_CONVERGED: "the debate ended without converging and without a rule sending it to a human",
    FLAGGED: "the moderator's rules flagged this debate for human review",
    "failed": "the debate stopped with an error; every completed step is kept",
    "paused": "the debate is paused for review: add critiques or evidence, then continue it",
    "stopped": "a reviewer stopped the debate before its verdict; every step so far is kept, and it can be forked",
}
SEVERITY_COLORS = {"CRITICAL": "red", "MAJOR": "orange", "MINOR": "yellow"}
SEVERITY_HEX = {"CRITICAL": "#d62728", "MAJOR": "#ff7f0e", "MINOR": "#e0c200"}
REVIEW_STATE_LABELS = {
    "pending": "awaiting review",
    "accepted": "accepted",
    "overridden": "overridden",
    "escalated": "escalated to a supervisor",
    "approved": "approved by a supervisor",
    "settled": "settled by a supervisor",
}


def display_status(debate: dict[str, Any]) -> str:
    """The moderator's outcome: converged, flagged for a human, not converged; or, before there is
    one, running, paused, stopped or failed. The review state is shown apart (`review_label`)."""
    status = debate.get("status")
    if status in ("running", "failed", "paused", "stopped"):
        return status
    if debate.get("needs_human_review"):
        return FLAGGED
    if debate.get("converged"):
        return "converged"
    return NOT_CONVERGED


def review_label(state: str | None) -> str:
    """The review state in words: awaiting review, accepted, overridden, escalated to a supervisor,
    approved by a supervisor, settled by a supervisor."""
    return REVIEW_STATE_LABELS.get(state or "pending", state or "")


def provider_label(config: dict[str, Any] | None) -> str:
    config = config or {}
    name = config.get("provider") or "offline"
    if name == "offline":
        return OFFLINE_LABEL
    if name == "replay":
        return "replay (recorded cassette)"
    where = f" at {config['base_url']}" if config.get("base_url") else ""
    return f"openai-compatible model {config.get('model') or '?'}{where}"


# ---------------------------------------------------------------------------
# Text: markdown escaping, numbers, internal codes as words, word diffs
# ---------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=&\"'^])")


def md_escape(text: Any) -> str:
    """Make untrusted text display literally inside Streamlit markdown.

    Every markdown-significant ASCII punctuation character is backslash-escaped (CommonMark allows it
    for all of them), so HTML, links, images, colour directives and LaTeX in model or evidence text
    show as typed instead of being interpreted.
    """
    if text is None:
        return ""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def pct(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "–"
    return f"{value * 100:.{digits}f}%"


def num(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "–"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def plain_code(code: Any) -> str:
    """An internal code such as `use_agent1` or `both_valid`, as words: 'use agent 1', 'both valid'."""
    if code is None:
        return ""
    text = re.sub(r"(?<=[a-z])(?=\d)", " ", str(code))
    return text.replace("_", " ").replace("->", " to ").strip()


def plain_fields(data: Any) -> str:
    """A small mapping or list as readable text ('CRITICAL 2, MAJOR 1'), never a Python repr."""
    if isinstance(data, dict):
        return ", ".join(f"{plain_code(k)} {plain_fields(v)}" for k, v in data.items() if v not in (None, "", [], {}))
    if isinstance(data, list | tuple):
        return "; ".join(plain_fields(v) for v in data)
    if isinstance(data, float):
        return num(data, 2)
    return "" if data is None else str(data)


def claim_line(row: Any) -> str:
    """A claim from a debate summary ('nla.C1: statement'), whether stored as a row or as a reference."""
    if not isinstance(row, dict):
        return str(row)
    ref = row.get("ref") or row.get("claim") or ""
    text = row.get("statement") or ""
    mark = "" if row.get("supported", True) else " (no verified evidence)"
    return f"{ref}: {text}{mark}" if ref else f"{text}{mark}"


def diff_markdown(diff: list[tuple[str, str]]) -> str:
    """Markdown for a word diff: removals struck through in red, additions in green, text escaped."""
    parts = []
    for op, text in diff:
        esc = md_escape(text)
        if op == "-":
            parts.append(f":red[~~{esc}~~]")
        elif op == "+":
            parts.append(f":green[**{esc}**]")
        else:
            parts.append(esc)
    return " ".join(parts)
