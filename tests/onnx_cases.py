"""The models the ONNX export is checked on: every classifier and pipeline that exports,
fitted on real data, and how far onnxruntime's answers are from the model's.

``tests/test_onnx.py`` asserts on them; ``benchmarks/onnx_parity.py`` prints the table of
README.md from them. Data: the spambase e-mails (``../shared/data``, absent on some
machines: those cases are then left out, saying so), the SMS spam corpus (bundled), the
digits (scikit-learn's) and the lecture notes' modified OR. Each model is fitted on a
stratified three quarters of its data and compared on the other quarter (on all four
patterns for OR).

``ENSEMBLES`` and ``MEMBERS`` build the small ensembles (200 rows of 5 features) that
``tests/test_onnx.py`` converts through ``skl2onnx.to_onnx``.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import ColumnTransformer
from sklearn.datasets import make_classification
from sklearn.ensemble import StackingClassifier, VotingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, PolynomialFeatures, StandardScaler

from rosenblatt import (
    AveragedPerceptron,
    CentroidClassifier,
    KernelPerceptron,
    LinearProgramClassifier,
    PassiveAggressive,
    Perceptron,
    Projectron,
    TfDfTransformer,
    VotedPerceptron,
    calibrated,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
OR_X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=float)
OR_Y = np.array([-1, 1, 1, 1])


@functools.cache
def dataset(name):
    """``(X_train, X_test, y_train, y_test)`` of a data set, or None where it is absent."""
    if name == "or":
        return OR_X, OR_X, OR_Y, OR_Y
    if name == "spambase":
        if not (SHARED / "spambase55.csv").is_file():
            return None
        from rosenblatt.data.io import read_data

        data = read_data(SHARED / "spambase55.csv")
        X, y = data.X, data.y
    elif name in ("spambase-categories", "spambase-8"):
        base = dataset("spambase")
        if base is None:
            return None
        if name == "spambase-8":  # 8 columns: 44 products of two
            return tuple(X[:, :8] if k < 2 else X for k, X in enumerate(base))
        # two columns as categories, for OneHotEncoder
        return tuple(
            np.c_[X[:, :20], np.digitize(X[:, 20:22], [0.0, 0.5, 1.0])] if k < 2 else X
            for k, X in enumerate(base)
        )
    elif name == "sms":
        from rosenblatt.datasets import load_sms_spam

        texts, y = load_sms_spam(return_X_y=True)
        X = np.array(texts, dtype=object)
    elif name in ("digits", "digits-labels"):
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        if name == "digits-labels":  # a label matrix: odd, above 4, a three
            y = np.c_[y % 2, y > 4, y == 3].astype(int)
    else:
        raise ValueError(name)
    stratify = y if np.ndim(y) == 1 else None
    return tuple(train_test_split(X, y, test_size=0.25, random_state=0, stratify=stratify))


def _scaled(estimator):
    return make_pipeline(StandardScaler(), estimator)


def _tfidf(estimator):
    return make_pipeline(TfidfVectorizer(), estimator)


@dataclass(frozen=True)
class Case:
    """A model (built unfitted by ``build``) on a data set, and the dtypes it exports in."""

    name: str
    data: str
    build: object
    dtypes: tuple = (np.float32, np.float64)


_SEED = {"random_state": 0}
CASES = [
    # the lecture notes' worked example, as the notes run it
    Case("Perceptron, OR", "or", lambda: Perceptron(shuffle=False, tol=None, intercept_scaling=-1)),
    Case("AveragedPerceptron, OR", "or", lambda: AveragedPerceptron(shuffle=False)),
    Case("VotedPerceptron, OR", "or", lambda: VotedPerceptron(shuffle=False)),
    # the linear perceptrons: binary, one-vs-rest, multinomial, a layer of neurons
    Case("Perceptron (scaled)", "spambase", lambda: _scaled(Perceptron(**_SEED))),
    Case("AveragedPerceptron (scaled)", "spambase", lambda: _scaled(AveragedPerceptron(**_SEED))),
    Case(
        "VotedPerceptron (scaled)",
        "spambase",
        lambda: _scaled(VotedPerceptron(max_iter=5, **_SEED)),
    ),
    Case("Perceptron one-vs-rest", "digits", lambda: Perceptron(**_SEED)),
    Case(
        "Perceptron multinomial", "digits", lambda: Perceptron(multi_class="multinomial", **_SEED)
    ),
    Case("AveragedPerceptron one-vs-rest", "digits", lambda: AveragedPerceptron(**_SEED)),
    Case("VotedPerceptron one-vs-rest", "digits", lambda: VotedPerceptron(max_iter=3, **_SEED)),
    Case(
        "VotedPerceptron multinomial",
        "digits",
        lambda: VotedPerceptron(max_iter=3, multi_class="multinomial", **_SEED),
    ),
    Case(
        "PassiveAggressive PA-I (scaled)", "spambase", lambda: _scaled(PassiveAggressive(**_SEED))
    ),
    Case(
        "PassiveAggressive PA-II averaged, multinomial",
        "digits",
        lambda: PassiveAggressive(
            variant="pa2", average=True, multi_class="multinomial", max_iter=20, **_SEED
        ),
    ),
    Case("Perceptron, 3 labels", "digits-labels", lambda: Perceptron(**_SEED)),
    Case(
        "VotedPerceptron, 3 labels", "digits-labels", lambda: VotedPerceptron(max_iter=3, **_SEED)
    ),
    # kernels: averaged, last and voted predictions, budgets, the Projectron
    Case("KernelPerceptron rbf", "digits", lambda: KernelPerceptron(max_iter=5, **_SEED)),
    Case(
        "KernelPerceptron poly, voted",
        "digits",
        lambda: KernelPerceptron(kernel="poly", degree=2, prediction="voted", max_iter=3, **_SEED),
    ),
    Case(
        "KernelPerceptron rbf, budget 100 (scaled)",
        "spambase",
        lambda: _scaled(KernelPerceptron(budget=100, max_iter=3, **_SEED)),
    ),
    Case(
        "KernelPerceptron Forgetron, budget 60",
        "digits",
        lambda: KernelPerceptron(
            budget=60, budget_policy="forgetron", prediction="last", max_iter=3, **_SEED
        ),
    ),
    Case("Projectron", "digits", lambda: Projectron(max_iter=3, **_SEED)),
    Case(
        "Projectron++ (scaled)",
        "spambase",
        lambda: _scaled(Projectron(plus=True, max_iter=2, **_SEED)),
    ),
    # the baselines
    Case("CentroidClassifier", "digits", lambda: CentroidClassifier()),
    Case(
        "LinearProgramClassifier (scaled)", "spambase", lambda: _scaled(LinearProgramClassifier())
    ),
    # text
    Case("tf-idf + Perceptron", "sms", lambda: _tfidf(Perceptron(**_SEED))),
    Case("tf-idf + VotedPerceptron", "sms", lambda: _tfidf(VotedPerceptron(max_iter=5, **_SEED))),
    Case(
        "counts + TfDfTransformer + AveragedPerceptron",
        "sms",
        lambda: make_pipeline(CountVectorizer(), TfDfTransformer(), AveragedPerceptron(**_SEED)),
    ),
    # other pipeline steps
    Case(
        "PolynomialFeatures + AveragedPerceptron",
        "spambase-8",
        lambda: make_pipeline(
            StandardScaler(), PolynomialFeatures(2, include_bias=False), AveragedPerceptron(**_SEED)
        ),
    ),
    Case(
        "ColumnTransformer (scaler, OneHotEncoder) + Perceptron",
        "spambase-categories",
        lambda: make_pipeline(
            ColumnTransformer(
                [
                    ("scaled", StandardScaler(), list(range(20))),
                    ("categories", OneHotEncoder(handle_unknown="ignore"), [20, 21]),
                ]
            ),
            Perceptron(**_SEED),
        ),
    ),
    # probabilities
    Case(
        "calibrated sigmoid (scaled AveragedPerceptron)",
        "spambase",
        lambda: calibrated(_scaled(AveragedPerceptron(max_iter=20, **_SEED))),
    ),
    Case(
        "calibrated isotonic (scaled AveragedPerceptron)",
        "spambase",
        lambda: calibrated(_scaled(AveragedPerceptron(max_iter=20, **_SEED)), method="isotonic"),
    ),
    Case(
        "calibrated sigmoid, 10 classes",
        "digits",
        lambda: calibrated(AveragedPerceptron(max_iter=20, **_SEED), cv=3),
    ),
    Case(
        "calibrated tf-idf + Perceptron",
        "sms",
        lambda: calibrated(_tfidf(Perceptron(**_SEED)), cv=3),
    ),
    Case(
        "calibrated online (scaled AveragedPerceptron)",
        "spambase",
        lambda: _scaled(calibrated(AveragedPerceptron(max_iter=5, **_SEED), method="online")),
    ),
    Case(
        "calibrated online, 10 classes",
        "digits",
        lambda: calibrated(AveragedPerceptron(max_iter=5, **_SEED), method="online"),
    ),
    Case(
        "tf-idf + calibrated online Perceptron",
        "sms",
        lambda: _tfidf(calibrated(Perceptron(max_iter=5, **_SEED), method="online")),
    ),
    Case(
        "scikit-learn's CalibratedClassifierCV(Perceptron)",
        "digits",
        lambda: CalibratedClassifierCV(Perceptron(**_SEED), cv=3),
    ),
    Case(
        "scikit-learn's CalibratedClassifierCV(scaled Perceptron)",
        "spambase",
        lambda: CalibratedClassifierCV(_scaled(Perceptron(**_SEED)), cv=3),
    ),
    # ensembles
    Case(
        "VotingClassifier hard (Perceptron, AveragedPerceptron, CentroidClassifier)",
        "digits",
        lambda: VotingClassifier(
            [
                ("perceptron", Perceptron(**_SEED)),
                ("averaged", AveragedPerceptron(**_SEED)),
                ("centroid", CentroidClassifier()),
            ],
            flatten_transform=False,
        ),
    ),
    Case(
        "VotingClassifier soft (calibrated AveragedPerceptron, KernelPerceptron) (scaled)",
        "spambase",
        lambda: _scaled(
            VotingClassifier(
                [
                    ("averaged", calibrated(AveragedPerceptron(**_SEED), cv=3)),
                    ("kernel", calibrated(KernelPerceptron(max_iter=2, **_SEED), cv=3)),
                ],
                voting="soft",
                flatten_transform=False,
            )
        ),
    ),
    Case(
        "StackingClassifier (Perceptron, CentroidClassifier; LogisticRegression)",
        "digits",
        lambda: StackingClassifier(
            [("perceptron", Perceptron(**_SEED)), ("centroid", CentroidClassifier())], cv=3
        ),
    ),
    Case(
        "StackingClassifier (Perceptron, calibrated CentroidClassifier; AveragedPerceptron) "
        "(scaled)",
        "spambase",
        lambda: _scaled(
            StackingClassifier(
                [
                    ("perceptron", Perceptron(**_SEED)),
                    ("centroid", calibrated(CentroidClassifier(), cv=3)),
                ],
                final_estimator=AveragedPerceptron(**_SEED),
                cv=3,
            )
        ),
    ),
]


def fitted(case):
    """The case's model fitted on its training rows, and its test rows and labels (None
    where its data set is absent)."""
    data = dataset(case.data)
    if data is None:
        return None
    X_train, X_test, y_train, y_test = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return case.build().fit(X_train, y_train), X_test, y_test


def run_graph(graph, X):
    """onnxruntime's outputs for rows ``X`` (one input, whatever its name)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3  # errors only: not skl2onnx's unused initializers
    options.intra_op_num_threads = 1  # small graphs: threads would only wait
    session = ort.InferenceSession(
        graph.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, {session.get_inputs()[0].name: X})


def output_names(graph):
    return [output.name for output in graph.graph.output]


def votes(model, X):
    """A hard ``VotingClassifier``'s weighted share of the votes for each class."""
    kept = [estimator != "drop" for _, estimator in model.estimators]
    weights = np.ones(len(kept)) if model.weights is None else model.weights
    weights = np.asarray(weights, dtype=np.float64)[kept]
    shares = np.zeros((X.shape[0], len(model.classes_)))
    for weight, estimator in zip(weights, model.estimators_):  # fitted on the classes' indices
        shares[np.arange(X.shape[0]), estimator.predict(X)] += weight
    return shares / weights.sum()


def second_output(model, X):
    """What a graph's second output holds: ``predict_proba``, a hard vote's shares, or
    ``decision_function``."""
    last = model.steps[-1][1] if hasattr(model, "steps") else model
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)
    if isinstance(last, VotingClassifier):
        rows = model[:-1].transform(X) if last is not model else X
        return votes(last, rows)
    return model.decision_function(X)


def relative_difference(got, expected):
    """``max |got - expected| / max |expected|``: the difference relative to the largest value."""
    expected = np.asarray(expected, dtype=np.float64)
    scale = np.abs(expected).max()
    return float(np.abs(np.asarray(got, dtype=np.float64) - expected).max() / scale)


@dataclass(frozen=True)
class Parity:
    """onnxruntime against the model on some rows: labels that agree, of how many, and
    the relative difference of the scores (or probabilities); whether the shapes agree."""

    same_labels: int
    n: int
    difference: float
    same_shape: bool


def parity(model, X, dtype):
    """:class:`Parity` of onnxruntime's run of ``to_onnx(model, dtype=dtype)`` with the
    model, on rows ``X`` of ``dtype`` (text as it is)."""
    from rosenblatt import to_onnx

    rows = X if X.dtype == object else X.astype(dtype)
    label, values = run_graph(to_onnx(model, dtype=dtype), rows)
    expected = second_output(model, rows)
    predicted = model.predict(rows)
    same = label == predicted if label.shape == predicted.shape else np.zeros(len(rows), bool)
    same = same.all(axis=1) if same.ndim == 2 else same  # a label matrix: rows that agree
    return Parity(
        same_labels=int(same.sum()),
        n=len(rows),
        difference=relative_difference(values, expected),
        same_shape=values.shape == expected.shape,
    )


# ---------------------------------------------------------------------- small ensembles
@functools.cache
def small(n_classes):
    """``(X, y)``: 200 rows of 5 features (float64), of 2 or 3 classes."""
    return make_classification(
        200, 5, n_informative=3, n_redundant=0, n_classes=n_classes, random_state=0
    )


# each classifier of the package, unfitted; the calibrated ones have predict_proba
MEMBERS = {
    "Perceptron": lambda: Perceptron(**_SEED),
    "AveragedPerceptron": lambda: AveragedPerceptron(**_SEED),
    "VotedPerceptron": lambda: VotedPerceptron(max_iter=5, **_SEED),
    "PassiveAggressive": lambda: PassiveAggressive(max_iter=5, **_SEED),
    "KernelPerceptron": lambda: KernelPerceptron(max_iter=5, **_SEED),
    "Projectron": lambda: Projectron(max_iter=3, **_SEED),
    "CentroidClassifier": lambda: CentroidClassifier(),
    "LinearProgramClassifier": lambda: LinearProgramClassifier(),
    "calibrated sigmoid": lambda: calibrated(AveragedPerceptron(**_SEED), cv=2),
    "calibrated isotonic": lambda: calibrated(Perceptron(**_SEED), cv=2, method="isotonic"),
    "calibrated online": lambda: calibrated(
        AveragedPerceptron(max_iter=5, **_SEED), method="online"
    ),
}


def _with_probabilities(member):
    """The member, calibrated (sigmoid, two folds) if it has no ``predict_proba``."""
    return member if hasattr(member, "predict_proba") else calibrated(member, cv=2)


# each ensemble around a member (its other members: classifiers of the package too)
ENSEMBLES = {
    "hard voting": lambda member: VotingClassifier(
        [("member", member), ("centroid", CentroidClassifier()), ("perceptron", Perceptron())],
        voting="hard",
        flatten_transform=False,
    ),
    "soft voting": lambda member: VotingClassifier(
        [
            ("member", _with_probabilities(member)),
            ("centroid", calibrated(CentroidClassifier(), cv=2)),
        ],
        voting="soft",
        flatten_transform=False,
    ),
    "stacking": lambda member: StackingClassifier(
        [("member", member), ("centroid", CentroidClassifier())], cv=2
    ),
    "scikit-learn's calibration": lambda member: CalibratedClassifierCV(member, cv=2),
}
