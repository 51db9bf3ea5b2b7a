"""Settings: roles, sign-in and default provider settings, saved next to the database (never a key).

Everyone may read this page; only an admin may change anything on it, and the store checks the
role again when a change is saved."""

from __future__ import annotations

import streamlit as st

from debate_core.core.app_settings import (
    AppSettings,
    SettingsError,
    delete_team,
    load_settings,
    save_settings,
    settings_path,
)
from debate_core.core.identity import LOCAL_MODE_NOTICE, LOCAL_ROLE_VARIABLE, ROLES, PermissionRefused
from debate_core.jobs import worker
from debate_core.present import formatting, views
from debate_core.providers.openai_provider import METHODS
from ui import common, prices
from ui import webhooks as webhooks_section

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

admin = common.may("manage_settings")
who = common.actor()
if not common.auth_configured():
    st.warning(f"{LOCAL_MODE_NOTICE} Everyone who can open this app acts with the "
               f"**{who.role if who else 'viewer'}** role, chosen by whoever runs the server "
               f"({LOCAL_ROLE_VARIABLE} in the environment, or `local_role` under `[workbench]` in "
               "`.streamlit/secrets.toml`; every right by default). To turn sign-in on, add an `[auth]` section "
               "for your OpenID Connect provider to `.streamlit/secrets.toml` and restart: docs/app.md, "
               "“Sign-in, roles and local mode”, has a worked example.", icon=":material/person_off:")
if not admin:
    st.info(common.refusal("manage_settings") + " This page shows the settings as saved.")

st.subheader("Roles", anchor=False)
st.caption("Who may do what once people sign in: a viewer reads everything; a reviewer also accepts, overrides, "
           "escalates, annotates, steers and starts debates and evaluations; a supervisor also approves and settles "
           "escalations; an admin also changes settings and roles. A person gets the highest of: the role given "
           "to their verified e-mail or subject below, the role a claim from the identity provider maps to, and "
           "the default role. Roles apply to signed-in people only: without sign-in, names are labels.")
if current.supervisors:
    st.warning("The settings file still has an old `supervisors` list of names: "
               + ", ".join(formatting.md_escape(n) for n in current.supervisors)
               + ". Names typed in the app are labels, not identities, so that list gives no rights; give each "
                 "supervisor the supervisor role by their e-mail below.")
with st.form("roles-form"):
    rows = [{"e-mail or subject": k, "role": r} for k, r in current.roles.items()]
    edited = st.data_editor(rows or [{"e-mail or subject": "", "role": None}], num_rows="dynamic",
                            hide_index=True, key="s-roles", disabled=not admin, column_config={
                                "e-mail or subject": st.column_config.TextColumn(required=False, width="medium"),
                                "role": st.column_config.SelectboxColumn(options=list(ROLES), required=False)})
    r1, r2, r3 = st.columns(3)
    default_role = r1.selectbox("Role of a signed-in person given none", list(ROLES),
                                index=list(ROLES).index(current.default_role), key="s-default-role", disabled=not admin)
    role_claim = r2.text_input("Claim from the provider that gives roles (optional)", value=current.role_claim,
                               key="s-role-claim", placeholder="groups", disabled=not admin)
    claim_text = r3.text_area("Claim value = role, one per line", key="s-claim-roles", disabled=not admin,
                              value="\n".join(f"{k} = {v}" for k, v in current.claim_roles.items()),
                              placeholder="debate-supervisors = supervisor")
    roles_saved = st.form_submit_button("Save roles", disabled=not admin)

if roles_saved:
    try:
        records = edited.to_dict("records") if hasattr(edited, "to_dict") else list(edited)
        roles = {}
        for r in records:
            key = str(r.get("e-mail or subject") or "").strip()
            if key and not r.get("role"):
                raise ValueError(f"choose a role for {key}")
            if key:
                roles[key] = r["role"]
        claim_roles = {}
        for line in (claim_text or "").splitlines():
            if not line.strip():
                continue
            value, sep, role = line.partition("=")
            if not sep or not value.strip():
                raise ValueError(f"write each claim line as 'value = role', not {line.strip()!r}")
            claim_roles[value.strip()] = role.strip().lower()
        latest = load_settings(path)
        new = AppSettings.model_validate({**latest.model_dump(), "roles": roles, "role_claim": role_claim.strip(),
                                          "claim_roles": claim_roles, "default_role": default_role})
        common.audited("roles", "manage_roles", lambda: save_settings(new, path),
                       f"roles: {len(roles)} person(s); claim '{new.role_claim or 'none'}' with "
                       f"{len(claim_roles)} value(s); default {default_role}")
    except PermissionRefused as exc:
        st.error(f"Roles not saved: {formatting.md_escape(exc)}")
    except (ValueError, OSError) as exc:
        st.error(f"Roles not saved: {formatting.md_escape(str(exc).splitlines()[0])}")
    else:
        st.session_state["settings-flash"] = "Saved the roles; they apply from each person's next page."
        st.rerun()

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
    submitted = st.form_submit_button("Save settings", type="primary", disabled=not admin)

if submitted:
    try:
        new = AppSettings(default_provider=provider,
                          openai_model=model.strip(), openai_method=method, temperature=temperature,
                          offline_latency_ms=latency, refresh_seconds=refresh, stale_after_minutes=stale)
        # What this form does not edit (roles, presets, teams, prices) is kept as saved.
        new = new.model_copy(update=current.model_dump(
            include={"roles", "role_claim", "claim_roles", "default_role", "supervisors", "presets", "teams",
                     "prices", "price_currency"}))
        saved = common.audited("settings", "manage_settings", lambda: save_settings(new, path),
                               f"default provider {provider}, model '{model.strip()}', temperature {temperature}")
    except (ValueError, OSError) as exc:
        st.error(f"Not saved: {formatting.md_escape(exc)}")
    else:
        st.session_state["settings-flash"] = f"Saved to {formatting.md_escape(saved)}."
        st.rerun()

if admin:
    prices.editor(current)
    webhooks_section.section()  # admins only: endpoints hold signing secrets and reach other systems


def _delete_team() -> None:
    """Delete the chosen saved team (a callback, so the list below is drawn without it)."""
    name = st.session_state.get("s-team")
    try:
        common.audited("team", "save_presets", lambda: delete_team(path, name), f"deleted the team {name!r}")
    except (SettingsError, OSError, PermissionRefused) as exc:
        common.flash("teams", "error", f"Not deleted: {formatting.md_escape(exc)}")
        return
    common.flash("teams", "success", f"Deleted the team {formatting.md_escape(name)}.")


st.subheader("Saved teams", anchor=False)
if current.teams:
    st.dataframe([{"team": name, "agents": len(agents),
                   "who": ", ".join(a.get("name") or a["id"] for a in agents)} for name, agents in current.teams.items()],
                 hide_index=True, key="s-teams")
    if common.may("save_presets"):
        d1, d2 = st.columns([3, 1], vertical_alignment="bottom")
        d1.selectbox("Team", list(current.teams), key="s-team")
        d2.button("Delete team", key="s-team-delete", icon=":material/delete:", on_click=_delete_team)
    else:
        st.caption(formatting.md_escape(common.refusal("save_presets")))
else:
    st.caption("No team is saved yet. Build one on New debate: edit the agents table and save it as a team.")
common.show_flash("teams")

st.subheader("Recent changes", anchor=False)
_store = common.read_store()
try:
    _changes = [r for r in _store.audit_log(limit=50) if r.get("action") in ("settings", "roles", "prices", "webhooks")]
finally:
    _store.close()
if _changes:
    st.dataframe(views.audit_rows(_changes), hide_index=True, key="s-audit")
else:
    st.caption("No settings or roles have been changed through the app yet.")

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
