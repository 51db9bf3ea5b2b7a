"""The background worker: debates outlive the caller, crashes are saved as failures, dead runs are found."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import small_case

from debate_core.engine.runtime import DebateSettings
from debate_core.jobs import worker
from debate_core.protocols import UnknownProtocol
from debate_core.providers import make_provider
from debate_core.store import MIGRATIONS, DebateStore


def _store(db_path):
    return DebateStore(db_path)


def test_start_returns_id_at_once_and_the_debate_completes_in_the_store(db_path):
    started = time.perf_counter()
    # A delay per call makes the debate take a while, so "returns at once" is measurable.
    did = worker.start_debate(small_case(), "cross_critique", make_provider("offline", latency_ms=150),
                              db_path=db_path)
    assert time.perf_counter() - started < 1.0
    store = _store(db_path)
    assert store.get_debate(did, with_steps=False)["status"] == "running"
    assert worker.is_running_here(did)
    assert worker.wait(did, 60)
    debate = store.get_debate(did)
    assert debate["status"] == "completed"
    assert debate["verdict"]["answer"]
    assert debate["steps"] and all(s["status"] == "ok" for s in debate["steps"])
    assert debate["settings"]["runner"]["pid"] == worker.runner_info()["pid"]
    assert not worker.is_running_here(did)


def test_debate_keeps_running_after_the_starting_thread_ends(db_path):
    # A Streamlit script run is a thread that a click can end at any moment; the debate must not care.
    ids: list[str] = []
    caller = threading.Thread(target=lambda: ids.append(
        worker.start_debate(small_case(), "cross_critique", make_provider("offline", latency_ms=50), db_path=db_path)))
    caller.start()
    caller.join()
    assert ids and worker.is_running_here(ids[0])
    assert worker.wait(ids[0], 60)
    assert _store(db_path).get_debate(ids[0], with_steps=False)["status"] == "completed"


def test_unexpected_crash_is_saved_as_failed_with_a_readable_error(db_path, monkeypatch):
    async def explode(run):
        raise RuntimeError("disk on fire")

    import debate_core.jobs.debates as engine

    real = engine.get_spec
    monkeypatch.setattr(engine, "get_spec", lambda name: dataclasses.replace(real(name), run=explode))
    did = worker.start_debate(small_case(), "cross_critique", make_provider("offline"), db_path=db_path)
    assert worker.wait(did, 30)
    debate = _store(db_path).get_debate(did, with_steps=False)
    assert debate["status"] == "failed"
    assert debate["error"] == "the debate stopped unexpectedly: disk on fire"


def test_failed_step_keeps_the_engine_message(db_path):
    cassette = {"format": "debate-cassette/1", "protocol": "cross_critique", "calls": []}
    did = worker.start_debate(small_case(), "cross_critique", make_provider("replay", cassette=cassette),
                              db_path=db_path)
    assert worker.wait(did, 30)
    debate = _store(db_path).get_debate(did, with_steps=False)
    assert debate["status"] == "failed"
    assert "r1.answer" in debate["error"]


def test_unknown_protocol_is_refused_before_anything_is_saved(db_path):
    with pytest.raises(UnknownProtocol):
        worker.start_debate(small_case(), "nonsense", make_provider("offline"), db_path=db_path)
    assert _store(db_path).count_debates() == 0


def test_settings_reach_the_protocol(db_path):
    did = worker.start_debate(small_case(), "dialectic", make_provider("offline"),
                              DebateSettings(rounds=1), db_path=db_path)
    assert worker.wait(did, 30)
    debate = _store(db_path).get_debate(did)
    assert debate["status"] == "completed"
    assert max(s["round"] or 0 for s in debate["steps"]) == 1


# ---------------------------------------------------------------------------
# Debates left running by a dead process
# ---------------------------------------------------------------------------


def _running_row(store, runner):
    return store.create_debate(small_case(), "cross_critique", {"provider": "offline"},
                               {"rounds": 2, **({"runner": runner} if runner else {})})


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_running_debate_of_a_dead_process_is_marked_interrupted(db_path):
    store = _store(db_path)
    host = worker.runner_info()["host"]
    dead = _running_row(store, {"pid": _dead_pid(), "host": host})
    mine_lost = _running_row(store, {"pid": worker.runner_info()["pid"], "host": host})
    alive_other = _running_row(store, {"pid": 1, "host": host})  # pid 1 always exists
    unknown = _running_row(store, None)

    found = worker.recover_interrupted(store)
    assert set(found) == {dead, mine_lost}
    assert "no longer running" in found[dead]
    for did in (dead, mine_lost):
        debate = store.get_debate(did, with_steps=False)
        assert debate["status"] == "failed"
        assert debate["error"].startswith("interrupted:")
    for did in (alive_other, unknown):
        assert store.get_debate(did, with_steps=False)["status"] == "running"

    # Without a live owner to ask, only silence for longer than the limit counts as death.
    later = time.time() + worker.DEFAULT_STALE_AFTER_S + 60
    found = worker.recover_interrupted(store, now=later)
    assert set(found) == {alive_other, unknown}
    assert "nothing was written" in found[unknown]


def test_a_debate_running_in_this_process_is_never_marked(db_path):
    did = worker.start_debate(small_case(), "cross_critique", make_provider("offline", latency_ms=100),
                              db_path=db_path)
    store = _store(db_path)
    far_future = time.time() + 10 * worker.DEFAULT_STALE_AFTER_S
    assert did not in worker.find_interrupted(store, now=far_future)
    assert worker.wait(did, 60)


def test_find_interrupted_works_on_a_read_only_store(db_path):
    store = _store(db_path)
    did = _running_row(store, {"pid": _dead_pid(), "host": worker.runner_info()["host"]})
    ro = DebateStore(db_path, readonly=True)
    assert did in worker.find_interrupted(ro)
    assert ro.get_debate(did, with_steps=False)["status"] == "running"


@pytest.mark.parametrize(("settings", "message"), [
    (DebateSettings(options={"max_claims": "abc"}), "option 'max_claims' must be a whole number from 1 to 10, got 'abc'"),
    (DebateSettings(options={"max_claim": 3}), "did you mean 'max_claims'?"),
    (DebateSettings(agents=[{"id": "n.la"}, {"id": "ala"}]), "agent id 'n.la' may contain only"),
])
def test_bad_settings_are_refused_before_anything_is_saved(db_path, settings, message):
    from debate_core.protocols import SettingsError

    with pytest.raises(SettingsError, match=re.escape(message)):
        worker.start_debate(small_case(), "cross_critique", make_provider("offline"), settings, db_path=db_path)
    assert _store(db_path).list_debates() == []
    assert worker.running_here() == []
# ---------------------------------------------------------------------------
# Many debates, one database
# ---------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "data" / "cases" / "adat_minangkabau_inheritance.json"


def _max_overlap(intervals: list[tuple[str, str]]) -> int:
    """The most debates that were running at the same moment."""
    points = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    running = best = 0
    for _, step in points:
        running += step
        best = max(best, running)
    return best


def test_sixteen_processes_and_six_worker_debates_share_one_new_database(tmp_path):
    db = tmp_path / "shared.db"  # does not exist yet: every opener races to create and migrate it
    env = {**os.environ, "DEBATE_DB": str(db)}
    # A small delay per model call keeps the debates alive long enough to overlap one another.
    cmd = [sys.executable, "-m", "debate_core", "run", str(CASE), "--protocol", "cross_critique", "--db", str(db),
           "--json", "--quiet", "--latency-ms", "10"]
    procs = [subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(16)]
    ids = [worker.start_debate(small_case(), "cross_critique", make_provider("offline", latency_ms=20),
                               db_path=db) for _ in range(6)]
    outputs = [p.communicate(timeout=600) for p in procs]
    assert all(worker.wait(did, 300) for did in ids)

    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert "Traceback" not in err and "locked" not in err
        assert json.loads(out)["status"] == "completed"
        ids.append(json.loads(out)["debate_id"])
    store = DebateStore(db, readonly=True)
    rows = store.list_debates(limit=100)
    assert sorted(r["id"] for r in rows) == sorted(ids) and len(ids) == 22
    assert {r["status"] for r in rows} == {"completed"}
    for did in ids:
        steps = store.steps(did)
        assert steps and all(s["status"] == "ok" for s in steps)
        assert [s["seq"] for s in steps] == list(range(1, len(steps) + 1))
        assert [e["kind"] for e in store.events(did)][-1] == "completed"
    store.close()
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert con.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0] == len(MIGRATIONS)  # once, not per opener
        spans = con.execute("SELECT created_at, finished_at FROM debates").fetchall()
    finally:
        con.close()
    # The debates really ran side by side, which is what used to fail with "database is locked".
    assert _max_overlap(spans) >= 4
