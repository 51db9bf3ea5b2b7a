"""Steer, fork and compare from the app: pause for review from New debate, the paused debate's
banner and intervention forms, Continue to the verdict, Pause and Stop on a running debate, a fork
from a closed round with its lineage, the History page's paused list, and the worker's
start_continue and start_fork. Asserts on what the pages show and what the store holds."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from helpers import open_tab
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block

from debate_core.core.cases import load_case
from debate_core.core.steering import SteeringError
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs import worker
from debate_core.jobs.debates import run_debate
from debate_core.providers import make_provider
from debate_core.store import DebateStore

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "data" / "cases" / "national_will_formalities.json"  # converges after two rounds offline when left alone


def _ok(app: AppTest) -> AppTest:
    assert not app.exception, [e.message for e in app.exception]
    return app


def _open(app: AppTest, debate_id: str, reviewer: str | None = "Alice") -> AppTest:
    app.run()
    if reviewer is not None:
        app.session_state["reviewer_name"] = reviewer
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    return _ok(app.run())


def _store(db_path) -> DebateStore:
    return DebateStore(db_path, readonly=True)


def _block(app: AppTest, key: str) -> Block | None:
    """The container drawn with this key (st.container(key=...)), or None."""
    def walk(node):
        if isinstance(node, Block) and getattr(node, "key", None) == key:
            return node
        for child in getattr(node, "children", {}).values():
            found = walk(child)
            if found is not None:
                return found
        return None

    return walk(app.main)


def _shown(app: AppTest) -> list[str]:
    """Every text on the page in view: markdown, captions, text, alerts, expander labels, links, tables."""
    out: list[str] = []
    for kind in ("markdown", "caption", "text", "title", "subheader", "error", "warning", "info", "success"):
        out += [str(getattr(e, "value", "")) for e in app.get(kind)]
    out += [str(e.label) for e in app.expander]
    out += [str(p.proto.label) for p in app.get("page_link")]
    for df in app.dataframe:
        frame = df.value
        out += [str(c) for c in frame.columns] + [str(v) for row in frame.itertuples(index=False) for v in row]
    return out


def _plain(text: str) -> str:
    """Markdown as read: backslash escapes dropped."""
    return re.sub(r"\\(.)", r"\1", text)


@pytest.fixture
def paused(db_path):
    """A cross critique debate paused for review after round 1 (offline); returns its id."""
    store = DebateStore(db_path)
    try:
        result = run_debate(load_case(CASE), "cross_critique", provider=make_provider("offline"),
                            settings=DebateSettings(pause_after_round=1), store=store)
    finally:
        store.close()
    assert result.status == "paused"
    return result.debate_id


def _critique(app: AppTest, debate_id: str, target: str, text: str, severity: str = "CRITICAL") -> AppTest:
    app.selectbox(key=f"steer-critique-target-{debate_id}").set_value(target)
    app.radio(key=f"steer-critique-severity-{debate_id}").set_value(severity)
    app.text_area(key=f"steer-critique-text-{debate_id}").set_value(text)
    app.text_input(key=f"steer-critique-fix-{debate_id}").set_value("Say what the facts mean for validity.")
    return _ok(app.button(key=f"steer-submit-critique-{debate_id}").click().run())


# ---------------------------------------------------------------------------
# New debate -> paused -> intervene -> continue -> verdict
# ---------------------------------------------------------------------------


def test_new_debate_with_a_pause_ends_paused_and_its_page_offers_the_steer_panel(app, db_path):
    app.run()
    app.session_state["reviewer_name"] = "Alice"
    _ok(app.run())
    from debate_core.core.cases import sample_cases

    app.selectbox(key="nd-sample").set_value(str(next(p for p in sample_cases() if p.name == CASE.name))).run()
    app.selectbox(key="nd-protocol").set_value("cross_critique").run()
    assert app.number_input(key="nd-pause-round-cross_critique").disabled, "off by default"
    app.checkbox(key="nd-pause").check().run()
    app.number_input(key="nd-pause-round-cross_critique").set_value(1).run()
    assert any("pause for review after round 1" in c.value for c in app.caption)
    app.button(key="nd-start").click()
    _ok(app.run())
    debate_id = app.session_state["debate_id"]
    assert worker.wait(debate_id, 60)
    debate = _store(db_path).get_debate(debate_id, with_steps=False)
    assert debate["status"] == "paused" and debate["paused_round"] == 1 and debate["next_round"] == 2
    assert debate["settings"]["pause_after_round"] == 1

    _ok(app.run())
    [banner] = [i.value for i in app.info if "Paused for review" in i.value]
    assert _plain(banner).startswith("**Paused for review after round 1.**") and "Round 2 comes next" in banner
    panel = _block(app, "steer-panel")
    assert panel is not None, "the steer panel is drawn"
    kinds = app.button_group(key=f"steer-kind-{debate_id}")
    assert kinds.options == ["Raise a critique", "Add evidence", "Pin a claim", "Withdraw a claim",
                             "Resolve a critique"]
    assert {b.label for b in panel.button} >= {"Continue", "Stop"}
    # The claim picker names the agent, the claim and its text.
    picker = app.selectbox(key=f"steer-critique-target-{debate_id}")
    assert any(o.startswith("National Law Agent · C2 · ") for o in picker.options)
    # The record of the first round is there to read, as for a finished debate.
    assert {"Rounds", "Claims", "Critiques", "Transcript"} <= {t.label for t in app.tabs}
    assert not [g for g in app.button_group if g.key == f"decision-{debate_id}"], "no verdict to review yet"


def test_a_critique_through_the_form_is_recorded_and_shown_in_words(app, db_path, paused):
    _open(app, paused)
    _critique(app, paused, "nla.C2", "C2 restates the facts <b>and</b> does not say whether the will is valid")
    assert any("Recorded" in s.value for s in app.success)
    debate = _store(db_path).get_debate(paused)
    [step] = [s for s in debate["steps"] if s["stage"] == "human"]
    assert step["step_id"] == "r2.human.alice"
    iv = step["output"]
    assert (iv["kind"], iv["target"], iv["severity"], iv["reviewer"], iv["critique_id"]) == (
        "critique", "nla.C2", "CRITICAL", "Alice", "H1")
    assert iv["description"] == "C2 restates the facts <b>and</b> does not say whether the will is valid"
    assert iv["suggested_fix"] == "Say what the facts mean for validity."
    assert any(c["issue_type"] == "reviewer" and c["critique_id"] == "H1" for c in _store(db_path).critiques(paused))
    assert [(r["reviewer"], r["action"]) for r in debate["reviews"]] == [("Alice", "intervene")]
    # The form is cleared for the next one; the list of interventions shows it, in words.
    assert app.text_area(key=f"steer-critique-text-{paused}").value == ""
    listed = [_plain(m.value) for m in _block(app, "steer-panel").markdown if m.value.startswith("**Alice**")]
    assert listed == ["**Alice**, before round 2: raised a CRITICAL critique (H1) of National Law Agent's claim C2: "
                      "C2 restates the facts <b>and</b> does not say whether the will is valid. "
                      "Suggested fix: Say what the facts mean for validity."]
    # The Rounds tab and the transcript read it as an intervention, not as a record.
    assert any(_plain(m.value).startswith("**Alice's intervention:** raised a CRITICAL critique (H1)")
               for m in app.markdown)
    open_tab(app, "Transcript")
    assert "Round 2 · Alice's intervention" in [e.label for e in app.expander]
    # Only her own open critique is offered to resolve, and resolving it is recorded too.
    app.button_group(key=f"steer-kind-{paused}").set_value("resolve").run()
    resolve = app.selectbox(key=f"steer-resolve-target-{paused}")
    assert resolve.options == ["H1 · CRITICAL · National Law Agent's claim C2 · C2 restates the facts <b>and</b> "
                               "does not say whether the will is valid"]
    _ok(app.button(key=f"steer-submit-resolve-{paused}").click().run())
    kinds = [s["output"]["kind"] for s in _store(db_path).get_debate(paused)["steps"] if s["stage"] == "human"]
    assert kinds == ["critique", "resolve"]
    assert any(_plain(m.value).endswith("resolved Alice's critique H1 of National Law Agent") for m in app.markdown)


def test_a_refused_intervention_is_explained_and_keeps_what_was_typed(app, db_path, paused):
    _open(app, paused)
    # No text: refused by the page, the chosen claim stays.
    app.selectbox(key=f"steer-critique-target-{paused}").set_value("ala.C1")
    _ok(app.button(key=f"steer-submit-critique-{paused}").click().run())
    assert any("Not recorded: Write the critique" in e.value for e in app.error)
    assert app.selectbox(key=f"steer-critique-target-{paused}").value == "ala.C1"
    # An id the case already has: refused by the engine, in words, every field kept.
    case_id = _store(db_path).get_debate(paused, with_steps=False)["case"]["evidence"][0]["id"]
    app.button_group(key=f"steer-kind-{paused}").set_value("evidence").run()
    app.text_input(key=f"steer-evidence-id-{paused}").set_value(case_id)
    app.text_input(key=f"steer-evidence-source-{paused}").set_value("Notary's letter")
    app.text_area(key=f"steer-evidence-text-{paused}").set_value("The will was deposited in 2019.")
    _ok(app.button(key=f"steer-submit-evidence-{paused}").click().run())
    [error] = [e.value for e in app.error]
    assert _plain(error) == f"Not recorded: Evidence id '{case_id}' is already in the case; choose another id"
    assert app.text_input(key=f"steer-evidence-id-{paused}").value == case_id
    assert app.text_area(key=f"steer-evidence-text-{paused}").value == "The will was deposited in 2019."
    # Without a name nothing is recorded.
    app.session_state["reviewer_name"] = ""
    app.text_input(key=f"steer-evidence-id-{paused}").set_value("N1")
    _ok(app.button(key=f"steer-submit-evidence-{paused}").click().run())
    assert any("Enter your name in the sidebar" in e.value for e in app.error)
    assert not [s for s in _store(db_path).get_debate(paused)["steps"] if s["stage"] == "human"]


def test_continue_runs_it_to_the_verdict_with_the_critique_applied(app, db_path, paused):
    _open(app, paused)
    _critique(app, paused, "nla.C2", "C2 restates the facts and does not say whether the will is valid")
    _ok(app.button(key=f"continue-{paused}").click().run())
    assert worker.wait(paused, 60)
    debate = _store(db_path).get_debate(paused)
    assert debate["status"] == "completed" and debate["verdict"]["answer"]
    # The reviewer's open critique kept it from converging in round 2 (alone, it converges there).
    assert "reviewer_critique_open" in debate["verdict"]["applied_rules"]
    assert [s["step_id"] for s in debate["steps"]].count("r1.answer.nla") == 1, "round 1 is not run again"
    assert [(r["reviewer"], r["action"]) for r in debate["reviews"]] == [("Alice", "intervene"), ("Alice", "continue")]
    _ok(app.run())
    card = _block(app, "verdict-card")
    assert card is not None and any(m.value.startswith("Confidence **") for m in card.markdown)
    assert _block(app, "steer-panel") is None
    assert app.button_group(key=f"decision-{paused}"), "the review controls follow the verdict"


def test_stop_on_a_paused_debate_stops_it_and_says_so(app, db_path, paused):
    _open(app, paused)
    _ok(app.button(key=f"stop-{paused}").click().run())
    debate = _store(db_path).get_debate(paused, with_steps=False)
    assert debate["status"] == "stopped"
    assert any(_plain(w.value).startswith("**Stopped after round 1 by Alice.**") for w in app.warning)
    assert _block(app, "steer-panel") is None
    assert ":gray-badge[stopped]" in [m.value for m in app.markdown]


# ---------------------------------------------------------------------------
# Running: Pause and Stop
# ---------------------------------------------------------------------------


def test_pause_on_a_running_debate_pauses_it_after_the_current_stage(app, db_path):
    debate_id = worker.start_debate(load_case(CASE), "cross_critique", make_provider("offline", latency_ms=1500),
                                    db_path=db_path)
    try:
        _open(app, debate_id, reviewer="Bob")
        live = _block(app, "steer-live")
        assert live is not None and {b.label for b in live.button} == {"Pause", "Stop"}
        _ok(app.button(key=f"pause-{debate_id}").click().run())
        row = _store(db_path).get_debate(debate_id, with_steps=False)
        assert row["control"] == "pause" or row["status"] == "paused"
        assert ("Bob", "pause") in [(r["reviewer"], r["action"]) for r in _store(db_path).reviews(debate_id)]
        if row["status"] == "running":
            assert any("Bob asked to pause: the debate will pause after the current stage" in _plain(c.value)
                       for c in app.caption)
            assert app.button(key=f"pause-{debate_id}").disabled, "asked once"
    finally:
        assert worker.wait(debate_id, 120)
    row = _store(db_path).get_debate(debate_id, with_steps=False)
    assert row["status"] == "paused" and row["verdict"] is None
    _ok(app.run())
    assert any("Bob asked for the pause" in _plain(i.value) for i in app.info)


def test_stop_on_a_running_debate_sets_the_request(app, db_path):
    # A running row with no worker behind it: the request is what is checked here.
    store = DebateStore(db_path)
    debate_id = store.create_debate(load_case(CASE), "cross_critique", {"provider": "offline"}, {"rounds": 3})
    store.close()
    _open(app, debate_id, reviewer="Bob")
    _ok(app.button(key=f"stop-{debate_id}").click().run())
    row = _store(db_path).get_debate(debate_id, with_steps=False)
    assert row["status"] == "running" and row["control"] == "stop"
    assert ("Bob", "stop") in [(r["reviewer"], r["action"]) for r in _store(db_path).reviews(debate_id)]
    assert any("Bob asked to stop: the debate will stop after the current stage" in _plain(c.value)
               for c in app.caption)
    assert app.button(key=f"stop-{debate_id}").disabled and app.button(key=f"pause-{debate_id}").disabled


# ---------------------------------------------------------------------------
# Fork and lineage
# ---------------------------------------------------------------------------


def _fork_form(app: AppTest, debate_id: str, round_no: int, convergence_mode: str) -> AppTest:
    app.selectbox(key=f"fork-round-{debate_id}").set_value(round_no)
    app.selectbox(key=f"fork-opt-{debate_id}-convergence_mode").set_value(convergence_mode)
    return _ok(app.button(key=f"fork-submit-{debate_id}").click().run())


def test_fork_from_round_one_opens_the_fork_with_its_lineage(app, db_path, make_debate):
    parent = make_debate(load_case(CASE))
    _open(app, parent)
    assert app.selectbox(key=f"fork-round-{parent}").options == ["1", "2"]
    # Without a name the fork is refused in words, nothing is created, and the form keeps its choices.
    app.session_state["reviewer_name"] = ""
    _fork_form(app, parent, 1, "all")
    assert any("Enter your name in the sidebar" in _plain(e.value) for e in app.error)
    assert app.selectbox(key=f"fork-opt-{parent}-convergence_mode").value == "all"
    assert _store(db_path).forks(parent) == []

    app.session_state["reviewer_name"] = "Alice"
    _fork_form(app, parent, 1, "all")
    fork_id = app.session_state["debate_id"]
    assert fork_id != parent and app.query_params.get("id") == fork_id
    assert worker.wait(fork_id, 60)
    row = _store(db_path).get_debate(fork_id)
    assert (row["parent_id"], row["fork_round"], row["status"]) == (parent, 1, "completed")
    assert row["settings"]["options"]["convergence_mode"] == "all"
    assert all(s["reused_from"] == parent for s in row["steps"] if s["round"] == 1)
    assert ("Alice", "fork") in [(r["reviewer"], r["action"]) for r in row["reviews"]]

    _ok(app.run())
    links = {p.proto.label: p.proto.query_string for p in app.get("page_link")}
    assert _plain(f"Forked from {parent} after round 1") in {_plain(k) for k in links}
    assert f"a={parent}&b={fork_id}" in links["Compare with parent"]
    open_tab(app, "Rounds")
    assert any("This round is reused from the parent debate" in c.value for c in app.caption)
    open_tab(app, "Transcript")
    assert any(e.label.endswith("· reused from the parent debate") for e in app.expander)
    # The parent lists its fork.
    _open(app, parent)
    assert _block(app, f"forks-{parent}") is not None
    assert any(_plain(p.proto.label).startswith(f"{fork_id} · after round 1") for p in app.get("page_link"))


def test_a_paused_debate_can_be_forked_and_a_running_one_offers_no_fork(app, db_path, paused):
    _open(app, paused)
    assert app.selectbox(key=f"fork-round-{paused}").options == ["1"]
    store = DebateStore(db_path)
    running = store.create_debate(load_case(CASE), "cross_critique", {"provider": "offline"}, {"rounds": 3})
    store.close()
    _open(app, running)
    assert not [s for s in app.selectbox if s.key == f"fork-round-{running}"]


# ---------------------------------------------------------------------------
# History
# ---------------------------------------------------------------------------


def test_history_lists_paused_debates_first_and_shows_lineage(app, db_path, paused, make_debate):
    parent = make_debate(load_case(CASE))
    fork_id = worker.start_fork(parent, 1, db_path=db_path, options={"convergence_mode": "all"}, reviewer="Alice")
    assert worker.wait(fork_id, 60)
    app.run()
    _ok(app.switch_page("pages/history.py").run())
    assert "Paused for review (1)" in [s.value for s in app.subheader]
    paused_links = _block(app, "h-paused").get("page_link")
    assert [_plain(p.proto.label) for p in paused_links] == [
        f"Olographic will deposited with a notary and the children's legitieme portie · paused after round 1 · {paused}"]
    assert f"id={paused}" in paused_links[0].proto.query_string
    table = app.dataframe[0].value
    forked = dict(zip(table["id"], table["forked_from"], strict=True))
    assert forked[fork_id] == f"{parent} after round 1" and forked[parent] == ""
    assert set(app.selectbox(key="h-status").options) >= {"paused", "stopped"}
    app.selectbox(key="h-status").set_value("paused").run()
    assert app.dataframe[0].value["id"].tolist() == [paused]
    assert app.dataframe[0].value["status"].tolist() == ["paused"]


# ---------------------------------------------------------------------------
# In words: no records, step ids or references on screen
# ---------------------------------------------------------------------------


def test_a_steered_debate_and_its_fork_read_in_words_on_every_tab(app, db_path, paused):
    from debate_core.jobs.continuation import intervene

    store = DebateStore(db_path)
    intervene(store, paused, reviewer="Alice", kind="critique", target="nla.C2", severity="MAJOR", text="Unclear.")
    intervene(store, paused, reviewer="Alice", kind="evidence", evidence="N1 | Notary's letter | Deposited in 2019.")
    intervene(store, paused, reviewer="Alice", kind="pin", target="ala.C1")
    intervene(store, paused, reviewer="Alice", kind="strike", target="nla.C3")
    intervene(store, paused, reviewer="Alice", kind="resolve", target="alice->nla:H1")
    store.close()
    texts: list[str] = []
    for debate_id in (paused, None):
        if debate_id is None:  # continued to its end, then forked from round 1
            worker.start_continue(paused, db_path=db_path, reviewer="Alice")
            assert worker.wait(paused, 60)
            debate_id = worker.start_fork(paused, 1, db_path=db_path, reviewer="Alice")
            assert worker.wait(debate_id, 60)
        _open(app, debate_id)
        for label in [t.label for t in app.tabs]:
            open_tab(app, label)
            _ok(app)
            texts += _shown(app)
    shown = [_plain(t).replace("**", "") for t in texts]
    assert any("Alice's intervention: pinned Adat Law Agent's claim C1 as established" in t for t in shown)
    assert any("Alice's intervention: withdrew National Law Agent's claim C3 from the debate" in t for t in shown)
    assert any("added passage N1 (Notary's letter): Deposited in 2019." in t for t in shown)
    reprs = [t for t in shown if "{'" in t or "'kind'" in t]
    assert not reprs, reprs[:3]
    codes = [t for t in shown if re.search(r"\br\d+\.[a-z_]+\.[\w-]+|->[\w-]+:H\d|\bhuman by\b", t)]
    assert not codes, codes[:3]


# ---------------------------------------------------------------------------
# The worker
# ---------------------------------------------------------------------------


def test_start_continue_refuses_at_once_and_starts_nothing(db_path, make_debate):
    done = make_debate(load_case(CASE))
    with pytest.raises(SteeringError, match="only a paused debate can be continued"):
        worker.start_continue(done, db_path=db_path)
    assert worker.running_here() == []


def test_start_continue_and_start_fork_refuse_a_model_the_app_cannot_set_up_again(db_path, paused):
    con = sqlite3.connect(db_path)  # as if it had run on a model: the key is never stored
    with con:
        con.execute("UPDATE debates SET provider = 'openai', provider_config = ? WHERE id = ?",
                    ['{"provider": "openai", "model": "m"}', paused])
    con.close()
    with pytest.raises(SteeringError, match=re.escape(f"python -m debate_core continue {paused} --provider openai")):
        worker.start_continue(paused, db_path=db_path)
    with pytest.raises(SteeringError, match=re.escape(f"python -m debate_core fork {paused} --from-round N")):
        worker.start_fork(paused, 1, db_path=db_path)
    assert _store(db_path).get_debate(paused, with_steps=False)["status"] == "paused", "not claimed"
    assert _store(db_path).forks(paused) == [] and worker.running_here() == []


def test_start_fork_refuses_a_round_that_did_not_close_before_anything_exists(db_path, paused):
    with pytest.raises(SteeringError, match="no closed round 2"):
        worker.start_fork(paused, 2, db_path=db_path)
    assert _store(db_path).count_debates() == 1 and worker.running_here() == []


def test_a_continued_debate_is_owned_by_this_process_while_it_runs(db_path):
    store = DebateStore(db_path)
    try:
        debate_id = run_debate(load_case(CASE), "cross_critique", provider=make_provider("offline", latency_ms=200),
                               settings=DebateSettings(pause_after_round=1), store=store).debate_id
    finally:
        store.close()
    assert worker.start_continue(debate_id, db_path=db_path, reviewer="Alice") == debate_id
    assert worker.is_running_here(debate_id)
    row = _store(db_path).get_debate(debate_id, with_steps=False)
    assert row["status"] == "running" and row["settings"]["runner"] == worker.runner_info()
    # The stored delay per call is kept: the continuation can be watched as the first part was.
    assert row["provider_config"]["latency_ms"] == 200
    assert debate_id not in worker.find_interrupted(_store(db_path))
    assert worker.wait(debate_id, 120)
    assert _store(db_path).get_debate(debate_id, with_steps=False)["status"] == "completed"


def test_a_continuation_that_crashes_is_saved_as_failed_not_left_running(db_path, paused, monkeypatch):
    import debate_core.jobs.continuation as continuation

    def explode(store, plan, sink=None):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(continuation, "run_steered", explode)
    worker.start_continue(paused, db_path=db_path, reviewer="Alice")
    assert worker.wait(paused, 30)
    row = _store(db_path).get_debate(paused, with_steps=False)
    assert row["status"] == "failed" and row["error"] == "the debate stopped unexpectedly: disk on fire"
    assert not worker.is_running_here(paused)
