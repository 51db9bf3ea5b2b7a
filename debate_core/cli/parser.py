"""The one parser of every command, and `main`, which turns the errors the commands raise into one
line and an exit code."""

from __future__ import annotations

import argparse
import logging
import sqlite3
import sys

from ..core.files import FileProblem
from ..jobs import queue
from ..protocols import PROTOCOLS
from ..providers import PROVIDERS
from ..store import DEFAULT_BUSY_TIMEOUT_S, StoreError, store_error
from .api import cmd_api
from .common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    BadInput,
    Interrupted,
    StoreFailed,
    _broken_pipe,
    _db_path,
)
from .documents import cmd_case_new
from .evaluate import cmd_eval
from .labels import cmd_export_labels
from .protocols import cmd_protocols
from .read import cmd_diff, cmd_export, cmd_list, cmd_show
from .review import cmd_annotate, cmd_review
from .run import cmd_backup, cmd_resume, cmd_run, cmd_submit, cmd_upgrade, cmd_worker
from .steering import cmd_continue, cmd_fork, cmd_intervene, cmd_pause, cmd_stop
from .tokens import cmd_token_create, cmd_token_list, cmd_token_revoke


def _add_provider_flags(p: argparse.ArgumentParser, default_provider: str | None = "offline") -> None:
    p.add_argument("--provider", choices=PROVIDERS, default=default_provider)
    p.add_argument("--cassette", help="replay cassette file (for --provider replay)")
    p.add_argument("--model", help="model name (openai provider)")
    p.add_argument("--base-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1 (or OPENAI_BASE_URL)")
    p.add_argument("--temperature", type=float)
    p.add_argument("--timeout", type=float, help="seconds a model call may take once it has its slot (default 120; 80 for a server on this machine or the local network)")
    p.add_argument("--max-attempts", type=int, help="validation attempts per step (default 3)")
    p.add_argument("--method", choices=("function_calling", "json_schema", "json_mode"),
                   help="structured output method (default: json_schema for OpenAI, function_calling otherwise)")
    p.add_argument("--agent-model", action="append", metavar="AGENT=MODEL", help="per-agent model override")
    p.add_argument("--latency-ms", type=float, default=0.0, help="simulated latency per call (offline, replay)")
    p.add_argument("--max-tokens-per-call", type=int, help="bound on prompt plus reply tokens of one call")
    p.add_argument("--max-output-tokens", type=int,
                   help="cap on the reply tokens of one call (openai; default: a cap per output model)")
    p.add_argument("--transport-retries", type=int, help="retries on 429, 5xx and refused connections (openai)")
    p.add_argument("--stall-timeout", type=float,
                   help="seconds without a token before a streaming reply counts as stalled (openai; default 30, 0 off)")
    p.add_argument("--timeout-retries", type=int,
                   help="tries after a reply that did not finish in time or stalled (openai; default 1)")
    p.add_argument("--repair", choices=("none", "clamp"),
                   help="clamp: after one re-ask, set out-of-range numbers to their bounds and warn (openai)")


def _add_run_flags(run: argparse.ArgumentParser) -> None:
    """The flags of `run` and `submit`: the case, the protocol, the provider and the run's settings."""
    run.add_argument("case", nargs="?", help="case JSON file (or --question with --evidence documents)")
    run.add_argument("--question", help="the question, for a case built from --evidence documents")
    run.add_argument("--evidence", nargs="+", metavar="FILE",
                     help="documents the case is built from: PDF, DOCX, HTML, Markdown or TXT (with --question)")
    run.add_argument("--max-passages", type=int, metavar="N",
                     help="keep at most N passages of the documents, the most relevant to the question")
    run.add_argument("--title", help="the title of a case built from documents (default: the question)")
    run.add_argument("--protocol", required=True, help=", ".join(PROTOCOLS))
    _add_provider_flags(run)
    run.add_argument("--rounds", type=int, help="round budget (protocol default when omitted)")
    run.add_argument("--agents", help="comma-separated agent ids, overriding the case's and the protocol's agents")
    run.add_argument("--agents-file", metavar="FILE",
                     help="a JSON list of agent profiles {id, name, role, instructions, model, terms}")
    run.add_argument("--option", action="append", metavar="KEY=VALUE", help="protocol-specific setting (JSON value)")
    run.add_argument("--preset", metavar="NAME", help="start from this preset of the protocol (see 'protocols'), "
                     "else one saved in the app; --rounds, --agents and --option given beside it win")
    run.add_argument("--concurrency", type=int,
                     help="max model calls in flight (default 8; 1 for a local server unless it reports more slots)")
    run.add_argument("--max-total-tokens", type=int, metavar="N",
                     help="token budget for the whole debate (default: 200,000 for a paid model, none otherwise)")
    run.add_argument("--pause-after-round", type=int, metavar="N",
                     help="pause for review once round N closes (status paused, exit 0); go on with 'continue'")
    run.add_argument("--json", action="store_true", help="print the result object as JSON")
    run.add_argument("--quiet", action="store_true", help="no progress on stderr")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m debate_core", description="Run and review structured debates.")
    parser.add_argument("--db", help="SQLite database file, or a postgresql:// URL (default: $DEBATE_DB or data/debates.db)")
    sub = parser.add_subparsers(dest="command", required=True)
    db_flag = argparse.ArgumentParser(add_help=False)
    db_flag.add_argument("--db", dest="db_sub", help=argparse.SUPPRESS)

    run = sub.add_parser("run", parents=[db_flag], help="run a debate on a case file")
    _add_run_flags(run)
    run.set_defaults(func=cmd_run)
    submit = sub.add_parser("submit", parents=[db_flag],
                            help="queue a debate for the workers (PostgreSQL store) and print its id at once")
    _add_run_flags(submit)
    submit.set_defaults(func=cmd_submit)
    worker = sub.add_parser("worker", parents=[db_flag],
                            help="run queued debates (PostgreSQL store) until stopped; start one per machine")
    worker.add_argument("--concurrency", type=int, default=1, help="debates run at once by this worker (default 1)")
    worker.add_argument("--name", help="how this worker is named in the debates it runs (default host:pid)")
    worker.add_argument("--once", action="store_true", help="stop when the queue is empty")
    worker.add_argument("--heartbeat", type=float, default=queue.HEARTBEAT_S, metavar="S",
                        help=f"seconds between this worker's signs of life (default {queue.HEARTBEAT_S:g})")
    worker.add_argument("--stalled-after", type=float, default=queue.STALLED_AFTER_S, metavar="S",
                        help="seconds without a sign of life after which a worker's debates go to another "
                        f"(default {queue.STALLED_AFTER_S:g})")
    worker.add_argument("--db-timeout", type=float, default=DEFAULT_BUSY_TIMEOUT_S, metavar="S",
                        help="seconds a debate waits for a database that went away before it is failed, its "
                        f"steps kept (default {DEFAULT_BUSY_TIMEOUT_S:g})")
    worker.set_defaults(func=cmd_worker)


    case = sub.add_parser("case", help="make case files")
    case_sub = case.add_subparsers(dest="case_command", required=True)
    case_new = case_sub.add_parser("new", help="write a case file from a question and documents "
                                   "(PDF, DOCX, HTML, Markdown, TXT), each cut into cited passages")
    case_new.add_argument("files", nargs="+", metavar="FILE", help="the documents")
    case_new.add_argument("--question", required=True, help="what the agents should decide")
    case_new.add_argument("--title", help="the case's title (default: the question)")
    case_new.add_argument("--max-passages", type=int, metavar="N",
                          help="keep at most N passages, the most relevant to the question")
    case_new.add_argument("--out", required=True, help="the case file to write")
    case_new.set_defaults(func=cmd_case_new)

    resume = sub.add_parser("resume", parents=[db_flag], help="continue a failed or interrupted debate from its failed step")
    resume.add_argument("id")
    _add_provider_flags(resume, default_provider=None)
    resume.add_argument("--max-total-tokens", type=int, metavar="N",
                        help="token budget, replacing the stored one; it counts the tokens already spent")
    resume.add_argument("--json", action="store_true")
    resume.add_argument("--quiet", action="store_true")
    resume.set_defaults(func=cmd_resume)

    for name, text in (("pause", "ask a running debate to pause after the current stage (works across processes)"),
                       ("stop", "ask a running debate to stop after the current stage, or stop a paused one")):
        ctl = sub.add_parser(name, parents=[db_flag], help=text)
        ctl.add_argument("id")
        ctl.add_argument("--reviewer", help="who asks (kept in the audit trail)")
        ctl.set_defaults(func=cmd_pause if name == "pause" else cmd_stop)

    cont = sub.add_parser("continue", parents=[db_flag],
                          help="continue a paused debate, with its settings and the interventions made while paused")
    cont.add_argument("id")
    _add_provider_flags(cont, default_provider=None)
    cont.add_argument("--pause-after-round", type=int, metavar="N", help="pause again once round N closes")
    cont.add_argument("--max-total-tokens", type=int, metavar="N",
                      help="token budget, replacing the stored one; it counts the steps already run")
    cont.add_argument("--reviewer", help="who continues it (kept in the audit trail)")
    cont.add_argument("--json", action="store_true")
    cont.add_argument("--quiet", action="store_true")
    cont.set_defaults(func=cmd_continue)

    itv = sub.add_parser("intervene", parents=[db_flag], help="act on a paused debate: critique, add evidence, "
                         "pin or withdraw a claim, resolve your critique")
    itv.add_argument("id")
    itv.add_argument("--reviewer", required=True)
    what = itv.add_mutually_exclusive_group(required=True)
    what.add_argument("--critique", metavar="TEXT", help="raise a critique (with --target and --severity)")
    what.add_argument("--evidence", metavar='"ID | SOURCE | TEXT"', help="add a passage for the following rounds")
    what.add_argument("--pin", metavar="REF", help="the claim (agent.claim_id) is established: agents may not drop it")
    what.add_argument("--strike", metavar="REF", help="the claim (agent.claim_id) is withdrawn from the debate")
    what.add_argument("--resolve", metavar="REF", help="close your critique (reviewer->agent:H1); a supervisor may "
                      "close anyone's")
    itv.add_argument("--target", metavar="REF", help="the claim a critique is on: agent.claim_id (nla.C1)")
    itv.add_argument("--severity", help="CRITICAL, MAJOR or MINOR")
    itv.add_argument("--fix", help="the fix you suggest")
    itv.add_argument("--json", action="store_true")
    itv.set_defaults(func=cmd_intervene)

    frk = sub.add_parser("fork", parents=[db_flag], help="a new debate sharing the first N rounds of another, "
                         "continued with changed settings, agents or model")
    frk.add_argument("id")
    frk.add_argument("--from-round", type=int, required=True, metavar="N")
    frk.add_argument("--option", action="append", metavar="KEY=VALUE", help="protocol setting to change (JSON value)")
    frk.add_argument("--agents", help="comma-separated agent ids")
    frk.add_argument("--agents-file", metavar="FILE", help="JSON list of agent profiles")
    frk.add_argument("--rounds", type=int, help="round budget")
    frk.add_argument("--preset", metavar="NAME", help="apply this preset of the protocol (or one saved in the app) "
                     "to the fork; --rounds, --agents and --option given beside it win")
    _add_provider_flags(frk, default_provider=None)
    frk.add_argument("--pause-after-round", type=int, metavar="N", help="pause the fork once round N closes")
    frk.add_argument("--max-total-tokens", type=int, metavar="N",
                     help="token budget of the fork's own calls (default: the parent's, or the paid default)")
    frk.add_argument("--reviewer", help="who forks it (kept in the audit trail)")
    frk.add_argument("--json", action="store_true")
    frk.add_argument("--quiet", action="store_true")
    frk.set_defaults(func=cmd_fork)

    lst = sub.add_parser("list", parents=[db_flag], help="list stored debates")
    lst.add_argument("--protocol")
    lst.add_argument("--status")
    lst.add_argument("--review-state")
    lst.add_argument("--search", help="full-text search over questions, answers and claims")
    lst.add_argument("--include-evaluations", action="store_true",
                     help="also list the runs evaluations made (left out by default; see `eval`)")
    lst.add_argument("--limit", type=int, default=50)
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(func=cmd_list)

    show = sub.add_parser("show", parents=[db_flag], help="show one debate")
    show.add_argument("id")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_show)

    diff = sub.add_parser("diff", parents=[db_flag], help="compare two debates: verdicts, claims, critiques, "
                          "rounds, tokens and cost")
    diff.add_argument("a", help="the first debate's id (A)")
    diff.add_argument("b", help="the second debate's id (B), compared against A")
    diff.add_argument("--json", action="store_true", help="print the comparison as one JSON object")
    diff.set_defaults(func=cmd_diff)

    exp = sub.add_parser("export", parents=[db_flag], help="export transcript files, a cassette or a CSV")
    exp.add_argument("id")
    exp.add_argument("--dir", help="write the seed's transcript files and transcript.md here")
    exp.add_argument("--cassette", help="write a replay cassette to this file")
    exp.add_argument("--csv", help="write claims and critiques as CSV to this file")
    exp.set_defaults(func=cmd_export)

    evl = sub.add_parser("eval", parents=[db_flag], help="score a protocol, its presets and baselines on labelled cases")
    evl.add_argument("cases", nargs="+", help="case files or directories; every case with 'expected' is scored")
    evl.add_argument("--protocol", required=True, help=", ".join(PROTOCOLS))
    evl.add_argument("--preset", action="append", metavar="NAME", help="also run this preset of the protocol (repeatable)")
    evl.add_argument("--baselines", default="", help="comma-separated: single, majority")
    evl.add_argument("--samples", type=int, default=3, help="single agents voting in the majority baseline (default 3)")
    evl.add_argument("--repeat", type=int, default=1, help="runs of every case and method (default 1)")
    _add_provider_flags(evl)
    evl.add_argument("--concurrency", type=int, default=8, help="model calls in flight, shared by all runs (default 8)")
    evl.add_argument("--judge-model", help="a model that compares each answer with the case's reference answer")
    evl.add_argument("--prices", help="price table JSON (default: $DEBATE_PRICES, else the app's settings)")
    evl.add_argument("--seed", type=int, default=20240601, help="seed of the bootstrap interval")
    evl.add_argument("--out", help="write rows.csv, summary.json and report.md here")
    evl.add_argument("--json", action="store_true", help="print the report object as JSON")
    evl.add_argument("--quiet", action="store_true", help="no progress on stderr")
    evl.add_argument("--queue", action="store_true",
                     help="spread the runs over the workers of a PostgreSQL store (python -m debate_core worker)")
    evl.set_defaults(func=cmd_eval)

    lab = sub.add_parser("export-labels", parents=[db_flag],
                         help="write reviewed debates as labelled cases (the team's decision as 'expected') for eval")
    lab.add_argument("dir", help="the folder to write one case file per reviewed debate into (created when missing)")
    lab.add_argument("--protocol", help="only debates run with this protocol")
    lab.add_argument("--since", metavar="DATE", help="only debates started on or after this date (2026-11-01)")
    lab.add_argument("--json", action="store_true", help="print the files written and the debates skipped as JSON")
    lab.set_defaults(func=cmd_export_labels)

    protos = sub.add_parser("protocols", help="describe every protocol: agents, rounds, options, case needs")
    protos.add_argument("--json", action="store_true", help="print the specs as JSON (options as JSON Schema)")
    protos.set_defaults(func=cmd_protocols)

    upg = sub.add_parser("upgrade", parents=[db_flag],
                         help="migrate a database written by an older version, after copying it next to itself")
    upg.set_defaults(func=cmd_upgrade)

    bak = sub.add_parser("backup", parents=[db_flag],
                         help="copy the database to a new file, safely while the app and other commands use it")
    bak.add_argument("target", help="the new file to write (refused when it exists)")
    bak.set_defaults(func=cmd_backup)

    rev = sub.add_parser("review", parents=[db_flag], help="accept, override or escalate a verdict")
    rev.add_argument("id")
    rev.add_argument("--action", required=True, choices=("accept", "override", "escalate", "approve", "undo"),
                     help="undo takes back the reviewer's own last action while nothing happened after it")
    rev.add_argument("--reviewer", required=True)
    rev.add_argument("--answer", help="corrected answer (override)")
    rev.add_argument("--reason", help="required for override and escalate")
    rev.add_argument("--supervisor", action="store_true",
                     help="decide an escalated debate as a supervisor (named in <db>.settings.json)")
    rev.set_defaults(func=cmd_review)

    ann = sub.add_parser("annotate", parents=[db_flag], help="mark one claim or critique of a debate")
    ann.add_argument("id")
    which = ann.add_mutually_exclusive_group(required=True)
    which.add_argument("--claim", metavar="REF", help="the claim as the app shows it: agent.claim_id (nla.C1), "
                       "rN:agent.claim_id for one round's version")
    which.add_argument("--critique", metavar="REF", help="the critique as the app shows it: critic->target:id "
                       "(nla->ala:K1), rN:critic->target:id for one round's")
    ann.add_argument("--label", required=True,
                     help="claims: correct, incorrect, unsupported, needs_source; critiques: valid, invalid")
    ann.add_argument("--severity", help="critiques: the severity you would give (CRITICAL, MAJOR, MINOR)")
    ann.add_argument("--comment", help="why")
    ann.add_argument("--reviewer", required=True)
    ann.set_defaults(func=cmd_annotate)

    api = sub.add_parser("api", parents=[db_flag], help="serve the HTTP API (tokens from 'token create')")
    api.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    api.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    api.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"))
    api.set_defaults(func=cmd_api)

    tok = sub.add_parser("token", help="create, list or revoke the HTTP API's tokens")
    tok_sub = tok.add_subparsers(dest="token_command", required=True)
    tcreate = tok_sub.add_parser("create", parents=[db_flag], help="create a token; it is printed once, as the last line")
    tcreate.add_argument("--name", required=True, help="a unique name, recorded in the audit trail for its calls")
    tcreate.add_argument("--role", required=True, choices=("viewer", "reviewer", "supervisor", "admin"))
    tcreate.set_defaults(func=cmd_token_create)
    tlist = tok_sub.add_parser("list", parents=[db_flag], help="list the tokens (never their secrets)")
    tlist.add_argument("--json", action="store_true")
    tlist.set_defaults(func=cmd_token_list)
    trevoke = tok_sub.add_parser("revoke", parents=[db_flag], help="revoke a token by its name")
    trevoke.add_argument("name")
    trevoke.set_defaults(func=cmd_token_revoke)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the usage error
        return EXIT_BAD_INPUT if exc.code else EXIT_OK
    # --db is accepted before or after the subcommand.
    args.db = getattr(args, "db_sub", None) or args.db
    # The engine logs the traceback of an unexpected error for the app's server log; at the command
    # line the failed debate's one-line reason is the message, so Python's last-resort handler,
    # which would print the traceback, is kept out.
    logger = logging.getLogger("debate_core")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())
    try:
        code = args.func(args)
        sys.stdout.flush()  # a reader that went away shows here, not in Python's shutdown
        return code
    except BrokenPipeError:
        return _broken_pipe()
    except (BadInput, FileProblem) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (StoreError, sqlite3.Error) as exc:
        # A database that cannot be opened or written: one line, never a traceback. A plain
        # sqlite3 error here comes from a read of a file damaged after it was opened.
        line = exc if isinstance(exc, StoreError) else store_error(exc, _db_path(args.db), "read")
        if line is None:
            raise
        print(f"error: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except StoreFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Interrupted as exc:
        print(f"interrupted: debate {exc.debate_id} is saved up to its last completed step; "
              f"resume with python -m debate_core resume {exc.debate_id}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:  # before any debate was created: nothing to resume
        print("interrupted: nothing was saved", file=sys.stderr)
        return EXIT_FAILED
