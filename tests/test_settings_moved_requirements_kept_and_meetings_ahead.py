"""A rule's setting moved "from X to Y" or a figure "lowered from 18 to 16" puts Y in X's place; a rule
"is replaced:" or kept "instead of" another goes; what an amending text says "stays" or is
"unchanged" is still required, and "the breast cancer exclusion" still bars; "need not apply" turns
people away; what one clause says is not needed leaves the others alone, as does "needs registration,
not approval"; a point "carried forward to the meeting of 11 June" is not yet decided; a rule that
requires both of two alternatives, or leaves out a predicate a passage names unread, goes to a person;
a reader asking "a complaint or a recommendation?" leaves a post open; a check someone "is checking"
is still to come; two percentages on different bases either side of the question's threshold go to a
person. Driven through the CLI where a verdict shows it, on cases written here (fictitious)."""

from __future__ import annotations

import re

from test_cc_dialectic_traps import _rule_case, _run
from test_panel_aspect_quotes import _one_text, _verdict
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.schemas import Evidence
from debate_core.core.text import evidence_authority, stem
from debate_core.protocols.dialectic.agent.cues import (
    contrasted_need,
    cue_kind,
    kept_need,
    named_exclusions,
    not_required_clause,
    reaffirmed,
)
from debate_core.protocols.dialectic.amendments import replaces, successor_names, withdrawn_names


def _rule_of(verdict: dict) -> str:
    return re.search(r"As an ASP rule: (.*?\)\.)(?:\s|$)", verdict["answer"]).group(1)


TOURNAMENT = _rule_case(
    "chess_congress_entry",
    "Knowledge gap: write one ASP rule defining may_enter_open(P) with the knowledge-base predicates, so that it "
    "agrees with the (fictitious) Harnford Chess Congress rules as they stand in May 2026.",
    "Predicates, over a player P: fide_id(P): P has a FIDE identification number; rated_standard(P): P's entry "
    "uses the standard rating list; rated_rapid(P): P's entry uses the rapid rating list; age_14_plus(P): P is 14 "
    "or older; age_12_plus(P): P is 12 or older; paid_fee(P): P has paid the entry fee; arbiter_approved(P): the "
    "chief arbiter has approved P's entry; banned(P): P is under a ban from the federation.",
    [{"id": "RULES", "source": "Congress rules, 2024 edition (fictitious)", "authority": "company rules",
      "date": "2024-09-01",
      "text": "Entrants to the Open must have a FIDE ID, enter on the standard rating list, be aged 14 or over, "
              "pay the entry fee and be approved by the chief arbiter. Banned players need not apply."},
     {"id": "MINUTES", "source": "Organising committee minutes, 3 March 2026 (fictitious)",
      "authority": "company rules", "date": "2026-03-03",
      "text": "(a) The Open moves from the standard to the rapid rating list; entries must use the rapid list. "
              "(b) The minimum age is lowered from 14 to 12. (c) The chief arbiter's approval rule is replaced: "
              "entries are checked automatically. (d) FIDE ID and the entry fee stay."}])


def test_a_setting_moved_and_a_figure_lowered_put_the_new_in_place_of_the_old(tmp_path):
    rule = _rule_of(_run(tmp_path, TOURNAMENT, "dialectic"))
    for kept in ("fide_id(P)", "rated_rapid(P)", "age_12_plus(P)", "paid_fee(P)", "not banned(P)"):
        assert kept in rule
    for gone in ("rated_standard", "age_14_plus", "arbiter_approved"):
        assert gone not in rule


def test_moves_from_and_lowered_from_name_what_goes_and_what_comes():
    described = {"rated_standard": "P's entry uses the standard rating list",
                 "rated_rapid": "P's entry uses the rapid rating list",
                 "age_14_plus": "P is 14 or older", "age_12_plus": "P is 12 or older"}
    moved = "The Open moves from the standard to the rapid rating list."
    assert replaces(moved)
    assert withdrawn_names(moved, described) == ["rated_standard"]
    assert successor_names(moved, described) == ["rated_rapid"]
    lowered = "The minimum age is lowered from 14 to 12 for the 2026 season."
    assert withdrawn_names(lowered, described) == ["age_14_plus"]
    assert successor_names(lowered, described) == ["age_12_plus"]
    # A period or a range is not something replaced.
    assert not replaces("The season changes from 1 May to 30 June.")
    assert not replaces("The hall is open from 9 to 5.")


def test_need_not_apply_turns_people_away():
    assert cue_kind("Banned players need not apply.") == "prohibition"
    assert cue_kind("Deprecated services needn't apply.") == "prohibition"
    assert cue_kind("You need not bring your own board.") == "not_required"


def test_what_an_amending_text_keeps_is_still_required_and_a_kept_exclusion_still_bars():
    assert kept_need("the rating of 3 or more stays.")
    assert kept_need("(c) The identification assessment, first aid and minimum age of 18 stay.")
    assert not kept_need("The barn owl box stays with the licence holder.")
    assert not kept_need("Raw-milk cheeses stay welcome.")
    items = reaffirmed(["(e) Catalogue registration, schema registration and the bar on deprecated services "
                        "are unchanged."])
    assert [i.strip() for i in items] == ["(e) Catalogue registration", "schema registration"]
    assert named_exclusions(["(d) Baseline test, consent and the breast cancer exclusion: unchanged."]) \
        == ["breast cancer"]
    assert named_exclusions(["The bar on deprecated services is unchanged."]) == ["deprecated services"]
    # An age bar says who is kept out only with the figure: it is left to the sentences that state it.
    assert named_exclusions(["The under-18 bar stays."]) == []
    assert named_exclusions(["The breast cancer exclusion no longer applies."]) == []


def test_a_failed_proposal_then_what_stays_reads_the_kept_rule(tmp_path):
    case = _rule_case(
        "cheese_counter",
        "Knowledge gap: write one ASP rule defining may_sell(M) with the knowledge-base predicates, so that it "
        "agrees with the (fictitious) Ashdown Cheesemakers' rules as they stand in June 2026.",
        "Predicates, over a maker M: member(M): M is a member; rating_3_plus(M): M's food hygiene rating is 3 or "
        "higher; rating_5(M): M's food hygiene rating is 5; insured(M): M holds product liability insurance.",
        [{"id": "HANDBOOK", "source": "Handbook, 2025 (fictitious)", "authority": "company rules",
          "date": "2025-01-10",
          "text": "Sellers must be members and hold product liability insurance."},
         {"id": "AGM", "source": "AGM minutes, 8 February 2026 (fictitious)", "authority": "company rules",
          "date": "2026-02-08",
          "text": "Proposal that sellers must hold a rating of 5: lost, 7 votes to 12; the rating of 3 or more stays."}])
    rule = _rule_of(_run(tmp_path, case, "dialectic"))
    assert "rating_3_plus(M)" in rule and "rating_5" not in rule
    assert "member(M)" in rule and "insured(M)" in rule


def test_what_one_clause_says_is_not_needed_leaves_the_other_clauses_alone():
    sentence = "Each of you sells your own cheese to the public, so you don't need to be an approved dairy."
    assert not_required_clause(sentence) == "you don't need to be an approved dairy."
    assert not_required_clause("You don't need to be a member.") == "You don't need to be a member."
    contrast = "A maker who sells only direct to the consumer needs registration, not approval."
    assert contrasted_need(contrast, {stem("approved")}) and not contrasted_need(contrast, {stem("registered")})
    assert cue_kind("Members no longer need their own policy for the counter.") == "not_required"


def test_a_point_carried_forward_to_a_meeting_is_not_yet_decided(tmp_path):
    case = _rule_case(
        "quilt_show_entry",
        "Knowledge gap: write one ASP rule defining may_enter_show(Q) with the knowledge-base predicates, so that "
        "it agrees with the (fictitious) Brackley Quilters' show rules for 2026.",
        "Predicates, over a quilt Q: member_made(Q): Q was made by a member; finished_12_months(Q): Q was finished "
        "within 12 months of the show; finished_24_months(Q): Q was finished within 24 months of the show.",
        [{"id": "RULES", "source": "Show rules, 2025 (fictitious)", "authority": "company rules", "date": "2025-03-01",
          "text": "Quilts must be made by a member and finished within 12 months of the show."},
         {"id": "COMMITTEE", "source": "Committee minutes, 12 March 2026 (fictitious)", "authority": "company rules",
          "date": "2026-03-12",
          "text": "Item 6, the finishing window: not reached for lack of time; carried forward to the meeting of "
                  "11 June 2026."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert verdict["needs_human_review"] is True
    assert any("COMMITTEE says the point is not yet decided" in r and "carried forward" in r
               for r in verdict["escalation_reasons"])


def test_a_reader_asking_complaint_or_recommendation_leaves_the_post_open(tmp_path):
    text = ("Monday: asked for the spare key. Thursday: key arrives. The contract does say three working days, so. "
            "Another year with them, then.")
    case = _one_text("key_safe", "A post about a key-holding firm", "post about a key-holding service", text,
                     "Post on a professional network (fictitious)")
    case["evidence"].append({"id": "C2", "source": "Comments under the post (fictitious)",
                             "text": "Is this a complaint or a recommendation? Honestly can't tell"})
    verdict = _verdict(tmp_path, case)
    assert verdict["needs_human_review"] is True
    assert any('asks "Is this a complaint or a recommendation?"' in r for r in verdict["escalation_reasons"])


def _share_case(question: str) -> dict:
    reports = [
        {"agent": "Surface", "metric": "lead_share", "value": 7, "unit": "% of outer surface area",
         "citation": "[Per extraction: 'lead covers about 7% of the outer surface' from the survey]",
         "source": "Glazier's survey", "period": "April 2026", "confidence": 0.55,
         "interpretation": "The lead is 7% of the panel, under the 10% limit"},
        {"agent": "Weight", "metric": "lead_share", "value": 13, "unit": "% by weight",
         "citation": "[Per extraction: '130 g of lead in a 1,000 g panel is 13%' from the dealer's email]",
         "source": "Dealer's email", "period": "April 2026", "confidence": 0.6,
         "interpretation": "The lead is 13% of the panel, over the 10% limit"}]
    evidence = [
        {"id": "RULE", "source": "Fair's entry rules (fictitious)",
         "text": "Panels may be shown only if lead makes up less than 10% of the panel's volume."},
        {"id": "SURVEY", "source": "Glazier's survey (fictitious)", "text": "Lead covers about 7% of the outer surface."},
        {"id": "EMAIL", "source": "Dealer's email (fictitious)", "text": "130 g of lead in a 1,000 g panel is 13%."}]
    return _arbitration(question, reports, evidence)


def test_two_shares_on_different_bases_either_side_of_the_threshold_go_to_a_person(tmp_path):
    verdict = _run(tmp_path, _share_case("Is the panel's lead content under 10% so that it can be shown?"),
                   "arbitration")
    assert verdict["needs_human_review"] is True
    assert any("either side of the 10% the question turns on" in r for r in verdict["escalation_reasons"])


def test_minutes_of_a_forum_meeting_are_not_hearsay():
    minutes = Evidence(id="M", source="Architecture forum minutes, 11 February 2026 (fictitious)", text="x")
    thread = Evidence(id="F", source="Replies on a wildlife forum thread (fictitious)", text="x")
    assert evidence_authority(minutes) > evidence_authority(thread)


PITCH = _rule_case(
    "pitch_hire",
    "Knowledge gap: write one ASP rule defining may_hire(G) with the knowledge-base predicates, so that it agrees "
    "with the (fictitious) Millbrook School lettings policy from 1 April 2026.",
    "Predicates, over a group G: organiser_18_plus(G): the organiser is 18 or over; cover_5m(G): the group holds "
    "public liability cover of at least £5 million; league_affiliated(G): the group is affiliated to a county "
    "league; barred(G): the school has barred the group.",
    [{"id": "POLICY", "source": "Lettings policy, adopted 10 March 2026 (fictitious)", "authority": "company rules",
      "date": "2026-03-10",
      "text": "Hirers must be 18 or over. They must hold public liability cover of at least £5 million or be "
              "affiliated to a county league. Barred groups may not hire."}])


def test_a_rule_that_requires_both_of_two_alternatives_goes_to_a_person(tmp_path):
    verdict = _run(tmp_path, PITCH, "dialectic")
    rule = _rule_of(verdict)
    assert "cover_5m(G)" in rule and "league_affiliated(G)" in rule
    assert "alternatives_both_required" in verdict["applied_rules"]
    assert any("POLICY allows either cover_5m or league_affiliated" in r for r in verdict["escalation_reasons"])


def test_a_bound_is_not_an_alternative():
    from debate_core.protocols.dialectic.alternatives import alternatives
    declared = {"age_18_plus": "P is 18 or over", "hygiene_level2": "P holds food hygiene Level 2"}
    assert alternatives("You must be an employee aged 18 or over with food hygiene Level 2.", declared) == []
    assert alternatives("Drivers must not smoke or hold food hygiene Level 2.", declared) == []


def test_a_rule_that_leaves_out_one_predicate_a_passage_speaks_of_unread_goes_to_a_person(tmp_path):
    case = _rule_case(
        "kiln_booking",
        "Knowledge gap: write one ASP rule defining may_fire_kiln(M) with the knowledge-base predicates.",
        "Predicates, over a member M: member(M): M is a member of the (fictitious) Ashby Pottery; inducted(M): M has "
        "had the kiln induction; aged_16_plus(M): M is 16 or over.",
        [{"id": "RULES", "source": "Studio rules (fictitious)", "authority": "official", "date": "2026-01-10",
          "text": "Only members who have had the kiln induction may fire the kiln. Kiln users are 16 or over."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert "aged_16_plus" not in _rule_of(verdict)
    reason = next(r for r in verdict["escalation_reasons"] if "the rule leaves out" in r)
    assert "a predicate the rule leaves out (aged_16_plus), named in RULES where no rule word was read" in reason


def test_a_check_under_way_and_advice_to_come_leave_the_point_open():
    from debate_core.core.text import states_doubt
    assert states_doubt("I need to see what buyers were told - your web developer is checking.")
    assert states_doubt("I'll advise when I hear.")
    assert states_doubt("We will let you know once we have the result.")
    assert not states_doubt("He is checking in at 3pm.")
    assert not states_doubt("I'll advise you on the menu when you arrive.")
