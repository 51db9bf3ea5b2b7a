"""Pure helpers that turn stored debates into what the pages show (no Streamlit, no SQL).

Everything here takes the plain dicts the store returns and gives back rows, groups, labels and
numbers, so the pages only lay them out and the logic can be tested without a browser.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections import defaultdict
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from .. import protocols as registry
from ..core.profiles import resolve
from ..core.review_rules import same_name
from ..core.schemas import Case
from ..core.steering import reviewer_slug
from ..core.steps import latest_calls
from ..core.text import word_diff as word_diff  # also read here by the app and compare
from ..jobs import continuation
from ..protocols import get_spec, specs
from ..protocols.common import short_answer as first_sentence
from ..protocols.cross_critique.rows import critiques_by_claim_version

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
    "paused": "violet",
    "stopped": "gray",
}
STATUS_HELP = {
    "running": "the debate is still running; this page refreshes by itself",
    "converged": "the agents converged; the moderator's verdict awaits review",
    "completed": "the debate ended without converging and without an escalation rule firing",
    "escalated": "the moderator flagged this debate for human review",
    "failed": "the debate stopped with an error; every completed step is kept",
    "paused": "the debate is paused for review: add critiques or evidence, then continue it",
    "stopped": "a reviewer stopped the debate before its verdict; every step so far is kept, and it can be forked",
}
SEVERITY_COLORS = {"CRITICAL": "red", "MAJOR": "orange", "MINOR": "yellow"}
SEVERITY_HEX = {"CRITICAL": "#d62728", "MAJOR": "#ff7f0e", "MINOR": "#e0c200"}
REVIEW_STATE_LABELS = {
    "pending": "awaiting review",
    "accepted": "accepted",
    "overridden": "overridden",
    "escalated": "escalated to a supervisor",
    "approved": "approved by a supervisor",
    "settled": "settled by a supervisor",
}


def display_status(debate: dict[str, Any]) -> str:
    """One of running, paused, stopped, converged, escalated, failed, completed (ended, neither
    converged nor escalated)."""
    status = debate.get("status")
    if status in ("running", "failed", "paused", "stopped"):
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


def plain_code(code: Any) -> str:
    """An internal code such as `use_agent1` or `both_valid`, as words: 'use agent 1', 'both valid'."""
    if code is None:
        return ""
    text = re.sub(r"(?<=[a-z])(?=\d)", " ", str(code))
    return text.replace("_", " ").replace("->", " to ").strip()


def plain_fields(data: Any) -> str:
    """A small mapping or list as readable text ('CRITICAL 2, MAJOR 1'), never a Python repr."""
    if isinstance(data, dict):
        return ", ".join(f"{plain_code(k)} {plain_fields(v)}" for k, v in data.items() if v not in (None, "", [], {}))
    if isinstance(data, list | tuple):
        return "; ".join(plain_fields(v) for v in data)
    if isinstance(data, float):
        return num(data, 2)
    return "" if data is None else str(data)


def claim_line(row: Any) -> str:
    """A claim from a debate summary ('nla.C1: statement'), whether stored as a row or as a reference."""
    if not isinstance(row, dict):
        return str(row)
    ref = row.get("ref") or row.get("claim") or ""
    text = row.get("statement") or ""
    mark = "" if row.get("supported", True) else " (no verified evidence)"
    return f"{ref}: {text}{mark}" if ref else f"{text}{mark}"


# ---------------------------------------------------------------------------
# Steps, rounds, claims and critiques
# ---------------------------------------------------------------------------


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
    from langchain_core.utils.json import parse_partial_json  # heavy: loaded only while a reply streams

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


def claim_rows(claims: list[dict[str, Any]], case: dict[str, Any] | None,
               steps: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One row per claim: its evidence ids, whether each is a real passage, and the passages' text.
    Given the debate's steps, also the critiques of that version of the claim with their state when
    the agent's next version was written (or at the end)."""
    passages = evidence_index(case)
    on_claim = critiques_by_claim_version(steps) if steps else {}
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
            "critiques": on_claim.get((c.get("step_id"), c.get("claim_id")), ""),
        })
    return rows



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
# Protocol-specific views, built from step outputs (their fields: docs/contracts.md, "Step outputs")
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# History and analytics
# ---------------------------------------------------------------------------


def forked_from(debate: dict[str, Any]) -> str:
    """'<parent id> after round N' for a fork, else empty."""
    if not debate.get("parent_id"):
        return ""
    rnd = debate.get("fork_round")
    return f"{debate['parent_id']} after round {rnd}" if rnd else str(debate["parent_id"])


def history_rows(debates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "id": d["id"], "created": (d.get("created_at") or "")[:19].replace("T", " "),
            "title": d.get("title") or "", "protocol": d.get("protocol"), "status": display_status(d),
            "review": REVIEW_STATE_LABELS.get(d.get("review_state") or "pending", d.get("review_state")),
            "reviewed_by": d.get("reviewed_by") or "", "question": d.get("question") or "",
            "answer": d.get("final_answer") or "", "rounds": d.get("rounds"),
            "tokens": int(d.get("input_tokens") or 0) + int(d.get("output_tokens") or 0),
            "provider": d.get("provider") or "", "forked_from": forked_from(d),
        }
        for d in debates
    ]


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
    """What the New debate page offers for a protocol, read from its spec; `error` is set when it
    cannot be loaded."""
    try:
        spec = get_spec(name)
    except Exception as exc:  # noqa: BLE001 - a protocol that does not load is shown as unavailable
        return {"name": name, "error": f"{type(exc).__name__}: {exc}"}
    described = spec.describe()
    return {
        "name": name,
        "error": None,
        "title": spec.title,
        "doc": spec.description,
        "agents": [dict(a) for a in spec.default_agents],
        "min_agents": spec.min_agents,
        "max_agents": spec.max_agents,
        "rounds": spec.default_rounds,
        "max_rounds": spec.max_rounds,
        "min_rounds": spec.min_rounds,
        "presets": {str(k): dict(v) for k, v in spec.presets.items()},
        "options": described["options"].get("properties", {}),
        "needs": described["case_requirements"],
    }


def agent_range(info: dict[str, Any]) -> str:
    """How many agents a protocol takes, in words: '2 to 6', '3', '1 or more'."""
    low, high = info.get("min_agents", 1), info.get("max_agents")
    if high is None:
        return f"{low} or more"
    return str(low) if low == high else f"{low} to {high}"


def option_help(info: dict[str, Any]) -> str:
    """The protocol's options as help text: one line each with its default and what it does."""
    lines = []
    for key, prop in (info.get("options") or {}).items():
        default = json.dumps(prop.get("default"), ensure_ascii=False)
        lines.append(f"{key}={default}: {prop.get('description', '')}")
    return "\n".join(lines)


def case_fit(name: str, case: Case) -> tuple[list[str], list[str]]:
    """(problems, notes) of running this case under the protocol: a missing required field is a
    problem (Start stays disabled); a missing optional one is a note naming the reduced mode."""
    spec = get_spec(name)
    problems = [f"{spec.title} needs the case field '{n.field}': {n.description}" for n in spec.missing(case)]
    notes = [f"The case has no '{n.field}', so {spec.title.lower()} runs in a reduced mode: {n.without}"
             for n in spec.reduced(case)]
    return problems, notes


def fitting_protocols(case: Case) -> list[str]:
    return [spec.name for spec in specs() if spec.fits(case)]


def protocol_catalogue() -> list[dict[str, Any]]:
    # Read at call time: the registry's list is the one line a new protocol adds.
    return [protocol_info(name) for name in registry.PROTOCOLS]


# ---------------------------------------------------------------------------
# The verdict card: names, outcome and review badges, supporting and disputed points
# ---------------------------------------------------------------------------

OUTCOME_BADGES = {
    "flagged": ("flagged for a human", "orange"),
    "converged": ("converged", "green"),
    "not_converged": ("not converged", "gray"),
}
REVIEW_BADGE_COLORS = {"pending": "gray", "accepted": "green", "overridden": "violet", "escalated": "orange",
                       "approved": "green", "settled": "blue"}


def outcome(debate: dict[str, Any]) -> tuple[str, str]:
    """The moderator's outcome as (label, colour): flagged for a human, converged or not converged."""
    verdict = debate.get("verdict") or {}
    if verdict.get("needs_human_review") or debate.get("needs_human_review"):
        return OUTCOME_BADGES["flagged"]
    return OUTCOME_BADGES["converged" if debate.get("converged") else "not_converged"]


def review_badge(debate: dict[str, Any]) -> tuple[str, str]:
    """The review state as (label, colour), separate from the moderator's outcome."""
    state = debate.get("review_state") or "pending"
    label = {"pending": "pending", "escalated": "escalated to a supervisor"}.get(state, state)
    return label, REVIEW_BADGE_COLORS.get(state, "gray")


def agent_names(debate: dict[str, Any]) -> dict[str, str]:
    """Agent id -> the name a reviewer knows it by: the profile's `name` from the debate's settings,
    its case's agents or the protocol's defaults (debate_core.core.profiles resolves them)."""
    case = debate.get("case") or {}
    try:
        defaults = get_spec(debate.get("protocol") or "").default_agents
    except Exception:  # noqa: BLE001 - an unknown protocol still shows its agents by id
        defaults = ()
    chosen = (debate.get("settings") or {}).get("agents")
    try:
        agents = resolve(chosen if isinstance(chosen, list) else None,
                         SimpleNamespace(agents=case.get("agents") if isinstance(case, dict) else None), defaults)
    except Exception:  # noqa: BLE001 - a malformed stored profile falls back to ids
        agents = []
    names = {}
    for a in agents:
        if isinstance(a, dict) and a.get("id"):
            names[str(a["id"])] = str(a.get("name") or str(a["id"]).replace("_", " "))
    # Reviewers who intervened speak in the record too (their critiques' critic, their steps' agent),
    # under the slug of their name: shown by the name they typed.
    for iv in interventions(debate.get("steps") or []):
        names.setdefault(_reviewer_slug(iv.get("reviewer") or ""), f"{iv.get('reviewer')} (reviewer)")
    return names


def short_answer(debate: dict[str, Any]) -> str:
    """The verdict's one-sentence answer; for verdicts stored before it existed, the answer's first sentence."""
    verdict = debate.get("verdict") or {}
    return (verdict.get("short_answer") or first_sentence(verdict.get("answer") or "")).strip()


def claim_index(claims: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """"agent.claim_id" -> the claim's latest stored version (the one the verdict speaks of), and
    "agent.claim_id@N" -> its version in round N (the one that round's critiques answer)."""
    out: dict[str, dict[str, Any]] = {}
    for c in sorted(claims, key=lambda c: (c.get("round") or 0, c.get("seq") or 0)):
        ref = f"{c.get('agent')}.{c.get('claim_id')}"
        out[ref] = out[f"{ref}@{c.get('round')}"] = c
    return out


def verdict_points(debate: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(supporting, disputed) points, each {"text", "refs"} where refs name the claims ("nla.C1")
    it stands on: cross critique's agreed and disputed claims, the panel judge's agreements and
    disagreements."""
    summary = debate.get("summary") or {}

    def claims_of(rows: Any) -> list[dict[str, Any]]:
        out = []
        for row in rows or []:
            if isinstance(row, dict):
                ref = str(row.get("ref") or row.get("claim") or "")
                out.append({"text": str(row.get("statement") or ""), "refs": [ref] if ref else [],
                            "supported": row.get("supported", True)})
            elif row:
                out.append({"text": str(row), "refs": [], "supported": True})
        return out

    if summary.get("agreed_claims") or summary.get("disputed_claims"):
        return claims_of(summary.get("agreed_claims")), claims_of(summary.get("disputed_claims"))
    judged = (debate.get("result") or {}).get("summary") or {}
    if isinstance(judged, dict):
        return claims_of(judged.get("key_agreements")), claims_of(judged.get("key_disagreements"))
    return [], []


def plot_thresholds(debate: dict[str, Any]) -> dict[str, tuple[float, str]]:
    """The moderator's thresholds that the per-round plots can show, read from the debate's own
    options (or the protocol's defaults): measure -> (value, label)."""
    try:
        spec = get_spec(debate.get("protocol") or "")
        options = spec.options((debate.get("settings") or {}).get("options") or {})
    except Exception:  # noqa: BLE001 - a debate with options this version no longer reads draws no lines
        return {}
    return spec.plot_thresholds(options) if spec.plot_thresholds is not None else {}


# ---------------------------------------------------------------------------
# Steering: where a debate paused, the reviewers' interventions, the claims they can target
# ---------------------------------------------------------------------------


def _reviewer_slug(name: str) -> str:
    return reviewer_slug(name)


def pause_place(debate: dict[str, Any]) -> str:
    """Where a paused or stopped debate stands, in words: 'after round 1', 'in round 2, after the
    revisions' (pause points: steering.py)."""
    label = str(debate.get("paused_at") or "")
    rnd = debate.get("paused_round")
    m = re.match(r"^r(\d+)\.([a-z_]+)$", label)
    if m:
        rnd = int(m[1])
        if m[2] != "end":
            return f"in round {rnd}, after the {m[2].replace('_', ' ')}"
    return f"after round {rnd}" if rnd else "before its first round closed"


def next_part(debate: dict[str, Any]) -> str:
    """What a paused debate runs when it continues: 'round 2', or 'the rest of round 1' when it
    paused inside a round."""
    nxt = debate.get("next_round")
    if not nxt:
        return ""
    inside = not str(debate.get("paused_at") or "").endswith(".end") and nxt == debate.get("paused_round")
    return f"the rest of round {nxt}" if inside else f"round {nxt}"


def intervention_when(iv: dict[str, Any]) -> str:
    """Where an intervention was made: 'before round 2', or 'in round 1, after the answers'."""
    m = re.match(r"^r(\d+)\.([a-z_]+)$", str(iv.get("at") or ""))
    if m and m[2] != "end":
        return f"in round {m[1]}, after the {m[2].replace('_', ' ')}"
    return f"before round {iv.get('round')}" if iv.get("round") else ""


def interventions(steps: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reviewers' interventions recorded in a debate's steps, in the order they were made."""
    return [s["output"] for s in sorted(steps, key=lambda s: s.get("seq") or 0)
            if s.get("stage") == "human" and s.get("status") == "ok" and isinstance(s.get("output"), dict)]


def _claim_words(ref: Any, names: dict[str, str]) -> str:
    agent, _, claim = str(ref or "").partition(".")
    who = names.get(agent, agent.replace("_", " "))
    return f"{who}'s claim {claim}" if claim else who


def _critique_words(ref: Any, names: dict[str, str]) -> str:
    """A reviewer critique's reference `alice->nla:H1` as words."""
    m = re.match(r"^([\w-]+)->([\w-]+):(\w+)$", str(ref or ""))
    if not m:
        return str(ref or "")
    author = names.get(m[1], m[1]).removesuffix(" (reviewer)")
    return f"{author}'s critique {m[3]} of {names.get(m[2], m[2].replace('_', ' '))}"


def intervention_text(iv: dict[str, Any], names: dict[str, str] | None = None) -> str:
    """What a reviewer did, as a phrase without its subject: 'raised a CRITICAL critique (H1) of
    National Law Agent's claim C2: ...'. The reviewer's own text is included as typed."""
    names = names or {}
    kind = iv.get("kind")
    if kind == "critique":
        text = str(iv.get("description") or "").strip()
        if iv.get("suggested_fix"):
            text += ("" if text.endswith((".", "!", "?")) else ".") + f" Suggested fix: {iv['suggested_fix']}"
        return (f"raised a {iv.get('severity') or ''} critique ({iv.get('critique_id')}) of "
                f"{_claim_words(iv.get('target'), names)}: {text}")
    if kind == "evidence":
        ev = iv.get("evidence") or {}
        return f"added passage {ev.get('id')} ({ev.get('source')}): {ev.get('text') or ''}"
    if kind == "pin":
        return f"pinned {_claim_words(iv.get('target'), names)} as established: the agent may not drop it"
    if kind == "strike":
        return f"withdrew {_claim_words(iv.get('target'), names)} from the debate"
    if kind == "resolve":
        return f"resolved {_critique_words(iv.get('target'), names)}"
    return plain_code(kind)


def intervention_rows(steps: list[dict[str, Any]], names: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per intervention: when, who, before which round, what."""
    return [{"time": (iv.get("ts") or "")[:19].replace("T", " "), "reviewer": iv.get("reviewer") or "",
             "when": intervention_when(iv), "what": intervention_text(iv, names)}
            for iv in interventions(steps)]


def claim_choices(debate: dict[str, Any]) -> list[dict[str, str]]:
    """The claims a reviewer can critique, pin or withdraw on a paused debate: each agent's claims in
    its latest answer, less those withdrawn; exactly the ones `continuation.intervene` accepts (the
    engine's own rule, `continuation.latest_claims`, so the picker offers what it takes)."""
    names = agent_names(debate)
    return [{"ref": f"{agent}.{cid}", "agent": names.get(agent, agent.replace("_", " ")), "claim": cid,
             "statement": statement}
            for agent, found in continuation.latest_claims(debate).items() for cid, statement in found.items()]


def claim_choice_label(choice: dict[str, str], width: int = 110) -> str:
    text = " ".join(choice["statement"].split())
    if len(text) > width:
        text = text[: width - 1].rstrip() + "…"
    return f"{choice['agent']} · {choice['claim']} · {text}"


def open_reviewer_critiques(debate: dict[str, Any], reviewer: str, *, everyone: bool = False) -> list[dict[str, str]]:
    """The reviewer critiques still open that this reviewer may resolve: their own (a supervisor,
    `everyone`, may resolve anyone's). Each {"ref", "label"}."""
    names = agent_names(debate)
    out = []
    for ref, iv in continuation.open_reviewer_critiques(debate).items():  # the engine's own rule
        if not everyone and not same_name(iv.reviewer, reviewer):
            continue
        text = " ".join((iv.description or "").split())
        out.append({"ref": ref, "label": f"{iv.critique_id} · {iv.severity} · {_claim_words(iv.target, names)} · "
                                         f"{text[:90] + ('…' if len(text) > 90 else '')}"})
    return out


_CLAIM_REF = re.compile(r"\b([A-Za-z][\w-]*)\.(C\d+)\b")
_H_REF = re.compile(r"\b[\w-]+->[\w-]+:\w+\b")


def steering_message(text: Any, names: dict[str, str] | None = None) -> str:
    """A refusal from the engine (SteeringError and the like) as a sentence: claim references
    (`nla.C2`) and reviewer critique references (`alice->nla:H1`) spelled out."""
    names = names or {}
    out = str(text.args[0] if isinstance(text, KeyError) and text.args else text or "").strip()
    out = _H_REF.sub(lambda m: _critique_words(m[0], names), out)
    out = _CLAIM_REF.sub(lambda m: _claim_words(f"{m[1]}.{m[2]}", names) if m[1] in names else m[0], out)
    return out[:1].upper() + out[1:]
