"""The d12_ round's readings, each driven through the CLI on a case written here (or through the
function that reads it): a denial that opens its clause ("not once has he ..."), a regret given with
its reason, a "no" that denies a failure, a phrase with a gap in it said in praise and in irony
alike; a change that waits on someone's confirmation, a passage saying two documents disagree on a
point still to be decided, a permission for another act, a right withheld, what hearsay says is
required; a day asked about that the records only bracket, a measurement against a figure worked
out from a rating, periods and definitions both told, the winning source's own account of the other
figure; and the source of a cross-critique answer named."""

from __future__ import annotations

from test_cc_dialectic_traps import _cc_case, _rule_case, _run
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.protocols.dialectic.agent.cues import cue_kind
from debate_core.protocols.panel.agent.sentiment import double_edged, read_clause

# -- panel ------------------------------------------------------------------------------------------


def test_a_denial_that_opens_its_clause_reaches_every_failure_in_it():
    said = read_clause("In two years not once has she nicked an ear or left the dog with a wonky trim.")
    assert said.polarity == "positive" and "not wonky" in said.cues
    # Past its clause's "but" the denial no longer reaches.
    after = read_clause("Not once was she late, but the clippers jammed.")
    assert after.polarity == "negative" and after.cues == ["jammed"]
    assert read_clause("He rushed the back windows.").polarity == "negative"


def test_a_no_that_denies_a_failure_is_no_complaint_but_a_lack_still_is():
    assert read_clause("No upselling of shampoo and no scratches on the van.").polarity == "positive"
    # "no" before something a product lacks stays a complaint, as VADER reads it.
    assert read_clause("No proprietary headset jack.").polarity == "negative"


def test_a_regret_given_with_its_reason_reads_the_reason():
    assert read_clause("Shame, because the garden was the best kept on the street.").polarity == "positive"
    assert read_clause("Such a pity, as the food was lovely.").polarity == "positive"
    # Where the reason reads neither way, the regret stays the reading.
    assert read_clause("Shame, because we went on a Tuesday.").polarity == "negative"
    # "Well," opening a sentence is no praise.
    assert read_clause("Well, the lesson was on a Tuesday.").polarity == "neutral"


def test_a_double_edged_phrase_with_words_inside_it_goes_to_a_person(tmp_path):
    assert double_edged("The pottery class was nothing like what we both had imagined.") == \
        "pottery class was nothing like what we both had imagined"
    assert double_edged("The class was nothing like as good as I had imagined it.") is None
    text = "Honestly, our pottery evening was nothing like any of us had imagined."
    case = {"id": "pottery", "title": "pottery review",
            "question": f"What is the overall sentiment (positive, negative, neutral or mixed) of this review: \"{text}\"?",
            "domain_hint": "pottery class review (fictitious)",
            "evidence": [{"id": "T", "source": "Review (fictitious)", "authority": "primary", "text": text}]}
    verdict = _run(tmp_path, case, "panel")
    assert verdict["needs_human_review"] is True
    assert any("is praise or irony" in r and "nothing like any of us had imagined" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_review_whose_faults_are_all_denied_is_positive_and_one_split_by_a_regret_is_mixed(tmp_path):
    def review(case_id: str, text: str, aspects: str) -> dict:
        return {"id": case_id, "title": case_id, "domain_hint": "dog grooming review (fictitious)",
                "question": f"What is the overall sentiment (positive, negative, neutral or mixed) of this review: "
                            f"\"{text}\"? And what is the sentiment towards each aspect ({aspects})?",
                "evidence": [{"id": "T", "source": "Review (fictitious)", "authority": "primary", "text": text}]}

    praised = review("groomer_denied", "Not once in two years has she nicked an ear or rushed a trim. "
                                       "No upselling of shampoo either.", "trim, service")
    verdict = _run(tmp_path, praised, "panel")
    assert verdict["answer"].startswith("The overall sentiment is positive"), verdict["answer"]

    split = review("groomer_split", "The trim was a rush job with tufts left on the legs. Shame, because the bath "
                                    "left her coat lovely and soft.", "trim, bath")
    verdict = _run(tmp_path, split, "panel")
    assert verdict["answer"].startswith("The overall sentiment is mixed"), verdict["answer"]
    assert "trim negative" in verdict["answer"] and "bath positive" in verdict["answer"]


# -- dialectic --------------------------------------------------------------------------------------

BOOKS = ("Predicates, all over a reader R: reader(R): R asks to borrow; card_valid(R): R's library card is valid; "
         "fines_paid(R): R owes no fines; card_suspended(R): R's card has been suspended; "
         "sells_books(R): R sells second-hand books at the library's fair; aged_14_plus(R): R is 14 or older.")
BORROW = ("Knowledge gap: write one ASP rule defining may_borrow(R) with the knowledge-base predicates, so that it "
          "agrees with the library's rules.")


def test_a_permission_for_another_act_is_no_condition_and_a_withheld_right_defeats():
    assert cue_kind("A suspended card gives no right to borrow until the suspension ends.") == "prohibition"
    assert cue_kind("Anyone borrowing needs a valid card.") == "obligation"


def test_a_library_rule_reads_a_right_withheld_and_leaves_out_an_act_permitted_alongside(tmp_path):
    passages = [
        {"id": "RULES", "source": "Library rules (fictitious)", "authority": "official", "date": "2025-01-01",
         "text": "Anyone borrowing needs a valid card and must have paid any fines. Readers may borrow up to ten "
                 "items and may sell their own second-hand books at the library's fair, but must not sell inside "
                 "the reading room. A card that has been suspended gives no right to borrow until the suspension ends."},
        {"id": "FORUM", "source": "Readers' forum post (fictitious)", "authority": "forum", "date": "2025-06-01",
         "text": "You also need a utility bill every time you borrow, they are very strict."}]
    verdict = _run(tmp_path, _rule_case("library", BORROW, BOOKS, passages), "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1]
    assert "card_valid(R)" in rule and "fines_paid(R)" in rule and "not card_suspended(R)" in rule, rule
    assert "sells_books" not in rule, rule
    # What a forum post says is required is hearsay, not a requirement the rule cannot assess.
    assert not any("FORUM" in r and "no declared predicate expresses" in r for r in verdict["escalation_reasons"])


def test_a_change_that_waits_for_a_confirmation_leaves_the_rule_open(tmp_path):
    passages = [
        {"id": "RULES", "source": "Library rules (fictitious)", "authority": "official", "date": "2025-01-01",
         "text": "Anyone borrowing needs a valid card. Only readers aged 14 or older may borrow from the film "
                 "collection."},
        {"id": "MINUTES", "source": "Library board minutes (fictitious)", "authority": "official", "date": "2026-03-01",
         "text": "The board agreed to let readers of 12 and 13 borrow films with a parent's consent. The change will "
                 "come in when the council's legal team has confirmed it in writing."}]
    verdict = _run(tmp_path, _rule_case("films", BORROW, BOOKS, passages), "dialectic")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("MINUTES changes the rule") and "has confirmed it in writing" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_passage_saying_two_documents_disagree_on_an_open_point_goes_to_a_person(tmp_path):
    passages = [
        {"id": "RULES", "source": "Library rules (fictitious)", "authority": "official", "date": "2026-01-01",
         "text": "Anyone borrowing needs a valid card and must have paid any fines."},
        {"id": "NOTE", "source": "Librarian's note (fictitious)", "authority": "internal", "date": "2026-02-01",
         "text": "The rules and the members' leaflet say different things about fines under £1. It has been referred "
                 "to the library board; for now, ask the duty librarian."}]
    verdict = _run(tmp_path, _rule_case("fines", BORROW, BOOKS, passages), "dialectic")
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if r.startswith("NOTE says the documents disagree"))
    assert "say different things about fines" in reason
    assert "conflicting_passages" in verdict["applied_rules"]

    # Once a passage records the board's decision, the point is settled.
    passages.append({"id": "BOARD", "source": "Library board minutes (fictitious)", "authority": "official",
                     "date": "2026-03-01", "text": "The board has decided that fines under £1 are waived."})
    verdict = _run(tmp_path, _rule_case("fines_settled", BORROW, BOOKS, passages), "dialectic")
    assert not any(r.startswith("NOTE says the documents disagree") for r in verdict["escalation_reasons"])


# -- arbitration ------------------------------------------------------------------------------------


def _two_counts(value_a: float, cite_a: str, value_b: float, cite_b: str, metric: str = "pitches_open",
                unit: str = "pitches") -> list[dict]:
    return [{"agent": "Council", "metric": metric, "value": value_a, "unit": unit, "citation": cite_a,
             "source": "Council parks team", "period": "1 May 2026", "confidence": 0.75, "interpretation": "as counted"},
            {"agent": "Club", "metric": metric, "value": value_b, "unit": unit, "citation": cite_b,
             "source": "Allotment society", "period": "1 May 2026", "confidence": 0.75, "interpretation": "as counted"}]


def test_a_day_that_the_records_only_bracket_goes_to_a_person(tmp_path):
    reports = _two_counts(24, "[Per extraction: 'all 24 pitches open' from the inspection]", 20,
                          "[Per extraction: 'pitches 21-24 closed - flooding' from the society's register]")
    evidence = [
        {"id": "INSPECT", "source": "Council parks team, inspection note (fictitious)", "authority": "official",
         "date": "2026-03-10", "text": "Visited 10 March 2026: all 24 pitches open and in use."},
        {"id": "REGISTER", "source": "Allotment society register export (fictitious)", "authority": "official",
         "date": "2026-06-02", "text": "Pitches 21-24: status closed - flooding. The export keeps no date of closure."}]
    question = "How many pitches were open on the rent day, 1 May 2026: 24 or 20? Which figure is right?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("the question asks about 1 May 2026") and "10 March 2026" in r and "2 June 2026" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]
    assert "escalate.observed_either_side" in verdict["applied_rules"]

    # A record from the day itself tells it: nothing is left to bracket.
    evidence[1] = {**evidence[1], "date": "2026-05-01",
                   "text": "1 May 2026: pitches 21-24 closed - flooding."}
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert "escalate.observed_either_side" not in verdict["applied_rules"]


def test_a_measurement_stands_over_a_figure_worked_out_from_a_rating(tmp_path):
    reports = [
        {"agent": "Dairy", "metric": "daily_water_use", "value": 7.4, "unit": "m³/day",
         "citation": "[Per extraction: 'highest day 7.4 m³' from the dairy's meter readings]", "source": "Dairy records",
         "period": "June 2026", "confidence": 0.8, "interpretation": "below the limit",
         "definition": "metered volume on the highest day"},
        {"agent": "Resident", "metric": "daily_water_use", "value": 28.8, "unit": "m³/day",
         "citation": "[Per extraction: 'the pump is rated at 1.2 m³ an hour, so 28.8 a day' from a letter]",
         "source": "Resident's letter", "period": "June 2026", "confidence": 0.7, "interpretation": "above the limit",
         "definition": "pump rating times 24 hours"}]
    evidence = [
        {"id": "METER", "source": "Dairy records, meter readings June 2026 (fictitious)", "authority": "records",
         "date": "2026-07-01", "text": "Daily water use from the meter, read at 6 am: average 5.1 m³, highest day 7.4 m³ on 12 June."},
        {"id": "LETTER", "source": "Resident's letter to the council (fictitious)", "authority": "records",
         "date": "2026-07-05", "text": "Their pump is rated at 1.2 m³ an hour, so their daily water use is 28.8 m³."}]
    question = "How much water does the dairy take on its busiest day: 7.4 m³ or 28.8 m³? Which figure is right?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is False, verdict["escalation_reasons"]
    assert verdict["answer"].startswith("Use 7.4 m³/day"), verdict["answer"]
    assert "worked out from a rating or capacity, not measured" in verdict["answer"]


def test_figures_of_different_periods_and_definitions_say_both_and_the_winner_tells_the_other(tmp_path):
    reports = [
        {"agent": "Harbour", "metric": "mooring_occupancy", "value": 91, "unit": "%",
         "citation": "[Per extraction: 'an occupancy of 91%' from the harbour report]", "source": "Harbour trust",
         "period": "2026", "confidence": 0.8, "interpretation": "nearly full", "definition": "moorings let"},
        {"agent": "Council", "metric": "mooring_occupancy", "value": 58, "unit": "%",
         "citation": "[Per extraction: 'a boat on 58%' from the night counts]", "source": "District council",
         "period": "July 2026", "confidence": 0.8, "interpretation": "many empty", "definition": "boats present at night"}]
    evidence = [
        {"id": "TRUST", "source": "Harbour trust report 2026 (fictitious)", "authority": "official", "date": "2026-10-01",
         "text": "182 of 200 moorings were let on annual licences, an occupancy of 91%."},
        {"id": "COUNT", "source": "District council night counts (fictitious)", "authority": "official",
         "date": "2026-08-10", "text": "Counted at midnight through July: a boat on 58% of the moorings on average."}]
    question = "Mooring occupancy: 91% or 58%? Which figure is right, or do both stand?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert "they cover different periods (" in verdict["answer"], verdict["answer"]
    assert "and use different definitions (" in verdict["answer"] and "moorings let" in verdict["answer"]

    reports = _two_counts(3120, "[Per extraction: 'issued 3,120 tickets' from the annual report]", 4800,
                          "[Per extraction: 'plays to 4,800 a season' from a blog]", "season_audience", "tickets")
    reports[0]["source"], reports[1]["source"] = "Wrenfield Choral Society", "Listings blog"
    evidence = [
        {"id": "ANNUAL", "source": "Wrenfield Choral Society, annual report (fictitious)", "authority": "official",
         "date": "2026-09-01", "text": "This season we issued 3,120 tickets across 12 concerts."},
        {"id": "HISTORY", "source": "Wrenfield Choral Society, ten-year summary (fictitious)", "authority": "official",
         "date": "2026-09-01", "text": "Until 2019 the open-air carols brought a season's audience to about 4,800."},
        {"id": "BLOG", "source": "Listings blog (fictitious)", "authority": "blog", "date": "2026-07-01",
         "text": "The society plays to 4,800 a season."}]
    verdict = _run(tmp_path, _arbitration("What was the season's audience: 3,120 or 4,800? Which figure is right?",
                                          reports, evidence), "arbitration")
    assert verdict["answer"].startswith("Use 3,120 tickets"), verdict["answer"]
    assert "gives the other figure for something else: \"Until 2019 the open-air carols" in verdict["answer"]


# -- cross critique ---------------------------------------------------------------------------------


def test_a_cross_critique_answer_names_the_source_it_rests_on(tmp_path):
    case = _cc_case("window_ladders", "Must a window cleaner working from a ladder in England carry out a risk "
                    "assessment first?", [
                        {"id": "WAH", "source": "Work at Height Regulations 2005, as commonly summarised (public fact, "
                                                "paraphrased)", "authority": "statute",
                         "text": "Every employer and self-employed person must plan work at height and assess its "
                                 "risks before the work starts, ladders included."},
                        {"id": "BLOG", "source": "Cleaning trade blog (fictitious)", "authority": "blog",
                         "text": "Short ladder jobs never need any paperwork."}])
    verdict = _run(tmp_path, case, "cross_critique")
    assert "; Work at Height Regulations 2005]" in verdict["answer"], verdict["answer"]


# -- the d13_ round ---------------------------------------------------------------------------------

PARK = ("Predicates, all over a person P at the desk: skater(P): P is checked in to skate; session_booked(P): P holds "
        "a booking for the session; helmet_worn(P): P wears a helmet; under_8(P): P is younger than eight; "
        "season_ticket(P): P holds a season ticket; aged_12_plus(P): P is 12 or older; aged_14_plus(P): P is 14 or "
        "older.")
SKATE = ("Knowledge gap: write one ASP rule defining may_skate(P) with the knowledge-base predicates, so that it "
         "agrees with the skate park's rules.")


def test_a_bar_on_going_without_requires_and_a_bar_open_to_no_one_under_a_figure_defeats(tmp_path):
    passages = [
        {"id": "RULES", "source": "Skate park rules (fictitious)", "authority": "official", "date": "2026-01-01",
         "text": "Everyone who skates needs a booking for the session, including season ticket holders. No one goes "
                 "on the ramps without a helmet. The bowl isn't open to children under eight during open sessions; "
                 "they can skate in the beginners' hour instead."}]
    verdict = _run(tmp_path, _rule_case("skate", SKATE, PARK, passages), "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1]
    assert "session_booked(P)" in rule and "helmet_worn(P)" in rule and "not under_8(P)" in rule, rule
    # Who else a requirement reaches ("including season ticket holders") is no condition of it.
    assert "season_ticket" not in rule, rule
    assert "not session_booked" not in rule, rule


def test_two_documents_setting_ages_apart_by_a_figure_and_an_office_passing_the_question_on_go_to_a_person(tmp_path):
    passages = [
        {"id": "SAFETY", "source": "Skate park safety policy (fictitious)", "authority": "official",
         "date": "2026-03-03", "text": "Skaters in the bowl must be at least 12 years old and wear a helmet."},
        {"id": "LEASE", "source": "Skate park operating procedure (fictitious)", "authority": "official",
         "date": "2026-03-03", "text": "Anyone using the bowl must be at least 14 years old, with a helmet."},
        {"id": "OFFICE", "source": "Email from the park office (fictitious)", "authority": "internal",
         "date": "2026-04-01", "text": "I asked two of the managers and they've given me different answers, so I've "
                                        "passed it to the trustees. Your booking is held in the meantime."}]
    verdict = _run(tmp_path, _rule_case("bowl", SKATE, PARK, passages), "dialectic")
    assert verdict["needs_human_review"] is True
    reasons = verdict["escalation_reasons"]
    assert any("set the condition differently" in r and "aged_12_plus" in r and "aged_14_plus" in r for r in reasons), \
        reasons
    assert any(r.startswith("OFFICE says the documents disagree") and "different answers" in r for r in reasons)


def test_a_doubt_in_the_passage_that_gives_the_chosen_figure_keeps_the_point_open(tmp_path):
    reports = [
        {"agent": "Council", "metric": "site_noise", "value": 51, "unit": "dB",
         "citation": "[Per extraction: 'Result 51 dB' from the officer's note]", "source": "Council noise team",
         "period": "4 May 2026", "confidence": 0.8, "interpretation": "within the limit"},
        {"agent": "Residents", "metric": "site_noise", "value": 57, "unit": "dB",
         "citation": "[Per extraction: 'Result 57 dB' from the residents' survey]", "source": "Residents' survey",
         "period": "9 May 2026", "confidence": 0.6, "interpretation": "over the limit"}]
    evidence = [
        {"id": "OFFICER", "source": "Council noise team, officer's note (fictitious)", "authority": "official",
         "date": "2026-05-05", "text": "Measured on Monday 4 May 2026 at the nearest house. Result 51 dB. "
                                       "I haven't yet been able to measure on a race day."},
        {"id": "SURVEY", "source": "Residents' survey (fictitious)", "authority": "blog", "date": "2026-05-10",
         "text": "Phone reading on race day, Saturday 9 May 2026, in a garden. Result 57 dB."}]
    question = "Does the karting track keep to its noise limit of 55 dB: 51 dB or 57 dB? Which figure stands?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("OFFICER says the point is still open") and "haven't yet been able to measure" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


# A statute and a blog that contradicts it, for the yes-or-no questions about a Welsh tea room.
TEA_ROOM_EVIDENCE = [
    {"id": "ACT", "source": "Food Hygiene Rating (Wales) Act 2013, as commonly summarised (public fact, paraphrased)",
     "authority": "statute",
     "text": "Food businesses in Wales must display their food hygiene rating sticker in a "
             "prominent place at each entrance, such as the front window or door."},
    {"id": "BLOG", "source": "Cafe owners' blog (fictitious)", "authority": "blog",
     "text": "Displaying the sticker is optional everywhere in the UK."}]


def test_a_yes_or_no_question_answered_with_neither_goes_to_a_person(tmp_path):
    from debate_core.protocols.cross_critique.answer_rules import asks_yes_or_no

    assert asks_yes_or_no("We run a tea room. Do we need a food hygiene rating sticker in the window?")
    assert not asks_yes_or_no("Is the rating 4 or 5?")
    assert not asks_yes_or_no("What rating does the tea room have?")
    assert not asks_yes_or_no("Is the claim supported, partially supported or not supported?")
    case = _cc_case("tearoom_sticker", "We run a tea room in Wales. Do we have to show our food hygiene rating "
                    "sticker in the window?", TEA_ROOM_EVIDENCE)
    verdict = _run(tmp_path, case, "cross_critique")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("the question asks for a yes or a no, and the answer gives neither")
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]
    assert "yes_no_unanswered" in verdict["applied_rules"]


# -- the d14_ round ---------------------------------------------------------------------------------

WIRE = ("Predicates, all over a person P at check-in: rider(P): P has come to ride; consent_ok(P): P is 18 or over, "
        "or a parent has signed the consent form for P; harness_checked(P): an instructor has checked P's harness; "
        "pregnant(P): P is pregnant; photo_pass(P): P bought the photo pass.")
RIDE = ("Knowledge gap: write one ASP rule defining may_ride(P) with the knowledge-base predicates, so that it agrees "
        "with the course's safety rules.")


def test_what_riders_need_what_nobody_does_until_and_whom_we_wont_let_ride(tmp_path):
    passages = [
        {"id": "RULES", "source": "Zip wire safety rules (fictitious)", "authority": "official", "date": "2026-01-01",
         "text": "Riders under 18 need a consent form signed by a parent. Nobody leaves the platform until an "
                 "instructor has checked their harness. We won't let anyone ride who is pregnant."}]
    verdict = _run(tmp_path, _rule_case("wire", RIDE, WIRE, passages), "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1]
    assert "consent_ok(P)" in rule and "harness_checked(P)" in rule and "not pregnant(P)" in rule, rule
    assert "photo_pass" not in rule


def test_figures_in_pounds_and_kilograms_that_are_one_weight_both_stand(tmp_path):
    reports = [
        {"agent": "Club", "metric": "record_pike_weight", "value": 9.8, "unit": "kg",
         "citation": "[Per extraction: 'Pike: 9.8 kg' from the record board]", "source": "Reservoir angling club",
         "period": "4 March 2026", "confidence": 0.85, "interpretation": "the record pike"},
        {"agent": "Magazine", "metric": "record_pike_weight", "value": 21.6, "unit": "lb",
         "citation": "[Per extraction: 'a pike of 21lb 10oz' from the magazine]", "source": "Angling magazine",
         "period": "4 March 2026", "confidence": 0.8, "interpretation": "the record pike"}]
    evidence = [
        {"id": "BOARD", "source": "Reservoir angling club record board (fictitious)", "authority": "official",
         "date": "2026-04-01", "text": "Pike: 9.8 kg, 4 March 2026."},
        {"id": "MAG", "source": "Angling magazine (fictitious)", "authority": "press", "date": "2026-04-10",
         "text": "A pike of 21.6 lb (21lb 10oz) from the reservoir on 4 March."}]
    question = "The record pike: 9.8 kg or 21.6 lb? Which weight is right, or do both stand?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is False, verdict["escalation_reasons"]
    assert "9.8 kg (21.61 lb) and 21.6 lb (9.798 kg), the same figure once converted: both valid" in verdict["answer"], \
        verdict["answer"]


def test_a_page_last_updated_years_ago_is_as_old_as_its_content(tmp_path):
    reports = [
        {"agent": "Listing", "metric": "visitors", "value": 5000, "unit": "visitors",
         "citation": "[Per extraction: 'welcomes 5,000 visitors a year' from the listing]",
         "source": "Tourism listing", "period": "2025", "confidence": 0.6, "interpretation": "busy"},
        {"agent": "Return", "metric": "visitors", "value": 3100, "unit": "visitors",
         "citation": "[Per extraction: 'In 2025 we welcomed 3,100 visitors' from the annual return]",
         "source": "Farm museum trust", "period": "2025", "confidence": 0.6, "interpretation": "quieter"}]
    evidence = [
        {"id": "RETURN", "source": "Farm museum trust, annual return 2025 (fictitious)", "authority": "official",
         "date": "2026-02-01", "text": "In 2025 we welcomed 3,100 visitors."},
        {"id": "LISTING", "source": "Tourism listing for the farm museum (fictitious)", "authority": "official",
         "date": "2026-10-01", "text": "The farm museum welcomes 5,000 visitors a year. Details last updated by the "
                                        "museum in April 2021."}]
    verdict = _run(tmp_path, _arbitration("How many visitors did the farm museum have in 2025?", reports, evidence),
                   "arbitration")
    assert verdict["answer"].startswith("Use 3,100 visitors"), verdict["answer"]
    assert "last updated by the museum in April 2021" in verdict["answer"]
