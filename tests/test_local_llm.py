"""A full debate through ChatOpenAI against a real local model server (llama-cpp-python, SmolLM2-135M).

Runs only when LOCAL_LLM_BASE_URL is set, e.g. after

    eval "$(scripts/local_llm_server.sh start | grep ^LOCAL_LLM_BASE_URL=)"; export LOCAL_LLM_BASE_URL

The debate runs with the defaults a new user gets (no timeout, cap, concurrency or attempt flags).
The model is tiny and often produces JSON that does not validate (confidences of 10, say), so the
debate may complete or fail, but only cleanly and in bounded time: it ends within 10 minutes on
two cores, and a failure names the step and the cause. Either way tokens are counted and every
attempted step's raw output is kept. How fast it fails or completes, against the 3-minute goal
for failures, is measured by bench/local_model.py (docs/benchmarks.md), not asserted here: the
machine is shared and the model's speed varies tenfold with the load.
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
CAUSES = ("no valid output after", "numbers still out of range", "the model did not finish within",
          "the model stalled", "the model server at", "stopped by a bound")


def test_full_debate_with_default_settings_completes_or_fails_cleanly_in_time(tmp_path: Path) -> None:
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

    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    # The defaults for a local server, announced: one call at a time.
    assert "concurrency: 1 call(s) at a time" in proc.stderr
    out = json.loads(proc.stdout)
    assert out["status"] == ("completed" if proc.returncode == 0 else "failed")
    assert elapsed < WITHIN_S, f"{out['status']} after {elapsed:.0f} s"
    if out["status"] == "failed":
        assert out["failed_step"] and out["failed_step"] in out["error"]
        assert any(cause in out["error"] for cause in CAUSES), out["error"]
    assert out["usage"]["calls"] >= 1
    assert out["usage"]["input_tokens"] > 0
    # A first step that timed out while the server was still reading the prompt received no token.
    assert out["usage"]["output_tokens"] > 0 or "(0 tokens received)" in out.get("error", "")

    store = DebateStore(db, readonly=True)
    debate = store.get_debate(out["debate_id"])
    assert debate["status"] == out["status"]
    assert debate["input_tokens"] == out["usage"]["input_tokens"]
    assert debate["provider_config"]["model"] == "smollm2"
    assert debate["provider_config"]["max_concurrency"] == 1
    steps = debate["steps"]
    assert steps, "no step was saved"
    for row in steps:
        assert row["status"] in ("ok", "failed"), row
        assert row["reply_cap"] and row["reply_cap"] <= 1500, row
        answered = row["status"] == "ok" or any(e.startswith("attempt ") for e in row["errors"])
        if answered:
            # A step the model answered keeps what the model said, and its tokens, valid or not.
            assert row["raw_output"] is not None, row
            assert row["input_tokens"] > 0 and row["output_tokens"] > 0, row
    dump = "\n".join(store.db.conn.iterdump())
    assert FAKE_KEY not in dump
