"""The playground's server endpoints and its runs: the numbers the page shows.

The runs must be the package's own: the notes' tables (trace), the averaged
and voted read-offs against their explicit definitions in ``reference.py``,
the kernel run against ``KernelPerceptron``. Bad requests get HTTP 400 with a
message.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import warnings
from contextlib import contextmanager
from dataclasses import fields

import numpy as np
import pytest
import reference

from rosenblatt.apps.playground import server as playground_server
from rosenblatt.apps.playground.export import MARKER, export
from rosenblatt.apps.playground.presets import PRESETS, VIEW, preset
from rosenblatt.apps.playground.runs import (
    COMPARE_ALGORITHMS,
    MAX_DEGREE,
    MAX_EPOCHS,
    MAX_KERNEL_CELLS,
    MAX_PANELS,
    MAX_POINTS,
    MAX_PRESENTATIONS,
    MAX_SEED,
    SETTING_CONSTRAINTS,
    PlaygroundError,
    Settings,
    limits,
    parse_request,
    run,
    run_size,
)
from rosenblatt.apps.playground.server import (
    RETRY_AFTER_SECONDS,
    SMALL_RUN,
    Turns,
    make_server,
    serve_in_thread,
    static_files,
    url_of,
)
from rosenblatt.estimators.kernel import KernelPerceptron
from rosenblatt.theory import is_linearly_separable


@pytest.fixture(scope="module")
def server_url():
    server, url = serve_in_thread()
    yield url
    server.shutdown()
    server.server_close()


def post(url, body: bytes, content_type="application/json", endpoint="api/run"):
    request = urllib.request.Request(
        url + endpoint, data=body, headers={"Content-Type": content_type}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.load(reply)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


# ---------------------------------------------------------------------- students' files
def test_a_students_csv_becomes_the_pages_points(server_url):
    text = "height,weight,label\n150,50,no\n190,90,yes\n170,60,no\n"
    body = json.dumps({"name": "people.csv", "text": text}).encode()
    status, out = post(server_url, body, endpoint="api/points")
    assert status == 200 and out["labels"] == [-1, 1, -1]
    # into the plot's box by a power of ten, and the note says so and which label is which
    assert out["points"] == [[1.5, 0.5], [1.9, 0.9], [1.7, 0.6]]
    assert out["note"] == (
        "people.csv: 3 points (label no is class −1, yes is class +1; coordinates divided "
        "by 100 to fit the plot)"
    )
    # the notes' pattern table: a/a numbers the patterns, x_0 is the threshold input
    table = "a/a x_1 x_2 x_0 t\n1 -1 -1 -1 -1\n2 1 -1 -1 1\n3 -1 1 -1 1\n4 1 1 -1 1\n"
    status, out = post(
        server_url, json.dumps({"name": "or.txt", "text": table}).encode(), endpoint="api/points"
    )
    assert status == 200 and (out["points"], out["labels"]) == (
        preset("or")[0].tolist(),
        [-1, 1, 1, 1],
    )
    assert out["note"] == "or.txt: 4 points"


@pytest.mark.parametrize(
    "text, message",
    [
        ("x1,x2,label\n1,2,a\n3,x,b\n", "mine.csv, line 3, column 'x2': 'x' is not a number"),
        ("x1,x2,x3,label\n1,2,3,a\n3,4,5,b\n", "mine.csv: the page draws two features"),
        ("x1,x2,label\n1,2,a\n3,4,b\n5,6,c\n", "mine.csv: the page draws two classes"),
        ("", "mine.csv: the file is empty"),
    ],
)
def test_a_refused_file_gets_one_line_naming_the_row(server_url, text, message):
    body = json.dumps({"name": "mine.csv", "text": text}).encode()
    status, out = post(server_url, body, endpoint="api/points")
    assert status == 400 and out["error"].startswith(message) and "\n" not in out["error"]


def test_the_lesson_button_downloads_the_notebook(server_url):
    import nbformat

    payload = request_for("or", bias=-1, compare=["averaged"], cursor=8, exercises=True)
    request = urllib.request.Request(
        server_url + "api/lesson", data=json.dumps(payload).encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert reply.headers["Content-Disposition"] == 'attachment; filename="lesson.ipynb"'
        nb = nbformat.reads(reply.read().decode(), as_version=4)
    nbformat.validate(nb)
    source = "\n".join(c.source for c in nb.cells)
    assert "CURSOR = 8" in source and "check_answer(online, 1, answer)" in source
    status, out = post(
        server_url, json.dumps({**payload, "cursor": -1}).encode(), endpoint="api/lesson"
    )
    assert status == 400 and "cursor must be a count of presentations" in out["error"]


def test_the_palette_is_served_with_the_presets(server_url):
    from rosenblatt.apps.palette import palette_json

    with urllib.request.urlopen(server_url + "api/presets") as reply:
        served = json.load(reply)["palette"]
    assert served == palette_json()
    assert (served["positive"]["color"], served["negative"]["color"]) == ("#0072B2", "#D55E00")


def request_for(name, **settings):
    X, y = preset(name)
    return {"points": X.tolist(), "labels": y.astype(int).tolist(), **settings}


# ---------------------------------------------------------------------- endpoints
def test_page_and_presets_are_served(server_url):
    with urllib.request.urlopen(server_url) as reply:
        page = reply.read().decode()
    assert reply.status == 200 and "static/playground.js" in page and MARKER in page
    with urllib.request.urlopen(server_url + "static/playground.js") as reply:
        assert reply.headers["Content-Type"].startswith("text/javascript")
    with urllib.request.urlopen(server_url + "api/presets") as reply:
        data = json.load(reply)
    assert data["view"] == list(VIEW) and set(data["presets"]) == set(PRESETS)
    for entry in data["presets"].values():
        points = np.array(entry["points"])
        assert points.shape == (len(entry["labels"]), 2)
        assert points.min() >= VIEW[0] and points.max() <= VIEW[1]
        assert set(entry["labels"]) == {-1, 1}


def test_presets_carry_the_limits_the_server_checks(server_url):
    """The page checks a run against these (no copy of them in playground.js)."""
    with urllib.request.urlopen(server_url + "api/presets") as reply:
        served = json.load(reply)["limits"]
    assert served == {
        "max_points": MAX_POINTS,
        "max_presentations": MAX_PRESENTATIONS,
        "max_kernel_cells": MAX_KERNEL_CELLS,
        "max_epochs": MAX_EPOCHS,
        "max_degree": MAX_DEGREE,
        "max_seed": MAX_SEED,
        "max_panels": MAX_PANELS,
        "page_epochs": 100,
    }
    X, y = preset("or")
    at_most = request_for("or", epochs=min(served["max_epochs"], served["max_presentations"] // 4))
    assert X.shape[0] == 4 and post(server_url, json.dumps(at_most).encode())[0] == 200
    beyond = request_for("or", epochs=served["max_epochs"] + 1)
    status, reply = post(server_url, json.dumps(beyond).encode())
    assert status == 400 and f"[1, {served['max_epochs']}]" in reply["error"]
    for key, setting in (("max_degree", "degree"), ("max_seed", "seed")):
        edge = request_for("or", algorithm="kernel", kernel="poly", **{setting: served[key]})
        assert post(server_url, json.dumps(edge).encode())[0] == 200
        status, reply = post(server_url, json.dumps({**edge, setting: served[key] + 1}).encode())
        assert status == 400 and f"'{setting}' setting" in reply["error"]
    with urllib.request.urlopen(server_url + "static/playground.js") as reply:
        script = reply.read().decode()
    with urllib.request.urlopen(server_url) as reply:
        page = reply.read().decode()
    assert "MAX_POINTS" not in script and "MAX_WORK" not in script  # no copies of its own
    degree_input = page[page.index('id="degree"') :].split(">", 1)[0]
    assert "4294967" not in script and "max=" not in degree_input  # the script sets it
    for key in served:
        assert f"limits.{key}" in script


@pytest.mark.parametrize("path", ["static/../runs.py", "static/%2e%2e/runs.py", "nothing", "api"])
def test_only_the_page_files_are_served(server_url, path):
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(server_url + path)
    assert caught.value.code == 404


def test_worked_example_over_http(server_url):
    body = request_for("or", algorithm="online", eta=1, bias=-1, shuffle=False)
    status, out = post(server_url, json.dumps(body).encode())
    assert status == 200
    assert out["weights"][8] == [1.0, 1.0, -1.0]
    assert out["rows"]["pattern"] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert out["rows"]["updated"] == [True, True, True] + [False] * 5
    assert out["rows"]["activation"] == [0, -1, -2, 3, 1, 1, 1, 3]
    assert out["epoch_ends"] == [4, 8] and out["converged"]
    assert out["theory"]["separable"] is True and out["theory"]["bound"] >= 3


@pytest.mark.parametrize(
    "body, message",
    [
        (
            request_for("or", algorithm="svm"),
            "The 'algorithm' setting of a playground run must be one of 'online', 'batch', "
            "'averaged', 'voted', 'kernel'; got 'svm'.",
        ),
        ({"points": [[0, 0]] * (MAX_POINTS + 1), "labels": [1] * (MAX_POINTS + 1)}, "2001 points"),
        # NaN and Infinity are no JSON: the reader refuses them before the run's checks
        ({"points": [[0, float("nan")], [1, 1]], "labels": [1, -1]}, "NaN is not a JSON number"),
        (
            {"points": [[0, float("inf")], [1, 1]], "labels": [1, -1]},
            "Infinity is not a JSON number",
        ),
        (request_for("or", eta=float("nan")), "NaN is not a JSON number"),
        (request_for("or", eta=-1), "'eta' setting of a playground run must be a float in the"),
        (request_for("or", gamma=0), "'gamma' setting of a playground run must be a float in"),
        (request_for("or", eta=True), "'eta' setting of a playground run must be a float"),
        (request_for("or", epochs=10**9), "'epochs' setting of a playground run must be an int"),
        (request_for("moons", epochs=MAX_EPOCHS), "too long a run"),
        (request_for("or", bias=0.5), "'bias' setting of a playground run must be one of 1, -1"),
        ({"points": [[0, 0], [1, 1]], "labels": [1, 1]}, "one class"),
        ({"points": [], "labels": []}, "no points"),
        ({"points": [[0, 0], [1]], "labels": [1, -1]}, "point 2 must be a pair"),
        ({"points": [[0, 0], [1, 1]], "labels": [1, 2]}, "label 2 must be one of 1, -1; got 2"),
        ({"points": [[0, 0], [1, 1]], "labels": [1, True]}, "label 2 must be one of 1, -1"),
        ({"points": [[0, 0]], "labels": [1, -1]}, "1 points but 2 labels"),
        ([1, 2], "JSON object"),
    ],
)
def test_bad_requests_get_400_with_a_message(server_url, body, message):
    # json.dumps writes NaN and Infinity, which JavaScript's JSON cannot, but a client could
    status, out = post(server_url, json.dumps(body).encode())
    assert status == 400
    assert message in out["error"]


@pytest.mark.parametrize("body", [b"", b"{not json", b"\xff\xfe"])
def test_unreadable_bodies_get_400(server_url, body):
    status, out = post(server_url, body)
    assert status == 400 and out["error"]


@pytest.mark.filterwarnings("ignore:.*did not converge")  # noise: it never converges
def test_largest_request_is_answered_in_seconds(server_url):
    rng = np.random.default_rng(0)
    X = rng.uniform(-2.5, 2.5, size=(MAX_POINTS, 2))
    y = np.where(rng.random(MAX_POINTS) < 0.5, 1, -1)  # noise: never converges
    for algorithm in ("voted", "kernel"):
        # the most epochs a run of MAX_POINTS may have (a kernel run's reply holds every
        # coefficient after every presentation: fewer)
        epochs = MAX_PRESENTATIONS // MAX_POINTS
        if algorithm == "kernel":
            epochs = MAX_KERNEL_CELLS // MAX_POINTS**2
        body = {"points": X.tolist(), "labels": y.tolist(), "algorithm": algorithm}
        body["epochs"], body["feature_map"] = epochs, True
        status, out = post(server_url, json.dumps(body).encode())
        assert status == 200 and out["n_rows"] <= MAX_PRESENTATIONS  # time: benchmarks/timings.py


# ---------------------------------------------------------------------- runs
def test_batch_run_is_the_notes_batch_table():
    X, y = preset("or")
    out = run(X, y, Settings(algorithm="batch", eta=1.0, bias=-1.0))
    assert out["weights"][4] == [2.0, 2.0, -2.0] and out["weights"][3] == [0.0, 0.0, 0.0]
    assert out["weights"][8] == [2.0, 2.0, -2.0] and out["epoch_ends"] == [4, 8]
    assert sum(out["rows"]["updated"][:4]) == 4  # zero weights: every pattern errs


@pytest.mark.parametrize("shuffle", [False, True])
def test_averaged_is_the_explicit_average(shuffle):
    X, y = preset("tiny-margin")
    out = run(X, y, Settings(algorithm="averaged", shuffle=shuffle, seed=4, bias=1.0))
    order = np.array(out["rows"]["pattern"]).reshape(-1, X.shape[0])
    # the last average also counts the epochs up to the limit that a converged run skips
    # (its error-free epoch again: the weights no longer change), as AveragedPerceptron does
    credited = list(order) + [order[-1]] * (Settings().epochs - order.shape[0])
    explicit = reference.averaged(X, y, credited, bias_input=1.0, stop=False)
    np.testing.assert_allclose(out["weights"][-1], explicit["w"], atol=1e-6)
    np.testing.assert_allclose(out["averaged"][-1], explicit["average"], atol=1e-6)
    c = len(out["averaged"]) // 2  # any cursor: Algorithm 7's mean of w_0 (zero) .. w_c
    so_far = np.vstack([np.zeros((1, 3)), explicit["history"][:c]])
    np.testing.assert_allclose(out["averaged"][c], so_far.mean(axis=0), atol=1e-6)


@pytest.mark.parametrize("bias, shuffle", [(1.0, False), (1.0, True), (-1.0, False)])
def test_averaged_line_is_averaged_perceptrons(bias, shuffle):
    # the page's last averaged line is the estimator's hypothesis: the same weights,
    # with the epochs AveragedPerceptron credits after convergence (the page used to
    # average the presentations shown only)
    from rosenblatt import AveragedPerceptron

    X, y = preset("tiny-margin")
    out = run(X, y, Settings(algorithm="averaged", bias=bias, shuffle=shuffle, seed=4, epochs=50))
    assert out["converged"] and len(out["epoch_ends"]) < 50  # so there is credit to count
    clf = AveragedPerceptron(eta=1.0, max_iter=50, shuffle=shuffle, random_state=4, tol=None)
    clf.fit(X, y)
    w1, w2, w0 = out["averaged"][-1]
    np.testing.assert_allclose([w1, w2], clf.coef_.ravel(), atol=1e-6)
    np.testing.assert_allclose(w0 * bias, clf.intercept_[0], atol=1e-6)


def test_voted_tally_is_the_explicit_vote():
    X, y = preset("xor")
    out = run(X, y, Settings(algorithm="voted", bias=-1.0, epochs=5))
    history = np.array(out["weights"][1:])
    for r, i in enumerate(out["rows"]["pattern"]):
        if r == 0:
            assert out["voted"]["tally"][0] == [0, 0]
            continue
        # every earlier presentation's weights vote once: sign(w . x) with 0 counted as -1
        vote = reference.voted_decision(history[:r], X[i : i + 1], bias_input=-1.0)[0] * r
        plus, minus = out["voted"]["tally"][r]
        assert plus + minus == r and plus - minus == pytest.approx(vote)
    voters = out["voted"]["voters"]
    assert sum(v["end"] - max(1, v["start"]) for v in voters) == out["n_rows"]


def test_voted_read_outs_are_the_engines():
    from rosenblatt import VotedPerceptron

    X, y = preset("xor")
    out = run(X, y, Settings(algorithm="voted", bias=1.0, epochs=5))
    voters, current = out["voted"]["voters"], out["voted"]["current"]
    # per cursor: the voter in force and its votes so far, with the earlier voters' all
    assert len(current) == out["n_rows"] + 1 and current[0] == [0, 0]
    for c, (k, count) in enumerate(current):
        assert voters[k]["start"] <= c < voters[k]["end"]
        assert sum(v["votes"] for v in voters[:k]) + count == c
    assert [v["votes"] for v in voters][-1] == current[-1][1]
    # the last grid is VotedPerceptron's vote over the view box (not converged: no credit)
    clf = VotedPerceptron(max_iter=5, shuffle=False, tol=None)
    with pytest.warns(Warning):
        clf.fit(X, y)
    size = out["grids"]["size"]
    gx, gy = np.meshgrid(np.linspace(*VIEW[:2], size), np.linspace(*VIEW[2:], size))
    expected = clf.decision_function(np.column_stack([gx.ravel(), gy.ravel()]))
    expected /= np.abs(expected).max()
    assert out["grids"]["at"][-1] == out["n_rows"]
    np.testing.assert_allclose(out["grids"]["values"][-1], expected, atol=1e-3)


def test_voted_grid_after_convergence_is_voted_perceptrons():
    # a converged run: VotedPerceptron counts the skipped epochs as votes of its last
    # vector, and the page's last grid, last voter and last count say the same
    from rosenblatt import VotedPerceptron

    X, y = preset("tiny-margin")
    out = run(X, y, Settings(algorithm="voted", bias=1.0, epochs=50))
    assert out["converged"] and len(out["epoch_ends"]) < 50  # so there is credit to count
    clf = VotedPerceptron(max_iter=50, shuffle=False, tol=None).fit(X, y)
    voters, current = out["voted"]["voters"], out["voted"]["current"]
    # votes_ leaves out the vectors that never voted (the page's table starts at the zeros)
    assert [v["votes"] for v in voters if v["votes"]] == clf.votes_.tolist()
    assert current[-1][1] == voters[-1]["votes"]
    size = out["grids"]["size"]
    gx, gy = np.meshgrid(np.linspace(*VIEW[:2], size), np.linspace(*VIEW[2:], size))
    expected = clf.decision_function(np.column_stack([gx.ravel(), gy.ravel()]))
    expected /= np.abs(expected).max()
    np.testing.assert_allclose(out["grids"]["values"][-1], expected, atol=1e-3)


def test_kernel_run_shows_the_orders_the_fit_presented():
    X, y = preset("xor")
    out = run(X, y, Settings(algorithm="kernel", shuffle=True, seed=7, gamma=2.0))
    n = X.shape[0]
    order = np.array(out["rows"]["pattern"]).reshape(-1, n)
    assert order.shape[0] == len(out["epoch_ends"])
    assert all(sorted(o) == list(range(n)) for o in order.tolist())
    assert any(o != list(range(n)) for o in order.tolist())  # shuffled
    # a row is an update exactly where the engine's activation was not positive (the
    # engine's own y f(x), recorded by the compiled epoch: no tolerance)
    activation = np.array(out["rows"]["activation"])
    updated = np.array(out["rows"]["updated"])
    np.testing.assert_array_equal(updated, activation <= 0)


@pytest.mark.parametrize("kernel, degree", [("rbf", 2), ("poly", 2)])
def test_kernel_run_is_the_estimators_run(kernel, degree):
    X, y = preset("xor")
    settings = Settings(algorithm="kernel", kernel=kernel, degree=degree, shuffle=True, seed=3)
    out = run(X, y, settings)
    clf = KernelPerceptron(kernel=kernel, gamma=1.0, degree=degree, shuffle=True, random_state=3)
    clf.set_params(prediction="last").fit(X, y)
    assert out["converged"] and clf.converged_
    assert len(out["epoch_ends"]) == clf.n_iter_
    assert np.flatnonzero(out["rows"]["updated"]).tolist() == clf.update_time_.tolist()
    # every spell of the support set starts at an update and lasts (no budget: no eviction)
    assert all(b == out["n_rows"] + 1 for _, _, b in out["kernel"]["support"])
    assert sorted(j for j, _, _ in out["kernel"]["support"]) == clf.support_.tolist()
    last_epoch = slice(out["epoch_ends"][-2], out["epoch_ends"][-1])
    assert not any(out["rows"]["updated"][last_epoch])  # the error-free epoch
    # the last grid is the model's decision function over the view box, scaled to [-1, 1]
    size = out["grids"]["size"]
    gx, gy = np.meshgrid(np.linspace(*VIEW[:2], size), np.linspace(*VIEW[2:], size))
    expected = clf.decision_function(np.column_stack([gx.ravel(), gy.ravel()]))
    expected /= np.abs(expected).max()
    np.testing.assert_allclose(out["grids"]["values"][-1], expected, atol=1e-3)


def test_theory_read_outs():
    X, y = preset("xor")
    out = run(X, y, Settings())
    assert out["theory"]["separable"] is False and out["theory"]["margin"] is None
    assert out["theory"]["bound"] is None and not out["converged"] and out["note"]
    mapped = run(X, y, Settings(feature_map=True))  # x1*x2 separates XOR
    assert mapped["theory"]["separable"] is True and mapped["converged"]
    assert mapped["features"][2] == "x1*x2" and len(mapped["weights"][0]) == 6
    assert mapped["grids"] is not None and mapped["theory"]["max_margin"] is None
    X, y = preset("and")
    out = run(X, y, Settings())
    best = out["theory"]["max_margin"]
    assert is_linearly_separable(X, y) and best["margin"] == pytest.approx(out["theory"]["margin"])
    assert sum(out["rows"]["updated"]) <= out["theory"]["bound"]  # Novikoff
    assert out["theory"]["R"] == pytest.approx(np.sqrt(3.0))  # (1, 1, bias) augmented


def test_parse_request_defaults_and_errors():
    X, y, settings = parse_request(request_for("or"))
    assert settings == Settings() and X.shape == (4, 2)
    with pytest.raises(PlaygroundError, match=r"'seed' setting .* range \[0, 4294967295\]"):
        parse_request(request_for("or", seed=-1))
    with pytest.raises(PlaygroundError, match=r"'degree' setting .* an int .*; got 2.5"):
        parse_request(request_for("or", degree=2.5))
    # JSON has one kind of number: a whole 3.0 is the int 3, as before
    _, _, settings = parse_request(request_for("or", degree=3.0, seed=7.0, epochs=5.0, eta=2))
    assert (settings.degree, settings.seed, settings.epochs, settings.eta) == (3, 7, 5, 2.0)
    assert type(settings.degree) is int and type(settings.eta) is float


def test_settings_are_declared_as_constraints_the_served_limits_bound():
    """The request's checks are the estimators' language (one constraint per setting), and
    their bounds are the limits the page is served: one source, no copy."""
    served = limits()
    assert set(SETTING_CONSTRAINTS) == {f.name for f in fields(Settings)} - {
        "shuffle",
        "feature_map",
        "compare",  # a list of names, checked against COMPARE_ALGORITHMS and MAX_PANELS
    }
    assert served["max_panels"] == MAX_PANELS
    for setting, key in (("epochs", "max_epochs"), ("degree", "max_degree"), ("seed", "max_seed")):
        (bound,) = SETTING_CONSTRAINTS[setting]
        assert bound.high == served[key]


def test_request_errors_keep_their_names():
    """A request's field is no option: "eta", never "--eta" (only the command line's own
    boundary words errors with its options, and a request does not pass through it)."""
    with pytest.raises(PlaygroundError) as caught:
        parse_request(request_for("or", eta=0))
    assert str(caught.value).startswith("The 'eta' setting") and "--eta" not in str(caught.value)


def test_the_packaged_page_has_one_data_marker():
    """export() puts the runs where the marker is: the asset holds it exactly once."""
    assert static_files()["index.html"].decode().count(MARKER) == 1


# ---------------------------------------------------------------------- failures and load
@pytest.fixture
def serve():
    """Start servers of given capacity; stop them at the end."""
    servers = []

    def start(**capacity):
        server = make_server("127.0.0.1", 0, **capacity)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return url_of(server), server.turns

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def answer(url, body=None, path="api/run"):
    """``(status, JSON, headers)`` of a request; a closed connection raises."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url + path, data=data, method="GET" if body is None else "POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.load(reply), reply.headers
    except urllib.error.HTTPError as error:
        return error.code, json.load(error), error.headers


def test_a_run_that_fails_in_the_server_is_a_500_the_page_shows_and_one_line(
    serve, monkeypatch, capfd
):
    url, _ = serve()

    def broken(*args):
        raise AttributeError("partially initialized module 'scipy.sparse'")

    monkeypatch.setattr(playground_server, "run", broken)
    status, out, _ = answer(url, request_for("or"))
    assert status == 500
    assert "AttributeError: partially initialized module 'scipy.sparse'" in out["error"]
    assert "report it" in out["error"]
    monkeypatch.setattr(playground_server, "presets", broken)
    assert answer(url, path="api/presets")[0] == 500
    lines = capfd.readouterr().err.splitlines()
    assert len(lines) == 2 and "Traceback" not in "".join(lines)
    assert lines[0].startswith("rosenblatt playground: POST /api/run failed: AttributeError:")
    assert lines[1].startswith("rosenblatt playground: GET /api/presets failed: AttributeError:")
    monkeypatch.undo()
    assert answer(url, request_for("or"))[0] == 200  # the server goes on serving


@contextmanager
def held_runs(monkeypatch):
    """Runs that wait for ``release`` once started; ``started`` counts them."""
    started, release = threading.Semaphore(0), threading.Event()
    real = playground_server.run

    def held(X, y, settings):
        if run_size(X, settings) > SMALL_RUN:  # the small ones are not held
            started.release()
            assert release.wait(30)
        return real(X, y, settings)

    monkeypatch.setattr(playground_server, "run", held)
    try:
        yield started, release
    finally:
        release.set()


def in_thread(function, *args):
    """Call ``function`` in a thread; the returned callable joins it and gives its result."""
    result = []
    thread = threading.Thread(target=lambda: result.append(function(*args)))
    thread.start()

    def join():
        thread.join(30)
        return result[0]

    return join


def large(name):
    """A run too large to skip the queue (the preset's points, the most epochs)."""
    body = request_for(name, epochs=MAX_EPOCHS)
    X, _, settings = parse_request(body)
    assert run_size(X, settings) > SMALL_RUN
    return body


def test_runs_beyond_the_queue_get_503_with_retry_after(serve, monkeypatch):
    url, turns = serve(at_once=1, waiting=1)
    with held_runs(monkeypatch) as (started, release):
        first = in_thread(answer, url, large("or"))
        assert started.acquire(timeout=30)  # the first computes
        second = in_thread(answer, url, large("and"))  # the second waits its turn
        deadline = time.monotonic() + 30
        while turns.admitted < 2:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        status, out, headers = answer(url, large("xor"))
        assert status == 503 and headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
        assert "busy" in out["error"]
        assert answer(url, path="api/presets")[0] == 200  # the page's files never wait
        assert answer(url, request_for("or"))[0] == 200  # nor a small run
        release.set()
        assert first()[0] == 200 and second()[0] == 200  # the queued run got its turn


def test_a_run_that_waits_too_long_gets_503(serve, monkeypatch):
    url, _ = serve(at_once=1, waiting=4, wait_seconds=0.2)
    with held_runs(monkeypatch) as (started, release):
        first = in_thread(answer, url, large("or"))
        assert started.acquire(timeout=30)
        status, out, headers = answer(url, large("or"))
        assert status == 503 and headers["Retry-After"] and out["error"]
        release.set()
        assert first()[0] == 200


def test_16_clients_at_once_each_get_an_answer(serve):
    """A class posting at once: each request is answered (200, or 503 beyond the queue)."""
    url, _ = serve(at_once=2, waiting=6)
    joins = [in_thread(answer, url, large("or" if k % 2 else "xor")) for k in range(16)]
    statuses = sorted(join()[0] for join in joins)
    assert set(statuses) <= {200, 503} and statuses.count(200) >= 8


def test_turns_count_what_runs_and_waits():
    turns = Turns(at_once=2, waiting=1, wait_seconds=0.05)
    with turns.turn() as a, turns.turn() as b, turns.turn() as c, turns.turn() as d:
        assert (a, b, c, d) == (True, True, False, False)  # c waited too long, d found it full
    with turns.turn() as again:
        assert again  # every turn was given back


# ---------------------------------------------------------------------- export and CLI
def test_export_embeds_every_algorithm(tmp_path):
    page = export(tmp_path / "site", "xor", Settings(bias=1.0))
    text = open(page, encoding="utf-8").read()
    assert MARKER not in text and "window.PLAYGROUND_STATIC" in text
    data = json.loads(text.split("window.PLAYGROUND_STATIC = ", 1)[1].split(";</script>", 1)[0])
    assert data["preset"] == "xor"
    assert [r["request"]["algorithm"] for r in data["runs"]] == list(
        ("online", "batch", "averaged", "voted", "kernel")
    )
    assert all(r["request"]["bias"] == 1.0 for r in data["runs"])
    assert sorted(os.listdir(tmp_path / "site" / "static")) == ["playground.css", "playground.js"]


def rosenblatt(*args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "rosenblatt", *args], capture_output=True, text=True, **kwargs
    )


def test_cli_export_and_its_errors(tmp_path):
    done = rosenblatt("playground", "--export", str(tmp_path / "out"), "--preset", "moons")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "index.html").exists() and "index.html" in done.stdout
    bad = rosenblatt("playground", "--export", str(tmp_path / "x"), "--preset", "spiral")
    assert bad.returncode == 2 and "unknown preset 'spiral'" in bad.stderr
    assert "Traceback" not in bad.stderr and not (tmp_path / "x").exists()
    bad = rosenblatt("playground", "--export", str(tmp_path / "y"), "--bias-input", "2")
    assert bad.returncode == 2 and "--bias-input must be one of 1, -1; got 2.0" in bad.stderr


def test_cli_serves_until_ctrl_c():
    process = subprocess.Popen(
        [sys.executable, "-m", "rosenblatt", "playground", "--port", "0", "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        # pytest-xdist workers ignore SIGINT, and a child started so would inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        line = process.stdout.readline()
        url = line.split(" at ", 1)[1].split()[0]
        assert url.startswith("http://127.0.0.1:")
        # generous waits: a loaded test machine answers slowly, and only the outcome counts
        with urllib.request.urlopen(url + "api/presets", timeout=120) as reply:
            assert reply.status == 200
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 0 and "Stopped." in out and "Traceback" not in err


def test_cli_port_in_use_is_a_clear_error():
    server, url = serve_in_thread()
    try:
        port = url.rsplit(":", 1)[1].strip("/")
        done = rosenblatt("playground", "--port", port, "--no-browser", timeout=30)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("policy", ["random", "forgetron", "stop"])
def test_a_budgeted_kernel_run_keeps_its_budget_at_every_cursor(policy):
    # the page draws the support set the engine had after each presentation (spells
    # read off its recorded coefficients), evicted points included
    from rosenblatt import KernelPerceptron

    X, y = preset("xor")
    budget = 3
    settings = Settings(algorithm="kernel", gamma=2.0, budget=budget, budget_policy=policy)
    out = run(X, y, settings)
    spells = out["kernel"]["support"]
    assert out["kernel"]["budget"] == budget
    for c in range(out["n_rows"] + 1):
        assert sum(a <= c < b for _, a, b in spells) <= budget
    clf = KernelPerceptron(
        gamma=2.0, budget=budget, budget_policy=policy, prediction="last", shuffle=False,
        max_iter=settings.epochs, random_state=0,
    )  # fmt: skip
    with warnings.catch_warnings():  # a budget may keep it from converging: no matter
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    last = out["n_rows"]
    assert sorted(j for j, a, b in spells if a <= last < b) == sorted(clf.support_.tolist())
    if policy != "stop":  # the policies that evict: some spell ends before the last cursor
        assert any(b <= last for _, _, b in spells)
    # alpha of each row is the presented sample's coefficient after it, as the engine had it
    alpha = np.array(out["kernel"]["alpha"])
    assert np.all(alpha[np.array(out["rows"]["updated"])] != 0.0) or policy == "forgetron"


def test_a_kernel_run_too_large_for_the_page_is_refused():
    points = [[float(i), float(i % 7)] for i in range(400)]
    labels = [1 if i % 2 else -1 for i in range(400)]
    payload = {"points": points, "labels": labels, "algorithm": "kernel", "epochs": 30}
    with pytest.raises(PlaygroundError, match="points squared times epochs"):
        parse_request(payload)
    assert limits()["max_kernel_cells"] == 4_000_000


# ---------------------------------------------------------------------- comparison panels
def test_panels_are_their_learners_on_the_same_points_in_the_same_order():
    from rosenblatt import AveragedPerceptron, Perceptron

    X, y = preset("or")
    settings = Settings(bias=-1.0, compare=("averaged", "perceptron", "voted", "kernel"))
    out = run(X, y, settings)
    averaged, perceptron, voted, kernel = out["panels"]
    assert [p["algorithm"] for p in out["panels"]] == list(settings.compare)
    # after the 8 presentations of two epochs: AveragedPerceptron(max_iter=2)'s coef, CIML
    # Algorithm 7's (1, 7/9) and b = 5/9 (w0 = -5/9 with the notes' threshold input -1)
    clf = AveragedPerceptron(max_iter=2, shuffle=False, intercept_scaling=-1, tol=None)
    clf.fit(X, y)
    w1, w2, w0 = averaged["weights"][8]
    assert [w1, w2, w0] == [1.0, 0.777778, -0.555556]  # the reply's 6 decimals
    assert [w1, w2] == np.round(clf.coef_.ravel(), 6).tolist()
    assert w0 * -1 == pytest.approx(clf.intercept_[0], abs=1e-6)
    # the perceptron's and the voted perceptron's vector in force: the page's own run's
    assert perceptron["weights"] == voted["weights"] == out["weights"]
    last = Perceptron(shuffle=False, intercept_scaling=-1).fit(X, y)
    assert perceptron["weights"][-1][:2] == last.coef_.ravel().tolist()
    for panel in (averaged, perceptron, voted):
        assert panel["pattern"] == out["rows"]["pattern"]
        assert panel["mistakes"] == [0, 1, 2, 3, 3, 3, 3, 3, 3]
        assert len(panel["weights"]) == panel["n_rows"] + 1 == 9
    assert voted["grids"]["at"][-1] == 8 and averaged["grids"] is None
    # the kernel's own run: no primal weights, its grids and support set, its mistakes
    assert kernel["weights"] is None and kernel["support"] and kernel["grids"]["values"]
    assert kernel["mistakes"][0] == 0 and len(kernel["mistakes"]) == kernel["n_rows"] + 1


@pytest.mark.parametrize("seed", [1, 5])
def test_shuffled_panels_share_the_pages_orders_and_average_explicitly(seed):
    X, y = preset("tiny-margin")
    settings = Settings(algorithm="voted", shuffle=True, seed=seed, compare=("averaged",))
    out = run(X, y, settings)
    (panel,) = out["panels"]
    assert panel["pattern"] == out["rows"]["pattern"]
    order = np.array(panel["pattern"]).reshape(-1, X.shape[0])
    explicit = reference.averaged(X, y, list(order), bias_input=-1.0, stop=False)
    history = np.vstack([np.zeros((1, 3)), explicit["history"]])  # w_0 (zero), w_1, ...
    for c in range(1, panel["n_rows"] + 1):
        np.testing.assert_allclose(panel["weights"][c], history[: c + 1].mean(axis=0), atol=1e-6)
    updated = np.array(out["rows"]["updated"])
    assert panel["mistakes"] == np.r_[0, np.cumsum(updated)].tolist()
    # a kernel panel's own run presents the same orders, epoch for epoch, as long as it lasts
    (kernel,) = run(X, y, Settings(shuffle=True, seed=seed, compare=("kernel",)))["panels"]
    both = min(kernel["n_rows"], panel["n_rows"])
    assert both >= X.shape[0] and kernel["pattern"][:both] == panel["pattern"][:both]


def test_a_budgeted_kernel_panel_keeps_the_pages_budget_or_half_the_points():
    X, y = preset("xor")
    out = run(X, y, Settings(gamma=2.0, compare=("budgeted-kernel",)))
    assert out["panels"][0]["budget"] == 2  # half of XOR's four points
    out = run(X, y, Settings(gamma=2.0, budget=3, compare=("budgeted-kernel", "kernel")))
    budgeted, free = out["panels"]
    assert budgeted["budget"] == 3 and free["budget"] in (None, 0)
    for c in range(budgeted["n_rows"] + 1):
        assert sum(a <= c < b for _, a, b in budgeted["support"]) <= 3


def test_compare_requests_are_checked_and_counted():
    _, _, settings = parse_request(request_for("or", compare=["averaged", "kernel"]))
    assert settings.compare == ("averaged", "kernel")
    for bad, message in (
        ("averaged", "compare must be a list"),
        (["averaged"] * (MAX_PANELS + 1), f"at most {MAX_PANELS}"),
        (["svm"], "no learner the playground compares"),
    ):
        with pytest.raises(PlaygroundError, match=message):
            parse_request(request_for("or", compare=bad))
    assert set(COMPARE_ALGORITHMS) == {
        "perceptron",
        "averaged",
        "voted",
        "kernel",
        "budgeted-kernel",
    }
    # each kernel panel holds its own coefficients: it counts against the kernel cap
    X = np.zeros((200, 2))  # 200 points, 10 epochs: one kernel run is a tenth of both caps
    one = run_size(X, Settings(algorithm="kernel", epochs=10))
    three = run_size(X, Settings(algorithm="kernel", epochs=10, compare=("kernel",) * 2))
    assert one == pytest.approx(0.1) and three == pytest.approx(0.3)


def test_panels_over_http(server_url):
    status, out = post(server_url, json.dumps(request_for("or", compare=["averaged"])).encode())
    assert status == 200 and out["panels"][0]["weights"][8][:2] == [1.0, 0.777778]
    status, out = post(server_url, json.dumps(request_for("or", compare=["nope"])).encode())
    assert status == 400 and "compare" in out["error"]
