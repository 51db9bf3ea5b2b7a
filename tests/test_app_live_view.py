"""The live debate view on a running debate built in the store, event by event as the engine
records them: the streamed text in the agent's card, offline agents' own wording, the newest round
first with the earlier ones folded, and each finished step's time and tokens."""

from __future__ import annotations

import json
from typing import Any

from helpers import small_case
from streamlit.testing.v1 import AppTest

from debate_core.core.events import Event
from debate_core.present import chart_rules, formatting
from debate_core.store import DebateStore
from ui import render

ANSWER = {"answer": "The sawah stays with the kaum.",
          "claims": [{"id": "C1", "statement": "Harta pusaka tinggi passes in the female line.",
                      "evidence": ["E3"], "confidence": 0.8}]}
REVISED = {"answer": "The sawah stays with the kaum, as the KAN letter records.",
           "claims": [{"id": "C1", "statement": "The KAN letter names the sawah pusaka tinggi.",
                       "evidence": ["E4"], "confidence": 0.85}]}
HOSTILE = "<script>alert(1)</script>"
esc = formatting.md_escape


def _start(store: DebateStore, debate_id: str, step_id: str, stage: str, rnd: int | None, agent: str,
           model: str, target: str | None = None) -> None:
    store.record(debate_id, Event("turn_started", step_id, {
        "call": 1, "stage": stage, "agent": agent, "target": target, "round": rnd,
        "prompt": [{"role": "user", "content": f"Step: {step_id}"}], "model": model, "reply_cap": 700}))


def _finish(store: DebateStore, debate_id: str, step_id: str, output: dict[str, Any], model: str, *,
            latency_ms: float, input_tokens: int, output_tokens: int) -> None:
    store.record(debate_id, Event("turn_finished", step_id, {
        "call": 1, "output": output, "raw": json.dumps(output), "attempts": 1, "errors": [],
        "latency_ms": latency_ms, "model": model, "input_tokens": input_tokens, "output_tokens": output_tokens,
        "calls": 1}))


def _model_debate(db_path) -> str:
    """A streaming model's debate in round 2: round 1 done, the proponent's revision half written,
    the skeptic's not started writing."""
    model = "gpt-4o-mini"
    store = DebateStore(db_path)
    try:
        debate_id = store.create_debate(small_case(), "cross_critique", {"provider": "openai", "model": model},
                                        {"rounds": 3})
        for agent, latency in (("proponent", 2400.0), ("skeptic", 3100.0)):
            _start(store, debate_id, f"r1.answer.{agent}", "answer", 1, agent, model)
            _finish(store, debate_id, f"r1.answer.{agent}", ANSWER, model, latency_ms=latency,
                    input_tokens=650, output_tokens=162)
        for critic, target in (("proponent", "skeptic"), ("skeptic", "proponent")):
            step = f"r1.critique.{critic}.{target}"
            _start(store, debate_id, step, "critique", 1, critic, model, target)
            _finish(store, debate_id, step, {"critiques": []}, model, latency_ms=1250.0,
                    input_tokens=1800, output_tokens=40)
        for agent in ("proponent", "skeptic"):
            _start(store, debate_id, f"r2.revise.{agent}", "revise", 2, agent, model)
        text = json.dumps({**REVISED, "answer": REVISED["answer"] + " " + HOSTILE})
        cut = text.index('"confidence"')
        store.record(debate_id, Event("turn_progress", "r2.revise.proponent",
                                      {"call": 1, "tokens": 31, "text": text[:cut], "elapsed_s": 2.0,
                                       "tokens_per_s": 15.5}))
    finally:
        store.close()
    return debate_id


def _offline_debate(db_path) -> str:
    """An offline debate in round 1: the proponent's answer done, the skeptic's being composed."""
    model = chart_rules.OFFLINE_MODEL
    store = DebateStore(db_path)
    try:
        debate_id = store.create_debate(small_case(), "cross_critique",
                                        {"provider": "offline", "model": model, "latency_ms": 400.0}, {"rounds": 2})
        _start(store, debate_id, "r1.answer.proponent", "answer", 1, "proponent", model)
        _finish(store, debate_id, "r1.answer.proponent", ANSWER, model, latency_ms=402.0,
                input_tokens=532, output_tokens=176)
        _start(store, debate_id, "r1.answer.skeptic", "answer", 1, "skeptic", model)
    finally:
        store.close()
    return debate_id


def _open(app: AppTest, debate_id: str) -> AppTest:
    app.run()
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    app.run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def _blocks(node: Any) -> list[Any]:
    out = []
    for child in getattr(node, "children", {}).values():
        if hasattr(child, "children"):
            out.append(child)
            out += _blocks(child)
    return out


def _values(node: Any) -> list[str]:
    """Every element's text under a block, in order (markdown, captions, text, subheaders)."""
    out = []
    for child in getattr(node, "children", {}).values():
        if hasattr(child, "children"):
            out += _values(child)
        elif isinstance(getattr(child, "value", None), str):
            out.append(child.value)
    return out


def _card(root: Any, title: str, outside: Any = None) -> list[str]:
    """The texts of the one card whose title is `title` (the innermost block holding it), leaving
    out the cards inside the block `outside`."""
    skip = [id(b) for b in _blocks(outside)] if outside is not None else []
    cards = [b for b in _blocks(root) if id(b) not in skip
             and any(getattr(c, "value", None) == f"**{title}**" for c in b.children.values())]
    assert len(cards) == 1, f"{len(cards)} card(s) titled {title!r}"
    return _values(cards[0])


def test_a_streaming_reply_shows_in_its_agents_card_and_the_newest_round_comes_first(app, db_path) -> None:
    _open(app, _model_debate(db_path))
    root = app.main

    # Round 2, the one under way, is the first round on the page; round 1 follows, folded.
    assert [h.value for h in app.main.subheader] == ["Round 2 · the latest"]
    assert len(app.expander) == 1
    earlier = app.expander[0]
    assert earlier.label == "Round 1 · 4 step(s) done"
    assert not earlier.proto.expanded
    assert _values(root).index("Round 2 · the latest") < _values(root).index("**Proponent on Skeptic**")

    # The proponent's card holds its reply so far, field by field as plain text, and its pace.
    proponent = _card(root, "Proponent", outside=earlier)
    assert esc("writing: 31 tokens of at most 700, 15.5 tokens/s") in proponent
    assert (f"answer: {REVISED['answer']} {HOSTILE}\n"
            f"claims.0.id: C1\nclaims.0.statement: {REVISED['claims'][0]['statement']}\n"
            "claims.0.evidence: E4") in proponent
    # The skeptic's model has sent nothing yet: its card says so, and holds no one else's text.
    skeptic = _card(root, "Skeptic", outside=earlier)
    assert esc("waiting for the model's first token…") in skeptic
    assert not any(v.startswith("answer: ") for v in skeptic)
    for m in app.markdown:
        assert "<script>" not in m.value and not m.proto.allow_html

    # The finished steps of round 1, inside the folded round, say their time and tokens.
    round1 = _values(earlier)
    assert round1.count(esc("2.4 s · 812 tokens")) == 1, round1
    assert round1.count(esc("3.1 s · 812 tokens")) == 1
    assert round1.count(esc("1.2 s · 1,840 tokens")) + round1.count(esc("1.3 s · 1,840 tokens")) == 2
    assert not any("estimated" in v or "composing" in v for v in _values(root))
    tips = [c.proto.help for c in app.caption if c.value.startswith(esc("2.4 s"))]
    assert tips == ["650 tokens in the prompt, 162 in the reply"]


def test_offline_agents_say_they_are_composing_and_their_tokens_are_estimates(app, db_path) -> None:
    _open(app, _offline_debate(db_path))
    root = app.main
    assert [h.value for h in app.main.subheader] == ["Round 1"]  # one round: nothing to fold
    assert not app.expander

    skeptic = _card(root, "Skeptic")
    assert render.OFFLINE_COMPOSING in skeptic
    assert not any("first token" in v for v in _values(root))

    proponent = _card(root, "Proponent")
    assert esc("0.4 s · about 708 tokens (estimated)") in proponent
    tip = next(c.proto.help for c in app.caption if c.value.startswith(esc("0.4 s")))
    assert tip.startswith("532 tokens in the prompt, 176 in the reply. The offline agents use no model")


def test_a_finished_debate_keeps_its_rounds_in_order_with_time_and_tokens(app, make_debate) -> None:
    _open(app, make_debate(rounds=2))
    app.session_state["tabs-done"] = "Rounds"  # a finished debate opens on its verdict
    app.run()
    assert not app.exception, [e.message for e in app.exception]
    assert [h.value for h in app.main.subheader] == ["Round 1", "Round 2", "Final and per-item steps"]
    assert not [e for e in app.expander if e.label.startswith("Round")]
    costs = [c.value for c in app.main.caption if esc("tokens (estimated)") in c.value]
    # Every card of the two rounds and the supervisor's: two answers, two critiques, two revisions, one final.
    assert len(costs) == 7, costs
    assert all(" · about " in c for c in costs), costs
