"""Prompt growth: how the prompts of a 3-round cross-critique debate grow, against full replay.

The Minangkabau sample case runs offline and goes to round 3. Every call's rendered prompt is
token-estimated (`messages_tokens`, the estimate the engine's budgets use) and grouped by round.
Two baselines are built from this same debate's steps, each call given "the transcript so far":
every output that had finished when the call started (calls of one stage start together, so a
call never sees its siblings; a small simulated latency keeps that order independent of CPU
scheduling):

- appended: the engine's own prompt with the whole transcript so far appended, as the issue
  defines the naive implementation;
- replay only: stricter, the call's instructions, the question, the whole case evidence and the
  transcript, without the step's own bounded inputs (no output or critique appears twice).

Goals: the mean round-3 prompt at most 1.5x the mean round-1 prompt; total prompt tokens at most
half of the baseline; the verdicts of the cross-critique sample cases unchanged (the case's
expected escalation, and the same verdict when the debate is replayed from its cassette).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

import benchlib
from benchlib import Figure

from debate_core.core import prompts
from debate_core.core.cases import load_case, sample_cases
from debate_core.core.events import MemorySink
from debate_core.core.schemas import Case
from debate_core.core.steps import parse_step_id
from debate_core.jobs.debates import run_debate
from debate_core.providers import ReplayProvider, make_provider
from debate_core.providers.base import estimate_tokens, messages_tokens

PROTOCOL = "cross_critique"
GROWTH_GOAL = 1.5
BASELINE_GOAL = 0.5
CROSS_CRITIQUE_CASES = ("adat_", "national_")  # sample cases written for the cross-critique source protocol


def transcript_block(transcript: list[tuple[str, dict[str, Any]]]) -> str:
    history = "\n\n".join(f"[{step_id}]\n{json.dumps(output, ensure_ascii=False, indent=1)}"
                          for step_id, output in transcript)
    return prompts.data_block("transcript", history or "(nothing yet)")


def appended_prompt(messages: list[dict[str, str]], transcript: list[tuple[str, dict[str, Any]]]) -> list[dict[str, str]]:
    """The issue's naive implementation: the same prompt, the whole transcript so far appended."""
    if not transcript:
        return messages
    user = messages[-1]["content"] + "\n\nThe debate so far:\n" + transcript_block(transcript)
    return [*messages[:-1], {"role": "user", "content": user}]


def replay_only_prompt(case: Case, system: str, transcript: list[tuple[str, dict[str, Any]]]) -> list[dict[str, str]]:
    """Stricter: the call's instructions, the question, all evidence and everything said so far."""
    user = "\n\n".join([
        "Question:", prompts.data_block("question", case.question),
        "Evidence passages:", prompts.evidence_block(case.evidence),
        "The debate so far:", transcript_block(transcript),
    ])
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def as_said(output: dict[str, Any]) -> dict[str, Any]:
    """An output as the agent wrote it: without the engine's evidence-verification marks, so the
    baseline is not inflated by anything a naive implementation would not have."""
    if isinstance(output.get("claims"), list):
        drop = ("verified", "unverified_evidence")
        output = {**output, "claims": [{k: v for k, v in c.items() if k not in drop} for c in output["claims"]]}
    return output


_BLOCK = re.compile(r"<<DATA ([^>]*)>>\n(.*?)\n<</DATA \1>>", re.DOTALL)


def composition(messages: list[dict[str, str]]) -> dict[str, int]:
    """Tokens of one prompt by kind: evidence passages, the question, other agents' outputs and
    critiques (every other data block), and the instructions around them."""
    out = {"evidence": 0, "question": 0, "outputs and critiques": 0, "instructions": 0}
    for m in messages:
        rest = m["content"]
        for label, body in _BLOCK.findall(m["content"]):
            key = label if label in ("evidence", "question") else "outputs and critiques"
            out[key] += estimate_tokens(body)
            rest = rest.replace(body, "", 1)
        out["instructions"] += estimate_tokens(rest) + 4
    return out


def round_of(step_id: str) -> str:
    key = parse_step_id(step_id)
    return str(key.round) if key.round is not None else "final"


def measure(case: Case) -> tuple[dict[str, dict[str, int]], Any]:
    sink = MemorySink()
    result = run_debate(case, PROTOCOL, provider=make_provider("offline", latency_ms=2), sink=sink)
    per_round: dict[str, dict[str, int]] = defaultdict(
        lambda: {"calls": 0, "engine": 0, "appended": 0, "replay": 0})
    transcript: list[tuple[str, dict[str, Any]]] = []
    parts: dict[str, int] = defaultdict(int)
    for _, event in sink.events:
        if event.kind == "turn_started":
            messages = event.data["prompt"]
            for key, n in composition(messages).items():
                parts[key] += n
            row = per_round[round_of(event.step_id)]
            row["calls"] += 1
            row["engine"] += messages_tokens(messages)
            row["appended"] += messages_tokens(appended_prompt(messages, transcript))
            row["replay"] += messages_tokens(replay_only_prompt(case, messages[0]["content"], transcript))
        elif event.kind == "turn_finished":
            transcript.append((event.step_id, as_said(event.data["output"])))
    per_round["composition"] = dict(parts)
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
    parts = per_round.pop("composition")
    print(f"Prompt tokens per round, {PROTOCOL} on {case.id} ({result.rounds} rounds, {result.usage['calls']} calls)\n")
    rows = []
    for name in sorted(per_round, key=lambda r: (r == "final", r)):
        r = per_round[name]
        rows.append([name, r["calls"], r["engine"], round(r["engine"] / r["calls"]), r["appended"],
                     r["replay"], round(r["replay"] / r["calls"]), f"{r['engine'] / r['replay']:.2f}"])
    total = {k: sum(r[k] for r in per_round.values()) for k in ("calls", "engine", "appended", "replay")}
    rows.append(["total", total["calls"], total["engine"], "-", total["appended"], total["replay"], "-",
                 f"{total['engine'] / total['replay']:.2f}"])
    benchlib.print_table(["round", "calls", "engine tokens", "per call", "appended baseline", "replay-only baseline",
                          "per call", "engine / replay-only"], rows)

    whole = sum(parts.values())
    print("\nWhat the engine's prompts are made of\n")
    benchlib.print_table(["part", "tokens", "share"],
                         [[k, v, f"{v / whole:.0%}"] for k, v in sorted(parts.items(), key=lambda kv: -kv[1])])

    figures = []
    if result.rounds < 3 or "3" not in per_round:
        figures.append(Figure("prompt growth: round 3 / round 1", f"the debate stopped after {result.rounds} rounds",
                              f"<= {GROWTH_GOAL}", None, cmd))
    else:
        def mean(key: str, rnd: str) -> float:
            return per_round[rnd][key] / per_round[rnd]["calls"]

        growth = mean("engine", "3") / mean("engine", "1")
        figures.append(Figure("prompt growth: round-3 / round-1 prompt tokens (mean per call)",
                              f"{growth:.2f}x (replay-only baseline {mean('replay', '3') / mean('replay', '1'):.2f}x)",
                              f"<= {GROWTH_GOAL}x", growth <= GROWTH_GOAL, cmd))
        totals = per_round["3"]["engine"] / per_round["1"]["engine"]
        figures.append(Figure("prompt growth: round-3 / round-1 prompt tokens (round totals)", f"{totals:.2f}x",
                              f"<= {GROWTH_GOAL}x", totals <= GROWTH_GOAL, cmd))
    for key, label in (("appended", "the prompt with the whole transcript appended"),
                       ("replay", "replay-only: instructions, all evidence, whole transcript")):
        share = total["engine"] / total[key]
        figures.append(Figure(f"prompt growth: total prompt tokens / baseline ({label})",
                              f"{share:.2f} ({total['engine']} vs {total[key]})", f"<= {BASELINE_GOAL}",
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
