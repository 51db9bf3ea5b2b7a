"""The bounds a document is held to, taken from the case's own (core/files.py), never parallel ones.

A document file is refused by its size before any library parses it (`FILE_BYTES`, the bound on
other files people name: a PDF's bytes are mostly fonts and images, so the case's 1 MB would refuse
ordinary reports). A DOCX is a zip: the sizes its entries declare unpacked are added up and held to
the same bound before python-docx opens it, so a zip bomb never inflates in memory (Python's zipfile
never unpacks an entry past the size it declares). The passages kept are held to the case's bounds:
`PASSAGES` and `CASE_BYTES`, the limits `parse_case` and `build_case` enforce.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from typing import Any

from ..files import CASE_BYTES, FILE_BYTES, PASSAGES, FileProblem, check_size, size_text
from .errors import DocumentError


def check_file_size(size: int, name: str) -> None:
    """Refuse a document over the file bound, by its size alone."""
    try:
        check_size(size, FILE_BYTES, name)
    except FileProblem as exc:
        raise DocumentError(str(exc)) from None


def check_unpacked_size(data: bytes, name: str) -> None:
    """Refuse a zip (a DOCX) whose entries declare more unpacked bytes than the file bound, or that
    is no zip at all."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(max(info.file_size, 0) for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError, OSError, EOFError):
        raise DocumentError(f"{name} is damaged or incomplete: it cannot be read as a Word document") from None
    try:
        cap = FILE_BYTES.value()
    except FileProblem as exc:
        raise DocumentError(str(exc)) from None
    if unpacked > cap:
        raise DocumentError(f"{name} unpacks to {size_text(unpacked)}, over the limit of {FILE_BYTES.describe(cap)} "
                            f"for a document ({FILE_BYTES.hint()}); it was not opened")


@dataclass(frozen=True)
class Budget:
    """What the passages taken from documents may use of a case: a count and bytes."""

    passages: int
    size: int

    def fits(self, count: int, size: int) -> bool:
        return count <= self.passages and size <= self.size


def passage_size(passage: dict[str, Any]) -> int:
    """The bytes a passage adds to the case as `build_case` measures it (its JSON, and a separator)."""
    return len(json.dumps(passage, ensure_ascii=False, default=str).encode("utf-8")) + 2


def case_budget(question: str, max_passages: int | None, alongside: list[dict[str, Any]] | None = None) -> Budget:
    """The room left in a case for document passages: the case's passage and byte bounds (or
    `max_passages`, when lower), less the question and any passages already in the case."""
    alongside = alongside or []
    try:
        count, size = PASSAGES.value(), CASE_BYTES.value()
    except FileProblem as exc:
        raise DocumentError(str(exc)) from None
    if max_passages is not None:
        if max_passages < 1:
            raise DocumentError(f"the number of passages to keep must be at least 1, got {max_passages}")
        count = min(count, max_passages)
    used = len(json.dumps([question, []], ensure_ascii=False).encode("utf-8"))
    used += sum(passage_size(p) for p in alongside)
    return Budget(passages=max(count - len(alongside), 0), size=max(size - used, 0))
