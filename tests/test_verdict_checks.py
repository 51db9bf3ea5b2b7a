"""The checks every verdict passes, whatever the protocol (debate_core/engine/checks.py, applied by
engine/run.py), and the options a question offers (debate_core/core/options.py)."""

from __future__ import annotations

import json

import pytest
from test_cli import cli

from debate_core.core.options import named_options, offered_options
from debate_core.engine import checks
from debate_core.present import glossary

SENTIMENT = ["positive", "negative", "neutral", "mixed"]
SUPPORT = ["supported", "partially supported", "not supported"]

PASSAGES = [
    {"id": "P1", "source": "Hospital guideline", "text": (
        "Daily low-dose aspirin is no longer recommended for the primary prevention of cardiovascular "
        "disease in adults over 70, because the bleeding risk outweighs the benefit.")},
    {"id": "P2", "source": "Trial summary", "text": (
        "In the ASPREE trial, aspirin did not reduce cardiovascular events in healthy older adults and "
        "increased major haemorrhage.")},
]


# ---- offered_options: the options a question explicitly offers ----

@pytest.mark.parametrize("question, options", [
    ("What is the overall sentiment (positive, negative, neutral or mixed) of the sentence \"Great food\"?", SENTIMENT),
    ("Is the review positive or negative overall?", ["positive", "negative"]),
    ("Classify the review as Positive, Negative or Neutral.", ["positive", "negative", "neutral"]),
    ("Is the claim supported, partially supported or not supported by the passages?", SUPPORT),
    ("Label the claim SUPPORTED / REFUTED / NOT ENOUGH INFO.", ["supported", "refuted", "not enough info"]),
    ("Answer yes or no: is the will valid?", ["yes", "no"]),
    ("Is the clause one of void, voidable or valid?", ["void", "voidable", "valid"]),
    ("Which team should own the budget, one of sales, marketing or engineering?", ["sales", "marketing", "engineering"]),
    ("Which of sales, marketing or engineering?", ["sales", "marketing", "engineering"]),
    ("Is the will valid or invalid?", ["valid", "invalid"]),
    ("Choose between the plaintiff and the defendant.", ["plaintiff", "defendant"]),
    ("Is the statement true or false?", ["true", "false"]),
])
def test_a_question_with_an_explicit_list_offers_its_options(question, options):
    assert offered_options(question) == options


@pytest.mark.parametrize("question", [
    "Should he start daily low-dose aspirin for primary prevention?",  # a plain yes/no question
    "Is the will valid as to form?",
    "A man with no history of heart attack, stroke or other cardiovascular disease. Should he take aspirin?",
    "What is the sentiment towards each aspect (screen, battery and keyboard)?",  # things, not answers
    # What is absent, in brackets, not what to choose.
    "Which members may shoot the self-service stands (no instructor or referee present) from May 2026?",
    "Which of the contract, the tort or the statute governs?",  # the last item runs into the sentence
    "Which of sales, marketing or engineering should own it?",  # where the last item ends is unknown
    "Which figure should the report use, or do both stand?",
    "Does it hold, or not?",
    "Did the cache or the network cause the outage?",
    "What is the root cause, and how should it be resolved and prevented?",
    "Apakah wasiat itu sah menurut hukum?",
    "이 리뷰는 긍정적인가요?",
    "",
])
def test_a_question_without_an_explicit_list_offers_none(question):
    assert offered_options(question) == []


@pytest.mark.parametrize("answer, options, named", [
    ("Partially supported: passage P2 covers only adults over 70.", SUPPORT, ["partially supported"]),
    ("Not supported by the evidence.", SUPPORT, ["not supported"]),
    ("Supported: both passages agree.", SUPPORT, ["supported"]),
    ("The sentiment is not positive; it is mixed.", SENTIMENT, ["mixed"]),
    ("Mixed: screen positive, keyboard negative.", SENTIMENT, ["positive", "negative", "mixed"]),
    ("It is neither positive nor negative.", SENTIMENT, []),
    ("POSITIVE overall.", SENTIMENT, ["positive"]),
    ("The reviewer was positively surprised.", SENTIMENT, []),  # whole words only
    ("The will is not valid.", ["valid", "invalid"], ["invalid"]),  # denying one of two names the other
    ("No, he should not start aspirin.", ["yes", "no"], ["no"]),
    ("The answer is yes.", ["yes", "no"], ["yes"]),
    ("There is no reason to start aspirin.", ["yes", "no"], []),  # "no" inside a sentence is not the answer
])
def test_named_options(answer, options, named):
    assert named_options(answer, options) == named


# ---- each check on written inputs ----

def test_answer_names_no_option():
    q = "What is the overall sentiment (positive, negative, neutral or mixed) of the review?"
    reason = checks.answer_names_no_option(q, "The reviewer liked the food but not the service.")
    assert reason and "did not settle on one of the options" in reason and '"mixed"' in reason
    assert "names none" in reason
    both = checks.answer_names_no_option(q, "It could be positive or it could be negative.")
    assert both and '"positive" and "negative"' in both
    assert checks.answer_names_no_option(q, "Mixed: the food is positive, the service negative.") is None
    assert checks.answer_names_no_option(q, "The sentiment is negative.") is None
    assert checks.answer_names_no_option("Should he take aspirin?", "Probably not.") is None


def test_answer_copies_a_passage():
    copied = "The answer: " + PASSAGES[0]["text"]
    reason = checks.answer_copies_a_passage(copied, PASSAGES)
    assert reason and '"P1"' in reason and "copied" in reason
    quoting = ("He should not start aspirin. The guideline says aspirin is \"no longer recommended for the "
               "primary prevention of cardiovascular disease in adults over 70\", and the ASPREE trial found "
               "more major bleeding with no fewer cardiovascular events in healthy older adults, so the risk "
               "outweighs any benefit for him; he should keep treating his blood pressure instead and discuss "
               "statins and other preventive measures with his doctor.")
    assert checks.answer_copies_a_passage(quoting, PASSAGES) is None
    assert checks.answer_copies_a_passage("Not supported.", PASSAGES) is None


def test_degenerate_evidence():
    repeating = {"id": "R", "text": "heir daughter adat land " * 200}
    reason = checks.degenerate_evidence([PASSAGES[0], repeating])
    assert reason and '"R"' in reason and "repeats" in reason and '"P1"' not in reason
    keywords = {"id": "K", "text": "inheritance, daughter, heir, adat, Bali, purusa, sentana rajeg, sanggah, merajan, "
                                   "banjar, rice field, nyentana, kawin keluar, KUHPerdata, equality"}
    assert '"K"' in (checks.degenerate_evidence([keywords]) or "")
    same = [{"id": "A", "text": PASSAGES[0]["text"]}, {"id": "B", "text": PASSAGES[0]["text"] + " "}]
    assert "nearly the same" in (checks.degenerate_evidence(same) or "")
    assert "no words" in (checks.degenerate_evidence([{"id": "E", "text": "--- ... ---"}]) or "")
    assert checks.degenerate_evidence(PASSAGES) is None
    korean = {"id": "KO", "text": "파스타는 정말 맛있었는데 직원 응대가 너무 느리고 불친절해서 다시 갈지는 모르겠어요 가격은 그럭저럭 괜찮은 편이에요"}
    assert checks.degenerate_evidence([korean]) is None  # a script the function-word lists do not cover


def test_question_not_addressed():
    reason = checks.question_not_addressed("What is the boiling point of mercury at sea level in kelvin?", PASSAGES)
    assert reason and "does not address the question" in reason and '"P1"' in reason and '"P2"' in reason
    assert checks.question_not_addressed("Should a healthy 75-year-old take daily aspirin?", PASSAGES) is None
    assert checks.question_not_addressed("Why?", PASSAGES) is None  # too few words to judge
    assert checks.question_not_addressed("What is the boiling point of mercury?", []) is None


def test_not_a_question():
    assert "markup" in (checks.not_a_question("<div><span class='x'></span><br/></div>") or "")
    assert "no words" in (checks.not_a_question("??? ... !!!") or "")
    assert "random" in (checks.not_a_question("x7f9q zqwrtk 88af3b kkjhgt") or "")
    assert checks.not_a_question("Is the <b>will</b> valid as to form?") is None
    assert checks.not_a_question("Apakah wasiat itu sah?") is None
    assert checks.not_a_question("리뷰 문장의 감성은 무엇인가?") is None
    assert checks.not_a_question("HDFS DataNode dn-07 dead at 03:45: root cause?") is None


def test_every_check_code_has_plain_words():
    for code in (checks.NO_OPTION, checks.COPIED_PASSAGE, checks.DEGENERATE_EVIDENCE, checks.NOT_ADDRESSED,
                 checks.NOT_A_QUESTION):
        words = glossary.rule("single", code)
        assert words.endswith(".") and "check." not in words and "_" not in words
        assert glossary.is_flagging(code)


# ---- through the CLI, on cases written here ----

def _run(tmp_path, question: str, evidence: list[dict], protocol: str) -> dict:
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"id": "t-check", "title": "a written case", "question": question,
                                "evidence": evidence}), encoding="utf-8")
    proc = cli("run", str(case), "--protocol", protocol, "--json", db=tmp_path / "d.db", check=True)
    out = json.loads(proc.stdout)
    assert out["status"] == "completed"
    return out


def test_cli_degenerate_evidence_is_flagged_and_not_converged(tmp_path):
    junk = " ".join(("inheritance", "heir", "daughter", "adat", "land")[i % 5] for i in range(40_000))
    assert len(junk) > 200_000
    out = _run(tmp_path, "Who inherits the rice field under Balinese adat law?",
               [{"id": "SCRAPE", "source": "scraped page", "text": junk},
                {"id": "NOTE", "source": "note", "text": "Under Balinese adat, a daughter appointed sentana rajeg inherits as a son would."}],
               "single")
    verdict = out["verdict"]
    assert verdict["needs_human_review"] is True
    assert checks.DEGENERATE_EVIDENCE in verdict["applied_rules"]
    assert any('"SCRAPE"' in r and "repeats" in r for r in verdict["escalation_reasons"])
    assert out["converged"] is False and '"SCRAPE"' in out["convergence_reason"]


def test_cli_off_topic_question_is_flagged(tmp_path):
    out = _run(tmp_path, "What is the boiling point of mercury at sea level in kelvin?", PASSAGES, "panel")
    verdict = out["verdict"]
    assert verdict["needs_human_review"] is True
    assert checks.NOT_ADDRESSED in verdict["applied_rules"]
    assert any("does not address the question" in r for r in verdict["escalation_reasons"])
    assert out["converged"] is False


def test_cli_question_of_html_tags_is_flagged_and_not_converged(tmp_path):
    out = _run(tmp_path, "<div><span class='q'></span><br/><p></p></div>", PASSAGES, "cross_critique")
    verdict = out["verdict"]
    assert verdict["needs_human_review"] is True
    assert checks.NOT_A_QUESTION in verdict["applied_rules"]
    assert out["converged"] is False and "markup" in out["convergence_reason"]
    assert any("markup" in r for r in verdict["escalation_reasons"])


def test_cli_non_answer_is_flagged_with_the_options(tmp_path):
    question = ("Is the claim 'aspirin prevents heart attacks in healthy adults over 70' supported, "
                "partially supported or not supported by the passages?")
    out = _run(tmp_path, question, PASSAGES, "single")
    verdict = out["verdict"]
    assert not named_options(verdict["answer"], SUPPORT) or len(named_options(verdict["answer"], SUPPORT)) > 1
    assert verdict["needs_human_review"] is True
    assert checks.NO_OPTION in verdict["applied_rules"]
    reason = next(r for r in verdict["escalation_reasons"] if "did not settle" in r)
    assert '"partially supported"' in reason and '"not supported"' in reason


def test_cli_a_sample_case_passes_every_check(tmp_path):
    """A right, well-supported answer is not flagged by these checks."""
    out = json.loads(cli("run", "data/cases/panel_laptop_review.json", "--protocol", "panel", "--json",
                         db=tmp_path / "d.db", check=True).stdout)
    assert not [r for r in out["verdict"]["applied_rules"] if r.startswith("check.")]
    assert out["verdict"]["needs_human_review"] is False and out["converged"] is True


def test_events_carry_the_checked_verdict():
    """The `escalated` event names the check's reason, no `converged` event is emitted, and the
    `completed` event carries the checked verdict and the convergence the check decided."""
    from debate_core.core.events import MemorySink
    from debate_core.core.schemas import Case
    from debate_core.engine.run import run_protocol
    from debate_core.protocols import get_spec

    case = Case.model_validate({"id": "t-html", "title": "markup", "question": "<div><br/><span></span></div>",
                                "evidence": PASSAGES})
    sink = MemorySink()
    result = run_protocol(case, get_spec("single"), sink=sink)
    kinds = {event.kind: event.data for _, event in sink.events}
    assert "converged" not in kinds
    assert any("markup" in r for r in kinds["escalated"]["reasons"])
    done = kinds["completed"]
    assert done["converged"] is False and "markup" in done["convergence_reason"]
    assert checks.NOT_A_QUESTION in done["verdict"]["applied_rules"] and done["verdict"]["needs_human_review"]
    assert result.verdict is not None and result.verdict.applied_rules == done["verdict"]["applied_rules"]
