"""Input checks and small linear-algebra helpers shared by :mod:`rosenblatt.theory`.

Kept apart from the solvers so that :mod:`rosenblatt.theory.trace` can check its data
without importing scikit-learn or a solver.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.sparse import is_sparse
from .._core.validation import check_classes, checked_X, checked_Xy
from ..engine.overflow import largest_magnitude
from ..engine.targets import TargetCoding
from ..exceptions import NumericOverflowError

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike, MatrixLike


def signed_targets(y: ArrayLike, owner: str) -> np.ndarray:
    """Map two class labels to -1/+1 (``np.unique(y)[1]`` -> +1, the binary
    :class:`~rosenblatt.engine.targets.TargetCoding`).

    Parameters
    ----------
    y : array of shape (n_samples,)
        Labels of at most two classes.
    owner : str
        The function named in the error message when ``y`` has more classes.

    Returns
    -------
    ndarray of shape (n_samples,)
        +1.0 for the larger class label, -1.0 for the other.
    """
    classes = check_classes(y, owner)
    if classes.shape[0] > 2:
        raise ValueError(
            f"{owner} works on two classes; y has {classes.shape[0]}: {classes.tolist()!r}. "
            "For several classes, study each class against the rest (one-vs-rest)."
        )
    return TargetCoding.binary(classes).signed(y)[0]


def check_Xy(X: MatrixLike, y: ArrayLike, owner: str) -> tuple[Any, np.ndarray]:
    """Validate a binary problem; return float64 X (dense or CSR) and ±1 targets."""
    X, y = checked_Xy(X, y)
    return X, signed_targets(y, owner)


def check_Xy_lenient(X: MatrixLike, y: ArrayLike, owner: str) -> tuple[Any, np.ndarray]:
    """Like :func:`check_Xy`, but labels already in {-1, +1} may hold one class."""
    from sklearn.utils import column_or_1d

    X = checked_X(X)
    labels = column_or_1d(y, warn=True)
    if labels.shape[0] != X.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} samples but y has {labels.shape[0]}; give one label per sample."
        )
    if labels.dtype.kind == "f" and not np.all(np.isfinite(labels)):
        raise ValueError("Input y contains NaN or infinity; give finite class labels.")
    if labels.dtype.kind in "iuf" and np.all(np.isin(labels, (-1, 1))):
        return X, labels.astype(np.float64)
    return X, signed_targets(labels, owner)


def hyperplane(
    coef: ArrayLike, intercept: ArrayLike, n_features: int | None = None
) -> tuple[np.ndarray, float]:
    """Return ``(w, b)`` as a 1-D float64 array and a float."""
    w = np.asarray(coef, dtype=np.float64)
    if w.ndim == 2 and w.shape[0] == 1:
        w = w[0]
    if w.ndim != 1:
        raise ValueError(
            f"coef must be 1-D (n_features,) or a single row (1, n_features); got shape "
            f"{np.shape(coef)}. For a multi-class model pass one row of coef_."
        )
    b = np.asarray(intercept, dtype=np.float64).ravel()
    if b.shape[0] != 1:
        raise ValueError(f"intercept must be a number or a one-element array; got {intercept!r}.")
    if not (np.all(np.isfinite(w)) and np.isfinite(b[0])):
        raise ValueError("coef and intercept must be finite (no NaN or infinity).")
    if n_features is not None and w.shape[0] != n_features:
        raise ValueError(f"coef has {w.shape[0]} entries but X has {n_features} features.")
    return w, float(b[0])


def decision(X: Any, w: np.ndarray, b: float) -> np.ndarray:
    return np.asarray(X @ w).ravel() + b


def squared_norms(X: Any) -> np.ndarray:
    """``||x_i||^2`` of every row (dense or CSR)."""
    if is_sparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def signed_rows(X: Any, t: np.ndarray, fit_intercept: bool) -> Any:
    """The LP/QP constraint rows ``t_i * [x_i, 1]`` as a sparse CSR matrix."""
    import scipy.sparse as sp

    rows = sp.diags(t) @ sp.csr_matrix(X)
    if fit_intercept:
        rows = sp.hstack([rows, sp.csr_matrix(t[:, np.newaxis])], format="csr")
    return sp.csr_matrix(rows)


def augment(X: Any, value: float) -> Any:
    """Append the constant input ``value`` to every pattern (dense or CSR)."""
    column = np.full((X.shape[0], 1), value)
    if is_sparse(X):
        import scipy.sparse as sp

        return sp.hstack([X, sp.csr_matrix(column)], format="csr")
    return np.hstack([X, column])


#: Points whose largest |x| lies in [2**-SCALE_EXPONENT, 2**SCALE_EXPONENT] are solved and
#: measured as they are; others are first divided by a power of two (exactly: only the
#: exponent changes) that brings them near 1. HiGHS takes coefficients beyond about 1e15 as
#: infinite and drops those below 1e-9 as zero, and squares overflow beyond 1e154: scaled,
#: the same points give the same answers at any scale (separability, the direction of the
#: maximum-margin hyperplane and the ratio R / gamma do not depend on the scale).
SCALE_EXPONENT = 20


def power_of_two_scale(X: Any) -> float:
    """The power of two the theory divides ``X`` by before solving or squaring, so that the
    largest ``|x|`` becomes at least 1 and below 2 (1.0 for points of ordinary size, whose
    answers then stay bit for bit what they were).

    Examples
    --------
    >>> power_of_two_scale(np.array([[3.0, -1.0]])), power_of_two_scale(np.array([[3e6]]))
    (1.0, 2097152.0)
    """
    largest = largest_magnitude(X)
    if largest == 0.0 or 2.0**-SCALE_EXPONENT <= largest <= 2.0**SCALE_EXPONENT:
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(largest)[1]) - 1))


def scaled(X: Any, scale: float) -> Any:
    """``X / scale`` for a power of two ``scale``: exact (a copy; ``X`` itself for 1)."""
    if scale == 1.0:
        return X
    exponent = -(int(np.frexp(scale)[1]) - 1)
    if is_sparse(X):
        X = X.copy()
        X.data = np.ldexp(X.data, exponent)
        return X
    return np.ldexp(X, exponent)


def finite(value: float, what: str) -> float:
    """``value``, refused with :class:`~rosenblatt.exceptions.NumericOverflowError` when it
    left the float range (an inf or NaN), naming ``what`` and the fix.

    Examples
    --------
    >>> finite(2.0, "R")
    2.0
    """
    if not np.isfinite(value):
        raise NumericOverflowError(
            f"{what} is beyond the float range (it came out as {value}): the points are "
            "too large for it to be a number. Put the features on a smaller scale (e.g. "
            "divide them by a power of ten) and ask again."
        )
    return float(value)


def norm(v: np.ndarray) -> float:
    """The Euclidean norm of ``v`` without overflow or underflow of its squares (the exact
    ``np.linalg.norm`` when the entries are of ordinary size)."""
    scale = power_of_two_scale(v)
    return scale * float(np.linalg.norm(scaled(v, scale)))


def largest_norm(X: Any) -> float:
    """``max_i ||x_i||`` without overflow of the squares (the radius ``R``)."""
    scale = power_of_two_scale(X)
    return scale * float(np.sqrt(np.max(squared_norms(scaled(X, scale)))))
