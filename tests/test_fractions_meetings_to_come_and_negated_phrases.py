"""A vulgar fraction is part of its figure ("11½"); a protest sent to a committee that has still to meet,
a decision promised "on 21 May whether ...", a point put on a coming agenda, a policy applied only
provisionally, a figure held until a review and people who have still to sit down leave the point open;
"without any interruption for neutropenia" negates the whole phrase. Driven through the CLI on cases
written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.doubt import states_doubt
from debate_core.core.text import numbers
from debate_core.protocols.dialectic.agent.cues import only_negated, stem


def test_a_vulgar_fraction_is_part_of_its_figure():
    assert numbers("Owls 12, Magpies 11½.") == [(12.0, ""), (11.5, "")]
    assert numbers("2¾ miles, then ½ a lap and 3 ½ cups") == [(2.75, ""), (0.5, ""), (3.5, "")]
    assert numbers("a 7½% rise") == [(7.5, "%")]
    # Before, "11½" was one word to the number reader, and the figure was lost.
    assert numbers("score 11½") != []


def _score_reports() -> list[dict]:
    return [
        {"agent": "HomeBook", "metric": "visitors_score", "value": 12, "unit": "rounders",
         "citation": "[Per extraction: 'Visitors total 12' from the home scorebook]", "source": "Home scorebook",
         "period": "League match, 4 June 2026", "confidence": 0.6, "interpretation": "The match was drawn 12-12"},
        {"agent": "MatchCard", "metric": "visitors_score", "value": 11.5, "unit": "rounders",
         "citation": "[Per extraction: 'Hosts 12, Visitors 11½' from the match card]", "source": "League match card",
         "period": "League match, 4 June 2026", "confidence": 0.65, "interpretation": "The hosts won by half a rounder"}]


def test_two_scores_half_a_rounder_apart_that_the_question_names_go_to_a_person(tmp_path):
    evidence = [
        {"id": "BOOK", "source": "Home scorebook, 4 June 2026 (fictitious)", "authority": "club record",
         "date": "2026-06-04", "text": "Hosts total 12. Visitors total 12. Draw."},
        {"id": "CARD", "source": "League match card, 4 June 2026 (fictitious)", "authority": "official record",
         "date": "2026-06-04", "text": "Hosts 12, Visitors 11½. Signed by one umpire only."}]
    question = ("The home scorebook gives the visitors 12 (a draw); the match card gives them 11½ (a home win). "
                "What was the visitors' score?")
    verdict = _run(tmp_path, _arbitration(question, _score_reports(), evidence), "arbitration")
    assert verdict["needs_human_review"] is True, verdict["answer"]
    assert any("11.5" in reason and "12" in reason for reason in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_meetings_still_to_come_and_provisional_measures_hold_the_point_open():
    for sentence in (
            "Your protest goes to the competition committee, which meets on 29 April.",
            "The committee will decide on 21 May whether an intact spleen should exclude patients.",
            "I'm not going to say in advance which way it will go.",
            "I've asked the chair to put it on the agenda for 21 May.",
            "We have provisionally required a second approver for every deploy.",
            "We have asked for the policy to be clarified at the leadership meeting on 24 March.",
            "Until Kat and I sit down on 30 April, the 2024 policy stands.",
            "I'll hold the figure for your home until the resident has been reviewed."):
        assert states_doubt(sentence), sentence
    for sentence in (
            "A protest about a class goes to the competition committee, whose decision is final.",
            "The committee decided on 21 May that an intact spleen does not exclude patients.",
            "We have required a second approver for every deploy since March."):
        assert not states_doubt(sentence), sentence


def test_a_weigh_in_protest_the_committee_has_still_to_hear_keeps_the_class_open(tmp_path):
    reports = [
        {"agent": "RegistrationLog", "metric": "weigh_in_weight", "value": 80.3, "unit": "kg",
         "citation": "[Per extraction: '15:40 A. Rider, U80, 80.3 kg - over limit' from the registration log of "
                     "9 May 2026]",
         "source": "Registration log", "period": "Weigh-in, 9 May 2026", "confidence": 0.7,
         "interpretation": "He is over 80 kg and goes in the over-80 class"},
        {"agent": "GymScale", "metric": "weigh_in_weight", "value": 78.6, "unit": "kg",
         "citation": "[Per extraction: '78.6 on the gym scales this morning' from his message of 9 May 2026]",
         "source": "Athlete's message", "period": "Weigh-in, 9 May 2026", "confidence": 0.3,
         "interpretation": "He was under 80 kg all along"}]
    evidence = [
        {"id": "RULES", "source": "Federation rule book, rule 7 (fictitious)", "authority": "federation rules",
         "date": "2026-01-01",
         "text": "Athletes are weighed at registration, 12:00 to 16:00, on the federation's scale, and that weight "
                 "decides the class. A protest about a class goes to the competition committee, whose decision "
                 "is final."},
        {"id": "LOG", "source": "Registration log, 9 May 2026 (fictitious)", "authority": "official record",
         "date": "2026-05-09", "text": "Weigh-in weights: 15:40 A. Rider, U80, 80.3 kg - over limit."},
        {"id": "MESSAGE", "source": "Athlete's message to his coach, 9 May 2026 (fictitious)",
         "authority": "personal message", "date": "2026-05-09", "text": "My weight: 78.6 on the gym scales this morning, before the weigh-in."},
        {"id": "JUDGE", "source": "Email from the head judge, 10 May 2026 (fictitious)", "authority": "head judge",
         "date": "2026-05-10",
         "text": "The federation's scale was checked with a test weight at noon. Your protest against the weigh-in "
                 "goes to the competition committee, which meets on 21 May."}]
    question = "What was A. Rider's weight at the weigh-in, which decides his class?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is True, verdict["answer"]
    assert any("which meets on 21 May" in reason for reason in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
    assert verdict["answer"].startswith("Provisionally, use "), verdict["answer"]


def test_without_any_negates_the_whole_phrase_it_names():
    terms = {stem(w) for w in ("interruption", "neutropenia")}
    assert only_negated("patients who have taken it for a year without any interruption for neutropenia", terms)
    assert only_negated("members who are not first aid trained", {stem(w) for w in ("first", "aid", "trained")})
    # A bare "without" says what is not needed; a negation three words back does not reach.
    assert not only_negated("may attend without a GP letter", {stem(w) for w in ("gp", "letter")})
    assert not only_negated("doesn't need a GP letter", {stem(w) for w in ("gp", "letter")})


def test_a_rule_for_patients_without_any_interruption_bars_the_interruption(tmp_path):
    question = ("Knowledge gap: write one ASP rule defining may_extend_monitoring(P) with the knowledge-base "
                "predicates, so that it agrees with the centre's rules as they stand.")
    vocabulary = ("Predicates, over a patient P: on_drug(P): P is prescribed the drug; drug_12_months(P): P has "
                  "taken the drug for at least 12 months; neutropenia_interruption(P): P's drug has ever been "
                  "interrupted because of neutropenia; counselled(P): P has had the fever counselling.")
    passages = [{"id": "MINUTE", "source": "Drugs committee minute 26/031, confirmed March 2026 (fictitious)",
                 "authority": "official", "date": "2026-03-12",
                 "text": "Approved: patients on the drug who have taken it for 12 months or more without any "
                         "interruption for neutropenia, and who have had the fever counselling, may have their "
                         "counts checked monthly."}]
    verdict = _run(tmp_path, _rule_case("monitoring", question, vocabulary, passages), "dialectic")
    rule = verdict["answer"].split("As an ASP rule: ", 1)[1]
    assert "not neutropenia_interruption(P)" in rule, rule
    assert "drug_12_months(P)" in rule and "counselled(P)" in rule, rule


def test_partners_who_have_still_to_sit_down_leave_the_rule_open(tmp_path):
    question = ("Knowledge gap: write one ASP rule defining may_coach_solo(P) with the knowledge-base predicates, "
                "so that it agrees with the gym's coaching rules as they stand.")
    vocabulary = ("Predicates, over a person P: staff_coach(P): P is on the coaching staff; level_1(P): P holds "
                  "the Level 1 certificate; gym_instructor(P): P holds a gym instructing qualification; "
                  "first_aid(P): P holds a current first aid certificate.")
    passages = [
        {"id": "POLICY", "source": "Coaching policy, 2024, signed by both partners (fictitious)",
         "authority": "official", "date": "2024-05-01",
         "text": "To take a class on your own you must be on our coaching staff, hold Level 1 and hold a current "
                 "first aid certificate."},
        {"id": "PARTNER", "source": "Email from one partner to all coaches, March 2026 (fictitious)",
         "authority": "partner", "date": "2026-03-05",
         "text": "I haven't signed anything about a gym instructing route. Until Kat and I sit down on 30 April, "
                 "the 2024 policy stands."}]
    verdict = _run(tmp_path, _rule_case("solo", question, vocabulary, passages), "dialectic")
    assert verdict["needs_human_review"] is True, verdict["answer"]
    assert any("sit down on 30 April" in reason for reason in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
