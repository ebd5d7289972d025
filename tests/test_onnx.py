"""ONNX export: onnxruntime's labels, scores and probabilities are the model's.

Every classifier and pipeline of ``tests/onnx_cases.py`` is fitted on real data and run
by onnxruntime on held-out rows, in float32 and float64: the labels must be identical
and the scores (probabilities) within 1e-5 of the largest one, 1e-10 in float64. Then
``skl2onnx.to_onnx`` with the package's converters, the errors, and ``rosenblatt export``.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from conftest import run_cli

pytest.importorskip(
    "onnxruntime", reason="the onnx extra is not installed (pip install -e '.[dev]')"
)
pytest.importorskip("skl2onnx", reason="the onnx extra is not installed (pip install -e '.[dev]')")

import onnx_cases  # noqa: E402
from sklearn.base import BaseEstimator, TransformerMixin  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import rosenblatt  # noqa: E402
from rosenblatt import KernelPerceptron, Perceptron, to_onnx  # noqa: E402

TOLERANCE = {np.float32: 1e-5, np.float64: 1e-10}


@pytest.mark.parametrize("case", onnx_cases.CASES, ids=lambda case: case.name)
def test_onnxruntime_gives_the_models_labels_and_scores(case):
    fitted = onnx_cases.fitted(case)
    if fitted is None:
        pytest.skip(f"needs ../shared/data ({case.data} is not there)")
    model, X_test, _ = fitted
    for dtype in case.dtypes:
        parity = onnx_cases.parity(model, X_test, dtype)
        assert parity.same_labels == parity.n and parity.same_shape, (case.name, dtype, parity)
        assert parity.difference <= TOLERANCE[dtype], (case.name, dtype, parity)


def test_the_cases_cover_every_classifier_and_step():
    names = " ".join(case.name for case in onnx_cases.CASES)
    for what in (
        "Perceptron",
        "AveragedPerceptron",
        "VotedPerceptron",
        "KernelPerceptron",
        "Projectron",
        "CentroidClassifier",
        "LinearProgramClassifier",
        "multinomial",
        "labels",
        "calibrated",
        "calibrated online",
        "tf-idf",
        "TfDfTransformer",
        "PolynomialFeatures",
        "OneHotEncoder",
        "ColumnTransformer",
        "CalibratedClassifierCV",
    ):
        assert what in names
    assert {case.data for case in onnx_cases.CASES} >= {"or", "spambase", "sms", "digits"}


def test_skl2onnx_converts_pipelines_holding_the_packages_estimators():
    import skl2onnx

    from rosenblatt.persistence.onnx import register_converters

    X, _, y, _ = onnx_cases.dataset("digits")
    X = X.astype(np.float32)
    pipe = make_pipeline(StandardScaler(), Perceptron(random_state=0)).fit(X, y)
    register_converters()
    label, scores = onnx_cases.run_graph(skl2onnx.to_onnx(pipe, X[:1]), X)
    np.testing.assert_array_equal(label, pipe.predict(X))
    assert onnx_cases.relative_difference(scores, pipe.decision_function(X)) < 1e-5


def test_text_graphs_run_in_the_c_locale():
    """onnxruntime's StringNormalizer fails where its locale is missing (en_US, its
    default, is on few servers): the graph asks for "C", which every machine has."""
    case = next(c for c in onnx_cases.CASES if c.data == "sms")
    model, X_test, _ = onnx_cases.fitted(case)
    graph = to_onnx(model)
    locales = [
        attribute.s.decode()
        for node in graph.graph.node
        if node.op_type == "StringNormalizer"
        for attribute in node.attribute
        if attribute.name == "locale"
    ]
    assert locales == ["C"]
    label, _ = onnx_cases.run_graph(graph, X_test[:20])
    np.testing.assert_array_equal(label, model.predict(X_test[:20]))


def test_words_with_letters_outside_ascii_are_the_vectorizers():
    """The default token pattern runs as Unicode classes (RE2's \\w is ASCII only)."""
    texts = np.array(["naïve café résumé", "plain words here", "naïve plain"], dtype=object)
    model = make_pipeline(onnx_cases.TfidfVectorizer(), Perceptron(shuffle=False, tol=None)).fit(
        texts, [1, 0, 1]
    )
    _, scores = onnx_cases.run_graph(to_onnx(model, dtype=np.float64), texts)
    np.testing.assert_allclose(scores, model.decision_function(texts), rtol=1e-12, atol=1e-12)


def test_calibrated_models_in_every_arrangement():
    """A fold that never saw a class, one classifier for all folds, a pipeline ending in
    a calibrated model: ``predict_proba`` all the same."""
    X, _, y, _ = onnx_cases.dataset("digits")
    X, y = X[y < 4], y[y < 4]
    half = np.arange(len(y)) % 2
    without_3 = [(np.flatnonzero((half == 0) & (y != 3)), np.flatnonzero(half == 1))]
    folds = without_3 + [(np.flatnonzero(half == 1), np.flatnonzero(half == 0))]
    models = [
        rosenblatt.calibrated(Perceptron(random_state=0), cv=folds, method="isotonic"),
        rosenblatt.calibrated(Perceptron(random_state=0), cv=3, ensemble=False),
        make_pipeline(StandardScaler(), rosenblatt.calibrated(Perceptron(random_state=0), cv=3)),
    ]
    for model in models:
        model.fit(X, y)
        label, proba = onnx_cases.run_graph(to_onnx(model, dtype=np.float64), X)
        np.testing.assert_array_equal(label, model.predict(X))
        assert onnx_cases.relative_difference(proba, model.predict_proba(X)) < 1e-10
    assert list(models[0].estimators_[0].classes_) == [0, 1, 2]  # the fold without a 3


# ---------------------------------------------------------------------- what cannot export
class _Unknown(TransformerMixin, BaseEstimator):
    def fit(self, X, y=None):
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        return X


def _or(estimator):
    return estimator.fit(onnx_cases.OR_X, onnx_cases.OR_Y)


@pytest.mark.parametrize(
    "model, message",
    [
        (
            lambda: _or(make_pipeline(_Unknown(), Perceptron())),
            "cannot export step '_unknown' (_Unknown) of Pipeline to ONNX: skl2onnx has no "
            "converter for it",
        ),
        (
            lambda: _or(KernelPerceptron(kernel=lambda a, b: float(a @ b))),
            "cannot export KernelPerceptron to ONNX: its kernel is a Python function",
        ),
        (lambda: _or(LogisticRegression()), "to_onnx exports rosenblatt's classifiers"),
        (lambda: Perceptron(), "This Perceptron instance is not fitted yet"),
    ],
    ids=["unknown step", "callable kernel", "not ours", "not fitted"],
)
def test_what_cannot_export_is_named_in_one_line(model, message):
    with pytest.raises(ValueError) as raised:
        to_onnx(model())
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_the_input_is_checked():
    model = _or(Perceptron())
    with pytest.raises(ValueError, match=r"n_features=3, but Perceptron was fitted on 2"):
        to_onnx(model, n_features=3)
    with pytest.raises(ValueError, match=r"dtype must be numpy.float32 or numpy.float64"):
        to_onnx(model, dtype=np.int64)
    assert to_onnx(model, n_features=2).graph.input[0].name == "X"
    case = next(c for c in onnx_cases.CASES if c.data == "sms")
    with pytest.raises(ValueError, match=r"takes one string per row; leave it None"):
        to_onnx(onnx_cases.fitted(case)[0], n_features=10)


def test_without_the_extra_the_error_says_how_to_install_it(monkeypatch, tmp_path):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "skl2onnx" else real(name, *a)
    )
    with pytest.raises(ImportError, match=r"needs skl2onnx: pip install 'rosenblatt\[onnx\]'"):
        to_onnx(_or(Perceptron()))
    rosenblatt.save(_or(Perceptron()), tmp_path / "or.rbl")
    result = run_cli("export", "--model", tmp_path / "or.rbl", "--onnx", tmp_path / "or.onnx")
    assert result.exit_code == 2
    assert "pip install 'rosenblatt[onnx]'" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "or.onnx").exists()


# ---------------------------------------------------------------------- the command line
@pytest.mark.parametrize("calibrate", [None, "sigmoid", "online"])
def test_export_writes_a_graph_that_predicts_as_the_model_file(tmp_path, calibrate):
    from sklearn.datasets import make_classification

    X, y = make_classification(300, 6, random_state=0)
    data = tmp_path / "train.csv"
    np.savetxt(data, np.c_[X, y], delimiter=",", fmt="%.6g")
    model_path, onnx_path = tmp_path / "m.rbl", tmp_path / "m.onnx"
    extra = ["--calibrate", calibrate] if calibrate else []
    assert run_cli("train", data, "--model", model_path, "-q", *extra).exit_code == 0
    result = run_cli("export", "--model", model_path, "--onnx", onnx_path, "--dtype", "float64")
    assert result.exit_code == 0, result.output
    assert f"wrote {onnx_path}" in result.output
    import onnx

    model = rosenblatt.load(model_path)
    rows = np.loadtxt(data, delimiter=",")[:, :-1]
    label, values = onnx_cases.run_graph(onnx.load(onnx_path), rows)
    expected = model.predict_proba(rows) if calibrate else model.decision_function(rows)
    np.testing.assert_array_equal(label, model.predict(rows))
    assert onnx_cases.relative_difference(values, expected) < 1e-10


def test_export_errors_are_one_line_and_exit_2(tmp_path):
    from sklearn.feature_extraction.text import HashingVectorizer

    hashed = make_pipeline(HashingVectorizer(n_features=64), Perceptron())
    rosenblatt.save(hashed.fit(["spam spam", "ham"], [1, 0]), tmp_path / "k.rbl")
    cases = {
        "cannot export": (
            ["--model", tmp_path / "k.rbl", "--onnx", tmp_path / "a.onnx"],
            "cannot export step 'hashingvectorizer' (HashingVectorizer) of Pipeline to ONNX",
        ),
        "no model": (["--model", tmp_path / "none.rbl", "--onnx", tmp_path / "a.onnx"], "none.rbl"),
        "no folder": (
            ["--model", tmp_path / "none.rbl", "--onnx", tmp_path / "no" / "a.onnx"],
            "cannot write there",
        ),
        "dtype": (
            ["--model", tmp_path / "k.rbl", "--onnx", tmp_path / "a.onnx", "--dtype", "int8"],
            "--dtype must be float32 or float64",
        ),
    }
    for args, message in cases.values():
        result = run_cli("export", *args)
        assert result.exit_code == 2 and message in result.output, result.output
        assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert not list(tmp_path.glob("*.onnx"))
