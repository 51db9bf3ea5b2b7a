"""The deep-link workaround in `ui.common.page_setup` leans on a private Streamlit API; these tests fail
if Streamlit changes under it.

With a `pages/` folder beside app.py, Streamlit runs a requested page file on its own (its older
multipage mode, `PagesManager.uses_pages_directory`) until some run has called `st.navigation`: a deep
link such as /debate?id=... as the first request after a server start. `page_setup` turns that mode
off and reruns, so the page comes back through app.py with the shared sidebar and navigation.
AppTest starts every run in that state (it resets the flag), so a page chosen before the first run
is a deep link; the `app` fixture in conftest.py, which hides the mode, is not used here.
"""

from __future__ import annotations

import pytest
from conftest import APP
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

from debate_core.store import DebateStore
from ui import common


def test_the_private_streamlit_flag_the_workaround_flips_still_exists():
    # page_setup reads and sets this class attribute; Streamlit sets it from the pages/ folder when a
    # PagesManager is made and clears it when st.navigation runs.
    assert "uses_pages_directory" in PagesManager.__annotations__
    assert hasattr(PagesManager, "uses_pages_directory")


def _deep_link(page: str, **params: str) -> AppTest:
    """The app's first run in a fresh process, asked for `page` straight away, as a deep link is."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.switch_page(page)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def _has_app_shell(at: AppTest, db_path) -> bool:
    """app.py's shared sidebar: the reviewer's name field and the database path."""
    return (any(t.key == "reviewer-input" for t in at.sidebar.text_input)
            and str(db_path) in [c.value for c in at.sidebar.code])


def test_a_deep_linked_debate_page_runs_inside_the_app_shell(db_path, make_debate):
    debate_id = make_debate()
    at = _deep_link("pages/debate.py", id=debate_id, reviewer="ann")
    assert not at.exception
    assert _has_app_shell(at, db_path)
    # A name in the link is not an identity: the visitor's label stays theirs to type.
    assert at.sidebar.text_input(key="reviewer-input").value == ""
    assert PagesManager.uses_pages_directory is False  # navigation mode from now on
    title = DebateStore(db_path, readonly=True).get_debate(debate_id, with_steps=False)["title"]
    assert title in [t.value for t in at.title]  # the linked debate, not the default page


@pytest.mark.parametrize("page", sorted(common.PAGES.values()))
def test_every_page_opened_directly_gets_the_shared_sidebar(db_path, page):
    at = _deep_link(page)
    assert not at.exception, page
    assert _has_app_shell(at, db_path), page


def test_without_the_workaround_a_deep_link_lacks_the_app_shell(db_path, monkeypatch):
    # The control: it is page_setup, not AppTest or app.py alone, that brings the shell back.
    monkeypatch.setattr(common, "page_setup", lambda: None)
    at = _deep_link("pages/history.py")
    assert [t.value for t in at.title] == ["History"]
    assert not _has_app_shell(at, db_path)
