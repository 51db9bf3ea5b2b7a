"""Who may call what, and bad input: every role against every write route (401 without or with a bad
token, 403 for a role that may not, nothing written either way), and a table of bad submissions,
each a 4xx naming the field, with nothing saved."""

from __future__ import annotations

import json

import httpx
import pytest
from test_api_support import ROLES, api, case_json, finished  # noqa: F401  (api is a fixture)

from debate_core.core.files import CASE_BYTES
from debate_core.jobs import worker
from debate_core.store import DebateStore

RANK = {role: n for n, role in enumerate(ROLES)}


def written(server) -> dict[str, int]:
    """Row counts of every table a write route changes, once the debates running in the server's
    threads (the server runs in this process) have finished writing."""
    for debate_id in worker.running_here():
        worker.wait(debate_id, timeout=60)
    store = server.store()
    try:
        return {t: store.sql.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]  # noqa: S608 - fixed names
                for t in ("debates", "reviews", "audit", "webhooks", "events")}
    finally:
        store.close()


def call(server, token: str | None, method: str, path: str, body: dict | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.request(method, f"{server.url}{path}", json=body, headers=headers, timeout=30)


def writes(debate: dict, escalated: dict, webhook_id: int) -> list[tuple[str, str, str, dict | None, str]]:
    """(name, method, path, body, least role) of each write route."""
    return [
        ("submit", "POST", "/v1/debates", {"case": case_json(), "protocol": "cross_critique"}, "reviewer"),
        ("review", "POST", f"/v1/debates/{debate['id']}/reviews", {"action": "accept", "version": debate["version"]},
         "reviewer"),
        ("approve", "POST", f"/v1/debates/{escalated['id']}/reviews",
         {"action": "approve", "version": escalated["version"]}, "supervisor"),
        ("control", "POST", f"/v1/debates/{debate['id']}/control", {"action": "stop"}, "reviewer"),
        ("fork", "POST", f"/v1/debates/{debate['id']}/forks", {"from_round": 1}, "reviewer"),
        ("add webhook", "POST", "/v1/webhooks", {"url": "http://127.0.0.1:9/hook", "events": ["debate.completed"]},
         "admin"),
        ("delete webhook", "DELETE", f"/v1/webhooks/{webhook_id}", None, "admin"),
    ]


@pytest.fixture
def setting(api):  # noqa: F811
    debate = finished(api)
    escalated = finished(api)
    with api.client("reviewer") as c:
        c.review(escalated["id"], "escalate", reason="needs a supervisor", version=escalated["version"])
        escalated = c.get(escalated["id"])
    with api.client("admin") as c:
        webhook_id = c.add_webhook("http://127.0.0.1:9/hook", ["debate.completed"])["id"]
    return api, debate, escalated, webhook_id


def test_no_token_or_a_bad_one_is_401_on_every_route_but_health(setting):
    server, debate, escalated, webhook_id = setting
    reads = [("GET", p) for p in ("/v1/protocols", "/v1/debates", f"/v1/debates/{debate['id']}",
                                  f"/v1/debates/{debate['id']}/events", "/v1/queue", "/v1/labelled-cases",
                                  "/v1/webhooks")]
    before = written(server)
    for method, path, body in [*((m, p, None) for m, p in reads),
                               *((m, p, b) for _, m, p, b, _ in writes(debate, escalated, webhook_id))]:
        for token in (None, "dbt_not-a-token", "something else"):
            r = call(server, token, method, path, body)
            assert r.status_code == 401, (method, path, token, r.text)
            assert r.json()["error"]["code"] in ("unauthenticated", "bad_token")
            assert r.headers["www-authenticate"] == "Bearer"
    assert written(server) == before
    assert call(server, None, "GET", "/v1/health").status_code == 200


@pytest.mark.parametrize("role", ROLES)
def test_each_role_against_each_write(setting, role):
    server, debate, escalated, webhook_id = setting
    for name, method, path, body, least in writes(debate, escalated, webhook_id):
        before = written(server)
        r = call(server, server.tokens[role], method, path, body)
        if RANK[role] < RANK[least]:
            assert r.status_code == 403, (role, name, r.text)
            error = r.json()["error"]
            assert error["code"] == "forbidden" and f"has the {role} role" in error["message"], (role, name)
            assert written(server) == before, (role, name)
        else:
            # Allowed: the role is not what stops it (a stop of a completed debate is refused by its state).
            assert r.status_code not in (401, 403), (role, name, r.text)
            assert r.status_code < 300 or (name == "control" and r.status_code == 409), (role, name, r.text)
    if RANK[role] >= RANK["reviewer"]:
        store = server.store()
        try:
            assert {r["reviewer"] for r in store.audit_log() if r["actor_kind"] == "token"} >= {f"{role} bot"}
        finally:
            store.close()


def _body(**change) -> dict:
    body = {"case": case_json(), "protocol": "cross_critique"}
    for key, value in change.items():
        if value is _DROP:
            body.pop(key)
        else:
            body[key] = value
    return body


_DROP = object()
BAD_SUBMISSIONS = [
    # (what, body or raw bytes, status, field)
    ("not JSON", b"{not json", 400, "body"),
    ("a list, not an object", b"[1, 2]", 422, "body"),
    ("no case", _body(case=_DROP), 422, "case"),
    ("no protocol", _body(protocol=_DROP), 422, "protocol"),
    ("a case without a question", _body(case={**case_json(), "question": ""}), 422, "case"),
    ("a case that is not an object", _body(case="hello"), 422, "case"),
    ("an unknown protocol", _body(protocol="chess"), 422, "protocol"),
    ("an unknown preset", _body(preset="no such preset"), 422, "preset"),
    ("an unknown option", _body(options={"no_such_option": 1}), 422, "options"),
    ("too many rounds", _body(rounds=999), 422, "rounds"),
    ("an unknown agent", _body(agents=["nobody"]), 422, "agents"),
    ("an unknown field", _body(colour="red"), 422, "colour"),
    ("an unknown provider", _body(provider={"name": "magic"}), 422, "provider.name"),
    ("an unknown provider setting", _body(provider={"name": "offline", "speed": 3}), 422, "provider.speed"),
    ("openai without a model", _body(provider={"name": "openai"}), 422, "provider.model"),
    ("replay without a cassette", _body(provider={"name": "replay"}), 422, "provider.cassette"),
    ("a base URL outside the configured ones without its own key",
     _body(provider={"name": "openai", "model": "gpt-x", "base_url": "https://elsewhere.example/v1"}), 422,
     "provider.base_url"),
]


@pytest.mark.parametrize("what,body,status,field", BAD_SUBMISSIONS, ids=[b[0] for b in BAD_SUBMISSIONS])
def test_bad_submissions_are_4xx_naming_the_field_and_save_nothing(api, monkeypatch, what, body, status, field):  # noqa: F811
    # The server holds a key for its configured servers only (OpenAI's API here), as core/credentials.py rules.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-server-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("DEBATE_KEY_BASE_URLS", raising=False)
    before = written(api)
    headers = {"Authorization": f"Bearer {api.tokens['reviewer']}", "Content-Type": "application/json"}
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    r = httpx.post(f"{api.url}/v1/debates", content=content, headers=headers, timeout=30)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["field"] == field and error["message"] and "Traceback" not in error["message"]
    assert written(api) == before


def test_a_body_over_the_bound_is_413_before_it_is_read(api, monkeypatch):  # noqa: F811
    monkeypatch.setenv(CASE_BYTES.env, "2000")
    before = written(api)
    big = _body(case={**case_json(), "question": "x" * 300_000})
    r = httpx.post(f"{api.url}/v1/debates", json=big, headers={"Authorization": f"Bearer {api.tokens['reviewer']}"})
    assert r.status_code == 413 and r.json()["error"]["field"] == "body"
    # Under the body's bound but over the case's: refused naming the case.
    r = httpx.post(f"{api.url}/v1/debates", json=_body(case={**case_json(), "question": "x" * 5000}),
                   headers={"Authorization": f"Bearer {api.tokens['reviewer']}"})
    assert r.status_code == 422 and r.json()["error"]["field"] == "case" and "limit" in r.json()["error"]["message"]
    assert written(api) == before


def test_a_missing_debate_is_404_and_a_webhook_with_an_unknown_event_names_it(api):  # noqa: F811
    r = call(api, api.tokens["viewer"], "GET", "/v1/debates/nope")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    before = written(api)
    r = call(api, api.tokens["admin"], "POST", "/v1/webhooks", {"url": "http://127.0.0.1:9/", "events": ["nope"]})
    assert r.status_code == 422 and r.json()["error"]["field"] == "events"
    r = call(api, api.tokens["admin"], "POST", "/v1/webhooks", {"url": "ftp://x", "events": ["debate.completed"]})
    assert r.status_code == 422 and r.json()["error"]["field"] == "url"
    assert written(api) == before


def test_a_server_fault_is_500_with_an_id_that_is_logged_and_no_traceback(api, monkeypatch, caplog):  # noqa: F811
    def broken(*_a, **_k):
        raise RuntimeError("disk on fire at /secret/path")

    # A fault inside the store's read, standing in for a bug: the server runs in this process.
    monkeypatch.setattr(DebateStore, "list_debates", broken)
    with caplog.at_level("ERROR", logger="debate_core.api"):
        r = call(api, api.tokens["viewer"], "GET", "/v1/debates")
    assert r.status_code == 500
    error = r.json()["error"]
    assert error["code"] == "server_fault" and error["error_id"] in error["message"]
    assert "fire" not in r.text and "Traceback" not in r.text
    logged = [rec for rec in caplog.records if error["error_id"] in rec.getMessage()]
    assert logged and "disk on fire" in caplog.text
