"""Command line: python -m debate_core run|list|show|diff|export|review|annotate|resume|eval|upgrade, and
the steering commands pause|stop|continue|intervene|fork. list, show, diff and export only read: they
never create, migrate or otherwise write the database.

Exit codes: 0 the debate completed (escalated or not), paused or stopped; 1 the debate failed or was
interrupted (saved, id printed); 2 bad input (nothing saved), a review the reviewer may not take, or
a database that cannot be opened or written (one line naming the file and the reason).

One module per command group, one parser: common.py (exit codes, errors, the store, provider and
settings from the flags), progress.py (the progress sink), run.py (run, resume, upgrade), steering.py
(pause, stop, continue, intervene, fork), read.py (list, show, diff, export), review.py (review,
annotate), evaluate.py (eval), protocols.py (protocols), parser.py (build_parser and main).
"""

from __future__ import annotations

from .common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, BadInput, Interrupted, StoreFailed
from .evaluate import EvalProgress, cmd_eval
from .parser import build_parser, main
from .progress import ProgressSink
from .protocols import cmd_protocols
from .read import cmd_diff, cmd_export, cmd_list, cmd_show
from .review import cmd_annotate, cmd_review
from .run import cmd_resume, cmd_run, cmd_upgrade
from .steering import cmd_continue, cmd_fork, cmd_intervene, cmd_pause, cmd_stop

__all__ = [
    "EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_OK", "BadInput", "EvalProgress", "Interrupted", "ProgressSink",
    "StoreFailed", "build_parser", "cmd_annotate", "cmd_continue", "cmd_diff", "cmd_eval", "cmd_export",
    "cmd_fork", "cmd_intervene", "cmd_list", "cmd_pause", "cmd_protocols", "cmd_resume", "cmd_review",
    "cmd_run", "cmd_show", "cmd_stop", "cmd_upgrade", "main",
]
