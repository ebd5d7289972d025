"""Linear separability, decided by the lecture notes' linear program
(re-exported by :mod:`rosenblatt.theory`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._core.config import HIGHS_SMALLEST, SLACK_TOLERANCE
from .._core.validation import BOOL, check_args
from ._inputs import check_Xy, decision, power_of_two_scale, scaled, signed_rows
from ._solvers import SolverError

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sp

    from .._core.typing import ArrayLike, MatrixLike


@dataclass(frozen=True, eq=False)
class SeparabilityResult:
    """Answer of :func:`is_linearly_separable`; truthy when the data are separable.

    Attributes
    ----------
    separable : bool
        Whether ``coef`` and ``intercept`` separate every pattern strictly
        (checked on the data, not just taken from the solver).
    coef : ndarray of shape (n_features,)
        Normal of the LP's hyperplane; when separable, ``t_i f(x_i) >= 1`` up to
        solver tolerance.
    intercept : float
        Its intercept (0.0 without ``fit_intercept``).
    total_slack : float
        Least total slack ``sum_i xi_i`` of the soft LP (0.0 when separable).
    violators : ndarray of int
        Indices of the patterns with positive slack in the LP solution found
        (empty when separable). Another optimal solution may list other ones.
    """

    separable: bool
    coef: np.ndarray
    intercept: float
    total_slack: float
    violators: np.ndarray

    def __bool__(self) -> bool:
        return self.separable


def separating_lp(
    X: np.ndarray | sp.csr_matrix, t: np.ndarray, fit_intercept: bool
) -> SeparabilityResult:
    """Solve the separability LP, softened by slacks so that it is always feasible.

    ``min sum xi_i  s.t.  t_i (w . x_i + b) >= 1 - xi_i, xi_i >= 0`` with ``w``
    and ``b`` free. Its optimum is 0 exactly when the plain LP (all slacks 0)
    is feasible, i.e. when the data are linearly separable.

    Parameters
    ----------
    X : ndarray or csr_matrix of float64, shape (n_samples, n_features)
        Patterns, as :func:`checked_Xy` returns them.
    t : ndarray of shape (n_samples,)
        Targets in {-1, +1}, as :func:`signed_targets` returns them.
    fit_intercept : bool
        Whether the plane may leave the origin (``b`` free) or not (``b = 0``).

    Returns
    -------
    SeparabilityResult
    """
    import scipy.sparse as sp
    from scipy.optimize import linprog  # imported here: the trace needs no solver

    n_samples, n_features = X.shape
    scale = power_of_two_scale(X)  # solved on points near 1: the same answer at any scale
    rows = signed_rows(scaled(X, scale), t, fit_intercept)
    n_free = rows.shape[1]
    A_ub = -sp.hstack([rows, sp.eye(n_samples, format="csr")], format="csc")
    cost = np.concatenate([np.zeros(n_free), np.ones(n_samples)])
    bounds = [(None, None)] * n_free + [(0, None)] * n_samples
    res = linprog(cost, A_ub=A_ub, b_ub=-np.ones(n_samples), bounds=bounds, method="highs")
    if res.status != 0:
        raise SolverError(
            f"The separability LP was not solved ({res.message}). The data may be too large "
            "or too badly scaled for HiGHS; rescale the features or try a subset."
        )
    w = np.asarray(res.x[:n_features], dtype=np.float64) / scale
    b = float(res.x[n_features]) if fit_intercept else 0.0
    # Trust the data, not the solver's tolerance: separable iff this hyperplane separates.
    separable = bool(np.all(t * decision(X, w, b) > 0))
    if separable:
        return SeparabilityResult(True, w, b, 0.0, np.empty(0, dtype=np.intp))
    small = np.abs(rows.data)
    if np.any(small[small > 0] < HIGHS_SMALLEST):
        # HiGHS reads such a coefficient as 0: it solved another problem than these points'
        raise SolverError(
            "The separability LP cannot decide these points: some coordinates are more than "
            f"{1 / HIGHS_SMALLEST:.0e} times smaller than the largest, and HiGHS reads them as "
            "0. Rescale the features so that they span fewer orders of magnitude."
        )
    slack = res.x[n_free:]
    violators = np.flatnonzero(slack > SLACK_TOLERANCE)
    return SeparabilityResult(False, w, b, float(slack.sum()), violators)


def is_linearly_separable(
    X: MatrixLike, y: ArrayLike, fit_intercept: bool = True
) -> SeparabilityResult:
    """Decide linear separability with a linear program (the lecture notes' LP formulation).

    Looks for ``w`` and ``b`` with ``t_i (w . x_i + b) >= 1`` for every pattern,
    solved with HiGHS (``scipy.optimize.linprog(method="highs")``). Each slack
    ``xi_i >= 0`` relaxes one constraint and the LP minimises their sum: the
    data are separable exactly when that minimum is zero, and otherwise the
    result reports the least total slack and the patterns that need it.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Patterns; the constraint matrix is built sparsely either way.
    y : array-like of shape (n_samples,)
        Two class labels; ``np.unique(y)[1]`` is the positive class.
    fit_intercept : bool, default=True
        Allow an intercept ``b``; with False the hyperplane passes through the origin.

    Returns
    -------
    SeparabilityResult
        Truthy when separable, with ``.separable``, ``.coef``, ``.intercept``,
        ``.total_slack`` and ``.violators``.

    Raises
    ------
    SolverError
        If HiGHS does not solve the LP (very large or badly scaled data).

    Examples
    --------
    >>> import numpy as np
    >>> from rosenblatt.theory import is_linearly_separable
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> bool(is_linearly_separable(X, [0, 1, 1, 1]))  # OR
    True
    >>> xor = is_linearly_separable(X, [0, 1, 1, 0])
    >>> xor.separable, xor.total_slack > 0, len(xor.violators) > 0
    (False, True, True)
    """
    check_args("is_linearly_separable", {"fit_intercept": [BOOL]}, locals())
    X, t = check_Xy(X, y, "is_linearly_separable")
    return separating_lp(X, t, bool(fit_intercept))
