"""Bad paths and bad files: one line `error: ...`, exit 2, no traceback, nothing saved or written.

One test per row of the table in docs/contracts.md ("Bad input: one line, exit 2"), run in-process
through `debate_core.cli.main` except where a real process is the point (a FIFO that would hang a
reader, a reader of stdout that goes away). Then the bounds (case size, passages) in the engine
and on the New debate page, and the atomic writes themselves.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import count_debates, small_case

from debate_core.cli import main
from debate_core.core import files, inputs
from debate_core.core.cases import CaseError, case_from_bytes, load_case
from debate_core.core.files import FileProblem, write_text_atomic

ROOT = Path(__file__).resolve().parent.parent
CASE = str(ROOT / "data" / "cases" / "adat_minangkabau_inheritance.json")

# Every kind of file a command reads from a path the user gives, as (argv for that path, the
# name the message gives it). `eval --prices` reads the price table before it looks at the cases.
READERS = {
    "case": (lambda p: ["run", p, "--protocol", "cross_critique"], "case file"),
    "agents": (lambda p: ["run", CASE, "--protocol", "cross_critique", "--agents-file", p], "agents file"),
    "cassette": (lambda p: ["run", CASE, "--protocol", "cross_critique", "--provider", "replay", "--cassette", p],
                 "cassette file"),
    "prices": (lambda p: ["eval", "no-such-cases", "--protocol", "panel", "--prices", p], "price table file"),
    "eval case": (lambda p: ["eval", p, "--protocol", "panel"], "case file"),
}


def one_line(code: int, err: str, *expected: str) -> str:
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def refused(capsys, db: Path, argv: list[str], *expected: str) -> str:
    """Run the CLI in-process: exit 2, one line naming the problem, no debate stored."""
    code = main(["--db", str(db), *argv])
    line = one_line(code, capsys.readouterr().err, *expected)
    assert count_debates(db) == 0
    return line


def cli(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "debate_core", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={**os.environ, **(env or {})})


@pytest.fixture
def debate(make_debate):
    return make_debate(small_case())


# ---------------------------------------------------------------------------
# Reading: one row each, over every kind of file read
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(READERS))
def test_row_path_not_found(tmp_path, capsys, kind):
    argv, what = READERS[kind]
    missing = str(tmp_path / "missing.json")
    expected = f"no case file or directory at {missing}" if kind == "eval case" else f"{what} not found: {missing}"
    refused(capsys, tmp_path / "d.db", argv(missing), expected)


@pytest.mark.parametrize("kind", [k for k in READERS if k != "eval case"])  # eval reads a folder's cases
def test_row_directory_given_as_a_file(tmp_path, capsys, kind):
    argv, what = READERS[kind]
    folder = tmp_path / "tapes"
    folder.mkdir()
    refused(capsys, tmp_path / "d.db", argv(str(folder)), f"{what} {folder} is a directory, not a file")


@pytest.mark.parametrize("kind", list(READERS))
def test_row_device_is_refused_before_it_is_read(tmp_path, capsys, kind):
    argv, what = READERS[kind]
    refused(capsys, tmp_path / "d.db", argv("/dev/zero"), f"{what} /dev/zero is a device, not a regular file")


@pytest.mark.parametrize("kind", list(READERS))
def test_row_fifo_is_refused_at_once(tmp_path, kind):
    argv, what = READERS[kind]
    fifo = tmp_path / "case.json"
    os.mkfifo(fifo)
    db = tmp_path / "d.db"
    # No writer ever opens the FIFO: a reader that opened it would hang until the timeout.
    proc = cli("--db", str(db), *argv(str(fifo)))
    one_line(proc.returncode, proc.stderr, f"{what} {fifo} is a FIFO (named pipe), not a regular file")
    assert count_debates(db) == 0


def test_row_case_over_the_size_limit_names_the_limit_and_how_to_raise_it(tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"id": "b", "title": "t", "question": "q",
                               "evidence": [{"id": "E1", "source": "s", "text": "x" * 5_000_000}]}))
    refused(capsys, tmp_path / "d.db", READERS["case"][0](str(big)),
            f"case file {big} is 5 MB; the limit is 1 MB (set DEBATE_MAX_CASE_BYTES to raise it)")
    monkeypatch.setenv("DEBATE_MAX_CASE_BYTES", "6000000")
    assert len(load_case(big).evidence) == 1


@pytest.mark.parametrize("kind", ["agents", "cassette", "prices"])
def test_row_other_files_over_their_size_limit(tmp_path, capsys, monkeypatch, kind):
    argv, what = READERS[kind]
    path = tmp_path / "f.json"
    path.write_text(json.dumps([{"id": "a" * 30}] * 60))  # about 2.5 KB
    monkeypatch.setenv("DEBATE_MAX_FILE_BYTES", "1000")
    refused(capsys, tmp_path / "d.db", argv(str(path)),
            f"{what} {path} is 2.", "the limit is 1 KB (set DEBATE_MAX_FILE_BYTES to raise it)")


def test_row_case_with_too_many_passages(tmp_path, capsys, monkeypatch):
    many = tmp_path / "many.json"
    many.write_text(json.dumps({"id": "m", "title": "t", "question": "q",
                                "evidence": [{"id": f"E{i}", "source": "s", "text": "t"} for i in range(5000)]}))
    refused(capsys, tmp_path / "d.db", READERS["case"][0](str(many)),
            f"case file {many} has 5,000 passages; the limit is 500 (set DEBATE_MAX_PASSAGES to raise it)")
    monkeypatch.setenv("DEBATE_MAX_PASSAGES", "5000")
    assert len(load_case(many).evidence) == 5000


@pytest.mark.parametrize("kind", list(READERS))
def test_row_nul_byte_in_a_file(tmp_path, capsys, kind):
    argv, what = READERS[kind]
    path = tmp_path / "bin.json"
    path.write_bytes(b'{"id": "x", "title": "t", "question": "q\x00"}')
    line = refused(capsys, tmp_path / "d.db", argv(str(path)),
                   f"{what} {path} contains a NUL byte (at byte 40): it is not a text file")
    assert "at at" not in line


@pytest.mark.parametrize("kind", list(READERS))
def test_row_file_not_utf8(tmp_path, capsys, kind):
    argv, what = READERS[kind]
    path = tmp_path / "latin1.json"
    path.write_bytes('{"id": "x", "title": "Café"}'.encode("latin-1"))
    refused(capsys, tmp_path / "d.db", argv(str(path)), f"{what} {path} is not UTF-8 text (invalid")


@pytest.mark.parametrize("var", ["DEBATE_MAX_CASE_BYTES", "DEBATE_MAX_PASSAGES"])
def test_row_a_limit_that_is_not_a_number(tmp_path, capsys, monkeypatch, var):
    monkeypatch.setenv(var, "lots")
    refused(capsys, tmp_path / "d.db", READERS["case"][0](CASE), f"{var} must be a whole number of at least 1, "
            "got 'lots'")


def test_row_nul_byte_in_a_path(tmp_path, capsys, debate, db_path):
    # A path from the shell cannot hold a NUL byte; one from a program calling main() can.
    refused(capsys, tmp_path / "d.db", ["run", "case\x00.json", "--protocol", "cross_critique"],
            "the case file path 'case\\x00.json' contains a NUL byte")
    code = main(["--db", str(db_path), "export", debate, "--csv", str(tmp_path / "c\x00.csv")])
    one_line(code, capsys.readouterr().err, "contains a NUL byte")
    assert list(tmp_path.glob("c*.csv")) == []


def test_a_control_character_in_json_names_line_and_column_once(tmp_path, capsys):
    path = tmp_path / "ctl.json"
    path.write_bytes(b'{"id": "x", "title": "t", "question": "a\x01b"}')
    line = refused(capsys, tmp_path / "d.db", READERS["case"][0](str(path)),
                   f"case file {path}: invalid JSON: Invalid control character at line 1 column 41")
    assert "at at" not in line


# ---------------------------------------------------------------------------
# Writing: export --dir / --cassette / --csv and eval --out
# ---------------------------------------------------------------------------


def test_row_export_folder_that_is_a_file(tmp_path, capsys, debate, db_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    code = main(["--db", str(db_path), "export", debate, "--dir", str(notes)])
    one_line(code, capsys.readouterr().err, f"cannot write the export to {notes}: it is a file, not a folder")
    assert notes.read_text() == "keep me"


def test_row_export_folder_that_cannot_be_created(capsys, debate, db_path):
    code = main(["--db", str(db_path), "export", debate, "--dir", "/proc/x"])
    one_line(code, capsys.readouterr().err,
             "cannot write the export to /proc/x: the folder cannot be created (no such file or directory)")


@pytest.mark.parametrize("flag, what", [("--cassette", "the cassette"), ("--csv", "the CSV file")])
def test_row_export_file_that_is_a_directory(tmp_path, capsys, debate, db_path, flag, what):
    folder = tmp_path / "out"
    folder.mkdir()
    code = main(["--db", str(db_path), "export", debate, flag, str(folder)])
    one_line(code, capsys.readouterr().err, f"cannot write {what} {folder}: it is a directory")
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("target, kind", [("/dev/null", "a device"), ("fifo", "a FIFO (named pipe)")])
def test_row_export_file_that_is_a_device_or_fifo(tmp_path, capsys, debate, db_path, target, kind):
    if target == "fifo":
        target = str(tmp_path / "fifo")
        os.mkfifo(target)
    before = os.stat(target)
    code = main(["--db", str(db_path), "export", debate, "--csv", target])
    one_line(code, capsys.readouterr().err, f"cannot write the CSV file {target}: it is {kind}")
    after = os.stat(target)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)  # not replaced by a rename


def test_row_export_file_inside_a_file(tmp_path, capsys, debate, db_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    code = main(["--db", str(db_path), "export", debate, "--cassette", str(notes / "c.json")])
    one_line(code, capsys.readouterr().err, f"cannot write the cassette {notes / 'c.json'}: ")
    assert notes.read_text() == "keep me"


def test_row_symbolic_link_in_the_export_folder(tmp_path, capsys, debate, db_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("secret")
    out = tmp_path / "out"
    out.mkdir()
    (out / "transcript.md").symlink_to(victim)
    code = main(["--db", str(db_path), "export", debate, "--dir", str(out)])
    one_line(code, capsys.readouterr().err, f"cannot write the export file {out / 'transcript.md'}: "
             "it is a symbolic link; remove it or choose another path")
    assert victim.read_text() == "secret"
    assert [p.name for p in out.iterdir()] == ["transcript.md"]  # every target checked before any write


@pytest.mark.parametrize("flag, what", [("--cassette", "the cassette"), ("--csv", "the CSV file")])
def test_row_symbolic_link_as_the_export_file(tmp_path, capsys, debate, db_path, flag, what):
    victim = tmp_path / "victim.txt"
    victim.write_text("secret")
    link = tmp_path / "c.json"
    link.symlink_to(victim)
    out = tmp_path / "out"
    # With --dir too: the bad --cassette or --csv refuses the whole export, the folder included.
    code = main(["--db", str(db_path), "export", debate, "--dir", str(out), flag, str(link)])
    one_line(code, capsys.readouterr().err, f"cannot write {what} {link}: it is a symbolic link")
    assert victim.read_text() == "secret" and link.is_symlink()
    assert not out.exists()


def test_row_eval_out_that_is_a_file_is_refused_before_any_run(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    db = tmp_path / "d.db"
    refused(capsys, db, ["eval", str(ROOT / "data" / "eval" / "dev"), "--protocol", "panel", "--out", str(notes)],
            f"cannot write the report to {notes}: it is a file, not a folder")
    assert notes.read_text() == "keep me"


def test_row_eval_out_with_a_symbolic_link_for_a_report_file(tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("secret")
    out = tmp_path / "report"
    out.mkdir()
    (out / "rows.csv").symlink_to(victim)
    refused(capsys, tmp_path / "d.db", ["eval", str(ROOT / "data" / "eval" / "dev"), "--protocol", "panel",
                                        "--out", str(out)],
            f"cannot write the report file {out / 'rows.csv'}: it is a symbolic link")
    assert victim.read_text() == "secret"


# ---------------------------------------------------------------------------
# Output: a reader that goes away
# ---------------------------------------------------------------------------


def test_row_broken_pipe_is_one_line_without_a_traceback(db_path, debate):
    proc = subprocess.Popen([sys.executable, "-m", "debate_core", "show", debate], cwd=ROOT,
                            env={**os.environ, "DEBATE_DB": str(db_path)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # like `| head` that has read enough, before the first line is written
    err = proc.stderr.read()
    proc.wait(timeout=60)
    one_line(proc.returncode, err, "standard output was closed before everything was written (broken pipe)")
    assert "Exception ignored" not in err


# ---------------------------------------------------------------------------
# What still works
# ---------------------------------------------------------------------------


def test_an_export_folder_that_is_a_link_to_a_folder_is_written_into(tmp_path, capsys, debate, db_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "out").symlink_to(real)
    assert main(["--db", str(db_path), "export", debate, "--dir", str(tmp_path / "out")]) == 0
    assert (real / "transcript.md").is_file() and not (real / "transcript.md").is_symlink()


def test_a_case_file_reached_through_a_link_is_read(tmp_path):
    link = tmp_path / "case.json"
    link.symlink_to(CASE)
    assert load_case(link).id


# ---------------------------------------------------------------------------
# The bounds where cases come in: uploads, the paste box, built cases
# ---------------------------------------------------------------------------


def test_uploads_and_the_paste_box_have_the_case_limits(monkeypatch):
    monkeypatch.setenv("DEBATE_MAX_CASE_BYTES", "300")
    with pytest.raises(CaseError, match=r"^upload\.json is 301 bytes; the limit is 300 bytes \(set DEBATE_MAX_CASE_BYTES"):
        case_from_bytes(b" " * 301, "upload.json")
    with pytest.raises(CaseError, match=r"^passages\.csv is 400 bytes; the limit is 300 bytes"):
        inputs.passages_from_upload("passages.csv", b"x" * 400)
    with pytest.raises(CaseError, match=r"^the pasted text is 400 bytes; the limit is 300 bytes"):
        inputs.parse_passages("E1 | s | " + "x" * 391)
    passages = [{"id": f"E{i}", "source": "s", "text": "t" * 50} for i in range(6)]  # each part fits, not all
    with pytest.raises(CaseError, match=r"^your case is \d+ bytes; the limit is 300 bytes"):
        inputs.build_case("q", passages)
    monkeypatch.delenv("DEBATE_MAX_CASE_BYTES")
    monkeypatch.setenv("DEBATE_MAX_PASSAGES", "5")
    with pytest.raises(CaseError, match=r"^your case has 6 passages; the limit is 5 \(set DEBATE_MAX_PASSAGES"):
        inputs.build_case("q", passages)
    with pytest.raises(CaseError, match="contains a NUL byte"):
        inputs.passages_from_upload("p.txt", b"E1 | s | a\x00b")


def test_new_debate_page_shows_the_limits_and_refuses_too_many_passages(app, monkeypatch):
    monkeypatch.setenv("DEBATE_MAX_PASSAGES", "2")
    app.run()
    app.radio(key="nd-source").set_value("own").run()
    assert any("Up to 1 MB and 2 passages per case" in c.value for c in app.caption)
    app.text_area(key="nd-question").set_value("Is the sawah part of the estate?")
    app.text_area(key="nd-passages").set_value("E1 | a | one\nE2 | b | two\nE3 | c | three\n").run()
    assert not app.exception
    assert any("your case has 3 passages; the limit is 2" in e.value for e in app.error)
    assert app.button(key="nd-start").disabled


def test_new_debate_page_refuses_pasted_text_over_the_size_limit(app, monkeypatch):
    monkeypatch.setenv("DEBATE_MAX_CASE_BYTES", "200")
    app.run()
    app.radio(key="nd-source").set_value("own").run()
    app.text_area(key="nd-question").set_value("q")
    app.text_area(key="nd-passages").set_value("E1 | a | " + "x" * 300).run()
    assert any("the pasted text is 309 bytes; the limit is 200 bytes" in e.value for e in app.error)
    assert app.button(key="nd-start").disabled


# ---------------------------------------------------------------------------
# Atomic writes
# ---------------------------------------------------------------------------


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "c.json"
    target.write_text("old")

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", full_disk)
    with pytest.raises(FileProblem, match=f"^cannot write the cassette {target}: no space left on device$"):
        write_text_atomic(target, "new", "the cassette")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]


def test_an_interrupted_write_removes_its_temporary_file(tmp_path, monkeypatch):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "chmod", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(tmp_path / "new.csv", "x", "the CSV file")
    assert list(tmp_path.iterdir()) == []


def test_a_write_replaces_the_file_keeping_its_permissions_and_a_new_file_follows_the_umask(tmp_path):
    old = tmp_path / "old.csv"
    old.write_text("old")
    old.chmod(0o640)
    inode = old.stat().st_ino
    write_text_atomic(old, "new")
    assert old.read_text() == "new" and stat.S_IMODE(old.stat().st_mode) == 0o640
    assert old.stat().st_ino != inode  # renamed into place, not rewritten in place
    mask = os.umask(0o022)
    os.umask(mask)
    fresh = write_text_atomic(tmp_path / "sub" / "new.csv", "x")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~mask


def test_limits_describe_themselves():
    assert files.size_text(1_000_000) == "1 MB" and files.size_text(5_242_880) == "5.2 MB"
    assert files.size_text(2_500) == "2.5 KB" and files.size_text(12) == "12 bytes"
    assert files.PASSAGES.describe() == "500 passages"
    with pytest.raises(FileProblem, match=r"is 1,000,001 bytes; the limit is 1,000,000 bytes"):
        files.check_size(1_000_001, files.CASE_BYTES, "x.json")  # not "is 1 MB; the limit is 1 MB"
