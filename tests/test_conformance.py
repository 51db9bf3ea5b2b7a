"""One conformance suite for every registered protocol spec.

A protocol gets all of this by registering its spec: it runs offline on every sample case it
fits, a cassette exported from the run replays to the same verdict, a failed step leaves a failed
debate that `resume` completes, bad options and unfit cases are refused with exit 2 and nothing
saved, its debate page renders without an exception or a raw Python repr, and its exports open.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from helpers import open_tab

from debate_core import cli
from debate_core.core.cases import load_case, sample_cases
from debate_core.core.schemas import Case
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs.debates import resume_debate, run_debate
from debate_core.present import export
from debate_core.protocols import BASELINES, PROTOCOLS, get_spec, specs
from debate_core.providers import make_provider
from debate_core.providers.base import Provider, StepFailed, StepRequest, StepResult
from debate_core.providers.offline.agents import handler_for
from debate_core.store import DebateStore

SPECS = {s.name: s for s in specs()}


def _usable(spec, case: Case) -> bool:
    """The case has the fields the protocol needs and, when it brings agents of its own, the
    protocol can use them (check_case refuses it otherwise)."""
    try:
        spec.check_case(case)
    except ValueError:
        return False
    return True


def _fitting_cases(name: str) -> list:
    spec = SPECS[name]
    return [p for p in sample_cases() if _usable(spec, load_case(p))]


FIT = [(name, path) for name in PROTOCOLS for path in _fitting_cases(name)]


def _unfit(name: str) -> Case | None:
    """A sample case stripped of every field the protocol requires, or None if it requires none."""
    spec = SPECS[name]
    required = [n.field for n in spec.case_needs if n.required]
    if not required:
        return None
    base = load_case(_fitting_cases(name)[0]).model_dump()
    for f in required:
        base[f] = [] if isinstance(base.get(f), list) else None
    return Case.model_validate(base)


def test_every_protocol_is_registered_with_a_spec_and_fits_a_sample_case():
    assert set(SPECS) == set(PROTOCOLS)
    for name in PROTOCOLS:
        assert _fitting_cases(name), f"no sample case fits {name}"
        spec = SPECS[name]
        assert spec.description and "seed" not in spec.description.lower()
        assert spec.min_rounds <= spec.default_rounds <= spec.max_rounds
        assert spec.options_schema()["type"] == "object"
        for preset in spec.presets.values():
            settings = DebateSettings(rounds=preset.get("rounds"), agents=preset.get("agents"),
                                      options=dict(preset.get("options") or {}))
            spec.validate(settings)


@pytest.mark.parametrize("name", [*PROTOCOLS, *BASELINES])
def test_its_spec_carries_its_stages_words_caps_offline_agent_and_review_threshold(name):
    spec = get_spec(name)
    folder = f"debate_core.protocols.{'baselines' if name in BASELINES else name}"
    assert spec.offline_agent == f"{folder}.agent"
    for stage in spec.stages:
        # The offline provider finds an agent for every stage through the spec alone.
        assert handler_for(name, stage.name) is not None, f"{name}: no offline agent for {stage.name}"
        assert stage.reply_cap > 0, f"{name}.{stage.name}"
        if name in PROTOCOLS:
            assert stage.noun, f"{name}.{stage.name} has no plain-words noun"
    if spec.review_threshold is not None:
        key, scale = spec.review_threshold
        assert key in spec.options_model.model_fields and scale > 0
        assert 0 < spec.review_bar(spec.options({})) <= 1


@pytest.mark.parametrize(("name", "path"), FIT, ids=[f"{n}-{p.stem}" for n, p in FIT])
def test_runs_offline_and_replays_to_the_same_verdict(tmp_path, name, path):
    case = load_case(path)
    store = DebateStore(tmp_path / "d.db")
    first = run_debate(case, name, provider=make_provider("offline"), store=store)
    assert first.status == "completed", first.error
    tape = tmp_path / "c.json"
    tape.write_text(json.dumps(export.cassette(store, first.debate_id)), encoding="utf-8")
    again = run_debate(case, name, provider=make_provider("replay", cassette=str(tape)), store=store)
    assert again.status == "completed", again.error
    assert again.verdict.model_dump() == first.verdict.model_dump()
    assert (again.converged, again.rounds) == (first.converged, first.rounds)


class _FailOnce(Provider):
    """The offline agents, except that the n-th call fails the way an exhausted model call does."""

    def __init__(self, fail_at: int) -> None:
        super().__init__(max_attempts=1, model="offline-rules")
        self.inner, self.fail_at, self.calls = make_provider("offline"), fail_at, 0
        self.name, self.label = self.inner.name, self.inner.label

    async def complete(self, req: StepRequest) -> StepResult:
        self.calls += 1
        if self.calls == self.fail_at:
            raise StepFailed(req.step_id, "the model's reply did not validate (made to fail)")
        return await self.inner.complete(req)


@pytest.mark.parametrize("name", PROTOCOLS)
def test_a_failed_step_leaves_a_failed_debate_that_resume_completes(tmp_path, name):
    store = DebateStore(tmp_path / "d.db")
    # The first fitting sample case on which the protocol makes model calls (agreeing reports make none).
    for path in _fitting_cases(name):
        case = load_case(path)
        clean = run_debate(case, name, provider=make_provider("offline"), store=store)
        calls = clean.usage["calls"]
        if calls >= 2:
            break
    assert calls >= 2
    failed = run_debate(case, name, provider=_FailOnce(fail_at=max(1, calls // 2 + 1)), store=store)
    assert failed.status == "failed" and failed.failed_step
    stored = store.get_debate(failed.debate_id)
    assert stored["status"] == "failed" and stored["failed_step"] == failed.failed_step
    resumed = resume_debate(store, failed.debate_id, make_provider("offline"))
    assert resumed.status == "completed", resumed.error
    assert resumed.verdict.model_dump() == clean.verdict.model_dump()


@pytest.mark.parametrize("name", PROTOCOLS)
def test_a_bad_option_is_refused_with_exit_2_and_nothing_saved(tmp_path, capsys, name):
    db = tmp_path / "d.db"
    case = _fitting_cases(name)[0]
    code = cli.main(["run", str(case), "--protocol", name, "--db", str(db), "--option", "no_such_option=1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "no_such_option" in err and len(err.strip().splitlines()) == 1
    assert DebateStore(db).count_debates() == 0


@pytest.mark.parametrize("name", PROTOCOLS)
def test_an_unfit_case_is_refused_with_exit_2_and_nothing_saved(tmp_path, capsys, name):
    unfit = _unfit(name)
    if unfit is None:
        assert not [n for n in SPECS[name].case_needs if n.required]
        return
    path = tmp_path / "unfit.json"
    path.write_text(unfit.model_dump_json(), encoding="utf-8")
    db = tmp_path / "d.db"
    code = cli.main(["run", str(path), "--protocol", name, "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 2
    missing = [n.field for n in SPECS[name].case_needs if n.required]
    assert any(f"'{f}'" in err for f in missing), err
    assert DebateStore(db).count_debates() == 0


def _markdown_texts(app) -> list[str]:
    """Every text the page shows on the tab in view (popovers and expanders included): markdown, captions, text, headings, alerts, metrics, expander and popover
    labels, and every cell of every table."""
    out = []
    for kind in ("markdown", "caption", "text", "title", "subheader", "header", "error", "warning", "info",
                 "success"):
        out += [str(getattr(e, "value", "")) for e in app.get(kind)]
    out += [f"{m.label} {m.value}" for m in app.metric]
    out += [str(e.label) for e in app.expander] + [str(t.label) for t in app.tabs]
    out += [str(getattr(p.proto, "label", "")) for p in app.get("popover")]
    for df in app.dataframe:
        frame = df.value
        out += [str(c) for c in frame.columns]
        out += [str(v) for row in frame.itertuples(index=False) for v in row]
    return out


@pytest.mark.parametrize("name", PROTOCOLS)
def test_its_debate_page_renders_without_errors_or_reprs(app, db_path, name):
    case = load_case(_fitting_cases(name)[0])
    store = DebateStore(db_path)
    result = run_debate(case, name, provider=make_provider("offline"), store=store)
    store.close()
    app.run()
    app.switch_page("pages/debate.py")
    app.query_params["id"] = result.debate_id
    app.run()
    assert not app.exception, [e.message for e in app.exception]
    labels = [t.label for t in app.tabs]
    assert set(labels) >= {"Rounds", "Claims", "Critiques", "Verdict details", "Protocol view", "Plots", "Evidence",
                           "Transcript"}
    # Only the tab on view is drawn: open each in turn and read everything it shows.
    texts = []
    for label in labels:
        open_tab(app, label)
        assert not app.exception, (label, [e.message for e in app.exception])
        texts += _markdown_texts(app)
    assert texts
    reprs = [t for t in texts if "{'" in t or "{\\'" in t]
    assert not reprs, reprs[:3]
    # Rule codes and step ids appear only as words.
    codes = [t for t in texts if re.search(r"\bS[56]\.[a-z_]+|\bRule[A-Z]\b|\br\d+\.[a-z_]+\.[\w-]+", t)]
    assert not codes, codes[:3]


@pytest.mark.parametrize("name", PROTOCOLS)
def test_its_exports_open(tmp_path, name):
    case = load_case(_fitting_cases(name)[0])
    store = DebateStore(tmp_path / "d.db")
    result = run_debate(case, name, provider=make_provider("offline"), store=store)
    files = export.export_files(store, result.debate_id)
    assert "debate_summary.json" in files and "transcript.md" in files
    for fname, content in files.items():
        if fname.endswith(".json"):
            json.loads(content)
    rows = list(csv.reader(io.StringIO(export.claims_csv(store, result.debate_id))))
    assert rows and rows[0][0] == "kind"
    spec = get_spec(name)
    if spec.export_name is not None:
        step_files = [f for f in files if f not in ("debate_summary.json", "transcript.md")]
        assert step_files
