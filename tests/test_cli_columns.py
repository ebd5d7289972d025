"""``rosenblatt predict``/``evaluate`` match a CSV header to the model's columns by name."""

import json

import numpy as np
import pytest
from conftest import run_cli
from sklearn.datasets import load_iris

from rosenblatt import Perceptron, load, save

NAMES = ["sepal_length", "sepal_width", "petal_length", "petal_width"]


def _write(path, columns, X, y=None, header=True):
    """A CSV of ``X``'s columns named ``columns`` (a label column ``species`` when y)."""
    names = list(columns) + (["species"] if y is not None else [])
    order = [NAMES.index(c) if c in NAMES else None for c in columns]
    lines = [",".join(names)] if header else []
    for i, row in enumerate(X):
        cells = [repr(float(row[j])) if j is not None else "0" for j in order]
        lines.append(",".join(cells + ([str(y[i])] if y is not None else [])))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def iris(tmp_path_factory):
    folder = tmp_path_factory.mktemp("iris")
    data = load_iris()
    y = data.target_names[data.target]
    train = _write(folder / "iris.csv", NAMES, data.data, y)
    model = folder / "iris.rbl"
    result = run_cli("train", train, "-m", model, "-q")
    assert result.exit_code == 0, result.output
    return folder, data.data, y, model


def _one_line_error(result, *fragments):
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_reordered_columns_give_the_same_predictions_and_scores(iris):
    folder, X, y, model = iris
    same = run_cli("evaluate", folder / "iris.csv", "-m", model, "--json")
    reverse = _write(folder / "reverse.csv", NAMES[::-1], X, y)
    turned = run_cli("evaluate", reverse, "-m", model, "--json")
    assert turned.exit_code == 0, turned.output
    assert json.loads(turned.stdout) == json.loads(same.stdout)
    assert json.loads(same.stdout)["accuracy"] > 0.6  # not the 1/3 of columns taken by position
    # without the label column, in another order, a block of 7 lines at a time
    shuffled = _write(folder / "shuffled.csv", [NAMES[i] for i in (2, 0, 3, 1)], X)
    expected = run_cli("predict", folder / "iris.csv", "-m", model).stdout
    assert run_cli("predict", shuffled, "-m", model, "--chunk-size", "7").stdout == expected
    assert len(expected.split()) == 150


def test_a_missing_or_unexpected_column_is_named(iris):
    folder, X, y, model = iris
    missing = _write(folder / "missing.csv", NAMES[:3], X, y)
    for command in ("predict", "evaluate"):
        _one_line_error(run_cli(command, missing, "-m", model), "no column 'petal_width'")
    extra = _write(folder / "extra.csv", NAMES + ["colour"], X)
    _one_line_error(run_cli("predict", extra, "-m", model), "unexpected column 'colour'")
    other = _write(folder / "other.csv", ["a", "b", "c", "d"], X)
    _one_line_error(run_cli("predict", other, "-m", model), "no column 'sepal_length'")


def test_headerless_files_keep_the_positional_rule(iris):
    folder, X, y, model = iris
    plain = _write(folder / "plain.csv", NAMES, X, y, header=False)
    expected = json.loads(run_cli("evaluate", folder / "iris.csv", "-m", model, "--json").stdout)
    assert json.loads(run_cli("evaluate", plain, "-m", model, "--json").stdout) == expected


def test_the_model_keeps_the_names_and_refuses_other_columns(iris):
    pd = pytest.importorskip("pandas", reason="DataFrames show scikit-learn's name check")
    folder, X, y, model = iris
    fitted = load(model)
    assert list(fitted.feature_names_in_) == NAMES
    frame = pd.DataFrame(X, columns=NAMES)
    with pytest.warns(UserWarning, match="feature names"):  # as scikit-learn warns
        unnamed = fitted.predict(X)
    np.testing.assert_array_equal(fitted.predict(frame), unnamed)
    with pytest.raises(ValueError, match="feature names"):
        fitted.predict(frame[NAMES[::-1]])


def test_a_model_without_names_reads_by_position(tmp_path):
    """Models saved before names were kept (or from arrays) read every header by position."""
    X, y = load_iris(return_X_y=True)
    model = tmp_path / "old.rbl"
    save(Perceptron(random_state=0).fit(X, y), model)
    turned = _write(tmp_path / "reverse.csv", NAMES[::-1], X, y)
    result = run_cli("predict", turned, "-m", model)
    assert result.exit_code == 0, result.output
    expected = Perceptron(random_state=0).fit(X, y).predict(X[:, ::-1])
    np.testing.assert_array_equal(np.array(result.stdout.split(), dtype=int), expected)
