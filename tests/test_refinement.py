"""Refinement protocol (the hypothesis-refinement source protocol): stopping rules, judge-score validation, escalation, offline agents."""

from __future__ import annotations

from pathlib import Path

import pytest

from debate_core.core.cases import CASES_DIR, load_case, parse_case
from debate_core.core.events import MemorySink
from debate_core.engine.convergence import Stop
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.protocols.refinement import agent as refinement_offline
from debate_core.protocols.refinement import rules as refinement_rules
from debate_core.protocols.refinement.agent import assess, initial_hypotheses, self_contradiction
from debate_core.protocols.refinement.models import JudgeScore
from debate_core.protocols.refinement.rules import consensus, judge_coverage_problems
from debate_core.providers import ReplayProvider
from debate_core.providers.base import Provider, RawReply

REASONERS = ("log", "kg", "hybrid")
DISTINCT = {
    "log": ("Disk space exhaustion on dn-07", "resource"),
    "kg": ("Faulty top-of-rack switch drops heartbeats", "network"),
    "hybrid": ("Misconfigured reserved space setting", "config"),
}


@pytest.fixture
def case():
    return parse_case({
        "id": "t-refinement", "title": "node down", "question": "Why did dn-07 fail?",
        "evidence": [{"id": "L1", "source": "log", "text": "dn-07 disk 100% full"},
                     {"id": "H1", "source": "past incident", "text": "HDFS_001 disk full"}],
    })


def hyp(text, category="resource", evidence=("L1",), confidence=0.7):
    return {"hypothesis": text, "confidence": confidence, "reasoning": "r", "evidence": list(evidence),
            "category": category, "affected_components": ["dn-07"], "suggested_resolution": "Free space; add alerts",
            "changes_made": ""}


def hyps_call(n, reasoner, top_text=None, category=None, evidence=("L1",)):
    text, cat = DISTINCT[reasoner]
    items = [hyp(top_text or text, category or cat, evidence)]
    items += [hyp(f"{reasoner} alternative {i}", "software") for i in (1, 2)]
    return {"step": f"r{n}.hypotheses.{reasoner}", "output": {"hypotheses": items}}


def judge_call(n, tops, others=10.0, skip=()):
    scores = []
    for r in REASONERS:
        for i in range(3):
            if (r, i) in skip:
                continue
            scores.append({"reasoner": r, "index": i, "score": tops[r] if i == 0 else others,
                           "strengths": [f"{r}{i} ok"], "weaknesses": [f"{r}{i} weak"], "feedback": f"improve {r}{i}"})
    return {"step": f"r{n}.judge", "output": {"scores": scores}}


def round_calls(n, tops, others=10.0, **kw):
    return [*(hyps_call(n, r, **kw) for r in REASONERS), judge_call(n, tops, others)]


def replay(*calls):
    return ReplayProvider({"format": "debate-cassette/1", "protocol": "refinement", "calls": list(calls)})


def test_score_plateau_stops_after_the_second_round(case):
    # No round-3 entries: asking for them would fail the debate.
    calls = round_calls(1, {"log": 80, "kg": 70, "hybrid": 60}) + round_calls(2, {"log": 83, "kg": 72, "hybrid": 61})
    res = run_debate(case, "refinement", provider=replay(*calls))
    assert res.status == "completed", res.error
    assert res.rounds == 2 and res.converged
    assert res.convergence_reason == "Score plateau: top score changed by +3.0 points (< 5)"
    assert res.result["improvement_trajectory"] == [80.0, 83.0]
    assert res.trajectory[1]["judge_scores"] == {"log": 83.0, "kg": 72.0, "hybrid": 61.0}
    assert res.trajectory[1]["top_score"] == 83.0
    final = res.result["final_hypothesis"]
    assert final["source"] == "log" and final["judge_score"] == 83.0 and final["rounds_refined"] == 2
    assert not res.verdict.needs_human_review
    assert res.verdict.answer.startswith("Disk space exhaustion on dn-07\nResolution: Free space")
    assert res.verdict.confidence == 0.83


def test_first_round_is_never_a_plateau_and_the_threshold_is_configurable(case):
    calls = round_calls(1, {"log": 1, "kg": 1, "hybrid": 1}, others=0) + round_calls(2, {"log": 83, "kg": 72, "hybrid": 61})
    calls += round_calls(3, {"log": 87, "kg": 72, "hybrid": 61})
    # A top score of 1 in round 1 is not "a gain below 3 over 0": round 1 has nothing to compare with.
    res = run_debate(case, "refinement", provider=replay(*calls), settings=DebateSettings(options={"plateau_points": 3}))
    assert res.rounds == 3
    assert not res.converged and res.convergence_reason == "Max rounds (3) reached"
    assert res.result["improvement_trajectory"] == [1.0, 83.0, 87.0]


def test_consensus_stops_in_the_first_round(case):
    calls = [hyps_call(1, r, top_text="Disk space exhaustion on DataNode dn-07 after the re-replication surge",
                       category="resource") for r in REASONERS]
    calls.append(judge_call(1, {"log": 80, "kg": 85, "hybrid": 75}))
    res = run_debate(case, "refinement", provider=replay(*calls))
    assert res.rounds == 1 and res.converged
    assert res.convergence_reason.startswith("Consensus: all reasoners' top hypotheses agree (category resource")
    assert res.result["final_hypothesis"]["source"] == "kg"
    assert res.result["rounds"][0]["consensus"]["reached"]


def test_same_category_with_different_stories_is_not_consensus():
    tops = [{"hypothesis": "Disk space exhaustion on dn-07", "category": "resource"},
            {"hypothesis": "Memory leak in the block scanner exhausts the heap", "category": "resource"}]
    agreed, lowest = consensus(tops, 0.5)
    assert not agreed and lowest < 0.5
    same = [{"hypothesis": "Disk space exhaustion on dn-07", "category": "resource"},
            {"hypothesis": "Disk space exhaustion on dn-07", "category": "config"}]
    assert consensus(same, 0.5) == (False, 1.0)


def test_max_rounds_without_convergence_escalates(case):
    calls = []
    for n, top in ((1, 50), (2, 60), (3, 70)):
        calls += round_calls(n, {"log": top, "kg": top - 20, "hybrid": top - 30})
    sink = MemorySink()
    res = run_debate(case, "refinement", provider=replay(*calls), sink=sink)
    assert res.rounds == 3 and not res.converged
    assert res.convergence_reason == "Max rounds (3) reached"
    assert res.verdict.needs_human_review
    assert "no_convergence_at_max_rounds" in res.verdict.applied_rules
    assert sink.kinds().count("round_closed") == 3
    assert [e.data["metrics"]["top_score"] for _, e in sink.events if e.kind == "round_closed"] == [50, 60, 70]


def test_rounds_are_capped_at_three(case):
    calls = []
    for n, top in ((1, 50), (2, 60), (3, 70)):
        calls += round_calls(n, {"log": top, "kg": 1, "hybrid": 1})
    res = run_debate(case, "refinement", provider=replay(*calls), settings=DebateSettings(rounds=7))
    assert res.rounds == 3
    assert any("capped at 3" in w for w in res.warnings)


def test_low_final_score_escalates_even_when_converged(case):
    calls = round_calls(1, {"log": 40, "kg": 30, "hybrid": 20}) + round_calls(2, {"log": 42, "kg": 30, "hybrid": 20})
    res = run_debate(case, "refinement", provider=replay(*calls))
    assert res.converged
    assert res.verdict.needs_human_review
    assert res.verdict.applied_rules == ["final_score_below_threshold"]
    relaxed = run_debate(case, "refinement", provider=replay(*calls),
                         settings=DebateSettings(options={"review_score_threshold": 40}))
    assert not relaxed.verdict.needs_human_review


def test_a_worse_refinement_stops_and_keeps_the_best_earlier_hypothesis(case):
    calls = round_calls(1, {"log": 88, "kg": 70, "hybrid": 60}) + round_calls(2, {"log": 70, "kg": 72, "hybrid": 61})
    res = run_debate(case, "refinement", provider=replay(*calls))
    assert res.convergence_reason.startswith("Score plateau: top score changed by -16.0")
    final = res.result["final_hypothesis"]
    assert final["judge_score"] == 88.0 and final["rounds_refined"] == 1


def test_unverified_evidence_is_marked_and_escalates(case):
    calls = round_calls(1, {"log": 90, "kg": 30, "hybrid": 20}) + round_calls(2, {"log": 92, "kg": 30, "hybrid": 20})
    calls[0] = hyps_call(1, "log", evidence=("L1", "X9"))
    calls[4] = hyps_call(2, "log", evidence=("L1", "X9"))
    res = run_debate(case, "refinement", provider=replay(*calls))
    h = res.result["rounds"][0]["hypotheses"]["log"][0]
    assert h["unverified_evidence"] == ["X9"] and h["verified_evidence"] == ["L1"]
    assert any("X9" in w for w in res.warnings)
    assert "unverified_evidence" in res.verdict.applied_rules


@pytest.mark.parametrize("skip, wrong, expected", [
    ({("kg", 2)}, None, "not scored: kg#2"),
    (set(), {"reasoner": "kg", "index": 7}, "index 7 is out of range"),
    (set(), {"reasoner": "planner", "index": 0}, "unknown reasoner 'planner'"),
    (set(), {"reasoner": "log", "index": 1}, "log#1 is scored 2 times"),
])
def test_incomplete_judge_output_fails_the_debate_at_the_judge_step(case, skip, wrong, expected):
    judge = judge_call(1, {"log": 80, "kg": 70, "hybrid": 60}, skip=skip)
    if wrong:
        judge["output"]["scores"].append({**judge["output"]["scores"][0], **wrong})
    calls = [*(hyps_call(1, r) for r in REASONERS), judge]
    res = run_debate(case, "refinement", provider=replay(*calls))
    assert res.status == "failed"
    assert res.failed_step == "r1.judge"
    assert expected in res.error


def test_judge_reasoner_names_match_ignoring_case(case):
    judge = judge_call(1, {"log": 80, "kg": 70, "hybrid": 60})
    for s in judge["output"]["scores"]:
        s["reasoner"] = s["reasoner"].upper()
    calls = [*(hyps_call(1, r) for r in REASONERS), judge, *round_calls(2, {"log": 81, "kg": 70, "hybrid": 60})]
    res = run_debate(case, "refinement", provider=replay(*calls))
    assert res.status == "completed", res.error
    assert {s["reasoner"] for s in res.result["rounds"][0]["judge_evaluation"]["scores"]} == set(REASONERS)


class FlakyJudge(Provider):
    """Answers from a cassette, but the judge first leaves one hypothesis unscored."""

    name = "flaky"

    def __init__(self, calls):
        super().__init__(max_attempts=3)
        self.calls = {c["step"]: c["output"] for c in calls}
        self.seen: list[list[dict[str, str]]] = []

    async def _reply(self, req, messages, attempt):
        out = self.calls[req.step_id]
        if req.step_id == "r1.judge":
            self.seen.append(messages)
            if attempt == 1:
                out = {"scores": out["scores"][:-1]}
        return RawReply(text="", data=out)


def test_the_judge_is_told_what_it_left_unscored_and_asked_again(case):
    calls = round_calls(1, {"log": 80, "kg": 70, "hybrid": 60}) + round_calls(2, {"log": 81, "kg": 70, "hybrid": 60})
    provider = FlakyJudge(calls)
    res = run_debate(case, "refinement", provider=provider)
    assert res.status == "completed", res.error
    assert len(provider.seen) == 2
    assert "not scored: hybrid#2" in provider.seen[1][-1]["content"]


def test_coverage_problems_accepts_a_complete_score_list():
    scores = [JudgeScore(reasoner=r, index=i, score=50) for r in ("a", "b") for i in range(3)]
    assert judge_coverage_problems(scores, {"a": 3, "b": 3}) == []
    assert judge_coverage_problems(scores[:-1], {"a": 3, "b": 3}) == ["not scored: b#2"]


def test_refinement_prompt_carries_the_seed_template_and_only_top_hypotheses(case):
    calls = round_calls(1, {"log": 80, "kg": 70, "hybrid": 60}) + round_calls(2, {"log": 81, "kg": 70, "hybrid": 60})
    sink = MemorySink()
    run_debate(case, "refinement", provider=replay(*calls), sink=sink)
    prompt = next(e.data["prompt"] for _, e in sink.events if e.kind == "turn_started" and e.step_id == "r2.hypotheses.log")
    user = prompt[1]["content"]
    for section in ("=== YOUR PREVIOUS HYPOTHESIS ===", "=== JUDGE FEEDBACK ===",
                    "=== OTHER REASONERS' TOP HYPOTHESES ===", "=== INSTRUCTIONS ==="):
        assert section in user
    assert "Score: 80/100" in user and "Confidence: 0.70" in user
    assert "log0 weak" in user and "improve log0" in user and "log0 ok" in user
    assert "Faulty top-of-rack switch" in user and "Misconfigured reserved space" in user
    # Bounded: the other reasoners' non-top hypotheses and other feedback are not replayed.
    assert "kg alternative 1" not in user and "improve kg0" not in user


def test_offline_debate_on_the_sample_case_finds_the_change_before_the_first_anomaly():
    case = load_case(CASES_DIR / "refinement_hdfs_datanode.json")
    res = run_debate(case, "refinement")
    assert res.status == "completed", res.error
    assert res.converged
    final = res.result["final_hypothesis"]
    assert final["category"] == case.expected["category"]
    # The earliest warning (L1, 03:12:44) and the change before it (M2, 00:55) are cited.
    assert {"L1", "M2"} <= set(final["evidence"]) and final["unverified_evidence"] == []
    assert "dn-07" in final["hypothesis"] and "decommission" in final["hypothesis"]
    assert final["hypothesis"].index("(M2)") < final["hypothesis"].index("(L1)")
    assert res.verdict.answer.startswith("Root cause: the change just before the first anomaly")
    assert not res.verdict.needs_human_review
    # The knowledge-graph reasoner reads no log line in round 1 (past incidents, the pattern, the
    # configuration fact), so the reasoners disagree; the judge asks it for the first anomaly and the
    # change before it, and in round 2 it cites them. Round 2 adds nothing to the top score: plateau.
    assert res.rounds == 2
    assert not res.result["rounds"][0]["consensus"]["reached"]
    kg1 = max(res.result["rounds"][0]["hypotheses"]["kg"], key=lambda h: h["judge_score"])
    kg2 = max(res.result["rounds"][1]["hypotheses"]["kg"], key=lambda h: h["judge_score"])
    assert not {"L1", "M2"} & set(kg1["evidence"]) and {"L1", "M2"} <= set(kg2["evidence"])
    assert kg2["judge_score"] > kg1["judge_score"]
    assert res.convergence_reason.startswith("Score plateau")
    for rd in res.result["rounds"]:
        for items in rd["hypotheses"].values():
            assert 3 <= len(items) <= 5
            assert all("judge_score" in h and h["feedback"] for h in items)
            assert not any("rules out" in h["hypothesis"] + h["reasoning"] for h in items)


def test_offline_code_carries_no_sample_vocabulary():
    files = sorted(Path(refinement_offline.__file__).parent.glob("*.py"))
    assert len(files) > 1  # the agent package, every module of it
    for path in files:
        source = path.read_text(encoding="utf-8").lower()
        for word in ("hdfs", "datanode", "namenode", "dfs", "decommission", "reserved", "disk", "heartbeat",
                     "checkout", "payments", "auth-svc", "session"):
            assert word not in source, (path.name, word)


def test_offline_judge_scores_an_ungrounded_hypothesis_low_and_asks_for_the_first_anomaly():
    case = load_case(CASES_DIR / "refinement_hdfs_datanode.json")
    ungrounded = {"hypothesis": "A cosmic ray flipped a bit.", "confidence": 0.9, "reasoning": "",
                  "evidence": [], "category": "hardware", "affected_components": [],
                  "suggested_resolution": "Replace the server; add monitoring", "changes_made": ""}
    verdict = assess(case, ungrounded)
    assert verdict["score"] <= 20
    assert "Rests on no cited passage that says what it says" in verdict["weaknesses"]
    assert "Cite L1, the first anomaly" in verdict["feedback"]


def test_offline_judge_rejects_a_cause_that_comes_after_its_effect():
    case = parse_case({
        "id": "t-order", "title": "t", "question": "Service api-1 returned errors at 10:05. Why?",
        "evidence": [
            {"id": "L1", "source": "log: api-1", "text": "10:05:00 ERROR api-1 request failed: upstream refused"},
            {"id": "L2", "source": "log: deploy", "text": "10:20:00 api-1 deployed v2.0.1 to all hosts."},
            {"id": "L3", "source": "log: deploy", "text": "09:50:00 cache-3 restarted after kernel update."},
        ]})
    late = {"hypothesis": "Root cause: api-1 deployed v2.0.1 (L2), which made api-1 request failed (L1).",
            "confidence": 0.5, "reasoning": "", "evidence": ["L2", "L1"], "category": "software",
            "affected_components": [], "suggested_resolution": "Roll back; add a canary", "changes_made": ""}
    verdict = assess(case, late)
    assert any("after the first anomaly at 10:05" in w for w in verdict["weaknesses"])
    assert "Drop L2" in verdict["feedback"] and "Cite L3" in verdict["feedback"]
    # The offline reasoner itself reads the restart before the error as the cause.
    top = initial_hypotheses(case, {"id": "log"})[0]
    assert "(L3)" in top["hypothesis"] and "L2" not in top["evidence"]
    assert assess(case, top)["score"] > verdict["score"]


def test_a_self_contradicting_hypothesis_loses_its_consistency_points():
    case = load_case(CASES_DIR / "refinement_hdfs_datanode.json")
    h = {"hypothesis": "Network connectivity failure on dn-07 (L6).", "confidence": 0.5,
         "reasoning": "M3 rules out network: packet loss 0.0%", "evidence": ["L6"], "category": "network",
         "affected_components": [], "suggested_resolution": "Check the switch; add alerts", "changes_made": ""}
    assert self_contradiction(h) == "it says it rules out network, its own category"
    verdict = assess(case, h)
    assert any("contradicts itself" in w for w in verdict["weaknesses"])
    assert verdict["score"] < assess(case, {**h, "reasoning": ""})["score"]


def test_a_change_that_made_several_changes_at_once_is_not_left_unreviewed():
    case = parse_case({
        "id": "t-confounded", "title": "t", "question": "Service web-2 got slow after Monday 09:00. Why?",
        "evidence": [
            {"id": "C1", "source": "config: rollout Monday 09:00",
             "text": "The rollout lowered the worker count from 8 to 4 and upgraded the runtime from 1.2 to 2.0."},
            {"id": "M1", "source": "metrics: web-2", "text": "Latency of web-2 rose from 80 ms to 900 ms at 09:05."},
        ]})
    res = run_debate(case, "refinement")
    assert res.status == "completed", res.error
    assert res.result["final_hypothesis"]["confidence"] < 0.5
    assert res.verdict.needs_human_review
    assert "reasoner_could_not_assess" in res.verdict.applied_rules
    assert any("which of the changes made together in C1 (rollout, lowered, upgraded)" in r
               for r in res.verdict.escalation_reasons)


def test_a_weak_reading_caps_confidence_and_the_moderator_says_why():
    case = parse_case({
        "id": "t-weak", "title": "t",
        "question": "Checkout in the shop front failed for customers paying by voucher. Why?",
        "evidence": [{"id": "L1", "source": "log: batch", "text": "03:00:00 WARN nightly report took 40 s."},
                     {"id": "L2", "source": "log: batch", "text": "02:58:00 report-job restarted by scheduler."}]})
    res = run_debate(case, "refinement")
    assert res.status == "completed", res.error
    final = res.result["final_hypothesis"]
    assert final["confidence"] <= 0.4
    assert "could not assess: the parts of the question about" in final["reasoning"]
    assert res.verdict.needs_human_review
    assert "low_reasoner_confidence" in res.verdict.applied_rules


def test_moderator_rules_read_the_reasoners_confidence_and_limits():
    final = {"source": "log", "confidence": 0.4, "reasoning": "x\ncould not assess: when it began"}
    assert refinement_rules.reasoner_confidence_reason(final) == (
        "the deciding agents are not confident enough (below 50%): the reasoner log 40%")
    assert refinement_rules.reasoner_unassessed_reason(final) == "the reasoner log could not assess: when it began"
    sure = {"source": "log", "confidence": 0.8, "reasoning": "all read"}
    assert refinement_rules.reasoner_confidence_reason(sure) is None
    assert refinement_rules.reasoner_unassessed_reason(sure) is None


def _stop(scores, agreed=False, max_rounds=3, **kw):
    return refinement_rules.stop_reason(scores, agreed=agreed, lowest_overlap=0.2, category="database",
                                        max_rounds=max_rounds, **kw)


def test_refinement_stops_when_the_top_score_moves_less_than_the_plateau():
    assert _stop([80.0, 84.0]) == Stop(True, "Score plateau: top score changed by +4.0 points (< 5)")
    assert _stop([80.0, 85.0]) is None
    assert _stop([80.0, 82.0], plateau_points=2) is None
    # A worse round is a plateau too: the top score did not improve by the plateau.
    assert _stop([80.0, 70.0]).reason.startswith("Score plateau: top score changed by -10.0 points")


def test_refinement_does_not_measure_the_first_round_against_zero():
    assert _stop([40.0]) is None


def test_refinement_stops_when_the_reasoners_top_hypotheses_agree():
    assert _stop([60.0], agreed=True) == Stop(
        True, "Consensus: all reasoners' top hypotheses agree (category database, overlap 0.20)")


def test_refinement_stops_unconverged_at_the_round_budget():
    assert _stop([50.0, 60.0, 70.0]) == Stop(False, "Max rounds (3) reached")
    assert _stop([50.0, 60.0], max_rounds=2) == Stop(False, "Max rounds (2) reached")


def test_reasoners_come_from_profiles_and_every_prompt_carries_its_identity(case):
    team = [{"id": "log", "name": "Storage engineer", "role": "Reads disk metrics and volume logs."},
            {"id": "kg", "name": "Incident historian", "role": "Compares with past incidents.",
             "instructions": "Name the past incident you rely on."},
            {"id": "hybrid", "role": "Joins both into one causal story."}]
    calls = round_calls(1, {"log": 80, "kg": 70, "hybrid": 60}) + round_calls(2, {"log": 81, "kg": 70, "hybrid": 60})
    sink = MemorySink()
    res = run_debate(case, "refinement", provider=replay(*calls), sink=sink, settings=DebateSettings(agents=team))
    assert res.status == "completed", res.error
    prompts = {e.step_id: e.data["prompt"][0]["content"] for _, e in sink.events if e.kind == "turn_started"}
    for n in (1, 2):
        assert "You are Storage engineer (agent id log).\nYour role: Reads disk metrics" in prompts[f"r{n}.hypotheses.log"]
        assert "Your instructions: Name the past incident" in prompts[f"r{n}.hypotheses.kg"]
        assert "Your role: Joins both into one causal story." in prompts[f"r{n}.hypotheses.hybrid"]
        assert "You are Judge (agent id judge)." in prompts[f"r{n}.judge"]
