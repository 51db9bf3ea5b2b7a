"""Offline persona panel (the persona-panel source protocol): rule-based speakers and judge that read the case's evidence.

Every passage is split into clauses at contrast markers ("-는데", "-지만", "but", ...); each clause
is tied to the case's aspects (its signals' terms and synonyms, and the aspects its question lists)
and given a polarity by VADER (the vaderSentiment package: negation, contrastive "but", intensifiers,
capitals) and by the failures it reports without a sentiment word ("the wifi dropped", "support
never answered"; data/lexicons/failure_events_en.txt); ratings such as "4.6/5" count too. A clause
neither can read takes the earlier stage's label for its aspect when that stage was reasonably
sure, else the opposite of the clause a contrast sets it against, else the polarity of the part
"and" joins it to; praise and a failure in one clause is left unread (mixed or ironic). The sentence under review decides an aspect's label; other passages corroborate or
contradict it. What the reading cannot settle (an aspect the text never mentions, a sentiment it
could not read while it matters, possible irony) is said as "could not assess: ..." and lowers the
judge's confidence.

On that reading each persona argues its stance: the analyst (neutral) tallies evidence per aspect
and checks the others' claims against it; the critic (con) presses the negative evidence and
overconfident labels; the empath (pro) brings out the positive evidence and answers the critic.
From round 2 each speaker answers what the others said in the history. A speaker quotes only what
nobody has quoted yet, or says it has nothing new: one quote repeated is not agreement. The judge compares every
speaker's claims with the evidence. An English case that asks for a sentiment but names no aspects
is answered with the sentence's own label (sentence.py), or "could not assess" when nothing in it
reads; other cases without aspects get a passage-level debate instead.
"""

from __future__ import annotations

# Importing the handlers registers them with the offline provider.
from .handlers import judge_summary, judge_word, turn
from .phrasing import display_name, josa, particle
from .reading import clause_polarity, clauses, language_of, read_case
from .stage2 import aspect_review, sentiment_review, validator_review

__all__ = ["aspect_review", "sentiment_review", "validator_review", "clause_polarity", "clauses", "display_name", "josa", "judge_summary", "judge_word", "language_of",
           "particle", "read_case", "turn"]
