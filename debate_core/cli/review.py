"""Review commands: review (accept, override, escalate, approve, undo) and annotate."""

from __future__ import annotations

import argparse

from ..core.annotation_rules import AnnotationError
from ..core.review_rules import ReviewConflict, ReviewError
from .common import EXIT_OK, BadInput, _store


def cmd_review(args: argparse.Namespace) -> int:
    store = _store(args.db)
    try:
        entry = store.review(args.id, action=args.action, reviewer=args.reviewer, answer=args.answer,
                             reason=args.reason, supervisor=args.supervisor)
    except KeyError as exc:
        raise BadInput(str(exc.args[0])) from exc
    except (ReviewError, ReviewConflict) as exc:
        raise BadInput(str(exc)) from exc
    print(f"{args.id}: {entry['state_before']} -> {entry['state_after']} by {entry['reviewer']}")
    return EXIT_OK


def cmd_annotate(args: argparse.Namespace) -> int:
    kind, ref = ("claim", args.claim) if args.claim is not None else ("critique", args.critique)
    store = _store(args.db)
    try:
        entry = store.annotate(args.id, kind=kind, ref=ref, label=args.label, reviewer=args.reviewer,
                               severity=args.severity, comment=args.comment)
    except KeyError as exc:
        raise BadInput(str(exc.args[0])) from exc
    except AnnotationError as exc:
        raise BadInput(str(exc)) from exc
    severity = f", severity {entry['severity']}" if entry["severity"] else ""
    print(f"{args.id}: {kind} {entry['ref']} marked {entry['label']}{severity} by {entry['reviewer']}")
    return EXIT_OK
