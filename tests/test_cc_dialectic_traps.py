"""Traps a careful reviewer expects the cross-critique and dialectic protocols to catch, driven through
the CLI in-process on cases written here (all fictitious): a later amendment applied, a permission with
its exceptions, an exception a later text withdrew, passages of equal standing that disagree on a
figure, and the same figure over another period. Each verdict is either right or flagged with the
passages that caused the flag named in the reason."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import cli

from debate_core.core.schemas import Evidence
from debate_core.protocols.cross_critique.agent.scoring import contradiction, unit_mismatch
from debate_core.protocols.dialectic import rules as dialectic_rules


def _run(tmp_path: Path, case: dict, protocol: str) -> dict:
    path = tmp_path / f"{case['id']}.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    proc = cli("run", str(path), "--protocol", protocol, "--json", db=tmp_path / "d.db", check=True)
    return json.loads(proc.stdout)["verdict"]


def _rule_case(case_id: str, question: str, vocabulary: str, passages: list[dict]) -> dict:
    return {"id": case_id, "title": case_id, "question": question,
            "domain_hint": "answer set programming; every party and document is fictitious",
            "evidence": [{"id": "KB", "source": "Knowledge-base vocabulary", "authority": "official",
                          "text": vocabulary}, *passages]}


# -- dialectic --------------------------------------------------------------------------------------

def test_dialectic_applies_the_later_amendment_not_the_clause_it_replaced(tmp_path):
    case = _rule_case(
        "bike_hire_amended",
        "Knowledge gap: write one ASP rule defining may_return_late(H) with the knowledge-base predicates, "
        "so that it agrees with the hire conditions as they now stand.",
        "Predicates, all over a hire H: hire(H): H is a bicycle hire under review; grace_2_hours(H): the bicycle "
        "came back within 2 hours of the due time; grace_6_hours(H): the bicycle came back within 6 hours of the "
        "due time; deposit_held(H): the hirer's deposit is still held; helmet_returned(H): the helmet was returned.",
        [{"id": "R1", "source": "Hire conditions, rule 4 (fictitious)", "authority": "primary", "date": "2021-05",
          "text": "Rule 4: A hirer may return the bicycle late without a fee within 2 hours of the due time, "
                  "provided that the deposit is still held."},
         {"id": "R2", "source": "Notice amending the hire conditions (fictitious)", "authority": "primary",
          "date": "2024-02",
          "text": "Rule 4 is amended to read: A hirer may return the bicycle late without a fee within 6 hours of "
                  "the due time, provided that the deposit is still held."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert "grace_6_hours(H)" in verdict["answer"] and "deposit_held(H)" in verdict["answer"]
    assert "grace_2_hours" not in verdict["answer"]
    assert verdict["needs_human_review"] is False, verdict["escalation_reasons"]


def test_dialectic_reads_a_permission_and_its_exceptions_and_drops_a_withdrawn_one(tmp_path):
    case = _rule_case(
        "library_renewal",
        "Knowledge gap: write one ASP rule defining may_renew(L) with the knowledge-base predicates, so that it "
        "agrees with the library's loan rules as they now stand.",
        "Predicates, all over a loan L: loan(L): L is a library loan under review; registered_member(L): the "
        "borrower is a registered member; reserved_by_other(L): another member has reserved the item; "
        "fines_outstanding(L): the borrower owes unpaid fines; short_loan_item(L): the item is a short-loan item.",
        [{"id": "B1", "source": "Library loan rules, rule 7 (fictitious)", "authority": "official", "date": "2020-01",
          "text": "A registered member may renew a loan online, unless another member has reserved the item or "
                  "the borrower owes unpaid fines."},
         {"id": "B2", "source": "Library loan rules, rule 7, revised (fictitious)", "authority": "official",
          "date": "2023-09",
          "text": "The unpaid fines exception no longer applies, because the library abolished fines. A reserved "
                  "item still cannot be renewed."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert "registered_member(L)" in verdict["answer"]
    assert "not reserved_by_other(L)" in verdict["answer"]
    # "no longer applies" is not read as its opposite: the rule leaves it out, and the answer says why.
    assert "fines_outstanding" not in verdict["answer"].split(" Left out as withdrawn:")[0]
    assert 'Left out as withdrawn: fines_outstanding (B2: "The unpaid fines exception no longer applies' \
        in verdict["answer"]
    assert verdict["needs_human_review"] is False, verdict["escalation_reasons"]


def test_dialectic_flags_two_passages_that_set_different_figures(tmp_path):
    case = _rule_case(
        "warranty_windows",
        "Knowledge gap: write one ASP rule defining repair_free(C) with the knowledge-base predicates, so that it "
        "agrees with the maker's documents below.",
        "Predicates, all over a claim C: claim(C): C is a warranty claim under review; within_12_months(C): the "
        "fault appeared within 12 months of purchase; within_24_months(C): the fault appeared within 24 months of "
        "purchase; receipt_shown(C): the buyer showed the receipt.",
        [{"id": "W1", "source": "Warranty card (fictitious)", "authority": "primary", "date": "2025-01",
          "text": "A fault that appears within 24 months of purchase must be repaired free of charge, provided "
                  "that the receipt is shown."},
         {"id": "W2", "source": "Maker's website warranty page (fictitious)", "authority": "primary",
          "date": "2025-02",
          "text": "A fault that appears within 12 months of purchase must be repaired free of charge, provided "
                  "that the receipt is shown."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if "neither amends the other" in r)
    assert "W1" in reason and "W2" in reason and "24 months" in reason and "12 months" in reason
    assert "conflicting_passages" in verdict["applied_rules"]


def test_moderator_flags_a_rule_that_keeps_a_withdrawn_exception():
    evidence = [Evidence(id="P1", source="Policy (fictitious)", authority="official", date="2022",
                         text="A badge must be revoked once the contract has ended, unless the holder is on a "
                              "retainer."),
                Evidence(id="P2", source="Policy, revised (fictitious)", authority="official", date="2024",
                         text="The retainer exception no longer applies to contractors.")]
    kept = dialectic_rules.withdrawn_kept("must_revoke(B) :- badge(B), contract_ended(B), not retainer(B).", evidence)
    assert len(kept) == 1 and "retainer" in kept[0] and "P2" in kept[0]
    assert dialectic_rules.withdrawn_kept("must_revoke(B) :- badge(B), contract_ended(B).", evidence) == []


# -- cross-critique ---------------------------------------------------------------------------------

def _cc_case(case_id: str, question: str, passages: list[dict]) -> dict:
    return {"id": case_id, "title": case_id, "question": question,
            "domain_hint": "every organisation and document here is fictitious", "evidence": passages,
            "agents": [{"id": "analyst", "name": "Data analyst", "role": "Reads the figures the sources report."},
                       {"id": "auditor", "name": "Auditor", "role": "Checks which document states the figure."}]}


def test_cross_critique_flags_the_same_figure_over_another_period(tmp_path):
    case = _cc_case("storage_quota", "How much cloud storage does the Starter tier of Nimbo include each month?", [
        {"id": "price_list", "source": "Nimbo price list (fictitious)", "authority": "official", "date": "2025-01",
         "text": "The Starter tier includes 50 GB of cloud storage per month at no extra charge."},
        {"id": "service_terms", "source": "Nimbo service terms (fictitious)", "authority": "official",
         "date": "2025-01",
         "text": "The Starter tier includes 50 GB of cloud storage per year, with extra storage charged separately."}])
    verdict = _run(tmp_path, case, "cross_critique")
    assert verdict["needs_human_review"] is True
    named = [r for r in verdict["escalation_reasons"] if "50 GB per month" in r and "50 GB per year" in r]
    assert named, verdict["escalation_reasons"]
    assert any("price_list" in r or "service_terms" in r for r in named)


def test_cross_critique_flags_equal_authorities_whose_figures_differ(tmp_path):
    case = _cc_case("ridership", "How many passengers used the Eastvale tram network in 2024?", [
        {"id": "operator_report", "source": "Tram operator annual report (fictitious)", "authority": "official",
         "date": "2025-03", "text": "In 2024 the tram network carried 41 million passengers, counted at the gates."},
        {"id": "transport_office", "source": "Regional transport office bulletin (fictitious)",
         "authority": "official", "date": "2025-04",
         "text": "In 2024 the tram network carried 27 million passengers, estimated from ticket sales."}])
    verdict = _run(tmp_path, case, "cross_critique")
    assert verdict["needs_human_review"] is True
    named = [r for r in verdict["escalation_reasons"] if "41" in r and "27" in r]
    assert named and any("operator_report" in r or "transport_office" in r for r in named)


def test_units_are_read_before_figures_are_compared():
    same = "The maximum daily dose of Calmex for adults is 4 g."
    assert contradiction(same, "The maximum daily dose of Calmex for adults is 4000 mg.") is None
    assert "converted" in contradiction(same, "The maximum daily dose of Calmex for adults is 4 mg.")
    assert unit_mismatch("Each user may send 200 MB per day.", "Each user may send 200 MB per week.")


def test_negation_is_read_where_it_applies():
    # A negation inside a relative clause narrows a noun; "recommends against" agrees with "should not".
    assert contradiction("Aspirin may be considered for adults who are not at increased risk of bleeding.",
                         "Aspirin may be considered for adults at higher risk of heart attack.") is None
    assert contradiction("For adults aged 60 or older, the panel recommends against starting aspirin.",
                         "Adults aged 60 or older should not start aspirin.") is None
    assert contradiction("Adults aged 60 or older should start aspirin.",
                         "Adults aged 60 or older should not start aspirin.")


def test_cross_critique_withdraws_a_claim_resting_on_a_replaced_source(tmp_path):
    case = _cc_case("screening_interval", "How often should a 50-year-old in Westmark have a bowel screening test?", [
        {"id": "guideline_2019", "source": "Westmark screening guideline 2019 (replaced; fictitious)",
         "authority": "official", "date": "2019-05",
         "text": "Adults aged 50 to 74 should have a bowel screening test every 3 years. The 2024 guideline replaced "
                 "this advice."},
        {"id": "guideline_2024", "source": "Westmark screening guideline 2024 (fictitious)", "authority": "official",
         "date": "2024-05",
         "text": "Adults aged 50 to 74 should have a bowel screening test every 2 years, replacing the 3-year "
                 "interval of the 2019 guideline."}])
    proc = cli("run", str(_write(tmp_path, case)), "--protocol", "cross_critique", "--json", db=tmp_path / "d.db",
               check=True)
    verdict = json.loads(proc.stdout)["verdict"]
    opening = verdict["answer"].split("[")[0]
    assert "every 2 years" in opening, verdict["answer"]
    critiques = cli("show", "--json", json.loads(proc.stdout)["debate_id"], db=tmp_path / "d.db", check=True).stdout
    assert "which a later passage of at least equal authority replaces: guideline_2024" in critiques


def _write(tmp_path: Path, case: dict) -> Path:
    path = tmp_path / f"{case['id']}.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    return path


def test_dialectic_moderator_reads_units_before_comparing_figures():
    def ev(eid: str, text: str) -> Evidence:
        return Evidence(id=eid, source="Booking terms (fictitious)", authority="primary", date="2025", text=text)

    rule = "refund_due(B) :- booking(B), cancelled_in_time(B)."
    days = ev("T1", "A guest who cancels at least 30 days before arrival must receive a full refund.")
    months = ev("T2", "A guest who cancels at least 30 months before arrival must receive a full refund.")
    month = ev("T3", "A guest who cancels at least 1 month before arrival must receive a full refund.")
    flagged = dialectic_rules.conflicting_passages(rule, [days, months])
    assert len(flagged) == 1 and "T1" in flagged[0] and "T2" in flagged[0]
    assert dialectic_rules.conflicting_passages(rule, [days, month]) == []  # 30 days and 1 month agree
