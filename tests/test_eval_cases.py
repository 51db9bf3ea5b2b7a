"""The evaluation cases in data/eval/ and the expected blocks of the sample cases keep their format.

These checks read the holdout cases too, but only their format: nothing here runs an agent or
compares a verdict, so the holdout set stays out of anything that tunes the offline agents.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from debate_core.core.cases import load_case, sample_cases
from debate_core.protocols.panel.rules.signals import parse_signals

EVAL_DIR = Path(__file__).resolve().parent.parent / "data" / "eval"
PROTOCOLS = ("cross_critique", "panel", "refinement", "dialectic", "arbitration")
AGENT_ID = re.compile(r"^[A-Za-z0-9_-]+$")
PANEL_STANCES = {"analyst", "critic", "empath"}


def eval_files(split: str) -> list[Path]:
    return sorted((EVAL_DIR / split).glob("*.json"))


ALL_EVAL = eval_files("dev") + eval_files("holdout")


def expected_problems(expected: object) -> list[str]:
    """What is wrong with an `expected` block written in the evaluation format (empty when fine)."""
    if not isinstance(expected, dict):
        return ["expected is not an object"]
    problems = []
    if not isinstance(expected.get("needs_human_review"), bool):
        problems.append("needs_human_review must be true or false")
    label = expected.get("label")
    if label is not None and not (isinstance(label, str) and re.fullmatch(r"[\w-]+", label)):
        problems.append(f"label must be one word, got {label!r}")
    groups = expected.get("must_mention")
    if not isinstance(groups, list) or len(groups) > 3:
        problems.append("must_mention must be a list of at most 3 groups")
    else:
        for group in groups:
            if not (isinstance(group, list) and group and all(isinstance(a, str) and a.strip() for a in group)):
                problems.append(f"must_mention group {group!r} must be a non-empty list of non-blank strings")
    reference = expected.get("reference")
    if not (isinstance(reference, str) and reference.strip()):
        problems.append("reference must be a non-blank string")
    return problems


def test_expected_problems_catches_each_mistake():
    good = {"needs_human_review": False, "label": "mixed", "must_mention": [["a", "b"]], "reference": "Why."}
    assert expected_problems(good) == []
    assert expected_problems({**good, "needs_human_review": "no"})
    assert expected_problems({**good, "label": "two words"})
    assert expected_problems({**good, "must_mention": [["a"], [], ["c"]]})
    assert expected_problems({**good, "must_mention": [["a"], ["b"], ["c"], ["d"]]})
    assert expected_problems({**good, "reference": " "})
    assert expected_problems({k: v for k, v in good.items() if k != "reference"})


def test_split_sizes_and_protocol_coverage():
    dev, holdout = eval_files("dev"), eval_files("holdout")
    assert len(dev) >= 11 and len(holdout) >= 5
    protocols = [json.loads(p.read_text(encoding="utf-8"))["protocol"] for p in ALL_EVAL]
    for protocol in PROTOCOLS:
        assert protocols.count(protocol) >= 3, protocol
    holdout_protocols = {json.loads(p.read_text(encoding="utf-8"))["protocol"] for p in holdout}
    assert holdout_protocols == set(PROTOCOLS)


def test_the_labelled_set_holds_the_samples_and_at_least_twenty_cases_across_protocols():
    from debate_core.evaluation.harness import labelled_cases

    cases = labelled_cases([EVAL_DIR])  # refuses a case id seen twice
    assert len(cases) >= 20
    ids = {case.id for _, case in cases}
    assert {load_case(p).id for p in sample_cases()} <= ids
    linked = sorted((EVAL_DIR / "samples").glob("*.json"))
    assert [p.name for p in linked] == [p.name for p in sample_cases()]
    assert all(p.is_symlink() and p.resolve().parent == sample_cases()[0].parent for p in linked)
    protocols = {(case.model_extra or {}).get("protocol") for _, case in cases}
    assert protocols >= set(PROTOCOLS)


def test_ids_are_unique_and_match_file_names():
    ids = [load_case(p).id for p in ALL_EVAL]
    assert len(ids) == len(set(ids))
    assert [p.stem for p in ALL_EVAL] == ids
    sample_ids = {load_case(p).id for p in sample_cases()}
    assert not sample_ids & set(ids)


@pytest.mark.parametrize("path", ALL_EVAL, ids=lambda p: p.stem)
def test_eval_case_format(path: Path):
    case = load_case(path)
    extra = case.model_extra or {}
    assert re.fullmatch(r"[a-z0-9_]+", case.id)
    assert extra.get("protocol") in PROTOCOLS
    assert case.evidence, "a case needs evidence passages"
    assert expected_problems(case.expected) == []
    agents = extra.get("agents")
    assert isinstance(agents, list) and 1 <= len(agents) <= 3
    for agent in agents:
        assert AGENT_ID.match(agent["id"]) and agent["name"].strip() and agent["role"].strip()
    if extra["protocol"] == "panel":
        assert {a["id"] for a in agents} == PANEL_STANCES
        # Stage signals the panel's moderator would refuse (an aspect polarity of "mixed") fail here,
        # where the case is written, not when it runs.
        signals = getattr(case, "signals", None) or extra.get("signals")
        if signals:
            parse_signals(signals)
    if extra["protocol"] == "arbitration":
        assert len(case.reports) >= 2
    if extra["protocol"] == "dialectic":
        assert [a["id"] for a in agents] == ["generator", "critic", "synthesizer"]


@pytest.mark.parametrize("path", sample_cases(), ids=lambda p: p.stem)
def test_sample_expected_blocks(path: Path):
    expected = load_case(path).expected
    if expected and "must_mention" in expected:
        assert expected_problems(expected) == []


def test_readme_lists_every_case_once():
    readme = (EVAL_DIR / "README.md").read_text(encoding="utf-8")
    for path in ALL_EVAL:
        case = json.loads(path.read_text(encoding="utf-8"))
        rows = [line for line in readme.splitlines() if line.startswith(f"| `{case['id']}` |")]
        assert len(rows) == 1, case["id"]
        cells = [c.strip() for c in rows[0].strip("|").split("|")]
        assert cells[1] == case["protocol"]
        assert cells[3] == (case["expected"].get("label") or "-")
        assert cells[4] == str(case["expected"]["needs_human_review"]).lower()
