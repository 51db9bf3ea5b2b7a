"""The one bounded retry loop: validation errors are fed back; the budget ends in a typed error."""

from __future__ import annotations

import asyncio

import pytest

from debate_core.protocols.cross_critique.models import CritiqueOutput
from debate_core.providers.base import Provider, RawReply, StepFailed, StepRequest, parse_json_text


class Scripted(Provider):
    name = "scripted"

    def __init__(self, replies, max_attempts=3):
        super().__init__(max_attempts=max_attempts)
        self.replies = list(replies)
        self.seen: list[list[dict[str, str]]] = []

    async def _reply(self, req, messages, attempt):
        self.seen.append(messages)
        return RawReply(text=self.replies.pop(0), input_tokens=7, output_tokens=3)


def request():
    return StepRequest(step_id="r1.critique.nla.ala", protocol="cross_critique", stage="critique", agent="nla",
                       output_model=CritiqueOutput, messages=[{"role": "user", "content": "critique"}])


GOOD = '{"critiques": [{"id": "K1", "target_claim_id": "C1", "issue_type": "overclaim", "description": "d", "severity": "minor", "suggested_fix": "f"}]}'


def test_wrong_then_right_feeds_the_error_back():
    provider = Scripted(["Sure! Here are my thoughts in prose.", GOOD])
    result = asyncio.run(provider.complete(request()))
    assert result.attempts == 2 and result.output.critiques[0].severity == "MINOR"
    assert result.usage.calls == 2 and result.usage.input_tokens == 14
    correction = provider.seen[1][-1]["content"]
    assert correction.startswith("Your previous reply could not be accepted") and "not valid JSON" in correction
    assert provider.seen[1][-2] == {"role": "assistant", "content": "Sure! Here are my thoughts in prose."}


def test_budget_exhausted_raises_with_attempts_raw_and_usage():
    bad = '{"critiques": [{"id": "K1", "target_claim_id": "C1", "issue_type": "rant", "description": "d", "severity": "MAJOR", "suggested_fix": "f"}]}'
    provider = Scripted([bad, bad, bad])
    with pytest.raises(StepFailed) as info:
        asyncio.run(provider.complete(request()))
    err = info.value
    assert err.attempts == 3 and err.raw == bad and err.usage.calls == 3
    assert "critiques.0.issue_type" in err.message
    assert len(err.errors) == 3


def test_json_is_found_in_fences_and_prose():
    assert parse_json_text('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json_text('Here you go: {"a": 2} hope it helps') == {"a": 2}
    with pytest.raises(ValueError, match="empty"):
        parse_json_text("   ")
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_json_text('{"a": ')
