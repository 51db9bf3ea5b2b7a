"""A list of who is left out ("Exclude: pregnancy, ...") bars each thing it names; the word a question's
head shares with a body predicate does not name that predicate; a noun and its adjective
("pregnancy", "pregnant") are one word; a vote deferred to a meeting, an appeal still to be heard
and a reply promised by a date leave the point open. Driven through the CLI on cases written here
(fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.doubt import states_doubt
from debate_core.protocols.dialectic.agent.cues import same_word

VACCINE_QUESTION = ("Knowledge gap: write one ASP rule defining may_receive_rivovax(P) with the knowledge-base "
                    "predicates, so that it agrees with the clinic's protocol as it stands.")
VACCINE_VOCABULARY = (
    "Predicates, over a client P: age_12_plus(P): P is 12 or older; travel_risk(P): P is travelling to an area "
    "with a risk of the disease; pregnant(P): P is pregnant; immunocompromised(P): P is immunocompromised; "
    "allergy_rivovax(P): P has had a confirmed allergic reaction to a previous dose of Rivovax; "
    "departs_within_7_days(P): P travels within 7 days.")


def test_an_exclusion_list_bars_each_thing_it_names(tmp_path):
    passages = [{"id": "PROTOCOL", "source": "Clinic protocol for Rivovax, version 2, 2026 (fictitious)",
                 "authority": "official", "date": "2026-01-10",
                 "text": "Rivovax may be offered to clients aged 12 and over who are travelling to an area with a "
                         "risk of the disease. Exclude: pregnancy, immunocompromise, and a confirmed allergic "
                         "reaction to a previous dose. Timing before travel is advice, not a condition."}]
    verdict = _run(tmp_path, _rule_case("rivovax", VACCINE_QUESTION, VACCINE_VOCABULARY, passages), "dialectic")
    rule = verdict["answer"].split("As an ASP rule: ", 1)[1]
    for barred in ("not pregnant(P)", "not immunocompromised(P)", "not allergy_rivovax(P)"):
        assert barred in rule, rule
    # "Rivovax may be offered ..." is about the head, not about an allergy to it.
    assert ", allergy_rivovax(P)" not in rule and ":- allergy_rivovax(P)" not in rule, rule
    assert "age_12_plus(P)" in rule and "travel_risk(P)" in rule, rule


def test_a_noun_and_its_adjective_are_one_word():
    assert same_word("pregnanc", "pregnant")
    assert same_word("immunocompromis", "immunocompromised")
    assert not same_word("register", "regular")
    assert not same_word("permiss", "permitt")


def test_a_vote_deferred_to_an_extraordinary_meeting_leaves_the_rule_open(tmp_path):
    question = ("Knowledge gap: write one ASP rule defining may_play_u11(P) with the knowledge-base predicates, "
                "so that it agrees with the league's rules for the coming season.")
    vocabulary = ("Predicates, over a player P: registered(P): P is registered with the league; "
                  "under_11_on_1_jan(P): P is under 11 on 1 January of the season; first_season(P): it is P's "
                  "first season with the league; consent(P): a parent has signed the consent form for P.")
    passages = [
        {"id": "AGM", "source": "League AGM minutes, June 2026, item 4 (fictitious)", "authority": "official",
         "date": "2026-06-14",
         "text": "(a) Carried: to play in U11 a player must be registered, have a signed consent form and be under "
                 "11 on 1 January of the season. (b) Proposal that players in their first season may play one "
                 "age group down: not voted on; deferred to an EGM on 12 September."},
        {"id": "SECRETARY", "source": "Email from the league secretary, August 2026 (fictitious)",
         "authority": "official", "date": "2026-08-18",
         "text": "The EGM on 12 September will vote on the first-season proposal. Until then the AGM rules apply."}]
    verdict = _run(tmp_path, _rule_case("u11", question, vocabulary, passages), "dialectic")
    assert verdict["needs_human_review"], verdict
    assert any("not yet decided" in reason for reason in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_reply_promised_by_a_date_and_an_appeal_to_be_heard_are_doubt():
    assert states_doubt("She is abroad and has said she will reply by 28 July.")
    assert states_doubt("We've asked our mail team for the delivery log and will come back to you within ten "
                        "working days.")
    assert states_doubt("The panel will hear the appeal on 5 June and give its decision as soon as it can.")
    assert states_doubt("The full operation note has not been written, so whether the space was dissected "
                        "cannot be seen.")
    assert not states_doubt("We will reply to every email we receive.")
    assert not states_doubt("The panel heard the appeal on 5 June and dismissed it.")


def test_a_referee_who_will_reply_by_a_date_keeps_the_score_open(tmp_path):
    reports = [
        {"agent": "Scoresheet", "metric": "pair_b_points_in_set_2", "value": 19, "unit": "points",
         "citation": "[Per extraction: 'Set score box: 21-19, pair A. Signed by the first referee' from the scoresheet]",
         "source": "Signed scoresheet", "period": "Harbour Sands, 11 July 2026", "confidence": 0.6,
         "interpretation": "Pair B scored 19 and the set ended 21-19"},
        {"agent": "LiveScoreApp", "metric": "pair_b_points_in_set_2", "value": 20, "unit": "points",
         "citation": "[Per extraction: '20-20 (pair B point); 21-20 pair A; 22-20 pair A, set' from the app log]",
         "source": "Live-score app", "period": "Harbour Sands, 11 July 2026", "confidence": 0.5,
         "interpretation": "Pair B scored 20 and the set ended 22-20"}]
    evidence = [
        {"id": "RULES", "source": "Tour competition rules 2026, rule 9 (fictitious)", "authority": "tour rules",
         "date": "2026-03-01",
         "text": "9.1 The scoresheet signed by the first referee is the official record. 9.4 The tournament director "
                 "may correct a scoresheet only on the first referee's written confirmation of a scoring error. "
                 "Live-score apps are for spectators and are not official."},
        {"id": "SHEET", "source": "Scoresheet, pair A v pair B, second set (fictitious)", "authority": "official record",
         "date": "2026-07-12",
         "text": "Running score: pair A ticked 1 to 21; pair B ticked 1 to 20, with the 20 struck through and no "
                 "initials beside it. Set score box: 21-19, pair A. Signed by the first referee."},
        {"id": "APP", "source": "Live-score app, point log for the same set (fictitious)", "authority": "unofficial app",
         "date": "2026-07-11", "text": "... 20-19 pair A; 20-20 (pair B point); 21-20 pair A; 22-20 pair A, set."},
        {"id": "DIRECTOR", "source": "Tournament director's notice, 13 July 2026 (fictitious)",
         "authority": "tournament director", "date": "2026-07-13",
         "text": "Pair C have asked for the set to be recorded as 22-20. Under rule 9.4 I can only change the "
                 "scoresheet if the first referee confirms a scoring error in writing. She is abroad and has said "
                 "she will reply by 28 July."}]
    question = ("The scoresheet has the second set of pair A v pair B ending 21-19; the live-score app has it 22-20. "
                "What was the score of that set?")
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["needs_human_review"], verdict
    assert any("she will reply by 28 July" in reason for reason in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
