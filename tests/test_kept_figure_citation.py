"""A figure kept over another is shown with the words its report cites, which say what else the
record behind it counts ("Items brought in: 948. Outcome fixed: 561"). Driven through the CLI on a
case written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _run
from test_pending_changes_variants_and_bases import _arbitration

_REPORTS = [
    {"agent": "Post", "metric": "items_repaired_2025", "value": 900, "unit": "items fixed",
     "citation": "[Per extraction: 'Over 900 items fixed in 2025' from the club's post]", "source": "Club post",
     "period": "2025", "confidence": 0.5, "interpretation": "more than 900 items were fixed"},
    {"agent": "Log", "metric": "items_repaired_2025", "value": 561, "unit": "items fixed",
     "citation": "[Per extraction: 'Items brought in: 948. Outcome fixed: 561' from the repair log]",
     "source": "Repair log", "period": "2025", "confidence": 0.8, "interpretation": "561 items left fixed"}]
_EVIDENCE = [
    {"id": "GRANT", "source": "Grant agreement (fictitious)", "authority": "funder", "date": "2025-01-10",
     "text": "An item counts as repaired when it leaves in working order, recorded as 'fixed' in the repair log."},
    {"id": "LOG", "source": "Repair log summary for 2025 (fictitious)", "authority": "official record",
     "date": "2026-01-03", "text": "Items brought in: 948. Outcome fixed: 561. End of life: 200."},
    {"id": "POST", "source": "Club post (fictitious)", "authority": "social media", "date": "2026-01-02",
     "text": "What a year! Over 900 items fixed in 2025."}]


def test_a_kept_figure_is_shown_with_the_words_its_report_cites(tmp_path):
    verdict = _run(tmp_path, _arbitration("How many items did the (fictitious) repair club repair in 2025 on the "
                                          "grant's definition?", _REPORTS, _EVIDENCE), "arbitration")
    assert "Log's 561 items fixed" in verdict["answer"] and "accepted over Post's 900" in verdict["answer"], \
        verdict["answer"]
    assert "(Log cites 'Items brought in: 948. Outcome fixed: 561')" in verdict["answer"], verdict["answer"]


_ANNUITY = [
    {"agent": "Quote", "metric": "annuity_income", "value": 7920, "unit": "GBP per year",
     "citation": "[Per extraction: 'Annual income £7,920' from the quotation]", "source": "Annuity quotation",
     "period": "2026", "confidence": 0.7, "interpretation": "the guaranteed rate applies"},
    {"agent": "Letter", "metric": "annuity_income", "value": 7680, "unit": "GBP per year",
     "citation": "[Per extraction: 'your annuity will be £7,680 a year' from the provider's letter]",
     "source": "Provider's letter", "period": "2026", "confidence": 0.7, "interpretation": "the guarantee ran out"}]
_ANNUITY_EVIDENCE = [
    {"id": "QUOTE", "source": "Annuity quotation (fictitious)", "authority": "provider", "date": "2026-03-03",
     "text": "Annual income £7,920 before tax, guaranteed until 17 March 2026."},
    {"id": "LETTER", "source": "Provider's letter (fictitious)", "authority": "provider", "date": "2026-03-24",
     "text": "Your money was allocated on 18 March, after the guarantee; your annuity will be £7,680 a year."}]


def test_close_figures_the_question_names_both_of_go_to_a_person(tmp_path):
    question = ("The quote gave £7,920 a year, guaranteed until 17 March; the provider's letter says £7,680 a "
                "year. What annual income will the (fictitious) annuity pay?")
    verdict = _run(tmp_path, _arbitration(question, _ANNUITY, _ANNUITY_EVIDENCE), "arbitration")
    assert verdict["needs_human_review"] is True
    assert "escalate.differ_under_threshold" in verdict["applied_rules"], verdict["applied_rules"]
    verdict = _run(tmp_path, _arbitration("What annual income will the (fictitious) annuity pay?", _ANNUITY,
                                          _ANNUITY_EVIDENCE), "arbitration")
    assert "escalate.differ_under_threshold" not in verdict["applied_rules"], verdict["applied_rules"]
