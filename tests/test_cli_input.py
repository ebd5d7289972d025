"""What a command-line user pipes in (issue 36): standard input in any format without
``--format``, identifiers carried through (``--id-column``, ``--ignore``), a folder named as
a folder wherever a file is expected, and a data error that names its column the same way
at every block size."""

import gzip
import json
import re
import select
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import assert_one_line_error, run_cli
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import make_pipeline

import rosenblatt
from rosenblatt.data.readers._common import format_by_content
from rosenblatt.exceptions import DataFileError
from rosenblatt.persistence import read_manifest

CLI = [sys.executable, "-m", "rosenblatt"]
NAMES = ["a", "b", "c"]
SPAM = ["win a free prize now", "free cash prize", "claim your free cash", "you won a prize"]
HAM = ["see you at lunch", "notes for the lecture", "call me at home", "lunch at noon"]


def _numbers(X):
    return [",".join(f"{v:.6f}" for v in row) for row in X]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One model per format, trained by `rosenblatt train`, with its training file."""
    folder = tmp_path_factory.mktemp("trained")
    rng = np.random.RandomState(0)
    X = rng.randn(300, 3)
    y = np.where(X @ [1.0, -1.0, 0.5] > 0, "up", "down")
    files = {
        "csv": "a,b,c,label\n" + "".join(f"{r},{t}\n" for r, t in zip(_numbers(X), y)),
        "svm": "".join(
            f"{1 if t == 'up' else -1} "
            + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(r))
            + "\n"
            for r, t in zip(X, y)
        ),
        "tsv": "".join(f"spam\t{t}\n" for t in SPAM) + "".join(f"ham\t{t}\n" for t in HAM),
    }
    out = {"X": X, "y": y, "folder": folder}
    for kind, text in files.items():
        data = folder / f"train.{kind}"
        data.write_text(text)
        model = folder / f"{kind}.rbl"
        assert run_cli("train", data, "-m", model, "-q").exit_code == 0
        out[kind] = (data, model)
    calibrated = folder / "calibrated.rbl"
    trained = run_cli("train", out["csv"][0], "-m", calibrated, "-q", "--calibrate", "sigmoid")
    assert trained.exit_code == 0, trained.output
    out["calibrated"] = calibrated
    return out


# ------------------------------------------------------------------ standard input, any format
@pytest.mark.parametrize("kind", ["csv", "svm", "tsv"])
def test_predict_and_evaluate_read_standard_input_in_the_models_format(trained, kind):
    data, model = trained[kind]
    named = run_cli("predict", data, "-m", model, "--scores")
    assert named.exit_code == 0, named.output
    for given in (data.read_bytes(), gzip.compress(data.read_bytes())):
        piped = run_cli("predict", "-", "-m", model, "--scores", input=given)
        assert piped.exit_code == 0, piped.output
        assert piped.stdout == named.stdout
    scored = run_cli("evaluate", data, "-m", model, "--json")
    piped = run_cli("evaluate", "-", "-m", model, "--json", input=data.read_bytes())
    assert piped.exit_code == 0, piped.output
    assert json.loads(piped.stdout) == json.loads(scored.stdout)
    # a name whose extension does not tell is read the model's way too
    odd = data.parent / f"{kind}-copy.data"
    odd.write_bytes(data.read_bytes())
    assert run_cli("predict", odd, "-m", model, "--scores").stdout == named.stdout


def test_an_explicit_format_still_wins(trained):
    data, model = trained["tsv"]
    assert_one_line_error(
        run_cli("predict", "-", "-m", model, "--format", "csv", input=data.read_bytes()),
        "<stdin>: a csv file, but the model was trained on text",
    )


def test_a_model_saved_from_python_tells_what_it_was_fitted_on(trained, tmp_path):
    X, y = trained["X"], trained["y"]
    frame = pd.DataFrame(X, columns=NAMES)
    by_name = rosenblatt.Perceptron(random_state=0).fit(frame, y)
    rosenblatt.save(by_name, tmp_path / "frame.rbl")
    shuffled = frame[["c", "a", "b"]]
    text = "c,a,b\n" + "".join(f"{r}\n" for r in _numbers(shuffled.to_numpy()))
    piped = run_cli("predict", "-", "-m", tmp_path / "frame.rbl", input=text)
    assert piped.exit_code == 0, piped.output
    assert piped.stdout.split() == by_name.predict(frame).tolist()

    documents, labels = SPAM + HAM, ["spam"] * 4 + ["ham"] * 4
    pipeline = make_pipeline(TfidfVectorizer(), rosenblatt.Perceptron(random_state=0))
    rosenblatt.save(pipeline.fit(documents, labels), tmp_path / "text.rbl")
    piped = run_cli("predict", "-", "-m", tmp_path / "text.rbl", input="\n".join(documents))
    assert piped.exit_code == 0, piped.output
    assert piped.stdout.split() == pipeline.predict(documents).tolist()


def test_a_model_fitted_on_an_array_reads_the_format_of_the_first_lines(trained, tmp_path):
    X, y = trained["X"], trained["y"]
    model = rosenblatt.Perceptron(random_state=0).fit(X, y)
    rosenblatt.save(model, tmp_path / "array.rbl")
    expected = model.predict(X).tolist()
    csv = "".join(f"{r}\n" for r in _numbers(X))  # 300 lines: more than the first ones read
    piped = run_cli("predict", "-", "-m", tmp_path / "array.rbl", input=csv)
    assert piped.exit_code == 0, piped.output
    assert piped.stdout.split() == expected
    svm = "".join("0 " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(r)) + "\n" for r in X)
    piped = run_cli("predict", "-", "-m", tmp_path / "array.rbl", "--one-based", input=svm)
    assert piped.exit_code == 0, piped.output
    assert piped.stdout.split() == expected
    # what the first lines cannot tell, and what the model cannot: one line each, saying why
    assert_one_line_error(
        run_cli("predict", "-", "-m", tmp_path / "array.rbl", input=svm),
        "pass --zero-based or --one-based",
    )
    assert_one_line_error(
        run_cli("predict", "-", "-m", tmp_path / "array.rbl", input="1,2,3\n1 2:3\n"),
        "<stdin>: cannot tell its format by its first lines: line 1 is CSV, line 2 svmlight",
        "--format csv|svmlight|tsv",
    )
    assert_one_line_error(
        run_cli("predict", "-", "-m", tmp_path / "array.rbl", input="1\n2\n"),
        "they can be CSV or svmlight",
    )


@pytest.mark.parametrize(
    "lines, kind",
    [
        (["a,b,label", "1,2,yes", "3.5,-1e3,no"], "csv"),
        (["1,2", "3,4"], "csv"),
        (["# a comment", "+1 1:0.5 3:1", "-1 qid:2 2:1 # note"], "svmlight"),
        (["1\t2:0.5\t7:1"], "svmlight"),  # tabs between index:value tokens
        (["", "ham\tsee you, at noon", "spam\tWIN now"], "text"),
    ],
)
def test_the_format_of_the_first_lines(lines, kind):
    assert format_by_content("-", lines) == kind


@pytest.mark.parametrize(
    "lines, why",
    [
        ([], "no data lines"),
        (["", "  "], "no data lines"),
        (["1", "2"], "they can be CSV or svmlight"),
        (["1,2", "ham\thello"], "line 1 is CSV, line 2 label<TAB>text"),
        (["a b c"], "line 1 ('a b c') is in none of them"),
    ],
)
def test_first_lines_that_cannot_tell_say_why(lines, why):
    with pytest.raises(DataFileError, match=re.escape(why)):
        format_by_content("<stdin>", lines)


def _answers_before_the_input_ends(args, rows):
    """The lines `rosenblatt *args` prints for ``rows`` written one at a time to its open
    standard input, each read before the next row is written."""
    process = subprocess.Popen(
        CLI + [str(a) for a in args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        answers = []
        for row in rows:
            process.stdin.write(row)
            process.stdin.flush()  # the pipe stays open: the answer must come anyway
            ready, _, _ = select.select([process.stdout], [], [], 30)
            assert ready, "no answer while standard input stays open"
            answers.append(process.stdout.readline().strip().decode())
        process.stdin.close()
        assert process.wait(30) == 0, process.stderr.read()
    finally:
        process.kill()
    return answers


def test_predict_dash_without_a_format_is_still_a_filter(trained, tmp_path):
    _, model = trained["csv"]
    rows = [b"a,b,c\n", b"3,-3,0\n", b"-3,3,0\n"]
    assert _answers_before_the_input_ends(["predict", "-", "-m", model], rows[1:]) == [
        "up",
        "down",
    ]
    array = rosenblatt.Perceptron(random_state=0).fit(trained["X"], trained["y"])
    rosenblatt.save(array, tmp_path / "array.rbl")  # the format told by the first line
    answers = _answers_before_the_input_ends(
        ["predict", "-", "-m", tmp_path / "array.rbl"], rows[1:]
    )
    assert answers == array.predict(np.array([[3, -3, 0], [-3, 3, 0]])).tolist()


# -------------------------------------------------------------------- identifiers carried through
@pytest.fixture(scope="module")
def keyed(trained):
    """The training rows with an identifier first (text, one with a comma) and a note column."""
    X, folder = trained["X"], trained["folder"]
    keys = [f"row {i}" if i != 5 else "row 5, again" for i in range(len(X))]
    rows = [f'"{k}",{r},note {i}' for i, (k, r) in enumerate(zip(keys, _numbers(X)))]
    path = folder / "keyed.csv"
    path.write_text("id,a,b,c,note\n" + "\n".join(rows) + "\n")
    plain = folder / "plain.csv"
    plain.write_text("a,b,c\n" + "\n".join(_numbers(X)) + "\n")
    return path, plain, keys


@pytest.mark.parametrize("chunk_size", [1, 7, 10_000])
def test_id_columns_come_beside_the_predictions_as_csv(trained, keyed, chunk_size, tmp_path):
    _, model = trained["csv"]
    path, plain, keys = keyed
    labels = run_cli("predict", plain, "-m", model).stdout.split()
    expected = "id,label\n" + "".join(
        f'"{k}",{label}\n' if "," in k else f"{k},{label}\n" for k, label in zip(keys, labels)
    )
    args = ["-m", model, "--id-column", "id", "--ignore", "note", "--chunk-size", chunk_size]
    result = run_cli("predict", path, *args)
    assert result.exit_code == 0, result.output
    assert result.stdout == expected
    piped = run_cli("predict", "-", *args, input=path.read_bytes())
    assert piped.stdout == expected
    written = run_cli("predict", path, *args, "-o", tmp_path / "labels.csv")
    assert written.exit_code == 0, written.output
    assert (tmp_path / "labels.csv").read_text() == expected
    by_index = run_cli("predict", path, *args[:2], "--id-column", 0, "--ignore", "note")
    assert by_index.stdout == expected


def test_id_columns_with_scores_probabilities_and_json(trained, keyed):
    _, model = trained["csv"]
    path, plain, keys = keyed
    plain_scores = run_cli("predict", plain, "-m", model, "--scores").stdout.splitlines()
    scored = run_cli(
        "predict", path, "-m", model, "--id-column", "id", "--ignore", "note", "--scores"
    )
    lines = scored.stdout.splitlines()
    assert lines[0] == "id,label,score"
    assert lines[1:3] == [f"{keys[i]},{plain_scores[i].replace(chr(9), ',')}" for i in range(2)]
    calibrated = trained["calibrated"]
    plain_proba = run_cli("predict", plain, "-m", calibrated, "--proba").stdout.splitlines()
    proba = run_cli("predict", "-", "-m", calibrated, "--id-column", "id", "--ignore", "note",
                    "--proba", input=path.read_bytes())  # fmt: skip
    assert proba.exit_code == 0, proba.output
    assert proba.stdout.splitlines()[0] == "id,label,P(down),P(up)"
    assert proba.stdout.splitlines()[1] == f"{keys[0]},{plain_proba[0].replace(chr(9), ',')}"
    as_json = run_cli(
        "predict", path, "-m", model, "--id-column", "id", "--ignore", "note", "--json"
    )
    payload = json.loads(as_json.stdout)
    assert payload["id_columns"] == ["id"] and payload["ids"] == [[k] for k in keys]
    assert payload["predictions"] == run_cli("predict", plain, "-m", model).stdout.split()


def test_id_columns_of_a_file_without_a_header_go_by_index(trained):
    _, model = trained["csv"]
    X = trained["X"][:3]
    text = "".join(f"k{i},{r}\n" for i, r in enumerate(_numbers(X)))
    result = run_cli("predict", "-", "-m", model, "--id-column", 0, input=text)
    assert result.exit_code == 0, result.output
    labels = run_cli("predict", "-", "-m", model, input="\n".join(_numbers(X))).stdout.split()
    assert result.stdout.splitlines() == [f"k{i},{label}" for i, label in enumerate(labels)]
    assert "columns: --id-column 0, label" in result.stderr


def test_columns_the_model_does_not_know_stay_an_error_unless_set_aside(trained, keyed):
    data, model = trained["csv"]
    path, _, _ = keyed
    assert_one_line_error(
        run_cli("predict", path, "-m", model),
        "unexpected column 'id', 'note'",
        "drop the columns the model does not use with --ignore id,note",
    )
    assert_one_line_error(
        run_cli("predict", path, "-m", model, "--ignore", "note"), "unexpected column 'id'"
    )
    assert_one_line_error(
        run_cli("predict", path, "-m", model, "--id-column", "key", "--ignore", "note"),
        "--id-column key names no column (none of the header's 5 names is near it)",
    )
    assert_one_line_error(
        run_cli("predict", path, "-m", model, "--id-column", "id", "--ignore", "note,a"),
        "the model uses column 'a', which --ignore a sets aside",
    )
    assert_one_line_error(
        run_cli("predict", path, "-m", model, "--id-column", 9, "--ignore", "note"),
        "--id-column 9 is out of range for 5 columns",
    )
    svm_data, svm_model = trained["svm"]
    assert_one_line_error(
        run_cli("predict", svm_data, "-m", svm_model, "--id-column", 0),
        "columns set aside (--id-column, --ignore) only apply to CSV files",
    )
    evaluated = run_cli("evaluate", data, "-m", model, "--json", "--ignore", "nothing")
    assert_one_line_error(evaluated, "--ignore nothing names no column")


# ------------------------------------------------------------------------ a folder is a folder
def _folder_cases():
    """Every file a command reads or writes, given a folder: (arguments, what is said)."""
    data, model = "{data}", "{model}"
    reads_data, reads_model = "a folder, not a data file", "a folder, not a model file"
    writes = "a folder has that name; give a file name"
    return [
        (["train", "{dir}", "-m", "{out}.rbl"], reads_data),
        (["train", "{dir}", "-m", "{out}.rbl", "--stream"], reads_data),
        (["train", data, "-m", "{dir}"], writes),
        (["predict", "{dir}", "-m", model], reads_data),
        (["predict", data, "-m", "{dir}"], reads_model),
        (["predict", data, "-m", model, "-o", "{dir}"], writes),
        (["evaluate", "{dir}", "-m", model], reads_data),
        (["evaluate", data, "-m", "{dir}"], reads_model),
        (["inspect", "{dir}"], reads_data),
        (["trace", "{dir}"], reads_data),
        (["plot", "{dir}", "-o", "{out}.png"], reads_data),
        (["plot", data, "-m", "{dir}", "-o", "{out}.png"], reads_model),
        (["plot", data, "-o", "{dir}"], writes),
        (["plot", "--losses", "-o", "{dir}"], writes),
        (["cross-validate", "{dir}"], reads_data),
        (["export", "--model", "{dir}", "--onnx", "{out}.onnx"], reads_model),
        (["export", "--model", model, "--onnx", "{dir}"], writes),
    ]


@pytest.mark.parametrize(
    "args, said", _folder_cases(), ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_a_folder_where_a_file_is_expected_is_named_as_a_folder(tmp_path, args, said):
    data = tmp_path / "or.csv"
    data.write_text("x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,yes\n")
    model = tmp_path / "m.rbl"
    assert run_cli("train", data, "-m", model, "-q").exit_code == 0
    folder = tmp_path / "a-folder"
    folder.mkdir()
    names = {"data": data, "model": model, "dir": folder, "out": tmp_path / "out"}
    result = run_cli(*(arg.format(**names) for arg in args))
    assert_one_line_error(result, f"{folder}: {said}")
    assert list(folder.iterdir()) == [] and not list(tmp_path.glob("out*"))


def test_a_file_where_a_folder_is_expected_is_named_too(tmp_path):
    data = tmp_path / "or.csv"
    data.write_text("x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,yes\n")
    a_file = tmp_path / "a-file"
    a_file.write_text("kept")
    for args in (
        ["train", data, "-m", tmp_path / "m.rbl", "--stream", "--cache", a_file],
        ["playground", "--export", a_file],
        ["demo", "-o", a_file],
    ):
        assert_one_line_error(run_cli(*args), f"{a_file} is not a folder; give another path")
    assert a_file.read_text() == "kept"


# ------------------------------------------------------ one column name, whatever the block size
@pytest.mark.parametrize("header", [True, False])
def test_a_data_error_names_its_column_the_same_at_every_block_size(trained, tmp_path, header):
    data, model = trained["csv"]
    lines = data.read_text().splitlines()
    lines[150] = lines[150].split(",", 1)[0] + ",nan," + lines[150].split(",", 2)[2]
    if not header:
        lines = lines[1:]
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    line = 151 if header else 150
    where = f"line {line}, column {'b' if header else 2}".replace("b", "'b'")
    said = set()
    for size in (1, 100, None):
        sized = [] if size is None else ["--chunk-size", size]
        for command in ("predict", "evaluate"):
            result = run_cli(command, bad, "-m", model, *sized)
            assert_one_line_error(result, f"{bad}, {where}: 'nan' is a missing or infinite value")
            said.add(result.stderr.replace(str(bad), "DATA"))
        piped = run_cli("predict", "-", "-m", model, *sized, input=bad.read_bytes())
        assert_one_line_error(piped, f"<stdin>, {where}:")
        said.add(piped.stderr.replace("<stdin>", "DATA"))
    assert len(said) == 1, said  # word for word


def test_a_filter_stopped_by_a_bad_row_has_written_the_blocks_before_it(trained, tmp_path):
    """What README says: standard output holds the labels of the blocks before the bad
    row's; -o holds nothing (no file); --json nothing."""
    data, model = trained["csv"]
    lines = data.read_text().splitlines()
    lines[151] = lines[151].replace(",", ",x", 1)  # line 152
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    result = run_cli("predict", bad, "-m", model, "--chunk-size", 100)
    assert result.exit_code == 2 and "line 152" in result.stderr
    assert len(result.stdout.splitlines()) == 99  # lines 2-100: the first block's rows
    assert run_cli("predict", bad, "-m", model).stdout == ""  # one block: nothing yet
    assert run_cli("predict", bad, "-m", model, "--chunk-size", 100, "--json").stdout == ""
    output = tmp_path / "labels.txt"
    assert run_cli("predict", bad, "-m", model, "--chunk-size", 100, "-o", output).exit_code == 2
    assert not output.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


# ------------------------------------------------------------ streamed training records names too
def test_a_model_trained_streaming_matches_columns_by_name(trained, tmp_path):
    data, _ = trained["csv"]
    model = tmp_path / "streamed.rbl"
    assert run_cli("train", data, "-m", model, "--stream", "-q").exit_code == 0
    metadata = read_manifest(model)["metadata"]
    assert metadata["feature_names"] == NAMES and metadata["label_name"] == "label"
    frame = pd.read_csv(data)
    reordered = tmp_path / "reordered.csv"
    frame[["label", "c", "a", "b"]].to_csv(reordered, index=False)
    same = run_cli("predict", data, "-m", model).stdout
    assert run_cli("predict", reordered, "-m", model).stdout == same
    frame.assign(extra=1.0).to_csv(tmp_path / "extra.csv", index=False)
    assert_one_line_error(
        run_cli("predict", tmp_path / "extra.csv", "-m", model), "unexpected column 'extra'"
    )


# ------------------------------------------- issue 42: the same answer, whatever the block size
def _the_same_error_everywhere(
    model, bad, *fragments, commands=("predict", "evaluate"), options=()
):
    """Each command at --chunk-size 1, 7, 100 and the default, and `predict -`, exits with
    one line that says ``fragments``, word for word the same (the input named DATA)."""
    said = set()
    for size in (1, 7, 100, None):
        sized = [*options] + ([] if size is None else ["--chunk-size", size])
        for command in commands:
            result = run_cli(command, bad, "-m", model, *sized)
            assert_one_line_error(result, *fragments)
            said.add(result.stderr.replace(str(bad), "DATA"))
        piped = run_cli("predict", "-", "-m", model, *sized, input=bad.read_bytes())
        assert_one_line_error(piped, *fragments)
        said.add(piped.stderr.replace("<stdin>", "DATA"))
    assert len(said) == 1, said
    return said.pop()


@pytest.mark.parametrize(
    "rows, said",
    [
        (
            ["1,2,3,up", "1,abc,3,down", "1,2", "4,5,6,up"],
            "line 3, column 'b': 'abc' is not a number",
        ),
        (["1,2,3,up", "1,2", "1,abc,3,down"], "line 3: 2 fields, but line 1 has 4"),
        (["1,2,3,up", "1,2,3,0.5", "1,2"], "line 3: the label '0.5' is a number, but line 2 has "),
    ],
)
def test_two_bad_rows_the_first_is_named_at_every_block_size(trained, tmp_path, rows, said):
    _, model = trained["csv"]
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,c,label\n" + "\n".join(rows) + "\n")
    _the_same_error_everywhere(model, bad, said)


def test_svmlight_two_bad_rows_the_first_is_named_at_every_block_size(trained, tmp_path):
    _, model = trained["svm"]
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:0.5 2:1\n-1 0:1 3:2\n1 1:x\n")
    _the_same_error_everywhere(model, bad, "line 2: feature index 0 is below 1")


def test_a_field_too_long_is_named_alike_at_every_block_size(trained, tmp_path):
    _, model = trained["csv"]
    bad = tmp_path / "bad.csv"
    rows = [f"{i},1,2,up" for i in range(60)]
    rows[57] = "1," + "9" * 140_000 + ",2,up"
    bad.write_text("a,b,c,label\n" + "\n".join(rows) + "\n")
    _the_same_error_everywhere(
        model,
        bad,
        "line 59, column 'b': a field of more than 131,072 characters, the most a CSV field "
        "may hold; check the quotes",
    )


def test_a_tsv_file_without_a_tab_on_its_first_line_is_no_labelled_file(trained, tmp_path):
    _, model = trained["tsv"]
    bad = tmp_path / "bad.tsv"
    bad.write_text("ham see you\nspam\tfree cash\nham\tlunch\n")
    _the_same_error_everywhere(
        model, bad, "line 2: a tab, but line 1 has none", commands=("predict",)
    )


def test_a_stray_quote_reads_the_same_at_every_block_size(trained, tmp_path):
    _, model = trained["csv"]
    data = tmp_path / "ids.csv"
    data.write_text('id,a,b,c\nab"c,1.5,2,3\n"x\ny",2.5,1,2\nz,3.5,4,5\n')
    outputs = set()
    for size in (1, 7, 100, None):
        sized = [] if size is None else ["--chunk-size", size]
        result = run_cli("predict", data, "-m", model, "--id-column", "id", *sized)
        assert result.exit_code == 0, result.output
        outputs.add(result.stdout)
        piped = run_cli("predict", "-", "-m", model, "--id-column", "id", *sized,
                        input=data.read_bytes())  # fmt: skip
        outputs.add(piped.stdout)
    assert len(outputs) == 1


@pytest.mark.parametrize("chunk_size", [1, 10_000])
def test_identifiers_are_written_as_valid_csv_whatever_they_hold(trained, tmp_path, chunk_size):
    import csv
    import io

    _, model = trained["csv"]
    ids = ['say "hi"', "a,b", "two\nlines", "cr\rhere", "crlf\r\nhere", "  spaced", "plain"]
    quoted = ['"' + key.replace('"', '""') + '"' for key in ids]
    X = _numbers(trained["X"][: len(ids)])
    data = tmp_path / "ids.csv"
    data.write_text("id,a,b,c\n" + "".join(f"{k},{r}\n" for k, r in zip(quoted, X)), newline="")
    labels = run_cli("predict", "-", "-m", model, input="\n".join(X)).stdout.split()
    result = run_cli("predict", data, "-m", model, "--id-column", "id", "--chunk-size", chunk_size)
    assert result.exit_code == 0, result.output
    records = list(csv.reader(io.StringIO(result.stdout, newline="")))
    # the readers strip cells and read a lone \r as a line break, as csv writes it back
    expected = [key.strip().replace("\r\n", "\n").replace("\r", "\n") for key in ids]
    assert records == [["id", "label"]] + [[k, label] for k, label in zip(expected, labels)]


def test_svmlight_features_beyond_the_model_are_ignored_with_a_note(trained, tmp_path):
    _, model = trained["svm"]
    data = tmp_path / "wide.svm"
    data.write_text("1 1:0.5 55:1\n-1 2:1\n1 3:1 9:2\n")
    narrow = tmp_path / "narrow.svm"
    narrow.write_text("1 1:0.5\n-1 2:1\n1 3:1\n")
    expected = run_cli("predict", narrow, "-m", model).stdout
    note = (
        "note: 2 rows held features beyond the model's 3 (ignored: their weights are 0); "
        "--strict-features refuses them\n"
    )
    for size in (1, 7, None):
        sized = [] if size is None else ["--chunk-size", size]
        result = run_cli("predict", data, "-m", model, *sized)
        assert result.exit_code == 0, result.output
        assert result.stdout == expected and result.stderr == note
        piped = run_cli("predict", "-", "-m", model, *sized, input=data.read_bytes())
        assert piped.stdout == expected and piped.stderr == note
    evaluated = run_cli("evaluate", data, "-m", model, "--json")
    assert evaluated.stderr == note
    assert json.loads(evaluated.stdout) == json.loads(
        run_cli("evaluate", narrow, "-m", model, "--json").stdout
    )
    _the_same_error_everywhere(
        model,
        data,
        "line 1: feature index 55 is beyond n_features=3",
        "leave out --strict-features to ignore the others",
        options=["--strict-features"],
    )
    assert run_cli("predict", narrow, "-m", model).stderr == ""  # no note without such rows
