"""Margins, distances, the radius and the perceptron risk of a hyperplane on data
(re-exported by :mod:`rosenblatt.theory`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.validation import checked_X
from ._inputs import check_Xy_lenient, decision, finite, hyperplane, largest_norm, norm
from .losses import perceptron as perceptron_loss

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike, MatrixLike


# ---------------------------------------------------------------------- margins
def margin(X: MatrixLike, y: ArrayLike, coef: ArrayLike, intercept: float = 0.0) -> float:
    """Geometric margin of a hyperplane on a data set (as the lecture notes define it).

    ``min_i t_i (w . x_i + b) / ||w||`` when the hyperplane separates the data,
    ``-inf`` when it does not (some ``t_i f(x_i) <= 0``, the perceptron's mistake
    condition) or when ``w = 0``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two class labels, or labels in {-1, +1}.
    coef : array-like of shape (n_features,) or (1, n_features)
    intercept : float or array-like of shape (1,), default=0.0

    Returns
    -------
    float

    Examples
    --------
    >>> from rosenblatt.theory import margin
    >>> X = [[2.0, 0.0], [-1.0, 0.0]]
    >>> margin(X, [1, -1], coef=[1.0, 0.0])
    1.0
    >>> margin(X, [1, -1], coef=[3.0, 0.0], intercept=-3.0)  # passes through x=(1, 0)
    1.0
    >>> margin(X, [-1, 1], coef=[1.0, 0.0])
    -inf
    """
    X, t = check_Xy_lenient(X, y, "margin")
    w, b = hyperplane(coef, intercept, X.shape[1])
    return geometric_margin(X, t, w, b)


def geometric_margin(X: Any, t: np.ndarray, w: np.ndarray, b: float) -> float:
    length = norm(w)
    if length == 0.0:
        return -np.inf
    smallest = finite(float(np.min(t * decision(X, w, b))), "a score w . x + b")
    return finite(smallest / length, "the margin") if smallest > 0 else -np.inf


# ---------------------------------------------------------------------- geometry
def radius(X: MatrixLike) -> float:
    """Radius ``R = max_i ||x_i||`` of the smallest origin-centred ball holding the data.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)

    Returns
    -------
    float

    Examples
    --------
    >>> from rosenblatt.theory import radius
    >>> radius([[3.0, 4.0], [1.0, 0.0]])
    5.0
    """
    X = checked_X(X)
    return finite(largest_norm(X), "the radius R = max ||x||")


def signed_distance(X: MatrixLike, coef: ArrayLike, intercept: float = 0.0) -> np.ndarray:
    """Signed distance ``f(x) / ||w||`` of each pattern from the hyperplane.

    Positive on the side ``w`` points to (the lecture notes' theorem that
    ``f(x) / ||w||`` is the signed distance from ``x`` to the decision boundary).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    coef : array-like of shape (n_features,) or (1, n_features)
        Must not be zero (a zero normal defines no hyperplane).
    intercept : float or array-like of shape (1,), default=0.0

    Returns
    -------
    ndarray of shape (n_samples,)

    Examples
    --------
    >>> from rosenblatt.theory import signed_distance
    >>> signed_distance([[3.0, 4.0], [0.0, 0.0]], coef=[3.0, 4.0], intercept=-5.0).tolist()
    [4.0, -1.0]
    """
    X = checked_X(X)
    w, b = hyperplane(coef, intercept, X.shape[1])
    return decision(X, w, b) / _nonzero_norm(w)


def _nonzero_norm(w) -> float:
    length = norm(w)
    if length == 0.0:
        raise ValueError("coef is zero, so it defines no hyperplane: give a nonzero normal.")
    return length


def distance_from_origin(coef: ArrayLike, intercept: float) -> float:
    """Signed distance ``b / ||w||`` of the origin from the hyperplane.

    It is ``signed_distance`` at ``x = 0`` (the lecture notes' theorem on the
    distance from the origin): positive when the origin lies on the side ``w``
    points to; its absolute value is the distance.

    Parameters
    ----------
    coef : array-like of shape (n_features,) or (1, n_features)
    intercept : float or array-like of shape (1,)

    Returns
    -------
    float

    Examples
    --------
    >>> from rosenblatt.theory import distance_from_origin
    >>> distance_from_origin([3.0, 4.0], -10.0)
    -2.0
    """
    w, b = hyperplane(coef, intercept)
    return b / _nonzero_norm(w)


def perceptron_risk(X: MatrixLike, y: ArrayLike, coef: ArrayLike, intercept: float = 0.0) -> float:
    """The perceptron risk of the lecture notes, ``R(w) = sum_{i in V} -t_i f(x_i)``.

    ``V`` is the set of misclassified patterns, ``t_i f(x_i) < 0``, so ``R(w)`` sums
    the :func:`~rosenblatt.theory.losses.perceptron` loss of every margin. A pattern on
    the boundary (``f(x_i) = 0``) triggers an update in the library's rule
    (``t f(x) <= 0``) but adds 0 to the risk either way, so ``R(w) = 0`` does not
    mean the perceptron has stopped: ``w = 0`` has zero risk.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two class labels, or labels in {-1, +1}.
    coef : array-like of shape (n_features,) or (1, n_features)
    intercept : float or array-like of shape (1,), default=0.0

    Returns
    -------
    float
        Non-negative; its gradient in ``w`` is ``-sum_{i in V} t_i x_i``.

    Examples
    --------
    >>> from rosenblatt.theory import perceptron_risk
    >>> X = [[1.0, 0.0], [-2.0, 0.0], [0.0, 5.0]]
    >>> perceptron_risk(X, [1, 1, -1], coef=[1.0, 0.0])  # pattern 1 costs 2, pattern 2 sits on f=0
    2.0
    """
    X, t = check_Xy_lenient(X, y, "perceptron_risk")
    w, b = hyperplane(coef, intercept, X.shape[1])
    return float(np.sum(perceptron_loss(t * decision(X, w, b))))
