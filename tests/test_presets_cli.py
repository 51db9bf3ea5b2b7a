"""Source presets carry their source's settings, and `run`, `fork` and `eval` apply a preset by name
from the command line as the New debate page does (flags given beside it win)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import count_debates
from test_cli import cli

from debate_core.core.app_settings import save_preset
from debate_core.protocols import PROTOCOLS, get_spec
from debate_core.store import DebateStore

ROOT = Path(__file__).resolve().parent.parent
SOURCE = "as in the source"
ARBITRATION = "as in the source: GCC-STAT > World Bank > other, 5% apart"
PANEL = "as in the source: analyst, critic, empath, 2 rounds"
REFINEMENT = "as in the source: log, KG and hybrid reasoners, 3 rounds, 5-point plateau"
# What each source document states, by protocol: rounds, agents in order, options.
STATED = {
    "panel": (2, ["analyst", "critic", "empath"],
              {"enable_debate": True, "enable_debate_override": True, "order": ["analyst", "critic", "empath"],
               "debate_override": {"min_total": 1.6, "min_margin": 0.8, "min_target_conf": 0.7}}),
    "refinement": (3, ["log", "kg", "hybrid"], {"plateau_points": 5.0}),
    "arbitration": (1, ["arbiter"], {"value_threshold": 0.05, "authority_order": ["GCC-STAT", "World Bank"]}),
    "cross_critique": (3, ["nla", "ala"], {"max_claims": 10, "min_critiques": 3, "answer_change_threshold": 0.15,
                                           "unsupported_limit": 0.3, "convergence_mode": "any"}),
    "dialectic": (3, ["generator", "critic", "synthesizer"], {"convergence_threshold": 0.85}),
}


@pytest.fixture(autouse=True)
def _in_the_project_folder(monkeypatch):
    monkeypatch.chdir(ROOT)


def source_preset(protocol: str) -> tuple[str, dict]:
    found = {n: p for n, p in get_spec(protocol).presets.items() if n.startswith(SOURCE)}
    assert len(found) == 1, f"{protocol} needs exactly one preset named '{SOURCE}: ...', has {list(found)}"
    return next(iter(found.items()))


def arbitration_case(tmp_path: Path) -> Path:
    """GCC-STAT and World Bank disagree on one figure for one period; both figures are in their own
    source, neither passage states an authority: only the source's order can decide."""
    case = {
        "id": "gcc_vs_wb", "title": "Unemployment 2024", "question": "Which unemployment rate should the report use?",
        "evidence": [{"id": "e1", "source": "GCC-STAT", "text": "Qatar unemployment rate, 2024: 0.10%."},
                     {"id": "e2", "source": "World Bank", "text": "Qatar unemployment rate, 2024: 0.12%."}],
        "reports": [
            {"agent": "A", "metric": "qatar_unemployment_rate", "value": 0.12, "unit": "%", "confidence": 0.9,
             "citation": "[Per extraction: '0.12%' from World Bank 2024]", "source": "World Bank", "period": "2024"},
            {"agent": "B", "metric": "qatar_unemployment_rate", "value": 0.10, "unit": "%", "confidence": 0.9,
             "citation": "[Per extraction: '0.10%' from GCC-STAT 2024]", "source": "GCC-STAT", "period": "2024"},
        ],
    }
    path = tmp_path / "gcc_vs_wb.json"
    path.write_text(json.dumps(case))
    return path


def run_json(*args: str, db: Path) -> dict:
    proc = cli(*args, "--json", "--quiet", db=db, check=True)
    return json.loads(proc.stdout)


def stored(db: Path, debate_id: str) -> dict:
    return DebateStore(db).get_debate(debate_id)


# ---------------------------------------------------------------------------
# The presets themselves
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_source_preset_carries_every_stated_default_and_validates(protocol):
    name, preset = source_preset(protocol)
    rounds, agents, options = STATED[protocol]
    assert preset.get("rounds") == rounds
    assert [a["id"] for a in preset["agents"]] == agents
    assert preset["options"] == options
    spec = get_spec(protocol)
    spec.options(preset["options"])  # raises on a key or value the protocol does not take
    assert spec.min_rounds <= rounds <= spec.max_rounds


def test_protocols_json_lists_each_source_preset_with_its_settings(tmp_path):
    described = {d["name"]: d for d in json.loads(cli("protocols", "--json", db=tmp_path / "d.db", check=True).stdout)}
    for protocol in PROTOCOLS:
        found = {n: p for n, p in described[protocol]["presets"].items() if n.startswith(SOURCE)}
        [(name, preset)] = found.items()
        assert preset == json.loads(json.dumps(get_spec(protocol).presets[name]))
        assert preset["options"] == STATED[protocol][2]
    text = cli("protocols", db=tmp_path / "d.db", check=True).stdout
    assert f'--preset "{ARBITRATION}"  rounds 1; agents arbiter; options' in text


# ---------------------------------------------------------------------------
# run --preset
# ---------------------------------------------------------------------------


def test_run_preset_applies_the_authority_order(tmp_path):
    db, case = tmp_path / "d.db", arbitration_case(tmp_path)
    # Without the preset no source outranks another: the contradiction goes to a person.
    plain = run_json("run", str(case), "--protocol", "arbitration", db=db)
    [before] = stored(db, plain["debate_id"])["result"]["contradictions"]
    assert before["status"] == "flagged_for_review" and "rank" not in before["explanation"]

    out = run_json("run", str(case), "--protocol", "arbitration", "--preset", ARBITRATION, db=db)
    row = stored(db, out["debate_id"])
    assert row["settings"]["options"] == STATED["arbitration"][2]
    assert row["settings"]["rounds"] == 1 and [a["id"] for a in row["settings"]["agents"]] == ["arbiter"]
    [c] = row["result"]["contradictions"]
    assert (c["resolution"], c["status"]) == ("agent2_correct", "resolved")  # B's GCC-STAT figure
    assert c["recommended_value"] == 0.10
    assert "Decided by source authority" in c["explanation"]
    assert "GCC-STAT, rank 1 in GCC-STAT > World Bank > other" in c["explanation"]
    assert out["verdict"]["needs_human_review"] is False


def test_an_explicit_option_beside_the_preset_wins(tmp_path):
    db, case = tmp_path / "d.db", arbitration_case(tmp_path)
    out = run_json("run", str(case), "--protocol", "arbitration", "--preset", ARBITRATION,
                   "--option", 'authority_order="World Bank > GCC-STAT > other"', db=db)
    row = stored(db, out["debate_id"])
    assert row["settings"]["options"] == {"value_threshold": 0.05, "authority_order": "World Bank > GCC-STAT > other"}
    [c] = row["result"]["contradictions"]
    assert c["resolution"] == "agent1_correct" and c["recommended_value"] == 0.12


def test_explicit_rounds_and_agents_beside_the_preset_win(tmp_path):
    db = tmp_path / "d.db"
    case = "data/cases/panel_restaurant_review.json"
    out = run_json("run", case, "--protocol", "panel", "--preset", PANEL, "--rounds", "1",
                   "--option", "enable_debate_override=false", db=db)
    settings = stored(db, out["debate_id"])["settings"]
    assert settings["rounds"] == 1 and out["rounds"] == 1
    assert [a["id"] for a in settings["agents"]] == ["analyst", "critic", "empath"]
    assert settings["options"]["enable_debate_override"] is False
    assert settings["options"]["debate_override"] == {"min_total": 1.6, "min_margin": 0.8, "min_target_conf": 0.7}
    out = run_json("run", case, "--protocol", "panel", "--preset", PANEL, "--agents", "critic,analyst",
                   "--option", 'order=["critic", "analyst"]', db=db)
    settings = stored(db, out["debate_id"])["settings"]
    assert [a["id"] for a in settings["agents"]] == ["critic", "analyst"] and settings["rounds"] == 2


def test_an_unknown_preset_is_exit_2_naming_the_presets(tmp_path):
    db, case = tmp_path / "d.db", arbitration_case(tmp_path)
    proc = cli("run", str(case), "--protocol", "arbitration", "--preset", "no such preset", db=db)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith('error: arbitration has no preset "no such preset"')
    for name in get_spec("arbitration").presets:
        assert json.dumps(name) in proc.stderr
    assert "saved in the app's settings: none" in proc.stderr
    assert count_debates(db) == 0


def test_a_saved_preset_applies_and_a_built_in_name_resolves_to_the_built_in(tmp_path):
    db, case = tmp_path / "d.db", arbitration_case(tmp_path)
    save_preset(db, "arbitration", "mine", {"options": {"value_threshold": 0.5}})
    save_preset(db, "arbitration", ARBITRATION, {"options": {"value_threshold": 0.9}})
    out = run_json("run", str(case), "--protocol", "arbitration", "--preset", "mine", db=db)
    assert stored(db, out["debate_id"])["settings"]["options"] == {"value_threshold": 0.5}
    assert out["verdict"]["needs_human_review"] is False  # 0.10 and 0.12 within 50%: nothing contradicts
    out = run_json("run", str(case), "--protocol", "arbitration", "--preset", ARBITRATION, db=db)
    assert stored(db, out["debate_id"])["settings"]["options"] == STATED["arbitration"][2]
    proc = cli("run", str(case), "--protocol", "arbitration", "--preset", "theirs", db=db)
    assert proc.returncode == 2 and 'saved in the app\'s settings: "mine"' in proc.stderr


# ---------------------------------------------------------------------------
# fork --preset and eval --preset
# ---------------------------------------------------------------------------


def test_fork_preset_applies_with_explicit_options_winning(tmp_path):
    db = tmp_path / "d.db"
    parent = run_json("run", "data/cases/refinement_hdfs_datanode.json", "--protocol", "refinement",
                      "--option", "plateau_points=2", db=db)
    fork = run_json("fork", parent["debate_id"], "--from-round", "1", "--preset", REFINEMENT,
                    "--option", "review_score_threshold=80", db=db)
    row = stored(db, fork["debate_id"])
    assert row["parent_id"] == parent["debate_id"] and row["fork_round"] == 1
    assert row["settings"]["options"] == {"plateau_points": 5.0, "review_score_threshold": 80}
    assert row["settings"]["rounds"] == 3 and [a["id"] for a in row["settings"]["agents"]] == ["log", "kg", "hybrid"]
    fork = run_json("fork", parent["debate_id"], "--from-round", "1", "--preset", REFINEMENT,
                    "--option", "plateau_points=1", "--rounds", "2", db=db)
    settings = stored(db, fork["debate_id"])["settings"]
    assert settings["options"] == {"plateau_points": 1} and settings["rounds"] == 2
    proc = cli("fork", parent["debate_id"], "--from-round", "1", "--preset", "nope", db=db)
    assert proc.returncode == 2 and proc.stderr.startswith('error: refinement has no preset "nope"')
    assert json.dumps(REFINEMENT) in proc.stderr and proc.stderr.count("\n") == 1


def test_eval_preset_takes_a_built_in_preset_by_name(tmp_path):
    db = tmp_path / "d.db"
    proc = cli("eval", "data/eval/dev/arbitration_malaria_deaths_2010.json", "--protocol", "arbitration",
               "--preset", ARBITRATION, "--json", "--quiet", db=db, check=True)
    report = json.loads(proc.stdout)
    assert report["methods"] == ["arbitration", ARBITRATION]
    row = next(r for r in report["rows"] if r["method"] == ARBITRATION)
    assert stored(db, row["debate_id"])["settings"]["options"] == STATED["arbitration"][2]
    bad = cli("eval", "data/eval/dev/arbitration_malaria_deaths_2010.json", "--protocol", "arbitration",
              "--preset", "nope", db=db)
    assert bad.returncode == 2 and bad.stderr.startswith('error: arbitration has no preset "nope"')
