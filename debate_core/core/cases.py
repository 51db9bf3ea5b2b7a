"""Load and validate case files. A malformed case is refused with a message naming the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .files import (
    CASE_BYTES,
    PASSAGES,
    FileProblem,
    check_count,
    check_size,
    decode_text,
    json_error,
    read_bytes_capped,
)
from .schemas import Case

CASES_DIR = Path(__file__).resolve().parents[2] / "data" / "cases"


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
    """A case from a file's or an upload's bytes, every problem a CaseError naming the file: over
    the size limit, a NUL byte (a binary file), not UTF-8, not JSON, too many passages."""
    try:
        check_size(len(raw), CASE_BYTES, origin)
        text = decode_text(raw, origin)
    except FileProblem as exc:
        raise CaseError(str(exc)) from None
    try:
        data = read_json_text(text)
    except json.JSONDecodeError as exc:
        raise CaseError(f"{origin}: {json_error(exc)}") from None
    except RecursionError:
        raise CaseError(f"{origin}: {TOO_DEEP}") from None
    return parse_case(data, origin)


def parse_case(data: Any, origin: str = "case") -> Case:
    """The one place a new case is accepted (files, uploads, the paste box), so the passage limit
    holds everywhere; cases already stored are read back without it."""
    if not isinstance(data, dict):
        raise CaseError(f"{origin}: a case must be a JSON object, got {type(data).__name__}")
    evidence = data.get("evidence")
    try:
        if isinstance(evidence, list):
            check_count(len(evidence), PASSAGES, origin)
    except FileProblem as exc:
        raise CaseError(str(exc)) from None
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
    try:
        raw = read_bytes_capped(p, "case file", CASE_BYTES)
    except FileProblem as exc:
        raise CaseError(str(exc)) from None
    return case_from_bytes(raw, f"case file {p}")


def sample_cases() -> list[Path]:
    return sorted(CASES_DIR.glob("*.json"))
