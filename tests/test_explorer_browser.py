"""The explorer page in a real browser: Debian's Chromium, headless, driven by Playwright, against
`kg-pipelines serve` on a loopback port over the sample document ingested by the real job. Where
Playwright or Chromium is missing the tests skip with the reason (`.ci/run` installs Chromium)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import httpx
import pytest

from tests.conftest import REPO_ROOT, free_port, ingested_graph, server_env

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (test extra)")
CHROMIUM = os.environ.get("KG_CHROMIUM", "/usr/bin/chromium")
if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
    pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)", allow_module_level=True)

SAMPLE = REPO_ROOT / "data" / "inbox" / "microbiome" / "akkermansia_muciniphila_and_metabolic_health.md"
TITLE = "Akkermansia muciniphila and Metabolic Health"


def _serve(data, env):
    port = free_port()
    kg = [sys.executable, "-c", "from kg_pipelines.cli import main; main()", "--data-dir", str(data)]
    server = subprocess.Popen([*kg, "serve", "--port", str(port)], env=env, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return server, base
        except httpx.HTTPError:
            time.sleep(0.2)
    server.kill()
    raise AssertionError(f"the server did not start: {server.stderr.read()[-2000:]}")


def _stop(server) -> None:
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ingested_graph(tmp_path_factory.mktemp("explorer-graph"), {"microbiome/a.md": SAMPLE.read_text()}) as graph:
        _, env = server_env(tmp_path_factory.mktemp("explorer-server"))
        env["PYTHONPATH"] = str(REPO_ROOT)
        process, url = _serve(graph.settings.data_dir, env)
        try:
            yield url
        finally:
            _stop(process)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    opened = context.new_page()
    yield opened
    context.close()


def _drawn(page) -> int:
    return int(page.get_attribute("#graph", "data-nodes") or 0)


def _click_node(page, name: str) -> None:
    """Click the drawn node labelled ``name`` where Cytoscape drew it."""
    point = page.evaluate(
        """(name) => {
            const node = window.kgExplorer.graph().nodes().filter((n) => n.data('label') === name)[0];
            const box = document.getElementById('graph').getBoundingClientRect();
            const at = node.renderedPosition();
            return {x: box.left + at.x, y: box.top + at.y};
        }""",
        name,
    )
    page.mouse.click(point["x"], point["y"])


def test_search_shows_the_node_its_neighbours_and_the_paths(page, server):
    page.goto(f"{server}/explore")
    page.fill("#term", "Oleoylethanolamide")
    page.click("#search-form button[type=submit]")
    page.wait_for_function("Number(document.getElementById('graph').dataset.nodes) > 1", timeout=60_000)
    labels = page.evaluate("window.kgExplorer.graph().nodes().map((n) => n.data('label'))")
    assert "Oleoylethanolamide" in labels and len(labels) >= 2
    assert page.evaluate("window.kgExplorer.graph().edges().length") >= 1
    paths = page.inner_text("#paths")
    assert "Oleoylethanolamide --[" in paths and "]-->" in paths
    assert int(page.get_attribute("#graph", "data-highlighted")) > 0  # the paths are highlighted
    assert "term=Oleoylethanolamide" in page.url  # a view that can be shared


def test_a_link_opens_with_the_search_done_and_a_node_shows_its_sources(page, server):
    page.goto(f"{server}/explore?term=Oleoylethanolamide")
    page.wait_for_function("Number(document.getElementById('graph').dataset.nodes) > 1", timeout=60_000)
    assert page.input_value("#term") == "Oleoylethanolamide"
    page.wait_for_timeout(300)  # the layout settles
    _click_node(page, "Oleoylethanolamide")
    page.wait_for_selector("#details:not([hidden]) .source", timeout=30_000)
    details = page.inner_text("#details")
    assert "Oleoylethanolamide" in details and "Sources" in details and TITLE in details
    assert "Merge history" in details


def test_asking_shows_the_answer_its_trace_and_highlights_what_it_used(page, server):
    page.goto(f"{server}/explore?q=" + "What does Oleoylethanolamide increase in the gut?".replace(" ", "+"))
    page.wait_for_selector("#answer:not([hidden])", timeout=90_000)
    answer = page.inner_text("#answer")
    assert "Rounds (" in answer and "Sources (" in answer and "round 1" in answer
    assert "supported by the gathered text" in answer
    page.wait_for_function("Number(document.getElementById('graph').dataset.highlighted || 0) > 0", timeout=60_000)
    assert _drawn(page) > 0


def test_an_api_error_is_shown_in_words(page, server):
    page.goto(f"{server}/explore?term=" + "x" * 300)  # longer than the API takes
    page.wait_for_selector("#error:not([hidden])", timeout=30_000)
    message = page.inner_text("#error")
    assert message.startswith("The server answered 422:") and "term" in message


def test_the_health_view_shows_merges_and_links_to_the_dagster_ui(page, server):
    page.goto(f"{server}/explore")
    page.click("nav .tab[data-view=health-view]")
    page.wait_for_selector("#health-merges h2", timeout=30_000)
    assert "Merges of duplicate nodes" in page.inner_text("#health-merges")
    assert "No consolidation has run yet" in page.inner_text("#health-consolidation")
    assert page.get_attribute("#health-links a", "href").startswith("http://127.0.0.1:3000/assets/")
    runs = page.get_attribute("#health-merges a.runs", "href")
    assert runs.startswith("http://127.0.0.1:3000/runs?") and "job%3Adedup_nodes" in runs


def test_an_empty_data_dir_says_how_to_ingest(page, tmp_path):
    data, env = server_env(tmp_path)
    env["PYTHONPATH"] = str(REPO_ROOT)
    process, url = _serve(data, env)
    try:
        page.goto(f"{url}/explore")
        page.wait_for_function("document.getElementById('status').textContent.includes('ingest')", timeout=30_000)
        assert "kg-pipelines ingest" in page.inner_text("#status")
    finally:
        _stop(process)
