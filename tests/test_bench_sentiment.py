"""bench/sentiment.py on a few sentences written here, in the ground-truth file format: the loader,
the sample, the label reading, the archive extraction and the figures of a real offline run.
Nothing is downloaded: the archive test builds its own source distribution in the cache."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
import tarfile
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _load():
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))  # the script imports benchlib from its own folder
    spec = importlib.util.spec_from_file_location("bench_sentiment", BENCH / "sentiment.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


bs = _load()

LINES = [
    "t_1\t3.1\tThis is a wonderful, excellent product and I love it!",
    "t_2\t-3.2\tTerrible, it broke after two days and I hate it.",
    "t_3\t0.1\tI bought it on a Tuesday.",
    "t_4\tnot-a-number\tthis line has no rating and is skipped",
    "t_5\t-0.3\tThe box is blue.",
]


def _ground_truth(tmp_path: Path) -> Path:
    path = tmp_path / "tiny_GroundTruth.txt"
    path.write_text("\r\n".join(LINES) + "\r\n", encoding="utf-8")
    return path


def test_loader_and_gold_labels(tmp_path):
    sentences = bs.load_ground_truth(_ground_truth(tmp_path))
    assert [s.id for s in sentences] == ["t_1", "t_2", "t_3", "t_5"]
    assert [s.gold for s in sentences] == ["positive", "negative", "neutral", "neutral"]
    assert sentences[1].text == "Terrible, it broke after two days and I hate it."
    # The band edges: 0.5 and -0.5 are already polar.
    assert (bs.gold_label(0.5), bs.gold_label(-0.5), bs.gold_label(0.49)) == ("positive", "negative", "neutral")
    assert (bs.vader_label(0.05), bs.vader_label(-0.05), bs.vader_label(0.04)) == ("positive", "negative", "neutral")


def test_stratified_sample_keeps_each_labels_share_and_is_deterministic():
    sentences = ([bs.Sentence(f"p{i}", 2.0, f"p {i}") for i in range(10)]
                 + [bs.Sentence(f"n{i}", -2.0, f"n {i}") for i in range(6)]
                 + [bs.Sentence(f"z{i}", 0.0, f"z {i}") for i in range(4)])
    sample = bs.stratified_sample(sentences, 10, seed=3)
    assert len(sample) == 10
    assert [s.gold for s in sample].count("positive") == 5
    assert [s.gold for s in sample].count("negative") == 3
    assert [s.gold for s in sample].count("neutral") == 2
    assert sample == bs.stratified_sample(sentences, 10, seed=3)
    assert [sentences.index(s) for s in sample] == sorted(sentences.index(s) for s in sample)
    assert bs.stratified_sample(sentences, 50, seed=3) == sentences


def test_answer_label_reads_the_first_named_option():
    q = bs.question_for('the "disposable" type')
    assert '"the \'disposable\' type"' in q
    # The question offers the raters' scale (no "mixed"): the option named first is the label.
    assert "(positive, negative or neutral)" in q
    assert bs.answer_label(q, 'The overall sentiment is negative: "a" positive; "b" negative.') == "negative"
    assert bs.answer_label(q, "The overall sentiment is negative.") == "negative"
    assert bs.answer_label(q, "The panel could not assess the sentiment of the sentence.") is None


def test_run_on_written_sentences_counts_match_the_verdicts(tmp_path):
    sentences = bs.load_ground_truth(_ground_truth(tmp_path))
    rows = bs.run_all(sentences, "tiny")
    assert len(rows) == 4
    by_id = {r["id"]: r for r in rows}
    assert by_id["t_1"]["vader"]["label"] == "positive"
    assert by_id["t_2"]["vader"]["label"] == "negative"
    for r in rows:
        for method in ("panel", "panel_signals"):
            out = r[method]
            assert out["error"] is None, out
            assert out["answer"]
            if out["label"] is not None:
                assert out["label"].lower() in out["answer"].lower()
    # The obvious sentences: the panel reads them as the raters did, with and without signals.
    assert by_id["t_1"]["panel"]["label"] == "positive"
    assert by_id["t_2"]["panel_signals"]["label"] == "negative"

    summary = bs.summarise(rows)
    for method in bs.METHODS:
        s = summary[method]
        outs = [(r["gold"], r[method]) for r in rows]
        right = sum(o["label"] == gold for gold, o in outs)
        assert s["sentences"] == 4
        assert s["right"] == right
        assert s["right"] + s["wrong"] == 4
        assert s["flagged"] == sum(o["flagged"] for _, o in outs)
        assert s["silent_wrong"] + (s["flagged"] - s["right_flagged"]) == s["wrong"]
        assert s["names_none"] == sum(o["label"] is None for _, o in outs)
        assert sum(s["right_by_gold"].values()) == s["right"]
    assert summary["vader"]["flagged"] == 0

    gold_counts = {"positive": 1, "negative": 1, "neutral": 2}
    lines = bs.table(summary, gold_counts)
    vader_row = next(line for line in lines if line.startswith("| VADER alone |"))
    v = summary["vader"]
    assert vader_row.startswith(f"| VADER alone | 4 | {v['right']} | {v['wrong']} | 0 | {v['silent_wrong']} |")
    met, checks = bs.goal(summary)
    expected = all(summary[m]["right"] >= v["right"] and summary[m]["silent_wrong"] == 0
                   for m in ("panel", "panel_signals"))
    assert met is expected
    assert len(checks) == 4


def _fake_sdist(cache: Path, payload: bytes) -> None:
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w:gz") as tar:
        for name in ("hutto_ICWSM_2014/amazonReviewSnippets_GroundTruth.txt", "../amazonReviewSnippets_GroundTruth.txt",
                     "hutto_ICWSM_2014/vader_sentiment_lexicon.txt"):
            info = tarfile.TarInfo(name)
            data = b"evil\tevil\tevil\n" if name.startswith("..") else payload
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("hutto_ICWSM_2014/movieReviewSnippets_GroundTruth.txt")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    (cache / "sdist").mkdir(parents=True)
    with tarfile.open(cache / "sdist" / "vaderSentiment-3.3.2.tar.gz", "w:gz") as outer:
        info = tarfile.TarInfo(bs.SDIST_MEMBER)
        info.size = len(inner.getvalue())
        outer.addfile(info, io.BytesIO(inner.getvalue()))


def test_fetch_extracts_only_safe_ground_truth_files_from_a_cached_sdist(tmp_path):
    cache = tmp_path / "cache"
    payload = ("\n".join(LINES) + "\n").encode()
    _fake_sdist(cache, payload)
    path = bs.fetch_ground_truth("amazon", cache)
    assert path == cache / "hutto_ICWSM_2014" / "amazonReviewSnippets_GroundTruth.txt"
    assert path.read_bytes() == payload  # the member with ".." did not overwrite it
    assert sorted(p.name for p in (cache / "hutto_ICWSM_2014").iterdir()) == ["amazonReviewSnippets_GroundTruth.txt"]
    assert not (cache / "amazonReviewSnippets_GroundTruth.txt").exists()
    with pytest.raises(bs.DataError, match="movieReviewSnippets_GroundTruth.txt is not in"):
        bs.fetch_ground_truth("movie", cache)


def test_main_runs_from_the_cache_and_prints_json(tmp_path, capsys):
    cache = tmp_path / "cache"
    _fake_sdist(cache, ("\n".join(LINES) + "\n").encode())
    assert bs.main(["--set", "amazon", "--n", "3", "--seed", "2", "--cache-dir", str(cache), "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["n"] == 3 and out["file_sentences"] == 4
    assert sum(out["gold_counts"].values()) == 3
    assert [r["id"] for r in out["rows"]] == sorted(r["id"] for r in out["rows"])
    for method in bs.METHODS:
        assert out["summary"][method]["sentences"] == 3
    assert "3/3 sentences" in captured.err
    assert out["wall_seconds"] >= 0
