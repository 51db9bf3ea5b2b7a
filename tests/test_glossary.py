"""Plain words for engine codes, the short answer and word-boundary clipping."""

from __future__ import annotations

from debate_core.core.text import clip_words
from debate_core.present import glossary
from debate_core.protocols import PROTOCOLS, get_spec
from debate_core.protocols.common import short_answer
from debate_core.protocols.cross_critique import rules


def test_every_protocol_rule_in_its_glossary_reads_as_a_sentence():
    for name in PROTOCOLS:
        for code, sentence in get_spec(name).glossary.items():
            assert glossary.rule(name, code) == sentence
    names = {"nla": "National Law Agent"}
    assert glossary.rule("cross_critique", "S6.unsupported_claims.nla", names).startswith("National Law Agent: ")
    assert glossary.rule("cross_critique", "S9.some_new_rule") == "Some new rule."


def test_step_ids_rulings_and_reasons_in_words():
    names = {"pharmacist": "Clinical pharmacist", "nla": "National Law Agent", "ala": "Adat Law Agent"}
    assert glossary.step_title("cross_critique", "r2.revise.pharmacist", names) == \
        "Round 2 · revision by Clinical pharmacist"
    assert glossary.step_title("cross_critique", "r1.critique.nla.ala", names) == \
        "Round 1 · critique by National Law Agent of Adat Law Agent"
    assert glossary.step_title("arbitration", "c3.arbitrate.arbiter") == "Contradiction 3 · ruling by arbiter"
    assert glossary.ruling("agent1_correct", "use_agent1") == "The first report is right, so use the first report's figure."
    assert glossary.reason("low_confidence: the final confidence 0.40 is below 0.60 (RuleM)") == \
        "The final confidence 0.40 is below 0.60 (rule M)"
    assert glossary.reason("left_open: nla->ala:K1 on C6", names) == "National Law Agent's critique K1 of Adat Law Agent on C6"
    assert glossary.step_ids_in("cross_critique", "r1.critique.nla.ala: echo", names).startswith("Round 1 · critique")


def test_clipping_never_cuts_a_word():
    text = "The kaum holds the sawah as harta pusaka tinggi under adat law"
    for limit in range(5, len(text)):
        clipped = clip_words(text, limit)
        assert clipped.endswith("…")
        assert text.startswith(clipped[:-1]) and text[len(clipped) - 1] == " "
    assert clip_words("Pusakatinggi", 4) == "Pusakatinggi…"


def test_short_answer_is_the_first_sentence_without_citations():
    assert short_answer("Agreed ground: heirs inherit equally. [nla.C1] Second sentence. [ala.C2]") == \
        "Agreed ground: heirs inherit equally."


def test_escalation_reasons_keep_critique_descriptions_whole():
    from debate_core.core.schemas import Critique

    # As long as a critique may be (160 characters, core/schemas.py).
    description = ("Claim C6 contradicts nla.C5, which rests on the UUPA recognition of the hak ulayat "
                   "of customary law communities, and on statute.")
    critique = Critique(id="K1", target_claim_id="C6", issue_type="conflict", severity="CRITICAL",
                        description=description, suggested_fix="fix")
    item = rules.AddressedCritique(critic="nla", target="ala", round=1, critique=critique)
    assessment = rules.Assessment(1, [item], {}, {"answer_stable": False})
    reasons, _ = rules.escalation_reasons(assessment, {}, max_rounds=3)
    assert any(r.endswith(description) for r in reasons), reasons
