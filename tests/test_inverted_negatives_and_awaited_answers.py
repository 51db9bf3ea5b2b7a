"""A negative carried over by inversion ("Nor do you need to be an archaeologist", "Nor may you bring
a dog") says what is not required or what is barred, and a passage whose writer says the answer
the point waits on has not come ("No answer yet, and I won't guess for them") leaves a rule
undecided. Driven through the CLI on a case written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run

from debate_core.core.text import states_doubt
from debate_core.protocols.dialectic.agent.cues import cue_kind

VOCABULARY = ("Predicates, over a leader L: member(L): L is a club member; leader_course(L): L has done the "
              "leader course; first_aid(L): L holds a first aid certificate; archaeologist(L): L has a "
              "qualification in archaeology; gps(L): L carries a GPS device.")
QUESTION = "Write one ASP rule defining may_lead(L) with the knowledge-base predicates."


def test_nor_and_neither_say_what_is_not_required_or_barred():
    assert cue_kind("Nor do you need to be an archaeologist - the site notes are in the pack.") == "not_required"
    assert cue_kind("Neither is a GPS required on club walks.") == "not_required"
    assert cue_kind("Nor may you bring a dog on the moor.") == "prohibition"
    assert cue_kind("You need a first aid certificate.") == "obligation"


def test_a_condition_said_not_needed_by_inversion_stays_out_of_the_rule(tmp_path):
    handbook = ("Leaders must be members who have done the leader course. You must hold a first aid certificate. "
                "Nor do you need to be an archaeologist: the site notes are in the pack. A GPS is handy.")
    verdict = _run(tmp_path, _rule_case("leaders", QUESTION, VOCABULARY, [
        {"id": "HANDBOOK", "source": "Leaders' handbook (fictitious club)", "authority": "official",
         "date": "2026-01-01", "text": handbook}]), "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1]
    assert "archaeologist" not in rule, rule
    assert "first_aid(L)" in rule, rule


def test_an_answer_still_awaited_leaves_the_rule_undecided(tmp_path):
    assert states_doubt("I've asked the insurer. No answer yet, and I won't guess for them.")
    assert not states_doubt("The insurer answered on 3 May: the ordinary certificate will do.")
    handbook = "Leaders must be members who have done the leader course and hold a first aid certificate."
    verdict = _run(tmp_path, _rule_case("leaders_waiting", QUESTION, VOCABULARY, [
        {"id": "HANDBOOK", "source": "Leaders' handbook (fictitious club)", "authority": "official",
         "date": "2026-01-01", "text": handbook},
        {"id": "BROKER", "source": "Email from the club's insurance broker (fictitious)", "authority": "broker",
         "date": "2026-04-20", "text": "I've asked the insurer whether leaders of moorland walks need an outdoor "
                                       "first aid certificate. No answer yet, and I won't guess for them."}]),
        "dialectic")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("BROKER says the point is not yet decided") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
