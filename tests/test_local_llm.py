"""A full debate through ChatOpenAI against a real local model server (llama-cpp-python, SmolLM2-135M).

Runs only when LOCAL_LLM_BASE_URL is set, e.g. after

    eval "$(scripts/local_llm_server.sh start | grep ^LOCAL_LLM_BASE_URL=)"; export LOCAL_LLM_BASE_URL

The model is tiny and often produces JSON that does not validate (confidences of 10, say), so the
debate may complete or fail; either way it must end cleanly, with tokens counted and every
attempted step's raw output kept in the store. The run is bounded (two rounds, two attempts per
step, a per-call and a total token bound) to stay within a few minutes on two cores.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from debate_core.providers import StepFailed, make_provider
from debate_core.providers.base import StepRequest
from debate_core.schemas import SupervisorOutput
from debate_core.store import DebateStore

BASE_URL = os.environ.get("LOCAL_LLM_BASE_URL")
ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "data" / "cases" / "national_will_formalities.json"
FAKE_KEY = "sk-local-test-key-that-must-not-be-stored-42"

pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.skipif(not BASE_URL, reason="LOCAL_LLM_BASE_URL is not set (scripts/local_llm_server.sh start)"),
]


def test_json_schema_refusal_falls_back_to_function_calling_on_the_real_server() -> None:
    provider = make_provider("openai", model="smollm2", base_url=BASE_URL, method="json_schema",
                             max_attempts=1, max_tokens=120, timeout=240)
    request = StepRequest(
        step_id="final.supervisor", protocol="cross_critique", stage="final", agent="supervisor",
        output_model=SupervisorOutput,
        messages=[{"role": "system", "content": "Answer in JSON with answer, confidence (0 to 1) and rationale."},
                  {"role": "user", "content": "Is a will valid without witnesses? Answer briefly."}],
    )
    try:
        result = asyncio.run(provider.complete(request))
        usage, raw = result.usage, result.raw
    except StepFailed as exc:  # the tiny model may not produce valid output; that is a clean outcome
        usage, raw = exc.usage, exc.raw
    assert provider.public_config()["method_in_use"] == "function_calling"
    assert usage.calls == 1 and usage.input_tokens > 0 and usage.output_tokens > 0
    assert raw is not None


def test_full_debate_through_the_cli_ends_cleanly_with_usage_and_raw_outputs(tmp_path: Path) -> None:
    db = tmp_path / "local.db"
    cmd = [
        sys.executable, "-m", "debate_core", "run", str(CASE), "--protocol", "cross_critique",
        "--provider", "openai", "--base-url", BASE_URL, "--model", "smollm2", "--json", "--db", str(db),
        # The server answers one request at a time and keeps generating for a client that timed out,
        # so: one call in flight, a timeout above the slowest capped reply, and replies capped by the
        # per-call bound (first prompts are ~1300 estimated tokens; a re-ask also carries the
        # rejected reply, ~100-300 tokens from this model). The debate budget bounds the run.
        "--rounds", "2", "--max-attempts", "2", "--timeout", "300", "--concurrency", "1",
        "--max-output-tokens", "400", "--max-tokens-per-call", "4000", "--max-total-tokens", "12000",
    ]
    env = {**os.environ, "OPENAI_API_KEY": FAKE_KEY}
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    elapsed = time.perf_counter() - started
    print(f"local debate: exit {proc.returncode} in {elapsed:.0f} s\n{proc.stderr[-2000:]}")

    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    out = json.loads(proc.stdout)
    assert out["status"] == ("completed" if proc.returncode == 0 else "failed")
    if out["status"] == "failed":
        assert out["error"] and out["failed_step"]
    assert out["usage"]["calls"] >= 1
    assert out["usage"]["input_tokens"] > 0 and out["usage"]["output_tokens"] > 0

    store = DebateStore(db, readonly=True)
    debate = store.get_debate(out["debate_id"])
    assert debate["status"] == out["status"]
    assert debate["input_tokens"] == out["usage"]["input_tokens"]
    assert debate["provider_config"]["model"] == "smollm2"
    steps = debate["steps"]
    assert steps, "no step was saved"
    for row in steps:
        assert row["status"] in ("ok", "failed"), row
        answered = row["status"] == "ok" or any(e.startswith("attempt ") for e in row["errors"])
        if answered:
            # A step the model answered keeps what the model said, and its tokens, valid or not.
            assert row["raw_output"] is not None, row
            assert row["input_tokens"] > 0 and row["output_tokens"] > 0, row
    dump = "\n".join(store.db.conn.iterdump())
    assert FAKE_KEY not in dump
