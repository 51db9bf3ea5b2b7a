"""The fork form: the first closed round by default, and the protocol's options as controls built
from their JSON Schema (number inputs, choices, checkboxes, JSON boxes), never KEY=VALUE text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fault_server import FaultServer, NameScript
from streamlit.testing.v1 import AppTest

from debate_core.core.cases import load_case
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs import worker
from debate_core.jobs.debates import run_debate
from debate_core.protocols import get_spec
from debate_core.providers.openai_provider import OpenAIProvider
from debate_core.store import DebateStore

CASES = Path(__file__).resolve().parent.parent / "data" / "cases"
CASE = CASES / "national_will_formalities.json"  # a cross critique case that converges after two rounds offline


def _ok(app: AppTest) -> AppTest:
    assert not app.exception, [e.message for e in app.exception]
    return app


def _open(app: AppTest, debate_id: str) -> AppTest:
    app.run()
    app.session_state["reviewer_name"] = "Alice"
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    return _ok(app.run())


def _opt(did: str, name: str) -> str:
    return f"fork-opt-{did}-{name}"


def _plain(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _fork(app: AppTest, parent: str, db_path) -> dict:
    _ok(app.button(key=f"fork-submit-{parent}").click().run())
    fork_id = app.session_state["debate_id"]
    assert fork_id != parent
    assert worker.wait(fork_id, 60)
    return DebateStore(db_path, readonly=True).get_debate(fork_id)


def test_the_fork_form_starts_at_the_first_closed_round_with_controls_from_the_schema(app, make_debate):
    parent = make_debate(load_case(CASE))
    _open(app, parent)
    rounds = app.selectbox(key=f"fork-round-{parent}")
    assert rounds.options == ["1", "2"] and rounds.value == 1
    assert not [t for t in app.text_area if (t.key or "").startswith("fork-options")]
    claims = app.number_input(key=_opt(parent, "max_claims"))
    assert claims.value == 10  # the debate's own value (the protocol's default here)
    assert (claims.proto.min, claims.proto.max) == (1, 10)  # the schema's bound: at most ten claims an answer
    mode = app.selectbox(key=_opt(parent, "convergence_mode"))
    assert mode.options == ["any", "all"] and mode.value == "any"
    assert app.number_input(key=_opt(parent, "unsupported_limit")).value == 0.3


@pytest.mark.parametrize("protocol, case", [("arbitration", "arbitration_qatar_labour.json"),
                                            ("refinement", "refinement_hdfs_datanode.json")])
def test_every_option_of_the_protocol_gets_a_control_at_the_debates_value(app, make_debate, protocol, case):
    parent = make_debate(load_case(CASES / case), protocol=protocol)
    _open(app, parent)
    props = get_spec(protocol).describe()["options"]["properties"]
    shown = {w.key.removeprefix(f"fork-opt-{parent}-"): w.value
             for kind in ("number_input", "selectbox", "checkbox", "text_input") for w in app.get(kind)
             if (w.key or "").startswith(f"fork-opt-{parent}-")}
    assert set(shown) == set(props)
    for name, prop in props.items():
        default = prop.get("default")
        assert shown[name] == (json.dumps(default) if isinstance(default, list | dict) else default), name


def test_an_option_set_through_a_control_reaches_the_forks_settings(app, db_path, make_debate):
    parent = make_debate(load_case(CASE), options={"max_claims": 6})
    _open(app, parent)
    assert app.number_input(key=_opt(parent, "max_claims")).value == 6  # the parent's choice, not the default
    app.selectbox(key=_opt(parent, "convergence_mode")).set_value("all")
    app.number_input(key=_opt(parent, "min_critiques")).set_value(1)
    fork = _fork(app, parent, db_path)
    assert (fork["parent_id"], fork["fork_round"], fork["status"]) == (parent, 1, "completed")
    # The parent's options, with the two changed: nothing else is written as if chosen.
    assert fork["settings"]["options"] == {"max_claims": 6, "convergence_mode": "all", "min_critiques": 1}
    assert all(s["reused_from"] == parent for s in fork["steps"] if s["round"] == 1)


def test_a_preset_sets_the_controls_and_the_round_can_be_chosen(app, db_path, make_debate):
    parent = make_debate(load_case(CASE))
    _open(app, parent)
    _ok(app.selectbox(key=f"fork-preset-{parent}").set_value("strict convergence (all three criteria)").run())
    assert app.selectbox(key=_opt(parent, "convergence_mode")).value == "all"
    app.selectbox(key=f"fork-round-{parent}").set_value(2)
    fork = _fork(app, parent, db_path)
    assert fork["fork_round"] == 2
    assert fork["settings"]["options"] == {"convergence_mode": "all"}


def test_yes_no_options_are_checkboxes(app, db_path, make_debate):
    case = load_case(CASES / "dialectic_contract_enforceability.json")
    parent = make_debate(case, protocol="dialectic")
    _open(app, parent)
    box = app.checkbox(key=_opt(parent, "escalate_at_max_rounds"))
    assert box.value is True
    box.uncheck()
    app.selectbox(key=_opt(parent, "asp_check")).set_value("off")
    fork = _fork(app, parent, db_path)
    assert fork["settings"]["options"] == {"escalate_at_max_rounds": False, "asp_check": "off"}


def test_a_list_or_group_option_is_written_as_json_and_bad_json_is_named(app, db_path, make_debate):
    parent = make_debate(load_case(CASES / "panel_restaurant_review.json"), protocol="panel")
    _open(app, parent)
    order = app.text_input(key=_opt(parent, "order"))
    assert order.value == "" and order.label == "Order (JSON)"
    order.set_value('["analyst", ')
    _ok(app.button(key=f"fork-submit-{parent}").click().run())
    assert any(_plain(e.value).startswith("The fork was not started: Order: not valid JSON") for e in app.error)
    assert DebateStore(db_path, readonly=True).forks(parent) == []
    assert app.text_input(key=_opt(parent, "order")).value == '["analyst", '  # kept as typed


def test_a_value_the_protocol_refuses_is_explained_and_nothing_is_created(app, db_path, make_debate):
    parent = make_debate(load_case(CASES / "panel_restaurant_review.json"), protocol="panel")
    _open(app, parent)
    app.text_input(key=_opt(parent, "debate_override")).set_value('{"min_total": -1}')
    _ok(app.button(key=f"fork-submit-{parent}").click().run())
    errors = [_plain(e.value) for e in app.error]
    assert any(e.startswith("The fork was not started:") and "min_total" in e for e in errors), errors
    assert DebateStore(db_path, readonly=True).forks(parent) == []


# Well-formed replies of an openai-compatible server for the cross critique schemas.
WILL_VALID = {
    "AgentOutput": {
        "answer": "The will is valid only if the notarial deposit formalities were met.",
        "claims": [{"id": "C1", "statement": "A deposited secret will needs a notarial deed of deposit.",
                    "evidence": ["kuhperdata_940", "deed_of_deposit_extract"], "confidence": 0.6}],
        "uncertainties": ["whether the witnesses signed"],
    },
    "CritiqueOutput": {"critiques": []},
    "SupervisorOutput": {"answer": "Valid if deposited with the notary as required.", "confidence": 0.6,
                         "rationale": "Both agents agree.", "agreed_claims": ["C1"]},
}


def test_a_fork_of_a_model_debate_can_change_the_model(app, db_path):
    with FaultServer(NameScript(WILL_VALID)) as server:
        store = DebateStore(db_path)
        try:
            parent = run_debate(load_case(CASE), "cross_critique",
                                provider=OpenAIProvider(model="old-model", base_url=server.base_url, probe=False),
                                settings=DebateSettings(rounds=2), store=store).debate_id
        finally:
            store.close()
        _open(app, parent)
        model = app.text_input(key=f"fork-model-{parent}")
        assert model.value == "old-model"
        model.set_value("new-model")
        before = len(server.bodies())
        fork = _fork(app, parent, db_path)
        assert fork["status"] == "completed", fork.get("error")
        assert fork["provider_config"]["model"] == "new-model"
        asked = {b.get("model") for b in server.bodies()[before:]}
        assert asked == {"new-model"}  # round 1 reused as stored; only the fork's own calls reach the server


def test_a_fork_takes_a_new_team_from_the_table(app, db_path, make_debate):
    parent = make_debate(load_case(CASE))
    _open(app, parent)
    assert not [t for t in app.data_editor if (t.key or "").startswith(f"fork-agents-{parent}-")]
    _ok(app.checkbox(key=f"fork-team-on-{parent}").check().run())
    [table] = [t for t in app.data_editor if (t.key or "").startswith(f"fork-agents-{parent}-")]
    first = table.value.iloc[0]
    # The table starts from the parent's own agents; sharpen the first one's role.
    app.session_state[table.key] = {"edited_rows": {0: {"role": "A stricter reviewer of every cited passage."}},
                                    "added_rows": [], "deleted_rows": []}
    _ok(app.run())
    fork = _fork(app, parent, db_path)
    agents = {a["id"]: a for a in fork["settings"]["agents"]}
    assert agents[first["id"]]["role"] == "A stricter reviewer of every cited passage."
    assert fork["status"] == "completed"
    # Unchanged, the fork keeps the parent's agents as they were stored (nothing written as chosen).
    _open(app, parent)
    _ok(app.checkbox(key=f"fork-team-on-{parent}").uncheck().run())
    same = _fork(app, parent, db_path)
    assert same["settings"].get("agents") == DebateStore(db_path, readonly=True).get_debate(parent)["settings"].get("agents")
