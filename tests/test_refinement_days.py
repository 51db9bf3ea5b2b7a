"""The refinement reasoners order an incident's events by day as well as by clock time: a change made
the evening before counts as before a failure at six the next morning. Two sentences of one change
record are one change; a line tagged INFO reports operation, not a change; "has failed" is an
outcome, not a change; a sentence is routine only when it says so of itself or points back to the
one before. Each case is written here (fictitious) and driven through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import cli

from debate_core.core.schemas import Case, Evidence
from debate_core.protocols.refinement.agent.reading import changes_in, day_of, events_of, timeline
from debate_core.protocols.refinement.rules import seen_when_nothing_fails

QUESTION = ("Since 06:00 on Tuesday 3 March 2026 the (fictitious) Harbourline ferry booking site rejects every "
            "payment. What is the root cause, and how should it be resolved and prevented?")


def _case(*evidence: dict) -> dict:
    return {"id": "ferry_payments", "title": "Ferry payments rejected", "question": QUESTION,
            "evidence": list(evidence)}


ERROR = {"id": "L1", "source": "log: payment service", "date": "2026-03-03T06:00:12",
         "text": "06:00:12 ERROR payment rejected by gateway: merchant key unknown. Every payment has failed the "
                 "same way since."}
KEY_CHANGE = {"id": "C1", "source": "change record CHG-310", "date": "2026-03-02T23:40:00",
              "text": "2 March 2026 23:40: the payment gateway merchant key was rotated by the finance team. "
                      "The old key was revoked at once."}
ROUTINE = {"id": "L2", "source": "log: payment service", "date": "2026-03-03T05:59:58",
           "text": "05:59:58 INFO session token issued to the booking site for the payment gateway."}


def _run(tmp_path: Path, case: dict) -> dict:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    proc = cli("run", str(path), "--protocol", "refinement", "--json", db=tmp_path / "d.db", check=True)
    return json.loads(proc.stdout)["verdict"]


def test_a_change_the_evening_before_precedes_a_failure_next_morning(tmp_path):
    tl = timeline(Case(**_case(ERROR, KEY_CHANGE, ROUTINE)))
    assert tl.first_anomaly.ev.id == "L1"
    # C1's clock time (23:40) is later than the error's (06:00), but its day is earlier.
    assert [e.ev.id for e in tl.changes_before] == ["C1"]
    verdict = _run(tmp_path, _case(ERROR, KEY_CHANGE, ROUTINE))
    assert "merchant key was rotated" in verdict["answer"] and "(C1)" in verdict["answer"]


def test_two_changes_the_night_before_are_named_together_and_sent_to_a_person(tmp_path):
    upgrade = {"id": "C2", "source": "vendor maintenance notice", "date": "2026-03-02T23:55:00",
               "text": "2 March 2026 23:55: the gateway client library was upgraded from 7.1 to 8.0. Release "
                       "notes: the key format was changed."}
    tl = timeline(Case(**_case(ERROR, KEY_CHANGE, upgrade, ROUTINE)))
    # One change per record: C2's two sentences do not push C1 out.
    assert [e.ev.id for e in tl.changes_before] == ["C1", "C2"]
    verdict = _run(tmp_path, _case(ERROR, KEY_CHANGE, upgrade, ROUTINE))
    assert verdict["needs_human_review"]
    assert "C1" in verdict["answer"] and "C2" in verdict["answer"]


def test_days_are_read_from_the_sentence_or_the_passage_date():
    assert day_of("19 January 2026: thumbnail service 4.2 deployed") == day_of("2026-01-19") \
        == day_of("January 19, 2026")
    assert day_of("from 2 March 2026 to 9 March 2026") is None and day_of("06:00 ERROR") is None
    [event] = events_of(Evidence(**KEY_CHANGE))[:1]
    assert event.day == day_of("2026-03-02") and event.time == 23 * 60 + 40


def test_outcomes_and_routine_log_lines_are_not_changes():
    assert changes_in("Every payment has failed the same way since.") == ()
    assert changes_in("05:59:58 INFO session token issued to the booking site.") == ()
    assert changes_in("05:59:58 INFO payment service restarted.") == ("restarted",)


def test_a_routine_sentence_must_speak_of_the_one_before_it():
    message = "2 March 2026 23:40: the gateway merchant key was rotated by the finance team."
    unrelated = [("C1", f"{message} Booking site sessions for the gateway are renewed every night.")]
    assert seen_when_nothing_fails(message, unrelated) is None
    pointing_back = [("C1", f"{message} It is rotated every night by the finance team's job.")]
    assert seen_when_nothing_fails(message, pointing_back) is not None
