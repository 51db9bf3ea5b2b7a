"""Exports of a stored debate: the source protocol's transcript files, a readable transcript, a replay
cassette and a CSV of claims and critiques. Everything reads from the store."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from ..core.files import check_target, ensure_folder, write_text_atomic
from ..core.steering import Intervention
from ..protocols import get_spec
from ..protocols.cross_critique.rows import critique_records, history_text
from ..providers.replay import CASSETTE_FORMAT
from .formatting import display_status, review_label

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
        "annotations": [public_annotation(a) for a in debate.get("annotations") or []],
    }
    files["debate_summary.json"] = json.dumps(summary, ensure_ascii=False, indent=2, default=str)
    files["transcript.md"] = transcript_markdown(debate)
    return files


_ANNOTATION_FIELDS = ("ts", "reviewer", "kind", "ref", "step_id", "call", "round", "agent", "target", "item_id",
                      "label", "severity", "item_severity", "comment")


def public_annotation(row: dict[str, Any]) -> dict[str, Any]:
    """An annotation as exported: what was judged, by whom, when, and the verdict (no row ids)."""
    return {k: row.get(k) for k in _ANNOTATION_FIELDS}


def check_export_dir(directory: str | Path, names: Any) -> dict[str, Path]:
    """The path of each export file in `directory`, refusing (files.FileProblem, one line) a folder
    that is a file, a FIFO or a broken link, and a name taken by a symbolic link or a directory.
    Nothing is created or written."""
    target = Path(directory)
    if target.exists() or target.is_symlink():
        ensure_folder(target, "the export")  # an existing folder passes; anything else is named
    return {name: check_target(target / name, "the export file") for name in names}


def write_export_dir(store: Any, debate_id: str, directory: str | Path,
                     files: dict[str, str] | None = None) -> list[Path]:
    """Write the export files into `directory` (created when missing), each atomically. Every
    target is checked before the first is written, so one bad path refuses the whole export."""
    files = export_files(store, debate_id) if files is None else files
    paths = check_export_dir(directory, files)
    ensure_folder(directory, "the export")
    for name, content in files.items():
        write_text_atomic(paths[name], content, "the export file")
    return list(paths.values())


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


# OWASP's CSV injection advice: a cell a spreadsheet would read as a formula (or that starts with a
# tab or carriage return, which some spreadsheets skip before looking) gets a leading quote.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as text, never evaluates. Numbers stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def claims_csv(store: Any, debate_id: str) -> str:
    """Claims, critiques (with their state now and over time) and the critics' reviews of earlier critiques."""
    debate = store.get_debate(debate_id)
    ledger = {(r.raised_in, r.item.critique.id, r.call): r
              for r in critique_records(debate["steps"])}
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["kind", "step", "round", "agent", "target", "id", "target_claim_id", "text", "evidence",
                     "confidence", "verified", "issue_type", "severity", "suggested_fix", "state", "history", "ref",
                     "reviewer", "time"])
    rows: list[list[Any]] = []
    for c in store.claims(debate_id):
        rows.append(["claim", c["step_id"], c["round"], c["agent"], "", c["claim_id"], "", c["statement"],
                     " ".join(c["evidence"]), c["confidence"], "yes" if c["verified"] else "no", "", "", "", "", ""])
    for k in store.critiques(debate_id):
        rec = ledger.get((k["step_id"], k["critique_id"], k["call"])) or ledger.get((k["step_id"], k["critique_id"], None))
        state = rec.label() if rec is not None else "not used (re-asked)"
        rows.append(["critique", k["step_id"], k["round"], k["critic"], k["target"], k["critique_id"],
                     k["target_claim_id"], k["description"], "", "", "", k["issue_type"], k["severity"],
                     k["suggested_fix"], state, history_text(rec) if rec is not None else ""])
    for step in _final_calls(debate["steps"]):
        for r in (step["output"] or {}).get("previous") or []:
            rows.append(["review", step["step_id"], step["round"], step["agent"], step["target"], r.get("id"), "",
                         r.get("note") or "", "", "", "", "", "", "", r.get("status"), ""])
    # The annotation columns come last so readers of the earlier columns are unaffected.
    rows = [[*row, "", "", ""] for row in rows]
    for a in debate.get("annotations") or []:
        # A reviewer's label of one claim or critique: the label in `state`, their severity (a
        # critique's, when they gave one) in `severity`, their comment in `text`.
        rows.append([f"{a['kind']} annotation", a["step_id"], a["round"], a["agent"], a["target"] or "",
                     a["item_id"], "", a["comment"] or "", "", "", "", "", a["severity"] or "", "", a["label"], "",
                     a["ref"], a["reviewer"], a["ts"]])
    writer.writerows([[csv_cell(v) for v in row] for row in rows])
    return buf.getvalue()


# ---------------------------------------------------------------------------
# transcript.md
# ---------------------------------------------------------------------------
# Every heading and label is the exporter's own. Text that came from a user or a model is either
# fenced (free text: nothing inside a fenced block is read as markdown or HTML, and the fence is
# longer than any run of backticks in the text, so the text cannot close it) or, for short values
# on a label line (ids, names, numbers), escaped character by character. Neither can forge a
# heading, a link, an image, a table or HTML in the transcript.

_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def md_inline(value: Any) -> str:
    """A short value for a label line: one line, every ASCII punctuation mark backslash-escaped
    (CommonMark allows escaping any of them), so it renders as the same characters and nothing else."""
    if isinstance(value, bool | int | float):
        return str(value)
    text = " ".join(str(value if value is not None else "-").split())
    return "".join("\\" + ch if ch in _PUNCTUATION else ch for ch in text)


def md_fenced(value: Any) -> list[str]:
    """Free text as a fenced block whose fence no backtick run in the text can match."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2, default=str)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "text", text, fence]


def _fmt_value(value: Any) -> list[str]:
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        return md_fenced("\n".join(str(v) for v in value) if value else "(none)")
    return md_fenced(value)


def _intervention_lines(step: dict[str, Any]) -> list[str]:
    """A reviewer's intervention in the transcript: who, when, and what, in plain words."""
    try:
        iv = Intervention.model_validate(step["output"] or {})
    except ValueError:
        return ["intervention (unreadable):", *md_fenced(json.dumps(step["output"], ensure_ascii=False)), ""]
    out = [f"intervention by {md_inline(iv.reviewer)} at {md_inline(iv.ts or '-')} ({md_inline(iv.at)}):",
           *md_fenced(iv.summary()), ""]
    if iv.evidence is not None:
        out += ["passage:", *md_fenced(iv.evidence.text), ""]
    return out


def transcript_markdown(debate: dict[str, Any]) -> str:
    lines = [f"# Debate {md_inline(debate['id'])} ({md_inline(debate['protocol'])})", "", "Question:",
             *md_fenced(debate.get("question") or ""), "",
             f"Status: {md_inline(debate['status'])}; rounds: {md_inline(debate['rounds'])}; "
             f"converged: {md_inline(debate['converged'])} ({md_inline(debate['convergence_reason'] or '-')})", "",
             f"Moderator's outcome: {md_inline(display_status(debate))}; "
             f"review: {md_inline(review_label(debate.get('review_state')))}", ""]
    if debate.get("parent_id"):
        lines += [f"Forked from debate {md_inline(debate['parent_id'])} after round {md_inline(debate.get('fork_round'))}: "
                  "the steps marked reused were taken from it without a model call.", ""]
    if debate.get("status") in ("paused", "stopped") and debate.get("paused_at"):
        lines += [f"{'Paused' if debate['status'] == 'paused' else 'Stopped'} at {md_inline(debate['paused_at'])}.", ""]
    for step in debate["steps"]:
        head = f"## {md_inline(step['step_id'])}" + (f" (call {step['call']})" if step["call"] and step["call"] > 1 else "")
        lines += [head, "",
                  f"status: {md_inline(step['status'])}; tokens in/out: "
                  f"{md_inline(step['input_tokens'] or 0)}/{md_inline(step['output_tokens'] or 0)}", ""]
        if step.get("reused_from"):
            lines += [f"reused from debate {md_inline(step['reused_from'])}", ""]
        if step["status"] == "failed":
            lines += [f"error: {md_inline(step['error'])}", "", "raw output:", *md_fenced(str(step["raw_output"] or "")),
                      ""]
            continue
        if step.get("stage") == "human":
            lines += _intervention_lines(step)
            continue
        for key, value in (step["output"] or {}).items():
            if key == "claims":
                for c in value:
                    mark = "" if c.get("verified", True) else " UNVERIFIED"
                    evidence = ", ".join(str(e) for e in c.get("evidence") or []) or "none"
                    lines += [f"claim {md_inline(c.get('id'))} (confidence {md_inline(c.get('confidence'))}; "
                              f"evidence {md_inline(evidence)}){mark}:", *md_fenced(str(c.get("statement") or "")), ""]
            elif key == "critiques":
                for k in value:
                    lines += [f"critique {md_inline(k.get('id'))} on {md_inline(k.get('target_claim_id'))} "
                              f"({md_inline(k.get('severity'))} {md_inline(k.get('issue_type'))}):",
                              *md_fenced(f"{k.get('description') or ''}\nFix: {k.get('suggested_fix') or ''}"), ""]
            elif key == "previous":
                for r in value or []:
                    lines += [f"review of earlier critique {md_inline(r.get('id'))}: {md_inline(r.get('status'))}",
                              *(md_fenced(str(r["note"])) if r.get("note") else []), ""]
            elif key not in ("verified", "unverified_evidence"):
                lines += [f"{md_inline(key)}:", *_fmt_value(value), ""]
    records = critique_records(debate["steps"])
    if records:
        lines += ["## Critique states", ""]
        for r in records:
            k = r.item.critique
            lines += [f"critique {md_inline(k.id)} by {md_inline(r.item.critic)} on "
                      f"{md_inline(f'{r.item.target}.{k.target_claim_id}')} ({md_inline(k.severity)} "
                      f"{md_inline(k.issue_type)}): {md_inline(r.label())}",
                      *md_fenced(history_text(r) + (f"\nCritic's note: {r.note}" if r.note else "")), ""]
    verdict = debate.get("verdict") or {}
    if verdict:
        lines += ["## Verdict", "", "answer:", *md_fenced(str(verdict.get("answer") or "")), "",
                  f"confidence: {md_inline(verdict.get('confidence'))}; "
                  f"needs human review: {md_inline(verdict.get('needs_human_review'))}", ""]
        if verdict.get("escalation_reasons"):
            lines += ["escalation reasons:", *md_fenced("\n".join(str(r) for r in verdict["escalation_reasons"])), ""]
        lines += [f"applied rules: {md_inline(', '.join(verdict.get('applied_rules') or []) or '-')}", ""]
    if debate.get("error"):
        lines += ["## Failure", "", *md_fenced(str(debate["error"])), ""]
    notes = debate.get("annotations") or []
    if notes:
        lines += ["## Annotations", ""]
    for a in notes:
        severity = f"; severity {md_inline(a['severity'])}" if a.get("severity") else ""
        lines.append(f"annotation: {md_inline(a['ts'])} {md_inline(a['reviewer'])} marked {md_inline(a['kind'])} "
                     f"{md_inline(a['ref'])} {md_inline(a['label'])}{severity}")
        if a.get("comment"):
            lines += md_fenced(str(a["comment"]))
        lines.append("")
    reviews = debate.get("reviews") or []
    if reviews:
        lines += ["## Reviews", ""]
    for r in reviews:
        lines.append(f"review: {md_inline(r['ts'])} {md_inline(r['reviewer'])} {md_inline(r['action'])} "
                     f"({md_inline(r['state_before'])} to {md_inline(r['state_after'])})")
        if r.get("reason"):
            lines += md_fenced(str(r["reason"]))
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
