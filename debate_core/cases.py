"""Load and validate case files. A malformed case is refused with a message naming the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .schemas import Case

CASES_DIR = Path(__file__).resolve().parent.parent / "data" / "cases"


class CaseError(ValueError):
    """Bad input: the message names the file or field at fault. Nothing has been written."""


def parse_case(data: Any, origin: str = "case") -> Case:
    if not isinstance(data, dict):
        raise CaseError(f"{origin}: a case must be a JSON object, got {type(data).__name__}")
    try:
        return Case.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"]) or "(case)"
        msg = err["msg"]
        if err["type"] == "missing":
            msg = "is required"
        raise CaseError(f"{origin}: field '{loc}' {msg}") from exc


def load_case(path: str | Path) -> Case:
    p = Path(path)
    if not p.exists():
        raise CaseError(f"case file not found: {p}")
    if not p.is_file():
        raise CaseError(f"not a file: {p}")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise CaseError(f"{p}: not UTF-8 text ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise CaseError(f"{p}: invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    return parse_case(data, str(p))


def sample_cases() -> list[Path]:
    return sorted(CASES_DIR.glob("*.json"))
