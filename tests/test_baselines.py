"""rosenblatt.estimators.baselines: the centroid method and seed 001's LP as classifiers."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.neighbors import NearestCentroid
from sklearn.utils.estimator_checks import parametrize_with_checks

from rosenblatt.estimators.baselines import CentroidClassifier, LinearProgramClassifier


@parametrize_with_checks(
    [CentroidClassifier(), LinearProgramClassifier(), LinearProgramClassifier(fit_intercept=False)]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def sq_dist(X, mu):
    return ((X - mu) ** 2).sum(axis=1)


# ---------------------------------------------------------------------- centroids
@pytest.mark.parametrize("sparse", [False, True])
def test_binary_centroid_predicts_the_nearest_class_mean(sparse):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4)) + np.repeat([[0, 0, 0, 0], [1, 2, 0, -1]], 60, axis=0)
    y = np.repeat(["cat", "dog"], 60)
    clf = CentroidClassifier().fit(sp.csr_matrix(X) if sparse else X, y)
    mu_cat, mu_dog = X[y == "cat"].mean(axis=0), X[y == "dog"].mean(axis=0)
    np.testing.assert_allclose(clf.centroids_, [mu_cat, mu_dog])
    X_test = rng.normal(size=(200, 4)) * 2
    # f(x) = (||x - mu_X||^2 - ||x - mu_C||^2) / 2 with C = classes_[1] = "dog"
    expected = (sq_dist(X_test, mu_cat) - sq_dist(X_test, mu_dog)) / 2
    np.testing.assert_allclose(clf.decision_function(X_test), expected, rtol=1e-10, atol=1e-10)
    nearest = np.where(sq_dist(X_test, mu_dog) < sq_dist(X_test, mu_cat), "dog", "cat")
    np.testing.assert_array_equal(clf.predict(X_test), nearest)
    np.testing.assert_array_equal(clf.predict(X_test), NearestCentroid().fit(X, y).predict(X_test))
    # the correct midpoint: the point halfway between the means lies on the boundary
    assert clf.decision_function([(mu_cat + mu_dog) / 2])[0] == pytest.approx(0.0, abs=1e-12)
    assert clf.coef_.shape == (1, 4) and clf.intercept_.shape == (1,)


def test_multiclass_centroid_ovr_is_one_vs_rest_nearest_mean():
    X, y = make_blobs(n_samples=150, centers=4, n_features=3, random_state=1)
    clf = CentroidClassifier(multi_class="ovr").fit(X, y)
    assert clf.coef_.shape == (4, 3)
    X_test = np.random.default_rng(2).uniform(-12, 12, size=(300, 3))
    # neuron k: class k's mean against the mean of all other patterns
    scores = np.column_stack(
        [
            (sq_dist(X_test, X[y != k].mean(axis=0)) - sq_dist(X_test, X[y == k].mean(axis=0))) / 2
            for k in range(4)
        ]
    )
    np.testing.assert_allclose(clf.decision_function(X_test), scores, rtol=1e-9, atol=1e-8)
    np.testing.assert_array_equal(clf.predict(X_test), scores.argmax(axis=1))
    assert clf.score(X, y) > 0.9


# ---------------------------------------------------------------------- linear program
def test_lp_classifier_separates_separable_data():
    X, y = make_blobs(n_samples=200, centers=[[-3, 0], [3, 1]], cluster_std=0.8, random_state=0)
    for fit_intercept in (True, False):
        clf = LinearProgramClassifier(fit_intercept=fit_intercept).fit(X, y)
        assert clf.separable_ is True
        assert clf.total_slack_.tolist() == [0.0]
        assert clf.score(X, y) == 1.0
        t = np.where(y == 1, 1.0, -1.0)
        assert np.all(t * clf.decision_function(X) >= 1 - 1e-7)  # seed 001's constraints
    assert LinearProgramClassifier(fit_intercept=False).fit(X, y).intercept_.tolist() == [0.0]


def test_lp_classifier_on_noisy_data_minimises_slack():
    X, y = make_blobs(n_samples=300, centers=[[-1, 0], [1, 0]], cluster_std=1.0, random_state=0)
    clf = LinearProgramClassifier().fit(X, y)
    assert clf.separable_ is False
    assert clf.total_slack_[0] > 0
    assert clf.score(X, y) > 0.75
    # the total slack is the sum of hinge losses of the fitted hyperplane
    t = np.where(y == 1, 1.0, -1.0)
    hinge = np.maximum(0, 1 - t * clf.decision_function(X)).sum()
    assert hinge == pytest.approx(clf.total_slack_[0], rel=1e-6)


def test_lp_classifier_multiclass_and_sparse():
    X, y = make_blobs(n_samples=150, centers=[[0, 8], [8, 0], [-8, -8]], random_state=0)
    clf = LinearProgramClassifier().fit(X, y)
    assert clf.separable_ and clf.coef_.shape == (3, 2) and clf.total_slack_.shape == (3,)
    assert clf.score(X, y) == 1.0
    sparse = LinearProgramClassifier().fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, clf.coef_)
    np.testing.assert_allclose(sparse.intercept_, clf.intercept_)
    # a class-0 copy of a class-1 pattern makes neurons 0 and 1 inseparable, not neuron 2
    X_bad = np.vstack([X, X[y == 1][:1]])
    bad = LinearProgramClassifier().fit(X_bad, np.append(y, 0))
    assert bad.separable_ is False
    assert bad.total_slack_[0] > 0 and bad.total_slack_[1] > 0 and bad.total_slack_[2] == 0


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize("Estimator", [CentroidClassifier, LinearProgramClassifier])
def test_bad_input_gives_clear_errors(Estimator):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    with pytest.raises(ValueError, match="only one class"):
        Estimator().fit(X, [1, 1, 1])
    with pytest.raises(ValueError, match="NaN"):
        Estimator().fit([[np.nan, 0.0], [1.0, 1.0]], [0, 1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Estimator().fit(X, [0, 1])
    with pytest.raises(ValueError, match="Unknown label type"):
        Estimator().fit(X, [0.5, 1.5, 2.25])
    clf = Estimator().fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="expecting 2 features"):
        clf.predict([[1.0, 2.0, 3.0]])


def test_lp_classifier_rejects_bad_parameters():
    with pytest.raises(ValueError, match="'fit_intercept' parameter of LinearProgramClassifier"):
        LinearProgramClassifier(fit_intercept="no").fit([[0.0], [1.0]], [0, 1])


def test_centroid_several_classes_is_the_nearest_class_mean():
    """Default for several classes: scikit-learn's NearestCentroid, prediction for prediction."""
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split

    X, y = load_iris(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    ours = CentroidClassifier().fit(X_train, y_train)
    theirs = NearestCentroid().fit(X_train, y_train)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    ovr = CentroidClassifier(multi_class="ovr").fit(X_train, y_train)
    assert ours.score(X_test, y_test) > ovr.score(X_test, y_test)  # the 0.927 vs 0.827
    X, y = make_blobs(300, 5, centers=6, cluster_std=3.0, random_state=1)
    ours = CentroidClassifier().fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), NearestCentroid().fit(X, y).predict(X))


def test_centroid_two_classes_same_either_way():
    from sklearn.datasets import make_classification

    X, y = make_classification(120, 6, random_state=2)
    a = CentroidClassifier().fit(X, y)
    b = CentroidClassifier(multi_class="ovr").fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
