"""The command line as a Unix citizen: results on standard output, everything else on
standard error; a closed pipe ends a command quietly; outputs are checked before any data
are read; and messages name options on the command line, parameters in Python."""

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import assert_one_line_error as one_line_error
from conftest import run_cli
from typer.testing import CliRunner

from rosenblatt import Perceptron
from rosenblatt.apps.cli import app
from rosenblatt.data.io import read_data
from rosenblatt.exceptions import DataFileError

XOR = "x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,no\n"
OR = "x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,yes\n"
NUMERIC_HEADER = "1,2,label\n-1,-1,0\n1,-1,1\n-1,1,1\n1,1,1\n"  # a header that looks like data


def assert_one_line_error(result, *fragments):
    """conftest's one-line error, and nothing at all on standard output."""
    one_line_error(result, *fragments)
    assert result.stdout == ""


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("xor.csv", XOR), ("or.csv", OR), ("numeric.csv", NUMERIC_HEADER)):
        paths[name] = tmp_path / name
        paths[name].write_text(text, encoding="utf-8")
    return paths


@pytest.fixture
def iris_csv(tmp_path):
    """Iris with its plain header of names (sepal length (cm), ...)."""
    from sklearn.datasets import load_iris

    path = tmp_path / "iris.csv"
    load_iris(as_frame=True).frame.to_csv(path, index=False)
    return path


# ---------------------------------------------------------------------- 1. channels
def test_train_writes_nothing_on_standard_output(files, tmp_path):
    result = run_cli("train", files["xor.csv"], "-m", tmp_path / "m.rbl", "--max-iter", 3)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    err = " ".join(result.stderr.split())
    assert "3/3 epochs" in err and "Trained Perceptron" in err  # the bar, the table
    assert "note: Perceptron did not converge" in err  # the warning, as a note


def test_train_json_prints_one_object_on_standard_output(files, tmp_path):
    model = tmp_path / "m.rbl"
    result = run_cli("train", files["or.csv"], "-m", model, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)  # the whole of standard output: one object
    assert summary["model_path"] == str(model) and summary["estimator"] == "Perceptron"
    assert summary["n_samples"] == 4 and summary["classes"] == ["no", "yes"]
    assert summary["converged"] is True and summary["train_accuracy"] == 1.0
    assert summary["epochs"] == len(summary["mistakes_per_epoch"]) and summary["notes"] == []
    assert "Trained Perceptron" not in result.stderr  # the JSON stands for the table
    assert "epochs" in result.stderr  # the progress still shows
    quiet = run_cli("train", files["or.csv"], "-m", model, "--json", "-q")
    assert quiet.stderr == "" and json.loads(quiet.stdout)["train_accuracy"] == 1.0


def test_train_as_a_real_process_keeps_its_channels_apart(iris_csv, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "rosenblatt", "train", str(iris_csv), "-m", str(tmp_path / "m")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and "Trained Perceptron" in done.stderr and "epochs" in done.stderr


def test_notes_go_to_standard_error_and_results_to_standard_output(files, tmp_path):
    inspected = run_cli("inspect", files["numeric.csv"])
    assert inspected.exit_code == 0, inspected.output
    assert "note: line 1 read as a header" in " ".join(inspected.stderr.split())
    assert "read as a header" not in inspected.stdout and "separable" in inspected.stdout
    png = tmp_path / "b.png"
    plotted = run_cli("plot", files["or.csv"], "-o", png)
    assert (
        plotted.exit_code == 0 and plotted.stdout == "" and "wrote the boundary" in plotted.stderr
    )
    traced = run_cli("trace", files["or.csv"])
    assert "YES" in traced.stdout or "NO" in traced.stdout


def test_cross_validate_counts_folds_on_standard_error(files):
    data = files["or.csv"].parent / "blobs.csv"
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(15, 2) - 2, rng.randn(15, 2) + 2])
    np.savetxt(data, np.column_stack([X, np.repeat([0, 1], 15)]), delimiter=",", fmt="%g")
    result = run_cli("cross-validate", data, "--folds", 3, "-a", "centroid", "-a", "averaged")
    assert result.exit_code == 0, result.output
    counters = [line.split() for line in result.stderr.splitlines()]
    assert [(c[0], c[-3], c[-2]) for c in counters] == [
        ("centroid", "3/3", "folds"),
        ("averaged", "3/3", "folds"),
    ]
    assert "test accuracy over 3 folds" in result.stdout and "folds 0:" not in result.stdout


def test_cross_validate_n_jobs_gives_the_same_scores(tmp_path):
    from sklearn.datasets import load_iris

    from rosenblatt.apps.cli.crossval import cross_validate

    X, y = load_iris(return_X_y=True)
    path = tmp_path / "iris.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt="%g")
    seen = []
    options = {"algorithms": ("centroid", "averaged"), "folds": 3, "seed": 1}
    serial = cross_validate(str(path), on_fold=lambda *a: seen.append(a), **options)
    parallel = cross_validate(str(path), n_jobs=2, **options)
    assert [r.accuracy for r in parallel] == [r.accuracy for r in serial]
    assert seen == [
        ("centroid", 0, 3),
        ("averaged", 0, 3),
        *[("centroid", k, 3) for k in (1, 2, 3)],
        *[("averaged", k, 3) for k in (1, 2, 3)],
    ]


def test_cross_validate_json_is_the_results_alone_on_standard_output(tmp_path):
    from sklearn.datasets import load_iris

    from rosenblatt.apps.cli.crossval import cross_validate

    X, y = load_iris(return_X_y=True)
    path = tmp_path / "iris.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt="%g")
    result = run_cli("cross-validate", path, "--folds", 3, "-a", "centroid", "-a", "averaged",
                     "--seed", 1, "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)  # the whole of standard output: one object
    expected = cross_validate(path, algorithms=("centroid", "averaged"), folds=3, seed=1)
    assert payload["folds"] == 3 and len(payload["results"]) == 2
    for got, want in zip(payload["results"], expected):
        assert got["algorithm"] == want.algorithm and got["accuracy"] == want.accuracy
        assert got["mean"] == want.mean and got["std"] == want.std
        assert (got["min"], got["max"]) == (min(want.accuracy), max(want.accuracy))
        assert got["converged_folds"] == want.converged_folds and got["seconds"] > 0
    assert payload["results"][0]["converged_folds"] is None  # the centroid has no epochs
    assert isinstance(payload["results"][1]["converged_folds"], int)
    assert "test accuracy" not in result.stdout + result.stderr  # no table
    assert "3/3 folds" in result.stderr  # the counters stay on standard error


def _model_of_classes(tmp_path, labels):
    """A model trained on two separable classes named ``labels``."""
    data = tmp_path / "two.csv"
    rows = [f"{x},{labels[int(x > 0)]}" for x in (-3, -2, -1, 1, 2, 3)]
    data.write_text("x,label\n" + "\n".join(rows) + "\n")
    model = tmp_path / "two.rbl"
    assert run_cli("train", data, "-m", model, "-q").exit_code == 0
    return model


def test_evaluate_counts_labels_the_model_never_saw(tmp_path):
    """Issue 42: a label the model never saw (7) gave accuracy 0 and nothing said."""
    model = _model_of_classes(tmp_path, [0, 1])
    test = tmp_path / "test.csv"
    test.write_text("x,label\n-2,0\n2,1\n-1,7\n1,7\n3,7\n")
    result = run_cli("evaluate", test, "-m", model, "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["unseen_labels"] == {"rows": 3, "labels": [7]}
    assert payload["accuracy"] == 0.4 and payload["labels"] == [0, 1, 7]
    assert result.stderr == (
        "warning: 3 of 5 samples carry a label the model never saw (7); it predicts only its "
        "classes (0, 1), so each of them counts as a mistake\n"
    )
    table = run_cli("evaluate", test, "-m", model)
    assert table.stderr == result.stderr and "accuracy" in table.stdout
    assert "never saw" not in table.stdout
    all_unseen = tmp_path / "seven.csv"
    all_unseen.write_text("x,label\n-1,7\n1,7\n")
    payload = json.loads(run_cli("evaluate", all_unseen, "-m", model, "--json").stdout)
    assert payload["accuracy"] == 0.0 and payload["unseen_labels"] == {"rows": 2, "labels": [7]}
    seen = tmp_path / "seen.csv"
    seen.write_text("x,label\n-1,0\n1,1\n")
    quiet = run_cli("evaluate", seen, "-m", model, "--json")
    assert quiet.stderr == "" and json.loads(quiet.stdout)["unseen_labels"] == {
        "rows": 0,
        "labels": [],
    }


def test_unseen_text_labels_are_counted_block_by_block_and_listed_briefly(tmp_path):
    model = _model_of_classes(tmp_path, ["down", "up"])
    test = tmp_path / "many.csv"
    rows = ["-1,down", "1,up"] + [f"{k % 3},new{k:02d}" for k in range(12)] + ["2,new00"]
    test.write_text("x,label\n" + "\n".join(rows) + "\n")
    result = run_cli("evaluate", test, "-m", model, "--json", "--chunk-size", 4)
    assert result.exit_code == 0, result.output
    labels = [f"new{k:02d}" for k in range(12)]
    assert json.loads(result.stdout)["unseen_labels"] == {"rows": 13, "labels": labels}
    assert result.stderr == (
        "warning: 13 of 15 samples carry a label the model never saw (new00, new01, new02, "
        "new03, new04, new05, new06, new07, new08, new09, ... 12 in all); it predicts only its "
        "classes (down, up), so each of them counts as a mistake\n"
    )


# ---------------------------------------------------------------------- 2. broken pipes
@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A model and a file whose labels (200 kB) overflow a pipe's buffer (64 kB)."""
    folder = tmp_path_factory.mktemp("big")
    rng = np.random.RandomState(0)
    X = rng.randn(100_000, 2)
    data = folder / "big.csv"
    np.savetxt(data, np.column_stack([X, X[:, 0] > 0]), delimiter=",", fmt=["%.2f"] * 2 + ["%d"])
    model = folder / "m.rbl"
    assert run_cli("train", data, "-m", model, "-q", "--max-iter", 2).exit_code == 0
    return {"data": data, "model": model}


def test_a_closed_pipe_ends_a_command_quietly(big):
    """`rosenblatt predict ... | head -3` exited 1 in half the runs, with nothing said."""
    line = f"{sys.executable} -m rosenblatt predict -m {big['model']} {big['data']}"
    for _ in range(3):  # where the pipe closes varies from run to run
        done = subprocess.run(
            ["bash", "-c", f"set -o pipefail; {line} | head -3"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert (done.returncode, done.stderr) == (0, ""), done
        assert len(done.stdout.splitlines()) == 3


def test_a_closed_pipe_is_caught_by_the_group(files, monkeypatch):
    """In-process: a closed pipe met by `print` or by rich's console (which would exit
    with status 1 on its own) is status 0 and no message."""
    from rosenblatt.apps.cli._common import _Console

    class ClosedPipe:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

    monkeypatch.setattr("rosenblatt.apps.cli.tracing.console", _Console(file=ClosedPipe()))
    result = run_cli("trace", files["or.csv"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")

    def closed(*args, **kwargs):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr("rosenblatt.apps.cli.tracing.trace_data", closed)
    result = run_cli("trace", files["or.csv"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


# ---------------------------------------------------------------------- 3. outputs first
@pytest.fixture
def nothing_read(monkeypatch):
    """Make reading data a test failure: an output check must come before it."""

    def refuse(*args, **kwargs):
        raise AssertionError("the data were read before the output was checked")

    monkeypatch.setattr("rosenblatt.data.io.read_data", refuse)
    monkeypatch.setattr("rosenblatt.apps.cli._train_stream.train_stream", refuse)
    monkeypatch.setattr("rosenblatt.apps.demo.run_demo", refuse)


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_train_checks_the_model_path_before_reading(files, tmp_path, nothing_read, stream):
    missing = tmp_path / "no" / "such" / "m.rbl"
    assert_one_line_error(
        run_cli("train", files["or.csv"], "-m", missing, *stream),
        f"{missing}: cannot write there: no folder {missing.parent}; create it first",
    )
    folder = tmp_path / "a-folder"
    folder.mkdir()
    assert_one_line_error(
        run_cli("train", files["or.csv"], "-m", folder, *stream),
        f"{folder}: a folder has that name; give a file name",
    )
    assert not missing.parent.exists() and os.listdir(folder) == []


def test_plot_and_demo_check_their_outputs_before_reading(files, tmp_path, nothing_read):
    missing = tmp_path / "none" / "b.png"
    assert_one_line_error(
        run_cli("plot", files["or.csv"], "-o", missing), str(missing), "no folder"
    )
    a_file = tmp_path / "report"
    a_file.write_text("not a folder")
    assert_one_line_error(
        run_cli("demo", "-o", a_file / "inside"), f"{a_file} is not a folder; give another path"
    )
    assert not missing.parent.exists() and a_file.read_text() == "not a folder"


def test_train_refuses_a_read_only_folder_before_reading(
    files, tmp_path, nothing_read, monkeypatch
):
    """A folder the system says this user cannot write into (asked of ``os.access``, as the
    check does, so the test holds for a superuser too, whom a chmod would not stop)."""
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(
        "rosenblatt._core.files.os.access",
        lambda path, mode: False if os.fspath(path) == str(locked) else real_access(path, mode),
    )
    assert_one_line_error(
        run_cli("train", files["or.csv"], "-m", locked / "m.rbl"), "is not writable"
    )
    assert list(locked.iterdir()) == []


def test_check_writable_says_why_and_creates_nothing(tmp_path, monkeypatch):
    from rosenblatt._core.files import check_writable

    check_writable(tmp_path / "new.rbl")
    check_writable(tmp_path / "a" / "b", folder=True)
    assert os.listdir(tmp_path) == []
    monkeypatch.setattr("rosenblatt._core.files.os.access", lambda path, mode: False)
    with pytest.raises(PermissionError, match="is not writable; give a path in a folder"):
        check_writable(tmp_path / "new.rbl")


# ---------------------------------------------------------------------- 4. smaller ones
def test_version_is_a_flag_with_a_short_name():
    from importlib.metadata import version

    for flag in ("--version", "-V"):
        result = run_cli(flag)
        assert result.exit_code == 0 and result.stdout == f"rosenblatt {version('rosenblatt')}\n"
    help_text = CliRunner().invoke(app, ["-h"], env={"COLUMNS": "120"}).stdout
    row = next(line for line in help_text.splitlines() if "--version" in line)
    assert "-V" in row and "<bool>" not in help_text


def test_stream_counts_the_rows_without_the_header(iris_csv, tmp_path):
    result = run_cli("train", "--stream", iris_csv, "-m", tmp_path / "s.rbl")
    assert result.exit_code == 0, result.output
    parsing = next(line for line in result.stderr.splitlines() if line.startswith("parsing"))
    assert "150 rows" in parsing and "151" not in parsing


def test_the_header_note_only_when_the_header_could_be_data(iris_csv, files, tmp_path):
    assert read_data(iris_csv).notes == []  # names: no doubt, no note
    assert "read as a header" in read_data(files["numeric.csv"]).notes[0]  # 1,2,label
    result = run_cli("train", iris_csv, "-m", tmp_path / "m.rbl", "--max-iter", 2)
    assert result.exit_code == 0 and "read as a header" not in result.stderr


def test_messages_name_options_on_the_command_line_and_parameters_in_python(files, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("1.5,,0\n1,2,1\n")
    cli = " ".join(run_cli("inspect", bad).stderr.split())
    assert "pass --header" in cli and "header=True" not in cli
    with pytest.raises(DataFileError) as python:
        read_data(bad)
    assert "pass header=True" in str(python.value) and "--header" not in str(python.value)

    trained = " ".join(
        run_cli("train", files["xor.csv"], "-m", tmp_path / "m", "--max-iter", 2).stderr.split()
    )
    assert "the last of --max-iter=2 epochs" in trained and "raise --max-iter," in trained
    assert "max_iter" not in trained and "use --algorithm averaged" in trained
    X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Perceptron(max_iter=2, shuffle=False).fit(X, [0, 1, 1, 0])
    (message,) = [str(w.message) for w in caught if "did not converge" in str(w.message)]
    assert "max_iter=2" in message and "use AveragedPerceptron" in message and "--" not in message
    # the command line's words are its own: the library's stay Python's after a command
    with pytest.raises(DataFileError) as again:
        read_data(bad)
    assert str(again.value) == str(python.value)
