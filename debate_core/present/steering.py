"""What the pages show of steering (no Streamlit, no SQL): where a paused or stopped debate stands,
the reviewers' interventions in words, the claims and critiques a reviewer can act on, and the
engine's refusals as sentences.

The interventions themselves are read from the steps by `views.interventions`; the rules on what a
reviewer may target are the engine's own (`debate_core.jobs.continuation`).
"""

from __future__ import annotations

import re
from typing import Any

from ..core.review_rules import same_name
from ..jobs import continuation
from .formatting import plain_code
from .views import agent_names, interventions


def pause_place(debate: dict[str, Any]) -> str:
    """Where a paused or stopped debate stands, in words: 'after round 1', 'in round 2, after the
    revisions' (pause points: debate_core/core/steering.py)."""
    label = str(debate.get("paused_at") or "")
    rnd = debate.get("paused_round")
    m = re.match(r"^r(\d+)\.([a-z_]+)$", label)
    if m:
        rnd = int(m[1])
        if m[2] != "end":
            return f"in round {rnd}, after the {m[2].replace('_', ' ')}"
    return f"after round {rnd}" if rnd else "before its first round closed"


def next_part(debate: dict[str, Any]) -> str:
    """What a paused debate runs when it continues: 'round 2', or 'the rest of round 1' when it
    paused inside a round."""
    nxt = debate.get("next_round")
    if not nxt:
        return ""
    inside = not str(debate.get("paused_at") or "").endswith(".end") and nxt == debate.get("paused_round")
    return f"the rest of round {nxt}" if inside else f"round {nxt}"


def intervention_when(iv: dict[str, Any]) -> str:
    """Where an intervention was made: 'before round 2', or 'in round 1, after the answers'."""
    m = re.match(r"^r(\d+)\.([a-z_]+)$", str(iv.get("at") or ""))
    if m and m[2] != "end":
        return f"in round {m[1]}, after the {m[2].replace('_', ' ')}"
    return f"before round {iv.get('round')}" if iv.get("round") else ""


def _claim_words(ref: Any, names: dict[str, str]) -> str:
    agent, _, claim = str(ref or "").partition(".")
    who = names.get(agent, agent.replace("_", " "))
    return f"{who}'s claim {claim}" if claim else who


def _critique_words(ref: Any, names: dict[str, str]) -> str:
    """A reviewer critique's reference `alice->nla:H1` as words."""
    m = re.match(r"^([\w-]+)->([\w-]+):(\w+)$", str(ref or ""))
    if not m:
        return str(ref or "")
    author = names.get(m[1], m[1]).removesuffix(" (reviewer)")
    return f"{author}'s critique {m[3]} of {names.get(m[2], m[2].replace('_', ' '))}"


def intervention_text(iv: dict[str, Any], names: dict[str, str] | None = None) -> str:
    """What a reviewer did, as a phrase without its subject: 'raised a CRITICAL critique (H1) of
    National Law Agent's claim C2: ...'. The reviewer's own text is included as typed."""
    names = names or {}
    kind = iv.get("kind")
    if kind == "critique":
        text = str(iv.get("description") or "").strip()
        if iv.get("suggested_fix"):
            text += ("" if text.endswith((".", "!", "?")) else ".") + f" Suggested fix: {iv['suggested_fix']}"
        return (f"raised a {iv.get('severity') or ''} critique ({iv.get('critique_id')}) of "
                f"{_claim_words(iv.get('target'), names)}: {text}")
    if kind == "evidence":
        ev = iv.get("evidence") or {}
        return f"added passage {ev.get('id')} ({ev.get('source')}): {ev.get('text') or ''}"
    if kind == "pin":
        return f"pinned {_claim_words(iv.get('target'), names)} as established: the agent may not drop it"
    if kind == "strike":
        return f"withdrew {_claim_words(iv.get('target'), names)} from the debate"
    if kind == "resolve":
        return f"resolved {_critique_words(iv.get('target'), names)}"
    return plain_code(kind)


def intervention_rows(steps: list[dict[str, Any]], names: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per intervention: when, who, before which round, what."""
    return [{"time": (iv.get("ts") or "")[:19].replace("T", " "), "reviewer": iv.get("reviewer") or "",
             "when": intervention_when(iv), "what": intervention_text(iv, names)}
            for iv in interventions(steps)]


def claim_choices(debate: dict[str, Any]) -> list[dict[str, str]]:
    """The claims a reviewer can critique, pin or withdraw on a paused debate: each agent's claims in
    its latest answer, less those withdrawn; exactly the ones `continuation.intervene` accepts (the
    engine's own rule, `continuation.latest_claims`, so the picker offers what it takes)."""
    names = agent_names(debate)
    return [{"ref": f"{agent}.{cid}", "agent": names.get(agent, agent.replace("_", " ")), "claim": cid,
             "statement": statement}
            for agent, found in continuation.latest_claims(debate).items() for cid, statement in found.items()]


def claim_choice_label(choice: dict[str, str], width: int = 110) -> str:
    text = " ".join(choice["statement"].split())
    if len(text) > width:
        text = text[: width - 1].rstrip() + "…"
    return f"{choice['agent']} · {choice['claim']} · {text}"


def open_reviewer_critiques(debate: dict[str, Any], reviewer: str, *, everyone: bool = False) -> list[dict[str, str]]:
    """The reviewer critiques still open that this reviewer may resolve: their own (a supervisor,
    `everyone`, may resolve anyone's). Each {"ref", "label"}."""
    names = agent_names(debate)
    out = []
    for ref, iv in continuation.open_reviewer_critiques(debate).items():  # the engine's own rule
        if not everyone and not same_name(iv.reviewer, reviewer):
            continue
        text = " ".join((iv.description or "").split())
        out.append({"ref": ref, "label": f"{iv.critique_id} · {iv.severity} · {_claim_words(iv.target, names)} · "
                                         f"{text[:90] + ('…' if len(text) > 90 else '')}"})
    return out


_CLAIM_REF = re.compile(r"\b([A-Za-z][\w-]*)\.(C\d+)\b")
_H_REF = re.compile(r"\b[\w-]+->[\w-]+:\w+\b")


def steering_message(text: Any, names: dict[str, str] | None = None) -> str:
    """A refusal from the engine (SteeringError and the like) as a sentence: claim references
    (`nla.C2`) and reviewer critique references (`alice->nla:H1`) spelled out."""
    names = names or {}
    out = str(text.args[0] if isinstance(text, KeyError) and text.args else text or "").strip()
    out = _H_REF.sub(lambda m: _critique_words(m[0], names), out)
    out = _CLAIM_REF.sub(lambda m: _claim_words(f"{m[1]}.{m[2]}", names) if m[1] in names else m[0], out)
    return out[:1].upper() + out[1:]
