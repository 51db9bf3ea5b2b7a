"""Evaluation runs are kept apart from real work: marked with their evaluation in the store, left
out of History, the review queues, Analytics and `list` unless asked for, and reached from their
evaluation (the Evaluations page links each run; the debate page names its evaluation)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import small_case
from streamlit.testing.v1 import AppTest
from test_cli import cli
from test_store_upgrade import _copy_rows, migrations_of

import debate_core.store as store_module
from debate_core.evaluation import harness as evaluation
from debate_core.jobs.debates import run_debate
from debate_core.providers import make_provider
from debate_core.store import MIGRATIONS, DebateStore

ROOT = Path(__file__).resolve().parent.parent
CASES = [ROOT / "data/eval/dev/dialectic_auto_renewal_clause.json",
         ROOT / "data/eval/dev/dialectic_limitation_of_liability_clause.json"]
THIS = "0011_evaluation_runs"


def real_work(db: Path, n: int = 2) -> list[str]:
    """`n` real debates on the offline provider, the first one escalated by a reviewer."""
    store = DebateStore(db)
    try:
        ids = [run_debate(small_case(), "cross_critique", provider=make_provider("offline"), store=store).debate_id
               for _ in range(n)]
        store.review(ids[0], action="escalate", reviewer="ann", reason="Needs a supervisor.")
    finally:
        store.close()
    return ids


def run_evaluation(db: Path) -> dict[str, Any]:
    """A real evaluation through the harness: two labelled cases, the protocol and one baseline."""
    plan = evaluation.prepare(CASES, "dialectic", baselines=["single"], provider="offline")
    store = DebateStore(db)
    try:
        return evaluation.run(plan, store)
    finally:
        store.close()


def snapshot(store: DebateStore) -> dict[str, Any]:
    """Everything History, the queues and Analytics read."""
    return {
        "list": [d["id"] for d in store.list_debates(limit=1000)],
        "count": store.count_debates(),
        "queue": [d["id"] for d in store.escalation_queue()],
        "flagged": [d["id"] for d in store.list_debates(status="completed", needs_review=True,
                                                         review_state="pending", limit=500)],
        "analytics": store.analytics(),
        "overall": store.analytics_overall(),
        "quartiles": store.token_quartiles(),
        "trends": store.trends("day"),
        "tokens_by_model": store.tokens_by_model(),
        "claim_labels": store.claim_labels_by_protocol(),
        "search": [d["id"] for d in store.list_debates(search="clause", limit=1000)],
    }


def evaluation_debates(report: dict[str, Any]) -> set[str]:
    return {r["debate_id"] for r in report["rows"] if r.get("debate_id")}


# The store ------------------------------------------------------------------------------------------

def test_an_evaluation_leaves_lists_queues_and_analytics_unchanged(tmp_path):
    db = tmp_path / "d.db"
    real = real_work(db)
    store = DebateStore(db)
    before = snapshot(store)
    store.close()
    assert set(before["list"]) == set(real) and before["queue"] == [real[0]]

    report = run_evaluation(db)
    runs = evaluation_debates(report)
    assert len(runs) == 4  # 2 cases x (dialectic, single)

    store = DebateStore(db)
    try:
        assert snapshot(store) == before
        # Each run is marked with the evaluation that made it; real work is not.
        for debate_id in runs:
            assert store.get_debate(debate_id, with_steps=False)["evaluation_id"] == report["evaluation_id"]
        for debate_id in real:
            assert store.get_debate(debate_id, with_steps=False)["evaluation_id"] is None
        # A filter that asks for them gets them.
        every = {d["id"] for d in store.list_debates(include_evaluations=True, limit=1000)}
        assert every == set(real) | runs
        assert store.count_debates(include_evaluations=True) == len(real) + len(runs)
        assert {d["id"] for d in store.list_debates(evaluation_id=report["evaluation_id"])} == runs
        protocols = {r["protocol"] for r in store.analytics(include_evaluations=True)}
        assert {"single", "dialectic", "cross_critique"} <= protocols
        assert {r["protocol"] for r in store.analytics()} == {"cross_critique"}
        assert store.analytics_overall(include_evaluations=True)["debates"] == len(real) + len(runs)
        assert sum(r["debates"] for r in store.tokens_by_model(include_evaluations=True)) == len(real) + len(runs)
        # They are reached from their evaluation.
        assert {r["debate_id"] for r in store.get_evaluation(report["evaluation_id"])["rows"]} == runs
    finally:
        store.close()


# The CLI --------------------------------------------------------------------------------------------

def test_cli_list_leaves_evaluation_runs_out_unless_asked(tmp_path):
    db = tmp_path / "d.db"
    real = real_work(db)
    report = run_evaluation(db)
    runs = evaluation_debates(report)

    plain = json.loads(cli("list", "--json", db=db, check=True).stdout)
    assert {d["id"] for d in plain} == set(real)
    shown = json.loads(cli("list", "--json", "--include-evaluations", db=db, check=True).stdout)
    assert {d["id"] for d in shown} == set(real) | runs
    assert {d["evaluation_id"] for d in shown if d["id"] in runs} == {report["evaluation_id"]}

    text = cli("list", db=db, check=True).stdout
    assert all(r in text for r in real) and not any(r in text for r in runs)
    text = cli("list", "--include-evaluations", db=db, check=True).stdout
    assert all(r in text for r in runs) and f"(evaluation {report['evaluation_id']})" in text
    # `show` still reads one by its id.
    some = sorted(runs)[0]
    assert some in cli("show", some, "--json", db=db, check=True).stdout


# Upgrading an older database ------------------------------------------------------------------------

def test_an_upgrade_back_fills_the_evaluation_of_existing_runs(tmp_path):
    current, older = tmp_path / "current.db", tmp_path / "older.db"
    real = real_work(current)
    report = run_evaluation(current)
    runs = evaluation_debates(report)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(store_module, "MIGRATIONS", [m for m in MIGRATIONS if m[0] != THIS])
        DebateStore(older).close()
    _copy_rows(older, current)
    assert THIS not in migrations_of(older)
    con = sqlite3.connect(older)
    assert "evaluation_id" not in {r[1] for r in con.execute("PRAGMA table_info(debates)")}
    # A run that failed before its evaluation row named it is known by its stored settings alone.
    orphan = sorted(runs)[0]
    con.execute("UPDATE evaluation_rows SET debate_id = NULL WHERE debate_id = ?", [orphan])
    con.commit()
    con.close()

    store = DebateStore(older)  # a writable open migrates, after a backup
    try:
        assert THIS in store.migrated
        for debate_id in runs:
            assert store.get_debate(debate_id, with_steps=False)["evaluation_id"] == report["evaluation_id"]
        for debate_id in real:
            assert store.get_debate(debate_id, with_steps=False)["evaluation_id"] is None
        assert {d["id"] for d in store.list_debates(limit=100)} == set(real)
        assert store.count_debates() == len(real)
    finally:
        store.close()


# The app --------------------------------------------------------------------------------------------

def _page(app: AppTest, page: str) -> AppTest:
    app.run()
    app.switch_page(page).run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def _shown(app: AppTest) -> dict[str, Any]:
    """What a page shows: its texts (markdown, captions, metrics, subheaders) and its tables."""
    texts = [e.value for kind in ("markdown", "caption", "subheader", "info", "success") for e in getattr(app, kind)]
    metrics = [(m.label, m.value) for m in app.metric]
    tables = {t.key if hasattr(t, "key") else i: t.value.to_dict("list") for i, t in enumerate(app.dataframe)}
    return {"texts": texts, "metrics": metrics, "tables": tables}


def _new_app(db_path: Path, app: AppTest) -> AppTest:
    """A fresh app on the same database (the `app` fixture's patch of AppTest stays in force)."""
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)


PAGES = ["pages/history.py", "pages/escalations.py", "pages/analytics.py"]


def test_history_escalations_and_analytics_are_untouched_by_an_evaluation(app, db_path):
    real_work(db_path)
    before = {}
    for page in PAGES:
        before[page] = _shown(_page(_new_app(db_path, app), page))
    report = run_evaluation(db_path)
    runs = evaluation_debates(report)
    for page in PAGES:
        after = _shown(_page(_new_app(db_path, app), page))
        # Times of day ("last active", created) do not move; the only difference allowed is none.
        assert after == before[page], page
        assert not any(r in str(after) for r in runs), page

    # History's checkbox brings them in, marked with their evaluation.
    history = _page(_new_app(db_path, app), "pages/history.py")
    history.checkbox(key="h-evaluations").check().run()
    table = history.dataframe[0].value
    assert set(table["id"]) >= runs
    marked = dict(zip(table["id"], table["evaluation"], strict=True))
    assert {marked[r] for r in runs} == {report["evaluation_id"]}
    assert all(t.endswith("evaluation run") for i, t in zip(table["id"], table["debate"], strict=True) if i in runs)

    # Analytics counts them only when asked.
    analytics = _page(_new_app(db_path, app), "pages/analytics.py")
    debates = dict((m.label, m.value) for m in analytics.metric)["debates"]
    analytics.checkbox(key="a-evaluations").check().run()
    assert int(dict((m.label, m.value) for m in analytics.metric)["debates"]) == int(debates) + len(runs)


def test_the_evaluations_page_links_each_run_and_the_run_names_its_evaluation(app, db_path):
    report = run_evaluation(db_path)
    runs = evaluation_debates(report)
    page = _page(app, "pages/evaluations.py")
    assert not page.exception
    linked = str([t.value.to_dict("list") for t in page.dataframe])
    assert all(f"/debate?id={r}" in linked for r in runs)

    one = sorted(runs)[0]
    debate = _new_app(db_path, app)
    debate.query_params["id"] = one
    debate.run()
    debate.switch_page("pages/debate.py")
    debate.query_params["id"] = one
    debate.run()
    assert not debate.exception, [e.message for e in debate.exception]
    captions = [c.value.replace("\\", "") for c in debate.caption]  # ids are shown markdown-escaped
    assert any(f"made by evaluation {report['evaluation_id']}" in c for c in captions), captions
    assert any("Evaluations" in str(getattr(link, "label", "")) for link in debate.get("page_link"))


def test_a_resumed_evaluation_run_stays_with_its_evaluation(tmp_path):
    from debate_core.core.events import Event
    from debate_core.jobs.debates import prepare_resume

    store = DebateStore(tmp_path / "r.db")
    try:
        did = store.create_debate(small_case(), "cross_critique", {"provider": "offline"}, {}, evaluation_id="ev-1")
        store.record(did, Event("failed", None, {"error": "the process stopped"}))
        plan = prepare_resume(store, did)
        assert store.get_debate(plan.debate_id, with_steps=False)["evaluation_id"] == "ev-1"
        assert [d["id"] for d in store.list_debates()] == []
    finally:
        store.close()
