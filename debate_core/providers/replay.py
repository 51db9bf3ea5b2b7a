"""Replay provider: answers each step from a debate cassette.

Cassette format (docs/contracts.md, "Replay cassette"): {"format": "debate-cassette/1",
"protocol": ..., "calls": [{"step": ..., "output": {...}}]}. A step may appear several times (a re-asked step); the calls for one step are
served in order and the last one repeats. Entries not asked for are ignored; a step the cassette
lacks fails the debate with a message naming the step.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..core.files import FileProblem, json_error, read_text_capped
from ..core.steering import Intervention
from .base import Provider, RawReply, StepFailed, StepRequest

CASSETTE_FORMAT = "debate-cassette/1"


class CassetteError(ValueError):
    pass


def load_cassette(source: str | Path | dict[str, Any]) -> dict[str, Any]:
    if isinstance(source, dict):
        data = source
    else:
        path = Path(source)
        try:
            # A byte-order mark (some editors write one) is dropped; a directory, a device or a FIFO
            # is refused before it is opened, and the size is bounded.
            data = json.loads(read_text_capped(path, "cassette file"))
        except FileProblem as exc:
            raise CassetteError(str(exc)) from None
        except json.JSONDecodeError as exc:
            raise CassetteError(f"cassette {path} is not valid JSON: {json_error(exc, '')}") from None
        except RecursionError:
            raise CassetteError(f"cassette {path}: the JSON is nested too deeply to read") from None
    if not isinstance(data, dict) or data.get("format") != CASSETTE_FORMAT:
        raise CassetteError(f"cassette format must be {CASSETTE_FORMAT!r}")
    calls = data.get("calls")
    if not isinstance(calls, list):
        raise CassetteError("cassette field 'calls' must be a list")
    for i, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("step"), str) or "output" not in call:
            raise CassetteError(f"cassette calls[{i}] needs a 'step' string and an 'output'")
    return data


class ReplayProvider(Provider):
    name = "replay"
    label = "replay (recorded cassette)"

    def __init__(self, cassette: str | Path | dict[str, Any], *, latency_ms: float = 0.0) -> None:
        # A cassette answer is fixed: asking again would give the same reply, so one attempt.
        super().__init__(max_attempts=1, latency_ms=latency_ms, model="replay")
        self.cassette = load_cassette(cassette)
        self.protocol = self.cassette.get("protocol")
        self._calls: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for call in self.cassette["calls"]:
            self._calls[call["step"]].append(call)
        self._served: dict[str, int] = defaultdict(int)

    def public_config(self) -> dict[str, Any]:
        return {**super().public_config(), "cassette_calls": len(self.cassette["calls"])}

    def interventions(self) -> list[Any]:
        """The reviewers' interventions the cassette recorded (`r{n}.human.*` entries): a replay
        re-applies each at the pause point it was made at."""
        found = []
        for i, call in enumerate(self.cassette["calls"]):
            if ".human." not in call["step"]:
                continue
            try:
                found.append(Intervention.model_validate(call["output"]))
            except ValueError as exc:
                raise CassetteError(f"cassette calls[{i}] ({call['step']}) is not a valid intervention: {exc}") from None
        return found

    async def _reply(self, req: StepRequest, messages: list[dict[str, str]], attempt: int) -> RawReply:
        entries = self._calls.get(req.step_id)
        if not entries:
            raise StepFailed(req.step_id, f"the cassette has no entry for step {req.step_id}", attempts=0)
        idx = min(self._served[req.step_id], len(entries) - 1)
        self._served[req.step_id] += 1
        entry = entries[idx]
        output = entry["output"]
        text = entry.get("raw") if isinstance(entry.get("raw"), str) else json.dumps(output, ensure_ascii=False)
        usage = entry.get("usage") or {}
        return RawReply(
            text=text,
            data=output if isinstance(output, dict) else None,
            input_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
        )
