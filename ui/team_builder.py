"""The team builder: agents edited as a table (one row per agent), picked from a gallery of saved
teams and presets, and saved as a named team in the app's settings file.

A team is a list of agent profiles (debate_core/core/profiles.py). The table shows the fields a
reviewer writes (id, name, role, instructions, model, terms); the fields it does not show (a
persona's stance or style, a reasoner's evidence kinds) come back from the profile with the same
id, so editing a preset's role does not lose its persona. Every cell is read as plain text and
checked by core/app_settings.team_agents, which names the row and column of a problem.

Below: a protocol's options as controls built from their JSON Schema (the fork form's), so a
reviewer changes an option with a number input, a choice or a checkbox instead of KEY=VALUE text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from debate_core.core.app_settings import (
    TEAM_COLUMNS,
    TEAM_LIMITS,
    AppSettings,
    AppSettingsError,
    save_team,
    team_agents,
    team_name,
)
from debate_core.core.identity import PermissionRefused
from debate_core.core.profiles import load_profiles
from debate_core.core.settings import SettingsError
from debate_core.present import formatting
from debate_core.protocols import get_spec
from ui import common

# Teams written for the sample cases (the source documents' agents), offered in the gallery.
AGENTS_DIR = Path(__file__).resolve().parents[1] / "data" / "agents"

COLUMN_HELP = {
    "id": "How the debate refers to the agent: letters, digits, _ and -. Leave it empty to make it from the name.",
    "name": "The name the agent speaks as.",
    "role": "What the agent knows and argues for; it enters every prompt of this agent.",
    "instructions": "Extra guidance for this agent (optional).",
    "model": "The model this agent uses, where the provider serves several (optional).",
    "terms": "Domain words this agent looks for, separated by commas (optional).",
}
DEFAULT_PICK = ""


@dataclass
class Pick:
    """One entry of the gallery: a label, its agents, and where it comes from."""

    label: str
    agents: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""


def table_rows(agents: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The agents as the table's rows: one text cell per column, terms as one comma-separated cell."""
    rows = []
    for a in agents:
        row = {k: str(a.get(k) or "") for k in TEAM_COLUMNS if k != "terms"}
        if not row["role"] and a.get("focus"):  # older profiles called the role their focus
            row["role"] = str(a["focus"])
        row["terms"] = ", ".join(str(t) for t in a.get("terms") or [])
        rows.append(row)
    return rows


def apply_edits(rows: list[dict[str, Any]], state: Any) -> list[dict[str, Any]]:
    """The table's rows after the editor's edit state (edited, deleted and added rows), as the
    editor itself applies them; a callback sees only the edit state, not the edited table."""
    state = state or {}
    edited = {int(k): v for k, v in (state.get("edited_rows") or {}).items()}
    deleted = {int(i) for i in state.get("deleted_rows") or []}
    out = [{**row, **edited.get(i, {})} for i, row in enumerate(rows) if i not in deleted]
    out += [dict(r) for r in state.get("added_rows") or []]
    return out


def agents_from_rows(rows: list[dict[str, Any]], known: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The profiles the rows describe, each completed with the fields the table does not show from
    the known profile with the same id. Raises TeamProblem naming the row and column at fault."""
    agents = team_agents([{k: r.get(k) for k in TEAM_COLUMNS} for r in rows])
    by_id = {str(a.get("id")): a for a in known}
    hidden = {a["id"]: {k: v for k, v in by_id.get(a["id"], {}).items() if k not in TEAM_COLUMNS and k != "focus"}
              for a in agents}
    return [{**hidden[a["id"]], **a} for a in agents]


def _agent_file_picks() -> dict[str, Pick]:
    picks = {}
    for path in sorted(AGENTS_DIR.glob("*.json")):
        try:
            agents = load_profiles(path)
        except SettingsError:
            continue  # a broken file is the CLI's to report (--agents-file); the gallery leaves it out
        try:
            note = str(json.loads(path.read_text(encoding="utf-8")).get("description") or "")
        except (OSError, ValueError, AttributeError):
            note = ""
        picks[f"file:{path.stem}"] = Pick(f"Profiles · {path.stem.replace('_', ' ')}", agents, note)
    return picks


def gallery(protocol: str, info: dict[str, Any], settings: AppSettings,
            catalogue: dict[str, dict[str, Any]]) -> dict[str, Pick]:
    """Every team a debate can start from: the saved teams, this protocol's presets with agents
    (built in and saved), the profile files in data/agents/, and each protocol's default agents."""
    picks = {DEFAULT_PICK: Pick("The preset's, the case's or the protocol's own agents")}
    for name, agents in settings.teams.items():
        picks[f"team:{name}"] = Pick(f"Team · {name}", agents, "a team saved here")
    for name, preset in (info.get("presets") or {}).items():
        if preset.get("agents"):
            picks[f"preset:{name}"] = Pick(f"Preset · {name}", list(preset["agents"]),
                                           f"the agents of a preset of {info.get('title') or protocol}")
    for name, preset in settings.presets.get(protocol, {}).items():
        if preset.get("agents"):
            picks[f"saved-preset:{name}"] = Pick(f"Saved preset · {name}", list(preset["agents"]),
                                                 "the agents of a preset saved here")
    picks.update(_agent_file_picks())
    for name, other in catalogue.items():
        if not other.get("error") and other.get("agents"):
            title = other.get("title") or name
            picks[f"protocol:{name}"] = Pick(f"Default agents · {title}", list(other["agents"]),
                                             f"the agents {title} uses when none are chosen")
    return picks


def picker(picks: dict[str, Pick], key: str, label: str = "Start from") -> Pick:
    """The gallery as a choice, with what the chosen entry holds said under it."""
    if st.session_state.get(key) not in picks:  # another protocol offers other presets
        st.session_state[key] = DEFAULT_PICK
    chosen = st.selectbox(label, list(picks), key=key, format_func=lambda k: picks[k].label,
                          help="Saved teams, presets with agents, the profile files shipped with the sample "
                               "cases, and each protocol's default agents. The table below starts from it.")
    pick = picks[chosen]
    if pick.agents:
        names = ", ".join(a.get("name") or str(a.get("id")) for a in pick.agents)
        st.caption(formatting.md_escape(f"{len(pick.agents)} agent(s): {names}"
                                        + (f". {pick.note[:300]}" if pick.note else "")))
    return pick


def editor(key: str, agents: list[dict[str, Any]], known: list[dict[str, Any]],
           label: str = "") -> tuple[list[dict[str, Any]], str]:
    """The agents table; returns (agents, problem): the profiles it holds, or the first problem in
    plain words with its row and column ('' when there is none)."""
    columns = {
        k: st.column_config.TextColumn(TEAM_COLUMNS[k], help=COLUMN_HELP[k], max_chars=TEAM_LIMITS.get(k),
                                       width="large" if k in ("role", "instructions") else "small"
                                       if k == "id" else "medium")
        for k in TEAM_COLUMNS
    }
    if label:
        st.markdown(f"**{formatting.md_escape(label)}**")
    rows = st.data_editor(table_rows(agents), key=key, num_rows="dynamic", hide_index=True,
                          column_config=columns, column_order=list(TEAM_COLUMNS), width="stretch")
    st.caption("One row per agent; rows are counted from the top. Add a row at the bottom of the table, "
               "delete one by selecting it. Only the name is required.")
    try:
        return agents_from_rows(list(rows), known), ""
    except AppSettingsError as exc:
        return [], str(exc)


def current_agents(key: str, agents: list[dict[str, Any]], known: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agents the table holds now, read from its edit state (for a callback, which runs before
    the table is drawn again). Raises TeamProblem."""
    return agents_from_rows(apply_edits(table_rows(agents), st.session_state.get(key)), known)


def _save(key: str, agents: list[dict[str, Any]], known: list[dict[str, Any]], name_key: str,
          pick_key: str, flash: str) -> None:
    """Save the table as a named team and pick it in the gallery (a callback, before the page draws)."""
    state = st.session_state
    try:
        name = team_name(state.get(name_key))
        chosen = current_agents(key, agents, known)
        common.audited("team", "save_presets", lambda: save_team(common.db_path(), name, chosen),
                       f"saved the team {name!r}")
    except (AppSettingsError, OSError, PermissionRefused) as exc:
        common.flash(flash, "error", f"Team not saved. {formatting.md_escape(exc)}")
        return
    state[pick_key] = f"team:{name}"
    state[name_key] = ""
    common.flash(flash, "success", f"Saved the team {formatting.md_escape(name)}; it is picked now.")


def save_controls(key: str, agents: list[dict[str, Any]], known: list[dict[str, Any]], chosen: list[dict[str, Any]],
                  *, name_key: str, pick_key: str, flash: str) -> None:
    """Save the table as a team (for those who may save presets), and download it as a JSON file
    the command line reads (`run --agents-file FILE`)."""
    allowed = common.may("save_presets")
    t1, t2, t3 = st.columns([3, 1, 1], vertical_alignment="bottom")
    t1.text_input("Save these agents as a team", key=name_key, placeholder="team name", disabled=not allowed,
                  max_chars=80)
    t2.button("Save team", key=f"{name_key}-save", on_click=_save, args=(key, agents, known, name_key, pick_key, flash),
              disabled=not allowed)
    t3.download_button("Download", data=json.dumps(chosen, indent=2, ensure_ascii=False), file_name="agents.json",
                       mime="application/json", key=f"{name_key}-download", disabled=not chosen,
                       icon=":material/download:",
                       help="These agents as a JSON file, for the command line: run CASE --agents-file agents.json")
    if not allowed:
        st.caption(formatting.md_escape(common.refusal("save_presets")))
    common.show_flash(flash)


# ---------------------------------------------------------------------------
# A protocol's options as controls (the fork form), built from their JSON Schema
# ---------------------------------------------------------------------------


def option_key(did: str, name: str) -> str:
    return f"fork-opt-{did}-{name}"


def option_props(protocol: str) -> dict[str, dict[str, Any]]:
    """The protocol's options with their JSON Schema (type, bounds, choices, default, description)."""
    try:
        return dict((get_spec(protocol).describe().get("options") or {}).get("properties") or {})
    except Exception:  # noqa: BLE001 - an unknown protocol offers none
        return {}


def _scalar(prop: dict[str, Any]) -> tuple[str | None, bool]:
    """The scalar type an option's control edits ('integer', 'number', 'boolean', 'string' or None
    for a list or a group of settings), and whether it may be empty (null)."""
    kinds = [prop] + list(prop.get("anyOf") or [])
    types = {k.get("type") for k in kinds if k.get("type")}
    nullable = "null" in types
    types.discard("null")
    if "$ref" in prop or types & {"array", "object"} or len(types) != 1:
        return None, nullable
    return types.pop(), nullable


def _bounds(prop: dict[str, Any], kind: str) -> dict[str, Any]:
    """The option's bounds as the number input takes them (whole numbers, or decimals throughout)."""
    cast = int if kind == "integer" else float
    for k in [prop, *(prop.get("anyOf") or [])]:
        if "minimum" in k or "maximum" in k:
            return {name: cast(k[bound]) for name, bound in (("min_value", "minimum"), ("max_value", "maximum"))
                    if k.get(bound) is not None}
    return {}


def current_options(debate: dict[str, Any], props: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The options this debate ran with: the protocol's defaults, with the ones it changed."""
    chosen = ((debate.get("settings") or {}).get("options") or {})
    return {k: chosen.get(k, prop.get("default")) for k, prop in props.items()}


def seed_options(did: str, values: dict[str, Any], props: dict[str, dict[str, Any]], *,
                 only_missing: bool = False) -> None:
    """Put values into the option controls (before they are drawn): the debate's own, or a preset's.
    `only_missing` leaves alone the controls the reader already changed."""
    for name, value in values.items():
        key = option_key(did, name)
        if name not in props or (only_missing and key in st.session_state):
            continue
        kind, _ = _scalar(props[name])
        if props[name].get("enum") or kind in ("boolean", "string"):
            st.session_state[key] = value
        elif kind in ("integer", "number"):
            st.session_state[key] = None if value is None else (int if kind == "integer" else float)(value)
        else:
            st.session_state[key] = "" if value is None else json.dumps(value, ensure_ascii=False)


def apply_preset(did: str, base: dict[str, Any], presets: dict[str, dict[str, Any]],
                  props: dict[str, dict[str, Any]]) -> None:
    chosen = st.session_state.get(f"fork-preset-{did}")
    seed_options(did, {**base, **presets.get(chosen, {})}, props)


def option_control(did: str, name: str, prop: dict[str, Any]) -> None:
    """One control for one option, built from its schema: a number input within its bounds, a
    choice for a fixed set of values, a checkbox for yes/no, a text box for the rest (a list or a
    group of settings, written as JSON)."""
    label = prop.get("title") or name.replace("_", " ").capitalize()
    help_text = prop.get("description") or None
    key = option_key(did, name)
    kind, nullable = _scalar(prop)
    if prop.get("enum"):
        st.selectbox(label, list(prop["enum"]), key=key, help=help_text)
    elif kind == "boolean":
        st.checkbox(label, key=key, help=help_text)
    elif kind == "integer":
        st.number_input(label, step=1, key=key, help=help_text, **_bounds(prop, kind),
                        placeholder="none" if nullable else None)
    elif kind == "number":
        st.number_input(label, step=0.05, format="%.2f", key=key, help=help_text, **_bounds(prop, kind),
                        placeholder="none (leave empty)" if nullable else None)
    elif kind == "string":
        st.text_input(label, key=key, help=help_text)
    else:
        expects = f" Expects {prop['expects']}." if prop.get("expects") else ""
        st.text_input(f"{label} (JSON)", key=key, help=f"{help_text or ''}{expects} Written as JSON; empty for none.")


def changed_options(did: str, props: dict[str, dict[str, Any]], current: dict[str, Any]) -> dict[str, Any]:
    """The options whose control differs from this debate's value; ValueError names the option."""
    changed: dict[str, Any] = {}
    for name, prop in props.items():
        raw = st.session_state.get(option_key(did, name))
        kind, _ = _scalar(prop)
        if kind is None and not prop.get("enum"):
            # An empty box is "none": this debate's value when it had none (an empty list or group).
            empty = current.get(name) if current.get(name) in (None, [], {}) else None
            try:
                value = json.loads(raw) if str(raw or "").strip() else empty
            except json.JSONDecodeError as exc:
                label = prop.get("title") or name
                raise ValueError(f"{label}: not valid JSON ({exc.msg}, at character {exc.pos + 1})") from None
        else:
            value = raw
        if kind == "integer" and value is not None:
            value = int(value)
        if value != current.get(name):
            changed[name] = value
    return changed
