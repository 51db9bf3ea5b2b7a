"""The store: migrations, event persistence, search, the append-only review trail and its lock."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from helpers import SUPERVISOR, finished_event_data, small_case

from debate_core.core import identity
from debate_core.core.app_settings import AppSettings, save_settings
from debate_core.core.events import Event
from debate_core.core.review_rules import RoleError
from debate_core.jobs.debates import run_debate
from debate_core.store import MIGRATIONS, DebateStore, ReviewConflict, ReviewError, StoreError


@pytest.fixture
def store():
    s = DebateStore(memory=True)
    yield s
    s.close()


def completed(store, answer="The daughters keep the sawah.", review=False):
    did = store.create_debate(small_case(), "cross_critique", {"provider": "offline", "model": "m"}, {})
    store.record(did, Event("turn_started", "r1.answer.nla", {"call": 1, "round": 1, "stage": "answer", "agent": "nla",
                                                              "prompt": [{"role": "user", "content": "q"}]}))
    store.record(did, Event("turn_finished", "r1.answer.nla", finished_event_data(
        "r1.answer.nla",
        {"answer": answer, "claims": [{"id": "C1", "statement": "Sawah is pusaka tinggi of the kaum",
                                       "evidence": ["E3"], "confidence": 0.7, "verified": True}]},
        calls=1, input_tokens=10, output_tokens=4)))
    store.record(did, Event("completed", None, {"rounds": 2, "converged": True, "verdict": {
        "answer": answer, "confidence": 0.7, "needs_human_review": review, "escalation_reasons": []}}))
    return did


def test_migrations_are_recorded_and_idempotent(tmp_path):
    path = tmp_path / "x.db"
    first = DebateStore(path)
    assert [n for n, _ in MIGRATIONS][0] == "0001_initial"
    assert {r["name"] for r in first.db["_migrations"].rows} == {n for n, _ in MIGRATIONS}
    first.close()
    again = DebateStore(path)
    assert again.migrate() == []
    assert again.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_events_fill_steps_claims_usage_and_the_search_index(store):
    did = completed(store)
    d = store.get_debate(did)
    assert d["status"] == "completed" and d["input_tokens"] == 10 and d["calls"] == 1
    assert d["steps"][0]["status"] == "ok" and d["steps"][0]["output"]["answer"]
    assert store.claims(did)[0]["statement"].startswith("Sawah")
    assert [r["id"] for r in store.list_debates(search="kaum")] == [did]  # claim text
    assert [r["id"] for r in store.list_debates(search="daught")] == [did]  # answer, prefix
    assert store.list_debates(search="nonexistentword") == []
    assert store.list_debates(search='"; DROP TABLE debates; --') == []
    assert store.count_debates() == 1


def test_failed_step_keeps_raw_output(store):
    did = store.create_debate(small_case(), "cross_critique", {"provider": "openai"}, {})
    store.record(did, Event("turn_started", "r1.answer.ala", {"call": 1, "stage": "answer", "agent": "ala"}))
    store.record(did, Event("turn_failed", "r1.answer.ala", {"call": 1, "error": "bad json", "raw": "{oops",
                                                             "attempts": 3, "input_tokens": 30}))
    store.record(did, Event("failed", "r1.answer.ala", {"error": "step r1.answer.ala failed"}))
    d = store.get_debate(did)
    assert d["status"] == "failed" and d["failed_step"] == "r1.answer.ala"
    assert d["steps"][0]["raw_output"] == "{oops" and d["steps"][0]["attempts"] == 3
    assert d["input_tokens"] == 30


def test_review_actions_append_to_the_audit_trail(tmp_path):
    store = DebateStore(tmp_path / "r.db")
    did = completed(store)
    with pytest.raises(ReviewError, match="needs a reason"):
        store.review(did, action="escalate", reviewer="ann")
    with pytest.raises(ReviewError, match="reviewer name"):
        store.review(did, action="accept", reviewer=" ")
    store.review(did, action="escalate", reviewer="ann", reason="norm conflict")
    with pytest.raises(ReviewError, match="already reviewed"):
        store.review(did, action="accept", reviewer="bob")
    store.review(did, action="override", reviewer="sue", answer="Divide acquired property only.", reason="MA practice",
                 supervisor=True)
    d = store.get_debate(did)
    # A supervisor's override of an escalation settles it: not the same as a reviewer's override.
    assert d["review_state"] == "settled" and d["final_answer"] == "Divide acquired property only."
    trail = [(r["reviewer"], r["role"], r["action"], r["state_before"], r["state_after"]) for r in d["reviews"]]
    assert trail == [("ann", "reviewer", "escalate", "pending", "escalated"),
                     ("sue", "supervisor", "override", "escalated", "settled")]
    assert d["reviews"][1]["answer_before"] == "The daughters keep the sawah."
    assert store.escalation_queue() == []


def test_two_reviewers_at_once_cannot_both_win(tmp_path):
    path = tmp_path / "r.db"
    setup = DebateStore(path)
    did = completed(setup)
    version = setup.get_debate(did)["version"]
    results: list[str] = []
    barrier = threading.Barrier(2)

    def act(name, action, **kw):
        own = DebateStore(path)  # each reviewer has their own connection, as two browser sessions do
        barrier.wait()
        try:
            own.review(did, action=action, reviewer=name, expected_version=version, **kw)
            results.append(f"{name}:ok")
        except (ReviewConflict, ReviewError):
            results.append(f"{name}:refused")

    threads = [threading.Thread(target=act, args=("ann", "accept")),
               threading.Thread(target=act, args=("bob", "override"), kwargs={"answer": "x", "reason": "y"})]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.split(":")[1] for r in results) == ["ok", "refused"]
    assert len(setup.reviews(did)) == 1


def test_stale_version_gets_a_clear_message(store):
    did = completed(store)
    store.review(did, action="accept", reviewer="ann", expected_version=0)
    with pytest.raises(ReviewConflict, match="changed by someone else"):
        store.review(did, action="escalate", reviewer="bob", reason="r", expected_version=0)


def test_filters_and_analytics(store):
    a = completed(store, review=True)
    b = completed(store)
    store.review(a, action="escalate", reviewer="ann", reason="r")
    store.review(b, action="accept", reviewer="bob")
    assert [r["id"] for r in store.list_debates(reviewer="bob")] == [b]
    assert [r["id"] for r in store.list_debates(review_state="escalated")] == [a]
    assert [r["id"] for r in store.list_debates(needs_review=True)] == [a]
    assert store.list_debates(protocol="panel") == []
    row = store.analytics()[0]
    assert row["debates"] == 2 and row["escalation_rate"] == 0.5 and row["agreement_rate"] == 0.5
    assert store.reviewers() == ["ann", "bob"]


def test_a_real_debate_lands_in_the_store(store):
    from helpers import ALA_R1, NLA_R1, cassette, minor3

    from debate_core.engine.runtime import DebateSettings
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


def test_upgrade_from_the_first_schema_links_existing_search_rows(tmp_path):
    """A database written before migration 0002: its search rows get linked to their debates."""
    import sqlite_utils

    from debate_core.store import _m0001

    path = tmp_path / "old.db"
    old = sqlite_utils.Database(path)
    _m0001(old)
    old["_migrations"].insert({"name": "0001_initial", "applied_at": "2026-01-01T00:00:00Z"}, pk="name")
    old["debates"].insert({"id": "old-1", "case_id": "c", "title": "t", "question": "Who keeps the sawah?",
                           "protocol": "cross_critique", "status": "completed", "created_at": "2026-01-01T00:00:00Z",
                           "final_answer": "Pusaka tinggi stays with the kaum.", "review_state": "pending",
                           "version": 0, "calls": 0, "input_tokens": 0, "output_tokens": 0})
    old.execute("INSERT INTO debate_search (debate_id, question, answer, claims) VALUES (?, ?, ?, '')",
                ["old-1", "Who keeps the sawah?", "Pusaka tinggi stays with the kaum."])
    old.conn.commit()
    old.close()
    upgraded = DebateStore(path)
    assert {r["name"] for r in upgraded.db["_migrations"].rows} == {n for n, _ in MIGRATIONS}
    assert [r["id"] for r in upgraded.list_debates(search="pusaka")] == ["old-1"]
    upgraded.review("old-1", action="override", reviewer="ann", answer="Nothing is divided yet.", reason="pending")
    assert [r["id"] for r in upgraded.list_debates(search="nothing divided")] == ["old-1"]
    assert upgraded.list_debates(search="kaum") == []  # the old answer left the index with the override


# ---------------------------------------------------------------------------
# Who may decide an escalation
# ---------------------------------------------------------------------------


def _escalated(tmp_path):
    store = DebateStore(tmp_path / "s.db")
    did = completed(store)
    store.review(did, action="escalate", reviewer="ann", reason="norm conflict")
    return store, did


def test_only_the_supervisor_role_may_decide_an_escalation(tmp_path):
    """The role comes from the actor the front end vouches for; a typed name decides nothing."""
    store, did = _escalated(tmp_path)
    bob = identity.verified({"sub": "b-1", "email": "bob@example.org", "name": "Bob", "iss": "https://idp"}, "reviewer")
    sue = identity.verified({"sub": "s-1", "email": "sue@example.org", "name": "Sue", "iss": "https://idp"}, "supervisor")
    with pytest.raises(RoleError, match="Bob has the reviewer role; only a supervisor or above may approve"):
        store.review(did, action="approve", actor=bob, supervisor=True)
    with pytest.raises(RoleError, match="Bob has the reviewer role"):
        store.review(did, action="override", actor=bob, answer="x", reason="y", supervisor=True)
    # A viewer may not even accept, and a label in a demo set to viewers neither.
    viewer = identity.local_label("Sue", "viewer")
    with pytest.raises(RoleError, match="Sue has the viewer role; only a reviewer or above may accept"):
        store.review(did, action="approve", actor=viewer)
    with pytest.raises(ReviewError, match="only a supervisor may approve"):
        store.review(did, action="approve", actor=bob)
    d = store.get_debate(did)
    assert (d["review_state"], d["version"], len(d["reviews"])) == ("escalated", 1, 1)  # nothing written
    entry = store.review(did, action="approve", actor=sue, supervisor=True)
    assert (entry["role"], entry["state_after"], entry["actor_kind"], entry["actor_email"], entry["actor_provider"]) == (
        "supervisor", "approved", "verified", "sue@example.org", "https://idp")


def test_the_operator_at_the_command_line_may_decide_and_is_recorded_as_such(tmp_path):
    store, did = _escalated(tmp_path)
    entry = store.review(did, action="approve", reviewer="sue", supervisor=True)
    assert (entry["reviewer"], entry["actor_kind"], entry["role"]) == ("sue", "operator", "supervisor")
    assert store.get_debate(did)["reviews"][0]["actor_kind"] == "operator"


def test_undo_is_for_the_same_verified_person_not_the_same_name(tmp_path):
    store = DebateStore(tmp_path / "u.db")
    did = completed(store)
    ann = identity.verified({"sub": "a-1", "name": "Ann", "iss": "https://idp"}, "reviewer")
    other_ann = identity.verified({"sub": "a-2", "name": "Ann", "iss": "https://idp"}, "reviewer")
    store.review(did, action="accept", actor=ann)
    with pytest.raises(ReviewError, match="only Ann can undo their accept"):
        store.review(did, action="undo", actor=other_ann)
    with pytest.raises(ReviewError, match="only Ann can undo"):
        store.review(did, action="undo", actor=identity.local_label("Ann", "admin"))
    assert store.review(did, action="undo", actor=ann)["state_after"] == "pending"


def test_starting_and_settings_changes_are_checked_and_audited(tmp_path):
    store = DebateStore(tmp_path / "a.db")
    viewer = identity.verified({"sub": "v-1", "name": "Vic", "iss": "https://idp"}, "viewer")
    admin = identity.verified({"sub": "ad-1", "name": "Ada", "email": "ada@example.org", "iss": "https://idp"}, "admin")
    with pytest.raises(identity.PermissionRefused, match="Vic has the viewer role; only a reviewer or above may start"):
        store.create_debate(small_case(), "cross_critique", {"provider": "offline"}, {}, actor=viewer)
    assert store.count_debates() == 0
    did = store.create_debate(small_case(), "cross_critique", {"provider": "offline"}, {}, actor=admin)
    saved = []
    with pytest.raises(identity.PermissionRefused, match="only an admin or above may change the app's settings"):
        store.record_action(viewer, "settings", permission="manage_settings", apply=lambda: saved.append(1),
                            detail="x")
    assert saved == []
    store.record_action(admin, "settings", permission="manage_settings", apply=lambda: saved.append(1),
                        detail="default provider offline")
    rows = store.audit_log()
    assert [(r["action"], r["target"], r["reviewer"], r["actor_kind"], r["actor_email"]) for r in rows] == [
        ("settings", None, "Ada", "verified", "ada@example.org"), ("start", did, "Ada", "verified", "ada@example.org")]
    assert saved == [1]


# ---------------------------------------------------------------------------
# Database faults: one readable line, nothing half-written
# ---------------------------------------------------------------------------


def _filled(path, debates=3):
    store = DebateStore(path)
    for _ in range(debates):
        completed(store)
    store.close()  # the last connection checkpoints the WAL into the file and removes it
    return path


def test_a_directory_is_refused_in_one_line(tmp_path):
    with pytest.raises(StoreError, match=r"cannot open the database .*: it is a directory$"):
        DebateStore(tmp_path)


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 200, encoding="utf-8")
    with pytest.raises(StoreError, match="the file is not a SQLite database"):
        DebateStore(path)
    assert path.read_text(encoding="utf-8").startswith("these are my notes")  # untouched


def test_a_damaged_database_is_detected_before_anything_is_written(tmp_path):
    good = _filled(tmp_path / "good.db", debates=6)
    check = sqlite3.connect(good)
    page_size, pages = (check.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_size", "page_count"))
    assert check.execute("PRAGMA freelist_count").fetchone()[0] == 0  # every page is in use
    check.close()
    data = bytearray(good.read_bytes())
    middle = page_size * (pages // 2)
    data[middle:middle + page_size] = b"\xab" * page_size  # one whole page in the middle is garbage
    # A copy, as a damaged file arrives: this process already checked the good file and trusts it.
    path = tmp_path / "bad.db"
    path.write_bytes(bytes(data))
    before = path.read_bytes()
    # Whether quick_check lists the damage or SQLite refuses the page outright depends on what the
    # garbage page held (a table's rows or an index's root); either way the open stops with one line.
    with pytest.raises(StoreError, match=r"it is damaged \((quick_check: .+|database disk image is malformed)\)"):
        DebateStore(path)
    assert path.read_bytes() == before


def test_writing_to_a_read_only_connection_is_one_line(tmp_path):
    path = _filled(tmp_path / "ro.db", debates=1)
    ro = DebateStore(path, readonly=True)
    with pytest.raises(StoreError, match=r"cannot write the database .*ro\.db: it is read-only"):
        ro.create_debate(small_case(), "cross_critique", {"provider": "offline"}, {})
    ro.close()
    assert DebateStore(path).count_debates() == 1


def test_a_full_disk_mid_debate_is_one_line_and_keeps_what_was_saved(tmp_path):
    store = DebateStore(tmp_path / "full.db")
    did = store.create_debate(small_case(), "cross_critique", {"provider": "offline"}, {})
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages + 1}")  # this connection may grow the file by one page
    big = "x" * 20_000
    with pytest.raises(StoreError, match=r"cannot write the database .*full\.db: the disk is full$"):
        for n in range(50):
            store.record(did, Event("warning", None, {"message": f"{n} {big}"}))
    store.db.execute("PRAGMA max_page_count = 1073741823")
    # The failed event left nothing behind, and the store is usable again once there is room.
    stored = [e["data"]["message"][:3] for e in store.events(did)]
    assert stored == [f"{n} x" for n in range(len(stored))]
    store.record(did, Event("failed", None, {"error": "stopped: the disk was full"}))
    assert store.get_debate(did, with_steps=False)["status"] == "failed"


def test_undo_restores_the_state_before_and_is_audited(tmp_path):
    store = DebateStore(tmp_path / "u.db")
    save_settings(AppSettings(supervisors=["Sue"]), store.path)
    did = completed(store)
    before = store.get_debate(did)
    store.review(did, action="override", reviewer="ann", answer="The kaum keeps the sawah.", reason="E4")
    with pytest.raises(ReviewError, match="only ann can undo"):
        store.review(did, action="undo", reviewer="bob")
    entry = store.review(did, action="undo", reviewer="ANN")  # names match without regard to case
    assert (entry["action"], entry["state_before"], entry["state_after"]) == ("undo", "overridden", "pending")
    d = store.get_debate(did)
    assert d["review_state"] == "pending" and d["final_answer"] == before["final_answer"]
    assert d["reviewed_by"] is None
    assert [r["action"] for r in d["reviews"]] == ["override", "undo"]
    assert d["reviews"][-1]["answer_after"] == before["final_answer"]
    # An undo cannot itself be undone, and after it the debate can be reviewed again.
    with pytest.raises(ReviewError, match="no review action to undo"):
        store.review(did, action="undo", reviewer="ann")
    store.review(did, action="escalate", reviewer="ann", reason="norm conflict")
    store.review(did, action="approve", reviewer="sue", supervisor=True)
    # Something happened after ann's escalation: it is no longer her last action to take back.
    with pytest.raises(ReviewError, match="only sue can undo"):
        store.review(did, action="undo", reviewer="ann")
    store.review(did, action="undo", reviewer="sue", supervisor=True)
    d = store.get_debate(did)
    assert (d["review_state"], d["reviewed_by"]) == ("escalated", "ann")
    assert store.escalation_queue()[0]["id"] == did


def test_undo_refuses_a_stale_page(tmp_path):
    store = DebateStore(tmp_path / "s.db")
    did = completed(store)
    entry = store.review(did, action="accept", reviewer="ann")
    with pytest.raises(ReviewConflict):
        store.review(did, action="undo", reviewer="ann", expected_version=entry["version"] - 1)
    assert store.get_debate(did)["review_state"] == "accepted"


def test_settled_counts_as_an_override_in_analytics(tmp_path):
    store = DebateStore(tmp_path / "a.db")
    save_settings(AppSettings(supervisors=["sue"]), store.path)
    did = completed(store)
    store.review(did, action="escalate", reviewer="ann", reason="unclear")
    store.review(did, action="override", reviewer="Sue", answer="Other.", reason="E4", supervisor=True)
    overall = store.analytics_overall()
    assert overall["override_rate"] == 1 and overall["agreement_rate"] == 0
    assert [d["id"] for d in store.list_debates(reviewer="SUE")] == [did]
