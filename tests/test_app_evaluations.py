"""Evaluations page: stored evaluations, the per-method table and plots, links to every run's
debate, and an evaluation started from the page on the background worker."""

from __future__ import annotations

from helpers import open_tab
from test_evaluation import PRICES, SCENARIO, build

from debate_core.core.pricing import parse_price_table
from debate_core.evaluation import harness as evaluation
from debate_core.jobs import worker
from debate_core.store import DebateStore


def _open(app):
    app.run()
    app.switch_page("pages/evaluations.py").run()
    assert not app.exception
    return app


def test_empty_state(app):
    _open(app)
    assert any("No evaluations yet" in i.value for i in app.info)


def test_a_stored_evaluation_shows_its_methods_plots_and_runs(app, db_path, tmp_path):
    cases, tapes = build(tmp_path, SCENARIO)
    plan = evaluation.prepare([cases], "dialectic", baselines=["single", "majority"], provider="replay",
                              provider_options={"cassette": str(tapes)}, prices=parse_price_table(PRICES))
    store = DebateStore(db_path)
    report = evaluation.run(plan, store)
    store.close()

    _open(app)
    listed = app.dataframe[0].value.to_dict("records")
    assert listed[0]["protocol"] == "dialectic" and listed[0]["runs"] == "12 of 12" and listed[0]["state"] == "completed"
    methods = {r["method"]: r for r in app.dataframe[1].value.to_dict("records")}
    assert methods["majority"]["right"] == "100%" and methods["majority"]["right vs single"] == "+25 pts"
    assert methods["dialectic"]["silent wrong"] == "25%" and methods["dialectic"]["over-flagged"] == "25%"
    assert methods["single"]["total cost"] == "0.0002 EUR"
    assert {c.key for c in app.get("plotly_chart")} == {"ev-right-tokens", "ev-silent-wrong"}
    runs = app.dataframe[2].value.to_dict("records")
    assert len(runs) == 12
    by = {(r["case"], r["method"]): r for r in runs}
    assert by[("c2", "dialectic")]["outcome"] == "silent wrong"
    assert by[("c4", "dialectic")]["outcome"] == "right, flagged for nothing"
    ids = {(r["case"], r["method"]): r["debate_id"] for r in report["rows"]}
    assert by[("c2", "majority")]["debate"] == f"/debate?id={ids[('c2', 'majority')]}"


def test_a_baseline_run_opens_on_the_debate_page(app, db_path, tmp_path):
    cases, tapes = build(tmp_path, {"c2": SCENARIO["c2"]})
    plan = evaluation.prepare([cases], "dialectic", baselines=["majority"], provider="replay",
                              provider_options={"cassette": str(tapes)})
    store = DebateStore(db_path)
    report = evaluation.run(plan, store)
    store.close()
    debate_id = next(r["debate_id"] for r in report["rows"] if r["method"] == "majority")
    app.query_params["id"] = debate_id
    app.run()
    app.switch_page("pages/debate.py").run()
    assert not app.exception
    texts = [m.value for m in app.markdown]
    assert "**granted**" in texts  # the vote's answer heads the verdict card
    assert any("gave no majority answer" in t for t in texts)
    open_tab(app, "Rounds")  # the debate opens on its verdict; the samples are its rounds
    assert {"**s1**", "**s2**", "**s3**"} <= {m.value for m in app.markdown}  # every sample's answer is shown


def test_an_evaluation_started_on_the_page_runs_on_the_worker(app, db_path):
    _open(app)
    app.selectbox(key="ev-protocol").select("arbitration").run()
    app.multiselect(key="ev-sources").set_value(["Sample cases"])
    app.multiselect(key="ev-baselines").set_value(["single"])
    next(b for b in app.button if b.label == "Start evaluation").click().run()
    assert not app.exception
    store = DebateStore(db_path)
    [started] = store.list_evaluations()
    store.close()
    assert worker.wait_evaluation(started["id"], timeout=120)
    app.run()
    assert not app.exception
    store = DebateStore(db_path)
    ev = store.get_evaluation(started["id"])
    store.close()
    assert ev["status"] == "completed" and ev["done_runs"] == ev["total_runs"] == 4
    assert ev["cases"] == ["arbitration_agreeing_reports", "arbitration_qatar_labour"]
    methods = {r["method"] for r in app.dataframe[1].value.to_dict("records")}
    assert methods == {"arbitration", "single"}
