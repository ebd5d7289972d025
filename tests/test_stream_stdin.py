"""Training from a pipe (issue 44): ``fit_stream(..., "-")`` and ``train --stream -``.

Standard input is read once, in chunks, training as it is read; one epoch by default, more
through a cache of its rows. The same data from a file gives the same model, byte for byte,
wherever the file's first epoch reads its chunks in file order (one chunk, or
``shuffle=False``) and its first chunk holds every class; how the pipe delivers the bytes
never changes the model; memory stays that of a chunk.
"""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import assert_one_line_error, run_cli

from rosenblatt import AveragedPerceptron, Perceptron, calibrated, fit_stream, load
from rosenblatt.data.streaming import InputChunks
from rosenblatt.persistence import model_bytes


def _csv(n=300, n_classes=3, seed=0, header=True):
    """CSV text of ``n`` rows of 4 features and a label, and its rows and labels."""
    rng = np.random.RandomState(seed)
    y = rng.randint(n_classes, size=n)
    X = (rng.randn(n, 4) + 1.5 * np.eye(n_classes, 4)[y]).round(3)
    lines = ["a,b,c,d,label"] if header else []
    lines += [",".join([*map(str, row), str(label)]) for row, label in zip(X, y)]
    return ("\n".join(lines) + "\n").encode(), X, y


def _svm(n=200, seed=1):
    rng = np.random.RandomState(seed)
    lines = []
    for _ in range(n):
        columns = np.sort(rng.choice(np.arange(1, 9), size=3, replace=False))
        label = int(columns[0] < 4)
        lines.append(" ".join([str(label)] + [f"{j}:{rng.randint(1, 9) / 4}" for j in columns]))
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def stdin(monkeypatch):
    """``feed(data)``: standard input holds ``data`` (bytes) from then on."""

    def feed(data):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    return feed


def _bytes(model):
    return model_bytes(model, metadata={})


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning: no matter here
        return function(*args, **kwargs)


# ---------------------------------------------------------------------- the same model
@pytest.mark.parametrize("epochs", [1, 3])
@pytest.mark.parametrize(
    "make, chunk_size",
    [
        (lambda: AveragedPerceptron(random_state=4), 1000),  # one chunk: shuffled alike
        (lambda: Perceptron(shuffle=False, multi_class="multinomial"), 64),
        (lambda: calibrated(Perceptron(shuffle=False), method="online"), 64),
    ],
)
def test_standard_input_trains_the_models_a_file_does(stdin, tmp_path, make, chunk_size, epochs):
    data, _, y = _csv()
    path = tmp_path / "d.csv"
    path.write_bytes(data)
    stdin(data)
    piped = _quiet(fit_stream, make(), "-", format="csv", epochs=epochs, chunk_size=chunk_size)
    filed = _quiet(fit_stream, make(), path, epochs=epochs, chunk_size=chunk_size)
    assert _bytes(piped) == _bytes(filed)
    assert piped.n_iter_ == epochs and piped.classes_.tolist() == [0, 1, 2]


@pytest.mark.parametrize("epochs", [1, 2])
def test_svmlight_and_text_from_standard_input(stdin, tmp_path, epochs):
    svm = _svm()
    (tmp_path / "d.svm").write_bytes(svm)
    stdin(svm)
    kw = {"epochs": epochs, "chunk_size": 50, "zero_based": False, "n_features": 8}
    piped = fit_stream(Perceptron(shuffle=False), "-", format="svmlight", **kw)
    assert _bytes(piped) == _bytes(fit_stream(Perceptron(shuffle=False), tmp_path / "d.svm", **kw))
    text = b"ham\tsee you at noon\nspam\twin a free prize\nham\tlunch?\nspam\tfree cash now\n"
    (tmp_path / "d.tsv").write_bytes(text * 10)
    stdin(text * 10)
    kw = {"epochs": epochs, "chunk_size": 8, "n_features": 2**10}
    piped = fit_stream(Perceptron(shuffle=False), "-", format="tsv", **kw)
    filed = fit_stream(Perceptron(shuffle=False), tmp_path / "d.tsv", **kw)
    assert _bytes(piped) == _bytes(filed) and piped.predict(["free prize"]).tolist() == ["spam"]


def test_how_the_pipe_delivers_never_changes_the_model(stdin):
    """Blocks of 1, 7 or 1000 lines (a pipe that pauses cuts them so): the same chunks,
    the same model, classes appearing mid-stream and rows shuffled in each chunk."""
    data, _, y = _csv(400, n_classes=4)
    order = np.argsort(y == 3, kind="stable")  # class 3 comes last, in the fourth chunk
    lines = data.splitlines(keepends=True)
    data = b"".join([lines[0]] + [lines[1 + k] for k in order])
    models = []
    for block_lines in (1, 7, 1000):
        stdin(data)
        chunks = InputChunks("csv", 90, block_lines=block_lines)
        model = _quiet(fit_stream, Perceptron(random_state=2), "-", index=chunks)
        assert chunks.schema.n_rows.tolist() == [90, 90, 90, 90, 40]
        models.append(_bytes(model))
    assert models[0] == models[1] == models[2]
    assert model.classes_.tolist() == [0, 1, 2, 3]


def test_any_chunk_size_gives_the_same_model_in_file_order(stdin):
    """Rows presented in their order (shuffle=False), every class in the first chunk:
    the chunks' size changes nothing."""
    data, _, _ = _csv(300)
    models = set()
    for chunk_size in (17, 64, 300, 5000):
        stdin(data)
        models.add(
            _bytes(
                _quiet(
                    fit_stream,
                    AveragedPerceptron(shuffle=False),
                    "-",
                    format="csv",
                    epochs=2,
                    chunk_size=chunk_size,
                )
            )
        )
    assert len(models) == 1


def test_classes_that_appear_in_later_chunks_join_there(stdin):
    """A stream's first epoch is the ``partial_fit`` calls of its chunks (the same order
    source): class 2 joins with the chunk it first appears in."""
    data, X, y = _csv(240)
    first = np.flatnonzero(y == 2)[0]
    keep = (y != 2) | (np.arange(240) >= 130)  # no 2 before row 130: the third chunk
    lines = data.splitlines(keepends=True)
    stdin(b"".join([lines[0]] + [lines[1 + k] for k in np.flatnonzero(keep)]))
    assert first < 130
    X, y = X[keep], y[keep]
    streamed = _quiet(fit_stream, Perceptron(random_state=5), "-", format="csv", chunk_size=60)
    calls = Perceptron(random_state=5)
    for start in range(0, len(y), 60):
        calls.partial_fit(X[start : start + 60], y[start : start + 60])
    np.testing.assert_array_equal(streamed.coef_, calls.coef_)
    np.testing.assert_array_equal(streamed.intercept_, calls.intercept_)
    assert streamed.training_state_.counts.tolist() == calls.training_state_.counts.tolist()


# ---------------------------------------------------------------------- the command line
def test_the_command_line_trains_from_a_pipe_as_from_the_file(tmp_path):
    data, _, _ = _csv()
    (tmp_path / "d.csv").write_bytes(data)
    for epochs in ([], ["--max-iter", "3"]):
        piped = run_cli(
            "train",
            "--stream",
            "-",
            "-m",
            tmp_path / "p.rbl",
            "--format",
            "csv",
            "-q",
            *epochs,
            input=data,
        )
        assert piped.exit_code == 0, piped.output
        filed = run_cli(
            "train",
            "--stream",
            tmp_path / "d.csv",
            "-m",
            tmp_path / "f.rbl",
            "-q",
            *(epochs or ["--max-iter", "1"]),
        )
        assert filed.exit_code == 0, filed.output
        assert _bytes(load(tmp_path / "p.rbl")) == _bytes(load(tmp_path / "f.rbl"))
    assert load(tmp_path / "p.rbl").n_iter_ == 3
    assert [p.name for p in tmp_path.iterdir() if "stdin" in p.name] == []  # the cache: gone


def _piped(tmp_path, data, *args):
    """``rosenblatt train --stream - -m tmp_path/m.rbl -f csv ARGS`` reading ``data``."""
    return run_cli(
        "train", "--stream", "-", "-m", tmp_path / "m.rbl", "-f", "csv", *args, input=data
    )


def test_the_summary_of_a_pipe(tmp_path):
    import json

    data, _, _ = _csv()
    once = _piped(tmp_path, data, "--json")
    summary = json.loads(once.stdout)
    assert summary["epochs"] == 1 and summary["n_samples"] == 300
    assert summary["train_accuracy"] is None  # read once: its rows are gone
    assert "standard input was read once, without a cache" in " ".join(once.stderr.split())
    thrice = _piped(tmp_path, data, "--json", "--max-iter", "3")
    assert 0.5 < json.loads(thrice.stdout)["train_accuracy"] <= 1.0
    from rosenblatt.persistence import read_manifest

    kept = read_manifest(tmp_path / "m.rbl")["metadata"]
    assert kept["trained_on"] == "<stdin>" and kept["feature_names"] == ["a", "b", "c", "d"]
    assert load(tmp_path / "m.rbl").classes_.tolist() == [0, 1, 2]


def test_classes_that_appear_on_standard_input_from_the_command_line(tmp_path):
    """README's example: two classes in the first chunk, two more in the second; the model
    file holds the four, sorted, and predicts them from a pipe too."""
    import json

    data = b"x1,x2,label\n2,0,east\n-2,0,west\n0,2,north\n0,-2,south\n"
    result = _piped(tmp_path, data, "--chunk-size", "2", "--max-iter", "3", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["classes"] == ["east", "north", "south", "west"]
    assert summary["mistakes_per_epoch"] == [6, 2, 0] and summary["train_accuracy"] == 1.0
    predicted = run_cli("predict", "-m", tmp_path / "m.rbl", "-", input=b"x1,x2\n0,3\n-3,0\n")
    assert predicted.exit_code == 0, predicted.output
    assert predicted.stdout == "north\nwest\n"


def test_a_cache_folder_keeps_the_rows_of_standard_input(tmp_path):
    data, _, _ = _csv()
    cache = tmp_path / "cache"
    result = _piped(tmp_path, data, "--cache", cache, "-q")
    assert result.exit_code == 0, result.output
    assert (cache / "manifest.json").is_file() and (cache / "X").stat().st_size == 300 * 4 * 8


def test_a_disk_that_cannot_take_the_cache_is_said(tmp_path, monkeypatch):
    from rosenblatt.data.readers import _cache

    def full(self, rows):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_cache.CacheWriter, "add", full)
    data, _, _ = _csv()
    result = _piped(tmp_path, data, "--max-iter", "2")
    assert_one_line_error(
        result,
        "cannot write the cache of standard input in",
        os.strerror(errno.ENOSPC),
        "give --cache a folder on a disk with room",
    )
    assert not (tmp_path / "m.rbl").exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # the temporary cache: gone too


@pytest.mark.parametrize(
    "args, data, fragments",
    [
        (
            ["-f", "csv"],
            b"a,b,y\n1,2,0\n3,x,1\n",
            ["<stdin>, line 3, column 'b': 'x' is not a number"],
        ),
        (
            ["-f", "svmlight"],
            b"1 1:2\n",
            ["give their index base (--zero-based or --one-based)", "--n-features N"],
        ),
        (
            ["-f", "svmlight", "--one-based", "--n-features", "3"],
            b"1 1:2\n0 4:1\n",
            [
                "<stdin>, line 2: feature index 4 is beyond --n-features 3 (read one-based, "
                "the indices go up to 3); pass a larger --n-features (standard input's is "
                "given before it is read)"
            ],
        ),
        ([], b"1,2,0\n", ["standard input has no extension to tell its format"]),
        (
            ["-f", "csv", "--chunk-size", "2"],
            b"1,2,0\n3,4,0\n5,6,1\n",
            ["the first chunk (rows 1 to 2) holds only the class 0", "a larger --chunk-size"],
        ),
        (
            ["-f", "csv", "--resume", "x.ckpt"],
            b"1,2,0\n3,4,1\n",
            ["standard input (or a pipe) cannot be resumed", "drop --checkpoint and --resume"],
        ),
        (["-f", "csv", "--checkpoint", "x.ckpt"], b"1,2,0\n3,4,1\n", ["cannot be resumed"]),
    ],
)
def test_what_standard_input_cannot_be_is_refused_in_one_line(tmp_path, args, data, fragments):
    result = run_cli("train", "--stream", "-", "-m", tmp_path / "m.rbl", *args, input=data)
    assert_one_line_error(result, *fragments)
    assert not (tmp_path / "m.rbl").exists()


def test_the_help_names_standard_input():
    from typer.testing import CliRunner

    from rosenblatt.apps.cli import app

    shown = CliRunner().invoke(app, ["train", "--help"], env={"COLUMNS": "400"}).stdout
    text = " ".join(shown.replace("│", " ").split())
    assert "reads standard input once, in chunks, in constant memory" in text
    assert "cat big.csv | rosenblatt train --stream - -m m.rbl --format csv" in text
    assert "Standard input (DATA is -) needs it" in text  # --n-features
    refused = run_cli("train", "d.svm", "-m", "m.rbl", "--n-features", "3")
    assert_one_line_error(refused, "--n-features goes with --stream")


# ---------------------------------------------------------------------- memory
def _peak_mb(data_path, model_path, *args):
    """Peak RSS (MB) of ``rosenblatt train --stream -`` reading ``data_path`` on stdin."""
    script = (
        "import resource, sys\nfrom rosenblatt.apps.cli import main\n"
        f"sys.argv = ['rosenblatt', 'train', '--stream', '-', '-m', {str(model_path)!r}, "
        f"'-f', 'csv', '-q', *{list(args)!r}]\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
    )
    with open(data_path, "rb") as handle:
        run = subprocess.run(
            [sys.executable, "-c", script], stdin=handle, capture_output=True, text=True
        )
    assert run.returncode == 0, run.stderr
    return int(run.stdout.split()[-1])


@pytest.mark.parametrize("epochs", ["1", "2"])
def test_memory_stays_that_of_a_chunk(tmp_path, epochs):
    """Input 5 times larger takes no more memory (coarsely: the interpreter's share, the same
    for both, cancels out): a chunk and a block at a time, the rest on disk or gone."""
    data, _, _ = _csv(20_000, header=False)
    small, big = tmp_path / "small.csv", tmp_path / "big.csv"
    copies = 8_000_000 // len(data) + 1
    small.write_bytes(data * copies)  # about 8 MB
    with open(big, "wb") as handle:  # about 40 MB
        for _ in range(5):
            handle.write(data * copies)
    args = ("--max-iter", epochs)
    _peak_mb(small, tmp_path / "m.rbl", *args)  # numba's cache, once
    base = _peak_mb(small, tmp_path / "m.rbl", *args)
    peak = _peak_mb(big, tmp_path / "m.rbl", *args)
    print("peak", peak, "base", base)
    assert peak - base < 30, f"{peak} MB for {big.stat().st_size >> 20} MB, {base} MB for a fifth"
    assert load(tmp_path / "m.rbl").n_iter_ >= 1
