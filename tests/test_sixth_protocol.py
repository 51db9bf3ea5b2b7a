"""Adding a protocol is one folder, one registry line and its prompt (docs/ENGINE.md): a tiny sixth
protocol written into a temporary folder runs offline end to end, is stored, and reads in the
transcript and the protocol catalogue, without touching any other file."""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path

import pytest

import debate_core.protocols as registry
from debate_core.core import prompts
from debate_core.core.schemas import Case, Evidence
from debate_core.jobs import debates as engine
from debate_core.present import export, protocol_choices
from debate_core.providers.offline.agents import _HANDLERS
from debate_core.store import DebateStore

SPEC_PY = '''
"""Echo: one agent restates the best-covered passage; a rule flags a low confidence."""

from pydantic import BaseModel, ConfigDict, Field

from debate_core.core import prompts
from debate_core.engine.spec import ProtocolSpec, StageSpec
from debate_core.engine.runtime import Outcome
from debate_core.core.schemas import Verdict

from . import rules


class EchoAnswer(BaseModel):
    answer: str = Field(min_length=1)
    confidence: float = Field(ge=0.0, le=1.0)


class EchoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    floor: float = Field(0.5, ge=0, le=1, description="below this confidence a human reviews the answer")


async def run(run):
    opts = EchoOptions.model_validate(run.settings.options or {})
    agent = run.agent_profiles([{"id": "echo"}])[0]
    out = await run.step("r1.answer." + agent["id"], EchoAnswer, "echo/answer",
                         {"question": prompts.data_block("question", run.case.question),
                          "evidence": prompts.evidence_block(run.case.evidence)}, {"agent": agent})
    reason = rules.too_unsure(out.confidence, opts.floor)
    verdict = Verdict(answer=out.answer, confidence=out.confidence, needs_human_review=bool(reason),
                      escalation_reasons=[reason] if reason else [], applied_rules=["E1.too_unsure"] if reason else [])
    return Outcome(rounds=1, converged=True, convergence_reason="one answer", verdict=verdict,
                   trajectory=[{"round": 1, "stage": "echo", "confidence": out.confidence}])


SPEC = ProtocolSpec(
    name="echo", title="Echo", description="One agent restates the passage that best answers the question.",
    default_agents=({"id": "echo"},), min_agents=1, max_agents=1, min_rounds=1, max_rounds=1, default_rounds=1,
    options_model=EchoOptions, run=run,
    stages=(StageSpec("answer", "Echoed answer", EchoAnswer, "the restated passage", reply_cap=300, noun="echo"),),
    moderator=(rules.too_unsure,), glossary={"E1.too_unsure": "The answer is less sure than the floor."},
    offline_agent=f"{__name__}.agent",
)
'''

RULES_PY = '''
def too_unsure(confidence: float, floor: float) -> str | None:
    """A human reviews an answer less sure than the floor."""
    return f"confidence {confidence:.2f} is below {floor:.2f}" if confidence < floor else None
'''

AGENT_PY = '''
from debate_core.providers.offline.agents import register


@register("echo", "answer")
def answer(payload):
    case = payload["case"]
    words = set(case.question.lower().split())
    best = max(case.evidence, key=lambda e: len(words & set(e.text.lower().split())))
    share = len(words & set(best.text.lower().split())) / max(1, len(words))
    return {"answer": best.text, "confidence": round(min(1.0, share), 2)}
'''

PROMPT_MD = """## System
Restate the passage that answers the question. Reply in JSON.

## User
${question}

${evidence}
"""

CASE = Case(id="bridge", title="Bridge", question="Is the old bridge safe for trucks?",
            evidence=[Evidence(id="e1", source="inspection 2023", text="The old bridge is safe for trucks up to 40 t."),
                      Evidence(id="e2", source="newsletter", text="Tourists like the view.")])


@pytest.fixture
def sixth_protocol(tmp_path, monkeypatch):
    """The folder a developer writes, placed beside the built-in protocols, and its registry line."""
    folder = tmp_path / "protocols" / "echo"
    folder.mkdir(parents=True)
    for name, text in {"__init__.py": SPEC_PY, "rules.py": RULES_PY, "agent.py": AGENT_PY}.items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    prompt_dir = tmp_path / "prompts"
    shutil.copytree(prompts.PROMPT_DIR, prompt_dir)  # the built-in prompts stay readable
    (prompt_dir / "echo").mkdir()
    (prompt_dir / "echo" / "answer.md").write_text(PROMPT_MD, encoding="utf-8")
    monkeypatch.setattr(registry, "__path__", [*registry.__path__, str(tmp_path / "protocols")])
    monkeypatch.setattr(registry, "PROTOCOLS", (*registry.PROTOCOLS, "echo"))
    monkeypatch.setattr(prompts, "PROMPT_DIR", prompt_dir)
    prompts.load.cache_clear()
    yield
    prompts.load.cache_clear()
    for name in [m for m in sys.modules if m.startswith("debate_core.protocols.echo")]:
        del sys.modules[name]
    _HANDLERS.pop(("echo", "answer"), None)


def test_a_sixth_protocol_from_one_folder_runs_offline_end_to_end(sixth_protocol, tmp_path: Path) -> None:
    store = DebateStore(tmp_path / "d.db")
    sure = engine.run_debate(CASE, "echo", store=store)
    assert sure.status == "completed", sure.error
    assert sure.verdict.answer == "The old bridge is safe for trucks up to 40 t."
    assert not sure.verdict.needs_human_review
    # Its option and its rule work through the same path: a higher floor sends it to a human.
    from debate_core.engine.runtime import DebateSettings

    unsure = engine.run_debate(CASE, "echo", settings=DebateSettings(options={"floor": 0.99}), store=store)
    assert unsure.verdict.needs_human_review and unsure.verdict.applied_rules == ["E1.too_unsure"]

    stored = store.get_debate(sure.debate_id)
    assert [s["step_id"] for s in stored["steps"]] == ["r1.answer.echo"]
    assert "The old bridge is safe for trucks up to 40 t." in export.transcript_markdown(stored)
    # The catalogue the CLI's `protocols` and the New debate page read takes it in.
    assert "echo" in {p["name"] for p in protocol_choices.protocol_catalogue()}
    with pytest.raises(registry.SettingsError):
        registry.validate_settings("echo", DebateSettings(options={"floor": 2}))


def test_without_its_registry_line_the_folder_is_not_a_protocol(sixth_protocol, monkeypatch) -> None:
    monkeypatch.setattr(registry, "PROTOCOLS", tuple(p for p in registry.PROTOCOLS if p != "echo"))
    with pytest.raises(registry.UnknownProtocol):
        registry.get_spec("echo")
