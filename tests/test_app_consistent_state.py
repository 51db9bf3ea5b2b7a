"""The app's state agrees with itself: a sample case brings the protocol it was written for, form
errors stand under the field they concern, an oversized paste is named with its size and the
limit, the verdict shows in one line above every tab but its own, and the cross critique view's
counts are its table's rows counted."""

from __future__ import annotations

import json

from helpers import open_tab, small_case
from streamlit.testing.v1 import AppTest, local_script_runner
from streamlit.testing.v1.element_tree import Block

from debate_core.core.cases import load_case, sample_cases
from debate_core.core.files import size_text
from debate_core.present import views
from ui import stages
from ui.protocols.cross_critique import end_state


def _ok(app: AppTest) -> AppTest:
    assert not app.exception, [e.message for e in app.exception]
    return app


def _flat(node) -> list:
    """Every element of the page, in the order it is drawn."""
    out = []
    for child in getattr(node, "children", {}).values():
        out.append(child)
        out += _flat(child)
    return out


def _position(elements: list, test) -> int:
    found = [i for i, e in enumerate(elements) if test(e)]
    assert found, "element not on the page"
    return found[0]


def _keyed(key: str):
    return lambda e: getattr(e, "key", None) == key


def _error(text: str):
    return lambda e: getattr(e, "type", None) == "error" and text in str(e.value)


def _sample(protocol: str) -> str:
    return next(str(p) for p in sample_cases() if json.loads(p.read_text())["protocol"] == protocol)


def _own(app: AppTest) -> AppTest:
    app.run()
    return _ok(app.radio(key="nd-source").set_value("own").run())


def test_a_sample_case_selects_the_protocol_it_was_written_for_and_can_be_changed(app):
    app.run()
    app.selectbox(key="nd-sample").set_value(_sample("panel")).run()
    _ok(app)
    assert app.selectbox(key="nd-protocol").value == "panel"
    assert not app.error, "the panel case fits the panel"
    # The reader may still choose another protocol: the choice holds, and the page says what the
    # case was written for.
    app.selectbox(key="nd-protocol").set_value("cross_critique").run()
    _ok(app.run())
    assert app.selectbox(key="nd-protocol").value == "cross_critique"
    assert "This sample case was written for the Persona panel protocol." in [c.value for c in app.caption]
    # Another sample brings its own protocol again.
    app.selectbox(key="nd-sample").set_value(_sample("refinement")).run()
    assert _ok(app).selectbox(key="nd-protocol").value == "refinement"


def test_the_missing_question_is_reported_under_the_question(app):
    _own(app)
    app.text_area(key="nd-passages").set_value("E1 | Annual report | Revenue grew 8%.").run()
    _ok(app)
    page = _flat(app.main)
    question = _position(page, _keyed("nd-question"))
    error = _position(page, _error("The question is required"))
    hint = _position(page, _keyed("nd-domain"))
    upload = _position(page, _keyed("nd-upload"))
    assert question < error < hint < upload
    assert len([e for e in app.error if "question is required" in e.value]) == 1, "said once, where it belongs"
    assert app.button(key="nd-start").disabled


def test_an_oversized_paste_names_its_size_and_the_limit_and_keeps_the_text(app, monkeypatch):
    monkeypatch.setenv("DEBATE_MAX_CASE_BYTES", "2000")
    _own(app)
    text = "\n".join(f"E{i} | Source {i} | " + "word " * 20 for i in range(1, 41))
    app.text_area(key="nd-question").set_value("What grew?")
    app.text_area(key="nd-passages").set_value(text).run()
    _ok(app)
    size = size_text(len(text.encode("utf-8")))
    errors = [e.value.replace("\\", "") for e in app.error]
    assert any(f"the pasted text is {size}; the limit is 2 KB (set DEBATE_MAX_CASE_BYTES to raise it)" in e
               and "Nothing was removed from the box" in e for e in errors), errors
    assert app.text_area(key="nd-passages").value == text, "nothing is removed from the form"
    assert app.text_area(key="nd-question").value == "What grew?"
    assert app.button(key="nd-start").disabled
    page = _flat(app.main)
    assert (_position(page, _keyed("nd-passages")) < _position(page, _error("the pasted text is"))
            < _position(page, _keyed("nd-upload")))


def test_a_large_paste_under_the_limit_is_warned_about_with_its_size(app):
    _own(app)
    text = "\n".join(f"E{i} | Source {i} | " + "word " * 80 for i in range(1, 301))
    app.text_area(key="nd-question").set_value("What grew?")
    app.text_area(key="nd-passages").set_value(text).run()
    _ok(app)
    assert not app.error
    size = size_text(len(text.encode("utf-8")))
    assert len(text) > 100_000
    assert any(f"The pasted passages are {size}" in w.value and "The limit for a case is 1 MB" in w.value
               for w in app.warning), [w.value for w in app.warning]
    assert not app.button(key="nd-start").disabled, "a warning, not a refusal"


def test_the_help_texts_of_the_question_form_are_domain_neutral(app):
    _own(app)
    shown = " ".join(str(getattr(w.proto, "help", "")) + " " + str(getattr(w.proto, "placeholder", ""))
                     for w in [*app.text_input, *app.text_area])
    for word in ("adat", "Nagari", "Civil Code", "national"):
        assert word not in shown, word


def _block(app: AppTest, key: str):
    """The container drawn with this key (st.container(key=...)), or None."""
    found = [b for b in _flat(app.main) if isinstance(b, Block) and getattr(b, "key", None) == key]
    return found[0] if found else None


def test_the_verdict_card_is_whole_on_its_tab_and_one_line_on_the_others(app, make_debate):
    debate_id = make_debate(small_case())
    app.run()
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    _ok(app.run())
    # A finished debate opens on its verdict: the card beside the review controls, no one-line copy.
    assert _block(app, "verdict-card") is not None and _block(app, "verdict-line") is None
    assert app.button_group(key=f"decision-{debate_id}")
    for label in ("Rounds", "Claims", "Evidence"):
        _ok(open_tab(app, label))
        assert _block(app, "verdict-card") is None, label
        line = _block(app, "verdict-line")
        assert line is not None, label
        texts = [m.value for m in app.markdown if m.value.startswith("**Verdict:**")]
        assert len(texts) == 1 and "\n" not in texts[0] and "confidence **" in texts[0], texts
        assert app.button_group(key=f"decision-{debate_id}"), "the decision stays beside every tab"
    _ok(open_tab(app, "Claims"))
    page = _flat(app.main)  # the line stands above the tab's content
    assert _position(page, lambda e: str(getattr(e, "value", "")).startswith("**Verdict:**")) < _position(
        page, lambda e: getattr(e, "type", None) == "dataframe")


def test_the_one_line_answer_is_cut_at_a_word():
    line = views.one_line_answer({"verdict": {"short_answer": "The estate\nis divided " + "equally " * 30}})
    assert "\n" not in line and line.endswith("…") and len(line) <= views.LINE_CHARS + 1
    assert line.startswith("The estate is divided equally") and not line.endswith(" …")
    assert views.one_line_answer({"verdict": {"answer": "Granted. Because the rule says so."}}) == "Granted."


def test_tables_show_every_row_up_to_a_screen_and_names_whole(app, make_debate, monkeypatch):
    # The height a table is drawn with travels beside it in the page's messages, not in the
    # element AppTest reads: keep the messages of each run to read it there.
    sent: list = []
    parse = local_script_runner.parse_tree_from_messages
    monkeypatch.setattr(local_script_runner, "parse_tree_from_messages",
                        lambda messages: (sent.__setitem__(slice(None), list(messages)), parse(messages))[1])
    debate_id = make_debate(small_case())
    app.run()
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    _ok(open_tab(_ok(app.run()), "Claims"))
    table = app.dataframe[0]
    rows = len(table.value)
    heights = [m.delta.new_element.height_config.pixel_height for m in sent
               if m.HasField("delta") and m.delta.new_element.WhichOneof("type") == "dataframe"]
    assert heights == [stages.table_height(rows)] and heights[0] == (rows + 1) * stages.ROW_PX + 3
    agent = json.loads(table.proto.columns)["agent"]
    assert "width" not in agent, "the agent column fits the longest name"
    assert stages.table_height(51) == (stages.TABLE_ROWS + 1) * stages.ROW_PX + 3, "capped"
    assert stages.table_height(0) == stages.table_height(1)


def test_the_cross_critique_counts_are_the_still_open_rows_counted():
    # The case a user met: no critique in the state "open", two still open in others.
    summary = {"critique_states": {"open": 0, "addressed_not_confirmed": 1, "maintained": 1, "resolved": 3},
               "conflicts": [
                   {"critic": "a", "target": "b", "claim": "b.C1", "round": 1, "state": "addressed_not_confirmed",
                    "severity": "MAJOR", "issue_type": "logic_gap", "description": "x"},
                   {"critic": "b", "target": "a", "claim": "a.C2", "round": 2, "state": "maintained",
                    "severity": "MINOR", "issue_type": "logic_gap", "description": "y"}]}
    counts, rows = end_state(summary, {"a": "Cardiologist"})
    by_label = {label: n for label, n, _ in counts}
    assert by_label == {"still open": 2, "addressed, not confirmed": 1, "maintained": 1, "resolved": 3}
    assert len(rows) == by_label["still open"]
    assert sum(n for label, n in by_label.items() if label not in ("still open", "resolved")) == len(rows)
    assert [r["state"] for r in rows] == ["addressed, not confirmed", "maintained"]
    assert rows[0]["critic"] == "Cardiologist" and rows[0]["claim"] == "C1"


def test_the_protocol_view_metric_matches_its_table(app, make_debate):
    # This sample ends, offline, with a critique maintained and none in the state "open": the view
    # once said "open 0" above a "Still open" table of such rows.
    debate_id = make_debate(load_case("data/cases/adat_minangkabau_inheritance.json"))
    app.run()
    app.switch_page("pages/debate.py")
    app.query_params["id"] = debate_id
    _ok(open_tab(_ok(app.run()), "Protocol view"))
    metrics = {m.label: int(m.value) for m in app.metric}
    rows = app.dataframe[0].value
    assert metrics["still open"] == len(rows) == 1
    assert metrics["maintained"] == 1 and "open" not in metrics
    assert rows["state"].tolist() == ["maintained"]
