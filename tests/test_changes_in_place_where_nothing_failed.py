"""A change whose batch or version is recorded in place where the trouble did not come ("Job 43
(Mossgate 2601): no cracks") is no settled root cause: the verdict goes to a person quoting that
record. A body that "did not resolve the point", or a view someone "will give after" a date, holds
the point open. A positive or negative answer quotes what in the text sounds the other way. Driven
through the CLI on cases written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run
from test_panel_aspect_quotes import _one_text, _verdict
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.text import states_doubt
from debate_core.protocols.arbitration.escalation import whole_multiple
from debate_core.protocols.arbitration.units import derived_share, same_part_of_different_wholes
from debate_core.protocols.dialectic.agent.cues import cue_kind
from debate_core.protocols.panel.agent.missing import cut_off
from debate_core.protocols.panel.rules.counterweight import other_way_sentences
from debate_core.protocols.panel.rules.verdict import verdict_answer
from debate_core.protocols.refinement.rules import change_markers

RENDER = {
    "id": "render_crazing", "title": "Render crazing on two houses",
    "question": "In March 2026 the new render on two houses by the (fictitious) Pike Hill plasterers cracked into "
                "fine crazing within a week. In February the firm had switched to a new render mix from Carrow "
                "Mortars. What is the root cause, and how should it be fixed and prevented?",
    "evidence": [
        {"id": "C1", "kind": "config", "source": "Firm's change record, February 2026 (fictitious)",
         "text": "2 February 2026: render mix switched to Carrow Mortars batch 7712. Same sand, same plasterers."},
        {"id": "L1", "kind": "log", "source": "Job records, March 2026 (fictitious)",
         "text": "Job 12, Mill Row (Carrow 7712): two heaters run on site to dry it; crazing over the front by "
                 "9 March. Job 14, Church Lane (Carrow 7712): no heating, kept damp under sheets; no cracks after "
                 "three weeks."}]}


def test_a_change_in_place_where_the_trouble_did_not_come_goes_to_a_person(tmp_path):
    verdict = _run(tmp_path, RENDER, "refinement")
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if "where the trouble did not come" in r)
    assert "L1" in reason and "no cracks after three weeks" in reason


def test_a_change_not_named_where_the_trouble_stayed_away_is_not_held_open(tmp_path):
    other = {**RENDER, "evidence": [RENDER["evidence"][0], {**RENDER["evidence"][1], "text": (
        "Job 12, Mill Row (Carrow 7712): crazing over the front by 9 March. Job 9, Church Lane (old mix, "
        "January): no cracks after three weeks.")}]}
    verdict = _run(tmp_path, other, "refinement")
    assert not any("where the trouble did not come" in r for r in verdict["escalation_reasons"])


def test_change_markers_are_names_and_codes_not_days():
    assert change_markers("Mon 12 Jan: putty switched to Mossgate Lime Works (batch 2601) at 09:30 in 2026") == {
        "mossgate", "lime", "works", "2601"}
    # A name that starts like a day or a month is still a name.
    assert change_markers("12 March: supplier changed to Marshall Sunbeam (lot 77A)") == {"marshall", "sunbeam", "77a"}


def test_a_point_a_body_left_unresolved_or_a_view_still_to_come_holds_the_rule_open(tmp_path):
    case = _rule_case(
        "club_kit_official",
        "Knowledge gap: write one ASP rule defining may_sell_as_official(K) with the knowledge-base predicates, "
        "so that it agrees with the (fictitious) Hale Rovers club's rules on 1 August 2026.",
        "Predicates, over a kit item K: club_crest(K): K carries the club crest; made_locally(K): K was made in "
        "the county; board_approved(K): the board has approved K's design.",
        [{"id": "POLICY", "source": "Club shop policy, 2024 (fictitious)", "authority": "company rules",
          "text": "We sell kit as official when it carries the club crest and the board has approved its design."},
         {"id": "MINUTES", "source": "Committee minutes, June 2026 (fictitious)", "authority": "company rules",
          "text": "Motion 3, that only kit made in the county be sold as official, was carried. The committee did "
                  "not resolve the point of whether the board must agree first."},
         {"id": "CHAIR", "source": "Chair's email, July 2026 (fictitious)", "authority": "company director",
          "text": "The president will give her view after the summer tour."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert verdict["needs_human_review"] is True
    assert any("did not resolve the point" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_settled_and_unsettled_points_are_told_apart():
    assert states_doubt("Council did not resolve the point and asked the secretary to write to the Chief.")
    assert states_doubt("The dispute remains unresolved.")
    assert states_doubt("She will give her view after the Gathering on 25 July.")
    assert not states_doubt("We resolved the point at the meeting.")
    assert not states_doubt("The engineer will give his view that it is fine.")
    assert not states_doubt("An unresolved alarm was cleared by the night shift.")


def test_a_requirement_that_a_state_not_hold_is_read_as_what_defeats_the_rule(tmp_path):
    case = _rule_case(
        "trike_rounds",
        "Knowledge gap: write one ASP rule defining may_ride_trike(R) with the knowledge-base predicates, so that "
        "it agrees with the (fictitious) Wheelwright couriers' handbook.",
        "Predicates, over a rider R: member(R): R is a member; age_18_plus(R): R is 18 or older; suspended(R): R "
        "is suspended from riding; own_bike(R): R has their own bike.",
        [{"id": "HANDBOOK", "source": "Rider handbook, 2026 (fictitious)", "authority": "company rules",
          "text": "Trike rounds are open to members aged 18 or over who are not suspended."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert "not suspended(R)" in verdict["answer"], verdict["answer"]
    assert ", suspended(R)" not in verdict["answer"]


def test_more_ways_of_saying_the_finding_is_still_to_come():
    assert states_doubt("We're checking the furnace records but can't rule anything out yet.")
    assert states_doubt("Ten bolts went to the referee lab; they expect to report by 20 May.")
    assert states_doubt("We have asked the records office to search the minutes; they expect to reply in July.")
    assert states_doubt("CCTV survey booked for 24 April 2026.")
    assert states_doubt("I can't separate them yet: CCTV on 24 April.")
    assert states_doubt("Officers recommend approval; members may amend, defer or refuse.")
    assert not states_doubt("The survey was booked for 3 May and found nothing.")
    assert not states_doubt("You may accept or reject the offer within 14 days.")
    assert not states_doubt("We expected to report a loss.")
    assert not states_doubt("We can separate them easily.")


FAREWELL = ("Losing our old cat Biscuit was awful and I sobbed in the car park. But the nurse at Fernhill was kind "
            "and patient, and the ashes came back within a week in a lovely wooden box. Rating: 5 of 5.")


def _review_read_positive(case_id: str, text: str, hints: dict[str, list[str]]) -> dict:
    """A panel case on one review whose stage signals read every asked aspect (`hints`' keys) positive."""
    aspects = list(hints)
    return {**_one_text(case_id, case_id, "review", text, "Review (fictitious)"),
            "question": f'What is the overall sentiment (positive, negative, neutral or mixed) of this review: '
                        f'"{text}"? And what is the sentiment towards each aspect ({", ".join(aspects)})?',
            "signals": {"text": text, "language": "en", "aspect_terms": aspects, "synonym_hints": hints,
                        "stage1_ate": {"aspects": aspects},
                        "stage1_atsa": {"aspect_sentiments": [{"aspect": a, "polarity": "positive"} for a in aspects],
                                        "overall": "positive"}}}


def test_a_positive_answer_quotes_what_in_the_text_sounds_negative(tmp_path):
    case = _review_read_positive("vet_farewell", FAREWELL,
                                 {"nurse": ["kind and patient"], "return of ashes": ["ashes came back"]})
    answer = _verdict(tmp_path, case)["answer"]
    assert answer.startswith("The overall sentiment is positive")
    assert ('Words in the text that sound negative, weighed against the rest: "Losing our old cat Biscuit was '
            'awful and I sobbed in the car park".') in answer


def test_only_a_one_way_label_gets_the_sentences_that_sound_the_other_way():
    assert other_way_sentences(FAREWELL, "positive") == [
        "Losing our old cat Biscuit was awful and I sobbed in the car park"]
    assert other_way_sentences(FAREWELL, "mixed") == []
    assert other_way_sentences("Brilliant value, five stars for creativity. The invoice was wrong twice.", "negative") == [
        "Brilliant value, five stars for creativity"]
    assert other_way_sentences("The invoice was wrong twice.", "negative") == []


# One lot of cream measured by two methods, either side of the contract's line (fictitious).
CREAM_REPORTS = [
    {"agent": "DairyLab", "metric": "lot_7_fat", "value": 4.2, "unit": "% fat (Gerber, as is)",
     "citation": "[Per extraction: 'Fat (Gerber): 4.2%' from the dairy's lab sheet]", "source": "Dairy laboratory",
     "period": "Lot 7, May 2026", "confidence": 0.7, "interpretation": "Fat is 4.2%, so the bonus is due"},
    {"agent": "BuyerLab", "metric": "lot_7_fat", "value": 3.8, "unit": "% fat (Rose-Gottlieb, as is)",
     "citation": "[Per extraction: 'Fat (Rose-Gottlieb): 3.8%' from the buyer's lab sheet]",
     "source": "Buyer's laboratory", "period": "Lot 7, May 2026", "confidence": 0.7,
     "interpretation": "Fat is 3.8%, so no bonus is due"}]
CREAM_EVIDENCE = [
    {"id": "DAIRY", "source": "Dairy lab sheet, lot 7 (fictitious)", "authority": "accredited_lab",
     "text": "Lot 7. Fat (Gerber): 4.2%."},
    {"id": "BUYER", "source": "Buyer's lab sheet, lot 7 (fictitious)", "authority": "accredited_lab",
     "text": "Lot 7. Fat (Rose-Gottlieb): 3.8%."}]


def test_figures_by_two_methods_either_side_of_the_line_go_to_a_person(tmp_path):
    question = ("The (fictitious) Brook Dairy's contract pays a bonus where lot 7's fat is 4.0% or more. The "
                "dairy's lab reports 4.2%, the buyer's 3.8%. Is the bonus due on lot 7?")
    verdict = _run(tmp_path, _arbitration(question, CREAM_REPORTS, CREAM_EVIDENCE), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any("either side of the 4 % fat the question turns on" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_text_an_export_cut_off_with_an_ellipsis_leaves_its_sentiment_open(tmp_path):
    text = ("Priya fitted our new loft hatch on Monday: on time, tidy and friendly, and it seals properly. "
            "The only thing I'd say is\u2026")
    verdict = _verdict(tmp_path, _review_read_positive("hatch", text, {"fitter": ["Priya"], "hatch": ["seals properly"]}))
    assert verdict["needs_human_review"] is True
    assert any("cut off mid-sentence" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_text_trailing_off_on_a_word_that_can_end_it_is_not_cut_off():
    assert cut_off("Lovely room, shame about the view\u2026") is None
    assert cut_off("The only thing I'd say is...") is not None


def test_advice_still_to_come_and_an_appeal_still_to_be_heard_hold_the_point_open():
    assert states_doubt("I am treating this as loss of original surface, pending advice.")
    assert states_doubt("Without a pre-cleaning scan nobody can give a figure for the east bay.")
    assert states_doubt("The decision stands unless the appeals committee overturns it; it meets on 20 May.")
    assert states_doubt("But the rules don't say so, and it isn't my decision.")
    assert not states_doubt("Nobody can say I did not try.")
    assert not states_doubt("The policy does not say how much, so we used the standard rate.")
    assert not states_doubt("Unless the rules say so, no.")


def test_what_a_rule_says_no_one_needs_is_left_out_of_it(tmp_path):
    case = _rule_case(
        "trike_licence",
        "Knowledge gap: write one ASP rule defining may_ride_trike(R) with the knowledge-base predicates, so that "
        "it agrees with the (fictitious) Wheelwright couriers' handbook.",
        "Predicates, over a rider R: member(R): R is a member; age_18_plus(R): R is 18 or older; "
        "driving_licence(R): R holds a full driving licence.",
        [{"id": "HANDBOOK", "source": "Rider handbook, 2026 (fictitious)", "authority": "company rules",
          "text": "Trike rounds are open to members aged 18 or over. The trikes meet the e-bike rules, so no "
                  "licence, CBT or registration is needed."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert "driving_licence(R)" not in verdict["answer"].split("As an ASP rule:", 1)[-1].split(".")[0]
    assert cue_kind("So no licence, CBT or registration is needed.") == "not_required"
    assert cue_kind("There is no fee, but a licence is needed.") == "obligation"


def test_minutes_still_to_be_approved_hold_the_point_open():
    assert states_doubt("Minutes to be approved at the next committee meeting, 9 June.")
    assert states_doubt("Exact wording to be confirmed by Gareth before the minutes go out.")
    assert states_doubt("Let's not circulate anything until the meeting on 9 June sorts it out.")
    assert not states_doubt("The minutes were approved at the meeting.")
    assert not states_doubt("Prices to be confirmed.")


# Two reports on one batch of ewes at a (fictitious) abattoir: a post that counts every rejected liver,
# and the inspection results whose figure is worked out from the counts it quotes.
LIVER_REPORTS = [
    {"agent": "FarmerPost", "metric": "batch_livers_rejected_for_fluke", "value": 18.4, "unit": "percent of ewes",
     "citation": "[Per extraction: '46 livers thrown out of 250 - 18.4% for fluke' from the farmer's post]",
     "source": "Farmer's post", "period": "Batch of 3 March 2026", "confidence": 0.6,
     "interpretation": "18.4% of the ewes had livers rejected for fluke"},
    {"agent": "Inspection", "metric": "batch_livers_rejected_for_fluke", "value": 15.2, "unit": "percent of ewes",
     "citation": "[Per extraction: 'Ewes slaughtered: 250 ... Livers rejected: 46 in all - fluke 38, abscess 8' "
                 "from the inspection results]", "source": "Inspection results", "period": "Batch of 3 March 2026",
     "confidence": 0.8, "interpretation": "38 of 250 livers were rejected for fluke, 15.2% of the ewes"}]
LIVER_EVIDENCE = [
    {"id": "RESULTS", "source": "Inspection results, batch of 3 March 2026 (fictitious)", "authority": "official",
     "text": "Ewes slaughtered: 250. Livers rejected: 46 in all - fluke 38, abscess 8."},
    {"id": "POST", "source": "Farmer's post, 4 March 2026 (fictitious)", "authority": "social media",
     "text": "46 livers thrown out of 250 - that's 18.4% for fluke. Wet winter's done us."}]


def test_a_percentage_worked_out_from_the_counts_its_source_gives_is_verified(tmp_path):
    question = "What share of the batch's ewes had their livers rejected for fluke?"
    verdict = _run(tmp_path, _arbitration(question, LIVER_REPORTS, LIVER_EVIDENCE), "arbitration")
    assert verdict["answer"].startswith("Use 15.2 percent of ewes"), verdict["answer"][:200]
    assert derived_share(15.2, "percent of ewes", LIVER_REPORTS[1]["citation"])
    assert not derived_share(15.2, "percent of ewes", "[Per extraction: 'Ewes slaughtered: 250' from the results]")


def test_the_same_part_over_different_wholes_is_two_measures():
    said = same_part_of_different_wholes(
        0.54, "% oil by weight of herb", "[Per extraction: '132 kg of oil from 24.5 tonnes of wilted mint' from a blog]",
        0.35, "% oil by weight of herb", "[Per extraction: 'Oil 132 kg. Herb 38.0 t. Yield 0.35%' from a return]")
    assert said == "they work out the same 132 as a share of different totals (24.5 and 38)"
    assert same_part_of_different_wholes(
        0.54, "%", "[Per extraction: '132 kg of oil from 24.5 tonnes' from a blog]",
        0.35, "%", "[Per extraction: 'Yield 0.35%' from a return]") is None


def test_a_rejected_figure_that_is_an_exact_multiple_of_the_one_kept_is_said_to_be():
    assert whole_multiple(2606, 5212) == ("The other figure is exactly twice the figure kept (5,212 = 2 x 2,606), as a "
                                          "count that takes each item twice would give")
    assert whole_multiple(100, 300) is not None and "three times" in whole_multiple(100, 300)
    assert whole_multiple(2606, 5200) is None
    assert whole_multiple(100, 1000) is None


def test_an_answer_says_the_rejected_count_is_twice_the_one_kept(tmp_path):
    reports = [
        {"agent": "Ledger", "metric": "hours_exchanged_2025", "value": 1480, "unit": "hours",
         "citation": "[Per extraction: 'Total hours given: 1,480' from the exchange log]", "source": "Exchange log",
         "period": "Calendar year 2025", "confidence": 0.8, "interpretation": "1,480 hours were given"},
        {"agent": "Newsletter", "metric": "hours_exchanged_2025", "value": 2960, "unit": "hours",
         "citation": "[Per extraction: 'members traded 2,960 hours' from the newsletter]", "source": "Newsletter",
         "period": "Calendar year 2025", "confidence": 0.6, "interpretation": "2,960 hours were traded"}]
    evidence = [
        {"id": "LOG", "source": "Exchange log, 2025 (fictitious)", "authority": "official",
         "text": "Total hours given: 1,480. Credits 1,480 h, debits 1,480 h."},
        {"id": "NEWS", "source": "Newsletter, January 2026 (fictitious)", "authority": "newsletter",
         "text": "A record year: members traded 2,960 hours!"}]
    verdict = _run(tmp_path, _arbitration("How many hours did the (fictitious) Fenby time bank's members exchange in "
                                          "2025?", reports, evidence), "arbitration")
    assert verdict["answer"].startswith("Use 1,480 hours")
    assert "exactly twice the figure kept (2,960 = 2 x 1,480)" in verdict["answer"]


def test_an_aspect_reached_twice_with_one_polarity_is_said_once():
    answer = verdict_answer("positive", [("value", "positive"), ("value", "positive"), ("staff", "negative")],
                            quotes={"value": "worth every penny", "staff": "rude at the desk"})
    assert answer.startswith("The overall sentiment is positive: value positive; staff negative.")
    assert answer.count('value: "worth every penny"') == 1


def test_a_vote_advice_or_approval_still_to_come_holds_the_point_open():
    assert states_doubt("Until the general meeting on 21 May votes I'll be putting names on it.")
    assert states_doubt("Rule 2 stays as it is until the trustees decide.")
    assert states_doubt("Trustees were sympathetic but agreed not to decide until they have written advice.")
    assert states_doubt("My written advice will follow once I've spoken to our team.")
    assert states_doubt("The March minutes haven't been approved.")
    assert states_doubt("I can't tell you what your clause 9 means.")
    assert not states_doubt("Our decision will follow the law.")
    assert not states_doubt("The minutes have been approved.")


def test_a_finding_still_to_come_or_a_record_that_cannot_show_it_holds_the_point_open():
    assert states_doubt("We have asked for the transfer notes and will decide whether the cap was exceeded then.")
    assert states_doubt("Until then the 2025 tonnage is not confirmed.")
    assert states_doubt("Neither figure can be relied on.")
    assert states_doubt("The appeals panel will measure her on the slipway on 3 September and decide then.")
    assert states_doubt("Whether they are bolt heads or lacing eyes can't be made out.")
    assert states_doubt("His written report has not been sent yet.")
    assert not states_doubt("The booking is confirmed.")
    assert not states_doubt("The letter has been sent.")
