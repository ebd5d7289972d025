"""What the calibrated classifiers share: probabilities made whole, and labels read off them.

:class:`~rosenblatt.estimators.calibration.CalibratedClassifier` (held-out folds) and
:class:`~rosenblatt.estimators.calibration.OnlineCalibratedClassifier` (online Platt
scaling) each calibrate one score per class (two classes: the second's);
:func:`normalised` makes those the probabilities of every class, and
:class:`FromProbabilities` gives ``predict`` and ``predict_log_proba`` from
``predict_proba``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import MatrixLike

__all__ = ["FromProbabilities", "normalised"]


class FromProbabilities:
    """``predict`` and ``predict_log_proba`` of a classifier, read off its ``predict_proba``."""

    if TYPE_CHECKING:  # what the classes it serves define
        classes_: np.ndarray

        def predict_proba(self, X: MatrixLike) -> np.ndarray: ...

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


def normalised(proba: np.ndarray) -> np.ndarray:
    """Probabilities from each class's calibrated one (two classes: the second's): the
    first class gets the rest of two, one-vs-rest maps of more are normalised to sum
    to 1 (all zero: uniform), as scikit-learn's ``CalibratedClassifierCV`` does.

    Examples
    --------
    >>> normalised(np.array([[0.0, 0.75]]))  # two classes: the second's probability
    array([[0.25, 0.75]])
    >>> normalised(np.array([[0.2, 0.2, 0.6], [0.0, 0.0, 0.0]]))
    array([[0.2       , 0.2       , 0.6       ],
           [0.33333333, 0.33333333, 0.33333333]])
    """
    n_classes = proba.shape[1]
    if n_classes == 2:
        proba[:, 0] = 1.0 - proba[:, 1]
    else:
        total = proba.sum(axis=1, keepdims=True)
        proba = np.divide(proba, total, out=np.full_like(proba, 1 / n_classes), where=total != 0)
    proba[(1.0 < proba) & (proba <= 1.0 + 1e-5)] = 1.0  # rounding just above 1
    return proba
