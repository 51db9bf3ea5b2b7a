"""Each driven through the CLI on a case written here: a count is exact, so two counts of one thing
that differ do not agree, however small the gap next to the threshold the arbitration protocol sets
for measured figures; "how long", "how hot" ask for one measure; a yes-or-no question joined to the
one about figures is answered or goes to a person; a committee that "will decide ... at its meeting"
holds the point open; "without a licence or any other permit?" still asks for a yes or a no, as does
"As of 20 February, can she open?"; a reader asking "was that a complaint or a rave?" leaves a
text's meaning open; a figure "unchanged since" an older survey is a figure for the later period
too; and a rule that leaves out two predicates the passages speak of in sentences no rule word
reads goes to a person."""

from __future__ import annotations

from test_cc_dialectic_traps import _cc_case, _run
from test_held_open_points_and_dated_months import _solo_case
from test_panel_aspect_quotes import _one_text, _verdict
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.text import states_doubt
from debate_core.protocols.cross_critique.answer_rules import asks_yes_or_no

REPORTS = [
    {"agent": "Club", "metric": "heath_2026_bird_species", "value": 58, "unit": "species",
     "citation": "[Per extraction: 'we logged 58 species this year' from the club newsletter]",
     "source": "Club newsletter", "period": "2026", "confidence": 0.8, "interpretation": "58 species in 2026"},
    {"agent": "Atlas", "metric": "heath_2026_bird_species", "value": 57, "unit": "species",
     "citation": "[Per extraction: '57 species for the heath in 2026' from the county atlas]",
     "source": "County atlas", "period": "2026", "confidence": 0.8, "interpretation": "57 species in 2026"}]
EVIDENCE = [
    {"id": "CLUB", "source": "Club newsletter (fictitious)", "authority": "newsletter", "date": "2026-12-01",
     "text": "What a year: we logged 58 species on the heath this year."},
    {"id": "ATLAS", "source": "County bird atlas (fictitious)", "authority": "official", "date": "2026-12-03",
     "text": "Verified records: 57 species for the heath in 2026."}]


def test_two_counts_one_apart_go_to_a_person_when_the_question_asks_how_many(tmp_path):
    question = "The club says 58 species were seen on the heath in 2026; the atlas has 57. How many species were seen?"
    verdict = _run(tmp_path, _arbitration(question, REPORTS, EVIDENCE), "arbitration")
    assert verdict["needs_human_review"] is True
    assert not verdict["answer"].startswith("The reports agree"), verdict["answer"]
    assert "escalate.counts_differ" in verdict["applied_rules"]
    assert any("count 57 and 58" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_close_measured_figures_and_counts_of_something_else_still_agree(tmp_path):
    # Asked how many birds, not species: the reports' unit is not what the question counts.
    verdict = _run(tmp_path, _arbitration("How many birds nest on the heath?", REPORTS, EVIDENCE), "arbitration")
    assert "escalate.counts_differ" not in verdict["applied_rules"]
    # Measured figures a little apart are a rounding matter, not a count.
    measured = [dict(r, value=v, unit="kg", metric="heath_2026_hay_weight")
                for r, v in zip(REPORTS, (58.1, 57.9), strict=True)]
    verdict = _run(tmp_path, _arbitration("How many kg of hay came off the heath?", measured, EVIDENCE),
                   "arbitration")
    assert "escalate.counts_differ" not in verdict["applied_rules"]
    assert verdict["answer"].startswith("The reports agree"), verdict["answer"]


def test_how_long_asks_for_one_figure_and_two_figures_valid_in_their_own_periods_do_not_answer_it(tmp_path):
    reports = [
        {"agent": "Guide", "metric": "pier_length", "value": 380, "unit": "m",
         "citation": "[Per extraction: 'the pier opened at 380 m long' from the town guide]", "source": "Town guide",
         "period": "1902", "confidence": 0.8, "interpretation": "the pier is 380 m long"},
        {"agent": "Survey", "metric": "pier_length", "value": 512, "unit": "m",
         "citation": "[Per extraction: 'the pier measures 512 m' from the 2026 survey]", "source": "Survey",
         "period": "2026", "confidence": 0.8, "interpretation": "the pier is 512 m long"}]
    evidence = [
        {"id": "GUIDE", "source": "Town guide (fictitious)", "authority": "guide", "date": "2025-05-01",
         "text": "When it opened in 1902 the pier was 380 m long."},
        {"id": "SURVEY", "source": "Structural survey (fictitious)", "authority": "official", "date": "2026-04-01",
         "text": "After the 1931 extension the pier measures 512 m from the promenade to the end of the deck."}]
    verdict = _run(tmp_path, _arbitration("How long is the pier?", reports, evidence), "arbitration")
    assert "escalate.one_figure_asked" in verdict["applied_rules"], verdict
    assert verdict["needs_human_review"] is True
    # Asked for each figure in its own period, both standing answers it.
    verdict = _run(tmp_path, _arbitration("What lengths do the sources give for the pier, and when?", reports,
                                          evidence), "arbitration")
    assert "escalate.one_figure_asked" not in verdict["applied_rules"], verdict


def test_a_rule_that_leaves_out_two_predicates_the_passages_speak_of_unread_goes_to_a_person(tmp_path):
    unread = ("Only members may fly solo. Pilots must be 14 or over. Solo flying without a medical declaration "
              "on file? Never. Get signed off by the duty instructor before each solo, every day. Club "
              "parachutes are in every glider.")
    verdict = _run(tmp_path, _solo_case("solo-two-unread", unread), "dialectic")
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if "predicates the rule leaves out" in r)
    assert "2 predicates the rule leaves out (medical_ok, signed_off)" in reason, reason


def test_a_yes_or_no_part_of_the_question_the_figures_leave_unanswered_goes_to_a_person(tmp_path):
    reports = [
        {"agent": "Sheet", "metric": "best_catch", "value": 62.2, "unit": "metres",
         "citation": "[Per extraction: 'best catch 62.2 m' from the results sheet]", "source": "Results sheet",
         "period": "7 June 2026", "confidence": 0.8, "interpretation": "the best catch was 62.2 m"},
        {"agent": "News", "metric": "best_catch", "value": 68, "unit": "yards",
         "citation": "[Per extraction: 'an astonishing 68 yards' from the newsletter]", "source": "Newsletter",
         "period": "7 June 2026", "confidence": 0.6, "interpretation": "the best catch was 68 yards"}]
    evidence = [
        {"id": "SHEET", "source": "Results sheet (fictitious)", "authority": "official", "date": "2026-06-07",
         "text": "Pairs: best catch 62.2 m."},
        {"id": "NEWS", "source": "Village newsletter (fictitious)", "authority": "newsletter", "date": "2026-06-20",
         "text": "They sent their egg an astonishing 68 yards."},
        {"id": "BOOK", "source": "Record book (fictitious)", "authority": "official", "date": "2025-01-01",
         "text": "Pairs record: 65 yards (59.4 m), set in 2019."}]
    question = "How long was the winning catch, and is it a championship record?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert "escalate.part_unanswered" in verdict["applied_rules"], verdict
    assert verdict["needs_human_review"] is True
    assert any('also asks "is it a championship record?"' in r for r in verdict["escalation_reasons"])

    # Where the arbiter rules between two readings that speak to that part, the answer quotes them.
    said = [dict(reports[0], citation="[Per extraction: 'best catch 62.2 m - new championship record' from the "
                                      "results sheet]"),
            dict(reports[1], value=56, unit="metres", interpretation="the best catch was 56 m, short of the record",
                 citation="[Per extraction: 'a catch of 56 m, short of the record' from the newsletter]")]
    verdict = _run(tmp_path, _arbitration(question, said, evidence), "arbitration")
    assert "escalate.part_unanswered" not in verdict["applied_rules"], verdict


def test_a_decision_still_to_be_taken_at_a_meeting_holds_the_point_open(tmp_path):
    assert states_doubt("The committee will decide how to treat the flagged votes at its meeting on 24 June.")
    assert not states_doubt("The committee decided at its meeting on 24 June to count every vote.")
    reports = [
        {"agent": "Export", "metric": "forno_lupo_votes", "value": 412, "unit": "votes",
         "citation": "[Per extraction: 'Forno Lupo 412' from the form export]", "source": "Form export",
         "period": "June 2026", "confidence": 0.8, "interpretation": "Forno Lupo has 412 votes"},
        {"agent": "Officer", "metric": "forno_lupo_votes", "value": 351, "unit": "votes",
         "citation": "[Per extraction: 'without the 61 flagged votes, 351' from the officer's note]",
         "source": "Events officer", "period": "June 2026", "confidence": 0.6,
         "interpretation": "without the flagged votes Forno Lupo has 351 votes"}]
    evidence = [
        {"id": "EXPORT", "source": "Form export (fictitious)", "authority": "official", "date": "2026-06-15",
         "text": "Votes after repeated addresses were removed: Forno Lupo 412, Crust Fund 398."},
        {"id": "OFFICER", "source": "Events officer's note (fictitious)", "authority": "staff", "date": "2026-06-16",
         "text": "61 Forno Lupo votes came from one disposable email service; without them Forno Lupo has 351 votes."},
        {"id": "COMMITTEE", "source": "Committee email (fictitious)", "authority": "official", "date": "2026-06-17",
         "text": "The committee will decide how to treat the flagged votes at its meeting on 24 June."}]
    verdict = _run(tmp_path, _arbitration("How many votes did Forno Lupo get?", reports, evidence), "arbitration")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("COMMITTEE says the point is still open") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_reader_asking_which_way_a_text_was_meant_sends_it_to_a_person(tmp_path):
    text = "Four hours at the milonga and I danced exactly two tandas. The floor was packed, exactly what I asked for."
    case = _one_text("milonga_post", "Milonga post", "post on an event page", text,
                     "Post on the event page (fictitious)")
    case["evidence"].append({"id": "T2", "source": "Comments under the post (fictitious)", "authority": "comments",
                             "text": "See you next month / Jo, was that a complaint or a rave?"})
    verdict = _verdict(tmp_path, case)
    assert verdict["needs_human_review"] is True, verdict["answer"]
    assert any('a reader in T2 asks "Jo, was that a complaint or a rave?"' in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_or_any_other_widens_a_yes_or_no_question_without_offering_a_second_answer(tmp_path):
    question = "We run a dance in a church hall. Can we sell wine at it without a Temporary Event Notice or any other licence?"
    assert asks_yes_or_no(question)
    assert not asks_yes_or_no("Do we need a Temporary Event Notice or a premises licence?")
    # An opening phrase before the question ("As of 20 February, can ...") does not hide it.
    assert asks_yes_or_no("As of 20 February, can Jade open the nail bar on 2 March?")
    assert not asks_yes_or_no("As of 20 February, which licence does Jade need?")
    case = _cc_case("hall_wine", question, [
        {"id": "ACT", "source": "Licensing Act 2003, as commonly summarised (public fact, paraphrased)",
         "authority": "statute", "text": "Selling alcohol is a licensable activity; premises without a licence need a "
                                         "Temporary Event Notice for each event at which alcohol is sold."},
        {"id": "FRIEND", "source": "Message from a friend (fictitious)", "authority": "friend",
         "text": "Church halls are exempt, you don't need anything."}])
    verdict = _run(tmp_path, case, "cross_critique")
    assert verdict["answer"].lower().startswith(("yes", "no")) or "yes_no_unanswered" in verdict["applied_rules"], \
        verdict


def test_a_figure_unchanged_since_an_older_survey_is_not_valid_for_another_period_only(tmp_path):
    from debate_core.protocols.arbitration.agent import still_holds

    assert still_holds("2019 survey, track unchanged since", "2026")
    assert not still_holds("2019 survey", "2026")
    assert not still_holds("2026 survey, unchanged since", "2019")
    reports = [
        {"agent": "Leaflet", "metric": "railway_track_length", "value": 176, "unit": "m",
         "citation": "[Per extraction: 'a 176 m ride' from the leaflet]", "source": "Visitor leaflet",
         "period": "2026", "confidence": 0.6, "interpretation": "the track is 176 m long"},
        {"agent": "Survey", "metric": "railway_track_length", "value": 212, "unit": "m",
         "citation": "[Per extraction: 'track length 212 m' from the survey]", "source": "Engineering survey",
         "period": "2019 survey, track unchanged since", "confidence": 0.8,
         "interpretation": "the track is 212 m long"}]
    evidence = [
        {"id": "LEAFLET", "source": "Visitor leaflet (fictitious)", "authority": "leaflet", "date": "2026-03-01",
         "text": "Enjoy a 176 m ride up the cliff."},
        {"id": "SURVEY", "source": "Engineering survey (fictitious)", "authority": "official", "date": "2019-06-01",
         "text": "Track length 212 m measured along the rails. The track has not been altered since."}]
    verdict = _run(tmp_path, _arbitration("How long is the railway's track?", reports, evidence), "arbitration")
    assert "each in its own context" not in verdict["answer"], verdict["answer"]
    assert "consensus.both_valid_with_context" not in verdict["applied_rules"], verdict["applied_rules"]


def test_reports_that_agree_answer_whether_the_sources_disagree(tmp_path):
    reports = [
        {"agent": "Leaflet", "metric": "canal_length_restored", "value": 2.4, "unit": "miles",
         "citation": "[Per extraction: '2.4 miles restored' from the leaflet]", "source": "Trust leaflet",
         "period": "February 2026", "confidence": 0.7, "interpretation": "2.4 miles are restored"},
        {"agent": "Council", "metric": "canal_length_restored", "value": 3.9, "unit": "km",
         "citation": "[Per extraction: '3.9 km restored' from the council report]", "source": "Council report",
         "period": "February 2026", "confidence": 0.8, "interpretation": "3.9 km are restored"}]
    evidence = [
        {"id": "LEAFLET", "source": "Trust leaflet (fictitious)", "authority": "charity", "date": "2026-02-01",
         "text": "2.4 miles of the canal are restored to navigation."},
        {"id": "COUNCIL", "source": "Council report (fictitious)", "authority": "official", "date": "2026-02-01",
         "text": "Length restored to navigation: 3.9 km."}]
    question = "How long is the length restored, and do the two sources disagree?"
    verdict = _run(tmp_path, _arbitration(question, reports, evidence), "arbitration")
    assert verdict["answer"].startswith("The reports agree"), verdict["answer"]
    assert "escalate.part_unanswered" not in verdict["applied_rules"], verdict["escalation_reasons"]
    assert verdict["needs_human_review"] is False
