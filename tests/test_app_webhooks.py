"""Settings page, Webhooks section: an admin adds an endpoint and sees its secret once, sees what
was sent to it and deletes it; anyone else sees nothing of the section."""

from __future__ import annotations

import time

import pytest
from standardwebhooks import Webhook

from debate_core.core.app_settings import AppSettings, save_settings
from debate_core.store import DebateStore

URL = "https://hooks.example.org/in"


def _open(app):
    app.run()
    app.switch_page("pages/settings.py").run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def _table(app, column: str):
    """The table with this column (AppTest does not report a read-only table's key)."""
    [table] = [d.value for d in app.dataframe if column in d.value.columns]
    return table


def _secret_shown(app) -> list[str]:
    return [c.value for c in app.code if c.value.startswith("whsec_")]


def test_an_admin_adds_an_endpoint_sees_the_secret_once_and_its_deliveries(app, db_path, make_debate):
    _open(app)  # local mode: the operator's role, admin by default
    assert [s.value for s in app.subheader if s.value == "Webhooks"]
    app.text_input(key="wh-url").set_value(URL)
    app.multiselect(key="wh-events").set_value(["debate.completed", "review.escalated"])
    app.button(key="FormSubmitter:webhook-form-Add endpoint").click().run()
    assert not app.exception, [e.message for e in app.exception]
    assert any("copy it now" in s.value and "not shown again" in s.value for s in app.success)
    [secret] = _secret_shown(app)
    assert app.text_input(key="wh-url").value == "" and app.multiselect(key="wh-events").value == []
    store = DebateStore(db_path)
    try:
        [hook] = store.list_webhooks()
        assert hook["url"] == URL and hook["events"] == ["debate.completed", "review.escalated"]
        kept = store.sql.execute("SELECT secret FROM webhooks WHERE id = ?", [hook["id"]]).fetchone()[0]
    finally:
        store.close()
    assert kept == secret and Webhook(secret)  # the one shown is the one that signs
    listed = _table(app, "address")
    assert list(listed["address"]) == [URL] and list(listed["events"]) == ["debate.completed, review.escalated"]

    # The next run shows the endpoint but never its secret again; a finished debate's delivery waits.
    did = make_debate()
    app.run()
    assert _secret_shown(app) == [] and not any(secret in m.value for m in app.markdown)
    rows = _table(app, "next try")
    assert list(rows["event"]) == ["debate.completed"] and list(rows["debate"]) == [did]
    assert list(rows["answer"]) == ["not sent yet"] and list(rows["delivery"]) == ["waiting to be sent"]

    app.button(key="wh-delete").click().run()
    assert any("Deleted the endpoint" in s.value for s in app.success)
    assert any("No endpoint is registered yet" in c.value for c in app.caption)
    audit = _table(app, "what")
    assert any(f"added the webhook endpoint {URL}" in w for w in audit["what"])


@pytest.mark.parametrize(("url", "events", "says"), [
    ("ftp://hooks.example.org", ["debate.completed"], "url: must start with https:// or http://"),
    (URL, [], "events: choose at least one"),
])
def test_a_bad_endpoint_is_refused_in_plain_words(app, db_path, url, events, says):
    _open(app)
    app.text_input(key="wh-url").set_value(url)
    app.multiselect(key="wh-events").set_value(events)
    app.button(key="FormSubmitter:webhook-form-Add endpoint").click().run()
    assert any(says in e.value.replace("\\", "") for e in app.error), [e.value for e in app.error]
    assert app.text_input(key="wh-url").value == url  # kept, to be corrected
    assert _secret_shown(app) == []
    store = DebateStore(db_path)
    try:
        assert store.list_webhooks() == []
    finally:
        store.close()


@pytest.mark.parametrize("role", ["viewer", "reviewer", "supervisor"])
def test_no_one_but_an_admin_sees_the_section(app, db_path, role):
    save_settings(AppSettings(roles={f"{role}@example.org": role}), db_path)
    app.user = {"is_logged_in": True, "iat": time.time(), "sub": f"{role}-1", "name": f"{role.title()} Person",
                "email": f"{role}@example.org", "iss": "https://idp.example.org"}
    _open(app)
    assert not [s for s in app.subheader if s.value == "Webhooks"]
    assert not [t for t in app.text_input if t.key == "wh-url"]
    assert any("Only an admin or above may change the app's settings" in i.value for i in app.info)


def test_the_app_process_runs_one_dispatcher_that_sends(app, db_path, make_debate, monkeypatch):
    from test_webhooks import Receiver

    from debate_core.core.identity import operator
    from debate_core.jobs import webhooks

    monkeypatch.delenv("DEBATE_WEBHOOKS")  # as on a real server: on unless turned off
    receiver = Receiver()
    try:
        store = DebateStore(db_path)
        try:
            hook = store.add_webhook(url=receiver.url, events=["debate.completed"], secret=None,
                                     actor=operator("Olga"))
        finally:
            store.close()
        _open(app)
        assert str(db_path) in webhooks._APP and webhooks.start_app_dispatcher(db_path) is False  # one only
        make_debate()
        deadline = time.monotonic() + 10
        while not receiver.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert receiver.types() == ["debate.completed"]
        Webhook(hook["secret"]).verify(receiver.requests[0]["body"], receiver.requests[0]["headers"])
    finally:
        webhooks.stop_app_dispatchers()
        receiver.close()
    assert webhooks._APP == {}
