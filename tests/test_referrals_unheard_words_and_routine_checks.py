"""A dispute referred to someone whose finding is still due, a term the record leaves undefined, a
writer who "can't promise it", an author who "has not replied", words a transcript marks
"[inaudible]", and a change made after a part "failed its weekly check": each holds the point open
for a person, or (the last) is no routine. Driven through the CLI on cases written here (fictitious)."""

from __future__ import annotations

import json
from pathlib import Path

from test_cc_dialectic_traps import _rule_case, _run
from test_panel_aspect_quotes import _one_text, _verdict
from test_pending_changes_variants_and_bases import _arbitration
from test_substitutions_references_and_rates import _incident

from debate_core.core.text import states_doubt
from debate_core.protocols.panel.ratings import ratings_in
from debate_core.protocols.refinement.agent.reading import changes_in
from debate_core.protocols.refinement.rules import nothing_fails

_LIFT_REPORTS = [
    {"agent": "Contractor", "metric": "lift_availability_q3", "value": 98.8, "unit": "%",
     "citation": "[Per extraction: 'availability: 98.8%' from the contractor's Q3 report]",
     "source": "Contractor's Q3 report", "period": "Q3 2026", "confidence": 0.6,
     "interpretation": "availability was 98.8%, so the target was met"},
    {"agent": "Residents", "metric": "lift_availability_q3", "value": 91.2, "unit": "%",
     "citation": "[Per extraction: 'that's 91.2% availability' from the residents' newsletter]",
     "source": "Residents' newsletter", "period": "Q3 2026", "confidence": 0.5,
     "interpretation": "availability was 91.2%, below the target"}]
_LIFT_EVIDENCE = [
    {"id": "REPORT", "source": "Contractor's Q3 report (fictitious)", "authority": "contractor", "date": "2026-10-08",
     "text": "Lift 1 availability: 98.8%. Excluded: 158.5 h awaiting an obsolete control board, as client delay."},
    {"id": "NEWS", "source": "Residents' newsletter (fictitious)", "authority": "residents", "date": "2026-10-25",
     "text": "The lift was out for 194.5 hours - that's 91.2% availability."}]


def test_a_dispute_referred_for_a_finding_still_due_is_open(tmp_path):
    assert states_doubt("We have referred this to an independent consultant; the report is due on 20 November.")
    assert not states_doubt("Patients are referred to the clinic; the report is sent within 5 days.")
    client = {"id": "CLIENT", "source": "Email from the landlord to the contractor (fictitious)", "authority": "client",
              "date": "2026-10-20",
              "text": "We don't accept the board wait as client delay. We have referred this to an independent "
                      "consultant under clause 12; the report is due on 20 November."}
    question = "What was the lift's availability in Q3 2026 under the contract?"
    verdict = _run(tmp_path, _arbitration(question, _LIFT_REPORTS, [*_LIFT_EVIDENCE, client]), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("CLIENT says the point is still open") and "report is due" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]
    verdict = _run(tmp_path, _arbitration(question, _LIFT_REPORTS, _LIFT_EVIDENCE), "arbitration")
    assert not any("still open" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_term_the_record_leaves_undefined_or_lists_for_decision_is_open(tmp_path):
    assert states_doubt("Nothing in this Schedule says further what 'number of pupils' means.")
    assert states_doubt("Item 6: meaning of 'number of pupils' and the summer term payment (for decision).")
    assert not states_doubt("'Number of pupils' means the pupils on roll on census day.")
    contract = {"id": "CONTRACT", "source": "Lift maintenance contract, clause 4 (fictitious)", "authority": "contract",
                "date": "2024-01-01",
                "text": "Availability excludes planned work, misuse and delay caused by the client. Nothing in the "
                        "contract says further what 'delay caused by the client' means for availability."}
    verdict = _run(tmp_path, _arbitration("What was the lift's availability in Q3 2026 under the contract?",
                                          _LIFT_REPORTS, [*_LIFT_EVIDENCE, contract]), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("CONTRACT says the point is still open") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_start_date_its_writer_cannot_promise_leaves_the_rule_undecided(tmp_path):
    assert states_doubt("The supplier still has to fix single sign-on and we can't promise it.")
    assert states_doubt("We'll confirm one way or the other as soon as we know.")
    assert not states_doubt("We promise it will be ready.")
    case = _rule_case(
        "booking_module_start",
        "Knowledge gap: write one ASP rule defining may_lead_walks(G) with the knowledge-base predicates, so that "
        "it agrees with the club's rules for walks on 1 June 2026. It is 14 May 2026.",
        "Predicates, over a guide G: first_aid(G): G holds a current first aid certificate; navigation(G): G has "
        "passed the navigation assessment; safeguarding(G): G has completed the new safeguarding module.",
        [{"id": "RULES", "source": "Walking club guide rules, 2025 (fictitious)", "authority": "club rules",
          "text": "A member may lead walks once they hold a current first aid certificate and have passed the "
                  "navigation assessment."},
         {"id": "BULLETIN", "source": "Club bulletin, 3 March 2026 (fictitious)", "authority": "committee",
          "text": "From the day the new training site goes live, no member may lead walks until they have completed "
                  "the safeguarding module."},
         {"id": "EMAIL", "source": "Email from the club secretary, 13 May 2026 (fictitious)", "authority": "committee",
          "text": "We're hoping the site goes live on 1 June, but the supplier still has to fix single sign-on and we "
                  "can't promise it. We'll confirm one way or the other as soon as we know."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("EMAIL says the point is not yet decided") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_an_author_who_has_not_replied_leaves_the_review_open(tmp_path):
    assert states_doubt("The author has not re-rated it and has not replied to our message.")
    assert not states_doubt("She has replied to our message.")
    assert not states_doubt("If the landlord has not responded to the notice within 14 days, you may apply.")
    text = "Lift out again this morning. Fastest yet - 25 minutes. We're on first-name terms with the engineers now."
    case = _one_text("lift_review", "Lift firm review", "review", text, "Review of a lift firm (fictitious)")
    note = {"id": "NOTE", "source": "Review platform's note (fictitious)", "authority": "platform",
            "text": "Star ratings could not be carried over in the import; the author has not re-rated it and has not "
                    "replied to our message."}
    case["evidence"].append(note)
    verdict = _verdict(tmp_path, case)
    assert verdict["needs_human_review"] is True
    assert any('how the text was meant: NOTE says' in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_words_a_transcript_could_not_make_out_are_read_as_unknown(tmp_path):
    text = ("Came in for a parcel on Saturday and the queue was out the door. The lad on the counter was [inaudible] "
            "and, well, I've never seen anything like it. I'll definitely be telling everyone about you.")
    verdict = _verdict(tmp_path, _one_text("voicemail", "Voicemail transcript", "transcript", text,
                                           "Automatic transcript of a voicemail (fictitious depot)"))
    assert verdict["needs_human_review"] is True
    assert any('what the words marked "[inaudible]" said' in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
    plain = text.replace("[inaudible]", "brilliant")
    verdict = _verdict(tmp_path, _one_text("voicemail_plain", "Voicemail transcript", "transcript", plain,
                                           "Automatic transcript of a voicemail (fictitious depot)"))
    assert not any("[inaudible]" in r for r in verdict["escalation_reasons"])


def test_a_part_replaced_after_failing_its_weekly_check_is_a_change_not_a_routine(tmp_path):
    assert nothing_fails("The probe was replaced after the old one failed its weekly check.") is None
    assert nothing_fails("The rebalance runs weekly.")
    case = _incident("ph_probe", "Since 6 June 2026 aluminium in the (fictitious) works' treated water has been above "
                                 "its alert level. What is the root cause?", [
        {"id": "C1", "source": "config: works change record, June 2026", "date": "2026-06-05T12:00:00",
         "text": "5 June: coagulation pH probe replaced after the old one failed its weekly check; the technician "
                 "calibrated the new probe with buffers from the stores."},
        {"id": "M1", "source": "metrics: laboratory results", "date": "2026-06-22T12:00:00",
         "text": "Bench pH 1-4 June 6.5-6.7; 6-22 June 7.2-7.4 while the online probe read 6.6. Treated water "
                 "aluminium 1-5 June 24-38 µg/l; 6-22 June 64-168 µg/l."}])
    verdict = _run(tmp_path, case, "refinement")
    cause = verdict["answer"].split("\n")[0]
    assert cause.startswith('Root cause: the change just before the first anomaly, "5 June: coagulation pH probe '
                            'replaced'), cause
    assert not any("also happens when nothing fails" in r for r in verdict["escalation_reasons"])


def test_a_setting_nobody_can_say_leaves_the_cause_open(tmp_path):
    assert states_doubt("No export from before the update exists; the supplier cannot say what the setting was.")
    case = _incident("weighbridge", "Since 12 November 2025 the (fictitious) site's weighbridge reads heavy at "
                                    "opening. What is the root cause?", [
        {"id": "C1", "source": "config: weighbridge change record", "date": "2025-12-05T17:00:00",
         "text": "10 November: ticketing software updated from 5.8 to 6.1 by the supplier. Configuration export of "
                 "2 December: automatic zero tracking OFF. No export from before the update exists; the supplier "
                 "cannot say what the setting was."},
        {"id": "L1", "source": "log: opening empty-deck readings", "date": "2025-12-05T17:00:00",
         "text": "Empty deck at opening: October 0 to +20 kg; from 12 November +180 to +260 kg on frosty mornings."}])
    verdict = _run(tmp_path, case, "refinement")
    assert verdict["needs_human_review"] is True
    assert any("cannot say what the setting was" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_change_its_record_denies_is_no_change(tmp_path):
    assert changes_in("Screen (louvred, white, sensor 1.25 m above ground) not moved or altered.", record=True) == ()
    assert changes_in("The screen was moved on 3 May.", record=True) == ("moved",)
    case = _incident("weather_screen", "Since 17 May 2026 the (fictitious) school weather station's daily maxima run "
                                       "2 °C above its neighbours' on sunny days. What is the root cause?", [
        {"id": "C1", "source": "config: station change record, May 2026", "date": "2026-05-31T18:00:00",
         "text": "12 May: data logger firmware updated from v3.2 to v3.4. 17 May: the grass round the thermometer "
                 "screen replaced by black rubber surfacing. Screen (sensor 1.25 m above ground) not moved or altered."},
        {"id": "L1", "source": "log: daily maxima against the neighbouring station", "date": "2026-06-30T21:00:00",
         "text": "12-16 May: within 0.3 °C. From 17 May, on sunny calm days: +1.5 to +2.8 °C."}])
    verdict = _run(tmp_path, case, "refinement")
    cause = verdict["answer"].split("\n")[0]
    assert cause.startswith('Root cause: the change just before the first anomaly, "17 May: the grass round the '
                            'thermometer screen replaced'), cause


def test_a_rating_written_in_words_is_the_reviewers_own(tmp_path):
    assert ratings_in("Two out of five, and one of those is for Mrs Okafor.") == [2.0]
    assert ratings_in("Two out of five pupils said they liked it.") == []
    text = ("The pizza sat under a heat lamp for an hour. The queue took twenty minutes. The salad bar is genuinely "
            "good. Two out of five.")
    case = _one_text("canteen_column", "Canteen column", "review", text, "Student newspaper column (fictitious school)")
    case["question"] += " And what is the sentiment towards each aspect (pizza, queue, salad bar)?"
    case["signals"] = {
        "text": text, "language": "en", "aspect_terms": ["pizza", "queue", "salad bar"], "synonym_hints": {},
        "stage1_ate": {"aspects": ["pizza", "queue", "salad bar"]},
        "stage1_atsa": {"aspect_sentiments": [
            {"aspect": "pizza", "polarity": "negative"}, {"aspect": "queue", "polarity": "negative"},
            {"aspect": "salad bar", "polarity": "positive"}]}}
    verdict = _verdict(tmp_path, case)
    assert "(the reviewer's own rating: 2 of 5)" in verdict["answer"], verdict["answer"]


def test_a_mixed_reading_the_reviewers_own_rating_takes_a_side_on_goes_to_a_person(tmp_path):
    def case(rating: str) -> dict:
        text = (f"The guide was lovely and the river was beautiful. The pans were awful, rusty and broken. "
                f"{rating}")
        one = _one_text("panning_" + rating[0], "Panning review", "review", text, "Review of a panning trail (fictitious)")
        one["question"] += " And what is the sentiment towards each aspect (guide, river, pans)?"
        return one

    verdict = _verdict(tmp_path, case("2/5"))
    assert verdict["needs_human_review"] is True
    assert any("its parts read both ways, while its own rating (2 of 5) is negative" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]
    verdict = _verdict(tmp_path, case("3/5"))
    assert not any("its parts read both ways" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_an_answer_no_agreed_claim_gives_goes_to_a_person():
    from debate_core.protocols.cross_critique.answer_rules import NO_AGREED_ANSWER, no_agreed_answer

    reason = no_agreed_answer(f"{NO_AGREED_ANSWER} Supporting points: (1) Foot health practitioners cut nails.")
    assert reason and reason.startswith("none of the claims the agents agreed on answers the question")
    assert no_agreed_answer("No: both titles are protected. [regulation_adviser.C1]") is None



def test_a_choice_the_agreed_claims_leave_unanswered_goes_to_a_person(tmp_path):
    # A dev case whose agreed claims say who may use the titles but not whether she may.
    path = next(Path(__file__).resolve().parents[1].glob("data/eval/dev/d48_cc_podiatrist_protected_title_*.json"))
    case = json.loads(path.read_text(encoding="utf-8"))
    verdict = _run(tmp_path, case, "cross_critique")
    assert verdict["answer"].startswith("The agreed claims do not answer the question."), verdict["answer"]
    assert verdict["needs_human_review"] is True
    assert "no_agreed_answer" in verdict["applied_rules"], verdict["applied_rules"]


def test_a_writer_who_cannot_swear_to_the_figures_holds_them_open(tmp_path):
    assert states_doubt("Only I wasn't on shift for either, and I can't swear to the split.")
    assert states_doubt("I can't be sure which it was.")
    assert states_doubt("I'm not sure which version was voted on.")
    assert not states_doubt("I can swear to it: I was on shift.")
    manager = {"id": "MANAGER", "source": "Email from the lift manager (fictitious)", "authority": "client",
               "date": "2026-10-21",
               "text": "The long stop was mostly the board wait, I think, but I wasn't on site and I can't swear to "
                       "the availability figure either way."}
    verdict = _run(tmp_path, _arbitration("What was the lift's availability in Q3 2026 under the contract?",
                                          _LIFT_REPORTS, [*_LIFT_EVIDENCE, manager]), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("MANAGER says the point is still open") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_rating_the_review_says_it_changed_from_is_not_its_own(tmp_path):
    text = "The surveyor was excellent and knew his stuff. The treatment visits never happened and the plan failed."
    case = _one_text("knotweed_update", "Updated review", "updated review", text,
                     "Updated review of a weed treatment firm (fictitious)")
    case["question"] += " And what is the sentiment towards each aspect (surveyor, treatment visits)?"
    case["evidence"].append({"id": "RATING", "source": "Same review, rating (fictitious)", "authority": "primary",
                             "text": "Rating: 1 of 5 (changed from 4 of 5)."})
    verdict = _verdict(tmp_path, case)
    assert verdict["answer"].startswith("The overall sentiment is negative"), verdict["answer"]


def test_love_that_for_us_is_said_in_praise_and_in_irony_alike(tmp_path):
    text = "The 07:25 bus rolled up at 07:52 again this morning. Love that for us. The driver is lovely."
    verdict = _verdict(tmp_path, _one_text("bus_comment", "Bus comment", "comment", text,
                                           "Parent's comment on a school transport page (fictitious)"))
    assert verdict["needs_human_review"] is True
    assert any('whether "Love that for us" is praise or irony' in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_question_offering_two_close_figures_asks_to_choose_between_them(tmp_path):
    reports = [
        {"agent": "Results", "metric": "club_10k_record", "value": 2038, "unit": "seconds",
         "citation": "[Per extraction: 'chip 33:58' from the race results]", "source": "Race results",
         "period": "12 April 2026", "confidence": 0.7, "interpretation": "33:58 is the new club record"},
        {"agent": "Records", "metric": "club_10k_record", "value": 2061, "unit": "seconds",
         "citation": "[Per extraction: 'the list stays at 34:21' from the records officer]",
         "source": "Records officer", "period": "22 April 2026", "confidence": 0.7,
         "interpretation": "the record stays 34:21"}]
    evidence = [
        {"id": "RESULTS", "source": "Race results (fictitious)", "authority": "race organiser", "date": "2026-04-12",
         "text": "3 Sam Oduya, chip 33:58."},
        {"id": "RECORDS", "source": "Email from the records officer (fictitious)", "authority": "club",
         "date": "2026-04-22", "text": "For now the list stays at 34:21."}]
    verdict = _run(tmp_path, _arbitration("What is the club's 10K road record: 33:58 or 34:21?", reports, evidence),
                   "arbitration")
    assert verdict["needs_human_review"] is True
    assert "escalate.differ_under_threshold" in verdict["applied_rules"], verdict["applied_rules"]
    verdict = _run(tmp_path, _arbitration("What are the two 10K times on record?", reports, evidence), "arbitration")
    assert "escalate.differ_under_threshold" not in verdict["applied_rules"], verdict["applied_rules"]


def test_a_business_with_no_record_of_the_reviewer_leaves_who_the_review_is_about_open(tmp_path):
    text = "Two hours late, the van was too small and they took a chunk out of the banister. Never again."
    case = _one_text("cleaner_review", "Cleaning firm review", "review", text, "Review of a cleaning firm (fictitious)")
    case["evidence"].append({"id": "REPLY", "source": "The firm's reply under the review (fictitious)",
                             "authority": "business reply",
                             "text": "Hi M., we're sorry to read this, but we can't find any booking under your name, "
                                     "and we don't do removals. Is it possible you booked another firm?"})
    verdict = _verdict(tmp_path, case)
    assert verdict["needs_human_review"] is True
    assert any('who the text is about: REPLY says "we\'re sorry to read this, but we can\'t find any booking' in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]
