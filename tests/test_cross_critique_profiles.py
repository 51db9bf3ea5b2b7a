"""Cross critique with the reviewer's own agents: profiles from --agents-file, the neutral default
pair, the Indonesian samples' own pair, the presets, and offline agents that say what they could
not assess."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from helpers import small_case

from debate_core.core.cases import load_case
from debate_core.core.schemas import AgentOutput
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.protocols import cross_critique as protocol
from debate_core.protocols import get_spec
from debate_core.protocols.cross_critique import agent as offline
from debate_core.protocols.cross_critique import rules
from debate_core.providers import make_provider
from debate_core.store import DebateStore

sys.path.insert(0, str(Path(__file__).parent))
from test_cli import cli  # noqa: E402 - the CLI as a user runs it (in this process, its own database)

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "data" / "cases"
INDONESIAN = ["adat_bali_daughter_heir.json", "adat_minangkabau_inheritance.json", "national_will_formalities.json"]
LEGAL_WORDS = ["law", "legal", "adat", "KUHPerdata", "statute", "court", "National Law Agent", "Adat Law Agent",
               "notaris", "legitieme", "norm conflict"]

MEDICAL_AGENTS = [
    {"id": "cardiologist", "name": "Cardiologist",
     "role": "Weighs the cardiovascular benefit of a preventive drug for the individual patient.",
     "terms": ["myocardial infarction", "10-year risk"]},
    {"id": "pharmacist", "name": "Clinical pharmacist",
     "role": "Knows the trials, the bleeding risks and the interactions of the drug.",
     "instructions": "Challenge any claim that rests on outdated guidance.", "terms": ["major bleeding"]},
    {"id": "gp", "name": "General practitioner",
     "role": "Applies the current prevention guidance to the patient in front of them.",
     "terms": ["primary prevention"]},
]

MEDICAL_CASE = {
    "id": "statin_question",
    "title": "A statin for an older patient",
    "question": "A 68-year-old woman without heart disease has a 10-year cardiovascular risk of 14% and "
                "stable kidney function. Should she start a moderate-intensity statin for primary prevention?",
    "evidence": [
        {"id": "guidance", "source": "Prevention guidance (paraphrase)", "authority": "official",
         "text": "For adults aged 40 to 75 with a 10-year cardiovascular risk of 10% or more, a moderate-intensity "
                 "statin is recommended for primary prevention after a discussion of benefits and harms."},
        {"id": "trial", "source": "Randomised trial summary", "authority": "academic",
         "text": "In older adults without heart disease, statins reduced myocardial infarction by about a quarter "
                 "over five years; muscle symptoms were reported at similar rates on statin and placebo."},
        {"id": "interactions", "source": "Drug interaction note", "authority": "secondary",
         "text": "Some statins interact with certain antifungals and macrolide antibiotics; the dose may need "
                 "adjusting when kidney function is reduced."},
    ],
}


def prompt_text(step: dict) -> str:
    return " ".join(m.get("content", "") for m in step["prompt"] or [])


def test_three_agent_medical_debate_from_an_agents_file_runs_offline(tmp_path):
    case_file = tmp_path / "statin.json"
    case_file.write_text(json.dumps(MEDICAL_CASE), encoding="utf-8")
    agents_file = tmp_path / "agents.json"
    agents_file.write_text(json.dumps(MEDICAL_AGENTS), encoding="utf-8")
    db = tmp_path / "d.db"
    proc = cli("run", str(case_file), "--protocol", "cross_critique", "--agents-file", str(agents_file),
               "--json", "--quiet", db=db, check=True)
    debate_id = json.loads(proc.stdout)["debate_id"]
    steps = DebateStore(db).get_debate(debate_id)["steps"]

    round1 = [s for s in steps if s["stage"] == "critique" and s["round"] == 1 and s["status"] == "ok"]
    assert {(s["agent"], s["target"]) for s in round1} == {
        (a["id"], b["id"]) for a in MEDICAL_AGENTS for b in MEDICAL_AGENTS if a is not b}
    assert len({s["step_id"] for s in round1}) == 6

    by_id = {a["id"]: a for a in MEDICAL_AGENTS}
    agent_steps = [s for s in steps if s["stage"] in ("answer", "critique", "revise")]
    assert agent_steps and all(s["prompt"] for s in agent_steps)
    for s in agent_steps:
        text = prompt_text(s)
        profile = by_id[s["agent"]]
        assert profile["role"] in text and profile["name"] in text, s["step_id"]
        if "instructions" in profile:
            assert profile["instructions"] in text
    for s in steps:
        text = prompt_text(s)
        for word in LEGAL_WORDS:
            assert not re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE), (s["step_id"], word)


def test_a_case_without_agents_gets_the_neutral_pair():
    result = run_debate(small_case(), "cross_critique", provider=make_provider("offline"))
    assert result.status == "completed"
    assert set(result.trajectory[0]["claims"]) == {"proponent", "skeptic"}
    assert [a["id"] for a in protocol.DEFAULT_AGENTS] == ["proponent", "skeptic"]
    for agent in protocol.DEFAULT_AGENTS:
        assert agent["role"] and not any(re.search(rf"\b{w}\b", agent["role"], re.IGNORECASE) for w in LEGAL_WORDS)


@pytest.mark.parametrize("name", INDONESIAN)
def test_the_indonesian_samples_use_their_own_pair(name):
    case = load_case(CASES / name)
    result = run_debate(case, "cross_critique", provider=make_provider("offline"))
    assert result.status == "completed"
    assert set(result.trajectory[0]["claims"]) == {"nla", "ala"}
    assert {a["name"] for a in (case.model_extra or {})["agents"]} == {"National Law Agent", "Adat Law Agent"}


@pytest.mark.parametrize("preset, ids", [("as in the source: national and adat law agents, up to 3 rounds", ["nla", "ala"]),
                                         ("three agents: national, adat, Islamic law", ["nla", "ala", "ila"])])
def test_the_indonesian_presets_validate_and_run(preset, ids):
    spec = get_spec("cross_critique")
    agents = spec.presets[preset]["agents"]
    assert [a["id"] for a in agents] == ids and all(a.get("role") and a.get("terms") for a in agents)
    case = small_case()  # a case without agents of its own: the preset's profiles speak
    result = run_debate(case, "cross_critique", provider=make_provider("offline"),
                        settings=DebateSettings(agents=agents))
    assert result.status == "completed"
    assert list(result.trajectory[0]["claims"]) == ids


def test_the_offline_agents_know_no_sample_vocabulary():
    files = sorted(Path(offline.__file__).parent.glob("*.py"))  # the agent is a package of modules
    assert len(files) > 1
    source = "\n".join(f.read_text(encoding="utf-8") for f in files)
    for word in ["legitieme", "sentana", "KAN", "pusaka", "adat", "KUHPerdata", "notaris", "notary", "national",
                 "customary", "Minangkabau", "Bali", "good law"]:
        assert not re.search(rf"\b{re.escape(word)}\b", source, re.IGNORECASE), word
    assert "protocols" not in source  # the agents get their profiles in the payload, not from the protocol


def test_a_weak_reading_caps_confidence_and_says_what_it_could_not_assess():
    # Nothing in the passages bears on what the question asks: the reading is weak.
    case = small_case(question="Which vaccine schedule suits a premature infant, and who pays for it?")
    payload = {"case": case, "agent": protocol.DEFAULT_AGENTS[0], "agents": protocol.DEFAULT_AGENTS}
    out = AgentOutput.model_validate(offline.answer(payload))
    assert all(c.confidence <= 0.4 for c in out.claims)
    assert any(u.startswith("could not assess:") for u in out.uncertainties)


def test_the_moderator_escalates_low_confidence_and_unassessed_finals():
    final = AgentOutput.model_validate({
        "answer": "a", "claims": [{"id": "C1", "statement": "s", "evidence": ["E1"], "confidence": 0.3}],
        "uncertainties": ["could not assess: which passage supports the tenant"], "open_questions": []})
    confident = AgentOutput.model_validate({
        "answer": "b", "claims": [{"id": "C1", "statement": "s", "evidence": ["E1"], "confidence": 0.8}],
        "uncertainties": [], "open_questions": []})
    assert rules.low_confidence({"a": final, "b": confident}) == \
        "the deciding agents are not confident enough (below 50%): a 30%"
    assert rules.could_not_assess({"a": final}) == "the agents could not assess: which passage supports the tenant"
    assert rules.low_confidence({"b": confident}) is None and rules.could_not_assess({"b": confident}) is None


def test_the_verdict_opens_with_an_answer_not_a_list_of_quotes():
    case = load_case(CASES / "national_will_formalities.json")
    result = run_debate(case, "cross_critique", provider=make_provider("offline"))
    answer = result.verdict.answer
    assert not answer.startswith(("Agreed ground", "Supporting points"))
    first = answer.split(" [", 1)[0]
    agreed = [c["statement"] for c in result.summary["agreed_claims"]]
    assert first in agreed  # the first sentence is an agreed claim, stated as the answer
    if result.verdict.needs_human_review:
        assert result.verdict.escalation_reasons
