"""History page: filters, full-text search, opening a debate and the exports."""

from __future__ import annotations

import datetime as dt

from helpers import small_case
from streamlit.testing.v1 import AppTest

from debate_core.core.schemas import Case
from debate_core.present import formatting
from debate_core.store import DebateStore


def _open(app: AppTest) -> AppTest:
    app.run()
    app.switch_page("pages/history.py").run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def _ids(app: AppTest) -> list[str]:
    if not app.dataframe:
        return []
    return app.dataframe[0].value["id"].tolist()


def _case(question: str, cid: str) -> Case:
    return Case.model_validate({**small_case().model_dump(), "id": cid, "question": question})


def test_empty_state(app):
    _open(app)
    assert any("No debates yet" in i.value for i in app.info)


def test_filters_and_search(app, make_debate, db_path):
    sawah = make_debate(_case("Does the sawah belong to the estate?", "c1"), "cross_critique")
    contract = make_debate(_case("Is the oral contract enforceable?", "c2"), "dialectic")
    panel = make_debate(_case("Is the restaurant review positive?", "c3"), "panel")
    store = DebateStore(db_path)
    store.review(sawah, action="accept", reviewer="ann")
    store.review(panel, action="override", reviewer="bob", answer="Negative.", reason="Sarcasm.")
    store.close()

    _open(app)
    assert set(_ids(app)) == {sawah, contract, panel}
    app.selectbox(key="h-protocol").set_value("dialectic").run()
    assert _ids(app) == [contract]
    app.selectbox(key="h-protocol").set_value("any")
    app.selectbox(key="h-state").set_value("overridden").run()
    assert _ids(app) == [panel]
    app.selectbox(key="h-state").set_value("any")
    app.selectbox(key="h-reviewer").set_value("ann").run()
    assert _ids(app) == [sawah]
    app.selectbox(key="h-reviewer").set_value("any")
    app.selectbox(key="h-status").set_value("flagged for a human").run()
    ro = DebateStore(db_path, readonly=True)
    flagged = {d for d in (sawah, contract, panel)
               if formatting.display_status(ro.get_debate(d, with_steps=False)) == "flagged for a human"}
    assert contract in flagged  # dialectic does not converge on this case offline
    assert set(_ids(app)) == flagged
    app.selectbox(key="h-status").set_value("converged").run()
    assert set(_ids(app)) == {d for d in (sawah, contract, panel)
                              if formatting.display_status(ro.get_debate(d, with_steps=False)) == "converged"}
    app.selectbox(key="h-status").set_value("any")
    app.text_input(key="h-search").set_value("oral contr").run()
    assert _ids(app) == [contract]
    # Search covers claims too: a word only the agents' claims contain finds the debates that cite it.
    app.text_input(key="h-search").set_value("kaum").run()
    assert sawah in _ids(app)
    app.text_input(key="h-search").set_value("nothing-matches-this").run()
    assert any("No debate matches" in i.value for i in app.info)
    app.text_input(key="h-search").set_value("")
    today = dt.date.today()
    app.date_input(key="h-dates").set_value((today - dt.timedelta(days=3), today - dt.timedelta(days=2))).run()
    assert _ids(app) == []
    app.date_input(key="h-dates").set_value((today - dt.timedelta(days=1), today + dt.timedelta(days=1))).run()
    assert set(_ids(app)) == {sawah, contract, panel}
    assert not app.exception


def test_open_and_export(app, make_debate):
    debate_id = make_debate()
    _open(app)
    labels = {b.label for b in app.get("download_button")}
    assert labels == {"Transcript files (.zip)", "Cassette (.json)", "Claims and critiques (.csv)"}
    app.selectbox(key="h-chosen").set_value(debate_id)
    app.button(key="h-open").click().run()
    assert not app.exception
    assert app.query_params.get("id") == debate_id
    assert app.button_group(key=f"decision-{debate_id}")


def test_clicking_a_row_opens_the_debate_and_same_titles_are_told_apart(app, make_debate):
    first = make_debate()
    second = make_debate()  # the same case again: the same title
    _open(app)
    table = app.dataframe[0].value
    titles = dict(zip(table["id"], table["debate"], strict=True))
    assert titles[first] != titles[second]
    for did in (first, second):
        assert titles[did].startswith("Test inheritance case · ") and titles[did].endswith(f" · {did}")
    row = table["id"].tolist().index(first)
    app.session_state["h-table"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    app.run()
    assert not app.exception
    assert app.query_params.get("id") == first
    assert app.button_group(key=f"decision-{first}")
