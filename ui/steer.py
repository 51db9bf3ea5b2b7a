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

from debate_core.core import inputs
from debate_core.jobs import worker
from debate_core.jobs.continuation import closed_rounds, intervene
from debate_core.present import formatting, protocol_choices, steering, views
from debate_core.protocols import get_spec
from debate_core.store import NotFound, StoreError
from ui import common

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


KEEP = "(keep this debate's options)"


def _fork_form(debate: dict[str, Any], rounds_closed: list[int]) -> tuple[int, dict[str, Any]] | str | None:
    """The fork form (offered once a round has closed); returns (round, options) when submitted, an
    error message, or None."""
    did = debate["id"]
    st.caption("The fork reuses this debate's rounds up to the one you choose, as they are and with no new "
               "model calls, then goes on with the options you change. Compare the two afterwards.")
    presets = _option_presets(debate["protocol"])
    info = protocol_choices.protocol_info(debate["protocol"])
    with st.form(f"fork-form-{did}", border=False):
        rnd = st.selectbox("Fork after round", rounds_closed, index=len(rounds_closed) - 1, key=f"fork-round-{did}")
        preset = st.selectbox("Preset", [KEEP, *presets], key=f"fork-preset-{did}",
                              help="The protocol's presets that change options only.")
        typed = st.text_area("Options to change, one KEY=VALUE per line (JSON values)", key=f"fork-options-{did}",
                             placeholder='convergence_mode="all"', help=protocol_choices.option_help(info) or None)
        go = st.form_submit_button("Start fork", type="primary", key=f"fork-submit-{did}",
                                   icon=":material/call_split:")
    if not go:
        return None
    try:
        options = {**presets.get(preset, {}), **inputs.parse_options(typed)}
    except ValueError as exc:
        return str(exc)
    return int(rnd), options


def _start_fork(debate: dict[str, Any], rnd: int, options: dict[str, Any]) -> None:
    name = common.reviewer()
    if not name:
        st.error(f"The fork was not started. {NEEDS_NAME}")
        return
    try:
        fork_id = worker.start_fork(debate["id"], rnd, db_path=common.db_path(), options=options or None,
                                    actor=common.actor())
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
    submitted: tuple[int, dict[str, Any]] | str | None = None
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
