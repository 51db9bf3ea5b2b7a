"""Rules of the two baselines an evaluation compares a protocol with: one agent answering alone
(`single`) and a majority vote over independent single agents (`majority`, after Du et al.).

A baseline is held to the same bar as the protocol it is compared with: its answer goes to a human
when its confidence is below that protocol's review threshold, or, for a vote, when no answer has
a majority. Short answers (labels such as "mixed" or "no") vote exactly, after normalising case,
spacing and punctuation; longer free-text answers are grouped by how many content words they share.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.text import content_tokens, jaccard, stem
from .. import get_spec

# An answer of at most this many words is a label and votes exactly.
LABEL_MAX_WORDS = 3
# Two free-text answers share this much of their content words (Jaccard) to count as the same answer.
SIMILAR_ANSWERS = 0.5

def review_threshold(protocol: str, options: Mapping[str, Any] | Any) -> float:
    """Rule: a baseline compared with `protocol` is reviewed below the confidence that protocol's
    own moderator reviews at (its spec's `review_threshold` option, else the common threshold).
    `options` are the protocol's validated options (a model or a dict)."""
    return get_spec(protocol).review_bar(options)


def threshold_option(protocol: str) -> str | None:
    """The name of the protocol's review-threshold option, or None when it has none."""
    found = get_spec(protocol).review_threshold
    return found[0] if found else None


def normalise(answer: str) -> str:
    """An answer as it votes: NFKC, lower case, punctuation dropped, spaces collapsed."""
    text = unicodedata.normalize("NFKC", answer or "").lower()
    text = re.sub(r"[^\w\s]", " ", text).replace("_", " ")
    return " ".join(text.split())


def is_label(answer: str) -> bool:
    words = normalise(answer).split()
    return 0 < len(words) <= LABEL_MAX_WORDS


def _terms(answer: str) -> set[str]:
    return {stem(t) for t in content_tokens(answer)}


def same_answer(a: str, b: str, similarity: float = SIMILAR_ANSWERS) -> bool:
    """Rule: two labels are the same answer when they are equal once normalised; two free-text
    answers when their content words overlap at least `similarity` (Jaccard); a label and a free
    text never are."""
    if is_label(a) or is_label(b):
        return normalise(a) == normalise(b)
    return jaccard(_terms(a), _terms(b)) >= similarity


@dataclass
class Vote:
    """The outcome of a vote: the groups of samples (indices) that gave the same answer, largest
    first, and whether the largest has more than half of the samples."""

    groups: list[list[int]]
    samples: int
    majority: bool
    counts: list[int] = field(default_factory=list)

    @property
    def winner(self) -> list[int]:
        return self.groups[0] if self.groups else []


def majority_vote(answers: Sequence[str], similarity: float = SIMILAR_ANSWERS) -> Vote:
    """Rule: group the answers (each joins the first group whose first answer it matches, see
    `same_answer`), and the largest group wins when it holds more than half of them. Among groups of
    equal size the one first given wins, so the vote is deterministic."""
    groups: list[list[int]] = []
    for i, answer in enumerate(answers):
        for group in groups:
            if same_answer(answers[group[0]], answer, similarity):
                group.append(i)
                break
        else:
            groups.append([i])
    groups.sort(key=lambda g: (-len(g), g[0]))
    majority = bool(groups) and len(groups[0]) * 2 > len(answers)
    return Vote(groups, len(answers), majority, [len(g) for g in groups])


def low_confidence(confidence: float, threshold: float) -> str | None:
    """Rule: an answer less confident than the compared protocol's review threshold goes to a human."""
    if confidence < threshold:
        return f"the answer's confidence ({confidence:.0%}) is below the review threshold ({threshold:.0%})"
    return None


def no_majority(vote: Vote) -> str | None:
    """Rule: a vote in which no answer has more than half of the samples goes to a human."""
    if vote.majority:
        return None
    split = ", ".join(str(n) for n in vote.counts)
    return f"the {vote.samples} samples gave no majority answer (groups of {split})"


def vote_confidence(confidences: Sequence[float], winner: Sequence[int]) -> float:
    """The confidence of a vote: the mean confidence of the samples that gave the winning answer."""
    if not winner:
        return 0.0
    return round(sum(confidences[i] for i in winner) / len(winner), 4)
