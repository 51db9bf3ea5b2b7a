"""Every protocol's stopping and verdict rules are named, documented functions in its rules module."""

from __future__ import annotations

import inspect
import re

import pytest

from debate_core.protocols import specs

SPECS = {s.name: s for s in specs()}
# Contradiction detection is arbitration's first rule and lives in its own module
# (section 1 of the contradiction-arbitration source protocol).
# The rest are in the protocol's own `rules` (a module, or a package for the panel) or in the rules
# every protocol shares (protocols/common.py).
RULE_MODULE = re.compile(r"debate_core\.protocols\.(arbitration\.contradictions|common|\w+\.rules(\.\w+)?)")


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_listed_rule_is_a_documented_moderator_function_the_protocol_uses(name):
    spec = SPECS[name]
    protocol_source = inspect.getsource(inspect.getmodule(spec.run))
    assert spec.moderator, f"{name} lists no moderator rules"
    for rule in spec.moderator:
        where = f"{name}: {rule.__module__}.{rule.__name__}"
        assert RULE_MODULE.fullmatch(rule.__module__), f"{where} is not in a rules module"
        assert inspect.getdoc(rule), f"{where} has no docstring"
        # Used by the protocol itself, or by another listed rule (decide checks value_reported).
        callers = [protocol_source, *(inspect.getsource(r) for r in spec.moderator if r is not rule)]
        used = re.compile(rf"\b{rule.__name__}\b")
        assert any(used.search(src) for src in callers), f"{where} is listed but nothing in the protocol uses it"


def test_a_protocol_lists_the_stop_and_verdict_rules_it_now_calls():
    names = {n: {r.__name__ for r in s.moderator} for n, s in SPECS.items()}
    assert {"escalation_reasons", "convergence"} <= names["panel"]
    assert "stop_reason" in names["dialectic"] and "stop_reason" in names["refinement"]
    assert {"assess", "converged", "convergence_reason", "escalation_reasons"} <= names["cross_critique"]
    assert "value_reported" in names["arbitration"]
