"""What a text under review leaves out: the rest of a sentence it stops in the middle of, or an
earlier text of its author's that it rests its judgement on. Either way its sentiment is not all in
the words the panel can read."""

from __future__ import annotations

import re

from ....core.text import STOPWORDS, doubts
from .sentiment import compound

_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def cut_off(text: str) -> str | None:
    """The reason a text under review reads as cut off: it stops without a sentence end on a word that
    cannot end one ("... when we got to reception the"), so what it was going to say is unknown."""
    words = re.findall(r"[A-Za-z']+", text or "")
    stripped = (text or "").rstrip()
    # "The only thing I'd say is…": an export that marks where it cut the text, on a word that cannot
    # end a sentence; a text trailing off on a word that can ("Well…", "we'll see…") has ended.
    stripped = re.sub(r"(?:\u2026|\.{3})$", "", stripped).rstrip()
    if not words or stripped.endswith((".", "!", "?", ")", '"', "'", "\u201d", "\u2026")) or _HANGUL.search(stripped):
        return None
    if words[-1].lower() not in STOPWORDS:
        return None
    tail = " ".join(stripped.split()[-6:])
    return (f"what the text goes on to say: it is cut off mid-sentence (\"\u2026{tail}\"), so the "
            "sentiment of what follows is unknown")


# "Everything I said in my first review still stands", "as I said in my last review": the judgement
# is in another text of the author's.
_ELSEWHERE = re.compile(
    r"[^.!?]*\b(?:(?:my|the|her|his|their)\s+(?:first|earlier|previous|original|last|other|old)\s+(?:review|post|"
    r"comment)|(?:as|what|everything|all)\s+(?:i|we)\s+(?:said|wrote|mentioned)\s+(?:before|earlier|last time|"
    r"previously)"
    # "Anyone who read what I put on here after the first one knows exactly how I feel": the same, said
    # through the reader of the earlier text.
    r"|(?:what|everything)\s+(?:i|we)\s+(?:said|wrote|put|posted)\b[^.!?]{0,40}?\b(?:first|earlier|previous|last)\b"
    r"|knows?\s+(?:exactly\s+|just\s+)?how\s+(?:i|we)\s+(?:feel|felt))\b[^.!?]*[.!?]?", re.I)


def refers_elsewhere(text: str) -> str | None:
    """Rule: a text that rests its judgement on an earlier one of its author's ("Everything I said in
    my first review still stands") carries a sentiment the panel cannot read; what that text said
    is for a person to find."""
    m = _ELSEWHERE.search(text or "")
    if not m:
        return None
    said = " ".join(m.group(0).split())
    return f"the sentiment it takes from an earlier review, not under review and so unknown (\"{said[:60]}…\")"


# Replies in one passage, one after another ("'Cheers Trev, gracious as ever' / 'He was fuming in the
# Fox after, mind'"), and how far from neutral a reply's VADER score must be to read the text one way.
_REPLY_SPLIT = re.compile(r"\s+/\s+")
READS_ONE_WAY = 0.3
# A reader asking which way the text was meant ("Jo, was that a complaint or a rave?", "compliment or
# dig?"): to that reader, at least, it reads both ways.
_WAYS = (r"(?:complaint|moan|rant|rave|compliment|praise|dig|joke|jibe|sarcasm|sarcastic|serious|sincere|insult|criticism"
         r"|thank[- ]you|thanks|grumble|warning|recommendation|endorsement|plug|advert)")
# So does one who asks which of two things it is about and says they cannot tell ("Is 'never again'
# about the surgery or about leaving it so late? Can't tell").
# And so does one who asks whether it is one of them at all ("So is this a good review or not?", "is this
# a complaint or not? genuinely can't tell").
_ASKS_WHICH_WAY = re.compile(rf"[^/?]*\b{_WAYS}\s+or\s+(?:an?\s+)?{_WAYS}\b[^/?]*\?"
                             rf"|[^/?]*\b(?:is|was)\s+(?:this|that|it)\s+(?:meant\s+(?:as|to\s+be)\s+)?(?:an?\s+)?"
                             rf"(?:good|bad|positive|negative|{_WAYS})(?:\s+review)?\s+or\s+not\b[^/?]*\?"
                             r"|[^/?]*\bor\b[^/?]{0,80}\?\s*(?:I\s+)?(?:\w+\s+)?(?:can't|cannot|can not|couldn't|could not)"
                             r"\s+tell\b", re.I)


# The author of the text says they have not made up their mind ("I honestly don't know what to think
# now", "please don't take this as my last word", "three stars for now"): the text's sentiment is not
# yet settled by them.
_UNDECIDED_AUTHOR = re.compile(
    r"[^.!?]*\b(?:(?:I|we)\s+(?:\w+\s+)?(?:don't|do not|really don't)\s+know\s+what\s+to\s+(?:think|make of (?:it|this)|feel)"
    r"|not\s+(?:\w+\s+){0,3}(?:my|our)\s+last\s+word"
    r"|(?:I|we)\s+(?:haven't|have not)\s+(?:yet\s+)?made\s+up\s+(?:my|our)\s+minds?"
    r"|(?:I'm|I am|we're|we are)\s+(?:still\s+)?(?:undecided|in two minds|torn)"
    # "Three stars for now. Will update when I find out what they found": the rating waits on news.
    r"|(?:stars?|rating)\s+for\s+now|(?:I'll|I\s+will|will)\s+update\s+(?:this\s+|it\s+|my\s+review\s+)?"
    r"(?:when|once|after|if))\b[^.!?]*[.!?]?", re.I)


# A business answering that it has no record of the reviewer ("we can't find any booking under your
# name", "Is it possible you booked Fresh Start in Danbury?"): the review may be about someone else.
_NO_RECORD = re.compile(r"[^.!?]*\b(?:(?:can't|cannot|could not|couldn't) find (?:any|a|your|the) (?:booking|order|record|"
                        r"account|reservation|appointment)|is it possible you (?:booked|used|ordered|visited|went to))"
                        r"\b[^.!?]*[.!?]?", re.I)


def meaning_left_open(text: str, evidence: list) -> str | None:
    """Rule: where the replies to a text under review take it both ways (one reply clearly warm, another
    clearly cross), another passage's writer says they cannot tell ("I don't know her well enough to
    guess"), or a reader asks which way it was meant ("was that a complaint or a rave?"), what its
    author meant is open: the people who read it did not agree on it. So it is where its author says
    they have not made up their mind ("I honestly don't know what to think now"), and where the business
    it names has no record of its author ("we can't find any booking under your name")."""
    undecided = _UNDECIDED_AUTHOR.search(text or "")
    if undecided:
        return f"how its author now feels: the text says \"{' '.join(undecided.group(0).split())[:80]}\""
    for ev in evidence:
        if not text or text.strip() in ev.text:
            continue
        unknown = _NO_RECORD.search(ev.text)
        if unknown:
            said_so = " ".join(unknown.group(0).split()).lstrip(",;: ")
            return f"who the text is about: {ev.id} says \"{said_so[:120]}\""
        said = doubts(ev.text)
        if said:
            # "She has not answered my message. I don't know her well enough to guess.": both are quoted.
            return f"how the text was meant: {ev.id} says \"{' '.join(' '.join(said[:2]).split())[:160]}\""
        asked = _ASKS_WHICH_WAY.search(ev.text)
        if asked:
            return f"how the text was meant: a reader in {ev.id} asks \"{' '.join(asked.group(0).split())[:80]}\""
        replies = [r for r in _REPLY_SPLIT.split(ev.text) if r.strip()]
        if len(replies) < 2:
            continue
        scored = [(compound(r), r) for r in replies]
        warm, cross = max(scored), min(scored)
        if warm[0] >= READS_ONE_WAY and cross[0] <= -READS_ONE_WAY:
            return (f"how the text was meant: the replies in {ev.id} take it both ways (\"{warm[1].strip()[:50]}\" "
                    f"against \"{cross[1].strip()[:50]}\")")
    return None
