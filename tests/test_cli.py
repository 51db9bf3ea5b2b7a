"""The command line as a user runs it, a database of its own per test. Commands run in this process
(`main` with stdout and stderr captured); a subprocess only where a separate process is the point: a
kill, Ctrl-C, a debate whose process is still alive, limits set on the child alone, the once-per-process
check of a damaged file, the traceback Python would print at exit."""

from __future__ import annotations

import contextlib
import ctypes
import gc
import io
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import count_debates

from debate_core.cli import main
from debate_core.core.cases import sample_cases
from debate_core.store import DebateStore

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "data" / "cases" / "adat_minangkabau_inheritance.json"
PROTOCOL_BY_PREFIX = {"adat": "cross_critique", "national": "cross_critique", "documents": "cross_critique",
                      "panel": "panel",
                      "refinement": "refinement", "dialectic": "dialectic", "arbitration": "arbitration"}


def protocol_for(path: Path) -> str:
    return PROTOCOL_BY_PREFIX[path.name.split("_", 1)[0]]


@pytest.fixture(autouse=True)
def _in_the_project_folder(monkeypatch):
    """Relative paths (tests/data/...) read as they do for `python -m debate_core` run from the project."""
    monkeypatch.chdir(ROOT)


def cli(*args: str, db: Path, check: bool = False) -> subprocess.CompletedProcess:
    """`python -m debate_core --db DB ARGS`, run in this process: its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--db", str(db), *args])
    gc.collect()  # the stores the command opened close, as they would when its process ends
    proc = subprocess.CompletedProcess(["python", "-m", "debate_core", *args], code, out.getvalue(), err.getvalue())
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def cli_process(*args: str, db: Path, check: bool = False, preexec_fn=None) -> subprocess.CompletedProcess:
    """The same command in a process of its own, for what needs one (limits on the child, a live pid)."""
    env = {**os.environ, "DEBATE_DB": str(db)}
    proc = subprocess.run([sys.executable, "-m", "debate_core", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, preexec_fn=preexec_fn)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_run_json_prints_the_result_object(tmp_path):
    db = tmp_path / "d.db"
    proc = cli("run", str(CASE), "--protocol", "cross_critique", "--json", db=db, check=True)
    out = json.loads(proc.stdout)
    assert set(out) >= {"debate_id", "protocol", "status", "rounds", "converged", "convergence_reason", "verdict",
                        "trajectory", "usage"}
    assert set(out["verdict"]) == {"answer", "confidence", "needs_human_review", "escalation_reasons", "rationale",
                                   "applied_rules"}
    assert out["status"] == "completed" and out["protocol"] == "cross_critique"
    assert out["usage"]["calls"] >= 7 and out["usage"]["input_tokens"] > 0
    # The flagship case is a genuine norm conflict: a domain expert expects it escalated.
    assert out["verdict"]["needs_human_review"] is True
    assert "r1.answer.nla" in proc.stderr  # progress on stderr


def test_readable_summary_names_rounds_and_reasons(tmp_path):
    proc = cli("run", str(CASE), "--protocol", "cross_critique", "--quiet", db=tmp_path / "d.db", check=True)
    assert "round 1; answer+critique; critiques" in proc.stdout
    assert "needs human review: YES" in proc.stdout
    # nla's CRITICAL critique (ala's sawah area, 2.0 ha against the certificate's 2.3 ha) is answered in
    # round 2; its MAJOR one on the certificate stays open, and the summary says what goes to a person.
    assert "rounds: 2; converged: yes (no open CRITICAL critique and 1 open MAJOR (<= 1))" in proc.stdout
    assert "round 1; answer+critique; critiques 1 critical / 1 major / 1 minor" in proc.stdout
    assert "hard contradiction between agents left unresolved: nla vs ala on ala.C3" in proc.stdout
    assert "possible echo chamber" in proc.stdout  # the reason it goes to a person, in words


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "missing.json", "--protocol", "cross_critique"], "case file not found"),
        (["run", "tests/data/bad_case_invalid.json", "--protocol", "cross_critique"], "invalid JSON"),
        (["run", "tests/data/bad_case_missing_question.json", "--protocol", "cross_critique"], "field 'question' is required"),
        (["run", str(CASE), "--protocol", "no_such_protocol"], "unknown protocol"),
        (["run", str(CASE), "--protocol", "cross_critique", "--provider", "replay"], "needs a cassette"),
        (["run", str(CASE), "--protocol", "cross_critique", "--provider", "openai"], "needs a model"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_saves_nothing(tmp_path, args, message):
    db = tmp_path / "d.db"
    proc = cli(*args, db=db)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
    assert count_debates(db) == 0


def test_export_writes_the_seed_files_and_a_replayable_cassette(tmp_path):
    db = tmp_path / "d.db"
    first = json.loads(cli("run", str(CASE), "--protocol", "cross_critique", "--json", "--quiet", db=db, check=True).stdout)
    out_dir = tmp_path / "export"
    cas = tmp_path / "c.json"
    cli("export", first["debate_id"], "--dir", str(out_dir), "--cassette", str(cas), db=db, check=True)
    names = {p.name for p in out_dir.iterdir()}
    assert {"debate_round1_nla.json", "debate_round1_ala.json", "critique_round1_nla_on_ala.json",
            "critique_round1_ala_on_nla.json", "debate_round2_nla.json", "debate_round2_ala.json",
            "debate_summary.json", "transcript.md"} <= names
    r1 = json.loads((out_dir / "debate_round1_nla.json").read_text())
    assert r1["round"] == 1 and r1["agent"] == "NLA" and r1["claims"]
    crit = json.loads((out_dir / "critique_round1_nla_on_ala.json").read_text())
    assert crit["agent"] == "NLA" and crit["target"] == "ALA" and crit["critiques"]
    summary = json.loads((out_dir / "debate_summary.json").read_text())
    assert {"conflicts", "agreed_claims", "disputed_claims"} <= set(summary)
    replay = json.loads(cli("run", str(CASE), "--protocol", "cross_critique", "--provider", "replay", "--cassette",
                            str(cas), "--json", "--quiet", db=db, check=True).stdout)
    assert replay["verdict"] == first["verdict"]
    assert replay["trajectory"] == first["trajectory"]


@pytest.mark.parametrize("case_path", sample_cases(), ids=lambda p: p.stem)
def test_every_sample_case_runs_offline_and_replays_to_the_same_verdict(tmp_path, case_path):
    db = tmp_path / "d.db"
    protocol = protocol_for(case_path)
    first = json.loads(cli("run", str(case_path), "--protocol", protocol, "--json", "--quiet", db=db, check=True).stdout)
    assert first["status"] == "completed"
    cas = tmp_path / "c.json"
    cli("export", first["debate_id"], "--cassette", str(cas), db=db, check=True)
    again = json.loads(cli("run", str(case_path), "--protocol", protocol, "--provider", "replay", "--cassette", str(cas),
                           "--json", "--quiet", db=db, check=True).stdout)
    assert again["verdict"] == first["verdict"]
    assert again["converged"] == first["converged"] and again["rounds"] == first["rounds"]


def test_killed_debate_keeps_every_completed_step_and_resumes(tmp_path):
    db = tmp_path / "d.db"
    env = {**os.environ, "DEBATE_DB": str(db)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "debate_core", "run", str(CASE), "--protocol", "cross_critique", "--latency-ms", "400",
         "--quiet"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    done = 0
    while time.time() < deadline and done < 4:
        time.sleep(0.1)
        if db.exists():
            try:
                con = sqlite3.connect(db)
                done = con.execute("SELECT COUNT(*) FROM steps WHERE status = 'ok'").fetchone()[0]
                con.close()
            except sqlite3.OperationalError:
                pass
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert done >= 4
    store = DebateStore(db)
    debate = store.list_debates()[0]
    assert debate["status"] == "running"  # nobody got to mark it: the process died
    steps = store.steps(debate["id"])
    ok = [s for s in steps if s["status"] == "ok"]
    assert len(ok) >= 4
    assert all(s["output"] and s["raw_output"] and s["prompt"] for s in ok)
    assert {"r1.answer.nla", "r1.answer.ala"} <= {s["step_id"] for s in ok}
    resumed = json.loads(cli("resume", debate["id"], "--json", "--quiet", db=db, check=True).stdout)
    assert resumed["status"] == "completed" and resumed["verdict"]["needs_human_review"] is True
    new = store.get_debate(resumed["debate_id"])
    assert new["resumed_from"] == debate["id"]
    reused = [s for s in new["steps"] if s["model"] == "stored"]
    assert len(reused) >= len(ok) - 1


def test_review_commands_and_their_rules(tmp_path):
    db = tmp_path / "d.db"
    out = json.loads(cli("run", str(CASE), "--protocol", "cross_critique", "--json", "--quiet", db=db, check=True).stdout)
    did = out["debate_id"]
    bad = cli("review", did, "--action", "override", "--reviewer", "ann", "--answer", "Only acquired property is divided.", db=db)
    assert bad.returncode == 2 and "needs a reason" in bad.stderr
    ok = cli("review", did, "--action", "override", "--reviewer", "ann", "--answer", "Only acquired property is divided.",
             "--reason", "Pusaka tinggi is kaum property", db=db, check=True)
    assert "pending -> overridden" in ok.stdout
    again = cli("review", did, "--action", "accept", "--reviewer", "bob", db=db)
    assert again.returncode == 2 and "already reviewed" in again.stderr
    listed = json.loads(cli("list", "--json", "--search", "pusaka", db=db, check=True).stdout)
    assert [r["id"] for r in listed] == [did]
    assert listed[0]["final_answer"] == "Only acquired property is divided."
    shown = json.loads(cli("show", did, "--json", db=db, check=True).stdout)
    assert [r["action"] for r in shown["reviews"]] == ["override"]
    assert shown["reviews"][0]["answer_before"] != shown["reviews"][0]["answer_after"]


def test_show_unknown_id_is_bad_input(tmp_path):
    proc = cli("show", "nope", db=tmp_path / "d.db")
    assert proc.returncode == 2 and "no debate with id 'nope'" in proc.stderr


# --- The failure contract: no debate is left `running` by an error ----------------------------

REFINEMENT_CASE = next(p for p in sample_cases() if p.name.startswith("refinement"))
ARBITRATION_CASE = next(p for p in sample_cases() if p.name.startswith("arbitration"))


@pytest.mark.parametrize(
    "args, message",
    [
        (["--option", "max_claims=abc"], "option 'max_claims' must be a whole number from 1 to 10, got 'abc'"),
        (["--option", "max_claims=-5"], "option 'max_claims' must be a whole number from 1 to 10, got -5"),
        (["--option", "max_claim=3"], "option 'max_claim' is not a cross_critique option; did you mean 'max_claims'?"),
        (["--option", "convergence_mode=some"], "option 'convergence_mode' must be one of 'any', 'all', got 'some'"),
        (["--agents", "n.la,ala"], "agent id 'n.la' may contain only letters, digits, '_' and '-'"),
        (["--agents", "nla,nla"], "agent id 'nla' appears twice"),
        (["--agents", "nla"], "cross_critique takes from 2 to 6 agent(s), got 1"),
        (["--rounds", "11"], "rounds must be at most 10, got 11"),
        (["--option", "x=" + "[" * 5000 + "]" * 5000], "--option x: the value is nested too deeply to read"),
    ],
)
def test_bad_options_and_agents_exit_2_naming_the_key_and_save_nothing(tmp_path, args, message):
    db = tmp_path / "d.db"
    proc = cli("run", str(CASE), "--protocol", "cross_critique", *args, db=db)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [f"error: {message}"]
    assert count_debates(db) == 0


@pytest.mark.parametrize(
    "case, protocol, option, message",
    [
        (REFINEMENT_CASE, "refinement", 'plateau_points="abc"', "option 'plateau_points' must be a number from 0 to 100, got 'abc'"),
        (ARBITRATION_CASE, "arbitration", "authority_order=5", "option 'authority_order' must be a list of source names"),
        (ARBITRATION_CASE, "arbitration", "min_resolution_confidence=2", "from 0 to 1, got 2"),
    ],
)
def test_other_protocols_validate_their_own_options(tmp_path, case, protocol, option, message):
    db = tmp_path / "d.db"
    proc = cli("run", str(case), "--protocol", protocol, "--option", option, db=db)
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert message in line
    assert count_debates(db) == 0


def test_too_deep_json_is_bad_input_and_a_byte_order_mark_is_accepted(tmp_path):
    db = tmp_path / "d.db"
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    proc = cli("run", str(deep), "--protocol", "cross_critique", db=db)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"error: case file {deep}: the JSON is nested too deeply to read"]
    proc = cli("run", str(CASE), "--protocol", "cross_critique", "--provider", "replay", "--cassette", str(deep), db=db)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"error: cassette {deep}: the JSON is nested too deeply to read"]
    assert count_debates(db) == 0

    bom_case = tmp_path / "bom_case.json"
    bom_case.write_bytes(b"\xef\xbb\xbf" + CASE.read_bytes())
    first = json.loads(cli("run", str(bom_case), "--protocol", "cross_critique", "--json", "--quiet", db=db,
                           check=True).stdout)
    cas = tmp_path / "c.json"
    cli("export", first["debate_id"], "--cassette", str(cas), db=db, check=True)
    bom_cas = tmp_path / "bom_cassette.json"
    bom_cas.write_bytes(b"\xef\xbb\xbf" + cas.read_bytes())
    again = json.loads(cli("run", str(bom_case), "--protocol", "cross_critique", "--provider", "replay", "--cassette",
                           str(bom_cas), "--json", "--quiet", db=db, check=True).stdout)
    assert again["verdict"] == first["verdict"]


def test_an_error_inside_a_protocol_fails_the_debate_keeps_its_steps_and_resumes(tmp_path, monkeypatch, caplog):
    from debate_core.jobs.debates import run_debate
    from debate_core.protocols.cross_critique import rules

    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(rules, "assess", broken)
    db = tmp_path / "d.db"
    store = DebateStore(db)
    from debate_core.core.cases import load_case

    result = run_debate(load_case(CASE), "cross_critique", store=store)
    assert result.status == "failed"
    assert result.error == "the debate stopped unexpectedly: division by zero"
    debate = store.get_debate(result.debate_id)
    assert debate["status"] == "failed" and debate["error"] == result.error
    assert "Traceback" not in debate["error"]
    assert "Traceback" in caplog.text  # the log keeps the details for whoever fixes it
    ok = [s for s in debate["steps"] if s["status"] == "ok"]
    assert {"r1.answer.nla", "r1.answer.ala", "r2.revise.nla", "r2.revise.ala"} <= {s["step_id"] for s in ok}
    assert [e["kind"] for e in store.events(result.debate_id)][-1] == "failed"
    monkeypatch.undo()
    resumed = json.loads(cli("resume", result.debate_id, "--json", "--quiet", db=db, check=True).stdout)
    assert resumed["status"] == "completed"
    new = store.get_debate(resumed["debate_id"])
    assert new["resumed_from"] == result.debate_id
    assert len([s for s in new["steps"] if s["model"] == "stored"]) == len(ok)


def test_a_database_that_cannot_record_the_failure_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    import sqlite3 as sql

    from debate_core import cli as cli_module

    original = DebateStore.record

    def full_disk(self, debate_id, event):
        if event.kind in ("turn_finished", "failed"):
            raise sql.OperationalError("database or disk is full")
        return original(self, debate_id, event)

    monkeypatch.setattr(DebateStore, "record", full_disk)
    code = cli_module.main(["--db", str(tmp_path / "d.db"), "run", str(CASE), "--protocol", "cross_critique", "--quiet"])
    assert code == 2  # the store cannot be written: one line, exit 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: ") and "full" in line and line.endswith("stopped there")


def _running_row(db: Path, pid: int) -> str:
    """A debate stored as running by process `pid` on this host, as a CLI run would leave it."""
    import socket

    from debate_core.core.cases import load_case

    store = DebateStore(db)
    return store.create_debate(load_case(CASE), "cross_critique", {"provider": "offline"},
                               {"runner": {"pid": pid, "host": socket.gethostname()}})


def test_list_and_show_show_debates_whose_process_is_gone_as_interrupted_without_writing(tmp_path):
    db = tmp_path / "d.db"
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    did = _running_row(db, gone.pid)
    listed = json.loads(cli("list", "--json", db=db, check=True).stdout)
    assert [(r["id"], r["status"]) for r in listed] == [(did, "failed")]
    assert listed[0]["error"] == f"interrupted: the process that ran it (pid {gone.pid}) is no longer running"
    other = _running_row(db, gone.pid)
    shown = json.loads(cli("show", other, "--json", db=db, check=True).stdout)
    assert shown["status"] == "failed" and shown["error"].startswith("interrupted: ")
    # Read commands only show it: the stored rows still say running until resume (or the app) marks them.
    assert {r["status"] for r in DebateStore(db).list_debates()} == {"running"}
    resumed = json.loads(cli("resume", did, "--json", "--quiet", db=db, check=True).stdout)
    assert resumed["status"] == "completed"


def test_resume_refuses_a_debate_still_running_in_a_live_process(tmp_path):
    db = tmp_path / "d.db"
    did = _running_row(db, os.getpid())  # this test process is alive, and not the one that resumes
    proc = cli_process("resume", did, db=db)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: debate {did} is still running (pid {os.getpid()}); wait for it or stop that process"]
    assert DebateStore(db).get_debate(did, with_steps=False)["status"] == "running"
    assert count_debates(db) == 1


def test_resume_of_a_replay_debate_needs_its_cassette(tmp_path):
    db = tmp_path / "d.db"
    first = json.loads(cli("run", str(CASE), "--protocol", "cross_critique", "--json", "--quiet", db=db, check=True).stdout)
    cas = tmp_path / "c.json"
    cli("export", first["debate_id"], "--cassette", str(cas), db=db, check=True)
    # A cassette that stops after round 1 fails the replayed debate at its first missing step.
    data = json.loads(cas.read_text())
    data["calls"] = [c for c in data["calls"] if c["step"].startswith("r1.")]
    short = tmp_path / "short.json"
    short.write_text(json.dumps(data))
    failed = json.loads(cli("run", str(CASE), "--protocol", "cross_critique", "--provider", "replay", "--cassette",
                            str(short), "--json", "--quiet", db=db).stdout)
    assert failed["status"] == "failed"
    proc = cli("resume", failed["debate_id"], db=db)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: resuming a replay debate needs its cassette again: --provider replay --cassette FILE"]
    done = json.loads(cli("resume", failed["debate_id"], "--cassette", str(cas), "--json", "--quiet", db=db,
                          check=True).stdout)
    assert done["status"] == "completed" and done["verdict"] == first["verdict"]


def test_ctrl_c_names_the_debate_and_marks_it_interrupted(tmp_path):
    db = tmp_path / "d.db"
    env = {**os.environ, "DEBATE_DB": str(db)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "debate_core", "run", str(CASE), "--protocol", "cross_critique", "--latency-ms", "300",
         "--quiet"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    done = 0
    while time.time() < deadline and done < 2:
        time.sleep(0.1)
        if db.exists():
            try:
                con = sqlite3.connect(db)
                done = con.execute("SELECT COUNT(*) FROM steps WHERE status = 'ok'").fetchone()[0]
                con.close()
            except sqlite3.OperationalError:
                pass
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    [debate] = DebateStore(db).list_debates()
    did = debate["id"]
    assert err.strip().splitlines() == [
        f"interrupted: debate {did} is saved up to its last completed step; "
        f"resume with python -m debate_core resume {did}"]
    stored = DebateStore(db).get_debate(did)
    assert stored["status"] == "failed" and stored["error"] == "interrupted: stopped with Ctrl-C"
    assert len([s for s in stored["steps"] if s["status"] == "ok"]) >= 2
    assert not [s for s in stored["steps"] if s["status"] == "running"]
    resumed = json.loads(cli("resume", did, "--json", "--quiet", db=db, check=True).stdout)
    assert resumed["status"] == "completed"


def test_resume_refuses_stored_settings_that_no_longer_validate(tmp_path):
    from debate_core.core.cases import load_case

    db = tmp_path / "d.db"
    store = DebateStore(db)
    did = store.create_debate(load_case(CASE), "cross_critique", {"provider": "offline"},
                              {"options": {"max_claim": 3}})
    store.mark_interrupted(did, "interrupted: test")
    proc = cli("resume", did, db=db)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: debate {did} cannot be resumed: option 'max_claim' is not a cross_critique option; "
        "did you mean 'max_claims'?"]
    assert count_debates(db) == 1


def test_an_unexpected_error_at_the_command_line_is_a_failed_debate_without_a_traceback(tmp_path):
    db = tmp_path / "d.db"
    script = (
        "import sys\n"
        "from debate_core.protocols.cross_critique import rules\n"
        "def broken(*a, **k):\n"
        "    raise ZeroDivisionError('division by zero')\n"
        "rules.assess = broken\n"
        "from debate_core.cli import main\n"
        f"sys.exit(main(['--db', {str(db)!r}, 'run', {str(CASE)!r}, '--protocol', 'cross_critique', '--quiet']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    [debate] = DebateStore(db).list_debates()
    assert proc.stdout.splitlines()[:3] == [
        f"debate {debate['id']} (cross_critique): failed",
        "failed: the debate stopped unexpectedly: division by zero",
        f"resume with: python -m debate_core resume {debate['id']}",
    ]

def test_review_at_the_command_line_is_the_operators_and_recorded_as_such(tmp_path):
    """The CLI is the server operator's tool: --supervisor needs no role mapping, and the audit
    trail says the name was the operator's, not a signed-in identity."""
    db = tmp_path / "d.db"
    did = json.loads(cli("run", str(CASE), "--protocol", "cross_critique", "--json", "--quiet", db=db, check=True).stdout)[
        "debate_id"]
    cli("review", did, "--action", "escalate", "--reviewer", "ann", "--reason", "norm conflict", db=db, check=True)
    ok = cli("review", did, "--action", "approve", "--supervisor", "--reviewer", "sue", db=db, check=True)
    assert "escalated -> approved by sue" in ok.stdout
    shown = json.loads(cli("show", did, "--json", db=db, check=True).stdout)
    assert [(r["reviewer"], r["role"], r["actor_kind"]) for r in shown["reviews"]] == [
        ("ann", "reviewer", "operator"), ("sue", "supervisor", "operator")]


# ---------------------------------------------------------------------------
# A database that cannot be opened or written: exit 2, one line, no traceback
# ---------------------------------------------------------------------------


def _one_error_line(proc: subprocess.CompletedProcess, expected: str) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], proc.stderr
    return lines[0]


def _without_root_file_access() -> None:
    """Run the child as root without the power to ignore file permissions (the tests run as root,
    and root writes to a read-only file otherwise): drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH
    from the bounding set, so the program it executes has neither."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


@pytest.mark.parametrize("command", [["list"], ["run", str(CASE), "--protocol", "cross_critique"], ["show", "x"]])
def test_a_directory_or_a_non_database_is_one_line(tmp_path, command):
    _one_error_line(cli(*command, db=tmp_path), "is a directory")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n" * 500, encoding="utf-8")
    _one_error_line(cli(*command, db=notes), "the file is not a SQLite database")
    assert notes.read_text(encoding="utf-8") == "not a database\n" * 500


def test_a_damaged_database_is_refused_before_a_run_writes(tmp_path):
    db = tmp_path / "d.db"
    for _ in range(2):
        cli("run", str(CASE), "--protocol", "cross_critique", "--quiet", db=db, check=True)
    con = sqlite3.connect(db)
    page_size, pages = (con.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_size", "page_count"))
    con.close()
    with open(db, "r+b") as fh:
        fh.seek(page_size * (pages // 2))
        fh.write(os.urandom(page_size))
    before = db.read_bytes()
    # A process checks a file once (debate_core/store/): a new process checks it again.
    # Which check finds it (SQLite opening the file, or the quick check after) depends on the page hit.
    line = _one_error_line(cli_process("run", str(CASE), "--protocol", "cross_critique", db=db),
                           "it is damaged (")
    assert str(db) in line
    assert db.read_bytes() == before


def test_a_read_only_database_is_one_line_and_nothing_is_written(tmp_path):
    db = tmp_path / "d.db"
    cli("run", str(CASE), "--protocol", "cross_critique", "--quiet", db=db, check=True)
    db.chmod(0o444)
    before = db.read_bytes()
    proc = cli_process("run", str(CASE), "--protocol", "cross_critique", db=db, preexec_fn=_without_root_file_access)
    _one_error_line(proc, f"cannot write the database {db}: it is read-only")
    assert db.read_bytes() == before
    listed = cli_process("list", "--json", db=db, preexec_fn=_without_root_file_access)  # reading still works
    assert listed.returncode == 0 and len(json.loads(listed.stdout)) == 1


def test_a_full_disk_mid_run_ends_the_run_with_one_line_and_keeps_the_steps(tmp_path):
    db = tmp_path / "d.db"
    DebateStore(db).close()  # create and migrate the file
    room = db.stat().st_size + 256 * 1024

    def small_disk() -> None:
        # No file of the child may grow past the database's size plus 256 KiB: the write-ahead
        # log fills up a few steps into the debate. SIGXFSZ would kill the child; ignored, the write
        # fails with EFBIG as on a full disk.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (room, room))

    proc = cli_process("run", str(CASE), "--protocol", "cross_critique", "--json", "--quiet", db=db,
                       preexec_fn=small_disk)
    line = _one_error_line(proc, f"cannot write the database {db}: the disk")
    assert "stopped there" in line and proc.stdout == ""
    debate = DebateStore(db).list_debates()[0]
    assert line.endswith(f"debate {debate['id']} stopped there")
    assert debate["status"] == "running"  # the fault stopped it; the app marks it interrupted
    assert any(s["status"] == "ok" for s in DebateStore(db).steps(debate["id"]))
    resumed = json.loads(cli("resume", debate["id"], "--json", "--quiet", db=db, check=True).stdout)
    assert resumed["status"] == "completed"


def test_backup_copies_a_live_database_into_a_new_file_that_reads_back(tmp_path):
    db = tmp_path / "d.db"
    did = json.loads(cli("run", str(CASE), "--protocol", "cross_critique", "--json", "--quiet", db=db, check=True).stdout)[
        "debate_id"]
    writer = DebateStore(db)  # another connection holds the database open, as the app does
    try:
        writer.review(did, action="accept", reviewer="ann")
        proc = cli("backup", str(tmp_path / "copy.db"), db=db, check=True)
    finally:
        writer.close()
    assert proc.stdout.startswith(f"backed up {db} to {tmp_path / 'copy.db'} (1 debate(s), ")
    copy = DebateStore.for_reading(tmp_path / "copy.db")
    try:
        assert copy.get_debate(did)["review_state"] == "accepted"
    finally:
        copy.close()
    again = cli("backup", str(tmp_path / "copy.db"), db=db)
    assert (again.returncode, again.stderr) == (2, f"error: {tmp_path / 'copy.db'} already exists; give the backup a new file name\n")
    missing = cli("backup", str(tmp_path / "x.db"), db=tmp_path / "none.db")
    assert missing.returncode == 2 and "does not exist; there is nothing to back up" in missing.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("d.db")) == ["copy.db"]


def test_list_shows_the_moderators_outcome_and_the_review_state_apart(tmp_path):
    db = tmp_path / "d.db"
    did = json.loads(cli("run", str(CASE), "--protocol", "cross_critique", "--json", "--quiet", db=db, check=True).stdout)[
        "debate_id"]
    from debate_core.present.formatting import display_status

    outcome = display_status(DebateStore.for_reading(db).get_debate(did, with_steps=False))
    assert outcome in ("flagged for a human", "converged", "not converged")
    cli("review", did, "--action", "escalate", "--reviewer", "ann", "--reason", "a lawyer should look", db=db, check=True)
    line = cli("list", db=db, check=True).stdout.splitlines()[0]
    assert f"  cross_critique {outcome}" in line and "escalated to a supervisor" in line
    shown = cli("show", did, db=db, check=True).stdout
    assert f"Moderator's outcome: {outcome}; review: escalated to a supervisor" in shown
