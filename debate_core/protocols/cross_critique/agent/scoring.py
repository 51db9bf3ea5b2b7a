"""What the cross-critique agents share: how relevant a passage is to an agent, whose focus it
belongs to, what confidence cited evidence carries, and how an answer is composed and capped by
the agent's reading of the case."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ....core.schemas import AgentOutput, Case, Claim, Evidence
from ....core.text import (
    DECISIVE_AUTHORITY_GAP,
    NEGATIONS,
    STOPWORDS,
    bm25_rank,
    clauses,
    clip_words,
    doubts,
    evidence_authority,
    numbers,
    overlap,
    sentences,
    stem,
    terms,
    tokens,
)
from ....providers.offline import reading

THESIS_MARK = "govern this dispute"  # the legal register's thesis (see `legal_register`)
NEUTRAL_THESIS_MARK = "bear most directly on this question"
YIELD_MARK = "except where the sources of the"  # how a revised thesis concedes precedence to another agent
NEUTRAL_YIELD_MARK = "except where the passages of the"
# The words by which the agents' profiles or the case bring the legal register (sources that
# govern, precedence, norms): only then do the agents' claims and critiques speak of it.
LEGAL_REGISTER = ("law", "legal", "statute", "norm", "court", "jurisprudence", "legislation")
# Two sentences are about the same point when this share of the shorter one's content terms is shared.
SAME_POINT = 0.5
# Directions that oppose each other (by stem): "rises" against "falls", "higher" against "lower".
OPPOSITE_DIRECTIONS = (("increas", "decreas"), ("higher", "lower"), ("more", "less"), ("rise", "fall"),
                       ("rais", "reduc"), ("above", "below"), ("greater", "smaller"), ("improv", "worsen"),
                       ("gain", "loss"), ("allow", "prohibit"), ("permit", "forbid"), ("safe", "unsaf"),
                       ("valid", "invalid"), ("effect", "ineffect"), ("benefit", "harm"))


# Quantities with a unit of measure, and the rate they are given at ("10 GB per month", "5 mg daily").
# Units of one dimension convert to a base unit, so "4 g" and "4000 mg" agree and "4 g" and "4 mg" do not.
UNITS = {"mg": ("mass", 1e-3), "g": ("mass", 1.0), "kg": ("mass", 1e3), "mcg": ("mass", 1e-6), "µg": ("mass", 1e-6),
         "kb": ("data", 1e-6), "mb": ("data", 1e-3), "gb": ("data", 1.0), "tb": ("data", 1e3),
         "ml": ("volume", 1e-3), "l": ("volume", 1.0), "litres": ("volume", 1.0), "liters": ("volume", 1.0),
         "mm": ("length", 1e-3), "cm": ("length", 1e-2), "m": ("length", 1.0), "km": ("length", 1e3),
         # Money in one currency at a time: the same figure over another period is what matters there.
         "eur": ("money:eur", 1.0), "euro": ("money:eur", 1.0), "euros": ("money:eur", 1.0),
         "usd": ("money:usd", 1.0), "dollar": ("money:usd", 1.0), "dollars": ("money:usd", 1.0),
         "gbp": ("money:gbp", 1.0), "pound": ("money:gbp", 1.0), "pounds": ("money:gbp", 1.0),
         "cents": ("money:cent", 1.0), "pence": ("money:cent", 1.0)}
# A currency sign before the figure ("€4.20") is read as the word after it ("4.20 eur").
_CURRENCY_SIGN = re.compile(r"([€$£])\s?(\d[\d.,]*)")
_SIGN_WORD = {"€": "eur", "$": "usd", "£": "gbp"}
PERIODS = {"hour": "hour", "day": "day", "week": "week", "month": "month", "year": "year", "daily": "day",
           "weekly": "week", "monthly": "month", "yearly": "year", "annually": "year", "annual": "year"}
_QUANTITY = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(" + "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True)) + r")(?![\w])"
    r"(?:(?:\s+[A-Za-z-]+){0,3}?\s+(?:per|a|an|each|every)\s+(hour|day|week|month|year)s?\b"
    r"|\s+(daily|weekly|monthly|yearly|annually)\b|\s*/\s*(hour|day|week|month|year)\b)?", re.I)


def quantities(sentence: str) -> list[tuple[float, str, str, str | None]]:
    """(value in the base unit, dimension, the figure as written, period or None) for each quantity."""
    out = []
    sentence = _CURRENCY_SIGN.sub(lambda m: f"{m.group(2)} {_SIGN_WORD[m.group(1)]}", sentence)
    for m in _QUANTITY.finditer(sentence):
        dim, factor = UNITS[m.group(2).lower()]
        period = next((PERIODS[p.lower()] for p in m.groups()[2:] if p), None)
        value = float(m.group(1).replace(",", "."))
        written = f"{m.group(1)} {m.group(2)}" + (f" per {period}" if period else "")
        out.append((value * factor, dim, written, period))
    return out


# A count: a figure and the word that says what it counts ("41 million", "3 witnesses"); years are not counts.
_COUNT = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s+([A-Za-z]{3,})\b")
_NOT_COUNTED = {"the", "and", "for", "per", "of", "to", "in", "on", "at", "or", "but", "with", "from", "than", "was",
                "were", "is", "are", "by", "as"}


def counts(sentence: str) -> dict[str, list[float]]:
    """Figures by the word they count, lower-cased; four-digit years left out."""
    out: dict[str, list[float]] = {}
    for m in _COUNT.finditer(sentence):
        raw, word = m.group(1), m.group(2).lower()
        if word in _NOT_COUNTED or (len(raw) == 4 and raw.isdigit() and 1800 <= int(raw) <= 2200):
            continue
        out.setdefault(word, []).append(float(raw.replace(",", ".")))
    return out


def unit_mismatch(sa: str, sb: str) -> str | None:
    """Two sentences on the same point whose one quantity of a dimension differs once units and rates
    are read: another period ("per month" against "per year"), or another amount after conversion
    ("5 mg" against "5 g"). The same figure in another unit or period is a conflict, not agreement.
    Said in few words: a critique holds 160 characters, and the figures are what a reviewer reads."""
    qa, qb = quantities(sa), quantities(sb)
    # The same figure in the same unit over another period, however many other figures are beside it.
    for va, da, wa, pa in qa:
        for vb, db, wb, pb in qb:
            if da == db and va == vb and pa and pb and pa != pb:
                return f"one gives {wa}, the other {wb}: not the same amount over another period"
    for dim in {d for _, d, _, _ in qa} & {d for _, d, _, _ in qb}:
        a = [q for q in qa if q[1] == dim]
        b = [q for q in qb if q[1] == dim]
        if len(a) != 1 or len(b) != 1:
            continue
        (va, _, wa, pa), (vb, _, wb, pb) = a[0], b[0]
        if pa and pb and pa != pb:
            return f"one gives {wa}, the other {wb}: not the same amount over another period"
        base = max(abs(va), abs(vb))
        if base and abs(va - vb) / base > 0.05 and wa.split()[1].lower() != wb.split()[1].lower():
            return f"one gives {wa}, the other {wb}: different amounts once the units are converted"
    ca, cb = counts(sa), counts(sb)
    for word in sorted(set(ca) & set(cb)):
        if len(ca[word]) == 1 and len(cb[word]) == 1:
            va, vb = ca[word][0], cb[word][0]
            if max(va, vb) and abs(va - vb) / max(va, vb) > 0.05:
                return f"one gives {va:g} {word}, the other {vb:g} {word}"
    return None


# Ages a sentence is limited to ("aged 40 to 59", "aged 60 or older", "under 12", "adults older than 70")
# and the age the question gives ("a 72-year-old", "aged 72").
_AGE_RANGE = re.compile(
    r"\b(?:aged|ages|age)\s+(\d{1,3})\s*(?:to|-|–|and)\s*(\d{1,3})\b"
    r"|\b(?:aged|ages|age)?\s*(\d{1,3})\s+(?:years?\s+)?(?:or|and)\s+(?:older|over|above)\b"
    r"|\b(?:older than|over)\s+(\d{1,3})\b(?!\s*(?:%|percent|mg|g\b))"
    r"|\b(?:younger than|under)\s+(\d{1,3})\s+(?:years?\b)", re.I)
_QUESTION_AGE = re.compile(r"\b(\d{1,3})[- ]year[- ]old\b|\baged\s+(\d{1,3})\b(?!\s*(?:to|-|and|or))", re.I)


def age_ranges(sentence: str) -> list[tuple[float, float]]:
    out = []
    for m in _AGE_RANGE.finditer(sentence):
        lo, hi, older, over, under = m.groups()
        if lo and hi:
            out.append((float(lo), float(hi)))
        elif older:
            out.append((float(older), float("inf")))
        elif over:
            out.append((float(over) + 1, float("inf")))
        elif under:
            out.append((0.0, float(under) - 1))
    return out


def question_age(question: str) -> float | None:
    m = _QUESTION_AGE.search(question)
    return float(m.group(1) or m.group(2)) if m else None


def outside_age(statement: str, question: str) -> str | None:
    """The statement is limited to ages that exclude the age the question gives: it does not apply."""
    age, ranges = question_age(question), age_ranges(statement)
    if age is None or not ranges or any(lo <= age <= hi for lo, hi in ranges):
        return None
    shown = ", ".join(f"{lo:g} to {hi:g}" if hi != float("inf") else f"{lo:g} or older" for lo, hi in ranges)
    return f"it is limited to ages {shown}, and the question concerns someone aged {age:g}"


def legal_register(case: Case, agents: list[dict[str, Any]]) -> bool:
    """Whether the agents' profiles or the case (question, scope hint, authority labels) bring the legal
    register; without it the agents speak of passages and focus, not of governing sources and precedence."""
    text = " ".join([case.question, case.domain_hint or "", *(str(e.authority or "") for e in case.evidence),
                     *(focus_text(a) + " " + agent_label(a) for a in agents)])
    words = {stem(t) for t in terms(text)}
    return any(stem(w) in words for w in LEGAL_REGISTER)


# A negation inside a relative clause ("adults who are not at risk") or after a preposition ("at no
# extra charge", "without delay") narrows a noun; it does not deny what the sentence asserts.
_QUALIFYING = {"who", "that", "which", "whose", "whom", "at", "with", "without", "for", "of", "if", "unless",
               "where", "when", "whether"}


# A negation hyphenated into a compound ("never-say-die", "no-fault", "not-for-profit") names a
# thing; it denies nothing.
_COMPOUND = re.compile(r"[^\W_]+(?:-[^\W_]+)+")


def _plain(sentence: str) -> str:
    return _COMPOUND.sub(lambda m: m.group(0).replace("-", ""), sentence)


def asserts_negation(sentence: str) -> bool:
    """Whether the sentence denies what it states: a negation word that is not inside a qualifying
    clause or phrase (a relative pronoun or preposition at most two words before it)."""
    toks = tokens(_plain(sentence))
    for i, t in enumerate(toks):
        if t in NEGATIONS and not any(w in _QUALIFYING for w in toks[max(0, i - 2):i]):
            return True
    return False


# A stance against what the sentence names is a negative statement without a negation word.
_AGAINST = re.compile(r"\b(?:recommend(?:s|ed)?|advis(?:e|es|ed)|warn(?:s|ed)?|decided|argu(?:e|es|ed)|"
                      r"counsel(?:s|led)?|caution(?:s|ed)?)\s+against\b|\b(?:avoid(?:s|ed)?|contraindicated)\b", re.I)


def negative(sentence: str) -> bool:
    """Whether the sentence takes the negative side of its point: it denies it (`asserts_negation`) or
    stands against it ("recommends against", "avoid", "contraindicated")."""
    return asserts_negation(sentence) or bool(_AGAINST.search(sentence))


_CLAUSE_BREAK = re.compile(r"[,;:()]|\s(?:but|which|while|whereas|although)\s", re.IGNORECASE)


def denied_terms(sentence: str) -> set[str]:
    """The terms a negative sentence denies or stands against: those after the negation (or after
    "recommends against", "avoid") to the end of its clause. "Her chain will have nothing to do with
    Starbucks" denies a tie to Starbucks, not that the chain exists."""
    out: set[str] = set()
    for clause in _CLAUSE_BREAK.split(_plain(sentence)):
        toks = tokens(clause)
        for i, t in enumerate(toks):
            if t in NEGATIONS and not any(w in _QUALIFYING for w in toks[max(0, i - 2):i]):
                out |= {stem(w) for w in toks[i + 1:] if w not in STOPWORDS}
                break
        m = _AGAINST.search(clause)
        if m:
            out |= set(terms(clause[m.end():]))
    return out


def contradiction(text_a: str, text_b: str) -> str | None:
    """How two texts contradict each other, if they do: a pair of sentences about the same point
    (most of the shorter one's content terms shared) where one is negated and the other not, where
    they move in opposite directions, or where they give figures of the same unit more than 5% apart.
    Texts that only word the same point differently, or stress different points, do not contradict."""
    for sa in sentences(text_a) or [text_a]:
        ta = set(terms(sa))
        for sb in sentences(text_b) or [text_b]:
            tb = set(terms(sb))
            if not ta or not tb:
                continue
            shared = ta & tb
            if len(shared) < 2 or len(shared) / min(len(ta), len(tb)) < SAME_POINT:
                continue
            mismatch = unit_mismatch(sa, sb)
            if mismatch:
                return mismatch
            # Figures are compared only when each sentence gives one figure of a unit: with several
            # (a rate and a share in one sentence) nothing says which of them the other one answers.
            fa, fb = numbers(sa), numbers(sb)
            for unit in {u for _, u in fa if u} & {u for _, u in fb if u}:
                a_vals, b_vals = [v for v, u in fa if u == unit], [v for v, u in fb if u == unit]
                if len(a_vals) == 1 and len(b_vals) == 1:
                    va, vb = a_vals[0], b_vals[0]
                    base = max(abs(va), abs(vb))
                    if base and abs(va - vb) / base > 0.05:
                        return f"one gives {va:g}{unit}, the other {vb:g}{unit}"
            # Opposite sides of the same point: what the negative sentence denies is something the
            # other one says, not a side matter it adds.
            if negative(sa) != negative(sb) and denied_terms(sa if negative(sa) else sb) & shared:
                return f"one says \"{sa.strip()}\", the other denies it: \"{sb.strip()}\""
            sa_st, sb_st = {t.lower() for t in tokens(sa)}, {t.lower() for t in tokens(sb)}
            for up, down in OPPOSITE_DIRECTIONS:
                a_up, a_down = any(w.startswith(up) for w in sa_st), any(w.startswith(down) for w in sa_st)
                b_up, b_down = any(w.startswith(up) for w in sb_st), any(w.startswith(down) for w in sb_st)
                if (a_up and not a_down and b_down and not b_up) or (a_down and not a_up and b_up and not b_down):
                    return f"\"{sa.strip()}\" and \"{sb.strip()}\" point in opposite directions"
    return None


# -- shared scoring ------------------------------------------------------------------------------

def focus_text(agent: dict[str, Any]) -> str:
    """What the agent looks for: its profile's role, instructions and terms."""
    return " ".join([agent.get("role") or "", agent.get("instructions") or "", *(agent.get("terms") or [])])


def agent_label(agent: dict[str, Any]) -> str:
    return agent.get("name") or str(agent["id"]).replace("_", " ")


def passage_texts(case: Case) -> dict[str, str]:
    return {e.id: f"{e.source}. {e.text}" for e in case.evidence}


def _normalised(ranked: list[Any]) -> dict[str, float]:
    top = max((r.score for r in ranked), default=0.0) or 1.0
    return {r.id: r.score / top for r in ranked}


def relevance(case: Case, agent: dict[str, Any]) -> dict[str, float]:
    """Passage relevance for one agent: the question counts most, the agent's focus decides ties."""
    docs = passage_texts(case)
    q = _normalised(bm25_rank(case.question, docs))
    f = _normalised(bm25_rank(focus_text(agent), docs))
    return {pid: round(0.6 * q.get(pid, 0.0) + 0.4 * f.get(pid, 0.0), 4) for pid in docs}


def domain_of(case: Case, agents: list[dict[str, Any]]) -> dict[str, str | None]:
    """Which agent's focus each passage belongs to: the one whose focus terms score clearly highest
    (by a margin of 20%); passages no focus claims clearly (a deed, a fact) belong to no one."""
    docs = passage_texts(case)
    raw = {a["id"]: {r.id: r.score for r in bm25_rank(focus_text(a), docs)} for a in agents}
    out: dict[str, str | None] = {}
    for pid in docs:
        ranked = sorted(((raw[a["id"]].get(pid, 0.0), a["id"]) for a in agents), reverse=True)
        best, runner_up = ranked[0], (ranked[1] if len(ranked) > 1 else (0.0, None))
        out[pid] = best[1] if best[0] > 0 and best[0] > 1.2 * runner_up[0] else None
    return out


def support_level(case: Case, evidence_ids: list[str]) -> float:
    """What confidence the cited evidence carries: more and stronger passages carry more."""
    by_id = case.evidence_by_id()
    found = [by_id[e] for e in evidence_ids if e in by_id]
    if not found:
        return 0.3
    best = max(evidence_authority(e) for e in found)
    return round(min(0.95, 0.45 + 0.3 * best + 0.07 * (min(len(found), 3) - 1)), 2)


def yields_to(claim: Claim, agent: dict[str, Any]) -> bool:
    """A thesis that names the agent's sources as governing where they apply no longer claims
    precedence over them: there is no conflict of precedence left to raise."""
    return any(f"{mark} {agent_label(agent)}" in claim.statement for mark in (YIELD_MARK, NEUTRAL_YIELD_MARK))


def is_thesis(claim: Claim) -> bool:
    return any(a.endswith((THESIS_MARK, NEUTRAL_THESIS_MARK)) for a in claim.assumptions)


def thesis_of(output: AgentOutput) -> Claim | None:
    return next((c for c in output.claims if is_thesis(c)), None)


def domain_strength(case: Case, agent: dict[str, Any], evidence_ids: list[str]) -> float:
    """How strongly an agent's own sources bear on the question: relevance times authority."""
    by_id = case.evidence_by_id()
    rel = relevance(case, agent)
    return round(sum(rel.get(e, 0.0) * evidence_authority(by_id[e]) for e in evidence_ids if e in by_id), 4)


SOURCE_NAME_CHARS = 48  # a source named in a claim or critique leaves room for what is said of it
_TRAILING_REMARK = re.compile(r"\s*\((?:[^()]*)\)\s*$")
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")


def short_source(ev: Evidence) -> str:
    """The passage's source as a reader would name it in a sentence: a trailing remark such as
    "(paraphrase)" dropped, the title cut after its first comma when it is long ("US Preventive
    Services Task Force, Aspirin Use to ..." is the Task Force), with the year from the part cut
    off, so that a 2016 and a 2022 statement of one body stay apart; at most SOURCE_NAME_CHARS."""
    name = ev.source.strip()
    while len(name) > SOURCE_NAME_CHARS and _TRAILING_REMARK.search(name):
        name = _TRAILING_REMARK.sub("", name).strip()
    parts = clauses(name)
    if len(name) > SOURCE_NAME_CHARS and len(parts) > 1 and parts[0].endswith(",") and len(parts[0]) > 12:
        head = parts[0].rstrip(",")
        year = None if _YEAR.search(head) else (_YEAR.search(name[len(head):]) or _YEAR.search(ev.date or ""))
        name = f"{head} ({year.group(1)})" if year else head
    return clip_words(name, SOURCE_NAME_CHARS)


def agents_from(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Every agent of the debate, as the protocol passes their profiles in the payload."""
    agents = payload.get("agents")
    if agents:
        return list(agents)
    return [payload[k] for k in ("agent", "critic", "target") if isinstance(payload.get(k), dict)]


def asked(question: str) -> str:
    """What the question asks: its interrogative sentences. The sentences before them state the facts
    (names, places, dates), which the passages are not expected to repeat."""
    parts = [q for q in sentences(question) if q.rstrip().endswith("?")]
    return " ".join(parts) or question


def contradicted(claim: Claim, others: list[Claim]) -> Claim | None:
    """An other claim of the same agent that says the opposite about the same thing, if any."""
    for other in others:
        if other.id != claim.id and overlap(claim.statement, other.statement) >= 0.3 \
                and negative(claim.statement) != negative(other.statement):
            return other
    return None


def lead_claim(claims: list[Claim], question: str) -> Claim | None:
    """The claim an answer opens with: the most confident one that bears on the question (covers
    some of its terms) and that none of the agent's other, at least as confident, claims contradicts."""
    terms = reading.question_terms(question)

    def bears(c: Claim) -> float:
        return len(reading.covered(terms, [c.statement])) / len(terms) if terms else 0.0

    ordered = sorted(claims, key=lambda c: (-(c.confidence * (0.5 + bears(c))), c.id))
    for c in ordered:
        rival = contradicted(c, [o for o in claims if o.confidence >= c.confidence])
        if rival is None and bears(c) > 0:
            return c
    return None


def compose_answer(agent: dict[str, Any], claims: list[Claim], case: Case, note: str = "") -> str:
    """The answer's first sentence answers the question (or says the evidence does not settle it);
    the grounds follow."""
    by_id = case.evidence_by_id()
    lead = lead_claim(claims, asked(case.question))
    ordered = sorted((c for c in claims if c is not lead), key=lambda c: -c.confidence)
    grounds = []
    for i, c in enumerate(ordered[:3], start=1):
        src = ", ".join(short_source(by_id[e]) for e in c.evidence if e in by_id) or "no cited passage"
        grounds.append(f"({i}) {c.statement} [{src}]")
    first = lead.statement if lead else "The evidence does not settle the question."
    text = first + (" Grounds: " + " ".join(grounds) if grounds else "")
    return text + (f" {note}" if note else "")


# A part of the question counts as answered when the agent's claims carry at least this share of its words.
ASPECT_COVERAGE = 0.5


def question_parts(question: str) -> list[str]:
    """The parts the question asks, one per clause of its interrogative sentences ("is the will
    valid", "how far can the bequest stand"); clauses with fewer than two content words are
    not parts on their own."""
    clauses = re.split(r"[,;:]\s*|\s+and\s+(?=(?:what|how|which|who|whom|whose|when|where|why|whether|is|are|was|"
                       r"were|can|could|should|would|will|may|must|do|does|did|has|have)\b)", asked(question))
    parts = [re.sub(r"^(?:and|or)\s+", "", c.strip(" ?")) for c in clauses if len(reading.question_terms(c)) >= 2]
    return parts if len(parts) > 1 else []


def answered_parts(parts: list[str], claims: list[Claim]) -> list[str]:
    statements = [c.statement for c in claims]
    out = []
    for part in parts:
        terms = reading.question_terms(part)
        if terms and len(reading.covered(terms, statements)) / len(terms) >= ASPECT_COVERAGE:
            out.append(part)
    return out


def measured(case: Case, agent: dict[str, Any], claims: list[Claim], gaps: list[str]) -> reading.Reading:
    """The agent's reading of the case: how much of the question the passages it cites cover, and
    which parts of a question with several its claims answer."""
    by_id = case.evidence_by_id()
    cited = list(dict.fromkeys(e for c in claims for e in c.evidence if e in by_id))
    texts = [by_id[e].text for e in cited]
    parts = question_parts(case.question)
    return reading.read(asked(case.question), texts, passages=len(cited), gaps=gaps,
                        aspects_asked=[f'"{p}"' for p in parts],
                        aspects_matched=[f'"{p}"' for p in answered_parts(parts, claims)])


def own_contradictions(claims: list[Claim], case: Case) -> list[str]:
    """What the agent could not settle among its own claims: pairs that say opposite things."""
    by_id = case.evidence_by_id()
    gaps: list[str] = []
    for i, c in enumerate(claims):
        rival = contradicted(c, claims[i + 1:])
        # Two claims that disagree are no open question when one rests on a source decisively above the
        # other's (a statute against a forum post): the stronger settles it.
        if rival is not None and abs(standing(c.evidence, by_id) - standing(rival.evidence, by_id)) < DECISIVE_AUTHORITY_GAP:
            a = ", ".join(e for e in c.evidence if e in by_id) or c.id
            b = ", ".join(e for e in rival.evidence if e in by_id) or rival.id
            gaps.append(f"which of its own sources prevails where {a} and {b} disagree")
    return gaps


def standing(evidence_ids: Iterable[str], by_id: Mapping[str, Evidence]) -> float:
    """The standing of what a claim rests on: the highest authority among the passages it cites."""
    return max((evidence_authority(by_id[e]) for e in evidence_ids if e in by_id), default=0.0)


def doubted(claims: list[Claim], case: Case) -> list[str]:
    """What the passages the claims cite say is not settled, in their own words ("I cannot rule out
    that it was an early partial tear"): the evidence itself leaves the point open, one gap per
    passage, quoting the sentence."""
    by_id = case.evidence_by_id()
    cited = dict.fromkeys(e for c in claims for e in c.evidence if e in by_id)
    gaps = []
    for e in cited:
        said = next(iter(doubts(by_id[e].text)), None)
        if said:
            gaps.append(f"what {e} leaves open: it says \"{' '.join(said.split()).rstrip('.')}\"")
    return gaps


def honest(case: Case, agent: dict[str, Any], claims: list[Claim], uncertainties: list[str],
           gaps: list[str] = ()) -> tuple[list[Claim], list[str]]:
    """Claims with confidence capped by the reading, and the uncertainties with the reading's own
    notes (earlier reading notes are replaced, not repeated)."""
    read = measured(case, agent, claims, [*gaps, *own_contradictions(claims, case), *doubted(claims, case)])
    capped = [c.model_copy(update={"confidence": read.cap(c.confidence)}) for c in claims]
    kept = [u for u in uncertainties
            if not u.startswith(("could not assess:", "weak reading:"))]
    return capped, list(dict.fromkeys([*read.uncertainties(), *kept]))

