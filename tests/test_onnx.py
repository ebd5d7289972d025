"""ONNX export: onnxruntime's labels, scores and probabilities are the model's.

Every classifier and pipeline of ``tests/onnx_cases.py`` is fitted on real data and run
by onnxruntime on held-out rows, in float32 and float64: the labels must be identical
and the scores (probabilities) within 1e-5 of the largest one, 1e-10 in float64. Then
``skl2onnx.to_onnx`` with the package's converters, the errors, and ``rosenblatt export``.
"""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest
from conftest import run_cli

pytest.importorskip(
    "onnxruntime", reason="the onnx extra is not installed (pip install -e '.[dev]')"
)
pytest.importorskip("skl2onnx", reason="the onnx extra is not installed (pip install -e '.[dev]')")

import onnx_cases  # noqa: E402
from sklearn.base import BaseEstimator, TransformerMixin  # noqa: E402
from sklearn.calibration import CalibratedClassifierCV  # noqa: E402
from sklearn.ensemble import StackingClassifier, VotingClassifier  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import rosenblatt  # noqa: E402
from rosenblatt import (  # noqa: E402
    AveragedPerceptron,
    CentroidClassifier,
    KernelPerceptron,
    Perceptron,
    to_onnx,
)

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
    from rosenblatt.persistence.records import RECORDS

    names = " ".join(case.name for case in onnx_cases.CASES)
    # every class of the package with a way of scoring (its record's), a learner added too
    scored = [r.key.rpartition(".")[2] for r in RECORDS if r.scoring in ("linear", "voted", "dual")]
    assert "PassiveAggressive" in scored
    assert set(scored) <= set(onnx_cases.MEMBERS)  # each in every ensemble through skl2onnx
    for what in (
        *scored,
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
        "VotingClassifier hard",
        "VotingClassifier soft",
        "StackingClassifier",
    ):
        assert what in names
    assert {case.data for case in onnx_cases.CASES} >= {"or", "spambase", "sms", "digits"}


def test_skl2onnx_converts_pipelines_holding_the_packages_estimators():
    """As skl2onnx converts its own classifiers: by default each row's scores zipped
    into a map from class to score; with zipmap=False, an (n, n_classes) tensor."""
    X, _, y, _ = onnx_cases.dataset("digits")
    X = X.astype(np.float32)
    pipe = make_pipeline(StandardScaler(), Perceptron(random_state=0)).fit(X, y)
    expected = pipe.decision_function(X)
    zipped = _skl2onnx(pipe, X, options=None)
    assert onnx_cases.output_names(zipped) == ["output_label", "output_probability"]
    label, maps = onnx_cases.run_graph(zipped, X)
    np.testing.assert_array_equal(label, pipe.predict(X))
    assert [sorted(row) for row in maps[:2]] == [list(range(10))] * 2
    as_rows = np.array([[row[c] for c in range(10)] for row in maps])
    assert onnx_cases.relative_difference(as_rows, expected) < 1e-5
    label, scores = onnx_cases.run_graph(_skl2onnx(pipe, X), X)
    np.testing.assert_array_equal(label, pipe.predict(X))
    assert scores.shape == (len(X), 10)
    assert onnx_cases.relative_difference(scores, expected) < 1e-5


# ---------------------------------------------------------------------- ensembles, skl2onnx
def _fit(model, X, y):
    """``model.fit(X, y)``, quiet about the ConvergenceWarning of the few epochs here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


def _skl2onnx(model, X, options="no zipmap", **kwargs):
    """``skl2onnx.to_onnx(model, X)`` with the package's converters registered, by
    default with the option zipmap=False."""
    import skl2onnx

    from rosenblatt.persistence.onnx import register_converters

    register_converters()
    options = {"zipmap": False} if options == "no zipmap" else options
    return skl2onnx.to_onnx(model, X[:1], options=options, **kwargs)


@pytest.mark.parametrize("member", list(onnx_cases.MEMBERS))
@pytest.mark.parametrize("kind", list(onnx_cases.ENSEMBLES))
def test_ensembles_of_each_classifier_through_skl2onnx(kind, member):
    """Soft and hard voting, stacking and scikit-learn's calibration around each
    classifier of the package, of two and three classes, on float32 and float64 rows:
    onnxruntime's labels are ``predict``'s and its probabilities (a hard vote's shares)
    ``predict_proba``'s, to 1e-5 in float32 and 1e-10 in float64."""
    for n_classes in (2, 3):
        X, y = onnx_cases.small(n_classes)
        model = _fit(onnx_cases.ENSEMBLES[kind](onnx_cases.MEMBERS[member]()), X, y)
        for dtype in (np.float32, np.float64):
            rows = X.astype(dtype)
            label, values = onnx_cases.run_graph(_skl2onnx(model, rows), rows)
            where = (n_classes, dtype.__name__)
            np.testing.assert_array_equal(label, model.predict(rows), err_msg=str(where))
            expected = onnx_cases.second_output(model, rows)
            assert values.dtype == dtype and values.shape == (len(rows), n_classes), where
            assert np.abs(values - expected).max() <= TOLERANCE[dtype], where


def test_soft_voting_over_calibrated_models_on_tfidf_features():
    """skl2onnx's TfidfVectorizer gives float32: the calibrated models' probabilities are
    float32 too, as skl2onnx's own classifiers give them (float64 ones would not load)."""
    texts, y = _texts()
    model = make_pipeline(
        onnx_cases.TfidfVectorizer(),
        VotingClassifier(
            [
                ("sigmoid", rosenblatt.calibrated(Perceptron(random_state=0), cv=2)),
                ("online", rosenblatt.calibrated(AveragedPerceptron(), method="online")),
            ],
            voting="soft",
            flatten_transform=False,
        ),
    ).fit(texts, y)
    options = {id(model): {"zipmap": False}, onnx_cases.TfidfVectorizer: {"locale": "C"}}
    graph = _skl2onnx(model, texts, options=options)
    label, proba = onnx_cases.run_graph(graph, texts)
    np.testing.assert_array_equal(label, model.predict(texts))
    assert proba.dtype == np.float32
    assert np.abs(proba - model.predict_proba(texts)).max() < 1e-5
    label, proba = onnx_cases.run_graph(to_onnx(model), texts)  # rosenblatt's: float64 tf-idf
    np.testing.assert_array_equal(label, model.predict(texts))
    assert np.abs(proba - model.predict_proba(texts)).max() < 1e-6


def _texts():
    """200 short texts of two kinds of words (ASCII, as skl2onnx's tokenizer reads \\w)."""
    rng = np.random.RandomState(0)
    words = [f"w{k}" for k in range(40)]
    y = rng.randint(0, 2, 200)
    texts = [
        " ".join(rng.choice(words[20 * label : 20 * label + 25], size=rng.randint(3, 9)))
        for label in y
    ]
    return np.array(texts, dtype=object), y


def _soft(weights=None):
    return VotingClassifier(
        [
            ("sigmoid", rosenblatt.calibrated(Perceptron(random_state=0), cv=2)),
            ("isotonic", rosenblatt.calibrated(CentroidClassifier(), cv=2, method="isotonic")),
            ("online", rosenblatt.calibrated(AveragedPerceptron(), method="online")),
        ],
        voting="soft",
        weights=weights,
        flatten_transform=False,
    )


@pytest.mark.parametrize(
    "build, labels",
    [
        (lambda: _soft(weights=np.array([1.0, 3.0, 2.0])), None),
        (lambda: _soft(), ["no", "yes", "maybe"]),
        (lambda: _voting(), ["no", "yes", "maybe"]),
        (
            lambda: StackingClassifier(
                [("perceptron", Perceptron()), ("centroid", CentroidClassifier())], cv=2
            ),
            ["no", "yes", "maybe"],
        ),
        (
            lambda: StackingClassifier(
                [
                    ("perceptron", Perceptron()),
                    ("centroid", rosenblatt.calibrated(CentroidClassifier(), cv=2)),
                ],
                passthrough=True,
                cv=2,
            ),
            None,
        ),
    ],
    ids=[
        "soft voting, weighed",
        "soft voting, str",
        "hard voting, str",
        "stacking, str",
        "stacking, passthrough",
    ],
)
def test_ensembles_as_skl2onnxs_own_tests_build_them(build, labels):
    """Weights, string labels and passthrough, as skl2onnx's tests of its converters
    of VotingClassifier and StackingClassifier vary them, around our classifiers."""
    for n_classes in (2, 3):
        X, y = onnx_cases.small(n_classes)
        y = y if labels is None else np.array(labels)[y]
        model = _fit(build(), X, y)
        for dtype in (np.float32, np.float64):
            rows = X.astype(dtype)
            label, values = onnx_cases.run_graph(_skl2onnx(model, rows), rows)
            np.testing.assert_array_equal(label, model.predict(rows))
            expected = onnx_cases.second_output(model, rows)
            assert np.abs(values - expected).max() <= TOLERANCE[dtype], (n_classes, dtype)


@pytest.mark.parametrize("calibrate", [False, True], ids=["classifier", "calibrated"])
def test_integer_rows_and_float_classes_as_skl2onnx_takes_them(calibrate):
    """Integer rows are read as float32, as skl2onnx's linear classifiers read them;
    float classes zipped by ZipMap come as int64 labels and keys, as skl2onnx gives
    them (-1.0 as -1)."""
    X, y = onnx_cases.small(3)
    rows = (3 * X).round().astype(np.int64)
    classes = np.array([-1.0, 1.0, 2.0])[y]
    model = Perceptron(random_state=0)
    model = rosenblatt.calibrated(model, cv=2) if calibrate else model
    model.fit(rows, classes)
    label, values = onnx_cases.run_graph(_skl2onnx(model, rows), rows)
    assert label.dtype == np.float64 and values.dtype == np.float32
    np.testing.assert_array_equal(label, model.predict(rows))
    label, maps = onnx_cases.run_graph(_skl2onnx(model, rows, options=None), rows)
    assert label.dtype == np.int64 and sorted(maps[0]) == [-1, 1, 2]
    np.testing.assert_array_equal(label, model.predict(rows))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_skl2onnx_refuses_a_member_stacked_by_its_labels(n_classes):
    """skl2onnx's converter would stack the member's scores where scikit-learn stacks its
    labels: refused, saying what to do."""
    X, y = onnx_cases.small(n_classes)
    model = StackingClassifier(
        [("perceptron", Perceptron(random_state=0)), ("centroid", CentroidClassifier())],
        stack_method="predict",
        cv=2,
    ).fit(X, y)
    with pytest.raises(ValueError) as raised:
        _skl2onnx(model, X)
    assert str(raised.value) == (
        "cannot convert StackingClassifier: a member stacked by its labels (stack_method "
        "'predict') has no graph; stack it by decision_function or predict_proba "
        "(stack_method='auto')"
    )


# ---------------------------------------------------------------------- skl2onnx's options
def _three_classes(calibrate):
    """A classifier (or a calibrated one) of the classes "a", "b", "c", fitted, and its
    second output on float rows (scores or probabilities)."""
    X, y = onnx_cases.small(3)
    y = np.array(["a", "b", "c"])[y]
    model = Perceptron(random_state=0)
    model = rosenblatt.calibrated(model, cv=2) if calibrate else model
    model.fit(X, y)
    return model, X, model.predict_proba if calibrate else model.decision_function


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("calibrate", [False, True], ids=["classifier", "calibrated"])
def test_zipmap_options_are_skl2onnxs(calibrate, dtype):
    """zipmap=True (the default): a map per row, of float32 values (ONNX's ZipMap has no
    other); "columns": one output per class, named as skl2onnx names them; False: the
    (n, n_classes) tensor of the input's type."""
    model, X, second = _three_classes(calibrate)
    rows = X.astype(dtype)
    expected, labels = second(rows), model.predict(rows)
    name = "probabilities" if calibrate else "scores"
    zipped = _skl2onnx(model, rows, options=None)
    assert onnx_cases.output_names(zipped) == ["output_label", "output_probability"]
    label, maps = onnx_cases.run_graph(zipped, rows)
    np.testing.assert_array_equal(label, labels)
    assert all(sorted(row) == ["a", "b", "c"] for row in maps)
    got = np.array([[row[c] for c in "abc"] for row in maps])
    assert onnx_cases.relative_difference(got, expected) < 1e-6
    columns = _skl2onnx(model, rows, options={"zipmap": "columns"})
    assert onnx_cases.output_names(columns) == ["output_label", "sa", "sb", "sc"]
    label, *by_class = onnx_cases.run_graph(columns, rows)
    np.testing.assert_array_equal(label, labels)
    assert all(column.dtype == dtype and column.shape == (len(X),) for column in by_class)
    assert onnx_cases.relative_difference(np.c_[tuple(by_class)], expected) < TOLERANCE[dtype]
    tensors = _skl2onnx(model, rows)
    assert onnx_cases.output_names(tensors) == ["label", name]
    label, values = onnx_cases.run_graph(tensors, rows)
    np.testing.assert_array_equal(label, labels)
    assert values.dtype == dtype and values.shape == (len(X), 3)
    assert onnx_cases.relative_difference(values, expected) < TOLERANCE[dtype]


@pytest.mark.parametrize("calibrate", [False, True], ids=["classifier", "calibrated"])
def test_nocl_gives_the_index_of_the_class(calibrate):
    """nocl=True, as skl2onnx's linear classifiers take it: the label output is the
    class's index (int64), the map's keys are indices."""
    model, X, second = _three_classes(calibrate)
    rows = X.astype(np.float32)
    index = np.searchsorted(model.classes_, model.predict(rows))
    label, values = onnx_cases.run_graph(
        _skl2onnx(model, rows, options={"zipmap": False, "nocl": True}), rows
    )
    assert label.dtype == np.int64
    np.testing.assert_array_equal(label, index)
    assert onnx_cases.relative_difference(values, second(rows)) < 1e-6
    label, maps = onnx_cases.run_graph(_skl2onnx(model, rows, options={"nocl": True}), rows)
    np.testing.assert_array_equal(label, index)
    assert sorted(maps[0]) == [0, 1, 2]


def test_raw_scores_as_skl2onnx_takes_it():
    """A classifier's scores are raw already: raw_scores=True gives the same graph's
    values (a binary one's score s as [-s, s]). A calibrated model declares no
    raw_scores, as skl2onnx's CalibratedClassifierCV does not: skl2onnx refuses it."""
    X, y = onnx_cases.small(2)
    rows = X.astype(np.float32)
    model = Perceptron(random_state=0).fit(X, y)
    plain = onnx_cases.run_graph(_skl2onnx(model, rows), rows)
    raw = onnx_cases.run_graph(
        _skl2onnx(model, rows, options={"raw_scores": True, "zipmap": False}), rows
    )
    np.testing.assert_array_equal(raw[0], plain[0])
    np.testing.assert_array_equal(raw[1], plain[1])
    s = model.decision_function(rows)
    assert onnx_cases.relative_difference(raw[1], np.c_[-s, s]) < 1e-6
    calibrated = rosenblatt.calibrated(Perceptron(random_state=0), cv=2).fit(X, y)
    with pytest.raises(NameError, match=r"Option 'raw_scores' not in \['nocl', 'zipmap'\]"):
        _skl2onnx(calibrated, rows, options={"raw_scores": True})


def test_a_label_matrix_has_no_classes_to_zip_or_number():
    """zipmap=True (the default) is ignored with a warning, as skl2onnx ignores it for a
    MultiOutputClassifier; zipmap="columns" and nocl=True are refused."""
    X, y = onnx_cases.small(3)
    Y = np.c_[y == 0, y == 2, X[:, 0] > 0].astype(int)
    model = Perceptron(random_state=0).fit(X, Y)
    rows = X.astype(np.float32)
    with pytest.warns(UserWarning) as warned:
        graph = _skl2onnx(model, rows, options=None)
    assert [str(w.message) for w in warned] == [
        "option zipmap=True is ignored for Perceptron trained on a label matrix (one score "
        "per label, no classes to map); set zipmap=False to remove this warning"
    ]
    assert onnx_cases.output_names(graph) == ["label", "scores"]
    label, scores = onnx_cases.run_graph(graph, rows)
    np.testing.assert_array_equal(label, model.predict(rows))
    assert onnx_cases.relative_difference(scores, model.decision_function(rows)) < 1e-6
    refused = {
        "columns": (
            {"zipmap": "columns"},
            "option zipmap='columns' does not apply to Perceptron trained on a label matrix: "
            "it has one score per label, not per class; use zipmap=False",
        ),
        "nocl": (
            {"zipmap": False, "nocl": True},
            "option nocl=True does not apply to Perceptron trained on a label matrix: its "
            "label output is the indicator matrix, not class names; leave nocl False",
        ),
    }
    for options, message in refused.values():
        with pytest.raises(ValueError) as raised:
            _skl2onnx(model, rows, options=options)
        assert str(raised.value) == message


@pytest.mark.parametrize("target_opset", [17, {"": 15, "ai.onnx.ml": 3}])
@pytest.mark.parametrize("calibrate", [False, True], ids=["classifier", "calibrated"])
def test_a_target_opset_below_the_floor_is_refused_naming_it(calibrate, target_opset):
    from rosenblatt.persistence.onnx import OPSET

    model, X, _ = _three_classes(calibrate)
    asked = target_opset if isinstance(target_opset, int) else target_opset[""]
    with pytest.raises(ValueError) as raised:
        _skl2onnx(model, X, target_opset=target_opset)
    assert str(raised.value) == (
        f"target_opset={asked}: rosenblatt's graphs need opset 18 or later of the ONNX main "
        "domain (onnxruntime 1.15 and later run it); convert with target_opset=18 or more, "
        "or leave it None"
    )
    assert OPSET[""] == 18
    graph = _skl2onnx(model, X, target_opset=18)
    assert {o.domain: o.version for o in graph.opset_import}[""] == 18
    np.testing.assert_array_equal(onnx_cases.run_graph(graph, X)[0], model.predict(X))


# ---------------------------------------------------------------------- ensembles, to_onnx
@pytest.mark.parametrize(
    "build, second",
    [
        (lambda: onnx_cases.ENSEMBLES["hard voting"](Perceptron(random_state=0)), "votes"),
        (lambda: _voting(weights=np.array([2.0, 1.0])), "votes"),
        (lambda: _voting(drop=True), "votes"),
        (
            lambda: onnx_cases.ENSEMBLES["soft voting"](KernelPerceptron(random_state=0)),
            "probabilities",
        ),
        (
            lambda: onnx_cases.ENSEMBLES["stacking"](AveragedPerceptron(random_state=0)),
            "probabilities",
        ),
        (
            lambda: StackingClassifier(
                [("perceptron", Perceptron(random_state=0)), ("centroid", CentroidClassifier())],
                final_estimator=Perceptron(random_state=0),
                cv=2,
            ),
            "scores",
        ),
        (
            lambda: CalibratedClassifierCV(
                make_pipeline(StandardScaler(), Perceptron(random_state=0)), cv=2
            ),
            "probabilities",
        ),
    ],
    ids=[
        "hard voting",
        "hard voting, weighed",
        "hard voting, a member dropped",
        "soft voting",
        "stacking",
        "stacking, our final",
        "calibration",
    ],
)
def test_rosenblatt_to_onnx_exports_the_ensembles(build, second):
    """Outputs label and probabilities (predict_proba), votes (a hard vote's shares) or
    scores (decision_function, with its shape: one column for two classes)."""
    for n_classes in (2, 3):
        X, y = onnx_cases.small(n_classes)
        model = _fit(build(), X, y)
        for dtype in (np.float32, np.float64):
            rows = X.astype(dtype)
            graph = to_onnx(model, dtype=dtype)
            assert onnx_cases.output_names(graph) == ["label", second]
            label, values = onnx_cases.run_graph(graph, rows)
            np.testing.assert_array_equal(label, model.predict(rows))
            expected = onnx_cases.second_output(model, rows)
            assert values.shape == expected.shape, (n_classes, dtype)
            assert onnx_cases.relative_difference(values, expected) < TOLERANCE[dtype]


def test_a_parameter_mixing_exports_its_mixed_model():
    """ParameterMixing (a layer above persistence) declares itself with register_export:
    to_onnx and skl2onnx convert the Perceptron it mixed."""
    da = pytest.importorskip("dask.array")
    import skl2onnx

    from rosenblatt.distributed import ParameterMixing

    X, y = onnx_cases.small(2)
    mixing = ParameterMixing(AveragedPerceptron(random_state=0), max_rounds=3)
    _fit(mixing, da.from_array(X, chunks=(50, 5)), da.from_array(y, chunks=50))
    graph = to_onnx(mixing, dtype=np.float64)
    assert onnx_cases.output_names(graph) == ["label", "scores"]
    label, scores = onnx_cases.run_graph(graph, X)
    np.testing.assert_array_equal(label, mixing.predict(X))
    assert onnx_cases.relative_difference(scores, mixing.decision_function(X)) < 1e-12
    graph = skl2onnx.to_onnx(mixing, X[:1], options={"zipmap": False})
    label, scores = onnx_cases.run_graph(graph, X)
    np.testing.assert_array_equal(label, mixing.predict(X))
    assert scores.shape == (len(X), 2)
    with pytest.raises(ValueError, match="This ParameterMixing instance is not fitted yet"):
        to_onnx(ParameterMixing())


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


def _small(estimator):
    return estimator.fit(*onnx_cases.small(2))


def _voting(weights=None, drop=False):
    members = [("perceptron", Perceptron(random_state=0)), ("centroid", CentroidClassifier())]
    members = [("dropped", "drop"), *members] if drop else members
    return VotingClassifier(members, weights=weights, flatten_transform=False)


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
        (
            lambda: _or(VotingClassifier([("a", LogisticRegression())], flatten_transform=False)),
            "cannot export VotingClassifier: to_onnx exports rosenblatt's classifiers, and "
            "pipelines, calibrated models and ensembles (VotingClassifier, StackingClassifier) "
            "that end in or hold one, not VotingClassifier; convert other models with "
            "skl2onnx.to_onnx",
        ),
        (lambda: Perceptron(), "This Perceptron instance is not fitted yet"),
        (
            lambda: _small(CalibratedClassifierCV(Perceptron(), cv=2, method="isotonic")),
            "cannot export CalibratedClassifierCV to ONNX: skl2onnx's converter of "
            "CalibratedClassifierCV(method='isotonic') maps each score to the nearest "
            "breakpoint instead of interpolating between them, as scikit-learn does; "
            "calibrate with rosenblatt.calibrated(estimator, method='isotonic') instead",
        ),
        (
            lambda: _small(VotingClassifier([("a", Perceptron()), ("b", CentroidClassifier())])),
            "cannot export VotingClassifier to ONNX: skl2onnx converts a VotingClassifier with "
            "flatten_transform=False only (it shapes transform's output, not predict's or "
            "predict_proba's): set_params(flatten_transform=False) first",
        ),
        (
            lambda: _small(_voting(weights=[2, 1])),
            "cannot export VotingClassifier to ONNX: skl2onnx reads its weights as a numpy "
            "array: set_params(weights=numpy.asarray(weights)) first",
        ),
        (
            lambda: _small(_voting(weights=np.array([1.0, 2.0, 1.0]), drop=True)),
            "cannot export VotingClassifier to ONNX: skl2onnx pairs its weights with the "
            "estimators left after those set to 'drop' by position, so they would weigh the "
            "wrong ones: leave the dropped estimators and their weights out",
        ),
        (
            lambda: _small(
                make_pipeline(
                    StandardScaler(),
                    StackingClassifier(
                        [("a", Perceptron()), ("b", CentroidClassifier())],
                        stack_method="predict",
                        cv=2,
                    ),
                )
            ),
            "cannot export step 'stackingclassifier' (StackingClassifier) of Pipeline to ONNX: "
            "a member stacked by its labels (stack_method 'predict') has no graph; stack it by "
            "decision_function or predict_proba (stack_method='auto')",
        ),
    ],
    ids=[
        "unknown step",
        "callable kernel",
        "not ours",
        "no ensemble of ours",
        "not fitted",
        "isotonic calibration by scikit-learn",
        "flattened votes",
        "weights in a list",
        "weights and a dropped member",
        "stacked labels",
    ],
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


# ---------------------------------------------------------------------- classes that grew
GROWN = {
    "perceptron": lambda: Perceptron(random_state=0),
    "multinomial": lambda: AveragedPerceptron(multi_class="multinomial", random_state=0),
    "voted": lambda: rosenblatt.VotedPerceptron(random_state=0),
    "pa": lambda: rosenblatt.PassiveAggressive(random_state=0),
    "kernel": lambda: KernelPerceptron(random_state=0),
    "online-calibrated": lambda: rosenblatt.calibrated(Perceptron(random_state=0), method="online"),
}


@pytest.mark.parametrize("name", sorted(GROWN))
def test_a_model_whose_classes_grew_exports_its_answers(name):
    """Two classes first, then a third (first in sorted order) and a fourth: the graph
    answers the grown model's labels and scores (probabilities), as for any model."""
    rng = np.random.RandomState(1)
    X = rng.randn(120, 4)
    y = np.array(["b", "c", "a", "d"])[np.r_[rng.randint(0, 2, 40), rng.randint(0, 4, 80)]]
    model = GROWN[name]()
    for part in (slice(0, 40), slice(40, 80), slice(80, 120)):
        model.partial_fit(X[part], y[part])
    assert model.classes_.tolist() == ["a", "b", "c", "d"]
    for dtype in (np.float32, np.float64):
        parity = onnx_cases.parity(model, X, dtype)
        assert parity.same_labels == parity.n and parity.same_shape, (name, dtype, parity)
        assert parity.difference <= TOLERANCE[dtype], (name, dtype, parity)
