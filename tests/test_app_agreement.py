"""The Analytics page's agreement section (ui/agreement.py): a sentence with little data, the table
per critique severity once enough debates are decided, and the labelled cases to download."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from debate_core.core.cases import load_case
from debate_core.store import DebateStore

CASES = Path(__file__).resolve().parent.parent / "data" / "cases"
# Offline cross-critique debates on these sample cases raise critiques whose worst is critical, major, minor.
CRITICAL, MAJOR, MINOR = (load_case(CASES / f"{n}.json") for n in (
    "adat_minangkabau_inheritance", "documents_bill_of_rights", "adat_bali_daughter_heir"))


def _section(app) -> tuple[list[str], list]:
    """The captions after the section's heading, and its dataframes."""
    heads = [h.value for h in app.subheader]
    assert "Agreement on verdicts" in heads
    return [c.value for c in app.caption], [d for d in app.dataframe
                                            if "most severe critique" in d.value.columns]


def _open(app):
    app.run()
    app.switch_page("pages/analytics.py").run()
    assert not app.exception
    return app


def test_with_few_decided_debates_a_sentence_stands_in_for_the_table(app, make_debate, db_path):
    a, b = make_debate(CRITICAL), make_debate(MAJOR)
    make_debate(MINOR)  # not reviewed
    store = DebateStore(db_path)
    store.review(a, action="accept", reviewer="ann")
    store.review(b, action="override", reviewer="bob", answer="Reduced to one quarter.", reason="Not void.")
    store.close()
    captions, tables = _section(_open(app))
    assert tables == []
    assert any(c.startswith("Only 2 decided debates so far: reviewers kept the moderator's answer in 1.")
               for c in captions)
    assert app.get("download_button")[0].proto.label == "Download the decided debates as labelled cases"
    # The page's charts are untouched: the section draws none.
    assert "a-agreement" not in {c.key for c in app.get("plotly_chart")}


def test_the_table_per_severity_and_the_download(app, make_debate, db_path):
    ids = [make_debate(case) for case in (CRITICAL, CRITICAL, MAJOR, MAJOR, MINOR, MINOR)]
    store = DebateStore(db_path)
    store.review(ids[0], action="accept", reviewer="ann")
    store.review(ids[0], action="undo", reviewer="ann")
    store.review(ids[0], action="override", reviewer="bob", answer="The kaum's land.", reason="Pusaka tinggi.")
    store.review(ids[1], action="accept", reviewer="ann")
    store.review(ids[2], action="accept", reviewer="bob")
    store.review(ids[3], action="override", reviewer="bob", answer="Reduced to one quarter.", reason="Not void.")
    store.review(ids[4], action="escalate", reviewer="ann", reason="Adat against national law.")
    store.review(ids[4], action="approve", reviewer="sue", supervisor=True)
    # ids[5] stays pending: not decided
    store.close()
    captions, tables = _section(_open(app))
    assert len(tables) == 1
    rows = {r["most severe critique"]: r for r in tables[0].value.to_dict("records")}
    assert list(rows) == ["critical", "major", "minor", "all decided debates"]
    assert rows["critical"]["decided debates"] == 2 and rows["critical"]["moderator's answer kept"] == 1
    assert rows["critical"]["reviewer and moderator agree"] == "50%"
    assert rows["critical"]["decided by two people"] == 1 and rows["critical"]["reviewers agree"] == "0%"
    assert rows["major"]["reviewer and moderator agree"] == "50%" and rows["major"]["reviewers agree"] == "–"
    assert rows["minor"]["decided debates"] == 1 and rows["minor"]["reviewer and moderator agree"] == "100%"
    assert rows["all decided debates"]["decided debates"] == 5
    assert rows["all decided debates"]["reviewer and moderator agree"] == "60%"
    assert any(c.startswith("Kept: accepted, or approved by a supervisor") for c in captions)

    from ui.agreement import labelled_zip

    with zipfile.ZipFile(io.BytesIO(labelled_zip(False))) as zf:
        names = sorted(zf.namelist())
        cases = [json.loads(zf.read(n)) for n in names]
    assert len(names) == 5 and all(n.endswith(".json") for n in names)
    by_debate = {c["expected"]["review"]["debate_id"]: c["expected"] for c in cases}
    assert by_debate[ids[3]]["reference"] == "Reduced to one quarter."
    assert by_debate[ids[4]]["needs_human_review"] is True and ids[5] not in by_debate
