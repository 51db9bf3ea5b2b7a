"""Baseline `majority`: a majority vote over independent single agents (debate_core/protocols/baselines.py)."""

from .baselines import MAJORITY as SPEC

__all__ = ["SPEC"]
