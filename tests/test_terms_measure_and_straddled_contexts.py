"""Arbitration that reads what the terms count and what the question turns on, and passages that
say a point is still being looked into. Driven through the CLI on cases written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _run
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.text import states_doubt

# A bakery's energy grant: the terms count energy per loaf baked; the meter's total rose with trade.
_OVEN_REPORTS = [
    {"agent": "Officer", "metric": "bakery_energy_use_change", "value": 18.0, "unit": "% change",
     "citation": "[Per extraction: 'Bakery energy use on the meter: 41,200 kWh in 2025 and 48,600 kWh in 2026, a change of +18%' from the officer's note]",
     "source": "Council energy officer", "period": "2026 against 2025", "confidence": 0.7,
     "interpretation": "Energy use rose by 18%, so the saving in the grant terms has not been made"},
    {"agent": "Bakery", "metric": "bakery_energy_use_change", "value": -22.0, "unit": "% change",
     "citation": "[Per extraction: '0.59 kWh per loaf in 2025, 0.46 kWh per loaf in 2026' from the bakery's records]",
     "source": "Bakery meter and till records", "period": "2026 against 2025", "confidence": 0.6,
     "interpretation": "Energy per loaf baked fell by 22%, so the grant condition is met"}]
_OVEN_EVIDENCE = [
    {"id": "TERMS", "source": "Grant offer, condition 3 (fictitious)", "authority": "grant terms", "date": "2025-01-05",
     "text": "The last payment is made if oven energy per loaf baked in 2026 is at least 15% lower than in 2025. "
             "Energy is the oven sub-meter's reading; loaves are the till's count of loaves sold."},
    {"id": "NOTE", "source": "Council energy officer's note (fictitious)", "authority": "official", "date": "2027-01-20",
     "text": "Bakery energy use on the meter: 41,200 kWh in 2025 and 48,600 kWh in 2026, a change of +18%. "
             "I do not think condition 3 is met."},
    {"id": "RECORDS", "source": "Bakery meter and till records (fictitious)", "authority": "business records",
     "date": "2027-01-10",
     "text": "Bakery energy use per loaf: 2025, 41,200 kWh and 69,800 loaves (0.59 kWh per loaf); 2026, 48,600 kWh "
             "and 105,600 loaves (0.46 kWh per loaf): a change of -22%."}]


def test_a_figure_counted_per_what_the_terms_count_stands_over_a_total(tmp_path):
    question = "Did the (fictitious) bakery meet the energy condition of its oven grant in 2026?"
    verdict = _run(tmp_path, _arbitration(question, _OVEN_REPORTS, _OVEN_EVIDENCE), "arbitration")
    assert "Bakery's -22 % change" in verdict["answer"] and "accepted over Officer's" in verdict["answer"], \
        verdict["answer"]
    # Without the terms nothing says which measure counts: a figure per loaf and a total both stand.
    verdict = _run(tmp_path, _arbitration(question, _OVEN_REPORTS, _OVEN_EVIDENCE[1:]), "arbitration")
    assert "-22 % change is counted per loaf, 18 % change for the whole" in verdict["answer"], verdict["answer"]


# A ferry's punctuality, measured against two baselines, either side of the target the question names.
_FERRY_REPORTS = [
    {"agent": "Operator", "metric": "ferry_delays_reduction", "value": 12.4, "unit": "% reduction",
     "citation": "[Per extraction: 'delays down 12.4% on the storm week before the timetable change' from the "
                 "operator's bulletin]", "source": "Ferry operator", "period": "May 2026 against 24-30 April 2026",
     "confidence": 0.6, "interpretation": "The new timetable cut delays by 12.4%, more than the 8% target"},
    {"agent": "Users", "metric": "ferry_delays_reduction", "value": 3.1, "unit": "% reduction",
     "citation": "[Per extraction: 'Ferry delays, May this year against May last year: a reduction of 3.1%' from the users' group]",
     "source": "Ferry users' group", "period": "May 2026 against May 2025", "confidence": 0.55,
     "interpretation": "Delays fell only 3.1%, well short of the 8% target"}]
_FERRY_EVIDENCE = [
    {"id": "BULLETIN", "source": "Ferry operator's bulletin (fictitious)", "authority": "operator", "date": "2026-06-02",
     "text": "Great news: ferry delays down 12.4% on the storm week before the timetable change, a reduction we "
             "are proud of."},
    {"id": "USERS", "source": "Ferry users' group newsletter (fictitious)", "authority": "newsletter",
     "date": "2026-06-05", "text": "Ferry delays, May this year against May last year: a reduction of 3.1%."}]


def test_figures_valid_each_in_its_context_either_side_of_the_target_go_to_a_person(tmp_path):
    question = ("The (fictitious) island ferry changed its timetable on 1 May 2026 to cut delays by 8%. Did the new "
                "timetable meet that target?")
    verdict = _run(tmp_path, _arbitration(question, _FERRY_REPORTS, _FERRY_EVIDENCE), "arbitration")
    assert verdict["needs_human_review"] is True
    assert "escalate.valid_either_side" in verdict["applied_rules"], verdict["applied_rules"]
    assert any("either side of the 8 % reduction the question turns on" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
    # A target outside both figures is not turned on by the choice of context.
    verdict = _run(tmp_path, _arbitration(question.replace("8%", "2%"), _FERRY_REPORTS, _FERRY_EVIDENCE), "arbitration")
    assert "escalate.valid_either_side" not in verdict["applied_rules"], verdict["applied_rules"]


def test_the_question_figures_leave_out_dates_and_times():
    from debate_core.protocols.arbitration.rules.verdict import asked_figures

    figures = [v for v, _ in asked_figures("On 1-28 July 2026, at 22:41 on 3 March, was the saving 10%?")]
    assert figures == [10.0], figures
    assert [v for v, _ in asked_figures("From 2.30 pm, did the rate pass 12.50%?")] == [12.5]


def test_points_still_being_looked_into_or_not_yet_agreed_are_open():
    assert states_doubt("We're checking whether the offline taps kept their own time and will reply by 20 February.")
    assert states_doubt("We haven't agreed the Q3 figure.")
    assert states_doubt("I'll decide under clause 14 after the quarterly review meeting on 26 February.")
    assert states_doubt("Whether the club is still part of the parish or a charity of its own depends on what was "
                        "actually agreed in 2021.")
    assert states_doubt("We'd want to see the minutes before advising.")
    assert states_doubt("The old minutes were in a loft, no idea where they are now.")
    assert states_doubt("No test since 2 May has used the new meter at the old spot.")
    assert not states_doubt("If they have not agreed the price, the deal lapses.")
    assert not states_doubt("Whether care was taken depends on what a reasonable trader would have done.")
    assert not states_doubt("No test has shown any leak.")
    assert not states_doubt("We checked whether it worked, and it did.")


def test_a_figure_its_source_calculates_at_a_standard_rate_gives_way_to_a_weighed_one(tmp_path):
    reports = [
        {"agent": "Summary", "metric": "glass_recycled_2026", "value": 2400, "unit": "kg",
         "citation": "[Per extraction: 'Glass recycled: 2,400 kg' from the collector's annual summary]",
         "source": "Collector's annual summary", "period": "2026", "confidence": 0.65,
         "interpretation": "2.4 tonnes of the school's glass were recycled"},
        {"agent": "Weighbridge", "metric": "glass_recycled_2026", "value": 1710, "unit": "kg",
         "citation": "[Per extraction: 'Total net: 1,710 kg' from the weighbridge tickets]",
         "source": "Depot weighbridge", "period": "2026", "confidence": 0.7,
         "interpretation": "The collections weighed 1,710 kg net at the weighbridge"}]
    evidence = [
        {"id": "SUMMARY", "source": "Collector's annual summary for the school, 2026 (fictitious)", "authority": "contractor",
         "date": "2027-01-08", "text": "Bins emptied: 60. Glass recycled: 2,400 kg. Weights on this summary are "
                                       "calculated at our standard 40 kg per bin."},
        {"id": "TICKETS", "source": "Depot weighbridge tickets, 2026 (fictitious)", "authority": "weighbridge record",
         "date": "2027-01-10", "text": "Six collections, weighed in full and out empty. Total net: 1,710 kg."}]
    verdict = _run(tmp_path, _arbitration("How much glass did the (fictitious) school send for recycling in 2026?",
                                          reports, evidence), "arbitration")
    assert "Weighbridge's 1,710 kg" in verdict["answer"].split("accepted over")[0], verdict["answer"]
    assert "calculated at a standard rate, not measured" in verdict["answer"], verdict["answer"]
    assert "calculated at our standard 40 kg per bin" in verdict["answer"], verdict["answer"]


def test_records_silent_on_who_awaited_replies_and_witnesses_who_cannot_say_hold_a_point_open():
    assert states_doubt("I might have answered it, but I can't say when or who it was for.")
    assert states_doubt("The log records only calls that were answered; it does not record who came in.")
    assert states_doubt("It has asked the hospital for the footage; the hospital has not yet replied.")
    assert states_doubt("I saw him hand her an envelope. I don't know what was in it.")
    assert states_doubt("Honestly I don't remember who was there when.")
    assert states_doubt("The panel will consider the refund dispute at its meeting on 14 April 2026.")
    assert not states_doubt("I didn't know what to expect, but I loved it.")
    assert not states_doubt("The panel considered the dispute at its meeting and upheld it.")


def test_an_answer_that_opens_with_no_as_a_determiner_answers_neither_way():
    from debate_core.protocols.cross_critique.answer_rules import yes_no_unanswered

    question = "Can they scatter the ashes on the hill, and what must they do?"
    assert yes_no_unanswered(question, "No law forbids scattering ashes on private land with consent.")
    assert yes_no_unanswered(question, "Nobody needs a licence.")
    for answer in ("No, not without the owner's consent.", "Yes - with the owner's consent.", "No it does not.",
                   "Yes."):
        assert yes_no_unanswered(question, answer) is None, answer
