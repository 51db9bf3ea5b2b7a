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
from .citations import cited
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
# transcript.md, and the same transcript as plain text (`show`)
# ---------------------------------------------------------------------------
# Every heading and label is the exporter's own. In transcript.md, text that came from a user or a
# model is either fenced (free text: nothing inside a fenced block is read as markdown or HTML, and
# the fence is longer than any run of backticks in the text, so the text cannot close it) or, for
# short values on a label line (ids, names, numbers), escaped where a character could start markdown
# there. Neither can forge a heading, a link, an image, a table or HTML in the transcript. Plain text
# for a terminal has no markup to forge: values are printed as they are, without control characters.

# Characters that open markdown or HTML wherever they stand in a line: escaped in every value.
_ALWAYS_ESCAPED = frozenset("\\`*~[]>|!")
_ENTITY = re.compile(r"&(#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def md_inline(value: Any) -> str:
    """A short value for a label line: one line, with a backslash before each character that could
    start markdown there (CommonMark allows escaping any punctuation), so it renders as the same
    characters and nothing else. Dots, dashes, colons and an underscore inside a word
    (`cross_critique`, `r1.answer.nla`, `2025-05-14`) open nothing and stay as they are."""
    if isinstance(value, bool | int | float):
        return str(value)
    text = " ".join(str(value if value is not None else "-").split())
    out = []
    for i, ch in enumerate(text):
        before, after = text[i - 1] if i else "", text[i + 1] if i + 1 < len(text) else ""
        escape = (ch in _ALWAYS_ESCAPED
                  # `<` opens HTML or an autolink only before a letter, `/`, `!` or `?` (not in "<= 1").
                  or (ch == "<" and (after.isalpha() or after in "/!?"))
                  # `&` is read as a character reference only in `&name;` or `&#123;` (not in "R&D").
                  or (ch == "&" and _ENTITY.match(text, i) is not None)
                  # `_` between two letters or digits never starts emphasis (CommonMark's flanking rules).
                  or (ch == "_" and not (before.isalnum() and after.isalnum()))
                  # `#` after a space can close a heading (`## id #`); elsewhere it is literal.
                  or (ch == "#" and before in ("", " "))
                  # `scheme://` would become a bare link in GitHub-flavoured markdown.
                  or (ch == ":" and text.startswith("//", i + 1))
                  # A value opening with `=`, `+`, `-` or `@` ("=bob") keeps its backslash: at the start
                  # of a line it could make a list item or an underline, and in a spreadsheet a formula.
                  or (i == 0 and ch in "=+-@"))
        out.append("\\" + ch if escape else ch)
    return "".join(out)


def md_fenced(value: Any) -> list[str]:
    """Free text as a fenced block whose fence no backtick run in the text can match."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2, default=str)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "text", text, fence]


def plain_inline(value: Any) -> str:
    """A short value on one plain-text line: whitespace collapsed, control characters (a terminal's
    escape sequences) dropped; nothing else changes."""
    if isinstance(value, bool | int | float):
        return str(value)
    return " ".join(_CONTROL.sub("", str(value if value is not None else "-")).split())


def plain_block(value: Any) -> list[str]:
    """Free text as plain lines indented under their label, control characters dropped."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2, default=str)
    return ["    " + _CONTROL.sub("", line).rstrip() for line in text.splitlines() or [""]]


class _Style:
    """How a transcript writes a value on a label line, a block of free text and a heading."""

    def __init__(self, inline: Any, block: Any, heading: Any) -> None:
        self.inline, self.block, self.heading = inline, block, heading


def _md_heading(level: int, text: str) -> list[str]:
    return ["#" * level + " " + text]


def _plain_heading(level: int, text: str) -> list[str]:
    return [text, ("=" if level == 1 else "-") * len(text)]


MARKDOWN = _Style(md_inline, md_fenced, _md_heading)
PLAIN = _Style(plain_inline, plain_block, _plain_heading)


def _fmt_value(value: Any, style: _Style) -> list[str]:
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        return style.block("\n".join(str(v) for v in value) if value else "(none)")
    return style.block(value)


def _intervention_lines(step: dict[str, Any], style: _Style) -> list[str]:
    """A reviewer's intervention in the transcript: who, when, and what, in plain words."""
    i, b = style.inline, style.block
    try:
        iv = Intervention.model_validate(step["output"] or {})
    except ValueError:
        return ["intervention (unreadable):", *b(json.dumps(step["output"], ensure_ascii=False)), ""]
    out = [f"intervention by {i(iv.reviewer)} at {i(iv.ts or '-')} ({i(iv.at)}):", *b(iv.summary()), ""]
    if iv.evidence is not None:
        out += ["passage:", *b(iv.evidence.text), ""]
    return out


def transcript_markdown(debate: dict[str, Any]) -> str:
    """transcript.md: the debate as markdown, untrusted text fenced or escaped."""
    return _transcript(debate, MARKDOWN)


def transcript_text(debate: dict[str, Any]) -> str:
    """The same transcript as plain text, for a terminal (`show`): no markup, no escaping."""
    return _transcript(debate, PLAIN)


def _step_lines(step: dict[str, Any], style: _Style, passages: dict[str, dict[str, Any]] | None = None) -> list[str]:
    i, b = style.inline, style.block
    lines = [*style.heading(2, i(step["step_id"]) + (f" (call {step['call']})" if step["call"] and step["call"] > 1 else "")),
             "", f"status: {i(step['status'])}; tokens in/out: {i(step['input_tokens'] or 0)}/{i(step['output_tokens'] or 0)}",
             ""]
    if step.get("reused_from"):
        lines += [f"reused from debate {i(step['reused_from'])}", ""]
    if step["status"] == "failed":
        return [*lines, f"error: {i(step['error'])}", "", "raw output:", *b(str(step["raw_output"] or "")), ""]
    if step.get("stage") == "human":
        return lines + _intervention_lines(step, style)
    for key, value in (step["output"] or {}).items():
        if key == "claims":
            for c in value:
                mark = "" if c.get("verified", True) else " UNVERIFIED"
                # Each id with its document and page or section (present/citations.py).
                evidence = ", ".join(cited(str(e), passages or {}) for e in c.get("evidence") or []) or "none"
                lines += [f"claim {i(c.get('id'))} (confidence {i(c.get('confidence'))}; "
                          f"evidence {i(evidence)}){mark}:", *b(str(c.get("statement") or "")), ""]
        elif key == "critiques":
            for k in value:
                lines += [f"critique {i(k.get('id'))} on {i(k.get('target_claim_id'))} "
                          f"({i(k.get('severity'))} {i(k.get('issue_type'))}):",
                          *b(f"{k.get('description') or ''}\nFix: {k.get('suggested_fix') or ''}"), ""]
        elif key == "previous":
            for r in value or []:
                lines += [f"review of earlier critique {i(r.get('id'))}: {i(r.get('status'))}",
                          *(b(str(r["note"])) if r.get("note") else []), ""]
        elif key not in ("verified", "unverified_evidence"):
            lines += [f"{i(key)}:", *_fmt_value(value, style), ""]
    return lines


def _transcript(debate: dict[str, Any], style: _Style) -> str:
    i, b = style.inline, style.block
    lines = [*style.heading(1, f"Debate {i(debate['id'])} ({i(debate['protocol'])})"), "", "Question:",
             *b(debate.get("question") or ""), "",
             f"Status: {i(debate['status'])}; rounds: {i(debate['rounds'])}; "
             f"converged: {i(debate['converged'])} ({i(debate['convergence_reason'] or '-')})", "",
             f"Moderator's outcome: {i(display_status(debate))}; "
             f"review: {i(review_label(debate.get('review_state')))}", ""]
    if debate.get("parent_id"):
        lines += [f"Forked from debate {i(debate['parent_id'])} after round {i(debate.get('fork_round'))}: "
                  "the steps marked reused were taken from it without a model call.", ""]
    if debate.get("status") in ("paused", "stopped") and debate.get("paused_at"):
        lines += [f"{'Paused' if debate['status'] == 'paused' else 'Stopped'} at {i(debate['paused_at'])}.", ""]
    passages = {str(e["id"]): e for e in ((debate.get("case") or {}).get("evidence") or [])
                if isinstance(e, dict) and "id" in e}
    for step in debate["steps"]:
        lines += _step_lines(step, style, passages)
    records = critique_records(debate["steps"])
    if records:
        lines += [*style.heading(2, "Critique states"), ""]
        for r in records:
            k = r.item.critique
            lines += [f"critique {i(k.id)} by {i(r.item.critic)} on {i(f'{r.item.target}.{k.target_claim_id}')} "
                      f"({i(k.severity)} {i(k.issue_type)}): {i(r.label())}",
                      *b(history_text(r) + (f"\nCritic's note: {r.note}" if r.note else "")), ""]
    verdict = debate.get("verdict") or {}
    if verdict:
        lines += [*style.heading(2, "Verdict"), "", "answer:", *b(str(verdict.get("answer") or "")), "",
                  f"confidence: {i(verdict.get('confidence'))}; "
                  f"needs human review: {i(verdict.get('needs_human_review'))}", ""]
        if verdict.get("escalation_reasons"):
            lines += ["escalation reasons:", *b("\n".join(str(r) for r in verdict["escalation_reasons"])), ""]
        lines += [f"applied rules: {i(', '.join(verdict.get('applied_rules') or []) or '-')}", ""]
    if debate.get("error"):
        lines += [*style.heading(2, "Failure"), "", *b(str(debate["error"])), ""]
    notes = debate.get("annotations") or []
    if notes:
        lines += [*style.heading(2, "Annotations"), ""]
    for a in notes:
        severity = f"; severity {i(a['severity'])}" if a.get("severity") else ""
        lines.append(f"annotation: {i(a['ts'])} {i(a['reviewer'])} marked {i(a['kind'])} "
                     f"{i(a['ref'])} {i(a['label'])}{severity}")
        if a.get("comment"):
            lines += b(str(a["comment"]))
        lines.append("")
    reviews = debate.get("reviews") or []
    if reviews:
        lines += [*style.heading(2, "Reviews"), ""]
    for r in reviews:
        lines.append(f"review: {i(r['ts'])} {i(r['reviewer'])} {i(r['action'])} "
                     f"({i(r['state_before'])} to {i(r['state_after'])})")
        if r.get("reason"):
            lines += b(str(r["reason"]))
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
