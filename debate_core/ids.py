"""Debate ids: their own module so the store can make one without importing the engine."""

from __future__ import annotations

import time
import uuid


def new_debate_id() -> str:
    """A sortable, human-readable id: start time to the second plus six random hex digits."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
