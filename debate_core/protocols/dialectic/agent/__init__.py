"""Offline agents for the dialectic protocol (the dialectic source protocol): generator, critic and synthesizer.

They read the question and the passages, nothing else. Sentences state rules through general cues
(`data/lexicons/rule_cues_en.txt`: "must", "need not", "unless", "void", ...).

- ASP, when a vocabulary passage declares the predicates the rule may use (`name(C): description`,
  optionally grouped under labels such as "Conditions:" or "Defeaters:"), or when the question asks
  for ASP. Without labels, a predicate is a condition when a passage sentence requires what it
  describes, and a defeater when a description or passage says "unless" it holds. The generator
  starts from the predicates the question names; the critic maps every other passage sentence to a
  predicate (a required condition the rule lacks, an unnegated defeater, a condition the evidence
  says is not needed) and clingo reports real syntax problems; the synthesizer applies the issues.
- Plain language otherwise: the rule is written in words from the conditions the passages state
  (joined by "and") and what they rule out (joined by "unless"), each citing its passage.

Each agent measures its reading (debate_core/providers/offline/reading.py): a requirement no predicate can
express, or a question the passages barely cover, lowers its confidence and is named as something it
could not assess. When no rule can be built from the passages it says so; it never makes one up.
"""

from __future__ import annotations

# Importing the handlers registers them with the offline provider.
from .handlers import antithesis, synthesis, thesis
from .predicates import Pred, vocabulary

__all__ = ["Pred", "antithesis", "synthesis", "thesis", "vocabulary"]
