"""rosenblatt.theory.losses: the 0-1 loss, its surrogates, and least squares' failure."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import PROPERTY
from hypothesis import given
from hypothesis import strategies as st

from rosenblatt import Perceptron
from rosenblatt.theory import (
    FORMULAS,
    LOSSES,
    SURROGATES,
    hinge,
    is_linearly_separable,
    least_squares_classifier,
    logistic,
    losses,
    perceptron,
    perceptron_risk,
    squared,
    zero_one,
)
from rosenblatt.theory.losses import UPPER_BOUNDS

Z = np.array([-2.0, -1.0, 0.0, 0.5, 1.0, 2.0])
# the notes' counterexample (seed 001): separable points where least squares errs
LINE_X, LINE_Y = np.array([[10.0], [11.0], [8.0]]), np.array([1, 1, 0])


def test_each_loss_on_hand_values():
    assert zero_one(Z).tolist() == [1, 1, 1, 0, 0, 0]  # z = 0 is a mistake, as in the rule
    assert perceptron(Z).tolist() == [2, 1, 0, 0, 0, 0]
    assert hinge(Z).tolist() == [3, 2, 1, 0.5, 0, 0]
    assert squared(Z).tolist() == [9, 4, 1, 0.25, 0, 1]
    # in bits: the natural-log loss over ln 2, exactly 1 at the boundary z = 0
    np.testing.assert_allclose(logistic(Z), np.log2(1 + np.exp(-Z)), rtol=1e-14)
    assert logistic(0.0) == 1.0 and logistic(-1.0) == pytest.approx(np.log2(1 + np.e))
    big = logistic([-1000.0, 1000.0])  # no overflow
    assert big[0] == pytest.approx(1000.0 / np.log(2), rel=1e-15) and big[1] == 0.0


def test_losses_keep_the_shape_of_the_margins():
    margins = Z.reshape(2, 3)
    for loss in LOSSES.values():
        assert loss(margins).shape == (2, 3)
        np.testing.assert_array_equal(loss(margins).ravel(), loss(Z))


def test_the_mappings():
    assert list(LOSSES) == ["0-1", "perceptron", "hinge", "squared", "logistic"]
    assert LOSSES["0-1"] is zero_one and SURROGATES == {k: LOSSES[k] for k in list(LOSSES)[1:]}
    assert list(FORMULAS) == list(LOSSES)
    assert losses.hinge is hinge


@PROPERTY
@given(st.floats(-1e3, 1e3))
def test_the_surrogates_bound_the_0_1_loss_from_above(z):
    for name in UPPER_BOUNDS:
        assert LOSSES[name](z) >= zero_one(z)
    assert hinge(z) >= perceptron(z) >= 0 and logistic(z) >= 0


def test_the_perceptron_loss_alone_does_not_bound_it():
    assert set(SURROGATES) - set(UPPER_BOUNDS) == {"perceptron"}
    assert perceptron(0.0) < zero_one(0.0) and perceptron(-0.5) < zero_one(-0.5)


def test_perceptron_risk_sums_the_perceptron_loss():
    X = np.array([[1.0, 0.0], [-2.0, 0.0], [0.0, 5.0]])
    t = np.array([1.0, 1.0, -1.0])
    w, b = np.array([1.0, 0.5]), -0.5
    assert perceptron_risk(X, t, w, b) == perceptron(t * (X @ w + b)).sum() == 2.5 + 2.0


def test_squared_loss_is_the_notes_squared_error_with_0_1_labels():
    f = np.array([-0.5, 0.2, 0.7, 1.4])
    y = np.array([0, 1, 0, 1])
    t = 2 * y - 1
    np.testing.assert_allclose((f - y) ** 2, squared(t * (2 * f - 1)) / 4, rtol=1e-15)


def test_least_squares_through_the_origin_misclassifies_separable_data():
    assert is_linearly_separable(LINE_X, LINE_Y)
    fit = least_squares_classifier(LINE_X, LINE_Y, fit_intercept=False)
    # w = sum x y / sum x^2 = (10 + 11) / (100 + 121 + 64) = 7/95
    assert fit.coef == pytest.approx([7 / 95]) and fit.intercept == 0.0
    # f(8) = 56/95 >= 0.5: on the positive side, although w = 1/18 classifies all three
    assert fit.predictions.tolist() == [1, 1, 1]
    np.testing.assert_allclose(fit.residuals, [70 / 95 - 1, 77 / 95 - 1, 56 / 95], rtol=1e-12)
    assert [int(8 / 18 >= 0.5), int(10 / 18 >= 0.5), int(11 / 18 >= 0.5)] == [0, 1, 1]


def test_least_squares_with_an_intercept_charges_a_correct_point():
    fit = least_squares_classifier(LINE_X, LINE_Y)
    # mean x = 29/3, mean y = 2/3, Sxy = 5/3, Sxx = 14/3: w = 5/14, b = 2/3 - (5/14)(29/3)
    assert fit.coef == pytest.approx([5 / 14]) and fit.intercept == pytest.approx(-39 / 14)
    assert fit.predictions.tolist() == [1, 1, 0]  # separated: f = 11/14, 16/14, 1/14
    np.testing.assert_allclose(fit.residuals, [-3 / 14, 2 / 14, 1 / 14], rtol=1e-12)
    # x = 11 is right (f = 8/7 >= 0.5) yet costs (1/7)^2: too far on its correct side
    assert fit.residuals[1] ** 2 == pytest.approx(1 / 49)
    # the perceptron's loss is zero on every pattern once it separates them
    clf = Perceptron(shuffle=False, tol=None, max_iter=10_000).fit(LINE_X, LINE_Y)
    t = np.where(LINE_Y == 1, 1.0, -1.0)
    assert clf.converged_ and perceptron(t * clf.decision_function(LINE_X)).sum() == 0


def test_least_squares_takes_any_two_labels_and_sparse_patterns():
    named = least_squares_classifier(sp.csr_matrix(LINE_X), ["yes", "yes", "no"])
    assert named.predictions.tolist() == ["yes", "yes", "no"]
    np.testing.assert_allclose(named.residuals, [-3 / 14, 2 / 14, 1 / 14], rtol=1e-12)
    with pytest.raises(ValueError, match="two classes"):
        least_squares_classifier(LINE_X, [0, 1, 2])
