"""What a protocol is: one `ProtocolSpec` that the CLI, the worker, the app and the exports read.

Each protocol module exports exactly one `SPEC`. Everything the rest of the code needs to know
about a protocol is here, so nothing else inspects protocol modules or guesses from the shape of
an output: its plain-words description, its agents and rounds, its typed options, its presets,
what a case must carry, its stages with their output models, the function that runs it, the
moderator rules it applies, the file names its exports use and the rows the store keeps for it
(claims and critiques). How to add a protocol: docs/ENGINE.md.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..core.bounds import output_bounds
from ..core.profiles import case_profiles
from ..core.settings import DebateSettings
from ..providers.base import DEFAULT_REPLY_CAP
from .validation import validate_agents, validate_options, validate_settings

# Below this confidence a deciding agent's verdict is not left to stand unreviewed: every spec's
# default review threshold, and the moderators' low-confidence rule (protocols/common.py).
LOW_CONFIDENCE = 0.5

if TYPE_CHECKING:  # only for annotations
    from ..core.schemas import Case
    from .runtime import DebateRun, Outcome


class CaseUnfit(ValueError):
    """A case that lacks what the protocol needs. The message names the missing field."""


@dataclass(frozen=True)
class StageSpec:
    """One kind of step: its step-id stage, a title in plain words, the output model it returns, the
    reply cap (tokens) a model gets for it and the noun that names one such step in plain words
    ("Round 2 · revision by ...", glossary.step_title)."""

    name: str
    title: str
    output_model: type[BaseModel] | None
    description: str = ""
    reply_cap: int = DEFAULT_REPLY_CAP
    noun: str = ""


@dataclass(frozen=True)
class CaseNeed:
    """Something a case should carry. `required` refuses a case without it; otherwise the protocol
    runs in the reduced mode that `without` names."""

    field: str
    description: str
    present: Callable[[Case], bool]
    required: bool = True
    without: str = ""


@dataclass(frozen=True)
class Projection:
    """Rows the store keeps for a finished step, beside its output: claims or critiques.

    Each function maps (step key, output dict) to a list of row dicts (empty for a stage it does not
    project); the runtime calls them and hands the rows to the store inside the step's event, so the
    store needs no protocol knowledge. Scores (a judge's) are read from the step outputs."""

    claims: Callable[[Any, dict[str, Any]], list[dict[str, Any]]] | None = None
    critiques: Callable[[Any, dict[str, Any]], list[dict[str, Any]]] | None = None


@dataclass(frozen=True)
class ProtocolSpec:
    name: str
    title: str
    description: str
    default_agents: tuple[Mapping[str, Any], ...]
    min_agents: int
    max_agents: int | None
    min_rounds: int
    max_rounds: int
    default_rounds: int
    options_model: type[BaseModel]
    run: Callable[[DebateRun], Awaitable[Outcome]]
    stages: tuple[StageSpec, ...]
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    case_needs: tuple[CaseNeed, ...] = ()
    moderator: tuple[Callable[..., Any], ...] = ()
    glossary: Mapping[str, str] = field(default_factory=dict)
    projection: Projection = field(default_factory=Projection)
    export_name: Callable[[dict[str, Any]], str] | None = None  # a stored step -> its export file name
    export_payload: Callable[[dict[str, Any]], dict[str, Any]] | None = None  # a stored step -> its file's JSON
    agents_title: str = "agents"
    # The reviewer interventions (steering.py) the protocol applies while paused; every protocol
    # can be paused, stopped, continued and forked.
    interventions: tuple[str, ...] = ()
    # The module holding its rule-based offline agents (they register per stage with
    # `debate_core.providers.offline.agents.register`); the offline provider imports it on first use.
    offline_agent: str | None = None
    # The option that sets the confidence below which its verdict goes to a human, and the scale it
    # is written on (a score of 0-100, say); a baseline compared with it is held to the same bar.
    # None: its moderator uses the common threshold.
    review_threshold: tuple[str, float] | None = None
    # Its protocol-specific tables for the app, by name: each builds rows from the stored steps
    # (and the debate). See `rows.py` in the protocol's folder.
    rows: Mapping[str, Callable[..., list[dict[str, Any]]]] = field(default_factory=dict)
    # The moderator's thresholds the per-round plots draw, from the validated options:
    # measure -> (value, label).
    plot_thresholds: Callable[[Any], dict[str, tuple[float, str]]] | None = None

    # -- stages ------------------------------------------------------------------------------
    def stage(self, name: str) -> StageSpec | None:
        return next((s for s in self.stages if s.name == name), None)

    def stage_title(self, name: str | None) -> str:
        found = self.stage(name or "")
        return found.title if found else (name or "step")

    def review_bar(self, options: Mapping[str, Any] | Any) -> float:
        """The confidence (0-1) below which this protocol's moderator sends a verdict to a human, read
        from its validated `options` (a model or a dict); the common threshold when it has no option."""
        if self.review_threshold is None:
            return LOW_CONFIDENCE
        key, scale = self.review_threshold
        value = options.get(key) if isinstance(options, Mapping) else getattr(options, key, None)
        return LOW_CONFIDENCE if value is None else round(float(value) / scale, 4)

    # -- settings ----------------------------------------------------------------------------
    def options(self, raw: Mapping[str, Any] | None) -> BaseModel:
        """The typed options, validated; raises SettingsError naming the first bad or unknown key."""
        return validate_options(self, dict(raw) if isinstance(raw, Mapping) else raw)  # type: ignore[arg-type]

    def options_schema(self) -> dict[str, Any]:
        return self.options_model.model_json_schema()

    def validate(self, settings: DebateSettings) -> DebateSettings:
        """Everything checked before a debate is saved: rounds, agents, limits, options."""
        return validate_settings(self, settings)

    def rounds(self, asked: int | None, warn: Callable[[str], None] | None = None) -> int:
        """The rounds a debate runs: the asked number brought into this protocol's range, saying so
        when it had to be changed (every protocol clamps the same way)."""
        wanted = self.default_rounds if asked is None else int(asked)
        used = max(self.min_rounds, min(self.max_rounds, wanted))
        if used != wanted and warn is not None:
            change = "capped at" if used < wanted else "raised to"
            warn(f"rounds {change} {used} (asked for {wanted}): {self.name} runs {self.min_rounds} to "
                 f"{self.max_rounds} round(s)")
        return used

    # -- cases ------------------------------------------------------------------------------
    def missing(self, case: Case) -> list[CaseNeed]:
        return [n for n in self.case_needs if n.required and not n.present(case)]

    def reduced(self, case: Case) -> list[CaseNeed]:
        return [n for n in self.case_needs if not n.required and not n.present(case)]

    def check_case(self, case: Case, settings: DebateSettings | None = None) -> None:
        """Refuse a case that lacks a required field, or whose own `agents` this protocol cannot use
        (checked only when the settings do not choose the agents themselves)."""
        gaps = self.missing(case)
        if gaps:
            need = gaps[0]
            raise CaseUnfit(f"{self.name} needs the case field '{need.field}': {need.description}")
        if settings is None or settings.agents is None:
            own = case_profiles(case, self.name)
            if own:
                validate_agents(self, own)

    def fits(self, case: Case) -> bool:
        return not self.missing(case)

    # -- catalogue ----------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """What `python -m debate_core protocols --json` prints for this protocol."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "agents": {"default": [dict(a) for a in self.default_agents], "min": self.min_agents,
                       "max": self.max_agents},
            "rounds": {"default": self.default_rounds, "min": self.min_rounds, "max": self.max_rounds},
            "presets": {k: dict(v) for k, v in self.presets.items()},
            "options": self.options_schema(),
            "case_requirements": [
                {"field": n.field, "required": n.required, "description": n.description,
                 **({"without": n.without} if n.without else {})}
                for n in self.case_needs
            ],
            # Each stage's reply cap (tokens) and the bounds its output model sets, the ones a
            # grammar-constrained server enforces while generating and validation checks everywhere.
            "stages": [{"name": s.name, "title": s.title, "description": s.description, "reply_cap": s.reply_cap,
                        "output": s.output_model.__name__ if s.output_model else None,
                        "bounds": output_bounds(s.output_model) if s.output_model else {}}
                       for s in self.stages],
            "interventions": list(self.interventions),
        }
