"""The api command: serve the HTTP API (debate_core/api/) with uvicorn on the store the other
commands use (--db, else $DEBATE_DB, else data/debates.db)."""

from __future__ import annotations

import argparse

import uvicorn

from ..api import create_app
from .common import EXIT_OK, BadInput, _db_path, _store


def cmd_api(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise BadInput(f"--port must be between 1 and 65535, got {args.port}")
    _store(args.db).close()  # a database that cannot be opened is one line, before the server starts
    app = create_app(_db_path(args.db))
    print(f"serving the API on http://{args.host}:{args.port} (docs at /docs); Ctrl-C stops it", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return EXIT_OK
