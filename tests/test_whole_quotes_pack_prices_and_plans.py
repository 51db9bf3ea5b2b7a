"""A citation is quoted whole, apostrophes and inner quotes included; a change in the price of a
pack and a change in its price per 100 g measure different things, and terms that show both side by
side set neither; two shares are not separated by a "difference" found in a passage; a reader who
asks whether a review is a good one or not leaves its meaning open; a label is shown with what the
reviewer says they will do next. Driven through the CLI on cases written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _run
from test_panel_aspect_quotes import _one_text, _verdict
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.protocols.arbitration.contradictions import cited_words
from debate_core.protocols.arbitration.measures import difference_counted, per_unit_against_whole
from debate_core.protocols.panel.rules.intent import stated_intent


def test_a_citation_is_quoted_whole():
    assert cited_words("[Per extraction: 'Time: 21.84 s. Note: thrower held on 'Go' for a lull' from the "
                       "score sheet]") == "Time: 21.84 s. Note: thrower held on 'Go' for a lull"
    assert cited_words("[Per extraction: 'on what you've sent us, that's 22' from the office's email]") \
        == "on what you've sent us, that's 22"
    assert cited_words("[Per extraction: 'Overall similarity 41%' and 'Similarity 7%' from the reports]") \
        == "Overall similarity 41%"
    assert cited_words("no quote here") == ""


def test_the_kept_figures_record_is_cited_with_its_inner_quotes(tmp_path):
    reports = [
        {"agent": "Timekeeper", "metric": "fast_catch_time", "value": 24.1, "unit": "s",
         "citation": "[Per extraction: 'Time: 24.10 s. Note: thrower waited on 'Go' for the gust to drop' from the "
                     "score sheet]", "source": "Official timekeeper", "period": "June 2026", "confidence": 0.7,
         "interpretation": "Her time is 24.10 s"},
        {"agent": "Video", "metric": "fast_catch_time", "value": 22.0, "unit": "s",
         "citation": "[Per extraction: 'Clip length 22.0 s' from the clip]", "source": "Video clip",
         "period": "June 2026", "confidence": 0.5, "interpretation": "Her time is 22.0 s"}]
    evidence = [
        {"id": "SHEET", "source": "Score sheet, June 2026 (fictitious)", "authority": "official", "date": "2026-06-13",
         "text": "Fast catch, thrower R. Vale. Time: 24.10 s. Note: thrower waited on 'Go' for the gust to drop."},
        {"id": "RULES", "source": "Club rules, 2025 (fictitious)", "authority": "club rules", "date": "2025-03-01",
         "text": "In the fast catch the timekeeper's recorded time is the only time accepted."},
        {"id": "CLIP", "source": "Video clip caption, June 2026 (fictitious)", "authority": "social media",
         "date": "2026-06-13", "text": "Her fast catch! Clip length 22.0 s."}]
    verdict = _run(tmp_path, _arbitration("What was her fast catch time?", reports, evidence), "arbitration")
    assert "(Timekeeper cites 'Time: 24.10 s. Note: thrower waited on 'Go' for the gust to drop')" \
        in verdict["answer"], verdict["answer"]


PACK_REPORTS = [
    {"agent": "ShopPerPack", "metric": "coffee_price_rise", "value": 5.0, "unit": "%",
     "citation": "[Per extraction: 'went up by 5% in May, from £6.00 to £6.30' from the shop's email]",
     "source": "Shop customer services", "period": "January to May 2026", "confidence": 0.7,
     "interpretation": "The price went up by 5%"},
    {"agent": "ReaderPer100g", "metric": "coffee_price_rise", "value": 31.3, "unit": "%",
     "citation": "[Per extraction: 'Was £2.40 per 100 g, now £3.15' from the reader's letter]",
     "source": "Reader's letter", "period": "January to May 2026", "confidence": 0.6,
     "interpretation": "The price went up by 31%"}]


def _pack_evidence(labels: str) -> list[dict]:
    return [
        {"id": "LABELS", "source": "Shelf pricing, as commonly summarised from trading standards guidance",
         "authority": "guidance", "text": labels},
        {"id": "OLD", "source": "Ground coffee, 250 g bag and shelf label, January 2026 (fictitious)",
         "authority": "product label", "date": "2026-01-10", "text": "Net weight 250 g. Shelf label: £6.00; £2.40 per 100 g."},
        {"id": "NEW", "source": "Ground coffee, 200 g bag and shelf label, May 2026 (fictitious)",
         "authority": "product label", "date": "2026-05-10", "text": "Net weight 200 g. Shelf label: £6.30; £3.15 per 100 g."},
        {"id": "EMAIL", "source": "Email from the shop's customer services, May 2026 (fictitious)", "authority": "company",
         "date": "2026-05-12", "text": "The price of the ground coffee went up by 5% in May, from £6.00 to £6.30, a rise we regret."},
        {"id": "LETTER", "source": "Reader's letter to a local paper, May 2026 (fictitious)", "authority": "press",
         "date": "2026-05-14", "text": "Was £2.40 per 100 g, now £3.15. That coffee price rise is nearly a third."}]


def test_a_pack_price_change_and_a_price_per_100_g_change_both_stand(tmp_path):
    labels = ("Shelf labels commonly show a unit price (per 100 g or per kg) as well as the price of the pack, so "
              "that packs of different sizes can be compared.")
    verdict = _run(tmp_path, _arbitration("Did the price of the ground coffee rise by 5% or by 31%?", PACK_REPORTS, _pack_evidence(labels)),
                   "arbitration")
    assert "both valid" in verdict["answer"], verdict["answer"]
    assert "31.3% is counted per g, 5% for the whole, so they measure different things" in verdict["answer"]
    # The points between the two shares are no count a passage gives ("£6.30" is not 26.3).
    assert "the difference," not in verdict["answer"]


def test_terms_that_set_one_measure_still_decide(tmp_path):
    labels = "Price changes are compared per 100 g, so that packs of different sizes can be compared."
    verdict = _run(tmp_path, _arbitration("Did the price of the ground coffee rise by 5% or by 31%?", PACK_REPORTS, _pack_evidence(labels)),
                   "arbitration")
    assert "Use 31.3%" in verdict["answer"], verdict["answer"]
    assert "both valid" not in verdict["answer"]


def test_a_percentage_change_is_counted_per_what_its_prices_are_counted_per():
    per_100g = "Was £2.40 per 100 g, now £3.15"
    assert per_unit_against_whole("from £6.00 to £6.30", per_100g, "5%", "31.3%", "%", "%")
    # A figure that is not a percentage keeps the prices it is worked from as rates it carries.
    assert per_unit_against_whole("from £6.00 to £6.30", per_100g, "£6.30", "£3.15", "GBP", "GBP") is None


def test_no_difference_is_counted_between_two_shares():
    from debate_core.core.schemas import Evidence
    kpi = [Evidence(id="KPI", source="KPI return (fictitious)", text="Not met: 61 repeats after day 5.")]
    assert difference_counted(99.6, "%", 94.6, "%", kpi) == ""
    counted = [Evidence(id="LOG", source="Log (fictitious)", text="17 started in a chimney before spreading.")]
    assert "the difference, 17, is counted in LOG" in difference_counted(148, "fires", 131, "fires", counted)


def test_a_reader_asking_whether_it_is_a_good_review_or_not_leaves_it_open(tmp_path):
    text = ("Tried the Tuesday beginners' session. The ball doesn't bounce and neither do I. Coach has a lot of "
            "energy. A LOT. £7 a session.")
    case = _one_text("futsal_try", "Futsal review", "review", text, "Review of a (fictitious) futsal session")
    comments = {"id": "R2", "source": "Comments under the review (fictitious)", "authority": "forum",
                "text": "Sounds about right for week one / So is this a good review or not?"}
    verdict = _verdict(tmp_path, {**case, "evidence": [*case["evidence"], comments]})
    assert verdict["needs_human_review"] is True
    assert any('a reader in R2 asks "So is this a good review or not?"' in r for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_review_is_answered_with_what_its_author_says_they_will_do(tmp_path):
    text = ("My first ever cyclo-cross race. The marshals were brilliant and cheered every one of us. The catering "
            "was lovely. Already entered for next Sunday.")
    case = _one_text("cx_debut", "Race review", "review", text, "Review of a (fictitious) race")
    case["question"] = case["question"].rstrip("?") + " And what is the sentiment towards each aspect (marshals, catering)?"
    case["signals"] = {"text": text, "language": "en", "aspect_terms": ["marshals", "catering"],
                       "stage1_ate": {"label": "positive", "confidence": 0.7},
                       "stage1_atsa": {"aspect_sentiments": [
                           {"aspect": "marshals", "polarity": "positive", "confidence": 0.8},
                           {"aspect": "catering", "polarity": "positive", "confidence": 0.8}]}}
    verdict = _verdict(tmp_path, case)
    assert verdict["answer"].startswith("The overall sentiment is positive"), verdict["answer"]
    assert 'What the reviewer says they will do: "Already entered for next Sunday".' in verdict["answer"]


def test_stated_intent_reads_plans_not_descriptions():
    assert stated_intent("Lovely staff. We'll definitely be back.") == ["We'll definitely be back"]
    assert stated_intent("The blender broke in a week. It's gone back.") == ["It's gone back"]
    assert stated_intent("Would not recommend. Never again.") == ["Would not recommend", "Never again"]
    assert stated_intent("I went back to my car for a coat. The guide was great.") == []
    assert stated_intent("The food was fine.") == []


def test_data_sizes_convert_between_decimal_and_binary_units(tmp_path):
    from debate_core.protocols.arbitration.contradictions import convertible
    mib, gb = convertible("MiB", "GB")
    assert abs(2048 * mib - 2.147483648 * gb) < 1
    assert convertible("GiB", "kg") is None
    reports = [
        {"agent": "Inspect", "metric": "container_memory_limit", "value": 2048, "unit": "MiB",
         "citation": "[Per extraction: 'Memory: 2147483648 (2048 MiB)' from the inspect output]",
         "source": "Container inspect output", "period": "3 March 2026", "confidence": 0.7,
         "interpretation": "The limit is 2,048 MiB"},
        {"agent": "Stats", "metric": "container_memory_limit", "value": 2.147, "unit": "GB",
         "citation": "[Per extraction: 'MEM LIMIT 2.147GB' from the stats output]", "source": "Stats output",
         "period": "3 March 2026", "confidence": 0.6, "interpretation": "The limit is 2.147 GB"}]
    evidence = [
        {"id": "INSPECT", "source": "Container inspect output, 3 March 2026 (fictitious)", "authority": "official",
         "date": "2026-03-03", "text": "Container memory limit. Memory: 2147483648 (2048 MiB)."},
        {"id": "STATS", "source": "Container stats output, 3 March 2026 (fictitious)", "authority": "official",
         "date": "2026-03-03", "text": "Container memory limit. MEM LIMIT 2.147GB."}]
    verdict = _run(tmp_path, _arbitration("What is the container memory limit?", reports, evidence), "arbitration")
    assert verdict["answer"].startswith("The reports agree"), verdict["answer"]
    assert "the same figure once converted" in verdict["answer"]


def test_two_versions_are_two_answers_however_close(tmp_path):
    from debate_core.protocols.arbitration.scales import names_a_version
    assert names_a_version("Gradle version") and names_a_version("firmware release")
    assert not names_a_version("GB") and not names_a_version("%")
    reports = [
        {"agent": "Ticket", "metric": "minimum_tool_version", "value": 4.2, "unit": "tool version",
         "citation": "[Per extraction: 'Minimum version: 4.2' from the platform ticket]", "source": "Platform ticket",
         "period": "May 2026", "confidence": 0.6, "interpretation": "Version 4.2 is enough"},
        {"agent": "Matrix", "metric": "minimum_tool_version", "value": 4.3, "unit": "tool version",
         "citation": "[Per extraction: 'Runs on the new runtime from 4.3' from the compatibility matrix]",
         "source": "Compatibility matrix", "period": "May 2026", "confidence": 0.7,
         "interpretation": "Version 4.3 is the minimum"}]
    evidence = [
        {"id": "TICKET", "source": "Platform ticket, May 2026 (fictitious)", "authority": "company",
         "date": "2026-05-12", "text": "Minimum tool version for the new runtime. Minimum version: 4.2."},
        {"id": "MATRIX", "source": "Tool compatibility matrix (fictitious)", "authority": "official",
         "date": "2026-04-01", "text": "Minimum tool version for the new runtime. Runs on the new runtime from 4.3."}]
    verdict = _run(tmp_path, _arbitration("What is the minimum tool version for the new runtime?", reports, evidence),
                   "arbitration")
    assert "too close for the protocol" not in verdict["answer"], verdict["answer"]
    assert "1 contradiction(s)" in verdict["answer"], verdict["answer"]
