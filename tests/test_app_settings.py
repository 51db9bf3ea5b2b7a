"""Settings page: supervisors and provider defaults are saved next to the database; keys never are."""

from __future__ import annotations

import json

from debate_core.core.app_settings import AppSettings, load_settings, save_settings, settings_path


def _open(app):
    app.run()
    app.switch_page("pages/settings.py").run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def test_supervisors_are_shown_not_edited_and_saving_keeps_them(app, db_path):
    # Without sign-in anyone may type any name, so the list comes from the file and the page only shows it.
    save_settings(AppSettings(supervisors=["Sue", "Tom"]), db_path)
    _open(app)
    assert not [t for t in app.text_area if t.key == "s-supervisors"]
    assert any("- Sue" in m.value and "- Tom" in m.value for m in app.markdown)
    app.radio(key="s-provider").set_value("openai")
    # No visitor changes which server everyone's form points to: the base URL is not on the form.
    assert not [t for t in app.text_input if t.key == "s-base-url"]
    app.text_input(key="s-model").set_value("qwen2.5-0.5b")
    app.button[0].click()  # the form's submit button
    app.run()
    assert not app.exception
    saved = load_settings(db_path)
    assert saved.supervisors == ["Sue", "Tom"]
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
