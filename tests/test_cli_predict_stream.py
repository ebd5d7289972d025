"""``rosenblatt predict``/``evaluate`` read their input a block at a time: filters, memory,
``--chunk-size``, atomic ``-o``, and scores without scikit-learn."""

import json
import os
import select
import subprocess
import sys

import numpy as np
import pytest
from conftest import run_cli
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

from rosenblatt.apps.cli.evaluate import scores

CLI = [sys.executable, "-m", "rosenblatt"]


@pytest.fixture(scope="module")
def csv_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("csv")
    rng = np.random.RandomState(0)
    X = rng.randn(200, 3)
    y = np.where(X @ [1.0, -1.0, 0.5] > 0, "up", "down")
    data = folder / "train.csv"
    rows = [",".join(f"{v:.6f}" for v in row) + f",{label}" for row, label in zip(X, y)]
    data.write_text("a,b,c,label\n" + "\n".join(rows) + "\n")
    model = folder / "m.rbl"
    assert run_cli("train", data, "-m", model, "-q").exit_code == 0
    return folder, data, model


@pytest.fixture(scope="module")
def svm_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("svm")
    rng = np.random.RandomState(1)
    lines = []
    for _ in range(300):
        idx = np.sort(rng.choice(50, 5, replace=False)) + 1
        label = 1 if idx[0] < 10 else -1
        lines.append(f"{label} " + " ".join(f"{j}:{rng.rand():.4f}" for j in idx))
    data = folder / "train.svm"
    data.write_text("\n".join(lines) + "\n")
    model = folder / "m.rbl"
    assert run_cli("train", data, "-m", model, "-q").exit_code == 0
    return folder, data, model


def test_predict_answers_each_line_of_a_pipe_before_the_input_ends(csv_model):
    _, _, model = csv_model
    process = subprocess.Popen(
        CLI + ["predict", "-", "--format", "csv", "-m", str(model)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        answers = []
        for row in (b"3,-3,0\n", b"-3,3,0\n"):
            process.stdin.write(row)
            process.stdin.flush()  # the pipe stays open: the answer must come anyway
            ready, _, _ = select.select([process.stdout], [], [], 20)
            assert ready, "no answer while standard input stays open"
            answers.append(process.stdout.readline().strip())
        process.stdin.close()
        assert process.wait(20) == 0, process.stderr.read()
    finally:
        process.kill()
    assert answers == [b"up", b"down"]


@pytest.mark.parametrize("fixture", ["csv_model", "svm_model"])
def test_any_chunk_size_gives_the_same_results(request, fixture):
    _, data, model = request.getfixturevalue(fixture)
    whole = run_cli("predict", data, "-m", model, "--scores", "--chunk-size", "100000")
    assert whole.exit_code == 0, whole.output
    evaluated = run_cli("evaluate", data, "-m", model, "--json", "--chunk-size", "100000").stdout
    for size in (1, 7, 64):
        blocks = run_cli("predict", data, "-m", model, "--scores", "--chunk-size", size)
        assert blocks.stdout == whole.stdout
        scored = run_cli("evaluate", data, "-m", model, "--json", "--chunk-size", size).stdout
        assert json.loads(scored) == json.loads(evaluated)
    assert run_cli("predict", data, "-m", model, "--chunk-size", 0).exit_code == 2


def test_an_error_in_a_later_block_names_its_line(csv_model, tmp_path):
    _, data, model = csv_model
    lines = data.read_text().splitlines()
    lines[150] = lines[150].replace(",", ",x", 1)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    result = run_cli("predict", bad, "-m", model, "--chunk-size", 10)
    assert result.exit_code == 2
    assert "line 151, column 'b': 'x" in result.output, result.output  # by name, as whole
    assert "header" not in result.output  # the hint of a first line does not apply


def test_output_file_appears_whole_or_not_at_all(csv_model, tmp_path):
    _, data, model = csv_model
    out = tmp_path / "labels.txt"
    result = run_cli("predict", data, "-m", model, "-o", out, "--chunk-size", 16)
    assert result.exit_code == 0, result.output
    before = out.read_text()
    assert before.split() == run_cli("predict", data, "-m", model).stdout.split()
    lines = data.read_text().splitlines()
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines[:100] + ["1,2"] + lines[100:]) + "\n")
    failed = run_cli("predict", bad, "-m", model, "-o", out, "--chunk-size", 16)
    assert failed.exit_code == 2 and "line 101" in failed.output
    assert out.read_text() == before  # the old file, untouched
    assert sorted(os.listdir(tmp_path)) == ["bad.csv", "labels.txt"]  # no temporary file
    fresh = tmp_path / "new.txt"
    assert run_cli("predict", bad, "-m", model, "-o", fresh, "--chunk-size", 16).exit_code == 2
    assert not fresh.exists()


def _peak_mb(path, model, out):
    """Peak RSS (MB) of a ``rosenblatt predict`` process on ``path``."""
    script = (
        "import resource, sys\nfrom rosenblatt.apps.cli import main\n"
        f"sys.argv = ['rosenblatt', 'predict', {str(path)!r}, '-m', {str(model)!r}, "
        f"'-o', {str(out)!r}]\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return int(run.stdout.split()[-1])


def test_memory_stays_that_of_a_block(svm_model, tmp_path):
    """A file 5 times larger takes no more memory: one block at a time (the compiled
    parsers' share, the same for both, cancels out)."""
    _, data, model = svm_model
    block = data.read_bytes()
    # sizes that any test machine's temporary folder holds; read whole, the larger file's
    # arrays alone would take more than the 40 MB allowed
    copies = 15_000_000 // len(block) + 1
    small, big = tmp_path / "small.svm", tmp_path / "big.svm"
    small.write_bytes(block * copies)  # about 15 MB
    with open(big, "wb") as handle:  # about 75 MB
        for _ in range(5):
            handle.write(block * copies)
    _peak_mb(small, model, tmp_path / "out.txt")  # numba's cache, once
    base = _peak_mb(small, model, tmp_path / "out.txt")
    peak = _peak_mb(big, model, tmp_path / "out.txt")
    grown = peak - base
    assert grown < 40, f"{peak} MB for {big.stat().st_size >> 20} MB, {base} MB for a fifth"
    with open(tmp_path / "out.txt", "rb") as handle:
        assert sum(1 for _ in handle) == 5 * copies * len(block.splitlines())


@pytest.mark.parametrize(
    "y_true, y_pred, classes",
    [
        ([0, 1, 1, 1, 0], [0, 1, 0, 1, 1], [0, 1]),
        ([1, 1, 1], [1, 1, 1], [0, 1]),  # no positive prediction missing: zero division
        (["a", "b", "c", "a"], ["a", "c", "c", "b"], ["a", "b", "c"]),
        ([0, 2, 2, 5], [0, 0, 2, 2], [0, 2]),  # a label the model never saw: macro over all
        ([3, 3, 3], [3, 3, 3], [1, 2, 3]),
    ],
)
def test_scores_are_scikit_learns(y_true, y_pred, classes):
    y_true, y_pred = np.array(y_true), np.array(y_pred)
    result = scores(y_true, y_pred, classes)
    labels = np.union1d(classes, np.union1d(y_true, y_pred))
    binary = len(classes) == 2 and len(labels) == 2
    p, r, f, _ = precision_recall_fscore_support(
        y_true,
        y_pred,
        labels=None if binary else labels,
        average="binary" if binary else "macro",
        pos_label=classes[1] if binary else 1,
        zero_division=0.0,
    )
    assert (result.precision, result.recall, result.f1) == pytest.approx((p, r, f), abs=1e-15)
    assert result.accuracy == np.mean(y_true == y_pred)
    assert result.confusion_matrix == confusion_matrix(y_true, y_pred, labels=labels).tolist()
    assert result.labels == labels.tolist()


def test_evaluate_imports_neither_sklearn_nor_scipy(csv_model):
    _, data, model = csv_model
    script = (
        "import sys\nfrom rosenblatt.apps.cli import main\n"
        f"sys.argv = ['rosenblatt', 'evaluate', {str(data)!r}, '-m', {str(model)!r}, '--json']\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
        "print(sorted(m for m in ('sklearn', 'scipy', 'numba') if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    result, heavy = run.stdout.strip().splitlines()
    assert heavy == "[]"
    assert json.loads(result)["labels"] == ["down", "up"]


def test_sparse_rows_for_a_centring_model_get_one_message(csv_model, tmp_path):
    _, _, model = csv_model
    rows = tmp_path / "rows.svm"
    rows.write_text("1 1:0.5 3:1\n")
    outputs = set()
    for command in ("predict", "evaluate"):
        result = run_cli(command, rows, "-m", model)
        assert result.exit_code == 2
        outputs.add(result.output)
    (output,) = outputs  # the same words from both commands
    assert "centres every feature" in output and "give it CSV data" in output
    assert "with_mean" not in output and len(output.strip().splitlines()) == 1
