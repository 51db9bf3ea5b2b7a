"""Section 5 of the persona-panel source protocol: the Stage2 reviews, applied in its order.

1. the validator's correction proposals (FLIP_POLARITY, DROP_ASPECT, REVISE_SPAN);
2. the aspect-term review, ATE (revise_span, drop, add);
3. the aspect-sentiment review, ATSA (maintain, flip_polarity, drop, add);
4. the debate override (override.py).

Each function takes the aspect terms and aspect sentiments so far and returns new ones (the inputs
are not modified) with one log entry per action: the source's `correction_applied_log`, where an
action that cannot be applied (an aspect nobody has) stays in the log as not applied, with why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .review_context import normalize_text, strip_particle
from .signals import AspectSentiment, PanelSignals

STAGE2_STAGES = ("validator", "aspect_review", "sentiment_review")
# The confidence an aspect gets when a review changes it without saying how sure it is.
DEFAULT_REVIEW_CONFIDENCE = 0.6
FLIP = {"positive": "negative", "negative": "positive", "neutral": "neutral"}


@dataclass
class Stage2State:
    """The aspect terms and sentiments as the reviews leave them, and what each changed."""

    terms: list[str]
    sentiments: list[AspectSentiment]
    log: list[dict[str, Any]] = field(default_factory=list)


def case_has_stage2(signals: PanelSignals) -> bool:
    """Rule: Stage2 output that came with the case is used as it is; its reviews do not run again."""
    return signals.stage2_ate is not None or bool(signals.stage2_atsa and signals.stage2_atsa.aspect_sentiments)


def _key(term: str) -> str:
    return normalize_text(strip_particle(term))


def _entry(stage: str, kind: str, aspect: str, applied: bool, reason: str, rationale: str = "",
           before: str | None = None, after: str | None = None) -> dict[str, Any]:
    return {"stage": stage, "proposal_type": kind, "target_aspect": aspect, "applied": applied,
            "before": before, "after": after, "reason": reason, "rationale": rationale}


def _copy(state: Stage2State) -> Stage2State:
    return Stage2State(list(state.terms), [s.model_copy() for s in state.sentiments], list(state.log))


def _rename(state: Stage2State, aspect: str, new: str) -> bool:
    key, found = _key(aspect), False
    state.terms = [new if _key(t) == key else t for t in state.terms]
    for s in state.sentiments:
        if _key(s.aspect) == key:
            s.aspect, found = new, True
    return found or any(_key(t) == _key(new) for t in state.terms)


def _drop(state: Stage2State, aspect: str) -> bool:
    key = _key(aspect)
    before = len(state.terms) + len(state.sentiments)
    state.terms = [t for t in state.terms if _key(t) != key]
    state.sentiments = [s for s in state.sentiments if _key(s.aspect) != key]
    return len(state.terms) + len(state.sentiments) < before


def _sentiment(state: Stage2State, aspect: str) -> AspectSentiment | None:
    return next((s for s in state.sentiments if _key(s.aspect) == _key(aspect)), None)


def _flip(out: Stage2State, stage: str, kind: str, aspect: str, polarity: str | None, why: str,
          confidence: float | None = None) -> None:
    """Set an aspect's polarity (to `polarity`, else the opposite of its own), logged."""
    s = _sentiment(out, aspect)
    if s is None:
        out.log.append(_entry(stage, kind, aspect, False, "no sentiment for this aspect", why))
        return
    target = polarity or FLIP[s.polarity]
    if target == s.polarity:
        out.log.append(_entry(stage, kind, aspect, False, f"already {target}", why))
        return
    out.log.append(_entry(stage, kind, aspect, True, f"polarity {s.polarity} -> {target}", why, s.polarity, target))
    s.polarity = target
    if confidence is not None:
        s.confidence = confidence


def _drop_aspect(out: Stage2State, stage: str, kind: str, aspect: str, why: str) -> None:
    applied = _drop(out, aspect)
    out.log.append(_entry(stage, kind, aspect, applied, "aspect dropped" if applied else "no such aspect", why))


def _revise(out: Stage2State, stage: str, kind: str, aspect: str, revised: str | None, why: str) -> None:
    """Rename an aspect to the words the sentence uses, logged."""
    new = (revised or "").strip()
    if not new or _key(new) == _key(aspect):
        out.log.append(_entry(stage, kind, aspect, False, "no new span given", why))
        return
    applied = _rename(out, aspect, new)
    out.log.append(_entry(stage, kind, aspect, applied, f"span {aspect} -> {new}" if applied else "no such aspect",
                          why, aspect, new))


def apply_validator_corrections(state: Stage2State, proposals: Sequence[Any]) -> Stage2State:
    """Step 1: FLIP_POLARITY sets the aspect's polarity (to the proposed one, else the opposite),
    DROP_ASPECT removes the aspect, REVISE_SPAN renames it to the words the sentence uses."""
    out = _copy(state)
    for p in proposals:
        if p.proposal_type == "FLIP_POLARITY":
            _flip(out, "validator", p.proposal_type, p.target_aspect, p.new_polarity, p.rationale)
        elif p.proposal_type == "DROP_ASPECT":
            _drop_aspect(out, "validator", p.proposal_type, p.target_aspect, p.rationale)
        else:  # REVISE_SPAN
            _revise(out, "validator", p.proposal_type, p.target_aspect, p.revised_term, p.rationale)
    return out


def apply_aspect_review(state: Stage2State, actions: Sequence[Any]) -> Stage2State:
    """Step 2 (ATE): revise_span renames an aspect, drop removes it with its sentiment, add adds an
    aspect term; its sentiment is the sentiment review's to give."""
    out = _copy(state)
    for a in actions:
        aspect, kind, why = a.aspect, a.action, a.rationale
        if kind == "add":
            if any(_key(t) == _key(aspect) for t in out.terms):
                out.log.append(_entry("aspect_review", kind, aspect, False, "already an aspect", why))
                continue
            out.terms.append(aspect)
            out.log.append(_entry("aspect_review", kind, aspect, True, "aspect added", why, None, aspect))
        elif kind == "drop":
            _drop_aspect(out, "aspect_review", kind, aspect, why)
        else:  # revise_span
            _revise(out, "aspect_review", kind, aspect, a.revised_term, why)
    return out


def apply_sentiment_review(state: Stage2State, actions: Sequence[Any]) -> Stage2State:
    """Step 3 (ATSA): maintain keeps a sentiment, flip_polarity sets it (to the given polarity, else
    the opposite), drop removes it, add gives an aspect its sentiment."""
    out = _copy(state)
    for a in actions:
        aspect, kind, why = a.aspect, a.action, a.rationale
        s = _sentiment(out, aspect)
        if kind == "maintain":
            out.log.append(_entry("sentiment_review", kind, aspect, s is not None,
                                  f"kept {s.polarity}" if s else "no sentiment for this aspect", why))
        elif kind == "drop":
            if s is not None:
                out.sentiments = [x for x in out.sentiments if x is not s]
            out.log.append(_entry("sentiment_review", kind, aspect, s is not None,
                                  "sentiment dropped" if s else "no sentiment for this aspect", why))
        elif kind == "flip_polarity":
            _flip(out, "sentiment_review", kind, aspect, a.polarity, why, a.confidence)
        else:  # add
            if s is not None or a.polarity is None:
                out.log.append(_entry("sentiment_review", kind, aspect, False,
                                      "already has a sentiment" if s else "no polarity given", why))
                continue
            conf = a.confidence if a.confidence is not None else DEFAULT_REVIEW_CONFIDENCE
            out.sentiments.append(AspectSentiment(aspect=aspect, polarity=a.polarity, confidence=conf,
                                                  evidence="sentiment_review"))
            if not any(_key(t) == _key(aspect) for t in out.terms):
                out.terms.append(aspect)
            out.log.append(_entry("sentiment_review", kind, aspect, True, f"sentiment {a.polarity} added", why,
                                  None, a.polarity))
    return out


def renamed_hints(aspect_hints: dict[str, list[dict[str, Any]]], log: Sequence[dict[str, Any]]
                  ) -> dict[str, list[dict[str, Any]]]:
    """The panel's aspect hints under the names the reviews gave the aspects: a revised span is the
    same aspect, so the debate override (step 4) must not add it back under its old name."""
    names = {_key(a): a for a in aspect_hints}
    for e in log:
        if e.get("applied") and e.get("proposal_type") in ("REVISE_SPAN", "revise_span") and e.get("after"):
            for k, v in names.items():
                if _key(v) == _key(e["before"] or ""):
                    names[k] = e["after"]
    out: dict[str, list[dict[str, Any]]] = {}
    for aspect, hints in aspect_hints.items():
        out.setdefault(names[_key(aspect)], []).extend(hints)
    return out


def stage2_counts(log: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Section 9 style counts: the corrections each Stage2 review applied, and those it could not."""
    out = {f"stage2_{stage}_applied": 0 for stage in STAGE2_STAGES}
    out["stage2_not_applied"] = 0
    for e in log:
        if e.get("stage") not in STAGE2_STAGES:
            continue
        if not e.get("applied"):
            out["stage2_not_applied"] += 1
        elif e.get("proposal_type") != "maintain":
            out[f"stage2_{e['stage']}_applied"] += 1
    return out


def stage2_summary(log: Sequence[dict[str, Any]]) -> str:
    """One sentence for the verdict: what each review changed."""
    counts = stage2_counts(log)
    names = {"validator": "validator", "aspect_review": "aspect review", "sentiment_review": "sentiment review"}
    parts = [f"{names[s]} {counts[f'stage2_{s}_applied']} change{'s' if counts[f'stage2_{s}_applied'] != 1 else ''}"
             for s in STAGE2_STAGES]
    return "Stage2 reviews: " + ", ".join(parts) + "."
