"""A stored debate as the pages show it (no Streamlit, no SQL).

Everything here takes the plain dicts the store returns and gives back rows, groups, labels and
numbers, so the pages only lay them out and the logic can be tested without a browser: steps by
round and progress, claims with their evidence, token usage and the per-round trajectory, the
history and review tables, the transcript zip, and the verdict card (outcome and review badges,
agents' names, supporting and disputed points).

Labels, colours and text formatting are in `formatting`; steering (pauses, interventions, claim
choices) in `steering`; the New debate page's protocol choices in `protocol_choices`.
"""

from __future__ import annotations

import io
import zipfile
from collections import defaultdict
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from ..core.profiles import resolve
from ..core.steering import reviewer_slug
from ..core.steps import latest_calls
from ..protocols import get_spec
from ..protocols.common import short_answer as first_sentence
from ..protocols.cross_critique.rows import critiques_by_claim_version
from .formatting import REVIEW_STATE_LABELS, display_status

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


IDENTITY_TEXT = {"verified": "signed in", "label": "unverified label", "operator": "server operator"}


def identity_text(row: dict[str, Any]) -> str:
    """How an audit row's person was known: signed in (with the e-mail and provider the identity
    provider gave), a label typed in local mode, or the server's operator. Rows written before
    identities were kept say "not recorded"."""
    kind = row.get("actor_kind")
    if kind == "verified":
        parts = [p for p in (row.get("actor_email"), row.get("actor_provider")) if p]
        return "signed in" + (f" ({', '.join(parts)})" if parts else "")
    return IDENTITY_TEXT.get(kind or "", "not recorded")


def review_rows(reviews: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"time": (r.get("ts") or "")[:19].replace("T", " "), "reviewer": r.get("reviewer"),
         "identity": identity_text(r), "role": r.get("role"),
         "action": r.get("action"), "state": f"{r.get('state_before')} → {r.get('state_after')}",
         "answer before": r.get("answer_before") or "", "answer after": r.get("answer_after") or "",
         "reason": r.get("reason") or ""}
        for r in reviews
    ]


def audit_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The audit table's rows (debates and evaluations started, settings and roles changed), for a table."""
    return [{"time": (r.get("ts") or "")[:19].replace("T", " "), "who": r.get("reviewer"),
             "identity": identity_text(r), "role": r.get("role"), "what": r.get("detail") or r.get("action")}
            for r in rows]


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
    return REVIEW_STATE_LABELS.get(state, state), REVIEW_BADGE_COLORS.get(state, "gray")


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
        names.setdefault(reviewer_slug(iv.get("reviewer") or ""), f"{iv.get('reviewer')} (reviewer)")
    return names


def short_answer(debate: dict[str, Any]) -> str:
    """The verdict's one-sentence answer; for verdicts stored before it existed, the answer's first sentence."""
    verdict = debate.get("verdict") or {}
    return (verdict.get("short_answer") or first_sentence(verdict.get("answer") or "")).strip()


# The one-line verdict above the debate's tabs: the answer cut at a word to about this many characters.
LINE_CHARS = 140


def one_line_answer(debate: dict[str, Any], limit: int = LINE_CHARS) -> str:
    """The verdict's short answer on one line, cut at a word boundary (with "…") past `limit` characters."""
    text = " ".join(short_answer(debate).split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] or text[:limit]
    return cut.rstrip(" ,;:.") + "…"


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
# The reviewers' interventions, as recorded in the steps (shown in words by `steering`)
# ---------------------------------------------------------------------------


def interventions(steps: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reviewers' interventions recorded in a debate's steps, in the order they were made."""
    return [s["output"] for s in sorted(steps, key=lambda s: s.get("seq") or 0)
            if s.get("stage") == "human" and s.get("status") == "ok" and isinstance(s.get("output"), dict)]
