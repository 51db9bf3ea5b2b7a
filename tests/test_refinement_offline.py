"""Refinement's offline reasoners differ by their source and act on the judge's feedback.

The log reasoner reads the log lines and metrics, the knowledge-graph reasoner past incidents,
patterns and the configuration and dependency facts, the hybrid both: they agree only when their
evidence does. From round 2 each reads the judge's scores and feedback on its earlier hypotheses.
The cases here are written for these tests (not the sample case); every passage says its `kind`
and all share one neutral `source`, so the field alone tells the reasoners apart.
"""

from __future__ import annotations

import contextlib
import io
import json

from debate_core.cli import main
from debate_core.core.cases import parse_case
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.present import export
from debate_core.protocols.refinement import agent as offline
from debate_core.providers import make_provider
from debate_core.store import DebateStore

LOG = {"id": "log", "evidence_kinds": ["log", "metric"]}
KG = {"id": "kg", "evidence_kinds": ["config", "topology", "history"]}

# The logs show only the timeouts; the change that caused them is a configuration record the
# knowledge-graph side holds, next to a past incident; the KG side has no log line.
SPLIT = {
    "id": "t-split", "title": "checkout timeouts",
    "question": "checkout-api timed out on payments-db from 10:05 and returned 502 errors. What is the root cause?",
    "evidence": [
        {"id": "L1", "source": "ops", "kind": "log",
         "text": "10:05:12 ERROR checkout-api: request to payments-db timed out after 30 s."},
        {"id": "L2", "source": "ops", "kind": "log", "text": "10:06:40 ERROR checkout-api returned 502 for 18% of requests."},
        {"id": "C1", "source": "ops", "kind": "config",
         "text": "09:58 change record: the payments-db connection pool of checkout-api lowered from 50 to 5."},
        {"id": "H1", "source": "ops", "kind": "incident",
         "text": "Past incident INC-112: checkout-api timed out on payments-db after its connection pool was lowered; "
                 "restoring the pool size resolved it."},
        {"id": "T1", "source": "ops", "kind": "topology", "text": "checkout-api depends on payments-db and on fraud-svc."},
    ]}

# The logs and a past incident tell the same story, each on its own.
AGREE = {
    "id": "t-agree", "title": "login timeouts",
    "question": "Logins on auth-svc timed out from 09:52. What is the root cause?",
    "evidence": [
        {"id": "L1", "source": "ops", "kind": "log",
         "text": "09:50:00 auth-svc deployed v4.2, which turns off the session cache for gateway tokens."},
        {"id": "L2", "source": "ops", "kind": "log",
         "text": "09:52:30 ERROR auth-svc: login requests time out on user-db after 30 seconds."},
        {"id": "H1", "source": "ops", "kind": "incident",
         "text": "Past incident INC-31: auth-svc deployed v4.2, which turns off the session cache for gateway tokens, "
                 "so login requests time out on user-db after 30 seconds."},
    ]}


def _tops(res, n):
    rd = res.result["rounds"][n - 1]
    return {r: max(items, key=lambda h: h["judge_score"]) for r, items in rd["hypotheses"].items()}


def _replays_to_the_same_verdict(tmp_path, case, first, store, settings=None):
    tape = tmp_path / "tape.json"
    tape.write_text(json.dumps(export.cassette(store, first.debate_id)), encoding="utf-8")
    again = run_debate(case, "refinement", provider=make_provider("replay", cassette=str(tape)), store=store,
                       settings=settings)
    assert again.status == "completed", again.error
    assert again.verdict.model_dump() == first.verdict.model_dump()
    assert (again.rounds, again.converged, again.convergence_reason) == (first.rounds, first.converged,
                                                                         first.convergence_reason)


def test_each_reasoner_reads_only_its_kinds_of_passage():
    case = parse_case(SPLIT)
    assert [offline.kind(ev) for ev in case.evidence] == ["log", "log", "config", "history", "topology"]
    assert {ev.id for ev in offline.view(case, LOG).evidence} == {"L1", "L2"}
    assert {ev.id for ev in offline.view(case, KG).evidence} == {"C1", "H1", "T1"}
    log_ids = {e for h in offline.initial_hypotheses(case, LOG) for e in h["evidence"]}
    kg_ids = {e for h in offline.initial_hypotheses(case, KG) for e in h["evidence"]}
    assert log_ids <= {"L1", "L2"} and kg_ids <= {"C1", "H1", "T1"}
    # Without the field, the source tells; a dated line with a severity tag is a log line.
    plain = parse_case({"id": "t", "title": "t", "question": "q?", "evidence": [
        {"id": "a", "source": "service dependency map", "text": "x depends on y"},
        {"id": "b", "source": "notes", "text": "10:00:01 ERROR x failed"},
        {"id": "c", "source": "notes", "text": "x is a service"}]})
    assert [offline.kind(ev) for ev in plain.evidence] == ["topology", "log", "other"]


def test_round_two_acts_on_the_judges_feedback_and_the_reasoners_converge(tmp_path):
    # Log and KG evidence point different ways in round 1: the log reasoner blames the component
    # that timed out, the KG reasoner the configuration change. The judge asks the log reasoner to
    # cite C1 (the change before the first anomaly) and the KG reasoner to cite L1 (the first
    # anomaly); in round 2 both read what the judge named, and the top score rises.
    case = parse_case(SPLIT)
    store = DebateStore(tmp_path / "d.db")
    settings = DebateSettings(agents=[LOG, KG])
    res = run_debate(case, "refinement", provider=make_provider("offline"), store=store, settings=settings)
    assert res.status == "completed", res.error
    r1, r2 = _tops(res, 1), _tops(res, 2)
    assert r1["log"]["evidence"] == ["L1"] and "C1" not in r1["log"]["evidence"]
    assert "C1" in r1["kg"]["evidence"] and "L1" not in r1["kg"]["evidence"]
    assert r1["log"]["category"] != r1["kg"]["category"]
    assert not res.result["rounds"][0]["consensus"]["reached"]
    assert "Cite C1" in r1["log"]["feedback"] and "Cite L1" in r1["kg"]["feedback"]
    # Round 2: each cites what the judge asked for, says so, and scores higher.
    assert "C1" in r2["log"]["evidence"] and "L1" in r2["kg"]["evidence"]
    assert "C1, which the judge named" in r2["log"]["changes_made"]
    assert "L1, which the judge named" in r2["kg"]["changes_made"]
    for r in ("log", "kg"):
        assert r2[r]["judge_score"] > r1[r]["judge_score"]
    trajectory = res.result["improvement_trajectory"]
    assert len(trajectory) == 2 and trajectory[1] > trajectory[0]
    assert res.trajectory[1]["top_score"] - res.trajectory[0]["top_score"] >= 5
    assert res.rounds == 2 and res.converged and res.result["rounds"][1]["consensus"]["reached"]
    assert res.convergence_reason.startswith("Consensus: all reasoners' top hypotheses agree (category config")
    assert res.result["final_hypothesis"]["rounds_refined"] == 2
    # The stored steps carry the same story: the round-2 step's payload held the judge's notes.
    _replays_to_the_same_verdict(tmp_path, case, res, store, settings)


def test_with_the_default_team_the_reasoners_agree_only_in_round_two():
    res = run_debate(parse_case(SPLIT), "refinement")
    assert res.status == "completed", res.error
    consensus = [rd["consensus"]["reached"] for rd in res.result["rounds"]]
    assert consensus == [False, True]
    r1, r2 = _tops(res, 1), _tops(res, 2)
    assert r2["log"]["judge_score"] > r1["log"]["judge_score"] and r2["kg"]["judge_score"] > r1["kg"]["judge_score"]
    # The hybrid read both sides at once; its story was already the best and stays.
    assert {"C1", "L1"} <= set(r1["hybrid"]["evidence"])


def test_a_hypothesis_the_judge_scored_low_is_dropped_and_the_feedback_is_acted_on():
    case = parse_case(SPLIT)
    [lead] = [h for h in offline.initial_hypotheses(case, LOG) if h["evidence"]]
    vague = {**lead, "hypothesis": "Root cause: something in the network.", "evidence": ["L2"], "category": "network"}
    vaguer = {**vague, "hypothesis": "Root cause: a bad day.", "evidence": []}
    previous = [{**lead, "judge_score": 60.0, "feedback": "1) Cite C1, a change just before the first anomaly."},
                {**vague, "judge_score": 12.0, "feedback": "1) Drop L2."},
                {**vaguer, "judge_score": 5.0, "feedback": "1) Cite the passages the cause rests on."}]
    again = offline.refine(case, LOG, previous)
    texts = [h["hypothesis"] for h in again]
    assert 3 <= len(again) <= 5
    # The re-reading with C1 leads; the earlier lead cites C1 as asked; the low one is gone.
    assert "C1" in again[0]["evidence"] and "which the judge named" in again[0]["changes_made"]
    # Of the two the judge scored low, the lowest goes; the other is kept, last, to make up three.
    assert "dropped \"Root cause: a bad day\" (scored 5)" in again[0]["changes_made"]
    assert "moved to the end \"Root cause: something in the network\" (scored 12)" in again[0]["changes_made"]
    assert vaguer["hypothesis"] not in texts
    assert again[-1]["hypothesis"] == vague["hypothesis"] and again[-1]["evidence"] == []  # L2 dropped as asked
    revised = next(h for h in again if h["hypothesis"].startswith(lead["hypothesis"]))
    assert "C1" in revised["evidence"] and revised["changes_made"] == "cited C1 as the judge asked"


def test_consensus_at_once_says_it_comes_from_independent_evidence(tmp_path):
    case = parse_case(AGREE)
    store = DebateStore(tmp_path / "d.db")
    res = run_debate(case, "refinement", provider=make_provider("offline"), store=store)
    assert res.status == "completed", res.error
    assert res.rounds == 1 and res.converged
    tops = _tops(res, 1)
    # The log reasoner cites only log lines, the KG reasoner only the past incident.
    assert set(tops["log"]["evidence"]) == {"L1", "L2"} and tops["kg"]["evidence"] == ["H1"]
    assert "reached from independent evidence (log and kg cite no passage in common)" in res.convergence_reason
    assert res.verdict.rationale.startswith("Consensus: all reasoners' top hypotheses agree")
    assert "independent evidence" in res.verdict.rationale
    _replays_to_the_same_verdict(tmp_path, case, res, store)


def test_the_cli_runs_the_split_case_to_a_second_round(tmp_path):
    path = tmp_path / "split.json"
    path.write_text(json.dumps(SPLIT), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--db", str(tmp_path / "cli.db"), "run", str(path), "--protocol", "refinement", "--json", "--quiet"])
    assert code == 0, err.getvalue()
    data = json.loads(out.getvalue())
    assert data["status"] == "completed" and data["rounds"] == 2
    assert [t["round"] for t in data["trajectory"]] == [1, 2]
