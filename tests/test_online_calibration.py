"""Online calibration (``calibrated(estimator, method="online")``): the map, the
prequential path, model files, streams, and how well it calibrates.

The quality tests run the benchmark's streams (``tests/calibration_streams.py``,
``benchmarks/calibration.py``) on seeded subsamples: online Platt scaling with
calibeating beats the plain logistic of the score, comes within ``MARGIN`` of the
offline floor on a stream whose balance is fixed, and recovers after a shift of the
balance where a calibration fitted before the shift does not.
"""

from __future__ import annotations

import functools
import warnings

import calibration_streams as streams
import numpy as np
import pytest
from conftest import run_cli
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from rosenblatt import (
    AveragedPerceptron,
    CentroidClassifier,
    KernelPerceptron,
    OnlineCalibratedClassifier,
    Perceptron,
    calibrated,
    load,
    save,
)
from rosenblatt.estimators._online_platt import START, update

#: how far above the offline floor's log-loss (nats per sample) online may end: the
#: floor learns several epochs on four fifths of the stream before it predicts the
#: rest, online predicts every sample before it learns it, in one pass
MARGIN = 0.10
#: how far above the best fixed sigmoid of the same scores in hindsight
HINDSIGHT = 0.02


def _blobs(n=600, n_classes=2, seed=0):
    rng = np.random.RandomState(seed)
    y = rng.randint(n_classes, size=n)
    X = rng.randn(n, 4) + 1.5 * np.eye(n_classes, 4)[y]
    return X, y


def _reference(scores, outcomes, gamma=0.1, rho=100.0, n_bins=10):
    """The paper's OPS and TOPS, written plainly (matrices, ``np.linalg.inv``; radius never
    reached here): each sample's OPS probability and tracking forecast."""
    w, A = np.array(START), rho * np.eye(2)
    sums, counts = np.zeros(n_bins), np.zeros(n_bins)
    ops, tops = [], []
    for s, y in zip(scores, outcomes):
        u = np.array([s, 1.0])
        p = 1 / (1 + np.exp(-w @ u))
        k = min(int(p * n_bins), n_bins - 1)
        ops.append(p)
        tops.append(((k + 0.5) / n_bins + sums[k]) / (1 + counts[k]))
        sums[k] += y
        counts[k] += 1
        g = (p - y) * u
        A = A + np.outer(g, g)
        w = w - np.linalg.inv(A) @ g / gamma
    return np.array(ops), np.array(tops), w


def test_the_map_is_the_papers_online_newton_step_and_tracking():
    rng = np.random.RandomState(3)
    scores = 2 * rng.randn(300)
    outcomes = (scores + rng.randn(300) > 0.5).astype(float)
    platt, newton = np.array(START), 100.0 * np.eye(2)
    sums, counts = np.zeros(10), np.zeros(10)
    ops, tops = update(
        platt, newton, sums, counts, scores, outcomes, np.ones(300), gamma=0.1, radius=100.0,
        tracking=True,
    )  # fmt: skip
    want_ops, want_tops, want_w = _reference(scores, outcomes)
    np.testing.assert_allclose(ops, want_ops, rtol=1e-10)
    np.testing.assert_allclose(tops, want_tops, rtol=1e-10)
    np.testing.assert_allclose(platt, want_w, rtol=1e-8)
    assert counts.sum() == 300 and sums.sum() == outcomes.sum()


def test_a_zero_weight_forecasts_and_learns_nothing():
    platt, newton, sums, counts = np.array(START), 100.0 * np.eye(2), np.zeros(4), np.zeros(4)
    update(
        platt, newton, sums, counts, np.array([3.0, -1.0]), np.array([0.0, 1.0]),
        np.zeros(2), gamma=0.1, radius=100.0, tracking=True,
    )  # fmt: skip
    assert platt.tolist() == list(START) and counts.sum() == 0
    assert newton.tolist() == (100.0 * np.eye(2)).tolist()


def test_each_sample_is_scored_before_anything_learns_it():
    """prequential_proba's row i is what predict_proba gave just before sample i's turn."""
    X, y = _blobs(40)
    model = calibrated(Perceptron(random_state=0), method="online").set_params(batch_size=1)
    got = clone(model).prequential_proba(X, y, classes=[0, 1])
    replay = clone(model)
    for i in range(len(y)):
        if i:
            np.testing.assert_allclose(got[i], replay.predict_proba(X[i : i + 1])[0], rtol=1e-12)
        replay.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1])
    # nothing learnt yet: a zero score, OPS 0.5, whose bin [0.5, 0.6) forecasts its middle
    np.testing.assert_allclose(got[0], [0.45, 0.55])


def test_partial_fit_in_pieces_is_one_pass_over_the_whole():
    X, y = _blobs(600)
    whole = calibrated(AveragedPerceptron(random_state=0), method="online")
    whole.partial_fit(X, y, classes=[0, 1])
    pieces = clone(whole)
    for start in range(0, 600, 200):  # whole batches of batch_size=100
        pieces.partial_fit(X[start : start + 200], y[start : start + 200], classes=[0, 1])
    for name in ("platt_", "newton_", "bin_sums_", "bin_counts_"):
        np.testing.assert_array_equal(getattr(pieces, name), getattr(whole, name))
    np.testing.assert_array_equal(pieces.predict_proba(X), whole.predict_proba(X))
    np.testing.assert_array_equal(pieces.estimator_.coef_, whole.estimator_.coef_)
    assert pieces.n_iter_ == 3 and whole.n_iter_ == 1


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("calibeating", ["tracking", None])
def test_fit_gives_probabilities_that_beat_a_constant(n_classes, calibeating):
    from sklearn.metrics import log_loss

    X, y = _blobs(900, n_classes)
    model = calibrated(AveragedPerceptron(random_state=0, max_iter=5), method="online")
    model.set_params(calibeating=calibeating)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X[:600], y[:600])
    proba = model.predict_proba(X[600:])
    assert proba.shape == (300, n_classes)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    constant = np.tile(np.bincount(y[:600]) / 600, (300, 1))
    assert log_loss(y[600:], proba) < 0.8 * log_loss(y[600:], constant)
    assert (model.predict(X[600:]) == model.classes_[proba.argmax(axis=1)]).all()
    assert model.platt_.shape == (1 if n_classes == 2 else n_classes, 2)
    assert 1 <= model.n_iter_ <= 5 and len(model.mistakes_per_epoch_) == model.n_iter_


def test_fit_stops_as_its_estimator_does_and_hears_its_epochs():
    X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]] * 10, dtype=float)
    y = np.array([0, 1, 1, 1] * 10)
    heard = []
    model = calibrated(Perceptron(random_state=0, on_epoch=heard.append), method="online")
    model.fit(X, y)
    assert model.converged_ and model.mistakes_per_epoch_[-1] == 0
    assert [r.epoch for r in heard] == list(range(1, model.n_iter_ + 1))
    assert model.predict(X).tolist() == y.tolist()
    with pytest.warns(ConvergenceWarning, match="OnlineCalibratedClassifier did not converge"):
        calibrated(Perceptron(random_state=0, max_iter=1), method="online").fit(X, y)


@pytest.mark.parametrize(
    "estimator", [Perceptron(random_state=0), KernelPerceptron(max_iter=2, random_state=0)]
)
def test_model_files_keep_the_maps_and_go_on_learning(tmp_path, estimator):
    X, y = _blobs(500, 3)
    model = calibrated(estimator, method="online").partial_fit(X[:300], y[:300], classes=[0, 1, 2])
    save(model, tmp_path / "online.rbm")
    back = load(tmp_path / "online.rbm")
    assert isinstance(back, OnlineCalibratedClassifier)
    np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))
    model.partial_fit(X[300:], y[300:])
    back.partial_fit(X[300:], y[300:])
    np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))


def test_a_forged_map_is_refused(tmp_path):
    from forging import edit_tree, forge

    from rosenblatt.exceptions import ModelFileError

    X, y = _blobs(200)
    path = tmp_path / "online.rbm"
    save(calibrated(Perceptron(random_state=0), method="online").fit(X, y), path)

    def change(tree):
        tree["params"]["calibeating"] = "sorting"

    forge(path, edit_tree(change))
    with pytest.raises(ModelFileError, match="calibeating"):
        load(path)


def test_clear_errors():
    X, y = _blobs(50)
    with pytest.raises(ValueError, match="needs an estimator that learns online.*partial_fit"):
        calibrated(CentroidClassifier(), method="online").fit(X, y)
    with pytest.raises(ValueError, match="method='online' has no folds"):
        calibrated(Perceptron(), method="online", cv=3)
    with pytest.raises(ValueError, match="needs samples of at least two classes"):
        calibrated(Perceptron(), method="online").partial_fit(X, np.zeros(50))
    with pytest.raises(ValueError, match="multilabel"):
        calibrated(Perceptron(), method="online").fit(X, np.column_stack([y, 1 - y]))
    model = calibrated(Perceptron(), method="online").partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="n_bins=5, but the model was fitted with 10 bins"):
        model.set_params(n_bins=5).partial_fit(X, y)
    unknown = r"labels \[7\] that are not among the classes \[0, 1\] \(classes_\)"
    with pytest.raises(ValueError, match=unknown):
        calibrated(Perceptron(), method="online").partial_fit(X, np.full(50, 7), classes=[0, 1])


def test_fit_stream_and_the_command_line_learn_the_probabilities_on_the_pass(tmp_path):
    from sklearn.datasets import dump_svmlight_file
    from sklearn.metrics import log_loss

    from rosenblatt import fit_stream

    X, y = _blobs(400)
    path = tmp_path / "blobs.svm"
    dump_svmlight_file(X, y, str(path))
    online = calibrated(AveragedPerceptron(random_state=0), method="online")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the blobs overlap
        model = fit_stream(online, path, epochs=2)
    assert isinstance(model, OnlineCalibratedClassifier) and model.n_iter_ == 2
    assert (model.predict(X) == y).mean() > 0.8
    proba = model.predict_proba(X)
    assert log_loss(y, proba) < 0.5 * log_loss(y, np.full(len(y), y.mean()))
    result = run_cli(
        "train",
        path,
        "--stream",
        "-m",
        tmp_path / "m.rbm",
        "--calibrate",
        "online",
        "--max-iter",
        2,
    )
    assert result.exit_code == 0, result.output
    assert "online" in result.output
    probabilities = run_cli("predict", path, "-m", tmp_path / "m.rbm", "--proba", "--json")
    assert probabilities.exit_code == 0 and '"probabilities"' in probabilities.stdout


# ---------------------------------------------------------------------- quality
def _stream_or_skip(name, kind, n):
    data = streams.stream(name, kind, n=n)
    if data is None:
        pytest.skip(f"needs ../shared/data ({name} is not there)")
    return data


@pytest.mark.parametrize("name", ["sms", "spambase"])
def test_online_beats_the_uncalibrated_score_and_nears_the_offline_floor(name):
    """One pass: better than the logistic of the score, as good as the best fixed sigmoid
    of the same scores in hindsight (OPS's regret comparator) up to ``HINDSIGHT``, and
    within ``MARGIN`` of the offline floor for samples not learnt (isotonic
    ``calibrated()``, five fits on all the rest of the stream, several epochs each)."""
    X, y, _ = _stream_or_skip(name, "fixed", None)
    scores = streams.methods(X, y, out_of_fold=("isotonic",))
    online = scores["online OPS+tracking"]
    assert online.log_loss < scores["uncalibrated"].log_loss, scores
    assert online.brier < scores["uncalibrated"].brier, scores
    assert online.log_loss < scores["sigmoid in hindsight"].log_loss + HINDSIGHT, scores
    assert online.log_loss < scores["offline isotonic, out of fold"].log_loss + MARGIN, scores


@functools.cache
def _shift_scores(name):
    X, y, half = _stream_or_skip(name, "shift", None)
    return streams.methods(X, y, half, out_of_fold=())


@pytest.mark.parametrize("name", ["sms", "spambase"])
@pytest.mark.parametrize("method", ["online OPS", "online OPS+tracking"])
def test_online_recovers_after_the_balance_shifts(name, method):
    """After the shift, online ends (the second half's last quarter) better than a sigmoid
    fitted before the shift and kept, and than the plain logistic of the score, and
    within ``MARGIN`` of the best fixed isotonic map of its scores in hindsight."""
    scores = _shift_scores(name)
    online = scores[method].last_log_loss
    assert online < scores["sigmoid fitted on the first half"].last_log_loss, scores
    assert online < scores["uncalibrated"].last_log_loss, scores
    assert online < scores["isotonic in hindsight"].last_log_loss + MARGIN, scores


# ---------------------------------------------------------------------- classes that appear
def test_a_class_that_appears_gets_a_fresh_map_and_a_unit():
    """Two classes first: their one map is the second class's. A third class (here first
    in sorted order) then joins: the estimator adds its unit (``add_classes``) and every
    class without a map of its own (the new one, the first of the two) gets a fresh map;
    the second class's map goes on as it was."""
    X, y = _blobs(300, n_classes=3)
    labels = np.array([7, 2, 9])[y]  # class index 1 is the label 2, sorted first
    first = labels[:100] != 2
    model = calibrated(Perceptron(random_state=0), method="online")
    model.partial_fit(X[:100][first], labels[:100][first])
    assert model.classes_.tolist() == [7, 9] and model.platt_.shape == (1, 2)
    binary = (model.platt_.copy(), model.newton_.copy(), model.bin_sums_.copy())
    grown = clone(model.estimator).partial_fit(X[:100][first], labels[:100][first])
    grown.add_classes([2])
    model._grow(np.array([2]))  # the step partial_fit takes when the label 2 comes
    assert model.classes_.tolist() == [2, 7, 9]
    np.testing.assert_array_equal(model.estimator_.coef_, grown.coef_)
    np.testing.assert_array_equal(model.platt_[2], binary[0][0])
    np.testing.assert_array_equal(model.newton_[2], binary[1][0])
    np.testing.assert_array_equal(model.bin_sums_[2], binary[2][0])
    for k in (0, 1):  # fresh maps
        np.testing.assert_array_equal(model.platt_[k], START)
        np.testing.assert_array_equal(model.newton_[k], 100.0 * np.eye(2))
        assert not model.bin_counts_[k].any()


def test_partial_fit_learns_the_classes_it_meets():
    X, y = _blobs(300, n_classes=3)
    model = calibrated(AveragedPerceptron(random_state=0), method="online")
    proba = model.prequential_proba(X[:100][y[:100] < 2], y[:100][y[:100] < 2])
    assert proba.shape[1] == 2
    proba = model.prequential_proba(X[100:], y[100:])
    assert proba.shape == (200, 3) and np.allclose(proba.sum(axis=1), 1.0)
    assert model.estimator_.classes_.tolist() == [0, 1, 2]
    assert not hasattr(model, "fixed_classes_")
    fixed = calibrated(Perceptron(), method="online").partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    assert fixed.fixed_classes_ is True
    with pytest.raises(
        ValueError, match=r"labels \[5\] that are not among the classes \[0, 1, 2\]"
    ):
        fixed.partial_fit(X[:5], np.full(5, 5))
    assert fixed.n_iter_ == 1  # refused: nothing learnt
    streamed = calibrated(Perceptron(random_state=0), method="online").fit_batches(
        lambda: [(X[:100][y[:100] < 2], y[:100][y[:100] < 2]), (X[100:], y[100:])], max_iter=2
    )
    assert streamed.classes_.tolist() == [0, 1, 2] and streamed.platt_.shape == (3, 2)
