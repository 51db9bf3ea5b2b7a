"""Rules, records and readings as ordinary documents word them: a bar that lists what may not be there
("must contain no ... and no ..."), a limit ("is limited to"), an exception in brackets, a provision
deleted by its number, the kind of thing a vocabulary is "all over", a fact of the question that no
passage makes a condition, two documents that set different counts; an arbiter's readings on
opposite sides of one level and a release that gives both figures; a cited passage that says the
point is not settled; a forum post against a primary text; a change record that extends something
"from 16 to 22"; grants stated for whom, once-only limits, bans and what is still allowed; two
measurements beyond their stated uncertainties, a figure measured after the day asked about, a
record that says the point is still open; a review rated against its text. Each case is written
here (all fictitious) and driven through the CLI."""

from __future__ import annotations

from test_cc_dialectic_traps import _cc_case, _rule_case, _run

from debate_core.core.schemas import AgentOutput, Case, Claim, Evidence
from debate_core.core.text import states_doubt
from debate_core.protocols.arbitration.contradictions import interpretation_conflict
from debate_core.protocols.cross_critique.answer_rules import dropped_condition
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


# -- a second round of the same kind ---------------------------------------------------------------

def test_a_quality_controlled_release_is_quoted_where_it_says_it_replaces_the_provisional_figure(tmp_path):
    evidence = [
        {"id": "provisional", "source": "Tarn Water Board monthly summary (fictitious)", "authority": "official",
         "date": "2026-02-02", "text": "Kelder reservoir received 84 mm of rain in January. Figures are provisional."},
        {"id": "final", "source": "Tarn Water Board station data release (fictitious)", "authority": "official",
         "date": "2026-03-20",
         "text": "Kelder reservoir, January 2026: 97.5 mm. This value supersedes the provisional figure after the "
                 "gauge's logger fault was corrected."},
    ]
    reports = [
        {"agent": "Reporter", "metric": "kelder_rainfall", "value": 84, "unit": "mm",
         "citation": "[Per extraction: '84 mm of rain in January' from the monthly summary]",
         "source": "Tarn Water Board", "period": "January 2026", "confidence": 0.8, "interpretation": "a wet month"},
        {"agent": "Hydrologist", "metric": "kelder_rainfall", "value": 97.5, "unit": "mm",
         "citation": "[Per extraction: 'January 2026: 97.5 mm' from the station data release of 20 March 2026]",
         "source": "Tarn Water Board", "period": "January 2026", "confidence": 0.85,
         "interpretation": "a very wet month"},
    ]
    case = {"id": "kelder", "title": "Kelder rainfall", "protocol": "arbitration",
            "question": "Which January 2026 rainfall figure for the (fictitious) Kelder reservoir should the review use?",
            "evidence": evidence, "reports": reports,
            "agents": [{"id": "arbiter", "name": "Hydrologist", "role": "Neutral arbiter."}]}
    verdict = _run(tmp_path, case, "arbitration")
    assert verdict["answer"].startswith("Use 97.5 mm"), verdict["answer"]
    assert 'says: "Kelder reservoir, January 2026: 97.5 mm' in verdict["answer"] or \
        "This value supersedes the provisional figure" in verdict["answer"], verdict["answer"]


def test_a_condition_in_the_sentence_after_the_cut_counts_too():
    terms = Evidence(id="terms", source="Lido Club membership terms, clause 6 (fictitious)", authority="primary",
                     text="6.2: if you move home more than 15 miles by road from the nearest Lido Club pool, you may "
                          "end your membership by giving one month's written notice with proof of your new address. "
                          "For this purpose a pool counts if it is open, or due to open, within two months.")
    cut = "6.2: if you move home more than 15 miles by road from the nearest Lido Club pool, you may end your…"
    finals = {"member": AgentOutput(answer=cut, claims=[Claim(id="C1", statement=cut, evidence=["terms"],
                                                                confidence=0.8)])}
    reason = dropped_condition(f"{cut} [member.C1]", finals, [terms])
    assert reason is not None and "due to open, within two months" in reason
    # Cut where only the manner of giving notice follows, the claim leaves no condition out.
    plain = terms.model_copy(update={"text": terms.text.split(" For this purpose")[0]})
    assert dropped_condition(f"{cut} [member.C1]", finals, [plain]) is None


FOSTER = ("Predicates, all over an applicant A: applicant(A): A has applied for a foster carer's allowance; "
          "approved_carer(A): A is an approved foster carer; child_placed(A): a child is placed with A; "
          "lives_in_county(A): A lives in the county; unpaid_debt(A): A owes the council money that is overdue.")


def test_a_predicate_one_sentence_requires_and_another_bars_goes_to_a_person(tmp_path):
    passages = [
        {"id": "S3", "source": "Fostering allowance scheme, part 3 (fictitious)", "authority": "official",
         "date": "2024-04-01",
         "text": "3.1 An allowance may be paid to an approved foster carer with whom a child is placed, where the "
                 "carer lives in the county. 3.2 A carer who lives in the county but fosters for another council "
                 "is not paid an allowance by this council."},
    ]
    question = "Knowledge gap: write one ASP rule defining allowance_due(A) with the knowledge-base predicates."
    verdict = _run(tmp_path, _rule_case("foster_allowance", question, FOSTER, passages), "dialectic")
    assert verdict["needs_human_review"] is True
    named = [r for r in verdict["escalation_reasons"] if "whether lives_in_county is a condition" in r]
    assert named and "3.1 An allowance" in named[0] and "3.2 A carer" in named[0], verdict["escalation_reasons"]


def test_distances_in_metres_that_two_parts_of_one_bylaw_set_differently_go_to_a_person(tmp_path):
    vocabulary = ("Predicates, all over a pen P: pen(P): P is a proposed goat pen in a garden; registered(P): the "
                  "keeper has registered the pen; within_15m_of_house(P): the pen is less than 15 m from a "
                  "neighbour's house; within_8m_of_house(P): the pen is less than 8 m from a neighbour's house.")
    passages = [
        {"id": "BYLAW", "source": "Garden livestock bylaw, part 2 (fictitious)", "authority": "bylaw",
         "date": "2024-05-01",
         "text": "2.1 No goat may be kept in a garden unless the pen is registered. 2.2 A pen shall not be placed "
                 "within 15 metres of a neighbour's house."},
        {"id": "SCHEDULE", "source": "Garden livestock bylaw, schedule (fictitious)", "authority": "bylaw",
         "date": "2024-05-01",
         "text": "Minimum distance of a pen from a neighbour's house: 8 m, provided a fence at least 2 m high "
                 "stands between them."},
    ]
    question = "Knowledge gap: write one ASP rule defining pen_allowed(P) with the knowledge-base predicates."
    verdict = _run(tmp_path, _rule_case("goat_pen", question, vocabulary, passages), "dialectic")
    assert verdict["needs_human_review"] is True
    assert any("BYLAW and SCHEDULE disagree" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_an_amendment_from_a_session_start_the_passages_do_not_date_leaves_the_question_time_open(tmp_path):
    vocabulary = ("Predicates, all over a student S: student(S): S is a registered student; late_claim(S): S "
                  "claimed more than 7 days after the deadline.")
    passages = [
        {"id": "REG", "source": "Assessment regulations, regulation 9 (fictitious)", "authority": "official",
         "date": "2025-09-01",
         "text": "9.1 A student may resubmit coursework once. 9.2 No resubmission is accepted from a student who "
                 "claimed more than 7 days after the deadline."},
        {"id": "SENATE", "source": "Senate minute amending regulation 9 (fictitious)", "authority": "official",
         "date": "2026-03-01",
         "text": "Regulation 9.2 is amended so that the limit is 14 days. The change takes effect from the start of "
                 "the next academic session."},
    ]
    question = ("Knowledge gap: the records system must decide resubmissions for coursework due in April 2026. "
                "Write one ASP rule defining may_resubmit(S) with the knowledge-base predicates.")
    verdict = _run(tmp_path, _rule_case("resubmission", question, vocabulary, passages), "dialectic")
    assert "amendment_starts_later" in verdict["applied_rules"]
    named = [r for r in verdict["escalation_reasons"] if r.startswith("SENATE changes the rule from")]
    assert named and "the start of the next academic session" in named[0], verdict["escalation_reasons"]
    # An amendment that took effect before the time the question asks about raises nothing.
    dated = {**passages[1], "text": "Regulation 9.2 is amended so that the limit is 14 days. The change takes effect "
                                    "from 1 March 2026."}
    verdict = _run(tmp_path, _rule_case("resubmission_dated", question, vocabulary, [passages[0], dated]), "dialectic")
    assert "amendment_starts_later" not in verdict["applied_rules"]


# -- a third round ------------------------------------------------------------------------------------

def test_words_substituted_by_an_amendment_are_read_in_the_sentence_they_change(tmp_path):
    vocabulary = ("Predicates, all over a person W: walker(W): W walks dogs on the common; more_than_two_dogs(W): "
                  "W walks more than two dogs at one time; more_than_five_dogs(W): W walks more than five dogs at "
                  "one time; trainer(W): W trains guide dogs for a registered charity.")
    passages = [
        {"id": "ORDER", "source": "Common land order 2022 (fictitious)", "authority": "order", "date": "2022-05-01",
         "text": "4. A person who walks more than five dogs at any one time on the common must hold a permit. "
                 "5. Paragraph 4 does not apply to a person who trains guide dogs for a registered charity."},
        {"id": "VARIATION", "source": "Common land variation order 2025 (fictitious)", "authority": "order",
         "date": "2025-10-01",
         "text": "In paragraph 4 of the 2022 Order, for 'more than five dogs' substitute 'more than two dogs'. This "
                 "Order came into force on 1 December 2025."},
    ]
    question = "Knowledge gap: write one ASP rule defining permit_required(W) with the knowledge-base predicates."
    verdict = _run(tmp_path, _rule_case("common_permit", question, vocabulary, passages), "dialectic")
    rule = _asp(verdict)
    # "All over a person W" names no predicate: the list opens with its subject, walker(W).
    assert rule.startswith("permit_required(W) :- walker(W)"), rule
    assert "more_than_two_dogs(W)" in rule and "more_than_five_dogs" not in rule, rule
    assert "not trainer(W)" in rule, rule


def test_a_bar_after_a_comma_a_refusal_and_a_clock_time_that_is_no_figure(tmp_path):
    vocabulary = ("Predicates, all over a guest G: guest(G); booked_before_5pm(G): G was booked in before 5 pm; "
                  "over_five_sleeping(G): with G, more than five people would sleep in the cabin; rent_overdue(G): "
                  "the host's rent is unpaid after its due date.")
    passages = [
        {"id": "RULES", "source": "Lakeside cabins, house rules 2026 (fictitious)", "authority": "official",
         "date": "2026-01-10",
         "text": "2.1 Guests may stay overnight as long as reception has them booked in before 5 pm. 2.2 However "
                 "many of them are children, no cabin may sleep more than five people. 2.3 While any rent is "
                 "unpaid after the due date, we won't accept guest bookings for your cabin."},
    ]
    question = "Knowledge gap: write one ASP rule defining guest_may_stay(G) with the knowledge-base predicates."
    verdict = _run(tmp_path, _rule_case("cabins", question, vocabulary, passages), "dialectic")
    rule = _asp(verdict)
    # The bare "guest(G);" declares the subject; "before 5 pm" is a time, not the "five" of the sleeping limit.
    assert rule.startswith("guest_may_stay(G) :- guest(G), booked_before_5pm(G)"), rule
    assert "not over_five_sleeping(G)" in rule and "not rent_overdue(G)" in rule, rule


def test_a_change_that_waits_for_a_publication_leaves_the_round_open(tmp_path):
    vocabulary = ("Predicates, all over a club C: club(C); income_under_50k(C): C's income is below 50,000 pounds; "
                  "income_under_80k(C): C's income is below 80,000 pounds.")
    passages = [
        {"id": "GUIDE", "source": "Grant guidance, version 2 (fictitious)", "authority": "official",
         "date": "2025-01-10", "text": "A club may apply only if its income is below 50,000 pounds."},
        {"id": "MINUTE", "source": "Board minute (fictitious)", "authority": "official", "date": "2026-02-01",
         "text": "The Board agreed to raise the income limit to 80,000 pounds. The new limit will apply to rounds "
                 "that open after version 3 of the guidance has been published."},
    ]
    question = ("Knowledge gap: the checker must decide applications for the round that opens on 1 May 2026. "
                "Write one ASP rule defining may_apply(C) with the knowledge-base predicates.")
    verdict = _run(tmp_path, _rule_case("grant_round", question, vocabulary, passages), "dialectic")
    named = [r for r in verdict["escalation_reasons"] if r.startswith("MINUTE changes the rule from")]
    assert named and "version 3 of the guidance has been published" in named[0], verdict["escalation_reasons"]


def test_a_comparing_like_is_no_liking():
    from debate_core.protocols.panel.agent.sentiment import compound

    assert compound("the battery is nothing like my old one") == 0.0
    assert compound("it looks like a brick") == 0.0
    assert compound("I like the screen") > 0.05


def test_opposite_leanings_of_the_parts_and_the_whole_are_no_answer():
    from debate_core.protocols.panel.agent.reading import opposite_leaning

    assert opposite_leaning("negative", "The screen is lovely.") is not None
    assert opposite_leaning("positive", "The screen is lovely.") is None
    assert opposite_leaning("mixed", "The screen is lovely.") is None  # mixed sides with neither
    assert opposite_leaning("negative", "The screen is twelve inches wide.") is None  # the whole reads no sentiment


def test_a_review_read_negative_part_by_part_and_positive_as_a_whole_goes_to_a_person(tmp_path):
    sentence = ("Four weeks in, and all I will say is that the trackpad is nothing like my old notebook's and the fan "
                "is something else.")
    case = {"id": "notebook_review", "title": "notebook review",
            "question": f"What is the overall sentiment (positive, negative, neutral or mixed) of the review sentence "
                        f"\"{sentence}\", and what is the sentiment towards each aspect (trackpad, fan)?",
            "domain_hint": "product review (fictitious notebook)",
            "evidence": [{"id": "R1", "source": "Customer review (fictitious)", "text": sentence},
                         {"id": "O1", "source": "Other customers' reviews (fictitious)",
                          "text": "'Trackpad is smooth, and the fan is silent.' 'Trackpad misses taps and the fan "
                                  "whines whenever a video plays.'"}]}
    verdict = _run(tmp_path, case, "panel")
    # The fan's clause reads negative only through another customer's review, while VADER reads the whole
    # sentence positive (its lexicon takes "fan" for an admirer): two readers apart, neither to be trusted.
    assert verdict["needs_human_review"] is True
    assert any("which way the text leans" in r and "taken whole positive" in r for r in verdict["escalation_reasons"])


SWIM_PASS = ("Predicates, all over a resident R: resident(R): R has applied for a free swim pass for 2027; "
             "lives_in_borough(R): R lives in the borough; over_60(R): R is 60 or older; pension_credit(R): R "
             "receives Pension Credit; already_issued(R): a swim pass for R has already been issued for 2027; "
             "temporary_resident(R): R is a temporary resident; primary_school(R): R volunteers at a primary school.")


def test_a_grant_paid_for_whom_a_once_only_limit_and_a_cover_bar_with_a_concession(tmp_path):
    passages = [
        {"id": "SCHEME", "source": "Fernleigh Borough free swim scheme 2027 (fictitious)", "authority": "official",
         "date": "2026-11-01",
         "text": "1. A free swim pass is issued for a resident who lives in the borough and is aged 60 or over, "
                 "where the resident receives Pension Credit. 2. We issue one pass per resident for each "
                 "calendar year."},
        {"id": "LIMITS", "source": "Fernleigh Borough free swim scheme 2027, section 2 (fictitious)",
         "authority": "official", "date": "2026-11-01",
         "text": "3. Temporary residents aren't covered, even where they help at a primary school in the borough."},
    ]
    question = ("Knowledge gap: Fernleigh Borough's leisure system must decide whether to issue a free swim pass "
                "for 2027. Write one ASP rule defining free_pass(R) with the knowledge-base predicates, so that it "
                "agrees with the scheme.")
    rule = _asp(_run(tmp_path, _rule_case("swim_pass", question, SWIM_PASS, passages), "dialectic"))
    # "is issued for a resident who ..., where ..." grants the pass on its conditions.
    for condition in ("lives_in_borough(R)", "over_60(R)", "pension_credit(R)"):
        assert condition in rule, rule
    # "one pass per resident for each calendar year" is spent once a pass was issued ("we issue" meets
    # "issued" through the stem, "paid" would meet "pay" through the irregular forms).
    assert "not already_issued(R)" in rule, rule
    # "aren't covered" bars; what the concession names ("even where ... a primary school") changes nothing.
    assert "not temporary_resident(R)" in rule, rule
    assert "primary_school" not in rule, rule


def test_nobody_unless_names_a_condition_and_two_documents_setting_different_ages_go_to_a_person(tmp_path):
    vocabulary = ("Predicates, all over a climber C: climber(C): C asks to use the bouldering room; aged_14_plus(C): "
                  "C is 14 or older; aged_16_plus(C): C is 16 or older; inducted(C): C has completed the "
                  "induction; staff_on_site(C): a member of staff is on site while C climbs.")
    passages = [
        {"id": "HOUSE", "source": "Quarrymill Climbing, house rules 2026 (fictitious)", "authority": "official",
         "date": "2026-01-10",
         "text": "Climbers aged 14 and over who have completed the induction can use the bouldering room. "
                 "Nobody climbs unless a member of staff is on site."},
        {"id": "TERMS", "source": "Quarrymill Climbing, terms of entry 2026 (fictitious)", "authority": "official",
         "date": "2026-01-10",
         "text": "The bouldering room is open only to climbers aged 16 or over who have completed the induction."},
    ]
    question = ("Knowledge gap: Quarrymill Climbing's booking desk must decide who may use the bouldering room. "
                "Write one ASP rule defining may_boulder(C) with the knowledge-base predicates, so that it agrees "
                "with the centre's 2026 documents.")
    verdict = _run(tmp_path, _rule_case("bouldering", question, vocabulary, passages), "dialectic")
    rule = _asp(verdict)
    assert "staff_on_site(C)" in rule and "not staff_on_site" not in rule, rule
    assert "inducted(C)" in rule, rule
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if "neither amends the other" in r)
    assert "aged 14 and over" in reason and "aged 16 or over" in reason


def test_two_measurements_further_apart_than_their_stated_uncertainties_go_to_a_person(tmp_path):
    from debate_core.core.schemas import Evidence as Ev
    from debate_core.protocols.arbitration.escalation import beyond_stated_uncertainty

    north = {"id": "north", "source": "Northgate Test House, report NT-77 (fictitious), accredited", "authority": "official",
             "date": "2026-03-20",
             "text": "Sample: one bag of the batch. Moisture content: 11.2% (uncertainty ±0.2%). Oven-drying method."}
    south = {"id": "south", "source": "Southbank Laboratory, certificate SB-310 (fictitious), accredited",
             "authority": "official", "date": "2026-04-06",
             "text": "Sample: one bag of the batch. Moisture content 12.0%, with a margin of error of 0.2%. "
                     "Oven-drying method."}
    # Under the 10% gap a tie-break may settle, yet four times the uncertainty both sources state.
    found = beyond_stated_uncertainty(11.2, [Ev(**north)], 12.0, [Ev(**south)])
    assert found is not None and "±0.2 and ±0.2" in found
    assert beyond_stated_uncertainty(11.2, [Ev(**north)], 11.4, [Ev(**south)]) is None  # within the uncertainty
    reports = [
        {"agent": "Miller", "metric": "grain_moisture", "value": 11.2, "unit": "%",
         "citation": "[Per extraction: 'Moisture content: 11.2%' from north]", "source": "Northgate Test House",
         "period": "2026", "confidence": 0.85, "interpretation": "the batch's moisture content"},
        {"agent": "Buyer", "metric": "grain_moisture", "value": 12.0, "unit": "%",
         "citation": "[Per extraction: 'Moisture content 12.0%' from south]", "source": "Southbank Laboratory",
         "period": "2026", "confidence": 0.85, "interpretation": "the batch's moisture content"},
    ]
    case = {"id": "grain", "title": "Grain moisture", "protocol": "arbitration",
            "question": "What moisture content should the (fictitious) mill record for the batch?",
            "evidence": [north, south], "reports": reports,
            "agents": [{"id": "arbiter", "name": "Quality arbiter", "role": "Neutral arbiter."}]}
    verdict = _run(tmp_path, case, "arbitration")
    assert verdict["needs_human_review"] is True
    assert verdict["answer"].startswith("A person must choose"), verdict["answer"]
    assert any("times the uncertainty their sources state" in r for r in verdict["escalation_reasons"])


def test_praise_rated_one_of_five_goes_to_a_person(tmp_path):
    text = "Spotless rooms, and the staff at the front desk could not have been kinder."
    case = {"id": "guesthouse", "title": "guest house review",
            "question": f"What is the overall sentiment (positive, negative, neutral or mixed) of this guest house review, "
                        f"taking its text and its rating together: \"{text}\", rated 1 of 5? And what is the "
                        f"sentiment towards each aspect (rooms, staff)?",
            "domain_hint": "guest house review (fictitious)",
            "evidence": [{"id": "T", "source": "Review text (fictitious)", "authority": "primary", "text": text},
                         {"id": "S", "source": "Same review, rating (fictitious)", "authority": "primary",
                          "text": "Rating: 1 of 5 stars."}]}
    verdict = _run(tmp_path, case, "panel")
    assert verdict["needs_human_review"] is True
    assert any("its text reads positive, at odds with the reviewer's own rating (1 of 5)" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_comparative_that_cannot_be_exceeded_says_the_most_of_its_word():
    from debate_core.protocols.panel.agent.sentiment import compound

    assert compound("The staff could not have been kinder.") > 0.05
    assert compound("I couldn't be happier with it.") > 0.05
    assert compound("The service could not have been worse.") < -0.05
    assert compound("We have never seen a worse hotel.") < -0.05
    # Not every negated word is such a comparative: a plain negation still turns its word.
    assert compound("The staff were not kind.") < 0


def test_a_withheld_judgement_and_one_of_what_would_have_been_read_the_other_way(tmp_path):
    from debate_core.protocols.panel.agent.sentiment import compound

    assert compound("I can't say the screen is great or that the speakers are any good.") < -0.05
    assert compound("Nobody could call the screen bright.") < -0.05
    assert compound("I wouldn't call it cheap, but it is worth every penny.") > 0.05  # the denial ends at "but"
    assert compound("The pool would have been lovely if it had been open.") < -0.05
    assert compound("It could have been a disaster without her help.") > 0.05
    # A passive verb after "been" tells what would have happened, not a judgement, and is left alone.
    assert compound("The transfer would have been accomplished very quickly.") > 0.05
    assert compound("I can say the screen is great.") > 0.05

    text = "I can't say the screen is great, and the pool would have been lovely if it had been open."
    case = {"id": "resort", "title": "resort review",
            "question": f"What is the overall sentiment (positive, negative, neutral or mixed) of this resort "
                        f"review: \"{text}\"? And what is the sentiment towards each aspect (screen, pool)?",
            "domain_hint": "holiday resort review (fictitious)",
            "evidence": [{"id": "T", "source": "Review text (fictitious)", "authority": "primary", "text": text}]}
    verdict = _run(tmp_path, case, "panel")
    assert verdict["answer"].startswith("The overall sentiment is negative"), verdict["answer"]


def test_a_report_finds_its_source_named_word_by_word():
    from debate_core.core.schemas import Evidence as Ev
    from debate_core.protocols.arbitration.contradictions import source_passages

    report = Ev(id="annual", source="Carrow Bay Trust, Annual Report and Accounts 2025, page 4 (fictitious)",
                text="Visitors in 2025 totalled 21,310.")
    news = Ev(id="news", source="Carrow Bay Trust, members' newsletter, January 2026 (fictitious)",
              text="Our provisional count shows 18,650 visitors.")
    assert source_passages("Carrow Bay Trust Annual Report 2025", "[Per extraction: 'totalled 21,310']",
                           [report, news]) == [report]
    assert source_passages("Carrow Bay Trust newsletter", None, [report, news]) == [news]
    # One shared word is no naming: the trust's name alone does not pick a passage of its own.
    assert source_passages("Harbour", None, [report, news]) == []


def test_a_rule_of_what_is_banned_takes_its_conditions_from_the_bar_and_its_exceptions_from_what_is_allowed(tmp_path):
    vocabulary = ("Predicates, all over a fire F: fire(F): a request to light a bonfire on the common; in_dry_season(F): "
                  "the date falls between 1 June and 30 September inclusive; cooking_only(F): the fire is a "
                  "small cooking fire in a raised brazier; ranger_permit(F): a ranger has issued a written permit; "
                  "after_dark(F): the fire would burn after sunset.")
    passages = [{"id": "BYELAW", "source": "Hollin Common byelaws 2025 (fictitious)", "authority": "official",
                 "date": "2025-04-01",
                 "text": "No person shall light a fire on the common between 1 June and 30 September. A small "
                         "cooking fire in a raised brazier is still allowed where the ground is bare. Fires may be lit "
                         "at any time under a written permit issued by a ranger."}]
    question = ("Knowledge gap: the common's booking desk must refuse bonfire requests the byelaws forbid. Write one "
                "ASP rule defining fire_banned(F) with the knowledge-base predicates, so that it agrees with the byelaws.")
    rule = _asp(_run(tmp_path, _rule_case("bonfire", question, vocabulary, passages), "dialectic"))
    # The bar's dates (a description phrase found word for word) are the ban's condition; what the
    # byelaws still allow, or allow under a permit, defeats it.
    assert "in_dry_season(F)" in rule and "not in_dry_season" not in rule, rule
    assert "not cooking_only(F)" in rule and "not ranger_permit(F)" in rule, rule
    assert "after_dark" not in rule, rule


def _ammonia_case(shop_period: str) -> dict:
    reports = [
        {"agent": "Keeper", "metric": "pond_ammonia", "value": 0, "unit": "mg/l",
         "citation": "[Per extraction: 'ammonia 0 mg/l' from keeper]", "source": "Keeper's test", "period": "4 May 2026",
         "confidence": 0.7, "interpretation": "the water was safe"},
        {"agent": "Supplier", "metric": "pond_ammonia", "value": 2.0, "unit": "mg/l",
         "citation": "[Per extraction: 'ammonia 2.0 mg/l' from lab]", "source": "Supplier laboratory",
         "period": shop_period, "confidence": 0.8, "interpretation": "the water was unsafe"},
    ]
    evidence = [
        {"id": "keeper", "source": "Keeper's test (fictitious)", "authority": "customer", "date": "2026-05-04",
         "text": "Tested the pond on 4 May 2026 when the koi died: ammonia 0 mg/l on my strip."},
        {"id": "lab", "source": "Supplier laboratory report (fictitious)", "authority": "official",
         "date": "2026-05-07", "text": "Sample received 6 May 2026: ammonia 2.0 mg/l by liquid reagent."},
    ]
    return {"id": "koi", "title": "Pond ammonia", "protocol": "arbitration",
            "question": "Two koi died in a customer's pond on 4 May 2026. What was the ammonia level in the pond "
                        "when they died?",
            "evidence": evidence, "reports": reports,
            "agents": [{"id": "arbiter", "name": "Water quality arbiter", "role": "Neutral arbiter."}]}


def test_a_figure_measured_after_the_day_the_question_asks_about_goes_to_a_person(tmp_path):
    verdict = _run(tmp_path, _ammonia_case("6 May 2026"), "arbitration")
    # Every contradiction is resolved, yet the verdict goes to a person: the answer opens as a proposal.
    assert verdict["answer"].startswith("Provisionally, use 2 mg/l"), verdict["answer"]
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if "after the time the question asks about" in r)
    assert "6 May 2026" in reason and "(4 May 2026)" in reason
    assert "escalate.measured_after_question" in verdict["applied_rules"]


def test_a_passage_that_says_the_point_is_still_open_keeps_the_ruling_open(tmp_path):
    case = _ammonia_case("4 May 2026")
    case["evidence"].append({"id": "note", "source": "Supplier's complaints log (fictitious)", "authority": "official",
                             "date": "2026-05-09",
                             "text": "The keeper's strip and our laboratory sample have not been reconciled."})
    (tmp_path / "settled").mkdir()
    settled = _run(tmp_path / "settled", _ammonia_case("4 May 2026"), "arbitration")
    assert settled["needs_human_review"] is False and settled["answer"].startswith("Use 2 mg/l"), settled["answer"]
    verdict = _run(tmp_path, case, "arbitration")
    assert verdict["needs_human_review"] is True
    assert verdict["answer"].startswith("Provisionally, use 2 mg/l"), verdict["answer"]
    assert any(r.startswith('note says the point is still open ("The keeper') for r in verdict["escalation_reasons"])


def test_records_that_say_the_point_is_still_open():
    for sentence in ("The two counts have not been reconciled.", "The group makes no finding on condition 11.",
                     "The tally cannot be checked against anything else.",
                     "Nobody has yet compared the 2,310 accounts with the matches."):
        assert states_doubt(sentence), sentence
    assert not states_doubt("The two counts were reconciled on 3 March.")


def test_an_incident_record_that_says_the_cause_is_not_yet_established_goes_to_a_person():
    from debate_core.core.schemas import Case as CaseModel
    from debate_core.protocols.refinement.agent.reasoners import open_in_the_record

    case = CaseModel(id="rates", title="rates", question="Why were 300 bills printed without the discount?",
                     evidence=[Evidence(id="N1", source="log: incident notes", text="Both changes were undone on 6 "
                                        "March. No one has yet checked which of them cleared the discount dates.")])
    assert open_in_the_record(case) == [
        'whether the cause is established: N1 says "No one has yet checked which of them cleared the discount dates"']
