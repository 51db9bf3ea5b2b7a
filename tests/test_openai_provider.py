"""Configuration and pure helpers of the OpenAI-compatible provider (no server needed)."""

from __future__ import annotations

import asyncio
import email.utils

import pytest

from debate_core.providers import make_provider
from debate_core.providers.openai_provider import (
    RetryPolicy,
    default_method,
    is_local_url,
    parse_agent_models,
    public_url,
    redact,
    retry_after_seconds,
)

KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"


@pytest.fixture(autouse=True)
def no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_retry_after_forms() -> None:
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after": "0.5"}) == 0.5
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert retry_after_seconds({"retry-after": date}, now=now) == pytest.approx(30, abs=1)
    assert retry_after_seconds({"retry-after": email.utils.formatdate(now - 30, usegmt=True)}, now=now) == 0.0
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None
    assert retry_after_seconds(None) is None


def test_backoff_grows_with_jitter_and_is_capped() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0)
    for retry_no, full in ((1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)):
        delays = [policy.delay(retry_no) for _ in range(200)]
        assert all(full / 2 <= d <= full for d in delays)
        assert len(set(delays)) > 1  # jittered, so concurrent callers spread out
    # The server's Retry-After wins over the back-off, with only a little jitter on top.
    assert all(10.0 <= policy.delay(1, retry_after=10.0) <= 11.0 for _ in range(50))


def test_agent_model_overrides() -> None:
    assert parse_agent_models(["nla=gpt-4o", "ala = llama3:8b"]) == {"nla": "gpt-4o", "ala": "llama3:8b"}
    assert parse_agent_models("nla=a,ala=b") == {"nla": "a", "ala": "b"}
    assert parse_agent_models({"nla": "a"}) == {"nla": "a"}
    assert parse_agent_models(None) == {}
    with pytest.raises(ValueError, match="AGENT=MODEL"):
        parse_agent_models(["nla"])
    with pytest.raises(ValueError, match="needs both"):
        parse_agent_models(["=gpt-4o"])


def test_per_agent_model_lookup() -> None:
    provider = make_provider("openai", model="base", base_url="http://127.0.0.1:1/v1", agent_models=["nla=x"])
    assert provider.model_for("nla") == "x"
    assert provider.model_for("ala") == "base"
    assert provider.model_for(None) == "base"


def test_redaction_and_public_urls() -> None:
    assert KEY not in redact(f"bad key {KEY}", KEY)
    # Anything shaped like a key goes too, even when it is not ours.
    assert "abcdefghijkl" not in redact("Incorrect API key provided: sk-abcdefghijklmnop")
    assert redact("nothing secret here") == "nothing secret here"
    assert public_url("https://user:pw@example.org/v1") == "https://example.org/v1"
    assert public_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"


def test_method_defaults_per_server() -> None:
    assert default_method(None) == "json_schema"
    assert default_method("https://api.openai.com/v1") == "json_schema"
    assert default_method("http://127.0.0.1:8080/v1") == "function_calling"
    assert make_provider("openai", model="m", base_url="http://localhost:11434/v1").method == "function_calling"
    with pytest.raises(ValueError, match="unknown structured output method"):
        make_provider("openai", model="m", base_url="http://localhost:1/v1", method="xml")


def test_openai_without_a_key_is_refused_early() -> None:
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        make_provider("openai", model="gpt-4o-mini")


def test_environment_supplies_key_and_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1")
    provider = make_provider("openai", model="m")
    config = provider.public_config()
    assert config["base_url"] == "http://127.0.0.1:9999/v1"
    assert config["api_key_set"] is True and config["method"] == "function_calling"
    assert KEY not in repr(config) and KEY not in repr(provider) and KEY not in str(vars(provider))
    # Flags win over the environment.
    assert make_provider("openai", model="m", base_url="http://h/v1").public_config()["base_url"] == "http://h/v1"


def test_options_reach_the_provider() -> None:
    provider = make_provider(
        "openai", model="m", base_url="http://127.0.0.1:1/v1", api_key=KEY, temperature=0.7, timeout=9,
        max_attempts=4, transport_retries=6, retry_base_delay=0.2, retry_max_delay=3, max_retry_wait=30,
        method="json_mode", method_fallback=False, max_tokens=256, max_concurrency=2,
        stall_timeout=7, timeout_retries=3, repair="clamp",
    )
    config = provider.public_config()
    assert (config["temperature"], config["timeout"], config["max_attempts"]) == (0.7, 9.0, 4)
    assert (config["transport_retries"], config["max_retry_wait"]) == (6, 30.0)
    assert (config["method"], config["max_tokens"], config["max_concurrency"]) == ("json_mode", 256, 2)
    assert provider.retry.base_delay == 0.2 and provider.retry.max_delay == 3.0
    assert provider.method_fallback is False
    assert (config["stall_timeout"], config["timeout_retries"], config["repair"]) == (7.0, 3, "clamp")
    # An explicit limit is kept as given: no probe, no note.
    assert config["concurrency_note"] is None

    async def build() -> tuple[object, object]:
        return provider._client("m"), provider._client("m")

    client, again = asyncio.run(build())
    other, _ = asyncio.run(build())
    # One client per model and event loop: pooled connections never cross loops.
    assert client is again and client is not other
    # One retry policy: the client's own is off.
    assert client.max_retries == 0
    assert client.openai_api_key.get_secret_value() == KEY


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1", "http://0.0.0.0:8765/v1",
    "http://gpu-box.local:8000/v1", "http://10.1.2.3/v1", "http://192.168.1.20:8080/v1", "http://172.20.0.5/v1",
])
def test_local_base_urls(url: str) -> None:
    assert is_local_url(url)


@pytest.mark.parametrize("url", [None, "", "https://api.openai.com/v1", "https://llm.example.com/v1",
                                 "http://8.8.8.8/v1", "http://172.32.0.1/v1"])
def test_remote_base_urls(url: str | None) -> None:
    assert not is_local_url(url)


def test_repair_is_refused_for_providers_that_generate_nothing() -> None:
    with pytest.raises(ValueError, match="openai provider only"):
        make_provider("offline", repair="clamp")
    with pytest.raises(ValueError, match="unknown repair"):
        make_provider("openai", model="m", base_url="http://127.0.0.1:1/v1", repair="round")


def test_a_local_server_gets_a_shorter_default_timeout_than_a_hosted_api() -> None:
    from debate_core.providers.openai_provider import DEFAULT_TIMEOUT_S, LOCAL_TIMEOUT_S, OpenAIProvider

    local = OpenAIProvider(model="m", base_url="http://127.0.0.1:9/v1", probe=False)
    hosted = OpenAIProvider(model="m", base_url="https://api.example.com/v1", api_key="k")
    chosen = OpenAIProvider(model="m", base_url="http://127.0.0.1:9/v1", timeout=300, probe=False)
    assert (local.timeout, hosted.timeout, chosen.timeout) == (LOCAL_TIMEOUT_S, DEFAULT_TIMEOUT_S, 300.0)
    assert 2 * LOCAL_TIMEOUT_S < 180  # a failing step, retried once, ends within three minutes
