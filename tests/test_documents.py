"""Documents become cited passages: pages for a PDF, heading paths for Word, HTML and Markdown,
stable ids, a BM25 selection when they are more than a case holds, and one clear line for a bad file."""

from __future__ import annotations

import pytest

from debate_core.core.documents import NO_TEXT, DocumentError, read_document, read_documents, selection_note
from debate_core.core.documents.passages import MAX_CHARS
from tests import documents_support as make

LONG = ("The testator must sign the will at its end in the presence of two witnesses, who sign it in turn. "
        * 20).strip()


def test_a_pdf_gives_passages_with_their_pages_and_stable_ids():
    data = make.pdf([["Article 1. Every person has the right to life, liberty and security of person, in law "
                      "and in fact.",
                      "Article 2. No one shall be held in slavery or servitude; slavery and the slave trade are "
                      "prohibited."],
                     ["Article 3. Everyone has the right to recognition everywhere as a person before the law."],
                     [LONG]], title="Model Statute")
    doc = read_document("Model Statute 2024.pdf", data)
    assert doc.kind == "PDF" and doc.title == "Model Statute"
    got = [(p["id"], p["page"], p["text"][:10]) for p in doc.passages]
    assert got[:3] == [("model-statute-2024-p1-1", 1, "Article 1."), ("model-statute-2024-p1-2", 1, "Article 2."),
                       ("model-statute-2024-p2-1", 2, "Article 3.")]
    # The long paragraph on page 3 is cut at sentence ends into pieces no longer than the maximum.
    page3 = [p for p in doc.passages if p["page"] == 3]
    assert len(page3) >= 2 and all(len(p["text"]) <= MAX_CHARS for p in page3)
    assert all(p["text"].endswith("in turn.") for p in page3)
    assert " ".join(p["text"] for p in page3) == LONG
    assert {p["source"] for p in doc.passages} == {"Model Statute"}
    assert {p["document"] for p in doc.passages} == {"Model Statute 2024.pdf"}
    # The same file always gives the same ids.
    assert [p["id"] for p in read_document("Model Statute 2024.pdf", data).passages] == [p["id"] for p in doc.passages]


def test_a_pdf_without_a_title_is_cited_by_its_file_name():
    doc = read_document("bulletin.pdf", make.pdf([["Unemployment fell to 4.1 percent in the third quarter."]]))
    assert [(p["id"], p["source"], p["page"]) for p in doc.passages] == [("bulletin-p1-1", "bulletin.pdf", 1)]


def test_a_word_document_gives_sections_from_its_headings():
    data = make.docx([("H1", "Estates Act"), ("", "This Act governs wills and intestacy in the province."),
                      ("H2", "Part 2"), ("H3", "Wills"),
                      ("", "A will must be in writing and signed by the testator before two witnesses."),
                      ("H3", "Intestacy"), ("", "Where there is no will, the estate passes to the next of kin.")],
                     title="Estates Act 1990")
    doc = read_document("estates.docx", data)
    assert doc.kind == "Word" and doc.title == "Estates Act 1990"
    assert [(p["id"], p["section"]) for p in doc.passages] == [
        ("estates-s1-1", "Estates Act"), ("estates-s3-1", "Estates Act > Part 2 > Wills"),
        ("estates-s4-1", "Estates Act > Part 2 > Intestacy")]
    assert doc.passages[1]["text"].startswith("A will must be in writing")
    assert all("page" not in p for p in doc.passages)


def test_html_drops_scripts_styles_and_navigation_and_keeps_its_headings():
    page = (b"<html><head><title>Runbook: disk full</title><style>p{}</style></head><body>"
            b"<nav><a href='/'>Home</a> menu text</nav><script>alert('x')</script>"
            b"<h1>Disk full</h1><h2>Symptoms</h2><p>The service logs <b>No space left on device</b> and stops "
            b"writing new records to the journal.</p><h2>Fix</h2><ul><li>Rotate the logs and restart the "
            b"collector, then check the free space again.</li></ul></body></html>")
    doc = read_document("runbook.html", page)
    assert doc.title == "Runbook: disk full"
    assert [(p["id"], p["section"]) for p in doc.passages] == [
        ("runbook-s2-1", "Disk full > Symptoms"), ("runbook-s3-1", "Disk full > Fix")]
    assert doc.passages[0]["text"] == ("The service logs No space left on device and stops writing new records "
                                       "to the journal.")
    text = " ".join(p["text"] for p in doc.passages)
    assert "alert" not in text and "menu text" not in text


def test_markdown_takes_its_title_from_the_first_heading():
    md = ("# Incident 42\n\nSummary paragraph of the incident, written the day after by the on-call engineer.\n\n"
          "## Timeline\n\n- 09:12 the *primary* database stopped accepting writes after the disk filled up.\n\n"
          "## Cause\n\nA [backup job](http://example.invalid) wrote its archive to the data volume.\n")
    doc = read_document("incident.md", md.encode())
    assert doc.title == "Incident 42"
    assert [(p["id"], p["section"]) for p in doc.passages] == [
        ("incident-s1-1", "Incident 42"), ("incident-s2-1", "Incident 42 > Timeline"),
        ("incident-s3-1", "Incident 42 > Cause")]
    assert doc.passages[1]["text"].startswith("09:12 the primary database")
    assert doc.passages[2]["text"] == "A backup job wrote its archive to the data volume."


def test_plain_text_is_cut_at_blank_lines():
    text = ("First paragraph about the lease, which runs for five years from the first of May.\n\n"
            "Second paragraph: the tenant may end it early with three months' notice in writing.\n")
    doc = read_document("lease.txt", text.encode())
    assert [(p["id"], p["source"]) for p in doc.passages] == [("lease-1", "lease.txt"), ("lease-2", "lease.txt")]
    assert "section" not in doc.passages[0] and "page" not in doc.passages[0]


def test_two_files_with_the_same_stem_get_distinct_ids():
    docs = read_documents([("act.txt", b"A paragraph long enough to stand as a passage on its own, surely."),
                           ("act.md", b"Another paragraph long enough to stand as a passage on its own.")],
                          question="act")
    assert [p["id"] for p in docs.passages] == ["act-1", "act-2-1"]
    assert docs.selection is None


def test_bm25_keeps_the_relevant_passages_of_a_long_document_in_their_order():
    filler = ("Paragraph {n} describes the maintenance schedule of the municipal parks, the mowing of lawns "
              "and the pruning of hedges in spring.")
    relevant = {57: "The quarantine of imported cattle lasts twenty-one days at the border station of entry.",
                140: "Cattle imported without a veterinary certificate are refused at the border station.",
                233: "A quarantine for cattle may be extended when a veterinary inspection finds disease."}
    paragraphs = [relevant.get(n, filler.format(n=n)) for n in range(300)]
    pages = [paragraphs[i:i + 10] for i in range(0, 300, 10)]
    docs = read_documents([("rules.pdf", make.pdf(pages))],
                          question="How long is the quarantine of imported cattle at the border?", max_passages=3)
    assert docs.total == 300
    assert [p["text"] for p in docs.passages] == [relevant[57], relevant[140], relevant[233]]
    assert [p["page"] for p in docs.passages] == [6, 15, 24]
    assert docs.selection["kept"] == 3 and docs.selection["of"] == 300 and len(docs.selection["left_out"]) == 297
    case = docs.case()
    assert [e.id for e in case.evidence] == [p["id"] for p in docs.passages]
    assert selection_note(case) == ("evidence was selected: 3 of 300 passages, ranked by relevance to the question")


def test_the_case_bound_on_passages_applies_without_max_passages(monkeypatch):
    monkeypatch.setenv("DEBATE_MAX_PASSAGES", "4")
    topics = ["the tonnage of ships"] * 12
    topics[7] = "the pilotage fees charged to ships"
    docs = read_documents([("long.txt", "\n\n".join(f"Paragraph number {n} of a long report about the harbour "
                                                     f"and {topic}, as the port authority recorded it." for n, topic in enumerate(topics)).encode())],
                          question="What pilotage fees does the harbour charge?")
    assert len(docs.passages) == 4 and docs.total == 12
    assert "long-8" in [p["id"] for p in docs.passages]  # the eighth paragraph, the one on pilotage


def test_pasted_passages_count_against_the_bound():
    pasted = [{"id": f"E{i}", "source": "memo", "text": "x"} for i in range(3)]
    docs = read_documents([("notes.txt", b"One paragraph of notes that stands on its own.\n\nAnother one here.")],
                          question="notes", max_passages=4, alongside=pasted)
    assert len(docs.passages) == 1


@pytest.mark.parametrize("name, data, expected", [
    ("locked.pdf", make.encrypted_pdf(make.pdf([["Secret text of the locked document."]])),
     "locked.pdf is protected by a password"),
    ("scan.pdf", make.image_only_pdf(), f"scan.pdf: {NO_TEXT}"),
    ("cut.pdf", make.pdf([["A complete page of text that is then cut short."]] * 3)[:900],
     "cut.pdf is damaged or incomplete: it cannot be read as a PDF"),
    ("garbled.pdf", b"%PDF-1.4\n1 0 obj garbage << /Pages 7 0 R >>\ntrailer << /Root 1 0 R >>\n%%EOF\n",
     "garbled.pdf is damaged or incomplete: it cannot be read as a PDF"),
    ("cut.docx", make.docx([("", "Some text in a Word document that is then cut short.")])[:3000],
     "cut.docx is damaged or incomplete: it cannot be read as a Word document"),
    ("notes.rtf", b"{\\rtf1 text}", "notes.rtf: .rtf files are not supported; the supported types are PDF (.pdf), "
     "Word (.docx), HTML (.html, .htm), Markdown (.md) and text (.txt)"),
    ("binary.txt", b"text\x00with a NUL", "binary.txt contains a NUL byte (at byte 4): it is not a text file"),
    ("empty.md", b"# Only a heading\n", "empty.md has no text to cite"),
])
def test_a_bad_document_is_one_clear_line(name, data, expected):
    with pytest.raises(DocumentError) as caught:
        read_documents([(name, data)], question="what does it say?")
    assert str(caught.value).startswith(expected)
    assert "\n" not in str(caught.value)


def test_a_zip_bomb_docx_is_refused_before_it_is_opened(monkeypatch):
    monkeypatch.setenv("DEBATE_MAX_FILE_BYTES", "2000000")
    bomb = make.zip_bomb_docx(5_000_000)
    assert len(bomb) < 20_000
    with pytest.raises(DocumentError, match=r"bomb.docx unpacks to 5 MB, over the limit of 2 MB for a document "
                                            r"\(set DEBATE_MAX_FILE_BYTES to raise it\); it was not opened"):
        read_document("bomb.docx", bomb)


def test_an_oversize_file_is_refused_by_its_size_before_parsing(monkeypatch, tmp_path):
    monkeypatch.setenv("DEBATE_MAX_FILE_BYTES", "1000")
    path = tmp_path / "big.pdf"
    path.write_bytes(b"not even a PDF " * 100)  # over the bound: refused before anything reads it as a PDF
    with pytest.raises(DocumentError, match=r"big.pdf is 1.5 KB; the limit is 1 KB \(set DEBATE_MAX_FILE_BYTES"):
        read_documents([path], question="q")
    with pytest.raises(DocumentError, match=r"^big.pdf is 1.5 KB; the limit is 1 KB"):
        read_documents([("big.pdf", path.read_bytes())], question="q")
