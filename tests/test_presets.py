"""Every built-in preset runs offline on its protocol's sample case and is offered by the app."""

from __future__ import annotations

import pytest

from debate_core.core.cases import load_case
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.present.protocol_choices import protocol_info
from debate_core.protocols import PROTOCOLS, get_spec

CASES = {"cross_critique": "adat_minangkabau_inheritance", "panel": "panel_restaurant_review",
         "refinement": "refinement_hdfs_datanode", "dialectic": "dialectic_contract_enforceability",
         "arbitration": "arbitration_qatar_labour"}
PRESETS = [(p, name) for p in PROTOCOLS for name in get_spec(p).presets]


@pytest.mark.parametrize("protocol, name", PRESETS, ids=[f"{p}:{n}" for p, n in PRESETS])
def test_preset_runs(protocol, name):
    preset = get_spec(protocol).presets[name]
    settings = DebateSettings(rounds=preset.get("rounds"), agents=preset.get("agents"), options=preset.get("options", {}))
    result = run_debate(load_case(f"data/cases/{CASES[protocol]}.json"), protocol, settings=settings)
    assert result.status == "completed", result.error
    assert name in protocol_info(protocol)["presets"]


def test_panel_ablation_preset_makes_no_model_calls():
    preset = get_spec("panel").presets["abl_no_debate (no panel)"]
    result = run_debate(load_case("data/cases/panel_restaurant_review.json"), "panel",
                        settings=DebateSettings(options=preset["options"]))
    assert result.usage["calls"] == 0 and result.verdict.answer


def test_third_agent_preset_debates_with_everyone():
    preset = get_spec("cross_critique").presets["three agents: national, adat, Islamic law"]
    result = run_debate(load_case("data/cases/adat_minangkabau_inheritance.json"), "cross_critique",
                        settings=DebateSettings(agents=preset["agents"]))
    # 3 answers and 6 critiques in round 1: every agent critiques every other.
    assert result.trajectory[0]["claims"].keys() == {"nla", "ala", "ila"}
    assert result.usage["calls"] >= 3 + 6 + 3 + 1
