"""The team builder on New debate: agents edited in a table, saved as named teams, picked from a
gallery of teams and presets; problems named by row and column; saving needs the right role."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from debate_core.core.app_settings import (
    AppSettings,
    AppSettingsError,
    load_settings,
    save_settings,
    settings_path,
    team_agents,
)
from debate_core.jobs import worker
from debate_core.store import DebateStore

THREE = "preset:three agents: national, adat, Islamic law"


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.message for e in at.exception]
    return at


def _editor(at: AppTest, protocol: str = "cross_critique"):
    [table] = [t for t in at.data_editor if (t.key or "").startswith(f"nd-agents-{protocol}-")]
    return table


def _edit(at: AppTest, edited=None, added=None, deleted=None) -> AppTest:
    """Edit the agents table as the browser does: its edit state, then a run."""
    at.session_state[_editor(at).key] = {"edited_rows": edited or {}, "added_rows": added or [],
                                         "deleted_rows": deleted or []}
    return _ok(at.run())


def _errors(at: AppTest) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


def _cross_critique(app: AppTest) -> AppTest:
    _ok(app.run())
    return _ok(app.selectbox(key="nd-protocol").set_value("cross_critique").run())


MEDICAL = {
    0: {"id": "", "name": "Clinical pharmacist", "role": "Knows drug interactions and bleeding risk.",
        "terms": "bleeding, aspirin"},
    1: {"id": "", "name": "Preventive cardiologist", "role": "Weighs the cardiovascular benefit.",
        "model": "large-model"},
}


def test_agents_edited_in_the_table_are_saved_as_a_team_and_start_the_debate(app, db_path):
    _cross_critique(app)
    assert _editor(app).editing_mode == "dynamic"
    # The sample case brings its own two agents: the table starts from them.
    assert _editor(app).value["id"].tolist() == ["nla", "ala"]
    _edit(app, edited=MEDICAL, added=[{"name": "Geriatrician", "instructions": "Speak for the frail patient."}])
    assert not app.error
    assert any("These agents will speak" in m.value and "Geriatrician" in m.value for m in app.markdown)

    app.text_input(key="nd-team-name").set_value("medical")
    _ok(app.button(key="nd-team-name-save").click().run())
    saved = load_settings(db_path).teams["medical"]
    # Ids left empty are made from the names; each cell is kept as typed.
    assert [a["id"] for a in saved] == ["clinical_pharmacist", "preventive_cardiologist", "geriatrician"]
    assert saved[0]["terms"] == ["bleeding", "aspirin"] and saved[1]["model"] == "large-model"
    assert saved[2]["instructions"] == "Speak for the frail patient."
    assert app.selectbox(key="nd-team").value == "team:medical"
    assert any("Saved the team medical" in s.value for s in app.success)
    # The saved team is picked: the table now starts from it (a fresh table, no edits pending).
    assert _editor(app).value["name"].tolist() == ["Clinical pharmacist", "Preventive cardiologist", "Geriatrician"]

    app.button(key="nd-start").click().run()
    _ok(app)
    debate_id = app.session_state["debate_id"]
    assert worker.wait(debate_id, 60)
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert debate["status"] == "completed"
    assert [(a["id"], a.get("model")) for a in debate["settings"]["agents"]] == [
        ("clinical_pharmacist", None), ("preventive_cardiologist", "large-model"), ("geriatrician", None)]
    assert {s["agent"] for s in debate["steps"] if s["stage"] == "answer"} == {
        "clinical_pharmacist", "preventive_cardiologist", "geriatrician"}


def test_a_preset_picked_from_the_gallery_fills_the_table(app, db_path):
    save_settings(AppSettings(presets={"cross_critique": {"two clinicians": {"agents": [
        {"id": "gp", "name": "General practitioner"}, {"id": "nurse", "name": "Nurse"}]}}}), db_path)
    _cross_critique(app)
    options = app.selectbox(key="nd-team").options
    # The gallery holds the built-in presets with agents, the saved ones, the profile files and
    # every protocol's default agents.
    for entry in ("Preset · three agents: national, adat, Islamic law", "Saved preset · two clinicians",
                  "Profiles · indonesian law", "Default agents · Persona panel"):
        assert entry in options, options
    app.selectbox(key="nd-team").set_value(THREE)
    _ok(app.run())
    assert _editor(app).value["id"].tolist() == ["nla", "ala", "ila"]
    assert any("3 agent(s): National Law Agent" in c.value.replace("\\", "") for c in app.caption)

    app.button(key="nd-start").click().run()
    _ok(app)
    debate_id = app.session_state["debate_id"]
    assert worker.wait(debate_id, 60)
    agents = DebateStore(db_path, readonly=True).get_debate(debate_id)["settings"]["agents"]
    assert [a["id"] for a in agents] == ["nla", "ala", "ila"]
    assert "KUHPerdata" in agents[0]["terms"]


def test_a_persona_keeps_the_fields_the_table_does_not_show(app, db_path):
    _ok(app.run())
    _ok(app.selectbox(key="nd-protocol").set_value("panel").run())
    before = _editor(app, "panel").value
    app.session_state[_editor(app, "panel").key] = {"edited_rows": {0: {"role": "A sharper analyst."}},
                                                    "added_rows": [], "deleted_rows": []}
    _ok(app.run())
    app.text_input(key="nd-team-name").set_value("panel team")
    _ok(app.button(key="nd-team-name-save").click().run())
    saved = load_settings(db_path).teams["panel team"]
    assert saved[0]["role"] == "A sharper analyst."
    assert saved[0]["id"] == before["id"].tolist()[0]
    assert {"stance", "style", "goal"} <= set(saved[0])  # the persona's own fields come back


def test_a_viewer_cannot_save_a_team(app, db_path, monkeypatch):
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "viewer")
    _cross_critique(app)
    assert app.button(key="nd-team-name-save").disabled
    assert app.text_input(key="nd-team-name").disabled
    assert any("you have the viewer role" in c.value for c in app.caption)


def test_a_save_drawn_for_a_reviewer_is_refused_once_the_role_is_viewer(app, db_path, monkeypatch):
    # The page was drawn for a reviewer; the operator then made everyone a viewer. The click that
    # still reaches the server is refused where the change is written, and nothing is saved.
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "reviewer")
    _cross_critique(app)
    app.sidebar.text_input[0].set_value("Ann")
    app.text_input(key="nd-team-name").set_value("mine")
    _ok(app.run())
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "viewer")
    _ok(app.button(key="nd-team-name-save").click().run())
    assert load_settings(db_path).teams == {}
    assert any("Team not saved" in e.value and "viewer role" in e.value for e in app.error)


def test_a_bad_row_is_named_by_row_and_column_and_keeps_start_disabled(app, db_path):
    _cross_critique(app)
    _edit(app, added=[{"id": "n.la", "name": "National law"}])
    assert _errors(app) == ["Row 3, Id: the id 'n.la' may hold only letters, digits, '_' and '-' "
                            "(leave it empty to make it from the name)"]
    assert app.button(key="nd-start").disabled

    first = _editor(app).value["name"].tolist()[0]
    _edit(app, edited={1: {"name": first.upper()}})
    assert _errors(app) == [f"Row 2, Name: the name '{first.upper()}' is already used in row 1; "
                            "each agent needs its own"]
    assert app.button(key="nd-start").disabled

    _edit(app, edited={1: {"id": "", "name": "", "role": "argues the other side"}})
    assert _errors(app) == ["Row 2, Name: give the agent a name (its id is made from it)"]
    # Saving is refused with the same words, and nothing is written.
    app.text_input(key="nd-team-name").set_value("broken")
    _ok(app.button(key="nd-team-name-save").click().run())
    assert any("Team not saved. Row 2, Name: give the agent a name" in e.value.replace("\\", "") for e in app.error)
    assert not settings_path(db_path).exists() or load_settings(db_path).teams == {}

    _edit(app, deleted=[0, 1])
    assert _errors(app) == ["A team needs at least one agent: add a row with its name."]
    assert app.button(key="nd-start").disabled
    assert DebateStore(db_path).list_debates() == []

    _edit(app)
    assert not app.error and not app.button(key="nd-start").disabled


def test_teams_in_the_settings_file_are_checked_on_load(db_path):
    path = settings_path(db_path)
    path.write_text(json.dumps({"teams": {"ward": [{"name": "Nurse"}, {"name": "Doctor", "role": "x" * 2001}]}}))
    with pytest.raises(AppSettingsError, match=r"team 'ward': Row 2, Role: the role is 2,001 characters long"):
        load_settings(db_path)
    path.write_text(json.dumps({"teams": {"Ward": [{"name": "Nurse"}], "ward ": [{"name": "Doctor"}]}}))
    with pytest.raises(AppSettingsError, match="the same name"):
        load_settings(db_path)
    path.write_text(json.dumps({"teams": {"ward": [{"name": "Head nurse"}, {"name": "Head-nurse"}]}}))
    assert [a["id"] for a in load_settings(db_path).teams["ward"]] == ["head_nurse", "head_nurse_2"]
    with pytest.raises(AppSettingsError, match="Row 1, Name: the name must be plain text on one line"):
        team_agents([{"name": "Nurse\nDoctor"}])


def _teams_table(at: AppTest) -> list[str]:
    [table] = [d for d in at.dataframe if "team" in d.value.columns]
    return table.value["team"].tolist()


def test_settings_lists_the_saved_teams_and_deletes_one(app, db_path):
    save_settings(AppSettings(teams={"ward": [{"name": "Nurse"}], "clinic": [{"name": "Doctor"}]}), db_path)
    _ok(app.run())
    _ok(app.switch_page("pages/settings.py").run())
    assert _teams_table(app) == ["ward", "clinic"]
    app.selectbox(key="s-team").set_value("ward")
    _ok(app.button(key="s-team-delete").click().run())
    assert list(load_settings(db_path).teams) == ["clinic"]
    assert _teams_table(app) == ["clinic"]
    assert any("Deleted the team ward" in s.value for s in app.success)
