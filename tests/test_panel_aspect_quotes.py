"""A panel verdict shows, for each aspect, the words of the text under review that carry it, so a
reviewer checks the reading against the text instead of taking a bare "tutor positive" on trust.
Driven through the CLI on a review written here (fictitious), and through the rule itself."""

from __future__ import annotations

import json
import re

from test_cli import cli

from debate_core.engine.checks import answer_copies_a_passage
from debate_core.protocols.panel.agent.missing import refers_elsewhere
from debate_core.protocols.panel.rules import aspect_quotes

REVIEW = ("At the Wrenfold Pottery Barn our tutor never once made me feel clumsy, even when my third bowl "
          "collapsed on the wheel in front of everyone. The kiln firing took two weeks longer than promised, but "
          "the glazes were gorgeous.")


def _case() -> dict:
    return {
        "id": "pottery-evening-review", "title": "Pottery evening review (fictitious studio)",
        "protocol": "panel", "domain_hint": "sentiment of a class review; the studio is fictitious",
        "question": f'What is the overall sentiment (positive, negative, neutral or mixed) of this review: "{REVIEW}"? '
                    "And the sentiment towards each aspect (tutor, firing, glazes, parking)?",
        "evidence": [{"id": "R1", "source": "Review on the studio's booking page (fictitious)", "authority": "primary",
                      "text": REVIEW}],
        "signals": {
            "text": REVIEW, "language": "en", "aspect_terms": ["tutor", "firing", "glazes", "parking"],
            "stage1_ate": {"label": "mixed", "confidence": 0.7},
            "stage1_atsa": {"aspect_sentiments": [
                {"aspect": "tutor", "polarity": "positive", "confidence": 0.7},
                {"aspect": "firing", "polarity": "negative", "confidence": 0.8},
                {"aspect": "glazes", "polarity": "positive", "confidence": 0.8},
                {"aspect": "parking", "polarity": "neutral", "confidence": 0.5}]},
        },
    }


def _verdict(tmp_path, case: dict) -> dict:
    """The verdict of the panel on `case`, run through the CLI."""
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    proc = cli("run", str(path), "--protocol", "panel", "--json", db=tmp_path / "d.db", check=True)
    return json.loads(proc.stdout)["verdict"]


def _one_text(case_id: str, title: str, kind: str, text: str, source: str) -> dict:
    """A panel case asking the overall sentiment of one text, its only passage."""
    return {"id": case_id, "title": title, "protocol": "panel",
            "question": f'What is the overall sentiment (positive, negative, neutral or mixed) of this {kind}: "{text}"?',
            "evidence": [{"id": "T1", "source": source, "authority": "primary", "text": text}]}


def test_each_aspect_is_shown_with_the_words_that_carry_it(tmp_path):
    answer = _verdict(tmp_path, _case())["answer"]
    words = answer.split("In the text's words: ", 1)[1]
    # The negation that makes the tutor's aspect praise is quoted, cut short with an ellipsis.
    assert 'tutor: "\u2026Wrenfold Pottery Barn our tutor never once made me feel clumsy, even\u2026"' in words
    assert '"The kiln firing took two weeks longer than promised"' in words
    assert 'glazes: "but the glazes were gorgeous."' in words
    # An aspect the text never names gets no quote to stand behind its reading.
    assert "parking:" not in words
    # A quote is a quote, not the review restated.
    assert answer_copies_a_passage(answer, [{"id": "R1", "text": REVIEW}]) is None


def test_a_long_clause_is_cut_around_the_aspect_and_an_inflected_form_finds_it():
    text = ("The two movers arrived on time and wrapped every chair carefully, and then at the end of the "
            "day billed us for three hours they spent sitting in the van outside.")
    quotes = aspect_quotes(text, ["billing", "tables"])
    assert quotes == {"billing": "\u2026end of the day billed us for three hours they spent sitting\u2026"}
    assert len(quotes["billing"].split()) == 12


def test_an_aspect_the_review_names_in_its_own_words_is_shown_under_the_aspect_asked_about(tmp_path):
    review = "Kev on the till sorted my refund in two minutes, lovely man, but the drill bits were blunt after one job."
    case = {
        "id": "tool-shop-review", "title": "Tool shop review (fictitious shop)", "protocol": "panel",
        "domain_hint": "sentiment of a shop review; the shop and its staff are fictitious",
        "question": f'What is the overall sentiment (positive, negative, neutral or mixed) of this review: "{review}"? '
                    "And the sentiment towards each aspect (staff, product)?",
        "evidence": [{"id": "R1", "source": "Review on the shop's page (fictitious)", "authority": "primary",
                      "text": review}],
        "signals": {
            "text": review, "language": "en", "aspect_terms": ["staff", "product"],
            "synonym_hints": {"staff": ["Kev"], "product": ["drill bits"]},
            "stage1_ate": {"label": "mixed", "confidence": 0.7},
            "stage1_atsa": {"aspect_sentiments": [
                {"aspect": "staff", "polarity": "positive", "confidence": 0.7},
                {"aspect": "product", "polarity": "negative", "confidence": 0.7}]},
        },
    }
    answer = _verdict(tmp_path, case)["answer"]
    assert answer.startswith("The overall sentiment is mixed: staff (Kev) positive; product (drill bits) negative."), answer
    assert 'staff (Kev): "' in answer


def test_something_else_is_said_in_delight_and_in_dismay_alike(tmp_path):
    review = "The fire eater at Rosie's party was certainly something else. The face painter was lovely."
    verdict = _verdict(tmp_path, _one_text("party-review", "Party entertainers review (fictitious troupe)", "review",
                                           review, "Review on the troupe's page, no rating (fictitious)"))
    assert verdict["needs_human_review"] is True
    assert any('"Rosie\'s party was certainly something else" is praise or irony' in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_placeholder_for_content_the_panel_cannot_see_goes_to_a_person(tmp_path):
    comment = "First climbing taster done. Our instructor said it would be easy. [GIF] Arms have gone."
    verdict = _verdict(tmp_path, _one_text("climbing-comment", "Climbing taster comment (fictitious wall)", "comment",
                                           comment, "Comment under the wall's post, as exported (fictitious)"))
    assert verdict["needs_human_review"] is True
    assert any('what "[GIF]" shows: the text holds content the panel cannot see' in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


def test_a_post_that_says_readers_of_an_earlier_one_know_how_its_author_feels_rests_on_that_one():
    post = ("Archery taster, round two. Anyone who read what I put on here after the first one knows exactly how "
            "I feel about tonight: same coach, same range, same result.")
    assert refers_elsewhere(post).startswith("the sentiment it takes from an earlier review, not under review")
    assert refers_elsewhere("Archery taster, round two. Same coach, same range, lovely evening.") is None


def test_replies_that_take_the_text_both_ways_send_it_to_a_person(tmp_path):
    text = "Congratulations to the Reds on a truly memorable final. That last goal will be talked about for years."
    case = _one_text("cup_final_post", "Cup final post", "post by a fan of the losing side", text,
                     "Post on the winning club's page (fictitious)")
    case["evidence"].append({"id": "T2", "source": "Comments under the post (fictitious)", "authority": "comments",
                             "text": "'Lovely words, gracious as ever' / 'He was furious in the pub after, awful "
                                     "sulk' / 'Say what you mean'"})
    verdict = _verdict(tmp_path, case)
    assert verdict["needs_human_review"] is True, verdict["answer"]
    assert any("the replies in T2 take it both ways" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_passage_whose_writer_cannot_tell_how_the_text_was_meant_sends_it_to_a_person(tmp_path):
    text = "Well. That was a weekend. Learnt a lot about myself. Thanks Sam."
    case = _one_text("kiln_weekend_message", "Kiln weekend message", "message in a course group", text,
                     "Message in the course group (fictitious)")
    case["evidence"].append({"id": "T2", "source": "Note from the tutor (fictitious)", "authority": "organiser",
                             "text": "She has not answered my message. I don't know her well enough to guess."})
    verdict = _verdict(tmp_path, case)
    assert verdict["needs_human_review"] is True, verdict["answer"]
    assert any("T2 says \"She has not answered my message. I don't know her well enough to guess.\"" in r
               for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_the_reviewers_own_rating_is_shown_with_the_label(tmp_path):
    text = ("Not once did Ana make me feel like the slow one, and by four we were all playing together. "
            "The hall was cold. Rated 5 of 5.")
    case = _one_text("ukulele_day", "Ukulele day review", "review", text, "Review (fictitious)")
    case["signals"] = {"text": text, "language": "en", "aspect_terms": ["tutor", "hall"], "synonym_hints": {},
                       "stage1_ate": {"label": "positive", "confidence": 0.6},
                       "stage1_atsa": {"aspect_sentiments": [
                           {"aspect": "tutor", "polarity": "positive", "confidence": 0.6},
                           {"aspect": "hall", "polarity": "negative", "confidence": 0.6}]}}
    answer = _verdict(tmp_path, case)["answer"]
    assert re.match(r"The overall sentiment is \w+ \(the reviewer's own rating: 5 of 5\): ", answer), answer
