"""Sentence sentiment against human ratings: the offline panel next to VADER alone.

The data are the human-rated sentence sets of the VADER paper (Hutto and Gilbert, ICWSM 2014),
which ship inside the `vaderSentiment` 3.3.2 source distribution on PyPI
(`additional_resources/hutto_ICWSM_2014.tar.gz`): per sentence an id, the mean of about twenty
human ratings on a -4..+4 scale, and the text. The script downloads that distribution with pip
into a cache directory outside the repository (default ~/.cache/debate-workbench/vader-ground-truth/,
`--cache-dir` to change) and extracts only the ground-truth files from it.

Gold label: a mean rating >= 0.5 is positive, <= -0.5 negative, anything between neutral. (The
VADER paper itself scores by the sign of the mean alone; a neutral band is used here because the
panel may answer neutral, and a sentence the raters put at +0.1 is not a positive one.)

Methods, each on the same deterministic sample (`--n`, `--seed`; stratified, so each gold label
keeps its share of the file):
- VADER alone: `SentimentIntensityAnalyzer().polarity_scores(text)["compound"]`, >= 0.05 positive,
  <= -0.05 negative, else neutral (the package's documented thresholds). It never flags.
- panel without signals: the sentence as a panel case (the question asks for "positive, negative,
  neutral or mixed", one evidence passage: the sentence), run by the offline provider through
  `run_debate`, the entry the CLI's `run` command uses.
- panel with signals: the same case carrying Stage1 signals from VADER's reading: `stage1_ate` with
  VADER's label, and as confidence |compound| for positive or negative, VADER's neutral share of
  the words (`neu`) for neutral.

A panel's label is the option its answer names (debate_core/core/options.py, as the scorer reads
options; when it names several, the one it names first: the panel states the overall label first).
An answer of "mixed" is wrong against every gold label, since the gold labels have no mixed. An
answer that names no option is wrong. Flagged means `needs_human_review`; silent wrong means wrong
and not flagged. Goal: each panel is right at least as often as VADER alone, and every wrong panel
answer is flagged.

    python bench/sentiment.py [--set amazon|movie|tweets|nyt] [--n 200] [--seed 1] [--json]
                              [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import io
import json
import random
import re
import subprocess
import sys
import tarfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import benchlib  # noqa: F401 - puts the repository on sys.path

from debate_core.core.options import named_options, offered_options
from debate_core.core.schemas import Case
from debate_core.core.settings import DebateSettings
from debate_core.jobs.debates import run_debate
from debate_core.protocols import get_spec
from debate_core.providers import make_provider

PACKAGE = "vaderSentiment==3.3.2"
SDIST_MEMBER = "vaderSentiment-3.3.2/additional_resources/hutto_ICWSM_2014.tar.gz"
DATA_DIR = "hutto_ICWSM_2014"
SETS = {
    "amazon": "amazonReviewSnippets_GroundTruth.txt",
    "movie": "movieReviewSnippets_GroundTruth.txt",
    "tweets": "tweets_GroundTruth.txt",
    "nyt": "nytEditorialSnippets_GroundTruth.txt",
}
DEFAULT_CACHE = Path.home() / ".cache" / "debate-workbench" / "vader-ground-truth"
LABELS = ("positive", "negative", "neutral")
GOLD_BAND = 0.5  # |mean rating| below this is neutral
VADER_BAND = 0.05  # the package's documented compound thresholds
METHODS = ("vader", "panel", "panel_signals")
METHOD_NAMES = {"vader": "VADER alone", "panel": "panel without signals", "panel_signals": "panel with signals"}
PROGRESS_EVERY = 20


class DataError(Exception):
    """The ground truth could not be fetched or read (one line, for the user)."""


@dataclass(frozen=True)
class Sentence:
    id: str
    rating: float
    text: str

    @property
    def gold(self) -> str:
        return gold_label(self.rating)


def gold_label(rating: float) -> str:
    if rating >= GOLD_BAND:
        return "positive"
    if rating <= -GOLD_BAND:
        return "negative"
    return "neutral"


def vader_label(compound: float) -> str:
    if compound >= VADER_BAND:
        return "positive"
    if compound <= -VADER_BAND:
        return "negative"
    return "neutral"


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def _safe_name(name: str) -> bool:
    parts = Path(name).parts
    return bool(parts) and not Path(name).is_absolute() and ".." not in parts


def _extract_ground_truth(sdist: Path, target: Path) -> None:
    """Copy the *_GroundTruth.txt files out of the nested archive into `target`. Only regular
    files with plain relative names are read, and each is written under its base name, so nothing
    in the archive chooses where a file lands."""
    with tarfile.open(sdist, "r:gz") as outer:
        member = outer.getmember(SDIST_MEMBER)
        if not member.isfile():
            raise DataError(f"{SDIST_MEMBER} in {sdist.name} is not a file")
        inner_bytes = outer.extractfile(member).read()
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(inner_bytes), mode="r:gz") as inner:
        for m in inner.getmembers():
            base = Path(m.name).name
            if m.isfile() and _safe_name(m.name) and base in SETS.values():
                (target / base).write_bytes(inner.extractfile(m).read())


def fetch_ground_truth(set_name: str, cache_dir: Path) -> Path:
    """The ground-truth file of `set_name`, downloaded and extracted into `cache_dir` on first use."""
    path = cache_dir / DATA_DIR / SETS[set_name]
    if path.is_file():
        return path
    sdist_dir = cache_dir / "sdist"
    sdist_dir.mkdir(parents=True, exist_ok=True)
    sdists = sorted(sdist_dir.glob("vaderSentiment-3.3.2.tar.gz"))
    if not sdists:
        cmd = [sys.executable, "-m", "pip", "download", PACKAGE, "--no-deps", "--no-binary", ":all:",
               "--quiet", "-d", str(sdist_dir)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        sdists = sorted(sdist_dir.glob("vaderSentiment-3.3.2.tar.gz"))
        if proc.returncode != 0 or not sdists:
            last = (proc.stderr.strip().splitlines() or [f"pip exited with {proc.returncode}"])[-1]
            raise DataError(f"could not download {PACKAGE} from PyPI with pip: {last}")
    try:
        _extract_ground_truth(sdists[0], cache_dir / DATA_DIR)
    except (tarfile.TarError, KeyError, OSError) as exc:
        raise DataError(f"could not read the ground truth from {sdists[0]}: {exc}") from exc
    if not path.is_file():
        raise DataError(f"{SETS[set_name]} is not in {sdists[0]}")
    return path


def load_ground_truth(path: Path) -> list[Sentence]:
    """Tab-separated lines: id, mean rating, text. Lines that do not parse are skipped."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        parts = line.strip("\r\n").split("\t")
        if len(parts) < 3:
            continue
        try:
            rating = float(parts[1])
        except ValueError:
            continue
        text = "\t".join(parts[2:]).strip()
        if text:
            out.append(Sentence(parts[0].strip(), rating, text))
    return out


def stratified_sample(sentences: list[Sentence], n: int, seed: int) -> list[Sentence]:
    """`n` sentences (all when n covers the file), each gold label taking its share of the file
    (largest remainders get the rounding), drawn with `seed`; returned in file order."""
    if n >= len(sentences):
        return list(sentences)
    by_label: dict[str, list[int]] = {label: [] for label in LABELS}
    for i, s in enumerate(sentences):
        by_label[s.gold].append(i)
    exact = {label: n * len(idx) / len(sentences) for label, idx in by_label.items()}
    quota = {label: int(x) for label, x in exact.items()}
    for label in sorted(exact, key=lambda k: (-(exact[k] - quota[k]), LABELS.index(k)))[: n - sum(quota.values())]:
        quota[label] += 1
    rng = random.Random(seed)
    chosen = [i for label in LABELS for i in rng.sample(by_label[label], quota[label])]
    return [sentences[i] for i in sorted(chosen)]


# ---------------------------------------------------------------------------
# Methods
# ---------------------------------------------------------------------------


def question_for(text: str) -> str:
    # The sentence is quoted in double quotes, so a double quote inside it becomes a single one.
    quoted = text.replace('"', "'")
    # The options are the raters' scale: one number per sentence cannot say "mixed".
    return ("What is the overall sentiment (positive, negative or neutral) of the review sentence "
            f"\"{quoted}\"?")


def vader_signals(text: str, scores: dict) -> dict:
    """Stage1 signals from VADER's reading: its label, with |compound| as the confidence of a
    positive or negative label and the neutral share of the words for a neutral one."""
    label = vader_label(scores["compound"])
    confidence = scores["neu"] if label == "neutral" else abs(scores["compound"])
    return {"text": text, "language": "en",
            "stage1_ate": {"label": label, "confidence": round(float(confidence), 4)}}


def make_case(sentence: Sentence, set_name: str, signals: dict | None = None) -> Case:
    return Case(
        id=f"vader_{set_name}_{sentence.id}",
        title=f"Review sentence {sentence.id} ({set_name}, human-rated)",
        question=question_for(sentence.text),
        domain_hint="sentence-level sentiment of an English review sentence",
        evidence=[{"id": "S1", "source": "Review sentence under analysis", "authority": "primary",
                   "text": sentence.text}],
        signals=signals,
    )


def _first_position(answer: str, option: str) -> int:
    words = [re.escape(w) for w in option.split()]
    m = re.search(r"(?<![\w-])" + r"[\s-]+".join(words) + r"(?![\w-])", answer, re.IGNORECASE)
    return m.start() if m else len(answer)


def answer_label(question: str, answer: str) -> str | None:
    """The option the answer names (the first named, when it names several), None when none."""
    named = named_options(answer or "", offered_options(question))
    if not named:
        return None
    return min(named, key=lambda option: _first_position(answer, option))


def run_panel(case: Case) -> dict:
    """One offline panel debate through the CLI's entry (`run_debate`), checked as `run` checks it."""
    settings = DebateSettings()
    get_spec("panel").check_case(case, settings)
    result = run_debate(case, "panel", provider=make_provider("offline"), settings=settings)
    if result.status != "completed" or result.verdict is None:
        return {"label": None, "flagged": False, "error": result.error or result.status, "answer": None}
    v = result.verdict
    return {"label": answer_label(case.question, v.answer), "flagged": bool(v.needs_human_review),
            "error": None, "answer": v.answer}


def run_sentence(sentence: Sentence, set_name: str, analyzer) -> dict:
    scores = analyzer.polarity_scores(sentence.text)
    vader = {"label": vader_label(scores["compound"]), "flagged": False, "error": None, "answer": None}
    return {
        "id": sentence.id, "rating": sentence.rating, "gold": sentence.gold, "text": sentence.text,
        "compound": scores["compound"],
        "vader": vader,
        "panel": run_panel(make_case(sentence, set_name)),
        "panel_signals": run_panel(make_case(sentence, set_name, vader_signals(sentence.text, scores))),
    }


def run_all(sentences: list[Sentence], set_name: str, progress=None) -> list[dict]:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    rows = []
    for i, sentence in enumerate(sentences, 1):
        rows.append(run_sentence(sentence, set_name, analyzer))
        if progress and (i % PROGRESS_EVERY == 0 or i == len(sentences)):
            progress(f"{i}/{len(sentences)} sentences")
    return rows


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


def figures(rows: list[dict], method: str) -> dict:
    outs = [(r["gold"], r[method]) for r in rows]
    right = [o["label"] == gold for gold, o in outs]
    flagged = [o["flagged"] for _, o in outs]
    return {
        "sentences": len(outs),
        "right": sum(right),
        "wrong": len(outs) - sum(right),
        "flagged": sum(flagged),
        "silent_wrong": sum(not r and not f for r, f in zip(right, flagged, strict=True)),
        "right_flagged": sum(r and f for r, f in zip(right, flagged, strict=True)),
        "names_none": sum(o["label"] is None and not o["error"] for _, o in outs),
        "errors": sum(bool(o["error"]) for _, o in outs),
        "mixed": sum(o["label"] == "mixed" for _, o in outs),
        "right_by_gold": {g: sum(r for (gold, _), r in zip(outs, right, strict=True) if gold == g) for g in LABELS},
    }


def summarise(rows: list[dict]) -> dict[str, dict]:
    return {method: figures(rows, method) for method in METHODS}


def goal(summary: dict) -> tuple[bool, list[str]]:
    vader_right = summary["vader"]["right"]
    checks = []
    for method in ("panel", "panel_signals"):
        s = summary[method]
        name = METHOD_NAMES[method]
        checks.append((s["right"] >= vader_right, f"{name} right at least as often as VADER alone "
                                                  f"({s['right']} vs {vader_right})"))
        checks.append((s["silent_wrong"] == 0 and s["errors"] == 0,
                       f"every wrong answer of the {name} flagged ({s['silent_wrong']} silent wrong"
                       + (f", {s['errors']} failed debates" if s["errors"] else "") + ")"))
    return all(ok for ok, _ in checks), [("met: " if ok else "MISSED: ") + text for ok, text in checks]


TABLE_HEAD = ("| method | sentences | right | wrong | flagged | silent wrong | right and flagged | "
              "names no option | right per gold label (pos / neg / neu) |")


def table(summary: dict, gold_counts: dict) -> list[str]:
    lines = [TABLE_HEAD, "|---" * (TABLE_HEAD.count("|") - 1) + "|"]
    for method in METHODS:
        s = summary[method]
        by = " / ".join(f"{s['right_by_gold'][g]} of {gold_counts.get(g, 0)}" for g in LABELS)
        err = f" ({s['errors']} failed)" if s["errors"] else ""
        lines.append(f"| {METHOD_NAMES[method]} | {s['sentences']}{err} | {s['right']} | {s['wrong']} | "
                     f"{s['flagged']} | {s['silent_wrong']} | {s['right_flagged']} | {s['names_none']} | {by} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", dest="set_name", choices=sorted(SETS), default="amazon", help="which rated set")
    ap.add_argument("--n", type=int, default=200, help="sentences in the sample (default 200)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the stratified sample (default 1)")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help=f"download cache (default {DEFAULT_CACHE})")
    ap.add_argument("--json", action="store_true", help="print the figures and the rows as JSON")
    args = ap.parse_args(argv)
    if args.n < 1:
        ap.error("--n must be at least 1")
    started = time.perf_counter()
    try:
        sentences = load_ground_truth(fetch_ground_truth(args.set_name, args.cache_dir.expanduser()))
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sample = stratified_sample(sentences, args.n, args.seed)
    gold_counts = dict(Counter(s.gold for s in sample))
    rows = run_all(sample, args.set_name, progress=lambda m: print(m, file=sys.stderr, flush=True))
    wall = time.perf_counter() - started
    summary = summarise(rows)
    met, lines = goal(summary)
    if args.json:
        print(json.dumps({"set": args.set_name, "file_sentences": len(sentences), "n": len(sample), "seed": args.seed,
                          "gold_counts": gold_counts, "summary": summary, "goal_met": met, "goal": lines,
                          "wall_seconds": round(wall, 1), "rows": rows}, ensure_ascii=False))
        return 0
    print(f"{args.set_name}: {len(sample)} of {len(sentences)} human-rated sentences (seed {args.seed}); gold "
          + ", ".join(f"{g} {gold_counts.get(g, 0)}" for g in LABELS))
    print("\n".join(table(summary, gold_counts)))
    print("\n".join(lines))
    print(f"Wall time {wall:.1f} s for {len(sample)} sentences ({time.strftime('%Y-%m-%d')}).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
