"""The Escalations page reads the same number of times however long its queues are: it counts them in
the store and reads only the rows it shows, and only the debate on view whole. A page that went back
to reading each queued debate (its steps, claims or reviews) would make more store calls and SQL
statements as the queue grows, and fails here."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import small_case

from debate_core.store import DebateStore
from debate_core.store.postgres_backend import PostgresBackend
from debate_core.store.sqlite_backend import SQLiteBackend


@pytest.fixture(params=["sqlite", "postgresql"])
def db_path(request, tmp_path, monkeypatch):
    """The page on each backend: a SQLite file, then a fresh PostgreSQL database (skipped, saying
    why, when no throwaway cluster starts)."""
    if request.param == "sqlite":
        path = tmp_path / "debates.db"
        monkeypatch.setenv("DEBATE_DB", str(path))
        return path
    url = request.getfixturevalue("pg_url")
    monkeypatch.setenv("DEBATE_DB", url)
    monkeypatch.setenv("DEBATE_SETTINGS", str(tmp_path / "settings.json"))
    return url


@pytest.fixture
def calls(monkeypatch):
    """Every public DebateStore method and every SQL statement, counted while the page runs (AppTest
    runs the script in this process, so wrapping the classes sees the page's own calls)."""
    seen: Counter[str] = Counter()

    def counted(name, fn):
        def wrapper(*args, **kwargs):
            seen[name] += 1
            return fn(*args, **kwargs)
        return wrapper

    for name, fn in list(vars(DebateStore).items()) + [
        (n, getattr(DebateStore, n)) for n in dir(DebateStore)
        if not n.startswith("_") and n not in vars(DebateStore)
    ]:
        if not name.startswith("_") and callable(fn) and not isinstance(fn, (staticmethod, classmethod, type)):
            monkeypatch.setattr(DebateStore, name, counted(f"store.{name}", fn))
    for backend in (SQLiteBackend, PostgresBackend):
        for name in ("query", "execute"):
            monkeypatch.setattr(backend, name, counted("sql", getattr(backend, name)))
    return seen


def _escalate(make_debate, db_path, n: int) -> None:
    store = DebateStore(db_path)
    try:
        for _ in range(n):
            store.review(make_debate(), action="escalate", reviewer="ann", reason="Two lines of cases conflict.")
    finally:
        store.close()


def _flag(make_debate, n: int) -> None:
    for _ in range(n):
        make_debate(small_case(), "dialectic")  # does not converge offline: flagged for a reviewer


def _page_run(app, calls) -> Counter[str]:
    calls.clear()
    app.run()
    assert not app.exception, [e.message for e in app.exception]
    return Counter(calls)


def test_store_calls_do_not_grow_with_the_queue(app, make_debate, db_path, calls, monkeypatch):
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "supervisor")  # the decision controls are drawn too
    _escalate(make_debate, db_path, 3)
    _flag(make_debate, 2)
    app.run()
    app.switch_page("pages/escalations.py").run()
    few = _page_run(app, calls)
    assert "Queue (3)" in [s.value for s in app.main.subheader]
    assert few["store.get_debate"] == 1 and few["sql"] > 0  # the counter sees the page's reads

    _escalate(make_debate, db_path, 27)
    _flag(make_debate, 28)
    many = _page_run(app, calls)
    subheaders = [s.value for s in app.main.subheader]
    assert "Queue (30)" in subheaders and "Flagged by the moderator, awaiting a reviewer (30)" in subheaders
    assert many == few, f"store calls grew with the queue: {dict(few)} -> {dict(many)}"

    # Showing more rows reads more rows, not more times.
    app.button(key="e-queue-rows-more").click()
    more = _page_run(app, calls)
    assert len(app.dataframe[0].value) == 30
    assert more == few, f"store calls grew with the rows shown: {dict(few)} -> {dict(more)}"
