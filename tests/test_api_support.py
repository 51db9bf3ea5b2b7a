"""What the API tests share: the real server (uvicorn in a thread, on a free loopback port, over a
SQLite store in tmp_path; debates run in the server's own worker threads, as the app runs them
on SQLite), tokens of every role made through the CLI, and a small case."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from helpers import small_case

from debate_core.api import create_app
from debate_core.cli import main
from debate_core.client import Client
from debate_core.jobs import worker
from debate_core.store import DebateStore
from tests.oidc_support import free_port

ROLES = ("viewer", "reviewer", "supervisor", "admin")


@dataclass
class Server:
    url: str
    db: Path
    tokens: dict[str, str]

    def client(self, role: str | None = "admin") -> Client:
        return Client(self.url, self.tokens[role] if role else None)

    def store(self) -> DebateStore:
        return DebateStore(self.db)


def create_token(db: Path, name: str, role: str, capsys: Any) -> str:
    capsys.readouterr()
    assert main(["--db", str(db), "token", "create", "--name", name, "--role", role]) == 0
    return capsys.readouterr().out.strip().splitlines()[-1]


def serve(db: Path, **kwargs: Any) -> Iterator[str]:
    """uvicorn serving create_app(db) in a thread until the generator is closed."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(db, **kwargs), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the API server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        for debate_id in worker.running_here():  # no debate thread outlives its test's database
            worker.wait(debate_id, timeout=30)


@pytest.fixture
def api(tmp_path, capsys) -> Iterator[Server]:
    db = tmp_path / "api.db"
    tokens = {role: create_token(db, f"{role} bot", role, capsys) for role in ROLES}
    gen = serve(db)
    url = next(gen)
    try:
        yield Server(url, db, tokens)
    finally:
        gen.close()


def case_json(**extra: Any) -> dict[str, Any]:
    return small_case(**extra).model_dump(mode="json", exclude_none=True)


def finished(server: Server, protocol: str = "cross_critique", **body: Any) -> dict[str, Any]:
    """A debate submitted as the reviewer token and waited for."""
    with server.client("reviewer") as c:
        debate_id = c.submit(case_json(), protocol, **body)["id"]
        return c.wait(debate_id, timeout=60, every=0.1)


def test_the_support_server_answers_health_without_a_token(api):
    with api.client(None) as c:
        assert c.health() == {"status": "ok", "version": c.health()["version"], "store": "sqlite"}
