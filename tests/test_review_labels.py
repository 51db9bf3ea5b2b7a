"""Reviews become labelled data: a decided debate as a labelled case (debate_core/evaluation/labels.py),
the store's review rows on both backends, agreement per severity, and `export-labels` whose folder
`eval` scores as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debate_core.cli import main
from debate_core.core.cases import load_case
from debate_core.engine.runtime import DebateSettings
from debate_core.evaluation import labels
from debate_core.evaluation.harness import labelled_cases
from debate_core.jobs.debates import run_debate
from debate_core.providers import make_provider
from debate_core.store import DebateStore

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "data" / "cases"
# Offline cross-critique debates on these sample cases raise critiques whose worst is, in order:
CRITICAL_CASE, MAJOR_CASE, MINOR_CASE = "adat_minangkabau_inheritance", "national_will_formalities", "adat_bali_daughter_heir"
# With their sixth claims the agents of MINOR_CASE state opposing positions ("decided primarily on the
# sources of" the other agent), a MAJOR conflict; five claims each keep its worst critique MINOR.
MINOR_OPTIONS = {"max_claims": 5}


def _debate(**fields):
    """A stored debate as `review_records` returns it, with a case carrying the writer's labels."""
    base = {
        "id": "d1", "protocol": "cross_critique", "review_state": "accepted", "final_answer": "The will is valid.",
        "verdict": {"answer": "The will is valid; the bequest is reduced to one quarter."},
        "case": {"id": "will", "title": "Will", "question": "Is the will valid?", "evidence": [],
                 "expected": {"needs_human_review": True, "label": "valid", "reference": "writer's answer",
                              "must_mention": [["one quarter", "1/4"], ["void"]]}},
        "reviews": [{"action": "accept", "reviewer": "ann", "ts": "2026-11-20T10:00:00.000Z",
                     "state_after": "accepted", "answer_after": "The will is valid."}],
        "top_severity": "MAJOR",
    }
    return {**base, **fields}


# -- the labelled case ---------------------------------------------------------------------------


def test_an_accepted_debate_keeps_the_moderators_answer_and_the_labels_it_meets():
    case = labels.labelled_case(_debate())
    assert case["id"] == "will--d1" and case["protocol"] == "cross_critique" and case["question"] == "Is the will valid?"
    exp = case["expected"]
    assert exp["reference"] == "The will is valid; the bequest is reduced to one quarter."
    assert exp["needs_human_review"] is False  # one reviewer could decide it
    assert exp["label"] == "valid"  # the decided answer still says it
    assert exp["must_mention"] == [["one quarter", "1/4"]]  # "void" is not what the team decided
    assert exp["review"] == {"debate_id": "d1", "decision": "accepted", "decided_by": "ann",
                             "decided_at": "2026-11-20T10:00:00.000Z",
                             "moderator_answer": "The will is valid; the bequest is reduced to one quarter."}


def test_an_override_labels_the_corrected_answer_and_a_supervisor_decision_needed_a_human():
    over = labels.labelled_case(_debate(review_state="overridden", final_answer="Void", reviews=[
        {"action": "override", "reviewer": "bob", "ts": "t1", "state_after": "overridden", "answer_after": "Void"}]))
    assert over["expected"]["reference"] == "Void"
    assert over["expected"]["label"] == "Void"  # a one-word answer is the label
    assert over["expected"]["must_mention"] == [["void"]]
    assert over["expected"]["needs_human_review"] is False
    assert over["expected"]["review"]["decided_by"] == "bob"
    settled = labels.labelled_case(_debate(review_state="settled", final_answer="Reduce the gift by half.",
                                           reviews=[{"action": "escalate", "reviewer": "ann", "state_after": "escalated"},
                                                    {"action": "override", "reviewer": "sue", "state_after": "settled",
                                                     "answer_after": "Reduce the gift by half.", "ts": "t2"}]))
    assert settled["expected"]["reference"] == "Reduce the gift by half."
    assert settled["expected"]["needs_human_review"] is True and "label" not in settled["expected"]
    assert settled["expected"]["review"]["decided_by"] == "sue"
    approved = labels.labelled_case(_debate(review_state="approved"))
    assert approved["expected"]["reference"] == "The will is valid; the bequest is reduced to one quarter."
    assert approved["expected"]["needs_human_review"] is True


def test_undecided_debates_are_skipped_with_their_reason_and_counted():
    assert labels.labelled_case(_debate(review_state="pending")) == "awaiting review"
    assert labels.labelled_case(_debate(review_state="escalated")) == "escalated, not yet decided by a supervisor"
    assert labels.labelled_case(_debate(case=None)) == labels.NO_CASE
    export = labels.export_labels([_debate(), _debate(id="d2", review_state="pending"),
                                   _debate(id="d3", review_state="pending"), _debate(id="d4", review_state="escalated"),
                                   _debate(id="d5:x/y", review_state="overridden", final_answer="No.")])
    assert sorted(export.cases) == ["will--d1.json", "will--d5_x_y.json"]  # a debate id cannot name a folder
    assert export.written() == "2 labelled cases (1 accepted, 1 overridden)"
    assert export.left_out() == "2 awaiting review, 1 escalated, not yet decided by a supervisor"
    assert export.cases["will--d5_x_y.json"]["expected"]["label"] == "No"


# -- agreement -----------------------------------------------------------------------------------


def test_agreement_per_severity_between_reviewers_and_with_the_moderator():
    undo_then_other = [
        {"action": "accept", "reviewer": "Ann"}, {"action": "undo", "reviewer": "ann"},
        {"action": "override", "reviewer": "bob", "answer_after": "No."}]
    same_correction = [
        {"action": "override", "reviewer": "carl", "answer_after": "No"}, {"action": "undo", "reviewer": "carl"},
        {"action": "override", "reviewer": "dee", "answer_after": " no. "}]
    rows = labels.agreement([
        _debate(id="a", top_severity="CRITICAL", review_state="overridden", reviews=undo_then_other),
        _debate(id="b", top_severity="CRITICAL", review_state="overridden", reviews=same_correction),
        _debate(id="c", top_severity="MINOR", review_state="accepted"),
        _debate(id="d", top_severity=None, review_state="approved",
                reviews=[{"action": "escalate", "reviewer": "ann"}, {"action": "approve", "reviewer": "sue"}]),
        _debate(id="e", top_severity="MAJOR", review_state="pending", reviews=[]),  # not decided: not counted
    ])
    by = {r["severity"]: r for r in rows}
    assert list(by) == ["CRITICAL", "MINOR", "no critique", "all"]  # severities with no decided debate left out
    assert by["CRITICAL"] == {"severity": "CRITICAL", "decided": 2, "kept_moderator": 0, "moderator_agreement": 0.0,
                              "reviewer_pairs": 2, "reviewers_agreed": 1, "reviewer_agreement": 0.5}
    assert by["MINOR"]["moderator_agreement"] == 1.0 and by["MINOR"]["reviewer_agreement"] is None
    # An escalation is no decision on the answer: the supervisor alone decided it.
    assert by["no critique"]["reviewer_pairs"] == 0 and by["no critique"]["kept_moderator"] == 1
    assert by["all"]["decided"] == 4 and by["all"]["moderator_agreement"] == 0.5 and by["all"]["reviewer_pairs"] == 2
    assert labels.agreement([]) == [{"severity": "all", "decided": 0, "kept_moderator": 0, "moderator_agreement": None,
                                     "reviewer_pairs": 0, "reviewers_agreed": 0, "reviewer_agreement": None}]


# -- the store, on both backends -----------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def location(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "labels.db")
    return request.getfixturevalue("pg_url")


def _run(store: DebateStore, name: str, protocol: str = "cross_critique", options: dict | None = None) -> str:
    return run_debate(load_case(CASES / f"{name}.json"), protocol, provider=make_provider("offline"),
                      settings=DebateSettings(options=options or {}), store=store).debate_id


def _reviewed(store: DebateStore) -> dict[str, str]:
    """Five debates: accepted (after an undo, by another), overridden, settled, escalated, pending."""
    ids = {"accepted": _run(store, CRITICAL_CASE), "overridden": _run(store, MAJOR_CASE),
           "settled": _run(store, MINOR_CASE, options=MINOR_OPTIONS), "escalated": _run(store, MAJOR_CASE),
           "pending": _run(store, CRITICAL_CASE)}
    store.review(ids["accepted"], action="accept", reviewer="ann")
    store.review(ids["accepted"], action="undo", reviewer="ann")
    store.review(ids["accepted"], action="accept", reviewer="bob")
    store.review(ids["overridden"], action="override", reviewer="bob", reason="The gift is reduced, not void.",
                 answer="The will is valid and the bequest is reduced to one quarter.")
    store.review(ids["settled"], action="escalate", reviewer="ann", reason="Adat against national law.")
    store.review(ids["settled"], action="override", reviewer="sue", supervisor=True, answer="undecidable",
                 reason="The appointment's validity is a question of fact.")
    store.review(ids["escalated"], action="escalate", reviewer="ann", reason="Unsure.")
    store.annotate(ids["overridden"], kind="claim", ref=store.claims(ids["overridden"])[0]["agent"] + "."
                   + store.claims(ids["overridden"])[0]["claim_id"], label="correct", reviewer="ann")
    return ids


def test_review_records_read_states_severities_and_history(location):
    store = DebateStore(location)
    try:
        ids = _reviewed(store)
        _run(store, MAJOR_CASE, "panel")  # another protocol, for the filter
        records = {r["id"]: r for r in store.review_records(protocol="cross_critique")}
        light = {r["id"]: r for r in store.review_records(protocol="cross_critique", with_cases=False)}
        later = store.review_records(since="2999-01-01")
    finally:
        store.close()
    assert set(records) == set(ids.values())
    assert {state: records[i]["review_state"] for state, i in ids.items()} == {s: s for s in ids}
    assert [records[ids[s]]["top_severity"] for s in ("accepted", "overridden", "settled")] == ["CRITICAL", "MAJOR", "MINOR"]
    # The answer's history only: the annotation is left out; the undo is kept.
    assert [r["action"] for r in records[ids["accepted"]]["reviews"]] == ["accept", "undo", "accept"]
    assert [r["action"] for r in records[ids["overridden"]]["reviews"]] == ["override"]
    assert records[ids["settled"]]["case"]["id"] == MINOR_CASE and records[ids["settled"]]["verdict"]["answer"]
    # Undecided debates, and every debate without with_cases, carry no case or verdict.
    assert records[ids["pending"]]["case"] is None and records[ids["escalated"]]["verdict"] is None
    assert "case" not in light[ids["accepted"]] and light[ids["accepted"]]["top_severity"] == "CRITICAL"
    assert later == []


def test_evaluation_runs_are_left_out_of_review_records(tmp_path):
    store = DebateStore(tmp_path / "e.db")
    try:
        case = load_case(CASES / f"{MAJOR_CASE}.json")
        did = store.create_debate(case, "cross_critique", {}, {}, evaluation_id="ev1")
        run_debate(case, "cross_critique", provider=make_provider("offline"), store=store, debate_id=did)
        store.review(did, action="accept", reviewer="ann")
        assert store.review_records() == []
        assert [r["id"] for r in store.review_records(include_evaluations=True)] == [did]
    finally:
        store.close()


# -- export-labels, then eval on the folder ------------------------------------------------------


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_export_labels_writes_cases_that_eval_scores(tmp_path, capsys):
    db = tmp_path / "work.db"
    store = DebateStore(db)
    try:
        ids = _reviewed(store)
    finally:
        store.close()
    out_dir = tmp_path / "labelled"
    code, out, err = _cli(capsys, "--db", str(db), "export-labels", str(out_dir))
    assert code == 0, err
    assert out.splitlines()[:2] == [
        f"wrote 3 labelled cases (1 accepted, 1 overridden, 1 settled) to {out_dir}",
        "skipped 1 awaiting review, 1 escalated, not yet decided by a supervisor"]
    files = sorted(p.name for p in out_dir.iterdir())
    assert files == sorted(f"{name}--{ids[state]}.json" for name, state in (
        (CRITICAL_CASE, "accepted"), (MAJOR_CASE, "overridden"), (MINOR_CASE, "settled")))
    # eval's own reader takes every file as a labelled case.
    read = {case.id: case for _path, case in labelled_cases([out_dir])}
    settled = read[f"{MINOR_CASE}--{ids['settled']}"]
    assert settled.expected["label"] == "undecidable" and settled.expected["needs_human_review"] is True
    assert settled.model_extra["protocol"] == "cross_critique"
    overridden = read[f"{MAJOR_CASE}--{ids['overridden']}"].expected
    assert overridden["reference"] == "The will is valid and the bequest is reduced to one quarter."
    assert overridden["must_mention"] == [["one quarter", "1/4", "25%", "a quarter"], ["reduc", "inkorting"]]

    code, out, err = _cli(capsys, "--db", str(tmp_path / "eval.db"), "eval", str(out_dir),
                          "--protocol", "cross_critique", "--quiet", "--json")
    assert code == 0, err
    report = json.loads(out)
    rows = {r["case"].split("--")[0]: r for r in report["rows"]}
    assert set(rows) == {CRITICAL_CASE, MAJOR_CASE, MINOR_CASE} and report["skipped"] == []
    assert all(r["status"] == "completed" for r in rows.values())
    # The same offline agents give the accepted answer again: right; their flag on a case the team
    # decided alone is over-flagging.
    assert rows[CRITICAL_CASE]["right"] is True and rows[CRITICAL_CASE]["over_flagged"] is True
    # Nobody's answer says "undecidable": wrong against the supervisor's label, but sent to a human.
    assert rows[MINOR_CASE]["label_ok"] is False and rows[MINOR_CASE]["right"] is False
    assert rows[MINOR_CASE]["silent_wrong"] is False
    summary = report["summary"]["cross_critique"]
    assert (summary["runs"], summary["scored"], summary["errors"]) == (3, 3, 0)
    assert summary["right"] == sum(r["right"] for r in rows.values())


def test_export_labels_filters_refuses_bad_flags_and_says_when_there_is_nothing(tmp_path, capsys):
    db = tmp_path / "work.db"
    store = DebateStore(db)
    try:
        _reviewed(store)
    finally:
        store.close()
    code, out, _ = _cli(capsys, "--db", str(db), "export-labels", str(tmp_path / "p"), "--protocol", "panel", "--json")
    assert code == 0 and json.loads(out) == {"dir": str(tmp_path / "p"), "files": [], "decided": {}, "skipped": {}}
    assert not (tmp_path / "p").exists()  # nothing to write, no folder made
    code, out, _ = _cli(capsys, "--db", str(db), "export-labels", str(tmp_path / "s"), "--since", "2999-01-01")
    assert code == 0 and out.startswith("no reviewed debate to export")
    code, _, err = _cli(capsys, "--db", str(db), "export-labels", str(tmp_path / "x"), "--since", "last week")
    assert code == 2 and "--since must be a date" in err
    code, _, err = _cli(capsys, "--db", str(db), "export-labels", str(tmp_path / "x"), "--protocol", "chess")
    assert code == 2 and "unknown protocol 'chess'" in err
    (tmp_path / "afile").write_text("x")
    code, _, err = _cli(capsys, "--db", str(db), "export-labels", str(tmp_path / "afile"))
    assert code == 2 and "not a folder" in err
    # A missing database is read as empty: a read never creates the file.
    code, out, _ = _cli(capsys, "--db", str(tmp_path / "none.db"), "export-labels", str(tmp_path / "n"))
    assert code == 0 and out.startswith("no reviewed debate") and not (tmp_path / "none.db").exists()
