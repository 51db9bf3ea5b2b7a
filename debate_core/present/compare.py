"""Compare two stored debates: a fork with its parent, two models or two settings on one case.

`compare(a, b)` takes two debates as `load_debate` returns them (a `DebateStore.get_debate` dict with
its `claims` and `critiques` rows added) and returns a plain dict (its shape: docs/contracts.md,
"diff --json"): the verdicts, the claims added, removed and changed, the critiques by severity with
their state at the end, the per-round measures of both debates, and their tokens and cost.
Nothing here reads the database or draws anything; `diff_text` is the CLI's readable form.

Claims are matched within the same agent, each claim used once: first by claim id (`nla.C1` with
`nla.C1`), except that a statement found word for word under another id is that claim renumbered;
the claims left over are then matched by the similarity of their statements: token Jaccard (the
share of distinct lower-cased words the two statements have in common, of all distinct words in
either), at least `SIMILARITY_THRESHOLD`, best pairs first. This is what pairs the claims of debates
whose models number their claims differently.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..core.pricing import PriceTable, debate_cost
from ..core.schemas import SEVERITIES
from ..core.text import jaccard, tokens, word_diff
from ..protocols.cross_critique.rows import STATE_LABELS, critique_ledger
from . import formatting, views

SIMILARITY_METHOD = "token_jaccard"
SIMILARITY_THRESHOLD = 0.5

# The per-round measure shown first, by protocol: the one its convergence rule reads.
_MAIN_MEASURES = ("answer_change", "top_score", "jaccard", "confidence", "contradictions")


def load_debate(store: Any, debate_id: str) -> dict[str, Any]:
    """A stored debate with its claims and critiques, ready for `compare`. Raises the store's
    NotFound (a KeyError) for an unknown id."""
    debate = store.get_debate(debate_id)
    debate["claims"] = store.claims(debate_id)
    debate["critiques"] = store.critiques(debate_id)
    return debate


def compare(a: dict[str, Any], b: dict[str, Any], *, prices: PriceTable | None = None) -> dict[str, Any]:
    """Everything that differs between debate `a` and debate `b`, as plain JSON-ready data."""
    return {
        "a": debate_summary(a),
        "b": debate_summary(b),
        "warnings": warnings(a, b),
        "same_protocol": a.get("protocol") == b.get("protocol"),
        "same_case": same_case(a, b),
        "settings": settings_diff(a, b),
        "verdict": verdict_diff(a, b),
        "claims": claim_diff(a.get("claims") or [], b.get("claims") or []),
        "critiques": critique_diff(a, b),
        "trajectory": trajectory_diff(a, b),
        "usage": usage_diff(a, b),
        "cost": cost_diff(a, b, prices),
    }


# ---------------------------------------------------------------------------
# The two debates and what makes them comparable
# ---------------------------------------------------------------------------


def debate_summary(d: dict[str, Any]) -> dict[str, Any]:
    """Who the debate is: id, title, protocol, status, provider and model; for a fork its parent and
    the round it was forked at, for a resumed debate the one it continues."""
    config = d.get("provider_config") or {}
    return {
        "id": d.get("id"),
        "title": d.get("title") or "",
        "question": d.get("question") or "",
        "case_id": (d.get("case") or {}).get("id") if isinstance(d.get("case"), dict) else d.get("case_id"),
        "protocol": d.get("protocol"),
        "status": formatting.display_status(d),
        "review": formatting.review_label(d.get("review_state")),
        "rounds": d.get("rounds"),
        "created_at": d.get("created_at"),
        "provider": formatting.provider_label(config),
        "model": d.get("model") or config.get("model"),
        "parent_id": d.get("parent_id"),
        "fork_round": d.get("fork_round"),
        "resumed_from": d.get("resumed_from"),
    }


def same_case(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Both debates ran on the same case: the same stored case content (id, question and evidence)."""
    ca, cb = a.get("case"), b.get("case")
    if isinstance(ca, dict) and isinstance(cb, dict):
        return ca == cb
    return a.get("case_id") == b.get("case_id") and a.get("question") == b.get("question")


def warnings(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """What the reader should know before reading the differences."""
    out = []
    if a.get("id") == b.get("id"):
        out.append(f"both sides are debate {a.get('id')}: there is nothing to compare")
    if a.get("protocol") != b.get("protocol"):
        out.append(f"the debates ran different protocols ({a.get('protocol')} and {b.get('protocol')}): "
                   "their claims, critiques and per-round measures are not alike")
    if not same_case(a, b):
        ida, idb = debate_summary(a)["case_id"], debate_summary(b)["case_id"]
        if ida and ida == idb:
            out.append(f"the debates ran on different versions of case {ida} (its question or evidence differ)")
        else:
            out.append(f"the debates ran on different cases ({ida or a.get('question')} and "
                       f"{idb or b.get('question')})")
    for side, d in (("A", a), ("B", b)):
        if d.get("status") != "completed":
            out.append(f"debate {side} ({d.get('id')}) has not completed ({formatting.display_status(d)}): "
                       "it has no verdict and its measures stop where it stopped")
    return out


def _plain_value(value: Any) -> str:
    if value is None:
        return "default"
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, dict) and v.get("id") for v in value):
        return ", ".join(str(v["id"]) for v in value)  # agent profiles: their ids say who spoke
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def settings_diff(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, str]]:
    """The settings that differ ({setting, a, b}, values as text): rounds, agents, limits, each
    protocol option, and the model."""
    sa, sb = dict(a.get("settings") or {}), dict(b.get("settings") or {})
    oa, ob = dict(sa.pop("options", None) or {}), dict(sb.pop("options", None) or {})
    for s in (sa, sb):
        s.pop("runner", None)  # which process ran it, not how
    rows = []
    for key in sorted(set(sa) | set(sb)):
        if sa.get(key) != sb.get(key):
            rows.append({"setting": key, "a": _plain_value(sa.get(key)), "b": _plain_value(sb.get(key))})
    for key in sorted(set(oa) | set(ob)):
        if oa.get(key) != ob.get(key):
            rows.append({"setting": f"option {key}", "a": _plain_value(oa.get(key)), "b": _plain_value(ob.get(key))})
    ma, mb = debate_summary(a)["model"], debate_summary(b)["model"]
    if ma != mb:
        rows.append({"setting": "model", "a": _plain_value(ma), "b": _plain_value(mb)})
    return rows


# ---------------------------------------------------------------------------
# Verdicts
# ---------------------------------------------------------------------------


def verdict_of(d: dict[str, Any]) -> dict[str, Any] | None:
    v = d.get("verdict")
    if not isinstance(v, dict):
        return None
    return {
        "answer": v.get("answer") or "",
        "short_answer": views.short_answer(d),
        "confidence": v.get("confidence"),
        "needs_human_review": bool(v.get("needs_human_review")),
        "reasons": [str(r) for r in v.get("escalation_reasons") or []],
        "converged": bool(d.get("converged")),
        "convergence_reason": d.get("convergence_reason") or "",
        "review_state": d.get("review_state") or "pending",
    }


def verdict_diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Both verdicts, whether the answers are the same, and the review reasons only one of them has."""
    va, vb = verdict_of(a), verdict_of(b)
    out: dict[str, Any] = {"a": va, "b": vb, "same_answer": None, "answer_similarity": None,
                           "confidence_change": None, "review_flag_changed": None,
                           "reasons_only_a": [], "reasons_only_b": []}
    if va is None or vb is None:
        return out
    out["same_answer"] = " ".join(va["answer"].split()) == " ".join(vb["answer"].split())
    out["answer_similarity"] = similarity(va["answer"], vb["answer"])
    if va["confidence"] is not None and vb["confidence"] is not None:
        out["confidence_change"] = round(vb["confidence"] - va["confidence"], 4)
    out["review_flag_changed"] = va["needs_human_review"] != vb["needs_human_review"]
    out["reasons_only_a"] = [r for r in va["reasons"] if r not in vb["reasons"]]
    out["reasons_only_b"] = [r for r in vb["reasons"] if r not in va["reasons"]]
    return out


# ---------------------------------------------------------------------------
# Claims
# ---------------------------------------------------------------------------


def similarity(a: str, b: str) -> float:
    """Token Jaccard of two texts: shared distinct lower-cased words over all distinct words."""
    return round(jaccard(tokens(a), tokens(b)), 4)


def final_claims(claims: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each agent's claims as they stood at the end: the rows of that agent's latest round (a claim
    the agent dropped in its last revision is gone, not kept from an earlier round)."""
    claims = list(claims)
    last: dict[str, int] = {}
    for c in claims:
        agent = str(c.get("agent") or "")
        last[agent] = max(last.get(agent, 0), int(c.get("round") or 0))
    return sorted((c for c in claims if int(c.get("round") or 0) == last[str(c.get("agent") or "")]),
                  key=lambda c: (str(c.get("agent") or ""), str(c.get("claim_id") or "")))


def _claim(c: dict[str, Any]) -> dict[str, Any]:
    return {"ref": f"{c.get('agent')}.{c.get('claim_id')}", "agent": c.get("agent"), "claim_id": c.get("claim_id"),
            "round": c.get("round"), "statement": c.get("statement") or "",
            "evidence": list(c.get("evidence") or []), "confidence": c.get("confidence")}


def _norm(text: str) -> str:
    return " ".join((text or "").split())


def _pair(ca: dict[str, Any], cb: dict[str, Any], matched_by: str) -> dict[str, Any]:
    """A matched pair: what changed between the two versions (statement, evidence, confidence)."""
    a, b = _claim(ca), _claim(cb)
    changes = []
    if _norm(a["statement"]) != _norm(b["statement"]):
        changes.append("statement")
    if sorted(a["evidence"]) != sorted(b["evidence"]):
        changes.append("evidence")
    if a["confidence"] != b["confidence"]:
        changes.append("confidence")
    return {
        "agent": a["agent"], "a": a, "b": b, "matched_by": matched_by,
        "similarity": similarity(a["statement"], b["statement"]), "changes": changes,
        "evidence_added": [e for e in b["evidence"] if e not in a["evidence"]],
        "evidence_removed": [e for e in a["evidence"] if e not in b["evidence"]],
        "statement_diff": [{"op": op, "text": t} for op, t in word_diff(a["statement"], b["statement"])]
        if "statement" in changes else [],
    }


def match_claims(a: list[dict[str, Any]], b: list[dict[str, Any]],
                 threshold: float = SIMILARITY_THRESHOLD) -> tuple[list[dict[str, Any]], list[int], list[int]]:
    """(matched pairs, indexes of a left unmatched, indexes of b left unmatched), in four passes, each
    on what the earlier ones left: the same agent, claim id and statement; the same agent and
    statement under another id (a claim renumbered because one before it came or went); the same
    agent and claim id; then the same agent and a similar statement, best pairs first."""
    pairs: list[dict[str, Any]] = []
    used_a: set[int] = set()
    used_b: set[int] = set()

    def agent(c: dict[str, Any]) -> str:
        return str(c.get("agent"))

    def key_pass(key: Any, matched_by: str) -> None:
        free_b: dict[Any, int] = {}
        for j, c in enumerate(b):
            if j not in used_b:
                free_b.setdefault(key(c), j)
        for i, c in enumerate(a):
            j = free_b.get(key(c)) if i not in used_a else None
            if j is not None and j not in used_b:
                pairs.append(_pair(c, b[j], matched_by))
                used_a.add(i)
                used_b.add(j)

    key_pass(lambda c: (agent(c), str(c.get("claim_id")), _norm(c.get("statement") or "")), "id")
    key_pass(lambda c: (agent(c), _norm(c.get("statement") or "")), "text")
    key_pass(lambda c: (agent(c), str(c.get("claim_id"))), "id")
    candidates = []
    for i, ca in enumerate(a):
        for j, cb in enumerate(b):
            if i in used_a or j in used_b or agent(ca) != agent(cb):
                continue
            score = similarity(ca.get("statement") or "", cb.get("statement") or "")
            if score >= threshold:
                candidates.append((-score, i, j))
    for _neg, i, j in sorted(candidates):
        if i in used_a or j in used_b:
            continue
        pairs.append(_pair(a[i], b[j], "text"))
        used_a.add(i)
        used_b.add(j)
    return pairs, [i for i in range(len(a)) if i not in used_a], [j for j in range(len(b)) if j not in used_b]


def claim_diff(claims_a: Iterable[dict[str, Any]], claims_b: Iterable[dict[str, Any]],
               threshold: float = SIMILARITY_THRESHOLD) -> dict[str, Any]:
    """The final claims of B against those of A: added (only in B), removed (only in A), changed
    (matched, with what changed) and how many are the same."""
    a, b = final_claims(claims_a), final_claims(claims_b)
    pairs, only_a, only_b = match_claims(a, b, threshold)
    changed = sorted((p for p in pairs if p["changes"]), key=lambda p: (str(p["agent"]), p["a"]["ref"]))
    return {
        "similarity": {"method": SIMILARITY_METHOD, "threshold": threshold},
        "count": {"a": len(a), "b": len(b)},
        "added": [_claim(b[j]) for j in only_b],
        "removed": [_claim(a[i]) for i in only_a],
        "changed": changed,
        "unchanged": sorted(p["a"]["ref"] if p["a"]["ref"] == p["b"]["ref"] else f"{p['a']['ref']} = {p['b']['ref']}"
                            for p in pairs if not p["changes"]),
    }


# ---------------------------------------------------------------------------
# Critiques
# ---------------------------------------------------------------------------


def critique_items(d: dict[str, Any]) -> list[dict[str, Any]]:
    """Every critique the debate used (a re-asked step's kept call only) with its state at the end,
    rebuilt from the stored steps the way the debate computed it."""
    ledger = critique_ledger(d.get("steps") or [])
    items = []
    for rec in sorted(ledger.values(), key=lambda r: (r.item.round, r.item.critic, r.item.target, r.item.critique.id)):
        k = rec.item.critique
        items.append({
            "ref": f"{rec.item.critic}->{rec.item.target}:{k.id}", "round": rec.item.round,
            "critic": rec.item.critic, "target": rec.item.target, "claim": f"{rec.item.target}.{k.target_claim_id}",
            "severity": k.severity, "issue_type": k.issue_type, "description": k.description,
            "state": rec.state, "state_label": rec.label(), "open": rec.is_open,
        })
    return items


def critique_summary(d: dict[str, Any]) -> dict[str, Any]:
    """Counts per severity (raised, still open at the end, resolved), counts per end state, and the items."""
    items = critique_items(d)
    by_severity = {s: {"raised": 0, "open": 0, "resolved": 0} for s in SEVERITIES}
    for it in items:
        row = by_severity.setdefault(it["severity"], {"raised": 0, "open": 0, "resolved": 0})
        row["raised"] += 1
        row["open" if it["open"] else "resolved"] += 1
    states = {s: sum(1 for it in items if it["state"] == s) for s in STATE_LABELS}
    return {"total": len(items), "by_severity": by_severity, "by_state": states, "items": items}


def _critique_key(item: dict[str, Any]) -> tuple[str, str, str]:
    # Critique ids are numbered per critic and target, so two debates can give the same id to
    # different critiques: the same one also targets the same claim with the same issue type.
    return item["ref"], item["claim"], str(item["issue_type"])


def critique_diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Both debates' critiques; which were raised in one only (matched by critic, target, id, the
    claim and the issue type), and for those in both, whose state at the end differs."""
    sa, sb = critique_summary(a), critique_summary(b)
    ia = {_critique_key(it): it for it in sa["items"]}
    ib = {_critique_key(it): it for it in sb["items"]}
    changed = [{"ref": x["ref"], "severity": x["severity"], "claim": x["claim"],
                "a": x["state_label"], "b": ib[key]["state_label"]}
               for key, x in ia.items() if key in ib and x["state"] != ib[key]["state"]]
    return {"a": sa, "b": sb, "only_a": [x["ref"] for k, x in ia.items() if k not in ib],
            "only_b": [x["ref"] for k, x in ib.items() if k not in ia], "state_changed": changed}


# ---------------------------------------------------------------------------
# Per-round measures, tokens and cost
# ---------------------------------------------------------------------------


def trajectory_diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Both stored trajectories, and every numeric per-round measure as long-form rows
    ({round, name, value}) for each debate, so one plot can draw both."""
    ta, tb = views.trajectory(a), views.trajectory(b)
    keys = sorted({k for t in ta + tb for k in t} - {"round"})
    measures = {}
    for key in keys:
        ra, rb = views.series(ta, key), views.series(tb, key)
        if ra or rb:
            measures[key] = {"a": ra, "b": rb}
    main = next((k for k in _MAIN_MEASURES if k in measures and measures[k]["a"] and measures[k]["b"]),
                next(iter(measures), None))
    return {"a": ta, "b": tb, "rounds": {"a": len(ta), "b": len(tb)}, "measures": measures, "main": main}


def usage_of(d: dict[str, Any]) -> dict[str, int]:
    i, o = int(d.get("input_tokens") or 0), int(d.get("output_tokens") or 0)
    return {"calls": int(d.get("calls") or 0), "input_tokens": i, "output_tokens": o, "total_tokens": i + o}


def usage_diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Calls and tokens of each debate and B minus A."""
    ua, ub = usage_of(a), usage_of(b)
    return {"a": ua, "b": ub, "difference": {k: ub[k] - ua[k] for k in ua}}


def cost_diff(a: dict[str, Any], b: dict[str, Any], prices: PriceTable | None) -> dict[str, Any] | None:
    """The estimated cost of each debate at the given prices; None without a price table."""
    if prices is None:
        return None
    ca, cb = debate_cost(prices, a.get("steps") or []), debate_cost(prices, b.get("steps") or [])

    def side(c: Any) -> dict[str, Any]:
        return {"total": round(c.total, 6), "complete": c.complete, "unpriced_models": list(c.unpriced_models)}

    return {"currency": prices.currency, "a": side(ca), "b": side(cb), "difference": round(cb.total - ca.total, 6)}


# ---------------------------------------------------------------------------
# The readable form (the CLI's default output)
# ---------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def _signed(value: int | float) -> str:
    return f"+{value:,}" if value > 0 else f"{value:,}"


def diff_text(result: dict[str, Any]) -> str:
    """The comparison as plain text, section by section."""
    a, b = result["a"], result["b"]
    lines = [f"A: {a['id']}  {a['protocol']}, {a['status']}, review {a['review']}, {a['rounds'] or 0} round(s), "
             f"{a['provider']}",
             f"   {a['title']}",
             f"B: {b['id']}  {b['protocol']}, {b['status']}, review {b['review']}, {b['rounds'] or 0} round(s), "
             f"{b['provider']}",
             f"   {b['title']}"]
    for side, s in (("A", a), ("B", b)):
        if s.get("parent_id"):
            at = f" at round {s['fork_round']}" if s.get("fork_round") is not None else ""
            lines.append(f"{side} is a fork of {s['parent_id']}{at}")
        if s.get("resumed_from"):
            lines.append(f"{side} continues {s['resumed_from']}")
    lines += [f"warning: {w}" for w in result["warnings"]]
    if result["settings"]:
        lines += ["", "Settings that differ"]
        lines += [f"  {r['setting']}: A {r['a']} | B {r['b']}" for r in result["settings"]]
    lines += ["", *_verdict_lines(result["verdict"]), "", *_claim_lines(result["claims"]), "",
              *_critique_lines(result["critiques"]), "", *_trajectory_lines(result["trajectory"]), "",
              *_usage_lines(result["usage"], result["cost"])]
    return "\n".join(lines)


def _verdict_lines(v: dict[str, Any]) -> list[str]:
    lines = ["Verdict"]
    for side in ("a", "b"):
        x = v[side]
        if x is None:
            lines.append(f"  {side.upper()}: no verdict")
            continue
        lines.append(f"  {side.upper()}: confidence {_pct(x['confidence'])}, "
                     f"{formatting.display_status({'status': 'completed', **x})}")
        lines.append(f"     {x['short_answer'] or x['answer']}")
    if v["same_answer"] is not None:
        lines.append("  the answers are the same" if v["same_answer"]
                     else f"  the answers differ ({_pct(v['answer_similarity'])} of their distinct words in common)")
    for side, key in (("A", "reasons_only_a"), ("B", "reasons_only_b")):
        for r in v[key]:
            lines.append(f"  review reason only in {side}: {r}")
    return lines


def _claim_lines(c: dict[str, Any]) -> list[str]:
    if not c["count"]["a"] and not c["count"]["b"]:
        return ["Claims", "  neither debate recorded claims (only cross critique records them)"]
    sim = c["similarity"]
    lines = [f"Claims (A {c['count']['a']}, B {c['count']['b']}; matched by agent and claim id, then by word "
             f"overlap of at least {sim['threshold']:.0%}): {len(c['added'])} added, {len(c['removed'])} removed, "
             f"{len(c['changed'])} changed, {len(c['unchanged'])} the same"]
    lines += [f"  + {x['ref']}: {x['statement']}" for x in c["added"]]
    lines += [f"  - {x['ref']}: {x['statement']}" for x in c["removed"]]
    for p in c["changed"]:
        ref = p["a"]["ref"] if p["a"]["ref"] == p["b"]["ref"] else f"{p['a']['ref']} / {p['b']['ref']}"
        how = "same id" if p["matched_by"] == "id" else f"similar text, {_pct(p['similarity'])} word overlap"
        lines.append(f"  ~ {ref} ({how}; changed: {', '.join(p['changes'])})")
        if "statement" in p["changes"]:
            lines.append(f"      A: {p['a']['statement']}")
            lines.append(f"      B: {p['b']['statement']}")
        if "evidence" in p["changes"]:
            lines.append(f"      evidence: A {', '.join(p['a']['evidence']) or 'none'} | "
                         f"B {', '.join(p['b']['evidence']) or 'none'}")
        if "confidence" in p["changes"]:
            lines.append(f"      confidence: A {_pct(p['a']['confidence'])} | B {_pct(p['b']['confidence'])}")
    return lines


def _critique_lines(c: dict[str, Any]) -> list[str]:
    lines = [f"Critiques (A {c['a']['total']}, B {c['b']['total']})"]
    if not c["a"]["total"] and not c["b"]["total"]:
        return [*lines, "  neither debate recorded critiques"]
    lines.append("  severity   raised A/B   open at the end A/B   resolved A/B")
    for sev in SEVERITIES:
        x, y = c["a"]["by_severity"][sev], c["b"]["by_severity"][sev]
        lines.append(f"  {sev:<9}  {x['raised']:>4}/{y['raised']:<4}   {x['open']:>10}/{y['open']:<10}"
                     f"   {x['resolved']:>5}/{y['resolved']}")
    for side in ("a", "b"):
        still = [it for it in c[side]["items"] if it["open"]]
        if still:
            lines.append(f"  open at the end of {side.upper()}:")
            lines += [f"    {it['ref']} {it['severity']} on {it['claim']} ({it['state_label']}): {it['description']}"
                      for it in still]
    for side, key in (("A", "only_a"), ("B", "only_b")):
        if c[key]:
            lines.append(f"  raised only in {side}: {', '.join(c[key])}")
    if c["state_changed"]:
        lines.append("  raised in both, ending in another state:")
        lines += [f"    {ch['ref']} {ch['severity']} on {ch['claim']}: A {ch['a']}, B {ch['b']}"
                  for ch in c["state_changed"]]
    return lines


def _trajectory_lines(t: dict[str, Any]) -> list[str]:
    lines = [f"Per round (A {t['rounds']['a']} round(s), B {t['rounds']['b']})"]
    if not t["measures"]:
        return [*lines, "  no per-round measures"]
    for key, sides in t["measures"].items():
        names = sorted({r["name"] for r in sides["a"] + sides["b"]})
        for name in names:
            label = key if name == key else f"{key} {name}"

            def values(rows: list[dict[str, Any]], name: str = name) -> str:
                got = [f"r{r['round']} {r['value']:g}" for r in rows if r["name"] == name]
                return ", ".join(got) or "-"

            lines.append(f"  {label.replace('_', ' ')}: A {values(sides['a'])} | B {values(sides['b'])}")
    return lines


def _usage_lines(u: dict[str, Any], cost: dict[str, Any] | None) -> list[str]:
    a, b, d = u["a"], u["b"], u["difference"]
    lines = ["Usage",
             f"  calls: A {a['calls']:,} | B {b['calls']:,} ({_signed(d['calls'])})",
             f"  tokens: A {a['total_tokens']:,} | B {b['total_tokens']:,} ({_signed(d['total_tokens'])}; "
             f"input A {a['input_tokens']:,} B {b['input_tokens']:,}, output A {a['output_tokens']:,} "
             f"B {b['output_tokens']:,})"]
    if cost is None:
        lines.append("  estimated cost: no prices set (the Settings page or $DEBATE_PRICES)")
        return lines
    cur = cost["currency"]
    lines.append(f"  estimated cost: A {cost['a']['total']:.4f} {cur} | B {cost['b']['total']:.4f} {cur}")
    for side in ("a", "b"):
        if not cost[side]["complete"]:
            lines.append(f"  {side.upper()} has steps without a price ({', '.join(cost[side]['unpriced_models'])}); "
                         "they are not counted")
    return lines
