"""The options a question explicitly offers, and which of them an answer names.

Only explicit lists count: sentiment or support labels listed in the question ("positive, negative,
neutral or mixed"; "supported, partially supported or not supported"), "yes or no", a list after
"one of", "which of", "either", "between", "as" or inside brackets ("(valid, voidable or void)"),
and a question that ends "... A or B?" with one word on each side. A plain "Is X ...?" offers no
options here, and a list of things ("heart attack, stroke or other disease") is not a list of answers.
When in doubt the question offers nothing: a wrong list of options is worse than none.
"""

from __future__ import annotations

import re

from . import lexicons

# Label families a question may list without a cue: when two or more of one family are listed
# together, the list is the question's options.
SENTIMENT_LABELS = frozenset({"positive", "negative", "neutral", "mixed"})
SUPPORT_LABELS = frozenset({
    "supported", "partially supported", "not supported", "refuted", "unsupported",
    "not enough information", "not enough info", "insufficient evidence", "contradicted",
})
LABEL_FAMILIES = (SENTIMENT_LABELS, SUPPORT_LABELS)

MAX_OPTION_WORDS = 3  # an option is a label, not a clause
NEGATION_WINDOW = 2  # words before an option in which a negation ("not", "never") cancels it

_ARTICLES = ("a ", "an ", "the ")
_ITEM = r"[^\W\d_][\w'’-]*(?:[ ][^\W\d_][\w'’-]*){0,2}"  # one to three words, no digits
# A list: items separated by commas (and/or "or"), the last joined by "or" (or "and" after "between").
_LIST = rf"(?P<list>{_ITEM}(?:\s*,\s*{_ITEM})*\s*,?\s+(?P<conj>or|and)\s+{_ITEM})"
_END = r"(?=\s*(?:[?.;:,)]|$))"
_CUED = re.compile(
    rf"(?:\b(?:one of|which of|either|between|(?<!such )as|options?|labels?)\s*:?\s+|\(\s*){_LIST}{_END}",
    re.IGNORECASE,
)
_YES_NO = re.compile(r"\byes\s*(?:or|/)\s*no\b|\bno\s*(?:or|/)\s*yes\b", re.IGNORECASE)
# A yes/no answer says so first ("No, he should not...") or says "the answer is no".
_YES_NO_LEAD = re.compile(r"(?:(?:the\s+)?(?:short\s+)?answer\s+is\s*:?\s*)?[\"'“]?(yes|no)\b(?![\w-])", re.IGNORECASE)
_FINAL_PAIR = re.compile(r"(?<![\w-])([^\W\d_][\w-]*)\s+or\s+([^\W\d_][\w-]*)\s*\?\s*$", re.IGNORECASE)


def _clean(item: str) -> str:
    item = " ".join(item.strip().strip("\"'“”‘’").split()).lower()
    for article in _ARTICLES:
        if item.startswith(article):
            item = item[len(article):]
    return item


def _items(listed: str) -> list[str]:
    parts = re.split(r"\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+", listed.strip(), flags=re.IGNORECASE)
    out: list[str] = []
    for part in parts:
        item = _clean(part)
        if item and item not in out:
            out.append(item)
    return out


def _usable(items: list[str]) -> bool:
    """Two or more short labels, none a function word, the last no longer than the longest of the
    others ("the contract, the tort or the statute governs" runs on into the sentence)."""
    stop = lexicons.stopwords()
    if len(items) < 2 or len(set(items)) < len(items):
        return False
    if len(items[-1].split()) > max(len(item.split()) for item in items[:-1]):
        return False
    return all(
        len(item.split()) <= MAX_OPTION_WORDS and item not in stop and item.split()[-1] not in stop
        for item in items
    )


def _family_pattern(family: frozenset[str]) -> re.Pattern[str]:
    label = "|".join(r"[\s-]+".join(map(re.escape, w.split())) for w in sorted(family, key=len, reverse=True))
    sep = r"\s*(?:,\s*or|,\s*and|,|/|\bor\b|\band\b)\s*"
    return re.compile(rf"(?<![\w-])(?:{label})(?:{sep}(?:{label}))+(?![\w-])", re.IGNORECASE)


_FAMILY_LISTS = [_family_pattern(family) for family in LABEL_FAMILIES]


def _from_family(text: str) -> list[str]:
    """Two or more labels of one family listed together ("positive, negative, neutral or mixed")."""
    for pattern in _FAMILY_LISTS:
        for match in pattern.finditer(text):
            items = [" ".join(i.replace("-", " ").split()) for i in _items(match.group(0).replace("/", ","))]
            if len(items) >= 2:
                return items
    return []


# Material a question quotes at length (a claim to check, a review sentence) is what it asks about,
# not what it offers: a claim's "French Montana and Fetty Wap" is no list of answers. A quoted
# label ("positive") is short and stays.
_QUOTED_MATERIAL = re.compile(r'"[^"]{25,}"|\u201c[^\u201d]{25,}\u201d')


def offered_options(question: str) -> list[str]:
    """The options `question` explicitly offers, lower-cased, in the order it lists them; [] when
    it offers none (or none this module can read with confidence)."""
    text = " ".join(_QUOTED_MATERIAL.sub(" ", question or "").split())
    if not text:
        return []
    for match in _CUED.finditer(text):
        items = _items(match.group("list"))
        conj = match.group("conj").lower()
        cue = match.group(0)[: match.start("list") - match.start()].strip().lower()
        if conj == "and" and not cue.startswith("between"):
            continue  # "(screen, battery and keyboard)" lists things, not answers
        if items and items[0].split()[0] in lexicons.negations():
            continue  # "(no instructor or referee present)" says what is absent, not what to choose
        if _usable(items):
            return items
    found = _from_family(text)
    if found:
        return found
    if _YES_NO.search(text):
        return ["yes", "no"]
    last = re.split(r"(?<=[.!?])\s+", text)[-1]
    pair = _FINAL_PAIR.search(last)
    if pair:
        items = [_clean(pair.group(1)), _clean(pair.group(2))]
        if _usable(items) and items[0] != items[1] and not (set(items) & lexicons.negations()):
            return items
    return []


def _spans(text: str, option: str) -> list[tuple[int, int]]:
    words = [re.escape(w) for w in option.split()]
    pattern = re.compile(r"(?<![\w-])" + r"[\s-]+".join(words) + r"(?![\w-])", re.IGNORECASE)
    return [(m.start(), m.end()) for m in pattern.finditer(text)]


def _negated(text: str, start: int) -> bool:
    before = re.findall(r"[\w']+", text[:start].lower())[-NEGATION_WINDOW:]
    negations = lexicons.negations() | {"not", "never", "neither", "nor", "no"}
    return any(word in negations or word.endswith("n't") for word in before)


def named_options(answer: str, options: list[str]) -> list[str]:
    """The options `answer` names, in the order of `options`: whole words or phrases, any case.
    A mention inside a longer option ("supported" in "partially supported" or "not supported")
    names only the longer one; a negated mention ("not positive") names nothing, except that with
    exactly two options, denying one ("not valid") names the other."""
    text = answer or ""
    if options and set(options) == {"yes", "no"}:
        lead = _YES_NO_LEAD.match(text.strip())
        return [lead.group(1).lower()] if lead else []
    longest_first = sorted(options, key=len, reverse=True)
    taken: list[tuple[int, int]] = []
    named: set[str] = set()
    denied: set[str] = set()
    for option in longest_first:
        for start, end in _spans(text, option):
            if any(s <= start and end <= e for s, e in taken):
                continue
            taken.append((start, end))
            if option.split()[0] not in ("not", "no", "un") and _negated(text, start):
                denied.add(option)
            else:
                named.add(option)
    if not named and len(options) == 2 and len(denied) == 1:
        named = set(options) - denied
    return [o for o in options if o in named]
