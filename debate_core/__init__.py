"""debate_core: structured multi-agent debates with evidence checks and a human review workflow."""

__version__ = "0.1.0"
