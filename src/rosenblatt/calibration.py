"""Probabilities for the perceptrons: scikit-learn's calibration on held-out folds.

A perceptron's score ``w . x + b`` orders samples but is not a probability.
:func:`calibrated` wraps any classifier of the package in scikit-learn's
``CalibratedClassifierCV``, which fits the classifier on part of the data and
maps its scores to probabilities on the held-out rest (Platt's sigmoid or an
isotonic fit), fold by fold, so the mapping never sees the data the scores
were trained on.
"""

from __future__ import annotations

import numpy as np
from sklearn.calibration import CalibratedClassifierCV

__all__ = ["CalibratedClassifier", "calibrated"]


class CalibratedClassifier(CalibratedClassifierCV):
    """scikit-learn's ``CalibratedClassifierCV`` with ``predict_log_proba`` as well.

    See :func:`calibrated`; the parameters are ``CalibratedClassifierCV``'s.
    """

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba` (``-inf`` where a probability is 0).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


def calibrated(estimator, method="sigmoid", cv=5, ensemble=True):
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
    if method not in ("sigmoid", "isotonic"):
        raise ValueError(f"method must be 'sigmoid' or 'isotonic'; got {method!r}")
    return CalibratedClassifier(estimator, method=method, cv=cv, ensemble=ensemble)
