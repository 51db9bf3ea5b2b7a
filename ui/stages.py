"""What each protocol's steps and views look like in the app, registered by protocol and stage.

The debate page never guesses what to draw from the shape of an output: a step is drawn by the
renderer registered for its (protocol, stage), and a protocol's own view by the function
registered for the protocol. Each protocol registers its renderers in its own module,
`ui/protocols/<name>.py` (the baselines `single` and `majority` share `ui/protocols/baselines.py`),
which is imported by name the first time one of its steps or its view is asked for; a protocol
without such a module has its steps drawn as plain fields. tests/test_layering.py checks that every
stage of every protocol spec has a renderer. Model and evidence text goes through `formatting.md_escape`
or `st.text`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import streamlit as st

from debate_core.present import formatting
from debate_core.protocols import BASELINES

esc = formatting.md_escape

StepRenderer = Callable[[dict[str, Any]], None]
ProtocolView = Callable[[dict[str, Any], list[dict[str, Any]]], bool]

_STEPS: dict[tuple[str, str], StepRenderer] = {}
_VIEWS: dict[str, ProtocolView] = {}
_LOADED: set[str] = set()  # protocols whose ui module has been looked for


def step_renderer(protocol: str, *stages: str) -> Callable[[StepRenderer], StepRenderer]:
    def deco(fn: StepRenderer) -> StepRenderer:
        for stage in stages:
            _STEPS[(protocol, stage)] = fn
        return fn

    return deco


def protocol_view(protocol: str) -> Callable[[ProtocolView], ProtocolView]:
    def deco(fn: ProtocolView) -> ProtocolView:
        _VIEWS[protocol] = fn
        return fn

    return deco


def ui_module(protocol: str) -> str:
    """Where a protocol's renderers live: `ui.protocols.<name>`, named like its folder under
    debate_core/protocols/ (the baselines share `baselines`)."""
    return f"ui.protocols.{'baselines' if protocol in BASELINES else protocol}"


def _load(protocol: str) -> None:
    """Import the protocol's ui module once, so its renderers register; none is fine (plain fields)."""
    if protocol in _LOADED or not protocol.isidentifier():
        return
    _LOADED.add(protocol)
    module = ui_module(protocol)
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise


def renderer_for(protocol: str, stage: str | None) -> StepRenderer | None:
    _load(protocol)
    return _STEPS.get((protocol, stage or ""))


def view_for(protocol: str) -> ProtocolView | None:
    _load(protocol)
    return _VIEWS.get(protocol)


# st.dataframe draws each row 35 px high under a header of the same height, inside a 1 px border.
ROW_PX = 35
# A table shows all its rows up to this many, then scrolls: longer tables stay within one screen.
TABLE_ROWS = 20


def table_height(rows: int) -> int:
    """The pixel height for a table of `rows` rows: every row shown, up to TABLE_ROWS."""
    return (min(max(rows, 1), TABLE_ROWS) + 1) * ROW_PX + 3


def render_output(protocol: str, step: dict[str, Any]) -> None:
    """A finished step's output, drawn by its registered renderer; as plain fields otherwise."""
    fn = renderer_for(protocol, step.get("stage"))
    out = step.get("output") or {}
    if fn is not None:
        fn(out)
        return
    fields(out)


def fields(out: dict[str, Any]) -> None:
    """A fallback that still reads as text: one line per field, lists as bullets."""
    for key, value in out.items():
        if isinstance(value, list):
            st.markdown(f"**{esc(key.replace('_', ' '))}**")
            for item in value:
                st.markdown(f"- {esc(item if not isinstance(item, dict) else formatting.plain_fields(item))}")
        elif isinstance(value, dict):
            st.markdown(f"**{esc(key.replace('_', ' '))}**: {esc(formatting.plain_fields(value))}")
        else:
            st.markdown(f"**{esc(key.replace('_', ' '))}**: {esc(value)}")


def final_answer(out: dict[str, Any]) -> None:
    """A protocol's closing answer (a supervisor's answer, a judge's summary) and its rationale."""
    st.markdown(esc(out.get("answer") or out.get("summary") or ""))
    if out.get("rationale"):
        st.caption(esc(out.get("rationale")))
