"""A change record whose items open with days the reading cannot place ("Tue 24 Feb:") leaves open
which change came just before the failure; one number on two scales that do not convert (0.2 logMAR
and decimal 0.2) is no agreement; a passage saying that where the rejected figure was taken is not
what counts is quoted; "we can't say before then whether" holds a point open. Driven through the CLI
on cases written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run
from test_panel_aspect_quotes import _one_text, _verdict
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.text import states_doubt

BAKERY = {
    "id": "bakery_ovens", "title": "Bakery loaves under-baked",
    "question": "Since 6 March 2026 the (fictitious) Hollin Lane bakery's tin loaves from oven 2 come out pale "
                "and doughy in the middle. What is the root cause, and how should it be fixed and prevented?",
    "evidence": [
        {"id": "C1", "kind": "config", "source": "Bakery change record, March 2026 (fictitious)",
         "text": "Mon 2 Mar: new flour supplier for all bread lines. Wed 4 Mar: oven 2 door seal replaced by the "
                 "service firm. Thu 5 Mar: proving cabinet timer reset to 40 minutes after a power cut."},
        {"id": "L1", "kind": "log", "source": "Bake sheets, oven 2, March 2026 (fictitious)",
         "text": "6 Mar: 14 of 40 tin loaves pale and doughy. 9 Mar: 18 of 40. Oven 1 loaves from the same dough: "
                 "all fine."}]}


def test_changes_on_days_the_reading_cannot_place_leave_the_cause_open(tmp_path):
    verdict = _run(tmp_path, BAKERY, "refinement")
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if "which of the changes C1 lists on different days" in r)
    assert '"Wed 4 Mar: oven 2 door seal replaced by the service firm"' in reason


def test_a_record_whose_days_are_read_is_not_held_open_for_them(tmp_path):
    dated = {**BAKERY, "evidence": [
        {**BAKERY["evidence"][0], "text": "2 March 2026: new flour supplier for all bread lines. 4 March 2026: oven 2 "
                                          "door seal replaced by the service firm."},
        BAKERY["evidence"][1]]}
    verdict = _run(tmp_path, dated, "refinement")
    assert not any("lists on different days" in r for r in verdict["escalation_reasons"])


ACUITY_REPORTS = [
    {"agent": "Optometrist", "metric": "acuity_both_eyes", "value": 0.2, "unit": "logMAR",
     "citation": "[Per extraction: 'ETDRS logMAR chart at 4 m: both eyes 0.20' from the check sheet]",
     "source": "Clinic check sheet", "period": "9 March 2026", "confidence": 0.8,
     "interpretation": "0.20 logMAR is better than the standard, so she may drive"},
    {"agent": "Forum", "metric": "acuity_both_eyes", "value": 0.2, "unit": "decimal",
     "citation": "[Per extraction: '0.2 is 20/100' from a forum post]", "source": "Patients' forum",
     "period": "9 March 2026", "confidence": 0.5,
     "interpretation": "0.2 is far below the decimal 0.5 minimum, so she may not drive"}]
ACUITY_EVIDENCE = [
    {"id": "sheet", "source": "Clinic check sheet, 9 March 2026 (fictitious)", "authority": "clinic",
     "text": "Chart: ETDRS logMAR at 4 m. Both eyes unaided: 0.20."},
    {"id": "forum", "source": "Patients' forum post, 10 March 2026 (fictitious)", "authority": "forum",
     "text": "0.2 is 20/100, and the minimum is 0.5, so she can't drive."}]


def test_one_number_on_two_scales_that_do_not_convert_is_not_agreement(tmp_path):
    verdict = _run(tmp_path, _arbitration("Does her recorded acuity meet the driving standard?", ACUITY_REPORTS,
                                          ACUITY_EVIDENCE), "arbitration")
    assert "the figures agree" not in verdict["answer"]
    assert verdict["needs_human_review"] is True
    assert any("logMAR" in r and "decimal" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_the_same_number_in_one_unit_still_agrees(tmp_path):
    same = [ACUITY_REPORTS[0], {**ACUITY_REPORTS[1], "unit": "logMAR",
                                "interpretation": "0.20 logMAR is better than the standard, so she may drive"}]
    verdict = _run(tmp_path, _arbitration("Does her recorded acuity meet the driving standard?", same,
                                          ACUITY_EVIDENCE), "arbitration")
    assert "the figures agree" in verdict["answer"]


PLATING_REPORTS = [
    {"agent": "Customer", "metric": "minimum_zinc_thickness", "value": 3.9, "unit": "µm",
     "citation": "[Per extraction: 'Zinc thickness, section through an M8 tapped hole, thread root: 3.9 µm' from goods-in report]",
     "source": "Goods-in inspection report", "period": "Batch 41, May 2026", "confidence": 0.7,
     "interpretation": "The thinnest zinc is 3.9 µm, under the 8 µm minimum, so the batch fails"},
    {"agent": "Plater", "metric": "minimum_zinc_thickness", "value": 8.4, "unit": "µm",
     "citation": "[Per extraction: 'Zinc thickness by XRF on the faces marked S: minimum 8.4 µm' from the certificate]",
     "source": "Plater's certificate", "period": "Batch 41, May 2026", "confidence": 0.7,
     "interpretation": "The minimum on the significant surfaces is 8.4 µm, so the batch passes"}]
PLATING_EVIDENCE = [
    {"id": "drawing", "source": "Customer drawing, finish note (fictitious)", "authority": "customer drawing",
     "date": "2025-11-04",
     "text": "Zinc 8 µm minimum on the faces shaded green. The M8 tapped holes are not significant surfaces."},
    {"id": "cert", "source": "Plater's certificate, batch 41 (fictitious)", "authority": "plater's certificate",
     "date": "2026-05-19", "text": "Zinc thickness by XRF on the faces marked S: minimum 8.4 µm."},
    {"id": "goods_in", "source": "Goods-in inspection report, batch 41 (fictitious)", "authority": "customer inspection",
     "date": "2026-05-24", "text": "Zinc thickness, section through an M8 tapped hole, thread root: 3.9 µm. Reject."}]


def test_a_passage_saying_where_the_rejected_figure_was_taken_does_not_count_is_quoted(tmp_path):
    verdict = _run(tmp_path, _arbitration("What zinc thickness counts against the drawing, and does batch 41 pass?",
                                          PLATING_REPORTS, PLATING_EVIDENCE), "arbitration")
    assert "Use 8.4 µm" in verdict["answer"]
    assert ('says of where the other figure was taken: "The M8 tapped holes are not significant surfaces"'
            in verdict["answer"])


def test_a_writer_who_cannot_say_before_a_date_holds_the_point_open():
    assert states_doubt("We can't say before then whether there was a fault.")
    assert states_doubt("We cannot say yet whether the card was at fault.")
    assert not states_doubt("We can say before then that the card was cleaned.")


def test_a_writer_who_cannot_tell_from_the_results_holds_the_point_open():
    assert states_doubt("I can't tell you from these results whether the flock still has scab.")
    assert states_doubt("We cannot say from the log which pump failed.")
    assert not states_doubt("I can't tell you how pleased we are.")
    assert not states_doubt("We can't say enough about which staff helped.")


SCORE_REPORTS = [
    {"agent": "Shopper", "metric": "branch_visit_score", "value": 82, "unit": "%",
     "citation": "[Per extraction: 'Branch visit score 82%' from the shopper's report]",
     "source": "Shopper's visit report", "period": "Q2 2026 visit", "confidence": 0.7,
     "interpretation": "The branch scored 82%, below the 90% bonus line"},
    {"agent": "Manager", "metric": "branch_visit_score", "value": 91, "unit": "%",
     "citation": "[Per extraction: 'Branch visit score should be 91%' from the manager's appeal]",
     "source": "Branch manager's appeal", "period": "Q2 2026 visit", "confidence": 0.6,
     "interpretation": "The branch scored 91%, above the 90% bonus line"}]
SCORE_EVIDENCE = [
    {"id": "report", "source": "Shopper's visit report, Q2 2026 (fictitious)", "authority": "agency",
     "date": "2026-04-14", "text": "Branch visit score 82%: the greeting item was failed."},
    {"id": "appeal", "source": "Branch manager's appeal, Q2 2026 (fictitious)", "authority": "branch",
     "date": "2026-04-14", "text": "Branch visit score should be 91%: the greeting came in time."}]


def test_a_ruling_only_the_agents_own_confidence_decides_goes_to_a_person(tmp_path):
    verdict = _run(tmp_path, _arbitration("What is the branch visit score for Q2 2026?", SCORE_REPORTS,
                                          SCORE_EVIDENCE), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any("only the agents' own confidence chose Shopper's" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_ruling_the_sources_decide_is_not_held_for_the_agents_confidence(tmp_path):
    dated = [SCORE_EVIDENCE[0], {**SCORE_EVIDENCE[1], "date": "2025-01-10"}]
    verdict = _run(tmp_path, _arbitration("What is the branch visit score for Q2 2026?", SCORE_REPORTS, dated),
                   "arbitration")
    assert not any("only the agents' own confidence" in r for r in verdict["escalation_reasons"])


def test_complaints_before_not_here_are_set_aside_as_about_another_place(tmp_path):
    text = ("The last archive I used had a reader that squealed and blurry film. Not here. The new scanners are "
            "sharp and the staff were lovely.")
    verdict = _verdict(tmp_path, _one_text("archive", "Archive review", "review", text,
                                           "Review of a record office (fictitious)"))
    assert ('What the text says before "Not here." is about another time, place or firm, not the one reviewed: '
            '"The last archive I used had a reader that squealed and blurry film."') in verdict["answer"]


def test_a_text_without_a_turn_sets_nothing_aside(tmp_path):
    text = "The reader squealed and the film was blurry. The staff were lovely, though."
    verdict = _verdict(tmp_path, _one_text("archive", "Archive review", "review", text,
                                           "Review of a record office (fictitious)"))
    assert "another time, place or firm" not in verdict["answer"]


def test_a_notice_that_is_dropping_a_requirement_withdraws_it(tmp_path):
    case = _rule_case(
        "garden_share",
        "Knowledge gap: write one ASP rule defining may_join_scheme(P) with the knowledge-base predicates, so that "
        "it agrees with the garden share scheme's rules as they stand in May 2026.",
        "Predicates, over a person P: local_resident(P): P lives in the parish; full_time_work(P): P works 30 hours "
        "a week or more; references_ok(P): two satisfactory references for P are back.",
        [{"id": "RULES", "source": "Garden share scheme rules, 2024 (fictitious)", "authority": "scheme rules",
          "date": "2024-02-01",
          "text": "You need to live in the parish and be in full-time work, and two satisfactory references "
                  "must be back before you join."},
         {"id": "NOTICE", "source": "Scheme notice, 1 March 2026 (fictitious)", "authority": "scheme rules",
          "date": "2026-03-01",
          "text": "From 1 March we're dropping the full-time work requirement. Everything else stays as it is."}])
    verdict = _run(tmp_path, case, "dialectic")
    rule = verdict["answer"].split("Left out")[0]
    assert "may_join_scheme(P) :-" in rule and "full_time_work" not in rule, verdict["answer"]
    assert "local_resident(P)" in rule and "references_ok(P)" in rule


def test_a_test_booked_for_a_later_day_holds_the_point_open():
    assert states_doubt("Surveyor booked for 12 January 2026: borescope inspection of the west gable cavity.")
    assert states_doubt("Engineer booked for Tuesday 3 March - pressure test of the loop.")
    assert not states_doubt("Delivery booked for 12 May.")


AGE_REPORTS = [
    {"agent": "Brochure", "metric": "average_age_of_residents", "value": 74, "unit": "years",
     "citation": "[Per extraction: 'the average age is 74' from the brochure, defined in the data note as 'the "
                 "average age of current residents on the date each of them moved in']",
     "source": "Village operator's brochure", "period": "Residents at 1 April 2026", "confidence": 0.7,
     "interpretation": "The average resident is 74"},
    {"agent": "Census", "metric": "average_age_of_residents", "value": 81, "unit": "years",
     "citation": "[Per extraction: 'Average age on 15 June 2026: 81' from the residents' census]",
     "source": "Residents' association census", "period": "15 June 2026", "confidence": 0.75,
     "interpretation": "The average resident is 81"}]
AGE_EVIDENCE = [
    {"id": "brochure", "source": "Village operator's brochure, 2026 (fictitious)", "authority": "operator",
     "date": "2026-04-01", "text": "Our residents' average age is 74. Data note: the average age of current residents "
                                  "on the date each of them moved in."},
    {"id": "census", "source": "Residents' association census, June 2026 (fictitious)", "authority": "residents",
     "date": "2026-06-15", "text": "All 212 residents counted. Average age on 15 June 2026: 81."}]


def test_what_a_citation_defines_its_figure_as_is_said_with_the_periods(tmp_path):
    verdict = _run(tmp_path, _arbitration("What is the average age of the village's residents?", AGE_REPORTS,
                                          AGE_EVIDENCE), "arbitration")
    assert ("and Brochure's figure is defined as 'the average age of current residents on the date each of them "
            "moved in'") in verdict["answer"], verdict["answer"]


def test_results_still_to_come_hold_a_point_open():
    assert states_doubt("No formal action pending the outcome.")
    assert states_doubt("We are told results should come by the end of June.")
    assert states_doubt("I've taken it off sale until we know where we stand.")
    assert states_doubt("The entries for 5-6 June were not recovered.")
    assert not states_doubt("The results will be in the annual report.")
    assert not states_doubt("Patent pending.")


def test_figures_both_standing_are_held_open_when_the_record_says_the_point_is(tmp_path):
    evidence = [*AGE_EVIDENCE, {"id": "council", "source": "Council planning officer's note (fictitious)",
                                "authority": "council", "date": "2026-06-20",
                                "text": "The average age of residents is disputed; no decision on the second phase "
                                        "pending the outcome of the residents' survey."}]
    verdict = _run(tmp_path, _arbitration("What is the average age of the village's residents?", AGE_REPORTS,
                                          evidence), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("council says the point is still open") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
