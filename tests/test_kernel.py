"""KernelPerceptron: the dual form against the primal, the plain reference, and scikit-learn."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import PROPERTY, SAMPLE_WEIGHT_IS_NOT_REPETITION, fit_quiet
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from reference import dual_averaged, dual_decision, dual_one_vs_rest, dual_voted_decision
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures
from sklearn.utils.estimator_checks import parametrize_with_checks

import rosenblatt.engine.kernel_values as kernel_values
from rosenblatt.engine.dual import DualState, Kernel, KernelTable
from rosenblatt.estimators.kernel import KernelPerceptron
from rosenblatt.estimators.linear import AveragedPerceptron, Perceptron, VotedPerceptron
from rosenblatt.persistence import load, save

XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
XOR_Y = np.array([0, 1, 1, 0])


def integer_data(n=40, d=5, seed=0, n_classes=2):
    """Small integer patterns: every dot product is exact, in any summation order."""
    rng = np.random.RandomState(seed)
    X = rng.randint(-3, 4, size=(n, d)).astype(float)
    score = X @ rng.randn(d) + 0.5 * rng.randn(n)
    if n_classes == 2:
        return X, (score > 0.3).astype(int)
    return X, np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))


def float_data(n=60, d=4, seed=0, n_classes=2):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    score = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.randn(n)
    if n_classes == 2:
        return X, np.where(score > 0, "pos", "neg")
    return X, np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))


def orders_for(random_state, n, n_epochs, shuffle=True):
    """The presentation orders the estimators draw: one permutation per epoch."""
    rng = np.random.RandomState(random_state)
    return [rng.permutation(n) if shuffle else np.arange(n) for _ in range(n_epochs)]


# --------------------------------------------------------------------------- dual = primal
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_linear_kernel_is_the_primal_perceptron(fit_intercept, shuffle, n_classes):
    # the dual form: w = sum_j alpha_j y_j x_j, so the dual run with the linear
    # kernel makes the same mistakes and the same decision function
    X, y = integer_data(n_classes=n_classes)
    common = dict(
        shuffle=shuffle,
        fit_intercept=fit_intercept,
        intercept_scaling=2.0,
        max_iter=25,
        n_iter_no_change=5,  # the kernel learners' default; the same rule either way
        random_state=3,
    )
    primal = fit_quiet(Perceptron(**common), X, y)
    dual = fit_quiet(KernelPerceptron(kernel="linear", prediction="last", **common), X, y)
    assert dual.mistakes_per_epoch_ == primal.mistakes_per_epoch_
    assert dual.n_iter_ == primal.n_iter_ and dual.converged_ == primal.converged_
    assert_array_equal(dual.decision_function(X), primal.decision_function(X))
    # the primal weights are the dual combination of the support vectors
    assert_allclose(dual.dual_coef_ @ dual.support_vectors_, primal.coef_, atol=1e-12)
    assert_allclose(dual.intercept_, primal.intercept_, atol=1e-12)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_linear_kernel_averaged_and_voted_are_the_primal_ones(fit_intercept):
    X, y = integer_data(seed=1)
    common = dict(fit_intercept=fit_intercept, max_iter=20, n_iter_no_change=5, random_state=0)
    averaged = fit_quiet(AveragedPerceptron(**common), X, y)
    dual_averaged_ = fit_quiet(KernelPerceptron(kernel="linear", **common), X, y)
    assert_allclose(
        dual_averaged_.decision_function(X), averaged.decision_function(X), rtol=1e-10, atol=1e-10
    )
    voted = fit_quiet(VotedPerceptron(**common), X, y)
    dual_voted = fit_quiet(KernelPerceptron(kernel="linear", prediction="voted", **common), X, y)
    assert_array_equal(dual_voted.decision_function(X), voted.decision_function(X))


# --------------------------------------------------------------------------- XOR
def test_xor_needs_a_feature_map():
    kernel = KernelPerceptron(tol=None, kernel="poly", degree=2, random_state=0).fit(XOR_X, XOR_Y)
    explicit = make_pipeline(PolynomialFeatures(2), Perceptron(tol=None, random_state=0)).fit(
        XOR_X, XOR_Y
    )
    assert kernel.score(XOR_X, XOR_Y) == 1.0 and kernel.converged_
    assert explicit.score(XOR_X, XOR_Y) == 1.0
    with pytest.warns(ConvergenceWarning):
        linear = Perceptron(tol=None, max_iter=50, random_state=0).fit(XOR_X, XOR_Y)
    assert linear.score(XOR_X, XOR_Y) < 1.0 and not linear.converged_
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        dual_linear = KernelPerceptron(tol=None, kernel="linear", max_iter=50).fit(XOR_X, XOR_Y)
    assert dual_linear.n_iter_ == 50 and not dual_linear.converged_
    assert dual_linear.score(XOR_X, XOR_Y) < 1.0


# --------------------------------------------------------------------------- reference
def _check_against_reference(X, y, clf, K_train, K_test, s2):
    classes = np.unique(y)
    orders = orders_for(clf.random_state, X.shape[0], clf.max_iter, clf.shuffle)
    labels = classes if classes.shape[0] > 2 else classes[1:]
    runs = dual_one_vs_rest(K_train, y, labels, orders, method=dual_averaged, s2=s2, eta=clf.eta)
    fit_quiet(clf, X, y)
    mistakes = [
        sum(r["mistakes"][e] if e < len(r["mistakes"]) else 0 for r in runs)
        for e in range(max(len(r["mistakes"]) for r in runs))
    ]
    assert clf.mistakes_per_epoch_ == mistakes
    support = np.flatnonzero(np.any([r["alpha"] > 0 for r in runs], axis=0))
    assert_array_equal(clf.support_, support)
    if clf.prediction == "voted":
        expected = [dual_voted_decision(r["history"], r["y"], K_test, s2) for r in runs]
    else:
        key = "alpha" if clf.prediction == "last" else "average"
        expected = [dual_decision(r[key], r["y"], K_test, s2) for r in runs]
    expected = np.column_stack(expected)
    got = clf.decision_function(X)
    assert_allclose(got.reshape(expected.shape), expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("prediction", ["last", "averaged", "voted"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_matches_reference_on_shuffled_orders(prediction, n_classes):
    X, y = float_data(n_classes=n_classes)
    clf = KernelPerceptron(
        kernel="rbf",
        gamma=0.7,
        prediction=prediction,
        eta=0.5,
        intercept_scaling=1.5,
        max_iter=8,
        random_state=11,
    )
    K = pairwise_kernels(X, X, metric="rbf", gamma=0.7)
    _check_against_reference(X, y, clf, K, K, s2=1.5**2)


@pytest.mark.parametrize("prediction", ["last", "averaged", "voted"])
def test_matches_reference_with_sample_weight(prediction):
    # the sample weight multiplies the update step; zero-weight samples are skipped
    X, y = float_data(seed=2)
    sample_weight = np.random.RandomState(0).choice([0.0, 0.5, 1.0, 3.0], size=X.shape[0])
    K = pairwise_kernels(X, X, metric="poly", gamma=0.5, degree=2, coef0=1.0)
    clf = KernelPerceptron(kernel="precomputed", prediction=prediction, max_iter=6, random_state=5)
    fit_quiet(clf, K, y, sample_weight=sample_weight)
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    orders = orders_for(5, X.shape[0], 6)
    run = dual_averaged(K, y_pm, orders, s2=1.0, sample_weight=sample_weight)
    assert clf.mistakes_per_epoch_ == run["mistakes"]
    assert not np.isin(np.flatnonzero(sample_weight == 0), clf.support_).any()
    if prediction == "voted":
        expected = dual_voted_decision(run["history"], y_pm, K, 1.0)
    else:
        expected = dual_decision(run["alpha" if prediction == "last" else "average"], y_pm, K)
    assert_allclose(clf.decision_function(K), expected, rtol=1e-9, atol=1e-9)


def test_averaged_coefficients_are_the_mean_over_presentations():
    X, y = float_data(seed=4)
    clf = fit_quiet(KernelPerceptron(gamma=1.0, max_iter=5, random_state=0), X, y)
    K = pairwise_kernels(X, X, metric="rbf", gamma=1.0)
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    run = dual_averaged(K, y_pm, orders_for(0, X.shape[0], 5))
    assert clf.n_presented_[0] == run["history"].shape[0]
    assert_allclose(clf.dual_coef_[0], (run["average"] * y_pm)[clf.support_], rtol=1e-12)
    assert_allclose(clf.intercept_, clf.dual_coef_.sum(axis=1))  # s = 1


# --------------------------------------------------------------------------- cache paths
@pytest.mark.parametrize(
    "params, sparse",
    [
        (dict(kernel="rbf", prediction="voted"), False),
        (dict(kernel="poly", degree=3, prediction="averaged"), False),
        (dict(kernel="linear", prediction="last"), True),
        (dict(kernel="sigmoid", gamma=0.05, coef0=0.0, prediction="averaged"), False),
    ],
)
def test_cached_gram_and_on_the_fly_paths_are_identical(params, sparse, monkeypatch):
    monkeypatch.setattr(kernel_values, "KERNEL_BLOCK_VALUES", 16 * 150)  # 16-row blocks
    rng = np.random.RandomState(0)
    X = rng.randn(150, 30)
    X[rng.rand(*X.shape) < 0.5] = 0.0
    y = np.digitize(X[:, 0] + X[:, 1] * X[:, 2], [-0.5, 0.5])
    if sparse:
        X = sp.csr_matrix(X)
    added = []
    original_add = KernelTable.add

    def counting_add(self, j):
        added.append(j)
        original_add(self, j)

    monkeypatch.setattr(KernelTable, "add", counting_add)
    cached = fit_quiet(KernelPerceptron(max_iter=15, random_state=0, **params), X, y)
    assert not added  # everything came from the cached Gram matrix
    fly = fit_quiet(KernelPerceptron(max_iter=15, random_state=0, cache_size=1e-6, **params), X, y)
    assert len(added) == fly.support_.shape[0]  # one kernel column per support vector
    for name in (
        "support_",
        "dual_coef_",
        "intercept_",
        "n_presented_",
        "update_ptr_",
        "update_support_",
        "update_coef_",
        "update_time_",
    ):
        assert_array_equal(getattr(fly, name), getattr(cached, name), err_msg=name)
    assert fly.mistakes_per_epoch_ == cached.mistakes_per_epoch_
    assert_array_equal(fly.decision_function(X), cached.decision_function(X))


@pytest.mark.parametrize("block_values", [16 * 300, None])
def test_kernel_columns_on_the_fly_are_bitwise_the_cached_ones(block_values, monkeypatch):
    # kernel values are computed pair by pair: any row blocking gives the same numbers
    if block_values is not None:
        monkeypatch.setattr(kernel_values, "KERNEL_BLOCK_VALUES", block_values)
    rng = np.random.RandomState(1)
    X = rng.randn(300, 64)
    rows = Kernel("rbf", gamma=0.01).training_rows(X)
    cached = KernelTable(rows, 300, cache_bytes=8 * 300 * 300)
    fly = KernelTable(rows, 300, cache_bytes=1)
    assert cached.cached and not fly.cached
    for j in rng.permutation(300)[:120]:
        fly.add(j)
        assert_array_equal(fly.table[:, fly.slot_of[j]], cached.table[:, j])


# --------------------------------------------------------------------------- kernels
@pytest.mark.parametrize(
    "kernel, params",
    [
        ("linear", {}),
        ("poly", dict(gamma=0.5, degree=2, coef0=1.0)),
        ("rbf", dict(gamma=0.8)),
        ("sigmoid", dict(gamma=0.1, coef0=0.5)),
    ],
)
def test_every_named_kernel_matches_the_reference_and_precomputed(kernel, params):
    X, y = float_data(n_classes=3, seed=3)
    X_test = np.random.RandomState(9).randn(7, X.shape[1])
    clf = KernelPerceptron(kernel=kernel, max_iter=6, random_state=2, **params)
    K = pairwise_kernels(X, X, metric=kernel, **params)
    K_test = pairwise_kernels(X_test, X, metric=kernel, **params)
    _check_against_reference(X, y, clf, K, K, s2=1.0)
    pre = fit_quiet(KernelPerceptron(kernel="precomputed", max_iter=6, random_state=2), K, y)
    assert_array_equal(pre.support_, clf.support_)
    assert_allclose(pre.decision_function(K_test), clf.decision_function(X_test), atol=1e-9)
    assert_array_equal(pre.predict(K_test), clf.predict(X_test))


def test_callable_kernel_gets_pairs_of_rows_and_kernel_params():
    X, y = float_data(n=30)

    def scaled_dot(x, z, scale):
        return scale * float(np.dot(x, z))

    custom = fit_quiet(
        KernelPerceptron(
            kernel=scaled_dot, kernel_params={"scale": 1.0}, max_iter=5, random_state=0
        ),
        X,
        y,
    )
    linear = fit_quiet(KernelPerceptron(kernel="linear", max_iter=5, random_state=0), X, y)
    assert custom.gamma_ is None
    assert_array_equal(custom.support_, linear.support_)
    assert_allclose(custom.decision_function(X), linear.decision_function(X), atol=1e-12)


def test_gamma_none_is_sklearn_scale_on_dense_and_sparse():
    X, y = integer_data()
    dense = fit_quiet(KernelPerceptron(max_iter=3), X, y)
    sparse = fit_quiet(KernelPerceptron(max_iter=3), sp.csr_matrix(X), y)
    expected = 1.0 / (X.shape[1] * X.var())
    assert dense.gamma_ == pytest.approx(expected)
    assert sparse.gamma_ == pytest.approx(expected)
    auto = fit_quiet(KernelPerceptron(gamma="auto", max_iter=3), X, y)
    assert auto.gamma_ == 1.0 / X.shape[1]
    constant = fit_quiet(KernelPerceptron(max_iter=3), np.ones((4, 2)), [0, 1, 0, 1])
    assert constant.gamma_ == 1.0


def test_sparse_input_gives_the_dense_model():
    X, y = integer_data(n_classes=3, seed=5)
    dense = fit_quiet(KernelPerceptron(kernel="poly", degree=2, max_iter=10, random_state=0), X, y)
    sparse = fit_quiet(
        KernelPerceptron(kernel="poly", degree=2, max_iter=10, random_state=0), sp.csr_matrix(X), y
    )
    assert sp.issparse(sparse.support_vectors_)
    assert_array_equal(sparse.dual_coef_, dense.dual_coef_)
    assert_allclose(sparse.decision_function(sp.csr_matrix(X)), dense.decision_function(X))


def test_intercept_is_the_constant_input():
    X, y = float_data(seed=6)
    with_s = fit_quiet(KernelPerceptron(intercept_scaling=3.0, max_iter=5, random_state=0), X, y)
    assert_allclose(with_s.intercept_, 9.0 * with_s.dual_coef_.sum(axis=1))
    K = Kernel("rbf", gamma=with_s.gamma_).values(X, with_s.support_vectors_)
    assert_allclose(
        with_s.decision_function(X), K @ with_s.dual_coef_[0] + 9.0 * with_s.dual_coef_[0].sum()
    )
    without = fit_quiet(KernelPerceptron(fit_intercept=False, max_iter=5, random_state=0), X, y)
    assert_array_equal(without.intercept_, [0.0])


def test_shuffle_false_presents_in_order_and_generator_is_accepted():
    X, y = float_data(seed=7)
    in_order = fit_quiet(KernelPerceptron(shuffle=False, max_iter=4), X, y)
    # the first update of the first epoch is on sample 0: f = 0 is a mistake
    assert in_order.update_time_[0] == 0 and in_order.support_[in_order.update_support_[0]] == 0
    gen = fit_quiet(KernelPerceptron(max_iter=4, random_state=np.random.default_rng(0)), X, y)
    assert gen.n_iter_ >= 1


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "X, y, match",
    [
        (np.array([[0.0, np.nan], [1.0, 0.0]]), [0, 1], "NaN"),
        (np.ones((3, 2)), [1, 1, 1], "one class"),
        (np.empty((0, 2)), [], "0 sample"),
        (np.arange(8.0).reshape(4, 2), [0.1, 0.7, 1.3, 2.9], "Unknown label type"),
    ],
)
def test_bad_input_is_refused(X, y, match):
    with pytest.raises(ValueError, match=match):
        KernelPerceptron().fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(kernel="cubic"), "'kernel' parameter"),
        (dict(prediction="median"), "'prediction' parameter"),
        (dict(gamma=0.0), "'gamma' parameter"),
        (dict(cache_size=0), "'cache_size' parameter"),
        (dict(kernel="rbf", kernel_params={"gamma": 1.0}), "only passed to a callable"),
    ],
)
def test_bad_parameters_are_refused(params, match):
    with pytest.raises(ValueError, match=match):
        KernelPerceptron(**params).fit(XOR_X, XOR_Y)


def test_bad_sample_weight_and_precomputed_shape_are_refused():
    with pytest.raises(ValueError, match="only one class"):
        KernelPerceptron().fit(XOR_X, XOR_Y, sample_weight=[1, 0, 0, 1])
    with pytest.raises(ValueError, match="non-zero"):
        KernelPerceptron().fit(XOR_X, XOR_Y, sample_weight=np.zeros(4))
    with pytest.raises(ValueError, match="square"):
        KernelPerceptron(kernel="precomputed").fit(np.ones((4, 3)), XOR_Y)
    fitted = KernelPerceptron(kernel="poly", degree=2).fit(XOR_X, XOR_Y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(np.ones((2, 3)))


# --------------------------------------------------------------------------- scikit-learn


@parametrize_with_checks(
    [
        KernelPerceptron(),
        KernelPerceptron(kernel="linear", prediction="voted", max_iter=30),
        KernelPerceptron(kernel="poly", prediction="last", cache_size=1e-3),
        KernelPerceptron(kernel="precomputed", max_iter=30),
    ],
    expected_failed_checks=lambda estimator: SAMPLE_WEIGHT_IS_NOT_REPETITION,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_class_weight_multiplies_the_update_steps():
    """Issue 15: class_weight as in the linear perceptrons: the same as sample weights."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=80) > 0.8, 1, 0)  # class 1 is the minority
    kw = dict(kernel="rbf", gamma=1.0, random_state=0, max_iter=5, prediction="last")
    weighted = KernelPerceptron(class_weight={0: 1.0, 1: 3.0}, **kw).fit(X, y)
    by_samples = KernelPerceptron(**kw).fit(X, y, sample_weight=np.where(y == 1, 3.0, 1.0))
    np.testing.assert_array_equal(weighted.dual_coef_, by_samples.dual_coef_)
    balanced = KernelPerceptron(class_weight="balanced", **kw).fit(X, y)
    counts = np.bincount(y)
    expected = KernelPerceptron(**kw).fit(X, y, sample_weight=(80 / (2 * counts))[y])
    np.testing.assert_array_equal(balanced.dual_coef_, expected.dual_coef_)
    with pytest.raises(ValueError, match="class_weight of KernelPerceptron for class 1"):
        KernelPerceptron(class_weight={0: 1.0, 1: -2.0}).fit(X, y)


# --------------------------------------------------------------------------- partial_fit
# what a model is: every fitted attribute that prediction or further training reads
MODEL_ATTRIBUTES = (
    "support_",
    "dual_coef_",
    "intercept_",
    "n_presented_",
    "update_ptr_",
    "update_support_",
    "update_coef_",
    "update_time_",
)


def assert_same_model(got, expected, X):
    for name in MODEL_ATTRIBUTES:
        assert_array_equal(getattr(got, name), getattr(expected, name), err_msg=name)
    if sp.issparse(expected.support_vectors_):
        assert_array_equal(got.support_vectors_.toarray(), expected.support_vectors_.toarray())
    else:
        assert_array_equal(got.support_vectors_, expected.support_vectors_)
    assert_array_equal(got.decision_function(X), expected.decision_function(X))


def learnt_in_batches(clf, X, y, bounds, sample_weight=None):
    """``partial_fit`` on the consecutive batches ``X[bounds[k]:bounds[k + 1]]``."""
    classes = np.unique(y)
    for a, b in zip(bounds, bounds[1:]):
        weights = None if sample_weight is None else sample_weight[a:b]
        clf.partial_fit(X[a:b], y[a:b], classes=classes, sample_weight=weights)
    return clf


@pytest.mark.parametrize("prediction", ["last", "averaged", "voted"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("variant", ["cached", "on the fly", "sparse, weighted"])
def test_partial_fit_on_batches_is_one_fit_epoch(prediction, n_classes, variant):
    """Batches given in order, unshuffled, are one epoch of fit over their concatenation:
    each batch is learnt against the support vectors of the earlier ones, and the
    averages and the vote record count presentations across calls. With max_iter=1
    every dual problem trains the one epoch, so fit credits no skipped epochs and the
    averaged comparison holds as it is. gamma is a number: "scale" would be resolved
    on the first batch alone."""
    X, y = float_data(n=45, n_classes=n_classes, seed=8)
    sample_weight = None
    if variant == "sparse, weighted":
        X[np.abs(X) < 0.5] = 0.0
        X = sp.csr_matrix(X)
        sample_weight = np.random.RandomState(1).choice([0.0, 0.5, 2.0], size=45)
    params = dict(kernel="rbf", gamma=0.7, prediction=prediction, shuffle=False, eta=0.5)
    if variant == "on the fly":  # the earlier support vectors need their columns at once
        params["cache_size"] = 1e-6
    bounds = [0, 7, 20, 45]
    stepped = learnt_in_batches(KernelPerceptron(**params), X, y, bounds, sample_weight)
    fitted = fit_quiet(KernelPerceptron(max_iter=1, **params), X, y, sample_weight=sample_weight)
    assert_same_model(stepped, fitted, X)
    assert stepped.n_iter_ == 3 and len(stepped.mistakes_per_epoch_) == 3
    assert sum(stepped.mistakes_per_epoch_) == stepped.n_mistakes_ == fitted.n_mistakes_
    # later batches kept only the support vectors of the earlier ones
    n_kept = np.count_nonzero(stepped.support_ < bounds[2])
    assert stepped.training_state_.coef.shape[1] == (bounds[3] - bounds[2]) + n_kept


@PROPERTY
@given(
    arrays(np.float64, (12, 2), elements=st.sampled_from([-2.0, -1.0, -0.5, 0.0, 1.0, 2.0])),
    st.lists(st.integers(0, 2), min_size=12, max_size=12),
    st.lists(st.integers(1, 11), min_size=0, max_size=4, unique=True),
    st.sampled_from([("rbf", 0.5), ("poly", 0.5), ("linear", None), ("sigmoid", 0.3)]),
    st.sampled_from(["last", "averaged", "voted"]),
    st.booleans(),
)
def test_partial_fit_on_any_batches_is_one_fit_epoch(
    X, labels, cuts, kernel, prediction, fit_intercept
):
    y = np.array(labels)
    assume(np.unique(y).shape[0] >= 2)
    params = dict(
        kernel=kernel[0],
        gamma=kernel[1],
        prediction=prediction,
        fit_intercept=fit_intercept,
        shuffle=False,
    )
    bounds = [0, *sorted(cuts), 12]
    stepped = learnt_in_batches(KernelPerceptron(**params), X, y, bounds)
    fitted = fit_quiet(KernelPerceptron(max_iter=1, **params), X, y)
    assert_same_model(stepped, fitted, X)


@pytest.mark.parametrize("prediction", ["last", "averaged", "voted"])
def test_shuffled_partial_fit_matches_the_reference(prediction):
    """Each batch is presented in its own permutation drawn from random_state's stream.
    A batch is new data even when its patterns were seen before (the third batch
    repeats the first two): the reference run over the stream of every batch, one
    epoch in those orders, gives the same model."""
    X, y = float_data(n=30, seed=12)
    bounds = [0, 10, 30, 60]
    stream_X, stream_y = np.concatenate((X, X)), np.concatenate((y, y))
    clf = KernelPerceptron(gamma=0.8, prediction=prediction, random_state=4)
    learnt_in_batches(clf, stream_X, stream_y, bounds)
    rng = np.random.RandomState(4)
    order = np.concatenate([a + rng.permutation(b - a) for a, b in zip(bounds, bounds[1:])])
    K = pairwise_kernels(stream_X, stream_X, metric="rbf", gamma=0.8)
    y_pm = np.where(stream_y == clf.classes_[1], 1.0, -1.0)
    run = dual_averaged(K, y_pm, [order])
    assert clf.n_mistakes_ == sum(run["mistakes"])
    assert_array_equal(clf.support_, np.flatnonzero(run["alpha"]))
    if prediction == "voted":
        expected = dual_voted_decision(run["history"], y_pm, K)
    else:
        expected = dual_decision(run["alpha" if prediction == "last" else "average"], y_pm, K)
    assert_allclose(clf.decision_function(stream_X), expected, rtol=1e-9, atol=1e-9)


def test_partial_fit_resolves_gamma_on_the_first_batch():
    X, y = float_data(n=40, seed=13)
    clf = KernelPerceptron(max_iter=1).partial_fit(X[:10], y[:10], classes=np.unique(y))
    first = 1.0 / (X.shape[1] * X[:10].var())
    assert clf.gamma_ == pytest.approx(first)
    clf.partial_fit(X[10:], y[10:])
    assert clf.gamma_ == pytest.approx(first)
    clf.set_params(gamma=0.5)
    with pytest.raises(ValueError, match=r"gamma=0.5 differs from gamma_=.*warm_start=False"):
        clf.partial_fit(X[10:], y[10:])


def test_partial_fit_refuses_what_does_not_fit_the_model():
    X, y = float_data(n=20, seed=14)
    clf = KernelPerceptron(gamma=1.0)
    clf.partial_fit(X, y, classes=["neg", "pos"])  # given: fixed
    with pytest.raises(ValueError, match=r"labels \['odd'\] that are not among the classes"):
        clf.partial_fit(X[:2], ["neg", "odd"])
    with pytest.raises(ValueError, match=r"classes=\['neg'\] differs from the classes of the fit"):
        clf.partial_fit(X, y, classes=["neg"])
    with pytest.raises(ValueError, match="X has 3 features, but KernelPerceptron is expecting 4"):
        clf.partial_fit(X[:, :3], y)
    with pytest.raises(ValueError, match="class_weight='balanced' needs the whole class"):
        clf.set_params(class_weight="balanced").partial_fit(X, y)
    # a refused batch leaves the model as it was
    assert clf.n_iter_ == 1 and clf.support_.max() < X.shape[0]


def test_partial_fit_is_not_offered_with_a_precomputed_kernel():
    clf = KernelPerceptron(kernel="precomputed")
    assert not hasattr(clf, "partial_fit")  # what scikit-learn's tools look for
    with pytest.raises(AttributeError, match="has no attribute 'partial_fit'") as refused:
        clf.partial_fit(np.eye(4), XOR_Y, classes=[0, 1])
    assert isinstance(refused.value.__cause__, ValueError)
    assert "needs a named or callable kernel" in str(refused.value.__cause__)
    assert hasattr(KernelPerceptron(kernel="linear"), "partial_fit")


def test_partial_fit_goes_on_identically_after_save_and_load(tmp_path):
    """The seed's order stream and the samples' numbering live in the training state."""
    X, y = float_data(n=60, n_classes=3, seed=15)
    classes = np.unique(y)
    clf = KernelPerceptron(gamma=0.5, prediction="voted", random_state=7)
    clf.partial_fit(X[:20], y[:20], classes=classes).partial_fit(X[20:40], y[20:40])
    save(clf, tmp_path / "model.rbm")
    loaded = load(tmp_path / "model.rbm")
    for model in (clf, loaded):
        model.partial_fit(X[40:], y[40:])
    assert_same_model(loaded, clf, X)
    assert clf.support_.max() >= 40  # the third batch is numbered after the others


def test_extended_state_keeps_the_support_vectors_only():
    X, y = float_data(n=30, n_classes=3, seed=16)
    state = fit_quiet(KernelPerceptron(gamma=0.5, max_iter=3, random_state=0), X, y)
    state = state.training_state_
    grown = state.extended(5)
    old, new = state.support(), grown.support()
    assert grown.coef.shape == (3, 5 + old.shape[0])
    assert_array_equal(grown.index, np.r_[30:35, old])
    assert_array_equal(new, np.arange(5, 5 + old.shape[0]))
    for name in ("coef", "coef_acc"):
        assert_array_equal(getattr(grown, name)[:, new], getattr(state, name)[:, old])
        assert not getattr(grown, name)[:, :5].any()
    assert_array_equal(grown.n_seen, state.n_seen)
    (s_old, d_old, t_old, c_old), (s_new, d_new, t_new, c_new) = state.updates(), grown.updates()
    assert_array_equal(grown.index[s_new], state.index[s_old])  # the same samples
    assert_array_equal(d_new, d_old) and assert_array_equal(t_new, t_old)
    assert c_new == c_old
    for p in range(3):  # the summation order of every problem
        joined = grown.index[grown.sv[p, : grown.n_sv[p]]]
        assert_array_equal(joined, state.index[state.sv[p, : state.n_sv[p]]])


def test_kernel_table_of_a_batch_holds_its_rows_only(monkeypatch):
    """After extended(), an epoch presents the first n_rows samples only; support
    vectors carried over get their columns at once, a run of samples at a time."""
    monkeypatch.setattr(kernel_values, "KERNEL_BLOCK_VALUES", 1)  # runs of 16 samples
    X = np.random.RandomState(2).randn(60, 8)
    rows = Kernel("rbf", gamma=0.2).training_rows(X, n_rows=20)
    cached = KernelTable(rows, 60, cache_bytes=8 * 20 * 60, n_rows=20)
    support = np.r_[3, 25:45, 50]  # a run longer than a block, and single samples
    fly = KernelTable(rows, 60, cache_bytes=1, n_rows=20, support=support)
    assert cached.cached and not fly.cached
    assert cached.table.shape == (20, 60) and fly.table.shape[0] == 20
    assert_array_equal(cached.table, Kernel("rbf", gamma=0.2).values(X[:20], X))
    assert_array_equal(fly.table[:, fly.slot_of[support]], cached.table[:, support])
    assert np.all(np.delete(fly.slot_of, support) == -1)


def test_dual_state_needs_its_index():
    X, y = float_data(n=20, seed=17)
    state = fit_quiet(KernelPerceptron(max_iter=2, random_state=0), X, y).training_state_
    meta, arrays = state.to_state()
    assert_array_equal(DualState.from_state(meta, arrays).index, np.arange(20))
    del arrays["index"]  # what unreleased commits wrote before partial_fit
    with pytest.raises(ValueError, match="no index"):
        DualState.from_state(meta, arrays)
    arrays["index"] = np.zeros(20, dtype=np.int64)
    with pytest.raises(ValueError, match="index must be 20 distinct counts"):
        DualState.from_state(meta, arrays)


@pytest.mark.parametrize("change", ["reversed", "duplicated"])
def test_dual_state_update_record_must_add_up_to_its_coefficients(change):
    """The voted perceptron's hypotheses are read off the update record: a record whose
    samples were reordered or repeated (the model-file fuzzer's finds) is refused, not
    voted with."""
    X, y = float_data(n=40, seed=3)
    model = fit_quiet(KernelPerceptron(max_iter=3, prediction="voted", random_state=0), X, y)
    meta, arrays = model.training_state_.to_state()
    samples = arrays["update_sample"]
    assert np.unique(samples).shape[0] > 1  # the change below changes the record
    DualState.from_state(meta, arrays)  # as saved, it adds up
    if change == "reversed":
        arrays["update_sample"] = samples[::-1].copy()
    else:
        arrays["update_sample"] = np.r_[samples[:-1], samples[0]]
    assert not np.array_equal(arrays["update_sample"], samples)
    with pytest.raises(ValueError, match="does not add up to its coefficients"):
        DualState.from_state(meta, arrays)


# --------------------------------------------------------------------------- warm_start
@pytest.mark.parametrize("prediction", ["last", "averaged", "voted"])
@pytest.mark.parametrize("kernel", ["rbf", "precomputed"])
def test_warm_start_on_the_same_data_goes_on_epoch_for_epoch(prediction, kernel):
    """fit(max_iter=3) then fit(max_iter=2) is fit(max_iter=5) when the epochs see the
    same orders: shuffle=False here (a seed would start its stream again, as in the
    linear perceptrons; the next test shares one RandomState instead). A problem that
    converged in the first fit is credited its skipped epochs up to 3, then trains
    one error-free epoch and is credited one more: 5 epochs of presentations either way."""
    X, y = float_data(n=40, n_classes=3, seed=18)
    data = pairwise_kernels(X, X, metric="rbf", gamma=0.6) if kernel == "precomputed" else X
    params = dict(kernel=kernel, prediction=prediction, shuffle=False)
    if kernel == "rbf":
        params["gamma"] = 0.6
    warm = fit_quiet(KernelPerceptron(warm_start=True, max_iter=3, **params), data, y)
    first_epochs = list(warm.mistakes_per_epoch_)
    fit_quiet(warm.set_params(max_iter=2), data, y)
    full = fit_quiet(KernelPerceptron(max_iter=5, **params), data, y)
    assert_same_model(warm, full, data)
    assert warm.n_iter_ == 2  # this fit's epochs, as in the linear perceptrons
    assert first_epochs + warm.mistakes_per_epoch_ == full.mistakes_per_epoch_


def test_warm_start_with_a_shared_random_state_sees_the_orders_of_one_fit():
    X, y = float_data(n=40, seed=19)
    params = dict(gamma=0.6, prediction="averaged")
    warm = KernelPerceptron(warm_start=True, max_iter=3, random_state=np.random.RandomState(2))
    fit_quiet(warm.set_params(**params), X, y)
    fit_quiet(warm.set_params(max_iter=2), X, y)
    full = KernelPerceptron(max_iter=5, random_state=np.random.RandomState(2), **params)
    assert_same_model(warm, fit_quiet(full, X, y), X)


def test_warm_start_on_other_data_goes_on_like_partial_fit():
    X, y = float_data(n=50, seed=20)
    params = dict(gamma=0.6, prediction="voted", shuffle=False)
    warm = fit_quiet(KernelPerceptron(warm_start=True, max_iter=1, **params), X[:30], y[:30])
    fit_quiet(warm, X[30:], y[30:])
    stepped = learnt_in_batches(KernelPerceptron(**params), X, y, [0, 30, 50])
    assert_same_model(warm, stepped, X)
    # the same number of rows is not the same data: the reversed rows are new samples
    before = warm.support_.shape[0]
    fit_quiet(warm, X[30:][::-1], y[30:][::-1])
    assert warm.training_state_.coef.shape[1] == 20 + before
    assert_array_equal(warm.training_state_.index[:20], np.arange(50, 70))
    # a precomputed kernel has no patterns for new samples: same samples only
    precomputed = KernelPerceptron(kernel="precomputed", warm_start=True, max_iter=2)
    fit_quiet(precomputed, pairwise_kernels(X[:30], X[:30]), y[:30])
    with pytest.raises(ValueError, match="X has 20 features, but KernelPerceptron is expecting 30"):
        precomputed.fit(pairwise_kernels(X[30:], X[30:]), y[30:])


# --------------------------------------------------------------------------- float32
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    "params",
    [
        dict(kernel="rbf"),  # gamma "scale", from the float64 numbers of the data
        dict(kernel="poly", degree=2, gamma=0.3),
        dict(kernel=lambda x, z: float((x @ z.T).sum()) ** 2),  # dense or CSR rows
    ],
)
def test_float32_patterns_stay_float32_and_give_the_float64_model(params, sparse):
    X, y = float_data(n=40, n_classes=3, seed=21)
    X32 = X.astype(np.float32)
    X64 = X32.astype(np.float64)  # the very numbers float32 holds
    if sparse:
        X32, X64 = sp.csr_matrix(X32), sp.csr_matrix(X64)
    common = dict(max_iter=4, random_state=0, **params)
    single = fit_quiet(KernelPerceptron(**common), X32, y)
    double = fit_quiet(KernelPerceptron(**common), X64, y)
    assert single.support_vectors_.dtype == np.float32
    assert double.support_vectors_.dtype == np.float64
    assert single.gamma_ == double.gamma_
    for name in MODEL_ATTRIBUTES:
        assert_array_equal(getattr(single, name), getattr(double, name), err_msg=name)
    assert_array_equal(single.decision_function(X32), double.decision_function(X64))
    assert_array_equal(single.predict(X32), double.predict(X64))


def test_partial_fit_keeps_the_first_batch_dtype():
    X, y = float_data(n=30, seed=22)
    params = dict(gamma=0.5, prediction="last", shuffle=False)
    clf = KernelPerceptron(**params)
    clf.partial_fit(X[:15].astype(np.float32), y[:15], classes=np.unique(y))
    clf.partial_fit(X[15:], y[15:])  # float64 input joins the float32 model as float32
    assert clf.support_vectors_.dtype == np.float32
    reference = KernelPerceptron(**params)
    learnt_in_batches(reference, X.astype(np.float32).astype(np.float64), y, [0, 15, 30])
    assert_array_equal(clf.dual_coef_, reference.dual_coef_)


def test_fit_batches_runs_under_the_engines_stop_rule():
    """The kernel perceptron's epochs over batches are the engine's: they stop at the first
    error-free epoch (tol=None), the caller's on_epoch hears whole epochs, and a run that
    does not converge warns, as the linear perceptrons' fit_batches does."""
    X, y = float_data(n=40, seed=3)
    batches = lambda: [(X[:20], y[:20]), (X[20:], y[20:])]  # noqa: E731
    reports = []
    clf = KernelPerceptron(kernel="rbf", gamma=1.0, tol=None, random_state=0)
    clf.set_params(on_epoch=reports.append)
    clf.fit_batches(batches, classes=np.unique(y), max_iter=50)
    assert clf.converged_ and clf.mistakes_per_epoch_[-1] == 0 and clf.n_iter_ < 50
    assert [r.epoch for r in reports] == list(range(1, clf.n_iter_ + 1))
    assert [r.mistakes for r in reports] == clf.mistakes_per_epoch_
    assert all(r.presented == 40 for r in reports)
    flipped = np.where(y == "pos", "neg", "pos")
    noisy = np.where(np.arange(40) % 7 == 0, flipped, y)
    with pytest.warns(ConvergenceWarning, match="the last of max_iter=2 epochs"):
        KernelPerceptron(kernel="linear", tol=None, random_state=0).fit_batches(
            lambda: [(X, noisy)], classes=np.unique(y), max_iter=2
        )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_fit_batches_leaves_the_estimators_callback_and_verbose_as_they_are():
    """Issue 43: each batch is learnt quietly without swapping the estimator's on_epoch and
    verbose; while batches are read, its parameters are the caller's."""
    X, y = float_data(n=40, seed=3)
    reports, seen = [], []

    clf = KernelPerceptron(kernel="rbf", gamma=1.0, tol=None, max_iter=3, random_state=0)
    clf.set_params(on_epoch=reports.append, verbose=0)

    def batches():
        for start in (0, 20):
            seen.append((clf.get_params()["on_epoch"], clf.get_params()["verbose"]))
            yield X[start : start + 20], y[start : start + 20]

    clf.fit_batches(batches, classes=np.unique(y))
    assert len(seen) == 2 * clf.n_iter_ and all(s == (reports.append, 0) for s in seen)
    assert [r.epoch for r in reports] == list(range(1, clf.n_iter_ + 1))


# ---------------------------------------------------------------------- progress and the stop rule
def _kernel_learners():
    from rosenblatt import Projectron

    return {
        "kernel": lambda **kw: KernelPerceptron(gamma=1.0, **kw),
        "kernel-budget": lambda **kw: KernelPerceptron(gamma=1.0, budget=20, **kw),
        "projectron": lambda **kw: Projectron(gamma=1.0, **kw),
        "projectron-budget": lambda **kw: Projectron(gamma=1.0, budget=20, **kw),
    }


_LEARNERS = ("kernel", "kernel-budget", "projectron", "projectron-budget")


def _noisy_xor(n=300, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 2)
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    y[rng.rand(n) < 0.1] ^= 1  # not separable in any feature space
    return X, y


@pytest.mark.parametrize("learner", _LEARNERS)
def test_every_kernel_learner_reports_each_epoch_and_prints_with_verbose(learner, capsys):
    X, y = _noisy_xor()
    reports = []
    clf = _kernel_learners()[learner](
        tol=None, max_iter=4, random_state=0, on_epoch=reports.append, verbose=1
    )
    with pytest.warns(ConvergenceWarning, match="max_iter=4"):
        clf.fit(X, y)
    assert [r.epoch for r in reports] == [1, 2, 3, 4]
    assert [r.mistakes for r in reports] == clf.mistakes_per_epoch_
    assert all(r.max_epochs == 4 and r.presented == len(y) and r.model is clf for r in reports)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"-- Epoch {r.epoch}: {r.mistakes} mistake(s)" for r in reports]


@pytest.mark.parametrize("learner", _LEARNERS)
def test_tol_stops_every_kernel_learner_by_the_linear_perceptrons_rule(learner):
    """The run ends where the driver's one plateau rule, fed the reported weighted mistake
    fractions, says so; without tol it runs to max_iter."""
    from rosenblatt.engine.driver import _Plateau, weighted_fraction

    X, y = _noisy_xor(seed=1)
    reports = []
    make = _kernel_learners()[learner]
    clf = make(tol=0.01, n_iter_no_change=3, max_iter=60, random_state=0)
    clf.set_params(on_epoch=reports.append).fit(X, y)  # no warning: it stopped on the plateau
    plateau = _Plateau(0.01, 3)
    stops = [
        plateau.update(weighted_fraction(r.mistake_weight, r.presented_weight)) for r in reports
    ]
    assert stops.index(True) == len(reports) - 1 == clf.n_iter_ - 1
    assert clf.n_iter_ < 60 and not clf.converged_
    endless = make(tol=None, max_iter=clf.n_iter_ + 2, random_state=0)
    with pytest.warns(ConvergenceWarning):
        endless.fit(X, y)
    assert endless.n_iter_ == clf.n_iter_ + 2


@pytest.mark.parametrize("learner", _LEARNERS)
def test_fit_batches_prints_whole_epochs_only(learner, capsys):
    X, y = _noisy_xor(120)

    def batches():
        for start in range(0, 120, 40):
            yield X[start : start + 40], y[start : start + 40]

    clf = _kernel_learners()[learner](tol=None, max_iter=2, random_state=0, verbose=1)
    with pytest.warns(ConvergenceWarning):
        clf.fit_batches(batches, classes=[0, 1])
    assert capsys.readouterr().out.splitlines() == [
        f"-- Epoch {e + 1}: {m} mistake(s)" for e, m in enumerate(clf.mistakes_per_epoch_)
    ]
