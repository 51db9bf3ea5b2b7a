"""Dialectic protocol (the dialectic source protocol): stopping rules, the engine's clingo check, escalation, offline agents."""

from __future__ import annotations

import pytest

from debate_core.core.cases import CASES_DIR, load_case, parse_case
from debate_core.core.events import MemorySink
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.protocols.dialectic import rules
from debate_core.protocols.dialectic.rules import ENGINE_ISSUE_PREFIX, check_asp, looks_like_asp, rule_diff
from debate_core.providers import ReplayProvider

GOOD = "enforceable(C) :- contract(C), offer(C), acceptance(C), consideration(C)."
BETTER = "enforceable(C) :- contract(C), offer(C), acceptance(C), consideration(C), capacity(C), not duress(C)."
NO_PERIOD = "enforceable(C) :- contract(C), offer(C), acceptance(C), consideration(C)"


@pytest.fixture
def case():
    return parse_case({
        "id": "t-dialectic", "title": "contracts", "question": "When is a contract enforceable(C)?",
        "evidence": [{"id": "E1", "source": "treatise", "text": "A contract requires offer and acceptance."}],
    })


def thesis(rule, confidence=0.6):
    return {"step": "r1.thesis.generator", "output": {"rule": rule, "reasoning": "from E1", "confidence": confidence}}


def anti(n, recommendation, issues=(), argument=""):
    return {"step": f"r{n}.antithesis.critic", "output": {
        "issues": list(issues), "edge_cases": ["minors"], "contradictions": [],
        "recommendation": recommendation, "argument": argument}}


def synth(n, rule, confidence):
    return {"step": f"r{n}.synthesis.synthesizer", "output": {"rule": rule, "argument": f"round {n}", "confidence": confidence}}


def replay(*calls):
    return ReplayProvider({"format": "debate-cassette/1", "protocol": "dialectic", "calls": list(calls)})


def test_critic_accepts_first_thesis_without_a_synthesis_call(case):
    # The cassette has no synthesis entry: calling the synthesizer would fail the debate.
    res = run_debate(case, "dialectic", provider=replay(thesis(GOOD), anti(1, "accept")))
    assert res.status == "completed", res.error
    assert res.converged and res.convergence_reason == "Critic accepted thesis"
    assert res.rounds == 1 and res.usage["calls"] == 2
    assert res.result["final_rule"]["rule"] == GOOD and not res.verdict.needs_human_review
    assert res.result["improvement_score"] == 0.0
    phases = [(t["speaker"], t["phase"]) for t in res.result["transcript"]]
    assert phases == [("generator", "thesis"), ("critic", "antithesis"), ("engine", "converged")]
    assert "jaccard" not in res.trajectory[0]


def test_jaccard_threshold_stops_when_the_synthesis_barely_changes(case):
    small_change = GOOD.replace("consideration(C).", "consideration(C), capacity(C).")
    res = run_debate(case, "dialectic", provider=replay(
        thesis(GOOD, 0.6), anti(1, "revise", ["capacity missing"]), synth(1, small_change, 0.7)),
        settings=DebateSettings(options={"convergence_threshold": 0.6}))
    assert res.converged and res.rounds == 1
    jac = res.trajectory[0]["jaccard"]
    assert 0.6 <= jac < 0.85
    assert res.convergence_reason == f"Convergence score {jac:.2f} exceeded threshold"
    assert res.result["final_rule"]["rule"] == small_change
    assert res.result["improvement_score"] == pytest.approx(0.1)
    assert res.result["rounds"][0]["rule_diff"] == {"added": ["capacity(C)"], "removed": []}


def test_default_threshold_does_not_stop_on_the_same_change(case):
    small_change = GOOD.replace("consideration(C).", "consideration(C), capacity(C).")
    res = run_debate(case, "dialectic", provider=replay(
        thesis(GOOD), anti(1, "revise", ["capacity missing"]), synth(1, small_change, 0.7), anti(2, "accept")))
    assert res.converged and res.rounds == 2 and res.convergence_reason == "Critic accepted thesis"
    assert res.result["transcript"][3]["phase"] == "thesis" and res.result["transcript"][3]["carried_over"]


def test_max_rounds_reached_escalates(case):
    rules = ["enforceable(C) :- contract(C).", "enforceable(C) :- contract(C), offer(C).",
             "enforceable(C) :- contract(C), offer(C), acceptance(C), consideration(C).", BETTER]
    calls = [thesis(rules[0], 0.6)]
    for n in (1, 2, 3):
        calls += [anti(n, "revise", [f"issue {n}"]), synth(n, rules[n], 0.6 + 0.1 * n)]
    sink = MemorySink()
    res = run_debate(case, "dialectic", provider=replay(*calls), settings=DebateSettings(rounds=3), sink=sink)
    assert res.rounds == 3 and not res.converged
    assert res.convergence_reason == "Max rounds (3) reached"
    assert res.result["final_rule"]["rule"] == rules[3]
    assert res.verdict.needs_human_review
    assert "max_rounds_without_acceptance" in res.verdict.applied_rules
    assert res.result["improvement_score"] == pytest.approx(0.3)
    assert [t["round"] for t in res.trajectory] == [1, 2, 3]
    assert sink.kinds().count("round_closed") == 3
    assert len(res.result["transcript"]) == 9


def test_max_rounds_escalation_can_be_switched_off(case):
    calls = [thesis(GOOD), anti(1, "revise", ["x"]), synth(1, BETTER, 0.8)]
    res = run_debate(case, "dialectic", provider=replay(*calls),
                     settings=DebateSettings(rounds=1, options={"escalate_at_max_rounds": False}))
    assert res.convergence_reason == "Max rounds (1) reached"
    assert not res.verdict.needs_human_review


def test_unparsable_thesis_becomes_a_critical_issue_and_overrides_accept(case):
    sink = MemorySink()
    res = run_debate(case, "dialectic", sink=sink, provider=replay(
        thesis(NO_PERIOD), anti(1, "accept"), synth(1, GOOD, 0.7), anti(2, "accept")))
    assert res.status == "completed", res.error
    first = res.result["rounds"][0]
    assert first["thesis"]["asp_check"]["ok"] is False
    assert first["antithesis"]["critic_recommendation"] == "accept"
    assert first["antithesis"]["recommendation"] == "revise"
    assert first["antithesis"]["issues"][0].startswith(ENGINE_ISSUE_PREFIX)
    assert "syntax error" in first["antithesis"]["issues"][0]
    assert res.rounds == 2 and res.converged and res.result["final_rule"]["rule"] == GOOD
    # The store receives the antithesis the engine used, with its issue.
    recorded = [e.data["output"] for _, e in sink.events if e.kind == "turn_finished" and e.step_id == "r1.antithesis.critic"]
    assert recorded[0]["issues"][0].startswith(ENGINE_ISSUE_PREFIX)
    assert any("not valid ASP" in w for w in res.warnings)
    # Replaying the recorded outputs (as an exported cassette would) gives the same critique once.
    again = run_debate(case, "dialectic", provider=replay(
        thesis(NO_PERIOD), {"step": "r1.antithesis.critic", "output": recorded[0]}, synth(1, GOOD, 0.7), anti(2, "accept")))
    assert again.result["rounds"][0]["antithesis"]["issues"] == first["antithesis"]["issues"]


def test_unparsable_rule_blocks_jaccard_convergence_and_escalates(case):
    calls = [thesis(NO_PERIOD)]
    for n in (1, 2):
        calls += [anti(n, "revise", ["tidy"]), synth(n, NO_PERIOD, 0.7)]
    res = run_debate(case, "dialectic", provider=replay(*calls), settings=DebateSettings(rounds=2))
    assert res.trajectory[0]["jaccard"] == 1.0
    assert not res.converged and res.rounds == 2
    assert res.verdict.needs_human_review
    assert "final_rule_unparsable" in res.verdict.applied_rules
    assert any("stabilised" in w for w in res.warnings)


def test_critic_reject_as_last_word_escalates(case):
    res = run_debate(case, "dialectic", provider=replay(
        thesis(GOOD), anti(1, "reject", ["wrong head"]), synth(1, GOOD, 0.6)))
    assert res.converged  # identical synthesis: Jaccard 1.0
    assert res.verdict.needs_human_review
    assert "critic_rejected" in res.verdict.applied_rules


def test_plain_language_rules_are_not_parsed_as_asp(case):
    rule = "A contract is enforceable when offer, acceptance and consideration are present."
    res = run_debate(case, "dialectic", provider=replay(thesis(rule), anti(1, "accept")))
    assert res.converged and not res.verdict.needs_human_review
    assert res.result["final_rule"]["asp_check"] == {"is_asp": False, "ok": True, "error": None}


def test_missing_cassette_step_fails_the_debate_naming_it(case):
    res = run_debate(case, "dialectic", provider=replay(thesis(GOOD), anti(1, "revise", ["x"])))
    assert res.status == "failed" and res.failed_step == "r1.synthesis.synthesizer"
    assert "r1.synthesis.synthesizer" in res.error


def test_check_asp_uses_clingo_for_syntax_and_safety():
    assert check_asp(GOOD).ok
    bad = check_asp(NO_PERIOD)
    assert bad.is_asp and not bad.ok and "syntax error" in bad.error
    unsafe = check_asp("enforceable(C) :- not void(C).")
    assert not unsafe.ok and "unsafe" in unsafe.error
    assert not check_asp('#script (python)\nprint("x")\n#end.').ok
    assert check_asp("enforceable(C) :- contract(C), capacity(P1), capacity(P2).").ok
    assert check_asp(NO_PERIOD, mode="off").ok
    assert not check_asp("plain words only.", mode="always").ok
    assert looks_like_asp("valid(X).") and not looks_like_asp("Contracts need consideration.")


def test_rule_diff_reports_added_and_removed_literals():
    assert rule_diff(GOOD, BETTER) == {"added": ["capacity(C)", "not duress(C)"], "removed": []}


def test_offline_debate_on_the_sample_case_converges_on_the_expected_rule():
    case = load_case(CASES_DIR / "dialectic_contract_enforceability.json")
    res = run_debate(case, "dialectic")
    assert res.status == "completed", res.error
    first = res.result["rounds"][0]
    issues = " ".join(first["antithesis"]["issues"])
    for needed in ("offer(C)", "acceptance(C)", "legal_purpose(C)", "not duress(C)", "signed(C)"):
        assert needed in issues
    assert "signed(C)" in first["rule_diff"]["removed"]
    assert res.converged and res.convergence_reason == "Critic accepted thesis"
    assert case.expected["answer"] in res.verdict.answer
    assert check_asp(res.result["final_rule"]["rule"]).ok
    assert res.result["improvement_score"] > 0
    assert not res.verdict.needs_human_review


def test_offline_critic_finds_real_syntax_errors():
    case = load_case(CASES_DIR / "dialectic_contract_enforceability.json")
    from debate_core.protocols.dialectic.agent import antithesis, synthesis

    out = antithesis({"case": case, "thesis": {"rule": NO_PERIOD}})
    assert out["recommendation"] == "revise"
    assert any(i.startswith("Syntax:") for i in out["issues"])
    fixed = synthesis({"case": case, "thesis": {"rule": NO_PERIOD, "confidence": 0.5}, "antithesis": out})
    assert check_asp(fixed["rule"]).ok


def test_dialectic_stops_when_the_critic_accepts_before_any_synthesis():
    stop = rules.stop_reason(round_no=1, max_rounds=3, recommendation="accept")
    assert stop == rules.Stop(True, "Critic accepted thesis")


def test_dialectic_carries_on_to_the_synthesis_when_the_critic_asks_for_a_revision():
    assert rules.stop_reason(round_no=3, max_rounds=3, recommendation="revise") is None


def test_dialectic_converges_when_thesis_and_synthesis_reach_the_jaccard_threshold():
    at = rules.stop_reason(round_no=1, max_rounds=3, recommendation="revise", jaccard=rules.JACCARD_THRESHOLD)
    assert at == rules.Stop(True, "Convergence score 0.85 exceeded threshold")
    assert rules.stop_reason(round_no=1, max_rounds=3, recommendation="revise", jaccard=0.84) is None
    assert rules.stop_reason(round_no=1, max_rounds=3, recommendation="revise", jaccard=0.9, threshold=0.95) is None


def test_dialectic_does_not_converge_on_a_stabilised_rule_that_is_not_valid_asp():
    assert rules.stabilised_but_not_valid(0.9, rule_parses=False)
    assert not rules.stabilised_but_not_valid(0.9, rule_parses=True)
    assert not rules.stabilised_but_not_valid(0.5, rule_parses=False)
    assert rules.stop_reason(round_no=1, max_rounds=3, recommendation="revise", jaccard=0.9, rule_parses=False) is None


def test_dialectic_stops_unconverged_at_the_round_budget():
    stop = rules.stop_reason(round_no=3, max_rounds=3, recommendation="revise", jaccard=0.9, rule_parses=False)
    assert stop == rules.Stop(False, "Max rounds (3) reached")


# ---------------------------------------------------------------------------
# Profiles, honest offline agents and the moderator's rules
# ---------------------------------------------------------------------------


def test_the_verdict_states_the_rule_in_words_before_the_asp_rule():
    words = rules.rule_in_words(BETTER, check_asp(BETTER))
    first, _, rest = words.partition(". ")
    assert first == ("Enforceable holds for C when contract, offer, acceptance, consideration and capacity all hold, "
                     "unless duress holds")
    assert rest == f"As an ASP rule: {BETTER}"
    plain = "A contract is enforceable when offer and acceptance are present."
    assert rules.rule_in_words(plain, check_asp(plain)) == plain


def test_verdict_goes_to_a_human_when_the_agents_could_not_assess_or_are_not_confident():
    ok = check_asp(GOOD)
    v = rules.verdict(final_rule=GOOD, final_confidence=0.3, final_check=ok, last_recommendation="accept",
                      converged=True, convergence_reason="Critic accepted thesis", rounds=1, min_confidence=0.5,
                      final_speaker="synthesizer",
                      uncertainties=["could not assess: the requirement in E4", "weak reading: 20% covered"])
    assert v.needs_human_review
    assert v.applied_rules == ["low_confidence", "not_assessed"]
    assert v.escalation_reasons == [
        "The deciding agents are not confident enough (below 50%): synthesizer 30%",
        "The agents could not assess: the requirement in E4"]
    calm = rules.verdict(final_rule=GOOD, final_confidence=0.8, final_check=ok, last_recommendation="accept",
                         converged=True, convergence_reason="Critic accepted thesis", rounds=1, min_confidence=0.5)
    assert not calm.needs_human_review and calm.applied_rules == ["converged_rule_accepted"]


def _plain_case(**extra):
    data = {
        "id": "t-lease", "title": "subletting",
        "question": "Write a rule, in plain language, stating when a tenant may sublet the flat.",
        "evidence": [
            {"id": "P1", "source": "lease", "text": "A tenant may sublet the flat only if the landlord gave written consent."},
            {"id": "P2", "source": "statute", "text": "A tenant cannot sublet the flat for short holiday stays."},
            {"id": "P3", "source": "note", "text": "The flat was painted in 2019."},
        ],
    }
    data.update(extra)
    return parse_case(data)


def test_offline_plain_language_rule_names_the_passages_conditions_and_exceptions():
    res = run_debate(_plain_case(), "dialectic")
    assert res.status == "completed", res.error
    rule = res.result["final_rule"]["rule"]
    assert rule.startswith("A tenant may sublet the flat only if")
    assert "the landlord gave written consent (P1)" in rule
    assert "unless" in rule and "short holiday stays (P2)" in rule
    assert "painted" not in rule
    assert res.result["final_rule"]["asp_check"]["is_asp"] is False
    assert res.verdict.answer == rule  # a plain rule is its own statement in words


def test_offline_critic_names_a_passage_condition_the_rule_misses_and_the_synthesizer_adds_it():
    from debate_core.protocols.dialectic.agent import antithesis, synthesis

    case = _plain_case()
    thin = "A tenant may sublet the flat only if the landlord gave written consent (P1)."
    out = antithesis({"case": case, "thesis": {"rule": thin}})
    assert out["recommendation"] == "revise"
    assert len(out["issues"]) == 1 and "P2" in out["issues"][0] and "holiday" in out["issues"][0]
    fixed = synthesis({"case": case, "thesis": {"rule": thin, "confidence": 0.6}, "antithesis": out})
    assert "holiday stays (P2)" in fixed["rule"] and "written consent (P1)" in fixed["rule"]
    assert "added the exception from P2" in fixed["argument"]


def test_offline_agents_say_so_when_the_passages_state_no_condition():
    case = parse_case({"id": "t-none", "title": "none", "question": "When may a tenant keep a cat?",
                       "evidence": [{"id": "P1", "source": "note", "text": "The building has four floors."}]})
    res = run_debate(case, "dialectic")
    rule = res.result["final_rule"]["rule"]
    assert rule.startswith("No rule could be built from the passages")
    assert ":-" not in rule and "conclusion(" not in rule
    assert res.verdict.confidence < 0.5 and res.verdict.needs_human_review
    assert "low_confidence" in res.verdict.applied_rules and "not_assessed" in res.verdict.applied_rules
    assert any("could not assess" in r for r in res.verdict.escalation_reasons)


def test_offline_generator_does_not_write_asp_without_declared_predicates():
    case = _plain_case(question="Write one ASP rule stating when a tenant may sublet the flat.")
    from debate_core.protocols.dialectic.agent import thesis as generator

    out = generator({"case": case})
    assert not looks_like_asp(out["rule"])
    assert out["confidence"] < 0.5
    assert any("declare no predicates" in u for u in out["uncertainties"])


def test_offline_asp_without_group_labels_takes_conditions_and_defeaters_from_the_passages():
    from debate_core.protocols.dialectic.agent import vocabulary

    case = parse_case({
        "id": "t-asp", "title": "loan", "question": "Write one ASP rule defining may_lend(B) with the predicates.",
        "evidence": [
            {"id": "KB", "source": "vocabulary", "text": "Predicates over a book B: book(B): B is a library book; "
             "registered(B): the borrower is registered with the library; on_shelf(B): B is on the shelf unless "
             "it is reserved; reserved(B): another reader reserved B; gilded(B): B has gilded edges."},
            {"id": "R1", "source": "library rules", "text": "The borrower must be registered with the library."},
            {"id": "R2", "source": "library rules", "text": "Gilded edges are not required for a loan."},
        ]})
    groups = {p.name: p.group for p in vocabulary(case)[0]}
    assert groups["registered"] == "condition" and groups["reserved"] == "defeater" and groups["gilded"] == "other"
    res = run_debate(case, "dialectic")
    final = res.result["final_rule"]["rule"]
    assert "registered(B)" in final and "not reserved(B)" in final and "gilded" not in final
    assert check_asp(final).ok


def test_offline_asp_rule_flags_a_requirement_no_predicate_expresses():
    case = load_case(CASES_DIR / "dialectic_contract_enforceability.json")
    extra = {"id": "E9", "source": "treatise", "text": "The price must be paid in euros through a licensed bank."}
    case = case.model_copy(update={"evidence": [*case.evidence, type(case.evidence[0]).model_validate(extra)]})
    res = run_debate(case, "dialectic")
    assert res.verdict.needs_human_review and "not_assessed" in res.verdict.applied_rules
    assert any("E9" in r for r in res.verdict.escalation_reasons)


def test_dialectic_prompts_carry_each_agents_profile_and_no_domain_words():
    from debate_core.core import prompts
    from debate_core.providers import make_provider

    provider = make_provider("offline")
    sent: dict[str, str] = {}
    complete = provider.complete

    async def recording(req):
        sent[req.step_id] = " ".join(m["content"] for m in req.messages)
        return await complete(req)

    provider.complete = recording
    profiles = [{"id": "drafter", "name": "Lease drafter", "role": "drafts tenancy rules from the lease"},
                {"id": "tenant_advocate", "role": "argues for the tenant"},
                {"id": "judge"}]
    res = run_debate(_plain_case(), "dialectic", provider=provider, settings=DebateSettings(agents=profiles))
    assert res.status == "completed", res.error
    assert "You are Lease drafter (agent id drafter)." in sent["r1.thesis.drafter"]
    assert "Your role: drafts tenancy rules from the lease" in sent["r1.thesis.drafter"]
    assert "Your role: argues for the tenant" in sent["r1.antithesis.tenant_advocate"]
    assert res.result["transcript"][0]["speaker"] == "drafter"
    for name in ("dialectic/thesis", "dialectic/antithesis", "dialectic/synthesis"):
        system, user = prompts.load(name)
        assert "${identity}" in system
        assert not any(w in (system + user).lower() for w in ("contract", "enforceab", "legal", " law"))


def test_text_a_question_quotes_at_length_counts_as_read():
    from debate_core.providers.offline.reading import quoted_material, read

    question = ('A contract says: "The Supplier\'s total liability shall not exceed the charges paid in the '
                'preceding twelve months." When does the cap bind?')
    assert quoted_material(question) == ["The Supplier's total liability shall not exceed the charges paid in the "
                                         "preceding twelve months."]
    assert quoted_material('a short "quote" only') == []
    passage = ["A term limiting liability binds only if it is reasonable."]
    bare = read("When does the supplier's liability cap bind?", passage, passages=1)
    with_quote = read("When does the supplier's liability cap bind?", passage + quoted_material(question), passages=1)
    assert with_quote.coverage > bare.coverage
    # The quote is material to read, not a passage the agent cited: the passage count is unchanged.
    assert with_quote.passages == bare.passages == 1
