"""The server's API key goes only to the base URLs its operator configured: never to one a visitor types.

A loopback server that records every request plays the visitor's "model server"; the tests check
the Authorization header it received, from the provider, the app's worker and the New debate page.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fault_server import FaultServer, NameScript
from test_openai_faults import WILL_CASE, WILL_VALID

from debate_core.core.cases import load_case, sample_cases
from debate_core.core.credentials import OPENAI_API, key_plan, normalize_url, server_credentials
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs import worker
from debate_core.providers import make_provider
from debate_core.store import DebateStore

SERVER_KEY = "sk-server-own-key-0123456789abcdef"
VISITOR_KEY = "sk-visitor-typed-key-9876543210"


def _auth_headers(server: FaultServer) -> set[str]:
    return {str(r["headers"].get("authorization")) for r in server.requests if r["body"] is not None}


@pytest.fixture
def server_key(monkeypatch):
    """The operator gave the server a key for OpenAI's API only (no base URL configured)."""
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("DEBATE_KEY_BASE_URLS", raising=False)


# -- the rule ------------------------------------------------------------------------------------


def test_urls_are_compared_as_servers_not_as_text() -> None:
    assert normalize_url("") == normalize_url(None) == OPENAI_API
    assert normalize_url("https://API.openai.com:443/v1/") == OPENAI_API
    assert normalize_url("http://user:pw@127.0.0.1:80/v1") == "http://127.0.0.1/v1"
    assert normalize_url("http://127.0.0.1:8080/v1") != normalize_url("http://127.0.0.1:8081/v1")


def test_the_key_is_for_the_configured_urls_only() -> None:
    only_openai = server_credentials({"OPENAI_API_KEY": SERVER_KEY})
    assert only_openai.key_for(None) == only_openai.key_for("https://api.openai.com/v1") == SERVER_KEY
    assert only_openai.key_for("http://127.0.0.1:9/v1") is None
    assert only_openai.key_for("https://api.openai.com.attacker.example/v1") is None

    env = {"OPENAI_API_KEY": SERVER_KEY, "OPENAI_BASE_URL": "http://10.0.0.5:8000/v1",
           "DEBATE_KEY_BASE_URLS": "https://api.openai.com/v1, http://gpu.internal/v1"}
    creds = server_credentials(env)
    assert creds.default_base_url == "http://10.0.0.5:8000/v1"
    assert creds.key_for("http://10.0.0.5:8000/v1/") == SERVER_KEY
    assert creds.key_for("") == SERVER_KEY  # listed explicitly
    assert creds.key_for("http://gpu.internal/v1") == SERVER_KEY
    assert creds.key_for("http://gpu.internal:8080/v1") is None


def test_secrets_toml_configures_the_key_and_its_servers_and_the_environment_wins() -> None:
    secrets = {"openai": {"api_key": "sk-from-secrets-000000", "base_url": "http://llm.lan:8080/v1",
                          "base_urls": ["http://llm2.lan/v1"]}}
    creds = server_credentials({}, secrets)
    assert creds.key_for("http://llm.lan:8080/v1") == "sk-from-secrets-000000"
    assert creds.key_for("http://llm2.lan/v1") == "sk-from-secrets-000000"
    assert creds.key_for(None) is None  # OpenAI's API was not configured
    assert server_credentials({"OPENAI_API_KEY": SERVER_KEY}, secrets).api_key == SERVER_KEY


def test_key_plan_blocks_the_silent_fallback_with_a_plain_reason() -> None:
    creds = server_credentials({"OPENAI_API_KEY": SERVER_KEY})
    visitor = "http://127.0.0.1:9/v1"
    blocked = key_plan(creds, visitor, None)
    assert blocked.blocker and "type the key for that server" in blocked.blocker and visitor in blocked.blocker
    assert key_plan(creds, visitor, VISITOR_KEY).source == "typed"
    assert key_plan(creds, visitor, None, no_key_needed=True) == key_plan(creds, visitor, None, True)
    assert key_plan(creds, visitor, None, no_key_needed=True).blocker is None
    assert key_plan(creds, "", None).source == "server"
    # A server with no key of its own has nothing to leak; OpenAI's API still needs one.
    assert key_plan(server_credentials({}), visitor, None).blocker is None
    assert "needs a key" in (key_plan(server_credentials({}), "", None).blocker or "")


# -- the provider and the worker ---------------------------------------------------------------


def _run(base_url: str, **options) -> tuple[str, set[str]]:
    with FaultServer(NameScript(WILL_VALID)) as server:
        url = base_url or server.base_url
        prov = make_provider("openai", model="fault-model", base_url=url, timeout=10.0, **options)
        store = DebateStore(memory=True)
        from debate_core.jobs import debates as engine

        result = engine.run_debate(load_case(WILL_CASE), "cross_critique", provider=prov,
                                   settings=DebateSettings(rounds=1), store=store)
        return result.status, _auth_headers(server)


def test_a_visitors_url_never_receives_the_servers_key(server_key) -> None:
    status, headers = _run("")
    assert status == "completed"
    assert headers and not any(SERVER_KEY in h for h in headers), headers


def test_the_configured_url_does_receive_it(server_key, monkeypatch) -> None:
    # The control: the sink would see the key if the rule let it through.
    with FaultServer(NameScript(WILL_VALID)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        prov = make_provider("openai", model="fault-model", base_url=server.base_url, timeout=10.0)
        from debate_core.jobs import debates as engine

        engine.run_debate(load_case(WILL_CASE), "cross_critique", provider=prov,
                          settings=DebateSettings(rounds=1), store=DebateStore(memory=True))
        assert _auth_headers(server) == {f"Bearer {SERVER_KEY}"}


def test_a_typed_key_goes_where_the_debate_points(server_key) -> None:
    status, headers = _run("", api_key=VISITOR_KEY)
    assert status == "completed" and headers == {f"Bearer {VISITOR_KEY}"}


def test_the_worker_never_sends_the_servers_key_to_a_visitors_url(server_key, db_path: Path) -> None:
    with FaultServer(NameScript(WILL_VALID)) as server:
        prov = make_provider("openai", model="fault-model", base_url=server.base_url, timeout=10.0)
        debate_id = worker.start_debate(load_case(WILL_CASE), "cross_critique", prov,
                                        DebateSettings(rounds=1), db_path=db_path)
        assert worker.wait(debate_id, 60)
        headers = _auth_headers(server)
    assert DebateStore(db_path, readonly=True).get_debate(debate_id, with_steps=False)["status"] == "completed"
    assert headers and not any(SERVER_KEY in h for h in headers), headers


# -- the app -----------------------------------------------------------------------------------


def _pick_will_case(app) -> None:
    app.selectbox(key="nd-sample").set_value(str(next(p for p in sample_cases() if p.name == WILL_CASE.name))).run()


def test_new_debate_page_refuses_the_servers_key_for_a_typed_url_and_starts_without_it(server_key, app, db_path):
    with FaultServer(NameScript(WILL_VALID)) as server:
        app.run()
        _pick_will_case(app)
        app.selectbox(key="nd-protocol").set_value("cross_critique").run()
        app.radio(key="nd-provider").set_value("openai").run()
        # The operator configured only OpenAI's API: that is the default shown.
        assert app.text_input(key="nd-base-url").value == ""
        app.text_input(key="nd-base-url").set_value(server.base_url)
        app.text_input(key="nd-model").set_value("fault-model").run()
        assert not app.exception, [e.message for e in app.exception]
        assert app.button(key="nd-start").disabled
        assert any("type the key for that server" in w.value for w in app.warning)
        app.checkbox(key="nd-no-key").check().run()
        assert not app.button(key="nd-start").disabled
        app.button(key="nd-start").click().run()
        assert not app.exception, [e.message for e in app.exception]
        debate_id = app.session_state["debate_id"]
        assert worker.wait(debate_id, 60)
        headers = _auth_headers(server)
    assert headers and not any(SERVER_KEY in h for h in headers), headers


def test_settings_page_shows_the_keys_servers_read_only(server_key, app, monkeypatch):
    monkeypatch.setenv("DEBATE_KEY_BASE_URLS", "http://llm.lan:8080/v1")
    app.run()
    app.switch_page("pages/settings.py").run()
    assert not app.exception
    assert not [t for t in app.text_input if t.key == "s-base-url"]
    text = " ".join(m.value for m in app.markdown)
    assert "is set by its operator" in text and "llm\\.lan\\:8080" in text and "api\\.openai\\.com" in text
    assert SERVER_KEY not in text
