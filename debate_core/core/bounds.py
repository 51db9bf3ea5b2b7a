"""Bounds on model output that a server's grammar can enforce, read from an output model's JSON Schema.

Every output model a model answers carries `maxLength` on its free-text fields and `maxItems` on its
lists (enums where the protocol has them). Servers that generate under a grammar built from the
schema (llama.cpp, vLLM's guided decoding, Ollama's `format`) then cannot write a string that never
closes or a list that never ends; servers that do not constrain are held to the same bounds by
validation, which re-asks with the reason. Numbers are the exception: those grammars ignore
`minimum`/`maximum`, so `grammar_schema` sends a bounded number as an enumerated level (a confidence
as one of 0, 0.05, ... 1), which any value of the output model accepts unchanged.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from pydantic import BaseModel

# How many levels a bounded fractional number is offered in (0, 0.05, ... 1 for a confidence).
LEVELS = 20
# A bounded whole-number range up to this wide is offered value by value (a judge's 0-100 score).
MAX_ENUMERATED_INTEGERS = 101
ELLIPSIS = "…"
# The longest free-text field any output model may ask for. llama.cpp expands `maxLength` into one
# nested rule per character, and its grammar parser refuses a rule repeated more than about 1,100
# times (llama-cpp-python's server then dies): a longer field would break those servers outright.
MAX_TEXT_CHARS = 1000


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return root.get("$defs", {}).get(ref.split("/")[-1], {})
    return schema


def _variants(schema: dict[str, Any], root: dict[str, Any]) -> list[dict[str, Any]]:
    """The schemas a value may follow: itself, or each branch of an anyOf (Optional fields)."""
    schema = _resolve(schema, root)
    if "anyOf" in schema:
        return [_resolve(s, root) for s in schema["anyOf"]]
    return [schema]


def output_bounds(model: type[BaseModel]) -> dict[str, dict[str, Any]]:
    """Each bounded field of an output model by path (`claims[].statement`): its `max_length`,
    `max_items`, `choices` or number range, as `protocols --json` shows them."""
    root = model.model_json_schema()
    out: dict[str, dict[str, Any]] = {}

    def walk(schema: dict[str, Any], path: str) -> None:
        for variant in _variants(schema, root):
            kind = variant.get("type")
            entry = out.setdefault(path, {}) if path else {}
            if "enum" in variant:
                entry["choices"] = list(variant["enum"])
            elif kind == "string" and "maxLength" in variant:
                entry["max_length"] = variant["maxLength"]
            elif kind in ("number", "integer") and ("minimum" in variant or "maximum" in variant):
                entry["range"] = [variant.get("minimum"), variant.get("maximum")]
            elif kind == "array":
                if "maxItems" in variant:
                    entry["max_items"] = variant["maxItems"]
                walk(variant.get("items", {}), f"{path}[]")
            elif kind == "object" or "properties" in variant:
                for name, prop in variant.get("properties", {}).items():
                    walk(prop, f"{path}.{name}" if path else name)
            if path and not entry:
                out.pop(path, None)

    walk(root, "")
    return out


def unbounded_fields(model: type[BaseModel]) -> list[str]:
    """Free-text fields without `maxLength` and lists without `maxItems`: what a grammar could not
    stop. A model-facing output model has none (tests/test_output_bounds.py)."""
    root = model.model_json_schema()
    missing: list[str] = []

    def walk(schema: dict[str, Any], path: str) -> None:
        for variant in _variants(schema, root):
            kind = variant.get("type")
            if kind == "string" and "maxLength" not in variant and "enum" not in variant:
                missing.append(path)
            elif kind == "array":
                if "maxItems" not in variant:
                    missing.append(path)
                walk(variant.get("items", {}), f"{path}[]")
            elif kind == "object" or "properties" in variant:
                for name, prop in variant.get("properties", {}).items():
                    walk(prop, f"{path}.{name}" if path else name)

    walk(root, "")
    return missing


def _levels(low: float, high: float, integer: bool) -> list[float | int] | None:
    if integer:
        if high - low + 1 > MAX_ENUMERATED_INTEGERS:
            return None
        return list(range(int(low), int(high) + 1))
    step = (high - low) / LEVELS
    return [round(low + i * step, 6) for i in range(LEVELS + 1)]


def grammar_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema sent to a server that builds a grammar from it: every number bounded on both
    sides becomes an enumeration of levels (a whole-number range such as a 0-100 score value by
    value, up to 101 values; other numbers, such as a confidence, in twentieths of their range),
    so the grammar itself keeps it in range."""
    out = copy.deepcopy(schema)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            kind = node.get("type")
            if kind in ("number", "integer") and "minimum" in node and "maximum" in node and "enum" not in node:
                low, high = float(node["minimum"]), float(node["maximum"])
                # A range of whole bounds wider than the levels (a 0-100 score) goes in whole numbers.
                whole = kind == "integer" or (low.is_integer() and high.is_integer() and high - low > LEVELS)
                levels = _levels(low, high, whole)
                if levels is not None:
                    node["enum"] = levels
                    node["description"] = (node.get("description", "") + " One of the listed levels.").strip()
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(out)
    return out


_SENTENCE_END = re.compile(r"[.!?;:](?=\s)")


def fit_text(text: str, limit: int) -> str:
    """`text` cut to `limit` characters at the last sentence end, else the last word, with an
    ellipsis: how a rule-based writer keeps to a field's length."""
    if len(text) <= limit:
        return text
    room = text[: max(1, limit - len(ELLIPSIS))]
    ends = [m.end() for m in _SENTENCE_END.finditer(room + " ")]
    if ends and ends[-1] >= len(room) // 2:
        cut = room[: ends[-1]].rstrip().rstrip(";:")
        return cut if cut.endswith((".", "!", "?")) else cut + "."
    cut = room.rsplit(" ", 1)[0] if " " in room.strip() else room
    # A text cut once and added to keeps one ellipsis.
    return cut.rstrip(" ,;:" + ELLIPSIS) + ELLIPSIS


def fit_to_bounds(data: Any, model: type[BaseModel]) -> Any:
    """`data` with every string cut to its field's `maxLength` (fit_text) and every list to its
    `maxItems`: the offline agents write to the same form a model is held to."""
    root = model.model_json_schema()

    def fit(value: Any, schema: dict[str, Any]) -> Any:
        for variant in _variants(schema, root):
            kind = variant.get("type")
            if kind == "string" and isinstance(value, str):
                limit = variant.get("maxLength")
                return fit_text(value, limit) if limit else value
            if kind == "array" and isinstance(value, list):
                limit = variant.get("maxItems")
                kept = value[:limit] if limit is not None else value
                return [fit(item, variant.get("items", {})) for item in kept]
            if (kind == "object" or "properties" in variant) and isinstance(value, dict):
                props = variant.get("properties", {})
                return {k: fit(v, props[k]) if k in props else v for k, v in value.items()}
        return value

    return fit(data, root)


def build(model: type[BaseModel], **fields: Any) -> Any:
    """`model(**fields)` with the text fitted to its bounds first: how the offline agents build an
    output whose text comes from the case (a long passage quoted in a claim, say)."""
    from pydantic_core import to_jsonable_python

    return model.model_validate(fit_to_bounds(to_jsonable_python(fields), model))


def worst_case_chars(model: type[BaseModel]) -> int:
    """The longest JSON reply the bounds allow: every string at its `maxLength`, every list at its
    `maxItems`, every optional field present. What a reply cap must leave room for, so that a model
    generating under the grammar is never cut off (tests/test_output_bounds.py)."""
    root = model.model_json_schema()

    def size(schema: dict[str, Any]) -> int:
        best = 0
        for variant in _variants(schema, root):
            kind = variant.get("type")
            if "enum" in variant:
                n = max(len(str(v)) + 2 for v in variant["enum"])
            elif kind == "string":
                n = int(variant.get("maxLength", MAX_TEXT_CHARS)) + 2
            elif kind in ("number", "integer"):
                n = 8
            elif kind == "boolean":
                n = 5
            elif kind == "null":
                n = 4
            elif kind == "array":
                n = 2 + int(variant.get("maxItems", 1)) * (size(variant.get("items", {})) + 2)
            elif kind == "object" or "properties" in variant:
                n = 2 + sum(len(name) + 4 + size(prop) for name, prop in variant.get("properties", {}).items())
            else:
                n = 0
            best = max(best, n)
        return best

    return size(root)
