"""A figure the cited passage gives in the same unit for something else ("Green coffee charged:
612.0 kg" beside "Roasted coffee out: 517.8 kg") is no misread unit, and the answer quotes what it
counts next to what the kept figure rests on; a writer who says nobody counted what would settle
the point ("We can't check the spoiled cones - nobody counted them") holds it open. Driven through
the CLI on cases written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _run
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.text import states_doubt

ROAST_LOG = ("Batches: 153 on the 5 kg drum roaster. Green coffee charged: 612.0 kg. Roasted coffee out: 517.8 kg. "
             "Average roast loss 15.4%.")


def _roastery(question: str) -> dict:
    reports = [
        {"agent": "Board", "metric": "coffee_roasted_march", "value": 612, "unit": "kg",
         "citation": "[Per extraction: 'MARCH: 612 KG ROASTED' from the Instagram post]", "source": "Instagram post",
         "period": "March 2026", "confidence": 0.7, "interpretation": "612 kg were roasted in March"},
        {"agent": "RoastLog", "metric": "coffee_roasted_march", "value": 517.8, "unit": "kg",
         "citation": "[Per extraction: 'Green coffee charged: 612.0 kg. Roasted coffee out: 517.8 kg' from the "
                     "roast log]", "source": "Roast log", "period": "March 2026", "confidence": 0.8,
         "interpretation": "517.8 kg were roasted in March"}]
    evidence = [
        {"id": "ROAST_LOG", "source": "Roast log monthly summary, March 2026 (fictitious)",
         "authority": "production record", "date": "2026-04-01", "text": ROAST_LOG},
        {"id": "INSTAGRAM", "source": "Instagram post (fictitious)", "authority": "social media",
         "date": "2026-04-01", "text": "MARCH: 612 KG ROASTED!!! Target smashed."}]
    return _arbitration(question, reports, evidence)


def test_a_figure_in_the_same_unit_for_something_else_is_not_a_misread_unit(tmp_path):
    verdict = _run(tmp_path, _roastery("How much coffee did the roastery roast in March?"), "arbitration")
    answer = verdict["answer"]
    assert answer.startswith("Use 517.8 kg"), answer
    assert "in the wrong unit" not in answer, answer
    assert 'gives the other figure for something else: "Green coffee charged: 612.0 kg"' in answer, answer
    assert 'the figure kept rests on "Green coffee charged: 612.0 kg. Roasted coffee out: 517.8 kg"' in answer, answer


def test_nobody_counted_it_holds_the_point_open(tmp_path):
    assert states_doubt("We can't check the spoiled cones or the freebies - nobody counted them.")
    assert states_doubt("We cannot verify the cash total.")
    assert not states_doubt("The steward counted them at 17:30 and we checked the total.")
    reports = [
        {"agent": "Trader", "metric": "floss_stall_gross_takings_gala", "value": 1140, "unit": "GBP",
         "citation": "[Per extraction: 'Total £1,140' from the trader's takings return]", "source": "Takings return",
         "period": "4 July 2026", "confidence": 0.8, "interpretation": "the stall took £1,140"},
        {"agent": "Cones", "metric": "floss_stall_gross_takings_gala", "value": 1610, "unit": "GBP",
         "citation": "[Per extraction: '322 cones used' from the treasurer's cone log]", "source": "Cone log",
         "period": "4 July 2026", "confidence": 0.6, "interpretation": "322 cones at £5 make £1,610"}]
    evidence = [
        {"id": "RETURN", "source": "Takings return (fictitious)", "authority": "official", "date": "2026-07-04",
         "text": "Floss stall gross takings at the gala: cash £620, card £520. Total £1,140."},
        {"id": "CONE_LOG", "source": "Cone log (fictitious)", "authority": "notes", "date": "2026-07-04",
         "text": "Floss stall at the gala: 400 cones issued, 78 returned, 322 used at £5, gross takings £1,610."},
        {"id": "TREASURER", "source": "Email from the treasurer (fictitious)", "authority": "committee",
         "date": "2026-07-06", "text": "We can't check the spoiled cones or the free cones - nobody counted them."}]
    verdict = _run(tmp_path, _arbitration("What were the floss stall's gross takings at the gala?", reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("TREASURER says the point is still open") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
