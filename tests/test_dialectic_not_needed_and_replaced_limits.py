"""A rule's conditions where a text says one does not matter, or replaces a limit written in words
("this replaces the six-month limit"). Driven through the CLI on cases written here (fictitious)."""

from __future__ import annotations

from test_cc_dialectic_traps import _rule_case, _run

from debate_core.protocols.dialectic.agent.cues import cue_kind
from debate_core.protocols.dialectic.amendments import withdrawn_names

_VOCABULARY = ("Predicates, over an applicant A: club_member(A): A is a member of the rowing club; "
               "lives_in_county(A): A lives in the county; within_6m(A): A applies within 6 months of joining; "
               "within_12m(A): A applies within 12 months of joining; coached_before(A): A was coached by a club "
               "coach before joining; previous_bursary(A): A has already had a bursary.")


def _bursary_case(leaflet_extra: str = "") -> dict:
    return _rule_case(
        "rowing_bursary",
        "Knowledge gap: write one ASP rule defining may_get_bursary(A) with the knowledge-base predicates, so that "
        "it agrees with the club's bursary scheme as it stands from 1 May 2026.",
        _VOCABULARY,
        [{"id": "LEAFLET", "source": "Rowing club bursary leaflet, 2024 (fictitious)", "authority": "club rules",
          "date": "2024-03-01",
          "text": "Club members - beginners coached by a club coach, improvers or returners - can apply as long as "
                  "they live in the county. Applications must reach us within six months of joining. We pay one bursary "
                  "per member, so if you have already had one we can't pay another." + leaflet_extra},
         {"id": "DECISION", "source": "Committee decision, 3 April 2026 (fictitious)", "authority": "club rules",
          "date": "2026-04-03",
          "text": "From 1 May 2026 members may apply up to twelve months after joining; this replaces the "
                  "six-month limit. The other conditions are unchanged."}])


def test_a_limit_the_decision_replaces_in_words_leaves_the_rule(tmp_path):
    assert withdrawn_names("Members may now apply within twelve months; this replaces the six-month limit.",
                           {"within_6m": "A applies within 6 months of joining",
                            "within_12m": "A applies within 12 months of joining"}) == ["within_6m"]
    verdict = _run(tmp_path, _bursary_case(), "dialectic")
    rule = verdict["answer"].split("As an ASP rule: ", 1)[1].split(".")[0]
    assert "within_12m(A)" in rule and "within_6m" not in rule, verdict["answer"]
    assert "not previous_bursary(A)" in rule, verdict["answer"]


def test_a_sentence_that_says_a_condition_does_not_matter_keeps_it_out(tmp_path):
    said = " It doesn't matter whether you were coached by a club coach before joining."
    assert cue_kind(said.strip()) == "not_required"
    verdict = _run(tmp_path, _bursary_case(said), "dialectic")
    rule = verdict["answer"].split("As an ASP rule: ", 1)[1].split(".")[0]
    assert "coached_before" not in rule, verdict["answer"]
    assert "club_member(A)" in rule and "lives_in_county(A)" in rule, verdict["answer"]
