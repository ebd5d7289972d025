"""Probabilities for the perceptrons: scikit-learn's calibration on held-out folds.

A perceptron's score ``w . x + b`` orders samples but is not a probability.
:func:`calibrated` wraps any classifier of the package in scikit-learn's
``CalibratedClassifierCV``, which fits the classifier on part of the data and
maps its scores to probabilities on the held-out rest (Platt's sigmoid or an
isotonic fit), fold by fold, so the mapping never sees the data the scores
were trained on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.utils.validation import check_is_fitted

from .._core.config import CALIBRATION_METHODS

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike, MatrixLike

__all__ = ["CalibratedClassifier", "calibrated"]


class CalibratedClassifier(CalibratedClassifierCV):
    """scikit-learn's ``CalibratedClassifierCV``, kept in parts a model file can hold.

    See :func:`calibrated`; the parameters are ``CalibratedClassifierCV``'s.
    ``fit`` is scikit-learn's. Its fitted calibrated classifiers (objects of a
    private scikit-learn class, which :func:`rosenblatt.save` cannot store) are
    then kept as plain parts, from which :meth:`predict_proba` computes what
    scikit-learn's would, so that a calibrated model saves and loads like any other.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of classifiers
        The classifier of each fold (one when ``ensemble=False``).
    calibrators_ : list of list of dict
        For each fold, one calibration map per class it scores (one for two
        classes: the second's): ``{"a": a, "b": b}``, Platt's sigmoid
        ``1 / (1 + exp(a * s + b))`` of the score ``s``, or ``{"x": x, "y": y}``,
        the isotonic fit's breakpoints, interpolated linearly (and clipped).
    n_features_in_ : int
    """

    def fit(
        self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None, **fit_params: Any
    ) -> CalibratedClassifier:
        """Fit the folds' classifiers and their calibration maps.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
        **fit_params : dict
            Passed to the classifier's ``fit``.

        Returns
        -------
        self : CalibratedClassifier
        """
        super().fit(X, y, sample_weight=sample_weight, **fit_params)
        folds = self.calibrated_classifiers_
        del self.calibrated_classifiers_  # kept as the parts below instead
        self.estimators_ = [fold.estimator for fold in folds]
        self.calibrators_ = [[_calibration_map(c) for c in fold.calibrators] for fold in folds]
        return self

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Calibrated probabilities: the mean over the folds, rows summing to 1.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self, "calibrators_")
        folds = list(zip(self.estimators_, self.calibrators_))
        return sum(_fold_proba(est, maps, self.classes_, X) for est, maps in folds) / len(folds)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The most probable class of each sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def predict_log_proba(self, X: MatrixLike) -> np.ndarray:
        """Logarithm of ``predict_proba`` (``-inf`` where a probability is 0).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


def _calibration_map(calibrator) -> dict:
    """The parameters of one of scikit-learn's fitted calibrators."""
    from sklearn.isotonic import IsotonicRegression

    if isinstance(calibrator, IsotonicRegression):
        return {"x": calibrator.X_thresholds_, "y": calibrator.y_thresholds_}
    return {"a": float(calibrator.a_), "b": float(calibrator.b_)}


def _calibrate(mapping, scores):
    """Probabilities from scores through one calibration map (as scikit-learn's calibrators)."""
    from scipy.special import expit

    if set(mapping) == {"a", "b"}:
        return expit(-(mapping["a"] * scores + mapping["b"]))
    if set(mapping) == {"x", "y"}:  # IsotonicRegression(out_of_bounds="clip")
        return np.interp(scores, mapping["x"], mapping["y"])
    raise ValueError(
        f"a calibration map holds {sorted(mapping)}, not a and b (sigmoid) or x and y "
        "(isotonic); fit the CalibratedClassifier again"
    )


def _fold_proba(estimator, maps, classes, X):
    """One fold's probabilities: its classifier's scores, calibrated class by class."""
    scores = np.asarray(estimator.decision_function(X), dtype=np.float64)
    scores = scores.reshape(scores.shape[0], -1)
    n_classes = classes.shape[0]
    proba = np.zeros((scores.shape[0], n_classes))
    # two classes: the one score and its map are the second class's
    columns = [1] if n_classes == 2 else np.searchsorted(classes, estimator.classes_)
    for column, score, mapping in zip(columns, scores.T, maps):
        proba[:, column] = _calibrate(mapping, score)
    if n_classes == 2:
        proba[:, 0] = 1.0 - proba[:, 1]
    else:  # one-vs-rest maps, normalised; all zero: uniform
        total = proba.sum(axis=1, keepdims=True)
        proba = np.divide(proba, total, out=np.full_like(proba, 1 / n_classes), where=total != 0)
    proba[(1.0 < proba) & (proba <= 1.0 + 1e-5)] = 1.0  # rounding just above 1
    return proba


def calibrated(
    estimator: Any, method: str = "sigmoid", cv: Any = 5, ensemble: bool = True
) -> CalibratedClassifier:
    """A classifier with ``predict_proba`` and ``predict_log_proba``: ``estimator`` calibrated.

    Parameters
    ----------
    estimator : classifier
        Any rosenblatt classifier (or pipeline ending in one), unfitted.
    method : {"sigmoid", "isotonic"}, default="sigmoid"
        Platt scaling (two parameters, for small data) or isotonic regression
        (monotone, for a thousand samples or more).
    cv : int or cross-validation splitter, default=5
        Folds: each calibrator is fitted on the fold its classifier did not see.
    ensemble : bool, default=True
        Average the folds' calibrated classifiers (True) or refit one
        classifier on all the data with the folds' pooled calibration (False).

    Returns
    -------
    CalibratedClassifier
        Unfitted; ``fit(X, y)`` then ``predict_proba(X)`` (rows summing to 1) and
        ``predict_log_proba(X)``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from rosenblatt import AveragedPerceptron, calibrated
    >>> X, y = make_classification(300, 5, random_state=0)
    >>> model = calibrated(AveragedPerceptron(random_state=0)).fit(X, y)
    >>> proba = model.predict_proba(X[:3])
    >>> proba.shape, bool(abs(proba.sum(axis=1) - 1).max() < 1e-12)
    ((3, 2), True)
    """
    if method not in CALIBRATION_METHODS:
        raise ValueError(f"method must be 'sigmoid' or 'isotonic'; got {method!r}")
    return CalibratedClassifier(estimator, method=method, cv=cv, ensemble=ensemble)
