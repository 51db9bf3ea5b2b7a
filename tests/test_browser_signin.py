"""Real sign-in, end to end: the workbench (`app.py`) behind an OpenID Connect provider, in Chromium.

A reviewer (Rita) signs in and opens the Escalations page with a query parameter naming a
supervisor: the page still acts as Rita and shows no supervisor controls, and a crafted store call
with her verified identity is refused. She signs out; a supervisor (Sam) signs in and approves the
escalated debate. The audit trail records Sam's verified identity (subject, e-mail, provider) and
the debate page shows it. Roles come from the settings file next to the database.

Needs Debian's chromium, the playwright Python package, Authlib and oidc-provider-mock
(see tests/oidc_support.py).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.oidc_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    free_port,
    put_user,
    sign_out,
    start_oidc_provider,
    start_streamlit,
    write_auth_secrets,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "data" / "cases" / "adat_minangkabau_inheritance.json"
RITA = {"email": "rita@example.org", "name": "Rita Reviewer"}
SAM = {"email": "sam@example.org", "name": "Sam Supervisor"}
WAIT = 30_000


def _cli(db: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "debate_core", "--db", str(db), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "DEBATE_DB": str(db)})
    assert done.returncode == 0, f"debate_core {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _escalated_debate(db: Path) -> str:
    out = _cli(db, "run", str(CASE), "--protocol", "cross_critique", "--quiet", "--json")
    debate_id = json.loads(out)["debate_id"]
    _cli(db, "review", debate_id, "--action", "escalate", "--reviewer", "ann", "--reason", "conflicting sources")
    return debate_id


def _review_state(db: Path, debate_id: str) -> str:
    from debate_core.store import DebateStore

    store = DebateStore(db, readonly=True)
    try:
        return store.get_debate(debate_id)["review_state"]
    finally:
        store.close()


@pytest.fixture
def workbench(tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing")
    pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
    pytest.importorskip("authlib", reason="st.login needs Authlib")
    if importlib.util.find_spec("oidc_provider_mock") is None:
        pytest.skip("oidc-provider-mock is not installed")

    from debate_core.core.app_settings import AppSettings, save_settings

    db = tmp_path / "debates.db"
    debate_id = _escalated_debate(db)
    assert _review_state(db, debate_id) == "escalated"
    save_settings(AppSettings(roles={"rita@example.org": "reviewer", "sam@example.org": "supervisor"}), db)

    issuer, stop_provider = start_oidc_provider(tmp_path)
    try:
        put_user(issuer, "rita", RITA)
        put_user(issuer, "sam", SAM)
        port = free_port()
        app_url = f"http://127.0.0.1:{port}"
        secrets_file = write_auth_secrets(tmp_path, issuer, app_url)
        url, stop_app = start_streamlit(ROOT / "app.py", secrets_file, port=port, cwd=ROOT,
                                        env={"DEBATE_DB": str(db)}, timeout=90)
        try:
            yield {"url": url, "issuer": issuer, "db": db, "id": debate_id}
        finally:
            stop_app()
    finally:
        stop_provider()


@pytest.fixture
def page(workbench, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        pg.set_default_timeout(WAIT)
        try:
            yield pg
        finally:
            browser.close()


@pytest.fixture
def shot_on_failure(page, tmp_path):
    """Call with a block's exception to keep a screenshot: pytest does not throw a test's failure into
    its fixtures, so the test body does this itself."""
    def keep() -> None:
        path = tmp_path / "failure.png"
        try:
            page.screenshot(path=str(path), full_page=True)
        except Exception as exc:  # noqa: BLE001 - the screenshot is a courtesy; the failure itself matters
            print(f"no screenshot: {exc}")
        else:
            print(f"screenshot: {path}; app log: {tmp_path / 'streamlit.log'}; "
                  f"provider log: {tmp_path / 'oidc_provider.log'}")

    return keep


def _sign_in(page, app_url: str, sub: str) -> None:
    """tests/oidc_support.sign_in, with the sidebar's "Sign in" button: signed out, the workbench
    shows a second one in the main area, so the harness's page-wide locator is ambiguous."""
    if not page.url.startswith(app_url):
        _open(page, app_url)
    page.get_by_test_id("stSidebar").get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url("**/oauth2/authorize**", timeout=WAIT)
    page.locator("input[name=sub]").fill(sub)
    page.get_by_role("button", name="Authorize", exact=True).click()
    page.wait_for_url(lambda u: u.startswith(app_url) and "oauth2callback" not in u, timeout=WAIT)
    page.wait_for_load_state("load")


def _open(page, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("load")
    page.get_by_test_id("stSidebar").wait_for(timeout=WAIT)


def test_reviewer_is_refused_and_supervisor_approves_with_a_verified_audit_row(workbench, page, shot_on_failure):
    try:
        _scenario(workbench, page)
    except BaseException:
        shot_on_failure()
        raise


def _scenario(workbench, page) -> None:
    from playwright.sync_api import expect

    from debate_core.core import identity
    from debate_core.core.review_rules import RoleError
    from debate_core.store import DebateStore

    url, issuer, db, debate_id = workbench["url"], workbench["issuer"], workbench["db"], workbench["id"]
    sidebar = page.get_by_test_id("stSidebar")
    main = page.get_by_test_id("stMain")

    # Signed out, sign-in on: the workbench shows nothing but the sign-in.
    _open(page, url)
    expect(main.get_by_text("Sign in to open the workbench")).to_be_visible(timeout=WAIT)

    # 1. Rita signs in: the sidebar names her and her role from the settings file.
    _sign_in(page, url, "rita")
    expect(sidebar.get_by_text("Rita Reviewer")).to_be_visible(timeout=WAIT)
    expect(sidebar.get_by_text(re.compile(r"Role:\s*reviewer"))).to_be_visible(timeout=WAIT)

    # 2. A link naming a supervisor changes nothing: she is still Rita, a reviewer, with no controls.
    _open(page, f"{url}/escalations?reviewer=sam%20supervisor")
    expect(main.get_by_role("heading", name="Escalations")).to_be_visible(timeout=WAIT)
    expect(main.get_by_text("Decide on", exact=True)).to_be_visible(timeout=WAIT)
    expect(sidebar.get_by_text("Rita Reviewer")).to_be_visible(timeout=WAIT)
    expect(sidebar.get_by_text("Sam Supervisor")).to_have_count(0)
    expect(main.get_by_text("you have the reviewer role").first).to_be_visible(timeout=WAIT)
    expect(main.get_by_role("button", name="Approve verdict")).to_have_count(0)
    expect(main.get_by_text("Supervisor's decision")).to_have_count(0)
    expect(main.get_by_test_id("stButtonGroup")).to_have_count(0)

    # 3. A crafted call with Rita's verified identity is refused by the store itself.
    rita = identity.verified({"sub": "rita", **RITA, "iss": issuer}, "reviewer")
    store = DebateStore(db)
    try:
        with pytest.raises(RoleError):
            store.review(debate_id, action="approve", actor=rita, supervisor=True)
    finally:
        store.close()
    assert _review_state(db, debate_id) == "escalated"

    # 4. Sign out through the provider's end-session page: the app asks for sign-in again.
    sign_out(page, url)
    expect(main.get_by_text("Sign in to open the workbench")).to_be_visible(timeout=WAIT)
    expect(sidebar.get_by_text("Rita Reviewer")).to_have_count(0)

    # 5. Sam signs in and approves the escalated debate.
    _sign_in(page, url, "sam")
    expect(sidebar.get_by_text("Sam Supervisor")).to_be_visible(timeout=WAIT)
    expect(sidebar.get_by_text(re.compile(r"Role:\s*supervisor"))).to_be_visible(timeout=WAIT)
    _open(page, f"{url}/escalations")
    expect(main.get_by_text("Decide on", exact=True)).to_be_visible(timeout=WAIT)
    decision = main.get_by_test_id("stButtonGroup")
    expect(decision).to_be_visible(timeout=WAIT)
    decision.get_by_text("Approve", exact=True).click()
    note = main.get_by_label("Note (optional)")
    expect(note).to_be_visible(timeout=WAIT)
    note.fill("Sources reconciled: the adat record governs the sawah.")
    main.get_by_role("button", name="Approve verdict").click()
    success = main.get_by_test_id("stAlertContentSuccess").filter(has_text="Sam Supervisor")
    expect(success.first).to_be_visible(timeout=WAIT)

    # 6. The audit trail keeps Sam's verified identity.
    assert _review_state(db, debate_id) != "escalated"
    store = DebateStore(db, readonly=True)
    try:
        last = store.get_debate(debate_id)["reviews"][-1]
    finally:
        store.close()
    assert last["reviewer"] == "Sam Supervisor"
    assert last["role"] == "supervisor"
    assert last["action"] == "approve"
    assert last["actor_kind"] == "verified"
    assert last["actor_email"] == "sam@example.org"
    assert last["actor_subject"] == "sam"
    assert last["actor_provider"].rstrip("/") == issuer.rstrip("/")
    assert last["reason"] == "Sources reconciled: the adat record governs the sawah."

    _open(page, f"{url}/debate?id={debate_id}")
    expander = main.get_by_test_id("stExpander").filter(has_text=re.compile(r"Audit trail"))
    expect(expander.first).to_be_visible(timeout=WAIT)
    expander.first.get_by_text(re.compile(r"Audit trail")).first.click()
    grid = expander.first.get_by_test_id("stDataFrame").last
    expect(grid).to_be_visible(timeout=WAIT)
    # The table is drawn on a canvas; its cells' text lives in the grid's accessible (hidden) table,
    # which is what a screen reader reads, so that is where the row is looked for.
    cells = grid.locator("[role=gridcell]")
    expect(cells.filter(has_text=re.compile(r"^signed in \(sam@example\.org")).first).to_be_attached(timeout=WAIT)
    expect(cells.filter(has_text=re.compile(r"^Sam Supervisor$")).first).to_be_attached(timeout=WAIT)
