"""Claim and critique annotations: references, the store, the audit trail, exports, the CLI and the app."""

from __future__ import annotations

import csv
import io
import json

import pytest
from helpers import (
    ALA_R1,
    NLA_R1,
    SUPERVISOR,
    agent_output,
    cassette,
    claim,
    critique,
    critiques,
    open_tab,
    small_case,
)
from streamlit.testing.v1 import AppTest

from debate_core import cli
from debate_core.core import annotation_rules as rules
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.present import export
from debate_core.providers import ReplayProvider
from debate_core.store import DebateStore, NotFound

PAIR = [{"id": "nla"}, {"id": "ala"}]


def _resolved(*ids: str) -> dict:
    """A round-2 critique step that raises nothing new and settles the critic's earlier critiques."""
    return {"critiques": [], "previous": [{"id": i, "status": "resolved", "note": "answered by the revision"}
                                          for i in ids]}


def scripted_calls() -> list[tuple[str, dict]]:
    """Two rounds between nla and ala, both making claims C1 and C2 in each round. ala's round-1
    critique of nla first comes back with fewer critiques than the minimum, so it is asked again
    and its second reply (CRITICAL K1) is the one the debate uses; nla raises MAJOR K1 and K2 on ala.
    Round 2 settles every critique, so the debate ends there."""
    nla_r2 = agent_output("Revised: the estate is divided equally, outside the kaum's pusaka tinggi.",
                          [claim("C1", ["E1"], 0.6, "Revised C1 of nla"), claim("C2", ["E2"], 0.6, "Revised C2 of nla")])
    ala_r2 = agent_output("Revised: the sawah stays with the kaum; other property is divided.",
                          [claim("C1", ["E3"], 0.8, "Revised C1 of ala"), claim("C2", ["E4"], 0.8, "Revised C2 of ala")])
    return [
        ("r1.answer.nla", NLA_R1),
        ("r1.answer.ala", ALA_R1),
        ("r1.critique.nla.ala", critiques(critique("K1", "C1", "MAJOR", "conflict"), critique("K2", "C2", "MAJOR"),
                                          critique("K3", "C2"))),
        ("r1.critique.ala.nla", critiques(critique("K1", "C1", "CRITICAL"))),
        ("r1.critique.ala.nla", critiques(critique("K1", "C1", "CRITICAL"), critique("K2", "C2"), critique("K3", "C2"))),
        ("r2.revise.nla", nla_r2),
        ("r2.revise.ala", ala_r2),
        ("r2.critique.nla.ala", _resolved("K1", "K2")),
        ("r2.critique.ala.nla", _resolved("K1")),
        ("final.supervisor", SUPERVISOR),
    ]


def with_usage(data: dict) -> dict:
    """Each call reports its own token use (different per call), so cost figures have something to price."""
    for i, call in enumerate(data["calls"]):
        call["usage"] = {"input_tokens": 1000 + 100 * i, "output_tokens": 200 + 30 * i}
    return data


def run_scripted(store: DebateStore, case=None, protocol: str = "cross_critique", data: dict | None = None,
                 **settings) -> str:
    """Run a debate on the replay provider into `store`; by default the scripted nla/ala debate above."""
    if data is None:
        data, settings = cassette(scripted_calls()), {"agents": PAIR, **settings}
    result = run_debate(case or small_case(), protocol, provider=ReplayProvider(with_usage(data)),
                        settings=DebateSettings(**settings), store=store)
    assert result.status == "completed", result.error
    return result.debate_id


def debate_in(db_path, **kwargs) -> str:
    store = DebateStore(db_path)
    try:
        return run_scripted(store, **kwargs)
    finally:
        store.close()


@pytest.fixture
def debate(tmp_path):
    """A two-round cross-critique debate (claims in both rounds, one critique step re-asked)."""
    store = DebateStore(tmp_path / "d.db")
    did = run_scripted(store)
    yield store, did
    store.close()


def test_references_name_claims_and_critiques_as_the_app_shows_them(debate):
    store, did = debate
    claims, critiques = store.claims(did), store.critiques(did)
    refs = [t.ref for t in rules.claim_targets(claims)]
    # Every agent made C1 in both rounds: each version carries its round.
    assert "r1:nla.C1" in refs and "r2:nla.C1" in refs and "nla.C1" not in refs
    # The bare form names the latest round's version.
    assert rules.resolve("claim", "nla.C1", claims).step_id == "r2.revise.nla"
    assert rules.resolve("claim", "r1:nla.C1", claims).step_id == "r1.answer.nla"
    # A re-asked critique step: the reference names the last call's row, the one the debate used.
    twice = [k for k in critiques if k["step_id"] == "r1.critique.ala.nla" and k["critique_id"] == "K1"]
    assert sorted(k["call"] for k in twice) == [1, 2]
    target = rules.resolve("critique", "ala->nla:K1", critiques)
    assert (target.step_id, target.call, target.severity) == ("r1.critique.ala.nla", 2, twice[-1]["severity"])
    crit_refs = [t.ref for t in rules.critique_targets(critiques)]
    assert len(crit_refs) == len(set(crit_refs)) == len({(k["step_id"], k["critique_id"]) for k in critiques})
    with pytest.raises(rules.AnnotationError, match=r"no claim 'nla\.C9'.*valid: .*nla\.C1"):
        rules.resolve("claim", "nla.C9", claims)
    with pytest.raises(rules.AnnotationError, match="valid: correct, incorrect, unsupported, needs_source"):
        rules.check_label("claim", "valid")
    with pytest.raises(rules.AnnotationError, match="valid: CRITICAL, MAJOR, MINOR"):
        rules.check_label("critique", "valid", "huge")
    assert rules.check_label("claim", "needs source") == ("needs_source", None)
    assert rules.check_label("critique", "Valid", "major") == ("valid", "MAJOR")


def test_store_round_trip_audit_trail_and_version(debate):
    store, did = debate
    version = store.get_debate(did, with_steps=False)["version"]
    a = store.annotate(did, kind="claim", ref="nla.C1", label="incorrect", reviewer="Ann",
                       comment="The civil code does not reach pusaka tinggi.")
    b = store.annotate(did, kind="critique", ref="ala->nla:K1", label="valid", severity="minor", reviewer="bob")
    got = store.get_debate(did)
    assert [(x["ref"], x["label"], x["reviewer"], x["comment"]) for x in got["annotations"]] == [
        ("r2:nla.C1", "incorrect", "Ann", "The civil code does not reach pusaka tinggi."),
        ("ala->nla:K1", "valid", "bob", None)]
    assert b["severity"] == "MINOR" and b["item_severity"] == "CRITICAL" and a["ts"]
    # Each annotation is a line of the audit trail; the verdict's state and version are untouched.
    audit = [r for r in got["reviews"] if r["action"] == "annotate"]
    assert [r["reason"] for r in audit] == [
        "claim r2:nla.C1 marked incorrect: The civil code does not reach pusaka tinggi.",
        "critique ala->nla:K1 marked valid (severity MINOR; the critic said CRITICAL)"]
    assert all(r["state_before"] == r["state_after"] == "pending" for r in audit)
    assert got["version"] == version
    store.review(did, action="accept", reviewer="ann", expected_version=version)
    with pytest.raises(rules.AnnotationError, match="no critique"):
        store.annotate(did, kind="critique", ref="nla.C1", label="valid", reviewer="ann")
    with pytest.raises(rules.AnnotationError, match="reviewer"):
        store.annotate(did, kind="claim", ref="nla.C1", label="correct", reviewer="  ")
    with pytest.raises(NotFound):
        store.annotate("nope", kind="claim", ref="nla.C1", label="correct", reviewer="ann")
    assert len(store.annotations(did)) == 2


def test_exports_carry_annotations_with_user_text_kept_inert(debate):
    store, did = debate
    hostile = "```\n# Forged heading\n=HYPERLINK(\"http://evil.example\")"
    store.annotate(did, kind="claim", ref="r1:ala.C2", label="needs_source", reviewer="ann", comment=hostile)
    store.annotate(did, kind="critique", ref="nla->ala:K1", label="invalid", reviewer="=bob")
    files = export.export_files(store, did)
    summary = json.loads(files["debate_summary.json"])
    assert [(a["ref"], a["label"], a["reviewer"]) for a in summary["annotations"]] == [
        ("r1:ala.C2", "needs_source", "ann"), ("nla->ala:K1", "invalid", "=bob")]
    assert "id" not in summary["annotations"][0]
    md = files["transcript.md"]
    assert "## Annotations" in md
    assert "\n# Forged heading" in md  # inside a fence longer than the text's own backtick run
    assert "````text\n" + hostile + "\n````" in md
    assert "\\=bob" in md
    rows = list(csv.DictReader(io.StringIO(export.claims_csv(store, did))))
    marks = [r for r in rows if r["kind"].endswith("annotation")]
    assert [(r["kind"], r["ref"], r["state"], r["reviewer"]) for r in marks] == [
        ("claim annotation", "r1:ala.C2", "needs_source", "ann"),
        ("critique annotation", "nla->ala:K1", "invalid", "'=bob")]
    assert marks[0]["text"].startswith("```") and marks[0]["time"]
    assert all(r["ref"] == "" for r in rows if not r["kind"].endswith("annotation"))


def test_cli_annotate_good_and_bad_refs(tmp_path, capsys):
    db = str(tmp_path / "cli.db")
    store = DebateStore(db)
    did = run_scripted(store)
    store.close()
    assert cli.main(["annotate", did, "--db", db, "--claim", "nla.C1", "--label", "incorrect",
                     "--comment", "wrong law", "--reviewer", "ann"]) == 0
    assert capsys.readouterr().out.strip() == f"{did}: claim r2:nla.C1 marked incorrect by ann"
    assert cli.main(["annotate", did, "--db", db, "--critique", "nla->ala:K1", "--label", "valid",
                     "--severity", "MAJOR", "--reviewer", "bob"]) == 0
    capsys.readouterr()

    assert cli.main(["annotate", did, "--db", db, "--claim", "zz.C1", "--label", "incorrect",
                     "--reviewer", "ann"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: no claim 'zz.C1'") and "nla.C1" in err
    assert cli.main(["annotate", did, "--db", db, "--critique", "nla->ala:K1", "--label", "correct",
                     "--reviewer", "ann"]) == 2
    err = capsys.readouterr().err
    assert err == "error: label 'correct' is not a critique label; valid: valid, invalid\n"
    assert cli.main(["annotate", did, "--db", db, "--claim", "nla.C1", "--critique", "nla->ala:K1",
                     "--label", "valid", "--reviewer", "ann"]) == 2
    capsys.readouterr()

    assert cli.main(["show", did, "--db", db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [(a["ref"], a["label"], a["severity"]) for a in shown["annotations"]] == [
        ("r2:nla.C1", "incorrect", None), ("nla->ala:K1", "valid", "MAJOR")]


def _open(app: AppTest, debate_id: str, reviewer: str = "ann") -> AppTest:
    app.run()
    app.session_state["reviewer_name"] = reviewer
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    app.run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def _table(app: AppTest, kind: str):
    return next(df.value for df in app.dataframe if {kind, "label", "reviewer"} <= set(df.value.columns))


def test_app_marks_a_claim_and_a_critique_and_a_later_reader_sees_them(app, db_path):
    did = debate_in(db_path)
    open_tab(_open(app, did, "ann"), "Claims")
    app.selectbox(key=f"ann-claim-ref-{did}").set_value("r1:nla.C2")
    app.radio(key=f"ann-claim-label-{did}").set_value("unsupported")
    app.text_area(key=f"ann-claim-comment-{did}").set_value("E2 says nothing about <b>sawah</b>")
    app.button(key=f"ann-claim-submit-{did}").click().run()
    assert not app.exception
    assert any("claim r1:nla.C2 marked unsupported by ann" in s.value.replace("\\", "") for s in app.success)
    open_tab(app, "Critiques")
    app.selectbox(key=f"ann-critique-ref-{did}").set_value("ala->nla:K1")
    app.radio(key=f"ann-critique-label-{did}").set_value("valid")
    app.selectbox(key=f"ann-critique-severity-{did}").set_value("MAJOR")
    app.button(key=f"ann-critique-submit-{did}").click().run()
    assert not app.exception

    store = DebateStore(db_path, readonly=True)
    saved = store.annotations(did)
    statement = next(c["statement"] for c in store.claims(did) if c["step_id"] == "r1.answer.nla"
                     and c["claim_id"] == "C2")
    store.close()
    assert [(a["ref"], a["label"], a["reviewer"], a["severity"]) for a in saved] == [
        ("r1:nla.C2", "unsupported", "ann", None), ("ala->nla:K1", "valid", "ann", "MAJOR")]

    # Another reviewer opening the debate later sees both marks beside what they judge.
    from streamlit.testing.v1 import AppTest as Fresh
    later = Fresh.from_file(app._script_path, default_timeout=60)
    open_tab(_open(later, did, "bob"), "Claims")
    claims = _table(later, "claim")
    assert claims.iloc[0][["reviewer", "claim", "label", "comment", "text"]].tolist() == [
        "ann", "r1:nla.C2", "unsupported", "E2 says nothing about <b>sawah</b>", statement]
    open_tab(later, "Critiques")
    crits = _table(later, "critique")
    assert crits.iloc[0][["critique", "label", "their severity", "critic's severity"]].tolist() == [
        "ala->nla:K1", "valid", "MAJOR", "CRITICAL"]
    audit = [df.value for df in later.dataframe if "action" in df.value.columns][0]
    assert list(audit["action"]).count("annotate") == 2


def test_app_refuses_a_mark_without_a_name(app, db_path):
    did = debate_in(db_path)
    open_tab(_open(app, did, ""), "Claims")
    assert any("Enter your name in the sidebar to mark a claim" in w.value for w in app.warning)
    assert app.button(key=f"ann-claim-submit-{did}").disabled
