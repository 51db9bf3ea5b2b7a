"""Plain words for the codes the engine records: rule names, criteria, stages, step ids, rulings.

Each protocol's spec supplies its own glossary (`ProtocolSpec.glossary`, rule code -> sentence);
this module adds the words every protocol shares and the fallbacks, so no page shows a bare code
such as `S6.hard_contradiction`, `RuleB`, `r2.revise.pharmacist` or `agent1_correct`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..core.steps import parse_step_id
from ..protocols import get_spec, specs

# Steps that belong to no protocol's stages, as nouns; a protocol's stages name their own
# (`StageSpec.noun`): "Round 2 · revision by Clinical pharmacist".
SHARED_STEP_NOUNS = {
    "final": "final answer",
    "human": "intervention",
}

# Arbitration's rulings and actions (schemas.Resolution), and the critic's recommendations.
CODES = {
    "agent1_correct": "the first report is right",
    "agent2_correct": "the second report is right",
    "both_valid": "both reports hold, each in its own context",
    "neither_valid": "neither report holds",
    "use_agent1": "use the first report's figure",
    "use_agent2": "use the second report's figure",
    "use_both": "keep both figures",
    "flag_for_review": "flag for a human",
    "split": "the arbiters split",
}

# The checks every verdict passes, whatever the protocol (engine/checks.py).
CHECK_RULES = {
    "check.no_option_named": "The answer does not settle on one of the options the question offers.",
    "check.copied_passage": "The answer is mostly a passage copied from the evidence, not an answer.",
    "check.degenerate_evidence": "The evidence is not usable text (a passage repeats itself, is a keyword list or "
                                 "has no words, or all the passages are near-identical).",
    "check.question_not_addressed": "The evidence does not address the question.",
    "check.not_a_question": "The question is not a question (markup, no words, or random strings).",
}


def _spec_glossary(protocol: str | None) -> Mapping[str, str]:
    try:
        return {**CHECK_RULES, **get_spec(protocol or "").glossary}
    except Exception:  # noqa: BLE001 - an unknown protocol has no glossary of its own
        return CHECK_RULES


def plain(code: Any) -> str:
    """A code as words when nothing better is known: `use_agent1` -> 'use agent 1'."""
    if code is None:
        return ""
    text = re.sub(r"(?<=[a-z])(?=\d)", " ", str(code))
    return text.replace("_", " ").replace("->", " to ").strip()


def rule(protocol: str | None, code: str, names: Mapping[str, str] | None = None) -> str:
    """One applied rule as a sentence. A code with an agent suffix (`S6.unsupported_claims.nla`)
    reads as the rule's sentence naming that agent."""
    glossary = _spec_glossary(protocol)
    if code in glossary:
        return glossary[code]
    base, _, who = code.rpartition(".")
    if base in glossary:
        return f"{(names or {}).get(who, who)}: {glossary[base]}"
    return plain(code.split(".", 1)[-1] if re.match(r"^S\d+\.", code) else code).capitalize() + "."


def criterion(protocol: str | None, name: str) -> str:
    """A convergence criterion (cross critique's section 5 checks) in words."""
    glossary = _spec_glossary(protocol)
    for key in (name, f"S5.{name}"):
        if key in glossary:
            return glossary[key]
    return plain(name).capitalize()


def code(value: Any) -> str:
    """A ruling, an action or a recommendation as words: `agent1_correct` -> 'the first report is right'."""
    return CODES.get(str(value), plain(value)) if value is not None else ""


def ruling(resolution: Any, action: Any) -> str:
    """An `agent1_correct→use_agent1` pair as one sentence."""
    first, then = code(resolution), code(action)
    if first and then:
        return f"{first[:1].upper()}{first[1:]}, so {then}."
    return (first or then).capitalize()


def agent(agent_id: Any, names: Mapping[str, str] | None = None) -> str:
    if agent_id is None:
        return ""
    return (names or {}).get(str(agent_id), str(agent_id).replace("_", " "))


def stage_noun(protocol: str | None, stage: str) -> str:
    """One step of `stage` as a noun, from the protocol's stage spec (else any protocol's that has it)."""
    found = None
    if protocol:
        try:
            found = get_spec(protocol).stage(stage)
        except ValueError:  # an unknown protocol
            found = None
    if found is None:  # a stage of another protocol, or no protocol given
        found = next((s for spec in specs() for s in spec.stages if s.name == stage), None)
    if found is not None and found.noun:
        return found.noun
    return SHARED_STEP_NOUNS.get(stage, plain(stage))


def step_title(protocol: str | None, step_id: str, names: Mapping[str, str] | None = None) -> str:
    """A step id as a title: `r2.revise.pharmacist` -> 'Round 2 · revision by Clinical pharmacist',
    `r1.critique.nla.ala` -> 'Round 1 · critique by National Law Agent of Adat Law Agent'."""
    try:
        key = parse_step_id(step_id)
    except ValueError:
        return plain(step_id)
    noun = stage_noun(protocol, key.stage)
    who = agent(key.agent, names)
    text = f"{noun} by {who}" if who else noun
    if key.target:
        text += f" of {agent(key.target, names)}"
    text = text[:1].upper() + text[1:]
    if key.round is not None:
        return f"Round {key.round} · {text[:1].lower()}{text[1:]}"
    if key.index is not None:
        return f"Contradiction {key.index} · {text[:1].lower()}{text[1:]}"
    return text


# Rules whose firing sends a verdict to a human, across the protocols' glossaries.
FLAGGING_PREFIXES = ("S6.", "S8.", "S9.", "escalate.", "check.")
FLAGGING_RULES = frozenset({
    "S5.not_converged", "final_rule_unparsable", "critic_rejected", "max_rounds_without_acceptance",
    "low_confidence", "final_score_below_threshold", "no_convergence_at_max_rounds", "unverified_evidence",
    "no_verified_evidence", "unassessed", "not_assessed", "low_reasoner_confidence", "reasoner_could_not_assess",
    "cause_seen_when_nothing_fails", "cause_ruled_out_by_test", "reasoners_disagree_unseparated", "kept_superseded_rule",
    "kept_withdrawn_rule", "conflicting_passages", "amendment_not_in_force", "unsure_verdict", "dropped_condition",
    "amendment_starts_later",
})
_REASON_CODE = re.compile(r"^[a-z]+(?:_[a-z]+)+:\s*")
_CRITIQUE_REF = re.compile(r"\b([\w-]+)->([\w-]+):(K\d+)\b")
_RULE_REF = re.compile(r"\bRule([A-Z])\b")


def is_flagging(code: str) -> bool:
    return code in FLAGGING_RULES or code.startswith(FLAGGING_PREFIXES)


def reason(text: Any, names: Mapping[str, str] | None = None) -> str:
    """An escalation reason in words, whole: a leading code ("low_confidence: ...") dropped, critique
    references (`nla->ala:K1`) and rule names (`RuleM`) spelled out."""
    out = _REASON_CODE.sub("", str(text or "").strip())
    out = _CRITIQUE_REF.sub(lambda m: f"{agent(m[1], names)}'s critique {m[3]} of {agent(m[2], names)}", out)
    out = _RULE_REF.sub(lambda m: f"rule {m[1]}", out)
    return out[:1].upper() + out[1:]


def why_flagged(protocol: str | None, verdict: Mapping[str, Any], names: Mapping[str, str] | None = None) -> list[str]:
    """Why the moderator sent the verdict to a human, one plain sentence per rule that fired (the card
    stays short; the reasons themselves, whole, are one click away); the reasons where the protocol
    names no rule for them."""
    if not verdict.get("needs_human_review"):
        return []
    out: list[str] = []
    for code_ in verdict.get("applied_rules") or []:
        if is_flagging(str(code_)):
            sentence = rule(protocol, str(code_), names)
            if sentence not in out:
                out.append(sentence)
    return out or [reason(r, names) for r in verdict.get("escalation_reasons") or []]


_STEP_ID = re.compile(r"\b(?:r\d+\.[a-z_]+(?:\.[\w-]+){0,2}|c\d+\.[a-z_]+\.[\w-]+|final\.[\w-]+)\b")


def step_ids_in(protocol: str | None, text: Any, names: Mapping[str, str] | None = None) -> str:
    """Engine text (a warning, an error) with the step ids it names written as step titles."""
    return _STEP_ID.sub(lambda m: step_title(protocol, m[0], names), str(text or ""))
