"""Perceptron, AveragedPerceptron, VotedPerceptron against the plain references and the seeds."""

import warnings

import numpy as np
import pandas as pd
import pytest
import reference
import scipy.sparse as sp
from conftest import OR_X, OR_Y, PROPERTY, fit_quiet, orders
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.exceptions import ConvergenceWarning

from rosenblatt import AveragedPerceptron, Perceptron, VotedPerceptron
from rosenblatt.estimators.kernel import KernelPerceptron

XOR_Y = np.array([-1, 1, 1, -1])


@st.composite
def small_problems(draw, n_classes=2, min_samples=4):
    """Integer-valued patterns: every sum is exact, so results can be compared exactly."""
    n = draw(st.integers(min_samples, 25))
    d = draw(st.integers(1, 5))
    X = draw(arrays(np.float64, (n, d), elements=st.integers(-6, 6).map(float)))
    y = draw(arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    for c in range(n_classes):  # every class present
        y[c] = c
    return X, y


# ---------------------------------------------------------------- seed 003: modified OR
def test_or_online_matches_seed_003():
    clf = Perceptron(shuffle=False, eta=1.0).fit(OR_X, OR_Y)
    np.testing.assert_array_equal(clf.coef_, [[1.0, 1.0]])
    np.testing.assert_array_equal(clf.intercept_, [1.0])
    assert clf.n_mistakes_ == 3
    assert clf.n_iter_ == 2
    assert clf.mistakes_per_epoch_ == [3, 0]
    assert clf.converged_


def test_or_batch_matches_seed_003():
    clf = Perceptron(shuffle=False, mode="batch").fit(OR_X, OR_Y)
    np.testing.assert_array_equal(clf.coef_, [[2.0, 2.0]])
    np.testing.assert_array_equal(clf.intercept_, [2.0])
    assert clf.n_iter_ == 2
    assert clf.mistakes_per_epoch_ == [4, 0]
    assert clf.converged_


def test_or_with_seed_threshold_input():
    """Seed 003 appends -1: w_0 = -1 and the intercept w_0 * s = +1."""
    clf = Perceptron(shuffle=False, intercept_scaling=1.0).fit(OR_X, OR_Y)
    seed = reference.online(OR_X, OR_Y, orders(None, 4, 10, shuffle=False), bias_input=-1.0)
    np.testing.assert_array_equal(seed["w"], [1.0, 1.0, -1.0])
    assert clf.intercept_[0] == seed["w"][-1] * -1.0


def test_xor_does_not_converge_and_warns():
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        clf = Perceptron(tol=None, shuffle=False, max_iter=20).fit(OR_X, XOR_Y)
    assert not clf.converged_
    assert clf.n_iter_ == 20
    assert all(m > 0 for m in clf.mistakes_per_epoch_)


@pytest.mark.parametrize(
    "estimator, advice",
    [
        (Perceptron, "or use AveragedPerceptron."),
        (AveragedPerceptron, "its averaged prediction does not need convergence"),
        (VotedPerceptron, "its voted prediction does not need convergence"),
    ],
)
def test_non_convergence_advice_fits_the_estimator(estimator, advice):
    """An averaged or voted model is not told to switch to AveragedPerceptron."""
    with pytest.warns(ConvergenceWarning) as caught:
        estimator(shuffle=False, max_iter=3).fit(OR_X, XOR_Y)
    message = str(caught[0].message)
    assert advice in message and "raise max_iter," in message
    assert "--" not in message  # the command line's options on the command line only
    assert (estimator is Perceptron) == ("use AveragedPerceptron" in message)


# ---------------------------------------------------------------- reference equality
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_online_equals_reference(shuffle, fit_intercept):
    X, y = make_classification(60, 4, n_informative=3, n_redundant=0, random_state=1)
    labels = np.where(y == 1, 1, -1)
    clf = fit_quiet(
        Perceptron(
            tol=None,
            shuffle=shuffle,
            random_state=7,
            max_iter=15,
            fit_intercept=fit_intercept,
            eta=0.3,
            intercept_scaling=2.0,
        ),
        X,
        y,
    )
    ref = reference.online(
        X, labels, orders(7, 60, 15, shuffle), eta=0.3, bias_input=2.0 if fit_intercept else 0.0
    )
    np.testing.assert_array_equal(clf.coef_[0], ref["w"][:-1])
    assert clf.intercept_[0] == ref["w"][-1] * (2.0 if fit_intercept else 0.0)
    assert clf.mistakes_per_epoch_ == ref["mistakes"]


@pytest.mark.parametrize("shuffle", [False, True])
def test_batch_equals_reference(shuffle):
    X, y = make_classification(50, 3, n_informative=2, n_redundant=0, random_state=2)
    labels = np.where(y == 1, 1, -1)
    clf = fit_quiet(
        Perceptron(tol=None, mode="batch", shuffle=shuffle, random_state=0, max_iter=12, eta=0.5),
        X,
        y,
    )
    ref = reference.batch(X, labels, 12, eta=0.5)
    # batch sums in presentation order; with shuffling only the summation order changes
    if shuffle:
        np.testing.assert_allclose(clf.coef_[0], ref["w"][:-1], rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(clf.coef_[0], ref["w"][:-1])
    assert clf.mistakes_per_epoch_ == ref["mistakes"]


def test_sample_weight_equals_reference():
    X, y = make_classification(40, 3, n_informative=2, n_redundant=0, random_state=3)
    labels = np.where(y == 1, 1, -1)
    sw = np.random.RandomState(0).uniform(0, 2, 40)
    sw[:5] = 0.0
    clf = fit_quiet(Perceptron(tol=None, random_state=4, max_iter=10), X, y, sample_weight=sw)
    ref = reference.online(X, labels, orders(4, 40, 10), sample_weight=sw)
    np.testing.assert_array_equal(clf.coef_[0], ref["w"][:-1])
    assert clf.mistakes_per_epoch_ == ref["mistakes"]


def test_one_vs_rest_equals_independent_references():
    X, y = make_classification(90, 5, n_informative=4, n_redundant=0, n_classes=3, random_state=5)
    clf = fit_quiet(Perceptron(tol=None, random_state=3, max_iter=8), X, y)
    runs = reference.one_vs_rest(X, y, [0, 1, 2], orders(3, 90, 8))
    for k, run in enumerate(runs):
        np.testing.assert_array_equal(clf.coef_[k], run["w"][:-1])
        assert clf.intercept_[k] == run["w"][-1]
    assert clf.n_mistakes_ == sum(sum(run["mistakes"]) for run in runs)


def test_multinomial_equals_reference():
    X, y = make_classification(80, 4, n_informative=3, n_redundant=0, n_classes=3, random_state=6)
    clf = fit_quiet(
        Perceptron(multi_class="multinomial", random_state=1, max_iter=9, eta=0.7), X, y
    )
    ref = reference.multinomial(X, y, 3, orders(1, 80, 9), eta=0.7)
    np.testing.assert_array_equal(clf.coef_, ref["W"][:, :-1])
    np.testing.assert_array_equal(clf.intercept_, ref["W"][:, -1])
    assert clf.mistakes_per_epoch_ == ref["mistakes"]


def test_multinomial_binary_reduces_to_one_decision_function():
    X, y = make_classification(40, 3, n_informative=2, n_redundant=0, random_state=8)
    clf = fit_quiet(Perceptron(multi_class="multinomial", random_state=0, max_iter=5), X, y)
    ref = reference.multinomial(X, y, 2, orders(0, 40, 5))
    np.testing.assert_allclose(clf.coef_[0], ref["W"][1, :-1] - ref["W"][0, :-1])
    assert clf.coef_.shape == (1, 3)
    scores = X @ ref["W"][:, :-1].T + ref["W"][:, -1]
    np.testing.assert_array_equal(clf.predict(X), np.argmax(scores, axis=1))


def test_averaged_equals_explicit_average_on_real_data():
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:120, :6]
    y = np.where(y[:120] == 1, 1, -1)
    clf = fit_quiet(AveragedPerceptron(random_state=2, max_iter=6), X, y)
    ref = reference.averaged(X, y, orders(2, 120, 6))
    np.testing.assert_allclose(clf.coef_[0], ref["average"][:-1], rtol=1e-9)
    np.testing.assert_allclose(clf.intercept_[0], ref["average"][-1], rtol=1e-9)


# ---------------------------------------------------------------- CIML Algorithm 7
def test_averaged_on_the_notes_or_is_algorithm_7_to_the_digit():
    """Two epochs, c = 9: w_0 .. w_8 are 0, (1, 1, b -1), (2, 0, 0) and six times (1, 1, 1),
    so w = (0 + 1 + 2 + 6) / 9, (0 + 1 + 0 + 6) / 9 = (1, 7/9) and b = (0 - 1 + 0 + 6) / 9."""
    from fractions import Fraction

    clf = AveragedPerceptron(shuffle=False, max_iter=2).fit(OR_X, OR_Y)
    assert clf.coef_.tolist() == [[float(Fraction(9, 9)), float(Fraction(7, 9))]]
    assert clf.intercept_.tolist() == [float(Fraction(5, 9))]  # the notes' 0.556
    assert clf.training_state_.counts.tolist() == [8]  # T = 8 presentations, c = T + 1
    # the notes' threshold input -1 (seed 003): the same line, w0 = -b
    notes = AveragedPerceptron(shuffle=False, max_iter=2, intercept_scaling=-1).fit(OR_X, OR_Y)
    W, w0 = notes.training_state_.weights(averaged=True)
    assert W.tolist() == clf.coef_.tolist() and w0.tolist() == [float(Fraction(-5, 9))]
    assert notes.intercept_.tolist() == clf.intercept_.tolist()
    literal = reference.algorithm7(OR_X, OR_Y, orders(None, 4, 2, shuffle=False))
    assert literal["c"] == 9
    assert literal["average"].tolist() == [1.0, float(Fraction(7, 9)), float(Fraction(5, 9))]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("scaling", [1.0, -1.0])
def test_averaged_is_algorithm_7_bit_for_bit_over_several_epochs(seed, scaling):
    """Real-valued data that no line separates, shuffled epochs, eta != 1."""
    X, y = make_classification(40, 4, n_informative=3, n_redundant=1, flip_y=0.1, random_state=seed)
    t = np.where(y == 1, 1, -1)
    clf = AveragedPerceptron(
        eta=0.7, max_iter=6, tol=None, random_state=seed, intercept_scaling=scaling
    )
    fit_quiet(clf, X, y)
    literal = reference.algorithm7(X, t, orders(seed, 40, 6), eta=0.7, bias_input=scaling)
    W, w0 = clf.training_state_.weights(averaged=True)
    np.testing.assert_array_equal(W[0], literal["average"][:-1])
    assert w0[0] == literal["average"][-1]
    np.testing.assert_array_equal(clf.coef_[0], literal["average"][:-1])
    assert clf.intercept_[0] == literal["average"][-1] * scaling


def test_averaged_partial_fit_counts_on_across_calls_as_algorithm_7():
    X, y = make_classification(60, 3, n_informative=2, n_redundant=0, random_state=10)
    t = np.where(y == 1, 1, -1)
    clf = AveragedPerceptron(shuffle=False)
    state = None
    for _ in range(3):
        clf.partial_fit(X[:25], y[:25], classes=[0, 1])
        clf.partial_fit(X[25:], y[25:])
        state = reference.algorithm7(X, t, [np.arange(25), np.arange(25, 60)], state=state)
        state = state["state"]
    literal = reference.algorithm7(X, t, [], state=state)  # no more presentations: read it
    assert literal["c"] == 181  # c counts all 180 presentations, from 1
    np.testing.assert_array_equal(clf.coef_[0], literal["average"][:-1])
    assert clf.intercept_[0] == literal["average"][-1]


def test_averaged_warm_start_counts_on_as_algorithm_7():
    X, y = make_classification(50, 3, n_informative=2, n_redundant=0, flip_y=0.2, random_state=4)
    t = np.where(y == 1, 1, -1)
    clf = AveragedPerceptron(max_iter=3, tol=None, random_state=5, warm_start=True)
    fit_quiet(clf, X, y)
    fit_quiet(clf, X, y)  # each fit draws its orders from random_state again
    first = reference.algorithm7(X, t, orders(5, 50, 3))
    literal = reference.algorithm7(X, t, orders(5, 50, 3), state=first["state"])
    assert literal["c"] == 301
    np.testing.assert_array_equal(clf.coef_[0], literal["average"][:-1])
    assert clf.intercept_[0] == literal["average"][-1]


def test_averaged_one_vs_rest_is_algorithm_7_per_class():
    X, y = make_classification(45, 4, n_informative=3, n_redundant=1, n_classes=3, random_state=6)
    clf = fit_quiet(AveragedPerceptron(max_iter=4, tol=None, random_state=6), X, y)
    for k in range(3):
        literal = reference.algorithm7(X, np.where(y == k, 1, -1), orders(6, 45, 4))
        np.testing.assert_array_equal(clf.coef_[k], literal["average"][:-1])
        assert clf.intercept_[k] == literal["average"][-1]


def test_algorithm_7_keeps_the_predictions_of_the_average_over_w1_to_wT():
    """From zero weights, the average of w_0 .. w_T is T / (T + 1) times that of w_1 .. w_T
    (the average before Algorithm 7): the same direction, the same predictions."""
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:200, :8], np.where(y[:200] == 1, 1, -1)
    clf = fit_quiet(AveragedPerceptron(random_state=3, max_iter=5, tol=None), X, y)
    run = reference.online(X, y, orders(3, 200, 5), stop=False)
    before = run["history"].mean(axis=0)  # w_1 .. w_T, T = 1000
    scores = X @ before[:-1] + before[-1]
    np.testing.assert_allclose(clf.decision_function(X), scores * 1000 / 1001, rtol=1e-9)
    np.testing.assert_array_equal(clf.predict(X), np.where(scores > 0, 1, -1))


# ---------------------------------------------------------------- property tests
@PROPERTY
@given(small_problems(), st.booleans(), st.integers(0, 10_000))
def test_averaged_is_the_average_of_every_presentation(problem, fit_intercept, seed):
    X, y = problem
    labels = np.where(y == 1, 1, -1)
    clf = fit_quiet(
        AveragedPerceptron(random_state=seed, max_iter=7, fit_intercept=fit_intercept, tol=None),
        X,
        y,
    )
    ref = reference.averaged(
        X, labels, orders(seed, len(y), 7), bias_input=1.0 if fit_intercept else 0.0
    )
    np.testing.assert_allclose(clf.coef_[0], ref["average"][:-1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_[0], ref["average"][-1], rtol=1e-12, atol=1e-12)


@PROPERTY
@given(small_problems(), st.integers(0, 10_000))
def test_voted_is_the_survival_weighted_vote(problem, seed):
    X, y = problem
    labels = np.where(y == 1, 1, -1)
    clf = fit_quiet(VotedPerceptron(random_state=seed, max_iter=6, tol=None), X, y)
    ref = reference.online(X, labels, orders(seed, len(y), 6))
    X_test = np.random.RandomState(seed).randint(-6, 7, size=(15, X.shape[1])).astype(float)
    expected = reference.voted_decision(ref["history"], X_test)
    np.testing.assert_allclose(clf.decision_function(X_test), expected, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(X_test), np.where(expected > 0, 1, 0))


@PROPERTY
@given(small_problems(n_classes=3, min_samples=6), st.integers(0, 10_000))
def test_multinomial_voted_is_the_explicit_vote(problem, seed):
    X, y = problem
    clf = fit_quiet(VotedPerceptron(multi_class="multinomial", random_state=seed, max_iter=5), X, y)
    ref = reference.multinomial(X, y, 3, orders(seed, len(y), 5))
    X_test = np.random.RandomState(seed).randint(-6, 7, size=(12, X.shape[1])).astype(float)
    expected = reference.multinomial_voted_predict(ref["history"], X_test)
    np.testing.assert_array_equal(clf.predict(X_test), expected)


@PROPERTY
@given(
    small_problems(n_classes=3),
    st.sampled_from([Perceptron, AveragedPerceptron, VotedPerceptron]),
    st.sampled_from(["ovr", "multinomial"]),
    st.integers(0, 1000),
)
def test_dense_equals_sparse(problem, estimator, multi_class, seed):
    X, y = problem
    # one constant input for both: intercept_scaling="auto" gives sparse rows a smaller one
    params = dict(random_state=seed, max_iter=6, multi_class=multi_class, intercept_scaling=1.0)
    dense = fit_quiet(estimator(**params), X, y)
    sparse = fit_quiet(estimator(**params), sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.coef_, sparse.coef_)
    np.testing.assert_array_equal(dense.intercept_, sparse.intercept_)
    assert dense.mistakes_per_epoch_ == sparse.mistakes_per_epoch_
    # training is bit-identical; scoring goes through BLAS vs a sparse product
    np.testing.assert_allclose(
        dense.decision_function(X), sparse.decision_function(sp.csr_matrix(X)), rtol=1e-12
    )
    np.testing.assert_array_equal(dense.predict(X), sparse.predict(sp.csr_matrix(X)))


@PROPERTY
@given(
    small_problems(n_classes=2),
    st.sampled_from([Perceptron, AveragedPerceptron, VotedPerceptron]),
    st.integers(0, 1000),
)
def test_float32_agrees_with_float64(problem, estimator, seed):
    X, y = problem
    clf64 = fit_quiet(estimator(random_state=seed, max_iter=6), X, y)
    clf32 = fit_quiet(estimator(random_state=seed, max_iter=6), X.astype(np.float32), y)
    assert clf32.coef_.dtype == np.float32
    np.testing.assert_allclose(clf32.coef_, clf64.coef_, rtol=1e-6, atol=1e-5)
    assert clf32.mistakes_per_epoch_ == clf64.mistakes_per_epoch_
    # a point on the (averaged) boundary in exact arithmetic scores a rounding error
    # of either sign, so predictions are compared away from the boundary only
    clear = np.abs(clf64.decision_function(X)).reshape(len(X), -1).min(axis=1) > 1e-4
    np.testing.assert_array_equal(clf32.predict(X)[clear], clf64.predict(X)[clear])


@PROPERTY
@given(
    small_problems(n_classes=2),
    st.sampled_from([2.0**-10, 0.25, 4.0, 1024.0]),
    st.sampled_from(["online", "batch"]),
    st.integers(0, 1000),
)
def test_eta_only_scales_the_weights(problem, eta, mode, seed):
    """Exact for powers of two: scaling by them commutes with every rounding.

    Other eta values scale exactly in real arithmetic, but a sum that is 0 there can
    round to +-1e-18 and flip a tie; see the next test for them on continuous data.
    """
    X, y = problem
    base = fit_quiet(Perceptron(mode=mode, random_state=seed, max_iter=8), X, y)
    scaled = fit_quiet(Perceptron(mode=mode, random_state=seed, max_iter=8, eta=eta), X, y)
    np.testing.assert_allclose(scaled.coef_, eta * base.coef_, rtol=1e-12)
    np.testing.assert_allclose(scaled.intercept_, eta * base.intercept_, rtol=1e-12)
    assert scaled.mistakes_per_epoch_ == base.mistakes_per_epoch_
    np.testing.assert_array_equal(scaled.predict(X), base.predict(X))


@pytest.mark.parametrize("eta", [0.01, 0.3, 3.0, 1e3])
def test_eta_scales_the_weights_on_continuous_data(eta):
    X, y = make_classification(200, 6, flip_y=0.1, random_state=15)
    base = fit_quiet(Perceptron(random_state=0, max_iter=20), X, y)
    scaled = fit_quiet(Perceptron(random_state=0, max_iter=20, eta=eta), X, y)
    np.testing.assert_allclose(scaled.coef_, eta * base.coef_, rtol=1e-9)
    assert scaled.mistakes_per_epoch_ == base.mistakes_per_epoch_


# ---------------------------------------------------------------- API behaviour
def test_float32_input_is_not_copied_to_float64():
    X = OR_X.astype(np.float32)
    clf = Perceptron(shuffle=False).fit(X, OR_Y)
    assert clf.coef_.dtype == np.float32
    assert clf.decision_function(X).dtype == np.float32


def test_pandas_input_gives_the_same_model():
    X, y = make_classification(50, 3, n_informative=2, n_redundant=0, random_state=0)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    a = fit_quiet(Perceptron(random_state=0, max_iter=5), frame, pd.Series(y))
    b = fit_quiet(Perceptron(random_state=0, max_iter=5), X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert list(a.feature_names_in_) == ["a", "b", "c"]


def test_string_labels_and_classes():
    y = np.array(["ham", "spam", "spam", "spam"])
    clf = Perceptron(shuffle=False).fit(OR_X, y)
    np.testing.assert_array_equal(clf.classes_, ["ham", "spam"])
    np.testing.assert_array_equal(clf.predict(OR_X), y)


def test_partial_fit_is_one_epoch_of_fit():
    X, y = make_classification(40, 3, n_informative=2, n_redundant=0, random_state=9)
    online = Perceptron(shuffle=False)
    for _ in range(3):
        online.partial_fit(X, y, classes=[0, 1])
    ref = reference.online(
        X, np.where(y == 1, 1, -1), orders(None, 40, 3, shuffle=False), stop=False
    )
    np.testing.assert_array_equal(online.coef_[0], ref["w"][:-1])
    assert online.n_iter_ == 3
    assert online.mistakes_per_epoch_ == ref["mistakes"]


def test_partial_fit_with_classes_fixes_them():
    """Classes given on the first call fix the set; left out, the first call takes y's
    labels (tests/test_classes_appear.py follows the classes that appear later)."""
    clf = Perceptron().partial_fit(OR_X, OR_Y, classes=[-1, 1])
    with pytest.raises(ValueError, match=r"not among the classes \[-1, 1\] \(classes_\), fixed"):
        clf.partial_fit(OR_X, np.array([2, 1, 1, 1]))
    assert clf.classes_.tolist() == [-1, 1] and clf.n_iter_ == 1
    unfixed = Perceptron().partial_fit(OR_X, OR_Y)
    given = Perceptron().partial_fit(OR_X, OR_Y, classes=[-1, 1])
    np.testing.assert_array_equal(unfixed.coef_, given.coef_)
    with pytest.raises(ValueError, match="needs samples of at least two classes"):
        Perceptron().partial_fit(OR_X, np.ones(4))


def test_averaged_partial_fit_streams_the_same_average():
    X, y = make_classification(60, 3, n_informative=2, n_redundant=0, random_state=10)
    streamed = AveragedPerceptron(shuffle=False)
    for _ in range(4):
        streamed.partial_fit(X[:30], y[:30], classes=[0, 1])
        streamed.partial_fit(X[30:], y[30:])
    orders_ = [np.r_[np.arange(30), np.arange(30, 60)]] * 4
    ref = reference.averaged(X, np.where(y == 1, 1, -1), orders_, stop=False)
    np.testing.assert_allclose(streamed.coef_[0], ref["average"][:-1], rtol=1e-10)


def test_warm_start_continues_from_previous_state():
    X, y = make_classification(60, 3, n_informative=2, n_redundant=0, flip_y=0.2, random_state=11)
    warm = fit_quiet(Perceptron(shuffle=False, max_iter=3, warm_start=True), X, y)
    fit_quiet(warm, X, y)
    cold = fit_quiet(Perceptron(shuffle=False, max_iter=6), X, y)
    np.testing.assert_array_equal(warm.coef_, cold.coef_)
    assert warm.n_iter_ == 3  # history counts this call's epochs


def test_fit_without_warm_start_resets():
    X, y = make_classification(60, 3, n_informative=2, n_redundant=0, random_state=12)
    clf = fit_quiet(Perceptron(random_state=0, max_iter=4), X, y)
    first = clf.coef_.copy()
    fit_quiet(clf, X, y)
    np.testing.assert_array_equal(clf.coef_, first)


def test_class_weight_scales_updates_of_each_class():
    X, y = make_classification(40, 3, n_informative=2, n_redundant=0, random_state=13)
    weighted = fit_quiet(
        Perceptron(random_state=0, max_iter=5, class_weight={0: 0.5, 1: 2.0}), X, y
    )
    ref = reference.online(
        X, np.where(y == 1, 1, -1), orders(0, 40, 5), sample_weight=np.where(y == 1, 2.0, 0.5)
    )
    np.testing.assert_array_equal(weighted.coef_[0], ref["w"][:-1])
    balanced = fit_quiet(Perceptron(class_weight="balanced", random_state=0, max_iter=5), X, y)
    assert balanced.coef_.shape == (1, 3)


def test_early_stopping_stops_before_max_iter_on_noisy_data():
    X, y = make_classification(400, 5, flip_y=0.3, random_state=14)
    clf = Perceptron(early_stopping=True, n_iter_no_change=3, random_state=0, max_iter=500)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # early stop: no warning
        clf.fit(X, y)
    assert clf.n_iter_ < 500
    assert not clf.converged_


def test_breast_cancer_accuracy_is_sensible():
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    for estimator in (Perceptron, AveragedPerceptron, VotedPerceptron):
        clf = fit_quiet(estimator(random_state=0, max_iter=50), X, y)
        assert clf.score(X, y) > 0.95, estimator.__name__


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("estimator", [Perceptron, AveragedPerceptron, VotedPerceptron])
@pytest.mark.parametrize(
    "X, y, message",
    [
        ([[np.nan, 1.0], [1.0, 2.0]], [0, 1], "contains NaN"),
        ([[np.inf, 1.0], [1.0, 2.0]], [0, 1], "infinity"),
        ([[0.0, 1.0], [1.0, 2.0]], [1, 1], "only one class"),
        ([[0.0, 1.0], [1.0, 2.0]], [0.5, 1.7], "Unknown label type"),
        ([[0.0, 1.0], [1.0, 2.0]], [0, 1, 1], "inconsistent numbers of samples"),
        (np.empty((0, 2)), [], "0 sample"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(estimator, X, y, message):
    with pytest.raises(ValueError, match=message):
        estimator().fit(np.asarray(X, dtype=float), np.asarray(y))


@pytest.mark.parametrize("estimator", [Perceptron, AveragedPerceptron, VotedPerceptron])
def test_wrong_number_of_features_at_predict_time(estimator):
    clf = estimator(shuffle=False).fit(OR_X, OR_Y)
    with pytest.raises(ValueError, match="X has 3 features, but .* is expecting 2"):
        clf.predict(np.zeros((2, 3)))


@pytest.mark.parametrize(
    "params, message",
    [
        ({"eta": 0.0}, "'eta' parameter of Perceptron must be a float in the range"),
        ({"eta": -1.0}, "'eta'"),
        ({"max_iter": 0}, "'max_iter'"),
        ({"mode": "stochastic"}, "'mode' parameter of Perceptron must be one of 'online', 'batch'"),
        ({"multi_class": "ovo"}, "'multi_class'"),
        (
            {"eta": 10**400},
            "'eta' parameter of Perceptron must be a float in the range",
        ),  # no float
        ({"class_weight": {0: 10**400}}, "class_weight of Perceptron for class 0 is 1000"),
    ],
)
def test_bad_parameters_name_the_parameter(params, message):
    with pytest.raises(ValueError, match=message):
        Perceptron(**params).fit(OR_X, OR_Y)


def test_batch_mode_is_refused_for_online_only_variants():
    clf = AveragedPerceptron()
    clf.mode = "batch"  # not a parameter of AveragedPerceptron; guard the driver anyway
    with pytest.raises(ValueError, match="only for Perceptron"):
        clf.fit(OR_X, OR_Y)


@pytest.mark.parametrize(
    "y",
    [
        np.array([3, -2, 3, 7, -2]),
        np.array([3, 2, 3, 7, 2], dtype=np.uint8),
        np.array([10**12, 5, 10**12]),
        np.array(["b", "a", "b"]),
        np.array([0.5, 1.5, 0.5]),
    ],
)
def test_label_helpers_equal_numpy(y):
    from rosenblatt._core.validation import distinct_labels, label_indices

    classes = np.unique(y)
    np.testing.assert_array_equal(distinct_labels(y), classes)
    assert distinct_labels(y).dtype == classes.dtype
    np.testing.assert_array_equal(label_indices(classes, y), np.searchsorted(classes, y))
    assert np.all(label_indices(classes[1:], y)[y == classes[0]] == -1)


# ---------------------------------------------------------------- the intercept on sparse rows
def test_intercept_scaling_auto_is_one_dense_and_smaller_sparse():
    X, y = make_classification(120, 6, random_state=4)
    auto = {"random_state": 0, "max_iter": 5, "intercept_scaling": "auto"}
    dense = fit_quiet(Perceptron(**auto), X, y)
    sparse = fit_quiet(Perceptron(**auto), sp.csr_matrix(X), y)
    assert dense.intercept_scaling_ == 1.0 and sparse.intercept_scaling_ == 0.1
    # "auto" is a constant input like any other: sparse rows train as with 0.1 given
    given = fit_quiet(
        Perceptron(random_state=0, max_iter=5, intercept_scaling=0.1), sp.csr_matrix(X), y
    )
    np.testing.assert_array_equal(sparse.coef_, given.coef_)
    np.testing.assert_array_equal(sparse.intercept_, given.intercept_)
    explicit = fit_quiet(
        Perceptron(random_state=0, max_iter=5, intercept_scaling=2.0), sp.csr_matrix(X), y
    )
    assert explicit.intercept_scaling_ == 2.0
    # partial_fit keeps the constant input of its first call
    online = Perceptron(random_state=0, intercept_scaling="auto")
    online.partial_fit(sp.csr_matrix(X), y, classes=[0, 1])
    online.partial_fit(X, y)
    assert online.intercept_scaling_ == 0.1


def test_sparse_text_default_is_as_accurate_as_sklearn():
    """Normalised sparse rows (tf-idf-like, 5 % label noise): the last iterate with the
    default constant input (1.0, and the tol stop rule) keeps up with scikit-learn's
    Perceptron, which decays its intercept updates on sparse input."""
    from sklearn.linear_model import Perceptron as SkPerceptron
    from sklearn.preprocessing import normalize

    rng = np.random.default_rng(0)
    n, d, per_row = 40_000, 80_000, 60
    rows = np.repeat(np.arange(n), per_row)
    cols = rng.permutation(d)[(rng.zipf(1.3, size=n * per_row) - 1) % d]
    X = sp.csr_matrix((rng.random(n * per_row) + 0.1, (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    X = normalize(X)
    scores = X @ rng.standard_normal(d)
    y = np.where(scores > np.median(scores), 1, -1)
    flip = rng.random(n) < 0.05
    y[flip] = -y[flip]
    train, test = slice(0, 32_000), slice(32_000, None)

    def accuracy(model):
        return model.fit(X[train], y[train]).score(X[test], y[test])

    ours = [accuracy(Perceptron(max_iter=10, random_state=seed)) for seed in range(5)]
    theirs = [accuracy(SkPerceptron(max_iter=10, tol=None, random_state=seed)) for seed in range(5)]
    assert np.mean(ours) >= np.mean(theirs) - 0.01


@pytest.mark.parametrize("label", [np.int64(1), np.str_("spam")])
def test_one_class_message_shows_the_label_as_people_write_it(label):
    """No numpy repr (np.int64(1), np.str_('spam')) in messages."""
    y = np.array([label] * 4)
    with pytest.raises(ValueError, match="only one class") as caught:
        Perceptron().fit(OR_X, y)
    assert "np." not in str(caught.value) and repr(label.item()) in str(caught.value)


# ---------------------------------------------------------------- scalar sample_weight
SAMPLE_WEIGHT_ESTIMATORS = [Perceptron, AveragedPerceptron, VotedPerceptron, KernelPerceptron]


def _train(estimator, method, X, y, sample_weight):
    if method == "partial_fit":
        return estimator.partial_fit(X, y, classes=np.unique(y), sample_weight=sample_weight)
    return fit_quiet(estimator, X, y, sample_weight=sample_weight)


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
@pytest.mark.parametrize("cls", SAMPLE_WEIGHT_ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "weight, problem",
    [
        (float("nan"), "NaN or infinity"),
        (float("inf"), "NaN or infinity"),
        (-1.0, "negative"),
        (0, "non-zero"),
    ],
    ids=["nan", "inf", "negative", "zero"],
)
def test_invalid_scalar_sample_weight_is_rejected(weight, problem, cls, method):
    """A scalar weight gets the checks an array gets: NaN, infinity, negative and
    all-zero weights are refused (a scalar -1 used to train against the labels)."""
    with pytest.raises(ValueError, match=problem) as raised:
        _train(cls(random_state=0), method, OR_X, OR_Y, weight)
    assert "weight" in str(raised.value).lower()


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
@pytest.mark.parametrize("cls", SAMPLE_WEIGHT_ESTIMATORS, ids=lambda c: c.__name__)
def test_valid_scalar_sample_weight_equals_array(cls, method):
    scalar = _train(cls(random_state=0), method, OR_X, OR_Y, 2.0)
    array = _train(cls(random_state=0), method, OR_X, OR_Y, np.full(OR_X.shape[0], 2.0))
    np.testing.assert_array_equal(scalar.decision_function(OR_X), array.decision_function(OR_X))
    np.testing.assert_array_equal(scalar.predict(OR_X), array.predict(OR_X))


# ---------------------------------------------------------------- the stop rule (tol)
def test_tol_stops_a_run_that_stopped_improving_without_a_warning():
    X, y = make_classification(300, 5, flip_y=0.2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # a stop by tol does not warn
        clf = Perceptron(random_state=0).fit(X, y)
    assert not clf.converged_ and 10 <= clf.n_iter_ < 1000
    # the rule, replayed on the recorded mistakes: the epoch before never improved enough
    fractions = np.array(clf.mistakes_per_epoch_) / X.shape[0]
    best = np.minimum.accumulate(fractions)
    stale = fractions[1:] > best[:-1] - clf.tol
    assert stale[-clf.n_iter_no_change :].all()
    full = fit_quiet(Perceptron(random_state=0, tol=None), X, y)
    assert full.n_iter_ == 1000  # tol=None: the notes' rule, to max_iter


def test_tol_keeps_an_error_free_epoch_as_the_end_and_converged():
    clf = Perceptron(shuffle=False).fit(OR_X, OR_Y)
    assert clf.converged_ and clf.n_iter_ == 2


@pytest.mark.parametrize("estimator", [Perceptron, AveragedPerceptron, VotedPerceptron])
def test_a_larger_tol_stops_sooner(estimator):
    X, y = make_classification(300, 5, flip_y=0.2, random_state=1)
    epochs = [
        fit_quiet(estimator(random_state=0, tol=tol, n_iter_no_change=3), X, y).n_iter_
        for tol in (0.0, 0.05, 0.5)
    ]
    # the first epoch sets the best; three more without improvement stop the run
    assert epochs[0] >= epochs[1] >= epochs[2] == 1 + 3


def test_the_kernel_perceptron_follows_the_same_rule():
    X, y = make_classification(200, 4, flip_y=0.2, random_state=2)
    kernel = KernelPerceptron(kernel="linear", random_state=0, max_iter=100).fit(X, y)
    assert kernel.n_iter_ < 100 and not kernel.converged_
    full = fit_quiet(KernelPerceptron(kernel="linear", random_state=0, tol=None), X, y)
    assert full.n_iter_ == 100


# ---------------------------------------------------------------- tol watches the weights
# The stop signal is the weighted mistake fraction (issue 32): the summed weight (sample
# weight times class weight, the factors of the update) of the presentations that erred,
# over the summed weight presented. Weights that are multiples of 0.25 keep every sum exact,
# whatever order the loops add them in.


def _data_with_weights(seed, n=80):
    X, y = make_classification(n, 4, n_informative=3, n_redundant=0, flip_y=0.15, random_state=seed)
    sample_weight = np.random.RandomState(seed).choice([0.5, 1.0, 2.0], n)
    return X, y, sample_weight


@pytest.mark.parametrize(
    "data_seed, seed", [(3, 2), (0, 1)], ids=["weights-stop-it-later", "weights-stop-it-earlier"]
)
def test_tol_watches_the_weighted_mistake_fraction(data_seed, seed):
    X, y, sample_weight = _data_with_weights(data_seed)
    class_weight = {0: 0.5, 1: 4.0}
    steps = sample_weight * np.where(y == 1, 4.0, 0.5)  # what scales each sample's update
    labels = np.where(y == 1, 1, -1)
    run = reference.online(X, labels, orders(seed, 80, 60), sample_weight=steps, stop=False)
    weighted = [m / p for m, p in zip(run["mistake_weight"], run["presented_weight"])]
    epochs = reference.plateau_stop(weighted, 1e-3, 5)
    unweighted = reference.plateau_stop([m / 80 for m in run["mistakes"]], 1e-3, 5)
    assert epochs is not None and unweighted is not None
    assert (epochs > unweighted) == (data_seed == 3) and epochs != unweighted

    clf = Perceptron(random_state=seed, class_weight=class_weight, n_iter_no_change=5, max_iter=60)
    clf.fit(X, y, sample_weight=sample_weight)
    assert clf.n_iter_ == epochs and not clf.converged_
    assert clf.mistakes_per_epoch_ == run["mistakes"][:epochs]  # still the count of updates
    stopped = reference.online(X, labels, orders(seed, 80, epochs), sample_weight=steps, stop=False)
    np.testing.assert_array_equal(clf.coef_[0], stopped["w"][:-1])
    assert clf.intercept_[0] == stopped["w"][-1]


def test_one_vs_rest_sums_the_weighted_mistakes_of_its_neurons():
    """Every neuron sees the sample's weight (its class's weight times its sample weight);
    the fraction sums the neurons' weighted mistakes over the weight presented once."""
    X, y = make_classification(
        90, 4, n_informative=3, n_redundant=0, n_classes=3, flip_y=0.2, random_state=4
    )
    class_weight = {0: 2.0, 1: 0.5, 2: 1.0}
    steps = np.array([class_weight[c] for c in y])
    runs = reference.one_vs_rest(
        X, y, [0, 1, 2], orders(1, 90, 50), sample_weight=steps, stop=False
    )
    presented = runs[0]["presented_weight"]
    weighted = [sum(r["mistake_weight"][e] for r in runs) / presented[e] for e in range(50)]
    epochs = reference.plateau_stop(weighted, 1e-3, 4)
    clf = Perceptron(random_state=1, class_weight=class_weight, n_iter_no_change=4, max_iter=50)
    clf.fit(X, y)
    assert clf.n_iter_ == epochs
    stopped = reference.one_vs_rest(
        X, y, [0, 1, 2], orders(1, 90, epochs), sample_weight=steps, stop=False
    )
    for k, run in enumerate(stopped):
        np.testing.assert_array_equal(clf.coef_[k], run["w"][:-1])


def test_batch_mode_stops_on_the_weighted_mistake_fraction():
    X, y, sample_weight = _data_with_weights(5, n=60)
    labels = np.where(y == 1, 1, -1)
    run = reference.batch(X, labels, 80, sample_weight=sample_weight)
    weighted = [m / p for m, p in zip(run["mistake_weight"], run["presented_weight"])]
    epochs = reference.plateau_stop(weighted, 1e-3, 4)
    clf = Perceptron(mode="batch", shuffle=False, n_iter_no_change=4, max_iter=80)
    clf.fit(X, y, sample_weight=sample_weight)
    assert clf.n_iter_ == epochs
    np.testing.assert_array_equal(
        clf.coef_[0], reference.batch(X, labels, epochs, sample_weight=sample_weight)["w"][:-1]
    )


def _paths():
    """Every training path of the compiled rules that tol stops, as (name, factory)."""
    from rosenblatt import Projectron

    return {
        "single": lambda **kw: Perceptron(**kw),
        "one-vs-rest": lambda **kw: Perceptron(**kw),
        "threads": lambda **kw: Perceptron(n_jobs=2, **kw),
        "batch": lambda **kw: Perceptron(mode="batch", **kw),
        "multinomial": lambda **kw: Perceptron(multi_class="multinomial", **kw),
        "multilabel": lambda **kw: Perceptron(**kw),
        "averaged": lambda **kw: AveragedPerceptron(**kw),
        "voted": lambda **kw: VotedPerceptron(**kw),
        "kernel": lambda **kw: KernelPerceptron(kernel="linear", **kw),
        "budget": lambda **kw: KernelPerceptron(budget=12, **kw),
        "projectron": lambda **kw: Projectron(max_projection_error=0.5, **kw),
    }


@pytest.mark.parametrize("weights", ["none", "ones", "weighted"])
@pytest.mark.parametrize("path", list(_paths()))
def test_every_path_stops_where_its_rule_says(path, weights):
    """A run at tol stops where the rule, replayed on a tol=None run's reports, stops, with
    the very weights of a tol=None run that long. Unit weights feed it the plain fraction
    of mistakes per presentation, exactly: the runs of before issue 32."""
    n_classes = 2 if path in ("single", "batch") else 3
    X, y = make_classification(
        90, 4, n_informative=3, n_redundant=0, n_classes=n_classes, flip_y=0.2, random_state=6
    )
    if path == "multilabel":
        y = np.column_stack([y == 0, y != 1, X[:, 0] > 0]).astype(int)
    params, fit = {"random_state": 0, "max_iter": 40}, {}
    steps = np.ones(90)
    if weights == "ones":
        fit["sample_weight"] = np.ones(90)
        params["class_weight"] = {c: 1 for c in range(n_classes)}
    elif weights == "weighted":
        fit["sample_weight"] = np.random.RandomState(6).choice([0.0, 0.5, 1.0, 2.0], 90)
        steps = fit["sample_weight"].copy()
        if path != "multilabel":
            params["class_weight"] = {0: 2.0, 1: 0.5, 2: 1.0}
            steps *= np.array([params["class_weight"][c] for c in y])
    make = _paths()[path]
    reports = []
    full = fit_quiet(make(tol=None, on_epoch=reports.append, **params), X, y, **fit)
    assert len(reports) == 40
    for report in reports:  # every epoch presents every sample of non-zero weight once
        assert report.presented == np.count_nonzero(steps)
        assert report.presented_weight == steps[steps > 0].sum()
        if weights != "weighted":
            assert report.mistake_weight == report.mistakes
    if weights == "weighted":
        fractions = [r.mistake_weight / r.presented_weight for r in reports]
    else:  # the rule before the weights: mistakes per presentation
        fractions = [r.mistakes / max(r.presented, 1) for r in reports]
        assert fractions == [r.mistake_weight / r.presented_weight for r in reports]
    epochs = reference.plateau_stop(fractions, 1e-3, 3)
    assert epochs is not None and epochs < 40, path
    clf = fit_quiet(make(n_iter_no_change=3, **params), X, y, **fit)
    assert np.max(clf.n_iter_) == epochs and not clf.converged_
    assert clf.mistakes_per_epoch_ == full.mistakes_per_epoch_[:epochs]
    short = fit_quiet(make(tol=None, **{**params, "max_iter": epochs}), X, y, **fit)
    np.testing.assert_array_equal(clf.decision_function(X), short.decision_function(X))
    fitted = "dual_coef_" if hasattr(clf, "dual_coef_") else "coef_"
    np.testing.assert_array_equal(getattr(clf, fitted), getattr(short, fitted))


def test_the_notes_threshold_input_minus_one():
    """The worked example appends -1 to every pattern: intercept_ = w_0 * (-1)."""
    from rosenblatt import trace

    clf = Perceptron(intercept_scaling=-1, shuffle=False, tol=None).fit(OR_X, OR_Y)
    tr = trace(OR_X, OR_Y, bias_input=-1.0)
    np.testing.assert_array_equal(clf.coef_.ravel(), tr.coef)
    assert clf.intercept_[0] == tr.intercept
    assert clf.training_state_.w0[0] == tr.weights[-1][-1]
    np.testing.assert_array_equal(clf.predict(OR_X), OR_Y)


def test_dense_and_sparse_rows_train_the_same_model_by_default():
    X, y = make_classification(120, 6, random_state=4)
    dense = fit_quiet(Perceptron(random_state=0), X, y)
    sparse = fit_quiet(Perceptron(random_state=0), sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.coef_, sparse.coef_)
    np.testing.assert_array_equal(dense.intercept_, sparse.intercept_)
