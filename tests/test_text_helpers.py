"""The text helpers' glue around bm25s (ranking), snowballstemmer (stems) and pysbd (sentences)."""

from __future__ import annotations

import math

from debate_core.core.text import Ranked, bm25_rank, first_sentence, sentences, stem, terms


def test_bm25_ranks_the_passage_that_shares_most_of_the_query_first_and_ties_by_id_order():
    docs = {
        "weather": "The weather was fine that day.",
        "heir": "The heir inherits the estate.",
        "heirs": "Heirs and heirs: the estate of the heirs.",
        "empty": "",
        "weather2": "The weather was fine that day.",
    }
    ranked = bm25_rank("heirs of the estate", docs)
    assert [r.id for r in ranked] == ["heirs", "heir", "weather", "empty", "weather2"]
    assert ranked[0].score > ranked[1].score > 0
    assert [r.score for r in ranked[2:]] == [0.0, 0.0, 0.0]


def test_bm25_scores_read_as_the_okapi_form_with_lucenes_idf():
    # Two documents of one term each; the query term is in one: tf = 1, dl = avgdl = 1, df = 1, N = 2.
    k1 = 1.4
    ranked = bm25_rank("estate", {"a": "estate", "b": "garden"}, k1=k1, b=0.75)
    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))
    assert ranked == [Ranked("a", round(idf * (k1 + 1) / (1 + k1), 4)), Ranked("b", 0.0)]


def test_bm25_with_no_query_terms_or_no_documents():
    assert bm25_rank("", {"a": "text", "b": "more"}) == [Ranked("a", 0.0), Ranked("b", 0.0)]
    assert bm25_rank("the of", {"a": "estate"}) == [Ranked("a", 0.0)]  # stop words only
    assert bm25_rank("estate", {}) == []


def test_stems_meet_across_english_inflections_and_indonesian_suffixes():
    assert stem("heirs") == stem("heir")
    assert stem("running") == stem("runs")
    assert stem("warisan") == stem("waris")
    assert stem("tanahnya") == stem("tanah")
    # An English word keeps what the Indonesian stemmer would take as a prefix ("di-", "ter-").
    assert stem("diagnosis").startswith("diagnos")
    assert stem("terminal").startswith("termin")
    assert terms("The heirs of the estate") == [stem("heirs"), stem("estate")]


def test_sentences_keep_abbreviations_and_decimals_together():
    text = "Dr. Smith signed on 3 May. He relied on e.g. the notary's note. The rate rose 2.3 percent."
    assert sentences(text) == ["Dr. Smith signed on 3 May.", "He relied on e.g. the notary's note.",
                               "The rate rose 2.3 percent."]
    assert sentences("It fell to 1,200 units (i.e. a drop). Mr. Lee disagreed!") == [
        "It fell to 1,200 units (i.e. a drop).", "Mr. Lee disagreed!"]


def test_sentences_keep_citation_and_indonesian_abbreviations_that_pysbd_does_not_know():
    text = "See art. 914 and No. 3 of the list. The shop is on Jl. Sudirman in Kab. Tanah Datar. PT. Maju Tbk. bought it."
    assert sentences(text) == ["See art. 914 and No. 3 of the list.",
                               "The shop is on Jl. Sudirman in Kab. Tanah Datar.", "PT. Maju Tbk. bought it."]


def test_sentences_of_indonesian_and_korean_text():
    assert sentences("Pewarisan hanya berlangsung karena kematian. Ahli waris adalah keluarga sedarah!") == [
        "Pewarisan hanya berlangsung karena kematian.", "Ahli waris adalah keluarga sedarah!"]
    assert sentences("음식이 맛있었다. 가격은 3.5% 올랐다! 다시 갈까? 그렇다.") == [
        "음식이 맛있었다.", "가격은 3.5% 올랐다!", "다시 갈까?", "그렇다."]


def test_sentences_of_text_without_a_full_stop_or_without_text():
    assert sentences("one line without a stop") == ["one line without a stop"]
    assert sentences("   ") == [] and sentences("") == []
    assert first_sentence("Dr. Lee agreed. Nobody else did.") == "Dr. Lee agreed."


def test_sentences_returns_a_fresh_list_each_call():
    first = sentences("One. Two.")
    first.append("changed")
    assert sentences("One. Two.") == ["One.", "Two."]
