"""Continue a paused debate, fork a debate from one of its rounds, and record a reviewer's
intervention on a paused debate. The CLI and the app's worker share these; how a run replays what
is stored and where it pauses is in steering.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..core import steering
from ..core.events import EventSink
from ..core.identity import Actor, PermissionRefused, operator, require
from ..core.review_rules import RoleError, same_name
from ..core.schemas import Case
from ..core.steering import (
    Intervention,
    Steering,
    SteeringError,
    StoredCalls,
    check_severity,
    parse_evidence,
    reviewer_slug,
    stored_interventions,
)
from ..core.steps import parse_step_id
from ..engine.budget import apply_budget, effective_budget, provider_is_paid, spent_before
from ..engine.run import DebateResult
from ..engine.runtime import DebateSettings
from ..protocols import get_spec
from ..providers import Provider, make_provider
from .debates import resume_provider, run_debate


@dataclass
class SteeredPlan:
    """A continued or forked debate, ready to run."""

    debate_id: str
    case: Case
    protocol: str
    provider: Provider
    settings: DebateSettings
    steering: Steering = field(default_factory=Steering)
    budget_spent: int = 0  # tokens of the debates a continued debate resumed, counted against its budget


def run_steered(store: Any, plan: SteeredPlan, sink: EventSink | None = None) -> DebateResult:
    """Run a prepared continuation or fork to its end, its next pause, or a stop."""
    return run_debate(plan.case, plan.protocol, provider=plan.provider, settings=plan.settings, store=store,
                      sink=sink, debate_id=plan.debate_id, steering=plan.steering, budget_spent=plan.budget_spent)


def _known(store: Any, debate_id: str, events: list[dict[str, Any]] | None = None) -> tuple[set[str], set[int]]:
    """The warnings and closed rounds the store already holds for a debate (`events`, when already
    read), so a continued run does not record them twice."""
    warnings, rounds = set(), set()
    for ev in store.events(debate_id) if events is None else events:
        if ev["kind"] == "warning" and ev["data"].get("message"):
            warnings.add(ev["data"]["message"])
        elif ev["kind"] == "round_closed" and ev["data"].get("round") is not None:
            rounds.add(ev["data"]["round"])
    return warnings, rounds


def _provider(stored_name: str | None, provider: Provider | None, what: str) -> Provider:
    if provider is not None:
        return provider
    name = stored_name or "offline"
    if name == "offline":
        return make_provider("offline")
    if name == "replay":
        raise SteeringError(f"{what} a replay debate needs its cassette again: --provider replay --cassette FILE")
    raise SteeringError(f"{what} an {name} debate needs the provider flags again (--provider {name} --model ...)")


def prepare_continue(store: Any, debate_id: str, provider: Provider | None = None, *,
                     runner: dict[str, Any] | None = None, reviewer: str = "", actor: Actor | None = None,
                     pause_after_round: int | None = None, max_total_tokens: int | None = None) -> SteeredPlan:
    """Claim a paused debate and prepare its continuation in place (same id): its stored steps are
    served from the store, its interventions applied where it paused. `max_total_tokens` replaces
    its token budget, which counts the steps it already ran (budget.py)."""
    debate = store.get_debate(debate_id, with_steps=False)
    if debate["status"] != "paused":
        raise SteeringError(f"debate {debate_id} is {debate['status']}; only a paused debate can be continued")
    live = _provider(debate["provider"], provider, "continuing")
    stored_settings = DebateSettings.from_dict(debate["settings"])
    budget = effective_budget(provider_is_paid(live), explicit=max_total_tokens,
                              stored=stored_settings.max_total_tokens, stored_source=stored_settings.budget_source)
    if budget.max_total_tokens is not None and budget.max_total_tokens < 1:
        raise SteeringError(f"max_total_tokens must be at least 1, got {budget.max_total_tokens}")
    spent = spent_before(store, debate)
    debate = store.begin_continue(debate_id, runner=runner, reviewer=reviewer, actor=actor,
                                  pause_after_round=pause_after_round,
                                  settings_update={"max_total_tokens": budget.max_total_tokens,
                                                   "budget_source": budget.source})
    settings = DebateSettings.from_dict(debate["settings"])
    settings.max_total_tokens, settings.budget_source = budget.max_total_tokens, budget.source
    warnings, rounds = _known(store, debate_id)
    steering = Steering(
        pause_after_round=settings.pause_after_round, resume_at=debate["paused_at"],
        interventions=stored_interventions(debate["steps"]),
        stored=StoredCalls.from_steps(debate["steps"], own=True),
        known_warnings=warnings, closed_rounds=rounds, continued=True)
    return SteeredPlan(debate_id, Case.model_validate(debate["case"]), debate["protocol"], live, settings, steering,
                       budget_spent=spent)


def _step_round(step: dict[str, Any]) -> int | None:
    """The round a stored step belongs to; a contradiction step (arbitration) is round 1."""
    if step.get("round") is not None:
        return int(step["round"])
    try:
        key = parse_step_id(step["step_id"])
    except ValueError:
        return None
    return 1 if key.index is not None else None


def closed_rounds(store: Any, debate_id: str) -> list[int]:
    """The rounds of a debate that closed, in order: the rounds a fork can start after."""
    return sorted({int(ev["data"]["round"]) for ev in store.events(debate_id)
                   if ev["kind"] == "round_closed" and ev["data"].get("round") is not None})


def prepare_fork(store: Any, parent_id: str, from_round: int, *, provider: Provider | None = None,
                 options: dict[str, Any] | None = None, agents: list[dict[str, Any]] | None = None,
                 rounds: int | None = None, runner: dict[str, Any] | None = None,
                 pause_after_round: int | None = None, reviewer: str = "", actor: Actor | None = None,
                 debate_id: str | None = None, max_total_tokens: int | None = None) -> SteeredPlan:
    """Create a debate that shares the first `from_round` rounds of `parent_id`, reused as stored
    with no model calls, and continues with the changed settings, agents or provider. The fork
    records `parent_id` and `fork_round`; the parent's interventions in those rounds come along.
    `debate_id` names the fork (a worker registers it as its own before the row exists).
    Its token budget (`max_total_tokens`, else the parent's, else the default for a paid provider)
    counts only the fork's own calls: the reused rounds cost nothing again (budget.py)."""
    if actor is not None:  # refused before anything is created
        try:
            require(actor, "steer")
        except PermissionRefused as exc:
            raise SteeringError(str(exc)) from None
    parent = store.get_debate(parent_id)
    if parent["status"] == "running":
        raise SteeringError(f"debate {parent_id} is still running; pause or stop it first, or wait for it")
    done = closed_rounds(store, parent_id)
    if not done:
        raise SteeringError(f"debate {parent_id} closed no round; there is nothing to fork from")
    if from_round not in done:
        raise SteeringError(f"debate {parent_id} has no closed round {from_round}; "
                            f"fork from one of rounds {', '.join(map(str, done))}")
    spec = get_spec(parent["protocol"])
    settings = DebateSettings.from_dict({k: v for k, v in (parent["settings"] or {}).items() if k != "runner"})
    settings.pause_after_round = pause_after_round
    if options:
        settings.options = {**settings.options, **options}
    if agents is not None:
        settings.agents = agents
    if rounds is not None:
        settings.rounds = rounds
    spec.validate(settings)
    case = Case.model_validate(parent["case"])
    spec.check_case(case, settings)
    live = _provider(parent["provider"], provider, "forking")
    apply_budget(settings, live, explicit=max_total_tokens)
    spec.validate(settings)
    stored = StoredCalls.from_steps(parent["steps"], own=False, reused_from=parent_id,
                                    keep=lambda s: (_step_round(s) or 0) >= 1 and (_step_round(s) or 0) <= from_round)
    record = {**settings.as_dict(), **({"runner": runner} if runner else {})}
    fork_id = store.create_debate(case, parent["protocol"], live.public_config(), record,
                                  debate_id=debate_id, parent_id=parent_id, fork_round=from_round)
    if reviewer or actor is not None:
        store.note_fork(fork_id, reviewer, f"forked from {parent_id} after round {from_round}", actor=actor)
    steering = Steering(pause_after_round=pause_after_round, resume_at=f"r{from_round}.end",
                        interventions=[iv for iv in stored_interventions(parent["steps"]) if iv.round <= from_round],
                        stored=stored)
    return SteeredPlan(fork_id, case, parent["protocol"], live, settings, steering)


def prepare_job(store: Any, debate_id: str, provider: Provider, *, resume_at: str | None = None,
                fork_of: str | None = None, fork_round: int | None = None,
                resume_of: str | None = None) -> SteeredPlan:
    """The run of a debate taken from the job queue, rebuilt from the store alone (a worker on
    another machine has nothing else). Its first run starts it (a fork reuses its parent's first
    rounds, as prepare_fork plans); a run after a worker died serves every step the debate already
    stored from the store, in place, so no completed step is called or stored again, and passes
    `resume_at` (the pause point a continuation or fork began from) without pausing."""
    debate = store.get_debate(debate_id)
    settings = DebateSettings.from_dict({k: v for k, v in (debate["settings"] or {}).items() if k != "runner"})
    events = store.events(debate_id)
    started = any(ev["kind"] in ("debate_started", "continued") for ev in events)
    if fork_of is not None and not started:
        parent = store.get_debate(fork_of)
        rnd = int(fork_round or 0)
        stored = StoredCalls.from_steps(parent["steps"], own=False, reused_from=fork_of,
                                        keep=lambda s: 1 <= (_step_round(s) or 0) <= rnd)
        steering = Steering(pause_after_round=settings.pause_after_round, resume_at=f"r{rnd}.end",
                            interventions=[iv for iv in stored_interventions(parent["steps"]) if iv.round <= rnd],
                            stored=stored)
        return SteeredPlan(debate_id, Case.model_validate(debate["case"]), debate["protocol"], provider, settings,
                           steering)
    if resume_of is not None and not started:
        # A failed debate resumed as this one: its completed steps come from the store (and are
        # recorded here as this debate's own), the rest from the model.
        resumed = resume_provider(store.get_debate(resume_of), provider)
        steering = Steering(pause_after_round=settings.pause_after_round,
                            interventions=list(resumed.interventions()))  # type: ignore[attr-defined]
        return SteeredPlan(debate_id, Case.model_validate(debate["case"]), debate["protocol"], resumed, settings,
                           steering, budget_spent=spent_before(store, debate))
    warnings, rounds = _known(store, debate_id, events)
    steering = Steering(
        pause_after_round=settings.pause_after_round, resume_at=resume_at,
        interventions=stored_interventions(debate["steps"]),
        stored=StoredCalls.from_steps(debate["steps"], own=True),
        known_warnings=warnings, closed_rounds=rounds, continued=started)
    return SteeredPlan(debate_id, Case.model_validate(debate["case"]), debate["protocol"], provider, settings,
                       steering, budget_spent=spent_before(store, debate))


# ---------------------------------------------------------------------------
# Interventions
# ---------------------------------------------------------------------------


def latest_claims(debate: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Each agent's claims (id -> statement) in its latest stored answer or revision, less the claims
    reviewers withdrew since."""
    latest: dict[str, tuple[int, dict[str, str]]] = {}
    for step in debate["steps"]:
        out = step.get("output")
        if step.get("status") != "ok" or not isinstance(out, dict) or not isinstance(out.get("claims"), list):
            continue
        if step.get("stage") in ("critique", "human") or not step.get("agent"):
            continue
        seq = step.get("seq") or 0
        if step["agent"] not in latest or seq >= latest[step["agent"]][0]:
            claims = {str(c.get("id")): str(c.get("statement") or "") for c in out["claims"] if isinstance(c, dict)}
            latest[step["agent"]] = (seq, claims)
    claims = {agent: dict(found) for agent, (_, found) in latest.items()}
    for iv in stored_interventions(debate["steps"]):
        if iv.kind == "strike" and iv.agent in claims:
            claims[iv.agent].pop(iv.claim_id or "", None)
    return claims


def _claim_ref(debate: dict[str, Any], ref: str) -> tuple[str, str]:
    claims = latest_claims(debate)
    agent, _, claim_id = (ref or "").strip().partition(".")
    if not claim_id or agent not in claims or claim_id not in claims[agent]:
        valid = ", ".join(f"{a}.{c}" for a, found in claims.items() for c in found) or "none"
        raise SteeringError(f"no claim {ref!r} in the agents' latest answers; the claims are: {valid}")
    return agent, claim_id


def open_reviewer_critiques(debate: dict[str, Any]) -> dict[str, Intervention]:
    """Reviewer critiques not yet resolved, by their reference `reviewer->agent:H1`."""
    found: dict[str, Intervention] = {}
    for iv in stored_interventions(debate["steps"]):
        if iv.kind == "critique":
            found[f"{reviewer_slug(iv.reviewer)}->{iv.agent}:{iv.critique_id}"] = iv
        elif iv.kind == "resolve":
            found.pop(iv.target or "", None)
    return found


def intervene(store: Any, debate_id: str, *, reviewer: str | None = None, actor: Actor | None = None, kind: str,
              target: str | None = None, severity: str | None = None, text: str | None = None,
              fix: str | None = None, evidence: str | None = None,
              now: str | None = None) -> tuple[str, Intervention]:
    """Check and record one intervention on a paused debate. Returns its step id and the stored
    intervention. `actor` is who acts as the front end vouches for it; without one the server's
    operator acts under the name `reviewer`. Raises SteeringError (or RoleError) naming what is
    wrong; nothing is written then."""
    if actor is None:
        if not (reviewer or "").strip():
            raise SteeringError("a reviewer name is required")
        actor = operator(reviewer)
    try:
        require(actor, "steer")
    except PermissionRefused as exc:
        raise SteeringError(str(exc)) from None
    reviewer = actor.name
    debate = store.get_debate(debate_id)
    if debate["status"] != "paused":
        raise SteeringError(f"debate {debate_id} is {debate['status']}; interventions are made while it is paused")
    spec = get_spec(debate["protocol"])
    if kind not in spec.interventions:
        offered = ", ".join(spec.interventions) or "none"
        raise SteeringError(f"a {spec.title.lower()} debate does not take {kind} interventions (it takes: {offered}); "
                            "it can still be stopped, continued or forked")
    base = {"kind": kind, "reviewer": reviewer, "at": debate["paused_at"], "round": debate["next_round"],
            "ts": now or datetime.now(UTC).isoformat(timespec="seconds")}
    if kind == "critique":
        agent, claim_id = _claim_ref(debate, target or "")
        description = (text or "").strip()
        if not description:
            raise SteeringError("a critique needs its text")
        mine = [iv for iv in stored_interventions(debate["steps"])
                if iv.kind == "critique" and reviewer_slug(iv.reviewer) == reviewer_slug(reviewer)]
        iv = Intervention(**base, target=f"{agent}.{claim_id}", critique_id=f"H{len(mine) + 1}",
                          severity=check_severity(severity), description=description,
                          suggested_fix=(fix or "").strip() or "Answer this critique: fix the claim or say why it stands.")
    elif kind == "evidence":
        new = parse_evidence(evidence or "")
        known = set(Case.model_validate(debate["case"]).evidence_by_id())
        known |= {iv.evidence.id for iv in stored_interventions(debate["steps"]) if iv.evidence is not None}
        if new.id in known:
            raise SteeringError(f"evidence id {new.id!r} is already in the case; choose another id")
        iv = Intervention(**base, evidence=new)
    elif kind in ("pin", "strike"):
        agent, claim_id = _claim_ref(debate, target or "")
        marks = [i for i in stored_interventions(debate["steps"]) if i.target == f"{agent}.{claim_id}"]
        if kind == "strike" and any(i.kind == "pin" for i in marks):
            raise SteeringError(f"{agent}.{claim_id} is pinned as established; it cannot also be withdrawn")
        if kind == "pin" and any(i.kind == "pin" for i in marks):
            raise SteeringError(f"{agent}.{claim_id} is already pinned")
        if kind == "strike" and len(latest_claims(debate).get(agent, {})) <= 1:
            raise SteeringError(f"{agent.replace('_', ' ')} has no other claim; its last claim cannot be withdrawn")
        iv = Intervention(**base, target=f"{agent}.{claim_id}")
    elif kind == "resolve":
        ref = (target or "").strip()
        open_ones = open_reviewer_critiques(debate)
        if ref not in open_ones:
            raise SteeringError(f"no open reviewer critique {ref!r}; open ones: {', '.join(open_ones) or 'none'}")
        author = open_ones[ref].reviewer
        if not same_name(author, reviewer) and not actor.may("decide_escalation"):
            raise RoleError(f"only {author}, who raised {ref}, or a supervisor can resolve it; "
                            f"{reviewer} has the {actor.role} role")
        iv = Intervention(**base, target=ref)
    else:
        raise SteeringError(f"unknown intervention {kind!r}")
    step_id = store.add_intervention(debate_id, iv.model_dump(mode="json"), summary=iv.summary(),
                                     target_agent=steering.target_agent(iv), critique_row=steering.critique_row(iv),
                                     actor=actor)
    return step_id, iv
