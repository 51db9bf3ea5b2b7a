"""Reading what people type or upload: evidence passages, protocol options, a case from a question.

Shared by the New debate page and the CLI, so a passage line or a KEY=VALUE option means the same
everywhere. Every error is a CaseError whose message names the line or item at fault.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from typing import Any

from .cases import CaseError, parse_case
from .files import CASE_BYTES, FileProblem, check_size, decode_text, json_error
from .schemas import Case
from .settings import AGENT_ID

PASTE_HELP = (
    "One passage per line: `id | source | text`. The text may itself contain `|`. "
    "Lines starting with `#` are ignored."
)


def parse_passages(text: str) -> list[dict[str, str]]:
    """Passages from the paste box; raises CaseError naming the line at fault."""
    try:
        check_size(len((text or "").encode("utf-8")), CASE_BYTES, "the pasted text")
    except FileProblem as exc:
        raise CaseError(str(exc)) from None
    passages: list[dict[str, str]] = []
    for number, line in enumerate((text or "").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|", 2)]
        if len(parts) < 3 or not all(parts):
            raise CaseError(f"passage line {number}: expected 'id | source | text', got {line[:60]!r}")
        passages.append({"id": parts[0], "source": parts[1], "text": parts[2]})
    return passages


def passages_from_upload(name: str, data: bytes) -> list[dict[str, Any]]:
    """Passages from an uploaded .json (a list of passages or a case), .csv (id, source, text) or .txt file."""
    try:
        # The same bound as a case file: these passages become one.
        check_size(len(data), CASE_BYTES, name)
        text = decode_text(data, name)
    except FileProblem as exc:
        raise CaseError(str(exc)) from None
    lower = name.lower()
    if lower.endswith(".json"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CaseError(f"{name}: {json_error(exc)}") from exc
        except RecursionError:
            raise CaseError(f"{name}: the JSON is nested too deeply to read") from None
        if isinstance(obj, dict) and isinstance(obj.get("evidence"), list):
            obj = obj["evidence"]
        if not isinstance(obj, list):
            raise CaseError(f"{name}: expected a list of passages or a case with an 'evidence' list")
        out = []
        for i, item in enumerate(obj):
            if not isinstance(item, dict):
                raise CaseError(f"{name}: passage {i + 1} must be an object with id, source and text")
            out.append(item)
        return out
    if lower.endswith(".csv"):
        reader = csv.DictReader(io.StringIO(text))
        missing = {"id", "source", "text"} - set(reader.fieldnames or [])
        if missing:
            raise CaseError(f"{name}: the CSV needs the columns id, source, text (missing {', '.join(sorted(missing))})")
        return [{k: (v or "").strip() for k, v in row.items() if k} for row in reader]
    return parse_passages(text)


def option_value(raw: str) -> Any:
    """One option's value as typed: JSON when it parses (numbers, true, lists, quoted text), else the
    text itself. Raises RecursionError for JSON nested too deeply to read."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw.strip()


def parse_option_pairs(pairs: list[str] | None, flag: str = "--option") -> dict[str, Any]:
    """The CLI's repeated KEY=VALUE flags (--option, --agent-model); raises CaseError naming the item."""
    out: dict[str, Any] = {}
    for item in pairs or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CaseError(f"{flag} takes KEY=VALUE, got {item!r}")
        try:
            out[key.strip()] = option_value(value)
        except RecursionError:
            raise CaseError(f"{flag} {key.strip()}: the value is nested too deeply to read") from None
    return out


def parse_options(text: str) -> dict[str, Any]:
    """Protocol options typed as KEY=VALUE lines, read like the CLI's --option: JSON values, else text."""
    out: dict[str, Any] = {}
    for number, line in enumerate((text or "").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise CaseError(f"option line {number}: expected KEY=VALUE, got {line[:60]!r}")
        try:
            out[key.strip()] = option_value(value)
        except RecursionError:
            raise CaseError(f"option line {number}: the value is nested too deeply to read") from None
    return out


def format_options(options: dict[str, Any] | None) -> str:
    return "\n".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in (options or {}).items())


def build_case(question: str, passages: list[dict[str, Any]], *, title: str | None = None,
               domain_hint: str | None = None) -> Case:
    """A case from a typed question and passages; the id is derived from the content so it is stable."""
    question = (question or "").strip()
    if not question:
        raise CaseError("the question is required")
    if not passages:
        raise CaseError("add at least one evidence passage (id, source and text)")
    try:
        # Several uploads and the paste box together make one case: the case's size limit holds for it.
        size = len(json.dumps([question, passages], ensure_ascii=False, default=str).encode("utf-8"))
        check_size(size, CASE_BYTES, "your case")
    except FileProblem as exc:
        raise CaseError(str(exc)) from None
    digest = hashlib.sha256(json.dumps([question, passages], sort_keys=True, default=str).encode()).hexdigest()
    data: dict[str, Any] = {
        "id": f"custom-{digest[:10]}",
        "title": (title or "").strip() or _title_from(question),
        "question": question,
        "evidence": passages,
    }
    if domain_hint:
        data["domain_hint"] = domain_hint
    return parse_case(data, "your case")


def _title_from(question: str) -> str:
    first = question.splitlines()[0].strip()
    return first if len(first) <= 80 else first[:77].rstrip() + "..."


AGENTS_HELP = (
    "One agent per line: `id | name | role | instructions | terms`. Only the id is required; the role "
    "says what the agent knows and argues for, terms are comma-separated. Lines starting with `#` are ignored."
)


def parse_agent_lines(text: str) -> list[dict[str, Any]]:
    """Agent profiles typed one per line as `id | name | role | instructions | terms`; raises
    CaseError naming the line at fault (an id with other characters than letters, digits, _ and -)."""
    agents: list[dict[str, Any]] = []
    for number, line in enumerate((text or "").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|", 4)]
        parts += [""] * (5 - len(parts))
        agent_id, name, role, instructions, terms = parts
        if not AGENT_ID.match(agent_id):
            raise CaseError(f"agent line {number}: the id {agent_id!r} may contain only letters, digits, '_' and '-'")
        agent: dict[str, Any] = {"id": agent_id}
        if name:
            agent["name"] = name
        if role:
            agent["role"] = role
        if instructions:
            agent["instructions"] = instructions
        if terms:
            agent["terms"] = [t.strip() for t in terms.split(",") if t.strip()]
        agents.append(agent)
    return agents


def format_agent_lines(agents: list[dict[str, Any]]) -> str:
    """Profiles as the lines `parse_agent_lines` reads (fields that hold `|` lose it)."""
    def clean(value: Any) -> str:
        return " ".join(str(value or "").replace("|", "/").split())

    lines = []
    for a in agents:
        fields = [clean(a.get("id")), clean(a.get("name")), clean(a.get("role") or a.get("focus")),
                  clean(a.get("instructions")), clean(", ".join(a.get("terms") or []))]
        while len(fields) > 1 and not fields[-1]:
            fields.pop()
        lines.append(" | ".join(fields))
    return "\n".join(lines)
