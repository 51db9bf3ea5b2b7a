"""The offline agents write claims that fit their bounds without losing their point, and read what a
reviewer would: a list item an amendment deletes, the same price over another period, a final answer
its writer is unsure of, a sentiment question whose options have no "mixed". Each is driven through
the CLI in-process on a case written here (all fictitious) and asserts the verdict or its flag."""

from __future__ import annotations

import json
from pathlib import Path

from test_cc_dialectic_traps import _rule_case
from test_cli import cli

from debate_core.core.schemas import CLAIM_CHARS, Evidence
from debate_core.core.text import best_span, clauses, sentences
from debate_core.protocols.cross_critique import GLOSSARY
from debate_core.protocols.cross_critique.agent.scoring import short_source, unit_mismatch
from debate_core.protocols.cross_critique.answer_rules import unsure_verdict
from debate_core.protocols.dialectic.amendments import supersessions, without_item


def _run(tmp_path: Path, case: dict, protocol: str) -> dict:
    path = tmp_path / f"{case['id']}.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    proc = cli("run", str(path), "--protocol", protocol, "--json", db=tmp_path / "d.db", check=True)
    return json.loads(proc.stdout)


# -- claims that fit ---------------------------------------------------------------------------------

LONG = ("ASCEND randomised 15,480 adults with diabetes and no cardiovascular disease: aspirin reduced serious "
        "vascular events by about 12% in relative terms but increased major bleeding by a similar absolute "
        "amount, largely offsetting the benefit.")


def test_a_long_sentence_gives_a_claim_that_says_its_point_whole():
    claim = best_span(LONG, "does aspirin increase bleeding", CLAIM_CHARS)
    assert len(claim) <= CLAIM_CHARS
    # A run of clauses after the colon, stopped before "largely ...", which only adds to it.
    assert claim == ("Aspirin reduced serious vascular events by about 12% in relative terms but increased major "
                     "bleeding by a similar absolute amount.")


def test_a_sentence_with_no_clause_that_stands_alone_is_cut_with_an_ellipsis():
    text = "The tenant who has given the landlord written notice of the disrepair that the landlord is " \
           "obliged to remedy under the lease within a reasonable time may then recover the cost of the works."
    claim = best_span(text, "may the tenant recover the cost", 80)
    assert len(claim) <= 80 and claim.endswith("…")


def test_a_claim_never_stops_before_an_aside_set_off_by_commas():
    text = ("The exception is if you get, or have applied for, the enhanced rate of the mobility part of "
            "Personal Independence Payment, in which case you can drive a car from 16.")
    claim = best_span(text, "can she drive a car from 16", 80)
    # Cut before ", or have applied for," the clause would read "The exception is if you get."
    assert claim != "The exception is if you get."
    assert len(claim) <= 80 and claim.endswith("…")
    # An "and" that opens a clause of its own still ends a statement before it.
    two = ("The lock was replaced on the first visit, and the key was cut by the same locksmith, "
           "who charged for both jobs separately on one invoice issued a week later.")
    assert best_span(two, "was the lock replaced", 60) == "The lock was replaced on the first visit."


def test_brackets_stay_whole_and_list_items_stay_in_their_sentence():
    assert clauses("Aspirin should not be given (class III: harm), said the guideline.") == [
        "Aspirin should not be given (class III: harm),", "said the guideline."]
    text = ("(1) A tenant may keep the deposit only (a) for damage, or (b) for cleaning. "
            "(2) A list must be sent.")
    assert sentences(text) == ["(1) A tenant may keep the deposit only (a) for damage, or (b) for cleaning.",
                               "(2) A list must be sent."]


def test_a_long_source_is_named_as_a_reader_would_name_it():
    def ev(source: str, date: str | None = None) -> Evidence:
        return Evidence(id="e", source=source, text="x", date=date)

    assert short_source(ev("US Preventive Services Task Force, 2016 recommendation on aspirin for the primary "
                           "prevention of cardiovascular disease (superseded)")) == \
        "US Preventive Services Task Force (2016)"
    assert short_source(ev("Cloudwren Ltd terms of service, clause 8 (fictitious)")) == \
        "Cloudwren Ltd terms of service, clause 8"
    assert len(short_source(ev("A very long title " * 8))) <= 48


def test_a_medical_team_states_its_thesis_briefly_and_the_verdict_does_not_quote_it(tmp_path):
    agents = [{"id": "gp", "name": "General practitioner", "role": "Applies current prevention guidelines."},
              {"id": "pharmacist", "name": "Clinical pharmacist", "role": "Argues from trial evidence and bleeding "
               "risk."}]
    case = {"id": "statin_question", "title": "statin", "agents": agents,
            "question": "Should a 68-year-old with no heart disease start a daily low-dose aspirin to prevent a "
                        "first heart attack?",
            "evidence": [
                {"id": "guideline", "source": "National prevention guideline on aspirin for adults without "
                 "cardiovascular disease, 2023 update, section 4 (fictitious)", "authority": "official",
                 "date": "2023-03-01",
                 "text": "For adults aged 60 or older without cardiovascular disease, the guideline recommends "
                         "against starting low-dose aspirin for primary prevention, because the risk of major "
                         "bleeding outweighs the small reduction in heart attacks (strong recommendation)."},
                {"id": "trial", "source": "Randomised trial in older adults, summary of the main publication in a "
                 "general medical journal (fictitious)", "authority": "academic", "date": "2019-05-01",
                 "text": "Among 12,000 adults aged 65 or older, daily aspirin did not reduce cardiovascular events, "
                         "while major bleeding was more frequent (3.6% against 2.7%)."}]}
    out = _run(tmp_path, case, "cross_critique")
    answer = out["verdict"]["answer"]
    assert "bear most directly" not in answer and "sources of the" not in answer
    assert "against" in answer.lower()


# -- the same price over another period ---------------------------------------------------------------

def test_money_over_another_period_is_a_conflict():
    week = "Standing charge 4.20 euros per week; unit rate 24.1 cents per kWh."
    month = "Contract summary: unit rate 24.1 cents per kWh; standing charge €4.20 per month."
    assert unit_mismatch(week, month) == ("one gives 4.20 euros per week, the other 4.20 eur per month: not the "
                                          "same amount over another period")


def test_a_charge_given_per_week_and_per_month_is_sent_to_a_human_naming_both(tmp_path):
    agents = [{"id": "adviser", "name": "Energy adviser", "role": "Reads tariff sheets for households."},
              {"id": "lawyer", "name": "Consumer lawyer", "role": "Reads contract terms."}]
    case = {"id": "water_charge", "title": "water", "agents": agents,
            "question": "How much is the fixed charge on Clearbrook Water's Basic plan, per month?",
            "evidence": [
                {"id": "price_list", "source": "Clearbrook Water price list (fictitious)", "authority": "official",
                 "date": "2025-04", "text": "Basic plan: fixed charge 3.10 euros per week; water 2.05 euros per "
                                            "cubic metre."},
                {"id": "contract", "source": "Clearbrook Water contract summary (fictitious)", "authority": "official",
                 "date": "2025-04", "text": "Basic plan contract: fixed charge 3.10 euros per month; water 2.05 "
                                            "euros per cubic metre."}]}
    verdict = _run(tmp_path, case, "cross_critique")["verdict"]
    assert verdict["needs_human_review"] is True
    assert any("3.10 euros per week" in r and "3.10 euros per month" in r for r in verdict["escalation_reasons"])


# -- a final answer its writer is unsure of ----------------------------------------------------------

def test_an_unsure_final_answer_does_not_stand_alone():
    assert unsure_verdict(0.37) == ("the final answer is given with confidence 37%, too little to stand without "
                                    "a reviewer")
    assert unsure_verdict(0.5) is None
    assert "unsure_verdict" in GLOSSARY


# -- an amendment that deletes one item of a list -------------------------------------------------------

def test_deleting_one_item_keeps_the_rest_of_its_sentence():
    s = "(1) A landlord may keep part of a deposit only (a) for damage beyond wear, or (b) for cleaning."
    assert without_item(s, "b") == "(1) A landlord may keep part of a deposit only (a) for damage beyond wear."
    old = Evidence(id="act", source="Act, section 5", date="2019", text=s)
    new = Evidence(id="amendment", source="Amending act", date="2024",
                   text="Section 5 of the Act is amended as follows. In subsection (1), paragraph (b) is deleted.")
    found = supersessions([old, new])
    # The lead-in supersedes nothing; the deletion supersedes the list, keeping item (a).
    assert [(x.old_id, x.kept) for x in found] == [
        ("act", "(1) A landlord may keep part of a deposit only (a) for damage beyond wear.")]


def test_dialectic_keeps_the_list_item_an_amendment_did_not_delete(tmp_path):
    case = _rule_case(
        "locker_fee",
        "Knowledge gap: write one ASP rule defining may_charge(C) with the knowledge-base predicates, so that "
        "it agrees with the gym's locker rules as they now stand.",
        "Predicates, all over a charge C: charge(C): C is a locker charge under review; lost_key(C): the member "
        "lost the locker key; overnight_use(C): the member left items in the locker overnight; notice_given(C): "
        "the member was told of the charge in writing.",
        [{"id": "rules", "source": "Gym locker rules, rule 3 (fictitious)", "authority": "primary", "date": "2020-01",
          "text": "(1) The gym may charge a member only (a) for a lost key, or (b) for overnight use of a locker. "
                  "(2) A charge may be made only if the member was told of it in writing."},
         {"id": "change", "source": "Notice changing the locker rules (fictitious)", "authority": "primary",
          "date": "2024-06", "text": "Rule 3 is amended as follows. In paragraph (1), item (b) is deleted."}])
    answer = _run(tmp_path, case, "dialectic")["verdict"]["answer"]
    assert "lost_key(C)" in answer and "notice_given(C)" in answer
    assert "overnight_use" not in answer.split(" Left out as withdrawn:")[0]
    assert 'Left out as withdrawn: overnight_use (change: "In paragraph (1), item (b) is deleted.")' in answer


# -- a sentiment question whose options have no "mixed" ----------------------------------------------

def _sentence_case(case_id: str, sentence: str, options: str) -> dict:
    agents = [{"id": "analyst", "name": "Review analyst", "role": "Neutral stance."},
              {"id": "critic", "name": "Complaints reader", "role": "Con stance."},
              {"id": "empath", "name": "Customer advocate", "role": "Pro stance."}]
    return {"id": case_id, "title": case_id, "agents": agents,
            "question": f"What is the overall sentiment ({options}) of the review sentence \"{sentence}\"?",
            "evidence": [{"id": "S1", "source": "Review sentence under analysis", "text": sentence}]}


def test_a_contrast_with_no_mixed_option_names_one_option_and_asks_a_reviewer(tmp_path):
    case = _sentence_case("kettle", "The kettle looks lovely, but it leaks and the handle gets hot.",
                          "positive, negative or neutral")
    verdict = _run(tmp_path, case, "panel")["verdict"]
    assert "negative" in verdict["answer"] and "mixed" not in verdict["answer"].split(".")[0]
    assert verdict["needs_human_review"] is True
    assert any("which way the sentence leans" in r for r in verdict["escalation_reasons"])


def test_an_emoticon_is_read_and_a_plain_fact_is_proposed_as_neutral(tmp_path):
    happy = _run(tmp_path, _sentence_case("bus", "Bus was on time today :)", "positive, negative or neutral"),
                 "panel")["verdict"]
    assert happy["answer"].startswith("The overall sentiment is positive")
    fact = _run(tmp_path, _sentence_case("box", "The box contains two cables and a charger.",
                                         "positive, negative, neutral or mixed"), "panel")["verdict"]
    assert fact["answer"].startswith("The overall sentiment is neutral")
    assert fact["needs_human_review"] is True


# -- bars, limits and grants in rule text ---------------------------------------------------------------

def test_dialectic_reads_a_bar_a_limit_and_a_grant_to_a_person_who(tmp_path):
    case = _rule_case(
        "tool_loan",
        "Knowledge gap: write one ASP rule defining may_extend(L) with the knowledge-base predicates, so that it "
        "agrees with the tool library's rules below.",
        "Predicates, all over a loan L: loan(L): L is a tool loan under review; member_paid_up(L): the borrower's "
        "membership fee is paid; extended_twice(L): the loan has already been extended twice; tool_booked(L): "
        "another member has booked the tool; power_tool(L): the tool is a power tool.",
        [{"id": "r1", "source": "Tool library rules, rule 2 (fictitious)", "authority": "primary",
          "text": "An extension is granted to a member whose membership fee is paid. A loan can be extended up to "
                  "two times."},
         {"id": "r2", "source": "Tool library rules, rule 3 (fictitious)", "authority": "primary",
          "text": "A loan cannot be extended if another member has booked the tool. Power tools are extended like "
                  "any other tool."}])
    answer = _run(tmp_path, case, "dialectic")["verdict"]["answer"]
    assert "member_paid_up(L)" in answer and "not member_paid_up" not in answer
    assert "not tool_booked(L)" in answer and "not extended_twice(L)" in answer
    assert "power_tool" not in answer


def test_a_review_cut_off_mid_sentence_goes_to_a_person_saying_so(tmp_path):
    sentence = "Delivery was quick and the packaging was lovely, but when I opened the box the"
    case = _sentence_case("cut", sentence, "positive, negative, neutral or mixed")
    case["question"] = case["question"][:-1] + ", and what is the sentiment towards each aspect (delivery, packaging)?"
    verdict = _run(tmp_path, case, "panel")["verdict"]
    assert verdict["needs_human_review"] is True
    assert any("it is cut off mid-sentence (\"…when I opened the box the\")" in r
               for r in verdict["escalation_reasons"])
