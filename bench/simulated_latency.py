"""Simulated latency: do the offline and replay providers wait `latency_ms` on every call, through
the engine API and through the CLI flag `--latency-ms`?

Each provider runs the dialectic sample case (one call per stage, so wall time is easy to read)
at zero and at L ms per call. Figures per provider: the shortest recorded per-call latency (must be
at least L), and the extra wall time divided by calls x L (about 1.00 when every call waits once).
The CLI is run as a user runs it, with its own database; the figure read back is the latency
that the store recorded for each call and the provider settings kept with the debate.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import benchlib
from benchlib import Figure

from debate_core.core.events import MemorySink
from debate_core.jobs.debates import run_debate
from debate_core.providers import make_provider
from debate_core.store import DebateStore

PROTOCOL = "dialectic"


def engine_run(provider_name: str, latency_ms: float, cassette_file: Path) -> tuple[float, list[float], int]:
    case = benchlib.case_for(PROTOCOL)
    options = {"cassette": str(cassette_file)} if provider_name == "replay" else {}
    sink = MemorySink()

    def once(latency: float):
        sink.events.clear()
        return run_debate(case, PROTOCOL, provider=make_provider(provider_name, latency_ms=latency, **options),
                          sink=sink)

    once(0)
    wall0, _ = benchlib.timed(lambda: once(0), 3)
    wall, result = benchlib.timed(lambda: once(latency_ms), 1)
    assert result.status == "completed", result.error
    per_call = [e.data["latency_ms"] for _, e in sink.events if e.kind == "turn_finished"]
    return wall - wall0, per_call, result.usage["calls"]


def cli_run(provider_name: str, latency_ms: float, cassette_file: Path, tmp: Path) -> dict:
    db = tmp / f"cli-{provider_name}.db"
    cmd = [sys.executable, "-m", "debate_core", "run", str(benchlib.SAMPLE_CASE[PROTOCOL]), "--protocol", PROTOCOL,
           "--provider", provider_name, "--latency-ms", str(latency_ms), "--json", "--quiet", "--db", str(db)]
    if provider_name == "replay":
        cmd += ["--cassette", str(cassette_file)]
    proc = subprocess.run(cmd, cwd=benchlib.ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(benchlib.ROOT)})
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    debate_id = json.loads(proc.stdout)["debate_id"]
    store = DebateStore(db, readonly=True)
    try:
        debate = store.get_debate(debate_id)
        latencies = [s["latency_ms"] for s in debate["steps"] if s["status"] == "ok"]
        return {"latencies": latencies, "configured": debate["provider_config"].get("latency_ms")}
    finally:
        store.close()


def main() -> None:
    args = benchlib.parse_args(__doc__.splitlines()[0])
    latency_ms = 100.0 if args.quick else 200.0
    cmd = benchlib.command("simulated_latency.py", args)
    _, cassette = benchlib.record_cassette(benchlib.case_for(PROTOCOL), PROTOCOL)
    rows, figures = [], []
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        cassette_file = tmp / "cassette.json"
        cassette_file.write_text(json.dumps(cassette), encoding="utf-8")
        for name in ("offline", "replay"):
            extra, per_call, calls = engine_run(name, latency_ms, cassette_file)
            ratio = extra / (calls * latency_ms / 1000.0)
            ok = min(per_call) >= latency_ms and 0.95 <= ratio <= 1.10
            rows.append([f"{name} (engine)", calls, f"{min(per_call):.1f}", f"{extra * 1000:.0f}", f"{ratio:.3f}", "-"])
            figures.append(Figure(f"simulated latency: {name} provider, extra wall / (calls x L)", f"{ratio:.3f}",
                                  "every call >= L, ratio 0.95-1.10", ok, cmd))
            cli = cli_run(name, latency_ms, cassette_file, tmp)
            if "error" in cli:
                rows.append([f"{name} (CLI --latency-ms)", "-", "-", "-", "-", cli["error"]])
                figures.append(Figure(f"simulated latency: CLI --provider {name} --latency-ms", cli["error"],
                                      "every call >= L", False, cmd))
                continue
            cli_ok = bool(cli["latencies"]) and min(cli["latencies"]) >= latency_ms and cli["configured"] == latency_ms
            rows.append([f"{name} (CLI --latency-ms)", len(cli["latencies"]), f"{min(cli['latencies']):.1f}", "-", "-",
                         cli["configured"]])
            figures.append(Figure(f"simulated latency: CLI --provider {name} --latency-ms, shortest stored call",
                                  f"{min(cli['latencies']):.1f} ms", f">= {latency_ms:.0f} ms", cli_ok, cmd))
    print(f"Simulated latency L = {latency_ms:.0f} ms per call on the {PROTOCOL} sample case\n")
    benchlib.print_table(["provider", "calls", "shortest call ms", "extra wall ms", "extra / (calls x L)",
                          "stored latency_ms setting"], rows)
    benchlib.report(figures, args)


if __name__ == "__main__":
    main()
