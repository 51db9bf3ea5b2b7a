"""Each role's pages under AppTest, in local mode and signed in: what is offered, and what is not."""

from __future__ import annotations

import time

import pytest

from debate_core.core.app_settings import AppSettings, save_settings

USERS = {role: {"is_logged_in": True, "iat": time.time(), "sub": f"{role}-1", "name": f"{role.title()} Person",
                "email": f"{role}@example.org", "iss": "https://idp.example.org"}
         for role in ("viewer", "reviewer", "supervisor", "admin")}


@pytest.fixture
def roles(db_path):
    save_settings(AppSettings(roles={f"{r}@example.org": r for r in ("reviewer", "supervisor", "admin")}), db_path)


def _page(app, page: str):
    app.switch_page(page).run()
    assert not app.exception, [e.message for e in app.exception]
    return app


@pytest.mark.parametrize("role, may_start", [("viewer", False), ("reviewer", True), ("supervisor", True),
                                             ("admin", True)])
def test_new_debate_and_evaluations_by_role(app, roles, role, may_start):
    app.user = USERS[role]
    app.run()
    _page(app, "pages/new_debate.py")
    assert app.button(key="nd-start").disabled is not may_start
    assert any("you have the viewer role" in i.value for i in app.info) is not may_start
    _page(app, "pages/evaluations.py")
    assert bool([e for e in app.expander if e.label == "Start an evaluation"]) is may_start


@pytest.mark.parametrize("role, may_change", [("viewer", False), ("reviewer", False), ("supervisor", False),
                                              ("admin", True)])
def test_settings_by_role(app, roles, role, may_change):
    app.user = USERS[role]
    app.run()
    _page(app, "pages/settings.py")
    assert app.button(key="FormSubmitter:settings-form-Save settings").disabled is not may_change
    # The price table is edited by admins only.
    assert bool([t for t in app.text_input if t.key == "p-currency"]) is may_change


@pytest.mark.parametrize("local_role, may_start", [("viewer", False), ("reviewer", True)])
def test_local_mode_uses_the_operators_role(app, monkeypatch, local_role, may_start):
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", local_role)
    app.run()
    assert app.button(key="nd-start").disabled is not may_start
    assert any(f"Everyone here acts with the **{local_role}** role" in c.value for c in app.sidebar.caption)
