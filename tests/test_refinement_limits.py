"""Refinement knows its limits: a change is read from what the evidence says happened, a warning
that also shows when nothing fails is not the cause, and evidence that does not separate two
causes goes to a human naming both.

The cases are written here (not the sample or dev cases) and run through the CLI in-process.
"""

from __future__ import annotations

import json

from test_cli import cli

from debate_core.core.cases import parse_case
from debate_core.protocols.refinement import rules
from debate_core.protocols.refinement.agent import reading

# A change named by a verb no cue list holds ("re-keyed"), four minutes before the first error.
REKEYED = {
    "id": "t-rekeyed", "title": "sign-in failures",
    "question": "Sign-ins through sso-gw failed from 02:14 with TLS handshake errors. What is the root cause?",
    "evidence": [
        {"id": "L1", "source": "log: sso-gw", "kind": "log",
         "text": "02:14:05 ERROR sso-gw: TLS handshake with idp-core failed: certificate verify failed."},
        {"id": "L2", "source": "log: sso-gw", "kind": "log",
         "text": "02:15:30 ERROR sso-gw: 41% of sign-in requests returned 502 after TLS handshake errors."},
        {"id": "C1", "source": "ops notes", "text": "At 02:10 the cert store of idp-core was re-keyed by the rotation job."},
        {"id": "M1", "source": "metrics: sso-gw", "kind": "metric",
         "text": "CPU and memory of sso-gw were normal throughout; request rate unchanged."},
    ]}

# The earliest warning (L1) is logged every night with no errors anywhere (M2): the incident starts
# at L2, and what changed before it is C1.
ROUTINE_WARNING = {
    "id": "t-routine", "title": "order timeouts",
    "question": "order-svc requests to payment-gw timed out from 02:20. What is the root cause?",
    "evidence": [
        {"id": "L1", "source": "log: cache-fe", "kind": "log",
         "text": "01:50:00 WARN cache-fe: eviction rate above 80% on shard cache-3."},
        {"id": "L2", "source": "log: order-svc", "kind": "log",
         "text": "02:20:11 ERROR order-svc: request to payment-gw timed out after 2 s."},
        {"id": "C1", "source": "ops notes",
         "text": "02:12 the payment-gw client timeout of order-svc was lowered from 30 s to 2 s."},
        {"id": "M2", "source": "metrics: cache-fe", "kind": "metric",
         "text": "The cache-fe warning 'eviction rate above 80% on shard cache-3' is logged every night between "
                 "01:00 and 03:00 with no errors on any service."},
    ]}

# The only warning is one a past incident saw without an outage: nothing else explains the failure.
ROUTINE_ONLY = {
    "id": "t-routine-only", "title": "export failure",
    "question": "Report exports from reports-api failed at 03:20. What is the root cause?",
    "evidence": [
        {"id": "L1", "source": "log: backup-agent", "kind": "log",
         "text": "03:00:02 WARN backup-agent: snapshot of vol-9 took 340 s, above the threshold."},
        {"id": "H1", "source": "past incident INC-77", "kind": "incident",
         "text": "Past incident INC-77: backup-agent snapshot of vol-9 took longer than the threshold every night "
                 "for a week without an outage."},
    ]}

# Two changes minutes before the first error, on different things; the error names neither.
CONFOUNDED = {
    "id": "t-confounded-two", "title": "upload resets",
    "question": "Uploads failed with connection resets from 02:14. What is the root cause?",
    "evidence": [
        {"id": "L1", "source": "log: upload gateway", "kind": "log",
         "text": "02:14:20 ERROR uploads failed: connection reset by peer for 23% of requests."},
        {"id": "C1", "source": "ops notes", "text": "02:05 change record: the kernel of the edge nodes was re-imaged."},
        {"id": "C2", "source": "ops notes",
         "text": "02:08 change record: the cipher order of the load balancer was rearranged."},
    ]}


def _run(tmp_path, case: dict) -> dict:
    path = tmp_path / f"{case['id']}.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    proc = cli("run", str(path), "--protocol", "refinement", "--json", "--quiet", db=tmp_path / "d.db", check=True)
    data = json.loads(proc.stdout)
    assert data["status"] == "completed"
    return data["verdict"]


def test_a_change_is_read_from_an_unusual_verb_before_the_first_error(tmp_path):
    tl = reading.timeline(parse_case(REKEYED))
    assert [e.ev.id for e in tl.changes_before] == ["C1"] and tl.changes_before[0].changes == ("re-keyed",)
    verdict = _run(tmp_path, REKEYED)
    assert verdict["answer"].startswith("Root cause: the change just before the first anomaly")
    assert "re-keyed" in verdict["answer"] and "(C1)" in verdict["answer"]
    assert not verdict["needs_human_review"], verdict["escalation_reasons"]


def test_figures_moving_and_negated_verbs_are_not_changes():
    assert reading.changes_in("Disk write throughput tripled from 01:00.") == ()
    assert reading.changes_in("Connections fell from about 1,900 to about 320.") == ()
    assert reading.changes_in("The signing key was not rotated.") == ()
    assert reading.changes_in("ops remounted /data read-only") == ("remounted",)
    assert reading.changes_in("the volumes were rotated out") == ("rotated",)


def test_a_warning_that_also_shows_in_healthy_periods_is_not_the_cause(tmp_path):
    tl = reading.timeline(parse_case(ROUTINE_WARNING))
    assert tl.first_anomaly.ev.id == "L2"
    assert [(e.ev.id, pid) for e, pid, _ in tl.routine] == [("L1", "M2")]
    verdict = _run(tmp_path, ROUTINE_WARNING)
    assert "(C1)" in verdict["answer"] and "lowered" in verdict["answer"]
    assert "eviction" not in verdict["answer"].split("\n")[0].split(". ")[0]
    if "eviction" in verdict["answer"]:  # named at all: only with a flag naming the healthy-period passage
        assert verdict["needs_human_review"] and any("M2" in r for r in verdict["escalation_reasons"])


def test_a_cause_seen_without_an_outage_is_sent_to_a_human_naming_the_passage(tmp_path):
    verdict = _run(tmp_path, ROUTINE_ONLY)
    assert verdict["needs_human_review"]
    assert any("H1" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_the_moderator_flags_a_cause_the_evidence_shows_when_nothing_fails():
    passages = [(ev["id"], ev["text"]) for ev in ROUTINE_WARNING["evidence"]]
    final = {"hypothesis": "Root cause: cache-fe eviction rate above 80% on shard cache-3 (L1).",
             "verified_evidence": ["L1"]}
    [reason] = rules.healthy_cause_reasons(final, passages)
    assert reason.startswith("The hypothesis rests on something that also happens when nothing fails: L1 reports")
    assert "M2 shows it" in reason and "logged every night" in reason
    assert rules.healthy_cause_reasons({**final, "hypothesis": "The timeout was lowered (C1).",
                                        "verified_evidence": ["C1"]}, passages) == []


def test_two_changes_nothing_separates_are_flagged_naming_both(tmp_path):
    verdict = _run(tmp_path, CONFOUNDED)
    assert verdict["needs_human_review"]
    [reason] = [r for r in verdict["escalation_reasons"] if "which of the changes before the first anomaly" in r]
    assert "(C1, 02:05)" in reason and "(C2, 02:08)" in reason and "nothing in the evidence ties" in reason


def test_a_change_the_error_names_is_singled_out_and_not_flagged_for_the_other(tmp_path):
    case = json.loads(json.dumps(CONFOUNDED))
    case["id"] = "t-separated"
    case["evidence"][0]["text"] = "02:14:20 ERROR uploads failed at lb-edge-2: connection reset by peer for 23% of requests."
    case["evidence"][2]["text"] = "02:08 change record: the cipher order of lb-edge-2 was rearranged."
    assert reading.unseparated(reading.timeline(parse_case(case))) == []
    verdict = _run(tmp_path, case)
    assert not any("which of the changes" in r for r in verdict["escalation_reasons"])


def _top(reasoner: str, hypothesis: str, evidence: list[str], score: float) -> dict:
    return {"reasoner": reasoner, "hypothesis": hypothesis, "verified_evidence": evidence, "judge_score": score}


def test_reasoners_that_disagree_without_the_evidence_separating_them_are_flagged():
    final = {**_top("log", "Root cause: the kernel re-image of the edge nodes (C1) before the resets (L1).",
                    ["C1", "L1"], 82), "source": "log"}
    kg = _top("kg", "Root cause: the reordered load balancer ciphers (C2), as in past incident H4.", ["C2", "H4"], 78)
    [reason] = rules.rival_reasons(final, [final | {"reasoner": "log"}, kg], review_threshold=70)
    assert reason.startswith("The reasoners disagree on the cause and the evidence does not separate them")
    assert "C1, L1" in reason and "C2, H4" in reason
    # A clear winner below the review bar, or the same story, is not a disagreement.
    assert rules.rival_reasons(final, [{**kg, "judge_score": 40}], review_threshold=70) == []
    same = _top("kg", final["hypothesis"] + " Also H4.", ["C1", "H4"], 80)
    assert rules.rival_reasons(final, [same], review_threshold=70) == []
    v = rules.verdict(final={**final, "confidence": 0.8, "reasoning": "", "rounds_refined": 1},
                      converged=True, convergence_reason="Score plateau", rounds=2, rivals=[kg])
    assert v.needs_human_review and "reasoners_disagree_unseparated" in v.applied_rules


def test_the_affected_service_named_in_the_question_does_not_single_out_a_change(tmp_path):
    # The error line names auth-svc, as every line about the incident does: that ties it to the deploy
    # of auth-svc no more than to the lowered database limit a past incident points to.
    case = {"id": "t-two-sides", "title": "login timeouts",
            "question": "Logins on auth-svc timed out from 09:52. What is the root cause?",
            "evidence": [
                {"id": "L1", "source": "ops", "kind": "log", "text": "09:50:00 auth-svc v4.2 was deployed to all pods."},
                {"id": "L2", "source": "ops", "kind": "log",
                 "text": "09:52:30 ERROR auth-svc: login requests time out after 30 seconds."},
                {"id": "C1", "source": "ops", "kind": "config",
                 "text": "09:49 change record: the user-db connection limit was lowered from 200 to 50."},
                {"id": "H1", "source": "ops", "kind": "incident",
                 "text": "Past incident INC-40: login requests on auth-svc timed out after the user-db connection "
                         "limit was lowered."}]}
    verdict = _run(tmp_path, case)
    assert verdict["needs_human_review"]
    [reason] = [r for r in verdict["escalation_reasons"] if "which of the changes before the first anomaly" in r]
    assert "(C1, 09:49)" in reason and "(L1, 09:50)" in reason
