"""The playground's page in a headless Chromium: the lecture notes' tables, editing, permalinks.

Needs the Python package ``playwright`` and Debian's ``chromium`` binary (``make test`` installs
both); the module is skipped without them. No Playwright browser download is used.
"""

import io
import json
import os
import re
import shutil
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    pytest.skip(
        "playwright is not installed (pip install playwright; the browser is Debian's chromium)",
        allow_module_level=True,
    )

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not os.access(CHROMIUM, os.X_OK):  # pragma: no cover - depends on the machine
    pytest.skip("no chromium binary (apt-get install chromium)", allow_module_level=True)

from rosenblatt.apps.playground.server import serve_in_thread  # noqa: E402

STATIC = ROOT / "src" / "rosenblatt" / "playground" / "static"
WORKED_EXAMPLE = "?preset=or&algorithm=online&eta=1&bias=-1&shuffle=0"
TIMEOUT_MS = 60_000  # the first run of a worker may compile the training loops
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# ---------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def server_url():
    server, url = serve_in_thread(host="127.0.0.1", port=0)
    try:
        yield url.rstrip("/") + "/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    """A fresh page whose console errors, warnings and uncaught exceptions fail the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    problems = []
    pg.on(
        "console",
        lambda m: (
            problems.append(f"console.{m.type}: {m.text}")
            if m.type in ("error", "warning")
            else None
        ),
    )
    pg.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    pg.problems = problems
    yield pg
    context.close()
    assert problems == [], problems


def wait_ready(pg):
    pg.wait_for_function("document.body.dataset.ready === 'true'")


def open_playground(pg, base, query=""):
    pg.goto(base + query)
    wait_ready(pg)


def value(pg, selector):
    return json.loads(pg.get_attribute(selector, "data-value"))


def trace_rows(pg):
    """(a/a, Update, epoch) of every row of the step table."""
    return pg.eval_on_selector_all(
        "#trace tr",
        "rows => rows.map(r => [r.querySelector('.col-aa').textContent,"
        " r.querySelector('.col-update').textContent, Number(r.dataset.epoch)])",
    )


def press_until_end(pg, button, limit=200):
    for _ in range(limit):
        if pg.get_attribute("#status", "data-state") in ("converged", "stopped"):
            return
        pg.click(button)
    raise AssertionError(f"{button} did not reach the end of the run")


def click_plot(pg, fx, fy, **kwargs):
    """Click the plot at a fraction (fx, fy) of its width and height."""
    box = pg.locator("#plot").bounding_box()
    pg.click("#plot", position={"x": fx * box["width"], "y": fy * box["height"]}, **kwargs)


def wait_points(pg, n):
    pg.wait_for_function(
        "n => document.body.dataset.ready === 'true' &&"
        " JSON.parse(document.getElementById('points').dataset.value) === n",
        arg=n,
    )


# ---------------------------------------------------------------------- the lecture notes
def test_online_steps_reproduce_the_worked_example(page, server_url):
    open_playground(page, server_url, WORKED_EXAMPLE)
    assert value(page, "#points") == 4
    assert value(page, "#weights") == [0, 0, 0]
    assert page.locator("#trace tr").count() == 0
    for _ in range(8):
        page.click("#step")
    assert value(page, "#weights") == [1, 1, -1]
    assert value(page, "#mistakes") == 3
    assert value(page, "#epochs") == 2
    assert value(page, "#cursor") == 8
    rows = trace_rows(page)
    assert len(rows) == 8
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "1", "2", "3", "4"]
    assert [r[1] for r in rows] == ["YES", "YES", "YES", "NO", "NO", "NO", "NO", "NO"]
    assert [r[2] for r in rows] == [1, 1, 1, 1, 2, 2, 2, 2]
    # the w column of row 3 shows the weights that row saw, (2, 0, 0)
    w_row3 = page.eval_on_selector_all(
        "#trace tr:nth-child(3) .col-w span", "s => s.map(x => x.textContent)"
    )
    assert w_row3 == ["2", "0", "0"]
    # the run is over: converged, and Step changes nothing
    assert page.get_attribute("#status", "data-state") == "converged"
    page.click("#step")
    assert value(page, "#cursor") == 8 and page.locator("#trace tr").count() == 8
    # the boundary x1 + x2 + 1 = 0 is drawn; Reset empties the table
    assert page.locator("#boundary").count() == 1
    page.click("#reset")
    assert value(page, "#cursor") == 0 and page.locator("#trace tr").count() == 0


def test_update_arrow_and_highlight_follow_the_cursor(page, server_url):
    open_playground(page, server_url, WORKED_EXAMPLE)
    page.click("#step")  # pattern 1 is a mistake: an update arrow
    assert page.get_attribute("#current-pattern", "data-index") == "0"
    assert page.locator("#update-arrow").count() == 1
    for _ in range(3):
        page.click("#step")  # pattern 4: no update, no arrow
    assert page.get_attribute("#current-pattern", "data-index") == "3"
    assert page.locator("#update-arrow").count() == 0


def test_batch_epochs_reproduce_the_worked_example(page, server_url):
    open_playground(page, server_url, "?preset=or&algorithm=batch&eta=1&bias=-1&shuffle=0")
    page.click("#epoch")
    assert value(page, "#weights") == [2, 2, -2]
    assert value(page, "#epochs") == 1 and value(page, "#mistakes") == 4
    page.click("#epoch")
    assert value(page, "#weights") == [2, 2, -2]
    assert value(page, "#epochs") == 2
    assert [r[1] for r in trace_rows(page)] == ["YES"] * 4 + ["NO"] * 4
    assert page.get_attribute("#status", "data-state") == "converged"


def test_xor_is_not_separable_and_a_kernel_learns_it(page, server_url):
    open_playground(page, server_url, "?preset=xor&algorithm=online")
    assert value(page, "#separable") is False
    assert value(page, "#bound") is None
    open_playground(page, server_url, "?preset=xor&algorithm=kernel&kernel=poly&degree=2")
    assert value(page, "#weights") is None
    press_until_end(page, "#epoch")
    assert page.get_attribute("#status", "data-state") == "converged"
    rows = trace_rows(page)
    last = rows[-1][2]
    assert [r[1] for r in rows if r[2] == last] == ["NO"] * 4
    assert value(page, "#support-vectors") >= 1
    assert page.locator("#plot .support-vector").count() == value(page, "#support-vectors")
    assert page.locator("#boundary").count() == 1  # the grid's contour


def test_a_kernel_on_a_budget_keeps_its_budget_and_shows_whom_it_evicted(page, server_url):
    # XOR's four points with room for two: the random budget evicts as it goes
    open_playground(page, server_url, "?preset=xor&algorithm=kernel&gamma=2&budget=2&policy=random")
    assert page.locator("#budget").input_value() == "2"
    assert page.locator("#budget-policy").input_value() == "random"
    press_until_end(page, "#epoch")
    assert 1 <= value(page, "#support-vectors") <= 2
    assert page.locator("#support-vectors").inner_text().endswith("of 2")
    assert page.locator("#plot .support-vector").count() == value(page, "#support-vectors")
    assert page.locator("#plot .evicted").count() >= 1


def set_speed(pg, end):
    pg.eval_on_selector(
        "#speed", f"e => {{ e.value = e.{end}; e.dispatchEvent(new Event('input')); }}"
    )


def test_play_pause_and_keys(page, server_url):
    open_playground(page, server_url, WORKED_EXAMPLE)
    page.keyboard.press("ArrowRight")
    assert value(page, "#cursor") == 1
    page.keyboard.press("e")
    assert value(page, "#cursor") == 4
    page.keyboard.press("r")
    assert value(page, "#cursor") == 0
    set_speed(page, "max")
    page.click("#play")
    page.wait_for_function("document.getElementById('status').dataset.state === 'converged'")
    assert value(page, "#cursor") == 8
    assert page.text_content("#play") == "Play"  # it stops by itself at the end
    page.click("#reset")
    set_speed(page, "min")
    page.click("#play")
    assert page.text_content("#play") == "Pause"
    assert page.get_attribute("#play", "aria-pressed") == "true"
    page.click("#play")
    assert page.text_content("#play") == "Play"
    assert value(page, "#cursor") <= 1


def test_averaged_and_voted_read_outs(page, server_url):
    open_playground(page, server_url, "?preset=or&algorithm=averaged&eta=1&bias=-1&shuffle=0")
    press_until_end(page, "#epoch")
    averaged = value(page, "#averaged-weights")
    assert len(averaged) == 3 and averaged != value(page, "#weights")
    assert page.locator("#averaged-line").count() == 1
    page.select_option("#algorithm", "voted")
    wait_ready(page)
    assert value(page, "#cursor") == 0  # a new run starts from the beginning
    page.click("#step")
    page.click("#step")
    tally = value(page, "#tally")
    assert len(tally) == 2 and all(isinstance(v, int) for v in tally)
    assert page.locator("#voters tr").count() >= 1


# ---------------------------------------------------------------------- editing points
def test_clicks_add_points_of_either_class(page, server_url):
    open_playground(page, server_url, WORKED_EXAMPLE)
    n = value(page, "#points")
    negatives = page.locator("#plot .point.neg").count()
    click_plot(page, 0.5, 0.12)
    wait_points(page, n + 1)
    assert page.locator("#plot .point.neg").count() == negatives
    click_plot(page, 0.12, 0.5, modifiers=["Shift"])
    wait_points(page, n + 2)
    assert page.locator("#plot .point.neg").count() == negatives + 1
    page.click("#class-toggle")
    assert page.get_attribute("#class-toggle", "data-value") == "-1"
    click_plot(page, 0.88, 0.5)
    wait_points(page, n + 3)
    assert page.locator("#plot .point.neg").count() == negatives + 2
    # edited points travel in the URL, and a new run was computed for them
    assert "points=" in page.url
    assert value(page, "#cursor") == 0 and page.get_attribute("#status", "data-state") == "running"


def test_dragging_a_point_moves_it_and_reruns(page, server_url):
    open_playground(page, server_url, WORKED_EXAMPLE)
    runs = int(page.get_attribute("body", "data-runs"))
    point = page.locator("#plot .point[data-index='3']")
    box = point.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 30, y + 10, steps=5)
    page.mouse.move(x + 60, y + 20, steps=5)
    page.mouse.up()
    page.wait_for_function(
        "n => document.body.dataset.ready === 'true' && Number(document.body.dataset.runs) > n",
        arg=runs,
    )
    assert float(point.get_attribute("data-x")) > 1
    assert value(page, "#points") == 4


def test_clear_then_add_points_keeps_working(page, server_url):
    open_playground(page, server_url, WORKED_EXAMPLE)
    page.click("#clear")
    wait_points(page, 0)
    assert page.is_visible("#message")
    assert page.get_attribute("#status", "data-state") == "empty"
    click_plot(page, 0.3, 0.3)
    wait_points(page, 1)
    assert page.is_visible("#message")  # one class only: still no run
    click_plot(page, 0.7, 0.7, modifiers=["Shift"])
    wait_points(page, 2)
    assert not page.is_visible("#message")
    assert page.get_attribute("#status", "data-state") == "running"
    page.click("#step")
    assert value(page, "#cursor") == 1


def test_presets_load_their_points(page, server_url):
    with urllib.request.urlopen(server_url + "api/presets") as resp:
        presets = json.load(resp)["presets"]
    open_playground(page, server_url)
    assert page.input_value("#preset") == "or"  # the default start
    assert page.input_value("#algorithm") == "online"
    for name in ("blobs", "moons", "tiny-margin"):
        page.select_option("#preset", name)
        wait_points(page, len(presets[name]["points"]))
        assert f"preset={name}" in page.url and "points=" not in page.url


# ---------------------------------------------------------------------- picture, link, errors
def test_screenshot_is_not_blank(page, server_url):
    from matplotlib import image

    page.set_viewport_size({"width": 1920, "height": 1080})  # projector: table beside plot
    open_playground(page, server_url, WORKED_EXAMPLE + "&maxmargin=1")
    for _ in range(3):
        page.click("#step")
    assert page.locator("#max-margin-line").count() == 1
    png = page.screenshot()
    rgb = (image.imread(io.BytesIO(png), format="png")[..., :3] * 255).round().astype(np.int64)
    assert rgb.shape[:2] == (1080, 1920)
    packed = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    assert np.unique(packed).shape[0] > 50  # text, points, shading, lines: not a blank page
    assert rgb.std() > 10
    if os.environ.get("ROSENBLATT_SAVE_SCREENSHOT") == "1":
        (ROOT / "docs" / "playground.png").write_bytes(png)


def test_permalink_restores_the_state(page, server_url):
    open_playground(page, server_url, WORKED_EXAMPLE)
    page.select_option("#algorithm", "averaged")
    wait_ready(page)
    page.fill("#eta", "0.5")
    page.press("#eta", "Tab")  # change event
    page.wait_for_function(
        "document.body.dataset.ready === 'true' &&"
        " document.getElementById('permalink').href.includes('eta=0.5')"
    )
    link = page.get_attribute("#permalink", "href")
    assert re.search(r"algorithm=averaged", link)
    page.click("#permalink")  # copies or shows it
    assert page.is_visible("#permalink-text")
    open_playground(page, link, "")
    assert page.input_value("#algorithm") == "averaged"
    assert page.input_value("#eta") == "0.5"
    press_until_end(page, "#epoch")
    assert value(page, "#weights") == [0.5, 0.5, -0.5]  # the online run, scaled by eta


def test_single_class_is_reported_not_logged(page, server_url):
    open_playground(page, server_url, "?points=1,1,1;2,0.5,1&algorithm=online")
    assert page.is_visible("#message")
    assert "class" in page.text_content("#message")
    assert value(page, "#points") == 2
    assert page.get_attribute("#status", "data-state") == "empty"


def test_a_refused_run_shows_the_server_message(page, server_url):
    page.route(
        "**/api/run",
        lambda route: route.fulfill(
            status=400, content_type="application/json", body='{"error": "refused for the test"}'
        ),
    )
    open_playground(page, server_url, WORKED_EXAMPLE)
    assert page.is_visible("#message")
    assert page.text_content("#message") == "refused for the test"
    assert page.get_attribute("#status", "data-state") == "empty"
    page.click("#step")  # no run: nothing happens, nothing breaks
    # the browser itself reports every HTTP error status on its console; that line is not the page's
    page.problems[:] = [m for m in page.problems if "status of 400" not in m]


def test_a_run_that_failed_in_the_server_shows_its_500_message(page, server_url):
    message = "The playground failed on this request (AttributeError: for the test)."
    page.route(
        "**/api/run",
        lambda route: route.fulfill(
            status=500, content_type="application/json", body=json.dumps({"error": message})
        ),
    )
    open_playground(page, server_url, WORKED_EXAMPLE)
    assert page.text_content("#message") == message
    assert page.get_attribute("#status", "data-state") == "empty"
    page.problems[:] = [m for m in page.problems if "status of 500" not in m]


def test_a_busy_server_is_asked_again_after_its_retry_after(page, server_url):
    """A 503 shows the server's word, and the page posts the run again after Retry-After."""
    turned_away = []

    def busy_once(route):
        if turned_away:
            return route.continue_()
        turned_away.append(route.request.post_data)
        route.fulfill(
            status=503,
            headers={"Retry-After": "1"},
            content_type="application/json",
            body='{"error": "The playground is busy with other runs."}',
        )

    page.route("**/api/run", busy_once)
    page.goto(server_url + WORKED_EXAMPLE)
    page.wait_for_function(
        "document.getElementById('message').textContent.includes('busy with other runs')"
    )
    wait_ready(page)
    assert len(turned_away) == 1 and page.is_hidden("#message")
    assert page.get_attribute("#status", "data-state") != "empty"  # the run came
    page.problems[:] = [m for m in page.problems if "status of 503" not in m]


def test_a_server_busy_for_every_try_says_so(page, server_url):
    page.route(
        "**/api/run",
        lambda route: route.fulfill(
            status=503,
            headers={"Retry-After": "0"},
            content_type="application/json",
            body='{"error": "The playground is busy with other runs."}',
        ),
    )
    open_playground(page, server_url, WORKED_EXAMPLE)
    assert "still busy with other runs after 6 tries" in page.text_content("#message")
    page.problems[:] = [m for m in page.problems if "status of 503" not in m]


# ---------------------------------------------------------------------- static copies
def test_static_copy_needs_no_server(page, tmp_path):
    from rosenblatt.apps.playground.export import export

    index = Path(export(tmp_path / "site", "or"))
    assert "<!-- playground-static-data -->" not in index.read_text(encoding="utf-8")
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    open_playground(page, index.as_uri())
    assert page.is_visible("#static-note")
    assert "static copy" in page.text_content("#static-note")
    for _ in range(8):
        page.click("#step")
    assert value(page, "#weights") == [1, 1, -1]
    page.select_option("#algorithm", "batch")
    wait_ready(page)
    page.click("#epoch")
    assert value(page, "#weights") == [2, 2, -2]
    for algorithm in ("averaged", "voted", "kernel"):  # every run of the copy plays to its end
        page.select_option("#algorithm", algorithm)
        wait_ready(page)
        press_until_end(page, "#epoch")
        assert page.get_attribute("#status", "data-state") == "converged"
    # editing is off
    assert page.is_disabled("#eta") and page.is_disabled("#preset") and page.is_disabled("#clear")
    click_plot(page, 0.5, 0.12)
    assert value(page, "#points") == 4
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
