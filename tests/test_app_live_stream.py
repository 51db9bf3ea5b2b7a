"""The live debate view shows what an agent is writing while its reply streams in.

A fake streaming provider stands in for a model: each call reports half of its reply through the
same progress path a real streaming provider uses (runtime -> turn_progress -> store), then waits
until the test lets it finish.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

from helpers import small_case
from streamlit.testing.v1 import AppTest

from debate_core.engine.runtime import DebateSettings
from debate_core.jobs import worker
from debate_core.present import formatting, views
from debate_core.providers.base import Provider, RawReply, StepRequest
from debate_core.store import DebateStore

HOSTILE = "<b>bold</b> <script>alert(1)</script>"
REPLIES = {
    "AgentOutput": {"answer": f"The sawah stays with the kaum. {HOSTILE}",
                    "claims": [{"id": "C1", "statement": "Harta pusaka tinggi passes in the female line.",
                                "evidence": ["E1"], "confidence": 0.8}]},
    "CritiqueOutput": {"critiques": []},
    "SupervisorOutput": {"answer": "The sawah stays with the kaum.", "confidence": 0.7, "rationale": "agreed"},
}


class FakeStreaming(Provider):
    name = "fake-stream"

    def __init__(self) -> None:
        super().__init__(model="fake-stream")
        self.release = threading.Event()

    async def _reply(self, req: StepRequest, messages: list[dict[str, str]], attempt: int) -> RawReply:
        text = json.dumps(REPLIES[req.output_model.__name__])
        cut = text.index('"confidence"') if '"confidence"' in text else len(text) // 2
        req.report(tokens=42, text=text[:cut], elapsed_s=3.4, tokens_per_s=12.5)
        while not self.release.is_set():
            await asyncio.sleep(0.02)
        return RawReply(text=text)


def _wait_for(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("the condition was not met in time")


def _steps(db_path, debate_id: str) -> list[dict]:
    store = DebateStore(db_path, readonly=True)
    try:
        return store.steps(debate_id)
    finally:
        store.close()


def _status(db_path, debate_id: str) -> str:
    store = DebateStore(db_path, readonly=True)
    try:
        return store.get_debate(debate_id, with_steps=False)["status"]
    finally:
        store.close()


def test_live_view_shows_the_reply_as_it_streams_in(app: AppTest, db_path) -> None:
    provider = FakeStreaming()
    debate_id = worker.start_debate(small_case(), "cross_critique", provider, DebateSettings(rounds=1),
                                    db_path=db_path)
    try:
        _wait_for(lambda: sum(1 for s in _steps(db_path, debate_id) if s.get("partial_output")) == 2)
        app.run()
        app.switch_page("pages/debate.py")
        app.query_params["id"] = debate_id
        app.run()
        assert not app.exception, [e.message for e in app.exception]

        captions = [c.value for c in app.caption]
        assert captions.count(formatting.md_escape("writing: 42 tokens, 12.5 tokens/s")) == 2, captions
        texts = [t.value for t in app.text]
        # The fields known so far, as text: the answer and the first claim's id and statement,
        # not its confidence, which had not arrived.
        live = [t for t in texts if t.startswith("answer: ")]
        assert len(live) == 2, texts
        assert live[0] == (f"answer: {REPLIES['AgentOutput']['answer']}\n"
                           "claims.0.id: C1\nclaims.0.statement: Harta pusaka tinggi passes in the female line.\n"
                           "claims.0.evidence: E1")
        for m in app.markdown:
            assert "<script>" not in m.value and not m.proto.allow_html
    finally:
        provider.release.set()
        _wait_for(lambda: _status(db_path, debate_id) != "running", timeout=60)
    assert _status(db_path, debate_id) == "completed"
    steps = _steps(db_path, debate_id)
    assert all(s["status"] == "ok" for s in steps)


def test_partial_fields_follow_the_json_as_it_fills_in() -> None:
    assert views.partial_fields("") == []
    assert views.partial_fields('{"answer": "The wi') == [("answer", "The wi")]
    assert views.partial_fields('{"answer": "x", "claims": [{"id": "C1", "statem') == [
        ("answer", "x"), ("claims.0.id", "C1")]
    assert views.partial_fields('Sure! {"rationale": "because') == [("rationale", "because")]
    assert views.partial_fields("no json at all") == []
    assert views.live_caption({"partial_tokens": None}) == "waiting for the model's first token…"
    assert views.live_caption({"partial_tokens": 7, "tokens_per_s": 3.25, "reply_cap": 700}) == (
        "writing: 7 tokens of at most 700, 3.2 tokens/s")
