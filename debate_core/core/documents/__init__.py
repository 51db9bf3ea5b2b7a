"""Documents experts already have (PDF, Word, HTML, Markdown, text) as cited passages of a case.

`read_documents(files, question=..., max_passages=...)` reads each file with its format's library,
cuts it into passages with stable ids and where each comes from (`page` for a PDF, `section` for
the others, `document` the file name), and, when they are more than the case holds, keeps the ones
most relevant to the question (select.py). Every problem is a DocumentError: one line, nothing kept.
The formats, libraries and bounds are described in docs/documents.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cases import parse_case
from ..files import FILE_BYTES, FileProblem, read_bytes_capped
from ..inputs import build_case
from ..schemas import Case
from . import markdown_text, pdf, plain, webpage, word
from .bounds import case_budget, check_file_size
from .errors import DocumentError
from .passages import Parsed, slug, to_passages
from .select import select

__all__ = ["DocumentError", "Document", "DocumentSet", "read_documents", "read_document", "selection_note",
           "with_selection", "SUPPORTED", "SUPPORTED_TEXT", "NO_TEXT"]

NO_TEXT = pdf.NO_TEXT
READERS: dict[str, Callable[[bytes, str], Parsed]] = {
    ".pdf": pdf.read, ".docx": word.read, ".html": webpage.read, ".htm": webpage.read,
    ".md": markdown_text.read, ".markdown": markdown_text.read, ".txt": plain.read,
}
SUPPORTED = tuple(ext.lstrip(".") for ext in READERS)
SUPPORTED_TEXT = "PDF (.pdf), Word (.docx), HTML (.html, .htm), Markdown (.md) and text (.txt)"
# The case field that records a selection, so every protocol, the store and the exports carry it.
SELECTION_FIELD = "evidence_selection"
PREVIEW_PASSAGES = 3


@dataclass
class Document:
    """One file read: its name, format, the title its passages cite, and all its passages."""

    name: str
    kind: str
    title: str
    passages: list[dict[str, Any]]
    kept: int = 0

    def first(self, n: int = PREVIEW_PASSAGES) -> list[dict[str, Any]]:
        return self.passages[:n]


@dataclass
class DocumentSet:
    """The documents read for one question, the passages the case keeps and the ids left out."""

    question: str
    documents: list[Document] = field(default_factory=list)
    passages: list[dict[str, Any]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(len(d.passages) for d in self.documents)

    @property
    def selection(self) -> dict[str, Any] | None:
        """`{"kept": N, "of": M, "left_out": [ids]}` when passages were left out, else None."""
        if not self.left_out:
            return None
        return {"kept": len(self.passages), "of": self.total, "left_out": list(self.left_out)}

    def case(self, *, title: str | None = None, alongside: Sequence[dict[str, Any]] = (),
             domain_hint: str | None = None) -> Case:
        """The case of the question with these passages (after any `alongside`), its selection recorded."""
        built = build_case(self.question, [*alongside, *self.passages], title=title, domain_hint=domain_hint)
        return with_selection(built, self.selection)


def with_selection(case: Case, selection: dict[str, Any] | None) -> Case:
    """`case` recording which passages were kept (the `evidence_selection` field) when some were left out."""
    if not selection:
        return case
    return parse_case({**case.model_dump(exclude_none=True), SELECTION_FIELD: selection}, "your case")


def selection_note(case: Case | dict[str, Any] | None) -> str | None:
    """The note a debate on a selected case carries with its verdict; None when nothing was left out."""
    data = case if isinstance(case, dict) else ((case.model_extra or {}) if case is not None else {})
    chosen = data.get(SELECTION_FIELD)
    if not isinstance(chosen, dict) or not chosen.get("of"):
        return None
    return (f"evidence was selected: {chosen.get('kept')} of {chosen.get('of')} passages, ranked by relevance "
            "to the question")


def read_document(name: str, data: bytes, *, prefix: str | None = None) -> Document:
    """One file's bytes as passages. `name` is the file name shown to the reader; the size is
    checked before anything parses the bytes."""
    ext = os.path.splitext(name)[1].lower()
    reader = READERS.get(ext)
    if reader is None:
        kind = f"{ext} files are" if ext else "a file without an extension is"
        raise DocumentError(f"{name}: {kind} not supported; the supported types are {SUPPORTED_TEXT}")
    check_file_size(len(data), name)
    parsed = reader(data, name)
    source = parsed.title or name
    passages = to_passages(parsed, prefix=prefix or slug(Path(name).stem), source=source, document=name)
    if not passages:
        raise DocumentError(f"{name} has no text to cite")
    return Document(name=name, kind=parsed.kind, title=source, passages=passages)


def load(path: str | os.PathLike[str]) -> tuple[str, bytes]:
    """A document file's name and bytes, refused by its size (and kind: a directory, a device) before it is read."""
    try:
        data = read_bytes_capped(path, "the document", FILE_BYTES)
    except FileProblem as exc:
        raise DocumentError(str(exc)) from None
    return Path(path).name, data


def read_documents(files: Iterable[str | os.PathLike[str] | tuple[str, bytes]], *, question: str,
                   max_passages: int | None = None,
                   alongside: Sequence[dict[str, Any]] = ()) -> DocumentSet:
    """Read every file (a path, or a name and its bytes) and keep what the case can hold.

    The passages kept are at most `max_passages`, and within the case's bounds once `alongside`
    (passages already in the case, such as pasted ones) is counted; when more were found, BM25
    against `question` decides which stay, in document order."""
    question = (question or "").strip()
    documents: list[Document] = []
    prefixes: set[str] = set()
    ids = {str(p.get("id")) for p in alongside}
    for item in files:
        name, data = item if isinstance(item, tuple) else load(item)
        prefix = base = slug(Path(name).stem)
        n = 1
        while prefix in prefixes:  # two files with the same stem: report.pdf and report.docx
            n += 1
            prefix = f"{base}-{n}"
        prefixes.add(prefix)
        document = read_document(name, data, prefix=prefix)
        clash = next((p["id"] for p in document.passages if p["id"] in ids), None)
        if clash:
            raise DocumentError(f"{name}: the passage id {clash} is already used by another passage; "
                                "rename the file or that passage")
        documents.append(document)
    if not documents:
        raise DocumentError("give at least one document")
    everything = [p for d in documents for p in d.passages]
    kept, left_out = select(everything, question, case_budget(question, max_passages, list(alongside)))
    kept_ids = {p["id"] for p in kept}
    for d in documents:
        d.kept = sum(p["id"] in kept_ids for p in d.passages)
    if not kept:
        raise DocumentError("the case has no room left for any passage of these documents")
    return DocumentSet(question=question, documents=documents, passages=kept, left_out=left_out)
