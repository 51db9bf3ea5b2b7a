"""The offline panel reads sentiment: VADER (the vaderSentiment package) on each clause, failures a
clause reports without a sentiment word, negation, contrast, aspects of opposite polarity, and a
sentence label named (or said to be unassessable) when the case has no stage signals."""

from __future__ import annotations

import json

from test_cli import cli

from debate_core.core.cases import parse_case
from debate_core.jobs.debates import run_debate
from debate_core.protocols.panel.agent.reading import clauses
from debate_core.protocols.panel.agent.sentiment import clause_polarity, read_clause

MIXED = ("The room was spotless and the staff were lovely, but the wifi dropped every ten minutes "
         "and breakfast was not worth the price.")


def _case(sentence: str, aspects: list[str] | None = None) -> dict:
    question = f'What is the overall sentiment (positive, negative, neutral or mixed) of the review sentence "{sentence}"'
    question += f", and what is the sentiment towards each aspect ({', '.join(aspects)})?" if aspects else "?"
    return {"id": "reading-test", "title": "A review sentence", "protocol": "panel", "question": question,
            "evidence": [{"id": "E1", "source": "customer review", "text": sentence}]}


def _run(tmp_path, case: dict) -> dict:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    proc = cli("run", str(path), "--protocol", "panel", "--json", db=tmp_path / "d.db", check=True)
    return json.loads(proc.stdout)["verdict"]


# --- clause readings -----------------------------------------------------------------------------

def test_vader_reads_negation_intensifiers_and_capitals():
    assert clause_polarity("the food was good")[0] == "positive"
    assert clause_polarity("the food was not good")[0] == "negative"
    assert read_clause("the food was VERY GOOD").compound > read_clause("the food was good").compound
    assert clause_polarity("the parcel came on a tuesday") == ("neutral", [])


def test_a_reported_failure_reads_negative_without_a_sentiment_word():
    got = read_clause("the wifi dropped every ten minutes")
    assert (got.polarity, got.source) == ("negative", "event") and "dropped" in got.cues
    assert clause_polarity("the printer stopped working after a month")[0] == "negative"
    # A verb of doing what was expected, negated, is a failure; the aspect's own name is not scored.
    assert clause_polarity("support never answered my emails", frozenset({"support"}))[0] == "negative"
    assert clause_polarity("the courier did not arrive")[0] == "negative"
    # A failure denied reads the other way, as VADER turns a negated negative word.
    assert clause_polarity("the app has not crashed once")[0] == "positive"


def test_praise_next_to_a_failure_in_one_clause_is_not_read():
    got = read_clause("Wonderful, the update wiped my photos and corrupted the backup!")
    assert got.source == "conflict" and not got.read
    assert clause_polarity("Wonderful, the update wiped my photos and corrupted the backup!") == ("neutral", [])


def test_contrast_words_split_clauses_including_an_opening_although():
    def parts(text):
        return [c.rstrip(".") for c in clauses(text)]
    assert parts("The lens is sharp, however the autofocus hunts.") == ["The lens is sharp", "the autofocus hunts"]
    assert parts("Although the hall was cold, the band was brilliant.") == ["the hall was cold",
                                                                            "the band was brilliant"]
    assert parts("The view was great. But the bed sagged.")[-1] == "the bed sagged"


# --- through the CLI -----------------------------------------------------------------------------

def test_a_mixed_review_with_negation_and_a_failure_event_is_mixed_with_its_aspects_right(tmp_path):
    verdict = _run(tmp_path, _case(MIXED, ["room", "staff", "wifi", "breakfast"]))
    answer = verdict["answer"]
    assert answer.startswith("The overall sentiment is mixed:")
    assert "room, staff positive" in answer and "wifi, breakfast negative" in answer


def test_the_panel_agrees_on_the_aspects_the_text_gives_whatever_its_stances():
    case = parse_case(_case(MIXED, ["room", "staff", "wifi", "breakfast"]))
    summary = run_debate(case, "panel").result["summary"]
    assert summary["key_disagreements"] == []
    assert any(a.startswith("staff: positive") for a in summary["key_agreements"])
    assert any(a.startswith("wifi: negative") for a in summary["key_agreements"])


def test_without_aspects_the_mixed_sentence_gets_a_label_not_a_repeated_quote(tmp_path):
    verdict = _run(tmp_path, _case(MIXED))
    assert verdict["answer"].startswith("The overall sentiment is mixed:")
    assert "The panel agrees" not in verdict["answer"]
    assert "the wifi dropped every ten minutes" in verdict["answer"]


def test_a_plain_positive_and_a_plain_negative_sentence_without_signals_name_their_label(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "n").mkdir()
    # One sentiment word ("patient"; VADER's lexicon has no "breathtaking"): positive, and weakly read,
    # so a reviewer confirms it (sentence.py WEAK_READING).
    pos = _run(tmp_path / "p", _case("The guide was patient and the views were breathtaking."))
    assert pos["answer"].startswith("The overall sentiment is positive")
    assert pos["needs_human_review"]
    assert any("its words carry little sentiment (VADER reads +0.46" in r for r in pos["escalation_reasons"])
    # Reported failures read the negative one, whatever the lexicon's score: it stands alone.
    neg = _run(tmp_path / "n", _case("The handle snapped off on the first day and the seller refused a refund."))
    assert neg["answer"].startswith("The overall sentiment is negative")
    assert not neg["needs_human_review"]


def test_an_ironic_sentence_is_flagged_naming_what_could_not_be_read(tmp_path):
    sentence = "Wonderful, the update wiped my photos and corrupted the backup!"
    verdict = _run(tmp_path, _case(sentence))
    assert verdict["needs_human_review"]
    reasons = " ".join(verdict["escalation_reasons"])
    assert "could not assess" in reasons and "ironic" in reasons
    assert "ironic" in reasons and "exclamations of praise" in reasons
    assert "sentiment is positive" not in verdict["answer"]


def test_a_sentence_with_nothing_to_read_is_flagged_not_guessed(tmp_path):
    verdict = _run(tmp_path, _case("We picked up the keys at noon on Friday."))
    assert verdict["needs_human_review"]
    assert "could not assess" in " ".join(verdict["escalation_reasons"])
    assert "no sentiment word, rating or reported failure" in " ".join(verdict["escalation_reasons"])
    assert not any(f"sentiment is {label}" in verdict["answer"] for label in ("positive", "negative", "mixed"))
