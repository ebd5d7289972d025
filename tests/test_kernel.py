"""KernelPerceptron: the dual form against the primal, the plain reference, and scikit-learn."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from reference import dual_averaged, dual_decision, dual_one_vs_rest, dual_voted_decision
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures
from sklearn.utils.estimator_checks import parametrize_with_checks

import rosenblatt.engine.dual as dual_module
from rosenblatt.engine.dual import Kernel, KernelTable
from rosenblatt.kernel import KernelPerceptron
from rosenblatt.linear import AveragedPerceptron, Perceptron, VotedPerceptron

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


def fit_quietly(model, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y, **kwargs)


# --------------------------------------------------------------------------- dual = primal
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_linear_kernel_is_the_primal_perceptron(fit_intercept, shuffle, n_classes):
    # seed 003, remarks 3-4: w = sum_j alpha_j y_j x_j, so the dual run with the
    # linear kernel makes the same mistakes and the same decision function
    X, y = integer_data(n_classes=n_classes)
    common = dict(
        shuffle=shuffle,
        fit_intercept=fit_intercept,
        intercept_scaling=2.0,
        max_iter=25,
        random_state=3,
    )
    primal = fit_quietly(Perceptron(**common), X, y)
    dual = fit_quietly(KernelPerceptron(kernel="linear", prediction="last", **common), X, y)
    assert dual.mistakes_per_epoch_ == primal.mistakes_per_epoch_
    assert dual.n_iter_ == primal.n_iter_ and dual.converged_ == primal.converged_
    assert_array_equal(dual.decision_function(X), primal.decision_function(X))
    # the primal weights are the dual combination of the support vectors
    assert_allclose(dual.dual_coef_ @ dual.support_vectors_, primal.coef_, atol=1e-12)
    assert_allclose(dual.intercept_, primal.intercept_, atol=1e-12)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_linear_kernel_averaged_and_voted_are_the_primal_ones(fit_intercept):
    X, y = integer_data(seed=1)
    common = dict(fit_intercept=fit_intercept, max_iter=20, random_state=0)
    averaged = fit_quietly(AveragedPerceptron(**common), X, y)
    dual_averaged_ = fit_quietly(KernelPerceptron(kernel="linear", **common), X, y)
    assert_allclose(
        dual_averaged_.decision_function(X), averaged.decision_function(X), rtol=1e-10, atol=1e-10
    )
    voted = fit_quietly(VotedPerceptron(**common), X, y)
    dual_voted = fit_quietly(KernelPerceptron(kernel="linear", prediction="voted", **common), X, y)
    assert_array_equal(dual_voted.decision_function(X), voted.decision_function(X))


# --------------------------------------------------------------------------- XOR
def test_xor_needs_a_feature_map():
    kernel = KernelPerceptron(kernel="poly", degree=2, random_state=0).fit(XOR_X, XOR_Y)
    explicit = make_pipeline(PolynomialFeatures(2), Perceptron(random_state=0)).fit(XOR_X, XOR_Y)
    assert kernel.score(XOR_X, XOR_Y) == 1.0 and kernel.converged_
    assert explicit.score(XOR_X, XOR_Y) == 1.0
    with pytest.warns(ConvergenceWarning):
        linear = Perceptron(max_iter=50, random_state=0).fit(XOR_X, XOR_Y)
    assert linear.score(XOR_X, XOR_Y) < 1.0 and not linear.converged_
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        dual_linear = KernelPerceptron(kernel="linear", max_iter=50).fit(XOR_X, XOR_Y)
    assert dual_linear.n_iter_ == 50 and not dual_linear.converged_
    assert dual_linear.score(XOR_X, XOR_Y) < 1.0


# --------------------------------------------------------------------------- reference
def _check_against_reference(X, y, clf, K_train, K_test, s2):
    classes = np.unique(y)
    orders = orders_for(clf.random_state, X.shape[0], clf.max_iter, clf.shuffle)
    labels = classes if classes.shape[0] > 2 else classes[1:]
    runs = dual_one_vs_rest(K_train, y, labels, orders, method=dual_averaged, s2=s2, eta=clf.eta)
    fit_quietly(clf, X, y)
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
    fit_quietly(clf, K, y, sample_weight=sample_weight)
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
    clf = fit_quietly(KernelPerceptron(gamma=1.0, max_iter=5, random_state=0), X, y)
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
    monkeypatch.setattr(dual_module, "KERNEL_BLOCK_VALUES", 16 * 150)  # 16-row blocks
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
    cached = fit_quietly(KernelPerceptron(max_iter=15, random_state=0, **params), X, y)
    assert not added  # everything came from the cached Gram matrix
    fly = fit_quietly(
        KernelPerceptron(max_iter=15, random_state=0, cache_size=1e-6, **params), X, y
    )
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
        monkeypatch.setattr(dual_module, "KERNEL_BLOCK_VALUES", block_values)
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
    pre = fit_quietly(KernelPerceptron(kernel="precomputed", max_iter=6, random_state=2), K, y)
    assert_array_equal(pre.support_, clf.support_)
    assert_allclose(pre.decision_function(K_test), clf.decision_function(X_test), atol=1e-9)
    assert_array_equal(pre.predict(K_test), clf.predict(X_test))


def test_callable_kernel_gets_pairs_of_rows_and_kernel_params():
    X, y = float_data(n=30)

    def scaled_dot(x, z, scale):
        return scale * float(np.dot(x, z))

    custom = fit_quietly(
        KernelPerceptron(
            kernel=scaled_dot, kernel_params={"scale": 1.0}, max_iter=5, random_state=0
        ),
        X,
        y,
    )
    linear = fit_quietly(KernelPerceptron(kernel="linear", max_iter=5, random_state=0), X, y)
    assert custom.gamma_ is None
    assert_array_equal(custom.support_, linear.support_)
    assert_allclose(custom.decision_function(X), linear.decision_function(X), atol=1e-12)


def test_gamma_none_is_sklearn_scale_on_dense_and_sparse():
    X, y = integer_data()
    dense = fit_quietly(KernelPerceptron(max_iter=3), X, y)
    sparse = fit_quietly(KernelPerceptron(max_iter=3), sp.csr_matrix(X), y)
    expected = 1.0 / (X.shape[1] * X.var())
    assert dense.gamma_ == pytest.approx(expected)
    assert sparse.gamma_ == pytest.approx(expected)
    auto = fit_quietly(KernelPerceptron(gamma="auto", max_iter=3), X, y)
    assert auto.gamma_ == 1.0 / X.shape[1]
    constant = fit_quietly(KernelPerceptron(max_iter=3), np.ones((4, 2)), [0, 1, 0, 1])
    assert constant.gamma_ == 1.0


def test_sparse_input_gives_the_dense_model():
    X, y = integer_data(n_classes=3, seed=5)
    dense = fit_quietly(
        KernelPerceptron(kernel="poly", degree=2, max_iter=10, random_state=0), X, y
    )
    sparse = fit_quietly(
        KernelPerceptron(kernel="poly", degree=2, max_iter=10, random_state=0), sp.csr_matrix(X), y
    )
    assert sp.issparse(sparse.support_vectors_)
    assert_array_equal(sparse.dual_coef_, dense.dual_coef_)
    assert_allclose(sparse.decision_function(sp.csr_matrix(X)), dense.decision_function(X))


def test_intercept_is_the_constant_input():
    X, y = float_data(seed=6)
    with_s = fit_quietly(KernelPerceptron(intercept_scaling=3.0, max_iter=5, random_state=0), X, y)
    assert_allclose(with_s.intercept_, 9.0 * with_s.dual_coef_.sum(axis=1))
    K = Kernel("rbf", gamma=with_s.gamma_).values(X, with_s.support_vectors_)
    assert_allclose(
        with_s.decision_function(X), K @ with_s.dual_coef_[0] + 9.0 * with_s.dual_coef_[0].sum()
    )
    without = fit_quietly(KernelPerceptron(fit_intercept=False, max_iter=5, random_state=0), X, y)
    assert_array_equal(without.intercept_, [0.0])


def test_shuffle_false_presents_in_order_and_generator_is_accepted():
    X, y = float_data(seed=7)
    in_order = fit_quietly(KernelPerceptron(shuffle=False, max_iter=4), X, y)
    # the first update of the first epoch is on sample 0: f = 0 is a mistake
    assert in_order.update_time_[0] == 0 and in_order.support_[in_order.update_support_[0]] == 0
    gen = fit_quietly(KernelPerceptron(max_iter=4, random_state=np.random.default_rng(0)), X, y)
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
_NOT_REPETITION = "an online update with weight k differs from k presentations of the sample"
SAMPLE_WEIGHT_IS_NOT_REPETITION = {
    "check_sample_weight_equivalence_on_dense_data": _NOT_REPETITION,
    "check_sample_weight_equivalence_on_sparse_data": _NOT_REPETITION,
}


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
