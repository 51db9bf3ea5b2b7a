"""Claims with distinct ids: what `rules.verify_claims` applies first to every answer and revision.
A small model repeats a claim under one id; critiques name claims by id, so the moderator keeps a
word-for-word repeat once and renumbers a different claim under a taken id."""

from __future__ import annotations

from ...core.schemas import Claim


def distinct_claims(claims: list[Claim]) -> tuple[list[Claim], list[str]]:
    """Claims with distinct ids, and what was done: a claim repeated word for word (same id, same
    statement) is kept once; a different claim under an id already taken gets the next free `C<n>`.
    Critiques name claims by id, so two claims under one id could not be told apart."""
    kept: list[Claim] = []
    notes: list[str] = []
    seen: dict[str, str] = {}
    for claim in claims:
        statement = " ".join(claim.statement.split()).lower()
        if claim.id in seen and seen[claim.id] == statement:
            notes.append(f"claim {claim.id} was repeated word for word; kept once")
            continue
        if claim.id in seen:
            n = 1
            while f"C{n}" in seen:
                n += 1
            notes.append(f"two different claims were numbered {claim.id}; the second is now C{n}")
            claim = claim.model_copy(update={"id": f"C{n}"})
        seen[claim.id] = statement
        kept.append(claim)
    return kept, notes
