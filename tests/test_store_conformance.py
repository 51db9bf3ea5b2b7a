"""One store conformance suite, run against every backend: SQLite (a file) and PostgreSQL (a
throwaway cluster started by tests/pg_support.py; those cases skip, saying why, when none starts).

Each case gets an empty database and `open_store`, which opens another store on the same database
(another process's connection, as two app servers or two CLI runs have)."""

from __future__ import annotations

import threading

import pytest
from helpers import finished_event_data, small_case
from test_store import completed

from debate_core.core import identity
from debate_core.core.events import Event
from debate_core.core.identity import PermissionRefused
from debate_core.core.steering import SteeringError
from debate_core.store import DebateStore, ReviewConflict, ReviewError, StoreMissing

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def location(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "conformance.db")
    return request.getfixturevalue("pg_url")


@pytest.fixture
def open_store(location):
    opened: list[DebateStore] = []

    def open_() -> DebateStore:
        s = DebateStore(location)
        opened.append(s)
        return s

    yield open_
    for s in opened:
        s.close()


@pytest.fixture
def store(open_store):
    return open_store()


# -- migrations from an empty database ------------------------------------------------------------


def test_migrations_from_empty_then_nothing_pending(location, open_store):
    first = open_store()
    assert first.migrated and first.pending_migrations() == []
    assert {"debates", "steps", "events", "reviews", "claims", "critiques", "annotations", "evaluations",
            "evaluation_rows", "audit", "_migrations"} <= set(first.sql.table_names())
    again = open_store()
    assert again.migrated == [] and again.migrate() == []
    reader = DebateStore.for_reading(location)
    assert reader.count_debates() == 0
    reader.close()


def test_a_reader_refuses_an_empty_database(location, tmp_path):
    if location.startswith("postgresql://"):
        with pytest.raises(StoreMissing):
            DebateStore.for_reading(location)
    else:
        with pytest.raises(StoreMissing):
            DebateStore.for_reading(tmp_path / "missing.db")


def test_concurrent_first_opens_migrate_once(open_store):
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def open_one():
        try:
            barrier.wait()
            open_store()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert open_store().pending_migrations() == []


# -- events into rows, and search -----------------------------------------------------------------


def test_events_fill_steps_claims_usage_and_the_search_index(store):
    did = completed(store)
    d = store.get_debate(did)
    assert d["status"] == "completed" and d["input_tokens"] == 10 and d["calls"] == 1
    assert d["steps"][0]["status"] == "ok" and d["steps"][0]["output"]["answer"]
    assert d["converged"] is True and d["verdict"]["confidence"] == 0.7
    assert store.claims(did)[0]["statement"].startswith("Sawah")
    assert [e["kind"] for e in store.events(did)] == ["turn_started", "turn_finished", "completed"]
    assert store.count_debates() == 1


@pytest.mark.parametrize(("text", "hits"), [
    ("kaum", True),                          # a claim's word
    ("daught", True),                        # the answer, the last word as a prefix
    ("sawah daughters", True),               # every word required, in any field
    ("SAWAH", True),                         # case does not matter
    ("sawah nonexistentword", False),
    ("nonexistentword", False),
    ('"; DROP TABLE debates; --', False),    # quotes and operators are words, never syntax
    ("rice AND OR NOT field", False),
    ("field*", True),
    ("creme cafe", True),                    # diacritics do not matter
    ("CAFÉ", True),
    ("bar com", True),                       # an e-mail address is words
    ("5 o brien", True),
    ("o'brien", True),
    ("mail", True),
    ("brie", True),
    ("rien", False),
])
def test_search_matches_the_same_on_every_backend(store, text, hits):
    did = completed(store, answer="The daughters keep the sawah; le café crème, foo@bar.com, e-mail 3.5 O'Brien.")
    other = store.create_debate(small_case(question="Who inherits the house in town?"), "panel", {}, {})
    assert [r["id"] for r in store.list_debates(search=text)] == ([did] if hits else [])
    assert [r["id"] for r in store.list_debates(search="house")] == [other]


def test_an_override_replaces_the_answer_in_the_search_index(store):
    did = completed(store, answer="The mamak holds it.")
    store.review(did, action="override", reviewer="ann", answer="Nothing is divided yet.", reason="pending")
    assert [r["id"] for r in store.list_debates(search="nothing divided")] == [did]
    assert store.list_debates(search="mamak") == []  # the old answer left the index


def test_a_failed_step_keeps_its_raw_output(store):
    did = store.create_debate(small_case(), "cross_critique", {"provider": "openai"}, {})
    store.record(did, Event("turn_started", "r1.answer.ala", {"call": 1, "stage": "answer", "agent": "ala"}))
    store.record(did, Event("turn_failed", "r1.answer.ala", {"call": 1, "error": "bad json", "raw": "{oops",
                                                             "attempts": 3, "input_tokens": 30}))
    store.record(did, Event("failed", "r1.answer.ala", {"error": "step r1.answer.ala failed"}))
    d = store.get_debate(did)
    assert d["status"] == "failed" and d["failed_step"] == "r1.answer.ala"
    assert d["steps"][0]["raw_output"] == "{oops" and d["input_tokens"] == 30


# -- writes under concurrency ---------------------------------------------------------------------


def test_many_writers_at_once_lose_nothing(open_store):
    stores = [open_store() for _ in range(4)]
    errors: list[BaseException] = []
    made: list[str] = []

    def write(s):
        try:
            for _ in range(3):
                made.append(completed(s))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    check = open_store()
    assert check.count_debates() == 12
    for did in made:
        d = check.get_debate(did)
        assert [s["seq"] for s in d["steps"]] == [1] and d["calls"] == 1 and d["status"] == "completed"


def test_one_store_shared_by_threads(store):
    dids = [store.create_debate(small_case(), "cross_critique", {}, {}) for _ in range(3)]
    errors: list[BaseException] = []

    def steps(did):
        try:
            for n in range(1, 6):
                sid = f"r{n}.answer.nla"
                store.record(did, Event("turn_started", sid, {"call": 1, "round": n, "stage": "answer", "agent": "nla"}))
                store.record(did, Event("turn_finished", sid, finished_event_data(sid, {"answer": "a", "claims": []},
                                                                                   calls=1, input_tokens=1)))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=steps, args=(d,)) for d in dids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for did in dids:
        d = store.get_debate(did)
        assert [s["seq"] for s in d["steps"]] == [1, 2, 3, 4, 5] and d["input_tokens"] == 5


# -- the review state machine and its optimistic version check ------------------------------------


def test_review_actions_append_to_the_audit_trail(store):
    did = completed(store)
    with pytest.raises(ReviewError, match="needs a reason"):
        store.review(did, action="escalate", reviewer="ann")
    store.review(did, action="escalate", reviewer="ann", reason="norm conflict")
    assert [d["id"] for d in store.escalation_queue()] == [did]
    with pytest.raises(ReviewError, match="already reviewed"):
        store.review(did, action="accept", reviewer="bob")
    store.review(did, action="override", reviewer="sue", answer="Divide acquired property only.", reason="MA",
                 supervisor=True)
    d = store.get_debate(did)
    assert d["review_state"] == "settled" and d["final_answer"] == "Divide acquired property only."
    trail = [(r["reviewer"], r["role"], r["action"], r["state_before"], r["state_after"]) for r in d["reviews"]]
    assert trail == [("ann", "reviewer", "escalate", "pending", "escalated"),
                     ("sue", "supervisor", "override", "escalated", "settled")]
    assert store.escalation_queue() == []


def test_a_stale_version_is_refused(store):
    did = completed(store)
    entry = store.review(did, action="accept", reviewer="ann", expected_version=0)
    assert entry["version"] == 1
    with pytest.raises(ReviewConflict, match="changed by someone else"):
        store.review(did, action="escalate", reviewer="bob", reason="r", expected_version=0)


def test_undo_restores_the_state_before(store):
    did = completed(store)
    before = store.get_debate(did)["final_answer"]
    store.review(did, action="override", reviewer="ann", answer="The kaum keeps the sawah.", reason="E4")
    with pytest.raises(ReviewError, match="only ann can undo"):
        store.review(did, action="undo", reviewer="bob")
    store.review(did, action="undo", reviewer="ANN")
    d = store.get_debate(did)
    assert (d["review_state"], d["final_answer"], d["reviewed_by"]) == ("pending", before, None)


def test_two_reviewers_at_once_cannot_both_win(open_store):
    setup = open_store()
    did = completed(setup)
    own = [open_store(), open_store()]
    results: list[str] = []
    barrier = threading.Barrier(2)

    def act(s, name, action, **kw):
        barrier.wait()
        try:
            s.review(did, action=action, reviewer=name, expected_version=0, **kw)
            results.append("ok")
        except (ReviewConflict, ReviewError):
            results.append("refused")

    threads = [threading.Thread(target=act, args=(own[0], "ann", "accept")),
               threading.Thread(target=act, args=(own[1], "bob", "override"), kwargs={"answer": "x", "reason": "y"})]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["ok", "refused"]
    assert len(setup.reviews(did)) == 1


def test_annotations_count_each_reviewers_latest_label(store):
    did = completed(store)
    store.annotate(did, kind="claim", ref="nla.C1", label="correct", reviewer="ann")
    store.annotate(did, kind="claim", ref="nla.C1", label="incorrect", reviewer="ANN")
    rows = store.claim_labels_by_protocol()
    assert rows == [{"protocol": "cross_critique", "labelled": 1, "incorrect": 1, "unsupported": 0,
                     "needs_source": 0, "correct": 0, "incorrect_share": 1.0}]
    assert [a["label"] for a in store.annotations(did)] == ["correct", "incorrect"]


# -- steering requests ----------------------------------------------------------------------------


def _paused(store):
    did = store.create_debate(small_case(), "cross_critique", {}, {})
    store.record(did, Event("paused", None, {"at": "round 1", "round": 1, "next_round": 2}))
    return did


def test_pause_and_stop_requests(store, open_store):
    did = store.create_debate(small_case(), "cross_critique", {}, {})
    assert store.control_request(did) is None
    assert open_store().request_control(did, "pause", reviewer="ann") == "running"
    assert store.control_request(did) == "pause"
    assert store.request_control(did, "stop", reviewer="ann") == "running"
    with pytest.raises(SteeringError, match="already asked to stop"):
        store.request_control(did, "pause", reviewer="ann")
    paused = _paused(store)
    assert store.request_control(paused, "stop", reviewer="bob") == "stopped"
    assert store.get_debate(paused, with_steps=False)["status"] == "stopped"
    with pytest.raises(SteeringError):
        store.request_control(paused, "pause", reviewer="bob")
    viewer = identity.local_label("val", "viewer")
    with pytest.raises((SteeringError, PermissionRefused)):
        store.request_control(did, "stop", actor=viewer)


def test_a_paused_debate_is_claimed_by_one_process_only(open_store):
    setup = open_store()
    did = _paused(setup)
    results: list[str] = []
    barrier = threading.Barrier(3)

    def claim(s, n):
        barrier.wait()
        try:
            s.begin_continue(did, runner={"pid": n}, reviewer="ann")
            results.append("claimed")
        except SteeringError:
            results.append("refused")

    threads = [threading.Thread(target=claim, args=(open_store(), n)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["claimed", "refused", "refused"]
    assert setup.get_debate(did, with_steps=False)["status"] == "running"


def test_an_intervention_becomes_a_step_with_an_audit_row(store):
    did = _paused(store)
    with pytest.raises(SteeringError, match="reload"):
        store.add_intervention(did, {"kind": "note", "reviewer": "ann", "round": 2, "at": "round 0"}, summary="x")
    step_id = store.add_intervention(did, {"kind": "note", "reviewer": "ann", "round": 2, "at": "round 1",
                                           "text": "look at E4"}, summary="a note")
    d = store.get_debate(did)
    assert [s["step_id"] for s in d["steps"]] == [step_id] and d["steps"][0]["stage"] == "human"
    assert [r["action"] for r in d["reviews"]] == ["intervene"]
    assert [e["kind"] for e in store.events(did)][-1] == "intervention"


def test_forks_are_listed_under_their_parent(store):
    parent = completed(store)
    fork = store.create_debate(small_case(), "cross_critique", {}, {}, parent_id=parent, fork_round=1)
    store.note_fork(fork, "ann", "try another answer")
    assert [(f["id"], f["fork_round"]) for f in store.forks(parent)] == [(fork, 1)]


# -- analytics, evaluations, audit ----------------------------------------------------------------


def test_filters_and_analytics(store):
    a = completed(store, review=True)
    b = completed(store)
    store.review(a, action="escalate", reviewer="ann", reason="r")
    store.review(b, action="accept", reviewer="Bob")
    assert [r["id"] for r in store.list_debates(reviewer="bob")] == [b]
    assert [r["id"] for r in store.list_debates(review_state="escalated")] == [a]
    assert [r["id"] for r in store.list_debates(needs_review=True)] == [a]
    assert [r["id"] for r in store.list_debates(limit=1, offset=1)] == [a]
    assert store.list_debates(protocol="panel") == []
    row = store.analytics()[0]
    assert row["debates"] == 2 and row["escalation_rate"] == 0.5 and row["agreement_rate"] == 0.5
    assert row["override_rate"] == 0.0 and row["tokens_per_debate"] == 14.0 and row["rounds_to_converge"] == 2.0
    assert store.analytics_overall()["completed"] == 2
    assert store.reviewers() == ["Bob", "ann"]
    assert store.token_quartiles() == [{"protocol": "cross_critique", "low": 14, "high": 14, "debates": 2,
                                        "q1": 14, "median": 14, "q3": 14}]
    assert store.tokens_by_model() == [{"protocol": "cross_critique", "model": "m", "debates": 2,
                                        "input_tokens": 20, "output_tokens": 8}]
    day, week = store.trends("day"), store.trends("week")
    assert [(r["debates"], r["completed"], r["escalated"], r["escalation_rate"]) for r in day] == [(2, 2, 1, 0.5)]
    assert len(week) == 1 and week[0]["period"] <= day[0]["period"]
    activity = {r["reviewer"].lower(): r for r in store.reviewer_activity()}
    assert activity["ann"]["escalations"] == 1 and activity["bob"]["accepts"] == 1


def test_analytics_agree_between_backends(store, tmp_path):
    """The same writes give the same figures on this backend as on a fresh SQLite file."""
    reference = DebateStore(tmp_path / "reference.db")
    figures = []
    for s in (store, reference):
        a = completed(s, review=True)
        b = completed(s)
        s.review(a, action="escalate", reviewer="ann", reason="r")
        s.review(b, action="override", reviewer="bob", answer="Other.", reason="E4")
        s.annotate(a, kind="claim", ref="nla.C1", label="unsupported", reviewer="ann")
        figures.append({
            "analytics": s.analytics(), "overall": s.analytics_overall(), "quartiles": s.token_quartiles(),
            "trends": [{k: v for k, v in r.items() if k != "period"} for r in s.trends("week")],
            "activity": [{k: v for k, v in r.items() if k != "last"} for r in s.reviewer_activity()],
            "labels": s.claim_labels_by_protocol(), "severity": s.severity_confirmation(),
            "models": s.tokens_by_model(),
        })
    reference.close()
    assert figures[0] == figures[1]


def test_evaluations_are_stored_and_read_back(store):
    eid = store.create_evaluation(protocol="cross_critique", methods=["debate"], cases=["c1"], settings={"k": 1},
                                  total_runs=2)
    store.add_evaluation_row(eid, {"case": "c1", "method": "debate", "repeat": 0, "status": "completed",
                                   "right": True, "tokens": 10, "cost": 0.5})
    store.add_evaluation_row(eid, {"case": "c1", "method": "debate", "repeat": 1, "status": "completed",
                                   "right": False, "tokens": 5})
    store.finish_evaluation(eid, status="completed", summary={"accuracy": 0.5})
    listed = store.list_evaluations()
    assert [(e["id"], e["done_runs"], e["tokens"], e["methods"]) for e in listed] == [(eid, 2, 15, ["debate"])]
    ev = store.get_evaluation(eid)
    assert ev["summary"] == {"accuracy": 0.5} and [r["repeat"] for r in ev["rows"]] == [0, 1]


def test_actions_are_checked_and_audited(store):
    admin = identity.local_label("ada", "admin")
    viewer = identity.local_label("val", "viewer")
    assert store.record_action(admin, "settings", permission="manage_settings", detail="x", apply=lambda: 7) == 7
    with pytest.raises(PermissionRefused):
        store.record_action(viewer, "settings", permission="manage_settings")
    did = store.create_debate(small_case(), "cross_critique", {}, {}, actor=identity.local_label("rev", "reviewer"))
    log = store.audit_log()
    assert [r["action"] for r in log] == ["start", "settings"]
    assert [r["action"] for r in store.audit_log(target=did)] == ["start"]


def test_a_real_debate_lands_in_the_store(store):
    from helpers import ALA_R1, NLA_R1, SUPERVISOR, cassette, minor3

    from debate_core.engine.runtime import DebateSettings
    from debate_core.jobs.debates import run_debate
    from debate_core.providers import ReplayProvider

    calls = [("r1.answer.nla", NLA_R1), ("r1.answer.ala", ALA_R1), ("r1.critique.nla.ala", minor3()),
             ("r1.critique.ala.nla", minor3()), ("r2.revise.nla", NLA_R1), ("r2.revise.ala", ALA_R1),
             ("final.supervisor", SUPERVISOR)]
    result = run_debate(small_case(), "cross_critique", provider=ReplayProvider(cassette(calls)), store=store,
                        settings=DebateSettings(agents=[{"id": "nla"}, {"id": "ala"}]))
    d = store.get_debate(result.debate_id)
    assert d["status"] == "completed" and len(d["steps"]) == 7
    assert len(store.critiques(result.debate_id)) == 6
    kinds = [e["kind"] for e in store.events(result.debate_id)]
    assert kinds[0] == "debate_started" and kinds[-1] == "completed" and kinds.count("round_closed") == 2


def test_a_url_of_another_scheme_is_one_line_and_creates_nothing(tmp_path, monkeypatch):
    from debate_core.store import StoreError

    monkeypatch.chdir(tmp_path)
    for url in ("mysql://u@h/db", "sqlite:///x.db"):
        with pytest.raises(StoreError, match=r"^cannot open the database: \w+:// is not supported"):
            DebateStore(url)
        with pytest.raises(StoreError, match="is not supported"):
            DebateStore.for_reading(url)
    assert list(tmp_path.iterdir()) == []


def test_a_refused_postgres_connection_is_one_line():
    from debate_core.store import StoreError

    with pytest.raises(StoreError, match=r"^cannot open the database postgresql://u:\*\*\*@127\.0\.0\.1:1/x: ") as err:
        DebateStore("postgresql://u:secret@127.0.0.1:1/x", busy_timeout=2)
    assert "secret" not in str(err.value) and "\n" not in str(err.value)


def test_a_postgres_reader_cannot_write(pg_url):
    from debate_core.store import StoreError

    DebateStore(pg_url).close()
    reader = DebateStore.for_reading(pg_url)
    with pytest.raises(StoreError, match="read-only"):
        reader.create_debate(small_case(), "cross_critique", {}, {})
    reader.close()


def test_the_command_line_runs_lists_shows_and_reviews_on_every_backend(location):
    import json

    from test_cli import CASE, cli_process

    run = cli_process("run", str(CASE), "--protocol", "cross_critique", "--json", db=location, check=True)
    did = json.loads(run.stdout)["debate_id"]
    assert did in cli_process("list", db=location, check=True).stdout
    assert "Bustami" in cli_process("show", did, db=location, check=True).stdout
    cli_process("review", did, "--action", "escalate", "--reviewer", "ann", "--reason", "norm conflict",
                db=location, check=True)
    store = DebateStore.for_reading(location)
    assert store.get_debate(did, with_steps=False)["review_state"] == "escalated"
    store.close()


_WRITER = """
import sys
sys.path.insert(0, "tests")
from test_store import completed
from debate_core.store import DebateStore
store = DebateStore(sys.argv[1])
for _ in range(int(sys.argv[2])):
    completed(store)
store.close()
"""


def test_several_processes_write_one_database_at_once(location, open_store):
    import subprocess
    import sys
    from pathlib import Path

    open_store()  # migrated before the writers start, as a deployment does
    root = Path(__file__).resolve().parent.parent
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, location, "4"], cwd=root, stderr=subprocess.PIPE,
                              text=True) for _ in range(3)]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], errors
    check = open_store()
    assert check.count_debates() == 12
    assert check.analytics_overall()["completed"] == 12


@pytest.mark.parametrize("location", ["mysql://u@h/x", "sqlite:///x.db", "postgresql://u:secret@127.0.0.1:1/x",
                                      "postgresql://bad url"])
@pytest.mark.parametrize("command", [["list"], ["run", "CASE", "--protocol", "cross_critique"]])
def test_a_bad_location_is_one_line_exit_2_and_creates_nothing(location, command, tmp_path, monkeypatch, capsys):
    from test_cli import CASE

    from debate_core.cli import main

    monkeypatch.chdir(tmp_path)
    code = main(["--db", location, *[str(CASE) if a == "CASE" else a for a in command]])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: cannot open the database") and err.count("\n") == 1
    assert "secret" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_writer_held_up_too_long_gets_one_line(location):
    from debate_core.store import StoreError

    holder, waiter = DebateStore(location), DebateStore(location, busy_timeout=0.5)
    did = holder.create_debate(small_case(), "cross_critique", {}, {})
    inside, release = threading.Event(), threading.Event()

    def hold():
        with holder._write():
            holder.sql.execute("UPDATE debates SET title = 'held' WHERE id = ?", [did])
            inside.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert inside.wait(10)
        with pytest.raises(StoreError, match=r"another process kept it locked for over 0\.5 s$"):
            waiter.review(did, action="escalate", reviewer="ann", reason="r")
    finally:
        release.set()
        t.join()
    holder.close()
    waiter.close()


def test_both_schemas_have_the_same_tables_and_columns(pg_url, tmp_path):
    """A schema change written for one backend only is caught here (migrations.py and postgres_schema.py)."""
    lite, pg = DebateStore(tmp_path / "schema.db"), DebateStore(pg_url)
    sqlite_columns = {(t, r[1]) for t in lite.sql.table_names() if not t.startswith("debate_search")
                      for r in lite.sql.execute(f"PRAGMA table_info({t})").fetchall()}
    pg_columns = {tuple(r) for r in pg.sql.execute(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name != 'debate_search'").fetchall()}
    lite.close()
    pg.close()
    assert sqlite_columns == pg_columns
