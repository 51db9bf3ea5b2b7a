"""Round 2+: a reasoner refines its hypotheses on the judge's scores and feedback.

It reads the judge's notes on every hypothesis it gave in the previous round (the flow passes them
in the step payload as `previous_hypotheses`, each with its `judge_score` and `feedback`):

- the passages the judge asked it to cite ("Cite L1, ...") join its reading even when they are not
  of its kinds (the judge pointed it to them), so it reads the incident again with them and a story
  it could not see before (the change before the first anomaly, say) may now lead;
- each earlier hypothesis is refined on its own feedback: the passages the judge asked for are
  cited, those it found inconsistent are dropped ("Drop L2"), and the reading is measured again;
- the hypotheses are ordered by the judge's scores; one the judge scored low is dropped when enough
  remain, else moved to the end.
"""

from __future__ import annotations

import re
from typing import Any

from ....core.schemas import Case
from ....core.text import sentences
from .reading import quote
from .reasoners import _reading, fill, generate, is_unread, view

_CITE = re.compile(r"Cite ([A-Za-z0-9_-]+)")
_DROP = re.compile(r"Drop ([A-Za-z0-9_-]+)")
# A hypothesis the judge scored below this rests on (almost) nothing: it goes when others remain.
LOW_SCORE = 35.0


def asked(h: dict[str, Any], known: set[str]) -> tuple[list[str], list[str]]:
    """The passage ids the judge asked to cite, and to drop, in its feedback on `h`."""
    notes = str(h.get("feedback") or "")
    return ([e for e in dict.fromkeys(_CITE.findall(notes)) if e in known],
            [e for e in dict.fromkeys(_DROP.findall(notes)) if e in known])


def revise(case: Case, prev: dict[str, Any]) -> dict[str, Any]:
    """One earlier hypothesis acted on: cite what the feedback asks for, drop what it says to drop,
    and measure the reading again."""
    by_id = case.evidence_by_id()
    cite, drop = asked(prev, set(by_id))
    evidence = [e for e in prev["evidence"] if e in by_id]
    changes: list[str] = []
    dropped = [e for e in drop if e in evidence]
    if dropped:
        evidence = [e for e in evidence if e not in dropped]
        changes.append(f"dropped {', '.join(dropped)} as the judge found it inconsistent")
    added = [e for e in cite if e not in evidence]
    text = prev["hypothesis"].rstrip()
    for e in added:
        evidence.append(e)
        text += f" Also: \"{quote(sentences(by_id[e].text)[0])}\" ({e})."
    if added:
        changes.append(f"cited {', '.join(added)} as the judge asked")
    if prev.get("unverified_evidence"):
        changes.append(f"dropped unverified ids {', '.join(prev['unverified_evidence'])}")
    cited = [by_id[e] for e in evidence]
    gaps = [line.split(":", 1)[1].strip() for line in prev.get("reasoning", "").splitlines()
            if line.lower().startswith("could not assess:") and not line.lower().startswith("could not assess: the parts")]
    confidence, notes_out = _reading(case, cited, gaps)
    kept = [line for line in prev.get("reasoning", "").splitlines()
            if not line.lower().startswith(("could not assess:", "weak reading:"))]
    return {
        **{k: prev[k] for k in ("category", "affected_components", "suggested_resolution") if k in prev},
        "hypothesis": text,
        "confidence": max(0.05, round(min(confidence, float(prev["confidence"]) + 0.05), 2)),
        "reasoning": "\n".join([*kept, *notes_out]),
        "evidence": evidence,
        "changes_made": "; ".join(changes) if changes else "No change: the feedback named nothing I can act on.",
    }


def _score(h: dict[str, Any]) -> float:
    return float(h.get("judge_score") or 0.0)


def refine(case: Case, agent: dict[str, Any], previous: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The next round's 3-5 hypotheses from the previous round's, scored and commented by the judge."""
    known = set(case.evidence_by_id())
    prev = sorted((h for h in previous if not is_unread(h)), key=lambda h: -_score(h))
    named = list(dict.fromkeys(e for h in prev for e in asked(h, known)[0]))
    cited_before = {e for h in prev for e in h.get("evidence", []) if e in known}
    own = {ev.id for ev in view(case, agent).evidence}
    pointed = [e for e in named if e not in own and e not in cited_before]
    # The re-reading: its own kinds, what it cited before and what the judge pointed it to.
    fresh = generate(view(case, agent, extra=[*cited_before, *named]), agent)
    earlier = {h["hypothesis"] for h in prev}
    new = [h for h in fresh if h["hypothesis"] not in earlier and set(h["evidence"]) & set(pointed)]
    for h in new:
        h["changes_made"] = (f"read {', '.join(e for e in pointed if e in h['evidence'])}, which the judge named, "
                             "and rebuilt the hypothesis around them")
    revised = [{**revise(case, h), "_score": _score(h)} for h in prev]
    high = [h for h in revised if h["_score"] >= LOW_SCORE]
    low = [h for h in revised if h["_score"] < LOW_SCORE]
    extra = [h for h in fresh if h["hypothesis"] not in earlier and h not in new]
    # A hypothesis the judge scored low is dropped when enough others remain, else moved to the end.
    keep_low = low[:max(0, 3 - len(new) - len(high) - len(extra))]
    notes = []
    if low[len(keep_low):]:
        notes.append("dropped " + "; ".join(f"\"{quote(h['hypothesis'], 60)}\" (scored {h['_score']:.0f})"
                                            for h in low[len(keep_low):]))
    if keep_low:
        notes.append("moved to the end " + "; ".join(f"\"{quote(h['hypothesis'], 60)}\" (scored {h['_score']:.0f})"
                                                     for h in keep_low))
    out = [*new, *high, *extra, *keep_low]
    if notes and out:
        out[0]["changes_made"] = "; ".join([out[0]["changes_made"], *notes])
    for h in out:
        h.pop("_score", None)
    return fill(case, out)
