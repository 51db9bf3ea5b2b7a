"""Agent profiles: parsing, where they come from, and which protocol a case's own agents serve."""

from __future__ import annotations

import json

import pytest

from debate_core.core import inputs, profiles
from debate_core.core.cases import load_case
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.protocols import SettingsError, get_spec

TENANCY = "data/eval/dev/tenancy_rent_withholding_repairs.json"


def test_a_case_brings_its_own_agents_to_the_protocol_it_was_written_for():
    case = load_case(TENANCY)
    own = [a["id"] for a in case.model_extra["agents"]]
    agents = profiles.resolve(None, case, get_spec("cross_critique").default_agents, "cross_critique")
    assert [a["id"] for a in agents] == own
    # Under another protocol its agents would play parts they were not written for: that protocol's own.
    dialectic = profiles.resolve(None, case, get_spec("dialectic").default_agents, "dialectic")
    assert [a["id"] for a in dialectic] == [a["id"] for a in get_spec("dialectic").default_agents]
    result = run_debate(case, "dialectic")
    assert result.status == "completed", result.error


def test_chosen_ids_are_completed_from_known_profiles_and_named_in_prompts():
    case = load_case(TENANCY)
    first = case.model_extra["agents"][0]
    chosen = profiles.resolve([{"id": first["id"]}, {"id": "newcomer"}], case,
                              get_spec("cross_critique").default_agents, "cross_critique")
    assert chosen[0]["role"] == first["role"] and chosen[1] == {"id": "newcomer"}
    text = profiles.identity(chosen[0])
    assert first["role"] in text and (first.get("name") or first["id"]) in text


def test_bad_profiles_are_refused_naming_the_agent_and_field(tmp_path):
    path = tmp_path / "agents.json"
    path.write_text(json.dumps([{"id": "ok"}, {"id": "no good"}]), encoding="utf-8")
    with pytest.raises(SettingsError, match="agent 2 field 'id'"):
        profiles.load_profiles(path)
    path.write_text(json.dumps({"agents": []}), encoding="utf-8")
    with pytest.raises(SettingsError, match="non-empty JSON list"):
        profiles.load_profiles(path)
    with pytest.raises(SettingsError, match="not found"):
        profiles.load_profiles(tmp_path / "missing.json")


def test_agent_lines_round_trip_and_name_the_bad_line():
    lines = "pharmacist | Clinical pharmacist | knows drugs | be brief | bleeding, aspirin\nskeptic"
    parsed = inputs.parse_agent_lines(lines)
    assert parsed[0]["terms"] == ["bleeding", "aspirin"] and parsed[1] == {"id": "skeptic"}
    assert inputs.parse_agent_lines(inputs.format_agent_lines(parsed)) == parsed
    with pytest.raises(Exception, match="agent line 2"):
        inputs.parse_agent_lines("ok\nn.la | Bad")


def test_a_case_whose_agents_the_protocol_cannot_use_is_refused_before_saving():
    case = load_case(TENANCY)
    data = case.model_dump()
    data["agents"] = [{"id": "only_one"}]
    one = type(case).model_validate(data)
    with pytest.raises(SettingsError, match="cross_critique takes"):
        get_spec("cross_critique").check_case(one, DebateSettings())
