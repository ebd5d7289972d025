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
from rosenblatt.data.io import read_data

SHARED = __import__("pathlib").Path(__file__).resolve().parents[2] / "shared" / "data"


def spambase():
    data = read_data(SHARED / "spambase55.csv")
    return data.X, data.y


def sms():
    from sklearn.feature_extraction.text import TfidfVectorizer

    from rosenblatt.data.datasets import load_sms_spam

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
    with pytest.raises(ValueError, match="method must be 'sigmoid', 'isotonic' or 'online'"):
        calibrated(Perceptron(), method="beta")


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
@pytest.mark.parametrize("ensemble", [True, False])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_probabilities_are_scikit_learns_and_survive_a_model_file(
    tmp_path, method, ensemble, n_classes
):
    """The parts kept after fit give CalibratedClassifierCV's probabilities, saved or not."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.datasets import make_classification

    from rosenblatt import load, save

    X, y = make_classification(
        400, 6, n_classes=n_classes, n_informative=4, flip_y=0.1, random_state=2
    )

    def base():
        return make_pipeline(StandardScaler(), AveragedPerceptron(random_state=0, max_iter=15))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = calibrated(base(), method=method, ensemble=ensemble).fit(X, y)
        theirs = CalibratedClassifierCV(base(), method=method, cv=5, ensemble=ensemble).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert len(ours.estimators_) == (5 if ensemble else 1)
    save(ours, tmp_path / "calibrated.rbm")
    back = load(tmp_path / "calibrated.rbm")
    assert type(back).__name__ == "CalibratedClassifier" and back.method == method
    np.testing.assert_array_equal(back.predict_proba(X), ours.predict_proba(X))
    np.testing.assert_array_equal(back.predict_log_proba(X), ours.predict_log_proba(X))


def test_a_forged_calibration_method_is_refused(tmp_path):
    from forging import edit_tree, forge

    from rosenblatt import load, save
    from rosenblatt.exceptions import ModelFileError

    X, y = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]] * 5), np.array([0, 1, 1, 1] * 5)
    path = tmp_path / "calibrated.rbm"
    save(calibrated(Perceptron(random_state=0), cv=2).fit(X, y), path)

    def change(tree):
        tree["params"]["method"] = "temperature"

    forge(path, edit_tree(change))
    with pytest.raises(ModelFileError, match="method='temperature'"):
        load(path)


@pytest.mark.skipif(not SHARED.exists(), reason="needs ../shared/data (the spam corpus)")
def test_cli_calibrate_then_predict_proba(tmp_path):
    """train --calibrate stores the calibration; predict --proba prints it; others refuse."""
    import json

    from typer.testing import CliRunner

    from rosenblatt.apps.cli import app

    X, y = spambase()
    rng = np.random.RandomState(0)
    test = rng.rand(len(y)) < 0.3
    header = ",".join([f"f{j}" for j in range(X.shape[1])] + ["spam"])
    for name, rows in (("train", ~test), ("test", test)):
        np.savetxt(
            tmp_path / f"{name}.csv",
            np.column_stack([X[rows], y[rows]]),
            delimiter=",",
            fmt="%g",
            header=header,
            comments="",
        )

    def run(*args):
        return CliRunner().invoke(app, [str(a) for a in args])

    model = tmp_path / "calibrated.rbm"
    trained = run(
        "train",
        tmp_path / "train.csv",
        "-m",
        model,
        "-a",
        "averaged",
        "--calibrate",
        "sigmoid",
        "--max-iter",
        20,
    )
    assert trained.exit_code == 0, trained.output
    assert "calibrated: sigmoid" in trained.output
    result = run("predict", tmp_path / "test.csv", "-m", model, "--proba", "--json")
    payload = json.loads(result.stdout)
    proba = np.array(payload["probabilities"])
    assert payload["classes"] == [0, 1] and proba.shape == (test.sum(), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    constant = np.full(test.sum(), y[~test].mean())
    assert log_loss(y[test], proba) < 0.6 * log_loss(y[test], constant)
    assert brier_score_loss(y[test], proba[:, 1]) < 0.6 * brier_score_loss(y[test], constant)
    text = run("predict", tmp_path / "test.csv", "-m", model, "--proba")
    first = text.stdout.splitlines()[0].split("\t")
    assert len(first) == 3 and abs(float(first[1]) + float(first[2]) - 1) < 1e-9
    assert "columns: label, P(0), P(1)" in text.stderr

    plain = tmp_path / "plain.rbm"
    assert run("train", tmp_path / "train.csv", "-m", plain, "-q", "--max-iter", 5).exit_code == 0
    refused = run("predict", tmp_path / "test.csv", "-m", plain, "--proba")
    assert refused.exit_code == 2 and "train it with --calibrate" in refused.output
    no_scores = run("predict", tmp_path / "test.csv", "-m", model, "--scores")
    assert no_scores.exit_code == 2 and "ask for --proba" in no_scores.output
    streamed = run(
        "train", tmp_path / "train.csv", "-m", plain, "--stream", "--calibrate", "sigmoid"
    )
    assert streamed.exit_code == 2 and "drop --stream" in streamed.output
