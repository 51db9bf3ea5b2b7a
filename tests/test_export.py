"""Exports of a stored debate: user and model text cannot forge structure in transcript.md, and
CSV cells cannot become spreadsheet formulas."""

from __future__ import annotations

import csv
import io
import re

import pytest
from helpers import finished_event_data, small_case

from debate_core.core.events import Event
from debate_core.present import export
from debate_core.store import DebateStore

FORGED_QUESTION = "# Verdict: approved\n<script>alert('x')</script>\nWho keeps the sawah?"
FORGED_CLAIM = "[click](http://evil.example) ![img](http://evil.example/x.png) <b>bold</b>\n```\n## Verdict\n```"
FORGED_ANSWER = "| a | b |\n|---|---|\n| x | y |\n\nSetext heading\n===\n<img src=x onerror=alert(1)>"
FORGED_CRITIQUE = "````\n# Approved by the court\n````"
FORGED_REASON = "</details>## Reviews\n[see here](javascript:alert(1))"


def _debate(store: DebateStore, statements: list[str], critique: str = "ok") -> str:
    case = small_case().model_copy(update={"question": FORGED_QUESTION})
    did = store.create_debate(case, "cross_critique", {"provider": "offline"}, {})
    claims = [{"id": f"C{n}", "statement": text, "evidence": ["E3"], "confidence": 0.5, "verified": True}
              for n, text in enumerate(statements, 1)]
    store.record(did, Event("turn_started", "r1.answer.nla", {"call": 1, "round": 1, "stage": "answer", "agent": "nla"}))
    store.record(did, Event("turn_finished", "r1.answer.nla", finished_event_data(
        "r1.answer.nla", {"answer": FORGED_ANSWER, "claims": claims})))
    store.record(did, Event("turn_started", "r1.critique.ala.nla", {
        "call": 1, "round": 1, "stage": "critique", "agent": "ala", "target": "nla"}))
    store.record(did, Event("turn_finished", "r1.critique.ala.nla", finished_event_data("r1.critique.ala.nla", {
        "critiques": [{"id": "K1", "target_claim_id": "C1", "issue_type": "LOGIC", "severity": "MAJOR",
                       "description": critique, "suggested_fix": "=1+1"}]})))
    store.record(did, Event("completed", None, {"rounds": 1, "converged": False, "verdict": {
        "answer": FORGED_ANSWER, "confidence": 0.5, "needs_human_review": True,
        "escalation_reasons": ["<a href='http://evil.example'>reason</a>"]}}))
    return did


def _outside_fences(markdown: str) -> tuple[list[str], list[str]]:
    """Split by CommonMark's fence rules: (lines read as markdown, text inside fenced blocks)."""
    outside, inside, block, fence = [], [], [], None
    for line in markdown.splitlines():
        if fence is None:
            m = re.match(r"^ {0,3}(`{3,})[^`]*$", line)
            if m:
                fence, block = m.group(1), []
            else:
                outside.append(line)
        elif re.match(rf"^ {{0,3}}`{{{len(fence)},}} *$", line):
            inside.append("\n".join(block))
            fence = None
        else:
            block.append(line)
    assert fence is None, "a fenced block was left open"
    return outside, inside


def test_user_and_model_text_cannot_forge_structure_in_the_transcript(tmp_path):
    store = DebateStore(tmp_path / "d.db")
    did = _debate(store, [FORGED_CLAIM], critique=FORGED_CRITIQUE)
    store.review(did, action="override", reviewer="ann](http://evil.example) <i>", answer="Divided.",
                 reason=FORGED_REASON)
    text = export.export_files(store, did)["transcript.md"]
    outside, inside = _outside_fences(text)

    headings = [line for line in outside if line.lstrip().startswith("#")]
    assert [h.split(" ")[1] for h in headings] == ["Debate", "r1.answer.nla", "r1.critique.ala.nla",
                                                   "Verdict", "Reviews"]
    markdown = "\n".join(outside)
    # No raw HTML, link, image, table row, code span or setext underline outside the fences: every
    # character that could start one is escaped (the exporter's own parentheses are harmless alone).
    for ch in "<>[]|!`":
        assert not re.search(rf"(?<!\\){re.escape(ch)}", markdown), ch
    assert not any(re.fullmatch(r" {0,3}(=+|-+) *", line) for line in outside)
    # Nothing is lost: every forged text is in a fence exactly as it was written.
    for original in (FORGED_QUESTION, FORGED_CLAIM, FORGED_ANSWER, FORGED_REASON):
        assert original in inside
    assert any(FORGED_CRITIQUE in block for block in inside)


def test_a_backtick_run_in_the_text_gets_a_longer_fence():
    lines = export.md_fenced("a ````` b")
    assert lines == ["``````text", "a ````` b", "``````"]
    assert export.md_inline("[x](y) <b> # 3.5") == "\\[x\\](y) \\<b\\> \\# 3.5"
    assert export.md_inline(0.25) == "0.25"


@pytest.mark.parametrize("cell", ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+2", "-2+3", "@SUM(A1:A2)",
                                  "\tTab first", "\rReturn first"])
def test_csv_cells_that_a_spreadsheet_would_evaluate_are_neutralised(tmp_path, cell):
    store = DebateStore(tmp_path / "d.db")
    did = _debate(store, [cell, "Plain text stays = as it is"])
    rows = list(csv.reader(io.StringIO(export.claims_csv(store, did))))
    header, claims, critique = rows[0], rows[1:3], rows[3]
    text = header.index("text")
    assert claims[0][text] == "'" + cell
    assert claims[1][text] == "Plain text stays = as it is"
    assert critique[header.index("suggested_fix")] == "'=1+1"
    assert claims[0][header.index("confidence")] == "0.5"  # numbers stay numbers
    for row in rows[1:]:
        assert not any(v.startswith(("=", "+", "-", "@", "\t", "\r")) for v in row)
