"""Text helpers shared by the protocols, moderators and offline agents: tokens, passage ranking,
numbers, negation, sentences, set similarity, evidence ids named in free text."""

from __future__ import annotations

import difflib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import pysbd
import snowballstemmer

from . import lexicons

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)\s*(%|percent|persen|ha|hectares?|hektar|m2|m²|km|ms|s|gb|mb|tb|years?|tahun)?(?![\w])", re.IGNORECASE)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
# Abbreviations pysbd's English rules do not know, after which a full stop does not end a sentence:
# legal citations ("arts. 830", "para. 2") and Indonesian addresses and company forms ("Jl.", "Kab.",
# "PT.", "Tbk."), which the sample cases carry. pysbd has no Indonesian or Korean rules; its English
# ones split both at ". ", "!" and "?", which is where their sentences end too.
_ABBREV = re.compile(r"\b(?:arts?|No|Nos|no|nr|para|paras|cf|e\.g|i\.e|vs|etc|Mr|Mrs|Dr|Prof|St|Jl|Kab|Kec|Tbk|PT|ha)\.$", re.IGNORECASE)

# Function words and negations come from data/lexicons/ (their sources are listed there).
# An item of a list inside a sentence ("only (a) for damage ..., or (b) for cleaning ..."): pysbd
# splits before its mark, but until the text before it ends a sentence it is the same sentence.
_LIST_ITEM = re.compile(r"\(([a-z]{1,4}|\d{1,3})\)\s")
_ENDED = re.compile(r"[.!?…][\"'”’)\]]*$")
STOPWORDS = lexicons.stopwords()
NEGATIONS = lexicons.negations()
IRREGULAR = lexicons.irregular_forms()
SPELLING = lexicons.spelling_variants()
# The calendar's names, in order, for the readers of dates and periods.
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
# Numbers written as words, each at its value's index ("six" is 6), for readers of counts and limits.
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve")
# Dates as documents write them: "19 January 2026", "January 19, 2026", "2026-01-19", "June 2026".
_MONTH_NAME = (r"(january|february|march|april|may|june|july|august|september|october|november|december|"
               r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?")
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})\s+{_MONTH_NAME}\s+(\d{{4}})\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH_NAME}\s+(\d{{1,2}}),?\s+(\d{{4}})\b", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b{_MONTH_NAME}\s+(\d{{4}})\b", re.IGNORECASE)
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def tokens(text: str) -> list[str]:
    return [t.lower() for t in _WORD.findall(text or "")]


def content_tokens(text: str) -> list[str]:
    return [t for t in tokens(text) if t not in STOPWORDS and len(t) > 1]


_LOCAL = threading.local()  # snowballstemmer and pysbd objects keep state while they work


def _stemmers() -> tuple[snowballstemmer.stemmer, snowballstemmer.stemmer]:
    if not hasattr(_LOCAL, "stemmers"):
        _LOCAL.stemmers = (snowballstemmer.stemmer("english"), snowballstemmer.stemmer("indonesian"))
    return _LOCAL.stemmers


_MISSION = re.compile(r"^([a-z]{2,})missions?$")


@lru_cache(maxsize=65536)  # Snowball is pure Python; a case repeats its words
def stem(token: str) -> str:
    """The Snowball stem of a lower-case token, so that 'heirs'/'heir' and 'warisan'/'waris' meet.
    The cases mix English with Indonesian terms, so a token first loses its Indonesian suffixes
    ('-an', '-nya', '-kan', '-lah') by the Snowball Indonesian stemmer, its prefixes kept (an English
    word such as 'diagnosis' would otherwise lose 'di-'), then goes through the English stemmer."""
    english, indonesian = _stemmers()
    token = SPELLING.get(token, token)  # "licence" meets "licensing", "colour" "color"
    token = IRREGULAR.get(token, token)  # "paid" meets "pay", which no suffix rule reaches
    m = _MISSION.match(token)
    if m:  # "permission" meets "permit", "admission" "admit": a Latin pair no suffix rule reaches
        token = m.group(1) + "mit"
    if len(token) >= 6:
        bare = indonesian.stemWord(token)
        # Only a stem that begins the word: what Snowball removed was suffixes alone.
        if token.startswith(bare) and len(bare) >= 4:
            token = bare
    return english.stemWord(token)


def terms(text: str) -> list[str]:
    return [stem(t) for t in content_tokens(text)]


def _segmenter() -> pysbd.Segmenter:
    if not hasattr(_LOCAL, "segmenter"):
        _LOCAL.segmenter = pysbd.Segmenter(language="en", clean=False)
    return _LOCAL.segmenter


@lru_cache(maxsize=4096)
def _split(text: str) -> tuple[str, ...]:
    parts: list[str] = []
    for piece in (s.strip() for s in _segmenter().segment(text)):
        if not piece:
            continue
        if parts and (_ABBREV.search(parts[-1]) or (_LIST_ITEM.match(piece) and not _ENDED.search(parts[-1]))):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return tuple(parts)


def sentences(text: str) -> list[str]:
    """The sentences of `text`, split by pysbd's English rules (abbreviations such as "e.g." and
    "Dr.", decimals, initials), kept together after the citation and Indonesian abbreviations above."""
    if not text or not text.strip():
        return []
    return list(_split(text)) or [text.strip()]


SHORT_ANSWER_LIMIT = 160


def clip_words(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word boundary, with an ellipsis when cut; a
    single word longer than the limit is kept whole rather than broken."""
    text = (text or "").strip()
    if len(text) <= limit:
        return text
    cut = text[:limit].rstrip()
    space = cut.rfind(" ")
    if space <= 0:
        word = re.match(r"\S+", text)
        return (word.group(0) if word else text) + "…"
    return cut[:space].rstrip(" ,;:") + "…"


def first_sentence(text: str, limit: int = SHORT_ANSWER_LIMIT) -> str:
    """The first sentence of `text`, cut at a sentence end; a first sentence longer than `limit`
    is cut at a word boundary, never inside a word."""
    found = sentences(text or "")
    return clip_words(found[0], limit) if found else ""


def numbers(text: str) -> list[tuple[float, str]]:
    out = []
    for m in _NUMBER.finditer(text or ""):
        raw = m.group(1)
        # "906,000" groups thousands; "2,3" (as Indonesian writes 2.3) is a decimal comma.
        raw = raw.replace(",", "") if _THOUSANDS.fullmatch(raw) else raw.replace(",", ".")
        try:
            out.append((float(raw), (m.group(2) or "").lower()))
        except ValueError:
            continue
    return out


def has_negation(text: str) -> bool:
    return any(t in NEGATIONS for t in tokens(text))


# A sentence in which its own author says the point is not settled ("I cannot rule out ...", "it is
# unclear whether ...", "the tests were inconclusive"): explicit doubt, not the hedges ("may",
# "likely") every careful text uses.
_HELD_OPEN = re.compile(r"\b(?:I|we)\s+(?:won't|will not|can't|cannot|can not|shan't|shall not)\s+(?:sign|say|"
                        r"confirm|certify|approve|decide|do|rule|accept|ratify|award|issue|pass|comment)\b[^.;]{0,60}?\buntil\b",
                        re.I)
_DOUBT = re.compile(
    r"\b(?:can ?not|can't|could not|couldn't) (?:be )?rul(?:e|ed) (?:it |anything |that |this )?out\b|\bnot (?:be )?ruled out\b"
    r"|\b(?:it is|it's|it remains|remains|is still|still) (?:unclear|uncertain|unknown|not known|not clear)\b"
    r"|\b(?:unclear|not clear|not known|unknown|uncertain) (?:whether|if)\b"
    # "We can't say before then whether there was a fault": the same, with when it will be known.
    r"|\b(?:can ?not|can't|could not|couldn't|impossible to|not possible to) (?:yet )?(?:say|tell|determine|establish|confirm|verify)"
    r"(?: (?:yet|before then|until then|till then|for now|at this stage|at present|at the moment))?"
    r" (?:whether|if|which|what (?:the|it|they|this|that|its)|for certain|for sure|when or|who it|whom)\b"
    # "I can't tell you from these results whether Lowgill still has scab": told whom, or from what.
    r"|\b(?:can ?not|can't|could not|couldn't) (?:say|tell)(?! enough\b) (?:you|us|them|him|her|anyone)?\b[^.;!?]{0,40}? (?:whether|which)\b"
    r"|\b(?:can ?not|could not|can't) be (?:determined|established|confirmed|checked|verified|reconciled)\b"
    r"|\binconclusive\b"
    # "the two counts have not been reconciled", "the group makes no finding": the record says it is open.
    r"|\b(?:has|have|had) not (?:yet )?been (?:reconciled|verified|confirmed|established)\b"
    r"|\bmakes? no finding\b|\bno finding (?:has been|was|is|can be) made\b"
    r"|\b(?:nobody|no one|no-one) has (?:yet )?(?:compared|checked|confirmed|established|verified)\b"
    # "I haven't yet been able to measure on a Saturday": what the author could not yet do is open.
    r"|\b(?:haven't|have not|hasn't|has not) (?:yet )?been able to (?:measure|check|confirm|test|count|verify|"
    r"inspect|visit|compare)\b"
    # "Honestly, it could go either way": the writer cannot say which.
    r"|\b(?:could|might|may|can) go either way\b"
    # "two domed jars sent to the analyst; results expected 23 October": what would settle it is to come.
    r"|\b(?:results?|findings|verdict) (?:are |is )?(?:expected|due) (?:on |by |in |at )?(?:\d|mon|tue|wed|thu|fri|sat|sun|"
    r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|next|later|this|within)"
    # "We have referred this to an independent consultant; the report is due on 20 November": the
    # finding the point was referred for is still to come.
    r"|\breferred\b[^.]{0,100}?\b(?:report|decision|ruling|determination|findings?|outcome|view|opinion)s? "
    r"(?:is |are )?(?:expected|due)\b"
    # "the supplier still has to fix single sign-on and we can't promise it ... We'll confirm as soon
    # as we know": the writer will not vouch for the point, and says it is not yet known.
    r"|\b(?:can't|cannot|can not|couldn't|could not) (?:promise|guarantee) (?:it|that|this|anything)\b"
    r"|\bas soon as (?:we|I|they) (?:know|hear)\b"
    # "Nothing in this Schedule says further what 'number of pupils' means": the record leaves the
    # term's meaning open. "Item 6: meaning of 'number of pupils' (for decision)": it is to be decided.
    r"|\b(?:nothing|no clause|no term|no definition)\b[^.]{0,80}?\b(?:says?|defines?|specif(?:y|ies))\b[^.]{0,40}?"
    r"\bwhat\b[^.]{0,60}?\bmeans?\b"
    r"|\b(?:does not|doesn't|do not|don't) (?:say|define|specify)\b[^.]{0,10}?\bwhat\b[^.]{0,60}?\bmeans?\b"
    r"|\(\s*for (?:a )?decision\s*\)"
    # "I wasn't on shift for either, and I can't swear to the split", "I can't be sure which it was",
    # "I'm not sure which version was voted on": the writer will not vouch for the point.
    r"|\b(?:can't|cannot|can not|couldn't|could not) (?:swear|vouch) (?:to|for|that)\b"
    r"|\b(?:can't|cannot|can not|couldn't|could not) be (?:sure|certain)\b"
    r"|\b(?:I'm|I am|we're|we are) not (?:sure|certain) (?:whether|if|which|what|how|when|who)\b"
    # "I don't know her well enough to guess": the writer cannot say.
    r"|\b(?:don't|do not|doesn't|does not|didn't|did not) know (?:\w+ ){0,3}(?:well )?enough to (?:guess|say|tell|judge)\b"
    # "they haven't said yes or no yet": the decision the point waits on has not been given.
    r"|\b(?:haven't|have not|hasn't|has not) (?:yet )?(?:said yes or no|said either way|given (?:an|their|its|a) "
    r"(?:answer|decision)|decided)\b"
    # "We can't check the spoiled cones - nobody counted them": what would settle it was never taken.
    r"|\b(?:nobody|no one|no-one) (?:counted|checked|measured|weighed|recorded|witnessed) (?:it|them|this|that|those|these|the)\b"
    r"|\b(?:we|I) (?:can't|cannot|can not|couldn't|could not) (?:check|verify|count|confirm) (?:it|them|this|that|the)\b"
    # "Until that ruling the Open final result stays provisional": the result waits on a decision.
    r"|\b(?:results?|placings?|scores?|times?|standings?|rankings?)(?: [\w'-]+){0,4}? (?:stays?|remains?|is|are) "
    r"provisional\b"
    r"|\buntil (?:that|the|its|their|a) (?:ruling|decision|verdict|appeal hearing)\b"
    # "I've asked the insurer how they define it. No answer yet, and I won't guess for them": the
    # answer the point waits on has not come, and the writer will not supply one.
    r"|\bno (?:answer|reply|response|decision|ruling) (?:yet|as yet|so far)\b"
    # "the author has not re-rated it and has not replied to our message": the answer is awaited.
    r"|(?<!\bif )(?<!\bunless )\b(?:has not|have not|hasn't|haven't) (?:yet )?(?:replied|responded|answered) (?:to )?"
    r"(?:our|my|their|your|any)\b|\b(?:I|we) (?:won't|will not) guess\b|\b(?:I'd|I would|we'd|we would) rather not guess\b"
    # "The committee will decide how to treat the flagged votes at its meeting on 24 June", "the hall
    # committee will choose between the two requests at its meeting", "I'll decide after the quarterly
    # review meeting": the decision the point waits on is still to be taken.
    r"|(?:\bwill|'ll|\bis to|\bare to) (?:settle|decide|rule on|determine|choose|vote on|consider|hear)\b[^.;]{0,60}?\b(?:at|after) "
    r"(?:its|their|the|our) (?:next )?(?:[\w-]+ ){0,2}?meeting\b"
    # "We're checking whether the offline taps kept their own time", "We haven't agreed the Q3 figure":
    # what would settle it is still being looked into, or not yet agreed.
    r"|\b(?:we're|we are|I'm|I am|they're|they are) (?:still )?(?:checking|looking into|investigating) (?:whether|if)\b"
    r"|(?<!\bif )(?<!\bunless )\b(?:we|I|they|parties|sides) (?:still )?(?:haven't|have not) (?:yet )?agreed "
    r"(?:the|a|on|its|their)\b"
    # "I honestly don't know which way they'll go": the writer cannot say how the decision will fall.
    r"|\b(?:don't|do not|doesn't|does not) know which way\b"
    # Minutes circulated "for approval on 14 April", "I'd expect an answer in two or three weeks": the
    # record or the decision that settles it is still to come.
    r"|\bfor (?:approval|ratification|decision|confirmation) (?:on|at|by)\b"
    r"|\bexpect an? (?:answer|reply|decision|ruling|response) (?:in|within|by|next)\b"
    # "We are compiling the records ... we expect this to take two to three weeks"; "Engineer booked for
    # Saturday 19 December to read the event log": the record or the test that would settle it is to come.
    r"|\bexpect (?:this|it|that|them) to take\b"
    # "Ten bolts went for the referee test; they expect to report by 20 May", "we have asked the records
    # office to search the minutes; they expect to reply in July": the finding is to come.
    r"|\b(?:expects?|expected) to (?:report|reply|respond|decide|rule|give (?:a|its|their) (?:result|finding|answer)s?) "
    r"(?:by|on|in|within|next|before)\b"
    r"|\b(?:booked|scheduled|arranged) (?:for|on)\b[^.;]{0,60}?\bto (?:read|check|test|inspect|diagnose|measure|"
    r"load-test|confirm)\b"
    # "CCTV survey booked for 24 April 2026", "I can't separate them yet": the test that would settle it
    # is to come, and the one who would know cannot yet tell the causes apart.
    r"|\b(?:survey|inspection|tests?|testing|trial|analysis|sampling|re-?test)s? (?:is |are |has been |have been )?"
    r"(?:booked|scheduled|arranged) (?:for|on)\b(?![^.;]{0,60}?\b(?:found|showed|confirmed|cleared)\b)"
    r"|\b(?:can ?not|can't|could not|couldn't) (?:yet )?(?:separate|distinguish|untangle|tell apart) (?:them|the|these|those|"
    r"between|which)\b"
    # "Surveyor booked for 12 January 2026: borescope inspection of the cavity": the test is to come.
    r"|\b(?:booked|scheduled|arranged) (?:for|on) (?:\w+ )?\d{1,2}(?:st|nd|rd|th)? [A-Za-z]+(?: \d{4})?\s*[:,-]"
    r"[^.;]{0,60}?\b(?:inspection|tests?|testing|survey|trial|analysis|sampling|samples|readings?)\b"
    # "I changed phones and my old messages didn't transfer", "some messages left were not saved": the
    # record that would settle the point is lost.
    r"|\b(?:messages?|records?|logs?|files?|data|footage|recordings?|texts?|emails?|entries)\b[^.;]{0,40}?\b(?:didn't|did not|"
    r"weren't|were not|wasn't|was not|hasn't been|have not been|haven't been|could not be|couldn't be) (?:transfer(?:red)?|"
    r"saved|kept|retained|backed up|recovered|retrieved|found)\b"
    # "No formal action pending the outcome", "results should come by the end of June", "off sale until
    # we know where we stand": the finding that settles it is still to come.
    r"|\bpending (?:the |its |their |a |further |expert |legal )?(?:outcome|results?|decision|ruling|review|appeal|hearing|"
    r"investigation|analysis|counter-analysis|tests?|advice|opinion|report|assessment|clarification)\b"
    # "Without a pre-cleaning scan nobody can give a figure for the east bay": the one who would know cannot.
    r"|\b(?:nobody|no one|no-one) (?:can|could) (?:yet )?(?:(?:say|tell|know|determine|establish) (?:whether|which|how|what|"
    r"for sure|for certain)|give a figure)\b"
    r"|\bresults? (?:should|are due to|are expected to) (?:come|arrive|be back|be ready|be available)\b"
    r"|\bresults? will (?:come|arrive|be back|be ready|be available) (?:by|on|in|within|next|after)\b"
    r"|\buntil (?:we|I) (?:know|find out|hear back|hear from)\b"
    # "Council did not resolve the point", "the question remains unresolved", "She will give her view
    # after the Gathering on 25 July": the body that would settle it has not, or will only later.
    r"|\b(?:did not|didn't|has not|hasn't|have not|haven't|could not|couldn't|failed to) (?:yet )?(?:resolve|settle|decide) "
    r"(?:the|this|that) (?:point|question|issue|matter|dispute|disagreement)\b"
    r"|\b(?:point|question|issue|matter|dispute|disagreement)s? (?:was |were |is |are )?(?:left|remains?|still|is still) "
    r"unresolved\b"
    r"|(?:\bwill|'ll) give (?:her|his|their|its|a|an|the|our|my) (?:view|views|decision|answer|ruling|opinion|verdict) "
    r"(?:after|once|when|at|on|by|in|next)\b"
    # "The decision stands unless the appeals committee overturns it; it meets on 20 May", "the rules
    # don't say so": an appeal still to be heard, and a record silent on the point.
    r"|\bunless (?:the|an|a|its|their) (?:[\w-]+ ){0,2}?(?:committee|panel|board|tribunal|court|adjudicator|ombudsman|"
    r"appeal) (?:overturns?|reverses?|upholds?|allows?|decides? otherwise|rules? otherwise)\b"
    r"|\b(?:the )?(?:rules?|schedule|contract|policy|terms|handbook|constitution) (?:don't|do not|doesn't|does not) "
    r"say (?:so|which|whether)\b"
    # "Minutes to be approved at the next committee meeting, 9 June", "exact wording to be confirmed by
    # Gareth", "Let's not circulate anything until the meeting on 9 June sorts it out": the record
    # that settles it is still to be agreed.
    r"|\bto be (?:confirmed|approved|ratified|agreed|decided|settled|finali[sz]ed) (?:at|by|before|on|when|after)\b"
    r"|\buntil (?:the|our|its|their) (?:[\w-]+ ){0,3}?(?:meeting|committee|board|hearing|panel)\b[^.;]{0,30}?"
    r"\b(?:sorts?|decides?|settles?|resolves?|rules?|votes?|approves?)\b"
    # "Trustees agreed not to decide until they have the police's written advice, which will follow",
    # "the March minutes haven't been approved", "I can't tell you what your clause 9 means".
    r"|\bnot to (?:decide|rule|vote)\b[^.;]{0,30}?\buntil\b"
    r"|\b(?:advice|report|decision|ruling|opinion|findings) will follow\b(?!\s+(?:the|a|an|our|its|their|this|that|his|her)\b)"
    r"|\b(?:minutes|decision|resolution|change|amendment)s? (?:haven't|have not|hasn't|has not) (?:yet )?been "
    r"(?:approved|agreed|ratified|confirmed|adopted)\b"
    r"|\b(?:can't|cannot|can not) tell you what\b[^.;]{0,60}?\bmeans\b"
    # "We will decide whether the cap was exceeded when we have them", "Until then the tonnage is not
    # confirmed", "Neither figure can be relied on", "the panel will measure her on 3 September and
    # decide then", "whether they are bolt heads can't be made out", "his written report has not been
    # sent yet": the finding is still to come, or the record cannot show it.
    r"|(?:\bwill|'ll) decide whether\b|\band decide then\b"
    r"|\b(?:is|are|remains?) not (?:yet )?confirmed\b"
    r"|\bneither (?:figure|value|count|estimate|reading|measurement|account|version)s? (?:can|could) be (?:relied|trusted)\b"
    r"|\b(?:can't|cannot|can not|couldn't|could not) be made out\b"
    r"|\b(?:report|results?|advice|letter|decision|findings|statement) (?:has|have) not (?:yet )?been (?:sent|issued|"
    r"received|given|published|written)\b"
    # "Officers recommend approval; members may amend, defer or refuse": how the decision falls is open
    # (a body that may defer; "you may accept or reject the offer" is a choice given, not a point open).
    r"|\bmay (?=[^.;]{0,40}?\b(?:defer|adjourn|postpone)\b)(?:approve|amend|accept|agree|defer|refuse|reject)\b"
    r"[^.;]{0,30}?\bor (?:defer|refuse|reject|approve|amend|adjourn|postpone)\b"
    # "The board may decide then or defer to July": even when the decision comes is open.
    r"|\b(?:decide|rule|vote)\b[^.;]{0,60}?\bor (?:defer|postpone|adjourn)\b"
    # "'Direct supervision' is not defined in this schedule": the record leaves the term open.
    r"|['\u2018\"\u201c][^'\u2019\"\u201d]{2,60}['\u2019\"\u201d] (?:is|are) (?:not|nowhere) defined\b"
    # "Tomasz: I can't remember whether I put my hand up": the one who would know cannot say.
    r"|\b(?:can't|cannot|can not|couldn't|could not|don't|do not) (?:remember|recall) (?:whether|if|which way|how I|"
    r"who was|when)\b"
    # "The log does not record who called", "the hospital has not yet replied", "I don't know what was
    # in it": the record is silent on the point, an answer is awaited, the witness cannot say.
    r"|\b(?:does not|doesn't|did not|didn't) (?:record|show|say) (?:who|whom)\b"
    r"|\b(?:has not|have not|hasn't|haven't) yet (?:replied|responded|answered)\b"
    r"|\b(?:I|we) (?:don't|do not|didn't|did not) know (?:what|how much) (?:was|were) in (?:it|them|the)\b"
    # "Let's settle it at the meeting": the decision is still to be taken.
    r"|\blet's (?:settle|decide|sort) (?:it|this|that)(?: out)? at the (?:next )?meeting\b"
    # "Whether the food bank is still part of the PCC or a separate charity depends on what was agreed
    # in 2022": the writer names the open point, a past fact (not a test the law sets: "depends on what
    # a reasonable trader would have done"); "We'd want to see the minutes before advising", "no
    # idea where they are now": the advice waits, and the record that would settle it is lost.
    r"|^\W*whether\b[^.;]{0,160}?\bdepends? (?:on|upon) (?:what|who|how|when|whether|which)\b[^.;]{0,20}?"
    r"\b(?:was|were|did|had|actually|really)\b"
    r"|\bbefore (?:advising|deciding|ruling|we (?:can )?(?:advise|decide|rule))\b"
    r"|\bno idea (?:where|whether|if|what|which|who|how)\b"
    # "the wording can be read either way", "Prize cards are held until the appeals committee meets":
    # the text settles nothing, and what depends on it waits for the decision.
    r"|\bcan be (?:read|taken|understood) (?:either way|both ways)\b"
    r"|\b(?:held|withheld|on hold|suspended) until\b[^.;]{0,60}?\b(?:meets?|decides?|rules?|hearing|decision|ruling)\b"
    # "No test since 2 May has used the new meter at the old spot": nothing has yet separated the causes.
    r"|\bno (?:test|check|trial|comparison|measurement)s?\b[^.;]{0,60}?\b(?:has|have) (?:yet )?(?:used|separated|"
    r"compared|isolated|tested|checked)\b"
    # "Please don't treat this as agreed. The trustees haven't voted", "I won't prejudge the trustees'
    # vote", "we'll confirm after 14 May whether we can do it", "I expect we'll drop it, but I can't
    # promise. Until the panel decides, ...": the decision the point waits on is still to come.
    r"|\b(?:don't|do not) treat (?:this|it|that) as (?:agreed|decided|final|settled|approved|confirmed)\b"
    r"|(?<!\bwho )\b(?:haven't|have not|hasn't|has not) (?:yet )?voted\b"
    r"|\b(?:won't|will not) (?:prejudge|pre-judge|pre-empt|preempt)\b"
    r"|\b(?:we'll|we will|I'll|I will) (?:confirm|let you know|tell you|decide) (?:after|once|when)\b[^.;]{0,60}?\bwhether\b"
    r"|\b(?:can't|cannot|can not) promise(?=\s*(?:[.;!]|$))"
    r"|\buntil (?:the|its|their) (?:[\w-]+ ){0,2}?(?:decides?|has decided|have decided|rules?|has ruled|votes?|has voted|"
    r"have voted)\b"
    # "The receivers have accepted an offer of £415,000, subject to contract ... sales can still fall
    # through": a sale agreed but not bound.
    r"|\bsubject to contract\b|\b(?:can|could|may|might) (?:still )?fall through\b"
    # "Looks fine in principle. We'll ... sign next week": agreed only in principle is not yet agreed.
    r"|\b(?:agreed?|approved?|accepted|fine|ok|okay|happy)\b[^.;]{0,20}?\bin principle\b"
    # "I won't sign anything until the new certificate is back": its author holds the point open.
    r"|" + _HELD_OPEN.pattern, re.I)


def states_doubt(sentence: str) -> bool:
    """Whether the sentence's author says the point is not settled (see _DOUBT)."""
    return bool(_DOUBT.search(sentence))


def holds_open(sentence: str) -> bool:
    """Whether the sentence's author holds the point open until something comes ("I won't sign anything
    until the new certificate is back")."""
    return bool(_HELD_OPEN.search(sentence))


def doubts(text: str) -> list[str]:
    """The sentences of a text in which its author says the point is not settled."""
    return [s for s in sentences(text) if states_doubt(s)]


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def overlap(a: str, b: str) -> float:
    """Share of a's content terms found in b."""
    ta = set(terms(a))
    if not ta:
        return 0.0
    return len(ta & set(terms(b))) / len(ta)


@dataclass(frozen=True)
class Ranked:
    id: str
    score: float


def bm25_rank(query: str, docs: dict[str, str], k1: float = 1.4, b: float = 0.75) -> list[Ranked]:
    """Rank documents against a query with BM25 over stemmed content terms (ties by id order).

    Scored by bm25s's Lucene variant (idf = ln(1 + (N - df + 0.5) / (df + 0.5))), multiplied by
    k1 + 1 so that scores read as the classic Okapi form; a document sharing no term scores 0."""
    ids = list(docs)
    corpus = [terms(docs[doc_id]) for doc_id in ids]
    vocabulary = {t for doc in corpus for t in doc}
    query_terms = [t for t in terms(query) if t in vocabulary]
    scores = [0.0] * len(ids)
    if query_terms:
        # Imported on first use: bm25s brings numpy and scipy.sparse, most of a second that a CLI
        # command which ranks nothing should not pay.
        import bm25s

        model = bm25s.BM25(k1=k1, b=b, method="lucene", dtype="float64")
        model.index(corpus, show_progress=False)
        scores = [float(s) * (k1 + 1) for s in model.get_scores(query_terms)]
    ranked = sorted(range(len(ids)), key=lambda i: (-round(scores[i], 4), i))
    return [Ranked(ids[i], round(scores[i], 4)) for i in ranked]


def best_sentence(text: str, query: str) -> str:
    sents = sentences(text)
    if not sents:
        return text
    scored = [(overlap(query, s) + 0.001 * (len(sents) - i), s) for i, s in enumerate(sents)]
    return max(scored)[1]


def clauses(sentence: str) -> list[str]:
    """A sentence cut after its commas, semicolons and colons, never inside brackets: the pieces a
    shorter statement can be made of ("(class III: harm)" stays whole)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(sentence):
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
        if depth == 0 and ch in ",;:" and sentence[i + 1: i + 2] == " ":
            parts.append(sentence[start: i + 1].strip())
            start = i + 1
    parts.append(sentence[start:].strip())
    return [p for p in parts if p]


def _as_statement(span: str) -> str:
    span = span.strip().rstrip(",;:").strip()
    span = span[:1].upper() + span[1:]
    return span if span.endswith((".", "!", "?")) else span + "."


# A clause that starts with one of these words adds to what came before it (a contrast, a reason,
# a qualification): a statement may end just before it and still say its point whole.
_ADDED_CLAUSE = frozenset("""and but or nor which who whose while whereas although though because since unless
except including largely mainly mostly so as yet where when after before then though""".split())


def _adds(clause: str) -> bool:
    first = clause.split(" ", 1)[0].lower().strip("(")
    return first in _ADDED_CLAUSE or clause.startswith("(")


# "and", "or" and "nor" may also open an aside set off by two commas inside a clause ("if you get,
# or have applied for, the enhanced rate"): the clause goes on after the aside, so a statement that
# stops before it would be cut in the middle ("The exception is if you get.").
_ASIDE_OPENERS = frozenset({"and", "or", "nor"})


def _may_end_before(parts: list[str], b: int) -> bool:
    clause = parts[b]
    if not _adds(clause):
        return False
    aside = (clause.split(" ", 1)[0].lower() in _ASIDE_OPENERS and clause.endswith(",")
             and b + 1 < len(parts) and not _adds(parts[b + 1]))
    return not aside


def best_span(text: str, query: str, limit: int) -> str:
    """The passage's statement closest to `query` that fits `limit` characters: its best sentence
    (`best_sentence`) when that fits; otherwise the run of that sentence's clauses closest to the query
    that says a point whole (it starts the sentence or follows a semicolon or colon, and ends the
    sentence or stops before a clause that only adds to it: "but ...", "which ..."); failing that, the
    sentence cut at a word with an ellipsis, so that a shortened claim never reads as complete when it
    is not. A rule-based writer states a shorter claim rather than cut a sentence in the middle."""
    sent = best_sentence(text, query)
    if len(sent) <= limit:
        return sent
    parts = clauses(sent)
    candidates: list[tuple[float, int, str]] = []
    for a in range(len(parts)):
        if a and not parts[a - 1].endswith((";", ":")):
            continue
        for b in range(a + 1, len(parts) + 1):
            span = _as_statement(" ".join(parts[a:b]))
            if len(span) > limit:
                break
            if b == len(parts) or _may_end_before(parts, b):
                # Among spans as close to the query, the longer one says more of the sentence.
                candidates.append((overlap(query, span), len(span), span))
    if not candidates:
        return clip_words(sent, limit)
    return max(candidates)[2]


# Authority scores this far apart (primary or official against a blog or a forum post) are no
# contest of equals: the stronger source settles the point on its own.
DECISIVE_AUTHORITY_GAP = 0.3


# Sources at or below this standing (opinion, forum, blog, a chat message) report what others say.
HEARSAY = 0.3

# Words that, anywhere in an authority label, mark what someone says in passing or a text no longer in force.
_DISCOUNTED = frozenset({"opinion", "forum", "blog", "social", "comment", "anecdote", "rumour", "outdated", "chat",
                         "gossip", "hearsay", "repealed", "superseded", "withdrawn"})


def authority_score(value: float | str | None) -> float:
    """Evidence authority as a number in [0, 1]: numbers pass through, labels map to levels."""
    if value is None:
        return 0.5
    if isinstance(value, (int, float)):
        v = float(value)
        return max(0.0, min(1.0, v / 10.0 if v > 1.0 else v))
    label = str(value).strip().lower()
    levels = {
        "constitution": 1.0, "statute": 0.95, "law": 0.9, "supreme_court": 0.9, "regulation": 0.8,
        "official": 0.85, "primary": 0.85, "high": 0.8, "court": 0.75, "jurisprudence": 0.75,
        "customary": 0.7, "adat": 0.7, "secondary": 0.6, "medium": 0.6, "academic": 0.55,
        "low": 0.35, "news": 0.4, "blog": 0.25, "unknown": 0.3,
        # The documents that create or record a right or a measurement are primary sources ...
        "deed": 0.85, "register": 0.85, "regulator": 0.85, "accredited_lab": 0.85, "contract": 0.8,
        "certificate": 0.8, "guidance": 0.8, "guideline": 0.8, "bylaw": 0.8, "order": 0.8,
        "professional_code": 0.75, "expert": 0.7, "reference": 0.6,
        # ... and what someone says in passing is hearsay, below the press and level with a blog.
        "press": 0.4, "media": 0.4, "newsletter": 0.4, "opinion": 0.3, "forum": 0.25, "social": 0.2,
        "social_media": 0.2, "comment": 0.2, "anecdote": 0.2, "rumour": 0.15, "outdated": 0.2,
        "chat": 0.2, "gossip": 0.15, "hearsay": 0.2, "repealed": 0.2, "superseded": 0.2, "withdrawn": 0.2,
    }
    if label in levels:
        return levels[label]
    # A label in words of its own ("government guidance", "group chat", "statute (repealed)"): what
    # marks it as hearsay or as no longer in force decides; otherwise its strongest known word does.
    words = re.findall(r"[a-z_]+", label)
    known = [levels[w] for w in words if w in levels]
    discounted = [levels[w] for w in words if w in _DISCOUNTED]
    if discounted:
        return min(discounted)
    return max(known, default=0.5)


def mentioned_ids(text: str, ids: Iterable[str]) -> list[str]:
    """Evidence ids named in free text, whole-word, in order of first mention."""
    found = []
    for eid in ids:
        m = re.search(rf"(?<![\w-]){re.escape(eid)}(?![\w-])", text or "")
        if m:
            found.append((m.start(), eid))
    return [eid for _, eid in sorted(found)]


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """Word-level diff as (op, text) pairs, op in {"=", "-", "+"}."""
    a, b = before.split(), after.split()
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("=", " ".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(("-", " ".join(a[i1:i2])))
        if op in ("insert", "replace"):
            out.append(("+", " ".join(b[j1:j2])))
    return out


def month_number(name: str) -> int:
    """1 to 12 for a month's name or its abbreviation ("Sept.", "jan")."""
    name = name.lower().rstrip(".")
    return next(n for n, m in enumerate(MONTHS, start=1) if m.startswith(name))


def calendar_days(text: str) -> set[tuple[int, int, int]]:
    """The (year, month, day) of every day a text names ("19 January 2026", "January 19, 2026",
    "2026-01-19"); not checked as a real date."""
    days = {(int(m.group(3)), month_number(m.group(2)), int(m.group(1))) for m in _DAY_MONTH_YEAR.finditer(text)}
    days |= {(int(m.group(3)), month_number(m.group(1)), int(m.group(2))) for m in _MONTH_DAY_YEAR.finditer(text)}
    days |= {(int(m.group(1)), int(m.group(2)), int(m.group(3))) for m in _ISO_DAY.finditer(text)}
    return days


def calendar_months(text: str) -> set[tuple[int, int]]:
    """The (year, month) of every month a text names with its year ("June 2026", also inside "1 June 2026")."""
    return {(int(m.group(2)), month_number(m.group(1))) for m in _MONTH_YEAR.finditer(text)}


# A literal of an ASP rule: an atom, maybe negated ("not banned(P)"). The dialectic protocol reads
# rules by it, and the scorer compares an answer's rule with a reference's.
_LITERAL = re.compile(r"(?:\bnot\s+)?-?[a-z_][A-Za-z0-9_']*\s*\([^()]*\)")


def rule_literals(rule: str) -> list[str]:
    """Head and body literals of an ASP-looking rule, whitespace-normalised, in order."""
    return [" ".join(m.group(0).split()) for m in _LITERAL.finditer(rule)]
