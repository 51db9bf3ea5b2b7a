"""Rule-based agents for the cross-critique protocol.

An agent knows only its profile (role, instructions, terms), the question and the passages; no word
list of any case or domain is written here. It measures its own reading (debate_core/providers/offline/
reading.py): when the reading is weak its confidence is capped and it names what it could not assess.

Answer: rank the case's passages against the question and the agent's focus (its role and terms),
turn the most relevant sentences into claims that cite them, and state the agent's position.
Critique: by rules — missing or unknown evidence, numbers that disagree by more than 5%, contradicting
statements over shared terms, claims that rest on another agent's sources, confidence above what the
evidence carries, statements that do not follow from the cited passage.
Revise: respond to each critique — find supporting evidence, concede to stronger sources by
qualifying the claim, or maintain it against weaker ones; lower confidence where asked.
Supervisor: the first sentence answers the question from the agreed claim that covers the most of
it; the supporting points, the disputes and what a human must decide follow.
"""

from __future__ import annotations

# Importing the handlers registers them with the offline provider.
from .answer import answer
from .critique import critique, findings, review_earlier
from .revise import revise
from .scoring import compose_answer, domain_of, relevance, support_level
from .supervisor import supervisor

__all__ = ["answer", "compose_answer", "critique", "domain_of", "findings", "relevance", "review_earlier",
           "revise", "supervisor", "support_level"]
