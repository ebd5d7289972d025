"""The command line, in-process through typer's CliRunner, and once as real processes."""

import gzip
import json
import os
import re
import subprocess
import sys
import threading

import numpy as np
import pytest
from conftest import assert_one_line_error
from PIL import Image
from typer.testing import CliRunner

from rosenblatt.apps.cli import app
from rosenblatt.apps.cli.evaluate import evaluate
from rosenblatt.apps.cli.train import train
from rosenblatt.persistence import read_manifest

OR_CSV = "x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,yes\n"
OR_SVM = "-1 1:-1 2:-1\n1 1:1 2:-1\n1 1:-1 2:1\n1 1:1 2:1\n"
SPAM = [
    "WIN a FREE prize now",
    "free cash prize claim now",
    "URGENT you won free entry",
    "claim your cash prize today",
]
HAM = [
    "see you at lunch",
    "notes for the lecture",
    "call me when you get home",
    "meeting moved to noon",
]
TSV = "".join(f"spam\t{t}\n" for t in SPAM) + "".join(f"ham\t{t}\n" for t in HAM)


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("or.csv", OR_CSV), ("or.svm", OR_SVM), ("sms.tsv", TSV)):
        paths[name] = tmp_path / name
        paths[name].write_text(text, encoding="utf-8")
    return paths


def run(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result


# ---------------------------------------------------------------------- train / predict / evaluate
def test_train_prints_progress_and_summary_and_saves_the_data_format(files, tmp_path):
    model = tmp_path / "or.rbm"
    result = run("train", files["or.csv"], "--model", model)
    assert result.exit_code == 0, result.output
    assert "2/2 epochs" in result.output  # converged: the bar is complete
    assert "Trained Perceptron" in result.output and "4 samples x 2 features (csv)" in result.output
    manifest = read_manifest(model)
    assert manifest["metadata"]["data_format"] == "csv"
    assert manifest["metadata"]["classes"] == ["no", "yes"]


def test_train_function_reports_each_epoch(files, tmp_path):
    seen = []
    result = train(
        files["or.csv"],
        tmp_path / "m.rbm",
        seed=0,
        on_epoch=lambda r: seen.append((r.epoch, r.mistakes)),
    )
    assert [e for e, _ in seen] == list(range(1, result.epochs + 1))
    assert [m for _, m in seen] == result.mistakes_per_epoch and seen[-1][1] == 0
    assert result.converged and result.train_accuracy == 1.0


@pytest.mark.parametrize(
    "algorithm", ["perceptron", "averaged", "voted", "kernel", "centroid", "lp"]
)
def test_every_algorithm_trains_and_predicts(files, tmp_path, algorithm):
    model = tmp_path / f"{algorithm}.rbm"
    result = run("train", files["or.svm"], "-m", model, "--algorithm", algorithm, "--quiet")
    assert result.exit_code == 0, result.output
    assert result.output == ""
    predicted = run("predict", "--model", model, files["or.svm"], "--json")
    assert json.loads(predicted.stdout) == {"predictions": [-1, 1, 1, 1]}


def test_predict_one_label_per_line_to_stdout_or_file(files, tmp_path):
    model = tmp_path / "or.rbm"
    run("train", files["or.csv"], "--model", model, "-q")
    assert run("predict", "--model", model, files["or.csv"]).stdout.split() == [
        "no",
        "yes",
        "yes",
        "yes",
    ]
    unlabelled = tmp_path / "new.csv"
    unlabelled.write_text("-2,-2\n2,2\n")  # no label column, no header
    out = tmp_path / "labels.txt"
    result = run("predict", "--model", model, unlabelled, "--output", out)
    assert result.exit_code == 0 and out.read_text().split() == ["no", "yes"]


def test_evaluate_json_has_the_five_scores_and_the_labels(files, tmp_path):
    model = tmp_path / "m.rbm"
    run("train", files["or.csv"], "--model", model, "-q", "--algorithm", "centroid")
    test = tmp_path / "test.csv"
    test.write_text("x1,x2,label\n-1,-1,no\n0.9,-1,yes\n-1,0.5,no\n1,1,yes\n")
    result = run("evaluate", "--model", model, test, "--json")
    scores = json.loads(result.stdout)
    assert list(scores) == [
        "accuracy",
        "precision",
        "recall",
        "f1",
        "confusion_matrix",
        "labels",
        "unseen_labels",
    ]
    assert scores["labels"] == ["no", "yes"]  # the rows' and columns' classes, in order
    assert scores["unseen_labels"] == {"rows": 0, "labels": []}
    direct = evaluate(model, test)
    assert scores == direct.to_json()
    np.testing.assert_array_equal(np.sum(scores["confusion_matrix"]), 4)
    table = run("evaluate", "--model", model, test)
    assert "accuracy" in table.stdout and "confusion matrix" in table.stdout


def test_evaluate_multiclass_uses_macro_averages(tmp_path):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.2, size=(15, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat([0, 1, 2], 15)
    data = tmp_path / "three.csv"
    data.write_text("".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, y)))
    model = tmp_path / "m.rbm"
    run("train", data, "-m", model, "-q")
    result = evaluate(model, data)
    assert result.average == "macro" and result.labels == [0, 1, 2]
    assert np.array(result.confusion_matrix).shape == (3, 3)


def test_text_model_is_saved_with_its_vectorizer(files, tmp_path):
    model = tmp_path / "sms.rbm"
    result = run("train", files["sms.tsv"], "--model", model, "-a", "averaged")
    assert result.exit_code == 0, result.output
    assert "8 samples x" in result.output and "(text)" in result.output
    messages = tmp_path / "new.tsv"
    messages.write_text("claim your FREE cash prize now\nsee you at the lecture\n")
    assert run("predict", "-m", model, messages).stdout.split() == ["spam", "ham"]
    scores = json.loads(run("evaluate", "-m", model, files["sms.tsv"], "--json").stdout)
    assert scores["accuracy"] == 1.0
    assert_one_line_error(
        run("predict", "-m", model, files["or.csv"]), "the model was trained on text"
    )


# ---------------------------------------------------------------------- inspect / trace / plot
def test_inspect_reports_separability_margin_and_bound(files):
    result = run("inspect", files["or.csv"], "--json")
    facts = json.loads(result.stdout)
    assert facts["n_samples"] == 4 and facts["n_features"] == 2
    assert facts["classes"] == {"no": 1, "yes": 3}
    (problem,) = facts["problems"]
    assert problem["separable"] is True
    assert problem["margin"] == pytest.approx(1 / np.sqrt(2), rel=1e-6)
    assert problem["mistake_bound"] == pytest.approx(9.0, rel=1e-6)
    assert facts["radius"] == pytest.approx(np.sqrt(2))
    table = run("inspect", files["or.csv"]).stdout
    assert "separable" in table and "0.707107" in table


def test_inspect_shows_the_numbers_that_give_its_bound(files):
    """(R/γ)² = 9 comes from the patterns (x, 1): R = √3, γ = 1/√3; the plain radius and
    margin (√2, 1/√2) would give 4, so they are labelled plain, and both are reported.
    Beside it the notes' proof's β/γ² (β = 4 · 3 = 12: 36) and the unit-norm 1/γ² (9)."""
    (problem,) = json.loads(run("inspect", files["or.csv"], "--json").stdout)["problems"]
    assert problem["mistake_bound"] == 9
    assert problem["augmented_radius"] == pytest.approx(np.sqrt(3))
    assert problem["augmented_margin"] == pytest.approx(1 / np.sqrt(3))
    assert (problem["augmented_radius"] / problem["augmented_margin"]) ** 2 == pytest.approx(9)
    assert problem["augmented_beta"] == 12 and problem["notes_bound"] == 36
    assert problem["unit_norm_bound"] == 9
    table = CliRunner().invoke(app, ["inspect", str(files["or.csv"])], env={"COLUMNS": "200"})
    rows = [line for line in table.stdout.splitlines() if "all samples" in line]
    separability, margins, bounds = (
        [cell.strip() for cell in row.strip("│ ").split("│")] for row in rows
    )
    assert separability[1] == "yes"
    assert margins[1:] == ["0.707107", "0.57735", "0.333333"]  # each named in its column
    assert bounds[1:] == ["1.73205", "0.57735", "9", "12", "36", "0.333333", "9"]
    R, gamma, bound, beta, notes, normalized, unit = map(float, bounds[1:])
    assert (R / gamma) ** 2 == pytest.approx(bound, rel=1e-4)  # by hand, from the table
    assert beta / gamma**2 == pytest.approx(notes, rel=1e-4) and unit == bound
    assert normalized == pytest.approx(gamma / R, rel=1e-5)
    assert 1 / normalized**2 == pytest.approx(unit, rel=1e-4)  # its 1/γ² is the 9 beside it
    for name in ("separator's geometric margin", "augmented margin γ", "normalized margin γ/R"):
        assert name in table.stdout
    # the two radii, each named, each on its line: of x, and of (x, bias input), the bounds' R
    (plain,) = [line for line in table.stdout.splitlines() if "radius of x," in line]
    (augmented,) = [line for line in table.stdout.splitlines() if "radius of (x, bias" in line]
    assert "1.41421" in plain and "1.73205" in augmented
    assert "on its patterns (x, 1)" in table.stdout
    for header in ("R", "γ", "β = Σ|x|²", "(R/γ)²", "β/γ²", "γ/R", "1/(γ/R)²"):
        assert f" {header} " in table.stdout
    assert problem["unit_norm_margin"] == pytest.approx(1 / 3)


def test_inspect_help_explains_the_three_margins_with_the_numbers_of_or():
    """The table in `inspect --help` is computed on the notes' OR problem: its numbers are
    the library's (max_margin and mistake_bounds)."""
    from rosenblatt.theory import MARGINS, max_margin, mistake_bounds

    X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    bounds = mistake_bounds(X, y)
    values = [max_margin(X, y).margin, bounds.margin, bounds.unit_norm_margin]
    shown = CliRunner().invoke(app, ["inspect", "--help"], env={"COLUMNS": "100"}).stdout
    lines = shown.splitlines()
    heads = ("separator's", "augmented margin γ", "normalized margin")
    for head, value in zip(heads, values):
        (line,) = [line for line in lines if line.strip().startswith(head)]
        assert f" {value:.4f} " in line, (head, line)
    assert values[0] == pytest.approx(1 / np.sqrt(2)) and values[2] == pytest.approx(1 / 3)
    assert f"R = {bounds.radius:.4f}" in shown and "(R/γ)² = 9" in shown
    assert "1/(γ/R)² = 9" in shown and bounds.novikoff == bounds.unit_norm == 9
    assert [name for name, _, _ in MARGINS.values()] == [
        "the separator's geometric margin",
        "the augmented margin γ",
        "the normalized margin γ/R",
    ]


def test_inspect_xor_is_not_separable(tmp_path):
    data = tmp_path / "xor.csv"
    data.write_text("0,0,0\n0,1,1\n1,0,1\n1,1,0\n")
    (problem,) = json.loads(run("inspect", data, "--json").stdout)["problems"]
    assert problem["separable"] is False and problem["margin"] is None
    assert problem["augmented_radius"] is None and problem["augmented_margin"] is None
    assert problem["augmented_beta"] is None and problem["notes_bound"] is None
    shown = run("inspect", data).stdout
    assert "Mistake bounds" not in shown  # no separable problem, and a line says why
    assert "no mistake bounds for all samples: not linearly separable" in " ".join(shown.split())
    assert problem["no_bounds"].startswith("not linearly separable")


def test_trace_prints_the_seed_003_table(files):
    result = run("trace", files["or.csv"], "--bias-input", "-1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "3 update(s) in 2 epoch(s), converged" in lines[0]
    assert lines[2].split() == ["1", "0", "0", "0", "1", "1", "1", "0", "YES", "1", "1", "1"]
    assert lines[4].split() == ["3", "2", "0", "0", "-1", "1", "-1", "-2", "YES", "-1", "1", "-1"]
    batch = run("trace", files["or.csv"], "--bias-input", "-1", "--mode", "batch").stdout
    assert batch.splitlines()[2].split()[-3:] == ["2", "2", "-2"]


def test_trace_refuses_large_data(tmp_path):
    data = tmp_path / "big.csv"
    data.write_text("".join(f"{i},{-i},{i % 2}\n" for i in range(60)))
    assert_one_line_error(run("trace", data), "60 samples", "too large to trace")
    assert run("trace", data, "--max-samples", "60").exit_code == 0


def test_plot_png_svg_and_gif(files, tmp_path):
    png = tmp_path / "boundary.png"
    assert run("plot", files["or.csv"], "-o", png).exit_code == 0
    assert Image.open(png).size == (600, 450)
    svg = tmp_path / "mistakes.svg"
    model = tmp_path / "m.rbm"
    run("train", files["or.csv"], "-m", model, "-q")
    assert run("plot", files["or.csv"], "-o", svg, "--kind", "mistakes", "-m", model).exit_code == 0
    assert "<svg" in svg.read_text()
    gif = tmp_path / "training.gif"
    result = run("plot", files["or.csv"], "-o", gif, "--bias-input", "-1")
    assert result.exit_code == 0 and "animation" in result.stderr  # "wrote ...": not a result
    assert Image.open(gif).n_frames == 4
    assert_one_line_error(
        run("plot", files["or.csv"], "-o", tmp_path / "x.gif", "--kind", "boundary"),
        "written as .png or .svg or .pdf or .jpg or .jpeg",
    )
    assert_one_line_error(
        run(
            "plot",
            files["or.csv"],
            "-o",
            tmp_path / "m.png",
            "--kind",
            "mistakes",
            "-a",
            "centroid",
        ),
        "no mistakes per epoch",
    )


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "name, text, fragment",
    [
        ("bad.csv", "1,2,0\n3,4,1\n5,6\n", "bad.csv, line 3: 2 fields"),
        ("bad.csv", "1,2,0\n3,x,1\n", "bad.csv, line 2, column 2: 'x' is not a number"),
        ("bad.svm", "1 1:1\n-1 2:1\n\n1 1:x\n", "bad.svm, line 4: '1:x' is not index:value"),
        ("bad.tsv", "ham\thello\nspam hello\n", "bad.tsv, line 2: no tab between label and text"),
    ],
)
def test_malformed_data_gives_one_line_with_the_line_number(tmp_path, name, text, fragment):
    data = tmp_path / name
    data.write_text(text)
    assert_one_line_error(run("train", data, "--model", tmp_path / "m.rbm"), fragment)
    assert not (tmp_path / "m.rbm").exists()
    assert_one_line_error(run("inspect", data), fragment)


def test_model_file_errors(files, tmp_path):
    assert_one_line_error(
        run("predict", "-m", tmp_path / "none.rbm", files["or.csv"]), "no such model file"
    )
    junk = tmp_path / "junk.rbm"
    junk.write_text("not a model")
    assert_one_line_error(
        run("evaluate", "-m", junk, files["or.csv"]), "not a rosenblatt model file"
    )
    model = tmp_path / "m.rbm"
    run("train", files["or.csv"], "-m", model, "-q")
    model.write_bytes(model.read_bytes()[:-200])
    assert_one_line_error(run("predict", "-m", model, files["or.csv"]), "truncated or damaged")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--max-iter", "abc"], "Invalid value for '--max-iter'"),
        (["--algorithm", "adaline"], "unknown algorithm 'adaline'"),
        (["--eta", "0"], "--eta must be positive"),
        (["--label-column", "nope"], "no column named 'nope'"),
        (["--bogus"], "No such option: --bogus"),
    ],
)
def test_bad_option_values_give_one_line(files, tmp_path, args, fragment):
    result = run("train", files["or.csv"], "--model", tmp_path / "m.rbm", *args)
    assert_one_line_error(result, fragment)


def test_evaluate_needs_labels_and_matching_columns(files, tmp_path):
    model = tmp_path / "m.rbm"
    run("train", files["or.csv"], "-m", model, "-q")
    unlabelled = tmp_path / "u.csv"
    unlabelled.write_text("1,1\n")
    assert_one_line_error(run("evaluate", "-m", model, unlabelled), "no labels to evaluate")
    wide = tmp_path / "w.csv"
    wide.write_text("1,1,1,1,no\n")
    assert_one_line_error(run("predict", "-m", model, wide), "the model expects 2 features")


def test_no_arguments_shows_the_commands():
    result = run()
    for command in ("demo", "train", "predict", "evaluate", "inspect", "trace", "plot"):
        assert command in result.output


# ---------------------------------------------------------------------- real processes
def test_importing_the_library_stays_light():
    code = (
        "import sys, rosenblatt, rosenblatt.data.io, rosenblatt.persistence, rosenblatt.apps.plot, "
        "rosenblatt.apps.report; heavy = [m for m in ('matplotlib', 'typer', 'rich') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_train_predict_evaluate_as_real_processes_on_every_format(files, tmp_path):
    command = [sys.executable, "-m", "rosenblatt"]
    env = {**os.environ, "COLUMNS": "120"}
    outcome = {}

    def chain(name, expected):
        data, model = str(files[name]), str(tmp_path / f"{name}.rbm")
        steps = [
            ["train", data, "--model", model, "--quiet"],
            ["predict", "--model", model, data],
            ["evaluate", "--model", model, data, "--json"],
        ]
        outputs = []
        for step in steps:
            done = subprocess.run(
                command + step, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
            )
            outputs.append((done.returncode, done.stdout, done.stderr))
        outcome[name] = (outputs, expected)

    threads = [
        threading.Thread(target=chain, args=args)
        for args in (
            ("or.csv", ["no", "yes", "yes", "yes"]),
            ("or.svm", ["-1", "1", "1", "1"]),
            ("sms.tsv", ["spam"] * 4 + ["ham"] * 4),
        )
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name, (outputs, expected) in outcome.items():
        (train_rc, _, train_err), (predict_rc, labels, _), (eval_rc, scores, _) = outputs
        assert (train_rc, predict_rc, eval_rc) == (0, 0, 0), (name, outputs)
        assert labels.split() == expected, name
        assert json.loads(scores)["accuracy"] == 1.0, name
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:1\n1 2:x\n")
    done = subprocess.run(
        command + ["train", str(bad), "--model", str(tmp_path / "b.rbm")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2 and "bad.svm, line 2" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_train_stream_option_trains_chunk_by_chunk(tmp_path):
    import numpy as np
    from typer.testing import CliRunner

    from rosenblatt import load
    from rosenblatt.apps.cli import app

    rng = np.random.RandomState(0)
    X = rng.randn(300, 3)
    y = (X @ [1.0, -2.0, 0.5] > 0).astype(int)
    data = tmp_path / "train.csv"
    np.savetxt(data, np.column_stack([X, y]), delimiter=",", fmt=["%.6f"] * 3 + ["%d"])
    model = tmp_path / "model.rbl"
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "train",
            str(data),
            "--model",
            str(model),
            "--stream",
            "--chunk-size",
            "64",
            "--algorithm",
            "averaged",
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    assert (load(model).predict(X) == y).mean() > 0.95
    refused = runner.invoke(
        app, ["train", str(data), "--model", str(model), "--stream", "--algorithm", "lp"]
    )
    assert refused.exit_code == 2
    assert "needs the whole data set in memory" in refused.output


# ---------------------------------------------------------------------- reading options
def _dump(path, X, y, zero_based):
    from sklearn.datasets import dump_svmlight_file

    dump_svmlight_file(X, y, str(path), zero_based=zero_based)
    return path


def test_svmlight_base_is_stored_and_a_mismatched_file_is_refused(tmp_path):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X, y = X[:200], (y[:200] > 4).astype(int)  # pixel 0 is never set
    train_file = _dump(tmp_path / "train.svm", X, y, zero_based=True)
    model = tmp_path / "m.rbm"
    result = run("train", train_file, "-m", model, "--max-iter", "3")
    assert result.exit_code == 0, result.output
    assert "note: svmlight feature indices read as one-based" in " ".join(result.output.split())
    metadata = read_manifest(model)["metadata"]
    assert metadata["zero_based"] is False and metadata["n_features"] == 63

    test_file = tmp_path / "test.svm"
    test_file.write_text("1 0:3 5:1\n0 2:1\n")  # index 0: a zero-based file
    assert_one_line_error(
        run("predict", "-m", model, test_file),
        "test.svm, line 1",
        "feature index 0",
        "retrain with --zero-based",
    )
    assert_one_line_error(run("evaluate", "-m", model, test_file), "retrain with --zero-based")
    # the user says this file is zero-based: read so, and within the model's 63 columns
    assert run("predict", "-m", model, test_file, "--zero-based").exit_code == 0

    zero = tmp_path / "zero.rbm"
    result = run("train", train_file, "-m", zero, "--zero-based", "-q", "--max-iter", "3")
    assert result.exit_code == 0, result.output
    metadata = read_manifest(zero)["metadata"]
    assert metadata["zero_based"] is True and metadata["n_features"] == 64
    predicted = run("predict", "-m", zero, test_file, "--json")
    assert predicted.exit_code == 0 and len(json.loads(predicted.stdout)["predictions"]) == 2

    wide = tmp_path / "wide.svm"
    wide.write_text("1 1:1\n0 70:1\n")
    ignored = run("predict", "-m", zero, wide)  # feature 70 has no weight: ignored, and said
    assert ignored.exit_code == 0 and "1 row held features beyond the model's 64" in ignored.stderr
    assert_one_line_error(
        run("predict", "-m", zero, wide, "--strict-features"),
        "wide.svm, line 2",
        "feature index 70 is beyond",
        "the model has 64 features",
    )


def test_one_based_flag_refuses_an_index_zero(tmp_path):
    data = tmp_path / "d.svm"
    data.write_text("1 0:1 1:1\n-1 1:2\n")
    assert_one_line_error(
        run("train", data, "-m", tmp_path / "m.rbm", "--one-based"),
        "d.svm, line 1: feature index 0 is below 1",
        "--zero-based",
    )
    assert_one_line_error(run("inspect", data, "--one-based"), "--zero-based")
    assert run("inspect", data, "--zero-based", "--json").exit_code == 0


def test_header_flags_on_every_command(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("1,2,label\n-1,-1,0\n1,-1,1\n-1,1,1\n1,1,1\n")  # numeric names, header
    facts = json.loads(run("inspect", data, "--json").stdout)
    assert facts["n_samples"] == 4 and any("read as a header" in n for n in facts["notes"])
    assert_one_line_error(  # the first label is text: the next, a number, is the bad one
        run("inspect", data, "--no-header"), "line 2", "but line 1 has the text 'label'"
    )
    plain = tmp_path / "p.csv"
    plain.write_text("-1,-1,0\n1,-1,1\n-1,1,0\n1,1,1\n")
    assert json.loads(run("inspect", plain, "--header", "--json").stdout)["n_samples"] == 3
    traced = run("trace", plain, "--header", "--no-header")  # the last flag wins
    assert traced.exit_code == 0 and traced.stdout == run("trace", plain).stdout
    assert run("plot", plain, "-o", tmp_path / "b.png", "--no-header").exit_code == 0
    model = tmp_path / "m.rbm"
    result = run("train", data, "-m", model)
    assert result.exit_code == 0 and "4 samples x 2 features" in result.output
    assert "note: line 1 read as a header" in " ".join(result.output.split())
    assert run("predict", "-m", model, plain, "--no-header").stdout.split() == ["0", "1", "1", "1"]
    assert (
        json.loads(run("evaluate", "-m", model, data, "--header", "--json").stdout)["accuracy"]
        == 1.0
    )


def test_first_row_neither_data_nor_header_names_the_column(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("1.5,,0\n1,2,1\n")
    assert_one_line_error(
        run("train", data, "-m", tmp_path / "m.rbm"),
        "d.csv, line 1, column 2: an empty (missing) value",
        "if line 1 is a header, pass --header;",  # the option alone, not header=True
    )


@pytest.mark.parametrize(
    "name, content, fragment",
    [
        ("half.svm", b"0.5 1:1\n1.5 2:1\n", "the labels look continuous"),
        ("nan.csv", b"1,2,0\n3,4,nan\n", "line 2: the label 'nan' is not a finite number"),
    ],
)
def test_train_and_stream_refuse_labels_that_are_not_classes(tmp_path, name, content, fragment):
    data = tmp_path / name
    data.write_bytes(content)
    for stream in ([], ["--stream", "--chunk-size", "1"]):
        assert_one_line_error(run("train", data, "-m", tmp_path / "m.rbm", *stream), fragment)


@pytest.mark.parametrize(
    "name, content",
    [
        ("header.csv", b"1,2,label\n-1,-1,0\n1,-1,1\n-1,1,1\n1,1,1\n"),
        ("quoted.csv", b'x,y,label\n-1,-1,"no, never"\n1,-1,yes\n-1,1,yes\n1,1,"yes"\n'),
        ("cr.csv", b"-1,-1,0\r1,-1,1\r-1,1,1\r1,1,1\r"),
        # mtime=0: the same bytes in every pytest-xdist worker, which must collect the same ids
        ("or.svm.gz", gzip.compress(OR_SVM.encode(), mtime=0)),
        ("or.csv.gz", gzip.compress(OR_CSV.encode(), mtime=0)),
    ],
)
def test_stream_reads_files_as_memory_does(tmp_path, name, content):
    data = tmp_path / name
    data.write_bytes(content)
    models = {}
    for mode, extra in (("memory", []), ("stream", ["--stream", "--chunk-size", "2"])):
        models[mode] = tmp_path / f"{mode}.rbm"
        result = run("train", data, "-m", models[mode], "-q", "-a", "averaged", *extra)
        assert result.exit_code == 0, result.output
    memory, stream = (read_manifest(m)["metadata"] for m in models.values())
    assert memory["n_samples"] == stream["n_samples"] == 4
    assert memory["classes"] == stream["classes"] and memory["n_features"] == 2
    for model in models.values():
        assert json.loads(run("evaluate", "-m", model, data, "--json").stdout)["accuracy"] == 1


def test_version_and_short_help():
    from importlib.metadata import version

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"rosenblatt {version('rosenblatt')}"
    for command in ([], ["train"], ["predict"], ["playground"]):
        result = CliRunner().invoke(app, [*command, "-h"])
        assert result.exit_code == 0 and "Usage:" in result.output, command
    result = CliRunner().invoke(app, ["train", "-h"], env={"COLUMNS": "120"})
    assert "DATA" in result.output and "{data}" not in result.output


@pytest.mark.parametrize("command", ["train", "predict", "evaluate", "trace", "cross-validate"])
def test_help_reads_like_a_unix_tool(command):
    """The usage line names the argument plainly and flags take no <bool> value."""
    result = CliRunner().invoke(app, [command, "-h"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    usage = next(line for line in result.output.splitlines() if "Usage:" in line)
    assert usage.split() == ["Usage:", "rosenblatt", command, "[OPTIONS]", "DATA"]
    assert "{" not in usage and "<bool>" not in result.output
    help_row = next(line for line in result.output.splitlines() if "--help" in line)
    assert "Show this message" in help_row


def test_trace_table_is_capped_and_says_so(tmp_path):
    xor = tmp_path / "xor.csv"
    xor.write_text("x1,x2,y\n-1,-1,0\n1,-1,1\n-1,1,1\n1,1,0\n", encoding="utf-8")
    result = run("trace", xor, "--max-iter", 10**8)
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if {"YES", "NO"} & set(line.split())]
    assert len(rows) <= 5_000 and len(rows) > 4_000
    assert "the table stops after 1250 epochs (5,000 rows at most)" in " ".join(
        result.stderr.split()  # a note, beside the table on standard output
    )


def test_traceback_variable_shows_where_an_error_came_from(tmp_path):
    """README: no traceback by default; ROSENBLATT_TRACEBACK=1 shows one, then the line."""
    command = [sys.executable, "-m", "rosenblatt", "train", str(tmp_path / "none.csv")]
    command += ["-m", str(tmp_path / "m.rbl")]
    plain = subprocess.run(command, capture_output=True, text=True)
    shown = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "ROSENBLATT_TRACEBACK": "1"}
    )
    assert plain.returncode == shown.returncode == 2
    assert "Traceback" not in plain.stderr and "Traceback (most recent call last)" in shown.stderr
    assert shown.stderr.strip().splitlines()[-1].startswith("error:")


def test_predict_scores_dash_output_and_file_permissions(files, tmp_path):
    from rosenblatt import load

    model = tmp_path / "or.rbm"
    run("train", files["or.csv"], "--model", model, "-q")
    expected = load(model).decision_function(np.array([[-1, -1], [1, -1], [-1, 1], [1, 1.0]]))
    result = run("predict", "--model", model, files["or.csv"], "--scores", "--output", "-")
    lines = [line.split("\t") for line in result.stdout.strip().splitlines()]
    assert [label for label, _ in lines] == ["no", "yes", "yes", "yes"]
    np.testing.assert_allclose([float(score) for _, score in lines], expected, rtol=1e-9)
    payload = json.loads(run("predict", "-m", model, files["or.csv"], "--scores", "--json").stdout)
    assert payload["classes"] == ["no", "yes"] and len(payload["scores"]) == 4
    out = tmp_path / "labels.txt"
    result = run("predict", "--model", model, files["or.csv"], "--output", out)
    assert "wrote 4 predictions" in result.stderr and result.stdout == ""
    # outputs get the permissions of any new file (the umask's), model files too
    mode = 0o666 & ~_current_umask()
    assert out.stat().st_mode & 0o777 == mode and model.stat().st_mode & 0o777 == mode


def _current_umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_evaluate_names_the_positive_class_or_the_macro_average(files, tmp_path):
    model = tmp_path / "or.rbm"
    run("train", files["or.csv"], "--model", model, "-q")
    text = " ".join(run("evaluate", "--model", model, files["or.csv"]).stdout.split())
    assert "precision (positive class: yes)" in text and "true \\ predicted" in text
    three = tmp_path / "three.csv"
    three.write_text("x,label\n0,a\n1,a\n5,b\n6,b\n10,c\n11,c\n")
    run("train", three, "--model", model, "-q", "--algorithm", "centroid")
    text = " ".join(run("evaluate", "--model", model, three).stdout.split())
    assert "recall (macro average over 3 classes)" in text


def test_train_standardises_numeric_features_unless_told_not_to(tmp_path):
    """Issue 15: unscaled iris gave 0.658; the CLI now fits a scaler and saves it."""
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split

    from rosenblatt import load

    X, y = load_iris(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    train_csv, test_csv = tmp_path / "train.csv", tmp_path / "test.csv"
    np.savetxt(train_csv, np.column_stack([X_train, y_train]), delimiter=",", fmt="%g")
    np.savetxt(test_csv, np.column_stack([X_test, y_test]), delimiter=",", fmt="%g")
    accuracy = {}
    for flag in ("--scale", "--no-scale"):
        model = tmp_path / f"{flag}.rbm"
        # the averaged perceptron: the subject is scaling, and iris is not separable, so
        # the last iterate's accuracy depends on the epoch training stops at (tol)
        trained = run("train", train_csv, "--model", model, "-q", flag, "-a", "averaged")
        assert trained.exit_code == 0
        result = run("evaluate", "--model", model, test_csv, "--json")
        accuracy[flag] = json.loads(result.stdout)["accuracy"]
    scaled = load(tmp_path / "--scale.rbm")
    assert [name for name, _ in scaled.steps] == ["scaler", "classifier"]
    np.testing.assert_allclose(scaled.named_steps["scaler"].mean_, X_train.mean(axis=0))
    assert accuracy["--scale"] > 0.93 and accuracy["--scale"] > accuracy["--no-scale"]


def test_cross_validate_compares_algorithms_on_the_same_folds(tmp_path):
    from sklearn.datasets import load_iris

    from rosenblatt.apps.cli.crossval import cross_validate

    X, y = load_iris(return_X_y=True)
    path = tmp_path / "iris.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt="%g")
    results = cross_validate(path, algorithms=("averaged", "centroid"), folds=4, seed=1)
    assert [r.algorithm for r in results] == ["averaged", "centroid"]
    assert all(len(r.accuracy) == 4 and 0.8 < r.mean <= 1 for r in results)
    # the same folds: by hand with scikit-learn's splitter and the model train builds
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from rosenblatt import CentroidClassifier

    by_hand = cross_val_score(
        make_pipeline(StandardScaler(), CentroidClassifier()),
        X,
        y,
        cv=StratifiedKFold(4, shuffle=True, random_state=1),
    )
    np.testing.assert_allclose(results[1].accuracy, by_hand)
    unscaled = cross_validate(path, algorithms=("centroid",), folds=4, seed=1, scale=False)
    by_hand = cross_val_score(
        CentroidClassifier(), X, y, cv=StratifiedKFold(4, shuffle=True, random_state=1)
    )
    np.testing.assert_allclose(unscaled[0].accuracy, by_hand)
    result = run("cross-validate", path, "--folds", 3, "-a", "perceptron", "-a", "lp")
    text = " ".join(result.stdout.split())
    assert result.exit_code == 0 and "test accuracy over 3 folds" in text
    assert "perceptron" in text and "lp" in text
    assert_one_line_error(run("cross-validate", path, "--folds", 1), "--folds must be at least 2")
    assert_one_line_error(run("cross-validate", path, "-a", "svm"), "unknown algorithm 'svm'")
    assert_one_line_error(run("cross-validate", path, "--folds", 60), "fewer than the 60 folds")


def test_plot_pdf_and_jpg(files, tmp_path):
    for suffix, magic in ((".pdf", b"%PDF"), (".jpg", b"\xff\xd8\xff")):
        out = tmp_path / f"boundary{suffix}"
        assert run("plot", files["or.csv"], "-o", out).exit_code == 0
        assert out.read_bytes().startswith(magic)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # atomic writes


def test_train_options_reach_the_estimator(tmp_path):
    """Issue 15: the API's parameters from the command line, refused where they do not apply."""
    from rosenblatt import load

    xor = tmp_path / "xor.csv"
    xor.write_text("x1,x2,y\n-1,-1,0\n1,-1,1\n-1,1,1\n1,1,0\n")
    model = tmp_path / "k.rbm"
    result = run(
        "train", xor, "-m", model, "-q", "-a", "kernel", "--kernel", "poly", "--degree", 2,
        "--gamma", "1", "--class-weight", "balanced", "--shuffle", "none",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    kernel = load(model).named_steps["classifier"]
    assert (kernel.kernel, kernel.degree, kernel.gamma) == ("poly", 2, 1.0)
    assert kernel.class_weight == "balanced" and kernel.shuffle is False
    result = run(
        "train", xor, "-m", model, "-q", "--max-iter", 7, "--intercept-scaling", "0.5",
        "--shuffle", "block", "--multi-class", "multinomial", "--n-jobs", 1,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    linear = load(model).named_steps["classifier"]
    assert (linear.max_iter, linear.intercept_scaling, linear.shuffle) == (7, 0.5, "block")
    assert (linear.multi_class, linear.n_jobs) == ("multinomial", 1)
    assert_one_line_error(
        run("train", xor, "-m", model, "--kernel", "rbf"),
        "--kernel applies to --algorithm kernel or projectron, not perceptron",
    )
    assert_one_line_error(run("train", xor, "-m", model, "--shuffle", "x"), "full, block or none")
    assert_one_line_error(
        run("train", xor, "-m", model, "--gamma", "2", "-a", "averaged"), "--gamma applies"
    )
    assert_one_line_error(
        run("train", xor, "-m", model, "--stream", "--class-weight", "balanced"),
        "--stream takes --max-iter, --eta and --seed",
    )


def test_standard_input_with_format(tmp_path):
    """DATA '-' reads standard input; --format says what it holds (gzipped too)."""
    model = tmp_path / "or.rbm"
    trained = CliRunner().invoke(
        app, ["train", "-", "--format", "csv", "-m", str(model), "-q"], input=OR_CSV
    )
    assert trained.exit_code == 0, trained.output
    assert read_manifest(model)["metadata"]["trained_on"] == "<stdin>"
    unlabelled = "1,1\n-1,-1\n"
    predicted = CliRunner().invoke(
        app,
        ["predict", "-", "-f", "csv", "-m", str(model)],
        input=gzip.compress(unlabelled.encode()),
    )
    assert predicted.exit_code == 0, predicted.output
    assert predicted.stdout.split() == ["yes", "no"]
    evaluated = CliRunner().invoke(
        app, ["evaluate", "-", "--format", "csv", "-m", str(model), "--json"], input=OR_CSV
    )
    assert json.loads(evaluated.stdout)["accuracy"] == 1.0


def test_format_names_the_format_of_unusual_extensions(tmp_path):
    """iris.data (CSV) and a9a.txt (libsvm) read with --format; without it, the error says so."""
    data = tmp_path / "or.data"
    data.write_text(OR_CSV, encoding="utf-8")
    svm = tmp_path / "or.txt"
    svm.write_text(OR_SVM, encoding="utf-8")
    refused = run("train", data, "-m", tmp_path / "a.rbm")
    assert refused.exit_code == 2 and "unknown data format '.data'" in refused.output
    assert "--format csv|svmlight|tsv" in " ".join(refused.output.split())
    assert run("train", data, "-m", tmp_path / "a.rbm", "-q", "--format", "csv").exit_code == 0
    assert run("train", svm, "-m", tmp_path / "b.rbm", "-q", "--format", "libsvm").exit_code == 0
    result = run("evaluate", svm, "-m", tmp_path / "b.rbm", "--format", "svmlight", "--json")
    assert json.loads(result.stdout)["accuracy"] == 1.0
    inspected = run("inspect", data, "--format", "csv", "--json")
    assert json.loads(inspected.stdout)["n_samples"] == 4
    streamed = run("train", svm, "-m", tmp_path / "c.rbm", "-q", "--stream", "-f", "svmlight")
    assert streamed.exit_code == 0, streamed.output


@pytest.mark.parametrize(
    "args, stdin, fragment",
    [
        (["train", "-", "-m", "m.rbm"], OR_CSV, "standard input has no extension"),
        (["train", "-", "-f", "xlsx", "-m", "m.rbm"], OR_CSV, "unknown data format 'xlsx'"),
        (  # --stream reads standard input once (tests/test_stream_stdin.py): no resuming
            ["train", "-", "-f", "csv", "-m", "m.rbm", "--stream", "--resume", "r.ckpt"],
            OR_CSV,
            "standard input (or a pipe) cannot be resumed",
        ),
        (["train", "-", "-f", "csv", "-m", "m.rbm"], "1,2,x\n3,oops,y\n", "<stdin>, line 2"),
        (["train", "-", "-f", "svmlight", "-m", "m.rbm"], b"\x1f\x8bnot gzip", "<stdin>"),
    ],
)
def test_standard_input_errors_are_one_line(tmp_path, monkeypatch, args, stdin, fragment):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, args, input=stdin)
    assert result.exit_code == 2 and fragment in " ".join(result.output.split())
    assert "Traceback" not in result.output and not (tmp_path / "m.rbm").exists()


def test_read_data_reads_standard_input(monkeypatch):
    import io

    from rosenblatt.data.io import read_data

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(OR_CSV.encode())))
    data = read_data("-", format="csv")
    assert data.path == "<stdin>" and data.X.shape == (4, 2)
    assert data.y.tolist() == ["no", "yes", "yes", "yes"]


@pytest.mark.parametrize("command", ["train", "predict"])
def test_write_errors_name_the_file_asked_for_not_a_temporary_file(files, tmp_path, command):
    """Outputs go through a temporary file beside the target; errors never name it."""
    out = tmp_path / "out"
    folder = out / "a-folder"
    folder.mkdir(parents=True)
    model = out / "m.rbm"
    assert run("train", files["or.csv"], "-m", model, "-q").exit_code == 0
    for target, words in (
        (folder, "a folder has that name; give a file name"),
        (out / "missing" / "out", f"cannot write there: no folder {out / 'missing'}"),
    ):
        if command == "train":
            result = run("train", files["or.csv"], "-m", target, "-q")
        else:
            result = run("predict", files["or.csv"], "-m", model, "-o", target)
        assert result.exit_code == 2, result.output
        message = " ".join(result.output.split())
        assert f"{target}: {words}" in message and ".tmp" not in message
    assert os.listdir(folder) == [] and sorted(os.listdir(out)) == ["a-folder", "m.rbm"]


def test_long_commands_show_a_spinner_on_a_terminal(files, tmp_path, monkeypatch):
    """predict, evaluate, inspect and the non-iterative train show what they are doing
    on standard error when it is a terminal (epochs get a bar; these get a spinner)."""
    import io

    from rich.console import Console

    from rosenblatt.apps.cli import _common

    model = tmp_path / "or.rbm"
    assert run("train", files["or.csv"], "-m", model, "-q").exit_code == 0
    for args, words in (
        (("predict", "--model", model, files["or.csv"]), "predicting"),
        (("evaluate", "--model", model, files["or.csv"]), "evaluating"),
        (("inspect", files["or.csv"]), "inspecting"),
        (("train", files["or.csv"], "-m", tmp_path / "lp.rbm", "-a", "lp"), "training lp"),
    ):
        terminal = io.StringIO()
        monkeypatch.setattr(_common, "err_console", Console(file=terminal, force_terminal=True))
        result = run(*args)
        assert result.exit_code == 0, result.output
        assert words in terminal.getvalue(), (args, terminal.getvalue())
        assert words not in result.stdout  # results on standard output stay clean


@pytest.mark.parametrize(
    "options, name",
    [
        (("-a", "kernel"), "KernelPerceptron"),
        (("-a", "kernel", "--budget", "4"), "KernelPerceptron"),
        (("-a", "projectron"), "Projectron"),
        (("-a", "projectron", "--budget", "4"), "Projectron"),
    ],
)
def test_kernel_training_shows_the_epoch_bar(files, tmp_path, options, name):
    """The kernel learners report their epochs to the command line's bar like the linear ones."""
    result = run("train", files["or.csv"], "--model", tmp_path / "k.rbm", *options)
    assert result.exit_code == 0, result.output
    assert re.search(r"(\d+)/\1 epochs, last epoch: 0 mistakes", result.output), result.output
    assert f"Trained {name}" in result.output


def test_tol_reaches_the_estimator_and_none_is_the_notes_rule(tmp_path):
    from sklearn.datasets import make_classification

    from rosenblatt import load

    X, y = make_classification(200, 4, flip_y=0.3, random_state=0)
    data = tmp_path / "noisy.csv"
    np.savetxt(data, np.column_stack([X, y]), delimiter=",", fmt="%g")
    epochs = {}
    for value in ("none", "0.5"):
        model = tmp_path / f"{value}.rbm"
        result = run("train", data, "-m", model, "-q", "--tol", value, "--max-iter", 50)
        assert result.exit_code == 0, result.output
        classifier = load(model).named_steps["classifier"]
        epochs[value] = (classifier.tol, classifier.n_iter_)
    assert epochs == {"none": (None, 50), "0.5": (0.5, 11)}
    assert_one_line_error(run("train", data, "-m", tmp_path / "x.rbm", "--tol", "x"), "--tol")
