"""The vocabulary of declared predicates (`name(C): description`) and the ASP rules written over it."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from ....core.schemas import Case
from ....core.text import NUMBER_WORDS, terms
from ..amendments import replaces, successor_names, withdrawn_names
from ..rules import rule_literals
from .cues import (
    bare_permission,
    contrasted_need,
    covers,
    cue_kind,
    evidence_sentences,
    hearsay_passages,
    matched_terms,
    named_exclusions,
    only_negated,
    permits,
    reaffirmed,
    repeals,
    required_part,
    split_exception,
    states_requirement,
)

# "name(X): what it means", or a bare "name(X);" in a list of declarations (no description).
_DECL = re.compile(r"\b([a-z][a-z0-9_]*)\(([A-Z][A-Za-z0-9_]*(?:\s*,\s*[A-Z][A-Za-z0-9_]*)*)\)\s*(?::\s*([^;.]+)|(?=;))")
_LABEL = re.compile(r"([A-Z][A-Za-z ]{2,30}):\s")
_HEAD = re.compile(r"\b([a-z][a-z0-9_]*)\(([A-Z][A-Za-z0-9_]*)\)")
PRED_NAME = re.compile(r"\b([a-z][a-z0-9_]*)\s*\(")
_UNLESS_CLAUSE = re.compile(r"\b(?:unless|except (?:where|when|if))\b([^;.,]+)", re.I)
# A bar on what the rule grants ("cannot be renewed if ...", "a blocked account cannot renew") names
# what defeats it; a second negation after the bar ("cannot ... unless", "... that was not") makes the
# sentence a requirement instead, and it is left to the requirement reading.
_BAR = re.compile(r"\b(?:cannot|can ?not|can't|may not|must not|shall not|(?:is|are) not (?:allowed|permitted)|"
                  r"(?:is|are|will be|shall be) not (?:issued|granted|given|awarded|offered|paid)|"
                  r"(?:is|are) (?:prohibited|forbidden|banned)|(?:is|are) not (?:covered|eligible)|(?:isn't|aren't) (?:allowed|permitted)|"
                  r"(?:isn't|aren't) (?:covered|eligible))\b"
                  r"|(?:^|,)\s*no\s+[\w' -]{1,64}?\s+(?:is|are|may|shall|will|can|must)\s+\w+"
                  r"|\b(?:will not|won't|do not|don't|does not|doesn't|shall not) (?:accept|allow|permit|issue|grant|let)\b"
                  r"|\b(?:will not|won't|shall not) be (?:allowed|permitted)\b"
                  # "must contain no added sugars", "none may contain caffeine": what may not be there.
                  r"|\b(?:must|shall|should|may)\s+(?:contain|have|include|carry|use|hold)\s+no\b"
                  r"|\bnone(?:\s+of\s+[\w' -]{1,40}?)?\s+(?:may|can|shall|must|is|are)\b"
                  # "A permit that has been suspended gives no right to perform until the suspension ends".
                  r"|\b(?:gives?|confers?|carr(?:y|ies)) no right to\b"
                  # "The main court isn't open to children under five"; "club boats aren't available to you
                  # until it's paid"; "Deprecated services need not apply".
                  r"|\b(?:is|are) not (?:open|available) to\b|\b(?:isn't|aren't) (?:open|available) to\b"
                  r"|\bneed(?:n't| not) apply\b"
                  # "Exclude: pregnancy, breastfeeding ..."; "Contraindicated in pregnancy": who is left out.
                  r"|^\s*(?:exclu(?:de|ded|sions?)|contraindicat(?:ed|ions?))\s*:|\bcontraindicated\s+(?:in|for|when|with|after)\b",
                  re.I)
# A provision's number ("12.2", "(b)", "4.") before its text: not part of what it says.
_NUMBERING = re.compile(r"^\s*(?:\(?\d+(?:\.\d+)*[.)]?|\([a-z]{1,3}\))\s+")
# A negation hyphenated into a compound ("a no-photography sign") names a thing; it negates nothing.
_SECOND_NEGATION = re.compile(r"(?<![\w-])(?:not|no|never|without|unless|except|fail\w*|until)(?![\w-])", re.I)
# A limit on how often or how much ("up to three times", "no more than 2"): reaching it defeats the rule.
_NOBODY = re.compile(r"\s*(?:nobody|no one|no-one|no person)\b", re.I)
# A concession ("even where the nursery class is part of a primary school", "whether or not they live
# in the parish") names what does not change the rule: neither a condition nor what defeats it.
_CONCESSION = re.compile(r",?\s*\b(?:even (?:where|if|when|though)|whether or not)\b[^;.]*"
                         # "open to everyone, members or not": the rule reaches both.
                         r"|,\s*(?:\w+\s+){1,2}or not\b"
                         # "needs a booking, including annual pass holders": who else the rule reaches.
                         r"|,\s*(?:including|even)\s+[^,;:.]*", re.I)
# A once-only limit ("one grant per child", "one pass for each resident").
_ONCE_ONLY = r"one \w+ (?:per|for each|a)\b"
_LIMIT = re.compile(r"\b(?:up to|at most|no more than|a maximum of|not more than|limited to|capped at|"
                    r"(?:must|may|shall|should|does|do) not exceed|no (?:larger|bigger|longer|higher|heavier) than)"
                    r"\s+(?:\w+\s+)?"
                    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b(?:\s+[a-z]+)?"
                    # "one grant per child for each school year": once had, the rule is spent.
                    r"|\b(?:only )?" + _ONCE_ONLY + r"\s+\w+", re.I)


@dataclass(frozen=True)
class Pred:
    name: str
    args: str
    desc: str
    # "subject" (what the rule is about), "condition", "defeater", "repealed" (a later text withdrew
    # it) or "other"
    group: str
    # Name terms no other predicate's name or description uses: enough on their own to recognise it.
    own: frozenset[str] = frozenset()
    # When one passage sentence reads the predicate as a condition and another as what defeats the
    # rule: (the condition's sentence, the defeating clause). The reading cannot settle which it is.
    torn: tuple[str, str] | None = None
    # The own name terms of each look-alike (a predicate whose name shares a word with this one's and
    # whose description two: past_use_by for past_best_before): a sentence that names the look-alike
    # by its own words is about it, however many description words it shares with this one.
    rivals: tuple[frozenset[str], ...] = ()

    def literal(self, var: str) -> str:
        return f"{self.name}({var})"


def _group(label: str) -> str:
    low = label.lower()
    if any(w in low for w in ("defeat", "exception", "void", "bar")):
        return "defeater"
    if any(w in low for w in ("condition", "requirement", "element")):
        return "condition"
    return "other"


def _declared(case: Case) -> tuple[list[Pred], set[str], bool]:
    """Declared predicates, the ids of the passages that declare them, and whether labels group them."""
    preds: list[Pred] = []
    vocab_ids: set[str] = set()
    labelled = False
    for ev in case.evidence:
        decls = list(_DECL.finditer(ev.text))
        if len(decls) < 2:
            continue
        vocab_ids.add(ev.id)
        labels = [(m.start(), _group(m.group(1))) for m in _LABEL.finditer(ev.text)]
        labelled = labelled or any(g != "other" for _, g in labels)
        for d in decls:
            group = "other"
            for pos, g in labels:
                if pos < d.start():
                    group = g
            if d.group(1) not in {p.name for p in preds}:
                preds.append(Pred(d.group(1), d.group(2), (d.group(3) or "").strip(), group))
    return preds, vocab_ids, labelled


def common_terms(preds: list[Pred]) -> set[str]:
    """Terms shared by many descriptions (the subject every predicate is about) say nothing about which is meant."""
    counts: dict[str, int] = {}
    for p in preds:
        for t in set(terms(p.desc)):
            counts[t] = counts.get(t, 0) + 1
    return {t for t, c in counts.items() if c >= 3}


# A name term at least this long, used by no other predicate, identifies its predicate on its own.
OWN_TERM_LENGTH = 6


_NUMBER_WORDS = {w: str(n) for n, w in enumerate(NUMBER_WORDS)}


# A clock time ("before 6 pm", "18:00") says when, not how many.
_CLOCK = re.compile(r"\b\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d\d\b", re.I)


def _numbers(text: str) -> set[str]:
    """The figures a text names, in digits or as a number word ("six hens" and "6 hens" both give 6);
    clock times are not figures."""
    text = _CLOCK.sub(" ", text.replace("_", " "))
    words = re.findall(r"[a-z]+", text.lower())
    # "6.2" (a clause's number, or a decimal) is one figure, not a 6 and a 2.
    return set(re.findall(r"\d+(?:\.\d+)*", text)) | {_NUMBER_WORDS[w] for w in words if w in _NUMBER_WORDS}


def _is_figure(term: str) -> bool:
    return bool(_numbers(term)) and (term.isdigit() or term in _NUMBER_WORDS or bool(re.fullmatch(r"\d+[a-z]*", term)))


# A figure and its short unit written apart ("5 pm", "150 ml") as a name writes them together ("5pm").
_FIGURE_UNIT = re.compile(r"\b(\d+)\s+([a-z]{1,3})\b", re.I)


def _name_terms(pred: Pred) -> set[str]:
    return set(terms(pred.name.replace("_", " ")))


def _desc_terms(pred: Pred, common: set[str]) -> set[str]:
    """The words of a predicate's description that may name it: not its name's, not common, no figures."""
    return {t for t in set(terms(pred.desc)) - common - _name_terms(pred) if not t.isdigit()}


def with_rivals(preds: list[Pred], common: set[str]) -> list[Pred]:
    """Each predicate with the own terms of its look-alikes: the others whose names share a word with its
    name (past_use_by, past_best_before) and whose descriptions share two of its words."""
    return [replace(p, rivals=tuple(q.own for q in preds if q.name != p.name and q.own
                                    and _name_terms(p) & _name_terms(q)
                                    and len(matched_terms(_desc_terms(p, common), set(terms(q.desc)))) >= 2))
            for p in preds]


# "a rating of 3 or more", "aged 18 and over", "3+": what a name writes as "plus" (rating_3_plus).
_OR_MORE = re.compile(r"\b(?:or|and) (?:more|over|older|higher|above|better|upwards)\b|\d\+", re.I)


_OWNING = re.compile(r"\b(?:own|owns|owned|owner|owners|owning|their|his|her|your)\b", re.I)


def matches(sentence: str, pred: Pred, common: set[str]) -> bool:
    words = set(terms(sentence)) | set(terms(_FIGURE_UNIT.sub(r"\1\2", sentence))) \
        | (set(terms("plus")) if _OR_MORE.search(sentence) else set())
    name_terms = _name_terms(pred)
    # Owning a thing (own_buoyancy_aid) is not using or wearing one: "Buoyancy aids must be worn" is not about it.
    if "own" in pred.name.split("_") and not _OWNING.search(sentence):
        return False
    # A figure in the name (notice_90_days) is what sets it apart: a sentence with another figure is not about it.
    figures = _numbers(pred.name)
    if figures and not figures & _numbers(sentence):
        return False
    # A name made only of common terms (the subject predicate itself) would match every sentence.
    if name_terms - common and covers(words, name_terms):
        return True
    if _abbreviates(sentence, pred.name):
        return True
    # Two or more terms of the name that no other predicate uses name it without the words it shares
    # ("do the quiz ... until they've passed it" for site_quiz_passed, where rang_site_line has "site").
    if len(pred.own) >= 2 and covers(words, set(pred.own)):
        return True
    # A name that is a figure and small words ("under_5"): the figure and every word of it, as written
    # ("children under five").
    rest = [part for part in pred.name.split("_") if not part.isdigit()]
    if figures and not name_terms and rest and set(rest) <= set(re.findall(r"[a-z]+", sentence.lower())):
        return True
    # A figure no other predicate names ("six" of more_than_six_hens) identifies its predicate as a
    # long name term does: the sentence has passed the figure check above.
    if matched_terms({t for t in pred.own if len(t) >= OWN_TERM_LENGTH or (figures and _is_figure(t))}, words) \
            or (figures and any(_is_figure(t) and _numbers(t) & _numbers(sentence) for t in pred.own)):
        return True
    # A figure in a description is a date or an amount ("for 2026/27"), which passages repeat about
    # everything: only words tell which predicate a sentence is about.
    desc = _desc_terms(pred, common)
    if any(matched_terms(set(rival), words) for rival in pred.rivals) and not matched_terms(set(pred.own), words):
        return False
    hit = matched_terms(desc, words)
    return (len(hit) >= 2 and len(hit) >= 0.6 * len(desc)) or _shares_phrase(pred.desc, sentence)


# A capitalised abbreviation ("a CP rating or better") names the predicate whose consecutive name
# words it takes its letters from (club_pilot_plus).
_ABBREVIATION = re.compile(r"\b[A-Z]{2,5}\b")


@lru_cache(maxsize=1024)
def _initials(name: str) -> frozenset[str]:
    """The initials of each run of two or more consecutive words of a predicate's name."""
    words = [w for w in name.split("_") if w.isalpha()]
    return frozenset("".join(w[0] for w in words[i:j]) for i in range(len(words)) for j in range(i + 2, len(words) + 1))


def _abbreviates(sentence: str, name: str) -> bool:
    return any(a.lower() in _initials(name) for a in _ABBREVIATION.findall(sentence))


# A description's phrase this many words long, found word for word in a sentence ("between 1 March and
# 31 August"), names the predicate, if it holds a figure or a word longer than a function word.
PHRASE_WORDS = 5


def _shares_phrase(desc: str, sentence: str) -> bool:
    d, s = re.findall(r"[a-z0-9]+", desc.lower()), re.findall(r"[a-z0-9]+", sentence.lower())
    grams = {tuple(s[i:i + PHRASE_WORDS]) for i in range(len(s) - PHRASE_WORDS + 1)}
    for i in range(len(d) - PHRASE_WORDS + 1):
        gram = tuple(d[i:i + PHRASE_WORDS])
        if gram in grams and any(w.isdigit() or len(w) >= 6 for w in gram):
            return True
    return False


def vocabulary(case: Case) -> tuple[list[Pred], set[str]]:
    """Declared predicates (each with its group) and the ids of the passages that declare them.

    Labels in the vocabulary passage group the predicates. Without them the passages do: a
    predicate an "unless" clause names is a defeater, one a requirement sentence names is a
    condition, the rest are other facts.
    """
    preds, vocab_ids, labelled = _declared(case)
    asked = head_of(case.question, preds)
    asked_terms = set(terms(asked[0].replace("_", " "))) if asked is not None else set()
    preds = [replace(p, own=frozenset(_own_beside_head(own_terms(p, preds), asked_terms))) for p in preds]
    if not preds:
        return preds, vocab_ids
    common = common_terms(preds)
    preds = with_rivals(preds, common)
    # What a forum post or a chat message says (a trap more often than a source) sets no condition or bar.
    hearsay = hearsay_passages(case)
    sents = [_CONCESSION.sub("", s) for eid, s in evidence_sentences(case, vocab_ids) if eid not in hearsay]
    described = {p.name: p.desc for p in preds}
    withdrawn = {name for s in sents if repeals(s) or replaces(s) for name in withdrawn_names(s, described)}
    if labelled:
        return [replace(p, group="repealed") if p.name in withdrawn else p for p in preds], vocab_ids
    unless = [m.group(1) for p in preds for m in _UNLESS_CLAUSE.finditer(p.desc)]
    # "Nobody picks unless a steward is on site": under a universal negative, what "unless" names is
    # the one way the act is allowed, a condition of the rule.
    only_ways = [tail for s in sents if not repeals(s) for tail in [only_way(s)] if tail]
    unless += [tail for s in sents if not repeals(s) for tail in [split_exception(s)[1]] if tail and tail not in only_ways]
    # The head the question asks for was found above; the steps since keep every predicate's name.
    head = asked
    banned = head is not None and prohibition_head(head[0])
    # "Tetanus stays advice only - we cannot check people's records": what a sentence says is not
    # required bars nothing, whatever "cannot" it also holds.
    bars = [_bar_clause(s) for s in sents if not repeals(s) and (_bars(s) or (banned and cue_kind(s) == "prohibition"))
            and cue_kind(s) != "not_required"]
    if head is not None and requirement_head(head[0]):
        # The rule defines when something is required: what the passages say does not need it defeats it.
        unless += [s for s in sents if not repeals(s) and cue_kind(s) == "not_required"]
    # A limit names its predicate whole ("renewed_three_times" in "renewed ... up to three times").
    limits = [m.group(0) + " " + s[:m.start()] for s in sents if not repeals(s) for m in [_LIMIT.search(s)] if m]
    # A requirement ("must", "only if") or a grant ("may ..., provided that ...") names the conditions of
    # the rule in the part before any exception.
    required = [_without_other_grants(rule_part, head, preds) for s in sents if not repeals(s)
                for rule_part in [split_exception(required_part(s))[0]]
                if rule_part and cue_kind(rule_part) != "not_required" and states_requirement(rule_part)] + only_ways \
        + reaffirmed(sents)
    # "Letters going abroad may be franked": a bare permission names the kind of thing the rule is about.
    kind_permitted = [s for s in sents if not repeals(s) and bare_permission(s)]
    if banned:
        # The rule defines what is banned ("cutting_banned"): a bar states its conditions, and what the
        # passages still allow ("may be cut ... from 1 August") defeats it.
        unless += [split_exception(s)[0] for s in sents if not repeals(s) and permits(s) and s not in bars]
        required = [split_exception(s)[0] for s in bars] + only_ways
    else:
        unless += bars + named_exclusions(sents)
    subject = subject_predicate(case, preds)
    head_terms = set(terms(head[0].replace("_", " "))) if head is not None else set()
    grouped: list[Pred] = []
    for p in preds:
        name_terms = set(terms(p.name.replace("_", " ")))
        if p.name == subject:
            group = "subject"
        elif p.name in withdrawn:
            group = "repealed"
        else:
            defeating = next((clause for clause in [*unless, *(c for c in limits if _reaches(c, p))]
                              if covers(set(terms(clause)), name_terms) or matches(clause, p, common)), None) \
                or next((clause for clause in limits if _spends(clause, p, name_terms)), None)
            requiring = next((s for s in required if matches(s, p, common)), None) or \
                next((s for s in kind_permitted if is_type(p) and matches(s, p, common)), None)
            if defeating in bars and requiring and _barred_other(defeating, p, preds, required, common):
                # "isn't open to children under five during standard sessions": the bar is of the
                # predicate no requirement names (under_5), and the session it speaks of is required.
                defeating = None
            if defeating and name_terms and name_terms <= head_terms:
                # with_dog, for may_run_with_dog: the act the rule grants, which a bar names as what it
                # bars ("which is why they can't take a dog"), not what defeats the rule.
                defeating, requiring = None, defeating
            if requiring and contrasted_need(requiring, name_terms):
                requiring = None  # "needs registration, not approval": approval is not needed
            group = ("defeater" if defeating or (requiring and only_negated(requiring, name_terms))
                     else "condition" if requiring else "other")
            if defeating and requiring and defeating not in requiring and requiring not in defeating:
                p = replace(p, torn=(requiring, defeating))
        grouped.append(replace(p, group=group))
    # "the minimum age is lowered from 18 to 16": what takes a required predicate's place is required.
    taking_over: set[str] = set()
    for s in sents:
        olds = set(withdrawn_names(s, described)) if replaces(s) or repeals(s) else set()
        if any(matches(r, p, common) for p in preds if p.name in olds for r in required):
            taking_over |= set(successor_names(s, described))
    return [replace(p, group="condition") if p.name in taking_over and p.group == "other" else p
            for p in grouped], vocab_ids


# What a permission grants: the act after "may" ("may sell their own recordings"), up to a condition.
_GRANTED_ACT = re.compile(r"\bmay\s+(?:also\s+)?(?!not\b)([^,;.]+?)(?=\s+(?:if|when|where|while|provided|as long as|"
                          r"so long as|only|once|after|before)\b|\s+and\s+may\b|[,;.]|$)", re.I)


def _without_other_grants(rule_part: str, head: tuple[str, str] | None, preds: list[Pred]) -> str:
    """A permission's sentence without the acts it grants that a declared predicate names by its verb
    ("Performers may accept money and may sell their own recordings": sells_recordings, for
    may_perform): an act allowed alongside the rule's own is no condition of it. A granted act
    that is the rule's own in other words ("may give surplus food to a registered recipient", for
    may_donate) keeps its conditions."""
    if head is None or not permits(rule_part):
        return rule_part
    own = set(terms(head[0].replace("_", " "))) - {"may"}
    verbs = {t for p in preds if p.name != head[0] for t in terms(p.name.split("_")[0])}

    def keep(m: re.Match[str]) -> str:
        act = terms(m.group(1))
        other = bool(act) and act[0] in verbs and not set(act) & own
        return "may" if other else m.group(0)

    return _GRANTED_ACT.sub(keep, rule_part)


def only_way(sentence: str) -> str:
    """What "unless" names under a universal negative ("Nobody picks unless a steward is on site"): the
    one way the act is allowed, a condition of the rule; "" when the sentence is no such sentence."""
    rule_part, tail = split_exception(sentence)
    return tail if tail and _NOBODY.match(_NUMBERING.sub("", rule_part)) else ""


# A predicate that says something has happened before ("already_paid", "previous_award"): what a
# once-only limit ("one grant per child") counts.
_BEFORE = frozenset({"alreadi", "previous", "prior"})


def _spends(clause: str, pred: Pred, name_terms: set[str]) -> bool:
    """Rule: a once-only limit ("we pay one grant per child for each school year") is defeated by the
    predicate saying it was already had, named with the limit's own verb ("already_paid")."""
    if not re.search(r"\b" + _ONCE_ONLY, clause, re.I) or not name_terms & _BEFORE:
        return False
    return bool(matched_terms(name_terms - _BEFORE, set(terms(clause))))


def _reaches(limit: str, pred: Pred) -> bool:
    """Rule: a limit above one ("guests are welcome to a drink ..., up to two per person") is reached
    only by a predicate that names its figure ("renewed_three_times"); one that does not (had_a_drink:
    a drink bought) is within it. A limit of one ("limited to one") is reached by having it at all."""
    m = _LIMIT.match(limit)  # a limit clause opens with the limit itself (see vocabulary)
    if m and re.match(_ONCE_ONLY, m.group(0), re.I):
        # "one dog per person" names what one_dog or with_dog is about, not what defeats them: a
        # once-only limit is spent only by having had it already (_spends).
        return False
    figure = _numbers(m.group(0)) if m else set()
    return not figure or figure <= {"0", "1"} or bool(figure & _numbers(pred.name))


def _barred_other(bar: str, pred: Pred, preds: list[Pred], required: list[str], common: set[str]) -> bool:
    """Whether a bar also names another predicate that no requirement names: that one is what it bars."""
    return any(q.name != pred.name and matches(bar, q, common) and not any(matches(r, q, common) for r in required)
               for q in preds)


def _bar_clause(sentence: str) -> str:
    """The clause of a sentence that bars, where semicolons or a ", so" part it ("The main court isn't
    open to children under five; they can jump in the toddler sessions"): what the other clauses name
    is not barred."""
    # ", so wear shoes that cover your toes" after a bar on sandals is what to do instead, not barred.
    parts = re.split(r";|,\s+so\s+", sentence)
    return next((p for p in parts if _bars(p)), sentence) if len(parts) > 1 else sentence


def _bars(sentence: str) -> bool:
    """A sentence that bars what the rule grants, with nothing after the bar that turns it into a
    requirement ("cannot borrow or renew items until the charges are paid" is still a bar: "until"
    says when it lifts, read as the same defeater)."""
    sentence = _NUMBERING.sub("", sentence)
    m = _BAR.search(sentence)
    if not m:
        return False
    after = sentence[m.end():]
    # A list of what may not be there ("no added sugars ... and no sweeteners") goes on negating: only
    # a negation that is not another item of the list turns the bar into a requirement.
    after = re.sub(r"(?:,|\band\b|\bor\b)\s+(?:no|none|nor)\b", " ", after, flags=re.I)
    second = _SECOND_NEGATION.search(after)
    return second is None or second.group(0).lower() == "until"


def is_type(pred: Pred) -> bool:
    """A predicate that says what kind of thing its argument is ("record(R): R is a customer record under review")."""
    return bool(re.match(rf"{re.escape(pred.args)}\s+is\s+an?\b", pred.desc.strip()))


# How a vocabulary names what every predicate is about ("Predicates, all over a tenant T:").
_OVER = re.compile(r"\b(?:all |each )?(?:over|about|of|for) (?:an?|the|each|every) ([a-z][a-z ]{1,40}?) ([A-Z])"
                   r"(?:\s+(?:[a-z]+ed\s+)?(?:on|in|at|from|under|of|for|to|by|with)\s+[a-z][A-Za-z -]{1,30})?\s*[:;,.]")


def subject_predicate(case: Case, preds: list[Pred]) -> str | None:
    """The one predicate that names what the rule is about: the one named after the kind of thing the
    vocabulary says its predicates are over ("all over a tenant T" -> tenant(T)), else the first that
    says what kind of thing its argument is. Other "X is a ..." predicates ("D is a flavoured milk
    drink") are kinds within it: conditions or defeaters like any other."""
    names = {p.name for p in preds}
    kind_named = False
    for ev in case.evidence:
        for m in _OVER.finditer(ev.text):
            kind_named = True
            words = m.group(1).split()
            for n in range(len(words)):
                name = "_".join(words[n:])
                if name in names:
                    return name
    # "All over a person W: walker(W): W walks dogs ...; paid(W): ...": the list opens with its subject,
    # whatever kind of thing a later predicate names ("member(P): P is a member of ...").
    if kind_named and preds:
        return None if _belongs(preds[0]) else preds[0].name
    return next((p.name for p in preds if is_type(p) and not _belongs(p)), None)


_BELONGS = re.compile(r"\s+is\s+an?\s+(?:[a-z-]+\s+)?(?:member|holder|subscriber|registrant)\s+of\b")


def _belongs(pred: Pred) -> bool:
    """"P is a member of the Guild" says what P belongs to, not what kind of thing P is: a condition."""
    return bool(_BELONGS.match(pred.desc.strip()[len(pred.args):]))


_REQUIREMENT_HEAD = frozenset({"required", "require", "requires", "due", "must", "need", "needed", "needs",
                               "obliged", "mandatory", "compulsory"})


_PROHIBITION_HEAD = frozenset({"banned", "ban", "forbidden", "prohibited", "barred", "refused", "refuse",
                               "disallowed", "unlawful", "illegal", "blocked"})


def prohibition_head(name: str) -> bool:
    """The rule defines when something is forbidden ("cutting_banned", "entry_refused"), not when it is
    allowed: what the passages bar are its conditions, and what they allow defeats it."""
    return bool(_PROHIBITION_HEAD & set(name.lower().split("_")))


def requirement_head(name: str) -> bool:
    """The rule defines when something is required ("licence_required", "hearing_test_due"), not
    when something is allowed."""
    return bool(_REQUIREMENT_HEAD & set(name.lower().split("_")))


def _own_beside_head(own: set[str], asked_terms: set[str]) -> set[str]:
    """A predicate's own terms without the words of the head the question asks for ("qdenga" in
    may_receive_qdenga), which every passage is about, where a long word of its own is left to name it
    (anaphylaxis_qdenga keeps "anaphylaxis"); extended_twice, left with only "twice", keeps "extended"."""
    beside = {t for t in own if not any(_same(t, a) for a in asked_terms)}
    return beside if any(len(t) >= OWN_TERM_LENGTH for t in beside) else own


def own_terms(pred: Pred, preds: list[Pred]) -> set[str]:
    """The terms of a predicate's name that no other predicate's name or description uses."""
    others: set[str] = set()
    for p in preds:
        if p.name != pred.name:
            others |= set(terms(p.name.replace("_", " "))) | set(terms(p.desc))
    return {t for t in terms(pred.name.replace("_", " ")) if not any(_same(t, o) for o in others)}


def _same(a: str, b: str) -> bool:
    short, long_ = sorted((a, b), key=len)
    return a == b or (len(short) >= 4 and long_.startswith(short))


def head_of(question: str, preds: list[Pred]) -> tuple[str, str] | None:
    """The head the question asks to define (`name(X)` not declared as a predicate), if it names one."""
    declared = {p.name for p in preds}
    for m in _HEAD.finditer(question):
        if m.group(1) not in declared:
            return m.group(1), m.group(2)
    return None


def body_parts(rule: str) -> tuple[str | None, list[str]]:
    lits = rule_literals(rule)
    if ":-" not in rule:
        return (lits[0] if lits else None), lits[1:]
    head_text, _, body_text = rule.partition(":-")
    head = rule_literals(head_text)
    return (head[0] if head else None), rule_literals(body_text)


def literal_name(literal: str) -> str:
    m = PRED_NAME.search(literal)
    return m.group(1) if m else literal


def build_rule(head: str, body: list[str]) -> str:
    return f"{head} :- {', '.join(body)}." if body else f"{head}."
