"""The baselines and the evaluation judge through the OpenAI provider, against a local
OpenAI-compatible server: their steps travel like any debate step (schema by name, usage counted)."""

from __future__ import annotations

import asyncio
import json

from fault_server import FaultServer, NameScript, content, requested_name
from helpers import small_case

from debate_core.engine.runtime import DebateSettings, Limiter
from debate_core.evaluation import harness as evaluation
from debate_core.jobs.debates import run_debate
from debate_core.providers import make_provider
from debate_core.store import DebateStore

ANSWER = {"answer": "No: the sawah is pusaka tinggi of the kaum.", "confidence": 0.42, "rationale": "E3, E4"}
JUDGED = {"same_conclusion": False, "reasoning": "The reference keeps the field in the estate."}


def provider(base_url: str):
    return make_provider("openai", model="fault-model", base_url=base_url, api_key="sk-test-not-real",
                         timeout=10.0, transport_retries=1, max_attempts=3)


def test_a_single_agent_answers_through_the_openai_provider(tmp_path):
    script = NameScript({"BaselineAnswer": ANSWER}, {"BaselineAnswer": [content("not json at all")]})
    with FaultServer(script) as server:
        store = DebateStore(tmp_path / "o.db")
        result = run_debate(small_case(), "single", provider=provider(server.base_url), store=store,
                            settings=DebateSettings(options={"review_threshold": 0.5}))
        bodies = [b for b in server.bodies() if b]
    assert result.status == "completed", result.error
    assert result.verdict.answer == ANSWER["answer"] and result.verdict.confidence == 0.42
    assert result.verdict.needs_human_review  # 0.42 is below the threshold
    assert {requested_name(b) for b in bodies} == {"BaselineAnswer"}
    [step] = store.steps(result.debate_id)
    assert step["step_id"] == "r1.single.solo" and step["attempts"] == 2  # the prose reply was re-asked
    assert json.loads(step["raw_output"])["answer"] == ANSWER["answer"]
    assert result.usage["calls"] == 2


def test_majority_samples_and_the_judge_through_the_openai_provider(tmp_path):
    script = NameScript({"BaselineAnswer": ANSWER, "JudgeOutput": JUDGED})
    case = small_case(expected={"needs_human_review": False, "label": "yes", "must_mention": [],
                                "reference": "Yes: the field is part of the estate."})
    with FaultServer(script) as server:
        result = run_debate(case, "majority", provider=provider(server.base_url),
                            settings=DebateSettings(options={"samples": 3}))
        judge = evaluation.Judge("fault-model", "openai", {"base_url": server.base_url, "api_key": "sk-test-not-real",
                                                           "timeout": 10.0})
        method = evaluation.Method("majority", "baseline", "majority", DebateSettings())
        judged = asyncio.run(judge.judge(case, method, result.verdict.answer, Limiter(2)))
        names = [requested_name(b) for b in server.bodies() if b]
    assert result.status == "completed" and result.usage["calls"] == 3
    assert result.verdict.answer == ANSWER["answer"] and not any("majority" in r for r in result.verdict.escalation_reasons)
    assert names.count("BaselineAnswer") == 3 and names.count("JudgeOutput") == 1
    assert judged["same_conclusion"] is False and judged["reasoning"] == JUDGED["reasoning"] and judged["tokens"] > 0
