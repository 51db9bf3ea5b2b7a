"""Shared vocabulary every layer of the engine uses: nothing here imports the rest of debate_core.

`settings`: the settings common to every protocol (DebateSettings), the error for one that cannot be
used (SettingsError) and the rule for agent ids (AGENT_ID).
"""

from __future__ import annotations

from .settings import AGENT_ID, DebateSettings, SettingsError

__all__ = ["AGENT_ID", "DebateSettings", "SettingsError"]
