"""The baselines' rules: the compared protocol's review threshold and the majority vote."""

from __future__ import annotations

from debate_core.engine.spec import LOW_CONFIDENCE
from debate_core.protocols import get_spec
from debate_core.protocols.baselines import rules


def test_each_protocol_lends_its_own_review_threshold():
    assert rules.review_threshold("panel", {"review_confidence": 0.65}) == 0.65
    assert rules.review_threshold("refinement", {"review_score_threshold": 85}) == 0.85  # scores are 0-100
    assert rules.review_threshold("dialectic", {"review_below_confidence": 0.4}) == 0.4
    assert rules.review_threshold("arbitration", {"min_resolution_confidence": 0.7}) == 0.7
    assert rules.review_threshold("cross_critique", {}) == LOW_CONFIDENCE  # no option: the common rule
    # Read from each spec's validated defaults, by the option the spec names.
    for protocol in ("panel", "refinement", "dialectic", "arbitration"):
        key = rules.threshold_option(protocol)
        assert key in get_spec(protocol).options_model.model_fields
        assert 0 < rules.review_threshold(protocol, get_spec(protocol).options({})) < 1


def test_labels_vote_exactly_once_normalised():
    vote = rules.majority_vote(["Mixed.", "mixed", " MIXED! ", "positive"])
    assert vote.majority and vote.groups == [[0, 1, 2], [3]] and vote.counts == [3, 1]
    assert not rules.same_answer("mixed", "mixed positive")
    assert not rules.same_answer("no", "The answer is no, because the rent may not be withheld")


def test_free_text_answers_group_by_shared_words():
    a = "The permit is granted because the fee was paid on time"
    b = "The permit is granted since the fee was paid on time"
    c = "The request is refused for lack of documents"
    assert rules.same_answer(a, b) and not rules.same_answer(a, c)
    vote = rules.majority_vote([c, a, b])
    assert vote.groups == [[1, 2], [0]] and vote.majority


def test_no_majority_flags_and_ties_go_to_the_first_answer():
    vote = rules.majority_vote(["yes", "no", "partly"])
    assert not vote.majority and vote.winner == [0]
    assert rules.no_majority(vote) == "the 3 samples gave no majority answer (groups of 1, 1, 1)"
    even = rules.majority_vote(["yes", "no", "no", "yes"])
    assert not even.majority and even.winner == [0, 3]  # half is not a majority
    assert rules.no_majority(rules.majority_vote(["yes", "yes", "no"])) is None


def test_confidence_of_a_vote_and_the_low_confidence_rule():
    assert rules.vote_confidence([0.8, 0.2, 0.6], [0, 2]) == 0.7
    assert rules.low_confidence(0.49, 0.5) is not None and rules.low_confidence(0.5, 0.5) is None
