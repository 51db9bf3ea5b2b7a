"""The sample cases keep their verdicts: each sample, run offline under the protocol it was written
for, is sent to a human or not, and scores right or not against its `expected`, as pinned here. A
change that moves one of these is a change in what a new user sees first; make it on purpose."""

from __future__ import annotations

import pytest

from debate_core.core.cases import load_case, sample_cases
from debate_core.evaluation import scoring
from debate_core.jobs.debates import run_debate

# case -> (sent to a human, right against `expected`, rounds, converged)
# The cross-critique samples moved when claims were bounded to 130 characters (core/schemas.py, so
# that a small local model's longest reply fits its cap), and again when the offline agents learned
# to state a claim that fits rather than cut one (core/text.py `best_span`) and the moderator to send
# a final answer its writer gives less than 50% to a person (`unsure_verdict`). Each is still sent to
# a human or right, as before.
PINNED = {
    # The agreed claims do not answer the question and the card says so, flagged: the agents could not
    # assess who inherits, and no critique was raised in round 1 by one agent (echo-chamber risk).
    "adat_bali_daughter_heir": (True, False, 2, True),
    # A MAJOR conflict over the certificate stays open and the agents are unsure: flagged after round 2.
    # The answer names the source its opening claim rests on, which the reference asks for: right.
    "adat_minangkabau_inheritance": (True, True, 2, True),
    "arbitration_agreeing_reports": (False, True, 0, True),
    "arbitration_qatar_labour": (True, True, 1, False),
    "dialectic_contract_enforceability": (False, True, 2, True),
    # Built from a PDF (scripts/make_sample_document.py): the Third Amendment's passage answers it.
    # Two Fourth Amendment passages were once read as a conflict (a negation about another point of
    # the same sentence); a contradiction now needs the negation to deny the shared point: right,
    # and it stands without a reviewer.
    "documents_bill_of_rights": (False, True, 2, True),
    # The legitieme portie is one half of the intestate share in the agents' claims, not the quarter of
    # the estate the question needs; two conflicts stay open: wrong, and sent to a human.
    "national_will_formalities": (True, False, 2, True),
    "panel_laptop_review": (False, True, 2, True),
    "panel_restaurant_review": (False, True, 2, True),
    # Two rounds: the knowledge-graph reasoner reads no log line, so the reasoners disagree in round 1;
    # it cites the passages the judge names in round 2, and the top score (already 100) plateaus.
    "refinement_hdfs_datanode": (False, True, 2, True),
}


def test_every_sample_is_pinned():
    assert sorted(PINNED) == sorted(p.stem for p in sample_cases())


@pytest.mark.parametrize("name", sorted(PINNED))
def test_sample_keeps_its_verdict(name):
    case = load_case(next(p for p in sample_cases() if p.stem == name))
    result = run_debate(case, (case.model_extra or {})["protocol"])
    assert result.status == "completed"
    flagged = result.verdict.needs_human_review
    right = scoring.score(result.verdict.answer, flagged, case.expected).right
    assert (flagged, right, result.rounds, result.converged) == PINNED[name]
    # The wrong answers are all sent to a human: none is silently wrong.
    assert flagged or right
