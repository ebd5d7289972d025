"""Linear classifiers to compare the perceptron with: centroids and a linear program.

Both learn one linear neuron per class by one-vs-rest (a single neuron for two
classes), with ``f_k(x) = coef_[k] . x + intercept_[k]``. Two classes predict
``classes_[1]`` where ``f(x) > 0``; more predict the class with the largest ``f_k``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._core.validation import (
    BOOL,
    Options,
    check_classes,
    check_not_empty,
    validate,
    validate_params,
)
from ..engine.numpy_decision import linear_scores
from ..engine.overflow import check_squares
from ..engine.targets import TargetCoding
from ..theory import separating_lp

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike, MatrixLike

__all__ = ["CentroidClassifier", "LinearProgramClassifier"]


class _OneVsRestLinear(ClassifierMixin, BaseEstimator):
    """Shared validation and prediction of the one-neuron-per-class baselines."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _fit_problems(self, X, y):
        """Validate; return X, y and the ±1 targets of each neuron, shape (n_neurons, n)."""
        validate_params(self)
        X, y = validate(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_not_empty(X)
        self.classes_ = check_classes(y, type(self).__name__)
        return X, y, TargetCoding.for_classes(self.classes_).signed(y)

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Signed activation of each neuron.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
            Positive values favour ``classes_[1]`` (two classes) or class ``k``.
        """
        check_is_fitted(self)
        X = validate(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return linear_scores(X, self.coef_, self.intercept_)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """Predict class labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)  # checks the model is fitted first
        return TargetCoding.for_classes(self.classes_).decode(scores)


class CentroidClassifier(_OneVsRestLinear):
    """The centroid method of the lecture notes, with the midpoint done right.

    For two classes with means ``mu_1`` (of ``classes_[1]``) and ``mu_0``,
    ``f(x) = (mu_1 - mu_0) . (x - (mu_1 + mu_0) / 2)``: positive exactly when
    ``x`` is closer to ``mu_1`` than to ``mu_0``, because
    ``f(x) = (||x - mu_0||^2 - ||x - mu_1||^2) / 2``. (The notes write the
    midpoint as ``(mu_C - mu_X) / 2``, a slip.)

    With more classes the natural generalisation is the nearest class mean,
    the default: class ``k`` scores ``f_k(x) = mu_k . x - ||mu_k||^2 / 2``, and
    the largest score is the nearest mean (scikit-learn's ``NearestCentroid``).
    ``multi_class="ovr"`` sets each class against the mean of all the others
    instead (the lecture notes' one-vs-rest for k classes), which is not always the
    nearest mean.

    Parameters
    ----------
    multi_class : {"nearest", "ovr"}, default="nearest"
        Several classes: the nearest class mean, or one-vs-rest hyperplanes.
        Two classes give the same model either way.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        ``mu_1 - mu_0`` for two classes; ``mu_k`` ("nearest") or
        ``mu_k - mu_rest`` ("ovr") for several.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        ``-(mu_1 - mu_0) . (mu_1 + mu_0) / 2``; ``-||mu_k||^2 / 2`` ("nearest") or
        ``-(mu_k - mu_rest) . (mu_k + mu_rest) / 2`` ("ovr").
    centroids_ : ndarray of shape (n_classes, n_features)
        Mean of each class.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from rosenblatt.estimators.baselines import CentroidClassifier
    >>> X = [[0.0, 0.0], [0.0, 2.0], [4.0, 0.0], [4.0, 2.0]]
    >>> clf = CentroidClassifier().fit(X, ["a", "a", "b", "b"])
    >>> clf.coef_.tolist(), clf.intercept_.tolist()
    ([[4.0, 0.0]], [-8.0])
    >>> clf.predict([[1.0, 5.0], [3.0, -5.0]]).tolist()
    ['a', 'b']
    >>> X3 = [[0.0], [1.0], [4.0], [5.0], [9.0], [10.0]]
    >>> CentroidClassifier().fit(X3, [0, 0, 1, 1, 2, 2]).predict([[2.0], [3.5], [7.5]]).tolist()
    [0, 1, 2]
    """

    _parameter_constraints: dict = {"multi_class": [Options(("nearest", "ovr"))]}

    def __init__(self, multi_class: str = "nearest") -> None:
        self.multi_class = multi_class

    def fit(self, X: MatrixLike, y: ArrayLike) -> CentroidClassifier:
        """Compute the class means and the hyperplanes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        X, y, targets = self._fit_problems(X, y)
        check_squares(X, "The centroid method")  # its intercepts hold |mu|^2
        self.centroids_ = np.vstack([_mean(X, y == c) for c in self.classes_])
        if self.classes_.shape[0] > 2 and self.multi_class == "nearest":
            # ||x - mu_k||^2 = ||x||^2 - 2 (mu_k . x - ||mu_k||^2 / 2): the same argmax
            self.coef_ = self.centroids_.copy()
            self.intercept_ = -0.5 * np.einsum("kj,kj->k", self.centroids_, self.centroids_)
            return self
        coef, intercept = [], []
        for t in targets:
            mu_c, mu_x = _mean(X, t > 0), _mean(X, t < 0)
            normal = mu_c - mu_x
            coef.append(normal)
            intercept.append(-normal @ (mu_c + mu_x) / 2.0)
        self.coef_ = np.vstack(coef)
        self.intercept_ = np.asarray(intercept)
        return self


def _mean(X, mask):
    return np.asarray(X[mask].mean(axis=0)).ravel()


class LinearProgramClassifier(_OneVsRestLinear):
    """The linear program for separability (from the lecture notes) as a classifier.

    Each neuron solves ``t_i (w . x_i + b) >= 1 - xi_i``, ``xi_i >= 0``,
    minimising the total slack ``sum_i xi_i`` (HiGHS, through
    :func:`rosenblatt.theory.is_linearly_separable`'s LP). On separable data the
    slack is zero and the hyperplane separates the training set; otherwise it
    is the LP's least-total-slack compromise and ``separable_`` is False.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an intercept; with False each hyperplane passes through the origin.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    separable_ : bool
        Whether every one-vs-rest problem (the single one for two classes) is
        linearly separable.
    total_slack_ : ndarray of shape (1,) or (n_classes,)
        Least total slack of each neuron's LP (0 where separable).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> from rosenblatt.estimators.baselines import LinearProgramClassifier
    >>> X = [[0, 0], [0, 1], [1, 0], [1, 1]]
    >>> clf = LinearProgramClassifier().fit(X, [0, 1, 1, 1])
    >>> clf.separable_, clf.score(X, [0, 1, 1, 1])
    (True, 1.0)
    >>> LinearProgramClassifier().fit(X, [0, 1, 1, 0]).separable_  # XOR
    False
    """

    _parameter_constraints: dict = {"fit_intercept": [BOOL]}

    def __init__(self, fit_intercept: bool = True) -> None:
        self.fit_intercept = fit_intercept

    def fit(self, X: MatrixLike, y: ArrayLike) -> LinearProgramClassifier:
        """Solve one LP per neuron.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        X, _, targets = self._fit_problems(X, y)
        results = [separating_lp(X, t, bool(self.fit_intercept)) for t in targets]
        self.coef_ = np.vstack([r.coef for r in results])
        self.intercept_ = np.array([r.intercept for r in results])
        self.total_slack_ = np.array([r.total_slack for r in results])
        self.separable_ = all(r.separable for r in results)
        return self
