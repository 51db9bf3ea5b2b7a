"""Analytics page: the numbers across debates and by protocol."""

from __future__ import annotations

from helpers import small_case

from debate_core.core.app_settings import AppSettings, save_settings
from debate_core.present import formatting
from debate_core.store import DebateStore


def _metrics(app) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


def test_empty_state(app):
    app.run()
    app.switch_page("pages/analytics.py").run()
    assert not app.exception
    assert any("No debates yet" in i.value for i in app.info)


def test_rates_and_agreement(app, make_debate, db_path):
    a = make_debate(small_case(), "cross_critique")
    b = make_debate(small_case(), "cross_critique")
    c = make_debate(small_case(), "dialectic")  # flagged by the moderator on this case
    make_debate(small_case(), "panel")  # not reviewed
    save_settings(AppSettings(supervisors=["sue"]), db_path)  # only a named supervisor may approve
    store = DebateStore(db_path)
    store.review(a, action="accept", reviewer="ann")
    store.review(b, action="override", reviewer="bob", answer="Other answer.", reason="Wrong share.")
    store.review(c, action="escalate", reviewer="ann", reason="Needs a supervisor.")
    store.review(c, action="approve", reviewer="sue", supervisor=True)
    rows = {r["protocol"]: r for r in store.analytics()}
    store.close()

    app.run()
    app.switch_page("pages/analytics.py").run()
    assert not app.exception
    m = _metrics(app)
    assert m["debates"] == "4"
    # 3 of 4 completed debates were flagged: the dialectic one, and both cross-critique debates, where a
    # norm-conflict critique of ala.C3 stays open because its critic keeps it.
    assert m["escalation rate"] == "75%"
    assert m["override rate"] == "33%"  # 1 of 3 reviewed
    assert m["reviewers agreed"] == "67%"  # accepted a, approved c
    table = {r["protocol"]: r for r in app.dataframe[0].value.to_dict("records")}
    assert table["cross_critique"]["override rate"] == formatting.pct(rows["cross_critique"]["override_rate"]) == "50%"
    assert table["dialectic"]["reviewers agreed"] == "100%"
    assert {c.key for c in app.get("plotly_chart")} == {"a-rates", "a-rounds", "a-tokens", "a-trend"}
