"""Traps for the offline panel, refinement and arbitration agents, driven through the CLI in-process.

Each case is written here (fictitious scenarios) and run with `run --json`: the verdict must be the
right answer without a flag, or a flag whose reason names the evidence that caused it.
"""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import cli


def _run(tmp_path: Path, case: dict, protocol: str) -> dict:
    path = tmp_path / f"{case['id']}.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    proc = cli("run", str(path), "--protocol", protocol, "--json", db=tmp_path / "traps.db", check=True)
    start = proc.stdout.index("{")
    result, _ = json.JSONDecoder().raw_decode(proc.stdout[start:])
    assert result["status"] == "completed"
    return result["verdict"]


def _report(agent: str, value: float, unit: str, source: str, citation: str, confidence: float = 0.8) -> dict:
    return {"agent": agent, "metric": "the_metric", "value": value, "unit": unit, "citation": citation,
            "source": source, "period": "2024", "confidence": confidence, "interpretation": f"{value} {unit}"}


def _arbitration_case(case_id: str, evidence: list[dict], reports: list[dict]) -> dict:
    for r in reports:
        r["metric"] = "median_wait_days"
    return {
        "id": case_id, "title": "fictitious figures", "protocol": "arbitration",
        "question": "Analysts report the median wait for a first specialist appointment in the (fictitious) "
                    "province of Varn in 2024. Which figure should the report use?",
        "domain_hint": "health service statistics; the province, agencies and figures are fictitious",
        "evidence": evidence, "reports": reports,
        "agents": [{"id": "arbiter", "name": "Health statistician", "role": "Neutral arbiter."}],
    }


# ---------------------------------------------------------------------------
# Arbitration
# ---------------------------------------------------------------------------


def test_equal_authorities_a_month_apart_and_far_apart_go_to_a_human(tmp_path):
    case = _arbitration_case("trap_equal_authorities", [
        {"id": "a1", "source": "Varn Health Audit Office", "authority": "official", "date": "2025-02-03",
         "text": "Waiting Times Review 2024 (fictitious): the median wait for a first specialist appointment "
                 "was 41 days in 2024."},
        {"id": "a2", "source": "Varn Department of Health", "authority": "official", "date": "2025-03-05",
         "text": "Annual Report 2024 (fictitious): patients waited a median of 68 days for a first specialist "
                 "appointment in 2024."},
    ], [
        _report("AuditReader", 41, "days", "Varn Health Audit Office", "[Per extraction: '41 days' from a1]"),
        _report("DepartmentReader", 68, "days", "Varn Department of Health", "[Per extraction: '68 days' from a2]"),
    ])
    verdict = _run(tmp_path, case, "arbitration")
    assert verdict["needs_human_review"] is True
    reason = " ".join(verdict["escalation_reasons"])
    assert "weak tie-break" in reason
    assert "Varn Health Audit Office" in reason and "Varn Department of Health" in reason
    assert "41" in reason and "68" in reason


def test_an_official_source_outranks_several_popular_ones_without_a_flag(tmp_path):
    case = _arbitration_case("trap_official_against_popular", [
        {"id": "o1", "source": "Varn Statistics Bureau", "authority": "official", "date": "2025-01-20",
         "text": "Health Services Bulletin 2024 (fictitious): median wait for a first specialist appointment "
                 "52 days."},
        {"id": "b1", "source": "Waitless health blog", "authority": "blog", "date": "2025-02-11",
         "text": "In 2024 people in Varn waited about 20 days to see a specialist, by our count."},
        {"id": "b2", "source": "Patients' forum digest", "authority": "forum", "date": "2025-02-25",
         "text": "Most of us saw a specialist within 20 days in 2024."},
    ], [
        _report("BureauReader", 52, "days", "Varn Statistics Bureau", "[Per extraction: '52 days' from o1]", 0.85),
        _report("BlogReader", 20, "days", "Waitless health blog", "[Per extraction: '20 days' from b1]", 0.8),
        _report("ForumReader", 20, "days", "Patients' forum digest", "[Per extraction: '20 days' from b2]", 0.7),
    ])
    verdict = _run(tmp_path, case, "arbitration")
    assert verdict["needs_human_review"] is False, verdict["escalation_reasons"]
    assert verdict["answer"].startswith("Use 52 days")


def test_a_newer_edition_that_replaces_the_older_one_is_not_a_tie_break(tmp_path):
    case = _arbitration_case("trap_superseded_edition", [
        {"id": "e1", "source": "Varn Health Audit Office", "authority": "official", "date": "2019-06-01",
         "text": "Target note 2019 (fictitious): the median wait for a first specialist appointment should "
                 "not exceed 30 days."},
        {"id": "e2", "source": "Varn Health Audit Office 2024 note", "authority": "official", "date": "2024-06-01",
         "text": "Target note 2024 (fictitious), which replaces the 2019 note: the median wait should not "
                 "exceed 45 days."},
    ], [
        _report("OldReader", 30, "days", "Varn Health Audit Office", "[Per extraction: '30 days' from e1]"),
        _report("NewReader", 45, "days", "Varn Health Audit Office 2024 note", "[Per extraction: '45 days' from e2]"),
    ])
    verdict = _run(tmp_path, case, "arbitration")
    assert verdict["needs_human_review"] is False, verdict["escalation_reasons"]
    assert verdict["answer"].startswith("Use 45 days")


def test_a_units_mismatch_is_not_arbitrated_silently(tmp_path):
    case = _arbitration_case("trap_units_mismatch", [
        {"id": "u1", "source": "Varn Health Audit Office", "authority": "official", "date": "2025-02-03",
         "text": "Waiting Times Review 2024 (fictitious): the median wait for a first specialist appointment "
                 "was 6 weeks in 2024."},
        {"id": "u2", "source": "Varn Department of Health", "authority": "official", "date": "2025-02-20",
         "text": "Annual Report 2024 (fictitious): the median wait for a first specialist appointment was "
                 "44 days in 2024."},
    ], [
        _report("AuditReader", 6, "weeks", "Varn Health Audit Office", "[Per extraction: '6 weeks' from u1]"),
        _report("DepartmentReader", 44, "days", "Varn Department of Health", "[Per extraction: '44 days' from u2]"),
    ])
    verdict = _run(tmp_path, case, "arbitration")
    assert verdict["needs_human_review"] is True
    reason = " ".join(verdict["escalation_reasons"])
    assert "units mismatch" in reason and "6 weeks" in reason and "44 days" in reason


# ---------------------------------------------------------------------------
# Refinement
# ---------------------------------------------------------------------------

_REASONERS = [
    {"id": "log", "name": "Log reasoner", "role": "Reads the logs and metrics and builds the timeline."},
    {"id": "kg", "name": "History reasoner", "role": "Compares with past incidents and known patterns."},
    {"id": "hybrid", "name": "Hybrid reasoner", "role": "Combines the timeline, configuration and history."},
]


def test_a_change_found_by_what_happened_not_the_routine_earliest_warning(tmp_path):
    case = {
        "id": "trap_queue_resized", "title": "fictitious", "protocol": "refinement",
        "question": "From 15:12 on 9 June 2025 the (fictitious) invoice workers stopped taking jobs from the "
                    "queue until 15:58. What is the root cause, and how should it be resolved?",
        "domain_hint": "message-queue incident; company and hosts are fictitious",
        "evidence": [
            {"id": "L1", "source": "log: worker host wk-2", "date": "2025-06-09T14:50:02",
             "text": "14:50:02 WARN certificate for metrics.internal expires in 25 days"},
            {"id": "L2", "source": "log: queue operations", "date": "2025-06-09T15:10:31",
             "text": "15:10:31 operator resized the invoice queue's prefetch window from 50 to 0 while tuning "
                     "memory (ticket Q-77)."},
            {"id": "L3", "source": "log: invoice worker", "date": "2025-06-09T15:12:05",
             "text": "15:12:05 ERROR consumer received no deliveries: prefetch window is 0; jobs stay unacked "
                     "in the queue."},
            {"id": "M1", "source": "metrics: worker host wk-2",
             "text": "The certificate warning is logged every day at 14:50 for the past three weeks, with the "
                     "workers healthy."},
            {"id": "C1", "source": "config: queue policy diff from ticket Q-77",
             "text": "prefetch window changed from 50 to 0 on the invoice queue."},
        ],
        "agents": _REASONERS,
    }
    verdict = _run(tmp_path, case, "refinement")
    cause = verdict["answer"].split("\n")[0].split(". ")[0]
    assert "L2" in cause and "resized" in cause
    assert "L1" not in cause
    assert verdict["needs_human_review"] is False, verdict["escalation_reasons"]


def test_a_cause_the_evidence_shows_also_happens_when_nothing_fails_is_flagged(tmp_path):
    case = {
        "id": "trap_routine_cause", "title": "fictitious", "protocol": "refinement",
        "question": "At 03:20 on 2 July 2025 the (fictitious) reports service returned errors for ten minutes. "
                    "What is the root cause?",
        "domain_hint": "service incident; company and hosts are fictitious",
        "evidence": [
            {"id": "L1", "source": "log: reports database", "date": "2025-07-02T03:15:00",
             "text": "03:15:00 the maintenance job rotated the reports database's log files and restarted the "
                     "connection pooler."},
            {"id": "L2", "source": "log: reports service", "date": "2025-07-02T03:20:11",
             "text": "03:20:11 ERROR request failed: upstream closed the connection"},
            {"id": "M1", "source": "metrics: reports database",
             "text": "The maintenance job rotates the log files and restarts the connection pooler every night "
                     "at 03:15, on all 30 nights of June without errors."},
        ],
        "agents": _REASONERS,
    }
    verdict = _run(tmp_path, case, "refinement")
    assert verdict["needs_human_review"] is True
    reasons = " ".join(verdict["escalation_reasons"])
    assert "when nothing fails" in reasons and "M1" in reasons


# ---------------------------------------------------------------------------
# Panel
# ---------------------------------------------------------------------------

_PERSONAS = [
    {"id": "analyst", "name": "Review analyst", "role": "Neutral stance: weighs each clause."},
    {"id": "critic", "name": "Complaints reviewer", "role": "Con stance: looks for what went wrong."},
    {"id": "empath", "name": "Customer advocate", "role": "Pro stance: looks for what went well."},
]


def test_a_contrast_against_a_clause_naming_no_aspect_reads_mixed(tmp_path):
    sentence = ("The strap is comfortable and the screen is bright; however, the battery drained "
                "overnight despite the update.")
    case = {
        "id": "trap_watch_contrast", "title": "fictitious", "protocol": "panel",
        "question": f"What is the overall sentiment (positive, negative, neutral or mixed) of the review sentence "
                    f"\"{sentence}\", and what is the sentiment towards each aspect (strap, screen, power)?",
        "domain_hint": "product review; the watch and reviewer are fictitious",
        "evidence": [{"id": "W1", "source": "Customer review (sentence under review)", "authority": "primary",
                      "text": sentence}],
        "agents": _PERSONAS,
    }
    verdict = _run(tmp_path, case, "panel")
    assert "overall sentiment is mixed" in verdict["answer"]
    assert verdict["needs_human_review"] is False, verdict["escalation_reasons"]


def test_mild_praise_against_a_severe_complaint_follows_the_reviewers_own_rating(tmp_path):
    case = {
        "id": "trap_kettle_majority", "title": "fictitious", "protocol": "panel",
        "question": "What is the overall sentiment (positive, negative, neutral or mixed) of this kettle review, "
                    "and what is the sentiment towards each aspect (handle, lid, base)?",
        "domain_hint": "product review; the kettle and reviewer are fictitious",
        "evidence": [{"id": "K1", "source": "Customer review, rated 1 of 5 stars", "authority": "primary",
                      "text": "The handle is nice. The lid is easy to open. On the second day the base caught fire "
                              "and scorched the counter, which is dangerous."}],
        "agents": _PERSONAS,
    }
    verdict = _run(tmp_path, case, "panel")
    assert "overall sentiment is negative" in verdict["answer"]
