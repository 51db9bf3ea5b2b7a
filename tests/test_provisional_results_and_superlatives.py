"""A result that "stays provisional" until a ruling holds the point open, and "Which is the largest
known piece?" asks to choose between close figures. Driven through the CLI on cases written here
(fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _run
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.text import states_doubt


def test_a_result_that_stays_provisional_until_a_ruling_is_still_open(tmp_path):
    assert states_doubt("Until that ruling the Open final result stays provisional.")
    assert states_doubt("Results in that final are provisional.")
    assert not states_doubt("The jury ruled on 12 September: the result stands.")
    reports = [
        {"agent": "Table", "metric": "lennox_final_time", "value": 372, "unit": "seconds",
         "citation": "[Per extraction: 'Lennox: result 6:12' from the table judge's scorecard]",
         "source": "Table judge's scorecard", "period": "Open final, 30 August 2026", "confidence": 0.8,
         "interpretation": "her time is 6:12 with a penalty"},
        {"agent": "Recount", "metric": "lennox_final_time", "value": 252, "unit": "seconds",
         "citation": "[Per extraction: 'eight flakes, 4:12' from the head judge's recount]",
         "source": "Head judge's recount", "period": "Open final, 30 August 2026", "confidence": 0.6,
         "interpretation": "her time is 4:12 with no penalty"}]
    evidence = [
        {"id": "SCORECARD", "source": "Table judge's scorecard (fictitious)", "authority": "official record",
         "date": "2026-08-30", "text": "Lennox: time 4:12, flakes 7, penalty 2:00, result 6:12."},
        {"id": "RECOUNT", "source": "Head judge's recount (fictitious)", "authority": "officials", "date": "2026-08-30",
         "text": "Recount at 17:10: eight flakes in Lennox's vial, so 4:12."},
        {"id": "JURY", "source": "Email from the appeal jury (fictitious)", "authority": "championship officials",
         "date": "2026-09-02", "text": "The jury will meet on 12 September and rule on the Lennox appeal. Until that "
                                       "ruling the Open final result stays provisional."}]
    verdict = _run(tmp_path, _arbitration("What was Lennox's final time in the Open final?", reports, evidence),
                   "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("JURY says the point is still open") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_which_is_the_largest_asks_to_choose_between_close_figures(tmp_path):
    reports = [
        {"agent": "Museum", "metric": "largest_piece_mass", "value": 23.41, "unit": "kg",
         "citation": "[Per extraction: 'Mass 23.41 kg' from the museum record]", "source": "Museum record",
         "period": "2026", "confidence": 0.8, "interpretation": "the museum's piece weighs 23.41 kg"},
        {"agent": "University", "metric": "largest_piece_mass", "value": 23.6, "unit": "kg",
         "citation": "[Per extraction: '52 lb' from the university catalogue]", "source": "University catalogue",
         "period": "2026", "confidence": 0.7, "interpretation": "the university's piece weighs about 23.6 kg"}]
    evidence = [
        {"id": "MUSEUM", "source": "Museum record (fictitious)", "authority": "museum record", "date": "2024-03-14",
         "text": "Mass 23.41 kg on the calibrated platform scale."},
        {"id": "UNIVERSITY", "source": "University catalogue (fictitious)", "authority": "university catalogue",
         "date": "2019-01-01", "text": "Mass: 52 lb (1883 catalogue), about 23.6 kg."}]
    verdict = _run(tmp_path, _arbitration("Which is the largest known piece of the meteorite?", reports, evidence),
                   "arbitration")
    assert verdict["needs_human_review"] is True
    assert "escalate.differ_under_threshold" in verdict["applied_rules"], verdict["applied_rules"]
    assert "The question asks to choose between them" in verdict["answer"], verdict["answer"]
    # Asked for the figures, not which is the most, close figures still agree.
    verdict = _run(tmp_path, _arbitration("What do the records give for the pieces' masses?", reports, evidence),
                   "arbitration")
    assert verdict["answer"].startswith("The reports agree"), verdict["answer"]
