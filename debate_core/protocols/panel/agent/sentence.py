"""The sentence's own label, for a case that asks for a sentiment but names no aspects.

The panel reads the sentence under review clause by clause (reading.py, sentiment.py) and names one
label: positive, negative, neutral, or mixed when its clauses disagree. What it cannot read it says
("could not assess: ..."): a sentence with no sentiment word, rating or reported failure, a clause
whose praise sits next to a failure (mixed or ironic), praise with an exclamation next to a
complaint. Each persona names the label its reading gives and stresses the clauses its stance cares
about: the analyst every clause, the critic what goes wrong, the empath what went well. The panel
agrees when its members name the same label, whichever clauses they quoted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ....core.options import offered_options
from ....providers.offline import reading as measure
from ..rules import TermIndex, normalize_text
from ..rules.verdict import set_aside_note, without_set_aside, without_unfounded_worries
from .claims import QuotedSoFar, _last_turns
from .missing import meaning_left_open
from .phrasing import _LABEL_WORD, display_name, sentence_case
from .rating_sides import rating_against_text, rating_agrees
from .reading import (
    _RATING,
    SOURCE_STRENGTH,
    Reading,
    _read_clauses,
    _short,
    opposite_leaning,
    quote_text,
    whole_text_label,
)
from .sentiment import compound, double_edged, double_edged_gap, failure_cues, unseen_content

# A question that asks for a sentiment label.
_ASKS_LABEL = re.compile(r"\bsentiment|\b(?:positive|negative)\b|감성|감정|긍정|부정", re.IGNORECASE)
# A rating with no aspect before it ("4.6/5", "2 / 5").
_BARE_RATING = re.compile(r"(?<![\w.])(\d(?:\.\d+)?)\s*/\s*5\b")
# How a speaker names the sentence's label in its key points; the judge reads it back.
LABEL_POINT = "overall sentence label: "
_LABEL_POINT = re.compile(re.escape(LABEL_POINT) + r"(positive|negative|neutral|mixed|not assessed)")
NOT_ASSESSED = "not assessed"
# Below this strength of VADER's whole-sentence reading a label from words alone goes to a reviewer.
WEAK_READING = 0.5
_READ = ("lexicon", "event", "rating", "contrast")
_HOW = {"lexicon": "", "event": "a reported failure: ", "rating": "a rating: ", "contrast": ""}


def asks_label(question: str) -> bool:
    return bool(_ASKS_LABEL.search(question or ""))


@dataclass
class ClauseView:
    clause: str
    polarity: str
    cues: list[str]
    source: str  # lexicon, event, rating, contrast; conflict or none: not read

    @property
    def read(self) -> bool:
        return self.source in _READ

    def cite(self) -> str:
        cues = ", ".join(self.cues[:3])
        return f"\"{quote_text(self.clause)}\" ({_HOW.get(self.source, '')}{cues})" if cues else \
            f"\"{quote_text(self.clause)}\""


@dataclass
class SentenceReading:
    lang: str
    text: str
    where: str  # the passage holding the sentence, or "the sentence"
    clauses: list[ClauseView]
    label: str | None
    gaps: list[str] = field(default_factory=list)

    def of(self, polarity: str) -> list[ClauseView]:
        return [c for c in self.clauses if c.read and c.polarity == polarity]

    def confidence(self) -> float:
        """The middle, raised by how well the clauses were read; capped when something was not."""
        read = [SOURCE_STRENGTH.get(c.source, 0.0) for c in self.clauses if c.read]
        base = 0.45 + 0.4 * (sum(read) / len(read)) if read else 0.3
        return round(min(base, measure.WEAK_CONFIDENCE_CAP) if self.gaps else base, 4)

    def uncertainties(self) -> list[str]:
        return [f"could not assess: {g}" for g in self.gaps]


def _sentence_text(case: Any, r: Reading) -> tuple[str, str]:
    """The sentence under review (the signals' text or a quotation in the question, else the first
    passage) and the passage that holds it."""
    text = r.text or (case.evidence[0].text if case.evidence else "")
    norm = normalize_text(text)
    where = next((e.id for e in case.evidence if norm and norm in normalize_text(e.text)), "the sentence")
    return text, where


def read_sentence(case: Any, r: Reading) -> SentenceReading:
    text, where = _sentence_text(case, r)
    views: list[ClauseView] = []
    for m in _BARE_RATING.finditer(text):
        score = float(m.group(1))
        pol = "positive" if score >= 4.0 else "negative" if score <= 3.0 else "neutral"
        views.append(ClauseView(m.group(0), pol, [m.group(0)], "rating"))
    # A worry the text says came to nothing ("I dreaded it. I needn't have.") is no complaint.
    # So is what a turn such as "Not here." sets on another time, place or firm.
    body = without_set_aside(without_unfounded_worries(_BARE_RATING.sub(" ", _RATING.sub(lambda m: m.group(1), text))))
    for clause, _found, pol, cues, source, _strength in _read_clauses(body, TermIndex.build([], {}), None):
        views.append(ClauseView(clause, pol, list(cues), source))
    read = [c for c in views if c.read]
    pols = {c.polarity for c in read}
    label = "mixed" if {"positive", "negative"} <= pols else "positive" if "positive" in pols else \
        "negative" if "negative" in pols else "neutral" if read else None
    gaps: list[str] = []
    options = offered_options(getattr(case, "question", "") or "")
    if label == "mixed" and options and "mixed" not in options:
        # The question's scale has no "mixed": the side VADER weighs more over the whole sentence (its
        # contrastive "but" included), said to be a judgement a reviewer should confirm.
        label = whole_text_label(text)
        gaps.append(f"which way the sentence leans: it both praises and complains, the question offers no "
                    f"\"mixed\", and its words taken together read {label}")
    elif label in ("positive", "negative") and all(c.source == "lexicon" and not any(failure_cues(c.clause))
                                                    for c in read):
        whole = compound(text)
        if abs(whole) < WEAK_READING:
            # Words alone, and few of them: the lexicon's polarity errors sit here (measured with
            # bench/sentiment.py on rated tweets and film-review sentences).
            gaps.append(f"how strongly the sentence is {label}: its words carry little sentiment "
                        f"(VADER reads {whole:+.2f} on a scale from -1 to +1), so a reviewer should confirm")
    leaning = opposite_leaning(label, text)
    if leaning:
        gaps.append(leaning)
    # The reviewer's own rating of a one-sentence review is read as it is for a longer one.
    against = rating_against_text(label, r.own_rating)
    if against:
        gaps.append(against)
    unseen = unseen_content(text)
    if unseen:
        gaps.append(unseen)
    left_open = meaning_left_open(text, list(getattr(case, "evidence", None) or []))
    if left_open:
        gaps.append(left_open)
    phrase = double_edged(text)
    # A rating in the sentence, or the reviewer's own on the reading's side, settles it.
    if phrase and not any(c.source == "rating" for c in views) and not rating_agrees(r.own_rating, label or ""):
        gaps.append(double_edged_gap(phrase))
    conflicts = [c for c in views if c.source == "conflict"]
    if label is None and not conflicts:
        why = "the sentiment lexicon reads English only" if r.lang != "en" else \
            "no sentiment word, rating or reported failure in it; a plain statement of fact would be neutral"
        gaps.append(f"the sentiment of the sentence \"{_short(text, 90)}\" ({why})")
        if r.lang == "en" and (not options or "neutral" in options):
            # Named, not left blank: a reviewer gets a proposal to confirm, and the gap sends it to one.
            label = "neutral"
    for c in conflicts:
        gaps.append(f"the sentiment of \"{quote_text(c.clause)}\" (its words praise while it reports a "
                    "failure, or the reverse: mixed or ironic, which a word list cannot tell apart)")
    unread = [c for c in views if c.source == "none"]
    if label not in (None, "mixed") and unread:
        gaps.append("the sentiment of " + ", ".join(f"\"{quote_text(c.clause)}\"" for c in unread)
                    + " (no sentiment word, rating, reported failure or contrast in it)")
    if "!" in text and any(c.polarity == "positive" and c.source == "lexicon" for c in read) and \
            "negative" in pols:
        gaps.append("whether the sentence is ironic or sarcastic: exclamations of praise stand next to a "
                    "complaint, and a word list cannot read irony")
    return SentenceReading(r.lang, text, where, views, label, gaps)


def _label_word(s: SentenceReading) -> str:
    return s.label or NOT_ASSESSED


def _pick(views: list[ClauseView], skip: QuotedSoFar) -> list[ClauseView]:
    """Clauses nobody has quoted yet: one quote repeated is not agreement."""
    return [c for c in views if quote_text(c.clause) not in skip]


def sentence_turn(case: Any, r: Reading, persona: dict[str, Any], rnd: int, history: list[dict[str, Any]],
                  personas: list[dict[str, Any]]) -> dict[str, Any]:
    """A persona names the label its reading of the sentence gives, stressing what its stance cares about."""
    s = read_sentence(case, r)
    me = str(persona["id"])
    stance = str(persona.get("stance", "neutral")).lower()
    skip = QuotedSoFar(history)
    label = _label_word(s)
    word = _LABEL_WORD["en"].get(label, label)
    body: list[str] = []
    points: list[str] = []
    if stance == "con":
        stress, role = s.of("negative") + s.of("neutral"), "what goes wrong"
    elif stance == "pro":
        stress, role = s.of("positive") + s.of("neutral"), "what went well"
    else:
        stress, role = [c for c in s.clauses if c.read], "clause by clause"
    fresh = _pick(stress, skip)
    if fresh:
        cites = "; ".join(f"{c.cite()} reads {c.polarity}" for c in fresh[:3])
        body.append(f"Reading the sentence ({s.where}), {role}: {cites}.")
        points += [f"\"{quote_text(c.clause)}\": {c.polarity}" for c in fresh[:3]]
    elif stress:
        body.append(f"Nothing new to quote on {role}: what I would cite is already quoted.")
    elif stance in ("con", "pro"):
        body.append(f"I looked for {role} and the sentence says nothing of it.")
    if rnd > 1:
        for turn in _last_turns(history, me):
            theirs = named_label(turn)
            if theirs and theirs != label:
                who = display_name(str(turn.get("speaker")), personas, "en")
                body.append(f"{who} names the sentence {theirs}, but its clauses read {word}.")
    if s.label:
        body.append(f"So the sentence as a whole reads {word}.")
    else:
        body.append("So I cannot name a label for the sentence.")
    points.append(LABEL_POINT + label)
    if s.gaps:
        body.append("What I could not assess: " + "; ".join(s.gaps) + ".")
        points += s.uncertainties()
    plan = f"Round {rnd}: read the sentence's clauses and name its label; stress {role}."
    return {"speaker": me, "stance": persona.get("stance", ""), "planning": plan,
            "reflection": "I claim only the label the sentence's own words give, and say what I could not read.",
            "message": " ".join(sentence_case("en", body)), "key_points": points}


def named_label(turn: dict[str, Any]) -> str | None:
    """The sentence label a turn names in its key points."""
    for point in turn.get("key_points") or []:
        m = _LABEL_POINT.search(str(point))
        if m:
            return m.group(1)
    return None


def sentence_judge(case: Any, r: Reading, turns: list[dict[str, Any]],
                   personas: list[dict[str, Any]]) -> dict[str, Any]:
    """The judge compares the labels the speakers named with its own reading of the sentence."""
    s = read_sentence(case, r)
    label = _label_word(s)
    named: dict[str, str] = {}
    for t in turns:
        got = named_label(t)
        if got:
            named[str(t.get("speaker"))] = got
    agree = [sp for sp, lab in named.items() if lab == label]
    differ = {sp: lab for sp, lab in named.items() if lab != label}
    names = ", ".join(display_name(sp, personas, "en") for sp in agree)
    agreements = [f"sentence label {label}: named by {names}"] if agree and s.label else []
    disagreements = [f"{display_name(sp, personas, 'en')} named the sentence {lab}; its clauses read {label}"
                     for sp, lab in differ.items()]
    if s.label:
        detail = "; ".join(f"\"{quote_text(c.clause)}\" {c.polarity}" for c in s.clauses if c.read)
        consensus = f"The overall sentiment is {s.label}: {detail}." if detail else f"The overall sentiment is {s.label}."
        consensus += set_aside_note(s.text)
    else:
        consensus = "The panel could not assess the sentiment of the sentence."
    rationale = (f"The judge read the sentence's clauses itself and compared the label each speaker named: "
                 f"{len(agree)} named {label}, {len(differ)} another label.")
    return {"winner": None, "consensus": consensus, "key_agreements": agreements,
            "key_disagreements": disagreements, "rationale": rationale,
            "confidence": s.confidence(), "uncertainties": s.uncertainties()}
