"""The Analytics page's agreement section: how often reviewers kept the moderator's answer and how
often two people who decided the same debate agreed, per the debate's most severe critique, and
the decided debates as labelled cases to download (the files `export-labels` writes)."""

from __future__ import annotations

import io
import json
import zipfile

import streamlit as st

from debate_core.evaluation import labels
from debate_core.present import formatting
from ui import common

# Below this many decided debates a share per severity says little: a sentence replaces the table.
MIN_DECIDED = 5
SEVERITY_WORDS = {"CRITICAL": "critical", "MAJOR": "major", "MINOR": "minor", labels.NO_CRITIQUE: "no critique",
                  "all": "all decided debates"}


def labelled_zip(include_evaluations: bool) -> bytes:
    """The decided debates as labelled case files in one zip, read when the download is asked for."""
    store = common.read_store()
    try:
        export = labels.export_labels(store.review_records(include_evaluations=include_evaluations))
    finally:
        store.close()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, case in export.cases.items():
            zf.writestr(name, json.dumps(case, ensure_ascii=False, indent=2) + "\n")
    return buf.getvalue()


def _table(rows: list[dict]) -> list[dict]:
    return [{
        "most severe critique": SEVERITY_WORDS.get(r["severity"], r["severity"]),
        "decided debates": r["decided"],
        "moderator's answer kept": r["kept_moderator"],
        "reviewer and moderator agree": formatting.pct(r["moderator_agreement"]),
        "decided by two people": r["reviewer_pairs"],
        "the two agreed": r["reviewers_agreed"],
        "reviewers agree": formatting.pct(r["reviewer_agreement"]),
    } for r in rows]


def section(include_evaluations: bool) -> None:
    """Draw the section; it reads the review rows itself, without the wide case columns."""
    store = common.read_store()
    try:
        records = store.review_records(include_evaluations=include_evaluations, with_cases=False)
    finally:
        store.close()
    rows = labels.agreement(records)
    total = next(r for r in rows if r["severity"] == "all")
    st.subheader("Agreement on verdicts", anchor=False)
    if not total["decided"]:
        st.caption("No debate has been decided yet: once reviewers accept or override verdicts (and supervisors "
                   "decide the escalated ones), how often they kept the moderator's answer shows here.")
        return
    pairs = (f" {total['reviewer_pairs']} were decided by two people, who agreed in {total['reviewers_agreed']}."
             if total["reviewer_pairs"] else "")
    if total["decided"] < MIN_DECIDED:
        st.caption(f"Only {total['decided']} decided debate{'s' if total['decided'] != 1 else ''} so far: "
                   f"reviewers kept the moderator's answer in {total['kept_moderator']}.{pairs} The figures per "
                   f"critique severity show once {MIN_DECIDED} are decided.")
    else:
        st.dataframe(_table(rows), hide_index=True, key="a-agreement")
        st.caption("Kept: accepted, or approved by a supervisor; overridden and settled debates are the ones "
                   "where people disagreed with the moderator. Debates are grouped by the most severe critique "
                   "raised in them." + ("" if pairs else " No debate has been decided by two people yet; that "
                                        "happens when someone takes their decision back and another reviewer "
                                        "decides it."))
    st.download_button("Download the decided debates as labelled cases", data=lambda: labelled_zip(include_evaluations),
                       file_name="labelled_cases.zip", mime="application/zip", key="a-labels-download",
                       on_click="ignore",
                       help="One case file per decided debate, with the team's answer as 'expected': unzip "
                            "into a folder and score a protocol with  python -m debate_core eval FOLDER --protocol P")
