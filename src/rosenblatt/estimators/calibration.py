"""Probabilities for the perceptrons: calibration on held-out folds, or online.

A perceptron's score ``w . x + b`` orders samples but is not a probability.
:func:`calibrated` turns any classifier of the package into one with ``predict_proba``,
in one of two ways:

- on held-out folds (``method="sigmoid"`` or ``"isotonic"``): scikit-learn's
  ``CalibratedClassifierCV`` fits the classifier on part of the data and maps its
  scores to probabilities on the held-out rest (Platt's sigmoid or an isotonic fit),
  fold by fold, so the mapping never sees the data the scores were trained on
  (:class:`CalibratedClassifier`);
- online (``method="online"``): the estimator and the map learn together from each
  sample as it comes, the map by online Platt scaling with calibeating (Gupta and
  Ramdas, ICML 2023), always on scores of samples the estimator had not yet learnt;
  its probabilities follow ``partial_fit`` and a stream that drifts
  (:class:`OnlineCalibratedClassifier`).

This module holds the first and :func:`calibrated`; the online one is defined in
``estimators._online_calibration`` (with ``_online_platt``, its map's steps), and
this is its public path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.utils.validation import check_is_fitted

from .._core.config import CALIBRATION_METHODS, ONLINE_CALIBRATION
from ._online_calibration import OnlineCalibratedClassifier
from ._probabilities import FromProbabilities, normalised

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike, MatrixLike

__all__ = ["CalibratedClassifier", "OnlineCalibratedClassifier", "calibrated"]


class CalibratedClassifier(FromProbabilities, CalibratedClassifierCV):
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
    return normalised(proba)


def calibrated(
    estimator: Any, method: str = "sigmoid", cv: Any = 5, ensemble: bool = True
) -> CalibratedClassifier | OnlineCalibratedClassifier:
    """A classifier with ``predict_proba`` and ``predict_log_proba``: ``estimator`` calibrated.

    Parameters
    ----------
    estimator : classifier
        Any rosenblatt classifier (or pipeline ending in one), unfitted; for
        ``method="online"``, one that learns online (``partial_fit``).
    method : {"sigmoid", "isotonic", "online"}, default="sigmoid"
        Platt scaling (two parameters, for small data) or isotonic regression
        (monotone, for a thousand samples or more), each fitted on held-out folds;
        or ``"online"``: online Platt scaling with calibeating (Gupta and Ramdas,
        ICML 2023), learnt together with the estimator, sample by sample, so that
        the probabilities follow ``partial_fit`` and a stream that drifts
        (:class:`OnlineCalibratedClassifier`, whose other parameters keep the
        paper's values).
    cv : int or cross-validation splitter, default=5
        Folds: each calibrator is fitted on the fold its classifier did not see
        (not for ``"online"``, which has no folds).
    ensemble : bool, default=True
        Average the folds' calibrated classifiers (True) or refit one
        classifier on all the data with the folds' pooled calibration (False);
        not for ``"online"``.

    Returns
    -------
    CalibratedClassifier or OnlineCalibratedClassifier
        Unfitted; ``fit(X, y)`` then ``predict_proba(X)`` (rows summing to 1) and
        ``predict_log_proba(X)``; the online one also learns with ``partial_fit``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from rosenblatt import AveragedPerceptron, calibrated
    >>> X, y = make_classification(300, 5, random_state=0)
    >>> model = calibrated(AveragedPerceptron(random_state=0)).fit(X, y)
    >>> proba = model.predict_proba(X[:3])
    >>> proba.shape, bool(abs(proba.sum(axis=1) - 1).max() < 1e-12)
    ((3, 2), True)
    >>> online = calibrated(AveragedPerceptron(max_iter=2, random_state=0), method="online")
    >>> online.fit(X, y).predict_proba(X[:3]).shape
    (3, 2)
    """
    if method == ONLINE_CALIBRATION:
        if not (isinstance(cv, int) and cv == 5) or ensemble is not True:
            raise ValueError(
                "cv and ensemble choose the folds of method='sigmoid' or 'isotonic'; "
                "method='online' has no folds: leave them out"
            )
        return OnlineCalibratedClassifier(estimator)
    if method not in CALIBRATION_METHODS:
        raise ValueError(f"method must be 'sigmoid', 'isotonic' or 'online'; got {method!r}")
    return CalibratedClassifier(estimator, method=method, cv=cv, ensemble=ensemble)
