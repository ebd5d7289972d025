"""The hard-margin quadratic program, solved with HiGHS or Clarabel, and :class:`SolverError`,
raised when a solver gives no usable answer (re-exported by :mod:`rosenblatt.theory`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.config import ACTIVE_TOLERANCE, QP_ACTIVE_SET_MAX_VARIABLES
from ..exceptions import SolverError
from ._geometry import geometric_margin
from ._inputs import decision, power_of_two_scale, scaled, signed_rows

if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType


@dataclass(frozen=True, eq=False)
class MaxMarginResult:
    """Answer of :func:`~rosenblatt.theory.max_margin`: the hard-margin (maximum-margin) hyperplane.

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


def quiet_highs(highspy: ModuleType) -> Any:
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


def hard_margin_qp(X: Any, t: np.ndarray, fit_intercept: bool) -> MaxMarginResult:
    """Solve ``min ||w||^2 / 2  s.t.  t_i (w . x_i + b) >= 1`` with HiGHS (more than
    ``QP_ACTIVE_SET_MAX_VARIABLES`` variables, or where HiGHS gives up: with Clarabel).

    The data must be separable (else the QP is infeasible).
    """
    import highspy  # imported here: only the margin computations need it

    n_samples, n_features = X.shape
    scale = power_of_two_scale(X)  # solved on points near 1: the same answer at any scale
    rows = signed_rows(scaled(X, scale), t, fit_intercept).tocsc()
    n_vars = rows.shape[1]
    if n_vars > QP_ACTIVE_SET_MAX_VARIABLES:
        x = interior_point_qp(rows, n_features, f"not asked ({n_vars:,} variables)")
        return _canonical(X, t, x, n_features, fit_intercept, scale)
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

    solver = quiet_highs(highspy)
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
        x = interior_point_qp(rows, n_features, solver.modelStatusToString(status))
    return _canonical(X, t, x, n_features, fit_intercept, scale)


def _canonical(
    X: Any, t: np.ndarray, x: np.ndarray, n_features: int, fit_intercept: bool, scale: float
) -> MaxMarginResult:
    """The result of a solution ``x = (w, b)`` for the points divided by ``scale``, scaled
    so that the closest pattern has ``t f(x) = 1``; checked to separate."""
    w = x[:n_features] / scale
    b = float(x[n_features]) if fit_intercept else 0.0
    functional = t * decision(X, w, b)
    smallest = float(functional.min())
    if not smallest > 0:
        # the caller's LP found a separating hyperplane, so the QP is feasible: its
        # answer failing to separate is a numerical failure, not a fact about the data
        raise SolverError(
            "The hard-margin QP returned a hyperplane that does not separate the data "
            f"(smallest t_i f(x_i) = {smallest:.3g}), although the data are separable: "
            "the solver's tolerance is too coarse for them. Rescale the features (e.g. "
            "to unit variance) or remove near-duplicate patterns of opposite classes, "
            "and try again."
        )
    # Canonical scaling: the closest pattern has t f(x) = 1, so margin = 1/||w||.
    w, b, functional = w / smallest, b / smallest, functional / smallest
    support = np.flatnonzero(functional <= 1.0 + ACTIVE_TOLERANCE)
    return MaxMarginResult(geometric_margin(X, t, w, b), w, b, support)


def interior_point_qp(rows: Any, n_features: int, highs_status: str) -> np.ndarray:
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
        raise SolverError(
            f"The hard-margin QP was not solved: HiGHS says {highs_status}, Clarabel says "
            f"{solution.status}. The data may be too large or too badly scaled for an exact "
            "margin; try a subset or rescale the features."
        )
    return np.asarray(solution.x, dtype=np.float64)
