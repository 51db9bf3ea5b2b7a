"""Settings: supervisors and default provider settings, saved next to the database (never a key)."""

from __future__ import annotations

import streamlit as st

from debate_core.core.app_settings import (
    AppSettings,
    SettingsError,
    load_settings,
    save_settings,
    settings_path,
)
from debate_core.jobs import worker
from debate_core.present import formatting
from debate_core.providers.openai_provider import METHODS
from ui import common, prices

common.page_setup()

st.title("Settings", anchor=False)
path = common.db_path()
try:
    current = load_settings(path)
except SettingsError as exc:
    st.error(f"{formatting.md_escape(exc)}. Saving below replaces it with valid settings.")
    current = AppSettings()
st.caption(f"Saved in {formatting.md_escape(settings_path(path))}, next to the database {formatting.md_escape(path)}.")

flash = st.session_state.pop("settings-flash", None)
if flash:
    st.success(flash)

st.subheader("Supervisors", anchor=False)
# Without sign-in anyone can type any name in the sidebar, so the list is not editable here: it is
# read from the settings file, which only whoever runs the server can change.
if current.supervisors:
    st.markdown("\n".join(f"- {formatting.md_escape(name)}" for name in current.supervisors))
else:
    st.info("No supervisors are named yet.")
st.caption("Only these reviewers can approve or settle escalated debates (names matched without regard to "
           f"case). The list is read from the `supervisors` list in {formatting.md_escape(settings_path(path))}; "
           "edit that file on the server to change it. This page only shows it.")

with st.form("settings-form"):
    st.subheader("Default provider", anchor=False)
    labels = {"offline": formatting.OFFLINE_LABEL, "openai": "openai-compatible model", "replay": "replay (cassette)"}
    provider = st.radio("Provider preselected on New debate", list(labels), format_func=labels.get,
                        index=list(labels).index(current.default_provider), key="s-provider")
    c1, c2 = st.columns(2)
    model = c1.text_input("Model", value=current.openai_model, key="s-model")
    methods = ["", *METHODS]
    method = c2.selectbox("Structured output method", methods, index=methods.index(current.openai_method),
                          format_func=lambda m: m or "automatic", key="s-method")
    temperature = c1.number_input("Temperature", min_value=0.0, max_value=2.0, value=float(current.temperature),
                                  step=0.1, key="s-temperature")
    st.subheader("App", anchor=False)
    c3, c4, c5 = st.columns(3)
    latency = c3.number_input("Offline delay per call (ms)", min_value=0, max_value=10_000,
                              value=int(current.offline_latency_ms), step=100, key="s-latency")
    refresh = c4.number_input("Live refresh (seconds)", min_value=0.2, max_value=60.0,
                              value=float(current.refresh_seconds), step=0.5, key="s-refresh")
    stale = c5.number_input("Presume a silent running debate dead after (minutes)", min_value=1.0,
                            value=float(current.stale_after_minutes), step=5.0, key="s-stale")
    submitted = st.form_submit_button("Save settings", type="primary")

if submitted:
    try:
        new = AppSettings(supervisors=current.supervisors, default_provider=provider,
                          openai_model=model.strip(), openai_method=method, temperature=temperature,
                          offline_latency_ms=latency, refresh_seconds=refresh, stale_after_minutes=stale)
        # What this form does not edit (presets, teams, prices) is kept as saved.
        new = new.model_copy(update=current.model_dump(include={"presets", "teams", "prices", "price_currency"}))
        saved = save_settings(new, path)
    except (ValueError, OSError) as exc:
        st.error(f"Not saved: {formatting.md_escape(exc)}")
    else:
        st.session_state["settings-flash"] = f"Saved to {formatting.md_escape(saved)}."
        st.rerun()

prices.editor(current)

st.subheader("Model servers and the server's key", anchor=False)
# Read-only: a visitor must not be able to point the server's key, or everyone's default, elsewhere.
creds = common.server_credentials()
st.markdown("**This server's key** " + ("is set by its operator." if creds.api_key else "is not set."))
st.markdown("**Servers it may be sent to** (the first is the default base URL on New debate):\n"
            + "\n".join(f"- {formatting.md_escape(u)}" for u in creds.described()))
st.caption("Set by whoever runs the server, in the environment (OPENAI_API_KEY, OPENAI_BASE_URL, "
           "DEBATE_KEY_BASE_URLS) or in .streamlit/secrets.toml; this page only shows them. A debate against "
           "any other server needs that server's own key, typed on New debate for this browser session only.")
st.subheader("Your API key", anchor=False)
st.caption("The key is never saved: not in the settings file, not in the database.")
common.api_key_input("settings")

st.subheader("Background debates", anchor=False)
running = worker.running_here()
st.caption(f"{len(running)} debate(s) running in this server process." if running
           else "No debate is running in this server process.")
