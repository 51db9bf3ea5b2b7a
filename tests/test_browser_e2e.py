"""End to end in a real browser: `streamlit run app.py`, driven by headless Chromium through Playwright.

A reviewer poses a question with evidence, watches the debate run and reach a verdict on screen,
accepts it, and finds it in History. Needs Debian's chromium (/usr/bin/chromium) and the
playwright Python package; Playwright's own browser download is not used.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
QUESTION = "Does the zanzibarite rice field belong to the estate of the deceased mamak?"
PASSAGES = (
    "E1 | Surat keterangan KAN | The sawah is harta pusaka tinggi of the kaum, managed by the mamak.\n"
    "E2 | KUHPerdata art. 852 | Children inherit from their parents in equal shares.\n"
    "E3 | Hostile page | <script>window.__pwned = 1</script><b>not bold</b>"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("streamlit did not become healthy in time")


@pytest.fixture
def server(tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)")
    pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
    port = _free_port()
    env = {**os.environ, "DEBATE_DB": str(tmp_path / "debates.db")}
    log = open(tmp_path / "streamlit.log", "w")  # noqa: SIM115 - closed below, after the server stops
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture
def page(server, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        pg.set_default_timeout(30_000)
        try:
            yield pg
        except BaseException:
            pg.screenshot(path=str(tmp_path / "failure.png"))
            raise
        finally:
            browser.close()


def test_pose_watch_accept_and_find_in_history(server, page):
    from playwright.sync_api import expect

    page.goto(server)
    expect(page.get_by_role("heading", name="New debate")).to_be_visible()
    expect(page.get_by_text("offline (rule-based agents, no model)").first).to_be_visible()

    name = page.get_by_role("textbox", name="Your name")
    name.fill("e2e-reviewer")
    name.press("Enter")

    page.get_by_text("Write a question", exact=True).click()
    question = page.get_by_role("textbox", name="Question", exact=True)
    question.fill(QUESTION)
    passages = page.get_by_role("textbox", name="Paste passages")
    passages.fill(PASSAGES)
    passages.press("Control+Enter")
    # The evidence preview lists the three passages (the hostile one as text, not markup).
    expect(page.get_by_text("3 passage(s)")).to_be_visible()

    # A small delay per call keeps the debate running long enough to watch it live.
    delay = page.get_by_role("spinbutton", name="Delay per call (ms)")
    delay.fill("400")
    delay.press("Enter")
    page.get_by_role("button", name="Start debate").click()

    page.wait_for_url(re.compile(r"/debate\?id="))
    debate_id = re.search(r"id=([\w-]+)", page.url).group(1)
    expect(page.get_by_text(re.compile(r"step\(s\) done, \d+ running"))).to_be_visible(timeout=15_000)
    expect(page.locator(".st-key-verdict-card")).to_be_visible(timeout=120_000)
    assert page.evaluate("() => window.__pwned === undefined"), "evidence text must never run as script"
    page.get_by_role("tab", name="Evidence", exact=True).click()
    panel = page.get_by_role("tabpanel", name="Evidence")
    expect(panel.get_by_text("<script>window.__pwned = 1</script><b>not bold</b>", exact=True)).to_be_visible()

    page.locator(".st-key-review-panel").get_by_role("radio", name="Accept", exact=True).click()
    page.get_by_role("button", name="Accept verdict").click()
    expect(page.get_by_text("accepted by e2e-reviewer").first).to_be_visible()

    page.get_by_role("link", name="History").click()
    expect(page.get_by_role("heading", name="History")).to_be_visible()
    search = page.get_by_role("textbox", name="Search questions, answers and claims")
    search.fill("zanzibarite")
    search.press("Enter")
    expect(page.get_by_text("1 of 1 debate(s)")).to_be_visible()
    expect(page.get_by_role("combobox", name="Debate", exact=True)).to_have_value(
        re.compile(re.escape(debate_id) + r" · [\w ]+ · accepted · Does the zanzibarite"))


def test_a_completed_debate_shows_verdict_and_decision_in_the_first_screen(server, tmp_path):
    """At 1280x800 the verdict card and the review panel both sit within the first 800 px, and
    the tabs with the rounds follow without scrolling past the decision."""
    from playwright.sync_api import expect, sync_playwright

    from debate_core.core.cases import load_case
    from debate_core.jobs.debates import run_debate
    from debate_core.providers import make_provider
    from debate_core.store import DebateStore

    store = DebateStore(tmp_path / "debates.db")
    try:
        case = load_case(ROOT / "data" / "cases" / "adat_minangkabau_inheritance.json")
        debate_id = run_debate(case, "cross_critique", provider=make_provider("offline"), store=store).debate_id
    finally:
        store.close()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM),
                                     args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(60_000)
            page.goto(f"{server}/debate?id={debate_id}")
            card, panel = page.locator(".st-key-verdict-card"), page.locator(".st-key-review-panel")
            expect(card).to_be_visible(timeout=90_000)
            expect(panel).to_be_visible(timeout=30_000)
            expect(page.get_by_role("tab", name="Rounds")).to_be_visible(timeout=30_000)
            expect(page.get_by_role("textbox", name="Your name")).to_be_visible(timeout=30_000)
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(1000)  # let the layout settle after the last element arrives
            page.screenshot(path=str(tmp_path / "first-screen.png"))
            for box in (card.bounding_box(), panel.bounding_box()):
                assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, box
            rounds_tab = page.get_by_role("tab", name="Rounds").bounding_box()
            assert rounds_tab is not None and rounds_tab["y"] < 1000, rounds_tab
            # The panel offers the decision at once.
            expect(panel.get_by_role("radio", name="Accept", exact=True)).to_be_visible()
        finally:
            browser.close()


def test_pause_for_review_add_a_critique_and_continue_to_the_verdict(server, page, tmp_path):
    """A reviewer starts a debate that pauses after round 1, raises a critique through the form on
    the paused page, continues it, and sees the verdict; at 1280x800 the banner and Continue are in
    the first screen."""
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(server)
    expect(page.get_by_role("heading", name="New debate")).to_be_visible()
    name = page.get_by_role("textbox", name="Your name")
    name.fill("e2e-steerer")
    name.press("Enter")
    # The name is a label of this browser session: it never travels in the address.
    page.wait_for_timeout(500)
    assert "reviewer=" not in page.url
    page.get_by_text("Pause for review after a round", exact=True).click()
    expect(page.get_by_text("The debate will pause for review after round 1.")).to_be_visible()
    page.get_by_role("button", name="Start debate").click()

    page.wait_for_url(re.compile(r"/debate\?id="))
    # The live view gives way to the paused page by itself once round 1 has closed.
    banner = page.get_by_text("Paused for review after round 1.")
    expect(banner).to_be_visible(timeout=90_000)
    # Measured as a reviewer opening the debate's link sees it (the switch from New debate keeps
    # that page's scroll position). A reload is a new session: local mode asks for the label again.
    page.reload()
    panel = page.locator(".st-key-steer-panel")
    expect(panel).to_be_visible(timeout=30_000)
    name = page.get_by_role("textbox", name="Your name")
    expect(name).to_have_value("")
    name.fill("e2e-steerer")
    name.press("Enter")
    expect(panel.get_by_text("Enter your name in the sidebar to intervene.")).to_have_count(0)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(1000)  # let the layout settle before measuring it
    page.screenshot(path=str(tmp_path / "paused.png"))
    for box in (banner.bounding_box(), panel.get_by_role("button", name="Continue").bounding_box()):
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 800, box

    panel.get_by_role("combobox", name="Claim").click()
    page.get_by_role("option").first.click()
    panel.get_by_text("CRITICAL", exact=True).click()
    panel.get_by_role("textbox", name="Critique").fill("The claim cites no passage on the heir's standing.")
    panel.get_by_role("button", name="Record critique").click()
    expect(panel.get_by_text("Interventions so far (1)")).to_be_visible()
    expect(panel.get_by_text(re.compile(r"^e2e-steerer, before round 2: raised a CRITICAL critique \(H1\) of "
                                        r".*The claim cites no passage on the heir's standing\."))).to_be_visible()

    panel.get_by_role("button", name="Continue").click()
    expect(page.locator(".st-key-verdict-card")).to_be_visible(timeout=120_000)
    expect(page.locator(".st-key-steer-panel")).to_have_count(0)
    page.get_by_role("tab", name="Rounds", exact=True).click()
    expect(page.get_by_text("e2e-steerer's intervention:").first).to_be_visible()


def test_an_old_address_leads_to_the_page_it_names(server, page):
    """/new_debate was the New debate page's address before it became the start page at "/"."""
    from playwright.sync_api import expect

    # After the first request the server is in navigation mode (the first one runs pages/ files by name).
    page.goto(server)
    expect(page.get_by_role("heading", name="New debate")).to_be_visible()
    page.goto(f"{server}/new_debate")
    expect(page.get_by_role("heading", name="New debate")).to_be_visible()
    # Streamlit's own "Page not found" notice comes a moment after the page draws.
    page.wait_for_timeout(4000)
    assert page.get_by_text("Page not found").count() == 0
    # A name in a link is not taken as who is acting.
    page.goto(f"{server}/new_debate?reviewer=ann")
    expect(page.get_by_role("heading", name="New debate")).to_be_visible()
    expect(page.get_by_role("textbox", name="Your name")).to_have_value("")
