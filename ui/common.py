"""What every page shares: the store handles, the settings, who is acting, and the sidebar."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from debate_core.core.app_settings import AppSettings, AppSettingsError, load_settings
from debate_core.core.credentials import ServerCredentials
from debate_core.core.credentials import server_credentials as read_server_credentials
from debate_core.core.identity import (
    LOCAL_MODE_NOTICE,
    Actor,
    local_label,
    local_role,
    session_hours,
    sign_in_age_exceeded,
    verified,
)
from debate_core.jobs import queue, webhooks, worker
from debate_core.present import formatting
from debate_core.store import (
    DebateStore,
    StoreError,
    default_db_path,
    is_postgres_url,
    redacted,
    unsupported_url,
)

PAGES = {
    "new": "pages/new_debate.py",
    "debate": "pages/debate.py",
    "history": "pages/history.py",
    "compare": "pages/compare.py",
    "escalations": "pages/escalations.py",
    "analytics": "pages/analytics.py",
    "evaluations": "pages/evaluations.py",
    "settings": "pages/settings.py",
}


def db_path() -> Path:
    # Read on every run, not cached: DEBATE_DB decides, and tests point each app at its own file.
    return default_db_path()


@st.cache_resource(show_spinner=False)
def _prepared(path: str) -> bool:
    """Create and migrate the database once per process, so pages can open it read-only."""
    store = DebateStore(path)
    try:
        stale = load_settings_quietly(path).stale_after_minutes * 60
        worker.recover_interrupted(store, stale_after=stale)
    finally:
        store.close()
    if is_postgres_url(path) and queue.app_worker_wanted():
        # Debates on a PostgreSQL store are jobs on its queue: this process takes some too, so one
        # app server needs nothing else started (worker machines add more; DEBATE_APP_WORKER=0 stops it).
        queue.start_app_worker(path)
    if webhooks.dispatcher_wanted():
        # Webhook deliveries wait in the store's outbox; this process sends them (DEBATE_WEBHOOKS=0 stops it).
        webhooks.start_app_dispatcher(path)
    return True


def read_store() -> DebateStore:
    """A read-only connection for this script run; pages never write through it."""
    path = db_path()
    _prepared(str(path))
    return DebateStore(path, readonly=True)


def recover_interrupted() -> None:
    """Mark debates whose process died as interrupted; cheap when there are none."""
    store = read_store()
    try:
        stale = load_settings_quietly().stale_after_minutes * 60
        found = worker.find_interrupted(store, stale_after=stale)
    finally:
        store.close()
    if found:
        writable = write_store()
        try:
            worker.recover_interrupted(writable, stale_after=stale)
        finally:
            writable.close()


def write_store() -> DebateStore:
    """A writable connection for one action (a review, settings that touch the store). Close it after."""
    path = db_path()
    _prepared(str(path))
    return DebateStore(path)


def load_settings_quietly(path: str | Path | None = None) -> AppSettings:
    try:
        return load_settings(path or db_path())
    except AppSettingsError:
        return AppSettings()


def app_settings() -> AppSettings:
    """The saved settings; a broken settings file is reported once per run and the defaults used."""
    try:
        return load_settings(db_path())
    except AppSettingsError as exc:
        st.warning(f"{formatting.md_escape(exc)}. Using the default settings until it is fixed on the Settings page.")
        return AppSettings()


def auth_configured() -> bool:
    # st.user only carries is_logged_in when an [auth] section is configured in secrets.
    return "is_logged_in" in st.user


# The cookie Streamlit keeps a signed-in identity in; present yet not accepted means expired or altered.
IDENTITY_COOKIE = "_streamlit_user"


def actor() -> Actor | None:
    """Who is acting, from what this server can vouch for, and nothing a visitor types or links.

    With sign-in configured: the signed-in person (claims from the identity provider's token, role
    from the settings file or a claim), or None before sign-in. Without it (local mode): the
    name typed in the sidebar as an unverified label, with the one role the operator chose for
    local mode (DEBATE_LOCAL_ROLE; every right by default, for one person on a laptop)."""
    if auth_configured():
        if not st.user.get("is_logged_in"):
            return None
        claims = st.user.to_dict()
        if sign_in_age_exceeded(claims, now=time.time(), max_hours=session_hours(_secrets())):
            return None
        return verified(claims, load_settings_quietly().role_of(claims))
    return local_label(str(st.session_state.get(REVIEWER_KEY) or ""), local_role(os.environ, _secrets()))


def may(permission: str) -> bool:
    """Whether the acting person may take an action: a courtesy for drawing controls. The store
    checks again when the action is written."""
    who = actor()
    return bool(who and who.may(permission))


def reviewer() -> str:
    """The acting person's name (empty before sign-in, or before a name is typed in local mode)."""
    who = actor()
    return who.name if who else ""


def refusal(permission: str) -> str:
    """Why the acting person may not take an action, in plain words, for a page to show instead of it."""
    from debate_core.core.identity import NAMED_PERMISSIONS, PERMISSIONS

    needed, what = PERMISSIONS[permission]
    who = actor()
    if who is None:
        return f"Sign in to {what}."
    if not who.has(needed):
        article = "an" if needed == "admin" else "a"
        return f"Only {article} {needed} or above may {what}; you have the {who.role} role."
    if not who.name.strip() and permission in NAMED_PERMISSIONS:
        return f"Enter your name in the sidebar to {what}."
    return ""


def page_config() -> None:
    st.set_page_config(page_title="Debate review workbench", page_icon=":material/forum:", layout="wide")


def app_shell_setup() -> None:
    """What app.py does on every run before the page: recover dead debates, draw the shared sidebar."""
    refusal = unsupported_url(os.environ.get("DEBATE_DB"))
    if refusal:  # an address of a kind the store cannot open: say so before anything uses it
        st.error(f"The app cannot start: {formatting.md_escape(redacted(refusal))}.")
        st.stop()
    try:
        recover_interrupted()
    except Exception as exc:  # noqa: BLE001 - an unusable database is explained, not dumped as a traceback
        sidebar()
        if isinstance(exc, StoreError):  # already one line naming the file and the reason
            st.error(formatting.md_escape(str(exc)[:1].upper() + str(exc)[1:]))
        else:
            st.error(f"The database at {formatting.md_escape(redacted(db_path()))} cannot be opened: {formatting.md_escape(exc)}")
        st.stop()
    sidebar()
    if auth_configured() and actor() is None:
        # Sign-in is on: nothing of the team's work is shown to someone who has not signed in.
        st.title("Debate review workbench", anchor=False)
        st.info("Sign in to open the workbench: the button is in the sidebar.")
        if st.button("Sign in", type="primary", key="sign-in-main"):
            st.login()
        st.stop()


def page_setup() -> None:
    """First call of every page: make sure the page runs inside app.py's navigation.

    With a `pages/` folder next to the entry point, Streamlit runs a page file on its own (its
    older multipage mode) until some run in the process has called st.navigation: the first request
    after a server start, when it is a deep link such as /debate?id=..., and every AppTest run after
    switch_page. The page would then lack the shared sidebar and the real navigation, so it asks
    once for a rerun in navigation mode, which goes through app.py to the same page.

    It relies on a private Streamlit API, the class flag `PagesManager.uses_pages_directory`;
    tests/test_deep_link.py fails if that flag goes or the rerun no longer brings back the shell.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - a Streamlit without the older mode
        return
    if getattr(PagesManager, "uses_pages_directory", None):
        PagesManager.uses_pages_directory = False
        st.rerun()


REVIEWER_KEY = "reviewer_name"


def audited(action: str, permission: str, apply: Callable[[], object], detail: str, target: str | None = None):
    """Run a change outside any debate (saving settings, roles, presets) as the acting person: the
    store checks their role, runs the change and keeps who did it; a refusal raises PermissionRefused
    and changes nothing."""
    store = write_store()
    try:
        return store.record_action(actor(), action, permission=permission, apply=apply, detail=detail, target=target)
    finally:
        store.close()


def _keep(widget: str, target: str) -> None:
    st.session_state[target] = st.session_state.get(widget) or ""


def link_params(**params: str) -> dict[str, str]:
    """Query parameters for a link inside the app. Who is acting never travels in a link: it comes
    from the signed-in session (or, in local mode, this browser session's label)."""
    return dict(params)


def name_input() -> None:
    """Local mode: the name recorded with each action, as an unverified label, kept in a plain
    session key so it survives every page change. A widget's own state is dropped when the page
    changes, so the widget is re-seeded from the plain key on every run and copies its value back."""
    st.session_state.setdefault(REVIEWER_KEY, "")
    st.session_state["reviewer-input"] = st.session_state[REVIEWER_KEY]
    st.text_input("Your name (a label)", key="reviewer-input", on_change=_keep, args=("reviewer-input", REVIEWER_KEY),
                  placeholder="recorded with your actions", max_chars=100,
                  help="Recorded in the audit trail with every action, marked as an unverified label: without "
                       "sign-in the app cannot tell who you are.")


def _sign_in_problem() -> bool:
    """A sign-in that is not accepted: the cookie expired or was altered (Streamlit then reports
    nobody signed in while the cookie is still there), or the sign-in is older than this server allows."""
    if st.user.get("is_logged_in"):
        return True  # signed in by the provider, but too long ago (actor() refused it)
    try:
        return IDENTITY_COOKIE in st.context.cookies
    except Exception:  # noqa: BLE001 - no request context (a script run outside a browser session)
        return False


ROLE_SUMMARY = {
    "viewer": "You can read everything; actions need a reviewer's role.",
    "reviewer": "You can review, annotate, steer and start debates and evaluations.",
    "supervisor": "You can also approve and settle escalated debates.",
    "admin": "You can also change settings and roles.",
}


def sidebar() -> None:
    settings = load_settings_quietly()
    with st.sidebar:
        st.subheader("Who is acting")
        if auth_configured():
            who = actor()
            if who is not None:
                email = f" ({formatting.md_escape(who.email)})" if who.email and who.email != who.name else ""
                st.write(f"Signed in as **{formatting.md_escape(who.name)}**{email}")
                st.caption(f"Role: **{who.role}**. {ROLE_SUMMARY[who.role]}")
                if st.button("Sign out"):
                    st.logout()
            else:
                if _sign_in_problem():
                    st.warning("Your sign-in could not be verified: it expired or was altered. Sign in again.")
                st.caption("Signed out: sign in to act; until then the app shows nothing but the sign-in.")
                if st.button("Sign in", type="primary"):
                    st.login()
        else:
            st.info(LOCAL_MODE_NOTICE, icon=":material/person_off:")
            name_input()
            who = actor()
            if who is not None:
                st.caption(f"Everyone here acts with the **{who.role}** role (set by whoever runs the server). "
                           f"{ROLE_SUMMARY[who.role]}")
        st.divider()
        label = formatting.provider_label({"provider": settings.default_provider, "model": settings.openai_model,
                                      "base_url": server_credentials().default_base_url})
        st.caption("Default provider")
        st.markdown(f"**{formatting.md_escape(label)}**")
        st.caption("Database")
        st.code(redacted(db_path()), language=None)
        running = worker.running_here()
        if running:
            st.caption(f"{len(running)} debate(s) running in the background")


def flash(key: str, kind: str, message: str, detail: str | None = None) -> None:
    """Keep a message for the next run (callbacks run before the page is drawn)."""
    st.session_state[f"flash:{key}"] = (kind, message, detail)


def show_flash(key: str) -> None:
    item = st.session_state.pop(f"flash:{key}", None)
    if not item:
        return
    kind, message, detail = item
    box = {"success": st.success, "error": st.error, "warning": st.warning}.get(kind, st.info)
    box(message)
    if detail:
        st.text(detail)


def debate_link(debate_id: str, label: str | None = None) -> None:
    # Page-link labels are markdown, and titles come from users: escape them.
    st.page_link(PAGES["debate"], label=formatting.md_escape(label or f"Open debate {debate_id}"), icon=":material/open_in_new:",
                 query_params=link_params(id=debate_id))


def compare_link(debate_id: str) -> None:
    """Open the Compare page with this debate as A; the reviewer picks B there."""
    st.page_link(PAGES["compare"], label="Compare with…", icon=":material/compare_arrows:",
                 query_params=link_params(a=debate_id))


def redirect_to(page: str) -> Callable[[], None]:
    """A hidden page that sends an old or alternative address to `page` (a PAGES key), keeping the
    query parameters (a debate id)."""
    def redirect() -> None:
        st.switch_page(PAGES[page], query_params=st.query_params.to_dict())

    redirect.__name__ = f"redirect_to_{page}"
    return redirect


def _secrets() -> dict:
    """The operator's `secrets.toml` as a plain mapping; empty when there is none."""
    try:
        return st.secrets.to_dict()
    except Exception:  # noqa: BLE001 - no secrets file, or one Streamlit cannot parse: the environment decides
        return {}


def server_credentials() -> ServerCredentials:
    """This server's key and the base URLs its operator configured it for (environment, secrets.toml).

    Until sign-in and an admin role exist, nothing a visitor types in the app can add to the list."""
    return read_server_credentials(os.environ, _secrets())


def api_key_input(where: str) -> str:
    """A password field whose value lives in this browser session only (never saved anywhere)."""
    st.session_state.setdefault("openai_api_key", "")
    widget = f"api-key-{where}"
    st.session_state[widget] = st.session_state["openai_api_key"]
    st.text_input("API key (this session only)", type="password", key=widget, on_change=_keep,
                  args=(widget, "openai_api_key"),
                  help="Kept in this browser session only, never saved. The server's own key is used only "
                       "for the servers its operator configured; for any other server, type that server's key.")
    return st.session_state["openai_api_key"]
