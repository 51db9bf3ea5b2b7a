"""Dialectic reads rules as texts state them: permissions and exceptions count, and a later
amendment supersedes what it amends. A final rule that keeps the amended text goes to a person,
with the amendment named. Every case is written here and run through the CLI in this process."""

from __future__ import annotations

import json

from test_cli import cli

from debate_core.core.schemas import Evidence
from debate_core.protocols.dialectic.amendments import kept_superseded, supersessions

LEASE = {"id": "L1", "source": "Lease, clause 7", "authority": "contract", "date": "2022-01-10",
         "text": "The tenant may end the lease early by giving the landlord 30 days written notice. "
                 "The tenant must pay all rent due up to the end of the notice period."}
AMENDMENT = {"id": "A1", "source": "First amendment to the lease", "authority": "contract", "date": "2024-02-01",
             "text": "Clause 7 is amended to read: the tenant may end the lease early by giving the landlord "
                     "60 days written notice."}
OLD_RULE = ("The tenant may end the lease early only if the tenant gives the landlord 30 days written notice "
            "and pays all rent due up to the end of the notice period (L1).")


def _write(tmp_path, question, evidence, name="case.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"id": "limits", "title": "Limits", "protocol": "dialectic", "question": question,
                                "evidence": evidence}), encoding="utf-8")
    return path


def _run(tmp_path, path, *extra):
    proc = cli("run", str(path), "--protocol", "dialectic", "--json", "--quiet", *extra, db=tmp_path / "d.db",
               check=True)
    return json.loads(proc.stdout)["verdict"]


def test_a_permission_and_its_exception_are_read_as_such(tmp_path):
    evidence = [{"id": "E1", "source": "Tenancy agreement, clause 4", "authority": "contract",
                 "text": "The tenant may sublet a room in the flat, provided that the landlord consents in writing. "
                         "The tenant may not sublet the whole flat unless the landlord agrees to a new lease."}]
    verdict = _run(tmp_path, _write(tmp_path, "When may the tenant sublet the flat? State the rule.", evidence))
    answer = verdict["answer"]
    # The permission is stated as one, with its proviso; the prohibition with its exception.
    assert "the passages permit: the tenant may sublet a room in the flat, provided that the landlord consents" \
        in answer
    assert "unless the passages rule it out: the tenant may not sublet the whole flat unless the landlord agrees" \
        in answer


def test_a_later_amendment_supersedes_and_the_synthesis_follows_it(tmp_path):
    path = _write(tmp_path, "When may the tenant end the lease early? State the rule.", [LEASE, AMENDMENT])
    verdict = _run(tmp_path, path)
    assert "60 days" in verdict["answer"] and "30 days" not in verdict["answer"]
    assert "(A1)" in verdict["answer"]
    assert "kept_superseded_rule" not in verdict["applied_rules"]


def test_a_rule_kept_over_a_later_amendment_is_flagged_naming_it(tmp_path):
    path = _write(tmp_path, "When may the tenant end the lease early? State the rule.", [LEASE, AMENDMENT])
    cassette = {"format": "debate-cassette/1", "protocol": "dialectic", "calls": [
        {"step": "r1.thesis.generator",
         "output": {"rule": OLD_RULE, "reasoning": "From the lease.", "confidence": 0.9}},
        {"step": "r1.antithesis.critic",
         "output": {"issues": [], "edge_cases": [], "contradictions": [], "recommendation": "accept",
                    "argument": "The rule follows the lease."}},
    ]}
    tape = tmp_path / "tape.json"
    tape.write_text(json.dumps(cassette), encoding="utf-8")
    verdict = _run(tmp_path, path, "--provider", "replay", "--cassette", str(tape))
    assert verdict["needs_human_review"] is True
    assert "kept_superseded_rule" in verdict["applied_rules"]
    reason = " ".join(verdict["escalation_reasons"])
    assert "A1" in reason and "L1" in reason and "2024-02-01" in reason
    assert "60 days" in reason and "30 days" in reason


def test_an_earlier_dated_amendment_does_not_supersede():
    older = {**AMENDMENT, "date": "2021-06-01"}
    passages = [Evidence(**LEASE), Evidence(**older)]
    assert supersessions(passages) == []
    assert kept_superseded(OLD_RULE, passages) == []


def test_an_amendment_does_not_override_a_higher_authority():
    statute = {**LEASE, "source": "Housing Act, section 7", "authority": "statute"}
    amendment = {**AMENDMENT, "text": AMENDMENT["text"].replace("Clause 7", "Section 7")}
    assert supersessions([Evidence(**statute), Evidence(**amendment)]) == []


def test_an_amendment_without_a_reference_finds_its_subject():
    unlabelled = {**AMENDMENT, "text": "From 1 March 2024 the tenant may end the lease early by giving the "
                                       "landlord 60 days written notice instead of 30 days."}
    (s,) = supersessions([Evidence(**LEASE), Evidence(**unlabelled)])
    assert s.old_id == "L1" and s.new_id == "A1" and "30 days" in s.old_sentence
