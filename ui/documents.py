"""Documents uploaded on the New debate page: read into passages (core/documents) and previewed.

`read_uploads` turns the uploaded files' names and bytes into a DocumentSet (kept for the page's
reruns, so a long PDF is read once); `preview` shows each document with its passage count and
first passages, as text, and how many passages were left out when the case could not hold them all.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from debate_core.core import documents
from debate_core.core.files import CASE_BYTES, FILE_BYTES, PASSAGES
from debate_core.present import citations, formatting

esc = formatting.md_escape
LEFT_OUT_SHOWN = 12  # ids of left-out passages listed before "and N more"


def uploader() -> list[Any]:
    return st.file_uploader(
        "…or upload documents (PDF, Word .docx, HTML, Markdown or text): each becomes passages cited by page "
        "or section", type=list(documents.SUPPORTED), accept_multiple_files=True, key="nd-documents") or []


@st.cache_data(max_entries=8, show_spinner="Reading the documents…")
def _read(files: tuple[tuple[str, bytes], ...], question: str, alongside: str,
          limits: tuple[str, ...]) -> documents.DocumentSet:
    # `limits` is part of the key only: a server whose bounds change reads the files again.
    del limits
    return documents.read_documents(list(files), question=question, alongside=json.loads(alongside))


def read_uploads(files: list[tuple[str, bytes]], question: str,
                 alongside: list[dict[str, Any]] | None = None) -> documents.DocumentSet:
    """The passages of the uploaded files for this question, within what the case still holds
    beside `alongside` (the passages pasted or uploaded as lines); DocumentError for a bad file."""
    limits = tuple(f"{limit.env}={limit.value()}" for limit in (CASE_BYTES, PASSAGES, FILE_BYTES))
    beside = json.dumps(alongside or [], ensure_ascii=False, default=str)
    return _read(tuple(files), (question or "").strip(), beside, limits)


def preview(doc_set: documents.DocumentSet) -> None:
    """Each document with its passage count and first passages, and the selection when one was made."""
    for d in doc_set.documents:
        with st.container(border=True):
            kept = f", {d.kept} kept" if d.kept != len(d.passages) else ""
            named = f" · {esc(d.name)}" if d.name != d.title else ""
            st.markdown(f"**{esc(d.title)}**{named} ({esc(d.kind)}) · {len(d.passages)} passage(s){kept}")
            for p in d.first():
                st.caption(f"{esc(p['id'])} · {esc(citations.where(p))}")
                st.text(p["text"])
            if len(d.passages) > documents.PREVIEW_PASSAGES:
                st.caption(f"…and {len(d.passages) - documents.PREVIEW_PASSAGES} more passage(s).")
    if doc_set.left_out:
        shown = ", ".join(doc_set.left_out[:LEFT_OUT_SHOWN])
        more = len(doc_set.left_out) - LEFT_OUT_SHOWN
        st.info(f"{len(doc_set.passages)} of {doc_set.total} passages kept: the case holds no more, so the "
                f"ones most relevant to the question were kept (ranked with BM25). "
                f"{len(doc_set.left_out)} left out: {esc(shown)}" + (f" and {more} more." if more > 0 else "."))
