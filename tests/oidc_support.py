"""Helpers for signing in through a real OpenID Connect provider in browser tests.

The provider is the PyPI package ``oidc-provider-mock`` run as a subprocess
(``python -m oidc_provider_mock --port N``). It accepts any client id/secret (no registration
unless started with ``--require-registration``), takes users through ``PUT /users/{sub}`` with the
claims as the JSON body, and its authorize page is a form with a ``sub`` text field and an
"Authorize" button. Its issuer is taken from the request's Host header, so the Streamlit server
and the browser must reach it at the same address (here always ``http://127.0.0.1:PORT``).

Streamlit's side (``st.login`` / ``st.user`` / ``st.logout``, Authlib required) is configured by
an ``[auth]`` section in a secrets file; :func:`start_streamlit` passes that file with
``--secrets.files PATH`` so the working directory can stay the repository. The browser must open
the app at the same origin as ``redirect_uri`` (``http://127.0.0.1:PORT``): the identity cookie
records that origin and Streamlit ignores it when the WebSocket's Origin differs.

No tests live here; see tests/test_oidc_harness.py for a worked example.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
USER_COOKIE = "_streamlit_user"
TOKENS_COOKIE = "_streamlit_user_tokens"
CLIENT_ID = "debate-workbench-tests"
CLIENT_SECRET = "debate-workbench-tests-secret"  # any value works: the mock does not check it


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(url: str, proc: subprocess.Popen, what: str, log: Path | None, timeout: float) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log and log.exists() else ""
            raise RuntimeError(f"{what} exited early with code {proc.returncode}\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{what} did not answer {url} within {timeout} s")


def _stopper(proc: subprocess.Popen, log_file: Any) -> Callable[[], None]:
    def stop() -> None:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log_file.close()

    return stop


def start_oidc_provider(tmp_path: Path, port: int | None = None,
                        extra_args: list[str] | None = None,
                        timeout: float = 30) -> tuple[str, Callable[[], None]]:
    """Start oidc-provider-mock on 127.0.0.1; return (issuer_url, stop).

    The issuer URL has no trailing slash, e.g. ``http://127.0.0.1:41234``; its discovery
    document is ``{issuer}/.well-known/openid-configuration``. ``extra_args`` go to the CLI
    (e.g. ``["--token-max-age", "5"]``, ``["--require-nonce"]``). Output goes to
    ``tmp_path / "oidc_provider.log"``.
    """
    port = port or free_port()
    log_path = Path(tmp_path) / "oidc_provider.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed by stop()
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "oidc_provider_mock", "--port", str(port), "--host", "127.0.0.1",
         *(extra_args or [])],
        stdout=log, stderr=subprocess.STDOUT, env=env,
    )
    stop = _stopper(proc, log)
    issuer = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{issuer}/.well-known/openid-configuration", proc, "oidc-provider-mock", log_path, timeout)
    except BaseException:
        stop()
        raise
    return issuer, stop


def put_user(issuer: str, sub: str, claims: Mapping[str, Any]) -> None:
    """Create or replace user ``sub`` with these claims (``PUT /users/{sub}``, body = claims).

    Standard claims are released only for their scope (``email``/``email_verified`` need scope
    ``email``; ``name``, ``preferred_username``, ... need ``profile``); Streamlit asks for
    ``openid email profile``. Non-standard claims (e.g. ``groups``) are always released.
    """
    req = urllib.request.Request(
        f"{issuer}/users/{urllib.request.quote(sub, safe='')}",
        data=json.dumps(dict(claims)).encode(), method="PUT",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        if r.status not in (200, 204):
            raise RuntimeError(f"PUT /users/{sub} answered {r.status}")


def write_auth_secrets(folder: Path, issuer: str, app_url: str, *,
                       cookie_secret: str | None = None,
                       client_id: str = CLIENT_ID, client_secret: str = CLIENT_SECRET) -> Path:
    """Write ``folder/.streamlit/secrets.toml`` with an ``[auth]`` section; return its path.

    ``app_url`` is where the browser opens the app, e.g. ``http://127.0.0.1:8765`` (no trailing
    slash); it must be the same origin the browser uses.
    """
    cookie_secret = cookie_secret or secrets.token_hex(32)
    path = Path(folder) / ".streamlit" / "secrets.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "[auth]\n"
        f"redirect_uri = {json.dumps(app_url.rstrip('/') + '/oauth2callback')}\n"
        f"cookie_secret = {json.dumps(cookie_secret)}\n"
        f"client_id = {json.dumps(client_id)}\n"
        f"client_secret = {json.dumps(client_secret)}\n"
        f"server_metadata_url = {json.dumps(issuer.rstrip('/') + '/.well-known/openid-configuration')}\n"
    )
    return path


def start_streamlit(script: str | Path, secrets_file: str | Path, *, port: int,
                    cwd: str | Path | None = None, env: Mapping[str, str] | None = None,
                    log_path: str | Path | None = None, extra_args: list[str] | None = None,
                    timeout: float = 60) -> tuple[str, Callable[[], None]]:
    """``streamlit run script`` on 127.0.0.1:port reading exactly ``secrets_file``; return (url, stop).

    The secrets file is passed with ``--secrets.files PATH`` (which replaces the default search
    of ``~/.streamlit/secrets.toml`` and ``./.streamlit/secrets.toml``), so ``cwd`` can stay the
    repository root (default: the script's folder) and ``.streamlit/config.toml`` there still
    applies. ``port`` must be the one in the secrets' ``redirect_uri``. ``env`` is added to
    ``os.environ``. Output goes to ``log_path`` (default: ``streamlit.log`` next to the secrets'
    ``.streamlit`` folder).
    """
    script = Path(script)
    secrets_file = Path(secrets_file)
    cwd = Path(cwd) if cwd else script.parent
    log_path = Path(log_path) if log_path else secrets_file.parent.parent / "streamlit.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed by stop()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script),
         "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false", "--secrets.files", str(secrets_file),
         *(extra_args or [])],
        cwd=cwd, env={**os.environ, **(env or {})}, stdout=log, stderr=subprocess.STDOUT,
    )
    stop = _stopper(proc, log)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{url}/_stcore/health", proc, "streamlit", log_path, timeout)
    except BaseException:
        stop()
        raise
    return url, stop


def sign_in(page: Any, app_url: str, sub: str, *, button: str = "Sign in", timeout: float = 30_000) -> None:
    """Sign in as ``sub`` through the provider's form, starting from the app's ``button``.

    Opens ``app_url`` if the page is elsewhere, clicks the app's ``st.button(button)`` (which
    must call ``st.login()``), types ``sub`` into the provider's form, presses "Authorize" and
    waits until the browser is back on the app. Create the user with :func:`put_user` first to
    give it claims; an unknown ``sub`` is created by the provider with ``{"email": sub}``.
    """
    if not page.url.startswith(app_url):
        page.goto(app_url)
    page.get_by_role("button", name=button, exact=True).click(timeout=timeout)
    page.wait_for_url("**/oauth2/authorize**", timeout=timeout)
    page.locator("input[name=sub]").fill(sub)
    page.get_by_role("button", name="Authorize", exact=True).click(timeout=timeout)
    page.wait_for_url(lambda u: u.startswith(app_url) and "oauth2callback" not in u, timeout=timeout)
    page.wait_for_load_state("load")


def sign_out(page: Any, app_url: str | None = None, *, button: str = "Sign out",
             timeout: float = 30_000) -> None:
    """Click the app's ``st.button(button)`` (calling ``st.logout()``) and wait for the app again.

    Streamlit clears its cookies and, because the provider advertises an
    ``end_session_endpoint``, sends the browser to the provider's "End session" page; this
    presses its button and waits for the redirect back (via ``/oauth2callback``) to the app.
    """
    page.get_by_role("button", name=button, exact=True).click(timeout=timeout)
    page.wait_for_url("**/oauth2/end_session**", timeout=timeout)
    page.get_by_role("button", name="End session", exact=True).click(timeout=timeout)
    if app_url:
        page.wait_for_url(lambda u: u.startswith(app_url) and "oauth2callback" not in u, timeout=timeout)
    else:
        page.wait_for_url(lambda u: "/oauth2/" not in u and "oauth2callback" not in u, timeout=timeout)
    page.wait_for_load_state("load")


def forge_user_cookie(cookie_secret: str, claims: Mapping[str, Any], app_url: str, *,
                      provider: str = "default", age_seconds: float = 0) -> str:
    """A ``_streamlit_user`` cookie value as Streamlit would sign it (itsdangerous, salt = name).

    ``age_seconds`` backdates the signature timestamp: Streamlit rejects values older than
    31 days (30-day cookie + 1 day grace). Useful to show an expired cookie to the app without
    waiting, or to sign in without the provider when the flow itself is not under test.
    """
    from itsdangerous import URLSafeTimedSerializer

    class _Backdated(URLSafeTimedSerializer.default_signer):  # type: ignore[misc,name-defined]
        def get_timestamp(self) -> int:
            return int(time.time() - age_seconds)

    payload = dict(claims, origin=app_url.rstrip("/"), is_logged_in=True, provider=provider)
    ser = URLSafeTimedSerializer(cookie_secret, salt=USER_COOKIE, signer=_Backdated)
    return ser.dumps(json.dumps(payload))


def set_cookie(page: Any, app_url: str, name: str, value: str) -> None:
    """Replace cookie ``name`` for the app's origin in the page's browser context."""
    page.context.add_cookies([{"name": name, "value": value, "url": app_url.rstrip("/") + "/",
                               "httpOnly": True, "sameSite": "Lax"}])


def cookie_value(page: Any, name: str) -> str | None:
    """The current value of cookie ``name`` in the page's browser context (None when absent)."""
    for c in page.context.cookies():
        if c["name"] == name:
            return c["value"]
    return None


__all__ = [
    "CHROMIUM", "CHROMIUM_ARGS", "CLIENT_ID", "CLIENT_SECRET", "TOKENS_COOKIE", "USER_COOKIE",
    "cookie_value", "forge_user_cookie", "free_port", "put_user", "set_cookie", "sign_in", "sign_out",
    "start_oidc_provider", "start_streamlit", "write_auth_secrets",
]
