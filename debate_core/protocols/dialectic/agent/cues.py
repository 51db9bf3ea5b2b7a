"""How the agents read a sentence and the question: the rule cues a sentence carries, whether
two words match, and what the question asks a rule about."""

from __future__ import annotations

import os
import re
from functools import lru_cache

from ....core.lexicons import sectioned
from ....core.schemas import Case
from ....core.text import HEARSAY, evidence_authority, sentences, stem
from ..amendments import superseded_sentences, withdraws

_ASKS_ASP = re.compile(r"\b(ASP|answer set program\w*|clingo|logic program)\b", re.I)
# A prohibition of failing to do something ("unlawful ... to fail to", "charge ... without") is a requirement.
_DOUBLE_NEGATIVE = re.compile(r"\b(fail(?:s|ing)? to|without)\b"
                              # "Nobody leaves the platform until an instructor has checked their harness":
                              # what must have been done first; "until the suspension ends" says when a bar lifts.
                              r"|\buntil\b[^,.;]{0,60}?(?:\b(?:has|have)|['’](?:s|ve))\s+(?:been\s+)?\w+(?:ed|en|t)\b", re.I)
_LABEL_PREFIX = re.compile(r"^\s*[A-Z][A-Za-z ]{0,30}:\s+")
_WHEN_CLAUSE = re.compile(r"\bwhen\b\s+(.+?)(?:,?\s+and\s+when\b|[?;]|\.(?:\s|$)|$)", re.I | re.S)
_WHETHER_CLAUSE = re.compile(r"\bwhether\b\s+(.+?)(?:[?;]|\.(?:\s|$)|$)", re.I | re.S)

# Cues the lexicon file does not list, in general English drafting: what a text permits ("may",
# "is entitled to"; "may not" is a prohibition), the provisos that carve out of a rule ("provided
# that", "save where", "subject to") and the conditions that limit one ("on condition that").
_PERMISSION = re.compile(r"\b(?:may(?!\s+not\b)|(?:is|are) (?:still |also )?(?:permitted|entitled|allowed|free) to|"
                         r"(?:is|are) (?:still |also )?(?:permitted|allowed) (?:where|when|if|for)|can be \w+(?:ed|en) by|"
                         r"(?:who|that|which)\b[^,;.]{1,80}?\bcan (?!not\b|be\b)\w+|"
                         r"(?:has|have) the right to|is at liberty to|"
                         # "You can raid and tackle if you're a registered member": a permission on conditions.
                         r"(?:you|they|members?|players?|anyone|everyone) can (?!not\b|be\b)\w+[^,;.]{0,40}?\b(?:if|once|as long as|provided))\b", re.I)
_EXTRA_CUES = {
    "exception": ("provided that", "provided however", "provided always", "save that", "save where", "save for",
                  "subject to", "excluding", "does not apply", "shall not apply", "do not apply",
                  "nor does it apply", "nor do they apply", "nor does this apply"),
    "obligation": ("on condition that", "so long as", "as long as", "is conditional on"),
    # "Nor may you bring a dog": a bar carried over from the sentence before, said by inversion.
    "prohibition": ("nor may", "nor can", "neither may", "neither can"),
    # "members no longer need their own policy for the counter": what was needed is needed no more.
    "not_required": ("no longer need", "no longer have to", "no longer has to",
                     # "Recording nests of common species needs no licence or permit".
                     "needs no", "need no", "requires no", "require no"),
}

# "X is limited to the sections the council has opened" confines X to what follows, a condition; a
# limit to an amount ("is limited to a 150 ml portion") is a cap, which what exceeds it defeats.
_CONFINED = re.compile(r"\b(?:is|are) (?:limited|restricted|confined) to (?!(?:a|an|one|two|three|four|five|\d)\b)", re.I)
# "Our senior championships are for pullers aged 18 or over": what a class or an event is for is who
# may enter it, a condition; so is who it is done by ("Trail checks are done by registered volunteers
# aged 18 or over who have completed our training").
_MEANT_FOR = re.compile(r"\b(?:is|are) (?:only |just )?(?:for|open to|(?:done|carried out|performed|undertaken|led) by) "
                        r"(?:[\w-]+ ){1,3}?(?:who|whose|that|aged|born|under|over)\b", re.I)

# Where a sentence carves something out of its rule: what follows is the exception ("... unless X",
# "does not apply to X", "Nor does it apply to X"), what precedes it the rule and its conditions.
_EXCEPTION_TAIL = re.compile(
    r"\b(?:unless|except(?:\s+(?:in so far as|where|when|if|for))?|(?:does|do|shall) not (?:apply|extend) to|"
    r"(?:doesn't|don't) (?:apply|extend) to|"
    r"nor (?:does|do|shall|will) (?:it|this|they|that|these|the \w+) apply to|other than|save (?:where|for|that))\b",
    re.I)
# Words of a predicate name match a sentence's words when one is a prefix of the other at least
# this long ("cancel"/"cancelled", "clear"/"clearly"): the light stemmer leaves such pairs apart.
MIN_PREFIX = 4


@lru_cache(maxsize=1)
def cues() -> dict[str, tuple[str, ...]]:
    """The rule cues by section, from data/lexicons/rule_cues_en.txt (sources in its README)."""
    out = sectioned("rule_cues_en.txt")
    # Longest first, so that "does not require" is found before "require".
    return {k: tuple(sorted(v, key=len, reverse=True)) for k, v in out.items()}


def _has_cue(sentence: str, section: str) -> bool:
    low = " ".join(sentence.lower().replace("\u2019", "'").split())
    return any(re.search(rf"\b{re.escape(c)}s?\b", low) for c in (*cues().get(section, ()), *_EXTRA_CUES.get(section, ())))


def permits(sentence: str) -> bool:
    """Whether the sentence grants a permission ("may", "is entitled to"), not counting "may not"."""
    return bool(_PERMISSION.search(sentence))


# "Nor do you need to be an archaeologist", "Neither is a GPS required": a negative carried over
# from the sentence before, said by inversion; what follows is not required.
_NOR_NEEDED = re.compile(r"\b(?:nor|neither)\s+(?:do|does|did|is|are|was|were|will)\s+(?:[\w'-]+\s+){0,4}?"
                         r"(?:need|needs|needed|required|necessary|have to|has to|compulsory|mandatory)\b", re.I)


# "so no licence, CBT or registration is needed", "No DBS check is required": what is named after "no"
# is not required.
_NONE_NEEDED = re.compile(r"(?:^|[\s,;:(])no\s+(?:(?!(?:but|and|yet|however|though|while|whereas)\b)[\w'-]+,?\s+){0,6}?"
                          r"(?:is|are)\s+(?:\w+\s+)?"
                          r"(?:needed|required|necessary|compulsory|mandatory)\b", re.I)


# A proposal the body did not adopt ("Proposal to require a dead letter queue: not carried", "the
# motion ... was defeated", "Coach approval was voted down"): what it would have required is not
# required; a failed proposal to drop or relax a requirement changes nothing.
_NOT_ADOPTED = re.compile(
    r"\b(?:proposals?|motions?|resolutions?|suggestions?|amendments?)\b[^.;]{0,160}?(?:\b(?:was|were|is|be) not "
    r"(?:carried|adopted|agreed|passed|approved)|\bnot (?:carried|adopted)|\b(?:was|were) (?:lost|defeated|rejected)|\bfell\b"
    # "Proposal that counter sellers must hold a rating of 5: lost, 7 votes to 12".
    r"|:\s*(?:lost|defeated|rejected|withdrawn|failed|fell)\b)"
    r"|\bvoted down\b|\brejected as an? (?:requirement|condition)\b", re.I)
# What a proposal to drop or relax a requirement says it would do ("to drop the buddy rule", "to cut
# the age to 16"; not "anyone with a cut").
_TO_DROP = re.compile(r"\b(?:drop\w*|remov\w*|abolish\w*|scrap\w*|repeal\w*|relax\w*|end(?:s|ing)?|withdraw\w*|lift\w*"
                      r"|waiv\w*|lower\w*|reduc\w*|cut(?:ting)?(?=\s+(?:the|its|their|a|an)\b))\b", re.I)
_TO_PERMIT = re.compile(r"\b(?:let|lets|letting|allow\w*|permit\w*|admit\w*|open(?:s|ing)?|extend\w*|widen\w*)\b", re.I)


def not_adopted(sentence: str) -> str | None:
    """What a proposal the body did not adopt would have done: 'adds' a requirement, 'drops' or
    relaxes one, 'permits' someone more; None for a sentence that reports no failed proposal."""
    m = _NOT_ADOPTED.search(sentence)
    if not m:
        return None
    if _TO_DROP.search(m.group(0)):
        return "drops"
    return "permits" if _TO_PERMIT.search(m.group(0)) else "adds"


# "Deprecated services need not apply": the idiom turns them away; it does not waive a requirement.
_NEED_NOT_APPLY = re.compile(r"\bneed(?:n't|n’t| not) apply\b", re.I)


# A pure reading of one sentence, asked for many times per case (grouping, bars, requirements).
@lru_cache(maxsize=4096)
def cue_kind(sentence: str) -> str | None:
    """What a sentence does to a rule: 'not_required', 'exception', 'obligation', 'prohibition',
    'permission' or None. A permission that carries a proviso ("may ..., provided that ...") is a
    permission: the proviso stays in its clause. A proposal not adopted (`not_adopted`) that would
    have added a requirement requires nothing: what it names is not required. One that would have
    dropped a requirement or let more people in is read as the rest of its sentence says ("...: not
    carried; in-river work stays 18 and over")."""
    if not_adopted(sentence) == "adds":
        return "not_required"
    if _NEED_NOT_APPLY.search(sentence):
        return "prohibition"
    if _has_cue(sentence, "not_required") or _NOR_NEEDED.search(sentence) or _NONE_NEEDED.search(sentence):
        return "not_required"
    if _has_cue(sentence, "exception"):
        if permits(sentence) and not _has_cue(sentence, "prohibition"):
            return "permission"
        return "exception"
    if _has_cue(sentence, "prohibition"):
        return "obligation" if _DOUBLE_NEGATIVE.search(sentence) else "prohibition"
    if _has_cue(sentence, "obligation") or _CONFINED.search(sentence) or _MEANT_FOR.search(sentence) \
            or kept_need(sentence):
        return "obligation"
    if permits(sentence):
        return "permission"
    return None


# An exception set in brackets inside the rule ("Hens (but not cockerels) may be kept ..."): the
# rest of the sentence is the rule, with its conditions after the bracket.
_BRACKETED_EXCEPTION = re.compile(r"\(\s*(?:but not|except|excluding|other than|not)\s+([^()]+)\)", re.I)


def split_exception(sentence: str) -> tuple[str, str]:
    """(the rule part, the exception part) of a sentence; the exception part is "" without one. An
    "except where/if" that states the only way a prohibition is lifted ("cannot ... except in so far
    as X") stays in the rule part: it is a condition, not an exception."""
    bracket = _BRACKETED_EXCEPTION.search(sentence)
    if bracket:
        return sentence[:bracket.start()] + sentence[bracket.end():], bracket.group(1)
    m = _EXCEPTION_TAIL.search(sentence)
    if not m or re.match(r"except\s+in so far as", m.group(0), re.I):
        return sentence, ""
    return sentence[:m.start()], sentence[m.end():]


# A grant stated as what is done for whom ("a permit is issued to a person whose main home is ...", "a
# grant is paid for a child who ..."):
# who receives it is described by the conditions.
_GRANTED_TO = re.compile(r"\b(?:is|are|shall be|will be) (?:issued|granted|given|awarded|paid|offered) (?:to|for)\b"
                         r"|\b(?:is|are) (?:only )?(?:available|open) (?:only )?to\b", re.I)


# "Cheese made from raw milk may be sold in England": a passive permission with no condition says what
# is allowed, not who must be what; "may be sold by members who ..." has its conditions. What kind of
# thing it names ("Letters going abroad may be franked") is still the kind the rule is about.
_BARE_PASSIVE_PERMISSION = re.compile(r"\bmay (?:also |still )?be \w+(?:ed|en|ld|t)\b", re.I)
_CONDITION_WORD = re.compile(r"\b(?:if|only|provided|who|whose|which|that|when|where|once|as long as|so long as|"
                             r"subject to|after|before|by|unless|until|must|aged|over|under)\b", re.I)


def _bare_passive(text: str) -> bool:
    return bool(_BARE_PASSIVE_PERMISSION.search(text)) and not _CONDITION_WORD.search(text)


def bare_permission(text: str) -> bool:
    """A passive permission that states no one's terms ("Cheese made from raw milk may be sold")."""
    return permits(text) and _bare_passive(text)


def _grants_on_conditions(text: str) -> bool:
    """A permission that states who or on what terms, not a bare passive one."""
    return permits(text) and not _bare_passive(text)


def states_requirement(text: str) -> bool:
    """Whether the text requires ("must", "only if", "on condition that") or grants ("may", "is issued
    to a person who ...") something: the predicates it names are the conditions of that requirement or
    grant, whatever provisos follow."""
    return (_has_cue(text, "obligation") or _grants_on_conditions(text) or bool(_GRANTED_TO.search(text))
            or bool(_MEANT_FOR.search(text)) or kept_need(text)
            # "No one goes on court without a waiver": a bar on going without it requires it.
            or (_has_cue(text, "prohibition") and bool(_DOUBLE_NEGATIVE.search(text))))


def repeals(sentence: str) -> bool:
    """Whether the sentence withdraws something ("no longer applies", "is repealed"): what it names no
    longer counts, in either direction (a condition it drops, or an exception it removes)."""
    return withdraws(sentence)


def asks_for_asp(question: str) -> bool:
    return bool(_ASKS_ASP.search(question))


# Two stems that part only in their last letter or two after a long common start are one word
# ("pregnanc" for pregnancy, "pregnant"): the stemmer keeps a noun and its adjective apart.
LONG_STEM = 7


def same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) >= MIN_PREFIX and long_.startswith(short):
        return True
    common = len(os.path.commonprefix([a, b]))
    return common >= LONG_STEM and len(long_) - common <= 2


def covers(words: set[str], wanted: set[str]) -> bool:
    return bool(wanted) and all(any(same_word(w, x) for x in words) for w in wanted)


def matched_terms(wanted: set[str], words: set[str]) -> set[str]:
    return {w for w in wanted if any(same_word(w, x) for x in words)}


# "open to members aged 18 or over who ... and are not suspended": a requirement that names a predicate
# only just after a negation asks that it not hold.
_WORD = re.compile(r"[A-Za-z][\w'-]*")
# "no licence is needed" says what is not required, a reading of its own; only a state is negated here.
_NEGATIONS = frozenset({"not", "never"})


_NOT_MORE_THAN = re.compile(r"\b(not|never)\s+(?:more|less|longer|fewer|over|under)\s+(?:than\s+)?\S+\s+\w+\s+"
                            r"(?:(?:in|of|behind|overdue)\s+(?:with\s+)?)?", re.I)


def only_negated(sentence: str, name_terms: set[str]) -> bool:
    """Whether a sentence names a predicate (its name's stems, `name_terms`) and every word of it that
    it names comes at most two words after a negation ("not", "never", "-n't")."""
    # "are not more than 30 days in arrears": a negated amount negates what it measures.
    words = [w.lower() for w in _WORD.findall(_NOT_MORE_THAN.sub(r"\1 ", sentence))]
    hits = [i for i, w in enumerate(words) if stem(w) in name_terms]
    # "without any interruption for neutropenia", "not first aid trained": a word of the name right
    # after one the negation covers is covered too, as the rest of the same phrase.
    covered: set[int] = set()
    for i in hits:
        before = range(max(0, i - 2), i)
        # "without any" negates what it names; a bare "without" ("may attend without a GP letter") says
        # what is not needed, not what must be absent.
        if any(words[j] in _NEGATIONS or words[j].endswith("n't") or j in covered
               or (words[j] == "without" and words[j + 1:j + 2] == ["any"]) for j in before):
            covered.add(i)
    return bool(hits) and len(covered) == len(hits)


# "Performers may sell their own recordings, but must not approach people to do so": a permission and
# a prohibition joined by "but" are two rules, each of its own clause's words; so are two joined by
# "and" when the second names its own subject ("Parents must sign the agreement, and anyone more than
# 30 days behind with fees may not take up a new place").
_TURN = re.compile(r",\s+but\s+|;\s+but\s+|,\s+and\s+(?=(?:anyone|anybody|nobody|no one|everyone|those|members|"
                   r"parents|you|they)\b)", re.I)


def _turned_clauses(sentence: str) -> list[str]:
    """The sentence, or its clauses either side of a "but" when each states a rule of a different kind."""
    parts = _TURN.split(sentence, maxsplit=1)
    if len(parts) == 2:
        kinds = [cue_kind(p) for p in parts]
        if all(kinds) and kinds[0] != kinds[1]:
            return [parts[0].rstrip() + ".", parts[1][:1].upper() + parts[1][1:]]
    return [sentence]


def evidence_sentences(case: Case, skip: set[str]) -> list[tuple[str, str]]:
    """The passages' sentences, without those a later amendment supersedes (amendments.py)."""
    gone = superseded_sentences(case.evidence)
    out = []
    for ev in case.evidence:
        if ev.id in skip:
            continue
        for s in sentences(ev.text):
            if (ev.id, s) not in gone:
                out.extend((ev.id, piece) for part in _turned_clauses(s) for piece in _withdrawal_clauses(part))
            elif gone[(ev.id, s)].kept:
                out.append((ev.id, gone[(ev.id, s)].kept))  # an item deleted: the rest still stands
    return out


# A withdrawal that points back at the clause before it.
_THAT_IS_GONE = re.compile(r"(?:that|this|which) (?:is|'s) no longer\b", re.I)


def _withdrawal_clauses(sentence: str) -> list[str]:
    """"The under-16 route ... is withdrawn: you now have to be 16 or over", "everyone needs the online
    certificate, and the old course no longer counts": a withdrawal and the rule that replaces it, in
    clauses of one sentence, read as sentences of their own."""
    parts: list[str] = []
    for p in (p.strip() for p in re.split(r"[:;]\s+|,\s+(?:and|but)\s+", sentence)):
        if p and parts and _THAT_IS_GONE.match(p):
            parts[-1] += "; " + p  # "used to be able to ...; that is no longer the case": one withdrawal
        elif p:
            parts.append(p)
    if len(parts) > 1 and any(repeals(p) for p in parts) and not all(repeals(p) for p in parts):
        return [p if p.endswith((".", "!", "?")) else p + "." for p in parts]
    # "Proposal that sellers must hold a rating of 5: lost, 7 votes to 12; the rating of 3 or more stays":
    # what stays is a sentence of its own, outside the failed proposal.
    head, _, kept = sentence.rpartition("; ")
    if head and not_adopted(head) and kept_need(kept):
        return [head + ".", kept]
    return [sentence]


def shortened(sentence: str, limit: int = 120) -> str:
    """The sentence cut to `limit` characters at a word boundary, never inside a word."""
    s = " ".join(sentence.split())
    return s if len(s) <= limit else s[: limit - 3].rsplit(" ", 1)[0].rstrip(" ,;:") + "..."


def _unquoted(question: str) -> str:
    """The question without the text it quotes: a quoted clause is material, not what is asked."""
    return re.sub(r"\"[^\"]*\"|“[^”]*”", " ", question)


def subject_of(question: str) -> str:
    """What the rule is about: the question's "when ..." (else "whether ...") clause, else the question."""
    text = _unquoted(question)
    for pattern in (_WHEN_CLAUSE, _WHETHER_CLAUSE):
        for sent in reversed(sentences(text)):
            m = pattern.search(sent)
            if m and len(m.group(1).split()) >= 2:
                return " ".join(m.group(1).split()).rstrip(".?")
    return " ".join(_LABEL_PREFIX.sub("", question).split()).rstrip(".?")


def topic_of(question: str) -> str:
    """The part of the question a reading is measured against: what the rule is about, without the
    instruction to write it (a sentence asking for the "rule" keeps only its "when" clause) and
    without a leading label such as "Knowledge gap:"."""
    parts: list[str] = []
    for sent in sentences(question):
        sent = _LABEL_PREFIX.sub("", sent)
        if re.search(r"\brules?\b", _unquoted(sent), re.I):
            m = _WHEN_CLAUSE.search(_unquoted(sent))
            if m:
                parts.append(m.group(1))
            continue
        parts.append(sent)
    if parts:
        return " ".join(parts)
    # The question only asks for the rule: what it is about is the head it names ("may_renew(L)"), read
    # as words.
    heads = [m.group(1).replace("_", " ") for m in re.finditer(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*\(", question)]
    return " ".join(heads) or question


def hearsay_passages(case: Case) -> set[str]:
    """The passages of hearsay standing (a forum post, a blog, a chat message)."""
    return {ev.id for ev in case.evidence if evidence_authority(ev) <= HEARSAY}


# "the breast cancer exclusion", "the bar on deprecated services": a rule's exclusion named as a noun.
# What an age bar or a figure's bar keeps out ("the under-18 bar") is left to the sentences that state it.
_NAMED_EXCLUSION = re.compile(r"\b(?:the|its|our|their|this|that)\s+((?:[a-z'-]+\s+){0,3}?[a-z'-]+)\s+(?:exclusion|bar|ban)\b"
                              r"(?!\s+(?:on|to|from|of)\b)"
                              r"|\b(?:bar|ban|exclusion)\s+(?:on|of)\s+((?:[a-z'-]+\s+){0,3}?[a-z'-]+)"
                              r"(?=\s*(?:[,;.:)]|\b(?:is|are|stays?|remains?|and|was|were)\b|$))", re.I)


def named_exclusions(sents: list[str]) -> list[str]:
    """What the sentences name as a rule's exclusion ("Baseline test, consent and the breast cancer
    exclusion: unchanged" names breast cancer), outside sentences that withdraw something."""
    return [what for s in sents if not repeals(s) for m in _NAMED_EXCLUSION.finditer(s)
            for what in [m.group(1) or m.group(2)]
            if not re.search(r"\d|\bages?\b|\bunder\b|\bover\b", what, re.I)]


# "(c) The identification assessment, first aid and minimum age of 18 stay", "Baseline test and consent:
# unchanged": an amending text that keeps requirements names them again, whatever it did to the
# sentences that first stated them.
_KEPT = re.compile(r"\b(?:(?:stays?|remains?)(?:\s+(?:unchanged|in force|in place|the same|as (?:before|it is|they are)))?"
                   r"|(?:is|are) (?:unchanged|kept|retained)|continues? to apply)(?=\s*(?:[.;:]|$))"
                   r"|:\s*unchanged\b", re.I)
# A kept bar ("the bar on deprecated services", "the breast cancer exclusion") is read by
# `named_exclusions`; what stays not required or banned is no requirement, nor is a rule kept by its
# name ("the 28-day rule on unpaid accounts" may bar), nor "the rest" of a text.
_NOT_KEPT_AS_NEED = re.compile(r"\b(?:bar|ban|exclusion|banned|barred|excluded|prohibited|not|no|optional|welcome|rest|"
                               r"other|otherwise|else|everything|remaining|rules?|polic(?:y|ies)|limits?|caps?|"
                               r"voluntary|advice|advisory)\b", re.I)


def _kept(clause: str) -> str | None:
    """What a clause says stays as it was ("the rating of 3 or more" in "the rating of 3 or more
    stays"), outside a failed proposal; None for a clause that keeps nothing."""
    return _KEPT.split(clause)[0] if _KEPT.search(clause) and not not_adopted(clause) else None


def kept_need(clause: str) -> bool:
    """Whether a clause says that requirements stay as they were ("the rating of 3 or more stays")."""
    kept = _kept(clause)
    return kept is not None and not _NOT_KEPT_AS_NEED.search(kept)


def reaffirmed(sents: list[str]) -> list[str]:
    """The items of the requirements a sentence says stay as they were (`_KEPT`), each on its own."""
    return [item for s in sents for clause in re.split(r";\s*", s) if not repeals(clause)
            for kept in [_kept(clause)] if kept is not None
            for item in re.split(r",\s*(?:and\s+)?|\s+and\s+", kept)
            if item.strip() and not _NOT_KEPT_AS_NEED.search(item)]


def not_required_clause(sentence: str) -> str:
    """The clause of a sentence that says something is not needed ("Each of you sells your own cheese
    to the public, so you don't need to be an approved dairy"): what its other clauses name still
    counts. The whole sentence when no one clause says so."""
    parts = [p for p in re.split(r";\s+|,\s+(?:so|and so|which is why|but|and)\s+", sentence) if p.strip()]
    if len(parts) > 1:
        needless = [p for p in parts if cue_kind(p) == "not_required"]
        if len(needless) == 1:
            return needless[0]
    return sentence


def required_part(sentence: str) -> str:
    """The sentence without the clause that says something is not needed ("..., as long as we hold a
    consent form signed by a parent; all-adult teams need no consent forms" keeps its first clause);
    "" when the whole sentence says so."""
    if cue_kind(sentence) != "not_required":
        return sentence
    needless = not_required_clause(sentence)
    return "" if needless == sentence else sentence.replace(needless, " ").strip(" ;,")


# "A maker who sells only direct to the consumer needs registration, not approval": what follows ", not"
# after what a sentence says is needed is what is not needed.
_NEEDS_NOT = re.compile(r"\b(?:needs?|requires?|needed|required)\b[^,;.]{1,60},\s+not\s+(?:an?\s+|the\s+)?"
                        r"([\w' -]{1,40}?)\s*(?=[;,.]|$)", re.I)


def contrasted_need(sentence: str, name_terms: set[str]) -> bool:
    """Whether a sentence names a predicate (its name's stems) as what is not needed, against what is
    ("needs registration, not approval")."""
    return any(name_terms & {stem(w) for w in _WORD.findall(m.group(1).lower())} for m in _NEEDS_NOT.finditer(sentence))
