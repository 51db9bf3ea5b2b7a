"""The export-labels command: reviewed debates written as labelled cases that `eval` reads as they are
(debate_core/evaluation/labels.py decides what each case's `expected` says). It only reads the
database."""

from __future__ import annotations

import argparse
import json
from datetime import datetime

from ..core.files import check_target, ensure_folder, write_text_atomic
from ..evaluation.labels import export_labels
from ..protocols import UnknownProtocol, get_spec
from ..store import StoreMissing
from .common import EXIT_OK, BadInput, _store


def _since(text: str | None) -> str | None:
    """A date (2026-11-01) or a date and time, as the store's timestamps begin; anything else is refused."""
    if not text:
        return None
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise BadInput(f"--since must be a date such as 2026-11-01, got {text!r}") from None
    return text.replace(" ", "T")


def cmd_export_labels(args: argparse.Namespace) -> int:
    if args.protocol:
        try:
            get_spec(args.protocol)
        except UnknownProtocol as exc:
            raise BadInput(str(exc)) from None
    since = _since(args.since)
    try:
        store = _store(args.db, writes=False)
    except StoreMissing:  # nothing stored yet, and a read creates no file
        records = []
    else:
        try:
            records = store.review_records(protocol=args.protocol, since=since)
        finally:
            store.close()
    export = export_labels(records)
    if export.cases:
        out = ensure_folder(args.dir, "the labelled cases")
        for name in export.cases:  # every target checked before the first file is written
            check_target(out / name, "a labelled case file")
        for name, case in export.cases.items():
            write_text_atomic(out / name, json.dumps(case, ensure_ascii=False, indent=2) + "\n", "a labelled case file")
    if args.json:
        print(json.dumps({"dir": str(args.dir), "files": sorted(export.cases), "decided": dict(export.decided),
                          "skipped": dict(export.skipped)}, ensure_ascii=False, indent=2))
        return EXIT_OK
    if export.cases:
        print(f"wrote {export.written()} to {args.dir}")
    else:
        print("no reviewed debate to export: nothing was written")
    if export.skipped:
        print(f"skipped {export.left_out()}")
    if export.cases:
        print(f"score a protocol against them with  python -m debate_core eval {args.dir} --protocol PROTOCOL")
    return EXIT_OK
