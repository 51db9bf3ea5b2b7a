"""What "X is replaced by Y" names takes X's place; a passive permission with no terms ("Cheese made from
raw milk may be sold") asks nothing of anyone, though the kind of thing it names stays the rule's kind;
owning a thing is not wearing one; "needs no licence" says what is not needed, and the rest of its
sentence still counts; "aren't available to you until it's paid" bars; a requirement and a bar joined
by ", and anyone ..." are two rules; "not more than 30 days in arrears" negates the arrears; "not
clear-cut" and "I expect to advise by 26 June" leave a point open; an arbitration ruling that keeps
the figure of a source another passage says went wrong goes to a person, and so does one a party's
own email says is still open. Driven through the CLI on cases written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run
from test_pending_changes_variants_and_bases import _arbitration
from test_settings_moved_requirements_kept_and_meetings_ahead import _rule_of

from debate_core.core.doubt import states_doubt
from debate_core.core.text import stem
from debate_core.protocols.dialectic.agent.cues import bare_permission, cue_kind, only_negated, required_part
from debate_core.protocols.dialectic.amendments import successor_names

KILN = _rule_case(
    "kiln_room_solo_firing",
    "Knowledge gap: write one ASP rule defining may_fire_alone(P) with the knowledge-base predicates, so that it "
    "agrees with the (fictitious) Millbrook Pottery Co-op's rules as they stand in May 2026.",
    "Predicates, over a person P: coop_member(P): P is a member of the co-op; age_18_plus(P): P is 18 or older; "
    "kiln_course(P): P has done the co-op's kiln course; supervised_firings_3(P): P has done three supervised "
    "firings; signoff_test(P): P has passed a sign-off test with the technician; own_gloves(P): P owns "
    "heat-proof gloves; lead_free_glaze(P): P uses glazes made without lead; fees_overdue(P): P is more than "
    "14 days behind with fees.",
    [{"id": "RULES", "source": "Co-op kiln room rules, 2024 (fictitious)", "authority": "company rules",
      "date": "2024-09-01",
      "text": "Members aged 18 and over who have done the kiln course and three supervised firings can fire the "
              "kiln alone. Heat-proof gloves must be worn at the kiln. Glazes made without lead may be used in "
              "the kiln. Members must sign the firing log, and anyone more than 14 days behind with fees may not "
              "book a firing."},
     {"id": "MINUTES", "source": "Co-op meeting minutes, 2 March 2026 (fictitious)", "authority": "company rules",
      "date": "2026-03-02",
      "text": "(a) The three supervised firings are replaced by a sign-off test with the technician. (b) The kiln "
              "course stays."}])


def test_a_successor_is_required_and_a_bare_permission_and_a_worn_thing_are_not(tmp_path):
    rule = _rule_of(_run(tmp_path, KILN, "dialectic"))
    for kept in ("coop_member(P)", "age_18_plus(P)", "kiln_course(P)", "signoff_test(P)", "not fees_overdue(P)"):
        assert kept in rule, rule
    for gone in ("supervised_firings_3", "own_gloves", "lead_free_glaze"):
        assert gone not in rule, rule


def test_replaced_by_names_what_takes_the_place():
    described = {"fleet_induction": "P has completed the club's one-off fleet induction",
                 "capsize_check": "P has passed a capsize recovery check with a club instructor",
                 "own_buoyancy_aid": "P owns a buoyancy aid"}
    said = "The one-off fleet induction is replaced by a capsize recovery check with a club instructor each season."
    assert successor_names(said, described) == ["capsize_check"]
    # A move from one thing to another still names the new one; a sentence that replaces nothing names none.
    assert successor_names("Checks are done every season.", described) == []


def test_a_bare_passive_permission_states_no_terms():
    assert bare_permission("Cheese made from raw milk may be sold in England, labelled as made with raw milk.")
    assert not bare_permission("Cheese may be sold by members who hold a rating of 3 or more.")
    assert not bare_permission("Cheese may be sold only if it is labelled.")
    assert not bare_permission("Members may sell cheese.")


def test_needs_no_says_what_is_not_needed_and_the_rest_of_the_sentence_still_counts():
    assert cue_kind("Recording nests of common species such as tits needs no licence or permit.") == "not_required"
    said = ("Carvers of 16 and 17 can now join a team, as long as we hold a consent form signed by a parent; "
            "all-adult teams need no consent forms.")
    assert required_part(said) == ("Carvers of 16 and 17 can now join a team, as long as we hold a consent form "
                                   "signed by a parent")
    assert required_part("No licence is needed.") == ""
    assert required_part("Members must sign the log.") == "Members must sign the log."


def test_a_negated_amount_negates_what_it_measures():
    arrears = {stem("arrears")}
    assert only_negated("who have signed the agreement and are not more than 30 days in arrears", arrears)
    assert not only_negated("anyone more than 30 days in arrears may not take up a place", arrears)


def test_a_point_not_clear_cut_or_advice_expected_is_open():
    assert states_doubt("Whether the copy counts as written notice is not clear-cut, and I don't want HR telling "
                        "parents either way until I have looked at the correspondence.")
    assert states_doubt("I expect to advise by 26 June.")
    assert not states_doubt("The rule is clear-cut: six months' service.")
    assert not states_doubt("We expect to see you on 26 June.")


PASI_REPORTS = [
    {"agent": "ClinicRecord", "metric": "pasi_reduction_week_16", "value": 66.7, "unit": "%",
     "citation": "[Per extraction: 'PASI 6.0 (baseline 18.0)' from the clinic letter]",
     "source": "Riverside clinic letter", "period": "December 2025 to March 2026", "confidence": 0.55,
     "interpretation": "PASI fell by two thirds"},
    {"agent": "HomecarePortal", "metric": "pasi_reduction_week_16", "value": 81.5, "unit": "%",
     "citation": "[Per extraction: 'Baseline PASI 32.4. Current PASI 6.0. Improvement: 81.5%' from the portal]",
     "source": "Homecare patient portal", "period": "December 2025 to March 2026", "confidence": 0.8,
     "interpretation": "PASI fell by more than three quarters"}]


def _pasi_evidence(pharmacist_says: str, portal_says: str = "") -> list[dict]:
    return [
        {"id": "LETTER", "source": "Riverside clinic letter, 30 March 2026 (fictitious)", "authority": "forum",
         "date": "2026-03-30", "text": "Week 16 review: PASI 6.0 (baseline 18.0 on 1 December), a PASI reduction of 66.7%."},
        {"id": "PORTAL", "source": "Homecare patient portal summary, 31 March 2026 (fictitious)",
         "authority": "official", "date": "2026-03-31",
         "text": "Week 16 PASI reduction: baseline PASI 32.4, current PASI 6.0, improvement 81.5%." + portal_says},
        {"id": "PHARMACIST", "source": "Email from the biologics pharmacist, 1 April 2026 (fictitious)",
         "authority": "email", "date": "2026-04-01", "text": pharmacist_says}]


QUESTION = "What was the patient's PASI reduction at 16 weeks?"


def test_a_ruling_that_keeps_a_source_another_passage_calls_wrong_goes_to_a_person(tmp_path):
    verdict = _run(tmp_path, _arbitration(QUESTION, PASI_REPORTS, _pasi_evidence(
        "Agree the portal has the wrong baseline - it always takes the first PASI on file.")), "arbitration")
    assert "HomecarePortal's 81.5" in verdict["answer"], verdict["answer"]
    assert "escalate.kept_called_wrong" in verdict["applied_rules"], verdict["escalation_reasons"]
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("PHARMACIST says HomecarePortal's source went wrong (\"Agree the portal has the wrong")
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_source_called_wrong_by_the_other_side_or_not_wrong_at_all_is_no_such_reason(tmp_path):
    # The portal denies it is wrong, and the clinic letter's own side is the dispute itself.
    for pharmacist in ("The portal is not wrong: it shows the first PASI on file.", "Thanks, booked for Thursday."):
        verdict = _run(tmp_path, _arbitration(QUESTION, PASI_REPORTS, _pasi_evidence(pharmacist)), "arbitration")
        assert "escalate.kept_called_wrong" not in verdict["applied_rules"], verdict["escalation_reasons"]


def test_a_partys_own_email_holding_the_point_open_goes_to_a_person(tmp_path):
    reports = [
        {"agent": "Extraction", "metric": "coverage", "value": 66.0, "unit": "%",
         "citation": "[Per extraction: 'Coverage 66.0%' from the ICB extraction]",
         "source": "Fenwick ICB data extraction", "period": "Q3 2025/26", "confidence": 0.7,
         "interpretation": "below the threshold"},
        {"agent": "Recount", "metric": "coverage", "value": 74.5, "unit": "%",
         "citation": "[Per extraction: '70 of 94' from the practice note]",
         "source": "Hill Lane Surgery practice note", "period": "Q3 2025/26", "confidence": 0.6,
         "interpretation": "above the threshold"}]
    evidence = [
        {"id": "EXTRACT", "source": "ICB data extraction, 15 January 2026 (fictitious)", "authority": "official",
         "date": "2026-01-15", "text": "Denominator 94. Numerator 62. Coverage 66.0%."},
        {"id": "NOTE", "source": "Hill Lane Surgery practice note, 2 February 2026 (fictitious)",
         "authority": "company", "date": "2026-02-02", "text": "62 + 8 = 70 of 94, so 74.5%."},
        {"id": "ICB_EMAIL", "source": "Email from the ICB's commissioning manager, 20 February 2026 (fictitious)",
         "authority": "email", "date": "2026-02-20",
         "text": "Your appeal goes to the panel on 9 April, and I can't say which way it will go."}]
    verdict = _run(tmp_path, _arbitration("What is the practice's coverage?", reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("ICB_EMAIL says the point is still open") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
