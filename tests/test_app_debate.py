"""Debate page: live and detail views, untrusted text shown literally, and the review actions."""

from __future__ import annotations

import time

import pytest
from helpers import open_tab, small_case
from streamlit.testing.v1 import AppTest

from debate_core.core.schemas import Case
from debate_core.jobs import worker
from debate_core.present import formatting
from debate_core.providers import make_provider
from debate_core.store import DebateStore

HOSTILE = "<script>alert('x')</script><img src=x onerror=alert(1)> **bold** [link](http://example.invalid)"


def _open(app: AppTest, debate_id: str, reviewer: str | None = "ann") -> AppTest:
    app.run()
    if reviewer is not None:
        # The sidebar's name field keeps its value in session state under this key.
        app.session_state["reviewer_name"] = reviewer
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    app.run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def _choose(app: AppTest, debate_id: str, action: str, supervisor: bool = False) -> AppTest:
    """Pick Accept, Override or Escalate in the review panel (a form opens only once chosen)."""
    app.button_group(key=f"{'sup-' if supervisor else ''}decision-{debate_id}").set_value(action).run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def _store(db_path) -> DebateStore:
    return DebateStore(db_path, readonly=True)


def _texts(app: AppTest) -> list[str]:
    return [t.value for t in app.text]


@pytest.mark.parametrize("protocol", ["cross_critique", "panel", "refinement", "dialectic", "arbitration"])
def test_detail_view_renders_for_every_protocol(app, make_debate, protocol):
    case = small_case()
    if protocol == "arbitration":
        case = Case.model_validate({**case.model_dump(), "reports": [
            {"agent": "a1", "metric": "share", "value": 25, "unit": "%", "citation": "E1", "confidence": 0.8},
            {"agent": "a2", "metric": "share", "value": 50, "unit": "%", "citation": "E2", "confidence": 0.7},
        ]})
    debate_id = make_debate(case, protocol)
    _open(app, debate_id)
    assert formatting.md_escape(case.title) == app.title[0].value
    tab_labels = [t.label for t in app.tabs]
    assert {"Rounds", "Claims", "Critiques", "Verdict details", "Plots"} <= set(tab_labels)
    _choose(app, debate_id, "Accept")
    assert app.button(key=f"accept-{debate_id}")
    # Measures over several rounds are plotted; a measure of one round is shown as its numbers.
    open_tab(app, "Plots")
    assert app.get("plotly_chart") or app.metric, "convergence measures and token use are shown"


def test_protocol_views_show_their_own_artifacts(app, make_debate):
    refinement = make_debate(small_case(), "refinement")
    open_tab(_open(app, refinement), "Protocol view")
    assert any(s.value == "Judge scores per hypothesis" for s in app.subheader)
    dialectic = make_debate(small_case(), "dialectic")
    open_tab(_open(app, dialectic), "Protocol view")
    assert any(s.value == "Thesis, antithesis, synthesis" for s in app.subheader)
    panel = make_debate(small_case(), "panel")
    open_tab(_open(app, panel), "Protocol view")
    assert any(s.value == "Persona stances" for s in app.subheader)
    open_tab(app, "Rounds")
    assert app.chat_message, "panel turns are chat messages"


def test_claims_table_marks_evidence_and_links_passages(app, make_debate, db_path):
    debate_id = make_debate(small_case(), "cross_critique")
    open_tab(_open(app, debate_id), "Claims")
    claims = _store(db_path).claims(debate_id)
    table = next(df.value for df in app.dataframe if "evidence check" in df.value.columns
                 or "verified" in df.value.columns)
    assert len(table) == len(claims)
    assert set(table["claim"]) == {c["claim_id"] for c in claims}
    # Selecting a claim shows the text of the passages its evidence ids name.
    app.session_state["claims-done"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    app.run()
    first = table.iloc[0]
    passages = {e["id"]: e["text"] for e in small_case().model_dump()["evidence"]}
    for eid in first["evidence"]:
        assert passages[eid] in _texts(app)


def test_untrusted_html_in_evidence_and_question_is_shown_literally(app, make_debate):
    data = small_case().model_dump()
    data["title"] = "Hostile <b>title</b>"
    data["question"] = f"Which rule applies? {HOSTILE}"
    data["evidence"][0]["text"] = f"Blood relatives inherit in equal shares. {HOSTILE}"
    debate_id = make_debate(Case.model_validate(data), "cross_critique")
    _open(app, debate_id)
    assert f"**Question:** {formatting.md_escape(data['question'])}" in [m.value for m in app.markdown]
    assert data["evidence"][0]["text"] in _texts(app)  # the Evidence tab, via st.text
    assert app.title[0].value == formatting.md_escape(data["title"])
    for m in app.markdown:
        assert not m.proto.allow_html
        assert "<script>" not in m.value, "raw tags never reach markdown unescaped"


def test_accept(app, make_debate, db_path):
    debate_id = make_debate()
    _open(app, debate_id)
    _choose(app, debate_id, "Accept")
    app.button(key=f"accept-{debate_id}").click().run()
    assert not app.exception
    assert any("accepted by ann" in s.value for s in app.success)
    debate = _store(db_path).get_debate(debate_id)
    assert debate["review_state"] == "accepted"
    [entry] = debate["reviews"]
    assert (entry["reviewer"], entry["action"], entry["state_before"], entry["state_after"]) == (
        "ann", "accept", "pending", "accepted")


def test_override_requires_answer_and_reason(app, make_debate, db_path):
    debate_id = make_debate()
    _open(app, debate_id)
    _choose(app, debate_id, "Override")
    app.text_area(key=f"override-answer-{debate_id}").set_value("The sawah stays with the kaum.")
    app.button(key=f"override-submit-{debate_id}").click().run()
    assert any("needs a reason" in e.value for e in app.error)
    assert _store(db_path).get_debate(debate_id)["review_state"] == "pending"
    # The validation error keeps the reviewer on the form they were filling in.
    assert app.button_group(key=f"decision-{debate_id}").value == "Override"

    app.text_area(key=f"override-answer-{debate_id}").set_value("The sawah stays with the kaum.")
    app.text_area(key=f"override-reason-{debate_id}").set_value("E3 and E4 say it is pusaka tinggi.")
    app.button(key=f"override-submit-{debate_id}").click().run()
    assert not app.exception
    debate = _store(db_path).get_debate(debate_id)
    assert debate["review_state"] == "overridden"
    assert debate["final_answer"] == "The sawah stays with the kaum."
    entry = debate["reviews"][-1]
    assert entry["reason"] == "E3 and E4 say it is pusaka tinggi."
    assert entry["answer_after"] == "The sawah stays with the kaum."
    assert entry["answer_before"] == debate["verdict"]["answer"]


def test_escalate_requires_a_reason_then_goes_to_the_queue(app, make_debate, db_path):
    debate_id = make_debate()
    _open(app, debate_id)
    _choose(app, debate_id, "Escalate")
    app.button(key=f"escalate-submit-{debate_id}").click().run()
    assert any("needs a reason" in e.value for e in app.error)
    app.text_area(key=f"escalate-reason-{debate_id}").set_value("Conflicting supreme court decisions.")
    app.button(key=f"escalate-submit-{debate_id}").click().run()
    assert not app.exception
    assert [d["id"] for d in _store(db_path).escalation_queue()] == [debate_id]


def test_review_needs_a_reviewer_name(app, make_debate, db_path):
    debate_id = make_debate()
    _open(app, debate_id, reviewer=None)
    assert any("Enter your name" in w.value for w in app.warning)
    _choose(app, debate_id, "Accept")
    app.button(key=f"accept-{debate_id}").click().run()
    assert any("Enter your name in the sidebar" in e.value for e in app.error)
    assert _store(db_path).reviews(debate_id) == []


def test_two_reviewers_at_once_the_second_is_told_and_keeps_their_input(db_path, make_debate):
    debate_id = make_debate()
    first = _open(AppTest.from_file(str(_app_path()), default_timeout=60), debate_id, "ann")
    second = _open(AppTest.from_file(str(_app_path()), default_timeout=60), debate_id, "bob")
    _choose(second, debate_id, "Override")  # bob opened the override form before ann acted
    _choose(first, debate_id, "Accept").button(key=f"accept-{debate_id}").click().run()
    second.text_area(key=f"override-answer-{debate_id}").set_value("Bob's corrected answer")
    second.text_area(key=f"override-reason-{debate_id}").set_value("Bob's careful reason")
    second.button(key=f"override-submit-{debate_id}").click().run()
    assert not second.exception
    [warning] = [w.value for w in second.warning if "was not saved" in w.value]
    assert "changed by someone else" in warning
    assert any("Bob's careful reason" in t and "Bob's corrected answer" in t for t in _texts(second))
    debate = _store(db_path).get_debate(debate_id)
    assert debate["review_state"] == "accepted"
    assert [(r["reviewer"], r["action"]) for r in debate["reviews"]] == [("ann", "accept")]


def test_live_view_while_running_then_review_when_done(app, db_path):
    debate_id = worker.start_debate(small_case(), "cross_critique", make_provider("offline", latency_ms=800),
                                    db_path=db_path)
    _open(app, debate_id)
    assert ":blue-badge[running]" in [m.value for m in app.markdown]
    [bar] = app.get("progress")
    assert bar.proto.text.startswith("round ")
    assert all(b.key != f"accept-{debate_id}" for b in app.button), "no review before the verdict"
    assert worker.wait(debate_id, 60)
    app.run()
    assert not app.exception
    assert _choose(app, debate_id, "Accept").button(key=f"accept-{debate_id}")


def test_failed_debate_explains_the_error(app, db_path):
    cassette = {"format": "debate-cassette/1", "protocol": "cross_critique", "calls": []}
    debate_id = worker.start_debate(small_case(), "cross_critique", make_provider("replay", cassette=cassette),
                                    db_path=db_path)
    assert worker.wait(debate_id, 30)
    _open(app, debate_id)
    assert any("failed" in e.value for e in app.error)
    assert any("cassette has no entry" in t for t in _texts(app))
    assert all(b.key != f"accept-{debate_id}" for b in app.button)
    assert not [g for g in app.button_group if g.key == f"decision-{debate_id}"]


def test_unknown_id_and_empty_database_are_explained(app):
    _open(app, "no-such-debate")
    assert any("no debate with id" in e.value for e in app.error)
    app.query_params.clear()
    app.session_state["debate_id"] = None
    app.run()
    assert not app.exception
    assert any("No debates yet" in i.value for i in app.info)


def _app_path():
    from conftest import APP

    return APP


def test_exports_are_offered_on_a_finished_debate(app, make_debate):
    debate_id = make_debate()
    open_tab(_open(app, debate_id), "Transcript")
    assert {b.label for b in app.get("download_button")} == {
        "Transcript files (.zip)", "Cassette (.json)", "Claims and critiques (.csv)"}


def _card_lines(app: AppTest) -> list[str]:
    return [m.value for m in app.markdown]


def test_verdict_card_answers_first_then_confidence_badges_and_why(app, make_debate, db_path):
    debate_id = make_debate()  # flagged offline: the agents still contradict each other
    _open(app, debate_id)
    debate = _store(db_path).get_debate(debate_id)
    short = debate["verdict"]["short_answer"]
    assert short and short.endswith(".") and len(short) < len(debate["verdict"]["answer"])
    lines = _card_lines(app)
    at = {name: next(i for i, m in enumerate(lines) if cond(m)) for name, cond in (
        ("answer", lambda m: m == f"**{formatting.md_escape(short)}**"),
        ("badges", lambda m: m.startswith("Confidence **")),
        ("why", lambda m: m.startswith("**Why it is flagged**")),
    )}
    assert at["answer"] < at["badges"] < at["why"]
    badges = lines[at["badges"]]
    # The confidence, then the moderator's outcome, then the review state: two separate badges.
    shown = f"Confidence **{formatting.pct(debate['verdict']['confidence'])}**"
    assert badges.index(shown) < badges.index(":orange-badge[flagged for a human]") \
        < badges.index(":gray-badge[awaiting review]")
    why = lines[at["why"]]
    # One plain sentence per rule that sent it to a human (the reasons, whole, are one click away).
    from debate_core.present import glossary

    flagging = [r for r in debate["verdict"]["applied_rules"] if glossary.is_flagging(r)]
    assert why.count("\n- ") == min(len(flagging), 3) >= 1 and "S6" not in why
    # The verdict is shown once: no second copy of the answer in a Verdict tab.
    assert sum(1 for m in lines if m == f"**{formatting.md_escape(short)}**") == 1
    # Escalated by a reviewer then approved: the review badge follows, the moderator's stays.
    store = DebateStore(db_path)
    store.review(debate_id, action="escalate", reviewer="ann", reason="unclear")
    from debate_core.core.app_settings import AppSettings, save_settings
    save_settings(AppSettings(supervisors=["sue"]), db_path)
    store.review(debate_id, action="approve", reviewer="Sue", supervisor=True)
    store.close()
    app.run()
    badges = next(m for m in _card_lines(app) if m.startswith("Confidence **"))
    assert ":orange-badge[flagged for a human]" in badges and ":green-badge[approved by a supervisor]" in badges


def test_undo_round_trip_through_the_store(app, make_debate, db_path):
    debate_id = make_debate()
    _open(app, debate_id)
    _choose(app, debate_id, "Accept").button(key=f"accept-{debate_id}").click().run()
    assert any("accepted by ann" in s.value for s in app.success)
    assert _store(db_path).get_debate(debate_id)["review_state"] == "accepted"
    app.button(key=f"undo-{debate_id}").click().run()
    assert not app.exception
    assert any("was undone" in s.value for s in app.success)
    debate = _store(db_path).get_debate(debate_id)
    assert debate["review_state"] == "pending"
    assert [(r["reviewer"], r["action"], r["state_before"], r["state_after"]) for r in debate["reviews"]] == [
        ("ann", "accept", "pending", "accepted"), ("ann", "undo", "accepted", "pending")]
    assert not [b for b in app.button if b.key == f"undo-{debate_id}"], "one undo per action"
    # Another reviewer in another tab sees no Undo for ann's action.
    _choose(app, debate_id, "Accept").button(key=f"accept-{debate_id}").click().run()
    other = _open(AppTest.from_file(str(_app_path()), default_timeout=60), debate_id, "bob")
    assert not [b for b in other.button if b.key == f"undo-{debate_id}"]


def test_role_check_on_an_escalated_debate(app, make_debate, db_path):
    from debate_core.core.app_settings import AppSettings, save_settings

    debate_id = make_debate()
    store = DebateStore(db_path)
    store.review(debate_id, action="escalate", reviewer="ann", reason="unclear")
    store.close()
    save_settings(AppSettings(roles={"sue@example.org": "supervisor", "bob@example.org": "reviewer"}), db_path)
    app.user = {"is_logged_in": True, "iat": time.time(), "sub": "b-1", "name": "Bob", "email": "bob@example.org", "iss": "https://idp"}
    _open(app, debate_id)
    assert any("you have the reviewer role" in i.value for i in app.info)
    assert not [g for g in app.button_group if g.key == f"sup-decision-{debate_id}"]
    supervisor = AppTest.from_file(str(_app_path()), default_timeout=60)
    supervisor.user = {"is_logged_in": True, "iat": time.time(), "sub": "s-1", "name": "Sue", "email": "SUE@example.org", "iss": "https://idp"}
    assert _open(supervisor, debate_id).button_group(key=f"sup-decision-{debate_id}")


def test_a_viewer_reads_the_debate_but_has_no_review_controls(app, make_debate, db_path):
    debate_id = make_debate()
    app.user = {"is_logged_in": True, "iat": time.time(), "sub": "v-1", "name": "Vic", "email": "vic@example.org", "iss": "https://idp"}
    _open(app, debate_id)
    assert any("Only a reviewer or above may accept, override or escalate a verdict; you have the viewer role"
               in i.value for i in app.info)
    assert not [g for g in app.button_group if g.key == f"decision-{debate_id}"]


def test_the_reviewer_name_is_not_taken_from_a_link(app, make_debate):
    """A link naming someone does not make the visitor them: the name is this session's label."""
    debate_id = make_debate()
    fresh = AppTest.from_file(str(_app_path()), default_timeout=60)  # a new tab: a new session
    fresh.query_params["reviewer"] = "Ann"
    fresh.query_params["id"] = debate_id
    fresh.switch_page("pages/debate.py")
    fresh.run()
    assert not fresh.exception
    assert not fresh.session_state["reviewer_name"]
    assert fresh.text_input(key="reviewer-input").value == ""


def test_critiques_show_their_claim_and_filter_by_severity(app, make_debate):
    from debate_core.core.cases import load_case

    # A sample whose offline critics raise critiques of more than one severity.
    debate_id = make_debate(load_case("data/cases/adat_minangkabau_inheritance.json"))
    open_tab(_open(app, debate_id), "Critiques")
    assert any(c.value.startswith("The claim critiqued") for c in app.caption)
    pills = app.button_group(key="crit-sev-done")
    before = sum(1 for m in app.markdown if "-badge[" in m.value and "** · round" in m.value)
    pills.set_value(["CRITICAL"]).run()
    after = [m.value for m in app.markdown if "-badge[" in m.value and "** · round" in m.value]
    assert after and len(after) < before and all(":red-badge[CRITICAL]" in m for m in after)
