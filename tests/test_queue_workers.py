"""Debates on the PostgreSQL job queue: submitted from the CLI and the app's worker module, run by
worker processes, taken up again by another worker when one is killed mid-debate, steered from any
process. Runs against the throwaway cluster of tests/pg_support.py (skipped loudly without one)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from test_cli import cli

from debate_core.core.cases import load_case
from debate_core.jobs import queue, worker
from debate_core.jobs.debates import run_debate
from debate_core.providers import make_provider
from debate_core.store import DebateStore

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "data" / "cases" / "panel_restaurant_review.json"


def _worker(url: str, name: str, *extra: str) -> subprocess.Popen:
    """A worker process as an operator starts one; quick heartbeats so a killed one is noticed soon."""
    return subprocess.Popen(
        [sys.executable, "-m", "debate_core", "--db", url, "worker", "--name", name, "--heartbeat", "0.5",
         "--stalled-after", "2", *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})


def _stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    return proc.stdout.read() if proc.stdout else ""


def _wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _claims(store: DebateStore, debate_id: str) -> list[str]:
    return [ev["data"]["worker"] for ev in store.events(debate_id) if ev["kind"] == "run_claimed"]


def _reference_answer() -> str:
    """The same case run in this process on a database file: what every queued run must reach."""
    result = run_debate(load_case(CASE), "panel", provider=make_provider("offline"))
    return result.verdict.answer


def test_submit_prints_the_id_and_a_worker_runs_it(pg_url):
    proc = cli("submit", str(CASE), "--protocol", "panel", "--json", db=pg_url)
    assert proc.returncode == 0, proc.stderr
    submitted = json.loads(proc.stdout)
    debate_id = submitted["debate_id"]
    store = DebateStore(pg_url)
    queued = store.get_debate(debate_id, with_steps=False)
    # Saved at once, waiting for a worker: no process check may call it interrupted meanwhile.
    assert queued["status"] == "running" and queued["settings"]["runner"]["queue"] == queue.QUEUE
    assert worker.interruption_reason(queued, stale_after=0) is None
    assert cli("worker", "--once", "--name", "w-test", db=pg_url).returncode == 0
    done = store.get_debate(debate_id, with_steps=False)
    assert done["status"] == "completed"
    assert done["final_answer"] == _reference_answer()
    assert _claims(store, debate_id) == ["w-test"]
    assert done["settings"]["runner"]["worker"] == "w-test"
    store.close()
    # `show` names the worker: in words under the transcript, as a list with --json.
    assert cli("show", debate_id, db=pg_url).stdout.rstrip().endswith("Run by worker w-test.")
    assert json.loads(cli("show", debate_id, "--json", db=pg_url).stdout)["workers"] == ["w-test"]


def test_the_app_queues_debates_on_postgresql(pg_url):
    debate_id = worker.start_debate(load_case(CASE), "panel", make_provider("offline"), db_path=pg_url)
    # Nothing runs in this process: the debate waits on the queue for a worker.
    assert not worker.is_running_here(debate_id)
    store = DebateStore(pg_url)
    assert store.get_debate(debate_id, with_steps=False)["status"] == "running"
    queue.run_worker(pg_url, wait=False, name="app-test", say=lambda _line: None)
    assert store.get_debate(debate_id, with_steps=False)["status"] == "completed"
    store.close()


def test_submit_refuses_a_database_file_and_a_provider_only_this_machine_has(tmp_path, pg_url):
    proc = cli("submit", str(CASE), "--protocol", "panel", db=tmp_path / "d.db")
    assert proc.returncode == 2 and "needs a PostgreSQL store" in proc.stderr
    assert not (tmp_path / "d.db").exists()
    proc = cli("worker", "--once", db=tmp_path / "d.db")
    assert proc.returncode == 2 and "PostgreSQL" in proc.stderr
    # A key typed for one debate stays in the process it was typed in: that debate runs there.
    typed = make_provider("openai", model="m", base_url="http://127.0.0.1:9/v1", api_key="sk-typed", probe=False)
    assert not worker.on_queue(pg_url, typed)
    assert worker.on_queue(pg_url, make_provider("offline"))
    assert not worker.on_queue(tmp_path / "d.db", make_provider("offline"))


def test_a_worker_killed_mid_debate_leaves_its_debates_to_another(pg_url):
    """Two workers, eight debates, one worker killed with SIGKILL in the middle of a debate: all
    eight complete, the interrupted ones on the other worker, with no completed step called again."""
    ids = []
    for _ in range(8):
        proc = cli("submit", str(CASE), "--protocol", "panel", "--latency-ms", "150", db=pg_url)
        assert proc.returncode == 0, proc.stderr
        ids.append(proc.stdout.strip())
    store = DebateStore(pg_url)
    doomed = _worker(pg_url, "doomed", "--concurrency", "2")
    survivor = None
    try:
        # Kill it once it has stored at least one finished step of a debate still running.
        def doomed_mid_debate() -> bool:
            for debate_id in ids:
                row = store.get_debate(debate_id)
                if (row["status"] == "running" and _claims(store, debate_id)[-1:] == ["doomed"]
                        and any(s["status"] == "ok" for s in row["steps"])):
                    return True
            return False

        _wait(doomed_mid_debate, 60, "the first worker to be in the middle of a debate")
        os.kill(doomed.pid, signal.SIGKILL)
        doomed.wait(10)
        survivor = _worker(pg_url, "survivor", "--concurrency", "2")
        _wait(lambda: all(store.get_debate(i, with_steps=False)["status"] != "running" for i in ids), 150,
              "every debate to finish")
    finally:
        if doomed.poll() is None:
            doomed.kill()
        log = _stop(survivor) if survivor is not None else ""
    reference = _reference_answer()
    taken_over = []
    for debate_id in ids:
        row = store.get_debate(debate_id)
        assert row["status"] == "completed", (debate_id, row.get("error"), log)
        assert row["final_answer"] == reference
        finished = Counter((ev["step_id"], ev["data"].get("call", 1)) for ev in store.events(debate_id)
                           if ev["kind"] == "turn_finished")
        assert finished and max(finished.values()) == 1, f"a completed step ran twice in {debate_id}"
        assert len(row["steps"]) == len({(s["step_id"], s["call"]) for s in row["steps"]})
        claims = _claims(store, debate_id)
        if claims[:1] == ["doomed"]:
            taken_over.append(debate_id)
            # Its record names both workers, the one that died first.
            assert claims[-1] == "survivor"
    assert taken_over, "the killed worker had no debate to leave"
    store.close()


def test_a_stop_request_reaches_a_debate_on_a_worker(pg_url):
    proc = cli("submit", str(CASE), "--protocol", "panel", "--latency-ms", "400", db=pg_url)
    debate_id = proc.stdout.strip()
    store = DebateStore(pg_url)
    running = _worker(pg_url, "steered")
    try:
        _wait(lambda: any(s["status"] == "ok" for s in store.get_debate(debate_id)["steps"]), 60,
              "the debate to start on the worker")
        assert cli("stop", debate_id, db=pg_url).returncode == 0
        _wait(lambda: store.get_debate(debate_id, with_steps=False)["status"] == "stopped", 60,
              "the stop request to reach the worker")
    finally:
        _stop(running)
    store.close()


@pytest.fixture
def own_cluster():
    """A cluster of this test's own, since the test takes its server away and back."""
    from tests.pg_support import fresh_database, start_cluster

    cluster, why = start_cluster()
    if cluster is None:
        pytest.skip(f"PostgreSQL cases skipped: {why}")
    try:
        yield cluster, fresh_database(cluster)
    finally:
        from debate_core.store.postgres_backend import close_pools

        close_pools()
        cluster.stop()


def test_a_database_that_goes_away_fails_the_debate_cleanly_and_the_worker_reconnects(own_cluster):
    cluster, url = own_cluster
    first = cli("submit", str(CASE), "--protocol", "panel", "--latency-ms", "300", db=url).stdout.strip()
    # Writes wait 2 s for the database here (30 s by default, which a short outage passes unnoticed).
    running = _worker(url, "patient", "--db-timeout", "2")
    try:
        store = DebateStore(url)
        _wait(lambda: any(s["status"] == "ok" for s in store.get_debate(first)["steps"]), 60,
              "the debate to store a step")
        kept = sum(s["status"] == "ok" for s in store.get_debate(first)["steps"])
        store.close()
        cluster.halt()
        time.sleep(6)
        cluster.restart()
        store = DebateStore(url)
        _wait(lambda: store.get_debate(first, with_steps=False)["status"] == "failed", 90,
              "the debate to be marked failed once the database is back")
        failed = store.get_debate(first)
        assert "database could not be reached" in failed["error"]
        # Every step it stored before the database went away is still there.
        assert sum(s["status"] == "ok" for s in failed["steps"]) >= kept
        # The same worker takes new debates again.
        second = cli("submit", str(CASE), "--protocol", "panel", db=url).stdout.strip()
        _wait(lambda: store.get_debate(second, with_steps=False)["status"] == "completed", 90,
              "the worker to run a debate after the database came back")
        assert _claims(store, second) == ["patient"]
        store.close()
    finally:
        log = _stop(running)
    assert "cannot be reached" in log or "database" in log


def test_eval_queue_spreads_the_runs_over_workers_and_scores_as_in_process(pg_url, tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    for name in ("panel_restaurant_review.json", "panel_laptop_review.json"):
        data = json.loads((ROOT / "data" / "cases" / name).read_text())
        data["expected"] = {"label": "mixed", "needs_human_review": False}
        (cases / name).write_text(json.dumps(data))
    local = cli("eval", str(cases), "--protocol", "panel", "--baselines", "single", "--json", "--quiet",
                db=tmp_path / "local.db")
    assert local.returncode == 0, local.stderr
    workers = [_worker(pg_url, f"eval-{i}") for i in range(2)]
    try:
        queued = cli("eval", str(cases), "--protocol", "panel", "--baselines", "single", "--json", "--queue",
                     db=pg_url)
    finally:
        logs = [_stop(w) for w in workers]
    assert queued.returncode == 0, queued.stderr + "".join(logs)
    assert "4 runs for the workers" in queued.stderr
    here, there = json.loads(local.stdout), json.loads(queued.stdout)
    key = ("case", "method", "repeat", "status", "answer", "right", "flagged")
    assert [[r[k] for k in key] for r in here["rows"]] == [[r[k] for k in key] for r in there["rows"]]
    assert here["summary"]["panel"]["right_rate"] == there["summary"]["panel"]["right_rate"]
    store = DebateStore(pg_url)
    evaluation = store.get_evaluation(there["evaluation_id"])
    listed = {row["id"] for row in store.list_debates(limit=100)}
    store.close()
    assert evaluation["status"] == "completed" and evaluation["done_runs"] == 4
    # The runs are the evaluation's: History and the queues leave them out.
    assert not listed & {r["debate_id"] for r in there["rows"]}
    refused = cli("eval", str(cases), "--protocol", "panel", "--queue", db=tmp_path / "x.db")
    assert refused.returncode == 2 and "PostgreSQL store" in refused.stderr


def test_the_app_on_postgresql_runs_its_debates_on_its_own_worker_thread(app, pg_url, monkeypatch):
    """One app server and a PostgreSQL store: a debate started on the New debate page becomes a job,
    and the app's own worker thread runs it, as a worker machine would."""
    monkeypatch.setenv("DEBATE_DB", pg_url)
    monkeypatch.setenv("DEBATE_APP_WORKER", "1")
    try:
        app.run()
        app.selectbox(key="nd-protocol").set_value("panel").run()
        app.button(key="nd-start").click().run()
        assert not app.exception, [e.message for e in app.exception]
        debate_id = app.session_state["debate_id"]
        store = DebateStore(pg_url)
        _wait(lambda: store.get_debate(debate_id, with_steps=False)["status"] == "completed", 60,
              "the app's worker to run the debate")
        assert _claims(store, debate_id)[0].endswith("(app)")
        store.close()
    finally:
        queue.stop_app_workers()


def test_the_runner_note_says_where_a_debate_runs():
    from debate_core.present.runners import WAITING, runner_note

    queued = {"status": "running", "settings": {"runner": {"queue": "debates"}}}
    assert runner_note(queued, []) == WAITING
    claimed = [{"kind": "run_claimed", "data": {"worker": "vm:12"}}]
    assert runner_note(queued, claimed) == "Running on worker vm:12."
    twice = [*claimed, {"kind": "turn_finished", "data": {}}, {"kind": "run_claimed", "data": {"worker": "vm:40"}}]
    note = runner_note({"status": "completed", "settings": {}}, twice)
    assert note.startswith("Run by worker vm:12, then vm:40:")
    # A debate run in one process, as with SQLite, needs no note.
    assert runner_note({"status": "running", "settings": {"runner": {"pid": 1, "host": "h"}}}, []) is None


def _failed_debate(location, monkeypatch) -> tuple[str, int]:
    """A cross-critique debate that fails in its moderator after its first rounds; its id and the
    number of steps it completed."""
    from debate_core.protocols.cross_critique import rules

    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(rules, "assess", broken)
    store = DebateStore(location)
    try:
        result = run_debate(load_case(ROOT / "data" / "cases" / "adat_minangkabau_inheritance.json"),
                            "cross_critique", store=store)
        ok = sum(s["status"] == "ok" for s in store.get_debate(result.debate_id)["steps"])
    finally:
        store.close()
    monkeypatch.undo()
    assert result.status == "failed"
    return result.debate_id, ok


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_resume_from_the_app_serves_the_stored_steps_and_runs_the_rest(backend, tmp_path, monkeypatch, request):
    from debate_core.core.identity import Actor

    location = str(tmp_path / "d.db") if backend == "sqlite" else request.getfixturevalue("pg_url")
    failed_id, ok = _failed_debate(location, monkeypatch)
    viewer = Actor("Vic", "viewer", "label")
    with pytest.raises(ValueError, match="viewer role"):
        worker.start_resume(failed_id, db_path=location, actor=viewer)
    ann = Actor("Ann", "reviewer", "label")
    new_id = worker.start_resume(failed_id, db_path=location, actor=ann)
    if backend == "sqlite":
        assert worker.wait(new_id, 60)
    else:
        assert not worker.is_running_here(new_id)
        queue.run_worker(location, wait=False, name="resumer", say=lambda _line: None)
    store = DebateStore(location)
    new = store.get_debate(new_id)
    assert new["status"] == "completed" and new["resumed_from"] == failed_id
    # The steps the failed debate completed were served from the store, not asked of the agents again.
    assert sum(s["model"] == "stored" for s in new["steps"]) == ok
    with pytest.raises(ValueError, match="completed; only a failed debate can be resumed"):
        worker.start_resume(new_id, db_path=location, actor=ann)
    store.close()


def test_the_debate_page_says_a_queued_debate_waits_for_a_worker_and_who_ran_it(app, pg_url, monkeypatch):
    monkeypatch.setenv("DEBATE_DB", pg_url)
    debate_id = worker.start_debate(load_case(CASE), "panel", make_provider("offline"), db_path=pg_url)
    app.run()
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    app.run()
    assert not app.exception, [e.message for e in app.exception]
    assert any("Waiting for a worker" in c.value for c in app.caption)
    queue.run_worker(pg_url, wait=False, name="page-test", say=lambda _line: None)
    app.run()
    assert any("Run by worker page" in c.value for c in app.caption)


def test_two_workers_never_run_the_same_debate_at_once(pg_url):
    """The same debate queued twice (a double click, a retried submit): its jobs share a lock, so
    the second waits for the first and then finds the debate finished; one worker ran it, once."""
    proc = cli("submit", str(CASE), "--protocol", "panel", "--latency-ms", "150", db=pg_url)
    debate_id = proc.stdout.strip()
    queue.submit(pg_url, debate_id)
    workers = [_worker(pg_url, f"twin-{i}") for i in range(2)]
    store = DebateStore(pg_url)
    try:
        _wait(lambda: store.get_debate(debate_id, with_steps=False)["status"] == "completed", 90,
              "the debate to complete")
        time.sleep(2)  # the second job has had its turn
    finally:
        for w in workers:
            _stop(w)
    assert len(_claims(store, debate_id)) == 1
    finished = Counter(ev["step_id"] for ev in store.events(debate_id) if ev["kind"] == "turn_finished")
    assert max(finished.values()) == 1
    store.close()
