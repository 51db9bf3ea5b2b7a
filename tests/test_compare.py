"""Comparing two stored debates (debate_core/present/compare.py) and the `diff` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from debate_core.core.cases import load_case
from debate_core.core.pricing import debate_cost, parse_price_table
from debate_core.core.schemas import Case
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.present import compare
from debate_core.protocols import get_spec
from debate_core.providers import make_provider
from debate_core.store import DebateStore

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "data" / "cases" / "adat_minangkabau_inheritance.json"
THREE_AGENTS = "three agents: national, adat, Islamic law"


def _run(store: DebateStore, case: Case, protocol: str = "cross_critique", **settings) -> str:
    result = run_debate(case, protocol, provider=make_provider("offline"), settings=DebateSettings(**settings),
                        store=store)
    assert result.status == "completed", result.error
    return result.debate_id


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """Four offline debates on the Minangkabau case: two rounds with the default settings; a round
    budget of three with at most four claims per agent; a third agent; and the case with one
    passage changed (the name of the field, early in the passage so that it falls within the part of
    the passage a claim quotes: a claim statement holds 130 characters)."""
    path = tmp_path_factory.mktemp("compare") / "debates.db"
    store = DebateStore(path)
    case = load_case(CASE)
    variant = case.model_dump()
    for passage in variant["evidence"]:
        if passage["id"] == "kan_statement_sawah":
            passage["text"] = passage["text"].replace("Sawah Gadang", "Sawah Panjang")
    ids = {
        "base": _run(store, case, rounds=2),
        "fewer_claims": _run(store, case, rounds=3, options={"max_claims": 4}),
        "three_agents": _run(store, case, rounds=2,
                             agents=get_spec("cross_critique").presets[THREE_AGENTS]["agents"]),
        "variant": _run(store, Case.model_validate(variant), rounds=2),
    }
    yield store, ids, path
    store.close()


def _diff(stored, a: str, b: str, **kw) -> dict:
    store, ids, _ = stored
    return compare.compare(compare.load_debate(store, ids[a]), compare.load_debate(store, ids[b]), **kw)


def _refs(rows: list[dict]) -> list[str]:
    return sorted(r["ref"] for r in rows)


def test_fewer_claims_removes_each_agents_last_two_and_their_critiques(stored):
    d = _diff(stored, "base", "fewer_claims")
    assert d["warnings"] == [] and d["same_protocol"] and d["same_case"]
    assert d["settings"] == [{"setting": "rounds", "a": "2", "b": "3"},
                             {"setting": "option max_claims", "a": "default", "b": "4"}]
    claims = d["claims"]
    assert claims["count"] == {"a": 12, "b": 8}
    assert _refs(claims["removed"]) == ["ala.C5", "ala.C6", "nla.C5", "nla.C6"]
    assert claims["added"] == [] and claims["changed"] == []
    assert claims["unchanged"] == [f"{agent}.C{n}" for agent in ("ala", "nla") for n in range(1, 5)]
    # nla's sixth claim is the one resting on both of its sources (its text is revised in round 2).
    removed = {r["ref"]: r["evidence"] for r in claims["removed"]}
    assert removed["nla.C6"] == ["ma_pusaka_tinggi_summary", "kuhperdata_830_852"]

    crit = d["critiques"]
    assert crit["a"]["by_severity"] == {"CRITICAL": {"raised": 1, "open": 0, "resolved": 1},
                                        "MAJOR": {"raised": 1, "open": 1, "resolved": 0},
                                        "MINOR": {"raised": 1, "open": 0, "resolved": 1}}
    assert crit["b"]["by_severity"] == {"CRITICAL": {"raised": 1, "open": 0, "resolved": 1},
                                        "MAJOR": {"raised": 1, "open": 1, "resolved": 0},
                                        "MINOR": {"raised": 0, "open": 0, "resolved": 0}}
    # The critique of a claim B no longer makes (ala's fifth) exists only in A.
    assert crit["only_a"] == ["nla->ala:K3"]
    still_open_a = [it["ref"] for it in crit["a"]["items"] if it["open"]]
    assert still_open_a == ["nla->ala:K2"]
    # A critique is counted once even when its step was re-asked (A's ala->nla step ran twice: ala
    # found fewer grounded critiques of nla's claims than asked and was asked again, and raised none):
    # nla->ala K1-K3.
    store, ids, _ = stored
    assert [st["step_id"] for st in store.get_debate(ids["base"])["steps"]].count("r1.critique.ala.nla") == 2
    assert crit["a"]["total"] == 3
    # The end states agree with what the debate itself recorded for its last round.
    assert crit["a"]["by_state"] == {"open": 0, "addressed_not_confirmed": 0, "maintained": 1, "resolved": 2}
    assert crit["a"]["by_state"] == store.get_debate(ids["base"])["trajectory"][-1]["critique_states"]

    verdict = d["verdict"]
    assert verdict["a"]["converged"] is True and verdict["b"]["converged"] is True
    assert verdict["a"]["needs_human_review"] and verdict["b"]["needs_human_review"]
    # Both supervisors build the answer from the same leading claims, which B keeps.
    assert verdict["review_flag_changed"] is False and verdict["same_answer"] is True
    assert any(r.startswith("possible echo chamber") for r in verdict["reasons_only_a"])
    assert verdict["confidence_change"] == pytest.approx(verdict["b"]["confidence"] - verdict["a"]["confidence"])


def test_swapped_sides_turn_removed_into_added(stored):
    d = _diff(stored, "fewer_claims", "base")
    assert _refs(d["claims"]["added"]) == ["ala.C5", "ala.C6", "nla.C5", "nla.C6"]
    assert d["claims"]["removed"] == []


def test_a_third_agent_adds_its_claims_and_a_renumbered_claim_is_the_same_claim(stored):
    d = _diff(stored, "base", "three_agents")
    claims = d["claims"]
    assert _refs(claims["added"]) == [f"ila.C{n}" for n in range(1, 7)] + ["nla.C5"]
    assert _refs(claims["removed"]) == ["nla.C4"]
    # nla's claim after the one it gave up to the third agent moved up one number, word for word.
    assert "nla.C5 = nla.C4" in claims["unchanged"]
    # The third agent's critiques are answered without changing the others' claims.
    assert claims["changed"] == []
    assert d["settings"] == [{"setting": "agents", "a": "default", "b": "nla, ala, ila"}]
    assert d["critiques"]["b"]["by_severity"]["MINOR"]["raised"] == 5
    assert d["critiques"]["b"]["total"] == 13


def test_a_changed_passage_changes_the_claim_that_quotes_it(stored):
    d = _diff(stored, "base", "variant")
    assert d["warnings"] == ["the debates ran on different versions of case adat_minangkabau_inheritance "
                             "(its question or evidence differ)"]
    assert not d["same_case"]
    claims = d["claims"]
    assert claims["added"] == [] and claims["removed"] == []
    # ala's first claim quotes the passage (cut at a word to fit a claim, so the cut moves with the name).
    assert [(pair["a"]["ref"], pair["b"]["ref"]) for pair in claims["changed"]] == [("ala.C1", "ala.C1")]
    [changed] = claims["changed"]
    assert changed["matched_by"] == "id" and changed["changes"] == ["statement"]
    ops = [s for s in changed["statement_diff"] if s["op"] != "="]
    assert ops[:2] == [{"op": "-", "text": "Gadang,"}, {"op": "+", "text": "Panjang,"}]


def test_trajectories_of_both_debates_per_measure(stored):
    store, ids, _ = stored
    d = _diff(stored, "base", "fewer_claims")
    traj = d["trajectory"]
    assert traj["main"] == "answer_change"
    assert traj["a"] == store.get_debate(ids["base"])["trajectory"]
    claims_a = {(r["round"], r["name"]): r["value"] for r in traj["measures"]["claims"]["a"]}
    claims_b = {(r["round"], r["name"]): r["value"] for r in traj["measures"]["claims"]["b"]}
    assert claims_a[(1, "nla")] == 6 and claims_b[(1, "nla")] == 4
    assert {r["round"] for r in traj["measures"]["answer_change"]["a"]} == {2}


def test_tokens_and_cost(stored):
    store, ids, _ = stored
    table = parse_price_table({"currency": "EUR", "models": {"offline-rules": {"input": 1.0, "output": 2.0}}})
    d = _diff(stored, "base", "fewer_claims", prices=table)
    a, b = store.get_debate(ids["base"]), store.get_debate(ids["fewer_claims"])
    assert d["usage"]["a"]["total_tokens"] == a["input_tokens"] + a["output_tokens"] > 0
    assert d["usage"]["difference"]["calls"] == b["calls"] - a["calls"]
    assert d["cost"]["currency"] == "EUR" and d["cost"]["a"]["complete"]
    assert d["cost"]["a"]["total"] == pytest.approx(debate_cost(table, a["steps"]).total, abs=1e-6)
    assert d["cost"]["a"]["total"] == pytest.approx((a["input_tokens"] + 2 * a["output_tokens"]) / 1e6, abs=1e-6)
    assert _diff(stored, "base", "fewer_claims")["cost"] is None


# ---------------------------------------------------------------------------
# Crafted claims: ids that differ, text that is similar
# ---------------------------------------------------------------------------


def _c(agent: str, cid: str, statement: str, evidence=("E1",), confidence=0.7, round_no=1) -> dict:
    return {"agent": agent, "claim_id": cid, "statement": statement, "evidence": list(evidence),
            "confidence": confidence, "round": round_no}


def test_claims_with_other_ids_are_matched_by_similar_text():
    a = [_c("nla", "C1", "Daughters inherit equally with sons under the civil code."),
         _c("nla", "C2", "The sawah is pusaka tinggi of the kaum.")]
    b = [_c("nla", "N7", "Under the civil code daughters inherit equally with sons and the widow."),
         _c("nla", "N8", "A notarial will was never made.")]
    d = compare.claim_diff(a, b)
    [pair] = d["changed"]
    assert pair["a"]["ref"] == "nla.C1" and pair["b"]["ref"] == "nla.N7" and pair["matched_by"] == "text"
    assert pair["similarity"] == pytest.approx(9 / 11, abs=1e-4) and pair["changes"] == ["statement"]
    assert _refs(d["removed"]) == ["nla.C2"] and _refs(d["added"]) == ["nla.N8"]
    assert d["similarity"] == {"method": "token_jaccard", "threshold": compare.SIMILARITY_THRESHOLD}


def test_similarity_needs_the_threshold_and_the_same_agent():
    a = [_c("nla", "C1", "alpha beta gamma delta")]
    below = [_c("nla", "X1", "alpha beta epsilon zeta")]  # 2 of 6 words: 0.33
    at = [_c("nla", "X1", "alpha beta gamma epsilon")]  # 3 of 5 words: 0.6
    other_agent = [_c("ala", "X1", "alpha beta gamma delta")]
    assert compare.claim_diff(a, below)["changed"] == []
    assert _refs(compare.claim_diff(a, below)["added"]) == ["nla.X1"]
    assert [p["b"]["ref"] for p in compare.claim_diff(a, at)["changed"]] == ["nla.X1"]
    assert compare.claim_diff(a, at, threshold=0.7)["changed"] == []
    d = compare.claim_diff(a, other_agent)
    assert _refs(d["added"]) == ["ala.X1"] and _refs(d["removed"]) == ["nla.C1"]


def test_best_similar_pair_wins_and_each_claim_is_used_once():
    a = [_c("nla", "C1", "one two three four five"), _c("nla", "C2", "one two three four six")]
    b = [_c("nla", "N1", "one two three four six seven")]
    d = compare.claim_diff(a, b)
    [pair] = d["changed"]
    assert pair["a"]["ref"] == "nla.C2"
    assert _refs(d["removed"]) == ["nla.C1"]


def test_evidence_and_confidence_changes_and_the_agents_last_round_only():
    a = [_c("nla", "C1", "Same text.", evidence=["E1"], confidence=0.5, round_no=1),
         _c("nla", "C1", "Same text.", evidence=["E1", "E2"], confidence=0.8, round_no=2),
         _c("nla", "C2", "Dropped in round two.", round_no=1)]
    b = [_c("nla", "C1", "Same text.", evidence=["E2"], confidence=0.8, round_no=1)]
    d = compare.claim_diff(a, b)
    [pair] = d["changed"]
    assert pair["changes"] == ["evidence"] and pair["evidence_removed"] == ["E1"] and pair["evidence_added"] == []
    assert d["removed"] == [] and d["count"] == {"a": 1, "b": 1}


def test_different_protocols_and_an_unfinished_debate_are_named():
    a = {"id": "A1", "protocol": "cross_critique", "status": "completed", "case": {"id": "c1"}}
    b = {"id": "B1", "protocol": "panel", "status": "failed", "case": {"id": "c2"}, "parent_id": "A1",
         "fork_round": 2}
    d = compare.compare(a, b)
    assert any("different protocols (cross_critique and panel)" in w for w in d["warnings"])
    assert any("different cases (c1 and c2)" in w for w in d["warnings"])
    assert any("debate B (B1) has not completed (failed)" in w for w in d["warnings"])
    assert d["verdict"]["b"] is None and d["verdict"]["same_answer"] is None
    assert d["b"]["parent_id"] == "A1" and d["b"]["fork_round"] == 2
    text = compare.diff_text(d)
    assert "B is a fork of A1 at round 2" in text and "B: no verdict" in text
    assert "neither debate recorded critiques" in text
    assert "neither debate recorded claims" in text


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------


def _cli(*args: str, db: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k != "DEBATE_PRICES"}
    full_env.update({"DEBATE_DB": str(db), **(env or {})})
    return subprocess.run([sys.executable, "-m", "debate_core", *args], cwd=ROOT, env=full_env,
                          capture_output=True, text=True, timeout=300)


def test_cli_diff_json_prints_the_comparison(stored):
    _store, ids, db = stored
    proc = _cli("diff", ids["base"], ids["fewer_claims"], "--json", db=db)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"a", "b", "warnings", "same_protocol", "same_case", "settings", "verdict", "claims",
                        "critiques", "trajectory", "usage", "cost"}
    assert out["a"]["id"] == ids["base"] and out["b"]["id"] == ids["fewer_claims"]
    assert _refs(out["claims"]["removed"]) == ["ala.C5", "ala.C6", "nla.C5", "nla.C6"]
    assert out["critiques"]["b"]["by_severity"]["CRITICAL"] == {"raised": 1, "open": 0, "resolved": 1}
    assert out["cost"] is None


def test_cli_diff_text_and_prices_from_the_environment(stored, tmp_path):
    _store, ids, db = stored
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"offline-rules": {"input": 1.0, "output": 1.0}}), encoding="utf-8")
    proc = _cli("diff", ids["base"], ids["variant"], db=db, env={"DEBATE_PRICES": str(prices)})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "warning: the debates ran on different versions of case adat_minangkabau_inheritance " \
           "(its question or evidence differ)" in lines
    assert any(line.startswith("  ~ ala.C1 (same id; changed: statement)") for line in lines)
    assert any(line.startswith("  estimated cost: A ") and "USD" in line for line in lines)
    assert "{" not in proc.stdout.split("Claims (")[0]  # plain words, no dict reprs


def test_cli_diff_unknown_id_is_bad_input(stored):
    _store, ids, db = stored
    proc = _cli("diff", ids["base"], "nope", db=db)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: no debate with id 'nope'" and proc.stdout == ""


def test_a_flagged_verdict_is_one_outcome_not_also_converged():
    """The moderator's outcome is one word per debate (converged, flagged for a human, not
    converged): a debate that converged but was flagged reads as flagged, never as both."""
    flagged = {"confidence": 0.31, "needs_human_review": True, "converged": True, "short_answer": "x", "answer": "x"}
    plain = {**flagged, "needs_human_review": False}
    lines = compare._verdict_lines({"a": flagged, "b": plain, "same_answer": True, "answer_similarity": 1.0,
                                    "reasons_only_a": [], "reasons_only_b": []})
    assert "A: confidence 31%, flagged for a human" in lines[1] and "converged" not in lines[1]
    assert lines[3].endswith("B: confidence 31%, converged")
