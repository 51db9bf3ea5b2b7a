"""Contradiction detection rules for the arbitration protocol (section 1 of the contradiction-arbitration
source protocol)."""

import itertools
import math

import pytest

from debate_core.protocols.arbitration.contradictions import (
    detect_contradictions,
    interpretation_conflict,
    metric_key,
    period_key,
    relative_difference,
    severity,
)


def rep(agent, value=None, metric="unemployment_rate", **kw):
    return {"agent": agent, "metric": metric, "value": value, "confidence": kw.pop("confidence", 0.7), **kw}


def test_relative_difference_uses_the_smaller_magnitude_as_base():
    # The source protocol calls 0.10 vs 0.12 a "20% relative difference".
    assert relative_difference(0.10, 0.12) == pytest.approx(0.20)
    assert relative_difference(0.12, 0.10) == pytest.approx(0.20)
    assert relative_difference(0.0, 0.0) == 0.0
    assert math.isinf(relative_difference(0.0, 0.3))


@pytest.mark.parametrize(
    ("a", "b", "flagged"),
    [
        (100.0, 105.0, False),  # exactly 5%: not "more than 5%"
        (1.0, 1.05, False),  # exactly 5% despite binary floating point
        (100.0, 105.01, True),
        (100.0, 94.0, True),  # 6 / 94 = 6.4%
        (100.0, 95.3, False),  # 4.7 / 95.3 = 4.9%
        (0.0, 0.01, True),
        (-2.0, -2.0, False),
    ],
)
def test_value_threshold_edges(a, b, flagged):
    found = detect_contradictions([rep("A", a), rep("B", b)])
    assert bool(found) is flagged
    if flagged:
        assert found[0].kinds[0] == "value"


def test_threshold_is_configurable():
    reports = [rep("A", 0.10), rep("B", 0.12)]
    assert detect_contradictions(reports, threshold=0.25) == []
    assert len(detect_contradictions(reports, threshold=0.10)) == 1


def test_zero_against_nonzero_has_no_finite_relative_difference():
    [c] = detect_contradictions([rep("A", 0.0), rep("B", 2.0)])
    assert c.relative_difference is None
    assert "infinitely" in c.reasons[0]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("the labour market is improving", "the labour market is declining"),
        ("an increase in hiring", "a decrease in hiring"),
        ("unemployment is rising", "unemployment is falling"),
        ("participation keeps growing", "participation is shrinking"),
        ("wages are strengthening", "wages are weakening"),
        ("unemployment is not rising", "unemployment is rising"),
    ],
)
def test_opposing_readings_conflict(a, b):
    assert interpretation_conflict(a, b) is not None
    assert interpretation_conflict(b, a) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("unemployment is rising", "unemployment keeps increasing"),
        ("unemployment remains very low", "unemployment is very low and stable"),
        # One reading moves both ways on the direction axis, so it takes no side.
        ("rising in Q1, falling in Q2", "falling overall"),
        (None, "falling"),
    ],
)
def test_agreeing_or_ambiguous_readings_do_not_conflict(a, b):
    assert interpretation_conflict(a, b) is None


def test_interpretation_conflict_without_value_conflict():
    found = detect_contradictions(
        [rep("A", 18.2, interpretation="the share is rising"), rep("B", 18.4, interpretation="the share is falling")]
    )
    assert [c.kinds for c in found] == [("interpretation",)]
    assert "'rising' vs 'falling'" in found[0].reasons[0]
    assert found[0].relative_difference is None


def test_value_and_interpretation_together():
    [c] = detect_contradictions(
        [rep("A", 3.0, interpretation="employment improving"), rep("B", 2.0, interpretation="employment declining")]
    )
    assert c.kinds == ("value", "interpretation")
    assert c.severity == "high"


def test_confidence_gap_on_the_same_claim():
    reports = [rep("A", 86.7, confidence=0.9), rep("B", 86.5, confidence=0.5)]
    [c] = detect_contradictions(reports)
    assert c.kinds == ("confidence",)
    assert c.severity == "low"
    assert detect_contradictions(reports, confidence_gap=None) == []
    assert detect_contradictions([rep("A", 86.7, confidence=0.9), rep("B", 86.5, confidence=0.7)]) == []


def test_same_reading_without_values_can_differ_in_confidence():
    reports = [rep("A", interpretation="hiring is rising", confidence=0.9),
               rep("B", interpretation="hiring keeps rising", confidence=0.4)]
    assert [c.kinds for c in detect_contradictions(reports)] == [("confidence",)]


def test_same_source_same_period_is_a_source_conflict():
    reports = [rep("A", 2.1, source="GCC-STAT", period="2023"), rep("B", 3.4, source="gcc stat", period="2023")]
    [c] = detect_contradictions(reports)
    assert c.kinds == ("value", "source_conflict")
    other = detect_contradictions(
        [rep("A", 2.1, source="GCC-STAT", period="2023"), rep("B", 3.4, source="GCC-STAT", period="2022")]
    )
    assert other[0].kinds == ("value",)


def test_different_units_are_marked():
    [c] = detect_contradictions([rep("A", 0.1, unit="%"), rep("B", 1200, unit="persons")])
    assert c.kinds == ("value", "unit_mismatch")
    # "percent" and "%" are the same unit.
    assert detect_contradictions([rep("A", 0.1, unit="%"), rep("B", 0.1, unit="percent")]) == []


def test_metric_names_meet_across_spelling():
    assert metric_key("Qatar unemployment rate") == metric_key("qatar_unemployment_rate") == "qatar_unemployment_rate"
    found = detect_contradictions([rep("A", 0.10, metric="Qatar Unemployment Rate"),
                                   rep("B", 0.12, metric="qatar-unemployment-rate")])
    assert [c.metric_name for c in found] == ["qatar_unemployment_rate"]
    assert detect_contradictions([rep("A", 0.10, metric="x"), rep("B", 0.12, metric="y")]) == []


def test_numbering_by_metric_then_agent_names_whatever_the_input_order():
    reports = [
        rep("Zed", 10.0, metric="b_metric"),
        rep("Amy", 20.0, metric="b_metric"),
        rep("Bob", 5.0, metric="a_metric"),
        rep("Cal", 9.0, metric="a_metric"),
        rep("Abe", 7.0, metric="a_metric"),
    ]
    expected = [
        (1, "a_metric", "Abe", "Bob"),
        (2, "a_metric", "Abe", "Cal"),
        (3, "a_metric", "Bob", "Cal"),
        (4, "b_metric", "Amy", "Zed"),
    ]
    for perm in itertools.permutations(reports):
        found = detect_contradictions(list(perm))
        assert [(c.index, c.metric_name, c.agent1_name, c.agent2_name) for c in found] == expected


def test_multi_way_gives_pairwise_contradictions_that_point_back_to_reports():
    reports = [rep("LabourEconomist", 0.10), rep("NationalStrategy", 0.12), rep("PolicyAnalyst", 0.15)]
    found = detect_contradictions(reports)
    assert [(c.report1, c.report2) for c in found] == [(0, 1), (0, 2), (1, 2)]
    assert [(c.agent1_value, c.agent2_value) for c in found] == [(0.10, 0.12), (0.10, 0.15), (0.12, 0.15)]


def test_multi_way_skips_pairs_that_agree():
    found = detect_contradictions([rep("A", 0.10), rep("B", 0.10), rep("C", 0.12)])
    assert [(c.agent1_name, c.agent2_name) for c in found] == [("A", "C"), ("B", "C")]


def test_severity_bands_and_adjustments():
    mid = (0.7, 0.7)
    assert severity(value_diff=0.10, interpretation=False, confidences=mid) == "low"
    assert severity(value_diff=0.20, interpretation=False, confidences=mid) == "medium"
    assert severity(value_diff=0.80, interpretation=False, confidences=mid) == "high"
    assert severity(value_diff=None, interpretation=True, confidences=mid) == "medium"
    # Two confident agents raise a level: the source protocol's example (20%, 0.90 vs 0.85) is high.
    assert severity(value_diff=0.20, interpretation=False, confidences=(0.90, 0.85)) == "high"
    assert severity(value_diff=0.20, interpretation=False, confidences=(0.90, 0.40)) == "low"
    assert severity(value_diff=0.10, interpretation=False, confidences=mid, same_source=True) == "medium"
    assert severity(value_diff=0.80, interpretation=False, confidences=mid, unit_mismatch=True) == "medium"
    assert severity(value_diff=None, interpretation=False, confidences=(0.9, 0.9)) == "low"


def test_seed_example_contradiction():
    reports = [
        rep("LabourEconomist", 0.10, metric="qatar_unemployment_rate", confidence=0.90,
            citation="[Per extraction: '0.10%' from GCC-STAT Q1-2024]", source="GCC-STAT", period="Q1-2024"),
        rep("NationalStrategy", 0.12, metric="qatar_unemployment_rate", confidence=0.85,
            citation="[Per extraction: '0.12%' from World Bank 2024]", source="World Bank", period="2024"),
    ]
    [c] = detect_contradictions(reports)
    assert (c.agent1_name, c.agent1_value, c.agent1_confidence) == ("LabourEconomist", 0.10, 0.90)
    assert (c.agent2_name, c.agent2_value, c.agent2_confidence) == ("NationalStrategy", 0.12, 0.85)
    assert c.agent1_citation.startswith("[Per extraction")
    assert c.severity == "high"
    assert c.relative_difference == pytest.approx(0.2)
    assert c.to_dict()["kinds"] == ["value"]


@pytest.mark.parametrize(
    ("period", "key"),
    [("Q1-2024", (2024, "Q1")), ("2024", (2024, "")), ("H2 2023", (2023, "H2")),
     ("March 2024", (2024, "M03")), ("2024Q3", (2024, "Q3")), ("full year 2024", (2024, "")), ("n/a", None)],
)
def test_period_keys(period, key):
    assert period_key(period) == key
