"""Resume in the app: a failed debate offers Resume, which starts a linked debate that reuses the
completed steps and runs the rest, and the page follows it."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest
from test_queue_workers import _failed_debate

from debate_core.jobs import worker
from debate_core.store import DebateStore


def _ok(app: AppTest) -> AppTest:
    assert not app.exception, [e.message for e in app.exception]
    return app


def _open(app: AppTest, debate_id: str, reviewer: str | None) -> AppTest:
    app.run()
    if reviewer is not None:
        app.session_state["reviewer_name"] = reviewer
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    return _ok(app.run())


def test_a_failed_debate_resumes_from_the_page(app, db_path, monkeypatch):
    failed_id, ok = _failed_debate(str(db_path), monkeypatch)
    monkeypatch.setenv("DEBATE_DB", str(db_path))  # _failed_debate undid this test's patches
    _open(app, failed_id, "Ann")
    assert any("This debate failed" in e.value for e in app.error)
    _ok(app.button(key=f"resume-{failed_id}").click().run())
    new_id = app.session_state["debate_id"]
    assert new_id != failed_id and app.query_params.get("id") == new_id
    assert worker.wait(new_id, 60)
    store = DebateStore(db_path, readonly=True)
    new = store.get_debate(new_id)
    store.close()
    assert new["status"] == "completed" and new["resumed_from"] == failed_id
    assert sum(s["model"] == "stored" for s in new["steps"]) == ok


def test_a_viewer_is_told_why_there_is_no_resume(app, db_path, monkeypatch):
    failed_id, _ok_steps = _failed_debate(str(db_path), monkeypatch)
    monkeypatch.setenv("DEBATE_DB", str(db_path))
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "viewer")
    _open(app, failed_id, "Vic")
    assert not [b for b in app.button if b.key == f"resume-{failed_id}"]
    assert any("start" in c.value for c in app.caption)
