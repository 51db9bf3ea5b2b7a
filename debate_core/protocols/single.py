"""Baseline `single`: one agent answers alone (debate_core/protocols/baselines.py)."""

from .baselines import SINGLE as SPEC

__all__ = ["SPEC"]
