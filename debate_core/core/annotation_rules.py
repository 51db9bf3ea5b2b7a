"""Reviewers' annotations of single claims and critiques: the labels and the references.

A reference names a claim or a critique the way the app shows it:

- a claim as `agent.claim_id` (`nla.C1`); when the agent made that claim in more than one round,
  each version carries its round (`r2:nla.C1`), and the bare form means the latest round's;
- a critique as `critic->target:critique_id` (`nla->ala:K1`), again with `rN:` when the same
  critic raised that id against that target in more than one round, the bare form meaning the
  latest round's.

A re-asked critique step keeps every call's rows; a reference means the last call's, the one the
debate used. These are pure functions over the store's claim and critique rows; the store keeps
the annotations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CLAIM_LABELS = ("correct", "incorrect", "unsupported", "needs_source")
CRITIQUE_LABELS = ("valid", "invalid")
SEVERITIES = ("CRITICAL", "MAJOR", "MINOR")
LABEL_TEXT = {"correct": "correct", "incorrect": "incorrect", "unsupported": "unsupported",
              "needs_source": "needs a source", "valid": "valid", "invalid": "invalid"}
MAX_COMMENT = 4000

class AnnotationError(ValueError):
    """A reference, label or severity that cannot be used; the message lists the valid ones."""


@dataclass(frozen=True)
class Target:
    """The claim or critique an annotation is about, pinned to the stored row."""

    kind: str  # "claim" or "critique"
    ref: str  # as shown in the app, with the round when needed
    step_id: str
    call: int
    round: int | None
    agent: str  # the claim's agent, or the critique's critic
    target: str | None  # the critiqued agent
    item_id: str  # claim id or critique id
    severity: str | None = None  # the critique's own severity


def _claim_base(row: dict[str, Any]) -> str:
    return f"{row.get('agent')}.{row.get('claim_id')}"


def _critique_base(row: dict[str, Any]) -> str:
    return f"{row.get('critic')}->{row.get('target')}:{row.get('critique_id')}"


def _latest_calls(critiques: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (step, critique id): the last call's."""
    last: dict[tuple[Any, Any], dict[str, Any]] = {}
    for row in critiques:
        key = (row.get("step_id"), row.get("critique_id"))
        if key not in last or (row.get("call") or 1) >= (last[key].get("call") or 1):
            last[key] = row
    return list(last.values())


def _targets(rows: list[dict[str, Any]], kind: str) -> dict[str, Target]:
    """Every reference that names a row: the round-qualified one always, the bare one for the latest round."""
    base = _claim_base if kind == "claim" else _critique_base
    by_base: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_base.setdefault(base(row), []).append(row)
    out: dict[str, Target] = {}
    for name, items in by_base.items():
        items = sorted(items, key=lambda r: (r.get("round") or 0))
        for i, row in enumerate(items):
            shown = name if len(items) == 1 else f"r{row.get('round')}:{name}"
            t = Target(
                kind=kind, ref=shown, step_id=str(row.get("step_id")), call=int(row.get("call") or 1),
                round=row.get("round"), agent=str(row.get("agent") if kind == "claim" else row.get("critic")),
                target=None if kind == "claim" else row.get("target"),
                item_id=str(row.get("claim_id") if kind == "claim" else row.get("critique_id")),
                severity=None if kind == "claim" else row.get("severity"),
            )
            out[shown] = t
            out[f"r{row.get('round')}:{name}"] = t
            if i == len(items) - 1:
                out[name] = t
    return out


def claim_targets(claims: list[dict[str, Any]]) -> list[Target]:
    """Every claim, once, under the reference the app shows."""
    return _unique(_targets(claims, "claim"))


def critique_targets(critiques: list[dict[str, Any]]) -> list[Target]:
    """Every critique the debate used (the last call of a re-asked step), once, as the app shows it."""
    return _unique(_targets(_latest_calls(critiques), "critique"))


def _unique(index: dict[str, Target]) -> list[Target]:
    seen: dict[tuple[str, str, int], Target] = {}
    for t in index.values():
        seen.setdefault((t.step_id, t.item_id, t.call), t)
    return sorted(seen.values(), key=lambda t: (t.round or 0, t.agent, t.target or "", t.item_id))


def _listing(refs: list[str], limit: int = 20) -> str:
    if not refs:
        return "none"
    shown = ", ".join(refs[:limit])
    return shown + (f" and {len(refs) - limit} more" if len(refs) > limit else "")


def resolve(kind: str, ref: str, rows: list[dict[str, Any]]) -> Target:
    """The claim or critique `ref` names among this debate's rows, or AnnotationError listing the valid ones."""
    ref = (ref or "").strip()
    picked = rows if kind == "claim" else _latest_calls(rows)
    index = _targets(picked, kind)
    if ref in index:
        return index[ref]
    if not index:
        raise AnnotationError(f"this debate has no {kind}s to annotate")
    form = "agent.claim_id, e.g. nla.C1" if kind == "claim" else "critic->target:critique_id, e.g. nla->ala:K1"
    base = _claim_base if kind == "claim" else _critique_base
    names = sorted({base(r) for r in picked})
    rounds = sorted({r.get("round") for r in picked if r.get("round") is not None})
    tail = (f" (each names its latest round's; prefix rN: for round N, rounds {rounds[0]} to {rounds[-1]})"
            if len(rounds) > 1 else "")
    raise AnnotationError(f"no {kind} {ref!r} in this debate (a {kind} is named {form}); "
                          f"valid: {_listing(names, 40)}{tail}")


def check_label(kind: str, label: str, severity: str | None = None) -> tuple[str, str | None]:
    """The label (and for a critique the reviewer's severity) normalised, or AnnotationError listing the valid ones."""
    labels = CLAIM_LABELS if kind == "claim" else CRITIQUE_LABELS
    value = (label or "").strip().lower().replace(" ", "_").replace("-", "_")
    if value not in labels:
        raise AnnotationError(f"label {label!r} is not a {kind} label; valid: {', '.join(labels)}")
    if severity is None or str(severity).strip() == "":
        return value, None
    if kind == "claim":
        raise AnnotationError("a severity goes with a critique, not a claim")
    sev = str(severity).strip().upper()
    if sev not in SEVERITIES:
        raise AnnotationError(f"severity {severity!r} is not a severity; valid: {', '.join(SEVERITIES)}")
    return value, sev


def audit_text(target: Target, label: str, severity: str | None, comment: str | None) -> str:
    """The line the audit trail shows for an annotation."""
    text = f"{target.kind} {target.ref} marked {LABEL_TEXT.get(label, label)}"
    if severity:
        text += f" (severity {severity}; the critic said {target.severity or '?'})"
    return text + (f": {comment}" if comment else "")
