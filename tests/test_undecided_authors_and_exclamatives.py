"""A review whose author says they have not made up their mind, and praise said aloud as an
exclamative ("What a bargain.") next to complaints: the panel's reading leaves both open for a
person. Driven through the CLI on reviews written here (fictitious)."""

from __future__ import annotations

from test_panel_aspect_quotes import _one_text, _verdict

from debate_core.protocols.panel.agent.reading import exclaims


def test_an_author_who_does_not_know_what_to_think_leaves_the_review_open(tmp_path):
    text = ("Drove an hour to find the tour cancelled and nobody answering the phone. One star. EDIT: the owner "
            "rang me and told me what happened that day. I honestly don't know what to think now.")
    verdict = _verdict(tmp_path, _one_text("farm_tour_review", "Farm tour review", "review", text,
                                           "Review on a days-out site (fictitious farm)"))
    assert verdict["needs_human_review"] is True
    assert any('how its author now feels: the text says "I honestly don\'t know what to think now."' in r
               for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]

    plain = "Drove an hour to find the tour cancelled and nobody answering the phone. One star."
    verdict = _verdict(tmp_path, _one_text("farm_tour_plain", "Farm tour review", "review", plain,
                                           "Review on a days-out site (fictitious farm)"))
    assert not any("how its author now feels" in r for r in verdict["escalation_reasons"])


def test_an_exclamative_of_praise_next_to_complaints_is_read_as_possible_irony(tmp_path):
    assert exclaims("What a bargain.") and exclaims("Lovely!") and exclaims("How kind.")
    assert not exclaims("What a bargain the early-bird tickets turned out to be for the whole family.")
    assert not exclaims("The staff were lovely.")
    text = ("The lake itself is pretty. The rudder on our boat jammed twice and the lad on the jetty ignored us. "
            "£20 for half an hour of going round in circles. What a bargain.")
    case = _one_text("boat_hire_review", "Boat hire review", "review", text, "Review on a hire site (fictitious lake)")
    case["question"] += " And what is the sentiment towards each aspect (lake, boat, staff, price)?"
    case["signals"] = {
        "text": text, "language": "en", "aspect_terms": ["lake", "boat", "staff", "price"],
        "synonym_hints": {"boat": ["rudder"], "staff": ["lad on the jetty"], "price": ["£20", "What a bargain"]},
        "stage1_ate": {"aspects": ["lake", "boat", "staff", "price"]},
        "stage1_atsa": {"aspect_sentiments": [
            {"aspect": "lake", "polarity": "positive"}, {"aspect": "boat", "polarity": "negative"},
            {"aspect": "staff", "polarity": "negative"}, {"aspect": "price", "polarity": "positive"}]}}
    verdict = _verdict(tmp_path, case)
    assert verdict["needs_human_review"] is True, verdict["answer"]
    assert any("whether the text is ironic or sarcastic" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]
