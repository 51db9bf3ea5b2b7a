"""The d10_ round's readings, each driven through the CLI on a case written here (or through the
function that reads it): a change waiting on someone's act, forms of one condition that two documents
set differently, "can't" and "is needed" as rule cues, a confinement against a cap, a question about
today answered with figures of other periods, rates with different bases, a citation's quote that
finds its passage, a change the first error names, phrases said in praise and in irony alike, and
the authority of hearsay."""

from __future__ import annotations

from test_cc_dialectic_traps import _cc_case, _rule_case, _run

from debate_core.core.schemas import Case
from debate_core.core.text import authority_score, stem
from debate_core.protocols.dialectic.agent.cues import cue_kind
from debate_core.protocols.refinement.agent.reading import timeline, unseparated
from debate_core.providers.offline.reading import question_terms

GRADING = ("Predicates, all over a student S: student(S): S has asked to grade; three_months(S): three months have "
           "passed since S's last grading; licence_valid(S): S's licence is valid on the day; under_16(S): S will be "
           "under 16 on the grading day; under_14(S): S will be under 14 on the grading day; fees_paid(S): S's fees "
           "are up to date.")
GRADING_QUESTION = ("Knowledge gap: write one ASP rule defining may_grade(S) with the knowledge-base predicates, so "
                    "that it agrees with the grading rules that apply on 20 June 2026.")


def test_a_change_that_takes_effect_only_once_it_is_ratified_leaves_the_rule_open(tmp_path):
    passages = [
        {"id": "GR", "source": "Judo association grading rules (fictitious)", "authority": "official",
         "date": "2024-09-01",
         "text": "A student must have trained for three months since the last grading. No one may grade without a "
                 "licence that is valid on the day. Nobody under 16 can take the black belt grading."},
        {"id": "TC", "source": "Technical committee minutes (fictitious)", "authority": "official",
         "date": "2026-02-08",
         "text": "The committee approved lowering the black belt age from 16 to 14. Changes to the grading rules take "
                 "effect only once the association council ratifies them; the proposal goes to the council on "
                 "30 May 2026."}]
    verdict = _run(tmp_path, _rule_case("judo", GRADING_QUESTION, GRADING, passages), "dialectic")
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if r.startswith("TC changes the rule"))
    assert "take effect only once the association council ratifies them" in reason
    assert "amendment_not_in_force" in verdict["applied_rules"]

    # Once a passage records the ratification, the change is in force and nothing waits.
    passages.append({"id": "NEWS", "source": "Association newsletter (fictitious)", "authority": "official",
                     "date": "2026-06-01", "text": "The lower black belt age was ratified by the council on 30 May."})
    verdict = _run(tmp_path, _rule_case("judo_ratified", GRADING_QUESTION, GRADING, passages), "dialectic")
    assert not any(r.startswith("TC changes the rule") for r in verdict["escalation_reasons"])


def test_two_documents_of_one_standing_that_set_different_forms_of_one_condition_go_to_a_person(tmp_path):
    vocabulary = ("Predicates, all over an applicant C: applicant(C): C applies for a nursery place; "
                  "sibling_on_closing_date(C): a brother or sister attends the nursery on the closing date for "
                  "applications; sibling_on_start_date(C): a brother or sister will still attend the nursery on the "
                  "day the place starts; lives_in_town(C): C lives in the town.")
    passages = [
        {"id": "POLICY", "source": "Nursery admissions policy 2026 (fictitious)", "authority": "official",
         "text": "Sibling priority goes to a child whose brother or sister will still attend the nursery on the day "
                 "the place starts."},
        {"id": "BOOKLET", "source": "Council admissions booklet 2026 (fictitious)", "authority": "official",
         "text": "A child has sibling priority when a brother or sister attends the nursery on the closing date for "
                 "applications."}]
    question = ("Knowledge gap: write one ASP rule defining sibling_priority(C) with the knowledge-base predicates, so "
                "that it agrees with the admission documents.")
    verdict = _run(tmp_path, _rule_case("nursery", question, vocabulary, passages), "dialectic")
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if "set the condition differently" in r)
    assert "POLICY" in reason and "BOOKLET" in reason
    assert "sibling_on_start_date" in reason and "sibling_on_closing_date" in reason

    # A forum post naming the other form is no document of the same standing.
    passages[1] = {**passages[1], "id": "FORUM", "source": "Parents' forum (fictitious)", "authority": "forum"}
    verdict = _run(tmp_path, _rule_case("nursery_forum", question, vocabulary, passages), "dialectic")
    assert not any("set the condition differently" in r for r in verdict["escalation_reasons"])


def test_cant_and_is_needed_state_rules_and_a_confinement_is_a_condition_where_a_cap_is_not():
    assert cue_kind("Unrated players can't be placed in the Major.") == "prohibition"
    assert cue_kind("Unrated players can’t be placed in the Major.") == "prohibition"
    assert cue_kind("A permit is needed for every skip on the road.") == "obligation"
    assert cue_kind("Advance purchase is limited to the sections the council has opened.") == "obligation"
    assert cue_kind("Juice is limited to a 150 ml portion.") is None


def test_a_permit_the_law_calls_permission_is_the_same_word():
    assert stem("permission") == stem("permit") == stem("permits")
    assert stem("admission") == stem("admit")
    assert stem("mission") == "mission"


def test_skip_rule_reads_a_needed_permit(tmp_path):
    vocabulary = ("Predicates, all over a booking S: road_booking(S): the skip is to stand on the public road; "
                  "skip_permit(S): the council has granted a skip permit for that place and those dates; "
                  "neighbour_agrees(S): the neighbour has agreed; paid(S): the hire has been paid for.")
    passages = [{"id": "COUNCIL", "source": "Council skip permit conditions (fictitious)", "authority": "official",
                 "text": "A permit is needed for every skip on the road, for however short a time and whether or not "
                         "the neighbours object."}]
    question = ("Knowledge gap: write one ASP rule defining may_deliver(S) with the knowledge-base predicates, so "
                "that it agrees with the council's conditions.")
    verdict = _run(tmp_path, _rule_case("skip", question, vocabulary, passages), "dialectic")
    assert "skip_permit(S)" in verdict["answer"].split("As an ASP rule:")[-1], verdict["answer"]


def _arbitration(question: str, reports: list[dict], evidence: list[dict]) -> dict:
    return {"id": "figures", "title": "Two figures", "protocol": "arbitration", "question": question,
            "evidence": evidence, "reports": reports,
            "agents": [{"id": "arbiter", "name": "Figures arbiter", "role": "Neutral arbiter."}]}


# A unit measured by its tenant in February 2026 and on the site plan of 2019 (fictitious).
UNIT_REPORTS = [
    {"agent": "Tenant", "metric": "unit_area", "value": 86, "unit": "sq ft",
     "citation": "[Per extraction: 'about 86 square feet' from tenant]", "source": "Tenant's measurement",
     "period": "February 2026", "confidence": 0.7, "interpretation": "the unit is small"},
    {"agent": "Manager", "metric": "unit_area", "value": 100, "unit": "sq ft",
     "citation": "[Per extraction: '100 sq ft' from plan]", "source": "Site floor plan",
     "period": "2019", "confidence": 0.8, "interpretation": "the unit is as let"}]
UNIT_EVIDENCE = [
    {"id": "plan", "source": "Site floor plan, 2019 (fictitious)", "authority": "official", "date": "2019-05-30",
     "text": "Unit 7: 9.3 m² (100 sq ft)."},
    {"id": "tenant", "source": "Tenant's email (fictitious)", "authority": "customer", "date": "2026-02-03",
     "text": "I measured it on Saturday: about 86 square feet."}]


def test_a_question_about_today_is_not_answered_by_figures_of_different_periods(tmp_path):
    verdict = _run(tmp_path, _arbitration("What is the floor area of unit 7 today?", UNIT_REPORTS, UNIT_EVIDENCE),
                   "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("the question asks about one time (today)") and "February 2026" in r and "2019" in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]
    assert "escalate.one_time_asked" in verdict["applied_rules"]


def test_rates_over_different_bases_both_stand_and_a_quoted_citation_finds_its_passage(tmp_path):
    reports = [
        {"agent": "Operator", "metric": "mishandled_bag_rate", "value": 5.8, "unit": "per 1,000 passengers",
         "citation": "[Per extraction: '5.8 mishandled bags per 1,000 passengers' from the annual report]",
         "source": "Airport annual report", "period": "2025", "confidence": 0.8, "interpretation": "few bags lost"},
        {"agent": "Passengers", "metric": "mishandled_bag_rate", "value": 9.6, "unit": "per 1,000 checked bags",
         "citation": "[Per extraction: 'that is 9.6 for every 1,000 bags checked in' from the association]",
         "source": "Passenger group bulletin", "period": "2025", "confidence": 0.7,
         "interpretation": "many bags lost"}]
    evidence = [
        {"id": "report", "source": "Harbury Airport annual report 2025 (fictitious)", "authority": "official",
         "date": "2026-03-01", "text": "In 2025 we recorded 5.8 mishandled bags per 1,000 passengers."},
        {"id": "bulletin", "source": "Harbury Travellers' Association newsletter (fictitious)",
         "authority": "secondary", "date": "2026-03-10",
         "text": "Of every bag checked in at Harbury last year, too many went astray: that is 9.6 for every 1,000 "
                 "bags checked in."}]
    question = "What was Harbury Airport's mishandled baggage rate in 2025? Which figure is right, or do both stand?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is False, verdict["escalation_reasons"]
    assert "both valid" in verdict["answer"] and "different units" in verdict["answer"]
    # Figures in different units are not told as one range in one of them.
    assert "to 9.6 per 1,000 passengers" not in verdict["answer"]


def test_a_change_whose_name_the_first_error_gives_is_the_one_tied_to_it(tmp_path):
    evidence = [
        {"id": "L1", "source": "log: mail bounces (fictitious)", "date": "2026-03-09T08:02:40",
         "text": "2026-03-09 08:02:40 ERROR bounce 550 unauthenticated email from larkchoir.org.uk (SPF fail)."},
        {"id": "C1", "source": "config: committee notes (fictitious)", "date": "2026-03-06",
         "text": "6 March 2026: the mailing list moved to our own domain larkchoir.org.uk."},
        {"id": "C2", "source": "config: membership notes (fictitious)", "date": "2026-03-08",
         "text": "8 March 2026: member list re-imported from the new spreadsheet."}]
    case = {"id": "choir", "title": "Choir mail", "question": "Since Monday 9 March 2026 the (fictitious) choir's "
            "emails bounce. What is the root cause, and how should it be fixed and prevented?", "evidence": evidence}
    tl = timeline(Case(**case))
    assert [e.ev.id for e in tl.changes_before] == ["C1", "C2"]
    # The domain ends C1's sentence; its full stop is no part of the name the error gives.
    assert unseparated(tl, case["question"]) == []
    verdict = _run(tmp_path, case, "refinement")
    assert not any("which of the changes before the first anomaly" in r for r in verdict["escalation_reasons"])
    # Days and months are dates, not words of the question a passage must cover.
    assert "monday" not in question_terms(case["question"])


def test_a_phrase_said_in_praise_and_in_irony_alike_goes_to_a_person(tmp_path):
    from debate_core.protocols.panel.agent.sentiment import compound, double_edged

    # Quoted with up to three words before it, within its sentence.
    assert double_edged("Certainly a night none of us will forget in a hurry.") == "of us will forget in a hurry"
    assert double_edged("Money well spent, I suppose.") == "Money well spent, I suppose"
    assert double_edged("Well, my shirts have never had creases like these before.") == \
        "never had creases like these before"
    assert double_edged("A lovely evening with friends.") is None
    # "alone" before a verb singles out, and is no loneliness.
    assert compound("The cauldron scene alone was worth the ticket price.") > 0.05

    text = "Well, the Players' pantomime is certainly a night none of us will forget in a hurry."
    case = {"id": "panto", "title": "pantomime post",
            "question": f"What is the overall sentiment (positive, negative, neutral or mixed) of this post: \"{text}\"?",
            "domain_hint": "amateur theatre post (fictitious)",
            "evidence": [{"id": "T", "source": "Noticeboard post (fictitious)", "authority": "primary", "text": text}]}
    verdict = _run(tmp_path, case, "panel")
    assert verdict["needs_human_review"] is True
    assert any('whether "of us will forget in a hurry" is praise or irony' in r for r in verdict["escalation_reasons"])

    # The reviewer's own rating on the reading's side settles it.
    rated = {**case, "id": "panto_rated",
             "evidence": [*case["evidence"], {"id": "R", "source": "Same post, rating (fictitious)",
                                              "authority": "primary", "text": "Rating: 5 of 5."}]}
    verdict = _run(tmp_path, rated, "panel")
    assert not any("is praise or irony" in r for r in verdict["escalation_reasons"])


def test_hearsay_ranks_below_the_documents_and_a_forum_level_with_a_blog(tmp_path):
    assert authority_score("forum") == authority_score("blog") < authority_score("secondary")
    assert authority_score("anecdote") < authority_score("news")
    assert authority_score("deed") >= authority_score("official")
    case = _cc_case("fence", "Which neighbour must repair the fence between numbers 3 and 5?", [
        {"id": "deed", "source": "Conveyance of number 3, clause 4 (fictitious)", "authority": "deed",
         "text": "The purchaser of number 3 covenants to maintain the fence on the boundary with number 5."},
        {"id": "note", "source": "Note from number 3 (fictitious)", "authority": "anecdote",
         "text": "Our solicitor says the fence between 3 and 5 is yours, number 5, so you must repair the fence."}])
    verdict = _run(tmp_path, case, "cross_critique")
    assert verdict["answer"].startswith("The purchaser of number 3 covenants"), verdict["answer"]


def _chimney_case(question: str) -> dict:
    reports = [
        {"agent": "Analyst", "metric": "chimney_fires_2025", "value": 131, "unit": "fires",
         "citation": "[Per extraction: 'Chimney fires attended in 2025: 131' from the bulletin]",
         "source": "Fire service bulletin", "period": "2025", "confidence": 0.85,
         "interpretation": "131 chimney fires", "definition": "fires confined to the chimney"},
        {"agent": "Sweeps", "metric": "chimney_fires_2025", "value": 148, "unit": "fires",
         "citation": "[Per extraction: '148 fires that started in a chimney' from the sweeps' newsletter]",
         "source": "Sweeps' newsletter", "period": "2025", "confidence": 0.75,
         "interpretation": "148 chimney fires", "definition": "fires that started in a chimney, spread or not"}]
    evidence = [
        {"id": "bulletin", "source": "Fire service bulletin 2025 (fictitious)", "authority": "official",
         "date": "2026-02-16", "text": "Chimney fires attended in 2025: 131. Of the dwelling fires, 17 started in a "
                                       "chimney before spreading to the building."},
        {"id": "sweeps", "source": "Sweeps' newsletter, winter (fictitious)", "authority": "secondary",
         "date": "2026-03-02", "text": "Our fire service went to 148 fires that started in a chimney last year."}]
    return _arbitration(question, reports, evidence)


def test_a_difference_one_source_counts_is_quoted_with_figures_that_both_stand(tmp_path):
    case = _chimney_case("How many chimney fires did the (fictitious) service attend in 2025? Which figure is "
                         "right, or do both stand?")
    verdict = _run(tmp_path, case, "arbitration")
    assert "both valid" in verdict["answer"]
    assert 'the difference, 17, is counted in bulletin: "Of the dwelling fires, 17 started in a chimney' in \
        verdict["answer"], verdict["answer"]


def test_a_source_giving_both_figures_for_different_things_lets_both_stand_where_the_question_offers_both(tmp_path):
    reports = [
        {"agent": "Customer", "metric": "carpet_area", "value": 18.4, "unit": "m²",
         "citation": "[Per extraction: 'that is 18.4 square metres' from the customer's email]",
         "source": "Customer's own measurement", "period": "May 2026", "confidence": 0.8,
         "interpretation": "overcharged"},
        {"agent": "Shop", "metric": "carpet_area", "value": 22.0, "unit": "m²",
         "citation": "[Per extraction: '5 m width: 22.0 m²' from the invoice]", "source": "Fairway Carpets",
         "period": "May 2026", "confidence": 0.8, "interpretation": "charged correctly"}]
    evidence = [
        {"id": "invoice", "source": "Fairway Carpets, invoice 77 (fictitious)", "authority": "official",
         "date": "2026-05-20", "text": "Wool carpet, 5 m width: 22.0 m² at £38.50 per m². Gripper and underlay: 18.4 m²."},
        {"id": "email", "source": "Customer's email (fictitious)", "authority": "customer", "date": "2026-05-24",
         "text": "I measured the room myself: that is 18.4 square metres, not 22."}]
    offered = _arbitration("Was the customer overcharged for carpet? Which figure is right, or do both stand?",
                           reports, evidence)
    verdict = _run(tmp_path, offered, "arbitration")
    assert "both valid" in verdict["answer"] and "invoice (Fairway Carpets) gives both figures" in verdict["answer"]
    # Asked for one figure, the source's own figure for the measure asked about is the answer.
    one = _arbitration("What carpet area should the invoice charge for?", reports, evidence)
    verdict = _run(tmp_path, one, "arbitration")
    assert verdict["answer"].startswith("Use 22 m²"), verdict["answer"]

