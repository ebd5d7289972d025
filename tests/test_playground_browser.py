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


# ---------------------------------------------------------------------- history, panels, exercises
def slide_to(pg, c):
    """Move the history slider to c presentations, as a drag would (an input event)."""
    pg.eval_on_selector(
        "#history", f"e => {{ e.value = '{c}'; e.dispatchEvent(new Event('input')); }}"
    )


def test_history_slider_and_arrow_keys_move_the_cursor(page, server_url):
    open_playground(page, server_url, WORKED_EXAMPLE)
    slider = page.locator("#history")
    assert slider.get_attribute("max") == "8" and slider.input_value() == "0"
    slide_to(page, 2)
    assert value(page, "#cursor") == 2 and value(page, "#weights") == [2, 0, 0]
    slide_to(page, 3)
    assert value(page, "#cursor") == 3 and value(page, "#weights") == [1, 1, -1]
    assert page.locator("#trace tr").count() == 3
    page.keyboard.press("ArrowRight")
    assert value(page, "#cursor") == 4 and slider.input_value() == "4"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert value(page, "#cursor") == 2 and slider.input_value() == "2"
    slide_to(page, 8)
    assert value(page, "#weights") == [1, 1, -1]
    assert page.get_attribute("#status", "data-state") == "converged"
    page.keyboard.press("ArrowRight")  # at the end: nothing more
    assert value(page, "#cursor") == 8
    page.click("#reset")
    assert slider.input_value() == "0"
    page.keyboard.press("ArrowLeft")  # at the start: nothing before
    assert value(page, "#cursor") == 0
    # the slider itself takes the arrow keys (focused, it steps once, not twice)
    slider.focus()
    page.keyboard.press("ArrowRight")
    assert value(page, "#cursor") == 1


def add_panel(pg, name):
    n = pg.locator(".compare-panel").count()
    runs = int(pg.get_attribute("body", "data-runs"))
    pg.select_option("#compare", name)
    pg.wait_for_function(
        "n => document.body.dataset.ready === 'true' && Number(document.body.dataset.runs) > n",
        arg=runs,
    )
    assert pg.locator(".compare-panel").count() == n + 1
    return pg.locator(".compare-panel").nth(n)


def panel_values(panel):
    return (
        json.loads(panel.locator(".panel-weights").get_attribute("data-value")),
        json.loads(panel.locator(".panel-mistakes").get_attribute("data-value")),
    )


def test_an_averaged_panel_beside_the_perceptron_is_averaged_perceptrons(page, server_url):
    from rosenblatt import AveragedPerceptron

    open_playground(page, server_url, WORKED_EXAMPLE)
    averaged = add_panel(page, "averaged")
    assert averaged.get_attribute("data-algorithm") == "averaged"
    assert page.locator("#compare-section .compare-panel .panel-plot").count() == 1
    for _ in range(8):  # the 8 presentations of two epochs, with the one shared Step
        page.click("#step")
    weights, mistakes = panel_values(averaged)
    # CIML Algorithm 7 after two epochs: (1, 7/9), b = 5/9, w0 = -5/9 (threshold input -1)
    assert weights == [1, 0.777778, -0.555556] and mistakes == 3
    assert averaged.locator(".panel-weights").text_content() == "(1, 0.7778, \u22120.5556)"
    assert value(page, "#weights") == [1, 1, -1]  # the perceptron beside it: its last vector
    X, y = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]]), np.array([-1, 1, 1, 1])
    clf = AveragedPerceptron(max_iter=2, shuffle=False, intercept_scaling=-1, tol=None)
    clf.fit(X, y)
    np.testing.assert_allclose(weights[:2], clf.coef_.ravel(), atol=1e-6)
    np.testing.assert_allclose(weights[2] * -1, clf.intercept_[0], atol=1e-6)
    # one epoch back (the shared cursor): AveragedPerceptron after one epoch
    page.click("#reset")
    page.click("#epoch")
    clf = AveragedPerceptron(max_iter=1, shuffle=False, intercept_scaling=-1, tol=None)
    with pytest.warns(Warning):  # one epoch does not converge
        clf.fit(X, y)
    weights, mistakes = panel_values(averaged)
    np.testing.assert_allclose(weights[:2], clf.coef_.ravel(), atol=1e-6)
    assert mistakes == 3
    assert averaged.locator(".averaged-line").count() == 1  # its own line on its own plot


def test_every_panel_follows_the_shared_cursor_with_the_engines_numbers(page, server_url):
    import reference

    from rosenblatt import KernelPerceptron, trace
    from rosenblatt.apps.playground.presets import preset

    # a shuffled run: every panel sees the same orders as the page's own learner
    asked = []
    page.on("request", lambda r: asked.append(r.post_data) if r.url.endswith("api/run") else None)
    open_playground(
        page, server_url, "?preset=tiny-margin&algorithm=online&bias=-1&shuffle=1&seed=5"
    )
    names = ["perceptron", "averaged", "voted", "kernel"]
    panels = [add_panel(page, name) for name in names]
    assert page.locator(".compare-panel").count() == 4
    assert page.is_disabled("#compare")  # four at most
    X, y = preset("tiny-margin")
    end = int(page.locator("#history").get_attribute("max"))
    # the engine's record of this run: its orders and updates (theory.trace), and the
    # explicit average over those orders (reference.py)
    epochs = json.loads(asked[-1])["epochs"]
    record = trace(X, y, shuffle=True, random_state=5, max_iter=epochs)
    n_rows = record.pattern.shape[0]
    assert end == n_rows  # the longest run here is the linear learners'
    order = record.pattern.reshape(-1, X.shape[0])
    explicit = reference.averaged(X, y, list(order), bias_input=-1.0, stop=False)
    history = np.vstack([np.zeros(3), explicit["history"]])
    np.testing.assert_allclose(history, record.weights)
    mistakes = np.r_[0, np.cumsum(record.updated)]
    for c in sorted({0, 1, 2, 3, 10, n_rows // 2, n_rows - 1, n_rows}):
        slide_to(page, c)
        main = value(page, "#weights")
        for name, panel in zip(names, panels):
            weights, wrong = panel_values(panel)
            if name == "kernel":
                assert weights is None
                continue
            assert wrong == mistakes[c], (name, c)
            if name == "averaged":
                expected = history[: c + 1].mean(axis=0)  # Algorithm 7: w_0 .. w_c
                np.testing.assert_allclose(weights, expected, atol=1e-6, err_msg=f"c={c}")
            else:  # the perceptron and the voted perceptron's vector in force: the last one
                np.testing.assert_allclose(weights, history[c], err_msg=f"{name} c={c}")
                assert weights == main
    # the kernel panel ran the kernel perceptron (the page's kernel settings) on the same
    # orders, to its own end
    clf = KernelPerceptron(gamma=1.0, max_iter=epochs, shuffle=True, random_state=5)
    clf.set_params(prediction="last")
    clf.fit(X, y)
    slide_to(page, end)
    kernel_mistakes = panel_values(panels[3])[1]
    assert kernel_mistakes == len(clf.update_time_)
    # removing a panel leaves the others where they were
    panels[0].locator(".panel-remove").click()
    assert page.locator(".compare-panel").count() == 3
    assert [p.get_attribute("data-algorithm") for p in page.locator(".compare-panel").all()] == [
        "averaged",
        "voted",
        "kernel",
    ]
    assert not page.is_disabled("#compare")


def test_the_permalink_restores_the_panels(page, server_url):
    open_playground(page, server_url, WORKED_EXAMPLE)
    add_panel(page, "averaged")
    add_panel(page, "budgeted-kernel")
    page.wait_for_function(
        "document.getElementById('permalink').href.includes('compare=averaged%2Cbudgeted-kernel')"
        " || document.getElementById('permalink').href.includes('compare=averaged,budgeted-kernel')"
    )
    link = page.get_attribute("#permalink", "href")
    open_playground(page, link, "")
    panels = page.locator(".compare-panel")
    assert [p.get_attribute("data-algorithm") for p in panels.all()] == [
        "averaged",
        "budgeted-kernel",
    ]
    page.click("#epoch")
    page.click("#epoch")
    assert panel_values(panels.nth(0))[0][:2] == [1, 0.777778]
    # an unknown learner in a link is dropped, and the page says what it ignored
    open_playground(page, server_url, WORKED_EXAMPLE + "&compare=voted,nonsense")
    assert [p.get_attribute("data-algorithm") for p in panels.all()] == ["voted"]
    assert "compare" in page.text_content("#message")
    # more than the server's cap: the first four, and the note
    open_playground(page, server_url, WORKED_EXAMPLE + "&compare=" + ",".join(["voted"] * 5))
    assert panels.count() == 4 and "compare" in page.text_content("#message")


def test_side_by_side_screenshot_is_not_blank(page, server_url):
    from matplotlib import image

    page.set_viewport_size({"width": 1600, "height": 1000})
    open_playground(page, server_url, "?preset=blobs&algorithm=online&bias=-1&shuffle=1&seed=2")
    for name in ("averaged", "voted", "kernel"):
        add_panel(page, name)
    slide_to(page, 40)
    png = page.screenshot(full_page=True)
    rgb = (image.imread(io.BytesIO(png), format="png")[..., :3] * 255).round().astype(np.int64)
    packed = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    assert np.unique(packed).shape[0] > 50 and rgb.std() > 10
    if os.environ.get("ROSENBLATT_SAVE_SCREENSHOT") == "1":
        (ROOT / "docs" / "playground-compare.png").write_bytes(png)


def answer(pg, text):
    pg.click("#step")  # asks first
    assert pg.is_visible("#question") and pg.is_visible("#answer")
    pg.fill("#answer", text)
    pg.click("#check")


def test_exercise_mode_scores_a_right_and_a_wrong_answer(page, server_url):
    open_playground(page, server_url, "?preset=blobs&algorithm=kernel")
    runs = int(page.get_attribute("body", "data-runs"))
    page.check("#exercise")  # the first set: the notes' modified OR, bias -1, in order
    page.wait_for_function(
        "n => document.body.dataset.ready === 'true' && Number(document.body.dataset.runs) > n",
        arg=runs,
    )
    assert value(page, "#points") == 4 and page.input_value("#algorithm") == "online"
    assert value(page, "#score") == [0, 0] and value(page, "#cursor") == 0
    answer(page, "1, 1, 1")  # the mistake on (-1, -1): w = (1, 1, 1)
    assert page.get_attribute("#verdict", "data-value") == '"right"'
    assert value(page, "#score") == [1, 1] and value(page, "#cursor") == 1
    assert page.is_hidden("#question")
    answer(page, "1, 1, 1")  # wrong: pattern 2 is a mistake too
    assert value(page, "#verdict") == "wrong"
    assert value(page, "#score") == [1, 2] and value(page, "#cursor") == 2
    verdict = page.text_content("#verdict")
    assert "2, 0, 0" in verdict.replace("(", "").replace(")", "")  # the engine's vector
    assert "-1" in verdict.replace("\u2212", "-") and "mistake" in verdict  # the rule
    # not numbers, or too few: asked again, nothing scored
    page.click("#step")
    page.fill("#answer", "2, x")
    page.click("#check")
    assert value(page, "#score") == [1, 2] and value(page, "#cursor") == 2
    page.fill("#answer", "(2, 0, 0)")  # pattern 3 errs as well: (2, 0, 0) + (-1, 1, -1)
    page.keyboard.press("Enter")
    assert value(page, "#score") == [1, 3] and value(page, "#verdict") == "wrong"
    # off: Step steps again
    page.uncheck("#exercise")
    page.click("#step")
    assert page.is_hidden("#question") and value(page, "#score") == [0, 0]


# ---------------------------------------------------------------------- issue 45: round 2
def screen_rgb(pg, selector):
    """The element's pixels as drawn (RGB, device pixels) and its box on the page."""
    from matplotlib import image

    element = pg.locator(selector)
    element.scroll_into_view_if_needed()
    png = element.screenshot()
    box = element.bounding_box()  # in the viewport, as getScreenCTM's coordinates
    return (image.imread(io.BytesIO(png), format="png")[..., :3] * 255).round().astype(int), box


def data_to_screen(pg, points, svg="#plot"):
    """Page coordinates of plot points (data units, the view [-3, 3]^2) in the SVG
    ``svg`` (600 x 600 view box, the plot area from 44 to 586 across, 556 to 14 up),
    through its own screen transform."""
    return pg.evaluate(
        """([selector, points]) => {
          const svg = document.querySelector(selector);
          const m = svg.getScreenCTM();
          const f = (v, a, b) => a + (v + 3) * (b - a) / 6;
          return points.map(p => {
            const pt = svg.createSVGPoint();
            pt.x = f(p[0], 44, 586);
            pt.y = f(p[1], 556, 14);
            const s = pt.matrixTransform(m);
            return [s.x, s.y];
          });
        }""",
        [svg, [list(map(float, p)) for p in points]],
    )


def test_class_colours_are_the_plots_png_colours(page, server_url, tmp_path):
    """One picture language: the page's +1 point and `rosenblatt plot`'s +1 point have the
    same colour (read off the pixels), and so do the -1 points; the legends say which."""
    from PIL import Image

    from rosenblatt.apps.cli.plotting import make_plot
    from rosenblatt.apps.palette import palette_json

    palette = palette_json()
    open_playground(page, server_url, WORKED_EXAMPLE)
    rgb, box = screen_rgb(page, "#plot")
    scale = rgb.shape[1] / box["width"]
    centres = data_to_screen(page, [[1, 1], [-1, -1]])  # pattern 4 (+1) and pattern 1 (-1)
    seen = []
    for x, y in centres:
        col, row = int((x - box["x"]) * scale), int((y - box["y"]) * scale)
        seen.append(tuple(rgb[row, col]))
    hexes = ["#" + "".join(f"{int(v):02X}" for v in c) for c in seen]
    assert hexes == [palette["positive"]["color"], palette["negative"]["color"]]
    assert page.text_content("#legend-pos") == "class +1 (blue circle)"
    assert page.text_content("#legend-neg") == "class \u22121 (orange square)"
    data = tmp_path / "or.csv"
    data.write_text("x1,x2,label\n-1,-1,-1\n1,-1,1\n-1,1,1\n1,1,1\n")
    out = tmp_path / "or.png"
    make_plot(data, out)
    pixels = np.asarray(Image.open(out).convert("RGB")).reshape(-1, 3)
    for colour in seen:  # the page's point colours fill the PNG's points
        assert (pixels == colour).all(axis=1).sum() > 30, colour


def test_the_voted_panel_draws_the_vote_at_the_pages_resolution(page, server_url):
    from rosenblatt import VotedPerceptron
    from rosenblatt.apps.playground.presets import preset

    open_playground(page, server_url, "?preset=blobs&algorithm=online&bias=-1&shuffle=1&seed=2")
    panel = add_panel(page, "voted")
    end = int(page.get_attribute("#history", "max"))
    slide_to(page, end)
    regions = panel.locator("image.vote-regions")
    assert regions.count() == 1 and regions.get_attribute("data-size") == "200"  # not 41
    label = panel.locator("dt").first.text_content()
    assert label.startswith("w\u2096 in force (one voter; the shading is the vote)")
    assert "c\u2096 = " in panel.locator(".panel-weights").text_content()
    # the colours are VotedPerceptron's predictions, away from its boundary
    X, y = preset("blobs")
    epochs = end // X.shape[0]
    clf = VotedPerceptron(max_iter=epochs, shuffle=True, random_state=2, intercept_scaling=-1)
    clf.set_params(tol=None).fit(X, y)
    grid = np.array([[a, b] for a in np.linspace(-2.7, 2.7, 7) for b in np.linspace(-2.7, 2.7, 7)])
    steps = np.array([[0, 0], [0.06, 0], [-0.06, 0], [0, 0.06], [0, -0.06]])
    sure = [p for p in grid if len(set(clf.predict(p + steps))) == 1]
    assert len(sure) > 30
    plot = ".compare-panel[data-algorithm='voted'] .panel-plot"
    rgb, box = screen_rgb(page, plot)
    spots = data_to_screen(page, sure, plot)
    scale = rgb.shape[1] / box["width"]
    wrong = []
    for p, (x, yy) in zip(sure, spots):
        r, g, b = rgb[int((yy - box["y"]) * scale), int((x - box["x"]) * scale)]
        shade = 1 if b > r else -1  # blue-tinted: +1; orange-tinted: -1
        if shade != clf.predict([p])[0]:
            wrong.append((p.tolist(), (r, g, b)))
    # a point of the data may cover a sampled spot: at most a few may miss
    assert len(wrong) <= 3, wrong


def test_each_exercise_question_starts_with_a_clean_verdict(page, server_url):
    open_playground(page, server_url, WORKED_EXAMPLE)
    page.check("#exercise")
    page.wait_for_function("document.body.dataset.ready === 'true'")
    answer(page, "1, 1, 1")
    assert value(page, "#verdict") == "right" and page.is_visible("#verdict")
    page.click("#step")  # the next question
    assert page.is_visible("#question")
    assert value(page, "#verdict") is None and page.is_hidden("#verdict")
    page.fill("#answer", "0, 0, 0")
    page.click("#check")
    assert value(page, "#verdict") == "wrong"


def test_a_steps_mathml_carries_the_steps_numbers(page, server_url):
    """Presentation 3 of the notes' OR: a = w . x = 2(-1) + 0(1) + 0(-1) = -2, t a = -2 <= 0,
    w <- (2, 0, 0) + 1 * 1 * (-1, 1, -1) = (1, 1, -1), as the notes' table has it."""
    from rosenblatt.trace import trace

    open_playground(page, server_url, WORKED_EXAMPLE)
    assert "No step yet" in page.text_content("#step-math")
    for _ in range(3):
        page.click("#step")
    numbers = value(page, "#step-math")
    tr = trace([[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1])
    assert numbers["w"] == tr.weights[2].tolist() == [2, 0, 0]
    assert numbers["x"] == [-1, 1, -1] and numbers["a"] == -2 and numbers["t"] == 1
    assert numbers["activation"] == tr.activation[2] == -2 and numbers["updated"] is True
    assert numbers["after"] == tr.weights[3].tolist() == [1, 1, -1]
    maths = page.locator("#step-math math")
    assert maths.count() == 3
    namespaces = page.eval_on_selector_all("#step-math math", "ms => ms.map(m => m.namespaceURI)")
    assert set(namespaces) == {"http://www.w3.org/1998/Math/MathML"}
    mns = [m.locator("mn").all_text_contents() for m in maths.all()]
    minus = "\u2212"
    assert mns[0] == ["2", f"{minus}1", "0", "1", "0", f"{minus}1", f"{minus}2"]
    assert mns[1] == ["1", f"{minus}2", f"{minus}2", "0"]
    assert mns[2] == ["2", "0", "0", "1", "1", f"{minus}1", "1", f"{minus}1", "1", "1", f"{minus}1"]
    # readable by a screen reader: each formula says itself in words
    spoken = maths.nth(2).get_attribute("alttext")
    assert spoken.startswith("w becomes w plus eta t x: (2, 0, 0) plus 1 times 1 times")
    assert maths.nth(2).get_attribute("aria-label") == spoken
    assert "a mistake" in maths.nth(1).get_attribute("alttext")


def test_a_loaded_csv_and_a_refused_one(page, server_url):
    open_playground(page, server_url, WORKED_EXAMPLE)
    runs = int(page.get_attribute("body", "data-runs"))
    csv = "x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,yes\n0.5,0.5,yes\n"
    page.set_input_files(
        "#upload", files=[{"name": "mine.csv", "mimeType": "text/csv", "buffer": csv.encode()}]
    )
    page.wait_for_function(
        "n => document.body.dataset.ready === 'true' && Number(document.body.dataset.runs) > n",
        arg=runs,
    )
    assert value(page, "#points") == 5 and page.input_value("#preset") == ""  # edited points
    assert page.get_attribute("#upload", "data-state") == "loaded"
    assert "mine.csv: 5 points (label no is class \u22121, yes is class +1)" in page.text_content(
        "#message"
    )
    labels = page.eval_on_selector_all("#layer-points .point", "ps => ps.map(p => p.dataset.label)")
    assert labels == ["-1", "1", "1", "1", "1"]
    bad = "x1,x2,label\n1,2,a\n3,oops,b\n"
    page.set_input_files(
        "#upload", files=[{"name": "bad.csv", "mimeType": "text/csv", "buffer": bad.encode()}]
    )
    page.wait_for_function("document.getElementById('upload').dataset.state === 'refused'")
    message = page.text_content("#message")
    assert message == "bad.csv, line 3, column 'x2': 'oops' is not a number"
    assert value(page, "#points") == 5  # the points shown stay
    # the browser logs the refusal's HTTP 400 itself; the page showed it as its message
    page.problems[:] = [m for m in page.problems if "status of 400" not in m]


def test_the_lesson_button_saves_the_pages_notebook(page, server_url):
    import nbformat

    open_playground(page, server_url, WORKED_EXAMPLE + "&compare=averaged")
    for _ in range(5):
        page.click("#step")
    with page.expect_download() as download:
        page.click("#lesson")
    assert download.value.suggested_filename == "lesson.ipynb"
    nb = nbformat.read(download.value.path(), as_version=4)
    source = "\n".join(c.source for c in nb.cells)
    assert "CURSOR = 5" in source and "AveragedPerceptron(eta=ETA" in source
    assert "X = np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]])" in source


def test_the_margins_are_named_on_the_page(page, server_url):
    from rosenblatt.theory import MARGINS

    open_playground(page, server_url, WORKED_EXAMPLE)
    names = {
        key: page.locator(f"dd#{dd}").locator("xpath=../dt").text_content()
        for key, dd in (
            ("geometric", "margin"),
            ("augmented", "theory-gamma"),
            ("unit_norm", "normalized-margin"),
        )
    }
    assert names == {key: MARGINS[key][0] for key in names}
    assert value(page, "#margin") == pytest.approx(0.707107, abs=1e-6)
    assert value(page, "#theory-gamma") == pytest.approx(0.57735, abs=1e-6)
    assert value(page, "#normalized-margin") == pytest.approx(1 / 3, abs=1e-6)
    assert value(page, "#bound") == 9
