"""A proposal the body did not adopt adds no condition to a rule; a reader asking whether a review is
"a thank-you or a complaint" leaves its meaning open; results due on a date after what they will
hold are still to come; "Nothing's changed" reports no change; a passage with no declared authority
whose source is a forum, a chat or a Slack channel stands as hearsay. Driven through the CLI where a
verdict shows it, on cases written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run
from test_panel_aspect_quotes import _one_text, _verdict

from debate_core.core.schemas import Case, Evidence
from debate_core.core.text import evidence_authority, states_doubt
from debate_core.protocols.dialectic.agent.cues import cue_kind, hearsay_passages, not_adopted
from debate_core.protocols.refinement.agent.reading import changes_in

POOL = _rule_case(
    "pool_lane_hire",
    "Knowledge gap: write one ASP rule defining may_hire_lane(C) with the knowledge-base predicates, so that it "
    "agrees with the (fictitious) Eastmere Leisure Trust's rules in May 2026.",
    "Predicates, over a club C: affiliated(C): C is affiliated to the national swimming body; "
    "coach_on_poolside(C): C has a qualified coach on poolside; lifeguard_own(C): C provides its own lifeguard; "
    "owes_fees(C): C owes the trust fees.",
    [{"id": "RULES", "source": "Lane hire conditions, 2025 (fictitious)", "authority": "company rules",
      "date": "2025-09-01",
      "text": "Clubs hiring a lane must be affiliated to the national swimming body and must have a qualified coach "
              "on poolside. A club that owes fees may not hire a lane."},
     {"id": "MINUTES", "source": "Board minutes, 14 April 2026 (fictitious)", "authority": "company rules",
      "date": "2026-04-14",
      "text": "Item 4: Proposal to require clubs to provide their own lifeguard: not carried, 2-5. "
              "The existing conditions are unchanged."}])


def test_a_proposal_not_carried_adds_no_condition_to_the_rule(tmp_path):
    answer = _run(tmp_path, POOL, "dialectic")["answer"]
    assert "affiliated(C)" in answer and "coach_on_poolside(C)" in answer and "not owes_fees(C)" in answer
    assert "lifeguard_own(C)" not in answer.split("As an ASP rule:", 1)[1].split(".")[0]


def test_the_same_proposal_carried_is_a_condition(tmp_path):
    carried = {**POOL, "evidence": [*POOL["evidence"][:2], {**POOL["evidence"][2], "text": (
        "Item 4: Clubs must provide their own lifeguard from 1 May 2026, carried 5-2.")}]}
    answer = _run(tmp_path, carried, "dialectic")["answer"]
    assert "lifeguard_own(C)" in answer.split("As an ASP rule:", 1)[1].split(".")[0]


def test_failed_proposals_are_told_by_what_they_would_have_done():
    assert not_adopted("Proposal to require a dead letter queue: not carried, as queues belong to consumers.") == "adds"
    assert not_adopted("Resolution 3, to require all seed to be grown locally, was lost (12-28).") == "adds"
    assert not_adopted("The motion to drop the buddy rule was lost, so the buddy rule stays.") == "drops"
    assert not_adopted("Coach approval was voted down.") == "adds"
    assert not_adopted("Proposal to cut the minimum age to 16: not carried.") == "drops"
    assert not_adopted("Proposal that anyone with a cut must wear gloves: not carried.") == "adds"
    assert not_adopted("The motion was carried: members must live in the parish.") is None
    assert not_adopted("Proposal to let 16- and 17-year-olds wade with a parent's consent: not carried.") == "permits"
    # A failed proposal to let more in keeps the rule the sentence goes on to state.
    assert cue_kind("Proposal to let 16-year-olds wade: not carried, 4-5; waders must still be 18 or over.") == "obligation"
    assert cue_kind("Members must live in the parish.") == "obligation"


def test_a_reader_asking_if_a_review_is_thanks_or_a_complaint_leaves_it_open(tmp_path):
    text = ("The new driver certainly keeps us guessing - you never know when he'll come, but he always comes in "
            "the end. Deliveries arrive when they arrive. Honestly, no idea what we'd do without them.")
    case = _one_text("van_review", "A delivery review", "review of a delivery service", text,
                     "Review on a reviews website (fictitious)")
    case["evidence"].append({"id": "T2", "source": "Comments under the review (fictitious)",
                             "text": "Is this a thank-you or a complaint? / ours is great"})
    verdict = _verdict(tmp_path, case)
    assert verdict["needs_human_review"] is True
    assert any('a reader in T2 asks "Is this a thank-you or a complaint?"' in r for r in verdict["escalation_reasons"])


def test_results_due_after_what_they_will_hold_are_still_to_come():
    assert states_doubt("Results, with an estimate of the mode effect by route group, due on 12 June.")
    assert states_doubt("Results of the swab tests expected 3 May.")
    assert not states_doubt("The results were as expected on Monday.")
    assert not states_doubt("Results fell due to Monday's outage.")


def test_nothings_changed_reports_no_change():
    assert changes_in("Operations director: 'Nothing's changed on the road that would knock nine points off.'") == ()
    assert changes_in("The valve was changed on Monday.") == ("changed",)


def test_a_chat_or_forum_source_without_a_declared_authority_is_hearsay():
    chat = Evidence(id="CHAT", source="Messages in the developers' Slack channel, March 2026", text="you need a DLQ now")
    forum = Evidence(id="FORUM", source="Replies to a post on a smallholders' forum", text="no licence needed")
    act = Evidence(id="ACT", source="Dangerous Wild Animals Act 1976, as commonly summarised", text="A licence is needed.")
    declared = Evidence(id="WA", source="WhatsApp message from the regulator's officer", authority="official",
                        text="A licence is needed.")
    assert evidence_authority(chat) == evidence_authority(forum) < evidence_authority(act) == 0.5
    assert evidence_authority(declared) > 0.8  # a declared authority is the passage's own word
    # A business's own customer service chat is the business speaking, not hearsay.
    service = Evidence(id="SVC", source="Ardle Water customer service chat transcript", text="The bill is correct.")
    assert evidence_authority(service) == 0.5
    case = Case(id="c", title="c", question="Who may publish?", evidence=[chat, forum, act, declared])
    assert hearsay_passages(case) == {"CHAT", "FORUM"}


WADE = _rule_case(
    "river_wading",
    "Knowledge gap: write one ASP rule defining may_wade(P) with the knowledge-base predicates, so that it agrees "
    "with the (fictitious) Ashwell River Watch's rules in May 2026.",
    "Predicates, over a volunteer P: registered(P): P is registered with the group; briefed(P): P attended the "
    "day's safety briefing; cuts_uncovered(P): P has a cut or graze on hands or arms not covered by a waterproof "
    "dressing; tetanus_ok(P): P says their tetanus vaccinations are up to date.",
    [{"id": "RULES", "source": "Volunteer handbook, 2026 (fictitious)", "authority": "company rules",
      "text": "Registered volunteers who attended the day's safety briefing may wade. "
              "(c) No one with an uncovered cut or graze on hands or arms may wade; the leader has plasters. "
              "(d) Tetanus stays advice only - we cannot check people's medical records."}])


def test_a_long_bar_defeats_the_rule_and_advice_bars_nothing(tmp_path):
    rule = _run(tmp_path, WADE, "dialectic")["answer"].split("As an ASP rule:", 1)[1].split("Left out", 1)[0]
    assert "registered(P)" in rule and "briefed(P)" in rule
    assert "not cuts_uncovered(P)" in rule
    assert "tetanus_ok" not in rule
