"""`case new` and `run --question --evidence`: documents become a case at the command line, a debate
on it cites pages in `show` and in the exports, and a bad document is one line, exit 2, nothing saved."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from debate_core.cli import main
from debate_core.core.cases import load_case
from debate_core.store import DebateStore
from tests import documents_support as make

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_PDF = ROOT / "data" / "documents" / "bill_of_rights.pdf"
QUESTION = "May soldiers be quartered in a private house in time of peace without the owner's consent?"


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def statute(tmp_path: Path) -> Path:
    path = tmp_path / "statute.pdf"
    path.write_bytes(make.pdf([
        ["Section 1. This statute may be cited as the Housing of Troops Act and applies in peace and in war.",
         "Section 2. Definitions: a house includes any dwelling, its outbuildings and the land around it."],
        ["Section 3. No soldier shall be quartered in a private house in time of peace without the consent of "
         "the owner of the house.",
         "Section 4. In time of war soldiers may be quartered only in the manner the law prescribes."],
    ], title="Housing of Troops Act"))
    return path


def test_case_new_writes_a_case_with_pages(tmp_path, capsys):
    out = tmp_path / "case.json"
    code, stdout, stderr = cli(capsys, "case", "new", "--question", QUESTION, str(statute(tmp_path)),
                               "--title", "Quartering", "--out", str(out))
    assert code == 0, stderr
    assert stdout.strip() == f"wrote {out}: 4 passage(s) from 1 document(s)"
    assert "statute.pdf: 4 passage(s) (PDF, cited as 'Housing of Troops Act')" in stderr
    case = load_case(out)
    assert case.title == "Quartering" and case.question == QUESTION
    assert [(e.id, e.source, (e.model_extra or {})["page"]) for e in case.evidence] == [
        ("statute-p1-1", "Housing of Troops Act", 1), ("statute-p1-2", "Housing of Troops Act", 1),
        ("statute-p2-1", "Housing of Troops Act", 2), ("statute-p2-2", "Housing of Troops Act", 2)]
    assert "evidence_selection" not in (case.model_extra or {})


def test_case_new_with_max_passages_keeps_the_relevant_ones_and_records_the_rest(tmp_path, capsys):
    out = tmp_path / "case.json"
    code, _, stderr = cli(capsys, "case", "new", "--question", QUESTION, str(statute(tmp_path)),
                          "--max-passages", "1", "--out", str(out))
    assert code == 0, stderr
    assert "kept the 1 of 4 passages most relevant to the question; 3 left out" in stderr
    data = json.loads(out.read_text())
    assert [e["id"] for e in data["evidence"]] == ["statute-p2-1"]
    assert data["evidence_selection"] == {"kept": 1, "of": 4,
                                          "left_out": ["statute-p1-1", "statute-p1-2", "statute-p2-2"]}


def test_run_on_documents_cites_pages_in_show_and_export(tmp_path, capsys):
    db = tmp_path / "d.db"
    code, stdout, stderr = cli(capsys, "--db", str(db), "run", "--question", QUESTION, "--evidence", str(SAMPLE_PDF),
                               "--protocol", "cross_critique", "--max-passages", "4", "--json", "--quiet")
    assert code == 0, stderr
    result = json.loads(stdout)
    selection = result["evidence_selection"]
    assert selection["kept"] == 4 and selection["of"] == 10 and len(selection["left_out"]) == 6
    assert "evidence was selected: 4 of 10 passages, ranked by relevance to the question" in result["warnings"]
    debate = DebateStore(db, readonly=True).get_debate(result["debate_id"])
    kept = [e["id"] for e in debate["case"]["evidence"]]
    assert "bill-of-rights-p1-3" in kept  # the Third Amendment, on page 1
    assert debate["case"]["evidence_selection"] == selection
    cited = {e for s in debate["steps"] for c in (s["output"] or {}).get("claims") or [] for e in c.get("evidence") or []}
    assert "bill-of-rights-p1-3" in cited
    title = debate["case"]["evidence"][0]["source"]

    code, shown, _ = cli(capsys, "--db", str(db), "show", result["debate_id"])
    assert code == 0
    assert f"bill-of-rights-p1-3 ({title}, page 1)" in shown
    assert re.search(r"evidence [^\n]*bill-of-rights-p\d-\d \(The Bill of Rights[^\n]*, page \d\)", shown)

    folder = tmp_path / "export"
    code, _, err = cli(capsys, "--db", str(db), "export", result["debate_id"], "--dir", str(folder))
    assert code == 0, err
    assert "page 1)" in (folder / "transcript.md").read_text(encoding="utf-8")


def test_run_without_selection_says_nothing_about_selection(tmp_path, capsys):
    db = tmp_path / "d.db"
    code, stdout, stderr = cli(capsys, "--db", str(db), "run", "--question", QUESTION, "--evidence", str(SAMPLE_PDF),
                               "--protocol", "cross_critique", "--json", "--quiet")
    assert code == 0, stderr
    result = json.loads(stdout)
    assert "evidence_selection" not in result
    assert not any("evidence was selected" in w for w in result.get("warnings") or [])


@pytest.mark.parametrize("args, message", [
    (["data/cases/documents_bill_of_rights.json", "--question", "q", "--evidence", str(SAMPLE_PDF)],
     "error: give either a case file or --question with --evidence documents, not both"),
    ([], 'error: give a case file, or --question "..." with --evidence FILE...'),
    (["--question", "q"], "error: --question needs the documents it is about: --evidence FILE..."),
    (["data/cases/documents_bill_of_rights.json", "--max-passages", "3"],
     "error: --max-passages and --title go with --question and --evidence, not with a case file"),
    (["--question", "q", "--evidence", str(SAMPLE_PDF), "--max-passages", "0"],
     "error: the number of passages to keep must be at least 1, got 0"),
])
def test_run_refuses_a_case_file_and_documents_together_or_neither(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(ROOT)
    db = tmp_path / "d.db"
    code, stdout, stderr = cli(capsys, "--db", str(db), "run", *args, "--protocol", "cross_critique", "--quiet")
    assert (code, stdout, stderr.strip()) == (2, "", message)
    assert not db.exists()


def _bad_documents(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    files = {
        "locked.pdf": (make.encrypted_pdf(make.pdf([["Locked text."]])), "locked.pdf is protected by a password"),
        "scan.pdf": (make.image_only_pdf(), "scan.pdf: no text layer: this PDF is an image; paste its text or run "
                                            "OCR first"),
        "cut.pdf": (make.pdf([["Text of a page, then the file ends early."]] * 2)[:700],
                    "cut.pdf is damaged or incomplete: it cannot be read as a PDF"),
        "bomb.docx": (make.zip_bomb_docx(3_000_000), "bomb.docx unpacks to 3 MB, over the limit of 2 MB"),
        "big.md": (b"# Big\n\n" + b"word " * 500_000, "is 2.5 MB; the limit is 2 MB (set DEBATE_MAX_FILE_BYTES"),
        "slides.pptx": (b"PK\x03\x04", "slides.pptx: .pptx files are not supported; the supported types are PDF"),
    }
    out = {}
    for name, (data, message) in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        out[name] = (path, message)
    return out


def test_each_bad_document_is_one_line_exit_2_and_nothing_saved(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DEBATE_MAX_FILE_BYTES", "2000000")
    db = tmp_path / "d.db"
    for name, (path, message) in _bad_documents(tmp_path).items():
        out = tmp_path / f"{name}.case.json"
        code, stdout, stderr = cli(capsys, "case", "new", "--question", QUESTION, str(path), "--out", str(out))
        assert code == 2 and stdout == "", name
        assert stderr.count("\n") == 1 and stderr.startswith("error: ") and message in stderr, (name, stderr)
        assert not out.exists()
        code, stdout, stderr = cli(capsys, "--db", str(db), "run", "--question", QUESTION, "--evidence", str(path),
                                   "--protocol", "cross_critique", "--quiet")
        assert code == 2 and message in stderr and stderr.count("\n") == 1, (name, stderr)
    assert not db.exists()
