"""The offline panel knows its limits: an aspect the text never mentions, a sentiment no lexicon word
carries, possible irony, and agreement that rests on one repeated quote."""

from __future__ import annotations

import json
from pathlib import Path

from debate_core.core.cases import parse_case
from debate_core.jobs.debates import run_debate
from debate_core.protocols.panel import rules as mod
from debate_core.protocols.panel import shared_context
from debate_core.protocols.panel.agent import handlers
from debate_core.protocols.panel.agent.reading import clause_polarity, read_case

EN = Path(__file__).resolve().parent.parent / "data" / "cases" / "panel_laptop_review.json"
TEXT = "The screen is gorgeous and the battery easily lasts a full day, but the keyboard started failing within a week and support never answered my emails."


def laptop(**patch):
    data = json.loads(EN.read_text(encoding="utf-8"))
    for key, value in patch.items():
        data[key] = value
    return parse_case(data)


def reading_of(case):
    signals = mod.parse_signals(case.signals) if case.signals else None
    return read_case(case, shared_context(case, signals))


def test_the_lexicon_reads_negation_and_leaves_unscored_clauses_unread():
    assert clause_polarity("the staff were helpful")[0] == "positive"
    assert clause_polarity("the staff were not helpful")[0] == "negative"
    assert clause_polarity("the parcel arrived on tuesday") == ("neutral", [])


def test_a_clause_after_but_without_sentiment_words_takes_the_opposite_of_the_one_before():
    case = laptop(signals=None, evidence=[{"id": "E1", "source": "review", "text":
                  "The lens is superb, but the zoom ring clicks at every turn."}],
                  question='What is the overall sentiment of "The lens is superb, but the zoom ring clicks at '
                           'every turn." and towards each aspect (lens, zoom ring)?')
    r = reading_of(case)
    assert r.by_name("lens").label == "positive"
    zoom = r.by_name("zoom ring")
    assert zoom.label == "negative" and {m.source for m in zoom.mentions if m.target} == {"contrast"}
    assert r.overall == "mixed" and r.gaps == []


def test_an_aspect_the_text_never_mentions_is_flagged_with_the_plain_reason():
    data = json.loads(EN.read_text(encoding="utf-8"))
    data["signals"]["aspect_terms"].append("speakers")
    data["question"] = data["question"].replace("(screen, battery, keyboard, support)",
                                                "(screen, battery, keyboard, support, speakers)")
    res = run_debate(parse_case(data), "panel")
    assert res.status == "completed", res.error
    assert res.verdict.needs_human_review is True
    reason = "the panel could not assess: the aspect speakers (the text under review does not mention it)"
    assert reason in res.verdict.escalation_reasons
    assert res.verdict.answer.startswith("The overall sentiment is mixed:")
    assert "could not assess: the aspect speakers" in res.verdict.answer
    # The judge caps its own confidence on a weak reading, which the shared low-confidence rule also reports.
    assert res.result["summary"]["confidence"] <= 0.4
    assert any(r.startswith("the deciding agents are not confident enough") for r in res.verdict.escalation_reasons)


def test_praise_with_an_irony_cue_is_not_read_at_face_value():
    data = json.loads(EN.read_text(encoding="utf-8"))
    data["signals"]["validator"]["issues"] = ["irony: the praise may be sarcastic"]
    r = reading_of(parse_case(data))
    assert r.irony and r.confidence() <= 0.4
    assert any("ironic or sarcastic" in u for u in r.uncertainties())


def test_the_sample_reading_is_good_and_unflagged():
    res = run_debate(laptop(), "panel")
    assert res.verdict.needs_human_review is False
    assert res.result["summary"]["uncertainties"] == []
    assert res.result["summary"]["confidence"] >= 0.8


def _turn(speaker, message):
    return {"speaker": speaker, "stance": "x", "message": message, "key_points": []}


def test_agreement_on_one_repeated_quote_does_not_raise_the_judges_confidence():
    case = laptop()
    context = shared_context(case, mod.parse_signals(case.signals))
    quote = '"The screen is gorgeous and the battery easily lasts a full day" (E1)'
    once = [_turn("analyst", f"Screen positive: {quote}.")]
    thrice = [_turn(p, f"Screen positive: {quote}.") for p in ("analyst", "critic", "empath")]
    varied = [_turn("analyst", f"Screen positive: {quote}."),
              _turn("critic", 'Screen positive: "screen 4.7/5" (E5).'),
              _turn("empath", 'Battery positive: "battery 4.5/5" (E5).')]

    def confidence(turns):
        out = handlers.judge_summary({"case": case, "turns": turns, "personas": [], "context": context})
        return out["confidence"]

    assert confidence(thrice) == confidence(once)
    assert confidence(varied) > confidence(once)


def test_speakers_do_not_quote_what_another_speaker_already_quoted():
    res = run_debate(laptop(), "panel")
    seen: list[str] = []
    for rnd in res.result["rounds"]:
        for turn in rnd["turns"]:
            quotes = [q for q in turn["message"].split('"')[1::2]]
            assert not set(quotes) & set(seen), (turn["speaker"], quotes)
            seen += quotes


def test_persona_prompts_carry_the_profile_identity_and_stance_and_the_judge_names_them():
    from debate_core.core.events import MemorySink

    data = json.loads(EN.read_text(encoding="utf-8"))
    data["agents"] = [{"id": "critic", "name": "Warranty sceptic", "role": "presses on defects"},
                      {"id": "fan", "name": "Devoted owner", "role": "sees the best", "stance": "pro"}]
    sink = MemorySink()
    res = run_debate(parse_case(data), "panel", sink=sink)
    assert res.status == "completed", res.error
    assert [(p["id"], p["stance"]) for p in res.result["personas"]] == [("critic", "con"), ("fan", "pro")]
    prompts = {e.step_id: "\n".join(m["content"] for m in e.data["prompt"])
               for _, e in sink.events if e.kind == "turn_started"}
    assert "You are Warranty sceptic" in prompts["r1.turn.critic"] and "stance on the panel: con" in prompts["r1.turn.critic"]
    assert "Your role: sees the best" in prompts["r1.turn.fan"] and "stance on the panel: pro" in prompts["r1.turn.fan"]
    assert "Warranty sceptic (critic, con)" in prompts["final.judge"] and "Devoted owner (fan, pro)" in prompts["final.judge"]
