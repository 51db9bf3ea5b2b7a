"""Compare page: two debates from the address bar or the pickers, side by side."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import small_case
from streamlit.testing.v1 import AppTest

from debate_core.core.cases import load_case
from debate_core.core.schemas import Case
from debate_core.present import formatting

CASE = Path(__file__).resolve().parent.parent / "data" / "cases" / "adat_minangkabau_inheritance.json"

HOSTILE = "<script>alert('x')</script> **bold** [link](http://example.invalid)"


def _open(app: AppTest, **params: str) -> AppTest:
    app.run()
    app.switch_page("pages/compare.py")
    for key, value in params.items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def _frames(app: AppTest, column: str) -> list:
    """The tables on the page that have this column, in page order."""
    return [d.value for d in app.dataframe if column in d.value.columns]


def app_db(app: AppTest) -> Path:
    import os
    return Path(os.environ["DEBATE_DB"])


def _markdown(app: AppTest) -> str:
    return "\n".join(m.value for m in app.markdown)


def test_empty_database_says_so(app):
    _open(app)
    assert any("No debates yet" in i.value for i in app.info)


def test_pair_from_the_address_bar_side_by_side(app, make_debate):
    case = load_case(CASE)
    a = make_debate(case, "cross_critique", rounds=2)
    b = make_debate(case, "cross_critique", rounds=2, options={"max_claims": 4})
    _open(app, a=a, b=b)
    assert app.selectbox(key="cmp-a").value == a and app.selectbox(key="cmp-b").value == b
    assert app.title[0].value == "Compare debates"
    assert not app.warning  # same protocol, same case, both completed

    [settings] = _frames(app, "setting")
    assert settings.to_dict("records") == [{"setting": "option max_claims", "A": "default", "B": "4"}]
    # B keeps four claims per agent: A's fifth and sixth are removed, nothing is added.
    [removed] = _frames(app, "statement")
    assert sorted(removed["claim"]) == ["ala.C5", "ala.C6", "nla.C5", "nla.C6"]
    assert "**Added in B (0)**" in _markdown(app) and "**Removed from A (4)**" in _markdown(app)
    # The severity table lays out what the comparison counted, severity by severity.
    from debate_core.present import compare
    from debate_core.store import DebateStore
    store = DebateStore(app_db(app), readonly=True)
    counted = compare.compare(compare.load_debate(store, a), compare.load_debate(store, b))["critiques"]
    [severity] = _frames(app, "raised in A")
    for row in severity.to_dict("records"):
        sev = row["severity"]
        assert (row["raised in A"], row["open at the end in A"], row["resolved in A"]) == tuple(
            counted["a"]["by_severity"][sev][k] for k in ("raised", "open", "resolved"))
        assert (row["raised in B"], row["open at the end in B"], row["resolved in B"]) == tuple(
            counted["b"]["by_severity"][sev][k] for k in ("raised", "open", "resolved"))
    assert severity["severity"].tolist() == ["CRITICAL", "MAJOR", "MINOR"]
    # A ends with one critique still open; B, with fewer claims, too.
    open_a, open_b = _frames(app, "on claim")[:2]
    assert open_a["critique"].tolist() == ["nla->ala:K2"] and len(open_b) == 1
    # Both trajectories are on one plot: a line per agent for each debate.
    [chart] = app.get("plotly_chart")
    names = [t["name"] for t in json.loads(chart.proto.spec)["data"]]
    assert names and all(n.startswith(("A", "B")) for n in names)
    assert any(n.startswith("A") for n in names) and any(n.startswith("B") for n in names)
    [usage] = _frames(app, "B minus A")
    assert list(usage[""]) == ["calls", "input tokens", "output tokens", "tokens in all"]
    assert "{" not in _markdown(app) and "None" not in _markdown(app)


def test_pickers_choose_the_pair_and_write_the_address(app, make_debate):
    case = small_case()
    a = make_debate(case, "cross_critique", rounds=2)
    b = make_debate(Case.model_validate({**case.model_dump(), "id": "other", "question": HOSTILE}), "dialectic")
    _open(app)
    assert any("Choose two debates" in i.value for i in app.info)
    app.selectbox(key="cmp-a").set_value(a).run()
    app.selectbox(key="cmp-b").set_value(b).run()
    assert not app.exception, [e.message for e in app.exception]
    assert app.query_params["a"] in (a, [a]) and app.query_params["b"] in (b, [b])
    warnings = [w.value for w in app.warning]
    assert formatting.md_escape("The debates ran different protocols (cross_critique and dialectic)") in warnings[0]
    assert warnings[1] == formatting.md_escape("The debates ran on different cases (test-case and other)") + "."
    # The dialectic debate records no claims: every claim of A is removed.
    [removed] = _frames(app, "statement")
    assert len(removed) > 0 and "**Added in B (0)**" in _markdown(app)
    # Model and user text never becomes HTML: the hostile question reaches the page escaped or as text.
    assert "<script>" not in _markdown(app)


def test_unknown_id_in_the_address_is_explained(app, make_debate):
    a = make_debate(small_case(), "cross_critique", rounds=2)
    _open(app, a=a, b="nope")
    assert any("There is no debate with id nope" in e.value for e in app.error)
    assert app.selectbox(key="cmp-a").value == a and app.selectbox(key="cmp-b").value is None


def test_debate_page_links_to_compare(app, make_debate):
    a = make_debate(small_case(), "cross_critique", rounds=2)
    app.run()
    app.switch_page("pages/debate.py")
    app.query_params["id"] = a
    app.run()
    assert not app.exception
    [link] = [p for p in app.get("page_link") if p.proto.label == "Compare with…"]
    assert link.proto.page == "compare" and link.proto.query_string == f"a={a}"
    # Followed, it opens the Compare page with this debate as A and asks for B.
    _open(app, a=a)
    assert app.selectbox(key="cmp-a").value == a and app.selectbox(key="cmp-b").value is None
    assert any("Choose two debates" in i.value for i in app.info)


def test_a_new_link_wins_over_the_earlier_choice(app, make_debate):
    a = make_debate(small_case(), "cross_critique", rounds=2)
    b = make_debate(small_case(), "cross_critique", rounds=3)
    _open(app, a=a, b=b)
    # The reviewer swaps B for A in the picker: the address follows the picker, not the old link.
    app.selectbox(key="cmp-b").set_value(a).run()
    assert app.selectbox(key="cmp-b").value == a and app.query_params["b"] in (a, [a])
    # A later link naming another debate as A is honoured.
    app.query_params["a"] = b
    app.run()
    assert app.selectbox(key="cmp-a").value == b
