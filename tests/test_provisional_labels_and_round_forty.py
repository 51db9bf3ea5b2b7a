"""A panel label that rests on a point the panel could not assess (how a text was meant, which way a
review leans) is said to be provisional in the answer's opening, not only in the list at its end.
Driven through the CLI on cases written here (fictitious)."""

from __future__ import annotations

from test_panel_aspect_quotes import _one_text, _verdict

from debate_core.protocols.panel.rules import label_doubts

_LIFT_TEXT = "Lift out again this morning. Fastest yet - 25 minutes. We're on first-name terms with the engineers now."


def test_a_label_resting_on_how_the_text_was_meant_is_provisional(tmp_path):
    case = _one_text("lift_review", "Lift firm review", "review", _LIFT_TEXT, "Review of a lift firm (fictitious)")
    case["evidence"].append({"id": "NOTE", "source": "Review platform's note (fictitious)", "authority": "platform",
                             "text": "Star ratings could not be carried over in the import; the author has not "
                                     "re-rated it and has not replied to our message."})
    verdict = _verdict(tmp_path, case)
    assert verdict["needs_human_review"] is True
    opening = verdict["answer"].split(" The panel could not assess:")[0]
    assert "That label is provisional: how the text was meant cannot be settled from the text alone." in opening


def test_a_label_no_doubt_touches_is_not_called_provisional(tmp_path):
    text = "The staff were friendly and the rooms were spotless. Breakfast was lovely too."
    verdict = _verdict(tmp_path, _one_text("hotel", "Hotel review", "review", text, "Review of a hotel (fictitious)"))
    assert "provisional" not in verdict["answer"]


def test_only_doubts_about_the_label_itself_are_named():
    items = ["the aspect parking (the text under review does not mention it)",
             "which way the text leans: read part by part it is positive, taken whole negative (VADER -0.19)",
             "which way the review leans: its text reads positive, while the reviewer's own rating (3 of 5) takes "
             "neither side", 'what the words marked "[inaudible]" said']
    assert label_doubts(items) == ["which way the review leans", "what its missing words said"]
