"""Exports of a stored debate: the seed's transcript files, a readable transcript, a replay
cassette and a CSV of claims and critiques. Everything reads from the store."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from .moderator import cross_critique as cc_rules
from .protocols import get_spec
from .providers.replay import CASSETTE_FORMAT

# Secrets never leave the process: a provider config is stored without its key, and exports
# drop any key-like field defensively in case an older row carried one.
_SECRET_KEYS = ("api_key", "key", "token", "secret", "password")


def _final_calls(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last successful call of each step, in the order the steps started."""
    last: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for s in steps:
        if s["status"] != "ok":
            continue
        if s["step_id"] not in last:
            order.append(s["step_id"])
        last[s["step_id"]] = s
    return [last[sid] for sid in order]


def public_settings(config: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in (config or {}).items() if k.lower() not in _SECRET_KEYS}


def export_files(store: Any, debate_id: str) -> dict[str, str]:
    """File name -> content for a stored debate."""
    debate = store.get_debate(debate_id)
    spec = get_spec(debate["protocol"])
    files: dict[str, str] = {}
    for step in _final_calls(debate["steps"]):
        name = spec.export_name(step) if spec.export_name else f"{step['step_id'].replace('.', '_')}.json"
        payload = (spec.export_payload(step) if spec.export_payload
                   else {"step": step["step_id"], **(step["output"] or {})})
        files[name] = json.dumps(payload, ensure_ascii=False, indent=2)
    summary = {
        "debate_id": debate["id"],
        "protocol": debate["protocol"],
        "question": debate["question"],
        "status": debate["status"],
        "rounds": debate["rounds"],
        "converged": debate["converged"],
        "convergence_reason": debate["convergence_reason"],
        "verdict": debate["verdict"],
        "review_state": debate["review_state"],
        "final_answer": debate["final_answer"],
        **(debate["summary"] or {}),
        "result": debate["result"],
        "trajectory": debate["trajectory"],
        "usage": {"calls": debate["calls"], "input_tokens": debate["input_tokens"], "output_tokens": debate["output_tokens"]},
        "provider": public_settings(debate["provider_config"]),
        "reviews": debate["reviews"],
    }
    files["debate_summary.json"] = json.dumps(summary, ensure_ascii=False, indent=2, default=str)
    files["transcript.md"] = transcript_markdown(debate)
    return files


def write_export_dir(store: Any, debate_id: str, directory: str | Path) -> list[Path]:
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in export_files(store, debate_id).items():
        path = target / name
        path.write_text(content, encoding="utf-8")
        written.append(path)
    return written


def cassette(store: Any, debate_id: str) -> dict[str, Any]:
    """Every successful call in order (a re-asked step appears once per call), replayable as is."""
    debate = store.get_debate(debate_id)
    calls = [
        {"step": s["step_id"], "output": s["output"],
         "usage": {"input_tokens": s["input_tokens"] or 0, "output_tokens": s["output_tokens"] or 0}}
        for s in debate["steps"] if s["status"] == "ok"
    ]
    return {
        "format": CASSETTE_FORMAT,
        "protocol": debate["protocol"],
        "debate_id": debate["id"],
        "case": debate["case"],
        "settings": debate["settings"],
        "calls": calls,
    }


def _history_text(record: cc_rules.CritiqueRecord) -> str:
    """A critique's state over time, e.g. "r1.critique.ala.nla open; r2.revise.nla addressed, not confirmed"."""
    parts = []
    for h in record.history:
        text = cc_rules.STATE_LABELS.get(h["state"], h["state"])
        if h["state"] == cc_rules.RESOLVED and h.get("by"):
            text += f" ({h['by']})"
        parts.append(f"{h['step']} {text}")
    return "; ".join(parts)


def claims_csv(store: Any, debate_id: str) -> str:
    """Claims, critiques (with their state now and over time) and the critics' reviews of earlier critiques."""
    debate = store.get_debate(debate_id)
    ledger = {(r.raised_in, r.item.critique.id, r.call): r
              for r in cc_rules.ledger_from_steps(debate["steps"]).records}
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["kind", "step", "round", "agent", "target", "id", "target_claim_id", "text", "evidence",
                     "confidence", "verified", "issue_type", "severity", "suggested_fix", "state", "history"])
    for c in store.claims(debate_id):
        writer.writerow(["claim", c["step_id"], c["round"], c["agent"], "", c["claim_id"], "", c["statement"],
                         " ".join(c["evidence"]), c["confidence"], "yes" if c["verified"] else "no", "", "", "", "", ""])
    for k in store.critiques(debate_id):
        rec = ledger.get((k["step_id"], k["critique_id"], k["call"])) or ledger.get((k["step_id"], k["critique_id"], None))
        state = rec.label() if rec is not None else "not used (re-asked)"
        writer.writerow(["critique", k["step_id"], k["round"], k["critic"], k["target"], k["critique_id"],
                         k["target_claim_id"], k["description"], "", "", "", k["issue_type"], k["severity"],
                         k["suggested_fix"], state, _history_text(rec) if rec is not None else ""])
    for step in _final_calls(debate["steps"]):
        for r in (step["output"] or {}).get("previous") or []:
            writer.writerow(["review", step["step_id"], step["round"], step["agent"], step["target"], r.get("id"), "",
                             r.get("note") or "", "", "", "", "", "", "", r.get("status"), ""])
    return buf.getvalue()


def _fmt_value(value: Any) -> str:
    if isinstance(value, list):
        if not value:
            return "(none)"
        return "\n".join(f"  - {_fmt_value(v) if not isinstance(v, dict) else json.dumps(v, ensure_ascii=False)}" for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def transcript_markdown(debate: dict[str, Any]) -> str:
    lines = [f"# Debate {debate['id']} ({debate['protocol']})", "", f"Question: {debate['question']}", "",
             f"Status: {debate['status']}; rounds: {debate['rounds']}; converged: {debate['converged']}"
             f" ({debate['convergence_reason'] or '-'})", ""]
    for step in debate["steps"]:
        head = f"## {step['step_id']}" + (f" (call {step['call']})" if step["call"] and step["call"] > 1 else "")
        lines += [head, f"status: {step['status']}; tokens in/out: {step['input_tokens'] or 0}/{step['output_tokens'] or 0}"]
        if step["status"] == "failed":
            lines += [f"error: {step['error']}", "raw output:", "```", str(step["raw_output"] or ""), "```", ""]
            continue
        for key, value in (step["output"] or {}).items():
            if key == "claims":
                lines.append("claims:")
                for c in value:
                    mark = "" if c.get("verified", True) else " [UNVERIFIED]"
                    lines.append(f"  - {c['id']} ({c['confidence']:.2f}; evidence {', '.join(c['evidence']) or 'none'}){mark}: {c['statement']}")
            elif key == "critiques":
                lines.append("critiques:")
                for k in value:
                    lines.append(f"  - {k['id']} on {k['target_claim_id']} [{k['severity']} {k['issue_type']}]: "
                                 f"{k['description']} Fix: {k['suggested_fix']}")
            elif key == "previous":
                if value:
                    lines.append("review of earlier critiques:")
                for r in value:
                    lines.append(f"  - {r.get('id')}: {r.get('status')}" + (f": {r['note']}" if r.get("note") else ""))
            elif key not in ("verified", "unverified_evidence"):
                lines.append(f"{key}: {_fmt_value(value)}")
        lines.append("")
    records = cc_rules.ledger_from_steps(debate["steps"]).records
    if records:
        lines.append("## Critique states")
        for r in records:
            k = r.item.critique
            lines.append(f"  - {r.item.critic} on {r.item.target}.{k.target_claim_id} {k.id} [{k.severity} {k.issue_type}]: "
                         f"{r.label()}. {_history_text(r)}" + (f". Critic's note: {r.note}" if r.note else ""))
        lines.append("")
    verdict = debate.get("verdict") or {}
    if verdict:
        lines += ["## Verdict", f"answer: {verdict.get('answer')}", f"confidence: {verdict.get('confidence')}",
                  f"needs human review: {verdict.get('needs_human_review')}"]
        for r in verdict.get("escalation_reasons") or []:
            lines.append(f"  - {r}")
        lines.append(f"applied rules: {', '.join(verdict.get('applied_rules') or [])}")
    if debate.get("error"):
        lines += ["## Failure", str(debate["error"])]
    for r in debate.get("reviews") or []:
        lines.append(f"review: {r['ts']} {r['reviewer']} {r['action']} ({r['state_before']} -> {r['state_after']}) {r['reason'] or ''}")
    return "\n".join(lines) + "\n"
