"""The live view in a real browser: a debate on the real OpenAI provider, against the fault server
streaming its replies slowly, shows each agent's reply growing in its card while the step runs.

`streamlit run app.py` on a temporary database, headless Debian chromium through Playwright (as in
tests/test_browser_e2e.py); the debate runs in a thread of the test, writing to the same database
the server reads, as a debate started from the CLI would.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from fault_server import FaultServer, Reply, paced, requested_name, structured
from helpers import small_case

from tests.oidc_support import CHROMIUM, CHROMIUM_ARGS, free_port, start_streamlit

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

ROOT = Path(__file__).resolve().parent.parent
# A long answer (as long as an answer may be, 300 characters), so that streamed at the pace below
# it takes many seconds: the page has time to load and refresh (every second) while it is still
# being written.
ANSWER = ("The sawah stays with the kaum: it is harta pusaka tinggi, which passes in the female line and is "
          "managed by the mamak, not divided among the heirs of the deceased. The KAN letter says so, and no "
          "heir has a share of it to sell.")
REPLIES = {
    "AgentOutput": {"answer": ANSWER,
                    "claims": [{"id": "C1", "statement": "The KAN letter names the sawah pusaka tinggi.",
                                "evidence": ["E4"], "confidence": 0.8}]},
    "CritiqueOutput": {"critiques": []},
    "SupervisorOutput": {"answer": "The sawah stays with the kaum.", "confidence": 0.7, "rationale": "Both agree."},
}
# Seconds between chunks of about four characters each: some 27 characters a second.
PACE = 0.15


def _slow_stream(body: dict) -> Reply:
    return paced(PACE, structured(REPLIES[requested_name(body)]))(body)


def _steps(db: Path, debate_id: str) -> dict[str, dict]:
    from debate_core.store import DebateStore

    store = DebateStore(db, readonly=True)
    try:
        return {s["step_id"]: s for s in store.steps(debate_id)}
    finally:
        store.close()


def _status(db: Path, debate_id: str) -> str:
    from debate_core.store import DebateStore

    store = DebateStore(db, readonly=True)
    try:
        return store.get_debate(debate_id, with_steps=False)["status"]
    finally:
        store.close()


@pytest.fixture
def workbench(tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)")
    pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
    db = tmp_path / "debates.db"
    secrets = tmp_path / ".streamlit" / "secrets.toml"
    secrets.parent.mkdir()
    secrets.write_text("")  # no sign-in: the app's own name box
    url, stop = start_streamlit(ROOT / "app.py", secrets, port=free_port(), cwd=ROOT,
                                env={"DEBATE_DB": str(db)}, log_path=tmp_path / "streamlit.log")
    try:
        yield url, db
    finally:
        stop()


def test_a_streaming_reply_grows_in_its_card_before_the_step_finishes(workbench, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    from debate_core.core.steps import latest_calls
    from debate_core.engine.runtime import DebateSettings
    from debate_core.jobs import worker
    from debate_core.providers import make_provider

    url, db = workbench
    with FaultServer(_slow_stream) as fake, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(30_000)
        debate_id = None
        try:
            # Load the app once first, so the debate page's own load is quick.
            page.goto(url)
            expect(page.get_by_role("heading", name="New debate")).to_be_visible(timeout=60_000)
            provider = make_provider("openai", model="fault-model", base_url=fake.base_url, api_key="sk-test-live",
                                     timeout=120.0, max_attempts=1)
            debate_id = worker.start_debate(small_case(), "cross_critique", provider, DebateSettings(rounds=1),
                                            db_path=db)
            page.goto(f"{url}/debate?id={debate_id}")

            partial = page.locator('[data-testid="stText"]').filter(has_text=re.compile(r"^answer: The sawah"))
            expect(partial.first).to_be_visible(timeout=60_000)
            first = partial.first.inner_text()
            steps = _steps(db, debate_id)
            # Read after the page showed the text: the answers were still being written then.
            assert steps["r1.answer.proponent"]["status"] == "running", steps["r1.answer.proponent"]
            assert steps["r1.answer.skeptic"]["status"] == "running"
            shown = first.splitlines()[0].removeprefix("answer: ")
            assert ANSWER.startswith(shown) and len(shown) < len(ANSWER), first
            expect(page.get_by_text(re.compile(r"^writing: \d+ tokens")).first).to_be_visible()

            # A few refreshes later the same card holds more of the reply.
            deadline = time.monotonic() + 30
            later = first
            while time.monotonic() < deadline and len(later) <= len(first):
                page.wait_for_timeout(500)
                texts = partial.all_inner_texts()
                later = max(texts, key=len) if texts else later
            assert len(later) > len(first), (first, later)
            page.screenshot(path=str(tmp_path / "streaming.png"))

            # The debate ends on the verdict, with the full answers, each with its time and tokens.
            expect(page.locator(".st-key-verdict-card")).to_be_visible(timeout=120_000)
            assert _status(db, debate_id) == "completed"
            page.get_by_role("tab", name="Rounds", exact=True).click()
            finished = [s for s in latest_calls(_steps(db, debate_id).values()) if s["status"] == "ok"]
            costs = page.locator('[data-testid="stCaptionContainer"]').filter(
                has_text=re.compile(r"^\d+\.\d s · [\d,]+ tokens\s*$"))  # the help icon adds a space
            expect(costs).to_have_count(len(finished))
        except BaseException:
            page.screenshot(path=str(tmp_path / "failure.png"))
            raise
        finally:
            browser.close()
            if debate_id is not None:
                deadline = time.monotonic() + 120
                while _status(db, debate_id) == "running" and time.monotonic() < deadline:
                    time.sleep(0.2)
    served = [json.dumps(b["body"]) for b in fake.requests if b.get("body")]
    assert served and all('"stream": true' in b for b in served)
