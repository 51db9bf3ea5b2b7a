"""Plain text is printed plainly: `show` prints the transcript without markdown or escaping, and
transcript.md escapes only where a character could start markdown (ids and names read as written)."""

from __future__ import annotations

from helpers import small_case

from debate_core.cli import main
from debate_core.jobs.debates import run_debate
from debate_core.present import export
from debate_core.providers import make_provider
from debate_core.store import DebateStore

MARKUP = "*starred* [link](http://example.invalid) <b>bold</b> snake_case_ \x1b[31mred\x1b[0m"


def _debate(db, **case_fields) -> str:
    store = DebateStore(db)
    try:
        return run_debate(small_case(**case_fields), "cross_critique", provider=make_provider("offline"),
                          store=store).debate_id
    finally:
        store.close()


def _show(db, debate_id: str, capsys) -> str:
    assert main(["--db", str(db), "show", debate_id]) == 0
    return capsys.readouterr().out


def test_show_prints_ids_names_and_text_without_escapes(tmp_path, capsys):
    db = tmp_path / "d.db"
    did = _debate(db, title="Plain", question=f"Who keeps the sawah? {MARKUP}")
    out = _show(db, did, capsys)
    lines = out.splitlines()
    assert lines[0] == f"Debate {did} (cross_critique)"
    assert lines[1] == "=" * len(lines[0])
    assert "r1.answer.proponent" in lines and "Verdict" in lines
    assert "\\" not in out, [line for line in out.splitlines() if "\\" in line][:3]
    assert "```" not in out and not any(line.startswith("#") for line in lines)
    # Free text under its label, as written, with the terminal's escape sequences dropped.
    question = lines[lines.index("Question:") + 1]
    assert question == "    Who keeps the sawah? *starred* [link](http://example.invalid) <b>bold</b> snake_case_ [31mred[0m"
    assert "\x1b" not in out


def test_show_and_transcript_md_tell_the_same_debate(tmp_path, capsys):
    db = tmp_path / "d.db"
    did = _debate(db)
    plain = _show(db, did, capsys)
    store = DebateStore(db, readonly=True)
    markdown = export.export_files(store, did)["transcript.md"]
    debate = store.get_debate(did)
    store.close()
    assert plain == export.transcript_text(debate) + "\n"  # print's own newline
    # Every label line of the plain text is in transcript.md word for word: nothing was escaped in
    # ids, protocol names, statuses, numbers or dates, which open no markdown.
    labels = [line for line in plain.splitlines() if line and not line.startswith("    ")
              and set(line) - {"=", "-"}]
    md_lines = set(markdown.splitlines())
    missing = [line for line in labels if line not in md_lines and f"# {line}" not in md_lines
               and f"## {line}" not in md_lines]
    assert not missing, missing[:5]
    assert f"# Debate {did} (cross_critique)" in md_lines
    assert "cross\\_critique" not in markdown and "r1\\.answer" not in markdown
    assert "(<= 1)" in markdown, "a comparison opens no HTML and is left as written"


def test_transcript_md_still_escapes_what_would_be_markdown():
    assert export.md_inline("cross_critique r1.answer.nla 2025-05-14T10:00 0.62 E1, E2 R&D") == (
        "cross_critique r1.answer.nla 2025-05-14T10:00 0.62 E1, E2 R&D")
    assert export.md_inline("_lead *star* [a](b) <i> `c` a|b ~x~ &amp; !x #1 http://x <= 2") == (
        "\\_lead \\*star\\* \\[a\\](b) \\<i\\> \\`c\\` a\\|b \\~x\\~ \\&amp; \\!x \\#1 http\\://x <= 2")
    assert export.md_inline("=bob") == "\\=bob" and export.md_inline("a=b-c") == "a=b-c"
    assert export.plain_inline("a\x1b[2J  b\n c") == "a[2J b c"
    assert export.plain_block("one\n\x07two") == ["    one", "    two"]
