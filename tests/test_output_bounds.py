"""Bounded structured output: every model-facing output model carries bounds a grammar can enforce,
the spec shows them, bounded numbers go to grammar servers as levels, the server's kind picks the
method, and a reply over a bound is re-asked with the reason on any server."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fault_server import FaultServer, StepScript, step_of, structured
from test_openai_faults import CASE, default_valid, probe, provider, run  # noqa: F401 - probe is a fixture

from debate_core.cli import main
from debate_core.core.bounds import (
    MAX_TEXT_CHARS,
    fit_text,
    fit_to_bounds,
    grammar_schema,
    output_bounds,
    unbounded_fields,
    worst_case_chars,
)
from debate_core.core.schemas import (
    ANSWER_CHARS,
    CLAIM_CHARS,
    CLAIM_ID_CHARS,
    EVIDENCE_ID_CHARS,
    MAX_CLAIMS,
    AgentOutput,
    Claim,
)
from debate_core.protocols import specs
from debate_core.protocols.baselines import BaselineAnswer
from debate_core.protocols.cross_critique.models import CritiqueOutput, SupervisorOutput
from debate_core.protocols.refinement.models import JudgeOutput
from debate_core.providers import make_provider
from debate_core.providers.base import Provider, RawReply, StepFailed, StepRequest

KEY = "sk-test-bounds-0123456789abcdef"


def model_facing() -> list[tuple[str, type]]:
    found = [(f"{spec.name}.{stage.name}", stage.output_model)
             for spec in specs() for stage in spec.stages if stage.output_model is not None]
    return [*found, ("baseline.answer", BaselineAnswer)]


@pytest.fixture(autouse=True)
def no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "DEBATE_KEY_BASE_URLS"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(("where", "model"), model_facing(), ids=[w for w, _ in model_facing()])
def test_every_output_model_bounds_its_text_and_lists(where: str, model: type) -> None:
    assert unbounded_fields(model) == [], f"{where}: fields a grammar could not stop"
    bounds = output_bounds(model)
    lengths = [b["max_length"] for b in bounds.values() if "max_length" in b]
    assert lengths, where
    # llama.cpp's grammar parser refuses (and llama-cpp-python's server dies on) a string rule
    # repeated more than about 1,100 times: no field may ask for more.
    assert max(lengths) <= MAX_TEXT_CHARS, where


# Characters per token at the least: JSON punctuation and a small model's repetitions tokenize
# densely (SmolLM2-135M's replies measured 2.6 to 4 characters a token).
CHARS_PER_TOKEN = 2.6
# Stages whose longest reply does not fit their cap: the refinement judge scores every hypothesis of
# every reasoner (a list that grows with the team); the refinement reasoners' hypotheses and the
# dialectic critic's issues keep room for the long reasoning and issues the protocols ask for.
# A grammar still ends each string and list there; only their sum can pass the cap.
OVER_THE_CAP = {"refinement.judge", "refinement.hypotheses", "dialectic.antithesis"}


@pytest.mark.parametrize(("where", "stage"), [(f"{spec.name}.{stage.name}", stage) for spec in specs()
                                              for stage in spec.stages if stage.output_model is not None],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_the_longest_reply_the_bounds_allow_fits_the_reply_cap(where: str, stage: Any) -> None:
    # Under a grammar a model cannot write past the bounds, so a reply that fits them fits its cap:
    # a small model that repeats itself to every bound still ends with complete JSON.
    worst = worst_case_chars(stage.output_model)
    if where in OVER_THE_CAP:
        assert worst > CHARS_PER_TOKEN * stage.reply_cap
        return
    assert worst <= CHARS_PER_TOKEN * stage.reply_cap, f"{where}: {worst} characters, cap {stage.reply_cap} tokens"


def test_worst_case_counts_every_bound() -> None:
    # A reply with every bound filled is no longer than the worst case counted from the schema.
    full = {"answer": "a" * ANSWER_CHARS,
            "claims": [{"id": f"C{i}".ljust(CLAIM_ID_CHARS, "x"), "statement": "s" * CLAIM_CHARS,
                        "evidence": ["e" * EVIDENCE_ID_CHARS] * 2, "confidence": 0.05, "assumptions": ["x" * 70]}
                       for i in range(MAX_CLAIMS)],
            "uncertainties": ["u" * 160] * 2, "open_questions": ["q" * 160]}
    AgentOutput.model_validate(full)
    assert worst_case_chars(AgentOutput) >= len(json.dumps(full, separators=(",", ":")))


def test_the_engine_sets_claim_checks_the_model_never_sees() -> None:
    schema = json.dumps(AgentOutput.model_json_schema())
    assert "unverified_evidence" not in schema and "verified" not in schema
    claim = Claim(id="C1", statement="s", confidence=0.5)
    assert claim.verified is True and claim.unverified_evidence == []


def test_protocols_json_shows_each_stage_bounds_and_cap(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["protocols", "--json"]) == 0
    described = {d["name"]: d for d in json.loads(capsys.readouterr().out)}
    answer = next(s for s in described["cross_critique"]["stages"] if s["name"] == "answer")
    assert answer["output"] == "AgentOutput" and answer["reply_cap"] > 0
    # The source protocol limits an agent to 8-10 main claims.
    assert answer["bounds"]["claims"] == {"max_items": 10}
    assert answer["bounds"]["claims[].statement"]["max_length"] == CLAIM_CHARS
    assert answer["bounds"]["claims[].confidence"] == {"range": [0.0, 1.0]}
    critique = next(s for s in described["cross_critique"]["stages"] if s["name"] == "critique")
    assert critique["bounds"]["critiques[].severity"]["choices"] == ["CRITICAL", "MAJOR", "MINOR"]
    hypotheses = next(s for s in described["refinement"]["stages"] if s["name"] == "hypotheses")
    # The hypothesis-refinement source protocol: 3-5 hypotheses per reasoner.
    assert hypotheses["bounds"]["hypotheses"] == {"max_items": 5}


def test_grammar_schema_sends_bounded_numbers_as_levels_that_validate() -> None:
    original = SupervisorOutput.model_json_schema()
    sent = grammar_schema(original)
    levels = sent["properties"]["confidence"]["enum"]
    assert levels[0] == 0 and levels[-1] == 1 and len(levels) == 21
    assert "enum" not in original["properties"]["confidence"]  # the model's own schema is untouched
    for level in levels:
        SupervisorOutput.model_validate({"answer": "a", "confidence": level})
    # Strings keep their maxLength in what is sent.
    assert sent["properties"]["answer"]["maxLength"] == original["properties"]["answer"]["maxLength"]
    # A judge's 0-100 score goes as its 101 whole numbers.
    judge = grammar_schema(JudgeOutput.model_json_schema())
    score = judge["$defs"]["JudgeScore"]["properties"]["score"]
    assert score["enum"] == list(range(101))


def test_fit_text_cuts_at_a_sentence_end_or_a_word() -> None:
    text = "First sentence here. Second sentence is a good deal longer than the first one."
    assert fit_text(text, 200) == text
    assert fit_text(text, 40) == "First sentence here."
    cut = fit_text("one two three four five six seven", 16)
    assert cut == "one two three…" and len(cut) <= 16


def test_offline_outputs_are_fitted_to_the_bounds() -> None:
    long = "A claim. " * 200
    data = {"answer": long, "claims": [{"id": f"C{i}", "statement": long, "confidence": 0.5} for i in range(14)]}
    fitted = fit_to_bounds(data, AgentOutput)
    output = AgentOutput.model_validate(fitted)
    assert len(output.claims) == MAX_CLAIMS and len(output.answer) <= ANSWER_CHARS and output.answer.endswith(".")


class Scripted(Provider):
    name = "scripted"

    def __init__(self, replies: list[str]) -> None:
        super().__init__(max_attempts=3)
        self.replies = list(replies)
        self.seen: list[list[dict[str, str]]] = []

    async def _reply(self, req: StepRequest, messages: list[dict[str, str]], attempt: int) -> RawReply:
        self.seen.append(messages)
        return RawReply(text=self.replies.pop(0), input_tokens=5, output_tokens=5)


def critique_request() -> StepRequest:
    return StepRequest(step_id="r1.critique.a.b", protocol="cross_critique", stage="critique", agent="a",
                       output_model=CritiqueOutput, messages=[{"role": "user", "content": "critique"}])


def critique(description: str, n: int = 1) -> str:
    return json.dumps({"critiques": [{"id": f"K{i}", "target_claim_id": "C1", "issue_type": "overclaim",
                                      "description": description, "severity": "MINOR", "suggested_fix": "f"}
                                     for i in range(n)]})


def test_an_over_long_or_over_full_reply_is_re_asked_with_the_reason() -> None:
    provider = Scripted([critique("x" * 900), critique("d", 13), critique("fine")])
    result = asyncio.run(provider.complete(critique_request()))
    assert result.attempts == 3 and result.output.critiques[0].description == "fine"
    first, second = (m[-1]["content"] for m in provider.seen[1:])
    assert "critiques.0.description" in first and "at most 160 characters" in first
    assert "critiques" in second and "at most 8 items" in second


def test_a_reply_over_its_bounds_every_time_fails_naming_the_bound() -> None:
    provider = Scripted([critique("x" * 900)] * 3)
    with pytest.raises(StepFailed, match="at most 160 characters"):
        asyncio.run(provider.complete(critique_request()))


# -- the server's kind picks the method ---------------------------------------------------------


def answer_for(step: str, body: dict[str, Any]) -> Any:
    stage = step.split(".")[1] if step.startswith("r") else "final"
    payload = {
        "answer": {"answer": "Yes.", "claims": [{"id": "C1", "statement": "s", "evidence": ["e1"], "confidence": 0.6}]},
        "critique": {"critiques": []},
        "final": {"answer": "Yes.", "confidence": 0.6, "rationale": "r"},
    }[stage]
    return structured(payload)


KINDS = [
    ({"/props": {"total_slots": 1, "default_generation_settings": {}}}, "llama.cpp", "json_schema"),
    ({"/openapi.json": {"info": {"title": "🦙 llama.cpp Python API"}}}, "llama-cpp-python", "function_calling"),
    ({"/api/version": {"version": "0.5.7"}}, "ollama", "json_schema"),
    ({"/v1/models": {"object": "list", "data": [{"id": "m", "owned_by": "vllm"}]}}, "vllm", "json_schema"),
    ({}, "unknown", "function_calling"),
]


@pytest.mark.parametrize(("routes", "kind", "method"), KINDS, ids=[k for _, k, _ in KINDS])
def test_the_server_kind_is_detected_and_picks_its_method(routes: dict[str, Any], kind: str, method: str) -> None:
    with FaultServer(StepScript(answer_for, {})) as server:
        server.get_routes.update(routes)
        provider = make_provider("openai", model="m", base_url=server.base_url)
    config = provider.public_config()
    assert (config["server_kind"], config["method"], config["method_in_use"]) == (kind, method, method)
    assert method in config["structured_output"]


def test_an_explicit_method_wins_over_the_detected_one() -> None:
    with FaultServer(StepScript(answer_for, {})) as server:
        server.get_routes["/api/version"] = {"version": "0.5.7"}
        provider = make_provider("openai", model="m", base_url=server.base_url, method="json_mode")
    assert provider.public_config()["server_kind"] == "ollama" and provider.method == "json_mode"


def sent_schema(body: dict[str, Any]) -> dict[str, Any]:
    if body.get("tools"):
        return body["tools"][0]["function"]["parameters"]
    return body["response_format"]["json_schema"]["schema"]


@pytest.mark.parametrize(("routes", "method"), [
    ({"/openapi.json": {"info": {"title": "llama.cpp Python API"}}}, "function_calling"),
    ({"/props": {"total_slots": 1}}, "json_schema"),
])
@pytest.mark.usefixtures("probe")
def test_a_grammar_server_is_sent_levels_and_lengths(routes: dict[str, Any], method: str) -> None:
    with FaultServer(StepScript(default_valid, {})) as server:
        server.get_routes.update(routes)
        result, store = run(provider(server.base_url))
        bodies = [b for b in server.bodies() if step_of(b) == "r1.answer.a"]
    assert result.status == "completed", result.error
    schema = sent_schema(bodies[0])
    claim = schema["$defs"]["Claim"]["properties"]
    assert claim["confidence"]["enum"][:3] == [0, 0.05, 0.1]
    assert claim["statement"]["maxLength"] == CLAIM_CHARS
    assert schema["properties"]["claims"]["maxItems"] == MAX_CLAIMS
    stored = store.get_debate(result.debate_id, with_steps=False)["provider_config"]
    assert stored["method_in_use"] == method and method in stored["structured_output"]


def test_openai_keeps_number_ranges_and_is_not_probed() -> None:
    provider = make_provider("openai", model="gpt-4o-mini", api_key=KEY)
    assert provider.public_config()["server_kind"] == "openai"
    async def build() -> Any:
        return provider._bound("gpt-4o-mini", SupervisorOutput, "json_schema", 100)

    bound = asyncio.run(build())
    schema = bound.kwargs["extra_body"]["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["confidence"]["maximum"] == 1 and "enum" not in schema["properties"]["confidence"]


# -- the debate page says how replies were held to their bounds ---------------------------------


def test_the_debate_page_names_the_structured_output(app: Any, db_path: Any) -> None:
    from fault_server import NameScript
    from test_openai_faults import CASE

    from debate_core.jobs.debates import run_debate
    from debate_core.store import DebateStore

    valid = {
        "AgentOutput": {"answer": "Safe for light traffic.",
                        "claims": [{"id": "C1", "statement": "Load tests passed.", "evidence": ["e1"],
                                    "confidence": 0.7}]},
        "CritiqueOutput": {"critiques": [], "shortfall": "no grounded critique"},
        "SupervisorOutput": {"answer": "Safe for light traffic.", "confidence": 0.65, "rationale": "agreed"},
    }
    with FaultServer(NameScript(valid)) as server:
        server.get_routes["/openapi.json"] = {"info": {"title": "llama.cpp Python API"}}
        store = DebateStore(db_path)
        try:
            result = run_debate(CASE, "cross_critique", provider=provider(server.base_url), store=store)
        finally:
            store.close()
    assert result.status == "completed", result.error
    app.run()
    app.switch_page("pages/debate.py")
    app.query_params["id"] = result.debate_id
    app.run()
    assert not app.exception, [e.message for e in app.exception]
    captions = " ".join(c.value for c in app.caption)
    assert "Structured output: llama.cpp (llama-cpp-python): a forced tool call" in captions.replace("\\", "")


# -- claim ids a small model repeats ------------------------------------------------------------


def test_repeated_claims_are_kept_once_and_reused_ids_renumbered() -> None:
    from debate_core.protocols.cross_critique.rules import distinct_claims

    claims = [Claim(id="C1", statement="The will is valid.", confidence=0.5),
              Claim(id="C1", statement="The  will is VALID.", confidence=0.5),
              Claim(id="C2", statement="The deed was signed.", confidence=0.5),
              Claim(id="C2", statement="The children keep their share.", confidence=0.5)]
    kept, notes = distinct_claims(claims)
    assert [(c.id, c.statement) for c in kept] == [
        ("C1", "The will is valid."), ("C2", "The deed was signed."), ("C3", "The children keep their share.")]
    assert notes == ["claim C1 was repeated word for word; kept once",
                     "two different claims were numbered C2; the second is now C3"]


def test_a_debate_whose_model_repeats_a_claim_completes_and_says_so(db_path: Any) -> None:
    from fault_server import NameScript

    from debate_core.jobs.debates import run_debate
    from debate_core.store import DebateStore

    repeated = {"answer": "Safe for light traffic.", "claims": [
        {"id": "C1", "statement": "Load tests passed.", "evidence": ["e1"], "confidence": 0.6}] * 3}
    valid = {"AgentOutput": repeated,
             "CritiqueOutput": {"critiques": [], "shortfall": "no grounded critique"},
             "SupervisorOutput": {"answer": "Safe for light traffic.", "confidence": 0.6, "rationale": "agreed"}}
    with FaultServer(NameScript(valid)) as server:
        store = DebateStore(db_path)
        try:
            result = run_debate(CASE, "cross_critique", provider=provider(server.base_url), store=store)
            debate = store.get_debate(result.debate_id)
            claims = [c for c in store.claims(result.debate_id) if c["step_id"] == "r1.answer.proponent"]
        finally:
            store.close()
    assert result.status == "completed", result.error
    # Asked once per step: a repeat is not a reason to ask again; the moderator keeps it once.
    assert all(row["attempts"] == 1 for row in debate["steps"])
    assert any("claim C1 was repeated word for word; kept once" in w for w in result.warnings)
    assert [c["claim_id"] for c in claims] == ["C1"]
