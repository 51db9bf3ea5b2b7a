"""The token commands: create, list and revoke the HTTP API's tokens. Whoever runs them is the
server's operator; the store keeps only each token's hash, so `create` is the one time it is shown."""

from __future__ import annotations

import argparse
import json

from ..store import TokenError
from .common import EXIT_OK, BadInput, _store, operator_actor


def cmd_token_create(args: argparse.Namespace) -> int:
    store = _store(args.db)
    try:
        secret = store.create_token(name=args.name, role=args.role, actor=operator_actor())
    except TokenError as exc:
        raise BadInput(str(exc)) from None
    finally:
        store.close()
    print(f"created the token {args.name.strip()!r} with the {args.role} role; it is shown only now, keep it safe:")
    print(secret)  # the last line, alone, so a script can take it with `tail -n 1`
    return EXIT_OK


def cmd_token_list(args: argparse.Namespace) -> int:
    store = _store(args.db)
    try:
        rows = store.list_tokens()
    finally:
        store.close()
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    if not rows:
        print("no tokens; create one with  python -m debate_core token create --name NAME --role ROLE")
        return EXIT_OK
    for r in rows:
        state = f"revoked {r['revoked_at']}" if r["revoked_at"] else f"last used {r['last_used_at'] or 'never'}"
        print(f"{r['name']}  {r['role']}  created {r['created_at']} by {r['created_by']}  {state}")
    return EXIT_OK


def cmd_token_revoke(args: argparse.Namespace) -> int:
    store = _store(args.db)
    try:
        done = store.revoke_token(args.name, actor=operator_actor())
    finally:
        store.close()
    if not done:
        raise BadInput(f"no token named {args.name!r} is in use (see  python -m debate_core token list)")
    print(f"revoked the token {args.name!r}; calls with it are refused from now on")
    return EXIT_OK
