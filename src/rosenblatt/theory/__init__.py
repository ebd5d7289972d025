"""The theory of the lecture notes, made executable.

Separability is decided with the linear program for separability, the largest
margin with the hard-margin quadratic program, and the Block-Novikoff mistake
bound is computed for the problem exactly as :class:`rosenblatt.Perceptron` sees
it.

Labels
------
Every function takes class labels ``y`` with two classes, mapped the way the
estimators map them: the larger label, ``np.unique(y)[1]``, becomes ``+1`` and
the other ``-1``. :func:`margin` and :func:`perceptron_risk` also accept labels
already in {-1, +1} with a single class present.

Hyperplanes
-----------
A hyperplane is ``coef`` (the normal ``w``, shape ``(n_features,)``, or a fitted
estimator's ``coef_`` of shape ``(1, n_features)``) and ``intercept`` (``b``, a
float or a one-element array), so that ``f(x) = w . x + b``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._core.config import ACTIVE_TOLERANCE, BOUND_PAD
from .._core.validation import BOOL, Interval, check_args
from ..exceptions import NotSeparableError
from ._geometry import (
    distance_from_origin,
    geometric_margin,
    margin,
    perceptron_risk,
    radius,
    signed_distance,
)
from ._inputs import (  # checked_Xy, signed_targets: the trace checks with them
    augment,
    check_Xy,
    checked_Xy,  # noqa: F401
    decision,
    signed_rows,
    signed_targets,  # noqa: F401
    squared_norms,
)
from ._separability import (  # separating_lp: used by baselines
    SeparabilityResult,
    is_linearly_separable,
    separating_lp,
)

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike, MatrixLike

__all__ = [
    "MaxMarginResult",
    "SeparabilityResult",
    "distance_from_origin",
    "is_linearly_separable",
    "margin",
    "max_margin",
    "mistake_bound",
    "perceptron_risk",
    "radius",
    "signed_distance",
]


# ---------------------------------------------------------------------- maximum margin
@dataclass(frozen=True, eq=False)
class MaxMarginResult:
    """Answer of :func:`max_margin`: the hard-margin (maximum-margin) hyperplane.

    Attributes
    ----------
    margin : float
        The data set's margin, ``1 / ||coef||`` (the hyperplane is scaled so that
        ``min_i t_i f(x_i) = 1``); equal to ``margin(X, y, coef, intercept)``.
    coef : ndarray of shape (n_features,)
    intercept : float
    support : ndarray of int
        Indices of the patterns on the margin (active constraints, within 1e-6).
    """

    margin: float
    coef: np.ndarray
    intercept: float
    support: np.ndarray


def _quiet_highs(highspy):
    """A HiGHS solver that prints nothing, its banner included.

    ``highspy.Highs()`` (1.8 and later) prints HiGHS's copyright banner as it is
    built, before any option can be set, so the demo, the report and the
    ``inspect`` command would print it; its C++ base class, built with
    ``output_flag`` off before anything else, stays silent and solves the same.
    """
    solver_class = next(
        (base for base in highspy.Highs.__mro__ if base.__name__ == "_Highs"), highspy.Highs
    )
    solver = solver_class()
    solver.setOptionValue("output_flag", False)
    return solver


def _hard_margin_qp(X, t, fit_intercept: bool) -> MaxMarginResult:
    """Solve ``min ||w||^2 / 2  s.t.  t_i (w . x_i + b) >= 1`` with HiGHS.

    The data must be separable (else the QP is infeasible).
    """
    import highspy  # imported here: only the margin computations need it

    n_samples, n_features = X.shape
    rows = signed_rows(X, t, fit_intercept).tocsc()
    n_vars = rows.shape[1]
    inf = highspy.kHighsInf

    lp = highspy.HighsLp()
    lp.num_col_ = n_vars
    lp.num_row_ = n_samples
    lp.col_cost_ = np.zeros(n_vars)
    lp.col_lower_ = np.full(n_vars, -inf)
    lp.col_upper_ = np.full(n_vars, inf)
    lp.row_lower_ = np.ones(n_samples)
    lp.row_upper_ = np.full(n_samples, inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = n_vars
    lp.a_matrix_.num_row_ = n_samples
    lp.a_matrix_.start_ = rows.indptr.astype(np.int32)
    lp.a_matrix_.index_ = rows.indices.astype(np.int32)
    lp.a_matrix_.value_ = rows.data

    # Hessian: identity on w, nothing on b (lower triangle, column-wise).
    hessian = highspy.HighsHessian()
    hessian.dim_ = n_vars
    hessian.format_ = highspy.HessianFormat.kTriangular
    starts = np.arange(n_features + 1), np.full(n_vars - n_features, n_features)
    hessian.start_ = np.concatenate(starts).astype(np.int32)
    hessian.index_ = np.arange(n_features, dtype=np.int32)
    hessian.value_ = np.ones(n_features)

    solver = _quiet_highs(highspy)
    solver.passModel(lp)
    solver.passHessian(hessian)
    solver.run()
    status = solver.getModelStatus()
    if status == highspy.HighsModelStatus.kOptimal:
        x = np.asarray(solver.getSolution().col_value, dtype=np.float64)
    else:
        # HiGHS's active-set QP gives up on large problems (its null space grows with
        # the number of free directions, e.g. thousands of text features); an
        # interior-point solver handles them in seconds, to about 1e-10.
        x = _interior_point_qp(rows, n_features, solver.modelStatusToString(status))
    w = x[:n_features]
    b = float(x[n_features]) if fit_intercept else 0.0
    functional = t * decision(X, w, b)
    smallest = float(functional.min())
    if not smallest > 0:
        raise RuntimeError("The hard-margin QP returned a hyperplane that does not separate.")
    # Canonical scaling: the closest pattern has t f(x) = 1, so margin = 1/||w||.
    w, b, functional = w / smallest, b / smallest, functional / smallest
    support = np.flatnonzero(functional <= 1.0 + ACTIVE_TOLERANCE)
    return MaxMarginResult(geometric_margin(X, t, w, b), w, b, support)


def _interior_point_qp(rows, n_features: int, highs_status: str) -> np.ndarray:
    """Solve the hard-margin QP ``min ||w||^2 / 2  s.t.  rows @ x >= 1`` with Clarabel."""
    import clarabel  # imported here: only large margin computations need it
    import scipy.sparse as sp

    n_rows, n_vars = rows.shape
    hessian = sp.diags(np.r_[np.ones(n_features), np.zeros(n_vars - n_features)]).tocsc()
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    solution = clarabel.DefaultSolver(
        hessian,
        np.zeros(n_vars),
        (-rows).tocsc(),
        -np.ones(n_rows),
        [clarabel.NonnegativeConeT(n_rows)],
        settings,
    ).solve()
    if str(solution.status) != "Solved":
        raise RuntimeError(
            f"The hard-margin QP was not solved: HiGHS says {highs_status}, Clarabel says "
            f"{solution.status}. The data may be too large or too badly scaled for an exact "
            "margin; try a subset or rescale the features."
        )
    return np.asarray(solution.x, dtype=np.float64)


def _not_separable(lp: SeparabilityResult, fit_intercept: bool, owner: str):
    shown = lp.violators[:10].tolist()
    more = "" if lp.violators.shape[0] <= 10 else ", ..."
    where = "with an intercept" if fit_intercept else "through the origin"
    return NotSeparableError(
        f"{owner}: the data are not linearly separable ({where}), so no hard-margin "
        f"hyperplane exists. The separability LP needs a total slack of {lp.total_slack:.6g}, "
        f"spread over patterns {shown}{more}. Use a soft-margin method, remove the "
        "overlapping patterns, or add features (e.g. x1*x2 makes XOR separable)."
    )


def max_margin(X: MatrixLike, y: ArrayLike, fit_intercept: bool = True) -> MaxMarginResult:
    """The maximum-margin hyperplane and the data set's margin.

    Solves the hard-margin SVM problem ``min ||w||^2 / 2`` subject to
    ``t_i (w . x_i + b) >= 1`` with the HiGHS QP solver (``highspy``); the
    margin of the data set (the largest margin of any hyperplane, ``margin(S)`` in
    the lecture notes) is then ``1 / ||w||``.
    Separability is checked with :func:`is_linearly_separable` first.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two class labels; ``np.unique(y)[1]`` is the positive class.
    fit_intercept : bool, default=True
        With False the hyperplane passes through the origin (homogeneous).

    Returns
    -------
    MaxMarginResult
        ``.margin``, ``.coef``, ``.intercept`` and ``.support``.

    Raises
    ------
    rosenblatt.exceptions.NotSeparableError
        If the data are not linearly separable.

    Examples
    --------
    >>> from rosenblatt.theory import max_margin
    >>> res = max_margin([[0.0, 0.0], [4.0, 0.0]], [0, 1])
    >>> round(res.margin, 6), res.coef.round(6).tolist(), round(res.intercept, 6)
    (2.0, [0.5, 0.0], -1.0)
    >>> res.support.tolist()
    [0, 1]
    """
    check_args("max_margin", {"fit_intercept": [BOOL]}, locals())
    X, t = check_Xy(X, y, "max_margin")
    fit_intercept = bool(fit_intercept)
    lp = separating_lp(X, t, fit_intercept)
    if not lp:
        raise _not_separable(lp, fit_intercept, "max_margin")
    return _hard_margin_qp(X, t, fit_intercept)


# ---------------------------------------------------------------------- mistake bound
def mistake_bound(
    X: MatrixLike, y: ArrayLike, fit_intercept: bool = True, intercept_scaling: float = 1.0
) -> float:
    """Block-Novikoff bound ``(R / gamma)^2`` on the perceptron's number of updates.

    Computed for the problem exactly as :class:`rosenblatt.Perceptron` sees it.
    With an intercept every pattern is augmented to ``(x, intercept_scaling)``
    and the perceptron learns a hyperplane through the origin of that augmented
    space, so ``R = max_i ||(x_i, s)||`` and ``gamma`` is the largest margin of
    a homogeneous separator there. Without an intercept both are taken on
    ``X`` itself. Starting from zero weights, the online perceptron then makes
    at most this many updates for any ``eta > 0`` and any presentation order.

    ``gamma`` is the geometric margin of the separator the QP returns, which can
    only be smaller than the exact maximum, so the bound can only be larger.
    It is computed from squares, ``R^2 ||w||^2 / min_i (t_i w . x_i)^2``, and
    rounded up by a relative 1e-9, so float rounding never makes it too small;
    but as it bounds a count, a value within 1e-9 of an integer is that integer,
    so exact data give the exact number (the notes' modified OR problem: 9).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two class labels.
    fit_intercept : bool, default=True
    intercept_scaling : float, default=1.0
        The constant input appended to each pattern (``Perceptron``'s parameter
        of the same name); must be positive.

    Returns
    -------
    float

    Raises
    ------
    rosenblatt.exceptions.NotSeparableError
        If the (augmented) data are not linearly separable through the origin:
        the perceptron then never stops and no bound exists.

    Examples
    --------
    >>> from rosenblatt.theory import mistake_bound
    >>> X = [[1.0, 0.0], [-1.0, 0.0]]
    >>> round(mistake_bound(X, [1, -1], fit_intercept=False), 6)  # R = gamma = 1
    1.0
    >>> round(mistake_bound(X, [1, -1]), 6)  # augmented: R^2 = 2, gamma = 1
    2.0
    >>> mistake_bound([[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1])  # the notes' OR
    9.0
    """
    return _novikoff(X, y, fit_intercept, intercept_scaling, "mistake_bound").bound


@dataclass(frozen=True)
class _Novikoff:
    """The bound ``(R / gamma)^2`` and the ``R`` and ``gamma`` that give it (augmented
    patterns with an intercept, as :func:`mistake_bound` explains)."""

    radius: float
    margin: float
    bound: float


def _novikoff(X, y, fit_intercept=True, intercept_scaling=1.0, owner="mistake_bound"):
    """:func:`mistake_bound` with its ingredients (``rosenblatt inspect`` shows them)."""
    check_args(
        owner,
        {
            "fit_intercept": [BOOL],
            "intercept_scaling": [Interval(numbers.Real, 0, None, closed="neither")],
        },
        locals(),
    )
    X, t = check_Xy(X, y, owner)
    if fit_intercept:
        X = augment(X, float(intercept_scaling))
    lp = separating_lp(X, t, fit_intercept=False)
    if not lp:
        raise _not_separable(lp, bool(fit_intercept), owner)
    w = _hard_margin_qp(X, t, fit_intercept=False).coef
    R2, w2 = float(np.max(squared_norms(X))), float(w @ w)
    closest = float(np.min(t * decision(X, w, 0.0)))  # gamma = closest / ||w||
    raw = R2 * w2 / closest**2  # (R / gamma)^2 from squares: no square root to round
    # Float rounding may put raw a few ulps off the exact value, so it is padded up by
    # BOUND_PAD: then it is never too small. Except next to an integer n: the number of
    # updates is an integer k <= (R / gamma)^2, and an exact value within BOUND_PAD of n
    # allows no more than n updates, so n is as safe a bound for k, and exact data give
    # their exact bound (the notes' modified OR problem: 9, not 9.000000009).
    n = round(raw)
    bound = float(n) if abs(raw - n) <= BOUND_PAD * raw else raw * (1.0 + BOUND_PAD)
    return _Novikoff(float(np.sqrt(R2)), closest / float(np.sqrt(w2)), bound)
