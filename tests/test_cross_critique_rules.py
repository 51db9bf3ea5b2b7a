"""The cross-critique source protocol's convergence (section 5), escalation (section 6) and failure-mode guards (section 8),
each driven through a full debate on the replay provider."""

from __future__ import annotations

import copy
import csv
import io
import json

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

from debate_core.core.events import MemorySink
from debate_core.core.schemas import Critique
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.protocols.cross_critique import rows as cc_rows
from debate_core.protocols.cross_critique import rules
from debate_core.providers import ReplayProvider

# The scripted debates are between two agents with the sample pair's ids.
PAIR = [{"id": "nla"}, {"id": "ala"}]


def run(calls, rounds=None, options=None, case=None):
    sink = MemorySink()
    result = run_debate(
        case or small_case(), "cross_critique", provider=ReplayProvider(cassette(calls)),
        settings=DebateSettings(rounds=rounds, options=options or {}, agents=PAIR), sink=sink,
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


def reviews(*pairs, critiques_=()):
    """A critique step's output that only reviews earlier critiques: reviews("K1", "resolved", ...)."""
    items = [{"id": pairs[i], "status": pairs[i + 1], "note": f"{pairs[i + 1]} by the critic"}
             for i in range(0, len(pairs), 2)]
    return {"critiques": list(critiques_), "previous": items}


NO_NEW = critiques()


def record(result, critic, target, kid):
    return next(c for c in result.summary["critiques"] if (c["critic"], c["target"], c["id"]) == (critic, target, kid))


def states(result):
    """(critic, target, id) -> current state, from the debate summary."""
    return {(c["critic"], c["target"], c["id"]): c["state"] for c in result.summary["critiques"]}


def history(result, critic, target, kid):
    return [(h["step"], h["state"]) for h in record(result, critic, target, kid)["history"]]


def test_converges_when_no_critical_and_at_most_one_major():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1", "MAJOR"), critique("K2", "C2"), critique("K3", "C2"))) + [
        ("r2.revise.nla", revised(NLA_R1, answer="A completely different answer about shares and the civil code now.")),
        ("r2.revise.ala", revised(ALA_R1, answer="Another rewritten answer about the kaum and its property.")),
        ("r2.critique.nla.ala", NO_NEW),
        ("r2.critique.ala.nla", NO_NEW),
        ("final.supervisor", SUPERVISOR),
    ]
    result, sink = run(calls)
    assert result.status == "completed"
    assert result.rounds == 2 and result.converged
    assert "no open CRITICAL critique and 1 open MAJOR" in result.convergence_reason
    # A MAJOR critique is open after the revision, so the round-2 critique ran for its critic to confirm or keep it.
    assert "r2.critique.ala.nla" in asked(sink) and "r3.revise.nla" not in asked(sink)
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
        ("r2.critique.nla.ala", NO_NEW),
        ("r2.critique.ala.nla", reviews("K1", "maintained", "K2", "maintained")),
        ("final.supervisor", SUPERVISOR),
    ]
    result, _ = run(calls)
    assert result.converged and result.rounds == 2
    assert result.trajectory[1]["criteria"] == {
        "no_critical_at_most_one_major": False, "no_unresolved_domain_conflict": False, "answer_stable": True}
    assert "answers stable" in result.convergence_reason
    assert result.verdict.needs_human_review
    assert any("hard contradiction" in r for r in result.verdict.escalation_reasons)


def test_round_three_runs_when_a_critical_critique_is_still_open_after_round_two():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1", "CRITICAL", "logic_gap"), critique("K2", "C1", "MAJOR", "conflict"),
                                         critique("K3", "C2", "MAJOR", "conflict"))) + [
        ("r2.revise.nla", NLA_R1),
        ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", minor3()),
        # The critic settles both MAJOR critiques but says nothing of its CRITICAL one: it stays open.
        ("r2.critique.ala.nla", reviews("K2", "resolved", "K3", "resolved")),
        ("r3.revise.nla", NLA_R1),
        ("r3.revise.ala", ALA_R1),
        ("r3.critique.ala.nla", reviews("K1", "maintained")),
        ("final.supervisor", SUPERVISOR),
    ]
    result, sink = run(calls)
    assert result.trajectory[1]["criteria"]["answer_stable"] is False
    assert result.trajectory[1]["open_severity"]["CRITICAL"] == 1 and not result.trajectory[1]["converged"]
    assert "r3.revise.nla" in asked(sink) and result.rounds == 3
    # After the final revision only the critic with an open CRITICAL/MAJOR critique reviews again.
    assert "r3.critique.ala.nla" in asked(sink) and "r3.critique.nla.ala" not in asked(sink)
    assert not result.converged
    assert result.convergence_reason == "not converged: 1 CRITICAL critique(s) still open"
    assert states(result)[("ala", "nla", "K1")] == "maintained"


def test_converged_is_never_true_while_a_critical_critique_is_open_even_when_a_criterion_holds():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1", "CRITICAL"), critique("K2", "C2", "CRITICAL"),
                                         critique("K3", "C2", "MAJOR"))) + [
        ("r2.revise.nla", revised(NLA_R1, answer="Entirely new wording of the national law position on shares.")),
        ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", NO_NEW),
        ("r2.critique.ala.nla", NO_NEW),
        ("r3.revise.nla", revised(NLA_R1, answer="Yet another wording of the national law position on shares.")),
        ("r3.revise.ala", ALA_R1),
        ("r3.critique.ala.nla", NO_NEW),
        ("final.supervisor", SUPERVISOR),
    ]
    for mode in ("any", "all"):
        result, _ = run(calls, options={"convergence_mode": mode})
        for entry in result.trajectory[1:]:
            # No domain conflict is open, yet two CRITICAL logic gaps are: the gate holds the debate open.
            assert entry["criteria"]["no_unresolved_domain_conflict"] is True
            assert entry["converged"] is False
        assert not result.converged and result.rounds == 3
        # A CRITICAL logic gap is not one of section 6's escalating kinds; the debate escalates as not converged.
        assert result.verdict.needs_human_review
        assert "S6.critical_evidence_or_norm_conflict" not in result.verdict.applied_rules
        assert "S5.not_converged" in result.verdict.applied_rules


def test_all_mode_requires_every_criterion():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1", "MAJOR"), critique("K2", "C2"), critique("K3", "C2"))) + [
        ("r2.revise.nla", revised(NLA_R1, answer="Entirely new wording of the national law position on shares.")),
        ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", NO_NEW),
        ("r2.critique.ala.nla", NO_NEW),
        ("r3.revise.nla", NLA_R1),
        ("r3.revise.ala", ALA_R1),
        ("r3.critique.ala.nla", NO_NEW),
        ("final.supervisor", SUPERVISOR),
    ]
    any_result, any_sink = run(calls)
    assert any_result.converged and any_result.rounds == 2 and "r3.revise.nla" not in asked(any_sink)
    all_result, all_sink = run(calls, options={"convergence_mode": "all"})
    assert "r3.revise.nla" in asked(all_sink) and all_result.rounds == 3
    assert not all_result.converged


def norm_conflict_calls(r3=True):
    conflict = critiques(critique("K1", "C1", "CRITICAL", "conflict"), critique("K2", "C2"), critique("K3", "C2"))
    calls = round1(ala_on_nla=conflict) + [
        ("r2.revise.nla", revised(NLA_R1, answer="Shares are equal; the kaum's claim is rejected outright by the code.")),
        ("r2.revise.ala", revised(ALA_R1, answer="The kaum keeps the sawah; the code does not reach pusaka tinggi at all.")),
        ("r2.critique.ala.nla", reviews("K1", "maintained")),
    ]
    if r3:
        calls += [
            ("r2.critique.nla.ala", minor3()),
            ("r3.revise.nla", revised(NLA_R1, answer="Whatever the kaum says, equal shares under the civil code apply here.")),
            ("r3.revise.ala", revised(ALA_R1, answer="Pusaka tinggi stays with the kaum through the female line, always.")),
            ("r3.critique.ala.nla", reviews("K1", "maintained")),
        ]
    return calls + [("final.supervisor", SUPERVISOR)]


def test_unresolved_norm_conflict_runs_round_three_then_escalates():
    result, sink = run(norm_conflict_calls())
    assert result.rounds == 3 and not result.converged
    assert asked(sink)[-2:] == ["r3.critique.ala.nla", "final.supervisor"]
    assert set(asked(sink)[-4:-2]) == {"r3.revise.nla", "r3.revise.ala"}
    v = result.verdict
    assert v.needs_human_review
    assert any(r.startswith("CRITICAL critique on a conflict between sources") for r in v.escalation_reasons)
    assert any("hard contradiction" in r for r in v.escalation_reasons)
    assert any("not converged after round 3" in r for r in v.escalation_reasons)
    assert {"S6.critical_evidence_or_norm_conflict", "S6.hard_contradiction", "S5.not_converged"} <= set(v.applied_rules)


def test_round_budget_of_two_reviews_the_open_critical_critique_but_does_not_extend():
    result, sink = run(norm_conflict_calls(r3=False), rounds=2)
    # The critic with an open CRITICAL critique reviews it; the other critic has nothing severe open.
    assert "r2.critique.ala.nla" in asked(sink) and "r2.critique.nla.ala" not in asked(sink)
    assert not any(s.startswith("r3.") for s in asked(sink))
    assert result.rounds == 2 and not result.converged
    assert any("not converged after round 2" in r for r in result.verdict.escalation_reasons)
    prompt = [e for _, e in sink.events if e.kind == "turn_started" and e.step_id == "r2.critique.ala.nla"][0].data["prompt"]
    assert "no revision comes after it" in prompt[1]["content"]


def test_an_edit_without_the_critics_word_leaves_a_major_critique_addressed_but_open():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1", "MAJOR", "conflict"), critique("K2", "C2", "MAJOR", "evidence_gap"),
                                         critique("K3", "C2"))) + [
        ("r2.revise.nla", revised(NLA_R1, answer="Equal shares, but only of what the deceased acquired himself.",
                                  C1={"statement": "Equal shares apply to harta pencaharian only."},
                                  C2={"confidence": 0.5})),
        ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", NO_NEW),
        ("r2.critique.ala.nla", NO_NEW),  # the critic says nothing about K1 or K2
        ("r3.revise.nla", NLA_R1),
        ("r3.revise.ala", ALA_R1),
        ("r3.critique.ala.nla", NO_NEW),
        ("final.supervisor", SUPERVISOR),
    ]
    result, sink = run(calls)
    assert history(result, "ala", "nla", "K1") == [("r1.critique.ala.nla", "open"),
                                                   ("r2.revise.nla", "addressed_not_confirmed")]
    assert states(result)[("ala", "nla", "K2")] == "addressed_not_confirmed"
    # Two MAJOR critiques still open after round 2: not converged, so round 3 runs.
    assert result.trajectory[1]["open_severity"]["MAJOR"] == 2 and "r3.revise.nla" in asked(sink)
    revise_prompt = [e for _, e in sink.events if e.kind == "turn_started" and e.step_id == "r3.revise.nla"][0].data["prompt"]
    assert "addressed, not confirmed" in revise_prompt[1]["content"]


def test_the_critics_resolved_closes_a_critique_and_the_debate_converges():
    conflict = critiques(critique("K1", "C1", "CRITICAL", "conflict"), critique("K2", "C2", "MAJOR", "evidence_gap"),
                         critique("K3", "C2", "MAJOR", "overclaim"))
    calls = round1(ala_on_nla=conflict) + [
        ("r2.revise.nla", revised(NLA_R1, answer="Equal shares apply to acquired property only; pusaka tinggi is excluded.",
                                  C1={"statement": "Equal shares apply to harta pencaharian only."},
                                  C2={"confidence": 0.5})),
        ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", NO_NEW),
        ("r2.critique.ala.nla", reviews("K1", "resolved", "K2", "resolved", "K3", "resolved")),
        ("final.supervisor", SUPERVISOR),
    ]
    result, sink = run(calls)
    assert result.converged and result.rounds == 2 and not result.verdict.needs_human_review
    assert "r3.revise.nla" not in asked(sink)
    assert history(result, "ala", "nla", "K1") == [("r1.critique.ala.nla", "open"),
                                                   ("r2.revise.nla", "addressed_not_confirmed"),
                                                   ("r2.critique.ala.nla", "resolved")]
    assert result.trajectory[1]["open_severity"] == {"CRITICAL": 0, "MAJOR": 0, "MINOR": 3}
    assert result.summary["critique_states"]["resolved"] == 3


def test_previous_shows_in_the_round_two_critique_prompt():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1", "MAJOR", "conflict"), critique("K2", "C2"), critique("K3", "C2"))) + [
        ("r2.revise.nla", revised(NLA_R1, C1={"statement": "Equal shares apply to harta pencaharian only."})),
        ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", NO_NEW),
        ("r2.critique.ala.nla", reviews("K1", "resolved")),
        ("final.supervisor", SUPERVISOR),
    ]
    _, sink = run(calls)
    user = [e for _, e in sink.events if e.kind == "turn_started" and e.step_id == "r2.critique.ala.nla"][0].data["prompt"][1]["content"]
    earlier = user.split("<<DATA your earlier critiques of this agent, still open>>")[1].split("<</DATA")[0]
    assert '"id": "K1"' in earlier and '"status": "addressed, not confirmed"' in earlier
    assert '"status": "open"' in earlier  # the MINOR K2/K3 on an untouched claim
    system = [e for _, e in sink.events if e.kind == "turn_started" and e.step_id == "r2.critique.ala.nla"][0].data["prompt"][0]["content"]
    assert "critiques from K4 on" in system
    r1_user = [e for _, e in sink.events if e.kind == "turn_started" and e.step_id == "r1.critique.ala.nla"][0].data["prompt"][1]["content"]
    assert "you have not critiqued this agent before" in r1_user


def test_a_dropped_claim_closes_its_critique_without_the_critics_word():
    calls = round1(ala_on_nla=critiques(critique("K1", "C2", "CRITICAL", "evidence_gap"), critique("K2", "C1"), critique("K3", "C1"))) + [
        ("r2.revise.nla", agent_output(NLA_R1["answer"], [claim("C1", ["E1"])])),
        ("r2.revise.ala", ALA_R1),
        ("final.supervisor", SUPERVISOR),
    ]
    result, sink = run(calls)
    assert states(result)[("ala", "nla", "K1")] == "resolved"
    assert record(result, "ala", "nla", "K1")["closed_by"] == "claim dropped"
    # Nothing CRITICAL or MAJOR is open after the revision: no critique step is needed.
    assert not any(s.startswith("r2.critique") for s in asked(sink))
    assert result.converged and result.rounds == 2


def test_a_minor_critique_closes_on_an_edit_but_not_when_untouched():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1"), critique("K2", "C2"), critique("K3", "C2"))) + [
        ("r2.revise.nla", revised(NLA_R1, C1={"evidence": ["E1", "E2"]})),
        ("r2.revise.ala", ALA_R1),
        ("final.supervisor", SUPERVISOR),
    ]
    result, _ = run(calls)
    got = states(result)
    assert got[("ala", "nla", "K1")] == "resolved" and got[("ala", "nla", "K2")] == "open"
    assert record(result, "ala", "nla", "K1")["closed_by"] == "edited, MINOR"


def test_a_review_naming_an_unknown_critique_is_a_warning_and_reused_ids_are_renumbered():
    calls = round1(ala_on_nla=critiques(critique("K1", "C1", "MAJOR", "conflict"), critique("K2", "C2"), critique("K3", "C2"))) + [
        ("r2.revise.nla", NLA_R1),
        ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", NO_NEW),
        ("r2.critique.ala.nla", reviews("K9", "resolved", critiques_=[critique("K1", "C2", "MINOR")])),
        ("final.supervisor", SUPERVISOR),
    ]
    result, _ = run(calls)
    assert result.status == "completed"
    assert any("reviewed critique K9" in w and "ignored" in w for w in result.warnings)
    assert any("critique id K1 was already used" in w and "stored as K4" in w for w in result.warnings)
    assert states(result)[("ala", "nla", "K1")] == "open" and ("ala", "nla", "K4") in states(result)


def test_critical_evidence_gap_left_open_escalates():
    gap = critiques(critique("K1", "C1", "CRITICAL", "evidence_gap"), critique("K2", "C2"), critique("K3", "C2"))
    calls = round1(ala_on_nla=gap) + [
        ("r2.revise.nla", NLA_R1), ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", minor3()), ("r2.critique.ala.nla", reviews("K1", "maintained")),
        ("r3.revise.nla", NLA_R1), ("r3.revise.ala", ALA_R1),
        ("r3.critique.ala.nla", reviews("K1", "maintained")),
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


def test_claims_over_max_claims_are_cut_to_the_most_confident():
    # An answer may carry 10 claims (its output model's bound); max_claims keeps fewer.
    many = agent_output("Many claims.", [claim(f"C{i}", ["E1"], confidence=i / 20) for i in range(1, 11)])
    calls = [("r1.answer.nla", many), ("r1.answer.ala", ALA_R1),
             ("r1.critique.nla.ala", minor3("C5")), ("r1.critique.ala.nla", minor3("C3")),
             ("r2.revise.nla", many), ("r2.revise.ala", ALA_R1), ("final.supervisor", SUPERVISOR)]
    result, sink = run(calls, options={"max_claims": 8})
    out = [e for _, e in sink.events if e.kind == "turn_finished" and e.step_id == "r1.answer.nla"][0].data["output"]
    assert [c["id"] for c in out["claims"]] == [f"C{i}" for i in range(3, 11)]
    assert any("10 claims exceed the limit of 8" in w and "dropped C1, C2" in w for w in result.warnings)


def test_an_answer_over_the_bound_of_ten_claims_is_refused_naming_it():
    many = agent_output("Many claims.", [claim(f"C{i}", ["E1"], confidence=0.5) for i in range(1, 13)])
    result, _ = run([("r1.answer.nla", many), ("r1.answer.ala", ALA_R1)])
    assert result.status == "failed" and result.failed_step == "r1.answer.nla"
    assert "claims: List should have at most 10 items" in result.error


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


def stored(tmp_path, calls):
    from debate_core.store import DebateStore

    store = DebateStore(tmp_path / "d.db")
    result = run_debate(small_case(), "cross_critique", provider=ReplayProvider(cassette(calls)),
                        settings=DebateSettings(agents=PAIR), store=store)
    return store, result


def closure_calls():
    return round1(ala_on_nla=critiques(critique("K1", "C1", "MAJOR", "conflict"), critique("K2", "C2", "MAJOR", "evidence_gap"),
                                        critique("K3", "C2"))) + [
        ("r2.revise.nla", revised(NLA_R1, answer="Equal shares, but only of what the deceased acquired himself.",
                                  C1={"statement": "Equal shares apply to harta pencaharian only."}, C2={"confidence": 0.5})),
        ("r2.revise.ala", ALA_R1),
        ("r2.critique.nla.ala", NO_NEW),
        ("r2.critique.ala.nla", reviews("K2", "maintained")),
        ("r3.revise.nla", revised(NLA_R1, answer="Equal shares of acquired property; the sawah stays with the kaum.",
                                  C1={"statement": "Equal shares apply to harta pencaharian only."},
                                  C2={"evidence": ["E2", "E1"], "statement": "Daughters and sons share acquired property."})),
        ("r3.revise.ala", ALA_R1),
        ("r3.critique.ala.nla", reviews("K1", "resolved", "K2", "resolved")),
        ("final.supervisor", SUPERVISOR),
    ]


def test_the_critique_table_shows_each_critiques_state_over_time(tmp_path):

    store, result = stored(tmp_path, closure_calls())
    debate = store.get_debate(result.debate_id)
    rows = {(r["critic"], r["critique"]): r for r in cc_rows.critique_rows(store.critiques(result.debate_id), debate["steps"])
            if r["target"] == "nla"}
    k1, k2 = rows[("ala", "K1")], rows[("ala", "K2")]
    assert [k1[f"after round {n}"] for n in (1, 2, 3)] == ["open", "addressed, not confirmed", "resolved"]
    assert [k2[f"after round {n}"] for n in (1, 2, 3)] == ["open", "maintained", "resolved"]
    assert k1["state"] == "resolved (critic)" and k2["critic note"] == "resolved by the critic"
    # The view rebuilds from the stored steps exactly what the debate computed.
    assert {(c["critic"], c["target"], c["id"]): c["state"] for c in result.summary["critiques"]} == {
        (r.item.critic, r.item.target, r.item.critique.id): r.state
        for r in cc_rows.critique_ledger(debate["steps"]).values()}
    assert result.converged and result.rounds == 3
    groups = cc_rows.critique_groups(store.critiques(result.debate_id), debate["steps"])
    assert {c["critique_id"]: c["state"] for g in groups if g["target"] == "nla" for c in g["critiques"]}["K3"] == \
        "resolved (edited, MINOR)"


def test_the_claims_table_shows_the_critiques_of_each_version_of_a_claim(tmp_path):
    from debate_core.present import views

    store, result = stored(tmp_path, closure_calls())
    debate = store.get_debate(result.debate_id)
    rows = views.claim_rows(store.claims(result.debate_id), debate["case"], debate["steps"])
    c2 = {r["round"]: r["critiques"] for r in rows if r["agent"] == "nla" and r["claim"] == "C2"}
    assert c2[1] == "ala K2 MAJOR: open; ala K3 MINOR: open"
    assert c2[2] == "ala K2 MAJOR: maintained; ala K3 MINOR: resolved (edited, MINOR)"
    assert c2[3] == "ala K2 MAJOR: resolved (critic)"


def test_exports_carry_previous_and_the_critique_states_and_the_cassette_replays(tmp_path):
    from debate_core.present import export

    store, result = stored(tmp_path, closure_calls())
    files = export.export_files(store, result.debate_id)
    r3 = json.loads(files["critique_round3_ala_on_nla.json"])
    assert r3["previous"] == [{"id": "K1", "status": "resolved", "note": "resolved by the critic"},
                              {"id": "K2", "status": "resolved", "note": "resolved by the critic"}]
    summary = json.loads(files["debate_summary.json"])
    k2 = next(c for c in summary["critiques"] if (c["critic"], c["id"]) == ("ala", "K2"))
    assert [h["state"] for h in k2["history"]] == ["open", "addressed_not_confirmed", "maintained", "addressed_not_confirmed",
                                                   "resolved"]
    md = files["transcript.md"]
    assert "review of earlier critique K2: maintained\n```text\nmaintained by the critic\n```" in md
    assert "## Critique states" in md and "r2.critique.ala.nla maintained; r3.revise.nla addressed, not confirmed" in md
    rows = list(csv.DictReader(io.StringIO(export.claims_csv(store, result.debate_id))))
    k1 = next(r for r in rows if r["kind"] == "critique" and r["agent"] == "ala" and r["id"] == "K1")
    assert k1["state"] == "resolved (critic)" and "r3.critique.ala.nla resolved" in k1["history"]
    assert any(r["kind"] == "review" and r["id"] == "K2" and r["state"] == "maintained" for r in rows)
    again = run_debate(small_case(), "cross_critique", provider=ReplayProvider(export.cassette(store, result.debate_id)),
                       settings=DebateSettings(agents=PAIR))
    assert again.verdict == result.verdict and again.trajectory == result.trajectory


def offline_review(target_claims, earlier, raised_before=()):
    from debate_core.core.schemas import AgentOutput, Critique
    from debate_core.protocols.cross_critique import DEFAULT_AGENTS
    from debate_core.protocols.cross_critique import agent as offline

    nla, ala = DEFAULT_AGENTS
    items = [rules.AddressedCritique(critic="ala", target="nla", round=1, critique=Critique.model_validate(k)) for k in earlier]
    return offline.critique({
        "case": small_case(), "critic": ala, "target": nla,
        "target_output": AgentOutput.model_validate(agent_output("Answer.", target_claims)),
        "own_output": AgentOutput.model_validate(ALA_R1), "earlier": items, "first_new_id": 4,
        "raised_before": list(raised_before),
    })


def test_the_offline_critic_resolves_what_its_rules_no_longer_find_and_maintains_the_rest():
    gap = critique("K1", "C1", "CRITICAL", "evidence_gap")
    # C1 still cites nothing: the evidence check still fires, so the critic maintains K1 and does not raise it again.
    still = offline_review([claim("C1", [], 0.8, "Blood relatives inherit in equal shares.")], [gap])
    assert [(p["id"], p["status"]) for p in still["previous"]] == [("K1", "maintained")]
    assert still["previous"][0]["note"].startswith("Still applies: Claim C1 cites no evidence")
    assert not any(k["issue_type"] == "evidence_gap" for k in still["critiques"])
    # C1 now cites the passage it restates: the check no longer fires, so K1 is resolved.
    fixed = offline_review([claim("C1", ["E1"], 0.6, "Blood relatives inherit in equal shares.")], [gap])
    assert [(p["id"], p["status"]) for p in fixed["previous"]] == [("K1", "resolved")]
    assert not any(k["target_claim_id"] == "C1" and k["issue_type"] == "evidence_gap" for k in fixed["critiques"])
    # A withdrawn claim is resolved; new critiques are numbered after the earlier ones.
    gone = offline_review([claim("C2", [], 0.8, "Daughters inherit equally with sons.")], [gap])
    assert gone["previous"][0]["status"] == "resolved" and "withdrawn" in gone["previous"][0]["note"]
    assert gone["critiques"][0]["id"] == "K4"


def test_the_offline_critic_does_not_repeat_a_minor_issue_it_already_raised_on_the_claim():
    weak = [claim("C1", ["E1"], 0.5, "Something about shares that the passage never mentions.")]
    first = offline_review(weak, [])
    raised = [(k["target_claim_id"], k["issue_type"], k["severity"]) for k in first["critiques"]]
    assert ("C1", "logic_gap", "MINOR") in raised
    again = offline_review(weak, [], raised_before=raised)
    assert again["critiques"] == [] and again["previous"] == []


def _open(severity, issue_type="logic_gap"):
    critique = Critique(id="c1", target_claim_id="k1", issue_type=issue_type, description="a gap",
                        severity=severity, suggested_fix="cite the clause")
    return rules.AddressedCritique("a", "b", 1, critique)


def test_the_convergence_reason_names_the_conditions_that_held():
    assessment = rules.assess(2, [_open("MAJOR")], {"a": 0.05, "b": 0.1})
    assert assessment.converged
    assert rules.convergence_reason(assessment) == (
        "no open CRITICAL critique and 1 open MAJOR (<= 1); no unresolved domain conflict; "
        "answers stable: largest change 10% < 15%")


def test_the_convergence_reason_counts_the_critical_critiques_that_block_convergence():
    assessment = rules.assess(3, [_open("CRITICAL")], {"a": 0.0})
    assert rules.convergence_reason(assessment) == "not converged: 1 CRITICAL critique(s) still open"
    unstable = rules.assess(3, [_open("MAJOR"), _open("MAJOR")], {"a": 0.5}, mode="all")
    assert rules.convergence_reason(unstable) == "not converged"


def test_answers_are_stable_below_the_answer_change_threshold_and_not_at_it():
    below = rules.assess(2, [], {"a": rules.ANSWER_CHANGE_THRESHOLD - 0.01})
    at = rules.assess(2, [], {"a": rules.ANSWER_CHANGE_THRESHOLD})
    assert below.criteria["answer_stable"] and not at.criteria["answer_stable"]
