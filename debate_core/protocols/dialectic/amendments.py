"""What the passages say about each other: which sentence amends which, and so which statement a
later amendment supersedes (read by the offline agents and by the moderator; no model calls).

A sentence is an amendment when it says so in general English ("is amended", "amended to read",
"is replaced by", "supersedes", "is repealed", "no longer", "instead of", "notwithstanding", ...:
`AMENDMENT_CUES`). What it amends, in this order: the passages it names by id; the passages whose
source or text carries the clause, section or article it names ("clause 4.2", "section 17602");
else, the sentences of other passages on the same subject (most of the shorter sentence's content
terms shared). It supersedes them only when it is later: both passages dated, the amendment's date
is the later one; a date missing, the amendment comes later in the case. An amendment never
supersedes a passage of higher authority (a contract's amendment does not override a statute).

`kept_superseded` is the moderator's rule: a final rule that still states what an amended sentence
said (its own terms, such as the old figure) or leaves out what the amendment changed goes to a
person, with both passages named.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ...core.schemas import Evidence
from ...core.text import (
    NUMBER_WORDS,
    authority_score,
    calendar_days,
    calendar_months,
    mentioned_ids,
    sentences,
    terms,
)

# General English wording by which a text changes an earlier one (no case's own words).
AMENDMENT_CUES = (
    "is amended", "are amended", "is hereby amended", "amended to read", "amended so that", "amends",
    "as amended by", "is replaced by", "are replaced by", "is replaced with", "shall be replaced", "replaces",
    "is substituted", "substituted by", "substituted for", "supersedes", "is superseded", "are superseded",
    "is repealed", "are repealed", "repeals", "is revoked", "revokes", "is deleted", "is struck out",
    "no longer", "instead of", "in place of", "notwithstanding", "with effect from", "now reads", "shall now",
    "be deleted", "be repealed", "be revoked", "be struck out", "be omitted", "is withdrawn", "are withdrawn",
    "substitute",
)
# Words of the amending act itself, not of what the rule says.
AMENDING_WORDS = set(terms(" ".join(AMENDMENT_CUES)) + terms("clause section article paragraph amendment read"))
_REFERENCE = re.compile(
    r"\b(clause|section|article|paragraph|rule|regulation|schedule|part|s\.|§)\s*(\d+[0-9a-z]*(?:[.(]\d+[0-9a-z]*\)?)*)",
    re.I)
# A text withdrawing a condition or an exception ("the X exception no longer applies", "X is repealed"):
# what it names before the cue no longer counts, in either direction.
WITHDRAWAL = re.compile(
    r"\b(?:no longer (?:applies|apply|required|needed|necessary|counts?|relevant|excluded|barred|prohibited|"
    r"banned|forbidden|restricted)|ceases? to apply|(?:that|this|which) (?:is|'s) no longer (?:the case|so|true)|"
    r"(?:is|are|has been|have been) (?:repealed|deleted|withdrawn|revoked|struck out|abolished|removed|replaced by(?!\s*[:'\x22\u2018\u201c])"
    # "The Level 2 certificate rule is replaced: every maker ... must attend the food safety day".
    r"|replaced(?=\s*(?:[:;.]|$)))"
    # "so we dropped it in 2024", "the fee has been scrapped", "Grade 1 requirement: dropped": plain words.
    r"|(?:we|they|the \w+) (?:dropped|scrapped|abolished) (?:it|them|that|this)"
    r"|(?:is|are|was|were|has been|have been) (?:dropped|scrapped)|(?<=: )(?:dropped|scrapped|abolished))\b", re.I)
_POINTS_BACK = re.compile(r"(?:we|they|the \w+) (?:dropped|scrapped|abolished)", re.I)
# "accepts the online module in place of our own induction", "from the 3 months before the show, instead
# of 12 months": what follows "in place of" goes.
_IN_PLACE_OF = re.compile(r"\b(?:in place of|instead of|replacing|replaces)\s+([^,;.:()]+)", re.I)
# "The orders.v1 subject moves from FULL to BACKWARD compatibility": what it moves from goes. A span
# of dates or figures ("changes from 1 May to 30 June", "from 10 to 12") is a period or a range, not
# something replaced.
_MOVES_FROM = re.compile(r"\b(?:moves?|moved|moving|changes?|changed|switch(?:es|ed)?|shifts?|shifted|goes|went)"
                         r"\s+from\s+(?!(?:the\s+)?(?:\d|£|\$|€|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))"
                         r"([^,;.:()\d]{2,60}?)\s+to\s+"
                         # "the minimum time on HRT is reduced from six months to three": the old figure goes.
                         r"|\b(?:reduced|lowered|cut|raised|increased|extended|shortened)\s+from\s+([^,;:()]{1,40}?)\s+to\s+",
                         re.I)
# "From 1 March we're dropping the full-time employment requirement": what is being dropped follows.
_DROPPING = re.compile(r"\b(?:we're|we are|we will be|we'll be|they're|they are|the \w+ is|the \w+ are) "
                       r"(?:dropping|scrapping|removing|abolishing|withdrawing|getting rid of)\s+"
                       r"((?:the|our|its|their)\s+[^,;.:()]{3,80})", re.I)


# "will no longer withhold certificates ... because of debts other than tuition fees": what it no longer
# holds back for goes as a bar.
_NO_LONGER_FOR = re.compile(r"\bno longer (?:withhold|refuse|hold back|block|bar|turn away|exclude|reject)\b[^.;]{0,160}?"
                            r"\b(?:because of|on account of|due to)\s+([^,;.:()]+)", re.I)


def lifts(sentence: str) -> bool:
    """Whether the sentence stops holding something back for what it names ("will no longer withhold
    certificates ... because of debts other than tuition fees")."""
    return bool(_NO_LONGER_FOR.search(sentence))


def replaces(sentence: str) -> bool:
    """Whether the sentence puts something in place of another ("in place of our own induction"), or
    stops holding something back for what it names ("no longer withhold ... because of debts other
    than tuition fees")."""
    return bool(_IN_PLACE_OF.search(sentence) or _MOVES_FROM.search(sentence)) or lifts(sentence)


_DATE = re.compile(r"(?<!\d)((?:19|20)\d\d)(?:[-/.](\d{1,2}))?(?:[-/.](\d{1,2}))?")
# Share of the shorter sentence's content terms two sentences must share to be on the same subject.
SAME_SUBJECT = 0.5
# Share of a sentence's distinctive terms a rule must carry to be said to state it.
STATES = 0.5


def is_amendment(sentence: str) -> bool:
    return any(re.search(rf"\b{re.escape(cue)}\b", " ".join(sentence.lower().split())) for cue in AMENDMENT_CUES)


def _references(text: str) -> set[tuple[str, str]]:
    return {(m.group(1).lower().rstrip("."), m.group(2).lower().rstrip(".")) for m in _REFERENCE.finditer(text)}


def _date(ev: Evidence) -> tuple[int, int, int] | None:
    m = _DATE.search(ev.date or "")
    return (int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0)) if m else None


def later(amending: Evidence, amended: Evidence, evidence: Sequence[Evidence]) -> bool:
    """Whether the amending passage comes after the amended one and may override it."""
    if amending.authority is not None and amended.authority is not None and \
            authority_score(amended.authority) > authority_score(amending.authority):
        return False
    d1, d2 = _date(amending), _date(amended)
    if d1 is not None and d2 is not None:
        return d1 > d2
    ids = [ev.id for ev in evidence]
    return ids.index(amending.id) > ids.index(amended.id)


def same_subject(a: str, b: str) -> bool:
    """Whether two sentences are on one subject: they share half the shorter one's content terms, not
    counting figures and their units (two passages that set different figures differ there by
    definition: "within 10 metres" and "5 m")."""
    ta, tb = _subject_terms(a), _subject_terms(b)
    if not ta or not tb:
        return False
    return len(ta & tb) >= SAME_SUBJECT * min(len(ta), len(tb))


def _subject_terms(sentence: str) -> set[str]:
    return {t for t in terms(sentence) if not any(ch.isdigit() for ch in t)} - AMENDING_WORDS - _unit_terms()


@lru_cache(maxsize=1)
def _unit_terms() -> frozenset[str]:
    return frozenset(terms(" ".join(u for u in MEASURES if len(u) > 2) + " metres meters hours days weeks months years"))


# An amendment's lead-in ("Section 12 is amended as follows.") says that changes follow, not what they are.
_LEAD_IN = re.compile(r"\b(?:amended|changed)\s+as follows\b|\b(?:is|are) (?:hereby )?amended\s*:?\s*\W*$", re.I)
# One lettered or numbered item deleted from a list ("paragraph (b) is deleted"), and the part it is in.
_ITEM_DELETED = re.compile(r"\b(?:paragraph|point|item|letter|sub-?paragraph|limb)\s+\(([a-z]{1,4}|\d{1,3})\)\s+"
                           r"(?:is|are|has been) (?:deleted|repealed|struck out|omitted|revoked|removed)\b", re.I)
# Words substituted in an earlier text ("for 'more than four dogs' substitute 'more than three dogs'").
_QUOTED = r"['‘\"“]([^'’\"”]{2,80})['’\"”]"
_SUBSTITUTE = re.compile(r"\bfor\s+" + _QUOTED + r"\s*,?\s*substitute\s+" + _QUOTED
                         # "'twelve weeks' in rule 4.1 is replaced by 'eight weeks'", "replace 'X' with 'Y'".
                         + r"|" + _QUOTED + r"(?:[^'‘\"“.;]|\.(?=\d)){0,40}?\b(?:is|are|shall be|will be|to be|be)\s+(?:replaced|substituted)\s+"
                         r"(?:by|with)\s+" + _QUOTED
                         + r"|\breplace\s+" + _QUOTED + r"(?:[^'‘\"“.;]|\.(?=\d)){0,40}?\b(?:with|by)\s+" + _QUOTED, re.I)

# A provision deleted by its number ("rule 12.4 of the Allotment Rules be deleted").
_NUMBERED_DELETED = re.compile(
    r"\b(?:rule|section|paragraph|clause|article|standard|regulation|byelaw|bylaw|item|point)\s+(\d+(?:\.\d+)+)\b"
    r"[^.;:]*?\b(?:is|are|be|has been|have been|shall be|will be)\s+(?:deleted|repealed|revoked|withdrawn|"
    r"struck out|omitted|removed)\b", re.I)
_IN_PART = re.compile(r"\b(?:sub-?section|section|paragraph|clause|article)\s+\((\d+[a-z]?)\)", re.I)
_ITEM = re.compile(r"\(([a-z]{1,4}|\d{1,3})\)")


def _swapped(m: re.Match[str]) -> tuple[str, str]:
    """(the words replaced, the words put in their place) of a substitution, whichever form it takes."""
    found = [g for g in m.groups() if g is not None]
    return found[0], found[1]


def without_item(sentence: str, label: str) -> str:
    """The sentence with its item `(label)` taken out of the list it is in: from the item's mark to the
    next item of the list or the end of the sentence, with the "or"/"and" that joined it."""
    mark = sentence.find(f"({label})")
    if mark < 0:
        return sentence
    nxt = next((m.start() for m in _ITEM.finditer(sentence, mark + len(label) + 2)
                if not m.group(1).isdigit() or label.isdigit()), None)
    head = re.sub(r"[,;]?\s*(?:\b(?:or|and)\s*)?$", "", sentence[:mark])
    if nxt is None:
        return head.rstrip(" ,;") + "."
    return f"{head} {sentence[nxt:]}".strip()


@dataclass(frozen=True)
class Supersession:
    """One earlier sentence and the later amendment that supersedes it. `kept` is what of the old
    sentence still stands when the amendment only deletes an item of it ("paragraph (b) is deleted"),
    or the old sentence as amended when the amendment substitutes words in it ("for 'more than four
    dogs' substitute 'more than three dogs'")."""

    old_id: str
    old_sentence: str
    new_id: str
    new_sentence: str
    new_date: str | None = None
    kept: str = ""

    @property
    def old_terms(self) -> set[str]:
        """What only the old sentence says (an old figure, a dropped condition)."""
        return set(terms(self.old_sentence)) - set(terms(self.kept)) - set(terms(self.new_sentence)) - AMENDING_WORDS

    @property
    def new_terms(self) -> set[str]:
        """What only the amendment says (the new figure, the added condition)."""
        return set(terms(self.new_sentence)) - set(terms(self.old_sentence)) - AMENDING_WORDS


def supersessions(evidence: Sequence[Evidence]) -> list[Supersession]:
    """Every (earlier sentence, later amendment) pair the passages give, in passage order."""
    out: list[Supersession] = []
    for amending in evidence:
        for sent in sentences(amending.text):
            if not is_amendment(sent) or _LEAD_IN.search(sent):
                continue
            others = [ev for ev in evidence if ev.id != amending.id]
            deleted = _ITEM_DELETED.search(sent)
            if deleted:
                # One item of an earlier list goes; the rest of that sentence still stands.
                label, part = deleted.group(1), _IN_PART.search(sent[:deleted.start()])
                out += [Supersession(ev.id, old, amending.id, sent, amending.date, without_item(old, label))
                        for ev in others if later(amending, ev, evidence) for old in sentences(ev.text)
                        if f"({label})" in old and not is_amendment(old)
                        and (part is None or old.lstrip().startswith(f"({part.group(1)})"))]
                continue
            swap = _SUBSTITUTE.search(sent)
            if swap:
                # Words substituted in an earlier sentence: that sentence now reads with the new words.
                old_words, new_words = _swapped(swap)
                out += [Supersession(ev.id, old, amending.id, sent, amending.date,
                                     re.sub(re.escape(old_words), new_words, old, flags=re.I))
                        for ev in others if later(amending, ev, evidence) for old in sentences(ev.text)
                        if old_words.lower() in old.lower() and not is_amendment(old)]
                continue
            number = _NUMBERED_DELETED.search(sent)
            if number:
                # A numbered provision goes whole ("rule 12.4 ... be deleted"): the earlier sentence
                # that carries that number, and any other the same sentence names and replaces.
                numbers = {number.group(1), *(num for _, num in _references(sent) if "." in num)}
                out += [Supersession(ev.id, old, amending.id, sent, amending.date)
                        for ev in others if later(amending, ev, evidence) for old in sentences(ev.text)
                        if any(re.match(rf"\s*{re.escape(n)}(?![\d.]\d)", old) for n in numbers) and not is_amendment(old)]
                continue
            if withdraws(sent) and not _references(withdrawn_part(sent)):
                # It lifts one provision ("rule 5 is amended: the ban on selfie sticks no longer
                # applies"): what it names goes (withdrawn_names), the rest of the rule stands.
                continue
            named = set(mentioned_ids(sent, [ev.id for ev in others]))
            refs = _references(sent)
            targets = [ev for ev in others if ev.id in named or (refs and refs & _references(f"{ev.source} {ev.text}"))]
            # "the upper age limit at paragraph 3.2 of the handbook is removed": a passage's own item
            # numbered 3.2 ("3.2 Patrols can serve until their 75th birthday") is what it names.
            pairs = [(ev, s) for ev in (targets or others) for s in sentences(ev.text) for _, num in refs
                     if re.match(rf"\s*{re.escape(num)}(?![\d.]\d)\s", s) and not is_amendment(s)]
            for ev in [] if pairs else targets:
                on_subject = [s for s in sentences(ev.text) if same_subject(s, sent) and not is_amendment(s)]
                pairs += [(ev, s) for s in (on_subject or sentences(ev.text)[:1])]
            if not targets and not pairs:
                pairs = [(ev, s) for ev in others for s in sentences(ev.text)
                         if not is_amendment(s) and same_subject(s, sent)]
            out += [Supersession(ev.id, s, amending.id, sent, amending.date)
                    for ev, s in pairs if later(amending, ev, evidence)]
    return out


def superseded_sentences(evidence: Sequence[Evidence]) -> dict[tuple[str, str], Supersession]:
    """(passage id, sentence) -> what supersedes it."""
    return {(s.old_id, s.old_sentence): s for s in supersessions(evidence)}


def term_share(wanted: set[str], rule_terms: set[str]) -> float:
    return len(wanted & rule_terms) / len(wanted) if wanted else 0.0


def quote(sentence: str, limit: int = 140) -> str:
    s = " ".join(sentence.split())
    return s if len(s) <= limit else s[: limit - 3].rstrip() + "..."


def kept_superseded(rule: str, evidence: Sequence[Evidence]) -> list[str]:
    """Rule: a final rule that keeps a statement a later amendment superseded goes to a person.

    It keeps it when it carries what only the old sentence says, or carries the old sentence's
    subject without what the amendment changed. One plain-words reason per amendment."""
    words = " ".join(re.split(r"[_()]", rule))
    have = set(terms(words))
    # Every sentence about the rule names its head ("may_sell"): only the body says what the rule keeps.
    body = set(terms(" ".join(re.split(r"[_()]", rule.partition(":-")[2])))) if ":-" in rule else have
    reasons: list[str] = []
    for s in supersessions(evidence):
        old_only, new_only = s.old_terms, s.new_terms
        states_old = bool(old_only) and term_share(old_only, body) >= STATES
        on_subject = term_share(set(terms(s.old_sentence)) - AMENDING_WORDS, body) >= STATES
        misses_new = bool(new_only) and term_share(new_only, have) < STATES
        if not (states_old or (on_subject and misses_new)):
            continue
        when = f", dated {s.new_date}" if s.new_date else ""
        reason = (f"The final rule keeps what {s.old_id} said (\"{quote(s.old_sentence)}\") although the later "
                  f"amendment in {s.new_id}{when} changes it (\"{quote(s.new_sentence)}\"); a person must check "
                  f"the rule against the amendment")
        if reason not in reasons:
            reasons.append(reason)
    return reasons


def withdraws(sentence: str) -> bool:
    """Whether the sentence withdraws something ("no longer applies", "is repealed")."""
    return bool(WITHDRAWAL.search(sentence) or _DROPPING.search(sentence))


def _same_word(a: str, b: str) -> bool:
    short, long_ = sorted((a, b), key=len)
    return a == b or (len(short) >= 4 and long_.startswith(short))


def _has(words: set[str], term: str) -> bool:
    return any(_same_word(term, w) for w in words)


# Words that say what kind of provision is withdrawn, not which one ("the X exception no longer applies").
_PROVISION_WORDS = set(terms("exception exemption condition requirement rule proviso clause ban prohibition "
                             "restriction"))
# "debts other than tuition fees": what a withdrawal names by what it leaves out.
_OTHER_THAN = re.compile(r"\bother than\b", re.I)
# Share of what a sentence withdraws that a predicate's name and description must carry to be the one meant.
WITHDRAWN_SHARE = 0.6


def is_vocabulary(ev: Evidence) -> bool:
    """A passage that declares the knowledge base's predicates (`name(X): description`, two or more)."""
    return len(_DECLARATION.findall(ev.text)) >= 2


def declarations(evidence: Sequence[Evidence]) -> dict[str, str]:
    """The declared predicates (`name(X): description`) of the vocabulary passages, name -> description."""
    out: dict[str, str] = {}
    for ev in evidence:
        if is_vocabulary(ev):
            for m in re.finditer(r"\b([a-z][a-z0-9_]*)\([A-Z][A-Za-z0-9_]*(?:\s*,\s*[A-Z][A-Za-z0-9_]*)*\)\s*:\s*([^;]+)",
                                 ev.text):
                out.setdefault(m.group(1), m.group(2).strip())
    return out


def withdrawn_part(sentence: str) -> str:
    """What a withdrawing sentence withdraws: its words before "no longer applies", "is repealed", from
    the start of that clause ("rule 5.1 is amended: the ban on selfie sticks no longer applies"
    withdraws the ban on selfie sticks); "" if none."""
    m = WITHDRAWAL.search(sentence)
    if not m:
        return ""
    return re.split(r"[:;]\s", sentence[:m.start()].rstrip(" ;:,"))[-1]


def withdrawn_parts(sentence: str) -> list[str]:
    """What each withdrawal in a sentence withdraws, in order: "the last sentence of standard 5 is
    withdrawn: flavoured milks are no longer excluded" names the sentence by its place, then by what
    it said."""
    # Only the clause the withdrawal ends: "players need the module certificate, and the old induction
    # no longer counts" withdraws the induction, not the certificate; "so we dropped it" points back
    # past its clause to what it drops ("We used to ask for a GP letter, ...").
    return [re.split(r"[:;]\s" if _POINTS_BACK.match(m.group(0)) else r"[:;]\s|,\s+(?:and|but|so)\s+",
                     sentence[:m.start()].rstrip(" ;:,"))[-1] for m in WITHDRAWAL.finditer(sentence)] \
        + [m.group(1) for m in _IN_PLACE_OF.finditer(sentence)] + [m.group(1) or m.group(2) for m in _MOVES_FROM.finditer(sentence)] \
        + [m.group(1) for m in _NO_LONGER_FOR.finditer(sentence)] \
        + [m.group(1) for m in _DROPPING.finditer(sentence)]


def withdrawn_names(sentence: str, described: dict[str, str]) -> list[str]:
    """The predicates a withdrawing sentence names: those whose name and description carry most of what
    one of its withdrawals withdraws (the best share, at least WITHDRAWN_SHARE; "six-month" counts 6, "item (1)" not)."""
    # "the under-16 route (consent form plus buddy) is withdrawn": the brackets list what goes, each
    # item a predicate's name in words.
    parts = withdrawn_parts(sentence)
    listed = [name for part in parts for inside in re.findall(r"\(([^()]+)\)", part)
              for item in re.split(r"\s*(?:,|\band\b|\bplus\b|&|\+)\s*", inside)
              for name in described
              for own in [set(terms(name.replace("_", " ")))] if own and own <= set(terms(item))]
    if listed:
        return list(dict.fromkeys(listed))
    names = best_named(parts, described)
    if names:
        return names
    # "From 1 May 2026 the automatic daily check flight for pre-Bronze pilots is withdrawn": dates and
    # qualifiers dilute the share, but one predicate's own name (check_flight_today) is there nearly
    # whole: at least two of its words, and no more than one missing.
    named = [name for name in described for part in parts
             for own in [set(terms(name.replace("_", " ")))] for hit in [own & set(terms(part))]
             if len(hit) >= 2 and len(own - hit) <= 1]
    return named if len(set(named)) == 1 else []


# What a change "from X to Y" puts in place: Y, up to a qualifier ("to 16 for the 2026 season").
_TO_WHAT = re.compile(r"^([^,;:()]{1,40}?)(?=\s+(?:for|from|with|in|on|at|by|because|as|so|when|until|while|since)\b"
                      r"|[,;:()]|\.(?!\d)|$)", re.I)


# "The one-off fleet induction is replaced by a capsize recovery check with a club instructor": what follows.
_REPLACED_BY = re.compile(r"\b(?:is|are|was|were|has been|have been|will be|shall be) replaced (?:by|with)\s+(?:an?\s+)?",
                          re.I)


def successor_names(sentence: str, described: dict[str, str]) -> list[str]:
    """The predicates a change "from X to Y" puts in X's place ("lowered from 18 to 16": age_16_plus;
    "moves from FULL to BACKWARD compatibility": compat_backward), or that "X is replaced by Y" names, by
    the same best share."""
    parts = [t.group(1) for pattern in (_MOVES_FROM, _REPLACED_BY) for m in pattern.finditer(sentence)
             for t in [_TO_WHAT.match(sentence[m.end():])] if t]
    return best_named(parts, described)


def best_named(parts: list[str], described: dict[str, str]) -> list[str]:
    """The predicates whose name and description carry the best share (at least WITHDRAWN_SHARE) of
    one of the parts' terms."""
    best, names = 0.0, []
    for part in parts:
        part = _NUMBER_WORD.sub(lambda m: str(NUMBER_VALUES[m.group(1).lower()]), part)
        wanted = (set(terms(part)) | set(re.findall(r"\d+", _REFERENCE.sub(" ", re.sub(r"\(\w{1,4}\)", " ", part))))) - AMENDING_WORDS - _PROVISION_WORDS
        if not wanted:
            continue
        share = {name: sum(any(_same_word(w, t) for t in [*terms(f"{name.replace('_', ' ')} {desc}"),
                                                           *re.findall(r"\d+", f"{name} {desc}")]) for w in wanted)
                 / len(wanted) for name, desc in described.items()}
        top = max(share.values(), default=0.0)
        if top > best:
            best, names = top, [n for n, v in share.items() if v == top]
            # "debts other than tuition fees": of the predicates it fits equally, the one its vocabulary
            # describes as "other than" them is meant, not the one about tuition fees.
            if len(names) > 1 and _OTHER_THAN.search(part):
                names = [n for n in names if _OTHER_THAN.search(described[n])] or names
    return names if best >= WITHDRAWN_SHARE else []


def withdrawing_sentences(evidence: Sequence[Evidence]) -> Iterator[tuple[Evidence, str, str]]:
    """Each sentence that withdraws something, with its passage and what it withdraws (`withdrawn_part`)."""
    for ev in evidence:
        for sent in sentences(ev.text):
            part = withdrawn_part(sent)
            if part:
                yield ev, sent, part


def kept_withdrawn(rule: str, evidence: Sequence[Evidence]) -> list[str]:
    """Rule: a final rule that keeps what a passage says no longer applies goes to a person.

    With declared predicates, a literal is kept when it is the predicate the withdrawing sentence names
    (`withdrawn_names`); without, a literal is kept when its name carries most of what is withdrawn, and
    a rule in words keeps it when it carries most of those words. One plain-words reason per sentence."""
    literals = list(dict.fromkeys(re.findall(r"\b([a-z][a-z0-9_]*)\s*\(", rule)))
    described = declarations(evidence) or {lit: "" for lit in literals}
    have = set(terms(" ".join(re.split(r"[_()]", rule))))
    reasons: list[str] = []
    for ev, sent, part in withdrawing_sentences(evidence):
        if literals:
            kept = [lit for lit in withdrawn_names(sent, described) if lit in literals]
        else:
            withdrawn = set(terms(part)) - AMENDING_WORDS - _PROVISION_WORDS
            kept = [part.strip()] if withdrawn and term_share(withdrawn, have) >= STATES else []
        if kept:
            reasons.append(f"The final rule keeps {', '.join(kept)} although {ev.id}"
                           f"{f' ({ev.date})' if ev.date else ''} says it no longer applies "
                           f"(\"{quote(sent)}\"); a person must check the rule against that passage")
    return reasons


# Each measure's dimension and size in that dimension's base unit: figures in one dimension are
# compared once converted ("30 days" and "1 month" agree; "30 days" and "30 months" do not).
MEASURES = {"minute": ("time", 1 / 1440), "hour": ("time", 1 / 24), "day": ("time", 1.0), "week": ("time", 7.0),
            "month": ("time", 30.44), "year": ("time", 365.25), "%": ("share", 1.0), "percent": ("share", 1.0),
            "per cent": ("share", 1.0), "percentage": ("share", 1.0), "euro": ("euro", 1.0),
            "dollar": ("dollar", 1.0), "pound": ("pound", 1.0), "mb": ("data", 1e-3), "gb": ("data", 1.0),
            "tb": ("data", 1e3), "mg": ("mass", 1e-3), "g": ("mass", 1.0), "kg": ("mass", 1e3),
            "ml": ("volume", 1e-3), "km": ("length", 1.0), "m": ("length", 1e-3), "metre": ("length", 1e-3),
            "meter": ("length", 1e-3), "cm": ("length", 1e-5), "mm": ("length", 1e-6), "time": ("count", 1.0)}
_DECLARATION = re.compile(r"\b[a-z][a-z0-9_]*\([A-Z][A-Za-z0-9_]*(?:\s*,\s*[A-Z][A-Za-z0-9_]*)*\)\s*:")
NUMBER_VALUES = {w: n for n, w in enumerate(NUMBER_WORDS)}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_VALUES) + r")\b", re.I)  # "the six-month limit": 6


# How a text says it takes effect only later, on a day someone has still to fix, and how another
# text says that day came.
_NOT_YET = re.compile(
    r"\b(?:comes?|come) into (?:force|effect|operation) on (?:a|such) (?:day|date)s? (?:to be )?(?:appointed|fixed|"
    r"specified|set)|\bon a (?:day|date) to be (?:appointed|fixed|specified|set)\b|\bnot yet (?:in force|commenced|"
    r"in effect)\b|\b(?:has|have) not (?:yet )?(?:commenced|come into force|taken effect)\b"
    # A change that waits on someone's act: "take effect only once the council ratifies them".
    r"|\b(?:takes?|taking) effect only (?:once|when|after|if)\b|\bcomes? into (?:force|effect) only (?:once|when|after|if)\b"
    r"|\bsubject to (?:ratification|confirmation) by\b"
    # "the change will come in when the insurer has confirmed in writing": a start that waits on an act.
    r"|\b(?:will|would|shall|is to|are to) (?:only )?(?:come in|come into (?:force|effect)|take effect|start|apply)"
    r"\s+(?:only\s+)?(?:once|when|after)\s+[^.;]{0,60}?\b(?:has|have)\s+(?:\w+\s+){0,2}?(?:confirmed|approved|"
    r"agreed|ratified|signed|voted|granted|issued|published|accepted)\b"
    r"|\b(?:takes?|take|taking) effect (?:only )?(?:from|on) a (?:date|day) (?:to be )?(?:set|fixed|appointed|agreed)\b"
    # "a change to the range rules needs a two-thirds majority at a general meeting".
    r"|\bchanges? [^.;]{0,60}\bneeds? (?:a|the) [^.;]{0,40}\b(?:majority|vote|ratification)\b", re.I)
# A change that speaks of itself as one ("changes to the regulations take effect only once ...") is an
# amendment whatever words it uses.
_SPEAKS_OF_A_CHANGE = re.compile(r"\b(?:change|amendment|proposal|revision|extension|motion)s?\b", re.I)
# Someone's act a waiting change needs, recorded as done ("the council ratified the change").
_ACT_DONE = re.compile(r"\b(?:was|were|has been|have been|had been)\s+(?:duly\s+)?(?:ratified|confirmed)\b|"
                       r"\bratified (?:it|them|the)\b", re.I)
_CAME_INTO_FORCE = re.compile(
    r"\b(?:came|comes|come) into (?:force|effect|operation) on \d|\bcame into (?:force|effect|operation)\b|"
    r"\bcommenced on\b|\bcommencement order\b[^.]*\bwas made\b|\bin force (?:since|from) \d|"
    r"\b(?:has|have) (?:now )?(?:come into force|commenced|taken effect)\b", re.I)


def _done(text: str) -> bool:
    """A passage records the act a waiting change needs as done, not denied ("was ratified", not "has
    not been ratified")."""
    for sent in sentences(text):
        m = _ACT_DONE.search(sent)
        if m and not re.search(r"\bnot\b|n't\b", sent[:m.start()]):
            return True
    return False


def not_in_force(evidence: Sequence[Evidence]) -> list[str]:
    """Rule: an amendment that comes into force only on a day still to be appointed, with no passage
    saying that day has come, leaves open which version of the rule applies: one plain-words reason
    per such passage, naming it and quoting the words that say so."""
    if any(_CAME_INTO_FORCE.search(ev.text) or _done(ev.text) for ev in evidence):
        return []
    reasons = []
    for ev in evidence:
        for sent in sentences(ev.text):
            amends = is_amendment(ev.text) or "amend" in ev.source.lower() or _SPEAKS_OF_A_CHANGE.search(sent)
            if amends and _NOT_YET.search(sent):
                reasons.append(f"{ev.id} changes the rule but says it takes effect only later (\"{quote(sent)}\"), "
                               "and no passage says it has come into force: a person must check which version "
                               "applies")
                break
    return reasons


# How an amending text says when it starts to apply ("The changes take effect from the start of the
# 2026/27 academic session", "this Order comes into force on 1 January 2026").
_TAKES_EFFECT = re.compile(
    r"\b(?:takes?|taking) effect (?:from|on)\s+(?P<a>[^.;]+)|\bcomes? into (?:force|effect|operation) (?:on|from)\s+"
    r"(?P<b>[^.;]+)|\bwith effect from\s+(?P<c>[^.;:,]+)|\bappl(?:y|ies) from\s+(?P<d>[^.;]+)"
    # "The new limit will apply to funding rounds that open after version 4 ... has been published".
    r"|\b(?:will|shall) apply to\b[^.;]*?\b(?:after|once|when)\s+(?P<e>[^.;]+)", re.I)
def dates_named(text: str) -> list[tuple[int, int, int]]:
    """The calendar dates a text names; a month without a day counts as its last day (day 31 orders
    after every day of it), so "May-June 2026" reaches the end of June."""
    days = calendar_days(text)
    months = {(y, mo, 31) for y, mo in calendar_months(text) if not any(d[:2] == (y, mo) for d in days)}
    return sorted(days | months)


def starts_after_question(evidence: Sequence[Evidence], question: str) -> list[str]:
    """Rule: an amendment that says when it takes effect, where the question asks about a stated
    time, applies to that time only if it took effect by then. When its start is no date ("the start
    of the 2026/27 academic session") or a date after the latest one the question names, which
    version of the rule applies then is for a person to check: one reason per such passage, quoting
    its start and naming the question's time. Nothing when the question names no date."""
    asked = dates_named(question)
    if not asked:
        return []
    latest = max(asked)
    reasons = []
    for ev in evidence:
        amends = is_amendment(ev.text) or "amend" in ev.source.lower()
        for sent in sentences(ev.text):
            m = _TAKES_EFFECT.search(sent)
            if not m or _NOT_YET.search(sent):
                continue  # "on a day to be appointed" is not_in_force's
            if not (amends or m.group("e")):
                continue  # "will apply to ... after" says of itself that a change waits for something
            start = next(g for g in m.groups() if g).strip()
            if re.match(r"(?:the )?(?:date of|immediate|today|now\b)", start, re.I):
                continue
            starts = dates_named(start)
            if starts and min(starts) <= latest:
                continue
            when = "a date after the time the question asks about" if starts else "no date the passages give"
            reasons.append(f"{ev.id} changes the rule from \"{quote(start, 80)}\", {when}: which version applies "
                           f"to the question's time is for a person to check")
            break
    return reasons
