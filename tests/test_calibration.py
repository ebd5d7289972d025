"""Probabilities through calibration: better than a constant, rows summing to 1."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from rosenblatt import (
    AveragedPerceptron,
    CentroidClassifier,
    KernelPerceptron,
    Perceptron,
    VotedPerceptron,
    calibrated,
)
from rosenblatt.io import read_data

SHARED = __import__("pathlib").Path(__file__).resolve().parents[2] / "shared" / "data"


def spambase():
    data = read_data(SHARED / "spambase55.csv")
    return data.X, data.y


def sms():
    from sklearn.feature_extraction.text import TfidfVectorizer

    from rosenblatt.datasets import load_sms_spam

    texts, labels = load_sms_spam(return_X_y=True)
    return TfidfVectorizer().fit_transform(texts), np.asarray(labels)


def _scores(model, X, y):
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=0, stratify=y
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X_train, y_train)
    proba = model.predict_proba(X_test)
    positive = model.classes_[1]
    constant = np.full(len(y_test), np.mean(y_train == positive))
    return (
        proba,
        (log_loss(y_test, proba, labels=model.classes_), log_loss(y_test == positive, constant)),
        (
            brier_score_loss(y_test == positive, proba[:, 1]),
            brier_score_loss(y_test == positive, constant),
        ),
    )


@pytest.mark.skipif(not SHARED.exists(), reason="needs ../shared/data (the spam corpus)")
@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
@pytest.mark.parametrize("name", ["spambase", "sms"])
def test_calibrated_probabilities_beat_a_constant(name, method):
    X, y = spambase() if name == "spambase" else sms()
    base = AveragedPerceptron(random_state=0, max_iter=20)
    model = calibrated(make_pipeline(StandardScaler(), base) if name == "spambase" else base)
    model.set_params(method=method)
    proba, (ours_log, constant_log), (ours_brier, constant_brier) = _scores(model, X, y)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert ours_log < 0.6 * constant_log and ours_brier < 0.6 * constant_brier
    assert np.all(np.isfinite(np.log(proba[proba > 0])))


@pytest.mark.parametrize(
    "estimator",
    [
        Perceptron(random_state=0),
        VotedPerceptron(random_state=0, max_iter=10),
        KernelPerceptron(random_state=0, max_iter=10),
        CentroidClassifier(),
    ],
    ids=lambda e: type(e).__name__,
)
def test_every_classifier_gets_probabilities(estimator):
    from sklearn.datasets import make_classification

    X, y = make_classification(300, 5, n_classes=3, n_informative=3, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = calibrated(estimator, cv=3).fit(X, y)
    proba = model.predict_proba(X)
    assert proba.shape == (300, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.exp(model.predict_log_proba(X)), proba, atol=1e-12)
    assert np.mean(model.predict(X) == y) > 0.6


def test_unknown_method_is_a_clear_error():
    with pytest.raises(ValueError, match="method must be 'sigmoid' or 'isotonic'"):
        calibrated(Perceptron(), method="beta")
