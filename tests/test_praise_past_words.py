"""Praise past what words can carry ("can't recommend them enough") and a denial opening its clause
("never make you feel rushed", "not one thing has been broken") are read as the praise they are.
Driven through the CLI on a review written here (fictitious)."""

from __future__ import annotations

from test_panel_aspect_quotes import _one_text, _verdict

from debate_core.protocols.panel.agent.sentiment import compound, read_clause


def test_praise_past_words_is_praise():
    assert compound("Can't recommend the Larkfield Toy Library enough.") > 0
    assert compound("We can't praise the nurses highly enough.") > 0
    assert compound("I can't recommend it, not enough staff.") < 0


def test_a_denial_opening_its_clause_reaches_what_it_denies():
    assert read_clause("The volunteers never make you feel rushed").polarity == "positive"
    assert read_clause("Not one thing has been broken").polarity == "positive"
    assert read_clause("The volunteers rushed us out").polarity == "negative"


def test_a_recommendation_told_in_denials_is_positive(tmp_path):
    text = ("Can't recommend the Larkfield Toy Library enough. The volunteers never make you feel rushed. "
            "Not one thing we've borrowed has been broken.")
    case = _one_text("toy_library", "Toy library recommendation", "recommendation", text,
                     "Recommendation of a toy library (fictitious)")
    verdict = _verdict(tmp_path, case)
    assert verdict["answer"].startswith("The overall sentiment is positive"), verdict["answer"]


def test_not_what_i_pictured_is_said_in_praise_and_in_disappointment_alike(tmp_path):
    from debate_core.protocols.panel.agent.sentiment import double_edged
    assert double_edged("Not what I pictured when I asked for something special.") is not None
    assert double_edged("Not what we expected at all.") is not None
    assert double_edged("Exactly what I pictured.") is None
    text = "Well, that's a bold frame. Not what I pictured when I said 'something a bit special'. Collecting Saturday."
    case = _one_text("frame_comment", "Comment on a frame", "comment", text, "Comment on a framing shop's post (fictitious)")
    verdict = _verdict(tmp_path, case)
    assert verdict["needs_human_review"] is True
    assert any("Not what I pictured" in r and "said both ways" in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_worry_the_text_says_came_to_nothing_is_shown_as_no_complaint(tmp_path):
    from debate_core.protocols.panel.rules.verdict import unfounded_worries
    assert unfounded_worries("I was nervous about the needle, but I needn't have worried.") == \
        ["I was nervous about the needle, but I needn't have worried"]
    assert unfounded_worries("I was worried the room would be cold. It was.") == []
    text = ("I dreaded walking into the Larkfield dental practice. I needn't have. The dentist was gentle and "
            "explained every step.")
    case = _one_text("dentist", "Dentist review", "review", text, "Review of a dental practice (fictitious)")
    case["signals"] = {"text": text, "language": "en", "aspect_terms": ["dentist"],
                       "stage1_ate": {"label": "negative", "confidence": 0.6},
                       "stage1_atsa": {"aspect_sentiments": [{"aspect": "dentist", "polarity": "positive",
                                                              "confidence": 0.8}]}}
    answer = _verdict(tmp_path, case)["answer"]
    assert 'A worry the text says came to nothing, no complaint: "I dreaded walking into the Larkfield dental ' \
           "practice. I needn't have\"" in answer, answer


def test_a_worry_that_came_to_nothing_is_no_complaint_in_a_sentence_read_alone(tmp_path):
    text = ("I dreaded walking into the Larkfield dental practice. I needn't have. The dentist was gentle and "
            "explained every step.")
    case = _one_text("dentist_alone", "Dentist review", "review", text, "Review of a dental practice (fictitious)")
    assert _verdict(tmp_path, case)["answer"].startswith("The overall sentiment is positive")
