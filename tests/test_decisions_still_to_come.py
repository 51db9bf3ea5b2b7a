"""A decision still to come, as people write it ("Until we've decided, the guide is what counts";
"they haven't said yes or no yet"), sends the verdict to a person; and where a rejected figure has
a source of its own in the evidence (the invoice's "Total 240 copies" behind a blog's "we sold 240"),
the answer quotes it; a predicate that a rule sentence names but the reading cannot place goes
to a person. Driven through the CLI on cases written here (all fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.text import states_doubt


def test_until_we_have_decided_sends_the_rule_to_a_person(tmp_path):
    case = _rule_case(
        "quiz_hosts",
        "Knowledge gap: write one ASP rule defining may_host(P) with the knowledge-base predicates, so that it "
        "agrees with the pub's quiz night rules as they stand.",
        "Predicates, over a person P: registered(P): P is on the quiz host list; briefed(P): P has sat the host "
        "briefing; hosted_twice(P): P has co-hosted two quiz nights.",
        [{"id": "GUIDE", "source": "Quiz night host guide, 2025 (fictitious)", "authority": "official",
          "date": "2025-09-01", "text": "Anyone on the host list who has sat the host briefing may host a quiz."},
         {"id": "OWNER_A", "source": "Post by co-owner Dev, April 2026 (fictitious)", "authority": "official",
          "date": "2026-04-12", "text": "From May you'll need to have co-hosted two quiz nights before you host one."},
         {"id": "OWNER_B", "source": "Reply by co-owner Ana, April 2026 (fictitious)", "authority": "official",
          "date": "2026-04-13",
          "text": "Dev and I haven't talked this through yet. Until we've decided, the host guide is what counts."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert verdict["needs_human_review"] is True, verdict
    assert any("OWNER_B" in r and "Until we've decided" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_an_answer_nobody_has_given_yet_is_held_open():
    assert states_doubt("They've asked for the claims data, and they haven't said yes or no yet.")
    assert states_doubt("The council has not yet given its decision on the licence.")
    assert states_doubt("Honestly, it could go either way.")
    assert states_doubt("Two jars went to the public analyst; results expected 23 October.")
    assert not states_doubt("The insurer said yes in writing on 2 May.")
    assert not states_doubt("The results were expected to be good, and they were.")


def test_a_committee_that_will_settle_the_point_at_its_meeting_sends_the_rule_to_a_person(tmp_path):
    case = _rule_case(
        "novice_vase",
        "Knowledge gap: write one ASP rule defining may_enter_novice(E) with the knowledge-base predicates, so "
        "that it agrees with the rules that will apply at the show.",
        "Predicates, over an exhibitor E: member(E): E is a member; own_grown(E): E grew the blooms; "
        "no_first_anywhere(E): E has never won a first prize at any show.",
        [{"id": "RULES", "source": "Society show rules (fictitious)", "authority": "official", "date": "2019-02-01",
          "text": "Novice classes are for members who have never won a first prize at any show, with blooms of "
                  "their own growing."},
         {"id": "CHAIR", "source": "Society chair, June 2026 (fictitious)", "authority": "official",
          "date": "2026-06-20",
          "text": "The committee will settle how the AGM's change applies at its meeting on 1 July. Entries are "
                  "being accepted as they come in."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert verdict["needs_human_review"] is True, verdict["answer"]
    assert any(r.startswith("CHAIR says the point is not yet decided") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_rejected_figure_found_in_a_third_passage_is_quoted(tmp_path):
    reports = [
        {"agent": "Blog", "metric": "copies_sold", "value": 90, "unit": "copies",
         "citation": "[Per extraction: 'We sold 90 copies of the new atlas' from the shop blog]",
         "source": "Shop blog", "period": "Launch week", "confidence": 0.6, "interpretation": "a record"},
        {"agent": "Till", "metric": "copies_sold", "value": 61, "unit": "copies",
         "citation": "[Per extraction: 'Copies sold: 61' from the till report]",
         "source": "Shop till report", "period": "Launch week", "confidence": 0.8, "interpretation": "no record"}]
    evidence = [
        {"id": "TILL", "source": "Shop till report, launch week (fictitious)", "authority": "official",
         "date": "2026-03-10", "text": "Copies sold: 61. Stock left at close: 29."},
        {"id": "INVOICE", "source": "Wholesaler's invoice to the shop (fictitious)", "authority": "official",
         "date": "2026-03-01", "text": "New atlas, hardback. Total 90 copies, delivered 1 March."},
        {"id": "BLOG", "source": "Shop blog post (fictitious)", "authority": "blog", "date": "2026-03-12",
         "text": "We sold 90 copies of the new atlas in launch week!"}]
    verdict = _run(tmp_path, _arbitration("How many copies of the atlas did the shop sell in launch week?",
                                          reports, evidence), "arbitration")
    assert verdict["answer"].startswith("Use 61 copies"), verdict["answer"]
    assert "Wholesaler's invoice to the shop (fictitious) gives the other figure too: \"Total 90 copies, " \
           "delivered 1 March\"" in verdict["answer"], verdict["answer"]


def test_a_predicate_a_rule_sentence_names_but_the_reading_cannot_place_goes_to_a_person(tmp_path):
    case = _rule_case(
        "wrestling_nights",
        "Knowledge gap: write one ASP rule defining may_wrestle(P) with the knowledge-base predicates, so that it "
        "agrees with the club handbook.",
        "Predicates, over a person P: member(P): P is a paid-up member of the club; insured(P): P is on the club's "
        "insurance; oiled(P): P has oil or lotion on their skin; boots_owned(P): P owns wrestling boots.",
        [{"id": "HANDBOOK", "source": "Club handbook, 2025 (fictitious)", "authority": "official",
          "text": "Members on the club's insurance may wrestle on club nights. Nobody goes on the mat oiled up. "
                  "Boots are up to you."}])
    verdict = _run(tmp_path, case, "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1]
    # The reading does not see "goes on the mat" as the act of may_wrestle, so oiled gets no part: the
    # verdict must say so rather than send the rule out without it.
    assert "oiled" not in rule and verdict["needs_human_review"] is True, verdict["answer"]
    assert any("what part oiled plays: HANDBOOK names it in a rule (\"Nobody goes on the mat oiled up.\")" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]
