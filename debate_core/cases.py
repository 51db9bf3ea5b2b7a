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


def read_json_text(raw: bytes | str) -> Any:
    """JSON from a file's content. A UTF-8 byte-order mark is accepted (editors on Windows write one).

    Raises UnicodeDecodeError, json.JSONDecodeError, or RecursionError when the nesting is too deep
    for the parser; callers turn each into their own bad-input error."""
    text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw.removeprefix("\ufeff")
    return json.loads(text)


TOO_DEEP = "the JSON is nested too deeply to read"


def case_from_bytes(raw: bytes, origin: str) -> Case:
    """A case from an uploaded file's bytes, every problem a CaseError naming the file."""
    try:
        data = read_json_text(raw)
    except UnicodeDecodeError as exc:
        raise CaseError(f"{origin}: not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise CaseError(f"{origin}: invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise CaseError(f"{origin}: {TOO_DEEP}") from None
    return parse_case(data, origin)


def parse_case(data: Any, origin: str = "case") -> Case:
    if not isinstance(data, dict):
        raise CaseError(f"{origin}: a case must be a JSON object, got {type(data).__name__}")
    try:
        return Case.model_validate(data)
    except RecursionError:
        raise CaseError(f"{origin}: {TOO_DEEP}") from None
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
        raw = p.read_bytes()
    except OSError as exc:
        raise CaseError(f"{p}: cannot be read ({exc.strerror or exc})") from None
    return case_from_bytes(raw, str(p))


def sample_cases() -> list[Path]:
    return sorted(CASES_DIR.glob("*.json"))
