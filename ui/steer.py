"""Steering a debate from its page: Pause and Stop while it runs; while it is paused, the reviewer's
interventions, Continue and Stop; a fork from any closed round; and where the debate came from.

Every action is checked where it is written (store.request_control, continuation.intervene,
worker.start_continue and start_fork), not only by what the page offers: a refusal comes back as
one line, shown in words (claim and critique references spelled out), and what the reviewer typed
stays in the form. Reviewer and model text is shown through md_escape or st.text, never as HTML.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.core import profiles
from debate_core.core.credentials import key_plan
from debate_core.core.schemas import Case
from debate_core.jobs import worker
from debate_core.jobs.continuation import closed_rounds, intervene
from debate_core.present import formatting, protocol_choices, steering, views
from debate_core.protocols import get_spec
from debate_core.providers import Provider, make_provider
from debate_core.store import NotFound, StoreError
from ui import common, team_builder

esc = formatting.md_escape

# The engine's refusals: SteeringError, RoleError, SettingsError, CaseUnfit and CaseError are all
# ValueErrors; NotFound is a KeyError; StoreError is a write the database refused (rolled back).
REFUSED = (ValueError, NotFound, StoreError)

KIND_LABELS = {
    "critique": "Raise a critique",
    "evidence": "Add evidence",
    "pin": "Pin a claim",
    "strike": "Withdraw a claim",
    "resolve": "Resolve a critique",
}
SEVERITIES = ["CRITICAL", "MAJOR", "MINOR"]
NEEDS_NAME = "Enter your name in the sidebar first: every steering action is recorded with its reviewer."


def _flash_key(debate_id: str) -> str:
    return f"steer-{debate_id}"


def _field(debate_id: str, kind: str, name: str) -> str:
    return f"steer-{kind}-{name}-{debate_id}"


def _last_audit(debate: dict[str, Any], action: str) -> dict[str, Any] | None:
    rows = [r for r in debate.get("reviews") or [] if r.get("action") == action]
    return rows[-1] if rows else None


# ---------------------------------------------------------------------------
# While it runs: Pause and Stop
# ---------------------------------------------------------------------------


def _request(debate_id: str, action: str) -> None:
    name = common.reviewer()
    if not name:
        common.flash(_flash_key(debate_id), "error", NEEDS_NAME)
        return
    try:
        store = common.write_store()
        try:
            status = store.request_control(debate_id, action, actor=common.actor())
        finally:
            store.close()
    except REFUSED as exc:
        common.flash(_flash_key(debate_id), "error", f"Not done: {esc(steering.steering_message(exc))}")
        return
    if status == "stopped":
        common.flash(_flash_key(debate_id), "success",
                     f"Stopped by {esc(name)}. Every step so far is kept; fork it from a closed round to go on.")


def live_controls(debate: dict[str, Any]) -> None:
    """Pause and Stop, inside the live view. The view refreshes every few seconds: the buttons are
    keyed and act through callbacks, so a click during a refresh is not lost, and the request shown
    beside them is read from the store (so every reviewer's page shows it)."""
    did, control = debate["id"], debate.get("control")
    with st.container(horizontal=True, vertical_alignment="center", key="steer-live"):
        st.button("Pause", key=f"pause-{did}", icon=":material/pause:", on_click=_request, args=(did, "pause"),
                  disabled=bool(control),
                  help="Pause after the current stage, to read the rounds, raise critiques or add evidence, "
                       "then continue.")
        st.button("Stop", key=f"stop-{did}", icon=":material/stop:", on_click=_request, args=(did, "stop"),
                  disabled=control == "stop",
                  help="Stop after the current stage, without a verdict. Every step so far is kept, and the "
                       "debate can be forked from a closed round.")
        if control in ("pause", "stop"):
            asked = _last_audit(debate, control)
            who = f"{asked['reviewer']} asked to {control}" if asked else f"A {control} was requested"
            st.caption(f"{esc(who)}: the debate will {control} after the current stage.")
        else:
            st.caption("Pause to review and intervene, or stop the debate; either takes effect after the "
                       "current stage.")
    common.show_flash(_flash_key(did))


# ---------------------------------------------------------------------------
# Paused or stopped: where it stands
# ---------------------------------------------------------------------------


def _why_paused(debate: dict[str, Any], events: list[dict[str, Any]]) -> str:
    paused = [e for e in events if e.get("kind") == "paused"]
    if paused and (paused[-1].get("data") or {}).get("asked_by") == "setting":
        return "It was set to pause here when it started."
    asked = _last_audit(debate, "pause")
    return f"{asked['reviewer']} asked for the pause." if asked else ""


def paused_banner(debate: dict[str, Any], events: list[dict[str, Any]]) -> None:
    nxt = steering.next_part(debate)
    coming = f" {nxt[:1].upper()}{nxt[1:]} comes next." if nxt else ""
    st.info(f"**Paused for review {esc(steering.pause_place(debate))}.** {esc(_why_paused(debate, events))}{coming} "
            "Read the rounds and claims below, intervene if you want, then continue it or stop it here.",
            icon=":material/pause_circle:")


def stopped_banner(debate: dict[str, Any]) -> None:
    asked = _last_audit(debate, "stop")
    who = f" by {asked['reviewer']}" if asked else ""
    st.warning(f"**Stopped {esc(steering.pause_place(debate))}{esc(who)}.** The debate has no verdict. Every step "
               "so far is kept below; fork it from a closed round to go on with other settings.",
               icon=":material/stop_circle:")


# ---------------------------------------------------------------------------
# Paused: the interventions, Continue and Stop
# ---------------------------------------------------------------------------


def _typed(debate_id: str, kind: str, name: str) -> str:
    return str(st.session_state.get(_field(debate_id, kind, name)) or "").strip()


def _intervene(debate_id: str, kind: str, names: dict[str, str]) -> None:
    """Record one intervention (a form's callback, so the form can be cleared once it is saved)."""
    flash = _flash_key(debate_id)
    reviewer = common.reviewer()
    if not reviewer:
        common.flash(flash, "error", NEEDS_NAME)
        return
    fields: dict[str, Any] = {}
    if kind == "critique":
        fields = {"target": _typed(debate_id, kind, "target"), "severity": _typed(debate_id, kind, "severity"),
                  "text": _typed(debate_id, kind, "text"), "fix": _typed(debate_id, kind, "fix") or None}
        missing = ("Choose the claim your critique is about." if not fields["target"]
                   else "Write the critique: what is wrong with the claim." if not fields["text"] else "")
    elif kind == "evidence":
        eid, source, text = (_typed(debate_id, kind, n) for n in ("id", "source", "text"))
        missing = ("Give the passage an id, its source and its text." if not (eid and source and text)
                   else "The id and the source may not contain |." if "|" in eid + source else "")
        fields = {"evidence": f"{eid} | {source} | {text}"}
    elif kind == "resolve":
        fields = {"target": _typed(debate_id, kind, "target")}
        missing = "" if fields["target"] else "Choose the critique to resolve."
    else:
        fields = {"target": _typed(debate_id, kind, "target")}
        missing = "" if fields["target"] else "Choose a claim."
    if missing:
        common.flash(flash, "error", f"Not recorded: {missing}")
        return
    try:
        store = common.write_store()
        try:
            _, iv = intervene(store, debate_id, actor=common.actor(), kind=kind, **fields)
        finally:
            store.close()
    except REFUSED as exc:
        # The form keeps what was typed: nothing is cleared on a refusal.
        common.flash(flash, "error", f"Not recorded: {esc(steering.steering_message(exc, names))}")
        return
    for name in ("target", "text", "fix", "id", "source"):
        st.session_state.pop(_field(debate_id, kind, name), None)
    common.flash(flash, "success", "Recorded; it applies when the debate continues. "
                 f"{esc(reviewer)} {esc(steering.intervention_text(iv.model_dump(), names))}")


def _claim_picker(debate_id: str, kind: str, choices: list[dict[str, str]], label: str) -> None:
    labels = {c["ref"]: steering.claim_choice_label(c) for c in choices}
    st.selectbox(label, list(labels), format_func=labels.get, index=None, key=_field(debate_id, kind, "target"),
                 placeholder="choose an agent's claim")


def _form(debate: dict[str, Any], kind: str, names: dict[str, str], is_supervisor: bool) -> None:
    did = debate["id"]
    choices = steering.claim_choices(debate)
    submit = {"critique": "Record critique", "evidence": "Add passage", "pin": "Pin claim", "strike": "Withdraw claim",
              "resolve": "Resolve critique"}[kind]
    if kind in ("critique", "pin", "strike") and not choices:
        st.caption("No agent has a claim to point at yet.")
        return
    if kind == "resolve":
        mine = steering.open_reviewer_critiques(debate, common.reviewer(), everyone=is_supervisor)
        if not mine:
            st.caption("You have no open critique to resolve. A critique you raise stays open until you resolve it "
                       "here, and an open one sends the verdict to a human.")
            return
    with st.form(f"steer-form-{kind}-{did}", border=False):
        if kind == "critique":
            _claim_picker(did, kind, choices, "Claim")
            st.radio("Severity", SEVERITIES, index=1, horizontal=True, key=_field(did, kind, "severity"),
                     help="CRITICAL and MAJOR critiques that stay open keep the debate from converging.")
            st.text_area("Critique", key=_field(did, kind, "text"), height=90,
                         placeholder="what is wrong with the claim, with the evidence ids you rely on")
            st.text_input("Suggested fix (optional)", key=_field(did, kind, "fix"),
                          placeholder="what the agent should do about it")
            st.caption("The agent must answer it in its next revision; it stays open until you resolve it.")
        elif kind == "evidence":
            a, b = st.columns([1, 3])
            a.text_input("Passage id", key=_field(did, kind, "id"), placeholder="e.g. N1")
            b.text_input("Source", key=_field(did, kind, "source"), placeholder="e.g. Notary's letter, 2019")
            st.text_area("Text", key=_field(did, kind, "text"), height=90, placeholder="the passage as written")
            st.caption("Every agent sees the new passage from the next round on and may cite it.")
        elif kind == "pin":
            _claim_picker(did, kind, choices, "Claim to pin as established")
            st.caption("A pinned claim is settled: its agent must keep it and may not drop it.")
        elif kind == "strike":
            _claim_picker(did, kind, choices, "Claim to withdraw")
            st.caption("A withdrawn claim leaves the debate: its agent must not make it again.")
        else:
            labels = {c["ref"]: c["label"] for c in mine}
            st.selectbox("Critique", list(labels), format_func=labels.get, key=_field(did, kind, "target"))
        st.form_submit_button(submit, type="primary", key=f"steer-submit-{kind}-{did}",
                              on_click=_intervene, args=(did, kind, names))


def _continue(debate_id: str) -> None:
    name = common.reviewer()
    if not name:
        common.flash(_flash_key(debate_id), "error", NEEDS_NAME)
        return
    try:
        worker.start_continue(debate_id, db_path=common.db_path(), actor=common.actor())
    except REFUSED as exc:
        common.flash(_flash_key(debate_id), "error", f"Not continued: {esc(steering.steering_message(exc))}")
        return
    common.flash(_flash_key(debate_id), "success", f"Continued by {esc(name)}.")


def _resume(debate_id: str) -> None:
    if not common.reviewer():
        common.flash(_flash_key(debate_id), "error", NEEDS_NAME)
        return
    try:
        new_id = worker.start_resume(debate_id, db_path=common.db_path(), actor=common.actor())
    except REFUSED as exc:
        common.flash(_flash_key(debate_id), "error", f"Not resumed: {esc(steering.steering_message(exc))}")
        return
    # The page follows the resumed debate at once, as it follows a fork.
    st.session_state["debate_id"] = new_id
    st.query_params["id"] = new_id


def resume_tools(debate: dict[str, Any]) -> None:
    """Resume, on a failed (or interrupted) debate: a new debate that takes the completed steps from
    the store and runs the failed step and the rest, where continues run (this server, or a worker)."""
    if debate.get("status") != "failed":
        return
    did = debate["id"]
    if common.may("start"):
        st.button("Resume", key=f"resume-{did}", icon=":material/replay:", type="primary", on_click=_resume,
                  args=(did,), help="Start a new debate linked to this one: the steps completed before the failure "
                  "are reused as stored, and the failed step and everything after it run again.")
    else:
        st.caption(esc(common.refusal("start")))
    common.show_flash(_flash_key(did))


def _interventions_so_far(debate: dict[str, Any], names: dict[str, str]) -> None:
    made = views.interventions(debate.get("steps") or [])
    st.markdown(f"**Interventions so far ({len(made)})**")
    if not made:
        st.caption("None yet.")
        return
    with st.container(height=220 if len(made) > 3 else "content", border=False):
        for iv in made:
            st.markdown(f"**{esc(iv.get('reviewer'))}**, {esc(steering.intervention_when(iv))}: "
                        f"{esc(steering.intervention_text(iv, names))}")


def panel(debate: dict[str, Any], is_supervisor: bool) -> None:
    """The paused debate's controls: an intervention form (one at a time, chosen above it), the
    interventions made so far, and Continue and Stop."""
    did = debate["id"]
    names = views.agent_names(debate)
    spec = get_spec(debate["protocol"])
    nxt = steering.next_part(debate)
    with st.container(border=True, key="steer-panel"):
        if not common.may("steer") and common.reviewer():
            st.info(common.refusal("steer"))
            return
        left, right = st.columns([3, 2], gap="medium")
        with left:
            st.markdown(f"**Intervene before {esc(nxt)}**" if nxt else "**Intervene**")
            common.show_flash(_flash_key(did))
            kinds = [k for k in KIND_LABELS if k in spec.interventions]
            if not kinds:
                st.caption(f"A {esc(spec.title.lower())} debate takes no interventions: read it below, then "
                           "continue it, stop it, or fork it from a closed round with other options.")
            else:
                if not common.reviewer():
                    st.warning("Enter your name in the sidebar to intervene.")
                # A keyed choice, not client-side tabs: a refusal keeps the reviewer on the form they filled in.
                kind = st.segmented_control("Intervention", kinds, format_func=KIND_LABELS.get, default=kinds[0],
                                            required=True, wrap=True, key=f"steer-kind-{did}",
                                            label_visibility="collapsed")
                _form(debate, kind or kinds[0], names, is_supervisor)
        with right:
            st.markdown("**Then**")
            with st.container(horizontal=True):
                st.button("Continue", key=f"continue-{did}", type="primary", icon=":material/play_arrow:",
                          on_click=_continue, args=(did,))
                st.button("Stop", key=f"stop-{did}", icon=":material/stop:", on_click=_request, args=(did, "stop"))
            st.caption(f"Continue runs {esc(nxt)} with the interventions below; Stop ends the debate here, "
                       "without a verdict." if nxt else "Continue goes on from here; Stop ends the debate here.")
            fork_tools(debate)
            _interventions_so_far(debate, names)


# ---------------------------------------------------------------------------
# Lineage and forks
# ---------------------------------------------------------------------------


def _option_presets(protocol: str) -> dict[str, dict[str, Any]]:
    """The protocol's presets that only change options: the ones a fork can take as they are."""
    try:
        presets = get_spec(protocol).presets
    except Exception:  # noqa: BLE001 - an unknown protocol offers none
        return {}
    return {str(k): dict(v["options"]) for k, v in presets.items() if set(v) == {"options"} and v.get("options")}


KEEP = "(this debate's options)"


def _fork_model(debate: dict[str, Any]) -> str | None:
    """The model an openai-compatible debate ran on (a fork may change it), or None for another provider."""
    config = debate.get("provider_config") or {}
    if (debate.get("provider") or config.get("provider")) != "openai":
        return None
    return str(config.get("model") or "")


def _fork_provider(debate: dict[str, Any], model: str) -> Provider:
    """An openai-compatible provider for the fork, on the parent's server with the model chosen: the
    server's key goes only where its operator allows, else this session's typed key, else none."""
    config = debate.get("provider_config") or {}
    creds = common.server_credentials()
    base_url = config.get("base_url") or creds.default_base_url
    typed = st.session_state.get("openai_api_key") or None
    plan = key_plan(creds, base_url, typed, no_key_needed=not config.get("api_key_set", True))
    if plan.blocker:
        raise ValueError(plan.blocker.replace(" above", " on the New debate page"))
    return make_provider("openai", model=model, base_url=base_url, api_key=typed, method=config.get("method"),
                         temperature=config.get("temperature"), server_credentials=creds)


def _fork_form(debate: dict[str, Any], rounds_closed: list[int]) -> tuple[int, dict[str, Any], Any, Any] | str | None:
    """The fork form (offered once a round has closed); returns (round, changed options, provider or
    None, a new team or None) when submitted, an error message, or None."""
    did = debate["id"]
    st.caption("The fork reuses this debate's rounds up to the one you choose, as they are and with no new "
               "model calls, then goes on with the options you change. Compare the two afterwards.")
    presets = _option_presets(debate["protocol"])
    props = team_builder.option_props(debate["protocol"])
    current = team_builder.current_options(debate, props)
    # Each control starts at this debate's value (again after the page was left: its state is dropped then).
    team_builder.seed_options(did, current, props, only_missing=True)
    if presets:
        st.selectbox("Start from", [KEEP, *presets], key=f"fork-preset-{did}", on_change=team_builder.apply_preset,
                     args=(did, current, presets, props),
                     help="The protocol's presets that change options only: they set the controls below.")
    model = _fork_model(debate)
    parent_agents, team = _fork_team(debate)
    with st.form(f"fork-form-{did}", border=False):
        # The first closed round by default: the fork reuses the least and tries the most.
        rnd = st.selectbox("Fork after round", rounds_closed, index=0, key=f"fork-round-{did}")
        if model is not None:
            st.text_input("Model", value=model, key=f"fork-model-{did}",
                          help="The fork runs on the same server; another model name changes who answers.")
        if props:
            st.markdown("**Protocol options** (each starts at this debate's value; the fork takes the ones you change)")
            cols = st.columns(2)
            for i, (name, prop) in enumerate(props.items()):
                with cols[i % 2]:
                    team_builder.option_control(did, name, prop)
        go = st.form_submit_button("Start fork", type="primary", key=f"fork-submit-{did}",
                                   icon=":material/call_split:")
    if not go:
        return None
    agents, problem = team
    if problem:
        return problem
    try:
        options = team_builder.changed_options(did, props, current)
        typed_model = str(st.session_state.get(f"fork-model-{did}") or "").strip()
        provider = None
        if model is not None:
            if not typed_model:
                return "Enter the model the fork runs on."
            provider = _fork_provider(debate, typed_model)
    except ValueError as exc:
        return str(exc)
    # Only a changed team goes with the fork; an unchanged one keeps the parent's as it was stored.
    changed = team_builder.table_rows(agents) != team_builder.table_rows(parent_agents)
    return int(rnd), options, provider, agents if changed else None


def _fork_team(debate: dict[str, Any]) -> tuple[list[dict[str, Any]], tuple[list[dict[str, Any]], str]]:
    """The fork's agents: a pick from the gallery (the parent's own agents by default), edited in the
    table. Returns the parent's agents and (the table's agents, the first problem or '')."""
    did, protocol = debate["id"], debate["protocol"]
    spec = get_spec(protocol)
    # The table and its gallery only when asked for: most forks change options, and the debate
    # page draws this popover on every load.
    if not st.checkbox("Change the agents", key=f"fork-team-on-{did}",
                       help="Pick another team from the gallery or edit this debate's agents for the fork."):
        return [], ([], "")
    case = debate.get("case")
    try:
        case_obj = Case.model_validate(case) if case else None
    except ValueError:
        case_obj = None
    chosen = (debate.get("settings") or {}).get("agents")
    parent_agents = profiles.resolve(chosen, case_obj, list(spec.default_agents), protocol)
    catalogue = {p["name"]: p for p in protocol_choices.protocol_catalogue()}
    picks = team_builder.gallery(protocol, catalogue.get(protocol, {}), common.app_settings(), catalogue)
    picks[team_builder.DEFAULT_PICK] = team_builder.Pick("This debate's own agents", parent_agents)
    pick = team_builder.picker(picks, key=f"fork-team-{did}", label="Agents of the fork")
    base = pick.agents or parent_agents
    key = f"fork-agents-{did}-{st.session_state.get(f'fork-team-{did}')}"
    return parent_agents, team_builder.editor(key, base, [*spec.default_agents, *parent_agents])


def _start_fork(debate: dict[str, Any], rnd: int, options: dict[str, Any], provider: Provider | None,
                agents: list[dict[str, Any]] | None = None) -> None:
    name = common.reviewer()
    if not name:
        st.error(f"The fork was not started. {NEEDS_NAME}")
        return
    try:
        fork_id = worker.start_fork(debate["id"], rnd, db_path=common.db_path(), options=options or None,
                                    agents=agents, actor=common.actor(), provider=provider)
    except REFUSED as exc:
        st.error(f"The fork was not started: {esc(steering.steering_message(exc, views.agent_names(debate)))}")
        return
    # The page follows the fork at once: same page, the fork's id.
    st.session_state["debate_id"] = fork_id
    st.query_params["id"] = fork_id
    st.rerun()


def actions(debate: dict[str, Any]) -> None:
    """One row of links under the title: where the debate came from, with Compare with parent, and
    Compare with…. Links only, as short as the single link that was there before, so a finished
    debate's verdict and decision still share the first screen."""
    did = debate["id"]
    with st.container(horizontal=True, vertical_alignment="center", gap="medium", key="debate-actions"):
        if debate.get("parent_id"):
            parent, rnd = debate["parent_id"], debate.get("fork_round")
            st.page_link(common.PAGES["debate"], label=esc(f"Forked from {parent}" + (f" after round {rnd}" if rnd else "")),
                         icon=":material/call_split:", query_params=common.link_params(id=parent))
            st.page_link(common.PAGES["compare"], label="Compare with parent", icon=":material/compare_arrows:",
                         query_params=common.link_params(a=parent, b=did))
        common.compare_link(did)


def fork_tools(debate: dict[str, Any]) -> None:
    """The debate's forks (each with a link to compare it with this one) and Fork from a round (once
    a round has closed, and not while it runs). The page places them where there is room: beside the decision on a finished
    debate, beside Continue on a paused one. A refused fork is explained below them, and the form
    keeps what was typed."""
    did = debate["id"]
    running = debate.get("status") == "running"
    store = common.read_store()
    try:
        forks = store.forks(did)
        done = [] if running else closed_rounds(store, did)
    finally:
        store.close()
    if not forks and not done:
        return
    submitted: tuple[int, dict[str, Any], Any, Any] | str | None = None
    with st.container(horizontal=True, vertical_alignment="center", key=f"fork-tools-{did}"):
        if done:
            with st.popover("Fork from a round", icon=":material/call_split:", key=f"fork-pop-{did}",
                            help="Try other options from one of its closed rounds, leaving this debate as it is."):
                submitted = _fork_form(debate, done)
        if forks:
            with st.popover(f"Forks ({len(forks)})", icon=":material/account_tree:", key=f"forks-{did}"):
                for f in forks:
                    status = formatting.display_status(f)
                    st.page_link(common.PAGES["debate"], icon=":material/open_in_new:",
                                 label=esc(f"{f['id']} · after round {f.get('fork_round')} · {status}"),
                                 query_params=common.link_params(id=f["id"]))
                    st.page_link(common.PAGES["compare"], label="Compare with this debate",
                                 icon=":material/compare_arrows:", query_params=common.link_params(a=did, b=f["id"]))
    if isinstance(submitted, str):
        st.error(f"The fork was not started: {esc(submitted)}")
    elif submitted is not None:
        _start_fork(debate, *submitted)
