"""The d15_ round's readings, each driven through the CLI on a case written here (or through the
function that reads it): a chat message that sets no condition, a limit above one that a single drink
does not reach, the act a bar names as what it bars, a vocabulary "over a person P on the field";
authority labels read word by word; one spelling for "licence" and "licensing"; a double denial, "I
can't remember the last time ... so much" and booking again read as praise; figures too close for a
contradiction when the question asks which one to use, and what the figure kept and the one it
replaces each rest on; hearsay that never opens an answer nor supports it; and a dated error line
asked for only where two changes need telling apart."""

from __future__ import annotations

from test_cc_dialectic_traps import _cc_case, _rule_case, _run
from test_panel_refinement_arbitration_traps import _REASONERS
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.text import authority_score, stem, terms
from debate_core.protocols.dialectic.agent.cues import cue_kind
from debate_core.protocols.panel.agent.sentiment import read_clause

# -- dialectic --------------------------------------------------------------------------------------

LANES = ("Predicates, all over a guest P at the door: guest(P): P is booked into the evening session; "
         "waiver_signed(P): P has signed the waiver; closed_shoes(P): P is wearing closed-toe shoes; "
         "had_a_drink(P): P has bought a drink at the bar; drunk(P): a coach judges P to be drunk.")
THROW = ("Knowledge gap: write one ASP rule defining may_throw(P) with the knowledge-base predicates, so that it "
         "agrees with the venue's house rules.")


def test_a_chat_message_sets_no_bar_and_a_limit_above_one_is_not_reached_by_one_drink(tmp_path):
    passages = [
        {"id": "HOUSE", "source": "House rules (fictitious)", "authority": "official", "date": "2026-01-05",
         "text": "Each thrower needs a signed waiver. Guests are welcome to a drink with their session, up to two "
                 "per person while they're throwing. Nobody throws who is drunk."},
        {"id": "CHAT", "source": "Message in a party's group chat (fictitious)", "authority": "group chat",
         "date": "2026-02-01", "text": "They won't let you throw if you've had a drink, so save it for after."}]
    verdict = _run(tmp_path, _rule_case("lanes", THROW, LANES, passages), "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1]
    assert "waiver_signed(P)" in rule, rule
    assert "had_a_drink" not in rule, rule


def test_sandals_not_allowed_so_wear_shoes_bars_the_sandals_not_the_shoes():
    assert cue_kind("Sandals and flip-flops aren't allowed near the lanes, so wear shoes that cover your toes.") == \
        "prohibition"
    assert cue_kind("Dogs are not permitted on the sand.") == "prohibition"


RUN = ("Predicates, all over a person P on the start field: participant(P): P is taking part that morning; "
       "with_dog(P): P wants to go round with a dog; short_lead(P): the dog is on a short lead; under_11(P): P is "
       "under 11 years old; first_timer(P): P has never run here before.")
DOGS = ("Knowledge gap: write one ASP rule defining may_run_with_dog(P) with the knowledge-base predicates, so that "
        "it matches the event's rules.")


def test_the_act_a_bar_names_is_the_rules_own_and_a_vocabulary_over_a_person_on_a_field_has_its_subject(tmp_path):
    passages = [
        {"id": "COURSE", "source": "Course page (fictitious)", "authority": "official", "date": "2026-01-01",
         "text": "Dogs must be kept on a short lead. Juniors under 11 have to stay with their adult, which is why "
                 "they can't take a dog."}]
    verdict = _run(tmp_path, _rule_case("dogs", DOGS, RUN, passages), "dialectic")
    rule = verdict["answer"].split("As an ASP rule:")[-1]
    assert "participant(P)" in rule and "short_lead(P)" in rule and "not under_11(P)" in rule, rule
    assert "not with_dog(P)" not in rule, rule


# -- reading the sources ----------------------------------------------------------------------------

def test_an_authority_label_in_words_of_its_own_is_read_by_its_words():
    assert authority_score("group chat") == authority_score("chat") <= 0.3
    assert authority_score("personal opinion") == authority_score("opinion")
    assert authority_score("government guidance") == authority_score("guidance")
    # What marks a text as no longer in force decides over the kind of text it is.
    assert authority_score("statute (repealed)") <= 0.3 < authority_score("statute")
    assert authority_score("council minutes") == 0.5


def test_british_and_american_spellings_are_one_term():
    assert stem("licence") == stem("licensing") == stem("licensed")
    assert terms("the town centre") == terms("the town center")
    assert stem("colour") == stem("color")


# -- panel ------------------------------------------------------------------------------------------

def test_a_double_denial_and_the_best_in_a_long_time_are_praise():
    assert read_clause("There wasn't a question she wasn't happy to answer.").polarity == "positive"
    assert read_clause("I can't remember the last time I learnt so much in one weekend.").polarity == "positive"
    # Without its "so" or "such" it says what no longer happens.
    assert read_clause("I can't remember the last time they cleaned the floor.").polarity == "negative"
    assert read_clause("Already booked for the spring one.").polarity == "positive"
    assert read_clause("Never once made me feel slow.").polarity == "positive"
    assert read_clause("Forty minutes in the queue for a putter.").polarity == "negative"


# -- arbitration ------------------------------------------------------------------------------------

def test_figures_too_close_for_a_contradiction_go_to_a_person_when_the_question_asks_which(tmp_path):
    reports = [
        {"agent": "Stats", "metric": "course_record", "value": 902, "unit": "seconds",
         "citation": "[Per extraction: 'Men: 15:02' from the statistics page]", "source": "Statistics page",
         "period": "to 2026", "confidence": 0.75, "interpretation": "the record is 15:02"},
        {"agent": "Team", "metric": "course_record", "value": 931, "unit": "seconds",
         "citation": "[Per extraction: 'the record is still 15:31' from the event team]", "source": "Event team",
         "period": "to 2026", "confidence": 0.85, "interpretation": "the record is 15:31"}]
    evidence = [
        {"id": "STATS", "source": "Statistics page (fictitious)", "authority": "website", "date": "2026-08-02",
         "text": "Fastest ever times. Men: 15:02."},
        {"id": "TEAM", "source": "Event team news (fictitious)", "authority": "official", "date": "2026-03-09",
         "text": "The men's course record is still 15:31."}]
    question = "The statistics page gives the course record as 15:02; the event team says 15:31. Which time is the record?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is True
    assert not verdict["answer"].startswith("The reports agree"), verdict["answer"]
    assert any("902 seconds and 931 seconds, 3.2% apart" in r for r in verdict["escalation_reasons"])
    assert "escalate.differ_under_threshold" in verdict["applied_rules"]

    # Asked for the figures, not to choose between them, close figures still agree.
    verdict = _run(tmp_path, _arbitration("What do the sources give as the course record?", reports, evidence),
                   "arbitration")
    assert verdict["answer"].startswith("The reports agree") and verdict["needs_human_review"] is False


# -- cross critique ---------------------------------------------------------------------------------

def test_hearsay_never_opens_a_cross_critique_answer(tmp_path):
    case = _cc_case("massage_licence", "Do I need a massage licence from the new council?", [
        {"id": "CHAT", "source": "Messages from two friends (fictitious)", "authority": "hearsay",
         "text": "Every council licenses massage now, you need a licence before you start."},
        {"id": "COUNCIL", "source": "District council licensing page (fictitious)", "authority": "official",
         "text": "We have no scheme for massage therapists; only acupuncture and tattooing are registered with us."}])
    verdict = _run(tmp_path, case, "cross_critique")
    assert not verdict["answer"].startswith("Every council"), verdict["answer"]
    assert "Messages from two friends]" not in verdict["answer"].split("Supporting points")[0], verdict["answer"]


def test_hearsay_is_no_supporting_point_and_a_forum_post_against_a_label_is_no_open_question(tmp_path):
    case = _cc_case("dolorex_child", "Can a child of eight be given Dolorex for a sprained knee?", [
        {"id": "LABEL", "source": "Dolorex product information (fictitious)", "authority": "official",
         "text": "Dolorex must not be given to children under 12 years of age, because of a rare liver reaction."},
        {"id": "FORUM", "source": "Sports forum post (fictitious)", "authority": "forum",
         "text": "Dolorex is safe for kids of any age at half the adult dose, and great for a sprained knee."},
        {"id": "GUIDE", "source": "Children's pain guidance (fictitious)", "authority": "secondary",
         "text": "For a minor sprain in a child, rest, ice and paracetamol at a weight-based dose come first."}])
    verdict = _run(tmp_path, case, "cross_critique")
    assert "safe for kids of any age" not in verdict["answer"], verdict["answer"]
    assert not any("which of its own sources prevails" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


# -- refinement -------------------------------------------------------------------------------------

def _bindery(changes: list[dict]) -> dict:
    return {"id": "bindery", "title": "fictitious", "protocol": "refinement",
            "question": "Since late September the (fictitious) bindery's notebooks come back with pages that will "
                        "not lie flat. What is the root cause, and how should it be fixed?",
            "domain_hint": "bookbinding incident; the bindery and its records are fictitious",
            "evidence": [*changes,
                         {"id": "M1", "source": "metrics: returns by job",
                          "text": "Returned for pages not lying flat: 37 of the 410 notebooks on the new paper, none "
                                  "of the 260 on the old paper."},
                         {"id": "K1", "source": "knowledge: paper grain",
                          "text": "When the grain of the paper runs across the spine, the pages resist opening and "
                                  "the spine ripples."}],
            "agents": _REASONERS}


PAPER = {"id": "C1", "source": "config: goods-in record, 18 September",
         "text": "Received 40 reams of a new short-grain paper from a new mill after our usual long-grain paper "
                 "was discontinued."}
GLUE = {"id": "C2", "source": "config: workshop change note, 16 September",
        "text": "On 16 September the spine glue was switched to a new PVA brand from a new supplier."}


def test_one_change_needs_no_dated_error_line_and_two_do(tmp_path):
    verdict = _run(tmp_path, _bindery([PAPER]), "refinement")
    assert not any("when the first anomaly happened" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
    # With two changes, which came just before the failure needs the failure's time.
    verdict = _run(tmp_path, _bindery([PAPER, GLUE]), "refinement")
    assert verdict["needs_human_review"] is True
    assert any("when the first anomaly happened" in r for r in verdict["escalation_reasons"])


# -- arbitration: what each figure rests on ---------------------------------------------------------

def test_the_figure_kept_and_the_one_it_replaces_are_told_with_what_each_rests_on(tmp_path):
    reports = [
        {"agent": "Handler", "metric": "compensation_share", "value": 25, "unit": "%",
         "citation": "[Per extraction: 'departed 1 h 50 min late' from the claims note]", "source": "Claims note",
         "period": "14 February 2026", "confidence": 0.8, "interpretation": "departure delay under two hours: 25% due"},
        {"agent": "Advocate", "metric": "compensation_share", "value": 50, "unit": "%",
         "citation": "[Per extraction: 'arrived 12:20, due 10:00' from the voyage record]", "source": "Voyage record",
         "period": "14 February 2026", "confidence": 0.8,
         "interpretation": "arrival delay of 2 h 20 min: 50% due"}]
    evidence = [
        {"id": "NOTE", "source": "Claims note (fictitious)", "authority": "internal", "date": "2026-02-20",
         "text": "Sailing departed 1 h 50 min behind schedule. Compensation share offered: 25% of the fare."},
        {"id": "VOYAGE", "source": "Voyage record (fictitious)", "authority": "official", "date": "2026-02-14",
         "text": "Scheduled arrival 10:00, actual arrival 12:20. Compensation share for an arrival delay of two hours "
                 "or more: 50% of the fare."}]
    question = "What compensation share of the fare is due for the delay?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert "'arrival delay of 2 h 20 min: 50% due' against 'departure delay under two hours: 25% due'" in \
        verdict["answer"], verdict["answer"]
