"""``rosenblatt serve``: what each endpoint answers, and every refusal (JSON, 400/413/503).

The service runs in this process (``rosenblatt.serve(..., block=False)``, a free port),
and a client posts to it over HTTP as any other would.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from serving import N_FEATURES, dense_model, get, post, replayed_bytes

pytest.importorskip("uvicorn", reason="the service needs the [serve] extra (make test has it)")

import rosenblatt  # noqa: E402
from rosenblatt._core import config  # noqa: E402
from rosenblatt.persistence import load, model_bytes, read_manifest  # noqa: E402

ID = re.compile(r"^[0-9a-f]{8}-\d+$")


@pytest.fixture
def model_path(tmp_path):
    path = tmp_path / "m.rbl"
    dense_model(path)
    return path


@pytest.fixture
def service(model_path):
    service = rosenblatt.serve(model_path, port=0, block=False)
    yield service
    service.stop()


def rows(n, seed=1):
    return np.random.default_rng(seed).normal(size=(n, N_FEATURES)).round(3)


# ---------------------------------------------------------------------- answers
def test_predict_answers_the_models_labels_scores_ids_and_version(service, model_path):
    X = rows(5)
    status, answer, _ = post(service.url, "/predict", {"rows": X.tolist()})
    model = load(model_path)
    assert status == 200
    assert answer["labels"] == model.predict(X).tolist()
    assert answer["scores"] == model.decision_function(X).tolist()
    assert answer["classes"] == ["no", "yes"] and answer["version"] == 0
    assert "probabilities" not in answer  # a Perceptron has none
    assert len(answer["ids"]) == 5 and all(ID.match(i) for i in answer["ids"])
    assert len(set(answer["ids"])) == 5
    _, again, _ = post(service.url, "/predict", {"rows": X[:1].tolist()})
    assert int(again["ids"][0].rsplit("-", 1)[1]) == 5  # ids count the rows predicted


def test_columns_by_name_and_a_csv_body_read_as_rows(tmp_path):
    path = tmp_path / "named.rbl"
    names = [f"f{j}" for j in range(N_FEATURES)]
    dense_model(path, metadata={"feature_names": names, "data_format": "csv"})
    X = rows(3)
    with rosenblatt.serve(path, port=0, block=False) as service:
        _, by_rows, _ = post(service.url, "/predict", {"rows": X.tolist()})
        columns = {name: X[:, j].tolist() for j, name in reversed(list(enumerate(names)))}
        _, by_columns, _ = post(service.url, "/predict", {"columns": columns})
        order = names[::-1]  # a header names the columns: any order
        csv = (
            ",".join(order)
            + "\n"
            + "".join(",".join(repr(float(row[names.index(n)])) for n in order) + "\n" for row in X)
        )
        _, by_csv, _ = post(service.url, "/predict", csv.encode(), "text/csv")
        status, bad, _ = post(service.url, "/predict", b"f0,f1\n1,2\n", "text/csv")
    assert by_columns["scores"] == by_csv["scores"] == by_rows["scores"]
    assert status == 400 and bad["error"].startswith(
        "request body, line 1: the header does not match the model's columns: no column"
    )


def test_a_text_model_reads_documents_as_json_and_as_tsv(tmp_path):
    from sklearn.pipeline import Pipeline

    from rosenblatt.data.streaming import hashing_vectorizer

    docs = ["win money now", "see you at lunch", "free money win", "lunch at noon"] * 5
    labels = ["spam", "ham", "spam", "ham"] * 5
    model = Pipeline(
        [
            ("vectorizer", hashing_vectorizer(2**12, np.float64)),
            ("classifier", rosenblatt.Perceptron(random_state=0)),
        ]
    ).fit(docs, labels)
    path = tmp_path / "text.rbl"
    rosenblatt.save(model, path)
    with rosenblatt.serve(path, port=0, block=False) as service:
        _, answer, _ = post(service.url, "/predict", {"rows": ["free money", "lunch today"]})
        _, tsv, _ = post(
            service.url, "/predict", b"free money\nlunch today\n", "text/tab-separated-values"
        )
        status, learnt, _ = post(
            service.url, "/learn", {"rows": ["money money"], "labels": ["ham"]}
        )
        _, bad, _ = post(service.url, "/predict", {"rows": ["fine", 3]})
    assert (
        answer["labels"] == model.predict(["free money", "lunch today"]).tolist() == tsv["labels"]
    )
    assert (status, learnt) == (200, {"learned": 1, "version": 1})
    assert bad == {
        "error": "rows[1] is 3, not text; the model reads documents: send each row as a JSON string"
    }


def test_a_calibrated_model_answers_probabilities(tmp_path):
    X = rows(120, seed=3)
    y = np.where(X[:, 0] > 0, 1, 0)
    model = rosenblatt.calibrated(rosenblatt.Perceptron(random_state=0), method="online").fit(X, y)
    path = tmp_path / "cal.rbl"
    rosenblatt.save(model, path)
    with rosenblatt.serve(path, port=0, block=False) as service:
        _, answer, _ = post(service.url, "/predict", {"rows": X[:3].tolist()})
        status, learnt, _ = post(
            service.url, "/learn", {"rows": X[:3].tolist(), "labels": [1, 0, 1]}
        )
    assert answer["probabilities"] == model.predict_proba(X[:3]).tolist()
    assert (status, learnt) == (200, {"learned": 3, "version": 1})


def test_learning_by_prediction_ids_learns_those_rows(service, model_path, tmp_path):
    X = rows(4)
    _, predicted, _ = post(service.url, "/predict", {"rows": X.tolist()})
    ids = predicted["ids"]
    status, answer, _ = post(
        service.url, "/learn", {"ids": [ids[2], ids[0]], "labels": ["yes", "no"]}
    )
    assert (status, answer) == (200, {"learned": 2, "version": 1})
    _, saved, _ = post(service.url, "/save", {"path": str(tmp_path / "copy.rbl")})
    reference = load(model_path)
    reference.partial_fit(X[[2, 0]], np.array(["yes", "no"]))
    assert (tmp_path / "copy.rbl").read_bytes() == model_bytes(reference, metadata={})
    assert saved["version"] == 1 and saved["saved"] == str(tmp_path / "copy.rbl")


def test_an_expired_prediction_id_is_refused_by_name(model_path, monkeypatch):
    monkeypatch.setattr(config, "SERVE_RECENT_ROWS", 3)
    with rosenblatt.serve(model_path, port=0, block=False) as service:
        _, first, _ = post(service.url, "/predict", {"rows": rows(2).tolist()})
        post(service.url, "/predict", {"rows": rows(2, seed=2).tolist()})  # the first go
        status, answer, _ = post(service.url, "/learn", {"ids": first["ids"][:1], "labels": ["no"]})
        _, never, _ = post(
            service.url, "/learn", {"ids": [first["ids"][0][:9] + "99"], "labels": ["no"]}
        )
    assert status == 400
    assert answer == {
        "error": f'the prediction id "{first["ids"][0]}" has expired: the service keeps its '
        f"last 3 predicted rows (at most {config.SERVE_RECENT_BYTES} bytes of them); send the "
        "row itself with its label",
        "expired": first["ids"][:1],
    }
    assert never["error"].endswith("was never given; send the ids /predict answered with")


def test_health_and_metrics_say_what_is_served_and_how_it_goes(service, model_path):
    post(service.url, "/predict", {"rows": rows(3).tolist()})
    post(service.url, "/learn", {"rows": rows(2).tolist(), "labels": ["no", "yes"]})
    _, health, _ = get(service.url, "/health")
    status, metrics, headers = get(service.url, "/metrics")
    assert health == {
        "status": "ok",
        "model": "Perceptron",
        "version": 1,
        "classes": ["no", "yes"],
        "n_features": N_FEATURES,
        "learns": True,
        "path": str(model_path),
        "log": str(model_path) + ".log",
        "queue": 0,
        "replayed": 0,
    }
    assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
    for line in (
        'rosenblatt_requests_total{endpoint="/predict",status="200"} 1',
        'rosenblatt_requests_total{endpoint="/learn",status="200"} 1',
        'rosenblatt_rows_total{endpoint="/predict"} 3',
        'rosenblatt_rows_total{endpoint="/learn"} 2',
        'rosenblatt_request_seconds_count{endpoint="/learn"} 1',
        "rosenblatt_model_version 1",
        "rosenblatt_updates_total 1",
        "rosenblatt_learned_rows_total 2",
        "rosenblatt_queue_length 0",
        "rosenblatt_recent_rows 3",
    ):
        assert line in metrics.splitlines(), line


def test_save_writes_the_served_file_atomically_and_starts_the_log_afresh(service, model_path):
    from rosenblatt.apps.serve.journal import read_log

    X = rows(3)
    post(service.url, "/learn", {"rows": X.tolist(), "labels": ["yes", "no", "yes"]})
    status, answer, _ = post(service.url, "/save")
    data = model_path.read_bytes()
    assert status == 200 and answer["saved"] == str(model_path) and answer["bytes"] == len(data)
    log = read_log(str(model_path) + ".log")
    assert [(r["kind"], r["version"]) for r in log.records] == [("start", 1)]
    assert load(model_path).predict(X).tolist() == service.served.snapshot.model.predict(X).tolist()


def test_predictions_read_the_model_as_learnt_and_never_change_it(service, model_path):
    before = model_path.read_bytes()
    for seed in range(5):
        post(service.url, "/predict", {"rows": rows(10, seed).tolist()})
    assert (
        model_bytes(service.served.snapshot.model, metadata=read_manifest(model_path)["metadata"])
        == before
    )


# ---------------------------------------------------------------------- refusals
BAD_ROWS = [
    (
        {"rows": [[0.5] * N_FEATURES, [1, "x"] + [0] * (N_FEATURES - 2)]},
        'rows[1][1] is "x", not a number; send every feature as a JSON number',
    ),
    (
        {"rows": [[0.5] * N_FEATURES, [1, True] + [0] * (N_FEATURES - 2)]},
        "rows[1][1] is true, not a number; send every feature as a JSON number",
    ),
    (
        {"rows": [[0.5] * N_FEATURES, [None] * N_FEATURES]},
        "rows[1][0] is null, not a number; send every feature as a JSON number",
    ),
    (
        {"rows": [[0.5] * (N_FEATURES - 1)]},
        f"rows[0] holds {N_FEATURES - 1} values; the model takes {N_FEATURES} features: "
        f"send {N_FEATURES} numbers a row",
    ),
    (
        {"rows": [[0.5] * N_FEATURES, 3]},
        f"rows[1] is 3, not a row; send each row as a list of {N_FEATURES} numbers",
    ),
    (
        {"rows": [[10**400] + [0] * (N_FEATURES - 1)]},
        "bad request: the number 1000000000000000000000000000000000000000 is beyond the float "
        "range (about 1.8e308); send smaller numbers.",
    ),
    ({"rows": []}, '"rows" is []; send a list of one or more rows: {"rows": [[1.5, 0, ...], ...]}'),
    (
        {"row": [[1]]},
        'a prediction holds one of "rows" or "columns"; this one has an unexpected key "row"',
    ),
    (
        {"columns": {"a": [1]}},
        "the model was trained without column names, so it reads rows, not columns: send "
        '{"rows": [[1.5, 0, ...], ...]}',
    ),
    (
        [1, 2],
        'the body is JSON list; send a prediction as a JSON object: {"rows": [[1.5, 0, ...], ...]}',
    ),
]


@pytest.mark.parametrize("body, message", BAD_ROWS, ids=range(len(BAD_ROWS)))
def test_bad_rows_are_refused_with_the_row_and_column_named(service, body, message):
    status, answer, headers = post(service.url, "/predict", body)
    assert (status, answer) == (400, {"error": message})
    assert headers["content-type"] == "application/json"


@pytest.mark.parametrize(
    "body, start",
    [
        (b"{", "bad request: the body is not JSON: Expecting property name"),
        (b'{"rows": [[NaN]]}', "bad request: NaN is not a JSON number; send finite numbers only."),
        (b'{"rows": [[1e400]]}', "bad request: the number 1e400 is beyond the float range"),
        (b"[" * 100 + b"]" * 100, "bad request: the JSON is nested 100 deep; at most 32 levels"),
        (b"", 'the request has no body; send a prediction as JSON: {"rows": [[1.5, 0, ...], ...]}'),
    ],
)
def test_bodies_that_are_not_json_the_service_reads_are_refused(service, body, start):
    status, answer, _ = post(service.url, "/predict", body)
    assert status == 400 and answer["error"].startswith(start), answer


def test_a_data_format_body_names_the_line_and_column(service):
    body = b"0" + b",0" * (N_FEATURES - 1) + b"\n1" + b",x" * (N_FEATURES - 1) + b"\n"
    status, answer, _ = post(service.url, "/predict", body, "text/csv")
    assert (status, answer) == (
        400,
        {"error": "request body, line 2, column 2: 'x' is not a number"},
    )


def test_a_refused_learn_request_leaves_the_model_as_it_was(service, model_path, tmp_path):
    before = model_bytes(service.served.snapshot.model, metadata={})
    X = rows(2)
    status, unknown, _ = post(service.url, "/learn", {"rows": X.tolist(), "labels": ["no", None]})
    huge = np.full((1, N_FEATURES), 1e308)
    overflow_status, overflow, _ = post(
        service.url, "/learn", {"rows": (huge).tolist() * 3, "labels": ["yes", "no", "yes"]}
    )
    status_labels, count, _ = post(service.url, "/learn", {"rows": X.tolist(), "labels": ["no"]})
    assert status == 400 and unknown["error"].startswith("labels[1] is null; a label is a JSON")
    assert overflow_status == 400 and overflow["error"].startswith("training overflowed:")
    assert (status_labels, count) == (
        400,
        {"error": '"labels" holds 1 labels for 2 rows; send one label a row'},
    )
    assert service.served.snapshot.version == 0
    assert model_bytes(service.served.snapshot.model, metadata={}) == before
    _, health, _ = get(service.url, "/health")
    assert health["version"] == 0
    assert not (tmp_path / "m.rbl.log").exists()  # nothing learnt, nothing logged


def test_a_body_over_the_bound_gets_413(service, monkeypatch):
    monkeypatch.setattr(config, "SERVE_MAX_BODY_BYTES", 1000)
    status, answer, _ = post(service.url, "/predict", b" " * 2000)
    assert status == 413
    assert answer == {
        "error": "the body holds 2000 bytes, more than the 1000 a request may hold; send the "
        "rows in smaller requests"
    }


def test_a_full_queue_and_too_many_requests_get_503_with_retry_after(model_path, monkeypatch):
    monkeypatch.setattr(config, "SERVE_LEARN_QUEUE", 0)
    with rosenblatt.serve(model_path, port=0, block=False) as service:
        status, answer, headers = post(
            service.url, "/learn", {"rows": rows(1).tolist(), "labels": ["no"]}
        )
    assert (status, headers["retry-after"]) == (503, "1")
    assert answer == {
        "error": "the service is busy: 0 learn or save requests wait for the writer; try "
        "again in 1 s"
    }
    monkeypatch.setattr(config, "SERVE_MAX_REQUESTS", 0)
    with rosenblatt.serve(model_path, port=0, block=False) as service:
        status, answer, headers = post(service.url, "/predict", {"rows": rows(1).tolist()})
    assert (status, headers["retry-after"]) == (503, "1")
    assert answer == {"error": "the service is busy: 0 requests are being served; try again in 1 s"}


def test_what_is_no_endpoint_gets_json_too(service):
    assert get(service.url, "/nowhere")[:2] == (
        404,
        {
            "error": "no endpoint at /nowhere; the service answers POST /predict, POST /learn, "
            "POST /save, GET /health, GET /metrics"
        },
    )
    status, answer, _ = get(service.url, "/predict")
    assert status == 405 and answer["error"].startswith("GET /predict is not an endpoint")


def test_save_writes_model_files_only(service, tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("keep me")
    status, answer, _ = post(service.url, "/save", {"path": str(other)})
    assert (status, other.read_text()) == (400, "keep me")
    assert (
        answer["error"]
        == f"{other} exists and is not a rosenblatt model file; /save writes model files only, "
        "over another model file or as a new file: give another path"
    )
    status, answer, _ = post(service.url, "/save", {"where": "x"})
    assert (status, answer) == (
        400,
        {"error": 'a save request is empty (save the served file) or {"path": "model.rbl"}'},
    )


def test_a_model_that_does_not_learn_online_refuses_learn_requests(tmp_path):
    X = rows(30)
    path = tmp_path / "c.rbl"
    rosenblatt.save(rosenblatt.CentroidClassifier().fit(X, X[:, 0] > 0), path)
    with rosenblatt.serve(path, port=0, block=False) as service:
        assert post(service.url, "/predict", {"rows": X[:2].tolist()})[0] == 200
        status, answer, _ = post(service.url, "/learn", {"rows": X[:1].tolist(), "labels": [True]})
    assert status == 400 and answer["error"].startswith(
        "this model (CentroidClassifier) does not learn online"
    )


def test_a_model_object_is_served_from_memory_without_a_log(tmp_path):
    X = rows(40)
    model = rosenblatt.Perceptron(random_state=0).fit(X, X[:, 0] > 0)
    with pytest.raises(ValueError, match="a learning log continues a model file"):
        rosenblatt.serve(model, log=tmp_path / "l.log", port=0, block=False)
    with rosenblatt.serve(model, port=0, block=False) as service:
        assert post(service.url, "/learn", {"rows": X[:1].tolist(), "labels": [True]})[1] == {
            "learned": 1,
            "version": 1,
        }
        status, answer, _ = post(service.url, "/save")
        assert (status, answer) == (
            400,
            {"error": 'this service serves a model object, not a file; send {"path": "model.rbl"}'},
        )
        assert post(service.url, "/save", {"path": str(tmp_path / "mem.rbl")})[0] == 200
    assert load(tmp_path / "mem.rbl").n_iter_ == model.n_iter_ + 1  # the original is untouched
    assert service.served.snapshot.version == 1


# ---------------------------------------------------------------------- the command line
def test_the_command_says_in_one_line_what_stops_it(tmp_path, model_path, monkeypatch):
    from conftest import assert_one_line_error, run_cli

    result = run_cli("serve", "-m", tmp_path / "none.rbl", "--port", 0)
    assert_one_line_error(result, "no such model file", "none.rbl")
    damaged = tmp_path / "m.rbl.log"
    damaged.write_bytes(b"not a log")
    result = run_cli("serve", "-m", model_path, "--port", 0)
    assert_one_line_error(result, "m.rbl.log: not a learning log of rosenblatt serve")
    damaged.unlink()
    with rosenblatt.serve(model_path, port=0, block=False) as service:
        port = service.url.rsplit(":", 1)[1]
        result = run_cli("serve", "-m", model_path, "--port", port, "--log", tmp_path / "b.log")
        assert_one_line_error(result, f"cannot listen on 127.0.0.1:{port}", "choose another port")
    monkeypatch.setitem(__import__("sys").modules, "uvicorn", None)  # the extra is missing
    result = run_cli("serve", "-m", model_path)
    assert_one_line_error(
        result, "serving a model needs uvicorn and starlette: pip install 'rosenblatt[serve]'"
    )


# ---------------------------------------------------------------------- README's curl lines
README = Path(__file__).parents[1] / "README.md"
SECTION = "## Serving a model that keeps learning\n"


def readme_curls():
    """Each ``curl`` line of README's section on the service, with the answer shown under it
    (``# {...}``; None where none is)."""
    section = README.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0]
    found = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            if "curl " in line:
                after = lines[i + 1] if i + 1 < len(lines) else ""
                found.append((line, after[2:] if after.startswith("# {") else None))
    return section, found


def as_request(line):
    """``(method, path, body, headers)`` of a README curl line, read as curl reads it (a
    ``printf ... |`` before it gives standard input, ``@-``); no curl needed to run it."""
    stdin = None
    if "|" in line.split("curl", 1)[0]:
        printf, line = line.split("|", 1)
        stdin = shlex.split(printf)[1].encode().decode("unicode_escape").encode()
    words = shlex.split(line, comments=True)
    assert words[0] == "curl", line
    method, body, headers, path = None, None, {}, None
    i = 1
    while i < len(words):
        word = words[i]
        if word == "-s":
            pass
        elif word in ("-d", "--data-binary"):
            i += 1
            body = stdin if words[i] == "@-" else words[i].encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")  # curl's
        elif word == "-H":
            i += 1
            name, value = words[i].split(":", 1)
            headers[name] = value.strip()
        elif word == "-X":
            i += 1
            method = words[i]
        else:
            assert path is None and word.startswith("localhost:8765/"), line
            path = word.removeprefix("localhost:8765")
        i += 1
    return method or ("POST" if body is not None else "GET"), path, body, headers


def test_the_readme_curl_lines_get_the_answers_it_shows(tmp_path, monkeypatch):
    import urllib.error
    import urllib.request

    from conftest import run_cli

    section, curls = readme_curls()
    assert len(curls) >= 8 and sum(shown is not None for _, shown in curls) >= 7
    monkeypatch.chdir(tmp_path)
    (tmp_path / "or.csv").write_text("x1,x2,label\n-1,-1,-1\n1,-1,1\n-1,1,1\n1,1,1\n")
    train = re.search(r"^rosenblatt (train .*?)\s+#", section, re.M)[1]
    assert run_cli(*shlex.split(train)).exit_code == 0
    shown_run = re.search(r'"ids":\["([0-9a-f]{8})-', section)[1]
    with rosenblatt.serve("or.rbl", port=0, block=False) as service:
        run = None  # the ids' first part of this start, from its first answer
        for line, shown in curls:
            method, path, body, headers = as_request(line)
            if run is not None and body is not None:
                body = body.replace(shown_run.encode(), run.encode())
            request = urllib.request.Request(
                service.url + path, data=body, method=method, headers=headers
            )
            try:
                with urllib.request.urlopen(request) as answer:
                    status, text = answer.status, answer.read().decode()
            except urllib.error.HTTPError as error:
                status, text = error.code, error.read().decode()
            if run is None and '"ids":["' in text:
                run = re.search(r'"ids":\["([0-9a-f]{8})-', text)[1]
            assert status == (400 if '"error"' in (shown or "") else 200), (line, text)
            if shown is None:
                continue
            text = text.replace(run or shown_run, shown_run)
            if shown.endswith(",...}"):
                assert text.startswith(shown.removesuffix("...}")), (line, text)
            else:
                assert json.loads(text) == json.loads(shown), (line, text)


# ---------------------------------------------------------------------- classes that appear
def test_a_label_never_seen_adds_a_class_that_predictions_show_at_once(tmp_path):
    """A learn request with a new label grows the model; the next snapshot holds it whole
    (classes, scores, version); the saved file and a restart from the log are the serial
    replay's, to the byte."""
    path = tmp_path / "m.rbl"
    dense_model(path, metadata={"classes": ["no", "yes"]})
    X = rows(6)
    labels = ["no", "maybe", "yes", "maybe", "no", "yes"]
    before = tmp_path / "before.rbl"
    before.write_bytes(path.read_bytes())
    service = rosenblatt.serve(path, port=0, block=False)
    try:
        status, learnt, _ = post(service.url, "/learn", {"rows": X.tolist(), "labels": labels})
        assert (status, learnt) == (200, {"learned": 6, "version": 1})
        _, answer, _ = post(service.url, "/predict", {"rows": X.tolist()})
    finally:
        service.stop()
    model = load(path)  # saved at the stop
    assert answer["classes"] == ["maybe", "no", "yes"] == model.classes_.tolist()
    assert answer["version"] == 1 and np.shape(answer["scores"]) == (6, 3)
    assert answer["labels"] == model.predict(X).tolist()
    replayed = replayed_bytes(before, [(X, np.array(labels))], metadata={})
    assert read_manifest(path)["metadata"]["classes"] == ["maybe", "no", "yes"]
    assert model_bytes(model, metadata={}) == replayed


def test_a_model_whose_classes_were_given_refuses_a_new_label(tmp_path):
    path = tmp_path / "m.rbl"
    X = rows(20)
    model = rosenblatt.Perceptron().partial_fit(
        X, np.where(X[:, 0] > 0, "yes", "no"), classes=["no", "yes"]
    )
    rosenblatt.save(model, path)
    service = rosenblatt.serve(path, port=0, block=False)
    try:
        status, answer, _ = post(
            service.url, "/learn", {"rows": X[:2].tolist(), "labels": ["no", "maybe"]}
        )
    finally:
        service.stop()
    assert status == 400 and answer["error"].startswith(
        "y contains labels ['maybe'] that are not among the classes ['no', 'yes'] (classes_), fixed"
    )


def test_predictions_never_see_a_half_grown_model(service, model_path):
    """Predictions and learn requests at once, each learn bringing a class: every answer is
    of one snapshot, its classes, scores and version agreeing."""
    import threading

    answers, stop = [], threading.Event()

    def predict():
        while not stop.is_set():
            answers.append(post(service.url, "/predict", {"rows": rows(3).tolist()})[1])

    readers = [threading.Thread(target=predict) for _ in range(3)]
    for reader in readers:
        reader.start()
    try:
        for k in range(6):
            labels = ["no", "yes", f"class {k}"]
            assert (
                post(service.url, "/learn", {"rows": rows(3, k).tolist(), "labels": labels})[0]
                == 200
            )
    finally:
        stop.set()
        for reader in readers:
            reader.join()
    assert len(answers) > 6
    for answer in answers:
        n_classes = len(answer["classes"])
        assert n_classes == 2 + answer["version"]
        width = 1 if n_classes == 2 else n_classes
        assert np.shape(answer["scores"]) in ((3,), (3, width)) and (width == 1) == (
            np.ndim(answer["scores"]) == 1
        )
