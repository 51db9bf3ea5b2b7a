"""Arbitration knows its limits: a conflict settled by a weak tie-break, or reported in two units,
goes to a person with the evidence named; a clear authority-order decision does not.
Every case is written here and run through the CLI in this process."""

from __future__ import annotations

import json

from test_cli import cli

from debate_core.protocols.arbitration.contradictions import detect_contradictions


def _case(tmp_path, evidence, reports, name="case.json"):
    case = {"id": "limits", "title": "Limits", "protocol": "arbitration",
            "question": "What was the region's unemployment rate in 2023?",
            "evidence": evidence, "reports": reports}
    path = tmp_path / name
    path.write_text(json.dumps(case), encoding="utf-8")
    return path


def _run(tmp_path, path, *options):
    args = ["run", str(path), "--protocol", "arbitration", "--json", "--quiet"]
    for opt in options:
        args += ["--option", opt]
    proc = cli(*args, db=tmp_path / "d.db", check=True)
    return json.loads(proc.stdout)["verdict"]


def _report(agent, value, unit, source, ev_id, confidence=0.85, period="2023"):
    return {"agent": agent, "metric": "regional_unemployment_rate", "value": value, "unit": unit,
            "source": source, "period": period, "confidence": confidence,
            "citation": f"[Per extraction: '{value}{unit}' from {source} {period}, {ev_id}]"}


def test_equal_authority_far_apart_a_month_apart_is_flagged_naming_both(tmp_path):
    evidence = [
        {"id": "e1", "source": "North Statistics Office", "authority": "official", "date": "2024-03-12",
         "text": "North Statistics Office labour survey: the regional unemployment rate in 2023 was 10.0%."},
        {"id": "e2", "source": "South Statistics Office", "authority": "official", "date": "2024-04-12",
         "text": "South Statistics Office labour survey: the regional unemployment rate in 2023 was 13.0%."},
    ]
    reports = [_report("AnalystA", 10.0, "%", "North Statistics Office", "e1"),
               _report("AnalystB", 13.0, "%", "South Statistics Office", "e2")]
    verdict = _run(tmp_path, _case(tmp_path, evidence, reports))
    assert verdict["needs_human_review"] is True
    reason = " ".join(verdict["escalation_reasons"])
    assert "weak tie-break" in reason
    for named in ("AnalystA", "AnalystB", "10%", "13%", "North Statistics Office", "South Statistics Office",
                  "2024-03-12", "2024-04-12"):
        assert named in reason, named
    assert "escalate.weak_tie_break" in verdict["applied_rules"]


def test_small_gap_settled_by_freshness_is_not_a_weak_tie_break(tmp_path):
    """A 4%-apart pair is not even a contradiction; 10% apart is within the low band a revision may explain."""
    evidence = [
        {"id": "e1", "source": "North Statistics Office", "authority": "official", "date": "2024-03-12",
         "text": "North Statistics Office labour survey: the regional unemployment rate in 2023 was 10.0%."},
        {"id": "e2", "source": "South Statistics Office", "authority": "official", "date": "2024-04-12",
         "text": "South Statistics Office labour survey: the regional unemployment rate in 2023 was 11.0%."},
    ]
    reports = [_report("AnalystA", 10.0, "%", "North Statistics Office", "e1"),
               _report("AnalystB", 11.0, "%", "South Statistics Office", "e2")]
    verdict = _run(tmp_path, _case(tmp_path, evidence, reports))
    assert not any("weak tie-break" in r for r in verdict["escalation_reasons"])


def test_clear_authority_order_decision_is_not_flagged(tmp_path):
    evidence = [
        {"id": "e1", "source": "GCC-STAT Labour Force Survey", "authority": "official", "date": "2024-03-12",
         "text": "GCC-STAT labour force survey: the regional unemployment rate in 2023 was 10.0%."},
        {"id": "e2", "source": "World Bank Development Indicators", "authority": "official", "date": "2024-04-12",
         "text": "World Bank development indicators: the regional unemployment rate in 2023 was 13.0%."},
    ]
    reports = [_report("AnalystA", 10.0, "%", "GCC-STAT", "e1", confidence=0.9),
               _report("AnalystB", 13.0, "%", "World Bank", "e2", confidence=0.8)]
    verdict = _run(tmp_path, _case(tmp_path, evidence, reports), "authority_order=GCC-STAT > World Bank > other")
    assert verdict["escalation_reasons"] == []
    assert verdict["needs_human_review"] is False
    assert "10%" in verdict["answer"].split(".")[0]


def test_units_mismatch_is_flagged_as_such(tmp_path):
    evidence = [
        {"id": "e1", "source": "North Statistics Office", "authority": "official", "date": "2024-03-12",
         "text": "North Statistics Office labour survey: the regional unemployment rate in 2023 was 4.0%."},
        {"id": "e2", "source": "South Statistics Office", "authority": "official", "date": "2024-03-12",
         "text": "South Statistics Office: unemployment in 2023 stood at 52 per mille of the labour force."},
    ]
    reports = [_report("AnalystA", 4.0, "%", "North Statistics Office", "e1"),
               _report("AnalystB", 52.0, "per mille", "South Statistics Office", "e2")]
    verdict = _run(tmp_path, _case(tmp_path, evidence, reports))
    assert verdict["needs_human_review"] is True
    reason = " ".join(verdict["escalation_reasons"])
    assert "units mismatch" in reason
    for named in ("AnalystA", "AnalystB", "4%", "52 per mille"):
        assert named in reason, named
    assert "escalate.units_mismatch" in verdict["applied_rules"]


def test_two_scales_of_one_unit_that_agree_are_no_contradiction(tmp_path):
    reports = [_report("AnalystA", 5.0, "%", "North Statistics Office", "e1"),
               _report("AnalystB", 50.0, "per mille", "South Statistics Office", "e2"),
               {**_report("AnalystA", 1.2, "million persons", "North Statistics Office", "e1"), "metric": "unemployed"},
               {**_report("AnalystB", 1200, "thousand persons", "South Statistics Office", "e2"), "metric": "unemployed"}]
    assert detect_contradictions(reports) == []
    verdict = _run(tmp_path, _case(tmp_path, [], reports))
    assert verdict["needs_human_review"] is False
    assert "skip.no_contradictions" in verdict["applied_rules"]


def test_different_periods_are_labelled_as_such():
    reports = [_report("AnalystA", 10.0, "%", "North Statistics Office", "e1", period="Q1-2024"),
               _report("AnalystB", 12.0, "%", "North Statistics Office", "e1", period="2024")]
    (c,) = detect_contradictions(reports)
    assert "source_conflict" not in c.kinds
    assert any("periods differ (Q1-2024 vs 2024)" in r for r in c.reasons)
