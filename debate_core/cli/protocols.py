"""The protocols command: every protocol spec, as text or JSON."""

from __future__ import annotations

import argparse
import json

from ..protocols import specs
from .common import EXIT_OK


def cmd_protocols(args: argparse.Namespace) -> int:
    """Every protocol spec: what it does, its agents, rounds, presets, options (JSON Schema), case needs."""
    described = [spec.describe() for spec in specs()]
    if args.json:
        print(json.dumps(described, ensure_ascii=False, indent=2))
        return EXIT_OK
    for d in described:
        agents = ", ".join(str(a.get("id")) for a in d["agents"]["default"])
        rounds = d["rounds"]
        print(f"{d['name']}: {d['title']}")
        print(f"  {d['description']}")
        print(f"  agents: {agents} (takes {d['agents']['min']}"
              f"{' or more' if d['agents']['max'] is None else ' to ' + str(d['agents']['max'])})")
        print(f"  rounds: {rounds['default']} (from {rounds['min']} to {rounds['max']})")
        for key, prop in d["options"].get("properties", {}).items():
            print(f"  --option {key}={json.dumps(prop.get('default'))}  {prop.get('description', '')}")
        for need in d["case_requirements"]:
            kind = "needs" if need["required"] else "uses"
            tail = f" (without it: {need['without']})" if need.get("without") else ""
            print(f"  case {kind} '{need['field']}': {need['description']}{tail}")
        for name, preset in d["presets"].items():
            print(f"  --preset {json.dumps(name, ensure_ascii=False)}  {_preset_text(preset)}")
        print()
    return EXIT_OK


def _preset_text(preset: dict) -> str:
    """A preset's settings in one line: rounds, agents by id, options as JSON."""
    parts = []
    if preset.get("rounds") is not None:
        parts.append(f"rounds {preset['rounds']}")
    if preset.get("agents"):
        parts.append("agents " + ", ".join(str(a.get("id")) for a in preset["agents"]))
    if preset.get("options"):
        parts.append("options " + json.dumps(preset["options"], ensure_ascii=False))
    return "; ".join(parts)
