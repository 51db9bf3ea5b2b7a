"""Debate review workbench: `streamlit run app.py`.

The entry point sets up navigation and the shared sidebar; each page lives in `pages/`, starts with
`common.page_setup()` and calls `debate_core` for everything that is not layout.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import streamlit as st

# `streamlit run` puts this folder on sys.path; other launchers (AppTest, IDEs) may not.
_ROOT = str(Path(__file__).resolve().parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from debate_core.present import formatting  # noqa: E402
from debate_core.store import StoreError  # noqa: E402
from ui import common  # noqa: E402

common.page_config()

pages = {
    "Debates": [
        st.Page(common.PAGES["new"], title="New debate", icon=":material/add_comment:", url_path="new",
                default=True),
        st.Page(common.PAGES["debate"], title="Debate", icon=":material/forum:", url_path="debate"),
        st.Page(common.PAGES["history"], title="History", icon=":material/history:", url_path="history"),
        st.Page("pages/my_queue.py", title="My queue", icon=":material/inbox:", url_path="queue"),
        st.Page(common.PAGES["compare"], title="Compare", icon=":material/compare_arrows:", url_path="compare"),
    ],
    "Review": [
        st.Page(common.PAGES["escalations"], title="Escalations", icon=":material/priority_high:",
                url_path="escalations"),
        st.Page(common.PAGES["analytics"], title="Analytics", icon=":material/monitoring:", url_path="analytics"),
        st.Page(common.PAGES["evaluations"], title="Evaluations", icon=":material/fact_check:",
                url_path="evaluations"),
    ],
    "Setup": [
        st.Page(common.PAGES["settings"], title="Settings", icon=":material/settings:", url_path="settings"),
        # The default page lives at "/", so its own name would answer "Page not found": an address
        # someone saved or shared (/new_debate) leads to the page it names instead.
        st.Page(common.redirect_to("new"), title="New debate", url_path="new_debate", visibility="hidden"),
    ],
}
page = st.navigation(pages)
common.app_shell_setup()
try:
    page.run()
except StoreError as exc:
    # The store rolled back the write that failed, so that much is known; say only that.
    logging.getLogger("debate_app").error("page %s: %s", page.title, exc)
    st.error(f"The database could not be used: {formatting.md_escape(exc)}. What the store saved before this "
             "is kept; the action this page was taking was not saved.")
except Exception as exc:  # noqa: BLE001 - st.rerun/st.stop are BaseExceptions and pass through
    # A reviewer gets a sentence, not a traceback; the traceback goes to the server log. Whether
    # the page had written anything before it stopped is not known here, so it is not claimed.
    logging.getLogger("debate_app").exception("page %s failed", page.title)
    st.error(f"This page stopped because of an unexpected error ({type(exc).__name__}: "
             f"{formatting.md_escape(exc)}). Debates and reviews the store confirmed earlier are in the database; "
             "if you had just acted, reload and check whether your action was recorded. "
             "If it happens again, the server log has the details.")
