"""How cross_critique's steps and its end state look in the app (registered in ui/stages.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import streamlit as st

from debate_core.present import formatting, glossary
from debate_core.protocols.cross_critique.rows import STATE_LABELS
from ui.stages import esc, final_answer, protocol_view, step_renderer, table_height

OPEN, RESOLVED = "open", "resolved"  # the ledger's state codes, as STATE_LABELS keys them


@step_renderer("cross_critique", "answer", "revise")
def _agent_answer(out: dict[str, Any]) -> None:
    st.markdown(esc(out.get("answer")))
    st.caption(f"{len(out.get('claims') or [])} claim(s), {len(out.get('uncertainties') or [])} uncertainty(ies)")


@step_renderer("cross_critique", "critique")
def _critique(out: dict[str, Any]) -> None:
    counts = {s: 0 for s in formatting.SEVERITY_COLORS}
    for c in out.get("critiques") or []:
        counts[c.get("severity")] = counts.get(c.get("severity"), 0) + 1
    st.markdown(_severity_badges(counts) or "no new critiques")
    for r in out.get("previous") or []:
        st.markdown(f"- earlier {esc(r.get('id'))}: **{esc(r.get('status'))}** {esc(r.get('note'))}")


step_renderer("cross_critique", "supervisor")(final_answer)


@protocol_view("cross_critique")
def _cross_critique_view(debate: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
    """The state the debate ended in: how many critiques stand in each state, and the critiques still
    open (the agreed and disputed claims are the verdict card's supporting and disputed points)."""
    summary = debate.get("summary") or {}
    if not (summary.get("critique_states") or summary.get("conflicts")):
        return False
    counts, rows = end_state(summary, debate.get("agent_names") or {})
    st.subheader("Critiques at the end of the debate", anchor=False)
    cols = st.columns(len(counts))
    for col, (label, n, help_text) in zip(cols, counts, strict=True):
        col.metric(label, n, help=help_text)
    if rows:
        st.markdown("**Still open**")
        st.dataframe(rows, hide_index=True, height=table_height(len(rows)), column_config={
            "critique": st.column_config.TextColumn("critique", width="large")})
    else:
        st.caption("No critique is still open.")
    return True


STILL_OPEN_HELP = "every critique not resolved: open, addressed but not confirmed by its critic, or maintained"


def end_state(summary: dict[str, Any], names: dict[str, str]) -> tuple[list[tuple[str, int, str]], list[dict[str, Any]]]:
    """The counts above the table and the rows of the "Still open" table, from one list (the
    critiques the debate ended with unresolved): the counts are those rows counted by state, so the
    two cannot disagree. Resolved critiques are not in the table; their count is the summary's."""
    rows = [{
        "critic": glossary.agent(c.get("critic"), names), "claim of": glossary.agent(c.get("target"), names),
        "claim": str(c.get("claim") or "").partition(".")[2], "round": c.get("round"),
        "state": STATE_LABELS.get(c.get("state") or OPEN, formatting.plain_code(c.get("state"))),
        "severity": c.get("severity"), "issue": glossary.plain(c.get("issue_type")),
        "critique": c.get("description") or "", "critic's note": c.get("critic_note") or "",
    } for c in summary.get("conflicts") or []]
    by_state = Counter(r["state"] for r in rows)
    counts = [("still open", len(rows), STILL_OPEN_HELP)]
    counts += [(label, n, f"of the {len(rows)} still open") for label, n in by_state.items()]
    counts.append((STATE_LABELS[RESOLVED], int((summary.get("critique_states") or {}).get(RESOLVED) or 0),
                   "closed by the critic, by an edit, or by a reviewer"))
    return counts, rows


def _severity_badges(counts: dict[str, int]) -> str:
    return " ".join(f":{formatting.SEVERITY_COLORS[s]}-badge[{s} {n}]" for s, n in counts.items() if n)
