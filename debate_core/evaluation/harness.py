"""The evaluation harness: run a protocol, its presets and baselines on labelled cases and score them.

Every run (case x method x repeat) is an ordinary stored debate, scored against the case's
`expected` (debate_core/evaluation/scoring.py). Methods are the protocol with its defaults, each chosen preset,
and the baselines `single` and `majority` (debate_core/protocols/baselines.py). Runs go
concurrently; their model calls share one limiter, the same the app's debates draw from. The
evaluation and its rows are kept in the store as they finish, so the app can list and follow it.

The report's figures per method are computed by `summarise` (debate_core/evaluation/summary.py).
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..core import prompts
from ..core.cases import CaseError, load_case
from ..core.ids import runner_info
from ..core.pricing import PriceTable, debate_cost
from ..core.schemas import Case
from ..engine.run import DebateResult, plain_reason, run_protocol_async
from ..engine.runtime import DebateSettings, Limiter, shared_limiter
from ..protocols import BASELINES, CaseUnfit, SettingsError, UnknownProtocol, get_spec
from ..providers import Provider, ReplayProvider, load_cassette, make_provider
from ..providers.base import StepFailed, StepRequest
from ..store import DebateStore
from .scoring import has_expectations, score
from .summary import DEFAULT_SEED, summarise

JUDGE_STEP = "final.eval_judge"
# Runs open at once per call slot: enough that the limiter's slots stay busy while runs wait
# between their stages, few enough that a large evaluation does not open every debate at once.
RUNS_PER_SLOT = 4
# Threads an evaluation on a database file runs on (see `run`).
LANES = 3


class EvaluationError(ValueError):
    """An evaluation that cannot start: a bad case source, method, preset or provider setting."""


# ---------------------------------------------------------------------------
# Cases (shared with bench/outcomes.py)
# ---------------------------------------------------------------------------


def case_files(sources: Iterable[str | Path]) -> list[Path]:
    """Case files from files and directories (every *.json in a directory and its subdirectories, sorted)."""
    files: list[Path] = []
    for src in map(Path, sources):
        if src.is_dir():
            files += sorted(src.rglob("*.json"))
        elif os.path.lexists(src):
            files.append(src)  # load_case refuses a FIFO, a device or a broken link, naming it
        else:
            raise EvaluationError(f"no case file or directory at {src}")
    return files


def labelled_cases(sources: Iterable[str | Path]) -> list[tuple[Path, Case]]:
    """Every case with `expected` from the sources, in order; a case id seen twice is refused."""
    out: list[tuple[Path, Case]] = []
    seen: dict[str, Path] = {}
    for path in case_files(sources):
        try:
            case = load_case(path)
        except CaseError as exc:
            raise EvaluationError(str(exc)) from None
        if not has_expectations(case.expected):
            continue
        if case.id in seen:
            raise EvaluationError(f"case id {case.id!r} appears twice ({seen[case.id]} and {path})")
        seen[case.id] = path
        out.append((path, case))
    return out


def case_protocol(case: Case) -> str | None:
    """The protocol a case was written for (its `protocol` field), if any."""
    return (case.model_extra or {}).get("protocol")


def score_result(result: DebateResult, expected: Mapping[str, Any] | None) -> dict[str, Any]:
    """A finished debate scored against `expected`: the verdict's answer and the score's fields, or
    the error of a failed debate (which has no answer to score)."""
    if result.status != "completed" or result.verdict is None:
        return {"status": result.status, "error": result.error or "the debate produced no verdict",
                "answer": None, "confidence": None, "right": None, "flagged": None, "silent_wrong": None,
                "over_flagged": None, "needs_human": (expected or {}).get("needs_human_review"), "label_ok": None,
                "missing": []}
    v = result.verdict
    return {"status": "completed", "error": None, "answer": v.answer, "confidence": v.confidence,
            "reasons": list(v.escalation_reasons), **score(v.answer, v.needs_human_review, expected).as_dict()}


# ---------------------------------------------------------------------------
# Methods
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Method:
    """One way of answering a case: `name` as reports show it, the spec it runs and its settings."""

    name: str
    kind: str  # "protocol", "preset" or "baseline"
    protocol: str
    settings: DebateSettings

    @property
    def slug(self) -> str:
        """The name as a file name part (replay cassettes per case and method)."""
        return re.sub(r"[^A-Za-z0-9_-]+", "_", self.name).strip("_") or "method"


def apply_preset(preset: Mapping[str, Any], concurrency: int) -> DebateSettings:
    """A preset ({rounds, agents, options}, as the specs and the app's saved presets hold them) as settings."""
    return DebateSettings(rounds=preset.get("rounds"), agents=preset.get("agents"),
                          options=dict(preset.get("options") or {}), concurrency=concurrency)


def build_methods(protocol: str, *, presets: Sequence[str] = (), baselines: Sequence[str] = (), samples: int = 3,
                  concurrency: int = 8, saved_presets: Mapping[str, Mapping[str, Any]] | None = None) -> list[Method]:
    """The protocol, each preset (the spec's or one saved in the app), then each baseline, checked
    before anything runs. Baselines are held to the protocol's default review threshold."""
    try:
        spec = get_spec(protocol)
    except UnknownProtocol as exc:
        raise EvaluationError(str(exc)) from None
    if protocol in BASELINES:
        raise EvaluationError(f"{protocol} is a baseline; evaluate a protocol and add it with --baselines")
    known = {**{str(k): dict(v) for k, v in spec.presets.items()}, **{k: dict(v) for k, v in (saved_presets or {}).items()}}
    methods = [Method(protocol, "protocol", protocol, DebateSettings(concurrency=concurrency))]
    for name in presets:
        if name not in known:
            offered = "; ".join(known) or "none"
            raise EvaluationError(f"{protocol} has no preset {name!r}; its presets are: {offered}")
        methods.append(Method(name, "preset", protocol, apply_preset(known[name], concurrency)))
    threshold = spec.review_bar(spec.options({}))
    if samples < 1 or samples > 15:
        raise EvaluationError(f"--samples must be from 1 to 15, got {samples}")
    for name in baselines:
        if name not in BASELINES:
            raise EvaluationError(f"unknown baseline {name!r}; choose from {', '.join(BASELINES)}")
        options: dict[str, Any] = {"review_threshold": threshold, "compared_with": protocol}
        if name == "majority":
            options["samples"] = samples
        methods.append(Method(name, "baseline", name, DebateSettings(concurrency=concurrency, options=options)))
    names = [m.name for m in methods]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise EvaluationError(f"the method {duplicate!r} is named twice")
    for m in methods:
        try:
            get_spec(m.protocol).validate(m.settings)
        except SettingsError as exc:
            raise EvaluationError(f"method {m.name!r}: {exc}") from None
    return methods


# ---------------------------------------------------------------------------
# Providers per run
# ---------------------------------------------------------------------------


class ProviderSource:
    """The provider of each run. Offline and openai runs share one provider; a replay run gets a fresh
    provider from its cassette: `cassette` is one file for every run, or a directory holding
    `<case id>.<method>.json` (the method as a file name: spaces and other signs become `_`) or,
    for every method of a case, `<case id>.json`."""

    def __init__(self, name: str, options: Mapping[str, Any] | None = None) -> None:
        self.name = name
        self.options = dict(options or {})
        self._shared: Provider | None = None
        self._cassettes: dict[Path, dict[str, Any]] = {}
        cassette = self.options.get("cassette")
        self.cassette = Path(cassette) if cassette else None
        if name == "replay":
            if self.cassette is None:
                raise EvaluationError("the replay provider needs --cassette FILE or a directory of cassettes")
            if not self.cassette.exists():
                raise EvaluationError(f"cassette file or directory not found: {self.cassette}")
        else:
            try:
                self._shared = make_provider(name, **self.options)
            except ValueError as exc:
                raise EvaluationError(str(exc)) from None

    def cassette_for(self, case_id: str, method: Method) -> Path:
        assert self.cassette is not None
        if not self.cassette.is_dir():
            return self.cassette  # load_cassette refuses anything but a regular file, naming it
        for name in (f"{case_id}.{method.slug}.json", f"{case_id}.json"):
            if (self.cassette / name).is_file():
                return self.cassette / name
        raise EvaluationError(f"no cassette for case {case_id!r} and method {method.name!r} in {self.cassette} "
                              f"(looked for {case_id}.{method.slug}.json and {case_id}.json)")

    def _load(self, path: Path) -> dict[str, Any]:
        if path not in self._cassettes:
            try:
                self._cassettes[path] = load_cassette(path)
            except ValueError as exc:
                raise EvaluationError(str(exc)) from None
        return self._cassettes[path]

    def check(self, case_id: str, method: Method) -> None:
        """Refuse, before anything runs, a replay run without a cassette or with one of another protocol."""
        if self.name != "replay":
            return
        path = self.cassette_for(case_id, method)
        recorded = self._load(path).get("protocol")
        if self.cassette.is_dir() and recorded not in (None, method.protocol):  # type: ignore[union-attr]
            raise EvaluationError(f"the cassette {path} was recorded for {recorded!r}, not {method.protocol!r}")

    def for_run(self, case_id: str, method: Method) -> Provider:
        if self._shared is not None:
            return self._shared
        return ReplayProvider(self._load(self.cassette_for(case_id, method)),
                              latency_ms=float(self.options.get("latency_ms") or 0.0))

    def public_config(self) -> dict[str, Any]:
        if self._shared is not None:
            return self._shared.public_config()
        return {"provider": "replay", "model": "replay", "cassette": str(self.cassette)}


class JudgeOutput(BaseModel):
    """The judge's comparison of an answer with the reference answer."""

    same_conclusion: bool
    reasoning: str = Field(min_length=1)


class Judge:
    """Asks a model whether an answer reaches the reference answer's conclusion (`expected.reference`).
    The offline agents cannot read meaning, so judging needs a model (openai) or a recording of one
    (replay: step `final.eval_judge` in the run's cassette)."""

    def __init__(self, model: str, provider: str, options: Mapping[str, Any] | None = None,
                 runs: ProviderSource | None = None) -> None:
        if provider == "offline":
            raise EvaluationError("the offline agents cannot judge answers; use --judge-model with --provider openai "
                                  "(or replay a recorded judgement with --provider replay)")
        self.model = model
        self.provider = provider
        self._runs = runs
        self._shared: Provider | None = None
        if provider == "openai":
            try:
                self._shared = make_provider("openai", **{**dict(options or {}), "model": model})
            except ValueError as exc:
                raise EvaluationError(str(exc)) from None

    def _provider(self, case_id: str, method: Method) -> Provider:
        if self._shared is not None:
            return self._shared
        assert self._runs is not None
        return self._runs.for_run(case_id, method)

    async def judge(self, case: Case, method: Method, answer: str, limiter: Limiter) -> dict[str, Any]:
        reference = (case.expected or {}).get("reference")
        if not reference:
            return {"same_conclusion": None, "reasoning": "the case has no reference answer to compare with",
                    "tokens": 0}
        req = StepRequest(
            step_id=JUDGE_STEP, protocol="evaluation", stage="eval_judge", agent="eval_judge",
            # One score block and its reasoning: the room a debate's judging stage gets.
            output_model=JudgeOutput, reply_cap=1200,
            messages=prompts.render("evaluation/judge", question=prompts.data_block("question", case.question),
                                    reference=prompts.data_block("reference", str(reference)),
                                    answer=prompts.data_block("answer", answer)),
        )
        try:
            async with limiter.slot():
                result = await self._provider(case.id, method).complete(req)
        except StepFailed as exc:
            return {"same_conclusion": None, "reasoning": f"the judge gave no usable reply: {exc.message}",
                    "raw": exc.raw, "tokens": exc.usage.input_tokens + exc.usage.output_tokens}
        out: JudgeOutput = result.output  # type: ignore[assignment]
        return {"same_conclusion": out.same_conclusion, "reasoning": out.reasoning, "raw": result.raw,
                "model": result.model, "tokens": result.usage.input_tokens + result.usage.output_tokens}


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


@dataclass
class EvaluationPlan:
    protocol: str
    methods: list[Method]
    cases: list[Case]
    providers: ProviderSource
    repeat: int = 1
    concurrency: int = 8
    judge: Judge | None = None
    prices: PriceTable | None = None
    skipped: list[dict[str, str]] = field(default_factory=list)
    seed: int = DEFAULT_SEED
    sources: list[str] = field(default_factory=list)

    @property
    def total_runs(self) -> int:
        return len(self.cases) * len(self.methods) * self.repeat

    def settings_record(self) -> dict[str, Any]:
        """What the store keeps with the evaluation (no secrets: the provider's public config)."""
        return {"provider": self.providers.public_config(), "repeat": self.repeat, "concurrency": self.concurrency,
                "judge_model": self.judge.model if self.judge else None, "sources": self.sources,
                "skipped": self.skipped, "seed": self.seed,
                "currency": self.prices.currency if self.prices else None,
                "methods": [{"name": m.name, "kind": m.kind, "protocol": m.protocol, "settings": m.settings.as_dict()}
                            for m in self.methods]}


def prepare(sources: Sequence[str | Path], protocol: str, *, presets: Sequence[str] = (),
            baselines: Sequence[str] = (), samples: int = 3, repeat: int = 1, concurrency: int = 8,
            provider: str = "offline", provider_options: Mapping[str, Any] | None = None,
            judge_model: str | None = None, prices: PriceTable | None = None,
            saved_presets: Mapping[str, Mapping[str, Any]] | None = None, seed: int = DEFAULT_SEED) -> EvaluationPlan:
    """Everything checked before anything is saved: cases, methods, provider, cassettes, judge.
    Cases the protocol cannot use are left out and listed in `skipped` with the reason."""
    if repeat < 1:
        raise EvaluationError(f"--repeat must be at least 1, got {repeat}")
    if concurrency < 1:
        raise EvaluationError(f"--concurrency must be at least 1, got {concurrency}")
    methods = build_methods(protocol, presets=presets, baselines=baselines, samples=samples, concurrency=concurrency,
                            saved_presets=saved_presets)
    spec = get_spec(protocol)
    cases: list[Case] = []
    skipped: list[dict[str, str]] = []
    for _path, case in labelled_cases(sources):
        try:
            spec.check_case(case, DebateSettings())
        except (CaseUnfit, SettingsError) as exc:
            skipped.append({"case": case.id, "reason": str(exc)})
            continue
        cases.append(case)
    if not cases:
        raise EvaluationError(f"no labelled case (a case with 'expected') that {protocol} can run was found in "
                              + ", ".join(str(s) for s in sources))
    providers = ProviderSource(provider, {**dict(provider_options or {}), "max_concurrency": concurrency}
                               if provider == "openai" else provider_options)
    for case in cases:
        for method in methods:
            providers.check(case.id, method)
    judge = Judge(judge_model, provider, provider_options, providers) if judge_model else None
    return EvaluationPlan(protocol, methods, cases, providers, repeat, concurrency, judge, prices, skipped, seed,
                          [str(s) for s in sources])


@dataclass
class Progress:
    done: int
    total: int
    tokens: int
    elapsed_s: float

    @property
    def eta_s(self) -> float | None:
        if not self.done:
            return None
        return self.elapsed_s / self.done * (self.total - self.done)


def _cost(store: Any, prices: PriceTable | None, debate_id: str) -> tuple[float | None, list[str]]:
    if prices is None:
        return None, []
    found = debate_cost(prices, store.steps(debate_id))
    return (round(found.total, 6) if found.complete else None), found.unpriced_models


async def _one(plan: EvaluationPlan, store: Any, limiter: Limiter, evaluation_id: str, case: Case, method: Method,
               repeat: int) -> dict[str, Any]:
    provider = plan.providers.for_run(case.id, method)
    stored = {**method.settings.as_dict(), "runner": runner_info(),
              "evaluation": {"id": evaluation_id, "method": method.name, "repeat": repeat}}
    debate_id = store.create_debate(case, method.protocol, provider.public_config(), stored,
                                   evaluation_id=evaluation_id)
    result = await run_protocol_async(case, get_spec(method.protocol), provider=provider, settings=method.settings, store=store,
                                    debate_id=debate_id, limiter=limiter)
    usage = result.usage or {}
    cost, unpriced = _cost(store, plan.prices, debate_id)
    row = {
        "case": case.id, "method": method.name, "kind": method.kind, "protocol": method.protocol, "repeat": repeat,
        "debate_id": debate_id, **score_result(result, case.expected),
        "rounds": result.rounds, "calls": usage.get("calls", 0), "input_tokens": usage.get("input_tokens", 0),
        "output_tokens": usage.get("output_tokens", 0),
        "tokens": usage.get("input_tokens", 0) + usage.get("output_tokens", 0),
        "cost": cost, "unpriced_models": unpriced, "wall_ms": round(result.wall_ms, 2), "judge": None,
    }
    if plan.judge is not None and row["answer"] is not None:
        row["judge"] = await plan.judge.judge(case, method, row["answer"], limiter)
    return row


def _failed_row(case: Case, method: Method, repeat: int, exc: BaseException) -> dict[str, Any]:
    return {"case": case.id, "method": method.name, "kind": method.kind, "protocol": method.protocol,
            "repeat": repeat, "debate_id": None, "status": "failed",
            "error": f"the run could not start: {plain_reason(exc)}", "answer": None, "confidence": None,
            "right": None, "flagged": None, "silent_wrong": None, "over_flagged": None,
            "needs_human": (case.expected or {}).get("needs_human_review"), "label_ok": None,
            "missing": [], "rounds": 0, "calls": 0, "input_tokens": 0, "output_tokens": 0, "tokens": 0,
            "cost": None, "unpriced_models": [], "wall_ms": 0.0, "judge": None}


class _Tally:
    """The finished rows of an evaluation, shared by its lanes (threads), with the progress report."""

    def __init__(self, total: int, on_progress: Callable[[Progress], None] | None) -> None:
        self.rows: list[dict[str, Any]] = []
        self.tokens = 0
        self.total = total
        self.on_progress = on_progress
        self.started = time.perf_counter()
        self._lock = threading.Lock()

    def add(self, row: dict[str, Any]) -> None:
        with self._lock:
            self.rows.append(row)
            self.tokens += row["tokens"]
            progress = Progress(len(self.rows), self.total, self.tokens, time.perf_counter() - self.started)
            if self.on_progress is not None:
                self.on_progress(progress)


async def _lane(plan: EvaluationPlan, store: Any, limiter: Limiter, evaluation_id: str,
                jobs: Sequence[tuple[Case, Method, int]], tally: _Tally, open_runs: int) -> None:
    """Run a share of the evaluation's runs concurrently on this thread's event loop and store."""
    gate = asyncio.Semaphore(max(1, open_runs))

    async def guarded(case: Case, method: Method, repeat: int) -> None:
        async with gate:
            try:
                row = await _one(plan, store, limiter, evaluation_id, case, method, repeat)
            except Exception as exc:  # noqa: BLE001 - one run that cannot even start must not stop the others
                row = _failed_row(case, method, repeat, exc)
        store.add_evaluation_row(evaluation_id, row)
        tally.add(row)

    await asyncio.gather(*(guarded(c, m, r) for c, m, r in jobs))


def _jobs(plan: EvaluationPlan) -> list[tuple[Case, Method, int]]:
    # Protocol runs first, so the deepest debates are not the last to start.
    return sorted(((c, m, r) for r in range(1, plan.repeat + 1) for c in plan.cases for m in plan.methods),
                  key=lambda x: x[1].kind == "baseline")


def _start(plan: EvaluationPlan, store: Any, evaluation_id: str | None) -> str:
    if evaluation_id is not None:
        return evaluation_id
    return store.create_evaluation(
        protocol=plan.protocol, methods=[m.name for m in plan.methods], cases=[c.id for c in plan.cases],
        settings=plan.settings_record(), total_runs=plan.total_runs)


def _finish(plan: EvaluationPlan, store: Any, evaluation_id: str, tally: _Tally) -> dict[str, Any]:
    case_order = {c.id: i for i, c in enumerate(plan.cases)}
    method_order = {m.name: i for i, m in enumerate(plan.methods)}
    rows = sorted(tally.rows, key=lambda r: (case_order[r["case"]], method_order[r["method"]], r["repeat"]))
    report = {
        "evaluation_id": evaluation_id, "protocol": plan.protocol, "methods": [m.name for m in plan.methods],
        "cases": [c.id for c in plan.cases], "skipped": plan.skipped, "rows": rows,
        "summary": summarise(rows, [m.name for m in plan.methods], seed=plan.seed),
        "currency": plan.prices.currency if plan.prices else None,
        "wall_s": round(time.perf_counter() - tally.started, 3),
    }
    store.finish_evaluation(evaluation_id, status="completed", summary=report["summary"])
    return report


def _stopped(store: Any, evaluation_id: str, exc: BaseException) -> None:
    reason = plain_reason(exc) if isinstance(exc, Exception) else "interrupted"
    store.finish_evaluation(evaluation_id, status="failed", error=f"the evaluation stopped: {reason}")


async def run_async(plan: EvaluationPlan, store: Any, *, evaluation_id: str | None = None,
                    on_progress: Callable[[Progress], None] | None = None,
                    limiter: Limiter | None = None) -> dict[str, Any]:
    """Run every case x method x repeat concurrently on this event loop, store each row as it
    finishes, and return the report object (`protocol, methods, cases, rows, summary`). The runs'
    calls share `limiter` (default: the process's shared limiter for the plan's concurrency, as the
    app's debates use)."""
    limiter = limiter or shared_limiter(plan.concurrency)
    evaluation_id = _start(plan, store, evaluation_id)
    tally = _Tally(plan.total_runs, on_progress)
    try:
        await _lane(plan, store, limiter, evaluation_id, _jobs(plan), tally, plan.concurrency * RUNS_PER_SLOT)
    except BaseException as exc:
        _stopped(store, evaluation_id, exc)
        raise
    return _finish(plan, store, evaluation_id, tally)


def run(plan: EvaluationPlan, store: Any, *, evaluation_id: str | None = None,
        on_progress: Callable[[Progress], None] | None = None, limiter: Limiter | None = None,
        lanes: int = LANES) -> dict[str, Any]:
    """Run an evaluation (CLI, worker thread). With a database file, the runs are spread over
    `lanes` threads, each with its own event loop and store connection and all drawing on the one
    limiter: a thread waiting on SQLite leaves the others free to hand out call slots, so the store's
    writes overlap the calls instead of delaying them (bench/eval_concurrency.py)."""
    if getattr(store, "location", store.path) is None or lanes <= 1:
        return asyncio.run(run_async(plan, store, evaluation_id=evaluation_id, on_progress=on_progress,
                                     limiter=limiter))
    limiter = limiter or shared_limiter(plan.concurrency)
    evaluation_id = _start(plan, store, evaluation_id)
    tally = _Tally(plan.total_runs, on_progress)
    jobs = _jobs(plan)
    errors: list[BaseException] = []

    def lane(share: list[tuple[Case, Method, int]]) -> None:
        own = DebateStore(getattr(store, "location", store.path), check=False, busy_timeout=store.busy_timeout)
        try:
            asyncio.run(_lane(plan, own, limiter, evaluation_id, share, tally,
                              plan.concurrency * RUNS_PER_SLOT // lanes))
        except BaseException as exc:  # noqa: BLE001 - reported by the calling thread
            errors.append(exc)
        finally:
            own.close()

    # Daemon threads: a Ctrl-C ends the process; runs left running are found later as interrupted.
    threads = [threading.Thread(target=lane, args=(jobs[i::lanes],), name=f"eval-{evaluation_id}-{i}", daemon=True)
               for i in range(lanes)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    except BaseException as exc:
        _stopped(store, evaluation_id, exc)
        raise
    if errors:
        _stopped(store, evaluation_id, errors[0])
        raise errors[0]
    return _finish(plan, store, evaluation_id, tally)
