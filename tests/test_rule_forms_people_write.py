"""Rules as people write them in a club's brief: "you'll need" a thing, an abbreviation of a
predicate's name ("an SKA or better"), and "no one launches until they've signed it", where the
predicate is named by the words only it uses. Driven through the CLI on a case written here (all
fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.schemas import Case
from debate_core.protocols.dialectic.agent.cues import cue_kind
from debate_core.protocols.dialectic.agent.predicates import common_terms, matches, vocabulary

_VOCABULARY = (
    "Predicates, over a paddler K on a trip from Pellow Cove: club_member(K): K is a paid-up member of the "
    "Pellow Cove Kayak Club; sea_kayak_award(K): K holds the Sea Kayak Award or higher; waiver_signed(K): K has "
    "read the trip brief and put a name to the club's waiver; has_helmet(K): K wears a helmet on the water; "
    "miles_50(K): K has logged at least 50 miles at sea.")

_BRIEF = ("You'll need club membership, since that's what carries your insurance, and an SKA or better. "
          "Fill in the waiver on the slipway; no one launches until they've signed it. We'd recommend a "
          "helmet for rock-hopping, and the old '50 miles logged' requirement went in 2022.")


def test_you_will_need_an_abbreviation_and_until_they_have_signed_are_conditions(tmp_path):
    case = _rule_case(
        "kayak_launch",
        "Knowledge gap: write one ASP rule defining may_launch(K) with the knowledge-base predicates, so that it "
        "agrees with the club's trip rules as they now stand.",
        _VOCABULARY,
        [{"id": "BRIEF", "source": "Pellow Cove Kayak Club trip brief, 2025 (fictitious)", "authority": "primary",
          "text": _BRIEF}])
    verdict = _run(tmp_path, case, "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1]
    for condition in ("club_member(K)", "sea_kayak_award(K)", "waiver_signed(K)"):
        assert condition in rule, verdict["answer"]
    for distractor in ("has_helmet", "miles_50"):
        assert distractor not in rule, verdict["answer"]


def test_what_you_will_need_is_required_and_what_you_need_not_do_is_not():
    assert cue_kind("You'll need a permit from the harbour office.") == "obligation"
    assert cue_kind("You will need two forms of identity.") == "obligation"
    assert cue_kind("You need not bring a helmet.") == "not_required"
    assert cue_kind("You don't need a permit for the inner pontoon.") == "not_required"


def test_membership_of_a_body_is_a_condition_not_what_the_rule_is_about():
    for opening in ("Predicates, over a person P at the fire-space gate: ", "Predicates: "):
        case = Case.model_validate(_rule_case(
            "fire_gate", "Write one ASP rule defining may_spin(P).",
            opening + "guild_member(P): P is a member of the Guild of Performing Jugglers; age_18_plus(P): P is "
            "18 or over; briefing_today(P): P attended that day's briefing.", []))
        groups = {p.name: p.group for p in vocabulary(case)[0]}
        assert groups["guild_member"] != "subject", (opening, groups)


def test_a_withdrawal_then_its_replacement_after_a_colon_and_what_nobody_else_needs(tmp_path):
    case = _rule_case(
        "rowing_regatta",
        "Knowledge gap: write one ASP rule defining may_row(P) with the knowledge-base predicates, so that it "
        "agrees with the regatta's rules as they now stand.",
        "Predicates, over a rower P at the Kelby regatta: entered(P): P is on a crew's entry; age_16_plus(P): P is "
        "16 or over; age_14_plus(P): P is 14 or over; consent_form(P): a parent signed the junior consent form "
        "for P; escort(P): an adult escort is named for P; safety_trained(P): P has done the safety talk.",
        [{"id": "RULES", "source": "Kelby regatta rules, 2025 (fictitious)", "authority": "primary",
          "date": "2025-04-01",
          "text": "Anyone on a crew's entry may row. Rowers should be 16 or over, though 14- and 15-year-olds are "
                  "welcome, provided a parent signs the junior consent form and an adult escort is named. Each "
                  "crew names a cox, who does the safety talk; nobody else needs to."},
         {"id": "SECRETARY", "source": "Regatta secretary, email, March 2026 (fictitious)", "authority": "primary",
          "date": "2026-03-02",
          "text": "Our insurer has changed its terms. So the junior route (consent form plus escort) is "
                  "withdrawn: to row at the regatta you now have to be 16 or over on the day."}])
    verdict = _run(tmp_path, case, "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1].split(" Left out")[0]
    assert "age_16_plus(P)" in rule and "entered(P)" in rule, verdict["answer"]
    for gone in ("consent_form", "escort", "age_14_plus", "safety_trained"):
        assert gone not in rule, verdict["answer"]
    assert "Left out as withdrawn: consent_form, escort (SECRETARY: " in verdict["answer"]
    assert not any("leaves out" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_you_can_if_you_are_in_place_of_and_so_we_dropped_it(tmp_path):
    case = _rule_case(
        "judo_randori",
        "Knowledge gap: write one ASP rule defining may_spar(P) with the knowledge-base predicates, so that it "
        "agrees with the club's rules as they now stand.",
        "Predicates, over a person P at a Friday randori night: member_paid(P): P is a member with this year's "
        "fee paid; age_14_plus(P): P is 14 or older; club_course(P): P has done the club's old three-week "
        "breakfalls course; online_course(P): P has completed the federation's online safe-practice course; "
        "doctor_note(P): P has a doctor's fitness note.",
        [{"id": "HANDBOOK", "source": "Fellgate Judo Club handbook, 2024 (fictitious)", "authority": "primary",
          "date": "2024-01-10",
          "text": "You can spar at randori if you're a member with this year's fee paid, you're 14 or over, and "
                  "you've done our three-week breakfalls course. We used to ask for a doctor's note, but "
                  "surgeries started charging for them, so we dropped it in 2023."},
         {"id": "COMMITTEE", "source": "Committee email, March 2026 (fictitious)", "authority": "primary",
          "date": "2026-03-01",
          "text": "From 1 April 2026 we accept the federation's online safe-practice course in place of our own "
                  "breakfalls course: everyone needs the online course certificate, and the old three-week course no "
                  "longer counts."}])
    verdict = _run(tmp_path, case, "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1].split(" Left out")[0]
    for condition in ("member_paid(P)", "age_14_plus(P)", "online_course(P)"):
        assert condition in rule, verdict["answer"]
    for gone in ("club_course", "doctor_note"):
        assert gone not in rule, verdict["answer"]
    assert "Left out as withdrawn: doctor_note (HANDBOOK: " in verdict["answer"]
    assert "Left out as withdrawn: club_course (COMMITTEE: " in verdict["answer"]


def test_a_clause_number_is_no_figure_of_a_predicate():
    case = Case.model_validate(_rule_case(
        "rehoming", "Write one ASP rule defining may_adopt(P).",
        "Predicates, over an applicant household P: age_18_plus(P): the applicant is 18 or older; "
        "fenced_garden_6ft(P): P has a garden fenced to at least six feet; home_check_passed(P): P passed a "
        "home check.", []))
    preds = vocabulary(case)[0]
    fence = next(p for p in preds if p.name == "fenced_garden_6ft")
    common = common_terms(preds)
    assert not matches("6.2 A branch may keep a stricter local condition where its committee decides.", fence, common)
    assert matches("We ask for a 6 ft fence all round the garden.", fence, common)


# -- arbitration -----------------------------------------------------------------------------------

def _report(agent: str, metric: str, value: float, unit: str, citation: str, source: str, period: str,
            reading: str, confidence: float = 0.7) -> dict:
    return {"agent": agent, "metric": metric, "value": value, "unit": unit, "citation": f"[Per extraction: {citation}]",
            "source": source, "period": period, "confidence": confidence, "interpretation": reading}


def test_a_figure_for_april_to_march_and_one_for_the_calendar_year_are_both_valid(tmp_path):
    reports = [
        _report("TrustReport", "ferry_passengers", 48200, "passengers",
                "'48,200 passengers between April 2025 and March 2026' from the trust's annual report",
                "Harrowby Ferry Trust", "2025", "48,200 people crossed in 2025"),
        _report("CountyTable", "ferry_passengers", 44100, "passengers",
                "'Harrowby ferry: 44,100 passengers in 2025' from the county's tourism table",
                "Wendle County Council", "2025", "44,100 people crossed in 2025"),
    ]
    evidence = [
        {"id": "TRUST", "source": "Harrowby Ferry Trust annual report for the year ended 31 March 2026 (fictitious)",
         "date": "2026-05-20", "text": "A record season: 48,200 passengers between April 2025 and March 2026."},
        {"id": "COUNTY", "source": "Wendle County Council tourism table 2025 (fictitious)", "date": "2026-06-02",
         "text": "Harrowby ferry: 44,100 passengers in 2025. All figures are for the calendar year, January to "
                 "December."},
    ]
    question = "How many passengers did the (fictitious) Harrowby ferry carry in 2025: 48,200 or 44,100, or both?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert "both valid" in verdict["answer"], verdict["answer"]
    assert "they cover different years: 44,100 passengers is for the calendar year" in verdict["answer"]


def _gust_case(question: str) -> dict:
    reports = [
        _report("SiteGauge", "gust_at_slide", 17, "mph", "'15:40 12/17' from the site's wind log", "Pennock Fun Park",
                "15:40, 3 June 2026", "the gust at the slide at 15:40 was 17 mph, under the limit"),
        _report("CoastStation", "gust_at_slide", 33, "mph", "'15:50: gusting 33 mph' from the coastguard station",
                "Pennock coastguard station", "15:50, 3 June 2026", "gusts reached 33 mph, over the limit"),
    ]
    evidence = [
        {"id": "LOG", "source": "Pennock Fun Park wind log (fictitious)", "date": "2026-06-03", "authority": "operator",
         "text": "Readings (mean/gust, mph): 15:30 10/14; 15:40 12/17; 15:50 13/19."},
        {"id": "STATION", "source": "Pennock coastguard station observations, 9 km away (fictitious)",
         "date": "2026-06-03", "authority": "official", "text": "15:30: gusting 26 mph. 15:50: gusting 33 mph as a squall passed."},
    ]
    return _arbitration(question, reports, evidence)


def test_a_figure_read_ten_minutes_after_the_time_asked_about_goes_to_a_person(tmp_path):
    asked = ("At 15:40 on 3 June 2026 the (fictitious) Pennock Fun Park's inflatable slide lifted. The park's gauge "
             "read a 17 mph gust at 15:40; the coastguard station read 33 mph at 15:50. Was the gust over the "
             "25 mph limit when the slide lifted?")
    verdict = _run(tmp_path, _gust_case(asked), "arbitration")
    assert verdict["needs_human_review"] is True
    assert "escalate.measured_after_question" in verdict["applied_rules"], verdict["escalation_reasons"]
    assert any("after the time the question asks about (15:40 on 3 June 2026)" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_figure_whose_passage_gives_it_in_miles_is_not_kilometres(tmp_path):
    reports = [
        _report("Organiser", "route_length", 16.0, "km", "'course length 16.1 km' from the organiser's route card, "
                "converted", "Tarnside Walking Festival", "Sunday walk, 7 June 2026", "the walk was the full 16 km"),
        _report("Walker", "route_length", 10.0, "km", "'my watch said 10 for the whole walk' from a walker's post",
                "Walker's watch", "Sunday walk, 7 June 2026", "the walk was only 10 km", 0.6),
    ]
    evidence = [
        # The festival's leaflet gives the figure months before the walk; the route card the organiser quotes
        # is of the day itself, so the figure was not seen only before the day.
        {"id": "LEAFLET", "source": "Tarnside Walking Festival leaflet (fictitious)", "date": "2026-02-01",
         "text": "The Sunday walk: route length 16 km, a loop over Tarn Edge."},
        {"id": "CARD", "source": "Tarnside Walking Festival route card (fictitious)", "date": "2026-06-07",
         "text": "Sunday walk: course length 16.1 km, about four and a half hours."},
        {"id": "POST", "source": "Walker's post on the festival page (fictitious)", "date": "2026-06-08",
         "text": "My watch said 10 for the whole walk, not 16! Short-changed."},
        {"id": "WATCH", "source": "Photo of the walker's watch, as described by the page moderator (fictitious)",
         "date": "2026-06-08", "text": "Activity: Hike. Distance 10.0 mi. Units: imperial."},
    ]
    question = "How long was the (fictitious) Tarnside festival's Sunday walk on 7 June 2026, and which figure is right?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert "Use 16 km" in verdict["answer"], verdict["answer"]
    assert '(WATCH: "10.0 mi", in miles), about 16.1 km once converted' in verdict["answer"]
    assert verdict["needs_human_review"] is False, verdict["escalation_reasons"]


def test_close_figures_that_decide_which_team_wins_go_to_a_person(tmp_path):
    reports = [
        _report("ScoreSheet", "fair_play_average", 8.2, "points out of 10",
                "'Rooks average 8.2, Herons 8.1' from the results secretary's sheet", "Results secretary",
                "2026 season", "the Rooks win the fair play award on 8.2"),
        _report("HeronsCaptain", "fair_play_average", 8.4, "points out of 10",
                "'without the late score we average 8.4' from the Herons' captain's email", "Herons' captain",
                "2026 season", "the Herons win on 8.4 once the late score is left out", 0.6),
    ]
    evidence = [
        {"id": "SHEET", "source": "Results secretary's sheet (fictitious)", "date": "2026-09-02",
         "text": "Fair play averages: Rooks average 8.2, Herons 8.1."},
        {"id": "EMAIL", "source": "Herons' captain, email (fictitious)", "date": "2026-09-03",
         "text": "One score came in a week late. Without the late score we average 8.4."},
    ]
    question = "Which team wins the (fictitious) Marsh Lane netball league's 2026 fair play award?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is True
    assert "escalate.differ_under_threshold" in verdict["applied_rules"], verdict["escalation_reasons"]
    verdict = _run(tmp_path, _arbitration("Who is the 2026 fair play champion of the (fictitious) Marsh Lane league?",
                                          reports, evidence), "arbitration")
    assert "escalate.differ_under_threshold" in verdict["applied_rules"], verdict["escalation_reasons"]
    # Asked which figures the sources give, the same reports need no choice.
    verdict = _run(tmp_path, _arbitration("What fair play averages do the sources give?", reports, evidence),
                   "arbitration")
    assert "escalate.differ_under_threshold" not in verdict["applied_rules"]


def test_a_figure_converted_from_a_passage_that_gives_it_in_nautical_miles_was_converted_wrongly(tmp_path):
    reports = [
        _report("Secretary", "flight_distance", 153.0, "km", "'her logbook says 95 miles, which is 153 km' from the "
                "secretary's email", "Club secretary", "Flight of 3 May 2026", "the flight distance was 153 km"),
        _report("TrackFile", "flight_distance", 176.0, "km", "'flight distance 176.0 km' from the GPS track summary",
                "Pilot's GPS track file", "Flight of 3 May 2026", "the flight distance was 176 km", 0.8),
    ]
    evidence = [
        {"id": "LOGBOOK", "source": "Pilot's logbook (fictitious)", "date": "2026-05-03",
         "text": "Flight distance 95 nm. Airborne 2 h 10 min."},
        {"id": "TRACK", "source": "Pilot's GPS track file summary (fictitious)", "date": "2026-05-05",
         "text": "Flight distance 176.0 km over the declared legs. Both turn points reached."},
        {"id": "EMAIL", "source": "Club secretary's email (fictitious)", "date": "2026-05-09",
         "text": "Her logbook says 95 miles, which is 153 km."},
    ]
    question = "What was the flight distance of the (fictitious) club's 3 May 2026 cup flight, and which figure is right?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert "Use 176 km" in verdict["answer"], verdict["answer"]
    assert ('The other figure was converted from a figure in the wrong unit where the evidence gives it '
            '(LOGBOOK: "95 nm", in nautical miles), about 175.9 km once converted') in verdict["answer"]


def test_a_sentence_that_names_one_of_two_look_alike_predicates_is_not_about_the_other(tmp_path):
    # "the 'sell by' date has passed" and "the 'display until' date has passed" share their description's
    # words; an exception naming "sell by" is not about "display until".
    case = _rule_case(
        "seed_swap",
        "Knowledge gap: write one ASP rule defining may_swap(S) with the knowledge-base predicates, so that it "
        "agrees with the seed library's rules.",
        "Predicates, all over a packet S: packet(S): S is a packet of seed offered at the swap; labelled(S): the "
        "packet is labelled with the variety; past_sell_by(S): the 'sell by' date on the packet has passed; "
        "past_display_until(S): the 'display until' date on the packet has passed; home_saved(S): the seed "
        "was saved by the member.",
        [{"id": "RULES", "source": "Hollin seed library rules, 2025 (fictitious)", "authority": "primary",
          "text": "Members may swap any labelled packet, other than seed whose 'sell by' date has passed."},
         {"id": "FAQ", "source": "Hollin seed library FAQ, 2025 (fictitious)", "authority": "primary",
          "text": "A passed 'display until' date is not a problem. Home-saved seed is as welcome as bought seed."}])
    verdict = _run(tmp_path, case, "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1].split(" Left out")[0]
    assert "not past_sell_by(S)" in rule and "labelled(S)" in rule, verdict["answer"]
    assert "past_display_until" not in rule, verdict["answer"]


def test_that_is_no_longer_the_case_withdraws_the_clause_before_it(tmp_path):
    case = _rule_case(
        "boathouse_keys",
        "Knowledge gap: write one ASP rule defining may_borrow_key(M) with the knowledge-base predicates, so "
        "that it agrees with the boathouse rules as they now stand.",
        "Predicates, all over a member M: member(M): M is a member asking for the boathouse key; "
        "key_trained(M): M has done the key holder's briefing; committee_member(M): M sits on the committee; "
        "dues_unpaid(M): M's dues are unpaid.",
        [{"id": "OLD", "source": "Wendle rowing club rules, 2025 edition (fictitious)", "authority": "primary",
          "date": "2025-01-10",
          "text": "A member who has done the key holder's briefing may borrow the boathouse key. A committee "
                  "member may borrow it when no briefed member is about."},
         {"id": "RULES", "source": "Wendle rowing club rules, 2026 edition (fictitious)", "authority": "primary",
          "date": "2026-01-10",
          "text": "A member who has done the key holder's briefing may borrow the boathouse key. A committee member "
                  "used to be able to borrow it without the briefing; that is no longer the case, and committee "
                  "members borrow it like anyone else. A member whose dues are unpaid may not borrow the key."}])
    groups = {p.name: p.group for p in vocabulary(Case.model_validate(case))[0]}
    assert groups["committee_member"] == "repealed", groups
    verdict = _run(tmp_path, case, "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1].split(" Left out")[0]
    assert "key_trained(M)" in rule and "not dues_unpaid(M)" in rule, verdict["answer"]
    assert "committee_member" not in rule, verdict["answer"]
