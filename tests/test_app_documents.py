"""New debate, "Write a question": documents uploaded become cited passages, previewed as text, with
the selection said when the case cannot hold them all; a bad document is a form message and nothing
is saved. The debate page then cites the passages by page. AppTest drives `st.file_uploader` here."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from debate_core.core.cases import load_case
from debate_core.core.documents import NO_TEXT
from debate_core.jobs import worker
from debate_core.store import DebateStore
from tests import documents_support as make

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_PDF = ROOT / "data" / "documents" / "bill_of_rights.pdf"
SAMPLE_CASE = ROOT / "data" / "cases" / "documents_bill_of_rights.json"
QUESTION = "May soldiers be quartered in a private house in time of peace without the owner's consent?"
HOSTILE = "<script>alert('x')</script> **bold** [link](http://example.invalid) is written here as plain words."


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _own(app: AppTest, question: str = QUESTION) -> None:
    app.run()
    app.radio(key="nd-source").set_value("own").run()
    app.text_area(key="nd-question").set_value(question)


def _texts(app: AppTest) -> list[str]:
    return [t.value for t in app.text]


def test_uploaded_documents_are_previewed_and_become_the_case(app, db_path):
    _own(app)
    app.file_uploader(key="nd-documents").upload("bill_of_rights.pdf", SAMPLE_PDF.read_bytes(), "application/pdf")
    notes = make.docx([("H1", "Notes"), ("H2", "Quartering"),
                       ("", "The owner of the house never agreed to lodge the two soldiers. " + HOSTILE)])
    app.file_uploader(key="nd-documents").upload("notes.docx", notes, "application/octet-stream")
    app.run()
    _ok(app)
    headers = [m.value.replace("\\", "") for m in app.markdown if "passage(s)" in m.value]
    assert "**The Bill of Rights (Amendments I-X to the Constitution of the United States)** · bill_of_rights.pdf " \
           "(PDF) · 10 passage(s)" in headers, headers
    assert "**notes.docx** (Word) · 1 passage(s)" in headers, headers
    # The first passages, as text: the hostile markup is shown as it is written, never rendered.
    texts = _texts(app)
    assert any(t.startswith("Amendment II A well regulated Militia") for t in texts)
    assert any(HOSTILE in t for t in texts)
    captions = [c.value.replace("\\", "") for c in app.caption]
    assert "bill-of-rights-p1-1 · The Bill of Rights (Amendments I-X to the Constitution of the United States), " \
           "page 1" in captions, captions
    assert "notes-s2-1 · notes.docx, section Notes > Quartering" in captions, captions
    assert not [e.value for e in app.error]
    app.button(key="nd-start").click().run()
    _ok(app)
    debate_id = app.session_state["debate_id"]
    assert worker.wait(debate_id, 60)
    case = DebateStore(db_path, readonly=True).get_debate(debate_id)["case"]
    assert len(case["evidence"]) == 11 and "evidence_selection" not in case
    third = next(e for e in case["evidence"] if e["id"] == "bill-of-rights-p1-3")
    assert third["page"] == 1 and third["document"] == "bill_of_rights.pdf"
    assert next(e for e in case["evidence"] if e["id"] == "notes-s2-1")["section"] == "Notes > Quartering"


def test_more_passages_than_the_case_holds_are_selected_and_the_count_shown(app, db_path, monkeypatch):
    monkeypatch.setenv("DEBATE_MAX_PASSAGES", "3")
    _own(app)
    app.file_uploader(key="nd-documents").upload("bill_of_rights.pdf", SAMPLE_PDF.read_bytes(), "application/pdf")
    app.run()
    _ok(app)
    info = [i.value for i in app.info if "passages kept" in i.value]
    assert len(info) == 1 and info[0].startswith("3 of 10 passages kept") and "7 left out" in info[0], info
    assert any("10 passage(s), 3 kept" in m.value for m in app.markdown)
    assert not [e.value for e in app.error]
    app.button(key="nd-start").click().run()
    _ok(app)
    debate_id = app.session_state["debate_id"]
    assert worker.wait(debate_id, 60)
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert debate["case"]["evidence_selection"]["kept"] == 3 and debate["case"]["evidence_selection"]["of"] == 10
    assert "bill-of-rights-p1-3" in [e["id"] for e in debate["case"]["evidence"]]
    assert "evidence was selected: 3 of 10 passages, ranked by relevance to the question" in debate["warnings"]


def test_a_bad_document_is_a_form_message_and_nothing_is_saved(app, db_path):
    _own(app)
    app.file_uploader(key="nd-documents").upload("scan.pdf", make.image_only_pdf(), "application/pdf")
    app.run()
    _ok(app)
    errors = [e.value.replace("\\", "") for e in app.error]
    assert errors == [f"scan.pdf: {NO_TEXT}"], errors
    assert app.text_area(key="nd-question").value == QUESTION, "nothing is lost from the form"
    assert app.button(key="nd-start").disabled
    app.file_uploader(key="nd-documents").clear()
    app.file_uploader(key="nd-documents").upload("locked.pdf", make.encrypted_pdf(make.pdf([["Text."]])),
                                                 "application/pdf")
    app.run()
    errors = [e.value.replace("\\", "") for e in app.error]
    assert any(e.startswith("locked.pdf is protected by a password") for e in errors), errors
    assert app.button(key="nd-start").disabled
    assert DebateStore(db_path).count_debates() == 0


def test_the_debate_page_cites_a_passage_by_its_page(app, make_debate):
    debate_id = make_debate(load_case(SAMPLE_CASE))
    app.run()
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    app.run()
    _ok(app)
    cited = [m.value for m in app.markdown if "bill\\-of\\-rights\\-p1\\-3" in m.value]
    assert any("page 1" in m for m in cited), cited
