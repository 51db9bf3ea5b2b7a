"""Verdicts that say what they cannot settle, and read what a reviewer reads: an amendment still waiting
for its start date, a ban an amendment lifts, a bar worded "is not allowed in", a question asking for one
figure answered with several, an aspect named in another form of its word, and the words with which a
question frames itself. Each case is written here (all fictitious) and driven through the CLI."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case
from test_panel_refinement_arbitration_traps import _run

from debate_core.protocols.panel.rules.review_context import TermIndex
from debate_core.providers.offline.reading import read

VOCABULARY = ("Predicates, all over a room R: room(R): R is a room of a rented flat; sleeping_room(R): the room is "
              "used for sleeping; gas_boiler(R): the room contains a gas boiler; any_boiler(R): the room contains "
              "a boiler burning any fuel.")
RULE = {"id": "REG", "source": "Flat Safety Rules 2019, rule 3 (fictitious)", "authority": "statute", "date": "2019-01",
        "text": "A landlord must fit a smoke alarm in any room which is used for sleeping and contains a gas boiler."}
QUESTION = ("Knowledge gap: the letting checklist must say, as of 1 May 2026, which rooms need an alarm. Write one "
            "ASP rule defining alarm_required(R) with the knowledge-base predicates.")


def test_an_amendment_waiting_for_a_day_to_be_appointed_sends_the_rule_to_a_person(tmp_path):
    amendment = {"id": "AMD", "source": "Flat Safety (Amendment) Rules 2025 (fictitious)", "authority": "statute",
                 "date": "2025-06",
                 "text": "In rule 3, for 'a gas boiler' substitute 'a boiler burning any fuel'. These Rules come "
                         "into force on a day to be appointed by the minister by order."}
    news = {"id": "NEWS", "source": "Ministry news release (fictitious)", "authority": "official", "date": "2025-09",
            "text": "The new alarm rules are expected to apply next year once the commencement order has been made."}
    verdict = _run(tmp_path, _rule_case("alarm_not_in_force", QUESTION, VOCABULARY, [RULE, amendment, news]),
                   "dialectic")
    assert verdict["needs_human_review"]
    assert any(r.startswith("AMD changes the rule but says it takes effect only later")
               for r in verdict["escalation_reasons"])
    # Once a passage says the day came, the amendment simply applies: no such reason.
    came = {**news, "text": "The amending Rules came into force on 1 March 2026."}
    verdict = _run(tmp_path, _rule_case("alarm_in_force", QUESTION, VOCABULARY, [RULE, amendment, came]),
                   "dialectic")
    assert not any("takes effect only later" in r for r in verdict["escalation_reasons"])


def test_a_lifted_ban_leaves_the_rule_and_a_bar_worded_not_allowed_in_is_read(tmp_path):
    vocabulary = ("Predicates, all over a visitor V: visitor(V): V is a visitor in the galleries; uses_flash(V): "
                  "the visitor is using flash; uses_selfie_stick(V): the visitor is using a selfie stick; "
                  "in_closed_room(V): the visitor is in a room marked with a no-photography sign.")
    passages = [
        {"id": "R1", "source": "Visitor rules, rule 1 (fictitious)", "authority": "official", "date": "2022-01",
         "text": "Visitors may take photographs in the galleries. Flash and selfie sticks may not be used."},
        {"id": "R2", "source": "Visitor rules, rule 2 (fictitious)", "authority": "official", "date": "2022-01",
         "text": "Photography is not allowed in a room marked with a no-photography sign."},
        {"id": "AM", "source": "Board resolution amending rule 1 (fictitious)", "authority": "official",
         "date": "2025-09",
         "text": "With effect from 1 September 2025 rule 1 is amended: the ban on selfie sticks no longer applies."},
    ]
    question = ("Knowledge gap: write one ASP rule defining may_photograph(V) with the knowledge-base predicates, "
                "so that it agrees with the visitor rules as they stand today.")
    verdict = _run(tmp_path, _rule_case("gallery_photos", question, vocabulary, passages), "dialectic")
    assert "not uses_flash(V)" in verdict["answer"] and "not in_closed_room(V)" in verdict["answer"]
    assert "uses_selfie_stick" not in verdict["answer"].split(" Left out as withdrawn:")[0]
    assert "Left out as withdrawn: uses_selfie_stick (AM: " in verdict["answer"]


def _moon_case(question: str) -> dict:
    def report(agent: str, value: float, source: str, period: str, citation: str, confidence: float) -> dict:
        return {"agent": agent, "metric": "moon_distance", "value": value, "unit": "km", "citation": citation,
                "source": source, "period": period, "confidence": confidence,
                "interpretation": f"how far the Moon is from the Earth ({period})"}
    return {
        "id": "moon_one_figure", "title": "Moon distance", "question": question,
        "evidence": [
            {"id": "agency", "source": "Space agency fact sheet", "authority": "official",
             "text": "The Moon's mean distance from the Earth is 384,400 km; at the farthest point of its orbit "
                     "it is 405,500 km from the Earth."},
            {"id": "blog", "source": "Stargazing blog (fictitious)", "authority": "blog",
             "text": "At a micromoon the Moon is about 405,500 km from the Earth."}],
        "reports": [report("A", 384400, "Space agency", "mean over the orbit", "mean distance 384,400 km", 0.9),
                    report("B", 405500, "Stargazing blog", "micromoon", "about 405,500 km at a micromoon", 0.7)],
        "agents": [{"id": "arbiter", "name": "Science editor", "role": "Neutral arbiter."}],
    }


ONE_FIGURE = ("A children's encyclopedia needs one figure for the sentence 'On average the Moon is about ... km "
              "from the Earth.' Two fact-checkers report the Moon's distance from the Earth. Which figure belongs "
              "in that sentence?")


def test_a_question_asking_for_one_figure_is_not_answered_by_two_each_valid(tmp_path):
    verdict = _run(tmp_path, _moon_case(ONE_FIGURE), "arbitration")
    assert "both valid" in verdict["answer"] and verdict["needs_human_review"]
    assert any(r.startswith("the question asks for one figure") for r in verdict["escalation_reasons"])
    # A question that offers "both" as an answer is answered by both.
    verdict = _run(tmp_path, _moon_case(ONE_FIGURE.replace("Which figure belongs in that sentence?",
                                                           "Which figure belongs there, or do both stand?")),
                   "arbitration")
    assert "both valid" in verdict["answer"]
    assert not any(r.startswith("the question asks for one figure") for r in verdict["escalation_reasons"])


def test_an_aspect_is_found_in_another_form_of_its_word():
    index = TermIndex.build(["toilets", "billing", "pitch"])
    assert index.find("the only toilet block was shut") == ["toilets"]
    assert index.find("then they billed us for three hours") == ["billing"]
    assert index.find("the pitches were flat") == ["pitch"]
    assert index.find("a billion visitors") == []


def test_the_words_a_question_frames_itself_with_are_not_parts_to_cover():
    question = "What does the kennel's booking system say about whether a dog may board?"
    found = read(question, ["A dog may board when its vaccinations are current; the kennel booking system "
                            "checks them."], passages=1)
    assert found.coverage == 1.0 and not found.gaps
