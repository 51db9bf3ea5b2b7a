"""`case new`: a case file from a question and documents; and the case `run --question --evidence` builds.

Documents become passages with core/documents (pages and sections kept); when they give more than
the case holds or `--max-passages` allows, the passages most relevant to the question are kept and
the count is said. Every problem is one line and exit 2, with nothing written.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..core.cases import CaseError, load_case
from ..core.documents import SELECTION_FIELD, DocumentSet, read_documents
from ..core.files import check_target, write_text_atomic
from ..core.schemas import Case
from .common import EXIT_OK, BadInput


def _documents(question: str, files: list[str], max_passages: int | None) -> DocumentSet:
    if not (question or "").strip():
        raise BadInput("--question is required: what the agents should decide")
    try:
        return read_documents(files, question=question, max_passages=max_passages)
    except CaseError as exc:
        raise BadInput(str(exc)) from None


def _said(documents: DocumentSet) -> None:
    """What was read, on stderr: a line per document, and the selection when one was made."""
    for d in documents.documents:
        print(f"{d.name}: {len(d.passages)} passage(s) ({d.kind}, cited as {d.title!r})", file=sys.stderr)
    if documents.left_out:
        print(f"kept the {len(documents.passages)} of {documents.total} passages most relevant to the question; "
              f"{len(documents.left_out)} left out", file=sys.stderr)


def cmd_case_new(args: argparse.Namespace) -> int:
    """Write a case file built from the question and the documents."""
    check_target(args.out, "the case file")
    documents = _documents(args.question, args.files, args.max_passages)
    try:
        case = documents.case(title=args.title)
    except CaseError as exc:
        raise BadInput(str(exc)) from None
    _said(documents)
    text = json.dumps(case.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False, indent=2) + "\n"
    write_text_atomic(args.out, text, "the case file")
    print(f"wrote {args.out}: {len(case.evidence)} passage(s) from {len(documents.documents)} document(s)")
    return EXIT_OK


def case_from_args(args: argparse.Namespace) -> Case:
    """The case of `run`/`submit`: a case file, or the question and documents given as --question
    and --evidence; exactly one of the two."""
    question, files = getattr(args, "question", None), getattr(args, "evidence", None) or []
    if args.case and (question is not None or files):
        raise BadInput("give either a case file or --question with --evidence documents, not both")
    if not args.case:
        if question is None and not files:
            raise BadInput("give a case file, or --question \"...\" with --evidence FILE...")
        if not files:
            raise BadInput("--question needs the documents it is about: --evidence FILE...")
        documents = _documents(question or "", files, getattr(args, "max_passages", None))
        if not getattr(args, "quiet", False):
            _said(documents)
        try:
            return documents.case(title=getattr(args, "title", None))
        except CaseError as exc:
            raise BadInput(str(exc)) from None
    if getattr(args, "max_passages", None) is not None or getattr(args, "title", None):
        raise BadInput("--max-passages and --title go with --question and --evidence, not with a case file")
    try:
        return load_case(args.case)
    except CaseError as exc:
        raise BadInput(str(exc)) from None


def selection_of(case: Case) -> dict[str, Any] | None:
    """The case's record of passages left out, for `run --json`."""
    chosen = (case.model_extra or {}).get(SELECTION_FIELD)
    return chosen if isinstance(chosen, dict) else None
