"""The persona panel (the persona-panel source protocol) end to end: offline agents, replay cassettes, settings and ablation switches."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from debate_core.core.cases import load_case, parse_case
from debate_core.core.events import MemorySink
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.protocols.panel.rules import infer_label_from_debate
from debate_core.providers import ReplayProvider

CASES = Path(__file__).resolve().parent.parent / "data" / "cases"
KO = CASES / "panel_restaurant_review.json"
EN = CASES / "panel_laptop_review.json"
ORDER = ["analyst", "critic", "empath"]


def started_steps(sink: MemorySink) -> list[str]:
    return [e.step_id for _, e in sink.events if e.kind == "turn_started"]


def prompt_of(sink: MemorySink, step: str) -> list[dict[str, str]]:
    return next(e.data["prompt"] for _, e in sink.events if e.kind == "turn_started" and e.step_id == step)


def en_case(**signals_patch):
    data = json.loads(EN.read_text(encoding="utf-8"))
    data["signals"].update(signals_patch)
    return parse_case(data)


def cassette(turns: dict[str, dict], judge: dict) -> dict:
    calls = [{"step": step, "output": out} for step, out in turns.items()]
    calls.append({"step": "final.judge", "output": judge})
    return {"format": "debate-cassette/1", "protocol": "panel", "calls": calls}


def t(message, key_points=(), speaker="x", stance="y"):
    return {"speaker": speaker, "stance": stance, "planning": "plan", "reflection": "reflect",
            "message": message, "key_points": list(key_points)}


def one_round(analyst, critic, empath):
    return {"r1.turn.analyst": analyst, "r1.turn.critic": critic, "r1.turn.empath": empath}


# --- Offline debates on the sample cases ------------------------------------


def test_offline_korean_sample_runs_the_whole_protocol():
    sink = MemorySink()
    res = run_debate(load_case(KO), "panel", sink=sink)
    assert res.status == "completed", res.error
    assert started_steps(sink) == [f"r{n}.turn.{p}" for n in (1, 2) for p in ORDER] + ["final.judge"]
    assert res.usage["calls"] == 7
    assert res.verdict.answer == ("The overall sentiment is mixed: 파스타 positive; 응대 negative; 가격 neutral. "
                                  'In the text\'s words: 파스타: "파스타는 정말 맛있었는데"; '
                                  '응대: "직원 응대가 너무 느리고 불친절해서 다시 갈지는 모르겠어요."; 가격: "가격은 그럭저럭 괜찮은 편이에요.".')
    assert res.verdict.confidence == pytest.approx(0.7)
    assert res.verdict.needs_human_review is False
    assert res.verdict.applied_rules == ["RuleB", "RuleM", "RuleC", "RuleA"]
    assert res.converged and "agrees" in res.convergence_reason
    result = res.result
    for key in ("personas", "rounds", "summary", "moderator", "review_context", "override", "final_aspects", "metrics"):
        assert result[key] is not None, key
    assert [(p["id"], p["stance"], p["weight"]) for p in result["personas"]] == [
        ("analyst", "neutral", 0.6), ("critic", "con", 1.0), ("empath", "pro", 1.0)]
    # The panel's hints correct the weak Stage2 service label (0.6 -> 0.7) and leave the rest alone.
    assert result["override"]["stats"] == {"applied": 1, "skipped_low_signal": 0, "skipped_conflict": 1,
                                           "skipped_already_confident": 1}
    assert result["override"]["decisions"]["응대"]["outcome"] == "applied"
    aspects = {a["aspect"]: (a["polarity"], a["confidence"]) for a in result["final_aspects"]}
    assert aspects == {"파스타": ("positive", 0.9), "응대": ("negative", 0.7), "가격": ("neutral", 0.5)}
    assert result["metrics"]["debate_mapping_coverage"] == 1.0
    assert result["metrics"]["debate_override_applied"] == 1


def test_offline_turns_answer_earlier_speakers_and_the_judge_reports_real_positions():
    res = run_debate(load_case(KO), "panel")
    r1, r2 = ({t["speaker"]: t for t in rnd["turns"]} for rnd in res.result["rounds"])
    for turn in (*r1.values(), *r2.values()):
        assert turn["planning"] and turn["reflection"] and turn["message"] and turn["key_points"]
    assert "응대" in r1["critic"]["message"] and "E1" in r1["critic"]["message"]
    assert "파스타" in r1["empath"]["message"]
    # Round 2: the critic concedes the food, the empath concedes service, and each brings a passage
    # the panel has not quoted yet instead of repeating round 1's quotes.
    assert "분석가의 말대로 파스타" in r2["critic"]["message"]
    assert "비평가의 지적처럼 응대" in r2["empath"]["message"]
    assert "'서비스 2.8/5'(E4)" in r2["critic"]["message"] and "'맛 4.6/5'(E4)" in r2["empath"]["message"]
    # Without a Korean lexicon the sentence's labels come from the earlier stage, and the analyst says so.
    assert "앞 단계 레이블을 따름" in r1["analyst"]["message"]
    summary = res.result["summary"]
    assert any(a.startswith("파스타") for a in summary["key_agreements"])
    assert any(a.startswith("응대") for a in summary["key_agreements"])
    assert any(a.startswith("가격: 중립") for a in summary["key_agreements"])
    assert infer_label_from_debate(summary) == "mixed"


def test_offline_english_sample_flips_a_missed_aspect():
    res = run_debate(load_case(EN), "panel")
    assert res.status == "completed", res.error
    assert res.verdict.answer.startswith("The overall sentiment is mixed")
    log = {entry["target_aspect"]: entry["reason"] for entry in res.result["override"]["log"]}
    assert log["support"] == "debate_override_flip neutral->negative"
    r2 = {t["speaker"]: t for t in res.result["rounds"][1]["turns"]}
    assert r2["critic"]["message"].startswith("I grant the analyst that screen and battery were positive")
    assert "The critic is right that keyboard and support fell short" in r2["empath"]["message"]


def test_offline_debate_replays_from_its_cassette_to_the_same_verdict():
    sink = MemorySink()
    first = run_debate(load_case(EN), "panel", sink=sink)
    calls = [{"step": e.step_id, "output": e.data["output"]} for _, e in sink.events if e.kind == "turn_finished"]
    again = run_debate(load_case(EN), "panel", provider=ReplayProvider(
        {"format": "debate-cassette/1", "protocol": "panel", "calls": calls}))
    assert again.status == "completed", again.error
    assert again.verdict == first.verdict
    assert again.result["override"] == first.result["override"]
    assert again.trajectory == first.trajectory


def test_each_speaker_sees_topic_persona_context_and_history():
    sink = MemorySink()
    res = run_debate(load_case(KO), "panel", sink=sink)
    system, user = prompt_of(sink, "r1.turn.critic")
    assert "[PERSONA]" in system["content"] and '"stance": "con"' in system["content"]
    assert "[TOPIC]" in user["content"] and "[SHARED_CONTEXT_JSON]" in user["content"]
    assert "stage1_ate" in user["content"] and "stage2_ate" not in user["content"]
    analyst_r1 = res.result["rounds"][0]["turns"][0]["message"]
    assert analyst_r1[:40] in user["content"]  # the history holds the analyst's turn
    first = prompt_of(sink, "r1.turn.analyst")[1]["content"]
    assert "(no turns yet)" in first
    judge_user = prompt_of(sink, "final.judge")[1]["content"]
    assert "[ALL_TURNS]" in judge_user and res.result["rounds"][1]["turns"][2]["message"][:40] in judge_user


def test_round_trajectory_carries_stance_weights_and_per_persona_mapping():
    sink = MemorySink()
    res = run_debate(load_case(KO), "panel", sink=sink)
    assert [p["round"] for p in res.trajectory] == [1, 2]
    point = res.trajectory[1]
    assert point["stance_weights"] == {"analyst": 0.6, "critic": 1.0, "empath": 1.0}
    assert point["personas"]["critic"]["mapping"] == "direct"
    assert "응대" in point["personas"]["critic"]["aspect_refs"]
    assert point["aspect_scores"]["응대"] == {"positive": 1.0, "negative": 2.0}
    closed = [e.data for _, e in sink.events if e.kind == "round_closed"]
    assert [c["round"] for c in closed] == [1, 2] and closed[1]["metrics"] == point


# --- Ablation switches ---------------------------------------------------------


def test_enable_debate_false_makes_no_model_calls_and_the_moderator_decides_alone():
    sink = MemorySink()
    res = run_debate(load_case(KO), "panel", sink=sink,
                     settings=DebateSettings(options={"enable_debate": False}))
    assert res.status == "completed", res.error
    assert res.usage["calls"] == 0 and started_steps(sink) == []
    assert res.rounds == 0 and res.trajectory == []
    assert res.result["summary"] is None and res.result["review_context"] is None
    assert res.result["override"]["enabled"] is False
    # Without the override Stage2's service label stays at 0.6, so RuleA averages 0.7 with 0.6.
    assert res.verdict.answer.startswith("The overall sentiment is mixed")
    assert res.verdict.confidence == pytest.approx(0.65)
    assert res.result["moderator"]["arbiter_flags"]["rule_e_block_reason"] == "no_debate"
    assert res.converged is False and "enable_debate=false" in res.convergence_reason


def test_enable_debate_override_false_debates_but_leaves_aspects_alone():
    res = run_debate(load_case(KO), "panel", settings=DebateSettings(options={"enable_debate_override": False}))
    assert res.usage["calls"] == 7
    assert res.result["override"]["enabled"] is False
    assert res.result["override"]["stats"]["applied"] == 0
    assert res.result["review_context"]["aspect_hints"]  # the hints are still built
    aspects = {a["aspect"]: a["confidence"] for a in res.result["final_aspects"]}
    assert aspects["응대"] == 0.6
    assert res.verdict.confidence == pytest.approx(0.65)
    assert res.result["metrics"]["debate_override_applied"] == 0


def test_override_thresholds_come_from_settings():
    res = run_debate(load_case(KO), "panel",
                     settings=DebateSettings(options={"debate_override": {"min_total": 10}}))
    assert res.result["override"]["stats"]["skipped_low_signal"] == 3
    assert res.result["override"]["thresholds"]["min_total"] == 10


def test_enable_debate_false_without_signals_is_refused():
    data = json.loads(KO.read_text(encoding="utf-8"))
    del data["signals"]
    res = run_debate(parse_case(data), "panel", settings=DebateSettings(options={"enable_debate": False}))
    assert res.status == "failed" and "signals" in res.error


# --- Replay cassettes ------------------------------------------------------------


# These cases have Stage1 only, and their cassettes are the debate only: the moderator's rules are
# tested on Stage1 alone (tests/test_panel_stage2.py runs the Stage2 reviews).
STAGE1_ONLY = {"stage2_review": False}


def low_conf_case():
    return en_case(stage1_ate={"label": "positive", "confidence": 0.5}, stage2_ate=None, stage2_atsa=None,
                   validator=None, stage1_atsa={"label": "positive", "confidence": 0.45, "span": [0, 148]})


def test_replay_rule_e_adopts_the_panel_consensus_and_ignores_model_speaker_names():
    turns = one_round(
        t("Evidence: keyboard failing (E1) and support silent (E2).", ["keyboard: negative", "support: negative"],
          speaker="judge", stance="pro"),
        t("The keyboard and support failures dominate (E1, E5).", ["keyboard: negative — E1"], speaker="empath"),
        t("The screen is lovely, I admit the rest hurts.", ["screen: positive — E4"], speaker="critic", stance="con"),
    )
    judge = {"winner": "critic", "consensus": "The panel reads the sentence as negative overall.",
             "key_agreements": ["keyboard negative"], "key_disagreements": [], "rationale": "Failures outweigh."}
    res = run_debate(low_conf_case(), "panel", provider=ReplayProvider(cassette(turns, judge)),
                     settings=DebateSettings(rounds=1, options=STAGE1_ONLY))
    assert res.status == "completed", res.error
    assert res.verdict.answer.startswith("The overall sentiment is negative")
    assert res.verdict.applied_rules[-1] == "RuleE"
    assert "RuleE: debate consensus -> negative." in res.verdict.rationale
    speakers = [(tt["speaker"], tt["stance"]) for tt in res.result["rounds"][0]["turns"]]
    assert speakers == [("analyst", "neutral"), ("critic", "con"), ("empath", "pro")]
    assert res.result["summary"]["winner"] == "critic"
    # RuleE lifted a 0.5 label: still below the review threshold, so it goes to a person.
    assert res.verdict.needs_human_review
    assert any(r.startswith("low_confidence") for r in res.verdict.escalation_reasons)
    assert res.converged  # the panel's label is the final one


def test_replay_unknown_winner_is_dropped_with_a_warning():
    turns = one_round(t("keyboard"), t("keyboard"), t("screen"))
    judge = {"winner": "Judge Dredd", "consensus": "mixed", "key_agreements": [], "key_disagreements": []}
    res = run_debate(low_conf_case(), "panel", provider=ReplayProvider(cassette(turns, judge)),
                     settings=DebateSettings(rounds=1, options=STAGE1_ONLY))
    assert res.result["summary"]["winner"] is None
    assert any("Judge Dredd" in w for w in res.warnings)


def test_replay_no_consensus_escalates_and_does_not_converge():
    turns = one_round(t("keyboard bad (E1)"), t("keyboard bad (E1)"), t("screen good (E4)"))
    judge = {"winner": None, "consensus": "No consensus was reached.", "key_agreements": [],
             "key_disagreements": ["keyboard vs screen"], "rationale": ""}
    res = run_debate(load_case(EN), "panel", provider=ReplayProvider(cassette(turns, judge)),
                     settings=DebateSettings(rounds=1))
    assert res.status == "completed"
    assert res.converged is False and "no consensus" in res.convergence_reason
    assert res.verdict.needs_human_review
    assert "no_consensus: the judge reported no consensus" in res.verdict.escalation_reasons


def test_replay_panel_dissent_when_rule_e_is_blocked_by_confidence():
    case = en_case(stage1_ate={"label": "positive", "confidence": 0.8}, stage2_ate=None, stage2_atsa=None,
                   validator=None, stage1_atsa={"label": "positive", "confidence": 0.8, "span": [0, 148]})
    turns = one_round(t("keyboard (E1)"), t("keyboard (E1)"), t("screen (E4)"))
    judge = {"winner": None, "consensus": "Overall negative.", "key_agreements": [], "key_disagreements": []}
    res = run_debate(case, "panel", provider=ReplayProvider(cassette(turns, judge)),
                     settings=DebateSettings(rounds=1, options=STAGE1_ONLY))
    assert res.verdict.answer.startswith("The overall sentiment is positive")
    assert res.result["moderator"]["arbiter_flags"]["rule_e_block_reason"] == "confidence_too_high"
    assert any(r.startswith("panel_dissent") for r in res.verdict.escalation_reasons)
    assert res.converged is False and "differs" in res.convergence_reason


def test_replay_metric_warnings_when_turns_cannot_be_mapped():
    turns = one_round(t("Let us weigh it."), t("Overall it disappoints."), t("There is a lot to like."))
    judge = {"winner": None, "consensus": "mixed", "key_agreements": [], "key_disagreements": []}
    case = en_case(stage1_atsa={"span": [0, 148], "aspect_sentiments": []})
    res = run_debate(case, "panel", provider=ReplayProvider(cassette(turns, judge)), settings=DebateSettings(rounds=1))
    metrics = res.result["metrics"]
    assert metrics["debate_mapping_none_rate"] == 1.0
    assert metrics["debate_fail_no_match_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert metrics["debate_fail_neutral_stance_rate"] == pytest.approx(1 / 3, abs=1e-4)
    assert len(res.result["metric_warnings"]) == 3
    assert all(w in res.warnings for w in res.result["metric_warnings"])
    assert res.result["metric_warnings"][0].startswith("[HIGH] debate mapping coverage 0.00")
    quiet = run_debate(case, "panel", provider=ReplayProvider(cassette(turns, judge)),
                       settings=DebateSettings(rounds=1, options={"debate_thresholds": {
                           "coverage_warn": 0, "coverage_high": 0, "no_match_warn": 1, "no_match_high": 1,
                           "neutral_warn": 1, "neutral_high": 1}}))
    assert quiet.result["metric_warnings"] == []


def test_replay_missing_step_fails_naming_it():
    turns = one_round(t("a"), t("b"), t("c"))
    res = run_debate(load_case(EN), "panel", provider=ReplayProvider(cassette(turns, {"consensus": "mixed"})))
    assert res.status == "failed"
    assert res.failed_step == "r2.turn.analyst" and "r2.turn.analyst" in res.error


def test_replay_invalid_turn_fails_the_step():
    turns = one_round(t("a"), {"speaker": "critic", "message": "no planning"}, t("c"))
    res = run_debate(load_case(EN), "panel", provider=ReplayProvider(cassette(turns, {"consensus": "mixed"})),
                     settings=DebateSettings(rounds=1))
    assert res.status == "failed" and res.failed_step == "r1.turn.critic"


# --- Escalation from the stage signals alone -------------------------------------


def no_debate(case):
    return run_debate(case, "panel", settings=DebateSettings(options={"enable_debate": False}))


def test_rule_z_escalates_as_insufficient_signal():
    res = no_debate(en_case(stage1_ate={"label": "positive", "confidence": 0.0},
                            stage2_ate={"label": "negative", "confidence": 0.0}))
    assert res.verdict.answer.startswith("The overall sentiment is neutral") and res.verdict.confidence == 0.0
    assert res.verdict.applied_rules == ["RuleZ"]
    assert res.verdict.escalation_reasons == ["insufficient_signal: RuleZ fired, both Stage1 and Stage2 confidences are 0"]


CONFLICT = {"stage1_ate": {"label": "positive", "confidence": 0.7},
            "stage2_ate": {"label": "negative", "confidence": 0.66}, "stage2_atsa": None,
            "stage1_atsa": {"span": [0, 10], "aspect_sentiments": []}}


def test_mixed_only_from_stage_conflict_escalates():
    res = no_debate(en_case(**CONFLICT, validator=None))
    assert res.verdict.answer.startswith("The overall sentiment is mixed") and res.verdict.applied_rules == ["RuleB", "RuleM"]
    assert [r.split(":")[0] for r in res.verdict.escalation_reasons] == ["unresolved_conflict"]


def test_mixed_confirmed_by_the_validator_does_not_escalate():
    # The sample's validator suggests 'mixed' on a critical contrast issue: that confirms the label.
    res = no_debate(en_case(**CONFLICT))
    assert res.verdict.answer.startswith("The overall sentiment is mixed") and "RuleC" in res.verdict.applied_rules
    assert res.verdict.needs_human_review is False


def test_review_confidence_is_configurable():
    strict = run_debate(load_case(KO), "panel", settings=DebateSettings(options={"enable_debate": False,
                                                                                 "review_confidence": 0.9}))
    assert strict.verdict.needs_human_review
    assert strict.verdict.escalation_reasons[0].startswith("low_confidence: the final confidence 0.65 is below 0.90")


# --- Settings -------------------------------------------------------------------


def test_custom_personas_and_order_drive_step_ids_and_weights():
    agents = [{"id": "fan", "name": "Fan", "stance": "pro", "style": "gushing"},
              {"id": "skeptic", "name": "Skeptic", "stance": "con"},
              {"id": "moderate", "stance": "undecided"}]
    sink = MemorySink()
    res = run_debate(load_case(EN), "panel", sink=sink,
                     settings=DebateSettings(rounds=1, agents=agents, options={"order": ["skeptic", "moderate", "fan"]}))
    assert res.status == "completed", res.error
    assert started_steps(sink) == ["r1.turn.skeptic", "r1.turn.moderate", "r1.turn.fan", "final.judge"]
    assert res.trajectory[0]["stance_weights"] == {"skeptic": 1.0, "moderate": 0.8, "fan": 1.0}
    hints = {p["speaker"]: p["polarity_hint"] for p in res.result["review_context"]["rebuttal_points"]}
    assert hints == {"skeptic": "negative", "moderate": "neutral", "fan": "positive"}
    assert '"style": "gushing"' in prompt_of(sink, "r1.turn.fan")[0]["content"]


def test_persona_overrides_from_options():
    sink = MemorySink()
    res = run_debate(load_case(EN), "panel", sink=sink, settings=DebateSettings(
        rounds=1, options={"personas": {"critic": {"style": "icy", "stance": "neutral"}}}))
    assert res.result["personas"][1]["stance"] == "neutral"
    assert '"style": "icy"' in prompt_of(sink, "r1.turn.critic")[0]["content"]


@pytest.mark.parametrize(("settings", "message"), [
    (DebateSettings(options={"order": ["analyst", "ghost"]}), "ghost"),
    (DebateSettings(options={"order": ["analyst", "analyst"]}), "repeats"),
    (DebateSettings(agents=[{"id": "bad id"}]), "bad id"),
    (DebateSettings(options={"enable_debate": "maybe"}), "enable_debate"),
    (DebateSettings(options={"debate_override": {"min_totl": 1}}), "min_totl"),
    (DebateSettings(rounds=0), "at least 1"),
])
def test_bad_settings_fail_before_any_call(settings, message):
    res = run_debate(load_case(EN), "panel", settings=settings)
    assert res.status == "failed" and message in res.error
    assert res.usage.get("calls", 0) == 0


def test_rounds_setting_and_cap():
    one = run_debate(load_case(EN), "panel", settings=DebateSettings(rounds=1))
    assert one.rounds == 1 and one.usage["calls"] == 4
    capped = run_debate(load_case(EN), "panel", settings=DebateSettings(rounds=9))
    assert capped.rounds == 6 and any("capped" in w for w in capped.warnings)


def test_malformed_signals_fail_naming_the_field():
    data = json.loads(EN.read_text(encoding="utf-8"))
    data["signals"]["stage2_ate"]["confidence"] = "high"
    res = run_debate(parse_case(data), "panel")
    assert res.status == "failed" and "stage2_ate.confidence" in res.error
    assert res.usage.get("calls", 0) == 0


def test_case_without_signals_gets_the_judges_consensus():
    data = copy.deepcopy(json.loads(EN.read_text(encoding="utf-8")))
    del data["signals"]
    res = run_debate(parse_case(data), "panel")
    assert res.status == "completed", res.error
    assert res.result["moderator"] is None and res.verdict.applied_rules == []
    assert res.verdict.answer == res.result["summary"]["consensus"]
    assert 0.2 <= res.verdict.confidence <= 0.8
    assert any("no stage signals" in w for w in res.warnings)
