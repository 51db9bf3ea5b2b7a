"""The OpenID Connect harness (tests/oidc_support.py) against a tiny Streamlit script.

A real provider (oidc-provider-mock), a real `streamlit run` reading a real secrets file through
`--secrets.files`, and headless Chromium: sign in, read st.user, sign out, then show the app a
tampered and an expired identity cookie. The script is written into tmp_path so this test does
not depend on the workbench's own sign-in UI; Streamlit runs from the repository root.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from tests.oidc_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    USER_COOKIE,
    cookie_value,
    forge_user_cookie,
    free_port,
    put_user,
    set_cookie,
    sign_in,
    sign_out,
    start_oidc_provider,
    start_streamlit,
    write_auth_secrets,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = '''
import json
import streamlit as st

user = st.user.to_dict()
st.text("USER " + json.dumps(user, sort_keys=True, default=str))
st.text("COOKIES " + json.dumps({k: v for k, v in st.context.cookies.items()}, sort_keys=True))
if user.get("is_logged_in"):
    if st.button("Sign out"):
        st.logout()
else:
    if st.button("Sign in"):
        st.login()
'''

CLAIMS = {"email": "ada@example.org", "name": "Ada Lovelace", "groups": ["debate-supervisors"]}


def _shown(page, label: str) -> dict:
    from playwright.sync_api import expect

    box = page.get_by_test_id("stText").filter(has_text=re.compile(f"^{label} "))
    expect(box).to_have_count(1)
    return json.loads(box.inner_text().removeprefix(f"{label} "))


def _fresh_load(page, url: str, label: str = "USER") -> dict:
    page.goto(url)
    page.wait_for_load_state("load")
    return _shown(page, label)


@pytest.fixture
def oidc_app(tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing")
    pytest.importorskip("playwright.sync_api")
    pytest.importorskip("authlib", reason="st.login needs Authlib")
    if importlib.util.find_spec("oidc_provider_mock") is None:
        pytest.skip("oidc-provider-mock is not installed")

    issuer, stop_provider = start_oidc_provider(tmp_path)
    try:
        port = free_port()
        app_url = f"http://127.0.0.1:{port}"
        secrets_file = write_auth_secrets(tmp_path, issuer, app_url, cookie_secret="s3cret-for-tests-" + "x" * 16)
        script = tmp_path / "auth_probe.py"
        script.write_text(SCRIPT)
        url, stop_app = start_streamlit(script, secrets_file, port=port, cwd=ROOT)
        try:
            yield {"issuer": issuer, "url": url, "secrets": secrets_file,
                   "cookie_secret": "s3cret-for-tests-" + "x" * 16}
        finally:
            stop_app()
    finally:
        stop_provider()


@pytest.fixture
def page(oidc_app, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        pg = browser.new_page(viewport={"width": 1200, "height": 900})
        pg.set_default_timeout(20_000)
        try:
            yield pg
        except BaseException:
            pg.screenshot(path=str(tmp_path / "failure.png"))
            raise
        finally:
            browser.close()


def test_sign_in_read_claims_sign_out_and_reject_bad_cookies(oidc_app, page):
    url, issuer = oidc_app["url"], oidc_app["issuer"]
    findings: dict[str, object] = {}
    put_user(issuer, "ada", CLAIMS)

    # Not signed in: st.user only says so.
    assert _fresh_load(page, url) == {"is_logged_in": False}

    # Sign in through the provider's form.
    sign_in(page, url, "ada")
    user = _shown(page, "USER")
    findings["signed_in_user"] = user
    assert user["is_logged_in"] is True
    assert user["sub"] == "ada"
    assert user["email"] == CLAIMS["email"]
    assert user["name"] == CLAIMS["name"]
    assert user["groups"] == CLAIMS["groups"]
    assert user["iss"] == issuer
    assert user["provider"] == "default"
    assert "origin" not in user
    assert user["tokens"] == {}  # raw tokens only with [auth] expose_tokens = ["id", "access"]
    good_cookie = cookie_value(page, USER_COOKIE)
    assert good_cookie
    findings["signed_in_cookie_names"] = sorted(_shown(page, "COOKIES"))

    # The cookie outlives the session: a new page load is still signed in.
    assert _fresh_load(page, url)["sub"] == "ada"

    # Sign out: provider's end-session page, then back to the app, signed out, cookie gone.
    sign_out(page, url)
    assert _shown(page, "USER") == {"is_logged_in": False}
    assert cookie_value(page, USER_COOKIE) is None
    findings["after_sign_out_cookies"] = sorted(_shown(page, "COOKIES"))

    # Tampered cookie: one changed character inside the signed value. Not the last character: in a
    # signature written in base64 or hex case-insensitively, changing it can leave the decoded
    # signature as it was (unused low bits, or only the letter's case), and the cookie would pass.
    middle = len(good_cookie) // 2
    flipped = "7" if good_cookie[middle] != "7" else "3"
    tampered = good_cookie[:middle] + flipped + good_cookie[middle + 1:]
    set_cookie(page, url, USER_COOKIE, tampered)
    user = _fresh_load(page, url)
    cookies = _shown(page, "COOKIES")
    findings["tampered"] = {"user": user, "raw_cookie_visible": cookies.get(USER_COOKIE) == tampered}
    assert user == {"is_logged_in": False}
    assert cookies.get(USER_COOKIE) == tampered

    # Expired cookie: correctly signed, 40 days old (Streamlit accepts 31 at most).
    secret = oidc_app["cookie_secret"]
    payload = {"sub": "ada", "iss": issuer, **CLAIMS}
    expired = forge_user_cookie(secret, payload, url, age_seconds=40 * 86400)
    set_cookie(page, url, USER_COOKIE, expired)
    user = _fresh_load(page, url)
    cookies = _shown(page, "COOKIES")
    findings["expired"] = {"user": user, "raw_cookie_visible": cookies.get(USER_COOKIE) == expired}
    assert user == {"is_logged_in": False}
    assert cookies.get(USER_COOKIE) == expired

    # The same forged value signed now is accepted: the cookie alone is the whole session.
    set_cookie(page, url, USER_COOKIE, forge_user_cookie(secret, payload, url))
    user = _fresh_load(page, url)
    findings["forged_fresh"] = user
    assert user["is_logged_in"] is True and user["groups"] == CLAIMS["groups"]

    print("OIDC_FINDINGS " + json.dumps(findings, sort_keys=True))
