"""Pure helpers that turn stored debates into what the pages show (no Streamlit, no SQL).

Everything here takes the plain dicts the store returns and gives back rows, groups, labels and
numbers, so the pages only lay them out and the logic can be tested without a browser.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import io
import json
import re
import zipfile
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from .cases import CaseError, parse_case
from .protocols import PROTOCOLS, get_protocol
from .schemas import SEVERITIES, Case

# ---------------------------------------------------------------------------
# Labels and colours
# ---------------------------------------------------------------------------

OFFLINE_LABEL = "offline (rule-based agents, no model)"

STATUS_COLORS = {
    "running": "blue",
    "converged": "green",
    "completed": "gray",
    "escalated": "orange",
    "failed": "red",
}
STATUS_HELP = {
    "running": "the debate is still running; this page refreshes by itself",
    "converged": "the agents converged; the moderator's verdict awaits review",
    "completed": "the debate ended without converging and without an escalation rule firing",
    "escalated": "the moderator flagged this debate for human review",
    "failed": "the debate stopped with an error; every completed step is kept",
}
SEVERITY_COLORS = {"CRITICAL": "red", "MAJOR": "orange", "MINOR": "yellow"}
SEVERITY_HEX = {"CRITICAL": "#d62728", "MAJOR": "#ff7f0e", "MINOR": "#e0c200"}
REVIEW_STATE_LABELS = {
    "pending": "awaiting review",
    "accepted": "accepted",
    "overridden": "overridden",
    "escalated": "escalated to a supervisor",
    "approved": "approved by a supervisor",
}


def display_status(debate: dict[str, Any]) -> str:
    """One of running, converged, escalated, failed, completed (ended, neither converged nor escalated)."""
    status = debate.get("status")
    if status in ("running", "failed"):
        return status
    if debate.get("needs_human_review"):
        return "escalated"
    if debate.get("converged"):
        return "converged"
    return "completed"


def provider_label(config: dict[str, Any] | None) -> str:
    config = config or {}
    name = config.get("provider") or "offline"
    if name == "offline":
        return OFFLINE_LABEL
    if name == "replay":
        return "replay (recorded cassette)"
    where = f" at {config['base_url']}" if config.get("base_url") else ""
    return f"openai-compatible model {config.get('model') or '?'}{where}"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=&\"'^])")


def md_escape(text: Any) -> str:
    """Make untrusted text display literally inside Streamlit markdown.

    Every markdown-significant ASCII punctuation character is backslash-escaped (CommonMark allows it
    for all of them), so HTML, links, images, colour directives and LaTeX in model or evidence text
    show as typed instead of being interpreted.
    """
    if text is None:
        return ""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def pct(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "–"
    return f"{value * 100:.{digits}f}%"


def num(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "–"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


# ---------------------------------------------------------------------------
# Evidence passages typed, pasted or uploaded on the New debate page
# ---------------------------------------------------------------------------

PASTE_HELP = (
    "One passage per line: `id | source | text`. The text may itself contain `|`. "
    "Lines starting with `#` are ignored."
)


def parse_passages(text: str) -> list[dict[str, str]]:
    """Passages from the paste box; raises CaseError naming the line at fault."""
    passages: list[dict[str, str]] = []
    for number, line in enumerate((text or "").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|", 2)]
        if len(parts) < 3 or not all(parts):
            raise CaseError(f"passage line {number}: expected 'id | source | text', got {line[:60]!r}")
        passages.append({"id": parts[0], "source": parts[1], "text": parts[2]})
    return passages


def passages_from_upload(name: str, data: bytes) -> list[dict[str, Any]]:
    """Passages from an uploaded .json (a list of passages or a case), .csv (id, source, text) or .txt file."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CaseError(f"{name}: not UTF-8 text") from exc
    lower = name.lower()
    if lower.endswith(".json"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CaseError(f"{name}: invalid JSON: {exc.msg} at line {exc.lineno}") from exc
        if isinstance(obj, dict) and isinstance(obj.get("evidence"), list):
            obj = obj["evidence"]
        if not isinstance(obj, list):
            raise CaseError(f"{name}: expected a list of passages or a case with an 'evidence' list")
        out = []
        for i, item in enumerate(obj):
            if not isinstance(item, dict):
                raise CaseError(f"{name}: passage {i + 1} must be an object with id, source and text")
            out.append(item)
        return out
    if lower.endswith(".csv"):
        reader = csv.DictReader(io.StringIO(text))
        missing = {"id", "source", "text"} - set(reader.fieldnames or [])
        if missing:
            raise CaseError(f"{name}: the CSV needs the columns id, source, text (missing {', '.join(sorted(missing))})")
        return [{k: (v or "").strip() for k, v in row.items() if k} for row in reader]
    return parse_passages(text)


def parse_options(text: str) -> dict[str, Any]:
    """Protocol options typed as KEY=VALUE lines, read like the CLI's --option: JSON values, else text."""
    out: dict[str, Any] = {}
    for number, line in enumerate((text or "").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise CaseError(f"option line {number}: expected KEY=VALUE, got {line[:60]!r}")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value.strip()
    return out


def format_options(options: dict[str, Any] | None) -> str:
    return "\n".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in (options or {}).items())


def build_case(question: str, passages: list[dict[str, Any]], *, title: str | None = None,
               domain_hint: str | None = None) -> Case:
    """A case from a typed question and passages; the id is derived from the content so it is stable."""
    question = (question or "").strip()
    if not question:
        raise CaseError("the question is required")
    if not passages:
        raise CaseError("add at least one evidence passage (id, source and text)")
    digest = hashlib.sha256(json.dumps([question, passages], sort_keys=True, default=str).encode()).hexdigest()
    data: dict[str, Any] = {
        "id": f"custom-{digest[:10]}",
        "title": (title or "").strip() or _title_from(question),
        "question": question,
        "evidence": passages,
    }
    if domain_hint:
        data["domain_hint"] = domain_hint
    return parse_case(data, "your case")


def _title_from(question: str) -> str:
    first = question.splitlines()[0].strip()
    return first if len(first) <= 80 else first[:77].rstrip() + "..."


# ---------------------------------------------------------------------------
# Steps, rounds, claims and critiques
# ---------------------------------------------------------------------------


def latest_calls(steps: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last call of each step id (a re-asked step keeps only its final answer), in run order."""
    last: dict[str, dict[str, Any]] = {}
    for s in steps:
        prev = last.get(s["step_id"])
        if prev is None or (s.get("call") or 1) >= (prev.get("call") or 1):
            last[s["step_id"]] = s
    return sorted(last.values(), key=lambda s: s.get("seq") or 0)


def steps_by_round(steps: Iterable[dict[str, Any]]) -> dict[int | None, list[dict[str, Any]]]:
    """Round number -> steps of that round in run order; None collects final and per-contradiction steps."""
    out: dict[int | None, list[dict[str, Any]]] = defaultdict(list)
    for s in latest_calls(steps):
        out[s.get("round")].append(s)
    return dict(sorted(out.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)))


def step_counts(steps: Iterable[dict[str, Any]]) -> dict[str, int]:
    counts = {"ok": 0, "running": 0, "failed": 0}
    for s in latest_calls(steps):
        counts[s.get("status") or "running"] = counts.get(s.get("status") or "running", 0) + 1
    return counts


def progress(debate: dict[str, Any], steps: list[dict[str, Any]], planned_rounds: int | None) -> tuple[float, str]:
    """A progress fraction and a sentence. Rounds can stop early on convergence, so this is an estimate."""
    status = debate.get("status")
    counts = step_counts(steps)
    if status != "running":
        return 1.0, f"{display_status(debate)} after {debate.get('rounds') or max_round(steps) or 0} round(s), " \
                    f"{counts['ok']} step(s)"
    current = max_round(steps) or 0
    planned = max(planned_rounds or 0, current, 1)
    done_rounds = current - 1 if counts["running"] else current
    fraction = min(0.95, max(0.02, done_rounds / planned))
    text = f"round {current or 1} of up to {planned}: {counts['ok']} step(s) done, {counts['running']} running"
    return fraction, text


def partial_fields(text: str | None) -> list[tuple[str, str]]:
    """The fields of a reply still being written (JSON cut off anywhere), as (path, value) pairs in
    the order they arrive: `answer`, `claims.0.statement`, ... Empty when nothing parses yet."""
    from langchain_core.utils.json import parse_partial_json

    text = (text or "").strip()
    if not text:
        return []
    start = text.find("{")
    try:
        data = parse_partial_json(text[start:] if start > 0 else text)
    except ValueError:
        return []
    out: list[tuple[str, str]] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
            for i, item in enumerate(value):
                walk(item, f"{path}.{i}")
        elif isinstance(value, list):
            out.append((path, ", ".join(str(v) for v in value)))
        elif path:
            out.append((path, "" if value is None else str(value)))

    walk(data, "")
    return out


def live_caption(step: dict[str, Any]) -> str:
    """How far a running step's reply has come."""
    tokens = step.get("partial_tokens")
    if not tokens:
        return "waiting for the model's first token…"
    rate = step.get("tokens_per_s")
    cap = step.get("reply_cap")
    text = f"writing: {tokens} tokens" + (f" of at most {cap}" if cap else "")
    return text + (f", {rate:.1f} tokens/s" if rate else "")


def max_round(steps: Iterable[dict[str, Any]]) -> int | None:
    rounds = [s["round"] for s in steps if s.get("round") is not None]
    return max(rounds) if rounds else None


def evidence_index(case: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in ((case or {}).get("evidence") or []) if isinstance(e, dict) and "id" in e}


def claim_rows(claims: list[dict[str, Any]], case: dict[str, Any] | None) -> list[dict[str, Any]]:
    """One row per claim: its evidence ids, whether each is a real passage, and the passages' text."""
    passages = evidence_index(case)
    rows = []
    for c in claims:
        ids = list(c.get("evidence") or [])
        unknown = [e for e in ids if e not in passages] + [
            e for e in (c.get("unverified_evidence") or []) if e not in ids
        ]
        verified = bool(c.get("verified", 1)) and not unknown and bool(ids)
        if not ids:
            mark = "✘ no evidence"
        elif verified:
            mark = "✔ verified"
        else:
            mark = "✘ unverified: " + ", ".join(unknown or ids)
        rows.append({
            "round": c.get("round"),
            "agent": c.get("agent"),
            "claim": c.get("claim_id"),
            "statement": c.get("statement") or "",
            "evidence": ids,
            "verified": mark,
            "confidence": c.get("confidence"),
            "passages": "\n\n".join(
                f"[{e}] {passages[e].get('text', '')}" for e in ids if e in passages
            ),
        })
    return rows


def critique_groups(critiques: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Critiques grouped by the claim they target (target agent + claim id), worst first inside a group."""
    order = {s: i for i, s in enumerate(SEVERITIES)}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for c in critiques:
        groups[(c.get("target") or "?", c.get("target_claim_id") or "?")].append(c)
    out = []
    for (target, claim_id), items in groups.items():
        items = sorted(items, key=lambda c: (order.get(c.get("severity"), 9), c.get("round") or 0))
        worst = items[0].get("severity") if items else None
        out.append({"target": target, "claim": claim_id, "worst": worst, "critiques": items,
                    "counts": {s: sum(1 for c in items if c.get("severity") == s) for s in SEVERITIES}})
    out.sort(key=lambda g: (order.get(g["worst"], 9), g["target"], g["claim"]))
    return out


def critique_rows(critiques: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"round": c.get("round"), "critic": c.get("critic"), "target": c.get("target"),
         "critique": c.get("critique_id"), "target_claim_id": c.get("target_claim_id"),
         "issue_type": c.get("issue_type"), "severity": c.get("severity"),
         "description": c.get("description"), "suggested_fix": c.get("suggested_fix")}
        for c in critiques
    ]


# ---------------------------------------------------------------------------
# Usage and the convergence trajectory
# ---------------------------------------------------------------------------


def token_usage(steps: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tokens and calls per agent, from every call (re-asked and failed ones included: they cost too)."""
    usage: dict[str, dict[str, Any]] = {}
    for s in steps:
        agent = s.get("agent") or s.get("stage") or "?"
        u = usage.setdefault(agent, {"agent": agent, "calls": 0, "input_tokens": 0, "output_tokens": 0})
        if s.get("status") in ("ok", "failed"):
            u["calls"] += max(1, int(s.get("attempts") or 1))
        u["input_tokens"] += int(s.get("input_tokens") or 0)
        u["output_tokens"] += int(s.get("output_tokens") or 0)
    return sorted(usage.values(), key=lambda u: -(u["input_tokens"] + u["output_tokens"]))


def trajectory(debate: dict[str, Any], events: Iterable[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """Per-round measures: the final trajectory once stored, else what round_closed events carried so far."""
    stored = debate.get("trajectory") or []
    if stored:
        return sorted((dict(t) for t in stored if isinstance(t, dict)), key=lambda t: t.get("round") or 0)
    rounds: dict[int, dict[str, Any]] = {}
    for ev in events:
        if ev.get("kind") != "round_closed":
            continue
        data = ev.get("data") or {}
        metrics = data.get("metrics") if isinstance(data.get("metrics"), dict) else {}
        n = data.get("round") or metrics.get("round")
        if n is None:
            continue
        rounds[int(n)] = {**{k: v for k, v in data.items() if k != "metrics"}, **metrics, "round": int(n)}
    return [rounds[k] for k in sorted(rounds)]


def series(traj: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """Long-form rows (round, name, value) for a per-round measure that is a number or a {name: number} dict."""
    rows = []
    for t in traj:
        value = t.get(key)
        if isinstance(value, dict):
            for name, v in value.items():
                if isinstance(v, int | float) and not isinstance(v, bool):
                    rows.append({"round": t.get("round"), "name": str(name), "value": float(v)})
        elif isinstance(value, int | float) and not isinstance(value, bool):
            rows.append({"round": t.get("round"), "name": key, "value": float(value)})
    return rows


# ---------------------------------------------------------------------------
# Protocol-specific views, built from step outputs (their fields are fixed by DESIGN.md)
# ---------------------------------------------------------------------------


def outputs_by_stage(steps: Iterable[dict[str, Any]], stage: str) -> list[dict[str, Any]]:
    return [s for s in latest_calls(steps) if s.get("stage") == stage and s.get("status") == "ok"
            and isinstance(s.get("output"), dict)]


def judge_score_rows(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Refinement: every judge score joined with the hypothesis it scores (same round, same reasoner)."""
    hyps: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for s in outputs_by_stage(steps, "hypotheses"):
        hyps[(s.get("round") or 0, s.get("agent") or "")] = s["output"].get("hypotheses") or []
    rows = []
    for s in outputs_by_stage(steps, "judge"):
        rnd = s.get("round") or 0
        for sc in s["output"].get("scores") or []:
            reasoner = str(sc.get("reasoner") or "")
            idx = sc.get("index")
            listed = hyps.get((rnd, reasoner), [])
            hyp = listed[idx] if isinstance(idx, int) and 0 <= idx < len(listed) else {}
            rows.append({
                "round": rnd, "reasoner": reasoner, "index": idx, "score": sc.get("score"),
                "hypothesis": hyp.get("hypothesis", "(no such hypothesis)"), "category": hyp.get("category"),
                "confidence": hyp.get("confidence"),
                "strengths": "; ".join(sc.get("strengths") or []),
                "weaknesses": "; ".join(sc.get("weaknesses") or []),
                "feedback": sc.get("feedback") or "",
            })
    rows.sort(key=lambda r: (r["round"], -(r["score"] or 0)))
    return rows


def hypothesis_rows(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for s in outputs_by_stage(steps, "hypotheses"):
        for i, h in enumerate(s["output"].get("hypotheses") or []):
            rows.append({"round": s.get("round"), "reasoner": s.get("agent"), "index": i,
                         "hypothesis": h.get("hypothesis"), "category": h.get("category"),
                         "confidence": h.get("confidence"), "evidence": list(h.get("evidence") or []),
                         "changes_made": h.get("changes_made") or ""})
    return rows


def persona_rows(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Panel: one row per turn with the persona's stance taken from its step, not from the model."""
    rows = []
    for s in outputs_by_stage(steps, "turn"):
        out = s["output"]
        rows.append({"round": s.get("round"), "persona": s.get("agent"), "stance": out.get("stance") or "",
                     "key_points": list(out.get("key_points") or []), "message": out.get("message") or "",
                     "planning": out.get("planning") or "", "reflection": out.get("reflection") or ""})
    return rows


def dialectic_rounds(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Dialectic: per round the rule under test, the critic's answer and the synthesis, with the rule diff."""
    theses = {s.get("round"): s["output"] for s in outputs_by_stage(steps, "thesis")}
    antis = {s.get("round"): s["output"] for s in outputs_by_stage(steps, "antithesis")}
    syns = {s.get("round"): s["output"] for s in outputs_by_stage(steps, "synthesis")}
    rounds = sorted(r for r in set(theses) | set(antis) | set(syns) if r is not None)
    out = []
    prev_rule = (theses.get(1) or {}).get("rule")
    for r in rounds:
        syn = syns.get(r)
        rule = (syn or {}).get("rule")
        out.append({
            "round": r, "thesis": theses.get(r), "antithesis": antis.get(r), "synthesis": syn,
            "before": prev_rule, "after": rule,
            "diff": word_diff(prev_rule or "", rule or "") if prev_rule and rule else [],
        })
        if rule:
            prev_rule = rule
    return out


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """Word-level diff as (op, text) pairs, op in {"=", "-", "+"}."""
    a, b = before.split(), after.split()
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("=", " ".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(("-", " ".join(a[i1:i2])))
        if op in ("insert", "replace"):
            out.append(("+", " ".join(b[j1:j2])))
    return out


def diff_markdown(diff: list[tuple[str, str]]) -> str:
    """Markdown for a word diff: removals struck through in red, additions in green, text escaped."""
    parts = []
    for op, text in diff:
        esc = md_escape(text)
        if op == "-":
            parts.append(f":red[~~{esc}~~]")
        elif op == "+":
            parts.append(f":green[**{esc}**]")
        else:
            parts.append(esc)
    return " ".join(parts)


def contradiction_rows(debate: dict[str, Any], steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Arbitration: each contradiction with its arbiter's resolution (by contradiction number)."""
    result = debate.get("result") or {}
    described: dict[int, dict[str, Any]] = {}
    for i, c in enumerate(result.get("contradictions") or [], start=1):
        if isinstance(c, dict):
            described[int(c.get("index") or i)] = c
    rows = []
    for s in outputs_by_stage(steps, "arbitrate"):
        m = re.match(r"^c(\d+)\.", s["step_id"])
        idx = int(m.group(1)) if m else 0
        out = s["output"]
        c = described.get(idx, {})
        rows.append({
            "contradiction": idx,
            "metric": c.get("metric_name") or c.get("metric"),
            "severity": c.get("severity"),
            "agent1": _finding(c, "agent1"),
            "agent2": _finding(c, "agent2"),
            "why": "; ".join(str(r) for r in c.get("reasons") or []),
            "resolution": out.get("resolution"), "action": out.get("action"),
            "recommended_value": None if out.get("recommended_value") is None else str(out.get("recommended_value")),
            "recommended_citation": out.get("recommended_citation"),
            "confidence": out.get("confidence"), "explanation": out.get("explanation"),
        })
    rows.sort(key=lambda r: r["contradiction"])
    return rows


def _finding(c: dict[str, Any], who: str) -> str:
    """One side of a contradiction as 'agent: value unit (citation)', from the flat fields seed 004 uses."""
    name = c.get(f"{who}_name")
    if name is None:
        return ""
    value = c.get(f"{who}_value")
    unit = c.get(f"{who}_unit") or ""
    text = f"{name}: {'' if value is None else value}{unit if unit == '%' else ' ' + unit}".rstrip()
    cite = c.get(f"{who}_citation") or c.get(f"{who}_source")
    return f"{text} ({cite})" if cite else text


# ---------------------------------------------------------------------------
# History and analytics
# ---------------------------------------------------------------------------


def history_rows(debates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "id": d["id"], "created": (d.get("created_at") or "")[:19].replace("T", " "),
            "title": d.get("title") or "", "protocol": d.get("protocol"), "status": display_status(d),
            "review": REVIEW_STATE_LABELS.get(d.get("review_state") or "pending", d.get("review_state")),
            "reviewed_by": d.get("reviewed_by") or "", "question": d.get("question") or "",
            "answer": d.get("final_answer") or "", "rounds": d.get("rounds"),
            "tokens": int(d.get("input_tokens") or 0) + int(d.get("output_tokens") or 0),
            "provider": d.get("provider") or "",
        }
        for d in debates
    ]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(debates: list[dict[str, Any]]) -> dict[str, Any]:
    """Headline numbers over a set of debates, with the same definitions as DebateStore.analytics."""
    completed = [d for d in debates if d.get("status") == "completed"]
    reviewed = [d for d in debates if (d.get("review_state") or "pending") != "pending"]
    return {
        "debates": len(debates),
        "completed": len(completed),
        "failed": sum(1 for d in debates if d.get("status") == "failed"),
        "running": sum(1 for d in debates if d.get("status") == "running"),
        "escalation_rate": _mean([1.0 if d.get("needs_human_review") else 0.0 for d in completed]),
        "rounds_to_converge": _mean([float(d["rounds"]) for d in debates
                                     if d.get("converged") and d.get("rounds") is not None]),
        "tokens_per_debate": _mean([float((d.get("input_tokens") or 0) + (d.get("output_tokens") or 0))
                                    for d in debates]),
        "reviewed": len(reviewed),
        "override_rate": _mean([1.0 if d.get("review_state") == "overridden" else 0.0 for d in reviewed]),
        "agreement_rate": _mean([1.0 if d.get("review_state") in ("accepted", "approved") else 0.0
                                 for d in reviewed]),
    }


def review_rows(reviews: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"time": (r.get("ts") or "")[:19].replace("T", " "), "reviewer": r.get("reviewer"), "role": r.get("role"),
         "action": r.get("action"), "state": f"{r.get('state_before')} → {r.get('state_after')}",
         "answer before": r.get("answer_before") or "", "answer after": r.get("answer_after") or "",
         "reason": r.get("reason") or ""}
        for r in reviews
    ]


def zip_files(files: dict[str, str]) -> bytes:
    """The transcript files of one debate as a zip archive, in a stable order."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, files[name])
    return buf.getvalue()


# ---------------------------------------------------------------------------
# Protocol choices for the New debate page
# ---------------------------------------------------------------------------


def protocol_info(name: str) -> dict[str, Any]:
    """What the New debate page offers for a protocol; `error` is set when it cannot be loaded."""
    try:
        module = get_protocol(name)
    except Exception as exc:  # noqa: BLE001 - a protocol that does not load is shown as unavailable
        return {"name": name, "error": f"{type(exc).__name__}: {exc}"}
    doc = (module.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    presets = getattr(module, "PRESETS", None) or {}
    return {
        "name": name,
        "error": None,
        "doc": doc,
        "agents": [dict(a) for a in getattr(module, "DEFAULT_AGENTS", [])],
        "rounds": int(getattr(module, "DEFAULT_ROUNDS", 1) or 1),
        "max_rounds": int(getattr(module, "MAX_ROUNDS", 1) or 1),
        "min_rounds": int(getattr(module, "MIN_ROUNDS", 1) or 1),
        "presets": {str(k): dict(v) for k, v in presets.items() if isinstance(v, dict)},
    }


def protocol_catalogue() -> list[dict[str, Any]]:
    return [protocol_info(name) for name in PROTOCOLS]
