"""The progress notes a stored debate writes to stderr while it runs."""

from __future__ import annotations

import sys
import time
from typing import Any

from ..core.events import Event, EventSink


class ProgressSink(EventSink):
    """Writes every event to the store and a one-line progress note to stderr.

    Running steps show their tokens so far and tokens per second: on a terminal as one line that
    updates in place, otherwise (a log file, CI) as a line per step every `every_s` seconds."""

    def __init__(self, inner: EventSink, stream: Any = None, quiet: bool = False,
                 live: bool | None = None, every_s: float = 10.0) -> None:
        # The stream is looked up when the sink is made, not when this module is imported, so a caller
        # that redirects sys.stderr (a test running the command in-process) sees the progress too.
        stream = sys.stderr if stream is None else stream
        self.inner, self.stream, self.quiet = inner, stream, quiet
        self.done = 0
        self.live = bool(getattr(stream, "isatty", lambda: False)()) if live is None else live
        self.every_s = every_s
        self.running: dict[str, str] = {}  # step id -> its progress, while it runs
        self._printed_at: dict[str, float] = {}
        self._caps: dict[str, int] = {}
        self._status_shown = False

    def record(self, debate_id: str, event: Event) -> None:
        self.inner.record(debate_id, event)
        if self.quiet:
            return
        d = event.data
        line = None
        step = event.step_id or ""
        if event.kind == "debate_started":
            provider = d.get("provider", {})
            line = f"debate {debate_id} started ({d.get('protocol')}, {provider.get('provider')})"
            if provider.get("concurrency_note"):
                line += f"\n  concurrency: {provider['concurrency_note']}"
        elif event.kind == "continued":
            line = f"debate {debate_id} continues from {d.get('resume_at')}"
        elif event.kind in ("paused", "stopped"):
            line = f"debate {debate_id} {event.kind} {d.get('where')}"
        elif event.kind == "turn_started":
            self.running[step] = "waiting"
            if d.get("reply_cap"):
                self._caps[step] = d["reply_cap"]
            self._redraw()
        elif event.kind == "turn_progress":
            rate = d.get("tokens_per_s")
            tokens = d.get("tokens") or 0
            self.running[step] = (f"{tokens} tokens" + (f", {rate:.1f} tokens/s" if rate else "")
                                  if tokens else "waiting for the first token")
            if self.live:
                self._redraw()
            else:
                now = time.monotonic()
                if now - self._printed_at.get(step, 0.0) >= self.every_s:
                    self._printed_at[step] = now
                    line = f"  {step} running: {self.running[step]}"
        elif event.kind == "turn_finished":
            self.done += 1
            self._forget(step)
            cap = f", reply cap {self._caps[step]}" if self._caps.get(step) else ""
            line = (f"  [{self.done:>2}] {event.step_id} done: {d.get('input_tokens', 0)}+{d.get('output_tokens', 0)} tokens, "
                    f"{d.get('latency_ms', 0):.0f} ms" + (f", {d.get('attempts')} attempts" if (d.get("attempts") or 1) > 1 else "")
                    + cap)
        elif event.kind == "turn_failed":
            self._forget(step)
            line = f"  {event.step_id} FAILED: {d.get('error')}"
        elif event.kind == "round_closed":
            line = f"round {d.get('round')} closed"
        elif event.kind == "warning":
            line = f"  warning: {d.get('message')}"
        if line:
            self._clear_status()
            print(line, file=self.stream, flush=True)
            self._redraw()

    def _forget(self, step: str) -> None:
        self.running.pop(step, None)
        self._printed_at.pop(step, None)

    def _clear_status(self) -> None:
        if self._status_shown:
            self.stream.write("\r\033[K")
            self._status_shown = False

    def _redraw(self) -> None:
        if not self.live:
            return
        self._clear_status()
        if self.running:
            status = " | ".join(f"{step}: {state}" for step, state in self.running.items())
            self.stream.write(f"  running {status}"[:240])
            self.stream.flush()
            self._status_shown = True
