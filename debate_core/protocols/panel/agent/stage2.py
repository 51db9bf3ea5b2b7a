"""The offline panel's Stage2 reviewers: validator, aspect review (ATE) and sentiment review (ATSA).

Each reads the sentence under review the way the speakers do (reading.py) and acts only on what
that reading finds in the sentence itself: a polarity is corrected only when the sentence's own
words (a sentiment word, a rating or a contrast) decide it, never from the earlier stage's label,
which is what is being checked.
"""

from __future__ import annotations

from typing import Any

from ....providers.offline.agents import register
from ..rules.review_context import normalize_text, strip_particle
from .reading import AspectView, Reading, read_case
from .sentence import read_sentence

# A correction needs a reading at least as good as a contrast (reading.SOURCE_STRENGTH).
MIN_STRENGTH = 0.6


def _own_label(reading: Reading, view: AspectView) -> tuple[str, float] | None:
    """The polarity the sentence's own words give the aspect, and how well it is read; None when
    they do not decide it (no words read, as many for as against, or possible irony, which a word
    list cannot read: its words may mean the opposite)."""
    if reading.irony:
        return None
    own = [m for m in view.read_mentions if m.target and m.source not in ("signal", "none")]
    pos = [m for m in own if m.polarity == "positive"]
    neg = [m for m in own if m.polarity == "negative"]
    if not own or len(pos) == len(neg) and (pos or neg):
        return None
    label = "positive" if len(pos) > len(neg) else "negative" if neg else "neutral"
    chosen = pos if label == "positive" else neg if label == "negative" else own
    return label, max(m.strength for m in chosen)


def _view(reading: Reading, term: str) -> AspectView | None:
    found = reading.index.find(term)
    return reading.by_name(found[0]) if found else reading.by_name(term)


def _confidence(strength: float) -> float:
    return round(min(0.9, 0.5 + 0.4 * strength), 2)


def _sentence_word(reading: Reading, term: str) -> str | None:
    """The word the sentence uses for an aspect it names otherwise (a synonym), if any."""
    text = normalize_text(reading.text)
    if normalize_text(strip_particle(term)) in text:
        return None
    view = _view(reading, term)
    canonical = view.aspect if view else term
    for cand in [canonical, *reading.index.synonym_hints.get(canonical, [])]:
        if normalize_text(strip_particle(cand)) in text:
            return cand
    return None


@register("panel", "validator_review")
def validator_review(payload: dict[str, Any]) -> dict[str, Any]:
    reading = read_case(payload["case"], dict(payload.get("context") or {}))
    proposals = []
    for s in payload.get("sentiments") or []:
        aspect = s["aspect"]
        view = _view(reading, aspect)
        if view is None or not view.in_target:
            proposals.append({"proposal_type": "DROP_ASPECT", "target_aspect": aspect,
                              "rationale": f"the sentence under review does not speak about {aspect}"})
            continue
        word = _sentence_word(reading, aspect)
        if word:
            proposals.append({"proposal_type": "REVISE_SPAN", "target_aspect": aspect, "revised_term": word,
                              "rationale": f"the sentence calls it '{word}'"})
        own = _own_label(reading, view)
        if own and own[0] != s["polarity"] and own[1] >= MIN_STRENGTH:
            cues = ", ".join(dict.fromkeys(c for m in view.read_mentions if m.target and m.polarity == own[0]
                                            for c in m.cues)) or "its wording"
            proposals.append({"proposal_type": "FLIP_POLARITY", "target_aspect": word or aspect,
                              "new_polarity": own[0],
                              "rationale": f"the sentence reads {own[0]} about {aspect} ({cues}), not {s['polarity']}"})
    why = "no corrections: every aspect matches the sentence" if not proposals else \
        f"{len(proposals)} correction(s) where the sentence's own words disagree with the first stage"
    if reading.irony:
        why += "; no polarity is corrected, because the sentence may be ironic and its words may mean the opposite"
    return {"correction_proposals": proposals, "rationale": why}


@register("panel", "aspect_review")
def aspect_review(payload: dict[str, Any]) -> dict[str, Any]:
    reading = read_case(payload["case"], dict(payload.get("context") or {}))
    terms = list(payload.get("terms") or [])
    covered = {v.aspect for t in terms if (v := _view(reading, t))}
    actions = []
    for t in terms:
        view = _view(reading, t)
        if view is None or not view.in_target:
            actions.append({"action": "drop", "aspect": t, "rationale": f"the sentence does not speak about {t}"})
    for view in reading.aspects:
        if view.in_target and view.aspect not in covered:
            actions.append({"action": "add", "aspect": view.aspect,
                            "rationale": f"the sentence speaks about {view.aspect}"})
    label, confidence = reading.overall, reading.confidence()
    why = f"the sentence reads {label} over the aspects it names"
    if not reading.aspects:
        # No aspect named: the sentence's own label, read clause by clause as the speakers read it.
        sentence = read_sentence(payload["case"], reading)
        if sentence.label:
            label, confidence = sentence.label, sentence.confidence()
            why = f"the sentence reads {label} clause by clause"
    return {"aspect_review": actions, "label": label, "confidence": confidence, "rationale": why}


@register("panel", "sentiment_review")
def sentiment_review(payload: dict[str, Any]) -> dict[str, Any]:
    reading = read_case(payload["case"], dict(payload.get("context") or {}))
    have = {normalize_text(strip_particle(s["aspect"])): s for s in payload.get("sentiments") or []}
    actions = []
    for t in payload.get("terms") or []:
        view = _view(reading, t)
        s = have.get(normalize_text(strip_particle(t)))
        own = _own_label(reading, view) if view else None
        if s is None:
            if view is not None and view.determined:
                actions.append({"action": "add", "aspect": t, "polarity": view.label,
                                "confidence": _confidence(view.strength),
                                "rationale": f"the sentence reads {view.label} about {t}"})
            continue
        if own and own[0] != s["polarity"] and own[1] >= MIN_STRENGTH:
            actions.append({"action": "flip_polarity", "aspect": t, "polarity": own[0],
                            "confidence": _confidence(own[1]),
                            "rationale": f"the sentence reads {own[0]} about {t}"})
        else:
            actions.append({"action": "maintain", "aspect": t,
                            "rationale": f"{s['polarity']} fits the sentence" if own else
                            "the sentence's own words do not decide it; the first stage stands"})
    return {"sentiment_review": actions, "rationale": "each aspect checked against the sentence under review"}
