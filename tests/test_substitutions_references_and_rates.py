"""The d16_ round's readings, each driven through the CLI on a case written here (or through the
function that reads it): words an amendment says "are replaced by" others, a review that rests its
judgement on an earlier one, two rates out of different totals, a figure read as over a limit
against one read as inside it, a change record of dated items read item by item, a schedule that
runs daily from the day it was set, and a passage unsure which version of a paper was voted on."""

from __future__ import annotations

from datetime import date

from test_cc_dialectic_traps import _rule_case, _run
from test_panel_refinement_arbitration_traps import _REASONERS
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.schemas import Evidence
from debate_core.protocols.arbitration.contradictions import interpretation_conflict
from debate_core.protocols.arbitration.measures import rates_of_different_totals
from debate_core.protocols.dialectic.amendments import _SUBSTITUTE, _swapped
from debate_core.protocols.dialectic.disputes import disagreement_on_record
from debate_core.protocols.panel.agent.missing import refers_elsewhere
from debate_core.protocols.refinement.agent.reading import changes_in, day_in_year
from debate_core.protocols.refinement.rules import nothing_fails

# -- dialectic --------------------------------------------------------------------------------------

GYM = ("Predicates, all over a person P at the door: member(P): P is a club member; trained_12_weeks(P): P has "
       "trained with the club for twelve weeks; trained_8_weeks(P): P has trained with the club for eight weeks; "
       "coach_approved(P): a coach has passed P as ready.")
SPAR = ("Knowledge gap: write one ASP rule defining may_spar(P) with the knowledge-base predicates, so that it "
        "agrees with the club's current rules.")


def test_words_an_amendment_says_are_replaced_by_others_are_read_into_the_rule(tmp_path):
    m = _SUBSTITUTE.search("From 1 March 'twelve weeks' in rule 4.1 is replaced by 'eight weeks'.")
    assert m and _swapped(m) == ("twelve weeks", "eight weeks")
    m = _SUBSTITUTE.search("Replace 'two adults' in clause 3 with 'one adult'.")
    assert m and _swapped(m) == ("two adults", "one adult")
    passages = [
        {"id": "RULES", "source": "Club rules (fictitious)", "authority": "official", "date": "2025-09-01",
         "text": "4.1 Sparring is open to members who have been training with us for at least twelve weeks and "
                 "whom a coach has passed as ready."},
        {"id": "MINUTES", "source": "Committee minutes (fictitious)", "authority": "official", "date": "2026-02-10",
         "text": "Agreed: from 1 March 2026 'twelve weeks' in rule 4.1 is replaced by 'eight weeks'."}]
    verdict = _run(tmp_path, _rule_case("spar", SPAR, GYM, passages), "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1]
    assert "trained_8_weeks(P)" in rule and "coach_approved(P)" in rule, rule
    assert "trained_12_weeks" not in rule, rule


# -- panel ------------------------------------------------------------------------------------------

def test_a_review_that_rests_on_an_earlier_one_goes_to_a_person(tmp_path):
    assert refers_elsewhere("Same teacher. Everything I said in my first review still stands.")
    assert refers_elsewhere("As I said before, the pianist is the best thing about it.")
    assert refers_elsewhere("The teacher reviewed my first steps kindly.") is None
    text = ("Update, six months on. Everything I said in my first review still stands, apart from the changing "
            "room, which has finally been sorted: new benches and a heater that works.")
    case = {"id": "ballet_update", "title": "ballet update",
            "question": f"What is the overall sentiment (positive, negative, neutral or mixed) of this review: "
                        f"\"{text}\"? And what is the sentiment towards each aspect (changing room, teacher)?",
            "domain_hint": "adult ballet class review (fictitious)",
            "evidence": [{"id": "T", "source": "Review update (fictitious)", "authority": "primary", "text": text}]}
    verdict = _run(tmp_path, case, "panel")
    assert verdict["needs_human_review"] is True
    assert any("an earlier review, not under review and so unknown" in r and "my first review" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


# -- arbitration ------------------------------------------------------------------------------------

def test_two_rates_out_of_different_totals_are_both_valid(tmp_path):
    assert rates_of_different_totals("96% of candidates entered passed", "77% of pupils in the classes passed")
    assert rates_of_different_totals("96% of candidates passed", "90% of the candidates passed") is None
    reports = [
        {"agent": "Studio", "metric": "exam_pass_rate", "value": 96, "unit": "%",
         "citation": "[Per extraction: '96% pass rate' from the studio website]", "source": "Studio website",
         "period": "2025", "confidence": 0.8, "interpretation": "96% of candidates entered for the exams passed"},
        {"agent": "Parent", "metric": "exam_pass_rate", "value": 77, "unit": "%",
         "citation": "[Per extraction: '48 of 62 pupils' from a parent's message]", "source": "Parent's message",
         "period": "2025", "confidence": 0.7, "interpretation": "77% of pupils in the graded classes passed an exam"}]
    evidence = [
        {"id": "WEB", "source": "Studio website (fictitious)", "authority": "official", "date": "2026-01-10",
         "text": "A 96% exam pass rate in 2025: 48 of our 50 candidates passed."},
        {"id": "CHAT", "source": "Parent's message (fictitious)", "authority": "secondary", "date": "2026-01-12",
         "text": "48 of the 62 pupils in the graded classes passed an exam, so 77%."}]
    question = "What was the studio's 2025 exam pass rate, as each source counts it?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert "both valid" in verdict["answer"], verdict["answer"]
    assert "rates out of different totals" in verdict["answer"], verdict["answer"]


def test_a_figure_read_as_over_a_limit_against_one_read_as_inside_it_is_a_conflict(tmp_path):
    conflict = interpretation_conflict("he weighed 73.3 kg, over the -73 kg limit",
                                       "he weighed 72.8 kg, inside the -73 kg limit")
    assert conflict is not None and conflict[0] == "reference"
    reports = [
        {"agent": "ClubScale", "metric": "competition_weight", "value": 73.3, "unit": "kg",
         "citation": "[Per extraction: '161.5 lb after tea' from the coach's message]", "source": "Club coach",
         "period": "8 May 2026, 21:10", "confidence": 0.6, "interpretation": "he weighed 73.3 kg, over the -73 kg limit"},
        {"agent": "WeighIn", "metric": "competition_weight", "value": 72.8, "unit": "kg",
         "citation": "[Per extraction: '07:42, 72.8 kg' from the official weigh-in sheet]",
         "source": "Official weigh-in sheet", "period": "9 May 2026, 07:42", "confidence": 0.9,
         "interpretation": "he weighed 72.8 kg, inside the -73 kg limit"}]
    evidence = [
        {"id": "SHEET", "source": "Official weigh-in sheet (fictitious)", "authority": "official",
         "date": "2026-05-09",
         "text": "Competition weight at the official weigh-in, which is final: R. Dalton, 07:42, 72.8 kg."},
        {"id": "MSG", "source": "Club coach's message (fictitious)", "authority": "secondary", "date": "2026-05-08",
         "text": "Dalton's weight was 161.5 lb (73.3 kg) on the changing-room scales after tea."}]
    verdict = _run(tmp_path, _arbitration("What was his competition weight?", reports, evidence), "arbitration")
    assert "the figures agree" not in verdict["answer"], verdict["answer"]
    assert verdict["answer"].startswith("Use 72.8 kg"), verdict["answer"]


# -- refinement -------------------------------------------------------------------------------------

def _incident(case_id: str, question: str, evidence: list[dict]) -> dict:
    return {"id": case_id, "title": "fictitious", "protocol": "refinement", "question": question,
            "domain_hint": "incident; every party and record is fictitious", "evidence": evidence,
            "agents": _REASONERS}


def test_a_change_record_of_dated_items_is_read_item_by_item(tmp_path):
    assert day_in_year("12 June: firmware v4.2 pushed.", 2026) == date(2026, 6, 12).toordinal()
    assert day_in_year("On 12 June 2025 the seal was replaced.", 2026) is None  # its own year: day_of reads it
    case = _incident("milk_machine", "Since 14 June 2026 milk from the (fictitious) farm shop's vending machine turns "
                                     "sour within a day. What is the root cause?", [
                {"id": "C1", "source": "config: machine and shop change record, June 2026", "date": "2026-06-12T08:00:00",
                 "text": "10 June: glass bottles now from a new supplier, washed on the same programme. 12 June: the "
                         "maker pushed firmware v4.2 overnight; the engineer noted 'settings restored from backup'."},
                {"id": "M1", "source": "metrics: chiller compartment temperature", "date": "2026-06-20T23:00:00",
                 "text": "1-11 June: compartment 3.1-3.6 °C. 12-20 June: compartment 7.8-8.3 °C."},
                {"id": "L1", "source": "log: complaints", "date": "2026-06-20T18:00:00",
                 "text": "17 complaints of milk sour within 24 hours, all bought from the vending machine."}])
    verdict = _run(tmp_path, case, "refinement")
    cause = verdict["answer"].split("\n")[0]
    assert cause.startswith('Root cause: the change just before the first anomaly, "12 June: the maker pushed '
                            'firmware v4.2'), cause


def test_a_schedule_that_runs_daily_from_the_change_is_the_change_not_a_routine(tmp_path):
    assert nothing_fails("The backup runs daily and nothing has failed.")
    assert nothing_fails("Schedule 'Quiet nights': off 22:30, on 07:00, daily from 6 July.") is None
    # The reason a change was made is no change of its own.
    assert changes_in("6 July: the air pump plugged into a new smart plug after the neighbour mentioned the hum.",
                      record=True) == ("plugged",)
    case = _incident("koi_pond", "Since 7 July 2026 the koi in a (fictitious) garden pond gasp at the surface at "
                                 "first light. What is the root cause?", [
                {"id": "C1", "source": "config: pond equipment change record, July 2026", "date": "2026-07-06T20:00:00",
                 "text": "5 July: a 36 W UV clarifier fitted on the filter return. 6 July: the air pump plugged into a "
                         "new smart plug, schedule 'Quiet nights' set after the neighbour mentioned the hum."},
                {"id": "L1", "source": "log: smart plug app history", "date": "2026-07-14T09:00:00",
                 "text": "Schedule 'Quiet nights': off 22:30, on 07:00, daily from 6 July."},
                {"id": "M1", "source": "metrics: dawn oxygen", "date": "2026-07-14T16:30:00",
                 "text": "Dawn oxygen: 1-6 July 6.4-7.1 mg/L; 7-14 July 2.8-3.6 mg/L."}])
    verdict = _run(tmp_path, case, "refinement")
    cause = verdict["answer"].split("\n")[0]
    assert cause.startswith('Root cause: the change just before the first anomaly, "6 July: the air pump'), cause
    assert not any("also happens when nothing fails" in r for r in verdict["escalation_reasons"])


# -- dialectic: which paper was voted on -------------------------------------------------------------

def test_a_passage_unsure_which_version_was_adopted_leaves_the_rule_to_a_person():
    evidence = [Evidence(id="SEC", source="Secretary's email (fictitious)", authority="internal",
                         text="Honestly I'm not sure. The minutes only say 'as circulated'. The committee will sort "
                              "out which one was voted on at its meeting on 21 January.")]
    reasons = disagreement_on_record(evidence)
    assert len(reasons) == 1 and reasons[0].startswith("SEC says") and "which one was voted on" in reasons[0]
    decided = [*evidence, Evidence(id="MIN", source="Committee minutes (fictitious)", authority="official",
                                   text="The committee has decided that the emailed paper was the one voted on.")]
    assert disagreement_on_record(decided) == []
