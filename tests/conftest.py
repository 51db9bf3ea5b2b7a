"""Shared fixtures. Each app test gets its own database through DEBATE_DB."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

APP = ROOT / "app.py"


@pytest.fixture(autouse=True)
def _no_server_key(monkeypatch):
    """A key or base URL in the machine's environment must not change what a test sees: the tests
    that need one set it themselves."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "DEBATE_KEY_BASE_URLS"):
        monkeypatch.delenv(name, raising=False)
    # An app on a PostgreSQL store starts a worker thread of its own; a test that wants one says so
    # (tests/test_queue_workers.py), so no thread outlives the test that started it.
    monkeypatch.setenv("DEBATE_APP_WORKER", "0")
    # Likewise the app's webhook dispatcher: tests/test_webhooks.py starts dispatchers itself.
    monkeypatch.setenv("DEBATE_WEBHOOKS", "0")


@pytest.fixture
def db_path(tmp_path, monkeypatch):
    """A fresh database path for this test, seen by the app through DEBATE_DB."""
    path = tmp_path / "debates.db"
    monkeypatch.setenv("DEBATE_DB", str(path))
    return path


@pytest.fixture
def app(db_path, monkeypatch):
    """The whole app (navigation, sidebar and pages) under AppTest, on its own database.

    AppTest forgets before every run that st.navigation was already called, so with a `pages/`
    folder it would run a switched-to page on its own first (Streamlit's older multipage mode).
    A real server forgets nothing after its first run; this keeps AppTest in the same state.
    `page_setup`'s own recovery from that mode is tested separately without this patch.
    """
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
    return AppTest.from_file(str(APP), default_timeout=60)


@pytest.fixture
def make_debate(db_path):
    """Run a debate to its end on the offline provider, written to this test's database; returns its id."""
    from helpers import small_case

    from debate_core.engine.runtime import DebateSettings
    from debate_core.jobs.debates import run_debate
    from debate_core.providers import make_provider
    from debate_core.store import DebateStore

    def make(case=None, protocol: str = "cross_critique", **settings):
        store = DebateStore(db_path)
        try:
            result = run_debate(case or small_case(), protocol, provider=make_provider("offline"),
                                settings=DebateSettings(**settings), store=store)
        finally:
            store.close()
        return result.debate_id

    return make


_PG_SKIPPED: list[str] = []


def pytest_terminal_summary(terminalreporter):
    """Say loudly, at the end of the run, that the PostgreSQL cases did not run and why."""
    if _PG_SKIPPED:
        terminalreporter.write_sep("!", "PostgreSQL cases SKIPPED", red=True, bold=True)
        terminalreporter.write_line(f"no throwaway PostgreSQL could be started: {_PG_SKIPPED[0]}", red=True)


@pytest.fixture(scope="session")
def pg_cluster():
    """A throwaway PostgreSQL cluster for the session (tests/pg_support.py), or a loud skip."""
    from tests.pg_support import start_cluster

    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("PostgreSQL cases skipped: psycopg is not installed (pip install 'psycopg[binary,pool]')")
    cluster, why = start_cluster()
    if cluster is None:
        _PG_SKIPPED.append(why)
        pytest.skip(f"PostgreSQL cases skipped: {why}")
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_cluster):
    """A fresh, empty PostgreSQL database for this test, as a postgresql:// URL."""
    from tests.pg_support import fresh_database

    yield fresh_database(pg_cluster)
    from debate_core.store.postgres_backend import close_pools

    close_pools()  # the process's pools on this test's database: their connections end with the test
