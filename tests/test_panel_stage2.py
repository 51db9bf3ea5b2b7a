"""The panel's Stage2 reviews (section 5 of the persona-panel source protocol, steps 1-3): the pure
rules that apply them, the recorded steps offline and by replay, and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import open_tab

from debate_core.cli import main
from debate_core.core.cases import parse_case
from debate_core.core.events import MemorySink
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.protocols.panel import rules as mod
from debate_core.protocols.panel.models import AspectAction, CorrectionProposal, SentimentAction
from debate_core.providers import ReplayProvider
from debate_core.store import DebateStore

REVIEW_STEPS = ["final.validator", "final.ate", "final.atsa"]

# A café review sentence (not a sample case): Stage1 got the coffee's polarity wrong, missed the
# staff, and kept an aspect the sentence never mentions.
TEXT = "The coffee was bitter and burnt, but the barista was friendly and the cake was lovely."
CAFE = {
    "id": "cafe-review", "title": "Café review", "protocol": "panel",
    "question": f'What is the sentiment of the review sentence "{TEXT}" towards each aspect (coffee, barista, cake)?',
    "evidence": [{"id": "E1", "source": "Customer review (sentence under review)", "text": TEXT},
                 {"id": "E2", "source": "Menu", "text": "Espresso, filter coffee and a daily cake."}],
    "signals": {
        "text": TEXT, "language": "en", "aspect_terms": ["coffee", "cake"],
        "stage1_ate": {"label": "positive", "confidence": 0.62},
        "stage1_atsa": {"aspect_sentiments": [
            {"aspect": "coffee", "polarity": "positive", "confidence": 0.55},
            {"aspect": "cake", "polarity": "positive", "confidence": 0.8},
            {"aspect": "parking", "polarity": "negative", "confidence": 0.6}]},
        "validator": {"suggested_label": "mixed", "confidence": 0.6, "issues": ["contrast: but"]},
    },
}


def cafe(**options):
    return parse_case(json.loads(json.dumps(CAFE))), DebateSettings(options=options)


def sentiments(*items):
    return [mod.AspectSentiment(aspect=a, polarity=p, confidence=c) for a, p, c in items]


# --- The rules, in the source's order ---------------------------------------------------------


def test_validator_corrections_flip_drop_and_revise_and_log_each():
    state = mod.Stage2State(["coffee", "parking", "screen"], sentiments(
        ("coffee", "positive", 0.55), ("parking", "negative", 0.6), ("screen", "positive", 0.7)))
    out = mod.apply_validator_corrections(state, [
        CorrectionProposal(proposal_type="FLIP_POLARITY", target_aspect="coffee", new_polarity="negative"),
        CorrectionProposal(proposal_type="DROP_ASPECT", target_aspect="parking"),
        CorrectionProposal(proposal_type="REVISE_SPAN", target_aspect="screen", revised_term="display"),
        CorrectionProposal(proposal_type="DROP_ASPECT", target_aspect="wifi"),
    ])
    assert [(s.aspect, s.polarity) for s in out.sentiments] == [("coffee", "negative"), ("display", "positive")]
    assert out.terms == ["coffee", "display"]
    assert [(e["proposal_type"], e["applied"], e["reason"]) for e in out.log] == [
        ("FLIP_POLARITY", True, "polarity positive -> negative"), ("DROP_ASPECT", True, "aspect dropped"),
        ("REVISE_SPAN", True, "span screen -> display"), ("DROP_ASPECT", False, "no such aspect")]
    assert state.sentiments[0].polarity == "positive"  # the input is left as it was


def test_aspect_review_adds_terms_without_a_sentiment_and_drops_with_it():
    state = mod.Stage2State(["coffee", "parking"], sentiments(("coffee", "negative", 0.7), ("parking", "negative", 0.6)))
    out = mod.apply_aspect_review(state, [
        AspectAction(action="add", aspect="barista"), AspectAction(action="drop", aspect="parking"),
        AspectAction(action="add", aspect="Coffee"), AspectAction(action="revise_span", aspect="coffee",
                                                                 revised_term="espresso")])
    assert out.terms == ["espresso", "barista"]
    assert [s.aspect for s in out.sentiments] == ["espresso"]
    assert [e["applied"] for e in out.log] == [True, True, False, True]


def test_sentiment_review_maintains_flips_drops_and_adds():
    state = mod.Stage2State(["coffee", "cake", "barista", "menu"], sentiments(
        ("coffee", "negative", 0.7), ("cake", "negative", 0.5), ("menu", "neutral", 0.5)))
    out = mod.apply_sentiment_review(state, [
        SentimentAction(action="maintain", aspect="coffee"),
        SentimentAction(action="flip_polarity", aspect="cake", polarity="positive", confidence=0.8),
        SentimentAction(action="drop", aspect="menu"),
        SentimentAction(action="add", aspect="barista", polarity="positive"),
        SentimentAction(action="add", aspect="coffee", polarity="positive"),
    ])
    assert [(s.aspect, s.polarity, s.confidence) for s in out.sentiments] == [
        ("coffee", "negative", 0.7), ("cake", "positive", 0.8), ("barista", "positive", 0.6)]
    assert [e["applied"] for e in out.log] == [True, True, True, True, False]
    counts = mod.stage2_counts(out.log)
    assert counts["stage2_sentiment_review_applied"] == 3  # maintain is not a change
    assert counts["stage2_not_applied"] == 1


def test_the_override_reads_the_panel_hints_under_the_revised_names():
    log = [{"stage": "validator", "proposal_type": "REVISE_SPAN", "applied": True, "before": "screen",
            "after": "display"}]
    hints = {"screen": [{"weight": 1.0}], "battery": [{"weight": 0.6}]}
    assert mod.renamed_hints(hints, log) == {"display": [{"weight": 1.0}], "battery": [{"weight": 0.6}]}


# --- Recorded steps, offline -------------------------------------------------------------------


def test_a_stage1_only_case_runs_the_three_reviews_in_order_and_logs_what_each_changed():
    case, settings = cafe()
    sink = MemorySink()
    res = run_debate(case, "panel", settings=settings, sink=sink)
    assert res.status == "completed", res.error
    started = [e.step_id for _, e in sink.events if e.kind == "turn_started"]
    assert started[-4:] == ["final.judge", *REVIEW_STEPS]
    log = res.result["correction_applied_log"]
    by_stage = {(e["stage"], e["proposal_type"], e["target_aspect"]) for e in log if e["applied"]}
    # The sentence's own words decide: the coffee is bitter and burnt, parking is never mentioned,
    # and the barista it praises gets an aspect and a sentiment.
    assert ("validator", "FLIP_POLARITY", "coffee") in by_stage
    assert ("validator", "DROP_ASPECT", "parking") in by_stage
    assert ("aspect_review", "add", "barista") in by_stage
    assert ("sentiment_review", "add", "barista") in by_stage
    final = {a["aspect"]: a["polarity"] for a in res.result["final_aspects"]}
    assert final == {"coffee": "negative", "cake": "positive", "barista": "positive"}
    assert res.result["stage2"]["source"] == "reviews"
    assert res.result["stages"]["stage2_ate"]["label"] == "mixed"
    assert res.result["metrics"]["stage2_validator_applied"] == 2
    assert "Stage2 reviews: validator 2 changes" in res.verdict.rationale
    assert res.verdict.answer.startswith("The overall sentiment is mixed")


def test_a_case_with_stage2_output_skips_the_reviews_and_says_so():
    data = json.loads(json.dumps(CAFE))
    data["signals"]["stage2_ate"] = {"label": "mixed", "confidence": 0.7}
    sink = MemorySink()
    res = run_debate(parse_case(data), "panel", sink=sink)
    assert res.status == "completed", res.error
    assert not any(e.step_id in REVIEW_STEPS for _, e in sink.events)
    assert res.result["stage2"]["source"] == "case"
    assert "Stage2 output came with the case, so its review steps were not run." in res.verdict.rationale


def test_the_reviews_can_be_turned_off_and_the_moderator_alone_runs_with_no_model_call():
    case, settings = cafe(stage2_review=False, enable_debate=False, enable_debate_override=False)
    sink = MemorySink()
    res = run_debate(case, "panel", settings=settings, sink=sink)
    assert res.status == "completed", res.error
    assert not [e for _, e in sink.events if e.kind == "turn_started"]
    assert "The Stage2 review steps were turned off" in res.verdict.rationale


def test_without_a_debate_the_reviews_still_run_without_its_context():
    case, settings = cafe(enable_debate=False, enable_debate_override=False)
    sink = MemorySink()
    res = run_debate(case, "panel", settings=settings, sink=sink)
    assert [e.step_id for _, e in sink.events if e.kind == "turn_started"] == REVIEW_STEPS
    prompt = next(e.data["prompt"] for _, e in sink.events if e.kind == "turn_started" and e.step_id == "final.validator")
    assert "no debate: the panel did not run" in prompt[-1]["content"]
    assert res.result["stage2"]["source"] == "reviews"


# --- Replay: a model's reviews, validated and applied ------------------------------------------


def _replayed(tmp_path: Path, outputs: dict[str, dict]) -> tuple[DebateStore, object]:
    store = DebateStore(tmp_path / "d.db")
    case, settings = cafe(enable_debate=False, enable_debate_override=False)
    calls = [{"step": step, "output": out} for step, out in outputs.items()]
    provider = ReplayProvider({"format": "debate-cassette/1", "protocol": "panel", "calls": calls})
    return store, run_debate(case, "panel", settings=settings, provider=provider, store=store)


def test_a_models_reviews_are_applied_in_the_source_order(tmp_path):
    store, res = _replayed(tmp_path, {
        "final.validator": {"correction_proposals": [
            {"proposal_type": "REVISE_SPAN", "target_aspect": "coffee", "revised_term": "the coffee"}],
            "rationale": "span"},
        "final.ate": {"aspect_review": [{"action": "drop", "aspect": "parking"}],
                      "label": "negative", "confidence": 0.9},
        "final.atsa": {"sentiment_review": [{"action": "flip_polarity", "aspect": "the coffee",
                                             "polarity": "negative", "confidence": 0.9}]},
    })
    assert res.status == "completed", res.error
    final = {a["aspect"]: a["polarity"] for a in res.result["final_aspects"]}
    assert final == {"the coffee": "negative", "cake": "positive"}
    assert [(e["stage"], e["proposal_type"]) for e in res.result["correction_applied_log"]] == [
        ("validator", "REVISE_SPAN"), ("aspect_review", "drop"), ("sentiment_review", "flip_polarity")]
    stored = [s["step_id"] for s in store.get_debate(res.debate_id)["steps"]]
    assert stored == REVIEW_STEPS


def test_a_review_outside_the_schema_fails_the_step_and_keeps_the_raw_reply(tmp_path):
    store, res = _replayed(tmp_path, {
        "final.validator": {"correction_proposals": [{"proposal_type": "REWRITE_EVERYTHING", "target_aspect": "x"}]},
    })
    assert res.status == "failed" and res.failed_step == "final.validator"
    step = store.get_debate(res.debate_id)["steps"][0]
    assert step["status"] == "failed" and "REWRITE_EVERYTHING" in (step.get("raw_output") or "")


def test_an_offline_run_replays_to_the_same_verdict(tmp_path):
    store = DebateStore(tmp_path / "d.db")
    case, settings = cafe()
    first = run_debate(case, "panel", settings=settings, store=store)
    calls = [{"step": s["step_id"], "output": s["output"]} for s in store.get_debate(first.debate_id)["steps"]]
    replay = ReplayProvider({"format": "debate-cassette/1", "protocol": "panel", "calls": calls})
    again = run_debate(case, "panel", settings=settings, provider=replay)
    assert again.verdict.model_dump() == first.verdict.model_dump()
    assert again.result["correction_applied_log"] == first.result["correction_applied_log"]


def test_the_cli_runs_the_reviews_on_a_stage1_case(tmp_path, capsys):
    path = tmp_path / "cafe.json"
    path.write_text(json.dumps(CAFE), encoding="utf-8")
    assert main(["--db", str(tmp_path / "d.db"), "run", str(path), "--protocol", "panel", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "completed"
    assert "Stage2 reviews: validator 2 changes" in out["verdict"]["rationale"]


def test_the_debate_page_shows_each_review_and_the_correction_log_in_plain_words(app, make_debate):
    debate_id = make_debate(parse_case(json.loads(json.dumps(CAFE))), "panel")
    app.run()
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    app.run()
    assert not app.exception, [e.message for e in app.exception]
    open_tab(app, "Rounds")  # a finished debate opens on its verdict
    shown = " ".join(m.value for m in app.markdown)
    assert "correct the polarity" in shown and "drop the aspect" in shown
    assert "Sentence label after the review: **mixed**" in shown
    assert "FLIP_POLARITY" not in shown and "DROP_ASPECT" not in shown  # no internal codes on screen
    open_tab(app, "Protocol view")
    assert "Corrections, in the order applied" in [s.value for s in app.subheader]
    table = next(d.value for d in app.dataframe if "what changed" in d.value.columns)
    assert {"Validator", "Aspect review", "Sentiment review"} <= set(table["step"])
    assert "polarity positive → negative" in set(table["what changed"])
