"""The protocol choices the New debate page offers, read from each protocol's spec (no Streamlit,
no SQL): a protocol's agents, rounds, presets and options, and whether a case fits it.
"""

from __future__ import annotations

import json
from typing import Any

from .. import protocols as registry
from ..core.schemas import Case
from ..protocols import get_spec, specs


def protocol_info(name: str) -> dict[str, Any]:
    """What the New debate page offers for a protocol, read from its spec; `error` is set when it
    cannot be loaded."""
    try:
        spec = get_spec(name)
    except Exception as exc:  # noqa: BLE001 - a protocol that does not load is shown as unavailable
        return {"name": name, "error": f"{type(exc).__name__}: {exc}"}
    described = spec.describe()
    return {
        "name": name,
        "error": None,
        "title": spec.title,
        "doc": spec.description,
        "agents": [dict(a) for a in spec.default_agents],
        "min_agents": spec.min_agents,
        "max_agents": spec.max_agents,
        "rounds": spec.default_rounds,
        "max_rounds": spec.max_rounds,
        "min_rounds": spec.min_rounds,
        "presets": {str(k): dict(v) for k, v in spec.presets.items()},
        "options": described["options"].get("properties", {}),
        "needs": described["case_requirements"],
    }


def agent_range(info: dict[str, Any]) -> str:
    """How many agents a protocol takes, in words: '2 to 6', '3', '1 or more'."""
    low, high = info.get("min_agents", 1), info.get("max_agents")
    if high is None:
        return f"{low} or more"
    return str(low) if low == high else f"{low} to {high}"


def option_help(info: dict[str, Any]) -> str:
    """The protocol's options as help text: one line each with its default and what it does."""
    lines = []
    for key, prop in (info.get("options") or {}).items():
        default = json.dumps(prop.get("default"), ensure_ascii=False)
        lines.append(f"{key}={default}: {prop.get('description', '')}")
    return "\n".join(lines)


def case_fit(name: str, case: Case) -> tuple[list[str], list[str]]:
    """(problems, notes) of running this case under the protocol: a missing required field is a
    problem (Start stays disabled); a missing optional one is a note naming the reduced mode."""
    spec = get_spec(name)
    problems = [f"{spec.title} needs the case field '{n.field}': {n.description}" for n in spec.missing(case)]
    notes = [f"The case has no '{n.field}', so {spec.title.lower()} runs in a reduced mode: {n.without}"
             for n in spec.reduced(case)]
    return problems, notes


def fitting_protocols(case: Case) -> list[str]:
    return [spec.name for spec in specs() if spec.fits(case)]


def protocol_catalogue() -> list[dict[str, Any]]:
    # Read at call time: the registry's list is the one line a new protocol adds.
    return [protocol_info(name) for name in registry.PROTOCOLS]
