"""Settings page: roles and provider defaults are saved next to the database; keys never are."""

from __future__ import annotations

import json
import time

import pytest

from debate_core.core.app_settings import AppSettings, load_settings, save_settings, settings_path
from debate_core.store import DebateStore


def _open(app):
    app.run()
    app.switch_page("pages/settings.py").run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def test_an_old_supervisors_list_is_explained_and_saving_keeps_roles(app, db_path):
    # Names typed without sign-in are labels: an old list of supervisor names gives no rights, and says so.
    save_settings(AppSettings(supervisors=["Sue", "Tom"], roles={"sue@example.org": "supervisor"}), db_path)
    _open(app)
    assert any("old `supervisors` list" in w.value and "Sue, Tom" in w.value for w in app.warning)
    assert any("Local mode: no sign-in" in w.value for w in app.warning)
    app.radio(key="s-provider").set_value("openai")
    # No visitor changes which server everyone's form points to: the base URL is not on the form.
    assert not [t for t in app.text_input if t.key == "s-base-url"]
    app.text_input(key="s-model").set_value("qwen2.5-0.5b")
    app.button(key="FormSubmitter:settings-form-Save settings").click()
    app.run()
    assert not app.exception
    saved = load_settings(db_path)
    assert saved.roles == {"sue@example.org": "supervisor"}
    assert (saved.default_provider, saved.openai_model) == ("openai", "qwen2.5-0.5b")
    assert any("Saved to" in s.value for s in app.success)
    # The default provider shows in the sidebar and is preselected on New debate.
    app.switch_page("pages/new_debate.py").run()
    assert app.radio(key="nd-provider").value == "openai"
    assert app.text_input(key="nd-model").value == "qwen2.5-0.5b"


def test_api_key_stays_in_the_session(app, db_path):
    _open(app)
    app.text_input(key="api-key-settings").set_value("sk-secret-123").run()
    assert app.session_state["openai_api_key"] == "sk-secret-123"
    app.button[0].click()
    app.run()
    text = settings_path(db_path).read_text()
    assert "sk-secret" not in text
    assert "api_key" not in json.loads(text)
    # The key follows the reviewer to New debate within the session.
    app.switch_page("pages/new_debate.py").run()
    app.radio(key="nd-provider").set_value("openai").run()
    assert app.text_input(key="api-key-new").value == "sk-secret-123"


def test_a_broken_settings_file_is_explained(app, db_path):
    db_path.parent.mkdir(parents=True, exist_ok=True)
    settings_path(db_path).write_text("{not json")
    _open(app)
    assert any("not valid JSON" in e.value for e in app.error)


ADMIN = {"is_logged_in": True, "iat": time.time(), "sub": "ad-1", "name": "Ada Admin", "email": "ada@example.org", "iss": "https://idp"}
REVIEWER = {"is_logged_in": True, "iat": time.time(), "sub": "r-1", "name": "Rita", "email": "rita@example.org", "iss": "https://idp"}


def test_an_admin_manages_roles_and_the_change_is_audited(app, db_path):
    save_settings(AppSettings(roles={"ada@example.org": "admin"}), db_path)
    app.user = ADMIN
    _open(app)
    app.selectbox(key="s-default-role").set_value("reviewer")
    app.text_input(key="s-role-claim").set_value("groups")
    app.text_area(key="s-claim-roles").set_value("debate-supervisors = supervisor")
    app.button(key="FormSubmitter:roles-form-Save roles").click().run()
    assert not app.exception
    saved = load_settings(db_path)
    assert (saved.default_role, saved.role_claim, saved.claim_roles, saved.roles) == (
        "reviewer", "groups", {"debate-supervisors": "supervisor"}, {"ada@example.org": "admin"})
    rows = DebateStore(db_path, readonly=True).audit_log()
    assert [(r["action"], r["reviewer"], r["actor_kind"], r["actor_email"]) for r in rows] == [
        ("roles", "Ada Admin", "verified", "ada@example.org")]
    # A bad line is refused with the reason, and nothing is saved.
    app.text_area(key="s-claim-roles").set_value("debate-supervisors supervisor")
    app.button(key="FormSubmitter:roles-form-Save roles").click().run()
    assert any("Roles not saved: write each claim line as" in e.value for e in app.error), [e.value for e in app.error]
    assert load_settings(db_path).claim_roles == {"debate-supervisors": "supervisor"}


def test_a_reviewer_reads_the_settings_but_cannot_change_them(app, db_path):
    save_settings(AppSettings(roles={"rita@example.org": "reviewer"}), db_path)
    app.user = REVIEWER
    _open(app)
    assert any("Only an admin or above may change the app's settings; you have the reviewer role" in i.value
               for i in app.info)
    assert app.button(key="FormSubmitter:settings-form-Save settings").disabled
    assert app.button(key="FormSubmitter:roles-form-Save roles").disabled
    # The store refuses a crafted save as well, whatever the page draws.
    from debate_core.core.identity import PermissionRefused, verified

    with pytest.raises(PermissionRefused, match="Rita has the reviewer role"):
        DebateStore(db_path).record_action(verified(REVIEWER, "reviewer"), "settings", permission="manage_settings",
                                           apply=lambda: save_settings(AppSettings(), db_path), detail="x")
    assert load_settings(db_path).roles == {"rita@example.org": "reviewer"}
