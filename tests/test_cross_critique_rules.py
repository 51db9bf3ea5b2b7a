"""Seed 000's convergence (section 5), escalation (section 6) and failure-mode guards (section 8),
each driven through a full debate on the replay provider."""

from __future__ import annotations

import copy

from helpers import (
    ALA_R1,
    NLA_R1,
    SUPERVISOR,
    agent_output,
    cassette,
    claim,
    critique,
    critiques,
    minor3,
    small_case,
)

from debate_core.engine import run_debate
from debate_core.events import MemorySink
from debate_core.providers import ReplayProvider
from debate_core.runtime import DebateSettings


def run(calls, rounds=None, options=None, case=None):
    sink = MemorySink()
    result = run_debate(
        case or small_case(), "cross_critique", provider=ReplayProvider(cassette(calls)),
        settings=DebateSettings(rounds=rounds, options=options or {}), sink=sink,
    )
    return result, sink


def asked(sink):
    return [e.step_id for _, e in sink.events if e.kind == "turn_started"]


def round1(nla_on_ala=None, ala_on_nla=None):
    return [
        ("r1.answer.nla", NLA_R1),
        ("r1.answer.ala", ALA_R1),
        ("r1.critique.nla.ala", nla_on_ala or minor3()),
        ("r1.critique.ala.nla", ala_on_nla or minor3()),
    ]


def revised(output, answer=None, **changes):
    out = copy.deepcopy(output)
    if answer:
        out["answer"] = answer
    for cid, fields in changes.items():
        for c in out["claims"]:
            if c["id"] == cid:
                c.update(fields)
    return out


def test_converges_when_no_critical_and_at_most_one_major():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1", "MAJOR"), critique("K2", "C2"), critique("K3", "C2"))) + [
        ("r2.revise.nla", revised(NLA_R1, answer="A completely different answer about shares and the civil code now.")),
        ("r2.revise.ala", revised(ALA_R1, answer="Another rewritten answer about the kaum and its property.")),
        ("final.supervisor", SUPERVISOR),
    ]
    result, sink = run(calls)
    assert result.status == "completed"
    assert result.rounds == 2 and result.converged
    assert "no open CRITICAL critique and 1 open MAJOR" in result.convergence_reason
    assert "r2.critique.nla.ala" not in asked(sink)
    assert not result.verdict.needs_human_review
    assert "S5.no_critical_at_most_one_major" in result.verdict.applied_rules
    assert result.trajectory[1]["criteria"]["answer_stable"] is False


def test_converges_on_answer_stability_alone_and_still_escalates_the_contradiction():
    # Two open MAJOR norm conflicts: the severity and domain criteria fail; answers barely change.
    conflict = critiques(critique("K1", "C1", "MAJOR", "conflict"), critique("K2", "C2", "MAJOR", "conflict"),
                         critique("K3", "C2"))
    calls = round1(ala_on_nla=conflict) + [
        ("r2.revise.nla", NLA_R1),
        ("r2.revise.ala", ALA_R1),
        ("final.supervisor", SUPERVISOR),
    ]
    result, _ = run(calls)
    assert result.converged and result.rounds == 2
    assert result.trajectory[1]["criteria"] == {
        "no_critical_at_most_one_major": False, "no_unresolved_domain_conflict": False, "answer_stable": True}
    assert "answers stable" in result.convergence_reason
    assert result.verdict.needs_human_review
    assert any("hard contradiction" in r for r in result.verdict.escalation_reasons)


def test_stability_does_not_count_while_a_critical_critique_is_open():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1", "CRITICAL", "logic_gap"), critique("K2", "C1", "MAJOR", "conflict"),
                                         critique("K3", "C2", "MAJOR", "conflict"))) + [
        ("r2.revise.nla", NLA_R1),
        ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", minor3()),
        ("r2.critique.ala.nla", minor3()),
        ("final.supervisor", SUPERVISOR),
    ]
    result, sink = run(calls)
    assert result.trajectory[1]["criteria"]["answer_stable"] is False
    # Not converged after round 2, so the optional round-2 critique ran; it found only MINOR issues.
    assert "r2.critique.nla.ala" in asked(sink)
    assert "r3.revise.nla" not in asked(sink)
    assert result.converged and result.rounds == 2
    assert "round-2 critique found no CRITICAL or MAJOR" in result.convergence_reason


def test_converges_when_no_domain_conflict_remains_even_with_open_critical_logic_gaps():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1", "CRITICAL"), critique("K2", "C2", "CRITICAL"),
                                         critique("K3", "C2", "MAJOR"))) + [
        ("r2.revise.nla", revised(NLA_R1, answer="Entirely new wording of the national law position on shares.")),
        ("r2.revise.ala", ALA_R1),
        ("final.supervisor", SUPERVISOR),
    ]
    result, _ = run(calls)
    crit = result.trajectory[1]["criteria"]
    assert crit == {"no_critical_at_most_one_major": False, "no_unresolved_domain_conflict": True, "answer_stable": False}
    assert result.converged
    # A CRITICAL logic gap is not one of section 6's escalating kinds (evidence validity, norm conflict).
    assert not result.verdict.needs_human_review


def test_all_mode_requires_every_criterion():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1", "CRITICAL"), critique("K2", "C2"), critique("K3", "C2"))) + [
        ("r2.revise.nla", revised(NLA_R1, answer="Entirely new wording of the national law position on shares.")),
        ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", minor3()),
        ("r2.critique.ala.nla", minor3()),
        ("final.supervisor", SUPERVISOR),
    ]
    any_result, any_sink = run(calls)
    assert any_result.converged and "r2.critique.nla.ala" not in asked(any_sink)
    all_result, all_sink = run(calls, options={"convergence_mode": "all"})
    assert "r2.critique.nla.ala" in asked(all_sink)


def norm_conflict_calls(r3=True):
    conflict = critiques(critique("K1", "C1", "CRITICAL", "conflict"), critique("K2", "C2"), critique("K3", "C2"))
    calls = round1(ala_on_nla=conflict) + [
        ("r2.revise.nla", revised(NLA_R1, answer="Shares are equal; the kaum's claim is rejected outright by the code.")),
        ("r2.revise.ala", revised(ALA_R1, answer="The kaum keeps the sawah; the code does not reach pusaka tinggi at all.")),
        ("r2.critique.nla.ala", minor3()),
        ("r2.critique.ala.nla", critiques(critique("K1", "C1", "CRITICAL", "conflict"))),
    ]
    if r3:
        calls += [
            ("r3.revise.nla", revised(NLA_R1, answer="Whatever the kaum says, equal shares under the civil code apply here.")),
            ("r3.revise.ala", revised(ALA_R1, answer="Pusaka tinggi stays with the kaum through the female line, always.")),
        ]
    return calls + [("final.supervisor", SUPERVISOR)]


def test_unresolved_norm_conflict_runs_round_three_then_escalates():
    result, sink = run(norm_conflict_calls())
    assert result.rounds == 3 and not result.converged
    assert set(asked(sink)[-3:-1]) == {"r3.revise.nla", "r3.revise.ala"} and asked(sink)[-1] == "final.supervisor"
    v = result.verdict
    assert v.needs_human_review
    assert any(r.startswith("CRITICAL critique on norm conflict") for r in v.escalation_reasons)
    assert any("hard contradiction" in r for r in v.escalation_reasons)
    assert any("not converged after round 3" in r for r in v.escalation_reasons)
    assert {"S6.critical_evidence_or_norm_conflict", "S6.hard_contradiction", "S5.not_converged"} <= set(v.applied_rules)


def test_round_budget_of_two_escalates_without_the_optional_rounds():
    result, sink = run(norm_conflict_calls(r3=False), rounds=2)
    assert "r2.critique.nla.ala" not in asked(sink)
    assert result.rounds == 2 and not result.converged
    assert any("not converged after round 2" in r for r in result.verdict.escalation_reasons)


def test_resolving_the_critiqued_claim_converges():
    conflict = critiques(critique("K1", "C1", "CRITICAL", "conflict"), critique("K2", "C2", "MAJOR", "evidence_gap"),
                         critique("K3", "C2", "MAJOR", "overclaim"))
    calls = round1(ala_on_nla=conflict) + [
        # C1 restated, C2 confidence lowered: every critique is addressed.
        ("r2.revise.nla", revised(NLA_R1, answer="Equal shares apply to acquired property only; pusaka tinggi is excluded.",
                                  C1={"statement": "Equal shares apply to harta pencaharian only."},
                                  C2={"confidence": 0.5})),
        ("r2.revise.ala", ALA_R1),
        ("final.supervisor", SUPERVISOR),
    ]
    result, _ = run(calls)
    assert result.converged and not result.verdict.needs_human_review
    assert result.trajectory[1]["open_severity"] == {"CRITICAL": 0, "MAJOR": 0, "MINOR": 3}


def test_critical_evidence_gap_left_open_escalates():
    gap = critiques(critique("K1", "C1", "CRITICAL", "evidence_gap"), critique("K2", "C2"), critique("K3", "C2"))
    calls = round1(ala_on_nla=gap) + [
        ("r2.revise.nla", NLA_R1), ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", minor3()), ("r2.critique.ala.nla", gap),
        ("r3.revise.nla", NLA_R1), ("r3.revise.ala", ALA_R1),
        ("final.supervisor", SUPERVISOR),
    ]
    result, _ = run(calls)
    assert any(r.startswith("CRITICAL critique on evidence validity") for r in result.verdict.escalation_reasons)


def test_more_than_30_percent_unsupported_claims_escalates_and_unknown_ids_are_unverified():
    ala = agent_output("Adat answer.", [claim("C1", ["E3"]), claim("C2", ["E99"]), claim("C3", [])])
    calls = [
        ("r1.answer.nla", NLA_R1), ("r1.answer.ala", ala),
        ("r1.critique.nla.ala", minor3()), ("r1.critique.ala.nla", minor3()),
        ("r2.revise.nla", NLA_R1), ("r2.revise.ala", ala),
        ("final.supervisor", SUPERVISOR),
    ]
    result, sink = run(calls)
    assert result.converged
    reasons = result.verdict.escalation_reasons
    assert any(r.startswith("ala gives no verified evidence for 2 of 3 claims (67% > 30%)") for r in reasons)
    finished = [e for _, e in sink.events if e.kind == "turn_finished" and e.step_id == "r1.answer.ala"][0]
    c2 = finished.data["output"]["claims"][1]
    assert c2["verified"] is False and c2["unverified_evidence"] == ["E99"]
    assert any("E99" in w and "unverified" in w for w in result.warnings)


def test_fewer_than_three_critiques_is_reasked_once_then_warned():
    two = critiques(critique("K1", "C1"), critique("K2", "C2"))
    calls = round1(nla_on_ala=two) + [
        ("r1.critique.nla.ala", two),  # the re-ask gets the same two
        ("r2.revise.nla", NLA_R1), ("r2.revise.ala", ALA_R1), ("final.supervisor", SUPERVISOR),
    ]
    result, sink = run(calls)
    assert asked(sink).count("r1.critique.nla.ala") == 2
    assert asked(sink).count("r1.critique.ala.nla") == 1
    assert any("echo chamber" in w and "nla raised 2" in w for w in result.warnings)


def test_reask_that_complies_clears_the_warning():
    calls = round1(nla_on_ala=critiques(critique("K1", "C1"))) + [
        ("r1.critique.nla.ala", minor3()),
        ("r2.revise.nla", NLA_R1), ("r2.revise.ala", ALA_R1), ("final.supervisor", SUPERVISOR),
    ]
    result, sink = run(calls)
    assert asked(sink).count("r1.critique.nla.ala") == 2
    assert not any("echo chamber" in w for w in result.warnings)
    prompts = [e.data["prompt"][1]["content"] for _, e in sink.events
               if e.kind == "turn_started" and e.step_id == "r1.critique.nla.ala"]
    assert "only 1 item" in prompts[1] and "only 1 item" not in prompts[0]


def test_a_critique_without_suggested_fix_fails_the_debate_with_the_raw_output_kept():
    bad = critiques(critique("K1", "C1", fix=None), critique("K2", "C2"), critique("K3", "C2"))
    result, sink = run(round1(nla_on_ala=bad))
    assert result.status == "failed" and result.failed_step == "r1.critique.nla.ala"
    assert "suggested_fix" in result.error
    failed = [e for _, e in sink.events if e.kind == "turn_failed"][0]
    assert '"K1"' in failed.data["raw"]


def test_more_than_ten_claims_are_cut_to_the_ten_most_confident():
    many = agent_output("Many claims.", [claim(f"C{i}", ["E1"], confidence=i / 20) for i in range(1, 13)])
    calls = [("r1.answer.nla", many), ("r1.answer.ala", ALA_R1),
             ("r1.critique.nla.ala", minor3()), ("r1.critique.ala.nla", minor3("C3")),
             ("r2.revise.nla", many), ("r2.revise.ala", ALA_R1), ("final.supervisor", SUPERVISOR)]
    result, sink = run(calls)
    out = [e for _, e in sink.events if e.kind == "turn_finished" and e.step_id == "r1.answer.nla"][0].data["output"]
    assert [c["id"] for c in out["claims"]] == [f"C{i}" for i in range(3, 13)]
    assert any("12 claims exceed the limit of 10" in w and "dropped C1, C2" in w for w in result.warnings)


def test_a_step_missing_from_the_cassette_fails_naming_the_step():
    result, _ = run(round1())
    assert result.status == "failed"
    assert result.failed_step == "r2.revise.nla" or result.failed_step == "r2.revise.ala"
    assert "the cassette has no entry for step r2.revise" in result.error


def test_supervisor_sees_only_final_revisions_and_summary():
    calls = norm_conflict_calls()
    result, sink = run(calls)
    prompt = [e for _, e in sink.events if e.kind == "turn_started" and e.step_id == "final.supervisor"][0].data["prompt"]
    user = prompt[1]["content"]
    assert "Whatever the kaum says" in user  # the round-3 (final) answer
    assert "rejected outright" not in user  # the round-2 answer is not replayed
    assert "The estate is divided equally" not in user  # nor round 1
    assert "disputed_claims" in user and "agreed_claims" in user


def test_revisions_receive_only_the_critiques_addressed_to_them():
    calls = round1(ala_on_nla=critiques(critique("K7", "C1"), critique("K8", "C2"), critique("K9", "C2"))) + [
        ("r2.revise.nla", NLA_R1), ("r2.revise.ala", ALA_R1), ("final.supervisor", SUPERVISOR)]
    _, sink = run(calls)
    prompt = [e for _, e in sink.events if e.kind == "turn_started" and e.step_id == "r2.revise.nla"][0].data["prompt"]
    assert '"K7"' in prompt[1]["content"] and '"K1"' not in prompt[1]["content"]
