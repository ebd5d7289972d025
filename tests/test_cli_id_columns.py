"""Issue 42: a file with an identifier trains as it predicts. ``train`` (in memory and
``--stream``), ``cross-validate`` and ``evaluate`` take ``--id-column``/``--ignore`` as
``predict`` does, through the readers' one column selector; the model records its feature
names without those columns, so ``predict --id-column`` reads the training file itself.
A column set aside twice is refused, and a column the header lacks is named with a few
near names, never the whole header."""

import json

import numpy as np
import pytest
from conftest import run_cli

from rosenblatt.persistence import read_manifest

HEADER = "id,a,class,b,c,note"


def _rows(n=120, seed=0):
    """``n`` rows of HEADER: a text identifier, the label in the middle, a text note."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 3)
    y = (X @ [1.0, -1.0, 0.5] > 0).astype(int)
    return [
        (f"msg{i:05d}", f"{a:.6f}", str(t), f"{b:.6f}", f"{c:.6f}", f"note {i}")
        for i, ((a, b, c), t) in enumerate(zip(X, y))
    ]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The file with an identifier and a note, the same cut to its features and label, and
    the same without a header."""
    folder = tmp_path_factory.mktemp("ids")
    rows = _rows()
    keyed = folder / "train_id.csv"
    keyed.write_text(HEADER + "\n" + "".join(",".join(r) + "\n" for r in rows))
    cut = folder / "cut.csv"
    cut.write_text("a,class,b,c\n" + "".join(",".join(r[1:5]) + "\n" for r in rows))
    bare = folder / "bare.csv"  # id first, label last, no header
    bare.write_text("".join(",".join([r[0], r[1], r[3], r[4], r[2]]) + "\n" for r in rows))
    return {"folder": folder, "keyed": keyed, "cut": cut, "bare": bare, "rows": rows}


def _train(data, model, *options):
    result = run_cli("train", data, "-m", model, "--label-column", "class", "-q", *options)
    assert result.exit_code == 0, result.output
    return model


def _lines(result):
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_the_issue_a_file_with_an_identifier_did_not_train(files, tmp_path):
    """As reported: without the option the identifier is read as a feature."""
    failed = run_cli("train", files["keyed"], "-m", tmp_path / "m.rbl", "--label-column", "class")
    assert failed.exit_code == 2
    assert failed.stderr == (
        f"error: {files['keyed']}, line 2, column 'id': 'msg00000' is not a number\n"
    )


@pytest.mark.parametrize(
    "stream", [[], ["--stream", "--chunk-size", "7"]], ids=["memory", "stream"]
)
def test_train_leaves_identifiers_out_and_predict_reads_the_same_file(files, tmp_path, stream):
    keyed, cut = files["keyed"], files["cut"]
    aside = ["--id-column", "id", "--ignore", "note"]
    model = _train(keyed, tmp_path / "keyed.rbl", *aside, *stream)
    plain = _train(cut, tmp_path / "cut.rbl", *stream)
    metadata = read_manifest(model)["metadata"]
    assert metadata["feature_names"] == ["a", "b", "c"] and metadata["label_name"] == "class"
    assert metadata["n_features"] == 3
    # the same model as one trained on the file cut to its features: the same scores
    scores = _lines(run_cli("predict", cut, "-m", model, "--scores"))
    assert scores == _lines(run_cli("predict", cut, "-m", plain, "--scores"))
    # the round trip of the issue: the training file itself, identifiers beside the labels
    labels = [line.split("\t")[0] for line in scores]
    predicted = _lines(run_cli("predict", keyed, "-m", model, *aside))
    ids = [row[0] for row in files["rows"]]
    assert predicted == ["id,label"] + [f"{i},{label}" for i, label in zip(ids, labels)]
    evaluated = run_cli("evaluate", keyed, "-m", model, *aside, "--json")
    assert evaluated.exit_code == 0, evaluated.output
    assert json.loads(evaluated.stdout) == json.loads(
        run_cli("evaluate", cut, "-m", plain, "--json").stdout
    )
    # the model does not know the identifier: a file that still has it must set it aside
    unexpected = run_cli("predict", keyed, "-m", model, "--ignore", "note")
    assert unexpected.exit_code == 2 and "unexpected column 'id'" in unexpected.stderr


def test_a_file_without_a_header_sets_aside_by_index(files, tmp_path):
    bare, cut = files["bare"], files["cut"]
    model = tmp_path / "bare.rbl"
    trained = run_cli("train", bare, "-m", model, "--id-column", 0, "-q")
    assert trained.exit_code == 0, trained.output
    assert "feature_names" not in read_manifest(model)["metadata"]
    labels = _lines(run_cli("predict", cut, "-m", _train(cut, tmp_path / "cut.rbl")))
    predicted = _lines(run_cli("predict", bare, "-m", model, "--id-column", 0))
    ids = [row[0] for row in files["rows"]]
    assert predicted == [f"{i},{label}" for i, label in zip(ids, labels)]
    # an index from the end: -5 is the first of 5 columns
    trained = run_cli("train", bare, "-m", model, "--id-column", "-5", "-q")
    assert trained.exit_code == 0, trained.output
    assert _lines(run_cli("predict", bare, "-m", model, "--id-column", "-5")) == predicted


def test_cross_validate_sets_aside_as_train_does(files):
    options = ["--folds", 3, "-a", "centroid", "-a", "averaged", "--label-column", "class"]
    keyed = run_cli(
        "cross-validate", files["keyed"], *options, "--id-column", "id", "--ignore", "note",
        "--json",
    )  # fmt: skip
    assert keyed.exit_code == 0, keyed.output
    cut = json.loads(run_cli("cross-validate", files["cut"], *options, "--json").stdout)
    results = json.loads(keyed.stdout)["results"]
    assert [r["accuracy"] for r in results] == [r["accuracy"] for r in cut["results"]]
    assert [r["algorithm"] for r in results] == ["centroid", "averaged"]


def test_a_kept_stream_cache_is_not_reused_for_other_columns(files, tmp_path):
    """The columns set aside are reading options: a cache kept with them does not serve a
    run without them (which reads the identifier as a feature again, and says so)."""
    cache = tmp_path / "cache"
    options = ["--stream", "--cache", cache, "--label-column", "class", "-q"]
    first = run_cli("train", files["keyed"], "-m", tmp_path / "1.rbl", *options,
                    "--id-column", "id", "--ignore", "note")  # fmt: skip
    assert first.exit_code == 0, first.output
    again = run_cli("train", files["keyed"], "-m", tmp_path / "2.rbl", *options,
                    "--ignore", "id,note")  # fmt: skip
    assert again.exit_code == 0, again.output
    scores = [run_cli("predict", files["cut"], "-m", tmp_path / m, "--scores").stdout
              for m in ("1.rbl", "2.rbl")]  # fmt: skip
    assert scores[0] == scores[1] and scores[0]
    bare = run_cli("train", files["keyed"], "-m", tmp_path / "3.rbl", *options)
    assert bare.exit_code == 2 and "'msg00000' is not a number" in bare.stderr


def test_a_checkpoint_resumes_with_the_same_columns_set_aside_only(files, tmp_path):
    """Setting aside another column of the same count keeps the header and the number of
    features: the checkpoint's record of the columns set aside tells the runs apart."""
    checkpoint = tmp_path / "run.ckpt"
    options = ["--stream", "--label-column", "class", "--id-column", "id", "-q"]
    first = run_cli("train", files["keyed"], "-m", tmp_path / "1.rbl", *options,
                    "--ignore", "a,note", "--checkpoint", checkpoint)  # fmt: skip
    assert first.exit_code == 0, first.output
    same = run_cli("train", files["keyed"], "-m", tmp_path / "2.rbl", *options,
                   "--ignore", "a,note", "--resume", checkpoint)  # fmt: skip
    assert same.exit_code == 0, same.output
    assert (tmp_path / "2.rbl").read_bytes() == (tmp_path / "1.rbl").read_bytes()
    other = run_cli("train", files["keyed"], "-m", tmp_path / "3.rbl", *options,
                    "--ignore", "b,note", "--resume", checkpoint)  # fmt: skip
    assert other.exit_code == 2
    assert other.stderr.endswith(
        "was written for another input (the columns --id-column and --ignore set aside: "
        "[0, 1, 5] there, [0, 3, 5] here): --resume with the file it was written for, or start "
        "afresh without --resume\n"
    )


# ---------------------------------------------------------------- a column twice, a missing one
@pytest.mark.parametrize(
    "args, given",
    [
        (["--id-column", "id", "--id-column", "id"], "--id-column id and --id-column id"),
        (["--id-column", "id", "--id-column", "0"], "--id-column id and --id-column 0"),
        (["--id-column", "0", "--id-column", "-6"], "--id-column 0 and --id-column -6"),
        (["--id-column", "note", "--ignore", "note"], "--id-column note and --ignore note"),
    ],
)
@pytest.mark.parametrize("command", ["train", "cross-validate", "predict", "evaluate"])
def test_a_column_set_aside_twice_is_refused(files, tmp_path, command, args, given):
    model = tmp_path / "m.rbl"
    if command in ("predict", "evaluate"):
        _train(files["keyed"], model, "--id-column", "id", "--ignore", "note")
    where = ["-m", model] if command != "cross-validate" else []
    result = run_cli(command, files["keyed"], *where, "--label-column", "class", *args)
    column = "note" if "note" in given else "id"
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {files['keyed']}: column {column!r} is set aside twice ({given}); "
        "give each column once\n"
    )


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    """56 columns: an identifier, 54 features, a label."""
    path = tmp_path_factory.mktemp("wide") / "wide.csv"
    names = ["id", *(f"f{j}" for j in range(54)), "class"]
    rng = np.random.RandomState(1)
    rows = [
        ",".join([f"m{i}", *(f"{v:.3f}" for v in rng.randn(54)), str(i % 2)]) for i in range(20)
    ]
    path.write_text(",".join(names) + "\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("command", ["train", "cross-validate", "predict", "evaluate"])
def test_a_missing_column_is_named_with_a_few_near_names_not_the_header(wide, tmp_path, command):
    model = tmp_path / "m.rbl"
    if command in ("predict", "evaluate"):
        trained = run_cli("train", wide, "-m", model, "--id-column", "id", "-q")
        assert trained.exit_code == 0, trained.output
    where = ["-m", model] if command != "cross-validate" else []
    result = run_cli(command, wide, *where, "--id-column", "idd")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {wide}, line 1: --id-column idd names no column (the header's nearest name: "
        "'id'); give a header name or a 0-based index\n"
    )
    several = run_cli(command, wide, *where, "--id-column", "id", "--ignore", "f7x")
    assert several.stderr == (
        f"error: {wide}, line 1: --ignore f7x names no column (the header's nearest names: "
        "'f7', 'f17', 'f27'); give a header name or a 0-based index\n"
    )
    none = run_cli(command, wide, *where, "--id-column", "key")
    assert "--id-column key names no column (none of the header's 56 names is near it)" in (
        none.stderr
    )
    assert "f30" not in none.stderr + several.stderr + result.stderr  # never the whole header


def test_a_missing_label_column_is_named_with_near_names_too(wide, tmp_path):
    result = run_cli("train", wide, "-m", tmp_path / "m.rbl", "--label-column", "clas")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {wide}, line 1: no column named 'clas' (the header's nearest name: 'class'); "
        "give the label column's header name or its 0-based index\n"
    )


def test_identifiers_are_for_csv_files(tmp_path):
    data = tmp_path / "or.svm"
    data.write_text("-1 1:-1 2:-1\n1 1:1 2:-1\n1 1:-1 2:1\n1 1:1 2:1\n")
    for command in (["train", data, "-m", tmp_path / "m.rbl"], ["cross-validate", data]):
        result = run_cli(*command, "--id-column", 0)
        assert result.exit_code == 2 and result.stderr == (
            f"error: {data}: columns set aside (--id-column, --ignore) only apply to CSV "
            "files, and this is a svmlight file; give CSV data, or leave them out\n"
        )
    streamed = run_cli("train", data, "-m", tmp_path / "m.rbl", "--stream", "--ignore", "x")
    assert streamed.exit_code == 2 and "only apply to CSV files" in streamed.stderr


def test_help_of_every_command_that_reads_columns_lists_both_options():
    from typer.testing import CliRunner

    from rosenblatt.apps.cli import app

    for command in ("train", "cross-validate", "predict", "evaluate"):
        shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "400"})
        text = " ".join(shown.stdout.split())
        assert "--id-column" in text and "--ignore" in text, command
        assert "not read as a feature; repeat for more (each column once)" in text, command
