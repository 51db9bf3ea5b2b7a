"""How long the app's pages take in a real browser, on a database filled by bench/store_fill.py.

`streamlit run app.py` is started on the filled database and Debian's Chromium (headless, through
Playwright's Python package, not Playwright's own browser download) clicks through the sidebar.
A page counts as ready when its script has finished (Streamlit's running indicator is gone) and its
main content shows (Streamlit's `data-test-script-state` on the app root reads `notRunning`, the
state its own end-to-end tests wait for): its title plus the element the page exists for (History's table, Analytics'
figures, the Escalations queue, the debate's verdict and tabs). Every page is timed from the click
on its sidebar link; the largest debate is also timed as a fresh load of its address in a new tab.
Each figure is the median of --repeat clicks, after one warm-up visit of every page (the first
visit of a server pays for opening and checking the database once).

    python bench/page_timing.py --db data/bench_store.db --debates 10000
    python bench/page_timing.py --quick          # 1,000 debates, 3 repeats
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import benchlib
import store_fill

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
GOAL_S = 1.0
VIEWPORT = {"width": 1280, "height": 800}

# A fresh tab pays for Streamlit's own start-up (its scripts, the websocket, a new session) before any
# page code runs: the near-empty Settings page, loaded fresh, measures that floor.
BASELINE = "Settings (near-empty page), fresh load"

# Page -> (sidebar link text, the page's title, CSS of the main content that must show).
PAGES: dict[str, tuple[str, str | None, str]] = {
    "History": ("History", "History", '[data-testid="stDataFrame"]'),
    "Analytics": ("Analytics", "Analytics", '[data-testid="stMetric"]'),
    "Escalations": ("Escalations", "Escalations", '[data-testid="stDataFrame"]'),
    # The title is the debate's own; its tabs are the main content.
    "Largest debate": ("Debate", None, '[data-testid="stTabs"]'),
}

# Ready: no script running, the title shown (when known), the main content shown.
_READY_JS = """
([title, selector]) => {
  const main = document.querySelector('[data-testid="stMain"]') || document;
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (title !== null) {
    const heads = [...main.querySelectorAll('h1')].map(h => h.textContent.trim());
    if (!heads.includes(title)) return false;
  }
  const el = main.querySelector(selector);
  if (!el) return false;
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}
"""


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 120) -> None:
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


def start_server(db: Path, log: Path) -> tuple[subprocess.Popen, str]:
    port = benchlib.free_port()
    env = {**os.environ, "DEBATE_DB": str(db)}
    out = open(log, "w")  # noqa: SIM115 - the server writes to it until it stops
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=benchlib.ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    _wait_healthy(url, proc)
    return proc, url


def _ready(page: Any, title: str | None, selector: str, started: float, timeout_s: float = 120) -> float:
    # Give the click a moment to reach the server, so the previous page's finished state is not taken
    # for the new one's: the new page's title (or, for the debate, the URL) must show first.
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(_READY_JS, arg=[title, selector], polling=10, timeout=timeout_s * 1000)
    except PlaywrightTimeout:
        state = page.evaluate("() => document.querySelector('[data-testid=\"stApp\"]')"
                              "?.getAttribute('data-test-script-state')")
        heads = page.evaluate("() => [...document.querySelectorAll('h1')].map(h => h.textContent)")
        raise RuntimeError(f"{page.url}: not ready after {timeout_s:g} s (script {state}, titles {heads}, "
                           f"waiting for {title!r} and {selector})") from None
    return time.perf_counter() - started


def click_page(page: Any, name: str, large_title: str) -> float:
    link_text, title, selector = PAGES[name]
    title = title or large_title
    link = page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=link_text, exact=True)
    link.wait_for(state="visible")
    started = time.perf_counter()
    # A DOM click on the link, as a mouse click sends it; Playwright's own click first waits for the
    # page to settle its layout, which would time Chromium's idle work along with the page.
    link.dispatch_event("click")
    return _ready(page, title, selector, started)


def fresh_load(context: Any, url: str, title: str, selector: str) -> float:
    page = context.new_page()
    page.set_viewport_size(VIEWPORT)
    try:
        started = time.perf_counter()
        page.goto(url, wait_until="commit")
        return _ready(page, title, selector, started)
    finally:
        page.close()


def measure(url: str, large_id: str, large_title: str, repeat: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {name: [] for name in PAGES}
    times["Largest debate, fresh load"] = []
    times[BASELINE] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            # The server's first run goes to the entry page: a first request that is a deep link would
            # run the page file outside the app's navigation once (see ui/common.page_setup).
            page.goto(url)
            _ready(page, "New debate", "h1", time.perf_counter())
            # Then the largest debate, so the sidebar's Debate link leads back to it.
            page.goto(f"{url}/debate?id={large_id}")
            _ready(page, large_title, PAGES["Largest debate"][2], time.perf_counter())
            order = ["History", "Analytics", "Escalations", "Largest debate"]
            for name in order:  # warm-up
                click_page(page, name, large_title)
            for _ in range(repeat):
                for name in order:
                    times[name].append(click_page(page, name, large_title))
                times["Largest debate, fresh load"].append(
                    fresh_load(context, f"{url}/debate?id={large_id}", large_title, PAGES["Largest debate"][2]))
                times[BASELINE].append(fresh_load(context, f"{url}/settings", "Settings", "h1"))
        finally:
            browser.close()
    return times


def _title_shown(db: Path, debate_id: str) -> str:
    from debate_core.present import formatting
    from debate_core.store import DebateStore

    store = DebateStore(db, readonly=True)
    try:
        debate = store.get_debate(debate_id, with_steps=False)
    finally:
        store.close()
    # st.title shows the escaped markdown as the plain title text.
    return formatting.md_escape(debate.get("title") or debate_id).replace("\\", "")


def main() -> None:
    def extra(parser) -> None:
        parser.add_argument("--db", default=str(benchlib.ROOT / "data" / "bench_store.db"))
        parser.add_argument("--debates", type=int, default=10000)
        parser.add_argument("--repeat", type=int, default=5)

    args = benchlib.parse_args(__doc__.splitlines()[0], extra)
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)")
    db = Path(args.db)
    debates = 1000 if args.quick else args.debates
    meta = store_fill.ensure(db, debates)
    large_id = meta["large_debate"]
    large_title = _title_shown(db, large_id)
    proc, url = start_server(db, Path(f"{db}-page-timing.log"))
    try:
        times = measure(url, large_id, large_title, 3 if args.quick else args.repeat)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    command = benchlib.command("page_timing.py", args)
    figures = []
    for name, values in times.items():
        median = statistics.median(values)
        baseline = name == BASELINE
        figures.append(benchlib.Figure(
            figure=f"{name}: sidebar click to page ready" if "fresh" not in name
            else f"{name.split(',')[0]}: fresh load to page ready" + (" (the floor, no goal)" if baseline else ""),
            value=f"{median:.2f} s (runs {', '.join(f'{v:.2f}' for v in values)})",
            goal="-" if baseline else f"<= {GOAL_S:.1f} s", met=None if baseline else median <= GOAL_S,
            command=command))
    print(f"{debates} debates in {db} ({meta.get('bytes', db.stat().st_size) / 1e9:.2f} GB), "
          f"largest debate {large_id}")
    benchlib.report(figures, args)

if __name__ == "__main__":
    main()
