"""App pages on a PostgreSQL store: the History, Analytics and Escalations pages' tests run again with
DEBATE_DB a postgresql:// URL (a throwaway cluster, tests/pg_support.py; skipped, saying why, when
none starts). Tests that handle the database as a file themselves are left to the SQLite run."""

from __future__ import annotations

import pytest
import test_app_analytics
import test_app_escalations
import test_app_history

# Tests that treat the database location as a file (the settings file next to it).
_FILE_ONLY = {"test_app_escalations": {"test_no_supervisors_message_names_the_settings_file"}}

for _module in (test_app_history, test_app_analytics, test_app_escalations):
    _short = _module.__name__.removeprefix("test_app_")
    for _name, _test in vars(_module).items():
        if _name.startswith("test_") and callable(_test) and _name not in _FILE_ONLY.get(_module.__name__, ()):
            globals()[f"test_{_short}_{_name.removeprefix('test_')}"] = _test


@pytest.fixture
def db_path(pg_url, monkeypatch, tmp_path):
    """This module's pages read and write a fresh PostgreSQL database (its settings file in tmp_path)."""
    monkeypatch.setenv("DEBATE_DB", pg_url)
    monkeypatch.setenv("DEBATE_SETTINGS", str(tmp_path / "settings.json"))
    return pg_url
