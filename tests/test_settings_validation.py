"""Protocol settings are checked against typed models: one plain line naming the key, or the settings."""

from __future__ import annotations

import pytest

from debate_core.engine.runtime import DebateSettings
from debate_core.protocols import PROTOCOLS, SettingsError, get_spec, validate_options, validate_settings


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_option_is_typed_described_and_every_preset_validates(protocol):
    spec = get_spec(protocol)
    fields = spec.options_model.model_fields
    assert fields and all(f.description for f in fields.values())
    assert spec.options_model.model_config["extra"] == "forbid"
    for preset in spec.presets.values():
        validate_settings(protocol, DebateSettings(rounds=preset.get("rounds"), agents=preset.get("agents"),
                                                   options=preset.get("options", {})))
    validate_settings(protocol, DebateSettings(agents=list(spec.default_agents)))


@pytest.mark.parametrize(("protocol", "options", "message"), [
    ("cross_critique", {"max_claims": "abc"}, "option 'max_claims' must be a whole number from 1 to 10, got 'abc'"),
    ("cross_critique", {"unsupported_limit": 1.5}, "option 'unsupported_limit' must be a number from 0 to 1, got 1.5"),
    ("refinement", {"plateau_points": "abc"}, "option 'plateau_points' must be a number from 0 to 100, got 'abc'"),
    ("refinement", {"escalate_without_convergence": "maybe"},
     "option 'escalate_without_convergence' must be true or false, got 'maybe'"),
    ("dialectic", {"asp_check": "sometimes"}, "option 'asp_check' must be one of 'auto', 'always', 'off', got 'sometimes'"),
    ("arbitration", {"authority_order": 5},
     "option 'authority_order' must be a list of source names or text such as 'Statistics Office > Central Bank > other', got 5"),
    ("arbitration", {"authority_order": ["A", 5]},
     "option 'authority_order' must be a list of source names or text such as 'Statistics Office > Central Bank > other', "
     'got ["A", 5]'),
    ("arbitration", {"confidence_gap": "x"}, "option 'confidence_gap' must be a number from 0 to 1 or null, got 'x'"),
    ("panel", {"debate_override": {"min_totl": 1}},
     "option 'debate_override.min_totl' is not a key of option 'debate_override'; did you mean 'min_total'?"),
    ("panel", {"debate_thresholds": {"coverage_warn": "high"}},
     "option 'debate_thresholds.coverage_warn' must be a number from 0 to 1, got 'high'"),
    ("panel", {"personas": {"critic": {"styl": "icy"}}},
     "option 'personas.critic.styl' is not a key of option 'personas.critic'; did you mean 'style'?"),
    ("panel", {"order": []}, "option 'order' must be a non-empty list of persona ids, got []"),
    ("panel", {"zzz": 1}, "option 'zzz' is not a panel option; known: enable_debate, enable_debate_override, "
                          "stage2_review, personas, order, debate_override, debate_thresholds, review_confidence"),
])
def test_bad_options_name_the_key_in_one_plain_line(protocol, options, message):
    with pytest.raises(SettingsError) as caught:
        validate_options(protocol, options)
    assert str(caught.value) == message


def test_options_come_back_typed_with_the_protocols_defaults():
    from debate_core.protocols.arbitration.contradictions import VALUE_THRESHOLD
    from debate_core.protocols.cross_critique import rules

    cc = validate_options("cross_critique", {"max_claims": "8"})
    assert cc.max_claims == 8 and cc.min_critiques == rules.MIN_CRITIQUES and cc.convergence_mode == "any"
    arb = validate_options("arbitration", {"authority_order": "GCC-STAT > IMF > other"})
    assert arb.authority_order == ["GCC-STAT", "IMF"] and arb.value_threshold == VALUE_THRESHOLD


@pytest.mark.parametrize(("protocol", "agents", "message"), [
    ("cross_critique", ["nla"], "cross_critique takes from 2 to 6 agent(s), got 1"),
    ("dialectic", ["a", "b"], "dialectic takes exactly 3 agent(s), got 2"),
    ("panel", [], "panel takes at least 1 agent(s), got 0"),
    ("panel", ["bad id"], "agent id 'bad id' may contain only letters, digits, '_' and '-'"),
    ("arbitration", ["arbiter", "arbiter"], "agent id 'arbiter' appears twice"),
    ("refinement", ["x" * 41, "y"], "agent id '" + "x" * 40 + "...' is longer than 40 characters"),
])
def test_agent_ids_and_counts(protocol, agents, message):
    with pytest.raises(SettingsError) as caught:
        validate_settings(protocol, DebateSettings(agents=[{"id": a} for a in agents]))
    assert str(caught.value) == message


@pytest.mark.parametrize(("settings", "message"), [
    (DebateSettings(rounds=0), "rounds must be at least 1, got 0"),
    (DebateSettings(rounds=11), "rounds must be at most 10, got 11"),
    (DebateSettings(concurrency=0), "concurrency must be at least 1, got 0"),
    (DebateSettings(max_total_tokens=-1), "max_total_tokens must be at least 1, got -1"),
])
def test_common_settings_are_bounded(settings, message):
    with pytest.raises(SettingsError) as caught:
        validate_settings("cross_critique", settings)
    assert str(caught.value) == message
