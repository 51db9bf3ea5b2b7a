"""The app shell: navigation, the shared sidebar, the reviewer's identity and recovery of dead runs."""

from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

from debate_core.core.app_settings import AppSettings, save_settings
from debate_core.jobs import worker
from debate_core.store import DebateStore


def test_sidebar_shows_reviewer_database_and_offline_provider(app, db_path):
    app.run()
    assert not app.exception
    assert app.sidebar.text_input(key="reviewer-input").value == ""
    assert str(db_path) in [c.value for c in app.sidebar.code]
    assert "**offline \\(rule\\-based agents, no model\\)**" in [m.value for m in app.sidebar.markdown]


def test_reviewer_name_survives_page_changes(app):
    app.run()
    app.sidebar.text_input(key="reviewer-input").set_value("ann").run()
    for page in ("pages/history.py", "pages/analytics.py", "pages/new_debate.py"):
        app.switch_page(page).run()
        assert app.sidebar.text_input(key="reviewer-input").value == "ann"
    assert app.session_state["reviewer_name"] == "ann"


def test_local_mode_says_names_are_labels_and_whose_role_applies(app, db_path, monkeypatch):
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "reviewer")
    save_settings(AppSettings(roles={"sue": "supervisor"}), db_path)
    app.run()
    app.sidebar.text_input(key="reviewer-input").set_value("sue").run()
    assert any("Local mode: no sign-in; names are labels, not identities." in i.value for i in app.sidebar.info)
    assert any("Everyone here acts with the **reviewer** role" in c.value for c in app.sidebar.caption)


def test_a_signed_in_person_gets_the_role_of_their_verified_email_or_group(app, db_path):
    save_settings(AppSettings(roles={"sue@example.org": "supervisor"}, role_claim="groups",
                              claim_roles={"workbench-admins": "admin"}), db_path)
    app.user = {"is_logged_in": True, "iat": time.time(), "sub": "s-1", "name": "Sue", "email": "sue@example.org", "iss": "https://idp"}
    app.run()
    assert any("Role: **supervisor**" in c.value for c in app.sidebar.caption)
    app.user = {"is_logged_in": True, "iat": time.time(), "sub": "x-9", "name": "Max", "groups": ["workbench-admins"], "iss": "https://idp"}
    app.run()
    assert any("Role: **admin**" in c.value for c in app.sidebar.caption)
    app.user = {"is_logged_in": True, "iat": time.time(), "sub": "n-1", "name": "Nia", "iss": "https://idp"}
    app.run()
    assert any("Role: **viewer**" in c.value for c in app.sidebar.caption)


def test_signed_in_user_is_the_reviewer_when_authentication_is_configured(app, make_debate, db_path):
    debate_id = make_debate()
    save_settings(AppSettings(roles={"ann@example.org": "reviewer"}), db_path)
    app.user = {"is_logged_in": True, "iat": time.time(), "sub": "a-1", "name": "Ann Reviewer", "email": "ann@example.org"}
    app.run()
    assert not app.sidebar.text_input, "no free-text name when the user is signed in"
    assert any("Ann Reviewer" in m.value for m in app.sidebar.markdown)
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    app.run()
    app.button_group(key=f"decision-{debate_id}").set_value("Accept").run()
    app.button(key=f"accept-{debate_id}").click().run()
    row = DebateStore(db_path, readonly=True).reviews(debate_id)[0]
    assert (row["reviewer"], row["actor_kind"], row["actor_subject"]) == ("Ann Reviewer", "verified", "a-1")


def test_signed_out_user_is_offered_sign_in(app):
    app.user = {"is_logged_in": False}
    app.run()
    assert not app.exception
    assert [b.label for b in app.sidebar.button] == ["Sign in"]
    # Nothing of the team's work is shown before sign-in.
    assert any("Sign in to open the workbench" in i.value for i in app.info)
    assert not [t for t in app.title if t.value == "New debate"]


def test_a_page_run_on_its_own_reenters_the_navigation(db_path):
    # Without the conftest patch AppTest runs a switched-to page file alone, as a real server does
    # for a deep link that is its very first request; page_setup must bring back the app shell.
    from conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=60).run()
    at.switch_page("pages/history.py").run()
    assert not at.exception
    assert at.title[0].value == "History"
    assert at.sidebar.text_input(key="reviewer-input") is not None


def test_debates_of_a_dead_process_are_marked_when_the_app_runs(app, db_path):
    from helpers import small_case

    store = DebateStore(db_path)
    dead = store.create_debate(small_case(), "cross_critique", {"provider": "offline"},
                               {"runner": {"pid": 2**22 + 17, "host": worker.runner_info()["host"]}})
    store.close()
    app.run()
    assert not app.exception
    debate = DebateStore(db_path, readonly=True).get_debate(dead, with_steps=False)
    assert debate["status"] == "failed"
    assert debate["error"].startswith("interrupted:")


def test_an_unexpected_page_error_is_explained_without_a_traceback(app, make_debate, monkeypatch):
    from debate_core.store import DebateStore

    make_debate()

    def broken(self, **_):
        raise RuntimeError("summary exploded")

    monkeypatch.setattr(DebateStore, "analytics_overall", broken)
    app.run()
    app.switch_page("pages/analytics.py").run()
    assert not app.exception
    [error] = [e.value for e in app.error]
    assert "unexpected error (RuntimeError: summary exploded)" in error
    assert "Traceback" not in error
    assert "Nothing was lost" not in error  # the page cannot know that; it says what is known
    assert "check whether your action was recorded" in error


def test_a_database_that_is_a_directory_is_one_sentence(app, db_path):
    db_path.mkdir()
    app.run()
    assert not app.exception
    [error] = [e.value for e in app.error]
    assert error.startswith("Cannot open the database") and error.endswith("it is a directory")


def test_a_sign_in_older_than_the_server_allows_is_refused_with_a_reason(app, db_path):
    save_settings(AppSettings(roles={"sue@example.org": "supervisor"}), db_path)
    day_old = time.time() - 25 * 3600
    app.user = {"is_logged_in": True, "auth_time": day_old, "iat": day_old, "sub": "s-1", "name": "Sue",
                "email": "sue@example.org", "iss": "https://idp"}
    app.run()
    assert not app.exception
    assert any("could not be verified: it expired" in w.value for w in app.sidebar.warning)
    assert [b.label for b in app.sidebar.button] == ["Sign in"]
    assert any("Sign in to open the workbench" in i.value for i in app.info)


def test_an_address_of_another_kind_is_refused_with_one_line_and_nothing_created(app, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEBATE_DB", "mysql://ann:s3cret@db.example.org/debates")
    app.run()
    assert not app.exception
    [error] = [e.value for e in app.error]  # markdown-escaped as every message is
    assert error.startswith("The app cannot start: cannot open the database") and "mysql" in error
    assert "is not supported" in error and "s3cret" not in error
    assert list(tmp_path.iterdir()) == []
