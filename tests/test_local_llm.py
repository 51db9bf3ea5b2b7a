"""A full debate through ChatOpenAI against a real local model server (llama-cpp-python, SmolLM2-135M).

Runs only when LOCAL_LLM_BASE_URL is set, e.g. after

    eval "$(scripts/local_llm_server.sh start | grep ^LOCAL_LLM_BASE_URL=)"; export LOCAL_LLM_BASE_URL

The debate runs with the defaults a new user gets (no timeout, cap, concurrency or attempt flags),
and it completes: the server is recognised as llama-cpp-python, the forced tool call is generated
under a grammar built from the bounded schema (every string has a maxLength, every list a
maxItems, a confidence is one of its levels), so the tiny model can neither run on inside a string
nor write a confidence of 10. Tokens are counted and every step's raw output is kept. How often and
how fast it completes, against the 4-of-5 goal, is measured by bench/local_model.py
(docs/benchmarks.md), not asserted here: the machine is shared and the model's speed varies
tenfold with the load.
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

from debate_core.protocols.cross_critique.models import SupervisorOutput
from debate_core.providers import StepFailed, make_provider
from debate_core.providers.base import StepRequest
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


WITHIN_S = 600


def test_full_debate_with_default_settings_completes(tmp_path: Path) -> None:
    db = tmp_path / "local.db"
    cmd = [
        sys.executable, "-m", "debate_core", "run", str(CASE), "--protocol", "cross_critique", "--rounds", "2",
        "--provider", "openai", "--base-url", BASE_URL, "--model", "smollm2", "--json", "--db", str(db),
    ]
    env = {**os.environ, "OPENAI_API_KEY": FAKE_KEY}
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=WITHIN_S + 120)
    elapsed = time.perf_counter() - started
    print(f"local debate: exit {proc.returncode} in {elapsed:.0f} s\n{proc.stderr[-3000:]}")

    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    # The defaults for a local server, announced: one call at a time.
    assert "concurrency: 1 call(s) at a time" in proc.stderr
    out = json.loads(proc.stdout)
    assert proc.returncode == 0 and out["status"] == "completed", (out.get("failed_step"), out.get("error"))
    assert out["verdict"] and 0 <= out["verdict"]["confidence"] <= 1
    assert out["provider"]["server_kind"] == "llama-cpp-python"
    assert out["provider"]["method_in_use"] == "function_calling"
    assert "grammar" in out["provider"]["structured_output"]
    assert out["usage"]["calls"] >= 1
    assert out["usage"]["input_tokens"] > 0
    assert out["usage"]["output_tokens"] > 0

    store = DebateStore(db, readonly=True)
    debate = store.get_debate(out["debate_id"])
    assert debate["status"] == out["status"]
    assert debate["input_tokens"] == out["usage"]["input_tokens"]
    assert debate["provider_config"]["model"] == "smollm2"
    assert debate["provider_config"]["max_concurrency"] == 1
    steps = debate["steps"]
    assert steps, "no step was saved"
    final_calls = {}
    for row in steps:
        assert row["status"] in ("ok", "failed"), row
        assert row["reply_cap"] and row["reply_cap"] <= 2000, row
        final_calls[row["step_id"]] = row
        # Every step keeps what the model said, and its tokens.
        assert row["raw_output"] is not None, row
        assert row["input_tokens"] > 0 and row["output_tokens"] > 0, row
    # Round 1's answers and critiques, round 2's revisions, and the supervisor, each ending valid.
    assert {"r1.answer.nla", "r1.answer.ala", "r1.critique.nla.ala", "r1.critique.ala.nla", "r2.revise.nla",
            "r2.revise.ala", "final.supervisor"} <= set(final_calls), sorted(final_calls)
    assert all(row["status"] == "ok" for row in final_calls.values()), final_calls
    dump = "\n".join(store.db.conn.iterdump())
    assert FAKE_KEY not in dump
