"""A panel label that rests on a point the panel could not assess (how a text was meant, which way a
review leans) is said to be provisional in the answer's opening, not only in the list at its end; a
decision its writers say is not yet taken ("don't treat this as agreed", "until the panel decides")
holds a rule open, and "until the board has decided" is no decision taken; and a figure counted per year is no rival to one for the whole. Driven through the
CLI on cases written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run
from test_panel_aspect_quotes import _one_text, _verdict
from test_pending_changes_variants_and_bases import _arbitration

from debate_core.core.text import states_doubt
from debate_core.protocols.arbitration.measures import per_unit_against_whole
from debate_core.protocols.dialectic.disputes import records_decision
from debate_core.protocols.panel.rules import label_doubts

_LIFT_TEXT = "Lift out again this morning. Fastest yet - 25 minutes. We're on first-name terms with the engineers now."


def test_a_label_resting_on_how_the_text_was_meant_is_provisional(tmp_path):
    case = _one_text("lift_review", "Lift firm review", "review", _LIFT_TEXT, "Review of a lift firm (fictitious)")
    case["evidence"].append({"id": "NOTE", "source": "Review platform's note (fictitious)", "authority": "platform",
                             "text": "Star ratings could not be carried over in the import; the author has not "
                                     "re-rated it and has not replied to our message."})
    verdict = _verdict(tmp_path, case)
    assert verdict["needs_human_review"] is True
    opening = verdict["answer"].split(" The panel could not assess:")[0]
    assert "That label is provisional: how the text was meant cannot be settled from the text alone." in opening


def test_a_label_no_doubt_touches_is_not_called_provisional(tmp_path):
    text = "The staff were friendly and the rooms were spotless. Breakfast was lovely too."
    verdict = _verdict(tmp_path, _one_text("hotel", "Hotel review", "review", text, "Review of a hotel (fictitious)"))
    assert "provisional" not in verdict["answer"]


def test_only_doubts_about_the_label_itself_are_named():
    items = ["the aspect parking (the text under review does not mention it)",
             "which way the text leans: read part by part it is positive, taken whole negative (VADER -0.19)",
             "which way the review leans: its text reads positive, while the reviewer's own rating (3 of 5) takes "
             "neither side", 'what the words marked "[inaudible]" said']
    assert label_doubts(items) == ["which way the review leans", "what its missing words said"]


def test_a_decision_its_writers_say_is_not_yet_taken_holds_the_rule_open(tmp_path):
    assert states_doubt("Please don't treat this as agreed.")
    assert states_doubt("The committee hasn't voted yet.")
    assert states_doubt("I won't prejudge the committee's vote.")
    assert states_doubt("Tell them we'll confirm after 3 June whether we can do it.")
    assert states_doubt("I think they'll agree, but I can't promise.")
    assert states_doubt("Until the board decides, keep taking bookings.")
    assert states_doubt("Looks fine in principle. We'll sign next week.")
    assert not states_doubt("In principle, members may bring one guest.")
    assert states_doubt("The receivers have accepted an offer of £415,000, subject to contract.")
    assert states_doubt("Sales can still fall through at this stage.")
    assert states_doubt("The site cannot verify whether this reviewer was the buyer.")
    assert not states_doubt("The site can verify that this reviewer was the buyer.")
    assert not states_doubt("Members who have not voted may vote by post.")
    assert not states_doubt("We can't promise to be quicker.")
    case = _rule_case(
        "allotment_shed_rule",
        "Knowledge gap: write one ASP rule defining may_build_shed(T) with the knowledge-base predicates, so that "
        "it agrees with the allotment society's rules for sheds put up in July 2026.",
        "Predicates, over a plot tenant T: full_plot(T): T rents a full plot; shed_under_6sqm(T): the shed is under "
        "6 square metres; committee_consent(T): the committee has approved the shed's position; "
        "timber_shed(T): the shed is made of timber.",
        [{"id": "RULES", "source": "Allotment society rules, 2023 (fictitious)", "authority": "society rules",
          "date": "2023-03-01",
          "text": "A tenant of a full plot may put up a shed under 6 square metres once the committee has "
                  "approved its position. Sheds must be made of timber."},
         {"id": "PROPOSAL", "source": "Committee minutes, 2 May 2026 (fictitious)", "authority": "committee",
          "date": "2026-05-02",
          "text": "Proposal to the annual meeting to allow metal sheds from 1 July 2026. The members vote at "
                  "the annual meeting on 20 July 2026."},
         {"id": "SECRETARY", "source": "Email from the secretary to tenants, 5 May 2026 (fictitious)",
          "authority": "committee", "date": "2026-05-05",
          "text": "Please don't treat this as agreed. The members haven't voted."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert verdict["needs_human_review"] is True
    assert any("SECRETARY" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]


_HUT_REPORTS = [
    {"agent": "Newspaper", "metric": "beach_hut_fee_change", "value": 50, "unit": "%",
     "citation": "[Per extraction: 'a beach hut now costs £900, up from £600 - a rise of 50%' from the Gazette]",
     "source": "Gazette", "period": "2026 against 2025", "confidence": 0.7,
     "interpretation": "the beach hut fee has risen 50%"},
    {"agent": "Council", "metric": "beach_hut_fee_change", "value": -25, "unit": "%",
     "citation": "[Per extraction: 'Per month of use, the cost has gone from £100 to £75 - a cut of 25%' from the "
                 "council's statement]", "source": "Council seafront service", "period": "2026 against 2025",
     "confidence": 0.7, "interpretation": "the cost per month has fallen 25%"}]
_HUT_EVIDENCE = [
    {"id": "GAZETTE", "source": "Gazette, March 2026 (fictitious)", "authority": "newspaper", "date": "2026-03-02",
     "text": "A beach hut now costs £900, up from £600 - a rise of 50%."},
    {"id": "STATEMENT", "source": "Council seafront service statement, March 2026 (fictitious)",
     "authority": "council", "date": "2026-03-03",
     "text": "The season now runs twelve months, not six. Per month of use, the cost has gone from £100 to £75 - a "
             "cut of 25%."}]


def test_a_figure_counted_per_month_and_one_for_the_whole_both_stand(tmp_path):
    question = "The seafront's beach hut fee is now £900. Has it gone up 50% or down 25%?"
    verdict = _run(tmp_path, _arbitration(question, _HUT_REPORTS, _HUT_EVIDENCE), "arbitration")
    assert "both valid" in verdict["answer"], verdict["answer"]
    assert "-25% is counted per month, 50% for the whole" in verdict["answer"], verdict["answer"]


def test_a_price_per_unit_or_whose_sketch_it_is_is_no_rate():
    assert per_unit_against_whole("'22.0 m² at £38.50 per m²' from the invoice", "18.4 m² measured", "22", "18.4") \
        is None
    assert per_unit_against_whole("'Patio area per client's sketch: 45'", "37.4 m² measured", "45", "37.4") is None


def test_a_decision_still_to_come_is_not_read_as_taken(tmp_path):
    assert records_decision("The committee has decided that metal sheds are allowed.")
    assert not records_decision("Until the committee has decided at its June meeting, keep to the 2023 rules.")
    case = _rule_case(
        "allotment_greenhouse_rule",
        "Knowledge gap: write one ASP rule defining may_build_greenhouse(T) with the knowledge-base predicates, so "
        "that it agrees with the allotment society's rules for greenhouses put up in July 2026.",
        "Predicates, over a plot tenant T: full_plot(T): T rents a full plot; committee_consent(T): the committee "
        "has approved the greenhouse's position; glass_greenhouse(T): the greenhouse is glazed with glass.",
        [{"id": "RULES", "source": "Allotment society rules, 2023 (fictitious)", "authority": "society rules",
          "date": "2023-03-01",
          "text": "A tenant of a full plot may put up a greenhouse once the committee has approved its position. "
                  "Glass greenhouses are not allowed."},
         {"id": "PAPER", "source": "Paper for the committee's June 2026 meeting (fictitious)", "authority": "committee",
          "date": "2026-05-20",
          "text": "Proposal: allow glass greenhouses from 1 July 2026 where the glass is toughened."},
         {"id": "CHAIR", "source": "Email from the chair to tenants, 25 May 2026 (fictitious)",
          "authority": "committee", "date": "2026-05-25",
          "text": "Until the committee has decided at its June meeting, keep to the 2023 rules."}])
    verdict = _run(tmp_path, case, "dialectic")
    assert verdict["needs_human_review"] is True
    assert any(r.startswith("CHAIR says the point is not yet decided") for r in verdict["escalation_reasons"]), \
        verdict["escalation_reasons"]


def test_a_rating_given_for_now_leaves_the_label_provisional(tmp_path):
    text = ("The bread is lovely and the staff are friendly, but my birthday cake order was wrong. Three stars for "
            "now. Will update when the manager gets back to me.")
    verdict = _verdict(tmp_path, _one_text("bakery_for_now", "Bakery review", "review", text,
                                           "Review of a bakery (fictitious)"))
    assert verdict["needs_human_review"] is True
    assert any("how its author now feels" in r for r in verdict["escalation_reasons"]), verdict["escalation_reasons"]
    assert "That label is provisional: how its author now feels cannot be settled" in verdict["answer"]


_ROOM_REPORTS = [
    {"agent": "Neighbour", "metric": "garden_room_floor_area", "value": 16.3, "unit": "m²",
     "citation": "[Per extraction: 'the roof is 4.8 m by 3.4 m, so 4.8 x 3.4 = 16.3 m²' from the neighbour's objection]",
     "source": "Neighbour's objection", "period": "May 2026", "confidence": 0.6,
     "interpretation": "the garden room is 16.3 m², over the 15 m² limit"},
    {"agent": "Builder", "metric": "garden_room_floor_area", "value": 13.2, "unit": "m²",
     "citation": "[Per extraction: 'Internal floor: 4.4 m x 3.0 m = 13.2 m²' from the completion certificate]",
     "source": "Building control completion certificate", "period": "May 2026", "confidence": 0.7,
     "interpretation": "the garden room is 13.2 m², within the limit"}]
_ROOM_EVIDENCE = [
    {"id": "OBJECTION", "source": "Neighbour's objection, May 2026 (fictitious)", "authority": "neighbour",
     "date": "2026-05-04",
     "text": "The garden room's floor area is too big: the roof is 4.8 m by 3.4 m, so 4.8 x 3.4 = 16.3 m², over the "
             "limit."},
    {"id": "CERTIFICATE", "source": "Building control completion certificate, May 2026 (fictitious)",
     "authority": "official", "date": "2026-05-12",
     "text": "Garden room, internal floor area: 4.4 m x 3.0 m = 13.2 m². Internal floor: 4.4 m x 3.0 m = 13.2 m²."},
    {"id": "GUIDE", "source": "Council guidance on garden rooms (fictitious)", "authority": "council guidance",
     "date": "2025-01-01",
     "text": "Floor area is measured inside the walls. A roof that is 3.4 m wide with its overhang is not 3.4 m "
             "of floor."}]


def test_the_evidence_saying_how_the_other_figure_went_wrong_is_quoted(tmp_path):
    question = "What is the floor area of the (fictitious) Larchmere garden room, against the 15 m² limit?"
    verdict = _run(tmp_path, _arbitration(question, _ROOM_REPORTS, _ROOM_EVIDENCE), "arbitration")
    answer = verdict["answer"]
    assert "Builder's 13.2" in answer.split("accepted over")[0], answer
    assert ("Council guidance on garden rooms (fictitious) says of the other figure's working: \"A roof that is "
            "3.4 m wide with its overhang is not 3.4 m of floor\"") in answer, answer


_DEPOSIT_REPORTS = [
    {"agent": "Landlord", "metric": "days_to_protect_deposit", "value": 25, "unit": "days",
     "citation": "[Per extraction: 'protected on 26 May, 25 days after the tenancy began on 1 May' from the landlord's "
                 "email]", "source": "Landlord's email", "period": "2026", "confidence": 0.6,
     "interpretation": "Counting from the tenancy, the deposit was protected in 25 days, within the 30"},
    {"agent": "Scheme", "metric": "days_to_protect_deposit", "value": 41, "unit": "days",
     "citation": "[Per extraction: 'deposit received 15 April, protected 26 May: 41 days' from the scheme's "
                 "certificate]", "source": "Deposit scheme certificate", "period": "2026", "confidence": 0.7,
     "interpretation": "The deposit was received on 15 April and protected 41 days later"}]
_DEPOSIT_EVIDENCE = [
    {"id": "EMAIL", "source": "Landlord's email, June 2026 (fictitious)", "authority": "landlord", "date": "2026-06-02",
     "text": "The deposit was protected on 26 May, 25 days after the tenancy began on 1 May."},
    {"id": "CERTIFICATE", "source": "Deposit scheme certificate (fictitious)", "authority": "official",
     "date": "2026-05-26", "text": "Deposit received 15 April, protected 26 May: 41 days to protect the deposit."},
    {"id": "GUIDANCE", "source": "Deposit scheme guidance (fictitious)", "authority": "official guidance",
     "date": "2025-01-01",
     "text": "The 30 days run from the day the landlord receives the deposit. The start of the tenancy does not "
             "start them."}]


def test_what_the_other_figure_was_counted_from_is_answered_by_the_evidence(tmp_path):
    question = "How many days did the (fictitious) landlord take to protect the deposit, against the 30-day limit?"
    verdict = _run(tmp_path, _arbitration(question, _DEPOSIT_REPORTS, _DEPOSIT_EVIDENCE), "arbitration")
    answer = verdict["answer"]
    assert "Scheme's 41" in answer.split("accepted over")[0], answer
    assert "says of the other figure's working: \"The start of the tenancy does not start them\"" in answer, answer


def test_what_a_notice_no_longer_holds_back_for_is_withdrawn_and_said_so(tmp_path):
    case = _rule_case(
        "library_loans_fines",
        "Knowledge gap: write one ASP rule defining may_borrow(M) with the knowledge-base predicates, so that it "
        "agrees with the library's rules as they stand in May 2026.",
        "Predicates, over a person M: member(M): M holds a library card; other_fines(M): M owes the library money "
        "other than lost-book charges (late returns, printing); lost_book_charge(M): M owes a charge for a lost book.",
        [{"id": "RULES", "source": "Library lending rules, 2024 (fictitious)", "authority": "library rules",
          "date": "2024-01-10",
          "text": "Members may borrow books. We hold back loans while a member owes us anything: late-return "
                  "fines, printing or lost-book charges."},
         {"id": "NOTICE", "source": "Library notice, 1 April 2026 (fictitious)", "authority": "library rules",
          "date": "2026-04-01",
          "text": "From today the library will no longer refuse loans because of money owed other than lost-book "
                  "charges. Lost-book charges still stop loans."}])
    verdict = _run(tmp_path, case, "dialectic")
    answer = verdict["answer"]
    assert "not lost_book_charge(M)" in answer and "other_fines" not in answer.split("Left out")[0], answer
    assert "Left out as withdrawn: other_fines (NOTICE:" in answer, answer
