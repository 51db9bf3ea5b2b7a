"""The cross critique flow: answers, cross critiques, revisions and the supervisor, one method a stage.

`CrossCritiqueFlow` holds one debate's state (the current answers, the critique ledger, what reviewers
did while it was paused), all of it derived from step outputs and interventions, so that a replay
through `DebateRun.step` takes the same path.
"""

from __future__ import annotations

import json
from typing import Any

from ...core import profiles, prompts, steps
from ...core.schemas import AgentOutput, Critique, Verdict
from ...core.steering import Intervention, human_step_id, stage_end
from ...core.text import mentioned_ids
from ...engine.convergence import severity_counts
from ...engine.runtime import DebateRun, Outcome
from ..common import short_answer
from . import answer_rules, rules
from .models import CritiqueOutput, SupervisorOutput


def _name(agent: dict[str, Any]) -> str:
    return agent.get("name") or str(agent["id"]).replace("_", " ")


def _persona(agent: dict[str, Any]) -> dict[str, str]:
    """The agent's identity (name, role, instructions, terms) as every one of its prompts states it."""
    return {"agent_id": agent["id"], "agent_name": _name(agent), "identity": profiles.identity(agent)}


def _cited_evidence(run: DebateRun, *outputs: AgentOutput | None, extra_text: str = "",
                    extra_ids: list[str] | None = None) -> str:
    """Only the passages a step needs (cited by the outputs it reads, named in critiques, or added by
    a reviewer), which keeps later-round prompts bounded instead of replaying the whole case every time."""
    by_id = run.case.evidence_by_id()
    wanted: list[str] = [e for e in (extra_ids or []) if e in by_id]
    for out in outputs:
        if out is None:
            continue
        for claim in out.claims:
            wanted += [e for e in claim.evidence if e in by_id]
    wanted += mentioned_ids(extra_text, by_id)
    seen: list[str] = []
    for e in wanted:
        if e not in seen:
            seen.append(e)
    return prompts.evidence_block([by_id[e] for e in seen])


def _for_prompt(model: Any) -> Any:
    data = model.model_dump(mode="json") if hasattr(model, "model_dump") else model
    if isinstance(data, dict) and isinstance(data.get("claims"), list):
        data = {**data, "claims": [_claim_for_prompt(c) for c in data["claims"]]}
    return data


def _dump(model: Any) -> str:
    return json.dumps(_for_prompt(model), ensure_ascii=False, indent=1)


def _claim_for_prompt(claim: dict[str, Any]) -> dict[str, Any]:
    """The engine's verification marks say something only when a cited id is not in the case;
    a verified claim is shown as the agent wrote it, which keeps every later prompt shorter."""
    if claim.get("verified", True) and not claim.get("unverified_evidence"):
        return {k: v for k, v in claim.items() if k not in ("verified", "unverified_evidence")}
    return claim


def _summary_for_supervisor(summary: dict[str, Any]) -> dict[str, Any]:
    """The supervisor reads the final revisions in full next to the summary, so the summary names
    agreed and disputed claims by reference and leaves out the answers and the critique history
    (the open ones are its conflicts), instead of repeating them."""
    def refs(rows: list[dict[str, Any]]) -> list[str]:
        return [row["ref"] + ("" if row.get("supported", True) else " (unsupported)") for row in rows]

    compact = {k: v for k, v in summary.items() if k not in ("answers", "critiques")}
    compact["agreed_claims"] = refs(summary.get("agreed_claims", []))
    compact["disputed_claims"] = refs(summary.get("disputed_claims", []))
    return compact


def unique_critique_ids(output: CritiqueOutput, used: set[str]) -> tuple[CritiqueOutput, list[str]]:
    """Give new critiques ids the critic has not used on this target before, so `previous` can name
    each earlier critique unambiguously. Renamed ids continue the K numbering."""
    taken = set(used)
    numbers = [int(i[1:]) for i in taken | {k.id for k in output.critiques} if i[:1] == "K" and i[1:].isdigit()]
    next_no = max(numbers, default=0) + 1
    renamed: list[Critique] = []
    warnings = []
    for k in output.critiques:
        if k.id in taken:
            new_id = f"K{next_no}"
            next_no += 1
            warnings.append(f"critique id {k.id} was already used by this critic on this target; stored as {new_id}")
            k = k.model_copy(update={"id": new_id})
        taken.add(k.id)
        renamed.append(k)
    if not warnings:
        return output, []
    return output.model_copy(update={"critiques": renamed}), warnings


def _agent_metrics(outputs: dict[str, AgentOutput]) -> dict[str, Any]:
    return {
        "confidence": {a: round(sum(c.confidence for c in o.claims) / len(o.claims), 4) for a, o in outputs.items()},
        "claims": {a: len(o.claims) for a, o in outputs.items()},
        "unsupported": {a: round(rules.unsupported_share(o), 4) for a, o in outputs.items()},
    }


class CrossCritiqueFlow:
    """One cross critique debate: its agents, options and the state its steps build up."""

    def __init__(self, run: DebateRun, agents: list[dict[str, Any]], options: Any, max_rounds: int) -> None:
        # options is the protocol's Options model; its module imports this one, so it is not imported here.
        self.debate = run
        self.agents = agents
        self.ids = [a["id"] for a in agents]
        self.by_id = {a["id"]: a for a in agents}
        self.options = options
        self.max_rounds = max_rounds
        self.evidence_ids = set(run.case.evidence_by_id())
        self.case_evidence = prompts.evidence_block(run.case.evidence)
        self.domain_hint = prompts.data_block("scope hint", run.case.domain_hint or "(none)")
        # What reviewers did while the debate was paused (steering.py): claims pinned or withdrawn per
        # agent, evidence they added, and a note per agent for its next prompt.
        self.pinned: dict[str, set[str]] = {}
        self.struck: dict[str, set[str]] = {}
        self.added_evidence: list[str] = []
        self.reviewer_notes: dict[str, list[str]] = {}
        self.ledger = rules.CritiqueLedger()
        # What each round-1 critique step was asked (for a re-ask), and the critics short of the minimum.
        self.asked: dict[tuple[str, str], tuple[dict[str, str], dict[str, Any], Any]] = {}
        self.shortfalls: dict[str, rules.Shortfall] = {}
        # The answers every next stage reads: round 1's, then each round's revisions.
        self.current: dict[str, AgentOutput] = {}
        self.trajectory: list[dict[str, Any]] = []

    async def run(self) -> Outcome:
        self.debate.on_intervention(self.intervene)
        await self.first_round()
        rounds, changes = await self.later_rounds()
        # A reviewer may have intervened at the pause point after the last round: assess again.
        return await self.conclude(rounds, self.assess(rounds, changes))

    # -- rounds -------------------------------------------------------------------------------------

    async def first_round(self) -> None:
        """Round 1: answers, then cross critique once every answer exists."""
        answers = await self.debate.gather(*(self.answer(self.by_id[a]) for a in self.ids))
        self.current.update(zip(self.ids, answers, strict=True))
        self.debate.pause_point(stage_end(1, "answers"))
        critiques = await self.critique_round(1, self.current)
        self.close_round({"round": 1, "stage": "answer+critique",
                          "severity": severity_counts(c.critique for c in critiques),
                          "critique_states": self.ledger.state_counts(), **_agent_metrics(self.current)})

    async def later_rounds(self) -> tuple[int, dict[str, float]]:
        """Round 2's revision, its critique when one is called for, and round 3 when the debate has not
        converged; returns the rounds held and the last revision's answer changes."""
        revised = await self.revision_round(2, self.current)
        changes = rules.answer_changes(self.current, revised)
        rounds = 2
        self.revised_to(2, revised)
        assessment = self.assess(2, changes)
        entry: dict[str, Any] = {"round": 2, "stage": "revision", **_agent_metrics(self.current)}
        extend = self.max_rounds >= 3

        if assessment.severe_open or (extend and not assessment.converged):
            # The round-2 critique: critics confirm or keep their critiques and, when round 3 may follow,
            # raise new ones. Without the extension it is a review of the CRITICAL/MAJOR critiques still open.
            if extend:
                critiques2 = await self.critique_round(2, self.current)
            else:
                critiques2 = await self.critique_round(2, self.current, self.ledger.severe_open_pairs(),
                                                       final_review=True)
            entry["stage"] = "revision+critique"
            entry["severity"] = severity_counts(c.critique for c in critiques2)
            assessment = self.assess(2, changes)
            if extend and not assessment.converged:
                self.close_round({**entry, **assessment.metrics(), "critique_states": self.ledger.state_counts()})
                # Round 3, the final revision: the debate has not converged after round 2.
                revised = await self.revision_round(3, self.current)
                changes = rules.answer_changes(self.current, revised)
                rounds = 3
                self.revised_to(3, revised)
                assessment = self.assess(3, changes)
                entry = {"round": 3, "stage": "final revision", **_agent_metrics(self.current)}
                if assessment.severe_open:
                    # The critics confirm or keep what the final revision did to their open critiques.
                    late = await self.critique_round(3, self.current, self.ledger.severe_open_pairs(),
                                                     final_review=True)
                    entry["stage"] = "final revision+review"
                    entry["severity"] = severity_counts(c.critique for c in late)
                    assessment = self.assess(3, changes)
        self.close_round({**entry, **assessment.metrics(), "critique_states": self.ledger.state_counts()})
        return rounds, changes

    def assess(self, round_no: int, changes: dict[str, float]) -> rules.Assessment:
        return rules.assess(round_no, self.ledger.open(), changes,
                            change_threshold=self.options.answer_change_threshold,
                            mode=self.options.convergence_mode)

    def close_round(self, entry: dict[str, Any]) -> None:
        self.trajectory.append(entry)
        self.debate.emit("round_closed", round=entry["round"], metrics=entry)

    # -- answers and revisions ----------------------------------------------------------------------

    def checked(self, step_id: str, previous: AgentOutput | None = None, agent: str | None = None):
        def post(output: AgentOutput) -> AgentOutput:
            output, warnings = rules.verify_claims(output, self.evidence_ids, self.options.max_claims)
            if previous is not None and agent is not None:
                output, marks = rules.keep_reviewer_marks(output, previous, self.pinned.get(agent, set()),
                                                          self.struck.get(agent, set()))
                warnings += marks
            for w in warnings:
                self.debate.warn(f"{step_id}: {w}", step_id)
            return output

        return post

    def notes_for(self, agent: str) -> str:
        notes = self.reviewer_notes.get(agent, [])
        if not notes:
            return ""
        return prompts.data_block("a human reviewer's interventions, which you must respect", "\n".join(notes))

    async def answer(self, agent: dict[str, Any]) -> AgentOutput:
        run = self.debate
        sid = steps.in_round(1, "answer", agent["id"])
        return await run.step(
            sid, AgentOutput, "cross_critique/answer",
            {**_persona(agent), "question": prompts.data_block("question", run.case.question),
             "domain_hint": self.domain_hint, "evidence": self.case_evidence,
             "max_claims": str(self.options.max_claims)},
            {"agent": agent, "agents": self.agents},
            postprocess=self.checked(sid),
        )

    async def revise(self, round_no: int, agent: str, previous: AgentOutput) -> AgentOutput:
        run = self.debate
        sid = steps.in_round(round_no, "revise", agent)
        mine = self.ledger.open_records(agent)
        critiques_json = [{"from": r.item.critic, "round": r.item.round, **r.item.critique.model_dump(mode="json"),
                           "status": rules.STATE_LABELS[r.state], **({"critic_note": r.note} if r.note else {})}
                          for r in mine]
        critique_text = json.dumps(critiques_json, ensure_ascii=False)
        return await run.step(
            sid, AgentOutput, "cross_critique/revise",
            {**_persona(self.by_id[agent]), "question": prompts.data_block("question", run.case.question),
             "previous_output": prompts.data_block("your previous output", _dump(previous)),
             "critiques": prompts.data_block("critiques addressed to you",
                                             json.dumps(critiques_json, ensure_ascii=False, indent=1)),
             "evidence": _cited_evidence(run, previous, extra_text=critique_text, extra_ids=self.added_evidence),
             "max_claims": str(self.options.max_claims), "reviewer_notes": self.notes_for(agent)},
            {"agent": self.by_id[agent], "agents": self.agents, "previous": previous,
             "critiques": [r.item for r in mine], "round": round_no,
             "pinned": sorted(self.pinned.get(agent, set())), "struck": sorted(self.struck.get(agent, set()))},
            postprocess=self.checked(sid, previous, agent),
        )

    async def revision_round(self, round_no: int, outputs: dict[str, AgentOutput]) -> dict[str, AgentOutput]:
        revised = await self.debate.gather(*(self.revise(round_no, a, outputs[a]) for a in self.ids))
        new = dict(zip(self.ids, revised, strict=True))
        for a in self.ids:
            self.ledger.revised(steps.in_round(round_no, "revise", a), round_no, a, outputs[a], new[a])
        return new

    def revised_to(self, round_no: int, revised: dict[str, AgentOutput]) -> None:
        """The revisions become the current answers; the end of the revisions is a pause point."""
        self.current.clear()
        self.current.update(revised)
        self.debate.pause_point(stage_end(round_no, "revisions"))

    # -- critiques ----------------------------------------------------------------------------------

    def earlier_for_prompt(self, critic: str, target: str) -> list[dict[str, Any]]:
        return [{"id": r.item.critique.id, "round": r.item.round, "target_claim_id": r.item.critique.target_claim_id,
                 "issue_type": r.item.critique.issue_type, "severity": r.item.critique.severity,
                 "description": r.item.critique.description, "suggested_fix": r.item.critique.suggested_fix,
                 "status": rules.STATE_LABELS[r.state], **({"your_note": r.note} if r.note else {})}
                for r in self.ledger.earlier(critic, target)]

    def critique_checks(self, sid: str, critic: str, target: str):
        used = self.ledger.used_ids(critic, target)

        def post(output: CritiqueOutput) -> CritiqueOutput:
            output, warnings = unique_critique_ids(output, used)
            for w in warnings:
                self.debate.warn(f"{sid}: {w}", sid)
            return output

        return post

    async def critique(self, round_no: int, critic: str, target: str, outputs: dict[str, AgentOutput],
                       final_review: bool = False) -> CritiqueOutput:
        run, by_id = self.debate, self.by_id
        min_critiques = self.per_target_minimum()
        sid = steps.in_round(round_no, "critique", critic, target)
        earlier = self.earlier_for_prompt(critic, target)
        used = self.ledger.used_ids(critic, target)
        first_new = 1 + max((int(i[1:]) for i in used if i[:1] == "K" and i[1:].isdigit()), default=0)
        variables = {
            **_persona(by_id[critic]), "target_id": target, "target_name": _name(by_id[target]),
            "target_role": by_id[target].get("role") or "(no role given)",
            "question": prompts.data_block("question", run.case.question),
            "target_output": prompts.data_block(f"{target} output", _dump(outputs[target])),
            "evidence": _cited_evidence(run, outputs[target], outputs[critic]),
            "min_critiques": str(min_critiques if round_no == 1 else 0 if final_review else 1), "reask": "",
            "min_total": str(self.options.min_critiques),
            "earlier": prompts.data_block("your earlier critiques of this agent, still open", json.dumps(
                earlier, ensure_ascii=False, indent=1)) if earlier else "(none: you have not critiqued this agent before)",
            "first_new_id": f"K{first_new}",
            "review_note": (
                "This review follows the final revision: no revision comes after it. Raise a new critique only "
                "for a problem a human reviewer must see." if final_review else ""),
        }
        payload = {"critic": by_id[critic], "target": by_id[target], "agents": self.agents,
                   "target_output": outputs[target], "own_output": outputs[critic], "round": round_no,
                   "earlier": [r.item for r in self.ledger.earlier(critic, target)], "first_new_id": first_new,
                   "raised_before": self.ledger.raised_before(critic, target),
                   "final_review": final_review, "min_critiques": min_critiques}
        post = self.critique_checks(sid, critic, target)
        self.asked[(critic, target)] = (variables, payload, post)
        return await run.step(sid, CritiqueOutput, "cross_critique/critique", variables, payload, postprocess=post)

    def per_target_minimum(self) -> int:
        """Section 8's minimum counts over a critic's targets: each of its steps asks for its share."""
        targets = max(1, len(self.ids) - 1)
        return -(-self.options.min_critiques // targets)

    async def reask(self, critic: str, target: str, first: CritiqueOutput, total: int) -> CritiqueOutput:
        """Section 8, echo chamber: a critic whose round-1 critiques fall short of the minimum over its
        targets is asked again once; the later call is kept unless it raised fewer."""
        run, min_critiques = self.debate, self.options.min_critiques
        sid = steps.in_round(1, "critique", critic, target)
        variables, payload, post = self.asked[(critic, target)]
        variables = {**variables, "reask": (
            f"Your previous critique had only {len(first.critiques)} item(s) ({total} over all the agents you "
            f"critique). An agent must raise at least {min_critiques} critiques in round 1: look again for "
            "evidence gaps, logic gaps, conflicts, domain mismatches and overclaims. Do not invent one: if you "
            "find no more grounded critiques, say why in \"shortfall\".")}
        again = await run.step(sid, CritiqueOutput, "cross_critique/critique", variables, {**payload, "reask": True},
                               postprocess=post)
        return [first, again][rules.kept_critique_call([first, again])]

    def check_targets(self, sid: str, target: str, out: CritiqueOutput, outputs: dict[str, AgentOutput]) -> None:
        known = {c.id for c in outputs[target].claims}
        for c in out.critiques:
            if c.target_claim_id not in known:
                self.debate.warn(f"{sid}: critique {c.id} names claim {c.target_claim_id}, which {target} did not make",
                                 sid)

    async def critique_round(self, round_no: int, outputs: dict[str, AgentOutput],
                             pairs: list[tuple[str, str]] | None = None,
                             final_review: bool = False) -> list[rules.AddressedCritique]:
        pairs = pairs or [(c, t) for c in self.ids for t in self.ids if c != t]
        results = list(await self.debate.gather(*(self.critique(round_no, c, t, outputs, final_review)
                                                  for c, t in pairs)))
        if round_no == 1:
            results = await self.first_round_minimum(pairs, results)
        for (c, t), out in zip(pairs, results, strict=True):
            self.check_targets(steps.in_round(round_no, "critique", c, t), t, out, outputs)
        raised: list[rules.AddressedCritique] = []
        for (c, t), out in zip(pairs, results, strict=True):
            sid = steps.in_round(round_no, "critique", c, t)
            # The critic's word on its earlier critiques first: new critiques are not reviewed in the step that raises them.
            for w in self.ledger.reviewed(sid, round_no, c, t, out.previous):
                self.debate.warn(f"{sid}: {w}", sid)
            raised += self.ledger.raised(sid, round_no, c, t, out.critiques)
        return raised

    async def first_round_minimum(self, pairs: list[tuple[str, str]],
                                  results: list[CritiqueOutput]) -> list[CritiqueOutput]:
        """Re-ask, once, the steps of each critic short of the round-1 minimum over its targets; a critic
        still short is recorded with what it said (its `shortfall`), and the verdict names it."""
        minimum = self.options.min_critiques

        def totals(outs: list[CritiqueOutput]) -> dict[str, int]:
            return {c: sum(len(o.critiques) for (cc, _), o in zip(pairs, outs, strict=True) if cc == c) for c in self.ids}

        first = totals(results)
        short = [i for i, (c, _) in enumerate(pairs) if first[c] < minimum]
        if short:
            again = await self.debate.gather(*(self.reask(pairs[i][0], pairs[i][1], results[i], first[pairs[i][0]])
                                               for i in short))
            for i, out in zip(short, again, strict=True):
                results[i] = out
        after = totals(results)
        for critic in dict.fromkeys(pairs[i][0] for i in short):
            if after[critic] < minimum:
                said = [o.shortfall.strip() for (c, _), o in zip(pairs, results, strict=True)
                        if c == critic and o.shortfall.strip()]
                self.shortfalls[critic] = rules.Shortfall(critic, after[critic], minimum, said)
                sid = steps.in_round(1, "critique", critic, next(t for c, t in pairs if c == critic))
                self.debate.warn(f"{sid}: {critic} raised {after[critic]} critique(s) on the other agents after being "
                                 f"re-asked (minimum {minimum}): possible echo chamber", sid)
        return results

    # -- interventions ------------------------------------------------------------------------------

    def intervene(self, iv: Intervention) -> None:
        """A reviewer's intervention, applied where the debate paused, before the next step."""
        run = self.debate
        sid = human_step_id(iv.round, iv.reviewer)
        for w in self.ledger.intervened(sid, iv):
            run.warn(f"{sid}: {w}", sid)
        agent = iv.agent
        notes = self.reviewer_notes
        if iv.kind == "evidence" and iv.evidence is not None:
            self.evidence_ids.add(iv.evidence.id)
            self.added_evidence.append(iv.evidence.id)
            self.case_evidence = prompts.evidence_block(run.case.evidence)
            for a in self.ids:
                notes.setdefault(a, []).append(
                    f"{iv.reviewer} added passage {iv.evidence.id} ({iv.evidence.source}); it is among the passages below.")
        elif agent not in self.by_id:
            run.warn(f"{sid}: {iv.summary()}: there is no agent {agent!r} in this debate; not applied", sid)
        elif iv.kind == "pin":
            self.pinned.setdefault(agent, set()).add(iv.claim_id or "")
            notes.setdefault(agent, []).append(
                f"{iv.reviewer} pinned your claim {iv.claim_id} as established: keep it; you may not drop it.")
        elif iv.kind == "strike":
            self.struck.setdefault(agent, set()).add(iv.claim_id or "")
            if agent in self.current:
                self.current[agent] = rules.without_claim(self.current[agent], iv.claim_id)
            notes.setdefault(agent, []).append(
                f"{iv.reviewer} withdrew your claim {iv.claim_id} from the debate: do not make it again.")
        elif iv.kind == "critique":
            notes.setdefault(agent, []).append(
                f"{iv.reviewer} raised {iv.severity} critique {iv.critique_id} on your claim {iv.claim_id}: answer it "
                "in this revision (it is among the critiques above); only the reviewer can close it.")

    # -- the supervisor and the verdict -------------------------------------------------------------

    async def conclude(self, rounds: int, assessment: rules.Assessment) -> Outcome:
        """The moderator's escalation rules, the supervisor's final answer and the verdict code computes."""
        run, current = self.debate, self.current
        reasons, applied = rules.escalation_reasons(assessment, current, max_rounds=self.max_rounds,
                                                    unsupported_limit=self.options.unsupported_limit)
        echo = rules.echo_chamber_reason(list(self.shortfalls.values()))
        if echo:
            reasons.append(echo)
            applied.append("S8.echo_chamber")
        applied = [f"S5.{name}" for name, ok in assessment.criteria.items() if ok] + applied
        summary = rules.debate_summary(current, assessment, self.ledger, rounds)
        summary["escalation_reasons"] = reasons
        summary["convergence_reason"] = rules.convergence_reason(assessment)

        sup = await run.step(
            steps.final("supervisor"), SupervisorOutput, "cross_critique/supervisor",
            {"question": prompts.data_block("question", run.case.question),
             "final_revisions": prompts.data_block("final revisions", json.dumps(
                 {a: _for_prompt(o) for a, o in current.items()}, ensure_ascii=False, indent=1)),
             "debate_summary": prompts.data_block("debate summary", json.dumps(
                 _summary_for_supervisor(summary), ensure_ascii=False, indent=1))},
            {"finals": current, "summary": summary, "agents": self.agents},
            stage="supervisor",
        )
        found = answer_rules.answer_reason(run.case.question, sup.answer, sup.confidence)
        if found:
            reasons = [*reasons, found[0]]
            applied.append(found[1])
        unanswered = None if found else answer_rules.no_agreed_answer(sup.answer)
        if unanswered:
            reasons = [*reasons, unanswered]
            applied.append("no_agreed_answer")
        polar = None if found or unanswered else answer_rules.yes_no_unanswered(run.case.question, sup.answer)
        if polar:
            reasons = [*reasons, polar]
            applied.append("yes_no_unanswered")
        dropped = answer_rules.dropped_condition(sup.answer, current, run.case.evidence)
        if dropped:
            reasons = [*reasons, dropped]
            applied.append("dropped_condition")
        verdict = Verdict(
            answer=sup.answer,
            short_answer=short_answer(sup.answer),
            confidence=sup.confidence,
            needs_human_review=bool(reasons),
            escalation_reasons=reasons,
            rationale=sup.rationale,
            applied_rules=applied,
        )
        return Outcome(
            rounds=rounds,
            converged=assessment.converged,
            convergence_reason=summary["convergence_reason"],
            verdict=verdict,
            trajectory=self.trajectory,
            result={
                "final_revisions": {a: o.model_dump(mode="json") for a, o in current.items()},
                "supervisor": sup.model_dump(mode="json"),
                "open_critiques": summary["conflicts"],
                "criteria": assessment.criteria,
            },
            summary=summary,
        )
