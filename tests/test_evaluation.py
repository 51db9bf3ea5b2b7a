"""The evaluation harness driven by crafted replay cassettes whose answers are known to be right or
wrong, so every figure is checked against a hand computation."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from debate_core.cli import main
from debate_core.core.pricing import parse_price_table
from debate_core.evaluation import harness as evaluation
from debate_core.evaluation.summary import DEFAULT_SEED, paired_bootstrap
from debate_core.store import DebateStore

CASSETTE = "debate-cassette/1"
PRICES = {"currency": "EUR", "models": {"replay": {"input": 1.0, "output": 2.0}}}


def write_case(folder: Path, case_id: str, needs_human: bool) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    case = {
        "id": case_id, "title": f"Permit {case_id}", "question": "Is the permit granted?",
        "evidence": [{"id": "E1", "source": "Permit office register", "text": "The fee was paid on time."}],
        "expected": {"label": "granted", "needs_human_review": needs_human, "must_mention": [],
                     "reference": "The permit is granted because the fee was paid."},
    }
    (folder / f"{case_id}.json").write_text(json.dumps(case), encoding="utf-8")


def dialectic(word: str, confidence: float) -> dict[str, Any]:
    """A thesis the critic accepts at once: the verdict states the rule `word :- fee_paid.`
    (150 input and 30 output tokens over two calls)."""
    return {"format": CASSETTE, "protocol": "dialectic", "calls": [
        {"step": "r1.thesis.generator", "output": {"rule": f"{word} :- fee_paid.", "reasoning": "E1",
                                                   "confidence": confidence},
         "usage": {"input_tokens": 100, "output_tokens": 20}},
        {"step": "r1.antithesis.critic", "output": {"recommendation": "accept", "argument": "sound"},
         "usage": {"input_tokens": 50, "output_tokens": 10}},
    ]}


def answer(text: str, confidence: float) -> dict[str, Any]:
    return {"answer": text, "confidence": confidence, "rationale": "E1"}


def single(text: str, confidence: float) -> dict[str, Any]:
    """One call, 30 + 5 tokens."""
    return {"format": CASSETTE, "protocol": "single", "calls": [
        {"step": "r1.single.solo", "output": answer(text, confidence), "usage": {"input_tokens": 30, "output_tokens": 5}}]}


def majority(*votes: tuple[str, float]) -> dict[str, Any]:
    """Three calls, 30 + 5 tokens each."""
    return {"format": CASSETTE, "protocol": "majority", "calls": [
        {"step": f"r1.single.s{i}", "output": answer(text, conf), "usage": {"input_tokens": 30, "output_tokens": 5}}
        for i, (text, conf) in enumerate(votes, start=1)]}


# Per case: (needs a human, dialectic cassette, single cassette, majority cassette). Hand-scored:
#   case  dialectic                       single                      majority
#   c1    right, unflagged                right, unflagged            2 of 3 "granted": right, unflagged
#   c2    wrong, unflagged: SILENT WRONG  wrong, flagged (0.3 < 0.5)  no majority: flagged, right: OVER-FLAGGED
#   c3*   right, flagged (0.3)            right, unflagged: SILENT W. labels vote exactly: right, unflagged: SILENT W.
#   c4    right, flagged: OVER-FLAGGED    right, unflagged            free texts grouped 2 of 3: right, unflagged
#   (* c3 needs a human)
SCENARIO = {
    "c1": (False, dialectic("granted", 0.9), single("Granted", 0.8),
           majority(("granted", 0.8), ("granted", 0.6), ("refused", 0.9))),
    "c2": (False, dialectic("refused", 0.9), single("refused", 0.3),
           majority(("granted", 0.9), ("refused", 0.8), ("partly", 0.7))),
    "c3": (True, dialectic("granted", 0.3), single("granted", 0.9),
           majority(("Granted", 0.9), ("granted!", 0.9), (" GRANTED ", 0.9))),
    "c4": (False, dialectic("granted", 0.3), single("granted", 0.6),
           majority(("The permit is granted because the fee was paid on time", 0.8),
                    ("The permit is granted since the fee was paid on time", 0.6),
                    ("The request is refused for lack of documents", 0.9))),
}


def build(tmp_path: Path, scenario: dict[str, tuple]) -> tuple[Path, Path]:
    cases, tapes = tmp_path / "cases", tmp_path / "cassettes"
    tapes.mkdir(parents=True, exist_ok=True)
    for case_id, (needs_human, dia, one, vote) in scenario.items():
        write_case(cases, case_id, needs_human)
        for method, tape in (("dialectic", dia), ("single", one), ("majority", vote)):
            (tapes / f"{case_id}.{method}.json").write_text(json.dumps(tape), encoding="utf-8")
    return cases, tapes


def run_eval(tmp_path: Path, scenario: dict[str, tuple], **kwargs: Any) -> tuple[dict[str, Any], DebateStore]:
    cases, tapes = build(tmp_path, scenario)
    plan = evaluation.prepare([cases], "dialectic", baselines=["single", "majority"], provider="replay",
                              provider_options={"cassette": str(tapes)}, prices=parse_price_table(PRICES), **kwargs)
    store = DebateStore(tmp_path / "eval.db")
    return evaluation.run(plan, store), store


def by(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["case"], r["method"]): r for r in report["rows"]}


def test_every_run_is_scored_as_computed_by_hand(tmp_path):
    report, _ = run_eval(tmp_path, SCENARIO)
    rows = by(report)
    assert len(report["rows"]) == 12
    expected = {  # (right, flagged, silent wrong, over-flagged)
        ("c1", "dialectic"): (True, False, False, False), ("c1", "single"): (True, False, False, False),
        ("c1", "majority"): (True, False, False, False),
        ("c2", "dialectic"): (False, False, True, False), ("c2", "single"): (False, True, False, False),
        ("c2", "majority"): (True, True, False, True),
        ("c3", "dialectic"): (True, True, False, False), ("c3", "single"): (True, False, True, False),
        ("c3", "majority"): (True, False, True, False),
        ("c4", "dialectic"): (True, True, False, True), ("c4", "single"): (True, False, False, False),
        ("c4", "majority"): (True, False, False, False),
    }
    got = {k: (r["right"], r["flagged"], r["silent_wrong"], r["over_flagged"]) for k, r in rows.items()}
    assert got == expected
    # The vote's confidence is the mean of the winning samples; the split vote says why it is flagged.
    assert rows[("c1", "majority")]["confidence"] == pytest.approx(0.7)
    assert rows[("c4", "majority")]["confidence"] == pytest.approx(0.7)
    assert any("no majority" in r for r in rows[("c2", "majority")]["reasons"])
    assert any("below the review threshold (50%)" in r for r in rows[("c2", "single")]["reasons"])
    # Tokens, calls, rounds and cost per run.
    for case_id in SCENARIO:
        dia, one, vote = rows[(case_id, "dialectic")], rows[(case_id, "single")], rows[(case_id, "majority")]
        assert (dia["calls"], dia["input_tokens"], dia["output_tokens"], dia["tokens"], dia["rounds"]) == (2, 150, 30, 180, 1)
        assert (one["calls"], one["tokens"]) == (1, 35)
        assert (vote["calls"], vote["tokens"]) == (3, 105)
        assert dia["cost"] == pytest.approx((150 * 1.0 + 30 * 2.0) / 1e6)
        assert one["cost"] == pytest.approx((30 + 5 * 2.0) / 1e6)
        assert vote["cost"] == pytest.approx(3 * (30 + 5 * 2.0) / 1e6)
        assert dia["wall_ms"] > 0


def test_the_summary_matches_the_hand_computation(tmp_path):
    report, _ = run_eval(tmp_path, SCENARIO)
    s = report["summary"]
    assert report["methods"] == ["dialectic", "single", "majority"]
    assert report["cases"] == ["c1", "c2", "c3", "c4"]
    assert report["currency"] == "EUR"
    dia, one, vote = s["dialectic"], s["single"], s["majority"]
    assert (dia["right_rate"], dia["silent_wrong_rate"], dia["over_flag_rate"], dia["flag_rate"]) == (0.75, 0.25, 0.25, 0.5)
    assert (one["right_rate"], one["silent_wrong_rate"], one["over_flag_rate"], one["flag_rate"]) == (0.75, 0.25, 0.0, 0.25)
    assert (vote["right_rate"], vote["silent_wrong_rate"], vote["over_flag_rate"], vote["flag_rate"]) == (1.0, 0.25, 0.25, 0.25)
    assert (dia["mean_tokens"], one["mean_tokens"], vote["mean_tokens"]) == (180, 35, 105)
    assert dia["total_cost"] == pytest.approx(4 * 210e-6)
    assert one["total_cost"] == pytest.approx(4 * 40e-6)
    assert vote["total_cost"] == pytest.approx(4 * 120e-6)
    # Paired by case: dialectic and single are right on the same cases; the vote wins c2.
    assert dia["right_rate_diff"] == 0.0 and vote["right_rate_diff"] == 0.25 and one["right_rate_diff"] == 0.0
    # Fewer than ten cases: no interval.
    assert dia["diff_ci95"] is None and vote["diff_ci95"] is None
    assert all(m["errors"] == 0 and m["runs"] == 4 for m in s.values())


def test_ten_cases_get_a_seeded_paired_bootstrap_interval(tmp_path):
    scenario = dict(SCENARIO)
    for i in range(5, 11):
        scenario[f"c{i}"] = SCENARIO["c1"]
    report, _ = run_eval(tmp_path, scenario)
    vote = report["summary"]["majority"]
    # Per case, majority minus single: +1 on c2, 0 on the nine others.
    assert vote["right_rate_diff"] == pytest.approx(0.1) and vote["diff_cases"] == 10
    lo, hi = vote["diff_ci95"]
    assert (lo, hi) == paired_bootstrap([0, 1, 0, 0, 0, 0, 0, 0, 0, 0], seed=DEFAULT_SEED)
    assert 0.0 <= lo <= 0.1 <= hi <= 1.0
    assert report["summary"]["dialectic"]["diff_ci95"] == [0.0, 0.0]  # the same on every case


def test_bootstrap_bounds_are_sane_and_reproducible():
    diffs = [1.0] * 5 + [0.0] * 5
    lo, hi = paired_bootstrap(diffs, seed=7)
    assert 0.0 <= lo < 0.5 < hi <= 1.0
    assert paired_bootstrap(diffs, seed=7) == (lo, hi)
    assert paired_bootstrap([0.25] * 12) == (0.25, 0.25)
    wide = paired_bootstrap([-1.0, 1.0] * 6, seed=1)
    assert -1.0 <= wide[0] < 0 < wide[1] <= 1.0


def test_runs_and_the_evaluation_are_stored_and_open_as_debates(tmp_path):
    report, store = run_eval(tmp_path, SCENARIO)
    listed = store.list_evaluations()
    assert [e["id"] for e in listed] == [report["evaluation_id"]]
    assert listed[0]["status"] == "completed" and listed[0]["done_runs"] == 12 == listed[0]["total_runs"]
    assert listed[0]["tokens"] == 4 * (180 + 35 + 105)
    stored = store.get_evaluation(report["evaluation_id"])
    assert stored["summary"] == json.loads(json.dumps(report["summary"]))
    assert len(stored["rows"]) == 12
    for row in report["rows"]:
        debate = store.get_debate(row["debate_id"])
        assert debate["protocol"] == row["method"] and debate["status"] == "completed"
        assert debate["settings"]["evaluation"] == {"id": report["evaluation_id"], "method": row["method"], "repeat": 1}
        assert debate["needs_human_review"] == row["flagged"]


def test_repeats_run_every_case_and_method_again(tmp_path):
    report, _ = run_eval(tmp_path, {"c1": SCENARIO["c1"]}, repeat=2)
    assert sorted((r["method"], r["repeat"]) for r in report["rows"]) == [
        ("dialectic", 1), ("dialectic", 2), ("majority", 1), ("majority", 2), ("single", 1), ("single", 2)]
    assert len({r["debate_id"] for r in report["rows"]}) == 6
    assert report["summary"]["single"]["runs"] == 2


def test_a_judge_compares_answers_with_the_reference_through_the_provider(tmp_path):
    scenario = {"c1": SCENARIO["c1"], "c2": SCENARIO["c2"]}
    cases, tapes = build(tmp_path, scenario)
    for case_id, verdict in (("c1", True), ("c2", False)):
        path = tapes / f"{case_id}.single.json"
        tape = json.loads(path.read_text())
        tape["calls"].append({"step": "final.eval_judge", "output": {
            "same_conclusion": verdict, "reasoning": f"judged {case_id}"}, "usage": {"input_tokens": 40, "output_tokens": 8}})
        path.write_text(json.dumps(tape))
    plan = evaluation.prepare([cases], "dialectic", baselines=["single"], provider="replay",
                              provider_options={"cassette": str(tapes)}, judge_model="grader")
    report = evaluation.run(plan, DebateStore(tmp_path / "j.db"))
    rows = by(report)
    assert rows[("c1", "single")]["judge"]["same_conclusion"] is True
    assert rows[("c1", "single")]["judge"]["reasoning"] == "judged c1"
    assert rows[("c1", "single")]["judge"]["tokens"] == 48
    assert rows[("c2", "single")]["judge"]["same_conclusion"] is False
    assert report["summary"]["single"]["judge_agreement_rate"] == 0.5
    # The dialectic cassettes hold no judgement: the judge's failure is recorded, not hidden.
    assert rows[("c1", "dialectic")]["judge"]["same_conclusion"] is None
    assert "no entry for step final.eval_judge" in rows[("c1", "dialectic")]["judge"]["reasoning"]


def test_the_offline_agents_cannot_judge(tmp_path):
    write_case(tmp_path / "cases", "c1", False)
    with pytest.raises(evaluation.EvaluationError, match="offline agents cannot judge"):
        evaluation.prepare([tmp_path / "cases"], "dialectic", judge_model="grader")


def test_bad_inputs_are_refused_before_anything_runs(tmp_path):
    cases, tapes = build(tmp_path, {"c1": SCENARIO["c1"]})
    with pytest.raises(evaluation.EvaluationError, match="no preset 'nope'"):
        evaluation.prepare([cases], "dialectic", presets=["nope"])
    with pytest.raises(evaluation.EvaluationError, match="unknown baseline 'triple'"):
        evaluation.prepare([cases], "dialectic", baselines=["triple"])
    (tapes / "c1.majority.json").unlink()
    with pytest.raises(evaluation.EvaluationError, match="no cassette for case 'c1' and method 'majority'"):
        evaluation.prepare([cases], "dialectic", baselines=["majority"], provider="replay",
                           provider_options={"cassette": str(tapes)})
    with pytest.raises(evaluation.EvaluationError, match="field 'id' is required"):
        evaluation.prepare([tapes / "c1.single.json"], "dialectic")
    with pytest.raises(evaluation.EvaluationError, match="no labelled case"):
        evaluation.prepare(["data/cases/adat_minangkabau_inheritance.json"], "arbitration")


def test_presets_become_methods_and_unfit_cases_are_left_out(tmp_path):
    write_case(tmp_path / "cases", "c1", False)
    plan = evaluation.prepare([tmp_path / "cases", "data/cases/arbitration_qatar_labour.json"], "arbitration",
                              presets=["tolerant (10% before a contradiction)"], baselines=["single"])
    assert [m.name for m in plan.methods] == ["arbitration", "tolerant (10% before a contradiction)", "single"]
    assert plan.methods[1].settings.options == {"value_threshold": 0.10}
    # The baseline is held to arbitration's review threshold.
    from debate_core.protocols.arbitration import MIN_RESOLUTION_CONFIDENCE

    assert plan.methods[2].settings.options == {"review_threshold": MIN_RESOLUTION_CONFIDENCE,
                                                "compared_with": "arbitration"}
    assert [c.id for c in plan.cases] == ["arbitration_qatar_labour"]
    assert plan.skipped and plan.skipped[0]["case"] == "c1" and "reports" in plan.skipped[0]["reason"]


def test_cli_eval_json_and_out_files(tmp_path, capsys):
    cases, tapes = build(tmp_path, SCENARIO)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES))
    out = tmp_path / "report"
    code = main(["--db", str(tmp_path / "cli.db"), "eval", str(cases), "--protocol", "dialectic",
                 "--baselines", "single,majority", "--provider", "replay", "--cassette", str(tapes),
                 "--prices", str(prices), "--concurrency", "3", "--json", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = json.loads(captured.out)
    assert {"protocol", "methods", "cases", "rows", "summary"} <= set(report)
    assert report["summary"]["majority"]["right_rate"] == 1.0
    assert "12/12 runs" in captured.err and "left" in captured.err and "tokens" in captured.err
    assert sorted(p.name for p in out.iterdir()) >= ["report.md", "rows.csv", "summary.json"]
    rows = list(csv.DictReader(io.StringIO((out / "rows.csv").read_text())))
    assert len(rows) == 12 and {r["method"] for r in rows} == {"dialectic", "single", "majority"}
    c2 = next(r for r in rows if r["case"] == "c2" and r["method"] == "dialectic")
    assert (c2["right"], c2["silent_wrong"], c2["tokens"]) == ("False", "True", "180")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["summary"]["dialectic"]["over_flag_rate"] == 0.25
    md = (out / "report.md").read_text()
    assert "| majority | 4 | 100% | 25% | 25% |" in md
    assert "+25 pts" in md


def test_cli_eval_bad_input_is_one_line(tmp_path, capsys):
    write_case(tmp_path / "cases", "c1", False)
    code = main(["--db", str(tmp_path / "x.db"), "eval", str(tmp_path / "cases"), "--protocol", "dialectic",
                 "--judge-model", "m"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: the offline agents cannot judge") and err.count("\n") == 1


def test_a_failed_run_is_an_error_not_a_score_and_every_total_adds_up(tmp_path):
    # c2's debate fails: its cassette has the thesis (100 + 20 tokens) but no critic step.
    broken = dialectic("refused", 0.9)
    broken["calls"] = broken["calls"][:1]
    scenario = {"c1": SCENARIO["c1"], "c2": (False, broken, *SCENARIO["c2"][2:]), "c4": SCENARIO["c4"]}
    cases, tapes = build(tmp_path, scenario)
    # Prices for another model only: every run is unpriced.
    plan = evaluation.prepare([cases], "dialectic", baselines=["single"], provider="replay",
                              provider_options={"cassette": str(tapes)},
                              prices=parse_price_table({"currency": "EUR", "models": {"other": {"input": 1, "output": 1}}}))
    report = evaluation.run(plan, DebateStore(tmp_path / "f.db"))
    rows = by(report)
    failed = rows[("c2", "dialectic")]
    assert failed["status"] == "failed" and "r1.antithesis.critic" in failed["error"]
    assert (failed["right"], failed["flagged"], failed["silent_wrong"], failed["over_flagged"]) == (None,) * 4
    assert failed["tokens"] == 120 and failed["cost"] is None
    dia = report["summary"]["dialectic"]
    assert (dia["runs"], dia["scored"], dia["errors"], dia["cases"]) == (3, 2, 1, 3)
    # Rates over the two scored runs (c1 right, unflagged; c4 right, over-flagged); tokens over all three.
    assert (dia["right_rate"], dia["flag_rate"], dia["over_flag_rate"], dia["silent_wrong_rate"]) == (1.0, 0.5, 0.5, 0.0)
    assert dia["total_tokens"] == 180 + 120 + 180 and dia["mean_tokens"] == pytest.approx(160)
    assert dia["mean_wall_ms"] == pytest.approx(sum(rows[(c, "dialectic")]["wall_ms"] for c in scenario) / 3, abs=0.01)
    assert dia["total_cost"] is None and dia["unpriced_models"] == ["replay"]
    # The paired difference skips the case the debate could not score.
    assert dia["diff_cases"] == 2 and dia["right_rate_diff"] == 0.0
    one = report["summary"]["single"]
    assert (one["runs"], one["errors"], one["total_tokens"]) == (3, 0, 3 * 35)


def test_a_sentiment_label_counts_only_where_the_answer_chooses_it():
    from debate_core.evaluation.scoring import score

    expected = {"label": "positive", "needs_human_review": False}
    doubted = ("The overall sentiment is negative: tuning negative. The panel could not assess: which way the text "
               "leans: read part by part it is negative, taken whole positive (VADER +0.55).")
    assert score(doubted, True, expected).right is False
    assert score("The overall sentiment is positive: tuning positive.", False, expected).right is True
    # The overall label is the one the first sentence states first, not one an aspect has after it.
    assert score("The overall sentiment is mixed: tuning negative; price positive.", False, expected).right is False
    # An answer whose first sentence names no sentiment is read whole, as before.
    assert score("Use 5 (the review). Its text reads positive.", False, expected).right is True


def test_a_rule_is_right_only_with_the_reference_rules_conditions(tmp_path, capsys):
    # The reference states the rule; naming its deciding point ("member") is not enough when the
    # answer's rule drops a condition or keeps one the evidence rules out.
    cases, tapes = tmp_path / "cases", tmp_path / "cassettes"
    cases.mkdir()
    tapes.mkdir()
    rules = {"same": "may_enter(X) :- member(X), not banned(X).",
             "lacks": "may_enter(P) :- member(P).",
             "adds": "may_enter(P) :- member(P), not banned(P), guest_book(P)."}
    for case_id, rule in rules.items():
        case = {"id": case_id, "title": f"Entry {case_id}", "question": "Write the rule for may_enter(P).",
                "evidence": [{"id": "E1", "source": "Club rules", "text": "Members may enter unless banned."}],
                "expected": {"needs_human_review": False, "must_mention": [["member"]],
                             "reference": "may_enter(P) :- member(P), not banned(P). Signing the guest book "
                                          "is for guests."}}
        (cases / f"{case_id}.json").write_text(json.dumps(case), encoding="utf-8")
        tape = dialectic("x", 0.9)
        tape["calls"][0]["output"]["rule"] = rule
        (tapes / f"{case_id}.dialectic.json").write_text(json.dumps(tape), encoding="utf-8")
    code = main(["--db", str(tmp_path / "cli.db"), "eval", str(cases), "--protocol", "dialectic",
                 "--provider", "replay", "--cassette", str(tapes), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    rows = {r["case"]: r for r in json.loads(captured.out)["rows"]}
    assert (rows["same"]["right"], rows["same"]["missing"]) == (True, [])
    assert (rows["lacks"]["right"], rows["lacks"]["silent_wrong"]) == (False, True)
    assert rows["lacks"]["missing"] == ["the rule's conditions (lacks not banned)"]
    assert rows["adds"]["missing"] == ["the rule's conditions (adds guest_book)"]


def test_an_answer_without_a_rule_misses_the_reference_rule():
    from debate_core.evaluation.scoring import score

    expected = {"needs_human_review": False, "reference": "ok(P) :- a(P), b(P, G). Why."}
    assert score("Members may enter.", False, expected).missing == ("the rule (the answer states none)",)
    assert score("As an ASP rule: ok(X) :- b(X, Y), a(X).", False, expected).right is True
    # A reference in words (a case that needs a person) is scored by its groups alone.
    assert score("The sources conflict.", True, {"needs_human_review": True, "reference": "They conflict."}).right
