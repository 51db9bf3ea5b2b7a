"""Pure view helpers behind the pages: escaping, passage parsing, rows, groups, diffs and summaries."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from helpers import small_case

from debate_core.core import inputs
from debate_core.core.cases import CaseError
from debate_core.core.text import word_diff
from debate_core.present import formatting, protocol_choices, views
from debate_core.protocols import get_spec
from debate_core.protocols.cross_critique import rows as cc_rows
from debate_core.store import DebateStore


def test_md_escape_neutralises_every_markdown_and_html_construct():
    raw = "<script>alert(1)</script> **b** [l](http://x) ![i](http://x/i.png) :red[r] $x$ `c` &lt; # h"
    out = formatting.md_escape(raw)
    for construct in ("<script>", "**b**", "[l](", "![i]", ":red[", "$x$", "`c`"):
        assert construct not in out
    assert "\\&lt;" in out  # an entity shows as typed instead of turning into "<"
    # Removing the escapes gives the original text back: nothing is lost, only made literal.
    assert out.replace("\\", "") == raw.replace("\\", "")
    assert formatting.md_escape(None) == ""


def test_parse_passages_and_errors():
    got = inputs.parse_passages("# comment\nE1 | Src | text with | a pipe\n\nE2|S2|t2")
    assert got == [{"id": "E1", "source": "Src", "text": "text with | a pipe"},
                   {"id": "E2", "source": "S2", "text": "t2"}]
    with pytest.raises(CaseError, match="passage line 2"):
        inputs.parse_passages("E1 | S | t\nE2 | no text")


def test_passages_from_upload_formats():
    case_json = json.dumps({"evidence": [{"id": "A", "source": "s", "text": "t"}]}).encode()
    assert inputs.passages_from_upload("case.json", case_json)[0]["id"] == "A"
    assert inputs.passages_from_upload("p.csv", b"id,source,text\nB,s,t\n")[0] == {"id": "B", "source": "s", "text": "t"}
    assert inputs.passages_from_upload("p.txt", b"C | s | t")[0]["id"] == "C"
    with pytest.raises(CaseError, match="missing text"):
        inputs.passages_from_upload("p.csv", b"id,source\nB,s\n")
    with pytest.raises(CaseError, match="invalid JSON"):
        inputs.passages_from_upload("p.json", b"{")


def test_build_case_is_stable_and_validated():
    passages = [{"id": "E1", "source": "s", "text": "t"}]
    a = inputs.build_case("Q?", passages)
    assert a.id == inputs.build_case("Q?", passages).id != inputs.build_case("Other?", passages).id
    assert a.title == "Q?"
    with pytest.raises(CaseError, match="question"):
        inputs.build_case("  ", passages)
    with pytest.raises(CaseError, match="at least one evidence passage"):
        inputs.build_case("Q?", [])


def test_claim_rows_mark_unknown_evidence_as_unverified():
    case = small_case().model_dump()
    claims = [
        {"round": 1, "agent": "nla", "claim_id": "C1", "statement": "s", "evidence": ["E1"], "verified": 1},
        {"round": 1, "agent": "nla", "claim_id": "C2", "statement": "s", "evidence": ["E1", "E99"],
         "verified": 0, "unverified_evidence": ["E99"]},
        {"round": 1, "agent": "nla", "claim_id": "C3", "statement": "s", "evidence": []},
    ]
    rows = views.claim_rows(claims, case)
    assert [r["verified"] for r in rows] == ["✔ verified", "✘ unverified: E99", "✘ no evidence"]
    assert rows[0]["passages"] == "[E1] Blood relatives inherit in equal shares."


def test_critique_groups_by_target_claim_worst_first():
    crit = [
        {"target": "ala", "target_claim_id": "C1", "severity": "MINOR", "round": 1},
        {"target": "nla", "target_claim_id": "C2", "severity": "MAJOR", "round": 1},
        {"target": "ala", "target_claim_id": "C1", "severity": "CRITICAL", "round": 2},
    ]
    groups = cc_rows.critique_groups(crit)
    assert [(g["target"], g["claim"], g["worst"]) for g in groups] == [("ala", "C1", "CRITICAL"), ("nla", "C2", "MAJOR")]
    assert [c["severity"] for c in groups[0]["critiques"]] == ["CRITICAL", "MINOR"]


def test_word_diff():
    assert word_diff("a b c", "a x c") == [("=", "a"), ("-", "b"), ("+", "x"), ("=", "c")]
    md = formatting.diff_markdown(word_diff("<b>", "<i>"))
    assert "<b>" not in md and ":red[~~\\<b\\>~~]" in md


def test_trajectory_falls_back_to_round_closed_events():
    events = [{"kind": "round_closed", "data": {"round": 1, "metrics": {"severity": {"MAJOR": 2}}}},
              {"kind": "warning", "data": {}}]
    assert views.trajectory({"trajectory": []}, events) == [{"round": 1, "severity": {"MAJOR": 2}}]
    stored = [{"round": 2, "jaccard": 0.9}, {"round": 1, "jaccard": 0.5}]
    assert [t["round"] for t in views.trajectory({"trajectory": stored}, events)] == [1, 2]
    assert views.series(stored, "jaccard") == [{"round": 2, "name": "jaccard", "value": 0.9},
                                                {"round": 1, "name": "jaccard", "value": 0.5}]


def test_display_status():
    assert formatting.display_status({"status": "running"}) == "running"
    # The moderator's outcome; "escalated" belongs to the review state only.
    assert formatting.display_status({"status": "completed", "needs_human_review": True, "converged": True}) == (
        "flagged for a human")
    assert formatting.display_status({"status": "completed", "converged": True}) == "converged"
    assert formatting.display_status({"status": "completed"}) == "not converged"
    assert formatting.review_label("escalated") == "escalated to a supervisor"
    assert formatting.review_label(None) == "awaiting review"
    assert formatting.display_status({"status": "failed"}) == "failed"


def test_overall_analytics_and_token_quartiles_are_computed_by_the_store(make_debate, db_path):
    ids = [make_debate(small_case(), p) for p in ("cross_critique", "cross_critique", "dialectic")]
    store = DebateStore(db_path)
    store.review(ids[0], action="accept", reviewer="ann")
    store.review(ids[1], action="override", reviewer="ann", answer="x", reason="y")
    debates = store.list_debates(limit=100)
    overall = store.analytics_overall()
    assert overall["debates"] == 3 and overall["completed"] == 3 and overall["reviewed"] == 2
    assert overall["override_rate"] == pytest.approx(0.5) and overall["agreement_rate"] == pytest.approx(0.5)
    tokens = [d["input_tokens"] + d["output_tokens"] for d in debates]
    assert overall["tokens_per_debate"] == pytest.approx(sum(tokens) / 3)
    quartiles = {q["protocol"]: q for q in store.token_quartiles()}
    cc = sorted(d["input_tokens"] + d["output_tokens"] for d in debates if d["protocol"] == "cross_critique")
    assert (quartiles["cross_critique"]["low"], quartiles["cross_critique"]["high"]) == (cc[0], cc[-1])
    assert quartiles["cross_critique"]["median"] == cc[0]  # the lower middle of two
    assert quartiles["dialectic"]["debates"] == 1


def test_zip_files_is_deterministic():
    files = {"b.json": "{}", "a.md": "# x"}
    data = views.zip_files(files)
    assert data == views.zip_files(dict(reversed(list(files.items()))))
    assert zipfile.ZipFile(io.BytesIO(data)).namelist() == ["a.md", "b.json"]


def test_protocol_catalogue_lists_every_protocol_with_defaults():
    cat = {p["name"]: p for p in protocol_choices.protocol_catalogue()}
    assert set(cat) == {"cross_critique", "panel", "refinement", "dialectic", "arbitration"}
    assert [a["id"] for a in cat["cross_critique"]["agents"]] == ["proponent", "skeptic"]
    assert cat["cross_critique"]["max_rounds"] == 3


def test_contradiction_rows_join_findings_and_rulings():
    debate = {"result": {"contradictions": [{
        "index": 1, "metric_name": "unemployment", "severity": "high", "reasons": ["values differ by 20%"],
        "agent1_name": "A", "agent1_value": 0.1, "agent1_unit": "%", "agent1_citation": "GCC-STAT",
        "agent2_name": "B", "agent2_value": 0.12, "agent2_unit": "%", "agent2_citation": "World Bank"}]}}
    steps = [{"step_id": "c1.arbitrate.arbiter", "stage": "arbitrate", "status": "ok", "seq": 1, "call": 1,
              "output": {"resolution": "both_valid", "action": "use_both", "recommended_value": 0.12,
                         "confidence": 0.8, "explanation": "Different periods."}}]
    [row] = get_spec("arbitration").rows["contradictions"](debate, steps)
    assert (row["metric"], row["agent1"], row["agent2"]) == ("unemployment", "A: 0.1% (GCC-STAT)", "B: 0.12% (World Bank)")
    assert (row["resolution"], row["action"], row["recommended_value"]) == ("both_valid", "use_both", "0.12")


def test_every_per_round_measure_gets_a_plot():
    from ui import plots

    traj = [
        {"round": 1, "severity": {"CRITICAL": 1, "MAJOR": 2, "MINOR": 0}, "answer_change": {"nla": 0.4},
         "open_severity": {"CRITICAL": 0, "MAJOR": 1}, "polarity_balance": {"positive": 1.0, "negative": 0.6},
         "stage": "revision", "converged": False},
        {"round": 2, "severity": {"CRITICAL": 0, "MAJOR": 1, "MINOR": 1}, "answer_change": {"nla": 0.1},
         "open_severity": {"CRITICAL": 0, "MAJOR": 0}, "polarity_balance": {"positive": 1.0, "negative": 0.6},
         "stage": "revision", "converged": True},
    ]
    figs = dict(plots.trajectory_figures(traj))
    assert set(figs) == {"severity", "answer_change", "open_severity", "polarity_balance"}
    assert [t.name for t in figs["open_severity"].data] == ["CRITICAL", "MAJOR", "MINOR"]
    assert list(figs["answer_change"].data[0].y) == [40.0, 10.0]
    assert plots.trajectory_figures([]) == []
