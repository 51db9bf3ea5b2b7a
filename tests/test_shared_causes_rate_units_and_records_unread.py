"""A root cause the failing units share with the sound ones ("Same flour, same recipe in all four
ovens") goes to a person; two figures whose units are both rates ("g per 100 g") are not a rate
against a whole because one citation also quotes a portion; a record asked for that may no longer be
kept, a record whose digits cannot be read and a decision nobody can date leave a point open; a
reader who asks which of two things a text means and "can't tell" leaves its meaning open; a label
is shown with up to three sentences that sound the other way; a figure worked out from the other
report's printed one is not ruled out for being unprinted; a forum poster's doubt holds no figure
open. Driven through the CLI on cases written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _run
from test_panel_aspect_quotes import _one_text, _verdict
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.doubt import states_doubt
from debate_core.protocols.arbitration.units import worked_from
from debate_core.protocols.panel.rules.counterweight import other_way_sentences
from debate_core.protocols.refinement.rules import shared_by_all

_REASONERS = [{"id": "log", "name": "Log reasoner", "role": "Reads the logs.", "evidence_kinds": ["log", "metric"]},
              {"id": "kg", "name": "Knowledge reasoner", "role": "Reads past incidents and configuration.",
               "evidence_kinds": ["config", "topology", "history"]},
              {"id": "hybrid", "name": "Hybrid reasoner", "role": "Reads both."}]


def _bakery(record: str) -> dict:
    return {
        "id": "bakery_loaves", "title": "Collapsed loaves", "protocol": "refinement",
        "question": "Since 10 March 2026 loaves from ovens 2 and 4 at the (fictitious) Kelby Street Bakery collapse "
                    "as they cool. In March the bakery switched to a new flour from Ashmill. What is the root cause?",
        "domain_hint": "incident; every party and record is fictitious", "agents": _REASONERS,
        "evidence": [
            {"id": "C1", "kind": "config", "source": "Bakery change record, March 2026 (fictitious)",
             "text": "2 March 2026: flour switched to Ashmill strong white, lot 4471."},
            {"id": "L1", "kind": "log", "source": "Bake log, 10-20 March 2026 (fictitious)",
             "text": "Ovens 2 and 4: 31 of 40 batches collapsed on cooling. Ovens 1 and 3: no collapsed batches. "
                     + record},
            {"id": "M1", "kind": "metric", "source": "Oven probes, March 2026 (fictitious)",
             "text": "Ovens 2 and 4 ran 18-22 degrees below their dial setting; ovens 1 and 3 within 3 degrees."}]}


def test_a_cause_the_sound_units_share_goes_to_a_person(tmp_path):
    verdict = _run(tmp_path, _bakery("Same flour, same recipe and same proving times in all four ovens."),
                   "refinement")
    assert "flour switched to Ashmill" in verdict["answer"].split("\n")[0], verdict["answer"]
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if "the failing and the sound units share" in r)
    assert 'L1 reports "Same flour, same recipe and same proving times in all four ovens."' in reason


def test_a_cause_the_record_does_not_say_is_shared_is_no_such_reason(tmp_path):
    verdict = _run(tmp_path, _bakery("Same recipe and same proving times in all four ovens."), "refinement")
    assert "flour switched to Ashmill" in verdict["answer"].split("\n")[0], verdict["answer"]
    assert not any("the failing and the sound units share" in r for r in verdict["escalation_reasons"])


def test_shared_by_all_needs_the_thing_the_cause_names_and_all_the_units():
    cause = 'Root cause: the change just before the first anomaly, "2 March 2026: flour switched to Ashmill" (C1).'
    assert shared_by_all(cause, "Same flour, same recipe and same proving times in all four ovens.")
    assert not shared_by_all(cause, "Same flour as last year.")  # no unit is said to have it
    assert not shared_by_all(cause, "Not the same flour in all four ovens.")
    assert not shared_by_all(cause, "Same recipe in all four ovens.")  # the recipe is not what the cause names
    # The hypothesis's own opening words ("change", "first anomaly") name nothing shared.
    assert not shared_by_all(cause, "The same first change was made in all four ovens.")


def test_two_rates_are_not_a_rate_against_a_whole(tmp_path):
    reports = [
        {"agent": "DraftLabel", "metric": "sugar_per_100ml", "value": 4.1, "unit": "g per 100 ml",
         "citation": "[Per extraction: 'Sugars 4.1 g. Front of pack, per 250 ml glass: sugars 10.3 g' from the draft label]",
         "source": "Draft label", "period": "May 2026", "confidence": 0.6, "interpretation": "sugars 4.1 g"},
        {"agent": "Technologist", "metric": "sugar_per_100ml", "value": 6.2, "unit": "g per 100 ml",
         "citation": "[Per extraction: 'total sugars 6.2 g per 100 ml' from the technologist's email]",
         "source": "Technologist's email", "period": "May 2026", "confidence": 0.65, "interpretation": "sugars 6.2 g"}]
    evidence = [
        {"id": "DRAFT", "source": "Draft label v2, May 2026 (fictitious)", "authority": "company", "date": "2026-05-04",
         "text": "Nutrition per 100 ml: sugars 4.1 g. Front of pack, per 250 ml glass: sugars 10.3 g."},
        {"id": "EMAIL", "source": "Technologist's email, 6 May 2026 (fictitious)", "authority": "company",
         "date": "2026-05-06", "text": "The lab gives total sugars 6.2 g per 100 ml; the draft left out the added honey."}]
    verdict = _run(tmp_path, _arbitration("How much sugar per 100 ml should the label declare?", reports, evidence),
                   "arbitration")
    assert "is counted per" not in verdict["answer"], verdict["answer"]
    assert "both valid" not in verdict["answer"], verdict["answer"]


def test_records_asked_for_unreadable_or_undated_decisions_leave_the_point_open():
    assert states_doubt("We've asked our supplier for our June 2020 purchases, but they may not keep records that old.")
    assert states_doubt("Serial: V7-22103, last two digits hidden under a fold in the paper.")
    assert states_doubt("Count at intake: 30,7, the rest cut off by the edge of the photo.")
    assert states_doubt("I can't give you a date for the policy group yet.")
    assert not states_doubt("We've asked our supplier for the invoice and it is attached.")
    assert not states_doubt("Serial: V7-2210384, read in full.")
    assert not states_doubt("I can give you a date: 4 June.")


def test_a_reader_who_cannot_tell_which_thing_a_text_means_leaves_it_open(tmp_path):
    text = ("Booked for 10:10, seen at 10:50. The nurse was calm and explained everything. Jab done in seconds. "
            "Never again.")
    case = _one_text("jab_clinic", "Clinic review", "review", text, "Review of a (fictitious) clinic")
    comments = {"id": "R2", "source": "Comments under the review (fictitious)", "authority": "forum",
                "text": "Is 'never again' about the surgery or about leaving it so late? Can't tell"}
    verdict = _verdict(tmp_path, {**case, "evidence": [*case["evidence"], comments]})
    assert verdict["needs_human_review"] is True
    assert any("a reader in R2 asks \"Is 'never again' about the surgery or about leaving it so late? Can't tell\""
               in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_label_is_shown_with_up_to_three_sentences_that_sound_the_other_way():
    text = ("Oh, brilliant. Three hours in a freezing hut. The instructor was lovely, to be fair. The kit bag was a "
            "nice touch. The biscuits were great. Never again.")
    shown = other_way_sentences(text, "negative")
    assert len(shown) == 3
    assert set(shown) <= {"Oh, brilliant", "The instructor was lovely, to be fair", "The kit bag was a nice touch",
                          "The biscuits were great"}


DRONE_REPORTS = [
    {"agent": "LoggerAltitude", "metric": "maximum_altitude", "value": 212, "unit": "m",
     "citation": "[Per extraction: 'Maximum altitude 212 m' from the flight logger export]",
     "source": "Flight logger export", "period": "3 May 2026", "confidence": 0.6,
     "interpretation": "The drone reached 212 m, over the 120 m limit"},
    {"agent": "HeightAboveGround", "metric": "maximum_altitude", "value": 87, "unit": "m",
     "citation": "[Per extraction: 'Take-off point altitude 125 m. Maximum altitude 212 m' from the flight logger export]",
     "source": "Logger altitude less the take-off point's", "period": "3 May 2026", "confidence": 0.6,
     "interpretation": "The drone reached 87 m above the ground, within the 120 m limit"}]
DRONE_EVIDENCE = [
    {"id": "LOGGER", "source": "Flight logger export, 3 May 2026 (fictitious)", "authority": "official",
     "date": "2026-05-03", "text": "Take-off point altitude 125 m. Maximum altitude 212 m. Altitude reference: mean sea level."},
    {"id": "CLUB", "source": "Club safety officer's note, 4 May 2026 (fictitious)", "authority": "company",
     "date": "2026-05-04", "text": "The logger shows 212 m, so the drone went over the 120 m limit."}]


def test_a_figure_worked_out_from_the_printed_one_is_not_ruled_out_for_being_unprinted(tmp_path):
    verdict = _run(tmp_path, _arbitration("How high above the ground did the drone fly?", DRONE_REPORTS,
                                          DRONE_EVIDENCE), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any("which of the two the question asks for: HeightAboveGround's 87 m is worked out from "
               "LoggerAltitude's 212 m" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_worked_from_needs_one_step_from_the_other_figure():
    citation = "[Per extraction: 'Take-off point altitude 125 m. Maximum altitude 212 m']"
    assert worked_from(87, 212, citation)  # 212 - 125
    assert not worked_from(87, 300, citation)  # not worked from the other report's figure
    assert not worked_from(90, 212, citation)  # no one step gives 90
    assert not worked_from(212, 212, "'Maximum altitude 212 m in 2026, 1 reading'")  # years and 1 take no part


def _pass_day(said_by: dict) -> dict:
    reports = [
        {"agent": "Itinerary", "metric": "largest_sleeping_height_gain", "value": 450, "unit": "m",
         "citation": "[Per extraction: 'Night 4 at 3,900 m, night 5 at 4,350 m' from the itinerary]",
         "source": "Trek itinerary", "period": "2026 departures", "confidence": 0.7,
         "interpretation": "the largest gain between sleeping heights is 450 m"},
        {"agent": "Brochure", "metric": "largest_sleeping_height_gain", "value": 850, "unit": "m",
         "citation": "[Per extraction: 'Day 5 climbs 850 m to the pass' from the brochure]",
         "source": "Agency brochure", "period": "2026 departures", "confidence": 0.5,
         "interpretation": "the pass day gains 850 m"}]
    evidence = [
        {"id": "ITINERARY", "source": "Trek itinerary, 2026 departures (fictitious)", "authority": "official",
         "date": "2026-01-10", "text": "Night 4 at 3,900 m, night 5 at 4,350 m; the route crosses a 4,750 m pass on day 5."},
        {"id": "BROCHURE", "source": "Agency brochure, 2026 (fictitious)", "authority": "company",
         "date": "2025-11-01", "text": "Day 5 climbs 850 m to the pass."},
        {"id": "FORUM", "source": "Trekking forum thread, February 2026 (fictitious)", "authority": "forum",
         "date": "2026-02-02", "text": "That pass day is 850 m up, way over the rule. / We all had headaches on the way "
                                       "up to the pass, no idea if that proves anything."},
        said_by]
    return _arbitration("What is the largest gain in sleeping height on the trek?", reports, evidence)


def test_a_forum_posters_doubt_holds_no_point_open_but_a_records_does(tmp_path):
    quiet = {"id": "GUIDE", "source": "Lead guide's note, March 2026 (fictitious)", "authority": "company",
             "date": "2026-03-01", "text": "We sleep at 4,350 m after the pass."}
    verdict = _run(tmp_path, _pass_day(quiet), "arbitration")
    assert not any(r.startswith("FORUM says the point is still open") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
    doubting = {**quiet, "text": "We sleep at 4,350 m after the pass; no idea if the new camp will be ready, the "
                                 "sleeping height is still being checked."}
    verdict = _run(tmp_path, _pass_day(doubting), "arbitration")
    assert any(r.startswith("GUIDE says the point is still open") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
