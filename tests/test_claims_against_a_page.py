"""A claim checked against the page it cites: the cross critique names supported, partially supported or
not supported from where the page says the claim's points together, reads no options inside the quoted
claim, and takes a negation for a contradiction only when it denies the claim's own point. Driven
through the CLI on a page written here (fictitious), and bench/claims.py on a file in WiCE's format."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from test_cli import cli

from debate_core.core.options import offered_options
from debate_core.core.text import terms
from debate_core.protocols.cross_critique.agent.scoring import contradiction, denied_terms
from debate_core.protocols.cross_critique.agent.supervisor import restates
from debate_core.providers.offline.reading import read, support

BENCH = Path(__file__).resolve().parent.parent / "bench"

PAGE = [
    "Harbour Town Rowing Club was founded in 1921 by dock workers on the river Esk.",
    "The club's first boathouse stood beside the old swing bridge.",
    "In 1978 the club moved to a new boathouse at Millers Quay, paid for by a public appeal.",
    "Its women's eight won the national championship in 1994 and again in 2002.",
    "The club coaches about 300 junior rowers a year.",
    "Membership fees are reviewed every spring by the committee.",
]


def _question(claim: str) -> str:
    return f'Claim: "{claim}" Is this claim supported, partially supported or not supported by the web page it cites?'


def _case(claim: str) -> dict:
    return {
        "id": "rowing_claim", "title": "A claim about a rowing club", "question": _question(claim),
        "evidence": [{"id": "P1", "source": "Club history page, part 1", "text": " ".join(PAGE[:3])},
                     {"id": "P2", "source": "Club history page, part 2", "text": " ".join(PAGE[3:])}],
    }


def _verdict(tmp_path: Path, claim: str) -> dict:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(_case(claim)), encoding="utf-8")
    proc = cli("run", str(path), "--protocol", "cross_critique", "--json", db=tmp_path / "d.db", check=True)
    return json.loads(proc.stdout)["verdict"]


def test_a_claim_the_page_states_together_is_supported(tmp_path):
    verdict = _verdict(tmp_path, "The club moved to a new boathouse at Millers Quay in 1978, paid for by a public appeal.")
    assert verdict["answer"].startswith("Supported: P1 carries")


def test_a_claim_with_one_point_the_page_does_not_make_is_partially_supported(tmp_path):
    verdict = _verdict(tmp_path, "The women's eight won the national championship in 1994, coached by Olympic "
                                 "gold medallist Margaret Tulloch after her retirement from international racing.")
    assert verdict["answer"].startswith("Partially supported: P2 carries")
    assert verdict["needs_human_review"]


def test_a_claim_the_page_does_not_address_is_not_supported(tmp_path):
    verdict = _verdict(tmp_path, "Sheffield United signed the Brazilian striker Ronaldo Moraes on a free transfer "
                                 "in January after his contract expired.")
    assert verdict["answer"].startswith("Not supported:")
    assert verdict["needs_human_review"]


def test_options_are_not_read_inside_the_quoted_claim():
    question = _question("The mixtape was a collaboration between French Montana and Fetty Wap.")
    assert offered_options(question) == ["supported", "partially supported", "not supported"]
    # A short quotation stays part of the question.
    assert offered_options('Is "great value" positive, negative or neutral here?') == ["positive", "negative",
                                                                                        "neutral"]


def test_a_negation_about_a_side_matter_is_no_contradiction():
    claim = "She aimed to open a chain of stores that would sell coffee and chocolate-based cosmetics."
    side = "Her chain, which will sell coffee and chocolate-based cosmetics, will have nothing to do with Starbucks."
    assert denied_terms(side) == {"starbuck"}
    assert contradiction(claim, side) is None
    denial = "Her chain of stores will not sell coffee and chocolate-based cosmetics."
    assert contradiction(claim, denial)
    # A negation hyphenated into a name denies nothing.
    assert contradiction("Bakir built his business on the Gold Coast market.",
                         "Bakir, a never-say-die builder, built his business on the Gold Coast market.") is None


def test_support_is_the_best_run_of_sentences_in_one_passage():
    found = support(terms("boathouse Millers Quay 1978"), {"P1": " ".join(PAGE[:3]), "P2": " ".join(PAGE[3:])})
    assert found.evidence_id == "P1" and found.share == 1.0 and "Millers Quay" in found.sentences
    assert support([], {"P1": "text"}) is None


# -- bench/claims.py ---------------------------------------------------------------------------------

def _bench():
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))  # the script imports benchlib and sentiment from its own folder
    spec = importlib.util.spec_from_file_location("bench_claims", BENCH / "claims.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _wice_file(tmp_path: Path) -> Path:
    rows = [
        {"label": "supported", "claim": "The club moved to Millers Quay in 1978, paid for by a public appeal.",
         "evidence": ["(meta data) TITLE: Club history", *PAGE], "meta": {"id": "dev1"}},
        {"label": "not_supported", "claim": "Sheffield United signed Ronaldo Moraes on a free transfer in January.",
         "evidence": ["(meta data) TITLE: Club history", *PAGE], "meta": {"id": "dev2"}},
        {"label": "unknown_label", "claim": "skipped", "evidence": PAGE, "meta": {"id": "dev3"}},
    ]
    path = tmp_path / "dev.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n", encoding="utf-8")
    return path


def test_bench_claims_reads_wice_and_scores_a_real_offline_run(tmp_path, capsys):
    bc = _bench()
    claims = bc.load(_wice_file(tmp_path))
    assert [c.id for c in claims] == ["dev1", "dev2"]
    assert claims[0].title == "Club history" and claims[0].page == PAGE
    assert bc.passages(["a" * 400, "b" * 400, "c"]) == ["a" * 400, "b" * 400 + " c"]
    assert bc.main(["--data", str(_wice_file(tmp_path)), "--n", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["summary"]["claims"] == 2 and out["summary"]["names_none"] == 0
    labels = {r["id"]: r["label"] for r in out["rows"]}
    assert labels == {"dev1": "supported", "dev2": "not supported"}
    assert out["summary"]["right"] == 2 and out["goal_met"]


def test_bench_claims_says_plainly_when_the_data_cannot_be_read(tmp_path, capsys):
    bc = _bench()
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert bc.main(["--data", str(empty)]) == 2
    assert "no claims could be read" in capsys.readouterr().err


def test_the_answers_a_question_offers_are_not_parts_a_passage_must_cover():
    question = "Is the grinder review positive, negative, neutral or mixed?"
    found = read(question, ["The grinder review praises its burrs."], passages=1)
    assert found.coverage == 1.0 and not found.gaps
    # Without the options its subject still counts: a passage about something else covers none of it.
    off = read(question, ["The kettle boils fast."], passages=1)
    assert off.coverage == 0.0 and off.gaps == ["the parts of the question about grinder, review"]


def test_a_passage_that_only_restates_the_claim_is_not_evidence_for_it(tmp_path):
    claim = "The club's women's eight won the national championship in 1994 with a crew of former dock workers."
    case = _case(claim)
    # The leaflet the claim was copied from says it word for word; the history page says only part of it.
    case["evidence"].append({"id": "leaflet", "source": "Club open-day leaflet", "text": claim})
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    proc = cli("run", str(path), "--protocol", "cross_critique", "--json", db=tmp_path / "d.db", check=True)
    answer = json.loads(proc.stdout)["verdict"]["answer"]
    assert answer.startswith("Partially supported: P2 carries"), answer
    assert restates(claim, claim) and not restates(" ".join(PAGE[3:]), claim)
