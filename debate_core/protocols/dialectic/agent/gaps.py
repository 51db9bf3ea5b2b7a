"""What an ASP rule over the declared predicates leaves out or cannot place: the gaps its reading
reports, each of which lowers its confidence and may send the rule to a person."""

from __future__ import annotations

import re

from ....core.schemas import Case
from ....providers.offline.reading import Reading, quoted_material, read
from .cues import cue_kind, evidence_sentences, hearsay_passages, shortened, topic_of
from .predicates import Pred, body_parts, common_terms, literal_name, matches


def unexpressed(case: Case, preds: list[Pred], vocab_ids: set[str]) -> list[tuple[str, str]]:
    """Requirement sentences no declared predicate expresses: what an ASP rule over them cannot assess."""
    common = common_terms(preds)
    # What hearsay says is required (a forum post, a blog) is no requirement the rule must carry.
    hearsay = hearsay_passages(case)
    return [(eid, s) for eid, s in evidence_sentences(case, vocab_ids)
            if eid not in hearsay and cue_kind(s) == "obligation" and not any(matches(s, p, common) for p in preds)]


# Words by which a sentence may say who may do what though no rule cue of the lexicon is in it ("are
# welcome", "no form, no solo", "stay on at all times", "from their fourteenth birthday").
_RULE_LIKE = re.compile(
    r"\b(?:welcome|needs?|needed|essential|only|without|until|allowed|ha(?:ve|s) to|got to|stay on|go on|keep|"
    r"wear|bring|show|sign(?:ed)?|book(?:ed)?|paid|pay|at least|or over|or older|aged|from (?:their|the age)|"
    r"unless|except|can|can't|cannot|won't|don't|never|nobody|everyone|anyone|any \w+ who)\b", re.I)
# A rule that leaves out this many declared predicates, each named by such a sentence that no rule cue
# reads, goes to a person. (On the dev cases two, not three, flagged three silent wrong rules and two
# right ones; one, not two, flagged twelve more silent wrong rules and six right ones: a wrong rule
# nobody reviews costs more than a right one checked.)
UNREAD_LIMIT = 1


def standing_sentences(case: Case, sents: list[tuple[str, str]]) -> list[tuple[str, str, str | None]]:
    """The evidence sentences of passages of standing (hearsay aside), each with its rule cue kind
    (`cue_kind`), read once for the checks below."""
    hearsay = hearsay_passages(case)
    return [(eid, s, cue_kind(s)) for eid, s in sents if eid not in hearsay]


def unread_predicates(preds: list[Pred], kinds: list[tuple[str, str, str | None]], common: set[str],
                      used: set[str]) -> list[tuple[str, str]]:
    """The declared predicates a rule leaves out that passages of standing name in sentences (`kinds`,
    from `standing_sentences`) that look like rules but that no rule cue reads, outside sentences that
    name a withdrawn predicate: (predicate name, passage id), in order of the passages."""
    found: dict[str, str] = {}
    for eid, sent, kind in kinds:
        if kind is not None or not _RULE_LIKE.search(sent):
            continue
        # "14- and 15-year-olds are welcome, provided a parent signs the consent form": a sentence whose
        # route a later text withdrew (consent_form) took what else it names (age_14_plus) with it.
        if any(p.group == "repealed" and matches(sent, p, common) for p in preds):
            continue
        for p in preds:
            if p.name not in used and p.name not in found and matches(sent, p, common):
                found[p.name] = eid
    return list(found.items())


def unplaced_predicates(preds: list[Pred], kinds: list[tuple[str, str, str | None]], common: set[str],
                        used: set[str]) -> list[tuple[str, str, str]]:
    """The declared predicates the reading gave no part (group "other", left out of the rule) that a
    requirement or a prohibition of a passage of standing (`kinds`, from `standing_sentences`) names,
    while no sentence says they are not required: (name, passage id, sentence). Whether such a
    predicate is a condition is not known."""
    skip = used | {p.name for _, s, k in kinds if k == "not_required" for p in preds if matches(s, p, common)}
    found: dict[str, tuple[str, str, str]] = {}
    for eid, s, kind in kinds:
        if kind in ("obligation", "prohibition"):
            for p in preds:
                if p.group == "other" and p.name not in skip and p.name not in found and matches(s, p, common):
                    found[p.name] = (p.name, eid, s)
    return list(found.values())


def asp_reading(case: Case, rule: str, preds: list[Pred], vocab_ids: set[str]) -> Reading:
    """How much of the case an ASP rule over the declared predicates could use."""
    common = common_terms(preds)
    _, body = body_parts(rule)
    used_names = {literal_name(b) for b in body}
    used = [p for p in preds if p.name in used_names]
    # The passages the agent mapped onto the vocabulary: those it relied on to add, keep or drop a literal.
    sents = evidence_sentences(case, vocab_ids)
    backing = sorted({eid for eid, s in sents if any(matches(s, p, common) for p in preds)})
    texts = [p.desc for p in used] + [ev.text for ev in case.evidence if ev.id in backing]
    gaps = [f"the requirement in {eid} that no declared predicate expresses (\"{shortened(s)}\")"
            for eid, s in unexpressed(case, preds, vocab_ids)]
    # A predicate of the rule that one sentence reads as a condition and another as a defeater.
    # Quoted short: the whole line must fit an uncertainty's bound (160 characters).
    gaps += [f"whether {p.name} is a condition (\"{shortened(p.torn[0], 32)}\") or defeats the rule "
             f"(\"{shortened(p.torn[1], 32)}\")" for p in used if p.torn]
    # A predicate a later text withdrew is left out for a reason the reading read.
    kinds = standing_sentences(case, sents)
    unread = unread_predicates(preds, kinds, common, used_names | {p.name for p in preds if p.group == "repealed"})
    if len(unread) >= UNREAD_LIMIT:
        counted = f"{len(unread)} predicates" if len(unread) > 1 else "a predicate"
        gaps.append(f"{counted} the rule leaves out ({', '.join(name for name, _ in unread)}), "
                    f"named in {', '.join(dict.fromkeys(eid for _, eid in unread))} where no rule word was read")
    gaps += [f"what part {name} plays: {eid} names it in a rule (\"{shortened(s, 48)}\") that the reading "
             "could not place" for name, eid, s in unplaced_predicates(preds, kinds, common, used_names)]
    return read(topic_of(case.question), texts + quoted_material(case.question), passages=len(backing), gaps=gaps)
