"""What every page shares: the store handles, the settings, the reviewer's name and the sidebar."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from debate_core.core.app_settings import AppSettings, AppSettingsError, load_settings
from debate_core.core.credentials import ServerCredentials
from debate_core.core.credentials import server_credentials as read_server_credentials
from debate_core.jobs import worker
from debate_core.present import formatting
from debate_core.store import DebateStore, StoreError, default_db_path

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


def reviewer() -> str:
    """The acting reviewer: the signed-in user when authentication is configured, else the sidebar name."""
    if auth_configured():
        if st.user.get("is_logged_in"):
            return str(st.user.get("name") or st.user.get("email") or "").strip()
        return ""
    return str(st.session_state.get(REVIEWER_KEY) or "").strip()


def page_config() -> None:
    st.set_page_config(page_title="Debate review workbench", page_icon=":material/forum:", layout="wide")


def app_shell_setup() -> None:
    """What app.py does on every run before the page: recover dead debates, draw the shared sidebar."""
    try:
        recover_interrupted()
    except Exception as exc:  # noqa: BLE001 - an unusable database is explained, not dumped as a traceback
        sidebar()
        if isinstance(exc, StoreError):  # already one line naming the file and the reason
            st.error(formatting.md_escape(str(exc)[:1].upper() + str(exc)[1:]))
        else:
            st.error(f"The database at {formatting.md_escape(db_path())} cannot be opened: {formatting.md_escape(exc)}")
        st.stop()
    sidebar()


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


def _keep(widget: str, target: str) -> None:
    st.session_state[target] = st.session_state.get(widget) or ""


REVIEWER_PARAM = "reviewer"


def link_params(**params: str) -> dict[str, str]:
    """Query parameters for a link inside the app, carrying the reviewer's name so that a link
    opened in a new tab still knows who is reviewing."""
    name = reviewer()
    return {**params, REVIEWER_PARAM: name} if name and not auth_configured() else dict(params)


def _sync_reviewer_param() -> None:
    """Keep `?reviewer=` in the address bar equal to the name, so a reload keeps it."""
    name = str(st.session_state.get(REVIEWER_KEY) or "").strip()
    if name and st.query_params.get(REVIEWER_PARAM) != name:
        st.query_params[REVIEWER_PARAM] = name
    elif not name and REVIEWER_PARAM in st.query_params:
        del st.query_params[REVIEWER_PARAM]


def name_input() -> None:
    """The reviewer's name, kept in a plain session key so it survives every page change, and in
    the `?reviewer=` query parameter so it survives a reload and a link opened in a new tab.

    A widget's own state is dropped when the page changes, so the widget is re-seeded from the
    plain key on every run and copies its value back when edited.
    """
    # Read the address bar once per browser session: afterwards the field decides (it may be cleared).
    if "reviewer-from-link" not in st.session_state:
        st.session_state["reviewer-from-link"] = True
        if not st.session_state.get(REVIEWER_KEY) and st.query_params.get(REVIEWER_PARAM):
            st.session_state[REVIEWER_KEY] = str(st.query_params.get(REVIEWER_PARAM)).strip()[:100]
    st.session_state.setdefault(REVIEWER_KEY, "")
    st.session_state["reviewer-input"] = st.session_state[REVIEWER_KEY]
    st.text_input("Your name", key="reviewer-input", on_change=_keep, args=("reviewer-input", REVIEWER_KEY),
                  placeholder="needed for review actions",
                  help="Recorded in the audit trail with every review action. Kept in the address bar "
                       "(?reviewer=), so a reload or a link opened in a new tab keeps it.")
    _sync_reviewer_param()


def sidebar() -> None:
    settings = load_settings_quietly()
    with st.sidebar:
        st.subheader("Reviewer")
        if auth_configured():
            if st.user.get("is_logged_in"):
                st.write(f"Signed in as **{formatting.md_escape(reviewer())}**")
                if st.button("Sign out"):
                    st.logout()
            else:
                if st.button("Sign in", type="primary"):
                    st.login()
        else:
            name_input()
        name = reviewer()
        if name and settings.is_supervisor(name):
            st.caption("Supervisor: you can approve or override escalations.")
        st.divider()
        label = formatting.provider_label({"provider": settings.default_provider, "model": settings.openai_model,
                                      "base_url": server_credentials().default_base_url})
        st.caption("Default provider")
        st.markdown(f"**{formatting.md_escape(label)}**")
        st.caption("Database")
        st.code(str(db_path()), language=None)
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
    query parameters (a debate id, the reviewer's name)."""
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
