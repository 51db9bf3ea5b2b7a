"""Commands that only read the database: list, show, diff, export. They never create, migrate or
otherwise write it."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..core.files import check_target, write_text_atomic
from ..jobs.worker import find_interrupted, interruption_reason
from ..present import compare, formatting, runners
from ..present import export as exporter
from ..store import StoreMissing
from .common import EXIT_OK, BadInput, _price_table, _stale_after, _store


def _shown_interrupted(debate: dict[str, Any], reason: str | None) -> dict[str, Any]:
    """A running debate whose process is gone, shown as the app or `resume` will record it (failed,
    "interrupted: ..."). Read commands write nothing, so the stored row still says running."""
    if reason:
        debate.update(status="failed", error=f"interrupted: {reason}")
    return debate


def _interruption(debate: dict[str, Any], db: str | None) -> str | None:
    return interruption_reason(debate, stale_after=_stale_after(db))


def _listed(store: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The debates `list` prints, with running debates whose process is gone shown as interrupted;
    `--status` filters on the status shown."""
    dead = find_interrupted(store, stale_after=_stale_after(args.db))
    query = {"protocol": args.protocol, "review_state": args.review_state, "search": args.search,
             "include_evaluations": bool(getattr(args, "include_evaluations", False))}
    if not dead or args.status not in ("running", "failed"):
        rows = store.list_debates(status=args.status, limit=args.limit, **query)
    elif args.status == "running":
        rows = [r for r in store.list_debates(status="running", limit=args.limit + len(dead), **query)
                if r["id"] not in dead]
    else:
        rows = store.list_debates(status="failed", limit=args.limit, **query) + [
            r for r in store.list_debates(status="running", limit=10_000, **query) if r["id"] in dead]
        rows.sort(key=lambda r: (r["created_at"] or "", r["id"]), reverse=True)
    return [_shown_interrupted(r, dead.get(r["id"])) for r in rows[:max(args.limit, 0)]]


def cmd_list(args: argparse.Namespace) -> int:
    try:
        store = _store(args.db, writes=False)
    except StoreMissing:  # nothing stored yet, and a read creates no file
        rows = []
    else:
        rows = _listed(store, args)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    if not rows:
        print("no debates yet: run one with  python -m debate_core run data/cases/<case>.json --protocol cross_critique")
        return EXIT_OK
    for r in rows:
        # Two fields, as everywhere: the moderator's outcome, and the review state.
        outcome, review = formatting.display_status(r), formatting.review_label(r.get("review_state"))
        lineage = f"  (fork of {r['parent_id']} after round {r['fork_round']})" if r.get("parent_id") else ""
        if r.get("evaluation_id"):
            lineage += f"  (evaluation {r['evaluation_id']})"
        print(f"{r['id']}  {r['protocol']:<14} {outcome:<19} {review:<26} {r['title'][:60]}{lineage}")
    return EXIT_OK


def _reading(args: argparse.Namespace, debate_id: str) -> Any:
    """The read-only store of a command that reads the debate `debate_id`; no file means no debate."""
    try:
        return _store(args.db, writes=False)
    except StoreMissing as exc:
        raise BadInput(f"no debate with id {debate_id!r} ({exc})") from None


def cmd_show(args: argparse.Namespace) -> int:
    store = _reading(args, args.id)
    try:
        debate = store.get_debate(args.id)
    except KeyError as exc:
        raise BadInput(str(exc.args[0])) from exc
    _shown_interrupted(debate, _interruption(debate, args.db))
    events = store.events(args.id)
    if args.json:
        debate["provider_config"] = exporter.public_settings(debate["provider_config"])
        debate["workers"] = runners.workers_of(events)  # the queue workers that ran it, in order
        print(json.dumps(debate, ensure_ascii=False, indent=2, default=str))
    else:
        print(exporter.transcript_text(debate))
        note = runners.runner_note(debate, events)
        if note:
            print(f"\n{note}")
    return EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    """Compare two stored debates (debate_core/present/compare.py): text by default, the dict with --json."""
    store = _reading(args, args.a)
    sides = []
    for debate_id in (args.a, args.b):
        try:
            side = compare.load_debate(store, debate_id)
        except KeyError as exc:
            raise BadInput(str(exc.args[0])) from exc
        sides.append(_shown_interrupted(side, _interruption(side, args.db)))
    result = compare.compare(sides[0], sides[1], prices=_price_table(args.db))
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(compare.diff_text(result))
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    store = _store(args.db, writes=False)
    try:
        store.get_debate(args.id, with_steps=False)
    except KeyError as exc:
        raise BadInput(str(exc.args[0])) from exc
    if not args.dir and not args.cassette and not args.csv:
        raise BadInput("export needs --dir D, --cassette F or --csv F")
    files = exporter.export_files(store, args.id) if args.dir else {}
    tape = json.dumps(exporter.cassette(store, args.id), ensure_ascii=False, indent=2) if args.cassette else ""
    table = exporter.claims_csv(store, args.id) if args.csv else ""
    # Every target is checked before the first file is written: one bad path (a file given as the
    # folder, a directory as the file, a symbolic link) refuses the whole export, nothing written.
    if args.dir:
        exporter.check_export_dir(args.dir, files)
    if args.cassette:
        check_target(args.cassette, "the cassette")
    if args.csv:
        check_target(args.csv, "the CSV file")
    if args.dir:
        written = exporter.write_export_dir(store, args.id, args.dir, files)
        print(f"wrote {len(written)} files to {args.dir}")
    if args.cassette:
        write_text_atomic(args.cassette, tape, "the cassette")
        print(f"wrote cassette {args.cassette}")
    if args.csv:
        write_text_atomic(args.csv, table, "the CSV file")
        print(f"wrote {args.csv}")
    return EXIT_OK
