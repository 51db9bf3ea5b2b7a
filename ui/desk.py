"""The reviewer's desk: the verdict card, the verdict's details, and claims and passages one click away.

The card answers the question in one sentence, then gives the confidence, the moderator's outcome
and the review state as two badges, and why the debate is flagged, in plain words. Everything the
verdict stands on (supporting and disputed points, escalation reasons in full) is shown once, in
the card's expanders, each point linked to its claims. Untrusted text goes through `md_escape` or
`st.text`.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.present import citations, formatting, glossary, views

esc = formatting.md_escape


# ---------------------------------------------------------------------------
# Claims and passages, one click away
# ---------------------------------------------------------------------------


def evidence_popover(case: dict[str, Any] | None, eid: str, key: str) -> None:
    """An evidence id as a button that opens its passage as text."""
    passage = views.evidence_index(case).get(eid)
    with st.popover(eid if passage else f"{eid} (not in the case)", key=key):
        if passage is None:
            st.markdown(f"**{esc(eid)}** is not a passage of this case: the citation is unverified.")
            return
        st.markdown(f"**{esc(eid)}** · {esc(citations.where(passage))}")
        st.text(passage.get("text") or "")


def claim_body(claim: dict[str, Any] | None, ref: str, case: dict[str, Any] | None,
               names: dict[str, str]) -> None:
    """A claim's full text with its author and the passages it cites (inside a popover or a card)."""
    if claim is None:
        st.caption(f"Claim {ref} is not among the stored claims.")
        return
    st.markdown(f"**{esc(glossary.agent(claim.get('agent'), names))}, claim {esc(claim.get('claim_id'))}** "
                f"(round {esc(claim.get('round'))}, confidence {formatting.pct(claim.get('confidence'))})")
    st.text(claim.get("statement") or "")
    index = views.evidence_index(case)
    for eid in claim.get("evidence") or []:
        passage = index.get(eid)
        if passage is None:
            st.markdown(f":red[**{esc(eid)}**: not a passage of this case (unverified)]")
        else:
            st.markdown(f"**{esc(eid)}** · {esc(citations.where(passage))}")
            st.text(passage.get("text") or "")


def claim_popover(ref: str, claims: dict[str, dict[str, Any]], case: dict[str, Any] | None,
                  names: dict[str, str], key: str) -> None:
    agent_id, _, cid = ref.partition(".")
    label = f"{glossary.agent(agent_id, names)} {cid}" if cid else ref
    with st.popover(label, key=key):
        claim_body(claims.get(ref), ref, case, names)


# ---------------------------------------------------------------------------
# The verdict card
# ---------------------------------------------------------------------------


CARD_REASONS = 2  # why-flagged sentences on the card itself


def verdict_card(debate: dict[str, Any], claims: list[dict[str, Any]], names: dict[str, str]) -> None:
    """The top of a finished debate: one sentence, confidence, two badges, why it is flagged; then
    (in expanders, shown nowhere else) the points the verdict stands on and the escalation reasons."""
    verdict = debate.get("verdict") or {}
    with st.container(border=True, key="verdict-card"):
        if not verdict:
            st.markdown("**The moderator gave no verdict.**")
            st.caption(f"Debate {esc(formatting.display_status(debate))}.")
            return
        st.markdown(f"**{esc(views.short_answer(debate))}**")
        out_label, out_color = views.outcome(debate)
        rev_label, rev_color = views.review_badge(debate)
        # One line, in the card's order: the confidence, then the moderator's outcome and the review
        # state (their words say which is which; one line keeps the decision in the first screen).
        st.markdown(f"Confidence **{formatting.pct(verdict.get('confidence'))}** · "
                    f":{out_color}-badge[{out_label}] · :{rev_color}-badge[{rev_label}]")
        reasons = glossary.why_flagged(debate.get("protocol"), verdict, names)
        if reasons:
            # The first screen holds the card and the decision: the first reasons here, every one in Grounds.
            shown = reasons[:CARD_REASONS]
            more = len(reasons) - len(shown)
            st.markdown("**Why it is flagged**\n" + "\n".join(f"- {esc(r)}" for r in shown)
                        + (f"\n- and {more} more (under Grounds)" if more else ""))
        answer = debate.get("final_answer")
        if answer and answer != verdict.get("answer"):
            st.markdown("**Answer after review**")
            st.text(answer)
        supporting, disputed = views.verdict_points(debate)
        full = verdict.get("escalation_reasons") or []
        if supporting or disputed or full:
            counts = " · ".join(x for x in (f"{len(supporting)} supporting" if supporting else "",
                                            f"{len(disputed)} disputed" if disputed else "",
                                            f"{len(full)} reason(s) to escalate" if full else "") if x)
            with st.expander(f"Grounds: {counts}"):
                _points(debate, claims, names, supporting, disputed)
                if full:
                    st.markdown("**Escalation reasons in full**\n"
                                + "\n".join(f"- {esc(glossary.reason(r, names))}" for r in full))


def _points(debate: dict[str, Any], claims: list[dict[str, Any]], names: dict[str, str],
            supporting: list[dict[str, Any]], disputed: list[dict[str, Any]]) -> None:
    index = views.claim_index(claims)
    case = debate.get("case")
    for title, points, tag in (("Supporting points", supporting, "s"), ("Disputed points", disputed, "d")):
        if not points:
            continue
        st.markdown(f"**{title}**")
        with st.container():
            for i, p in enumerate(points):
                mark = "" if p.get("supported", True) else " *(no verified evidence)*"
                st.markdown(f"- {esc(p['text'])}{mark}")
                for ref in p["refs"]:
                    claim_popover(ref, index, case, names, key=f"pt-{tag}-{i}-{ref}")


def details(debate: dict[str, Any], names: dict[str, str]) -> None:
    """The verdict's details (the card has the answer): the moderator's full answer, the rules it
    applied in words, the convergence checks and the rationale."""
    verdict = debate.get("verdict")
    if not verdict:
        st.info("The moderator gives its verdict when the debate ends." if debate.get("status") == "running"
                else "This debate has no verdict.")
        return
    protocol = debate.get("protocol")
    st.markdown("**The moderator's full answer**")
    st.text(verdict.get("answer") or "")
    rules = verdict.get("applied_rules") or []
    if rules:
        st.markdown("**Rules the moderator applied**")
        for code in rules:
            st.markdown(f"- {esc(glossary.rule(protocol, str(code), names))}")
    criteria = (debate.get("summary") or {}).get("criteria") or (debate.get("result") or {}).get("criteria")
    if isinstance(criteria, dict) and criteria:
        st.markdown("**Convergence checks**")
        for name, ok in criteria.items():
            st.markdown(f"- {'✔ met' if ok else '✘ not met'}: {esc(glossary.criterion(protocol, str(name)))}")
    if verdict.get("rationale"):
        st.markdown("**Rationale**")
        st.text(str(verdict["rationale"]))
