"""A verdict that rests on a point its own evidence holds open goes to a person; so does a
"how many" question answered with several figures, and a review whose middling rating takes
neither side of a text that reads one way. A change record's item dated by its month alone is
ordered by that month, and a rule's vocabulary names its subject, bars and plain-English
requirements as people write them. Driven through the CLI on cases written here (all fictitious)
or through the reading itself."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run
from test_pending_changes_variants_and_bases import UNIT_EVIDENCE, UNIT_REPORTS, _arbitration

from debate_core.core.schemas import Case
from debate_core.core.text import terms
from debate_core.protocols.dialectic.agent.cues import cue_kind
from debate_core.protocols.dialectic.agent.predicates import vocabulary
from debate_core.protocols.dialectic.amendments import withdrawn_names
from debate_core.protocols.panel.agent.rating_sides import rating_against_text
from debate_core.protocols.refinement.agent.reading import timeline

# -- arbitration -----------------------------------------------------------------------------------

_GAIN_REPORTS = [
    {"agent": "ClubPage", "metric": "height_gain", "value": 1046, "unit": "m",
     "citation": "[Per extraction: '1,046 m gain' from the club's page]", "source": "Club social media page",
     "period": "9 August 2026", "confidence": 0.6, "interpretation": "the flight gained 1,046 m, badge height reached"},
    {"agent": "BadgeOfficer", "metric": "height_gain", "value": 990, "unit": "m",
     "citation": "[Per extraction: 'so 990 m' from the badge officer's email]", "source": "Club badge officer",
     "period": "9 August 2026", "confidence": 0.7, "interpretation": "the flight gained 990 m after calibration"},
]


def _gain_evidence(observer: str) -> list[dict]:
    return [
        {"id": "PAGE", "source": "Club social media page (fictitious)", "authority": "social media",
         "date": "2026-08-10", "text": "Badge height for one of our pilots - 1,046 m gain!"},
        {"id": "OFFICER", "source": "Club badge officer, email (fictitious)", "authority": "club officer",
         "date": "2026-08-18", "text": "Corrected with the recorder's calibration I make it 990 m, just short."},
        {"id": "OBSERVER", "source": "Official observer, note (fictitious)", "authority": "official observer",
         "date": "2026-08-22", "text": observer},
    ]


def test_a_point_the_observer_holds_open_until_a_result_comes_is_not_closed_by_a_ruling(tmp_path):
    question = "Did the flight of 9 August 2026 gain 1,000 m or more?"
    held = ("The old calibration is more than five years before the flight, so it doesn't count for this claim. "
            "I won't sign anything until the new certificate is back.")
    verdict = _run(tmp_path, _arbitration(question, _GAIN_REPORTS, _gain_evidence(held)), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("OBSERVER says the point is still open (\"I won't sign anything until the new "
                            "certificate is back.\")") for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]
    assert "escalate.open_in_the_record" in verdict["applied_rules"]

    # The same observer, signing off, leaves the ruling standing.
    signed = "The calibration is in date for this claim. I have signed the claim form."
    verdict = _run(tmp_path, _arbitration(question, _GAIN_REPORTS, _gain_evidence(signed)), "arbitration")
    assert "escalate.open_in_the_record" not in verdict["applied_rules"], verdict["escalation_reasons"]


def test_how_many_is_one_figure_asked(tmp_path):
    reports, evidence = UNIT_REPORTS, UNIT_EVIDENCE
    verdict = _run(tmp_path, _arbitration("How many square feet is unit 7?", reports, evidence), "arbitration")
    assert "both valid" in verdict["answer"]
    assert verdict["needs_human_review"] is True
    assert "escalate.one_figure_asked" in verdict["applied_rules"]
    verdict = _run(tmp_path, _arbitration("What floor areas do the sources give for unit 7?", reports, evidence),
                   "arbitration")
    assert "escalate.one_figure_asked" not in verdict["applied_rules"]


# -- panel -----------------------------------------------------------------------------------------

def test_a_middling_rating_takes_neither_side_of_a_text_that_reads_one_way(tmp_path):
    review = "Our tutor was lovely and patient, and the glazes were gorgeous."
    case = {"id": "pottery-three", "title": "Pottery review (fictitious studio)", "protocol": "panel",
            "question": f'What is the overall sentiment (positive, negative, neutral or mixed) of this review: "{review}"?',
            "evidence": [{"id": "R1", "source": "Review on the studio's booking page, rated 3 of 5 (fictitious)",
                          "authority": "primary", "text": review}]}
    verdict = _run(tmp_path, case, "panel")
    assert verdict["needs_human_review"] is True
    assert any("while the reviewer's own rating (3 of 5) takes neither side" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]
    assert "takes neither side" in rating_against_text("positive", 3.0)
    assert "takes neither side" in rating_against_text("negative", 3.0)
    assert rating_against_text("positive", 4.0) is None
    assert rating_against_text("mixed", 3.0) is None
    assert "at odds with the reviewer's own rating (1 of 5)" in rating_against_text("positive", 1.0)


# -- refinement ------------------------------------------------------------------------------------

def test_an_item_dated_by_its_month_alone_is_ordered_by_that_month():
    case = Case.model_validate({
        "id": "tunnel", "title": "Tunnel", "question": "Why did the trees fail by 28 March 2026?",
        "evidence": [
            {"id": "C1", "source": "config: change record, 2025-2026", "date": "2026-03-28T12:00:00",
             "text": "October 2025 workshop: trees repotted into the new mix. 1 December 2025: an automatic "
                     "mist line on a timer was fitted over the north bench."},
            {"id": "L1", "source": "log: spring check, 28 March 2026", "date": "2026-03-28T15:00:00",
             "text": "Failing: 9 trees on the north bench."}]})
    events = {e.text.split(":")[0]: e for e in timeline(case).events if e.changes}
    assert events["October 2025 workshop"].day < events["1 December 2025"].day
    assert events["October 2025 workshop"].dated
    # The later of the two items, not the record's own date, is the change just before the failure.
    assert [e.text[:16] for e in timeline(case).changes_before] == ["1 December 2025:"]


# -- dialectic -------------------------------------------------------------------------------------

def test_a_vocabulary_over_a_kind_with_a_qualifier_names_its_subject_and_plain_bars_and_needs_are_read():
    case = Case.model_validate({
        "id": "nursery", "title": "Nursery class", "question": "Write one ASP rule defining may_run(D).",
        "evidence": [
            {"id": "KB", "source": "Vocabulary", "authority": "official",
             "text": "Predicates, all over a dog D entered for the nursery class: entry_paid(D): the fee for D "
                     "is paid; unfit(D): the judge finds D lame or unfit; in_season(D): D is a bitch in season; "
                     "stud_book(D): D is registered in a stud book."},
            {"id": "RULES", "source": "Class rules (fictitious)", "authority": "official",
             "text": "Bitches in season are welcome to run but go last. Any dog the judge thinks lame or unfit "
                     "won't be allowed to run. Stud book registration isn't needed."}]})
    groups = {p.name: p.group for p in vocabulary(case)[0]}
    assert groups["entry_paid"] == "subject" and groups["in_season"] != "subject"
    assert groups["unfit"] == "defeater"
    assert cue_kind("Stud book registration isn't needed.") == "not_required"
    # "..., members or not" names whom the rule reaches, not a condition of it.
    entry = Case.model_validate({
        "id": "entries", "title": "Entries", "question": "Write one ASP rule defining may_enter(F).",
        "evidence": [
            {"id": "KB", "source": "Vocabulary", "authority": "official",
             "text": "Predicates, over a ferret F entered for the show: booked(F): F's entry form is in; "
                     "owner_member(F): F's owner is a club member."},
            {"id": "RULES", "source": "Show rules (fictitious)", "authority": "official",
             "text": "Every ferret must be booked by the closing date, members or not."}]})
    groups = {p.name: p.group for p in vocabulary(entry)[0]}
    assert groups["owner_member"] == "other", groups
    assert cue_kind("The Bronze badge has nothing to do with going solo.") == "not_required"
    assert cue_kind("Leather boots with steel toecaps are essential.") == "obligation"


def test_rules_the_evidence_says_are_not_yet_decided_go_to_a_person(tmp_path):
    vocabulary_text = ("Predicates, over a ferret F entered for the pet classes: entered(F): an entry for F reached "
                       "the secretary in time; vaccinated(F): F was vaccinated against distemper within the year; "
                       "microchipped(F): F is microchipped.")
    passages = [
        {"id": "CLUB", "source": "Club show rules (fictitious)", "authority": "official", "date": "2025-03-01",
         "text": "Entries must reach the secretary ten days before the show. Microchips are a good idea but we "
                 "don't ask for them. The show society's animal health rules apply to our ferrets too."},
        {"id": "SOCIETY", "source": "Show society, email (fictitious)", "authority": "official", "date": "2026-06-24",
         "text": "Our 2026 animal health rules are still with the veterinary committee. Nothing is decided."},
        {"id": "CHAT", "source": "Members' chat group (fictitious)", "authority": "chat", "date": "2026-06-28",
         "text": "Nothing has been decided about the jabs yet, I heard."}]
    question = "Write one ASP rule defining may_show(F) with the knowledge-base predicates."
    verdict = _run(tmp_path, _rule_case("ferrets", question, vocabulary_text, passages), "dialectic")
    assert verdict["needs_human_review"] is True
    reasons = [r for r in verdict["escalation_reasons"] if "not yet decided" in r]
    # The society's own email is quoted; the chat message, hearsay, is not a reason of its own.
    assert reasons == ['SOCIETY says the point is not yet decided ("Our 2026 animal health rules are still with the '
                       'veterinary committee."): a person must wait for the decision before the rule is relied on']
    assert "microchipped" not in verdict["answer"].split("As an ASP rule:")[1]
    assert cue_kind("Microchips are a good idea but we don't ask for them.") == "not_required"

    # Once a passage records the decision, the point is settled.
    passages.append({"id": "RULES", "source": "Show society, 2026 rules (fictitious)", "authority": "official",
                     "date": "2026-07-08", "text": "The veterinary committee has decided that ferrets need a "
                                                   "distemper vaccination within the year."})
    verdict = _run(tmp_path, _rule_case("ferrets2", question, vocabulary_text, passages), "dialectic")
    assert not any("not yet decided" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_withdrawal_names_the_predicate_whose_own_name_it_carries_whatever_its_dates_and_qualifiers():
    described = {"check_flight_today": "P has flown a check flight with an instructor today",
                 "authorised_today": "the duty instructor has signed P off for solo flying today",
                 "bronze_badge": "P holds the Bronze badge"}
    said = "From 1 May 2026 the automatic daily check flight for pre-Bronze pilots is withdrawn."
    assert withdrawn_names(said, described) == ["check_flight_today"]
    # A withdrawal that names no predicate by its own words withdraws none of them.
    assert withdrawn_names("From 1 May 2026 the old winter timetable is withdrawn.", described) == []


_SOLO_VOCABULARY = ("Predicates, all over a pilot P on a flying day: member(P): P is a club member; aged_14_plus(P): "
                    "P is 14 or over; medical_ok(P): P's medical declaration is on file; signed_off(P): the duty "
                    "instructor has signed P off today; own_parachute(P): P brings their own parachute.")


def _solo_case(case_id: str, orders: str) -> dict:
    return _rule_case(case_id, "Write one ASP rule defining may_fly_solo(P) with the knowledge-base predicates.",
                      _SOLO_VOCABULARY, [{"id": "ORDERS", "source": "Club flying orders (fictitious)",
                                          "authority": "official", "date": "2026-04-01", "text": orders}])


def test_a_rule_that_leaves_out_three_predicates_the_passages_speak_of_unread_goes_to_a_person(tmp_path):
    unread = ("Only members may fly solo. Pilots fly solo at 14 or over. Solo flying without a medical declaration "
              "on file? Never. Get signed off by the duty instructor before each solo, every day. Club "
              "parachutes are in every glider.")
    verdict = _run(tmp_path, _solo_case("solo-unread", unread), "dialectic")
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if "predicates the rule leaves out" in r)
    assert reason.startswith("The agents could not assess: 3 predicates the rule leaves out (aged_14_plus, "
                             "medical_ok, signed_off)"), reason

    # Said with rule words, the same orders are read, and the rule carries them.
    read = ("Only members may fly solo. Pilots must be 14 or over. A medical declaration must be on file. "
            "Pilots must be signed off by the duty instructor before each solo. Club parachutes are in every glider.")
    verdict = _run(tmp_path, _solo_case("solo-read", read), "dialectic")
    assert not any("predicates the rule leaves out" in r for r in verdict["escalation_reasons"])
    rule = verdict["answer"].split("As an ASP rule:")[1]
    assert all(f"{name}(P)" in rule for name in ("aged_14_plus", "medical_ok", "signed_off")), rule


def test_figures_too_close_to_contradict_that_fall_either_side_of_the_figure_asked_about_go_to_a_person(tmp_path):
    reports = [
        {"agent": "FridayRecord", "metric": "crane_wingspan", "value": 8.24, "unit": "m",
         "citation": "[Per extraction: '8.24 m' from measurement record 1]", "source": "Measurement record 1",
         "period": "14 August 2026", "confidence": 0.8, "interpretation": "the wingspan beats the record"},
        {"agent": "SaturdayRecord", "metric": "crane_wingspan", "value": 7.86, "unit": "m",
         "citation": "[Per extraction: '7.86 m' from measurement record 2]", "source": "Measurement record 2",
         "period": "15 August 2026", "confidence": 0.8, "interpretation": "the wingspan falls short of the record"}]
    evidence = [
        {"id": "FRIDAY", "source": "Measurement record 1 (fictitious)", "authority": "witnessed measurement",
         "date": "2026-08-14", "text": "Wingtip to wingtip: 8.24 m."},
        {"id": "SATURDAY", "source": "Measurement record 2 (fictitious)", "authority": "witnessed measurement",
         "date": "2026-08-15", "text": "Wingtip to wingtip: 7.86 m, after heavy rain overnight."}]
    question = "The record is a wingspan of 8.00 m. What is the crane's wingspan, and has the record been beaten?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is True
    assert "either side of the figure the question turns on" in verdict["answer"]
    assert any("either side of the 8 m the question turns on" in r for r in verdict["escalation_reasons"])
    assert "escalate.either_side_of_asked" in verdict["applied_rules"]
    # A figure the question names outside the two leaves them agreeing; whether the record was beaten,
    # which the figures alone do not say, still goes to a person.
    question = "The record is a wingspan of 9.00 m. What is the crane's wingspan, and has the record been beaten?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["answer"].startswith("The reports agree"), verdict["answer"]
    assert "escalate.either_side_of_asked" not in verdict["applied_rules"]
    assert verdict["applied_rules"][-1] == "escalate.part_unanswered", verdict["applied_rules"]


def test_encouraged_is_not_required_rang_is_ring_and_a_kind_over_a_named_place_names_its_subject():
    assert cue_kind("We'd strongly encourage a reserve repacked within the last year.") == "not_required"
    assert cue_kind("A radio is up to you.") == "not_required"
    assert terms("P has rung the site line") == terms("P rings the site line")
    case = Case.model_validate({
        "id": "ridge", "title": "Ridge", "question": "Write one ASP rule defining may_fly(P).",
        "evidence": [{"id": "KB", "source": "Vocabulary", "authority": "official",
                      "text": "Predicates, over a pilot P on a day at Gullcliff: bhpa_member(P): P holds BHPA "
                              "membership; club_member(P): P is a member of the club; carries_radio(P): P carries "
                              "a radio."}]})
    groups = {p.name: p.group for p in vocabulary(case)[0]}
    assert groups["bhpa_member"] == "subject" and groups["club_member"] != "subject", groups


def test_what_a_class_is_for_and_what_one_has_to_do_are_conditions():
    assert cue_kind("Every puller has to be registered with the Association.") == "obligation"
    assert cue_kind("Pullers don't have to bring their own belt.") == "not_required"
    case = Case.model_validate({
        "id": "pull", "title": "Pull", "question": "Write one ASP rule defining may_pull(P).",
        "evidence": [
            {"id": "KB", "source": "Vocabulary", "authority": "official",
             "text": "Predicates, all over a puller P at a championship: registered(P): P is registered for the "
                     "season; aged_18_plus(P): P is 18 or over on the day; own_belt(P): P brings their own belt."},
            {"id": "HANDBOOK", "source": "Association handbook (fictitious)", "authority": "official",
             "text": "Our senior championships are for pullers aged 18 or over on the day. Pullers don't have to "
                     "bring their own belt."}]})
    groups = {p.name: p.group for p in vocabulary(case)[0]}
    assert groups["aged_18_plus"] == "condition" and groups["own_belt"] != "condition", groups
