"""Reading one clause's sentiment: VADER (the `vaderSentiment` package) for what its words say, and
reported failures for what it tells without a sentiment word.

VADER (Hutto and Gilbert, 2014) implements the whole method: the valence of each word, negation,
the contrastive "but", intensifiers, capitals and punctuation. It cannot see that "the wifi dropped
every ten minutes" or "support never answered" tell of something going wrong: the words and phrases
of data/lexicons/failure_events_en.txt do (a breakdown word, or a verb of doing what was expected
under a negation). When the two disagree inside one clause (praise next to a failure), the clause
is not read: that is mixed or ironic, and a word list cannot tell which.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from vaderSentiment.vaderSentiment import NEGATE

from ....core import lexicons
from ....core.vader import analyzer as analyzer  # re-exported: the panel's readers import it from here

# VADER's own line: a compound score from +0.05 up is positive, from -0.05 down negative.
COMPOUND_THRESHOLD = 0.05
# A negation this many words before a word turns it (VADER's window).
NEGATION_WINDOW = 3
_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_NEGATION = frozenset(NEGATE) | {"no", "never"}


# "like" after these words compares ("nothing like my old laptop's", "looks like a brick"); VADER's
# lexicon reads every "like" as the verb of liking, and "nothing like" as liking denied.
_COMPARING_LIKE = re.compile(r"\b(nothing|something|anything|just|more|much|looks?|looked|feels?|felt|sounds?|"
                             r"sounded|seems?|seemed)\s+like\b", re.I)


# "alone" before a verb singles out what it follows ("the view alone was worth the climb", "that alone
# makes it"): by itself, not lonely, which is how VADER's lexicon reads every "alone".
_SINGLING_ALONE = re.compile(r"\balone\b(?=\s+(?:is|was|were|are|would|will|could|made|makes|make|justifies|justified|"
                             r"costs?|took|takes)\b)", re.I)


# A comparative that cannot be exceeded ("could not have been kinder", "couldn't be happier", "never
# been better") says the most of its word, not its opposite: VADER would turn it by the negation.
_NEGATED_COMPARATIVE = re.compile(
    r"\b(?:(?:could|can)(?:n't|not|\s+not)\s+(?:have\s+)?(?:been|be|ask\s+for|wish\s+for)"
    r"|(?:have|has|'ve)?\s*never\s+(?:been|felt|looked|seen\s+(?:a|an|any))|nothing\s+could\s+be)"
    r"\s+(?:any\s+)?(more\s+[a-z]+|worse|[a-z]+er)\b", re.I)
_IRREGULAR_COMPARATIVES = {"better": "good", "worse": "bad"}


def _comparative_base(word: str) -> str | None:
    """The word a comparative compares by ("kinder" -> "kind", "happier" -> "happy", "more helpful"
    -> "helpful"), if VADER's lexicon knows it; None otherwise."""
    word = word.lower()
    if word.startswith("more "):
        candidates = [word[5:].strip()]
    else:
        candidates = [_IRREGULAR_COMPARATIVES.get(word, ""), word[:-2], word[:-1], word[:-3] + "y", word[:-3]]
    lexicon = analyzer().lexicon
    return next((c for c in candidates if c and c in lexicon), None)


def _superlative(m: re.Match[str]) -> str:
    base = _comparative_base(m.group(1))
    return f"was extremely {base}" if base else m.group(0)


# A judgement withheld ("I can't say the screen is great", "nobody would call it bright", "I wouldn't
# describe the staff as friendly") denies what follows it; VADER's negation reaches only three words
# ahead, and "can't say" sits further back than that from the word it denies. The denial reaches to
# the end of its clause ("I wouldn't call it cheap, but it is worth every penny").
_WITHHELD = re.compile(
    r"\b(?:(?:ca|can|could|would|wo)(?:n't|not|\s+not)|(?:nobody|no\s+one|no-one)\s+(?:could|would|can|will)|"
    r"(?:hard|difficult)\s+to)\s+(?:honestly\s+|really\s+)?(?:say|call|describe|claim)\b((?:(?!\bbut\b|\byet\b)[^,;.!?])*)", re.I)
# A judgement of what would have been ("the pool would have been lovely if it had been open", "could
# have been a disaster") is of what did not happen: it tells the opposite of what was. A passive verb
# after "been" ("would have been accomplished quickly") is a happening, not a judgement, and is left.
_UNREALISED = re.compile(
    r"\b(?:would|could|might)(?:\s+have|'ve)\s+been\s+((?:(?:a|an|so|really|very|even|much|absolutely)\s+)*)"
    r"([a-z]+(?<!ed))\b", re.I)


# A double denial ("there wasn't a question she wasn't happy to answer", "not one dish they didn't get
# right") says every one was: VADER reads only the second negation, and reads it as a complaint.
_DOUBLE_DENIAL = re.compile(
    r"\b(?:there\s+)?(?:was|is|were|are)(?:n't|\s+not)\s+(?:a|an|one|a\s+single)\s+([a-z]+)\s+"
    r"((?:that|which|who)\s+|(?:she|he|they|we|it|you|i)\s+)?(was|is|were|are|did|could|would)(?:n't|\s+not)\b", re.I)
# "I can't remember the last time I learnt so much": the most of it in a long time, praise; without its
# "so" or "such" ("I can't remember the last time they cleaned it") it says what no longer happens.
_NOT_SINCE = re.compile(r"\b(?:i|we)\s+(?:can't|cannot|can\s+not|couldn't|don't|do\s+not)\s+(?:remember|recall)\s+"
                        r"(?:the\s+last\s+time|when\s+(?:i|we)\s+last)\b(?=[^.!?;]*\b(?:so|such)\b)", re.I)
# "Can't recommend them enough", "couldn't thank her enough": praise past what words can carry (VADER
# reads the negation as a complaint).
_PAST_WORDS = re.compile(r"\b(?:can't|cannot|can\s+not|couldn't|could\s+not)\s+(recommend|praise|thank)"
                         r"\s+((?:[\w'&-]+\s+){0,6}?)(?:highly\s+|more\s+)?enough\b", re.I)
# "Not one thing we've brought home has been grubby": a denial opening its sentence, too far from the
# word it denies for VADER's three-word look-back; said plainly, every one was not.
_NONE_WAS = re.compile(r"(^|[.!?]\s+)\W*(?:not\s+(?:one|a\s+single)|none\s+of\s+the)\s+([a-z]+)\b"
                       r"((?:\s+(?!not\b|never\b)[\w']+){0,8}?)\s+(has|have|had|was|were|is|are)\s+(?!not\b|never\b)", re.I)
# Booking again or saying one will return is the reviewer's own verdict on what they had.
_RETURNING = re.compile(r"\b(?:already\s+(?:re)?booked|booked\s+again|rebooked|(?:will|we'll|i'll|would)\s+"
                        r"(?:definitely\s+|certainly\s+|100%\s+)?(?:be|go|come)\s+back)\b(?!, loved it,)", re.I)


def plain_meaning(text: str) -> str:
    """The text with the turns of phrase VADER misreads said plainly: a double denial as "every", praise
    past words ("can't recommend them enough") as recommending, a denial opening its sentence ("not one
    thing has been grubby") as every one not,
    "I can't remember the last time ... so much" as the best in a long time, booking again as liking."""
    text = _DOUBLE_DENIAL.sub(lambda m: f"every {m.group(1)} {m.group(2) or ''}{m.group(3)}", text)
    text = _PAST_WORDS.sub(lambda m: f"really {m.group(1)} {m.group(2).strip()}", text)
    text = _NONE_WAS.sub(lambda m: f"{m.group(1)}every {m.group(2)}{m.group(3)} {m.group(4)} not ", text)
    text = _NOT_SINCE.sub("the best in ages:", text)
    return _RETURNING.sub(lambda m: f"{m.group(0)}, loved it,", text)


# A regret given with its reason ("Shame, because the outside came up better than ever", "What a pity,
# as the food was lovely") regrets something said before; the reason says what its own clause is.
_REGRET_BECAUSE = re.compile(r"^\W*(?:(?:it'?s|it\s+is|what|such)\s+a\s+)?(?:shame|pity)\s*[,!-]?\s*(?:because|as|since|'cause|cos)\b",
                             re.I)


# "Well," opening a sentence is a pause before speaking, not praise (VADER's lexicon reads "well" as good).
_OPENING_WELL = re.compile(r"(^|[.!?]\s+)\W*(?:oh\s+)?well\s*,\s*", re.I)


def _regret_reason(text: str) -> tuple[str, float] | None:
    """What follows a regret given with its reason ("Shame, because the outside came up better"), and
    its compound score, where that reason reads either way by itself; None otherwise."""
    m = _REGRET_BECAUSE.match(text)
    if not m:
        return None
    score = compound(text[m.end():])
    return (text[m.end():], score) if abs(score) >= COMPOUND_THRESHOLD else None


def _denied(words: str) -> str:
    """What is said after a withheld judgement, each sentiment word in it negated."""
    lexicon = analyzer().lexicon
    return _TOKEN.sub(lambda m: f"not {m.group(0)}" if m.group(0).lower() in lexicon else m.group(0), words)


def compound(text: str) -> float:
    """VADER's compound score of a text, from -1 to +1 (its contrastive "but" weighing the clause after
    it); a comparing "like" is read as the comparison it is, not as liking, a comparative that cannot
    be exceeded ("could not have been kinder") as the most of its word, a withheld judgement ("I can't
    say it is great") as denied and a judgement of what would have been as the opposite of what was."""
    regret = _regret_reason(text)
    if regret:
        return regret[1]
    text = plain_meaning(text)
    text = _NEGATED_COMPARATIVE.sub(_superlative, _COMPARING_LIKE.sub(r"\1 as", _OPENING_WELL.sub(r"\1", text)))
    text = _SINGLING_ALONE.sub("itself", text)
    text = _WITHHELD.sub(lambda m: " " + _denied(m.group(1)), text)
    text = _UNREALISED.sub(lambda m: f"was not {m.group(1)}{m.group(2)}", text)
    return float(analyzer().polarity_scores(text)["compound"])


CONTEXT_WORDS = 3


@lru_cache(maxsize=1)
def _double_edged_pattern() -> re.Pattern[str]:
    """The double-edged phrases as one pattern: its leftmost match is the text's first phrase."""
    # A "*" in a phrase stands for up to four words ("nothing like * imagined": "nothing like either
    # of us had imagined").
    phrases = [re.escape(p).replace(r"\ \*\ ", r"\s+(?:[\w']+\s+){0,4}") for p in lexicons.double_edged()]
    return re.compile(r"\b(?:" + "|".join(phrases) + r")\b")


def double_edged(text: str) -> str | None:
    """The first phrase of the text that is said in praise and in irony alike ("a night none of us will
    forget in a hurry", "money well spent, I suppose"; data/lexicons/double_edged_en.txt), as the text
    writes it and with up to three words before it; None when it has none."""
    first = _double_edged_pattern().search(text.lower().replace("\u2019", "'"))
    if first is None:
        return None
    # Up to three words before it, within its sentence, say what the phrase is about.
    before = re.split(r"[.!?;:]\s", text[:first.start()])[-1].split()[-CONTEXT_WORDS:]
    return " ".join([*before, text[first.start():first.end()]])


# What an export or a copy puts where content could not come with the text: "[GIF]", "[image]",
# "[photo removed]", "<media omitted>".
_UNSEEN = re.compile(r"[\[<(]\s*(?:gif|image|img|photo|picture|video|sticker|meme|attachment|media|voice note|"
                     r"audio|link|emoji)(?:\s+(?:omitted|removed|deleted|not shown|unavailable))?\s*[\]>)]", re.I)


# A transcript's or a scan's mark for words nobody could make out ("The lad on the counter was [inaudible]").
_UNHEARD = re.compile(r"[\[(]\s*(?:inaudible|unclear|indistinct|illegible|unintelligible|crosstalk|redacted|"
                      r"words? missing)\b[^\])]{0,20}[\])]", re.I)


def unseen_content(text: str) -> str | None:
    """Rule: a text that holds a placeholder for content the reading cannot see ("[GIF]") may carry its
    tone there: what the reading could not assess, quoted; None otherwise. So may words marked as
    not made out ("[inaudible]"): what they said is not in the text."""
    m = _UNSEEN.search(text or "")
    if m:
        return (f"what \"{m.group(0)}\" shows: the text holds content the panel cannot see, and a picture or a "
                "clip may carry its tone")
    m = _UNHEARD.search(text or "")
    return (f"what the words marked \"{m.group(0)}\" said: nobody could make them out, and they may carry the "
            "text's tone") if m else None


def double_edged_gap(phrase: str) -> str:
    """What a reader of a double-edged phrase could not assess, in plain words."""
    return f"whether \"{phrase}\" is praise or irony: it is said both ways, and a word list cannot tell which"


def polarity_of(score: float) -> str:
    return "positive" if score >= COMPOUND_THRESHOLD else "negative" if score <= -COMPOUND_THRESHOLD else "neutral"


def _forms(base: str) -> set[str]:
    """A word's regular inflections: fail -> fails, failed, failing; drop -> dropped; die -> died."""
    out = {base, base + "s", base + "es", base + "ed", base + "ing"}
    if base.endswith("e"):
        out |= {base + "d", base[:-1] + "ing"}
    if base.endswith("y"):
        out |= {base[:-1] + "ies", base[:-1] + "ied"}
    if len(base) >= 3 and base[-1] not in "aeiouwxy" and base[-2] in "aeiou" and base[-3] not in "aeiou":
        out |= {base + base[-1] + "ed", base + base[-1] + "ing"}
    return out


@lru_cache(maxsize=1)
def _events() -> tuple[frozenset[str], tuple[tuple[str, ...], ...], frozenset[str], tuple[tuple[str, ...], ...]]:
    """(breakdown words, breakdown phrases, performance words, performance phrases), inflected."""
    table = lexicons.failure_events()

    def split(section: str) -> tuple[frozenset[str], tuple[tuple[str, ...], ...]]:
        words: set[str] = set()
        phrases: set[tuple[str, ...]] = set()
        for entry in table.get(section, frozenset()):
            parts = entry.split()
            if len(parts) == 1:
                words |= _forms(parts[0])
            else:
                phrases |= {(form, *parts[1:]) for form in _forms(parts[0])}
        return frozenset(words), tuple(sorted(phrases, key=len, reverse=True))

    return (*split("breakdown"), *split("performance"))


@dataclass
class ClauseReading:
    polarity: str  # positive, negative or neutral
    cues: list[str] = field(default_factory=list)  # the words that decided it; empty: nothing was read
    source: str = "none"  # lexicon (VADER), event (a reported failure), conflict or none
    compound: float = 0.0

    @property
    def read(self) -> bool:
        return self.source in ("lexicon", "event")


# "Not once has he rushed a fade or sent me out with a wonky neckline", "at no point did it leak":
# the denial opens the clause and reaches every failure in it, past VADER's three-word window.
# "They never make you feel rushed", "not one thing has been broken": the same reach.
_DENIAL_OPENERS = (("not", "once"), ("never", "once"), ("at", "no", "point"), ("at", "no", "time"),
                   ("not", "a", "single"), ("not", "one"), ("never", "make"), ("never", "makes"), ("never", "made"))
_DENIAL_ENDS = frozenset({"but", "yet", "although", "though", "except"})


def _denied_from(tokens: list[str]) -> int | None:
    """The index from which a clause-wide denial reaches (to the clause's "but"), or None."""
    for i in range(len(tokens)):
        for opener in _DENIAL_OPENERS:
            if tuple(tokens[i:i + len(opener)]) == opener:
                return i + len(opener)
    return None


def _negated(tokens: list[str], i: int) -> bool:
    if any(t in _NEGATION or t.endswith("n't") for t in tokens[max(0, i - NEGATION_WINDOW):i]):
        return True
    start = _denied_from(tokens)
    return start is not None and start <= i and not any(t in _DENIAL_ENDS for t in tokens[start:i])


def failure_cues(clause: str) -> tuple[list[str], list[str]]:
    """What the clause reports going wrong (negative cues) and a failure it denies ("never crashed",
    positive cues, as VADER turns a negated negative word)."""
    tokens = [t.lower() for t in _TOKEN.findall(clause)]
    breakdown, breakdown_phrases, performance, performance_phrases = _events()
    neg: list[str] = []
    pos: list[str] = []
    used: set[int] = set()

    def phrase_at(i: int, phrases: tuple[tuple[str, ...], ...]) -> tuple[str, ...] | None:
        return next((p for p in phrases if tuple(tokens[i:i + len(p)]) == p), None)

    for i, tok in enumerate(tokens):
        if i in used:
            continue
        found = phrase_at(i, breakdown_phrases) or ((tok,) if tok in breakdown else None)
        if found:
            used |= set(range(i, i + len(found)))
            words = " ".join(found)
            (pos if _negated(tokens, i) else neg).append(f"not {words}" if _negated(tokens, i) else words)
            continue
        found = phrase_at(i, performance_phrases) or ((tok,) if tok in performance else None)
        if found and _negated(tokens, i):
            used |= set(range(i, i + len(found)))
            back = next((t for t in reversed(tokens[max(0, i - NEGATION_WINDOW):i])
                         if t in _NEGATION or t.endswith("n't")), "not")
            neg.append(f"{back} {' '.join(found)}")
    return neg, pos


def _mask(clause: str, skip: frozenset[str]) -> str:
    """The clause with the words in `skip` (what is judged, such as the aspect "support") blanked."""
    if not skip:
        return clause
    return _TOKEN.sub(lambda m: "thing" if m.group(0).lower() in skip else m.group(0), clause)


def _negative_cue(cue: str) -> bool:
    """Whether a cue, as read ("not great" turning "great"), counts against."""
    valence = analyzer().lexicon.get(cue.split()[-1], 0.0)
    return (valence > 0) if cue.startswith("not ") else (valence < 0)


def read_clause(clause: str, skip: frozenset[str] = frozenset()) -> ClauseReading:
    """The clause's sentiment: VADER's compound score on its words, checked against the failures it
    reports. Words in `skip` are what is judged, not a judgement, and are not scored."""
    text = plain_meaning(_mask(clause, skip))
    regret = _regret_reason(text)
    if regret:
        # The regret is of something said before; the clause is its reason, in the words as written.
        written = _REGRET_BECAUSE.match(clause)
        clause = clause[written.end():] if written else clause
        text = regret[0]
    sia = analyzer()
    score = regret[1] if regret else compound(text)
    tokens = [t.lower() for t in _TOKEN.findall(_SINGLING_ALONE.sub("itself", _OPENING_WELL.sub(r"\1", text)))]
    cues = [f"not {t}" if _negated(tokens, i) else t for i, t in enumerate(tokens)
            if t in sia.lexicon and t not in skip and t != "thing"]
    # Emoticons (":)", ":'(") carry sentiment in VADER's lexicon too; the word pattern above skips them.
    cues += [t for t in text.split() if t in sia.lexicon and not t[:1].isalnum()]
    lex = polarity_of(score)
    neg, pos = failure_cues(text)
    if skip:
        # A failure the clause denies is read even where its word names the aspect ("no upselling").
        pos = failure_cues(clause)[1]
    if pos and not neg and lex == "negative" and all(c.split()[-1] in _NEGATION for c in cues if _negative_cue(c)):
        # "No upselling of wax": the only negative words are the "no"s that deny the failures (VADER's
        # lexicon scores "no" as a word). A "no" that denies no failure is a lack ("no headset jack").
        lex = "neutral"
        cues = [c for c in cues if c.split()[-1] not in _NEGATION]
    event = "negative" if len(neg) > len(pos) else "positive" if pos else "neutral"
    cues = list(dict.fromkeys(cues))
    if event == "neutral":
        return ClauseReading(lex, cues, "lexicon" if cues else "none", score)
    if lex == "neutral" or lex == event:
        found = list(dict.fromkeys((neg if event == "negative" else pos) + cues))
        return ClauseReading(event, found, "event" if lex != event else "lexicon", score)
    # Praise next to a reported failure (or the reverse) in one clause: mixed or ironic.
    return ClauseReading("neutral", list(dict.fromkeys(cues + neg + pos)), "conflict", score)


def clause_polarity(clause: str, skip: frozenset[str] = frozenset()) -> tuple[str, list[str]]:
    """A clause's polarity and its cues; "neutral" with no cues when nothing in it was read (which
    callers take as "not read", not as "neutral"), and for a clause whose words and events disagree."""
    r = read_clause(clause, skip)
    return (r.polarity, r.cues) if r.read else ("neutral", [])
