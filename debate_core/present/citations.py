"""Where a cited passage comes from, in the words every view uses: "Constitution, page 3", or
"Runbook, section Part 2 > Restarts" for a document cut by headings, or the passage's source.

The desk, the exports and `show` all call `where`, so a citation reads the same everywhere.
"""

from __future__ import annotations

from typing import Any


def where(passage: dict[str, Any] | None) -> str:
    """The passage's document with its page or section; its source alone when it has neither."""
    if not passage:
        return ""
    document = str(passage.get("source") or passage.get("document") or "").strip()
    page, section = passage.get("page"), str(passage.get("section") or "").strip()
    if page not in (None, ""):
        return f"{document}, page {page}" if document else f"page {page}"
    if section:
        return f"{document}, section {section}" if document else f"section {section}"
    return document


def located(passage: dict[str, Any] | None) -> bool:
    """Whether the passage came from a document with pages or sections (core/documents)."""
    return bool(passage) and (passage.get("page") not in (None, "") or bool(passage.get("section")))


def cited(eid: str, index: dict[str, dict[str, Any]]) -> str:
    """An evidence id with where it comes from when a document says it, `statute-p3-2 (Statute,
    page 3)`; other ids as they are (a transcript marks an id the case does not hold on its own)."""
    passage = index.get(eid)
    return f"{eid} ({where(passage)})" if located(passage) else eid
