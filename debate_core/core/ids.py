"""Debate ids, and who runs a debate: their own module so the store, the worker and the evaluation
harness can use them without importing the engine or each other."""

from __future__ import annotations

import os
import socket
import time
import uuid
from typing import Any


def new_debate_id() -> str:
    """A sortable, human-readable id: start time to the second plus six random hex digits."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]


def runner_info() -> dict[str, Any]:
    """Who runs a debate: kept with its stored settings so other processes can tell if it died."""
    return {"pid": os.getpid(), "host": socket.gethostname()}
