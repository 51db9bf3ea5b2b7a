"""A change made to several units alike ("new probes in kilns 1 and 2") is no settled root cause when
the case says one of those units runs as it should ("kiln 1 on target"): the verdict goes to a
person, quoting what says so. Driven through the CLI on cases written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _run

from debate_core.protocols.refinement.rules import units_changed

OVENS = {
    "id": "bakery_pale_loaves", "title": "Pale loaves from oven 2",
    "question": "Since 4 March 2026 loaves from oven 2 at the (fictitious) Brookside Bakery have come out pale on "
                "the top deck, while oven 1 is normal. New timers went into both ovens on 2 March. What is the "
                "root cause, and how should it be fixed and prevented?",
    "evidence": [
        {"id": "C1", "kind": "config", "source": "config: bakery change record, March 2026 (fictitious)",
         "text": "2 March: new digital timers fitted to ovens 1 and 2, replacing the dial timers. Recipes and "
                 "bake times unchanged."},
        {"id": "L1", "kind": "log", "source": "log: oven 2 fault panel, March 2026 (fictitious)",
         "text": "3 March 22:40: top element circuit E2 open. No top element current since."},
        {"id": "M1", "kind": "metrics", "source": "metrics: crust colour checks, March 2026 (fictitious)",
         "text": "Oven 2 top deck: pale from 4 March. Oven 2 bottom deck and oven 1: colour on standard."}]}


def _reasons(tmp_path, case):
    return _run(tmp_path, case, "refinement")["escalation_reasons"]


def test_a_change_made_alike_to_a_unit_that_runs_well_goes_to_a_person(tmp_path):
    verdict = _run(tmp_path, OVENS, "refinement")
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if "runs as it should" in r)
    assert "change made to oven 1 and oven 2 alike" in reason and "the question says oven 1" in reason
    assert "oven 1 is normal" in reason


def test_a_passage_that_says_the_other_unit_runs_well_is_quoted(tmp_path):
    case = {**OVENS, "question": OVENS["question"].replace(", while oven 1 is normal", ""),
            "evidence": [*OVENS["evidence"][:2], {**OVENS["evidence"][2], "text": (
                "Oven 2 top deck: pale from 4 March. Oven 1: no problems on any deck.")}]}
    reason = next(r for r in _reasons(tmp_path, case) if "runs as it should" in r)
    assert "M1 says oven 1 runs as it should" in reason and "no problems on any deck" in reason


def test_no_unit_said_to_run_well_holds_nothing_open(tmp_path):
    case = {**OVENS, "question": OVENS["question"].replace(", while oven 1 is normal", " and on oven 1 too"),
            "evidence": [OVENS["evidence"][0], {**OVENS["evidence"][2], "text": "Ovens 1 and 2 top decks: pale from 4 March."}]}
    assert not any("runs as it should" in r for r in _reasons(tmp_path, case))


def test_units_named_together_are_read_one_by_one():
    assert units_changed("2 March: new digital timers fitted to ovens 1 and 2") == ["oven 1", "oven 2"]
    assert units_changed("Firmware 4.2 pushed to lines A, B and C on Monday") == ["line A", "line B", "line C"]
    assert units_changed("New probes in kilns 1 and 2, replacing the wired ones") == ["kiln 1", "kiln 2"]
    # A count is not a list of units.
    assert units_changed("Twelve presses and 40 staff moved on 3 March") == []


PAYROLL = {
    "id": "payroll_overtime_jump", "title": "Overtime doubled on the March payroll",
    "question": "On the March 2026 payroll of the (fictitious) Harwick Joinery, overtime pay for the workshop "
                "doubled against February. What is the root cause, and how should it be fixed and prevented?",
    "evidence": [
        {"id": "C1", "kind": "config", "source": "config: payroll change record, 2026 (fictitious)",
         "text": "3 March: payroll software upgraded to version 9.1. 20 March: March timesheets imported."},
        {"id": "M1", "kind": "metrics", "source": "metrics: overtime pay by month (fictitious)",
         "text": "February overtime: 312 hours. March overtime: 640 hours."},
        {"id": "L1", "kind": "log", "source": "log: payroll clerk's checks, 28 March 2026 (fictitious)",
         "text": "Payroll software 9.1 reproduces February's published totals exactly from February's timesheets."}]}


def test_a_change_that_gives_the_old_results_on_the_old_inputs_goes_to_a_person(tmp_path):
    verdict = _run(tmp_path, PAYROLL, "refinement")
    assert verdict["needs_human_review"] is True
    reason = next(r for r in verdict["escalation_reasons"] if "rules out" in r)
    assert "L1" in reason and "reproduces February's published totals exactly" in reason


def test_a_change_that_reproduces_the_fault_is_not_ruled_out():
    from debate_core.protocols.refinement.rules import behaves_as_before
    cause = "3 March: payroll software upgraded to version 9.1"
    assert behaves_as_before(cause, "Payroll software 9.1 reproduces February's published totals exactly.")
    assert behaves_as_before(cause, "On a test copy the payroll software gives the same results as before.")
    assert not behaves_as_before(cause, "Payroll software 9.1 reproduces the fault exactly on a test copy.")
    assert not behaves_as_before(cause, "If the software gives the same totals, the timesheets are at fault.")


def _gold_case() -> dict:
    from test_pending_changes_variants_and_bases import _arbitration
    reports = [
        {"agent": "Dealer", "metric": "coin_weight", "value": 3.215, "unit": "oz",
         "citation": "[Per extraction: 'Weight 100 g (3.215 oz)' from the dealer's page]", "source": "Dealer's page",
         "period": "March 2026", "confidence": 0.7, "interpretation": "the bar weighs 3.215 oz"},
        {"agent": "Scale", "metric": "coin_weight", "value": 3.53, "unit": "oz",
         "citation": "[Per extraction: 'my scale says 3.53 oz' from the buyer's email]", "source": "Buyer's scale",
         "period": "March 2026", "confidence": 0.6, "interpretation": "the bar weighs 3.53 oz"}]
    evidence = [
        {"id": "PAGE", "source": "Dealer's product page (fictitious)", "text": "100 g gold bar. Weight 100 g (3.215 oz)."},
        {"id": "EMAIL", "source": "Buyer's email (fictitious)", "text": "Your page says 3.215 oz but my scale says 3.53 oz."}]
    return _arbitration("Which weight is right for the 100 g gold bar?", reports, evidence)


def test_a_figure_right_in_troy_ounces_is_not_called_a_misread_unit(tmp_path):
    verdict = _run(tmp_path, _gold_case(), "arbitration")
    assert "converted from a figure in the wrong unit" not in verdict["answer"]


def test_troy_and_avoirdupois_sizes_of_one_unit():
    from debate_core.protocols.arbitration.units import in_a_variant
    assert in_a_variant(1.0, 32.15, "oz") and in_a_variant(0.1, 3.215, "ounces")
    assert not in_a_variant(1.0, 35.27, "oz")  # a kilogram in avoirdupois ounces is the unit's own size
    assert not in_a_variant(1.0, 32.15, "kg")
