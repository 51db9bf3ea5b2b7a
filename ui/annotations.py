"""Reviewers' marks on single claims and critiques, below the Claims and Critiques tabs.

Every mark is listed with the claim's statement or the critique's text beside it, so a later reader
sees what was judged, by whom and when. The form writes through the store (which also adds a line
to the audit trail) and the page then shows the saved mark.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.core import annotation_rules as rules
from debate_core.present import formatting
from debate_core.store import NotFound, StoreError
from ui import common

esc = formatting.md_escape
KEEP = "as the critic said"


def _flash_key(debate_id: str, kind: str) -> str:
    return f"annotate-{kind}-{debate_id}"


def _field(debate_id: str, kind: str, name: str) -> str:
    return f"ann-{kind}-{name}-{debate_id}"


def _save(debate_id: str, kind: str, reviewer: str) -> None:
    """The form's callback: write the mark, and keep a message for the page that follows."""
    state = st.session_state
    ref = state.get(_field(debate_id, kind, "ref"))
    label = state.get(_field(debate_id, kind, "label"))
    severity = state.get(_field(debate_id, kind, "severity"))
    comment = state.get(_field(debate_id, kind, "comment")) or ""
    flash = _flash_key(debate_id, kind)
    if not reviewer:
        common.flash(flash, "error", "Enter your name in the sidebar first: every mark is recorded with its reviewer.")
        return
    if not ref or not label:
        common.flash(flash, "error", f"Choose a {kind} and a label.")
        return
    try:
        store = common.write_store()
        try:
            entry = store.annotate(debate_id, kind=kind, ref=ref, label=label, actor=common.actor(),
                                   severity=None if severity in (None, KEEP) else severity, comment=comment)
        finally:
            store.close()
    except (rules.AnnotationError, NotFound, StoreError) as exc:
        common.flash(flash, "error", f"Not saved: {esc(exc)}")
        return
    state.pop(_field(debate_id, kind, "comment"), None)
    common.flash(flash, "success", f"Saved: {esc(kind)} {esc(entry['ref'])} marked "
                 f"{esc(rules.LABEL_TEXT.get(entry['label'], entry['label']))} by {esc(entry['reviewer'])}; "
                 "added to the audit trail.")


def _claim_text(claims: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    return {(str(c.get("step_id")), str(c.get("claim_id"))): c.get("statement") or "" for c in claims}


def _critique_text(critiques: list[dict[str, Any]]) -> dict[tuple[str, str, int], str]:
    return {(str(k.get("step_id")), str(k.get("critique_id")), int(k.get("call") or 1)):
            f"{k.get('severity')} {k.get('issue_type')}: {k.get('description') or ''}" for k in critiques}


def mark_rows(marks: list[dict[str, Any]], texts: dict[Any, str], kind: str) -> list[dict[str, Any]]:
    """The marks of one kind, newest first, each with the text of what it judges."""
    rows = []
    for a in reversed(marks):
        if a.get("kind") != kind:
            continue
        key = ((a["step_id"], a["item_id"]) if kind == "claim" else (a["step_id"], a["item_id"], a["call"] or 1))
        row = {"time": (a.get("ts") or "")[:19].replace("T", " "), "reviewer": a.get("reviewer"), kind: a.get("ref"),
               "label": rules.LABEL_TEXT.get(a.get("label"), a.get("label"))}
        if kind == "critique":
            row["their severity"] = a.get("severity") or ""
            row["critic's severity"] = a.get("item_severity") or ""
        row.update({"comment": a.get("comment") or "", "text": texts.get(key, "")})
        rows.append(row)
    return rows


def _marks_table(debate: dict[str, Any], kind: str, texts: dict[Any, str]) -> None:
    rows = mark_rows(debate.get("annotations") or [], texts, kind)
    if not rows:
        st.caption(f"No {kind} has been marked yet.")
        return
    st.dataframe(rows, hide_index=True, key=f"ann-{kind}-table-{debate['id']}",
                 column_config={"text": st.column_config.TextColumn(f"{kind} text", width="large"),
                                "comment": st.column_config.TextColumn("comment", width="medium")})


def _form(debate: dict[str, Any], kind: str, targets: list[rules.Target], texts: dict[Any, str],
          reviewer: str) -> None:
    debate_id = debate["id"]
    options = {t.ref: t for t in targets}

    def label_of(ref: str) -> str:
        t = options[ref]
        key = (t.step_id, t.item_id) if kind == "claim" else (t.step_id, t.item_id, t.call)
        text = " ".join(texts.get(key, "").split())
        return f"{ref} · {text[:90]}{'…' if len(text) > 90 else ''}"

    if not common.may("annotate") and reviewer:
        st.info(common.refusal("annotate"))
        return
    if not reviewer:
        st.warning(f"Enter your name in the sidebar to mark a {kind}.")
    labels = rules.CLAIM_LABELS if kind == "claim" else rules.CRITIQUE_LABELS
    with st.form(f"ann-{kind}-form-{debate_id}", border=False):
        st.selectbox(kind.capitalize(), list(options), format_func=label_of, key=_field(debate_id, kind, "ref"))
        if kind == "critique":
            c1, c2 = st.columns(2)
            with c1:
                st.radio("Label", labels, format_func=rules.LABEL_TEXT.get, horizontal=True,
                         key=_field(debate_id, kind, "label"))
            c2.selectbox("Severity you would give (optional)", [KEEP, *rules.SEVERITIES],
                         key=_field(debate_id, kind, "severity"))
        else:
            st.radio("Label", labels, format_func=rules.LABEL_TEXT.get, horizontal=True,
                     key=_field(debate_id, kind, "label"))
        st.text_area("Comment (optional)", key=_field(debate_id, kind, "comment"), max_chars=rules.MAX_COMMENT,
                     placeholder="what is wrong or missing, with the evidence ids you rely on")
        st.form_submit_button(f"Save {kind} mark", key=f"ann-{kind}-submit-{debate_id}", disabled=not reviewer,
                              on_click=_save, args=(debate_id, kind, reviewer))


def _panel(debate: dict[str, Any], kind: str, targets: list[rules.Target], texts: dict[Any, str],
           reviewer: str) -> None:
    if not targets:
        return
    with st.container(border=True, key=f"ann-{kind}-panel"):
        st.markdown(f"**Reviewers' marks on {kind}s**")
        common.show_flash(_flash_key(debate["id"], kind))
        _marks_table(debate, kind, texts)
        with st.expander(f"Mark a {kind}", expanded=False):
            _form(debate, kind, targets, texts, reviewer)


def claim_panel(debate: dict[str, Any], claims: list[dict[str, Any]], reviewer: str) -> None:
    """Marks on claims (correct, incorrect, unsupported, needs a source) and a form to add one."""
    _panel(debate, "claim", rules.claim_targets(claims), _claim_text(claims), reviewer)


def critique_panel(debate: dict[str, Any], critiques: list[dict[str, Any]], reviewer: str) -> None:
    """Marks on critiques (valid or invalid, with the severity the reviewer would give) and a form to add one."""
    _panel(debate, "critique", rules.critique_targets(critiques), _critique_text(critiques), reviewer)
