"""Prompt templates live in `prompts/<protocol>/<step>.md`; this module only loads and fills them.

A template is named by its path under `prompts/` without `.md`, e.g. `"cross_critique/answer"`
(`prompts/cross_critique/answer.md`); a name that would leave `prompts/` is refused.

A template has a `## System` section and a `## User` section; `${name}` placeholders are filled
with string.Template. Evidence and other agents' text enter prompts as data, inside delimiters
that the text itself cannot close, so a passage that says "ignore previous instructions" stays data.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any

PROMPT_DIR = Path(__file__).resolve().parents[2] / "prompts"
_SECTION = re.compile(r"^##\s+(System|User)\s*$", re.MULTILINE | re.IGNORECASE)
_DELIM = re.compile(r"<</?DATA[^>]*>>", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*")


class PromptNameError(ValueError):
    pass


def path_for(name: str) -> Path:
    """The file of template `name`: `prompts/<name>.md`, names of letters, digits, `_` and `-` joined
    by `/` only, so no name (`..`, an absolute path, a backslash) reaches outside `prompts/`."""
    if not _NAME.fullmatch(name):
        raise PromptNameError(f"bad prompt name {name!r}: use <protocol>/<step>, e.g. 'cross_critique/answer'")
    return PROMPT_DIR / f"{name}.md"


@lru_cache(maxsize=64)
def load(name: str) -> tuple[str, str]:
    path = path_for(name)
    text = path.read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    sections: dict[str, str] = {}
    for i in range(1, len(parts) - 1, 2):
        sections[parts[i].lower()] = parts[i + 1].strip()
    if "system" not in sections or "user" not in sections:
        raise ValueError(f"prompt {path} needs a '## System' and a '## User' section")
    return sections["system"], sections["user"]


def render(name: str, **variables: Any) -> list[dict[str, str]]:
    system, user = load(name)
    values = {k: (v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, indent=1)) for k, v in variables.items()}
    return [
        {"role": "system", "content": Template(system).substitute(values)},
        {"role": "user", "content": Template(user).substitute(values)},
    ]


def data_block(label: str, content: Any) -> str:
    """Wrap untrusted text as data. Delimiter look-alikes inside the text are defused."""
    body = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, indent=1)
    body = _DELIM.sub(lambda m: m.group(0).replace("<<", "<\u200b<"), body)
    return f"<<DATA {label}>>\n{body}\n<</DATA {label}>>"


def evidence_block(evidence: list[Any]) -> str:
    """Evidence passages as data; each keeps its id so claims can cite it."""
    rows = []
    for ev in evidence:
        meta = [f"id={ev.id}", f"source={ev.source}"]
        if getattr(ev, "authority", None) is not None:
            meta.append(f"authority={ev.authority}")
        if getattr(ev, "date", None):
            meta.append(f"date={ev.date}")
        rows.append(f"[{' | '.join(meta)}]\n{ev.text}")
    return data_block("evidence", "\n\n".join(rows) if rows else "(no evidence passages)")
