"""The 0-1 loss and its surrogates, and the lecture notes' case against the squared loss.

Every loss is a function of the margin ``z = t f(x)`` of one pattern, with the
target ``t`` in {-1, +1} and the score ``f(x) = w . x + b``: ``z > 0`` is a
correct classification, and the larger ``z``, the more confident. The
functions are vectorised (any array of margins in, an array of losses out).

The notes minimise the 0-1 loss ``L^{0-1}``, which is NP-hard in general, or a
continuous surrogate of it instead ("margin loss, cross-entropy / negative
log-likelihood loss, ..."):

- :func:`zero_one`: ``1`` for a mistake (``z <= 0``), else ``0``;
- :func:`perceptron`: ``max(0, -z)``, the loss behind the perceptron risk of
  :func:`~rosenblatt.theory.perceptron_risk`;
- :func:`hinge`: ``max(0, 1 - z)``, the margin loss (zero only beyond margin 1);
- :func:`squared`: ``(1 - z)^2``, the squared error ``(t - f)^2`` of the score
  (:func:`least_squares_classifier` fits it);
- :func:`logistic`: ``log(1 + exp(-z))``, the negative log-likelihood of logistic
  regression.

:data:`LOSSES` maps each name to its function, :data:`SURROGATES` the continuous
ones, :data:`FORMULAS` each name to its formula.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._core.sparse import is_sparse
from .._core.validation import BOOL, check_args, checked_Xy
from ._inputs import augment, decision, signed_targets

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike, MatrixLike

__all__ = [
    "FORMULAS",
    "LOSSES",
    "SURROGATES",
    "LeastSquaresResult",
    "hinge",
    "least_squares_classifier",
    "logistic",
    "perceptron",
    "squared",
    "zero_one",
]


def _margins(z: ArrayLike) -> np.ndarray:
    return np.asarray(z, dtype=np.float64)


def zero_one(z: ArrayLike) -> np.ndarray:
    """The 0-1 loss: ``1`` where the pattern is misclassified (``z <= 0``), else ``0``.

    A pattern on the boundary (``z = 0``) counts as a mistake, as in the
    perceptron's update rule.

    Parameters
    ----------
    z : array-like
        Margins ``t f(x)``.

    Returns
    -------
    ndarray of float, the shape of ``z``

    Examples
    --------
    >>> from rosenblatt.theory import zero_one
    >>> zero_one([-1.5, 0.0, 0.5]).tolist()
    [1.0, 1.0, 0.0]
    """
    return np.where(_margins(z) <= 0.0, 1.0, 0.0)


def perceptron(z: ArrayLike) -> np.ndarray:
    """The perceptron loss ``max(0, -z)``: how far a mistake lies on the wrong side.

    The notes' loss of the perceptron risk: ``0`` for ``z > 0`` and ``-z`` for
    ``z < 0``; summed over a data set it is
    :func:`~rosenblatt.theory.perceptron_risk`.

    Parameters
    ----------
    z : array-like
        Margins ``t f(x)``.

    Returns
    -------
    ndarray of float, the shape of ``z``

    Examples
    --------
    >>> from rosenblatt.theory import perceptron
    >>> perceptron([-1.5, 0.0, 0.5]).tolist()
    [1.5, 0.0, 0.0]
    """
    return np.maximum(0.0, -_margins(z))


def hinge(z: ArrayLike) -> np.ndarray:
    """The hinge (margin) loss ``max(0, 1 - z)``: zero only at margin 1 or more.

    Parameters
    ----------
    z : array-like
        Margins ``t f(x)``.

    Returns
    -------
    ndarray of float, the shape of ``z``

    Examples
    --------
    >>> from rosenblatt.theory import hinge
    >>> hinge([-1.5, 0.0, 0.5, 2.0]).tolist()
    [2.5, 1.0, 0.5, 0.0]
    """
    return np.maximum(0.0, 1.0 - _margins(z))


def squared(z: ArrayLike) -> np.ndarray:
    """The squared loss ``(1 - z)^2``: the squared error ``(t - f(x))^2`` for ``t = ±1``.

    It charges a pattern for lying too far on its correct side (``z > 1``) as
    well as for a mistake, which is why least squares can misclassify separable
    data (:func:`least_squares_classifier`). The notes write it with labels
    ``y`` in {0, 1} as ``(f(x) - y)^2``; that is ``squared(z) / 4`` with
    ``z = t (2 f(x) - 1)`` and ``t = 2 y - 1``.

    Parameters
    ----------
    z : array-like
        Margins ``t f(x)``.

    Returns
    -------
    ndarray of float, the shape of ``z``

    Examples
    --------
    >>> from rosenblatt.theory import squared
    >>> squared([-1.0, 0.0, 1.0, 3.0]).tolist()
    [4.0, 1.0, 0.0, 4.0]
    """
    return (1.0 - _margins(z)) ** 2


def logistic(z: ArrayLike) -> np.ndarray:
    """The logistic loss ``log(1 + exp(-z))``, the notes' negative log-likelihood.

    The negative (natural) logarithm of the probability ``1 / (1 + exp(-z))`` that
    logistic regression gives the right class; ``log 2`` at ``z = 0``. Computed
    without overflow for margins of any size.

    Parameters
    ----------
    z : array-like
        Margins ``t f(x)``.

    Returns
    -------
    ndarray of float, the shape of ``z``

    Examples
    --------
    >>> import numpy as np
    >>> from rosenblatt.theory import logistic
    >>> bool(logistic(0.0) == np.log(2)), logistic([-1000.0, 1000.0]).tolist()
    (True, [1000.0, 0.0])
    """
    return np.logaddexp(0.0, -_margins(z))


#: The continuous surrogates of the 0-1 loss, by name.
SURROGATES: dict[str, Callable[[ArrayLike], np.ndarray]] = {
    "perceptron": perceptron,
    "hinge": hinge,
    "squared": squared,
    "logistic": logistic,
}
#: The 0-1 loss and its surrogates, by name.
LOSSES: dict[str, Callable[[ArrayLike], np.ndarray]] = {"0-1": zero_one, **SURROGATES}
#: The formula of each loss in :data:`LOSSES`, of the margin ``z`` (figure legends).
FORMULAS: dict[str, str] = {
    "0-1": "[z ≤ 0]",
    "perceptron": "max(0, −z)",
    "hinge": "max(0, 1 − z)",
    "squared": "(1 − z)²",
    "logistic": "log(1 + e^−z)",
}


# ---------------------------------------------------------------------- least squares
@dataclass(frozen=True, eq=False)
class LeastSquaresResult:
    """Answer of :func:`least_squares_classifier`.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
    intercept : float
        ``0.0`` without ``fit_intercept``.
    predictions : ndarray of shape (n_samples,)
        The class of each pattern: the positive one where ``f(x) >= 0.5``.
    residuals : ndarray of shape (n_samples,)
        ``f(x_i) - y_i`` with ``y_i`` in {0, 1}; their squares sum to the loss minimised.
    """

    coef: np.ndarray
    intercept: float
    predictions: np.ndarray
    residuals: np.ndarray


def least_squares_classifier(
    X: MatrixLike, y: ArrayLike, fit_intercept: bool = True
) -> LeastSquaresResult:
    """Classify by least squares, as in the lecture notes' case against the squared loss.

    Codes the labels as ``y`` in {0, 1} (``np.unique(y)[1]`` is 1), fits the
    score ``f(x) = w . x + b`` minimising ``sum_i (f(x_i) - y_i)^2`` and predicts
    the positive class where ``f(x) >= 0.5``. The notes' example: points
    ``x = 10, 11`` with ``y = 1`` and ``x = 8`` with ``y = 0``. Through the
    origin the fit is ``w = 7/95``, which puts ``x = 8`` on the positive side
    (``f = 56/95``), although ``w = 1/18`` would classify all three correctly.
    With an intercept it separates them, yet charges ``x = 11`` for lying too far
    on its correct side (``f = 8/7``, residual ``1/7``): the squared loss, unlike
    the 0-1 loss, is not zero on a correct pattern.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Patterns (a sparse matrix is made dense: a teaching tool for small data).
    y : array-like of shape (n_samples,)
        Two class labels.
    fit_intercept : bool, default=True
        With False the score passes through the origin, ``f(x) = w . x``.

    Returns
    -------
    LeastSquaresResult
        ``.coef``, ``.intercept``, ``.predictions`` and ``.residuals``.

    Examples
    --------
    >>> from rosenblatt.theory import least_squares_classifier
    >>> X, y = [[10.0], [11.0], [8.0]], [1, 1, 0]
    >>> least_squares_classifier(X, y, fit_intercept=False).predictions.tolist()
    [1, 1, 1]
    >>> fit = least_squares_classifier(X, y)
    >>> fit.predictions.tolist(), (14 * fit.residuals).round(9).tolist()
    ([1, 1, 0], [-3.0, 2.0, 1.0])
    """
    check_args("least_squares_classifier", {"fit_intercept": [BOOL]}, locals())
    X, labels = checked_Xy(X, y)
    targets = (signed_targets(labels, "least_squares_classifier") + 1.0) / 2.0
    A = X.toarray() if is_sparse(X) else X
    if fit_intercept:
        A = augment(A, 1.0)
    solution = np.linalg.lstsq(A, targets, rcond=None)[0]
    n_features = X.shape[1]
    w = solution[:n_features]
    b = float(solution[n_features]) if fit_intercept else 0.0
    scores = decision(A[:, :n_features], w, b)
    classes = np.unique(labels)
    predictions = classes[(scores >= 0.5).astype(np.intp)]
    return LeastSquaresResult(w, b, predictions, scores - targets)
