"""Read-only means read-only; upgrades take a backup first.

`list`, `show`, `diff` and `export` open the database read-only: they never create, migrate or
write it. A database written by an older version is refused by them with the command that upgrades
it; `upgrade`, and every writing open (a CLI run or review, the app), copies such a database next to
itself with SQLite's backup API before migrating it.

The "older store" here is what the previous version would have left: a database created with every
registered migration but the newest, holding debates the current engine ran (their columns that the
old schema has), closed cleanly.
"""

from __future__ import annotations

import hashlib
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import small_case

import debate_core.store as store_module
from debate_core.cli import main
from debate_core.jobs.debates import run_debate
from debate_core.providers import make_provider
from debate_core.store import MIGRATIONS, DebateStore, StoreMissing, StoreOutdated

ROOT = Path(__file__).resolve().parent.parent
NEWEST = MIGRATIONS[-1][0]


def _copy_rows(into: Path, source: Path) -> None:
    """Copy every row of `source` into the older database `into`, for the columns the older schema
    has (the full-text table keeps its rowids, which debates point at)."""
    con = sqlite3.connect(into)
    con.execute("ATTACH DATABASE ? AS cur", [str(source)])
    tables = [r[0] for r in con.execute(
        "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        " AND name != '_migrations' AND name NOT LIKE 'debate\\_search\\_%' ESCAPE '\\'")]
    for table in tables:
        old = [r[1] for r in con.execute(f"PRAGMA main.table_info({table})")]
        new = {r[1] for r in con.execute(f"PRAGMA cur.table_info({table})")}
        cols = ", ".join(["rowid", *(c for c in old if c in new)])
        con.execute(f"INSERT INTO main.{table} ({cols}) SELECT {cols} FROM cur.{table}")
    con.commit()
    con.execute("DETACH DATABASE cur")
    con.close()


def older_store(path: Path, *, debates: int = 2) -> list[str]:
    """A database as the version before the newest migration wrote it, with `debates` completed
    debates; returns their ids."""
    current = path.with_name("current-" + path.name)
    store = DebateStore(current)
    ids = [run_debate(small_case(), "cross_critique", provider=make_provider("offline"), store=store).debate_id
           for _ in range(debates)]
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(store_module, "MIGRATIONS", MIGRATIONS[:-1])
        DebateStore(path).close()
    _copy_rows(path, current)
    current.unlink()
    con = sqlite3.connect(path)
    assert con.execute("SELECT COUNT(*) FROM debates").fetchone()[0] == debates
    con.close()
    assert migrations_of(path) == {n for n, _ in MIGRATIONS[:-1]}
    assert not Path(f"{path}-wal").exists()  # closed cleanly, as a finished program leaves it
    return ids


def fingerprint(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return hashlib.sha256(path.read_bytes()).hexdigest(), st.st_size, st.st_mtime_ns


def backups(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.backup-*"))


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def migrations_of(path: Path) -> set[str]:
    con = sqlite3.connect(path)
    try:
        return {r[0] for r in con.execute("SELECT name FROM _migrations")}
    finally:
        con.close()


def upgrade_line(db: Path) -> str:
    return (f"error: the database {db} was written by an older version of this program (schema changes not "
            f"applied yet: {NEWEST}); upgrade it with  python -m debate_core --db {db} upgrade  "
            "(a backup is taken first)")


# ---------------------------------------------------------------------------
# A read-only command on an older store
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    ["list"], ["list", "--json"], ["show", "{a}"], ["show", "{a}", "--json"], ["diff", "{a}", "{b}"],
    ["export", "{a}", "--dir", "{out}"], ["export", "{a}", "--csv", "{out}/claims.csv"],
], ids=lambda c: " ".join(x for x in c if not x.startswith("{")))
def test_a_read_only_command_on_an_older_store_changes_nothing_and_names_the_upgrade(tmp_path, capsys, command):
    db = tmp_path / "debates.db"
    a, b = older_store(db)
    before = fingerprint(db)
    out = tmp_path / "out"
    argv = [part.format(a=a, b=b, out=out) for part in command]
    assert main(["--db", str(db), *argv]) == 2
    assert one_line(capsys) == upgrade_line(db)
    assert fingerprint(db) == before  # same bytes, same modification time
    assert migrations_of(db) == {n for n, _ in MIGRATIONS[:-1]}
    assert backups(tmp_path) == [] and not out.exists()


def test_the_store_refuses_a_read_only_open_of_an_older_store(tmp_path):
    db = tmp_path / "debates.db"
    older_store(db, debates=1)
    before = fingerprint(db)
    with pytest.raises(StoreOutdated) as info:
        DebateStore.for_reading(db)
    assert info.value.pending == [NEWEST] and str(db) in str(info.value)
    assert fingerprint(db) == before


# ---------------------------------------------------------------------------
# upgrade
# ---------------------------------------------------------------------------


def test_upgrade_copies_the_older_store_first_then_reads_work(tmp_path, capsys):
    db = tmp_path / "debates.db"
    ids = older_store(db)
    assert main(["--db", str(db), "upgrade"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    [backup] = backups(tmp_path)
    assert out == [f"upgraded the database {db} ({NEWEST})",
                   f"the database as it was before is copied to {backup}"]
    assert backup.name.startswith("debates.db.backup-")
    # The copy is the older database as it stood: its schema, its migrations, its debates.
    con = sqlite3.connect(f"{backup.resolve().as_uri()}?mode=ro", uri=True)
    try:
        assert {r[0] for r in con.execute("SELECT name FROM _migrations")} == {n for n, _ in MIGRATIONS[:-1]}
        assert sorted(r[0] for r in con.execute("SELECT id FROM debates")) == sorted(ids)
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one standalone file
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()
    assert migrations_of(db) == {n for n, _ in MIGRATIONS}

    assert main(["--db", str(db), "list", "--json"]) == 0
    listed = capsys.readouterr().out
    assert all(i in listed for i in ids)
    assert main(["--db", str(db), "show", ids[0]]) == 0


def test_upgrade_on_a_current_store_is_up_to_date_and_takes_no_backup(tmp_path, capsys):
    db = tmp_path / "debates.db"
    DebateStore(db).close()
    assert main(["--db", str(db), "upgrade"]) == 0
    assert capsys.readouterr().out.strip() == f"the database {db} is up to date; nothing to do"
    assert backups(tmp_path) == []


def test_upgrade_of_a_missing_database_creates_nothing(tmp_path, capsys):
    db = tmp_path / "debates.db"
    assert main(["--db", str(db), "upgrade"]) == 2
    assert one_line(capsys) == f"error: the database {db} does not exist; there is nothing to upgrade"
    assert list(tmp_path.iterdir()) == []


def test_a_failed_backup_leaves_the_older_store_as_it_was(tmp_path):
    db = tmp_path / "debates.db"
    older_store(db)
    before = fingerprint(db)
    limit = db.stat().st_size // 2

    def small_disk() -> None:
        # No file may grow past half the database: the copy fails part-way, as on a full disk.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.run([sys.executable, "-m", "debate_core", "--db", str(db), "upgrade"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, preexec_fn=small_disk)
    assert proc.returncode == 2 and proc.stdout == ""
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"error: the database {db} was not upgraded: its backup failed (cannot write the database "
                           f"{db}.backup-")
    assert ": the disk" in line
    assert fingerprint(db) == before and backups(tmp_path) == []
    assert migrations_of(db) == {n for n, _ in MIGRATIONS[:-1]}


# ---------------------------------------------------------------------------
# Writing opens of an older store back it up too
# ---------------------------------------------------------------------------


def test_a_writing_command_on_an_older_store_takes_the_backup_first(tmp_path, capsys):
    db = tmp_path / "debates.db"
    did = older_store(db, debates=1)[0]
    assert main(["--db", str(db), "review", did, "--action", "accept", "--reviewer", "ann"]) == 0
    [backup] = backups(tmp_path)
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"upgraded the database {db} ({NEWEST}); the copy from before is {backup}"]
    con = sqlite3.connect(backup)
    try:
        assert con.execute("SELECT review_state FROM debates WHERE id = ?", [did]).fetchone()[0] == "pending"
    finally:
        con.close()
    assert DebateStore(db, readonly=True).get_debate(did, with_steps=False)["review_state"] == "accepted"


def test_every_writing_open_backs_up_an_older_store_once_and_a_new_one_never(tmp_path):
    """The app and its worker open the store with DebateStore(path), as the CLI's writing commands do."""
    db = tmp_path / "debates.db"
    older_store(db, debates=1)
    first = DebateStore(db)
    assert first.migrated == [NEWEST] and first.backup_path is not None and first.backup_path.is_file()
    first.close()
    again = DebateStore(db)
    assert again.migrated == [] and again.backup_path is None
    again.close()
    assert len(backups(tmp_path)) == 1

    fresh = tmp_path / "new" / "debates.db"
    new = DebateStore(fresh)
    assert new.migrated == [n for n, _ in MIGRATIONS] and new.backup_path is None
    new.close()
    assert backups(fresh.parent) == []


# ---------------------------------------------------------------------------
# A missing database: reads say so and create nothing
# ---------------------------------------------------------------------------


def test_read_commands_on_a_missing_database_create_nothing(tmp_path, capsys):
    db = tmp_path / "debates.db"
    assert main(["--db", str(db), "list"]) == 0
    assert capsys.readouterr().out.startswith("no debates yet")
    assert main(["--db", str(db), "list", "--json"]) == 0
    assert capsys.readouterr().out.strip() == "[]"
    assert main(["--db", str(db), "show", "x"]) == 2
    assert one_line(capsys) == f"error: no debate with id 'x' (the database {db} does not exist yet)"
    assert main(["--db", str(db), "diff", "x", "y"]) == 2
    assert one_line(capsys) == f"error: no debate with id 'x' (the database {db} does not exist yet)"
    assert main(["--db", str(db), "export", "x", "--dir", str(tmp_path / "out")]) == 2
    assert one_line(capsys) == f"error: the database {db} does not exist yet"
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(StoreMissing):
        DebateStore.for_reading(db)


def test_an_empty_database_file_lists_no_debates_and_stays_empty(tmp_path, capsys):
    db = tmp_path / "debates.db"
    db.touch()
    assert main(["--db", str(db), "list"]) == 0
    assert capsys.readouterr().out.startswith("no debates yet")
    assert db.stat().st_size == 0 and backups(tmp_path) == []


# ---------------------------------------------------------------------------
# Debates whose process is gone: shown as interrupted, not written
# ---------------------------------------------------------------------------


def test_list_shows_a_dead_debate_as_interrupted_and_filters_on_what_it_shows(tmp_path, capsys):
    import json

    db = tmp_path / "debates.db"
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    store = DebateStore(db)
    dead = store.create_debate(small_case(), "cross_critique", {"provider": "offline"},
                               {"runner": {"pid": gone.pid, "host": socket.gethostname()}})
    alive = store.create_debate(small_case(), "cross_critique", {"provider": "offline"},
                                {"runner": {"pid": running.pid, "host": socket.gethostname()}})
    store.close()
    before = fingerprint(db)

    def listed(*flags: str) -> dict[str, dict]:
        assert main(["--db", str(db), "list", "--json", *flags]) == 0
        return {r["id"]: r for r in json.loads(capsys.readouterr().out)}

    try:
        rows = listed()
        assert rows[dead]["status"] == "failed"
        assert rows[dead]["error"] == f"interrupted: the process that ran it (pid {gone.pid}) is no longer running"
        assert rows[alive]["status"] == "running"
        assert set(listed("--status", "running")) == {alive}
        assert set(listed("--status", "failed")) == {dead}
        assert main(["--db", str(db), "show", dead, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["status"] == "failed"
    finally:
        running.kill()
        running.wait()
    assert fingerprint(db) == before
    assert DebateStore(db, readonly=True).get_debate(dead, with_steps=False)["status"] == "running"
