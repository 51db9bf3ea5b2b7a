"""Prompt growth: how the prompts of a 3-round cross-critique debate grow, against full replay.

The Minangkabau sample case runs offline and goes to round 3. Every call's rendered prompt is
token-estimated (`messages_tokens`, the estimate the engine's budgets use) and grouped by round.
The baseline is what a naive implementation sends: the same instructions, the question, the whole
case evidence and the whole transcript so far (every output that existed when the call started),
built from this same debate's steps.

Goals: the mean round-3 prompt at most 1.5x the mean round-1 prompt; total prompt tokens at most
half of the full-replay baseline; the verdicts of the cross-critique sample cases unchanged (the
case's expected escalation, and the same verdict when the debate is replayed from its cassette).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import benchlib
from benchlib import Figure

from debate_core import prompts
from debate_core.cases import load_case, sample_cases
from debate_core.engine import run_debate
from debate_core.events import MemorySink
from debate_core.providers import ReplayProvider, make_provider
from debate_core.providers.base import messages_tokens
from debate_core.schemas import Case
from debate_core.steps import parse_step_id

PROTOCOL = "cross_critique"
GROWTH_GOAL = 1.5
BASELINE_GOAL = 0.5
CROSS_CRITIQUE_CASES = ("adat_", "national_")  # sample case files written for seed 000


def full_replay_prompt(case: Case, system: str, transcript: list[tuple[str, dict[str, Any]]]) -> list[dict[str, str]]:
    """What a naive implementation sends: the call's instructions plus everything said so far."""
    history = "\n\n".join(f"[{step_id}]\n{json.dumps(output, ensure_ascii=False, indent=1)}"
                          for step_id, output in transcript)
    user = "\n\n".join([
        "Question:", prompts.data_block("question", case.question),
        "Evidence passages:", prompts.evidence_block(case.evidence),
        "The debate so far:", prompts.data_block("transcript", history or "(nothing yet)"),
    ])
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def as_said(output: dict[str, Any]) -> dict[str, Any]:
    """An output as the agent wrote it: without the engine's evidence-verification marks, so the
    baseline is not inflated by anything a naive implementation would not have."""
    if isinstance(output.get("claims"), list):
        drop = ("verified", "unverified_evidence")
        output = {**output, "claims": [{k: v for k, v in c.items() if k not in drop} for c in output["claims"]]}
    return output


def round_of(step_id: str) -> str:
    key = parse_step_id(step_id)
    return str(key.round) if key.round is not None else "final"


def measure(case: Case) -> tuple[dict[str, dict[str, int]], Any]:
    sink = MemorySink()
    result = run_debate(case, PROTOCOL, provider=make_provider("offline"), sink=sink)
    per_round: dict[str, dict[str, int]] = defaultdict(lambda: {"calls": 0, "engine": 0, "baseline": 0})
    transcript: list[tuple[str, dict[str, Any]]] = []
    for _, event in sink.events:
        if event.kind == "turn_started":
            messages = event.data["prompt"]
            naive = full_replay_prompt(case, messages[0]["content"], transcript)
            row = per_round[round_of(event.step_id)]
            row["calls"] += 1
            row["engine"] += messages_tokens(messages)
            row["baseline"] += messages_tokens(naive)
        elif event.kind == "turn_finished":
            transcript.append((event.step_id, as_said(event.data["output"])))
    return dict(per_round), result


def verdict_checks() -> list[dict[str, Any]]:
    """Each cross-critique sample case: offline verdict vs the case's expectation, and its replay."""
    out = []
    for path in sample_cases():
        if not path.name.startswith(CROSS_CRITIQUE_CASES):
            continue
        case = load_case(path)
        recorded, cassette = benchlib.record_cassette(case, PROTOCOL)
        replayed = run_debate(case, PROTOCOL, provider=ReplayProvider(cassette), sink=MemorySink())
        expected = (case.expected or {}).get("needs_human_review")
        escalated = recorded.verdict.needs_human_review
        out.append({
            "case": path.stem, "rounds": recorded.rounds, "escalated": escalated, "expected": expected,
            "replay_same": replayed.verdict.model_dump() == recorded.verdict.model_dump(),
            "ok": (expected is None or expected == escalated)
            and replayed.verdict.model_dump() == recorded.verdict.model_dump(),
        })
    return out


def main() -> None:
    args = benchlib.parse_args(__doc__.splitlines()[0])
    cmd = benchlib.command("prompt_growth.py", args)
    case = benchlib.case_for(PROTOCOL)
    per_round, result = measure(case)
    print(f"Prompt tokens per round, {PROTOCOL} on {case.id} ({result.rounds} rounds, {result.usage['calls']} calls)\n")
    rows = []
    for name in sorted(per_round, key=lambda r: (r == "final", r)):
        r = per_round[name]
        rows.append([name, r["calls"], r["engine"], round(r["engine"] / r["calls"]), r["baseline"],
                     round(r["baseline"] / r["calls"]), f"{r['engine'] / r['baseline']:.2f}"])
    engine_total = sum(r["engine"] for r in per_round.values())
    baseline_total = sum(r["baseline"] for r in per_round.values())
    rows.append(["total", sum(r["calls"] for r in per_round.values()), engine_total, "-", baseline_total, "-",
                 f"{engine_total / baseline_total:.2f}"])
    benchlib.print_table(["round", "calls", "engine tokens", "per call", "full replay tokens", "per call",
                          "engine / replay"], rows)

    figures = []
    if result.rounds < 3 or "3" not in per_round:
        figures.append(Figure("prompt growth: round 3 / round 1", f"the debate stopped after {result.rounds} rounds",
                              f"<= {GROWTH_GOAL}", None, cmd))
    else:
        mean = {k: v["engine"] / v["calls"] for k, v in per_round.items()}
        growth = mean["3"] / mean["1"]
        naive_growth = (per_round["3"]["baseline"] / per_round["3"]["calls"]) / (
            per_round["1"]["baseline"] / per_round["1"]["calls"])
        figures.append(Figure("prompt growth: round-3 / round-1 prompt tokens (mean per call)",
                              f"{growth:.2f}x (full replay {naive_growth:.2f}x)", f"<= {GROWTH_GOAL}x",
                              growth <= GROWTH_GOAL, cmd))
        totals = per_round["3"]["engine"] / per_round["1"]["engine"]
        figures.append(Figure("prompt growth: round-3 / round-1 prompt tokens (round totals)", f"{totals:.2f}x",
                              f"<= {GROWTH_GOAL}x", totals <= GROWTH_GOAL, cmd))
    share = engine_total / baseline_total
    figures.append(Figure("prompt growth: total prompt tokens / full-replay baseline",
                          f"{share:.2f} ({engine_total} vs {baseline_total})", f"<= {BASELINE_GOAL}",
                          share <= BASELINE_GOAL, cmd))

    checks = verdict_checks()
    print("\nVerdicts on the cross-critique sample cases\n")
    benchlib.print_table(["case", "rounds", "escalated", "expected", "replay gives the same verdict"],
                         [[c["case"], c["rounds"], c["escalated"], "-" if c["expected"] is None else c["expected"],
                           c["replay_same"]] for c in checks])
    good = sum(c["ok"] for c in checks)
    figures.append(Figure("prompt growth: sample-case verdicts as expected and reproduced by replay",
                          f"{good}/{len(checks)}", "all", good == len(checks), cmd))
    benchlib.report(figures, args)


if __name__ == "__main__":
    main()
