"""How values are written into columns and read back: timestamps, JSON columns, decoded debate rows,
and the full-text search's query and row."""

from __future__ import annotations

import json
import time
from typing import Any


def now() -> str:
    # One reading of the clock for the seconds and the milliseconds: two readings could straddle a
    # second and date a later row before an earlier one (lists order by this stamp).
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def load(value: Any, default: Any = None) -> Any:
    if value is None or value == "":
        return default
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return default


def flag(value: Any) -> int | None:
    return None if value is None else int(bool(value))


def decode_debate(row: dict[str, Any]) -> dict[str, Any]:
    d = dict(row)
    for key, default in (
        ("provider_config", {}), ("settings", {}), ("verdict", None), ("trajectory", []), ("agent_usage", {}),
        ("result", {}), ("summary", {}), ("warnings", []), ("case_json", None),
    ):
        d[key] = load(d.get(key), default)
    d["case"] = d.pop("case_json")
    d["converged"] = bool(d.get("converged"))
    d["needs_human_review"] = bool(d.get("needs_human_review"))
    return d


# The full-text row of the debate bound to the query's `?`.
SEARCH_ROW = "(SELECT search_rowid FROM debates WHERE id = ?)"


def fts_query(text: str) -> str:
    """Turn free text into a safe FTS5 query: every word quoted, all required, last one as a prefix."""
    words = [w.replace('"', "") for w in text.split() if w.replace('"', "")]
    if not words:
        return '""'
    quoted = [f'"{w}"' for w in words]
    quoted[-1] += "*"
    return " ".join(quoted)
