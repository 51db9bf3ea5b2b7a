"""A decision that removes and replaces a handbook's numbered paragraphs ("the upper age limit at
paragraph 3.2 is removed; the eye test at paragraph 3.3 is replaced by an annual declaration"), and
passages that say a point waits for a decision. Driven through the CLI on cases written here
(fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run

from debate_core.core.text import states_doubt
from debate_core.protocols.dialectic.amendments import supersessions, withdraws


def _marshal_case() -> dict:
    return _rule_case(
        "marshal_rota",
        "Knowledge gap: write one ASP rule defining may_marshal(P) with the knowledge-base predicates, so that it "
        "agrees with the race club's marshal rules as they stand for the 2026 season.",
        "Predicates, over a person P: registered_marshal(P): P is registered by the club as a marshal; "
        "marshal_briefing(P): P has completed the club's marshal briefing; under_70(P): P is under 70; "
        "hearing_test_3y(P): P has had a hearing test within the last three years; "
        "safety_declaration(P): P has completed the annual marshal safety declaration for this season.",
        [{"id": "HANDBOOK", "source": "Race club marshal handbook, 2022 (fictitious)", "authority": "club rules",
          "date": "2022-03-01",
          "text": "4.1 Marshals are drawn from people the club has registered as marshals, and nobody takes a post "
                  "until they have completed the marshal briefing. 4.2 Marshals can serve until their 70th birthday. "
                  "4.3 Every three years you will need to show us a hearing test."},
         {"id": "DECISION", "source": "Committee decision, 10 January 2026 (fictitious)", "authority": "club rules",
          "date": "2026-01-10",
          "text": "Decision: from the 2026 season, (1) the upper age limit at paragraph 4.2 of the marshal handbook is "
                  "removed; (2) the three-yearly hearing test at paragraph 4.3 is replaced by an annual safety "
                  "declaration, completed by every marshal before the season. The rest of the handbook is "
                  "unchanged."}])


def test_a_decision_removing_and_replacing_numbered_paragraphs_supersedes_both(tmp_path):
    from debate_core.core.schemas import Case

    gone = {s.old_sentence.split()[0] for s in supersessions(Case.model_validate(_marshal_case()).evidence)}
    assert {"4.2", "4.3"} <= gone, gone
    assert withdraws("the three-yearly hearing test at paragraph 4.3 is replaced by an annual declaration")
    assert not withdraws("Subsection (2) is replaced by: '(2) A deduction is allowed only if ...'")
    verdict = _run(tmp_path, _marshal_case(), "dialectic")
    rule = verdict["answer"].split("As an ASP rule: ", 1)[1].split(".")[0]
    assert "hearing_test_3y" not in rule and "under_70" not in rule, verdict["answer"]
    assert "registered_marshal(P)" in rule and "marshal_briefing(P)" in rule, verdict["answer"]


def test_records_that_cannot_yet_say_wording_read_either_way_and_prizes_held_until_a_meeting_are_open():
    assert states_doubt("Some batches were held back until it was fixed - we can't yet say which.")
    assert states_doubt("I accept the note was dropped and the wording can be read either way.")
    assert states_doubt("Prize money for the class is held until the appeals committee meets on 2 August.")
    assert not states_doubt("The prize was held until the end of the show.")
    assert not states_doubt("We can say which batch it was: the one posted on the 3rd.")


def test_a_question_that_ends_or_not_asks_for_a_yes_or_a_no():
    from debate_core.protocols.cross_critique.answer_rules import asks_yes_or_no

    assert asks_yes_or_no("Do they have to register the stall or not?")
    assert not asks_yes_or_no("Does she need a street trading consent or a pedlar's certificate?")
    assert not asks_yes_or_no("Is the pitch fee £40 or £55?")
    assert not asks_yes_or_no("Should the report use the 2019 or the 2023 figure?")
