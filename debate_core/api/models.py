"""The request and response bodies of the HTTP API, as pydantic models: FastAPI checks requests
against them and writes them into the OpenAPI schema (/openapi.json), so a caller's client can be
generated from it. Unknown fields are refused (`extra="forbid"`), so a misspelt setting is an error
naming it rather than a setting silently ignored."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ROLE = Literal["viewer", "reviewer", "supervisor", "admin"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorDetail(BaseModel):
    code: str = Field(description="a stable word for the kind of error, e.g. bad_input, not_found, forbidden")
    message: str = Field(description="what went wrong, in plain words")
    field: str | None = Field(None, description="the request field at fault, e.g. case.question or provider.base_url")
    error_id: str | None = Field(None, description="for a server fault: the id under which it is logged")


class ErrorBody(BaseModel):
    error: ErrorDetail


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    store: Literal["sqlite", "postgres"]


class ProviderSettings(Strict):
    """The provider's settings, by the names of the command line's provider flags."""

    name: Literal["offline", "openai", "replay"] = "offline"
    latency_ms: float | None = Field(None, ge=0, le=60_000, description="simulated latency per call (offline, replay)")
    model: str | None = Field(None, description="model name (openai)")
    base_url: str | None = Field(None, description="OpenAI-compatible base URL (openai)")
    api_key: str | None = Field(None, description="the key for base_url, used for this debate only and never stored")
    no_key_needed: bool = Field(False, description="the server at base_url needs no key (llama.cpp, Ollama, vLLM)")
    temperature: float | None = None
    timeout: float | None = Field(None, gt=0)
    max_attempts: int | None = Field(None, ge=1, le=10)
    method: Literal["function_calling", "json_schema", "json_mode"] | None = None
    agent_models: dict[str, str] | None = Field(None, description="per-agent model override, agent id -> model")
    max_output_tokens: int | None = Field(None, ge=1)
    transport_retries: int | None = Field(None, ge=0)
    stall_timeout: float | None = Field(None, ge=0)
    timeout_retries: int | None = Field(None, ge=0)
    repair: Literal["none", "clamp"] | None = None
    cassette: dict[str, Any] | None = Field(None, description="replay: a cassette object, as `export --cassette` writes")


class DebateRequest(Strict):
    case: dict[str, Any] = Field(description="the case, as a case JSON file holds it")
    protocol: str
    preset: str | None = Field(None, description="start from this preset of the protocol, or one saved in the app")
    options: dict[str, Any] | None = Field(None, description="protocol settings; they win over the preset's")
    agents: list[str | dict[str, Any]] | None = Field(None, description="agent ids, or agent profiles")
    rounds: int | None = Field(None, description="round budget (protocol default when omitted)")
    concurrency: int | None = Field(None, ge=1, le=64)
    max_total_tokens: int | None = Field(None, ge=1)
    max_tokens_per_call: int | None = Field(None, ge=1)
    pause_after_round: int | None = Field(None, ge=1)
    provider: ProviderSettings = Field(default_factory=ProviderSettings)


class Accepted(BaseModel):
    id: str
    status: str


class Review(BaseModel):
    ts: str
    reviewer: str
    kind: str | None = Field(None, description="how the name is vouched for: verified, label, operator, token")
    role: str | None = None
    action: str
    state_before: str | None = None
    state_after: str | None = None
    answer_after: str | None = None
    reason: str | None = None


class DebateSummary(BaseModel):
    id: str
    title: str | None = None
    question: str | None = None
    protocol: str
    status: str = Field(description="running, paused, stopped, completed or failed")
    outcome: str = Field(description="the moderator's outcome as History shows it")
    needs_human_review: bool
    final_answer: str | None = None
    confidence: float | None = None
    review_state: str
    review_label: str
    reviewed_by: str | None = None
    created_at: str
    finished_at: str | None = None
    rounds: int | None = None
    parent_id: str | None = None
    evaluation_id: str | None = None


class Debate(DebateSummary):
    version: int
    verdict: Any = None
    converged: bool | None = None
    convergence_reason: str | None = None
    error: str | None = None
    calls: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    reviews: list[Review]
    steps: list[dict[str, Any]] | None = Field(None, description="with ?steps=true: every step, in order")


class DebatePage(BaseModel):
    debates: list[DebateSummary]
    next_cursor: str | None = Field(None, description="pass as ?cursor= for the next page; null on the last")


class ReviewRequest(Strict):
    action: Literal["accept", "override", "escalate", "approve", "settle", "undo"]
    answer: str | None = Field(None, description="the corrected answer (override, settle)")
    reason: str | None = Field(None, description="required for override, escalate and settle")
    version: int | None = Field(None, description="the debate's version you read; a stale one is refused with 409")


class ReviewResult(BaseModel):
    action: str
    state_before: str | None
    state_after: str
    reviewer: str
    version: int


class ControlRequest(Strict):
    action: Literal["pause", "stop", "continue"]


class ControlResult(BaseModel):
    id: str
    status: str


class ForkRequest(Strict):
    from_round: int = Field(ge=1)
    options: dict[str, Any] | None = None
    agents: list[str | dict[str, Any]] | None = None
    rounds: int | None = None


class QueueItem(BaseModel):
    id: str
    title: str | None = None
    question: str | None = None
    protocol: str
    created_at: str
    final_answer: str | None = None
    confidence: float | None = None
    review_state: str
    version: int
    assignee_name: str | None = None


class Queue(BaseModel):
    role: Literal["reviewer", "supervisor"]
    left: int
    mine: int
    unassigned: int
    others: int
    debates: list[QueueItem]


class LabelledCases(BaseModel):
    cases: dict[str, dict[str, Any]] = Field(description="file name -> labelled case, as export-labels writes")
    decided: dict[str, int]
    skipped: dict[str, int]


class WebhookRequest(Strict):
    url: str
    events: list[str]
    secret: str | None = Field(None, description="whsec_... ; one is generated when omitted")


class Webhook(BaseModel):
    id: int
    url: str
    events: list[str]
    created_at: str | None = None
    created_by: str | None = None
    secret: str | None = Field(None, description="only in the answer to its creation")


class Deleted(BaseModel):
    deleted: bool
