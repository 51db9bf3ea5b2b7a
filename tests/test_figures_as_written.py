"""Figures as results sheets write them: a time given as "42:42" is the 2,562 seconds a report gives,
so the report's figure is found in its own source. Driven through the CLI on a case written here
(all fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _run
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.protocols.arbitration.contradictions import durations, quoted_numbers


def test_a_colon_written_duration_is_its_total_in_the_smaller_unit():
    assert durations("course 38:42, result 42:42; marathon 2:35:10") == [2322.0, 2562.0, 9310.0]
    assert 2562.0 in quoted_numbers("2 Freya Lind: result 42:42.")
    assert durations("version 1.2:3, ratio 3:125") == []


def test_times_in_seconds_are_found_in_a_results_sheet_that_writes_minutes_and_seconds(tmp_path):
    reports = [
        {"agent": "Newsletter", "metric": "result_time", "value": 1930, "unit": "seconds",
         "citation": "[Per extraction: 'fastest round the course in 32:10' from the club newsletter]",
         "source": "Club newsletter", "period": "Club championship, May 2026", "confidence": 0.6,
         "interpretation": "her course time, the fastest of the day"},
        {"agent": "Results", "metric": "result_time", "value": 2050, "unit": "seconds",
         "citation": "[Per extraction: 'course 32:10, two penalty minutes, result 34:10' from the official results]",
         "source": "Official results", "period": "Club championship, May 2026", "confidence": 0.8,
         "interpretation": "her result time, with two penalty minutes added"}]
    evidence = [
        {"id": "RESULTS", "source": "Official results, club championship, May 2026 (fictitious)",
         "authority": "official", "date": "2026-05-09",
         "text": "1 Ana Roe: course 33:01, no penalties, result 33:01. 2 Kit Vale: course 32:10, two penalty "
                 "minutes, result 34:10."},
        {"id": "NEWSLETTER", "source": "Club newsletter, May 2026 (fictitious)", "authority": "newsletter",
         "date": "2026-05-12", "text": "Kit Vale was fastest round the course in 32:10!"}]
    verdict = _run(tmp_path, _arbitration("What was Kit Vale's result time in the club championship?",
                                          reports, evidence), "arbitration")
    assert verdict["answer"].startswith("Use 2,050 seconds"), verdict["answer"]
    assert "neither appears in its own cited source" not in " ".join(verdict["escalation_reasons"])


def test_what_is_the_measure_asks_for_one_figure_so_two_measures_go_to_a_person(tmp_path):
    reports = [
        {"agent": "Handout", "metric": "dough_hydration", "value": 75, "unit": "% (water to flour)",
         "citation": "[Per extraction: 'water over flour: 375 / 500 = 75%' from the class handout]",
         "source": "Class handout", "period": "May 2026", "confidence": 0.75,
         "interpretation": "the dough is 75% hydration"},
        {"agent": "Forum", "metric": "dough_hydration", "value": 42.9, "unit": "% (water in the dough)",
         "citation": "[Per extraction: '375 g of water in 875 g of dough is 42.9%' from a forum post]",
         "source": "Bakers' forum", "period": "May 2026", "confidence": 0.55,
         "interpretation": "the dough is only 42.9% water"}]
    evidence = [
        {"id": "HANDOUT", "source": "Class handout, May 2026 (fictitious)", "authority": "official",
         "date": "2026-05-01", "text": "Flour 500 g, water 375 g. Hydration is water over flour: 375 / 500 = 75%."},
        {"id": "FORUM", "source": "Bakers' forum post (fictitious)", "authority": "forum", "date": "2026-05-09",
         "text": "375 g of water in 875 g of dough is 42.9%, hardly a wet dough."}]
    verdict = _run(tmp_path, _arbitration("What is the dough's hydration as bakers measure it?", reports, evidence),
                   "arbitration")
    assert verdict["needs_human_review"] is True, verdict["answer"]
    assert any(r.startswith("the question asks for one figure") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_in_tune_against_out_of_tune_is_a_contradiction_however_close_the_figures():
    from debate_core.protocols.arbitration.contradictions import interpretation_conflict

    assert interpretation_conflict("so it is 32 cents flat and out of tune", "the measured note is in tune") == \
        ("reference", "out of tune", "in tune")
    assert interpretation_conflict("within spec", "out of spec") == ("reference", "within spec", "out of spec")
    assert interpretation_conflict("it is not out of tune", "it is in tune") is None


def test_one_figure_in_two_units_is_shown_in_each_unit(tmp_path):
    reports = [
        {"agent": "HarbourMaster", "metric": "course_length", "value": 4, "unit": "nautical miles",
         "citation": "[Per extraction: 'course 4.0 nautical miles' from the harbour notice]",
         "source": "Harbour notice", "period": "Race day 2026", "confidence": 0.8, "interpretation": "the course"},
        {"agent": "Programme", "metric": "course_length", "value": 4.6, "unit": "miles",
         "citation": "[Per extraction: 'a 4.6 mile course' from the race programme]",
         "source": "Race programme", "period": "Race day 2026", "confidence": 0.6, "interpretation": "the course"}]
    evidence = [
        {"id": "NOTICE", "source": "Harbour notice (fictitious)", "authority": "official", "date": "2026-05-01",
         "text": "Raft race: course 4.0 nautical miles, out and back."},
        {"id": "PROGRAMME", "source": "Race programme (fictitious)", "authority": "programme", "date": "2026-05-02",
         "text": "Paddle our 4.6 mile course!"}]
    verdict = _run(tmp_path, _arbitration("How long is the raft race course?", reports, evidence), "arbitration")
    assert "4 nautical miles (4.603 miles) and 4.6 miles (3.997 nautical miles), the same figure once converted" \
        in verdict["answer"], verdict["answer"]
