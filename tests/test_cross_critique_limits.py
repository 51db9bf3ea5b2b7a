"""Cross critique's offline agents know their limits (through the CLI, on cases written here): a
medical team speaks no legal register, agreeing passages are no contradiction, round 1 carries the
minimum of critiques or says why (and the verdict is flagged), and a question offering labels gets one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from test_cli import cli  # noqa: E402

from debate_core.core.options import named_options, offered_options  # noqa: E402

MEDICAL = [
    {"id": "cardiologist", "name": "Cardiologist", "role": "Weighs the cardiovascular benefit of a preventive drug.",
     "terms": ["myocardial infarction", "cardiovascular", "benefit"]},
    {"id": "pharmacist", "name": "Clinical pharmacist", "role": "Knows the bleeding risks and interactions of drugs.",
     "terms": ["bleeding", "interaction", "dose"]},
]
CASE = {
    "id": "aspirin_primary_prevention", "title": "Aspirin for primary prevention",
    "question": "Should a 70-year-old without heart disease take daily low-dose aspirin to prevent a first heart attack?",
    "evidence": [
        {"id": "E1", "source": "FDA Drug Safety Communication", "authority": "official",
         "text": "Daily aspirin increases the risk of major bleeding in older adults without heart disease."},
        {"id": "E2", "source": "Trial report", "authority": "primary",
         "text": "In adults over 70 daily aspirin increases the risk of major bleeding and gives no cardiovascular "
                 "benefit."},
        {"id": "E3", "source": "Review", "authority": "secondary",
         "text": "Myocardial infarction prevention with aspirin offers little benefit for patients over 70."},
    ],
}
LEGAL_WORDS = ["precedence", "sources of the", "statute", "norm", "govern this dispute", "jurisprudence"]


def _run(tmp_path: Path, case: dict, agents: list | None = None, extra: tuple = ()) -> dict:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    args = ["run", str(path), "--protocol", "cross_critique", "--json", *extra]
    if agents:
        team = tmp_path / "agents.json"
        team.write_text(json.dumps({"agents": agents}), encoding="utf-8")
        args += ["--agents-file", str(team)]
    out = cli(*args, db=tmp_path / "db.sqlite", check=True)
    return json.loads(out.stdout)


def _steps(tmp_path: Path, debate_id: str) -> list[dict]:
    out = cli("show", debate_id, "--json", db=tmp_path / "db.sqlite", check=True)
    return json.loads(out.stdout)["steps"]


def test_a_medical_team_speaks_no_legal_register(tmp_path):
    result = _run(tmp_path, CASE, MEDICAL)
    text = json.dumps([s.get("output") for s in _steps(tmp_path, result["debate_id"])])
    for word in LEGAL_WORDS:
        assert word not in text.lower(), word
    assert "FDA Drug Safety Communication" in text or "E1" in text


def test_agreeing_passages_are_no_critical_contradiction(tmp_path):
    result = _run(tmp_path, CASE, MEDICAL)
    for step in _steps(tmp_path, result["debate_id"]):
        for k in (step.get("output") or {}).get("critiques", []):
            assert not (k["issue_type"] == "conflict" and k["severity"] == "CRITICAL"), k


def test_each_agent_raises_three_critiques_in_round_one_or_says_why(tmp_path):
    result = _run(tmp_path, CASE, MEDICAL)
    steps = [s for s in _steps(tmp_path, result["debate_id"]) if s["step_id"].startswith("r1.critique.")]
    by_critic: dict[str, list[dict]] = {}
    for s in steps:
        by_critic.setdefault(s["step_id"].split(".")[2], []).append(s["output"])
    reasons = " ".join(result["verdict"]["escalation_reasons"])
    for critic, outs in by_critic.items():
        last = outs[-1]
        if len(last["critiques"]) < 3:
            assert last["shortfall"], critic
            assert "echo chamber" in reasons and critic in reasons
            assert result["verdict"]["needs_human_review"]


def test_a_claim_check_question_gets_exactly_one_label(tmp_path):
    case = {**CASE, "question": "Claim: daily aspirin increases the risk of major bleeding in adults over 70. "
                                "Is the claim supported, partially supported or not supported by the evidence?"}
    result = _run(tmp_path, case)
    options = offered_options(case["question"])
    assert options == ["supported", "partially supported", "not supported"]
    assert len(named_options(result["verdict"]["answer"], options)) == 1
