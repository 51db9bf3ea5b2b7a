"""Cross critique's tables for the app and the exports: the critiques grouped by claim, with their state
over time (rebuilt from the stored steps by the protocol's own ledger rules)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ...core.schemas import SEVERITIES
from ...core.steps import latest_calls, latest_ok_calls_in_order
from . import rules

# A critique of a step that was re-asked: the answer it criticised was not used.
SUPERSEDED = "not used (re-asked)"
# A critique's state in plain words (open, addressed, resolved, ...), for tables and exports.
STATE_LABELS = rules.STATE_LABELS
CritiqueRecord = rules.CritiqueRecord


def critique_records(steps: list[dict[str, Any]]) -> list[CritiqueRecord]:
    """Every critique's record with its state over time, rebuilt from the stored steps in run order
    the way the debate computed it."""
    return list(rules.ledger_from_steps(steps).records)


def history_text(record: CritiqueRecord) -> str:
    """A critique's state over time, e.g. "r1.critique.ala.nla open; r2.revise.nla addressed, not confirmed"."""
    parts = []
    for h in record.history:
        text = STATE_LABELS.get(h["state"], h["state"])
        if h["state"] == rules.RESOLVED and h.get("by"):
            text += f" ({h['by']})"
        parts.append(f"{h['step']} {text}")
    return "; ".join(parts)


def critique_ledger(steps: list[dict[str, Any]]) -> dict[tuple[str, str], rules.CritiqueRecord]:
    """(step that raised it, critique id) -> the critique's record with its state over time, rebuilt
    from the stored steps the way the debate computed it."""
    ledger = rules.ledger_from_steps(latest_ok_calls_in_order(steps))
    return {(r.raised_in, r.item.critique.id): r for r in ledger.records}


def _step_order(steps: list[dict[str, Any]]) -> dict[str, int]:
    order: dict[str, int] = {}
    for s in latest_ok_calls_in_order(steps):
        order.setdefault(s["step_id"], len(order))
    return order


def _state_at(record: rules.CritiqueRecord, order: dict[str, int], limit: int) -> str | None:
    """The record's state label after the steps up to `limit` in run order, None before it was raised."""
    seen = [h for h in record.history if order.get(h["step"], 1 << 30) <= limit]
    if not seen:
        return None
    last = seen[-1]
    text = rules.STATE_LABELS.get(last["state"], last["state"])
    return f"{text} ({last['by']})" if last["state"] == rules.RESOLVED and last.get("by") else text


def critiques_by_claim_version(steps: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """(answer/revise step, claim id) -> "critic Kn SEVERITY: state; ..." for the critiques of that
    version of the claim, each in its state just before the agent's next version (or at the end)."""
    records = list(critique_ledger(steps).values())
    order = _step_order(steps)
    versions: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for s in latest_calls(steps):
        if s.get("stage") in ("answer", "revise") and s.get("status") == "ok" and s["step_id"] in order:
            versions[s.get("agent") or ""].append((order[s["step_id"]], s["step_id"]))
    out: dict[tuple[str, str], str] = {}
    for agent, seq in versions.items():
        seq.sort()
        for i, (start, sid) in enumerate(seq):
            end = seq[i + 1][0] - 1 if i + 1 < len(seq) else len(order)
            for rec in records:
                if rec.item.target != agent:
                    continue
                state = _state_at(rec, order, end)
                if state is None or (rec.state == rules.RESOLVED and _closed_before(rec, order, start)):
                    continue
                key = (sid, rec.item.critique.target_claim_id)
                text = f"{rec.item.critic} {rec.item.critique.id} {rec.item.critique.severity}: {state}"
                out[key] = f"{out[key]}; {text}" if key in out else text
    return out


def _closed_before(record: rules.CritiqueRecord, order: dict[str, int], start: int) -> bool:
    closing = [h for h in record.history if h["state"] == rules.RESOLVED]
    return bool(closing) and order.get(closing[-1]["step"], 1 << 30) < start


def critique_groups(critiques: list[dict[str, Any]], steps: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Critiques grouped by the claim they target (target agent + claim id), worst first inside a group.
    Given the debate's steps, each critique also carries its current `state` label."""
    order = {s: i for i, s in enumerate(SEVERITIES)}
    ledger = critique_ledger(steps) if steps else {}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for c in critiques:
        if ledger:
            c = {**c, "state": _state_label(ledger, c)}
        groups[(c.get("target") or "?", c.get("target_claim_id") or "?")].append(c)
    out = []
    for (target, claim_id), items in groups.items():
        items = sorted(items, key=lambda c: (order.get(c.get("severity"), 9), c.get("round") or 0))
        worst = items[0].get("severity") if items else None
        out.append({"target": target, "claim": claim_id, "worst": worst, "critiques": items,
                    "counts": {s: sum(1 for c in items if c.get("severity") == s) for s in SEVERITIES}})
    out.sort(key=lambda g: (order.get(g["worst"], 9), g["target"], g["claim"]))
    return out


def _state_label(ledger: dict[tuple[str, str], rules.CritiqueRecord], row: dict[str, Any]) -> str:
    rec = ledger.get((row.get("step_id"), row.get("critique_id")))
    if rec is None or (rec.call is not None and row.get("call") is not None and row.get("call") != rec.call):
        return SUPERSEDED
    return rec.label()


def critique_rows(critiques: list[dict[str, Any]], steps: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One row per stored critique. Given the debate's steps, also its state now, its state at the end
    of each round (open, addressed, not confirmed, maintained, resolved) and the critic's last note."""
    ledger = critique_ledger(steps) if steps else {}
    rounds = sorted({h["round"] for r in ledger.values() for h in r.history})
    rows = []
    for c in critiques:
        row = {"round": c.get("round"), "critic": c.get("critic"), "target": c.get("target"),
               "critique": c.get("critique_id"), "target_claim_id": c.get("target_claim_id"),
               "issue_type": c.get("issue_type"), "severity": c.get("severity"),
               "description": c.get("description"), "suggested_fix": c.get("suggested_fix")}
        if ledger:
            state = _state_label(ledger, c)
            rec = None if state == SUPERSEDED else ledger.get((c.get("step_id"), c.get("critique_id")))
            row["state"] = state
            for n in rounds:
                after = rec.state_after(n) if rec is not None else None
                row[f"after round {n}"] = rules.STATE_LABELS.get(after, "") if after else ""
            row["critic note"] = rec.note if rec is not None else ""
        rows.append(row)
    return rows


def plot_thresholds(options: Any) -> dict[str, tuple[float, str]]:
    """The answer-change line of the per-round plot: an answer is stable below it."""
    change = options.answer_change_threshold
    return {"answer_change": (float(change), f"stable below {change:.0%}")}
