"""rosenblatt.theory: separability LP, margins, geometry, risk and the mistake bound."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.svm import SVC

from rosenblatt.estimators.linear import Perceptron
from rosenblatt.exceptions import NotSeparableError
from rosenblatt.theory import (
    _novikoff,
    distance_from_origin,
    is_linearly_separable,
    margin,
    max_margin,
    mistake_bound,
    perceptron_risk,
    radius,
    signed_distance,
)

BOOL_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
OR_Y = np.array([0, 1, 1, 1])
XOR_Y = np.array([0, 1, 1, 0])

PROPERTY = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@st.composite
def separable_problems(draw, fit_intercept=True):
    """Patterns at least ``gamma`` from a random hyperplane, labelled by its side.

    Separable with margin >= gamma by construction (the hyperplane passes through
    the origin when ``fit_intercept`` is False).
    """
    n = draw(st.integers(4, 40))
    d = draw(st.integers(1, 5))
    X = draw(arrays(np.float64, (n, d), elements=st.floats(-3, 3, width=32)))
    normal = draw(arrays(np.float64, d, elements=st.floats(-1, 1, width=32)))
    assume(np.linalg.norm(normal) > 0.1)
    normal /= np.linalg.norm(normal)
    offset = draw(st.floats(-1, 1, width=32)) if fit_intercept else 0.0
    gamma = draw(st.floats(0.05, 0.5))
    f = X @ normal + offset
    keep = np.abs(f) >= gamma
    X, y = X[keep], np.where(f[keep] > 0, 1, -1)
    assume(np.sum(y == 1) >= 1 and np.sum(y == -1) >= 1)
    return X, y


def xor_like():
    return BOOL_X, XOR_Y


# ---------------------------------------------------------------------- separability
def test_xor_is_not_separable_and_reports_slack():
    res = is_linearly_separable(*xor_like())
    assert not res and res.separable is False
    # sum_i t_i f(x_i) = 0 for every (w, b) on XOR, so the least total slack is exactly 4
    assert res.total_slack == pytest.approx(4.0, abs=1e-7)
    assert res.violators.size > 0
    assert set(res.violators) <= {0, 1, 2, 3}


def test_or_is_separable_and_the_lp_hyperplane_satisfies_seed_001():
    res = is_linearly_separable(BOOL_X, OR_Y)
    assert res and res.separable is True
    t = np.where(OR_Y == 1, 1.0, -1.0)
    assert np.all(t * (BOOL_X @ res.coef + res.intercept) >= 1 - 1e-7)
    assert res.total_slack == 0.0 and res.violators.size == 0
    assert res.coef.shape == (2,) and isinstance(res.intercept, float)


def test_fit_intercept_false_changes_the_answer():
    # one class sits on each side of x = 1.5, but the origin lies between nothing
    X = np.array([[1.0], [2.0]])
    y = np.array([0, 1])
    assert is_linearly_separable(X, y, fit_intercept=True)
    res = is_linearly_separable(X, y, fit_intercept=False)
    assert not res and res.intercept == 0.0


def test_labels_any_two_values_larger_is_positive():
    res = is_linearly_separable(BOOL_X, np.array(["no", "yes", "yes", "yes"]))
    assert res
    # "yes" (the larger label) is on the positive side
    assert np.all((BOOL_X[1:] @ res.coef + res.intercept) > 0)
    assert BOOL_X[0] @ res.coef + res.intercept < 0


@PROPERTY
@given(separable_problems(), st.booleans())
def test_lp_hyperplane_separates_every_point(problem, fit_intercept):
    X, y = problem
    if not fit_intercept:  # homogeneous separability needs a homogeneous construction
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    res = is_linearly_separable(X, y, fit_intercept=fit_intercept)
    assert res
    t = np.where(y == 1, 1.0, -1.0)
    assert np.all(t * (X @ res.coef + res.intercept) > 0)


def test_sparse_input_gives_the_same_answers_as_dense():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 8)) * (rng.random((80, 8)) < 0.4)
    f = X @ rng.normal(size=8)
    X, y = X[np.abs(f) > 0.2], np.where(f[np.abs(f) > 0.2] > 0, 1, 0)  # separable through 0
    Xs = sp.csr_matrix(X)
    for fit_intercept in (True, False):
        dense, sparse = (is_linearly_separable(Z, y, fit_intercept) for Z in (X, Xs))
        assert dense.separable == sparse.separable
        np.testing.assert_allclose(dense.coef, sparse.coef)
        dense, sparse = (max_margin(Z, y, fit_intercept) for Z in (X, Xs))
        assert dense.margin == pytest.approx(sparse.margin, rel=1e-9)
        np.testing.assert_allclose(dense.coef, sparse.coef, rtol=1e-7, atol=1e-9)
        assert margin(Xs, y, dense.coef, dense.intercept) == pytest.approx(dense.margin)
    bad = is_linearly_separable(sp.csr_matrix(BOOL_X), XOR_Y)
    assert not bad and bad.total_slack == pytest.approx(4.0, abs=1e-7)
    assert radius(Xs) == pytest.approx(radius(X))
    np.testing.assert_allclose(
        signed_distance(Xs, np.ones(8), 1.0), signed_distance(X, np.ones(8), 1.0)
    )
    assert mistake_bound(Xs, y) == pytest.approx(mistake_bound(X, y), rel=1e-9)


# ---------------------------------------------------------------------- margins
def test_max_margin_of_two_points_is_half_their_distance():
    res = max_margin([[0.0, 0.0], [4.0, 0.0]], [0, 1])
    assert res.margin == pytest.approx(2.0)
    np.testing.assert_allclose(res.coef, [0.5, 0.0], atol=1e-9)
    assert res.intercept == pytest.approx(-1.0)
    assert res.support.tolist() == [0, 1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_max_margin_agrees_with_a_hard_margin_svc(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(80, 3))
    f = X @ rng.normal(size=3) + 0.1
    X, f = X[np.abs(f) > 0.4], f[np.abs(f) > 0.4]
    y = (f > 0).astype(int)
    res = max_margin(X, y)
    svc = SVC(kernel="linear", C=1e6, tol=1e-8).fit(X, y)
    assert res.margin == pytest.approx(1 / np.linalg.norm(svc.coef_), rel=1e-4)
    np.testing.assert_allclose(res.coef, svc.coef_.ravel(), rtol=1e-3, atol=1e-4)
    assert margin(X, y, res.coef, res.intercept) == res.margin
    assert res.margin == pytest.approx(1 / np.linalg.norm(res.coef), rel=1e-12)
    # the support patterns sit on the margin, every other one beyond it
    t = np.where(y == 1, 1.0, -1.0)
    functional = t * (X @ res.coef + res.intercept)
    np.testing.assert_allclose(functional[res.support], 1.0, atol=1e-6)
    assert np.all(np.delete(functional, res.support) > 1.0)


def test_max_margin_without_intercept_passes_through_the_origin():
    X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -1.0]])
    res = max_margin(X, [1, 1, 0], fit_intercept=False)
    assert res.intercept == 0.0
    # along (1, 1)/sqrt(2) the distances are 3/sqrt(2), 3/sqrt(2) and sqrt(2) = ||(-1, -1)||,
    # and no hyperplane through the origin can be farther from (-1, -1) than its norm
    assert res.margin == pytest.approx(np.sqrt(2.0), rel=1e-7)


def test_max_margin_raises_not_separable_on_xor():
    with pytest.raises(NotSeparableError, match="not linearly separable"):
        max_margin(*xor_like())
    assert issubclass(NotSeparableError, ValueError)


def test_margin_of_a_hyperplane():
    X = np.array([[2.0, 0.0], [-1.0, 0.0]])
    assert margin(X, [1, -1], [1.0, 0.0]) == 1.0
    # f = 2 x_1 - 1: t f = 3 on both patterns, ||w|| = 2
    assert margin(X, [1, -1], [2.0, 0.0], intercept=-1.0) == 1.5
    # estimator-shaped coef_ (1, d) and intercept_ (1,)
    assert margin(X, [1, -1], np.array([[1.0, 0.0]]), np.array([0.0])) == 1.0
    # a hyperplane that errs, one that touches a pattern, and w = 0
    assert margin(X, [-1, 1], [1.0, 0.0]) == -np.inf
    assert margin(X, [1, -1], [1.0, 0.0], intercept=1.0) == -np.inf
    assert margin(X, [1, -1], [0.0, 0.0], intercept=1.0) == -np.inf
    # a single class is fine with labels in {-1, +1}
    assert margin(X[:1], [1], [1.0, 0.0]) == 2.0


# ---------------------------------------------------------------------- geometry
def test_geometry_on_hand_examples():
    assert radius([[3.0, 4.0], [1.0, 0.0], [0.0, -2.0]]) == 5.0
    # w = (3, 4), b = -5: f((3, 4)) = 20, ||w|| = 5
    np.testing.assert_allclose(
        signed_distance([[3.0, 4.0], [0.0, 0.0], [1.0, 0.5]], [3.0, 4.0], -5.0),
        [4.0, -1.0, 0.0],
    )
    assert distance_from_origin([3.0, 4.0], -10.0) == -2.0
    assert distance_from_origin([0.0, 2.0], 3.0) == 1.5
    # theorem 2 is theorem 1 at x = 0
    at_zero = signed_distance([[0.0, 0.0]], [3.0, 4.0], 7.0)[0]
    assert distance_from_origin([3.0, 4.0], 7.0) == at_zero
    with pytest.raises(ValueError, match="zero"):
        signed_distance([[1.0, 1.0]], [0.0, 0.0])
    with pytest.raises(ValueError, match="zero"):
        distance_from_origin([0.0], 1.0)


def test_perceptron_risk_on_hand_examples():
    X = np.array([[1.0, 0.0], [-2.0, 0.0], [0.0, 5.0], [3.0, 0.0]])
    y = np.array([1, 1, -1, -1])
    # f = x_1: pattern 1 costs 2, pattern 3 costs 3, pattern 2 (f = 0) costs nothing
    assert perceptron_risk(X, y, [1.0, 0.0]) == 5.0
    # f = x_1 + 1 = (2, -1, 1, 4): patterns 1, 2 and 3 cost 1, 1 and 4
    assert perceptron_risk(X, y, [1.0, 0.0], intercept=1.0) == 6.0
    assert perceptron_risk(X, y, [0.0, 0.0]) == 0.0  # zero risk, yet every pattern updates
    assert perceptron_risk(X, np.array(["b", "b", "a", "a"]), [1.0, 0.0]) == 5.0
    assert perceptron_risk(BOOL_X, OR_Y, [2.0, 2.0], -1.0) == 0.0


def test_perceptron_risk_gradient_is_minus_sum_of_misclassified_tx():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(30, 3)), rng.choice([-1, 1], 30)
    w = rng.normal(size=3)
    wrong = y * (X @ w) < 0
    grad = -(y[wrong, None] * X[wrong]).sum(axis=0)
    h = 1e-6
    numeric = [
        (perceptron_risk(X, y, w + h * e) - perceptron_risk(X, y, w - h * e)) / (2 * h)
        for e in np.eye(3)
    ]
    np.testing.assert_allclose(numeric, grad, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------- mistake bound
def test_mistake_bound_on_hand_examples():
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    # homogeneous: R = gamma = 1, the perceptron makes exactly 1 mistake
    assert mistake_bound(X, [1, -1], fit_intercept=False) == pytest.approx(1.0)
    assert Perceptron(fit_intercept=False, shuffle=False).fit(X, [1, -1]).n_mistakes_ == 1
    # augmented (x, 1): R^2 = 2, gamma = 1; with s = 3, R^2 = 10, gamma = 1
    assert mistake_bound(X, [1, -1]) == pytest.approx(2.0)
    assert mistake_bound(X, [1, -1], intercept_scaling=3.0) == pytest.approx(10.0)


def test_mistake_bound_of_exact_data_is_exact():
    """The notes' modified OR problem (seed 003) gives 9, as README says, not 9.000000009:
    the bound is computed from squares, and a value next to an integer is that integer."""
    X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]])
    assert mistake_bound(X, [-1, 1, 1, 1]) == 9.0
    assert mistake_bound(sp.csr_matrix(X, dtype=float), [-1, 1, 1, 1]) == 9.0
    # R^2 = 6, gamma = 2/3: 13.5, rounded up (by a relative 1e-9) as bounds off integers are
    assert 13.5 <= mistake_bound(X, [-1, 1, 1, 1], intercept_scaling=2.0) <= 13.5 * (1 + 2e-9)
    pair = [[1.0, 0.0], [-1.0, 0.0]]
    assert mistake_bound(pair, [1, -1]) == 2.0
    assert mistake_bound(pair, [1, -1], intercept_scaling=3.0) == 10.0
    # the R and gamma of the augmented patterns (x, 1) that give it
    terms = _novikoff(X, [-1, 1, 1, 1])
    assert terms.radius == pytest.approx(np.sqrt(3))
    assert terms.margin == pytest.approx(1 / np.sqrt(3))
    assert (terms.radius / terms.margin) ** 2 == pytest.approx(terms.novikoff, rel=1e-12)


def test_mistake_bound_raises_on_inseparable_data():
    with pytest.raises(NotSeparableError):
        mistake_bound(*xor_like())
    # separable with an intercept, but not through the origin
    with pytest.raises(NotSeparableError, match="through the origin"):
        mistake_bound([[1.0], [2.0]], [0, 1], fit_intercept=False)


@PROPERTY
@given(st.data(), st.booleans(), st.sampled_from([0.5, 1.0, 3.0]))
def test_block_novikoff_perceptron_never_exceeds_the_bound(data, fit_intercept, scaling):
    X, y = data.draw(separable_problems(fit_intercept=fit_intercept))
    assert is_linearly_separable(X, y, fit_intercept=fit_intercept)
    bound = mistake_bound(X, y, fit_intercept=fit_intercept, intercept_scaling=scaling)
    seed = data.draw(st.integers(0, 2**16))
    for eta in (0.1, 1.0, 7.5):
        for shuffle in (False, True):
            clf = Perceptron(
                eta=eta,
                fit_intercept=fit_intercept,
                intercept_scaling=scaling,
                shuffle=shuffle,
                random_state=seed,
                max_iter=10_000,
                tol=None,  # the theorem's perceptron runs to an error-free epoch, no plateau stop
            ).fit(X, y)
            assert clf.converged_
            assert clf.n_mistakes_ <= bound


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize("func", [is_linearly_separable, max_margin, mistake_bound])
def test_bad_input_gives_clear_errors(func):
    with pytest.raises(ValueError, match="only one class"):
        func(BOOL_X, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="two classes; y has 3"):
        func(BOOL_X, [0, 1, 2, 0])
    with pytest.raises(ValueError, match="NaN"):
        func(np.array([[np.nan, 0.0], [1.0, 1.0]]), [0, 1])
    with pytest.raises(ValueError, match="infinity"):
        func(np.array([[np.inf, 0.0], [1.0, 1.0]]), [0, 1])
    with pytest.raises(ValueError, match="0 sample"):
        func(np.empty((0, 2)), [])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        func(BOOL_X, [0, 1, 1])
    with pytest.raises(ValueError, match="fit_intercept"):
        func(BOOL_X, OR_Y, fit_intercept="yes")


def test_bad_hyperplanes_and_scaling():
    with pytest.raises(ValueError, match="coef has 3 entries"):
        margin(BOOL_X, OR_Y, [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="single row"):
        margin(BOOL_X, OR_Y, np.ones((2, 2)))
    with pytest.raises(ValueError, match="finite"):
        signed_distance(BOOL_X, [np.nan, 1.0])
    with pytest.raises(ValueError, match="intercept_scaling"):
        mistake_bound(BOOL_X, OR_Y, intercept_scaling=0.0)
    with pytest.raises(ValueError, match="one label per sample"):
        perceptron_risk(BOOL_X, [1, -1], [1.0, 1.0])
    with pytest.raises(ValueError, match="0 sample"):
        radius(np.empty((0, 3)))


def test_max_margin_on_text_beyond_the_active_set_solver(monkeypatch):
    """Thousands of tf-idf features: the interior point solves at once (HiGHS's active set
    gave up there, after 255 s: more variables than QP_ACTIVE_SET_MAX_VARIABLES skip it)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    import rosenblatt.theory._solvers as solvers
    from rosenblatt.data.datasets import load_sms_spam

    calls = []
    solve = solvers.interior_point_qp
    monkeypatch.setattr(
        solvers, "interior_point_qp", lambda *args: calls.append(args[2]) or solve(*args)
    )
    sms = load_sms_spam()
    X = TfidfVectorizer().fit_transform(sms.data[:2500])
    y = sms.target[:2500]
    result = max_margin(X, y)
    assert calls == ["not asked (5,712 variables)"], "HiGHS was asked: this data no longer skips it"
    t = np.where(y == 1, 1.0, -1.0)
    functional = t * (X @ result.coef + result.intercept)
    assert functional.min() == pytest.approx(1.0, abs=1e-7)
    assert result.margin == pytest.approx(1.0 / np.linalg.norm(result.coef), rel=1e-9)
    assert margin(X, y, result.coef, result.intercept) == pytest.approx(result.margin, rel=1e-9)


def test_the_margin_solver_prints_nothing():
    """HiGHS prints its banner when a solver is built; the demo, the report and
    ``inspect`` must not show it (it came out between the demo's table and report)."""
    import subprocess
    import sys

    program = (
        "import numpy as np; from rosenblatt import theory; "
        "print(round(theory.max_margin(np.array([[0, 0], [0, 1], [1, 0], [1, 1.0]]), "
        "np.array([0, 1, 1, 1])).margin, 4))"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "0.3536\n" and "HiGHS" not in done.stderr
