"""New debate page: it renders, starts debates in the background and explains bad input in words."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from debate_core.jobs import worker
from debate_core.present import export
from debate_core.store import DebateStore

HTML_PASSAGE = "<script>alert('x')</script><b>bold</b> [link](http://example.invalid) :red[red] $x^2$"


def _no_exception(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _start(at: AppTest) -> str:
    at.button(key="nd-start").click().run()
    _no_exception(at)
    debate_id = at.session_state["debate_id"]
    assert at.query_params.get("id") == debate_id
    assert worker.wait(debate_id, 60)
    return debate_id


def test_renders_with_sample_cases_and_offline_label(app):
    app.run()
    _no_exception(app)
    assert app.title[0].value == "New debate"
    assert app.selectbox(key="nd-sample").options, "the sample cases are offered"
    labels = [m.value for m in app.sidebar.markdown]
    assert any("offline \\(rule\\-based agents, no model\\)" in v for v in labels)
    assert not app.button(key="nd-start").disabled


def test_start_a_sample_debate_runs_in_the_background_and_lands_in_the_store(app, db_path):
    app.run()
    app.selectbox(key="nd-protocol").set_value("cross_critique").run()
    debate_id = _start(app)
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert debate["status"] == "completed"
    assert debate["protocol"] == "cross_critique"
    assert debate["provider"] == "offline"
    # The page switched to the debate view, which now shows the verdict and review controls.
    app.run()
    _no_exception(app)
    assert app.button_group(key=f"decision-{debate_id}")


def test_own_question_with_pasted_passages_and_chosen_settings(app, db_path):
    app.run()
    app.radio(key="nd-source").set_value("own").run()
    app.text_area(key="nd-question").set_value("Is the sawah part of the estate?")
    app.text_area(key="nd-passages").set_value(
        "E1 | KAN letter | The sawah is harta pusaka tinggi of the kaum.\n"
        "E2 | Civil Code art. 852 | Children inherit in equal shares.\n"
        f"E3 | Hostile page | {HTML_PASSAGE}\n"
    )
    app.run()
    _no_exception(app)
    assert not app.error
    app.selectbox(key="nd-protocol").set_value("dialectic").run()
    app.number_input(key="nd-rounds-dialectic-default").set_value(1).run()
    debate_id = _start(app)
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert debate["protocol"] == "dialectic"
    assert debate["settings"]["rounds"] == 1
    assert [e["id"] for e in debate["case"]["evidence"]] == ["E1", "E2", "E3"]
    assert debate["case"]["evidence"][2]["text"] == HTML_PASSAGE


def test_the_evidence_preview_shows_html_literally(app):
    app.run()
    app.radio(key="nd-source").set_value("own").run()
    app.text_area(key="nd-question").set_value("What does the page say?")
    app.text_area(key="nd-passages").set_value(f"E1 | Hostile page | {HTML_PASSAGE}")
    app.run()
    _no_exception(app)
    preview = app.dataframe[0].value
    assert preview["text"].tolist() == [HTML_PASSAGE]
    assert all(not m.proto.allow_html for m in app.markdown)


def test_bad_passages_are_explained_not_raised(app, db_path):
    app.run()
    app.radio(key="nd-source").set_value("own").run()
    app.text_area(key="nd-question").set_value("Q?")
    app.text_area(key="nd-passages").set_value("E1 | only a source")
    app.run()
    _no_exception(app)
    assert any("passage line 1" in e.value for e in app.error)
    assert app.button(key="nd-start").disabled
    # Duplicate ids are refused with the field named, and nothing is saved.
    app.text_area(key="nd-passages").set_value("E1 | a | one\nE1 | b | two")
    app.run()
    assert any("appears twice" in e.value for e in app.error)
    assert app.button(key="nd-start").disabled
    assert DebateStore(db_path).count_debates() == 0


def test_uploaded_passages_csv(app, db_path):
    app.run()
    app.radio(key="nd-source").set_value("own").run()
    app.text_area(key="nd-question").set_value("Does the daughter inherit?")
    app.file_uploader(key="nd-upload").upload(
        "passages.csv", b"id,source,text\nP1,MA 179 K/Sip/1961,Daughters inherit equally with sons.\n", "text/csv")
    app.run()
    _no_exception(app)
    assert app.dataframe[0].value["id"].tolist() == ["P1"]
    debate_id = _start(app)
    assert DebateStore(db_path, readonly=True).get_debate(debate_id)["case"]["evidence"][0]["id"] == "P1"


def test_openai_provider_needs_a_model_before_it_can_start(app):
    app.run()
    app.radio(key="nd-provider").set_value("openai").run()
    _no_exception(app)
    assert app.button(key="nd-start").disabled
    assert any("model name" in w.value for w in app.warning)
    app.text_input(key="nd-model").set_value("some-model").run()
    # OpenAI's API (the empty base URL) needs a key, and this server has none.
    assert app.button(key="nd-start").disabled
    assert any("needs a key" in w.value for w in app.warning)
    app.text_input(key="nd-base-url").set_value("http://127.0.0.1:9/v1").run()
    assert not app.button(key="nd-start").disabled


def test_replay_of_a_stored_debate_reaches_the_same_verdict(app, db_path):
    app.run()
    app.selectbox(key="nd-protocol").set_value("cross_critique").run()
    first = _start(app)
    app.switch_page("pages/new_debate.py").run()
    app.selectbox(key="nd-protocol").set_value("cross_critique").run()
    app.radio(key="nd-provider").set_value("replay").run()
    app.radio(key="nd-replay").set_value("stored").run()
    app.selectbox(key="nd-replay-id").set_value(first).run()
    _no_exception(app)
    second = _start(app)
    store = DebateStore(db_path, readonly=True)
    a, b = store.get_debate(first), store.get_debate(second)
    assert b["provider"] == "replay"
    assert b["status"] == "completed"
    assert b["verdict"]["answer"] == a["verdict"]["answer"]
    assert json.dumps(export.cassette(store, second)["calls"]) == json.dumps(export.cassette(store, first)["calls"])


def test_options_agents_and_saved_presets(app, db_path):
    from debate_core.core.app_settings import load_settings

    app.run()
    app.selectbox(key="nd-protocol").set_value("cross_critique").run()
    _edit_agents(app, "cross_critique", added=[
        {"id": "kha", "name": "Khmer law agent", "role": "argues from Khmer customary law"}])
    app.text_area(key="nd-options-cross_critique-default").set_value("max_claims=4\nnot an option")
    app.run()
    assert any("option line 2" in e.value for e in app.error)
    assert app.button(key="nd-start").disabled
    app.text_area(key="nd-options-cross_critique-default").set_value("max_claims=4")
    app.number_input(key="nd-rounds-cross_critique-default").set_value(2)
    app.text_input(key="nd-preset-name-cross_critique").set_value("three agents")
    app.run()
    app.button(key="nd-preset-save-cross_critique").click().run()
    assert not app.exception
    saved = load_settings(db_path).presets["cross_critique"]["three agents"]
    assert [a["id"] for a in saved["agents"]] == ["nla", "ala", "kha"]
    assert saved["agents"][2]["role"] == "argues from Khmer customary law"
    assert (saved["rounds"], saved["options"]) == (2, {"max_claims": 4})

    assert app.selectbox(key="nd-preset-cross_critique").value == "three agents"
    assert any("Saved preset three agents" in m.value for m in app.success)
    assert _agents_table(app, "cross_critique", "three agents").value["id"].tolist() == ["nla", "ala", "kha"]
    assert any("These agents will speak" in m.value and "Khmer law agent" in m.value for m in app.markdown)
    debate_id = _start(app)
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert [a["id"] for a in debate["settings"]["agents"]] == ["nla", "ala", "kha"]
    assert debate["settings"]["options"] == {"max_claims": 4}
    assert debate["status"] == "completed"
    assert {s["agent"] for s in debate["steps"] if s["stage"] == "answer"} == {"nla", "ala", "kha"}


def _agents_table(at: AppTest, protocol: str, preset: str = "default"):
    """The agents table of the protocol and preset on screen (its key also names the gallery pick and case)."""
    [table] = [t for t in at.data_editor if (t.key or "").startswith(f"nd-agents-{protocol}-{preset}-")]
    return table


def _edit_agents(at: AppTest, protocol: str, preset: str = "default", *, edited=None, added=None, deleted=None):
    """Edit the agents table as the browser does: its edit state (set before the next run)."""
    at.session_state[_agents_table(at, protocol, preset).key] = {
        "edited_rows": edited or {}, "added_rows": added or [], "deleted_rows": deleted or []}


def _errors(at: AppTest) -> list[str]:
    """The error boxes as a reader sees them (the page escapes markdown in user text)."""
    return [e.value.replace("\\", "") for e in at.error]


def test_bad_options_and_agent_ids_are_named_and_keep_start_disabled(app, db_path):
    app.run()
    app.selectbox(key="nd-protocol").set_value("cross_critique").run()
    app.text_area(key="nd-options-cross_critique-default").set_value("max_claim=4")
    app.run()
    _no_exception(app)
    assert _errors(app) == [
        "option 'max_claim' is not a cross_critique option; did you mean 'max_claims'?"]
    assert app.button(key="nd-start").disabled

    app.text_area(key="nd-options-cross_critique-default").set_value('max_claims="abc"')
    app.run()
    assert _errors(app) == [
        "option 'max_claims' must be a whole number from 1 to 10, got 'abc'"]
    assert app.button(key="nd-start").disabled

    app.text_area(key="nd-options-cross_critique-default").set_value("max_claims=4")
    _edit_agents(app, "cross_critique", added=[{"id": "n.la"}])
    app.run()
    assert _errors(app) == [
        "Row 3, Id: the id 'n.la' may hold only letters, digits, '_' and '-' (leave it empty to make it from the name)"]
    assert app.button(key="nd-start").disabled

    _edit_agents(app, "cross_critique")
    app.run()
    assert not app.error and not app.button(key="nd-start").disabled
    assert DebateStore(db_path).list_debates() == []  # nothing was saved while the settings were bad


def test_a_saved_team_of_profiles_is_reused_with_another_protocol(app, db_path):
    from debate_core.core.app_settings import load_settings

    app.run()
    app.selectbox(key="nd-protocol").set_value("cross_critique").run()
    _edit_agents(app, "cross_critique", edited={
        0: {"id": "pharmacist", "name": "Clinical pharmacist", "role": "knows drug interactions and bleeding risk",
            "terms": "bleeding, aspirin"},
        1: {"id": "cardiologist", "name": "Preventive cardiologist", "role": "weighs cardiovascular benefit",
            "terms": ""}})
    app.text_input(key="nd-team-name").set_value("medical").run()
    app.button(key="nd-team-name-save").click().run()
    _no_exception(app)
    saved = load_settings(db_path).teams["medical"]
    assert [a["id"] for a in saved] == ["pharmacist", "cardiologist"]
    assert saved[0]["terms"] == ["bleeding", "aspirin"]
    assert app.selectbox(key="nd-team").value == "team:medical"

    app.selectbox(key="nd-protocol").set_value("refinement").run()
    _no_exception(app)
    table = _agents_table(app, "refinement")
    first = table.value.iloc[0]
    assert (first["id"], first["name"], first["role"]) == (
        "pharmacist", "Clinical pharmacist", "knows drug interactions and bleeding risk")
    assert any("These agents will speak" in m.value and "Preventive cardiologist" in m.value for m in app.markdown)
