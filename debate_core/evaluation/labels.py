"""Reviews become labelled data: a reviewed debate as a labelled case, and how often people agreed.

A reviewed debate is the case as it was debated plus the team's decision on its answer, which is
what `eval` (debate_core/evaluation/harness.py) scores a protocol against. The decided answer is:

- accepted (a reviewer) or approved (a supervisor, after an escalation): the moderator's answer;
- overridden (a reviewer) or settled (a supervisor): the corrected answer they wrote.

A debate awaiting review, or escalated and not yet decided by a supervisor, has no decided answer
and is skipped with its reason. `expected` follows data/eval/README.md:

- `reference`: the decided answer (what `--judge-model` compares answers with);
- `label`: the decided answer when it is one word ("mixed", "No.", "both_valid"), without end punctuation;
- the case's own `label` and `must_mention` groups are kept where the decided answer still meets
  them (the team's answer says the same), and dropped where it does not (the team decided otherwise);
- `needs_human_review`: true when the debate went to a supervisor before it was decided, false
  when one reviewer could decide it;
- `review`: where the label comes from (debate, decision, who decided and when), which `eval`
  ignores.

Agreement (`agreement`) is computed from the same rows, per the highest critique severity of the
debate: between the deciding reviewer and the moderator (the answer kept, or corrected), and between
two people who decided the same debate. The latter happens when someone took their decision back
(undo) and another person then decided: each person's latest decision counts, since an undo is how a
debate goes back to the queue and what they decided still shows how they read it.

Everything here is pure: the rows come from `DebateStore.review_records`, the files are written by
the command line (`export-labels`) or offered by the app.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .scoring import mentions

# The review states whose decision is final for labelling, and the skipped ones with their reason.
DECIDED = ("accepted", "overridden", "approved", "settled")
KEPT_ANSWER = ("accepted", "approved")  # the moderator's answer stands
SUPERVISED = ("approved", "settled")  # decided by a supervisor after an escalation
SKIP_REASONS = {
    "pending": "awaiting review",
    "escalated": "escalated, not yet decided by a supervisor",
}
NO_CASE = "the stored case could not be read back"
# Severities from the worst; a debate without critiques (a protocol that has none, or none raised).
SEVERITY_ORDER = ("CRITICAL", "MAJOR", "MINOR")
NO_CRITIQUE = "no critique"
# Review actions that decide a debate's answer, and the state each leads to.
DECISION_ACTIONS = {"accept": "accepted", "override": "overridden", "approve": "approved"}
_ONE_WORD = re.compile(r"^[\w-]{1,40}$")


@dataclass
class LabelExport:
    """The labelled cases (file name -> case dict) of an export, and the debates left out."""

    cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    decided: Counter[str] = field(default_factory=Counter)  # review state -> cases written
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> debates left out

    def written(self) -> str:
        """How many cases, by decision: "3 labelled cases (1 accepted, 2 overridden)"."""
        made = ", ".join(f"{n} {state}" for state, n in sorted(self.decided.items()))
        return f"{len(self.cases)} labelled case{'s' if len(self.cases) != 1 else ''}" + (f" ({made})" if made else "")

    def left_out(self) -> str:
        """The debates skipped and why ("1 awaiting review, 2 escalated, ..."), or an empty string."""
        return ", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items()))


def decided_answer(debate: Mapping[str, Any]) -> str | None:
    """The team's answer of a decided debate: the moderator's when accepted or approved, the
    corrected one (the stored final answer) when overridden or settled; None when undecided."""
    state = debate.get("review_state")
    if state not in DECIDED:
        return None
    if state in KEPT_ANSWER:
        verdict = debate.get("verdict") or {}
        return (verdict.get("answer") if isinstance(verdict, Mapping) else None) or debate.get("final_answer")
    return debate.get("final_answer")


def _kept_expectations(original: Mapping[str, Any] | None, answer: str) -> dict[str, Any]:
    """The case's own label and must-mention groups that the decided answer still meets."""
    original = original or {}
    out: dict[str, Any] = {}
    label = original.get("label")
    if label and mentions(answer, str(label)):
        out["label"] = label
    groups = []
    for group in original.get("must_mention") or []:
        alternatives = group if isinstance(group, list) else [group]
        if any(mentions(answer, str(a)) for a in alternatives):
            groups.append(list(alternatives))
    out["must_mention"] = groups
    return out


def _decision(debate: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The review row that brought the debate to its present state (the latest one that did)."""
    state = debate.get("review_state")
    for row in reversed(list(debate.get("reviews") or [])):
        if row.get("state_after") == state and row.get("action") in ("accept", "override", "approve"):
            return row
    return None


def case_id_for(case_id: str, debate_id: str) -> str:
    """The labelled case's id: the case's and the debate's, so two debates of one case stay two
    cases (`eval` refuses an id seen twice)."""
    return f"{case_id}--{debate_id}"


def file_name(case_id: str) -> str:
    """A file name for a labelled case: its id with anything but letters, digits, `.`, `_` and `-`
    replaced, so a case id cannot name a folder."""
    return (re.sub(r"[^A-Za-z0-9._-]+", "_", case_id).strip("._") or "case") + ".json"


def labelled_case(debate: Mapping[str, Any]) -> dict[str, Any] | str:
    """A decided debate as a labelled case (the stored case, with its id made unique, the protocol
    it was debated with, and `expected` from the decision), or the reason it has none."""
    state = debate.get("review_state") or "pending"
    answer = decided_answer(debate)
    if answer is None or not answer.strip():
        return SKIP_REASONS.get(state, f"no decided answer ({state})")
    case = debate.get("case")
    if not isinstance(case, Mapping) or not case.get("id"):
        return NO_CASE
    decision = _decision(debate) or {}
    expected: dict[str, Any] = {
        "needs_human_review": state in SUPERVISED,
        **_kept_expectations(case.get("expected"), answer),
        "reference": answer,
    }
    word = answer.strip().rstrip(".!;:")  # reviewers type "No." as often as "no"
    if _ONE_WORD.match(word):
        expected["label"] = word
    expected["review"] = {
        "debate_id": debate.get("id"), "decision": state, "decided_by": decision.get("reviewer"),
        "decided_at": decision.get("ts"), "moderator_answer": (debate.get("verdict") or {}).get("answer"),
    }
    out = {k: v for k, v in case.items() if k != "expected"}
    out.update(id=case_id_for(str(case["id"]), str(debate.get("id"))), protocol=debate.get("protocol"),
               expected=expected)
    return out


def export_labels(debates: Iterable[Mapping[str, Any]]) -> LabelExport:
    """Every debate as a labelled case, or counted among the skipped with its reason."""
    out = LabelExport()
    for debate in debates:
        made = labelled_case(debate)
        if isinstance(made, str):
            out.skipped[made] += 1
            continue
        out.cases[file_name(made["id"])] = made
        out.decided[str(debate.get("review_state"))] += 1
    return out


# ---------------------------------------------------------------------------
# Agreement
# ---------------------------------------------------------------------------


def _same_answer(a: str | None, b: str | None) -> bool:
    """Two written answers agree when they read the same, ignoring case, spacing and end punctuation."""
    def norm(text: str | None) -> str:
        return re.sub(r"\s+", " ", (text or "").casefold()).strip(" .;:!")
    return norm(a) == norm(b)


def _positions(reviews: Iterable[Mapping[str, Any]]) -> dict[str, str | None]:
    """Each person's latest decision on the answer: None when they kept the moderator's answer,
    else their corrected answer. Names are matched without regard to case."""
    out: dict[str, str | None] = {}
    for row in reviews:
        action = row.get("action")
        if action not in DECISION_ACTIONS:
            continue
        who = (row.get("reviewer") or "").strip().casefold()
        out[who] = row.get("answer_after") if action == "override" else None
    return out


def _agree(a: str | None, b: str | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and _same_answer(a, b))


def severity_of(debate: Mapping[str, Any]) -> str:
    """The highest critique severity of the debate, or NO_CRITIQUE."""
    top = debate.get("top_severity")
    return top if top in SEVERITY_ORDER else NO_CRITIQUE


def agreement(debates: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per highest critique severity (worst first, then debates without critiques, then all of
    them): decided debates, how many kept the moderator's answer, pairs of people who decided the
    same debate and how many of those pairs agreed; each share None when nothing was compared."""
    counts: dict[str, Counter[str]] = {s: Counter() for s in (*SEVERITY_ORDER, NO_CRITIQUE)}
    for debate in debates:
        state = debate.get("review_state")
        if state not in DECIDED:
            continue
        c = counts[severity_of(debate)]
        c["decided"] += 1
        c["kept"] += state in KEPT_ANSWER
        people = list(_positions(debate.get("reviews") or []).values())
        for i, a in enumerate(people):
            for b in people[i + 1:]:
                c["pairs"] += 1
                c["pairs_agreed"] += _agree(a, b)
    total: Counter[str] = sum(counts.values(), Counter())
    rows = []
    for name, c in (*counts.items(), ("all", total)):
        if name != "all" and not c["decided"]:
            continue
        rows.append({
            "severity": name, "decided": c["decided"], "kept_moderator": c["kept"],
            "moderator_agreement": c["kept"] / c["decided"] if c["decided"] else None,
            "reviewer_pairs": c["pairs"], "reviewers_agreed": c["pairs_agreed"],
            "reviewer_agreement": c["pairs_agreed"] / c["pairs"] if c["pairs"] else None,
        })
    return rows
