"""Rules, records and readings as ordinary documents word them: a bar that lists what may not be there
("must contain no ... and no ..."), a limit ("is limited to"), an exception in brackets, a provision
deleted by its number, the kind of thing a vocabulary is "all over", a fact of the question that no
passage makes a condition, two documents that set different counts; an arbiter's readings on
opposite sides of one level and a release that gives both figures; a cited passage that says the
point is not settled; a forum post against a primary text; a change record that extends something
"from 16 to 22". Each case is written here (all fictitious) and driven through the CLI."""

from __future__ import annotations

from test_cc_dialectic_traps import _cc_case, _rule_case, _run

from debate_core.core.schemas import Case, Evidence
from debate_core.core.text import states_doubt
from debate_core.protocols.arbitration.contradictions import interpretation_conflict
from debate_core.protocols.refinement.agent.reading import events_of, timeline


def _asp(verdict: dict) -> str:
    return verdict["answer"].split("As an ASP rule:")[-1].strip()


# -- dialectic ----------------------------------------------------------------------------------------

BAKE_SALE = ("Predicates, all over a cake C: cake(C): C is a cake offered for the school bake sale; contains_nuts(C): "
             "C contains nuts or nut oils; contains_alcohol(C): C contains alcohol; over_500g(C): C weighs more "
             "than 500 g; iced_cake(C): C is an iced cake; home_baked(C): C was baked at home; labelled(C): C carries "
             "a list of its ingredients; year_six_class(C): C was brought by a pupil of year six.")
BAKE_QUESTION = ("Knowledge gap: the (fictitious) Elm Road school's bake sale list must say whether a cake may be sold. "
                 "A pupil of year six has brought one. Write one ASP rule defining may_sell(C) with the "
                 "knowledge-base predicates, so that it agrees with the school's rules as they stand.")


def _bake_rules(*extra: dict) -> list[dict]:
    return [
        {"id": "RULES", "source": "Elm Road school bake sale rules 2024 (fictitious)", "authority": "official",
         "date": "2024-09-01",
         "text": "3.1 Cakes (but not iced cakes) may be sold once they carry a list of their ingredients. "
                 "3.2 Cakes must contain no nuts and no alcohol. 3.3 Each cake is limited to 500 g. "
                 "3.4 Home-baked cakes may not be sold."},
        *extra,
    ]


def test_a_rule_read_from_a_bar_list_a_limit_a_bracket_and_a_numbered_deletion(tmp_path):
    deletion = {"id": "BOARD", "source": "Governors' minutes, 12 March 2025 (fictitious)", "authority": "official",
                "date": "2025-03-12",
                "text": "Resolved that rule 3.4 of the bake sale rules be deleted with immediate effect. Parents "
                        "had asked for home baking to be welcome again."}
    verdict = _run(tmp_path, _rule_case("bake_sale", BAKE_QUESTION, BAKE_SALE, _bake_rules(deletion)), "dialectic")
    rule = _asp(verdict)
    # The bar lists two things that may not be there, the limit names the weight, the bracket the iced cakes.
    for defeater in ("not contains_nuts(C)", "not contains_alcohol(C)", "not over_500g(C)", "not iced_cake(C)"):
        assert defeater in rule, rule
    assert "labelled(C)" in rule and "cake(C)" in rule
    # Rule 3.4 was deleted by its number; the year-six pupil is the question's case, not a condition.
    assert "home_baked" not in rule and "year_six_class" not in rule
    # "iced_cake" is a kind of cake, not what the rule is about: the vocabulary is "all over a cake C".
    assert rule.startswith("may_sell(C) :- cake(C)")
    assert not any("3.4" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_two_documents_of_one_meeting_that_set_different_counts_go_to_a_person(tmp_path):
    vocabulary = ("Predicates, all over a member M: member(M): M is a member of the choir; two_rehearsals(M): M "
                  "attended at least two rehearsals this term; three_rehearsals(M): M attended at least three "
                  "rehearsals this term; subs_paid(M): M's subscription is paid.")
    passages = [
        {"id": "RULES", "source": "Choir rules, rule 4 (fictitious)", "authority": "official", "date": "2025-09-10",
         "text": "4.1 Only members whose subscription is paid may sing in the winter concert. 4.2 A singer must "
                 "have attended at least two rehearsals of the term."},
        {"id": "GUIDE", "source": "Concert regulations 2025 (fictitious)", "authority": "official",
         "date": "2025-09-10",
         "text": "Only singers with three or more rehearsals of the term behind them will be placed in the concert."},
    ]
    question = ("Knowledge gap: write one ASP rule defining may_sing(M) with the knowledge-base predicates, so that "
                "it agrees with the choir's documents.")
    verdict = _run(tmp_path, _rule_case("choir_concert", question, vocabulary, passages), "dialectic")
    assert verdict["needs_human_review"] is True
    named = [r for r in verdict["escalation_reasons"] if "RULES and GUIDE disagree" in r]
    assert named and "two rehearsals" in named[0] and "three or more rehearsals" in named[0], \
        verdict["escalation_reasons"]


def test_a_licence_rule_reads_what_does_not_need_one_and_what_the_bylaw_does_not_extend_to(tmp_path):
    vocabulary = ("Predicates, all over a boat B: boat(B): B is a boat on the lake; powered(B): B has an engine; "
                  "rowing_boat(B): B is a rowing boat with no engine; club_regatta(B): B takes part in the club "
                  "regatta.")
    passages = [
        {"id": "BYELAW", "source": "Lake byelaw 5 (fictitious)", "authority": "official", "date": "2023-04-01",
         "text": "Every boat on the lake must hold a lake licence. A rowing boat does not need one."},
        {"id": "BYELAW6", "source": "Lake byelaw 6 (fictitious)", "authority": "official", "date": "2023-04-01",
         "text": "Byelaw 5 does not extend to boats taking part in the club regatta."},
    ]
    question = ("Knowledge gap: write one ASP rule defining licence_required(B) with the knowledge-base predicates.")
    verdict = _run(tmp_path, _rule_case("lake_licence", question, vocabulary, passages), "dialectic")
    rule = _asp(verdict)
    assert "not rowing_boat(B)" in rule and "not club_regatta(B)" in rule, rule


# -- arbitration --------------------------------------------------------------------------------------

def test_readings_on_opposite_sides_of_one_level_oppose_each_other():
    assert interpretation_conflict("use is above the 80% level", "use is below the 80% level")[0] == "reference"
    assert interpretation_conflict("above target", "below target") is not None
    # Different references, or the same side said twice, are no conflict.
    assert interpretation_conflict("above 5 mm", "below 10 mm") is None
    assert interpretation_conflict("not below the limit", "above the limit") is None


def test_a_figure_repeated_by_blogs_that_the_release_gives_for_last_year_is_named_as_such(tmp_path):
    release = {"id": "release", "source": "Northmoor Transport Office, bus punctuality, 2025 (fictitious)",
               "authority": "official", "date": "2026-02-10",
               "text": "In 2025, 81.2% of buses ran on time, down from 86.0% in 2024. Punctuality is measured at "
                       "every timing point."}
    blog = {"id": "blog", "source": "Commuter blog (fictitious)", "authority": "blog", "date": "2026-01-05",
            "text": "Buses here are doing fine: 86.0% on time, well above the 85% level."}
    reports = [
        {"agent": "Statistician", "metric": "bus_punctuality", "value": 81.2, "unit": "%",
         "citation": "[Per extraction: '81.2% of buses ran on time' from release]",
         "source": "Northmoor Transport Office", "period": "2025", "confidence": 0.9,
         "interpretation": "punctuality fell and is below the 85% level"},
        {"agent": "Commuter", "metric": "bus_punctuality", "value": 86.0, "unit": "%",
         "citation": "[Per extraction: '86.0% on time' from blog]", "source": "Commuter blog", "period": "2025",
         "confidence": 0.7, "interpretation": "punctuality is above the 85% level"},
    ]
    case = {"id": "buses", "title": "Bus punctuality", "protocol": "arbitration",
            "question": "Which figure should the (fictitious) council's report give for bus punctuality in 2025?",
            "evidence": [release, blog], "reports": reports,
            "agents": [{"id": "arbiter", "name": "Transport statistician", "role": "Neutral arbiter."}]}
    verdict = _run(tmp_path, case, "arbitration")
    # 81.2 and 86.0 differ by under the 5% value threshold; the readings put them on opposite sides of 85%.
    assert verdict["answer"].startswith("Use 81.2%"), verdict["answer"]
    assert "gives both figures in one sentence" in verdict["answer"]
    assert "down from 86.0% in 2024" in verdict["answer"]


# -- cross critique -----------------------------------------------------------------------------------

def test_doubt_is_read_only_where_an_author_says_the_point_is_open():
    assert states_doubt("I cannot rule out that the crack was there before.")
    assert states_doubt("It is unclear whether the fee applies.")
    assert states_doubt("The tests were inconclusive.")
    assert not states_doubt("We can rule out a leak.")
    assert not states_doubt("The result may be wrong.")


def test_a_cited_passage_that_says_the_point_is_open_sends_the_answer_to_a_person(tmp_path):
    case = _cc_case("bike_frame_warranty", "Is the crack in the (fictitious) customer's bicycle frame covered by the "
                    "frame warranty?", [
        {"id": "warranty", "source": "Velora frame warranty (fictitious)", "authority": "primary",
         "date": "2024-01-01",
         "text": "The frame is guaranteed against defects in materials and workmanship for five years. Damage "
                 "from a crash or an impact is not covered."},
        {"id": "shop_report", "source": "Bike shop inspection report (fictitious)", "authority": "secondary",
         "date": "2026-03-02",
         "text": "Hairline crack at the seat tube weld. The paint around it is unmarked. I cannot rule out that "
                 "it started from a knock, as the frame was not stripped for inspection."}])
    verdict = _run(tmp_path, case, "cross_critique")
    assert verdict["needs_human_review"] is True
    named = [r for r in verdict["escalation_reasons"] if "shop_report" in r and "cannot rule out" in r]
    assert named, verdict["escalation_reasons"]


def test_a_forum_post_against_a_primary_text_is_no_conflict_of_equals(tmp_path):
    case = _cc_case("parking_refund", "Does the (fictitious) Harbour car park refund an unused pre-booked day?", [
        {"id": "terms", "source": "Harbour car park booking terms (fictitious)", "authority": "primary",
         "date": "2025-05-01",
         "text": "A pre-booked day that is not used is refunded in full if it is cancelled before midnight on the "
                 "day before."},
        {"id": "forum", "source": "Local forum post (fictitious)", "authority": "blog", "date": "2025-08-01",
         "text": "Don't bother, they never refund a pre-booked day, whatever you do."}])
    verdict = _run(tmp_path, case, "cross_critique")
    # The claim resting on the forum post is withdrawn, not left as a CRITICAL conflict between equals,
    # and the answer opens with what the booking terms say.
    assert not any("CRITICAL" in r or "hard contradiction" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
    assert verdict["answer"].startswith("A pre-booked day that is not used is refunded in full"), verdict["answer"]


def test_an_answer_cut_off_before_the_condition_its_passage_sets_goes_to_a_person(tmp_path):
    case = _cc_case("parcel_refund", "Will the (fictitious) Parcelio shop refund the vase that arrived broken?", [
        {"id": "returns", "source": "Parcelio returns policy, section 4 (fictitious)", "authority": "primary",
         "date": "2025-02-01",
         "text": "If an item you ordered arrives broken or damaged because of how our courier handled it, we will "
                 "refund the full price of the item and the delivery charge to the card you paid with, provided "
                 "you report the damage to us within 14 days of delivery and keep the packaging for inspection."},
        {"id": "order", "source": "Order confirmation (fictitious)", "authority": "secondary", "date": "2026-03-01",
         "text": "Order 5521: one glass vase, 48 pounds, delivered by courier on 2 March 2026."},
        {"id": "note", "source": "Customer's note (fictitious)", "authority": "secondary", "date": "2026-03-03",
         "text": "The vase was in pieces when I opened the box; the box itself was crushed on one corner."}])
    verdict = _run(tmp_path, case, "cross_critique")
    assert verdict["needs_human_review"] is True
    assert "dropped_condition" in verdict["applied_rules"]
    named = [r for r in verdict["escalation_reasons"] if r.startswith("the answer quotes returns without the condition")]
    assert named and "within 14 days of delivery" in named[0], verdict["escalation_reasons"]


# -- refinement ---------------------------------------------------------------------------------------

def test_a_change_record_that_extends_something_from_one_figure_to_another_reports_a_change():
    record = Evidence(id="C1", source="config: installer's job record (fictitious)", date="2026-05-28",
                      text="28 May 2026: battery bank extended from 4 to 6 modules; charger settings unchanged.")
    metric = Evidence(id="M1", source="metrics: monitoring portal (fictitious)", date="2026-06-03",
                      text="Charge current rose from 20 to 31 A at noon.")
    assert events_of(record)[0].changes == ("extended",)
    # The same shape in a reading of a metric is a value that moved, not a change made.
    assert events_of(metric)[0].changes == ()


def test_two_changes_before_the_first_failure_with_nothing_to_tell_them_apart_go_to_a_person(tmp_path):
    evidence = [
        {"id": "L1", "source": "log: charger event log (fictitious)", "date": "2026-06-02T12:10:00",
         "text": "12:10:00 ERROR battery over-temperature, charging stopped."},
        {"id": "C1", "source": "config: installer's job record (fictitious)", "date": "2026-05-28",
         "text": "28 May 2026: battery bank extended from 4 to 6 modules; charger settings unchanged."},
        {"id": "C2", "source": "config: site works notice (fictitious)", "date": "2026-05-29",
         "text": "29 May 2026: cabinet fan replaced with a quieter model."},
    ]
    case = {"id": "battery", "title": "Battery trips",
            "question": "Since 2 June 2026 the (fictitious) shop's battery stops charging at midday. What is the "
                        "root cause, and how should it be resolved and prevented?", "evidence": evidence}
    assert [e.ev.id for e in timeline(Case(**case)).changes_before] == ["C1", "C2"]
    verdict = _run(tmp_path, case, "refinement")
    assert verdict["needs_human_review"] is True
    assert any("which of the changes before the first anomaly caused it" in r and "C1" in r and "C2" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]
