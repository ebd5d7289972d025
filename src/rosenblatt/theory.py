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

from ._config import ACTIVE_TOLERANCE, BOUND_PAD, SLACK_TOLERANCE
from ._invariants import is_sparse
from ._validation import BOOL, Interval, check_args, check_classes, check_not_empty
from .engine.targets import TargetCoding
from .exceptions import NotSeparableError

if TYPE_CHECKING:  # pragma: no cover
    from ._typing import ArrayLike, MatrixLike

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


# ---------------------------------------------------------------------- validation
def signed_targets(y, owner: str) -> np.ndarray:
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


# The command line's readers hand over float64 arrays (or CSR matrices) of finite
# numbers and 1-D label arrays: exactly what scikit-learn's checks return. Those are
# taken as they are, so that `rosenblatt inspect` and `trace` do not import
# scikit-learn (which takes longer than their whole computation); any other input,
# and every error message, still goes through scikit-learn's checks.
def _ready_X(X) -> bool:
    """Whether ``check_array(X, accept_sparse="csr", dtype=np.float64)`` would return X as is."""
    if is_sparse(X):
        if X.format != "csr":
            return False
        values = X.data
    elif type(X) is np.ndarray and X.ndim == 2:
        values = X
    else:
        return False
    return X.dtype == np.float64 and min(X.shape) > 0 and bool(np.isfinite(values).all())


def _ready_y(y, n_samples: int) -> bool:
    """Whether ``check_X_y`` would return the labels ``y`` as they are."""
    if type(y) is not np.ndarray or y.ndim != 1 or y.shape[0] != n_samples:
        return False
    return y.dtype.kind in "biuUS" or (y.dtype.kind == "f" and bool(np.isfinite(y).all()))


def checked_Xy(X, y):
    """Float64 X (dense or CSR) with at least one sample and feature, and 1-D labels y.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Patterns; arrays the readers return are taken as they are (no scikit-learn).
    y : array-like of shape (n_samples,)
        Labels.

    Returns
    -------
    X : ndarray or csr_matrix of float64
    y : ndarray of shape (n_samples,)
    """
    if not (_ready_X(X) and _ready_y(y, X.shape[0])):
        from sklearn.utils import check_X_y

        X, y = check_X_y(X, y, accept_sparse="csr", dtype=np.float64)
    check_not_empty(X)
    return X, y


def _check_Xy(X, y, owner: str):
    """Validate a binary problem; return float64 X (dense or CSR) and ±1 targets."""
    X, y = checked_Xy(X, y)
    return X, signed_targets(y, owner)


def _check_X(X):
    if not _ready_X(X):
        from sklearn.utils import check_array

        X = check_array(X, accept_sparse="csr", dtype=np.float64)
    check_not_empty(X)
    return X


def _check_Xy_lenient(X, y, owner: str):
    """Like :func:`_check_Xy`, but labels already in {-1, +1} may hold one class."""
    from sklearn.utils import column_or_1d

    X = _check_X(X)
    y = column_or_1d(y, warn=True)
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} samples but y has {y.shape[0]}; give one label per sample."
        )
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("Input y contains NaN or infinity; give finite class labels.")
    if y.dtype.kind in "iuf" and np.all(np.isin(y, (-1, 1))):
        return X, y.astype(np.float64)
    return X, signed_targets(y, owner)


def _hyperplane(coef, intercept, n_features: int | None = None):
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


def _decision(X, w, b) -> np.ndarray:
    return np.asarray(X @ w).ravel() + b


def _squared_norms(X) -> np.ndarray:
    """``||x_i||^2`` of every row (dense or CSR)."""
    if is_sparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def _signed_rows(X, t, fit_intercept: bool):
    """The LP/QP constraint rows ``t_i * [x_i, 1]`` as a sparse CSR matrix."""
    import scipy.sparse as sp

    rows = sp.diags(t) @ sp.csr_matrix(X)
    if fit_intercept:
        rows = sp.hstack([rows, sp.csr_matrix(t[:, np.newaxis])], format="csr")
    return sp.csr_matrix(rows)


def _augment(X, value: float):
    """Append the constant input ``value`` to every pattern (dense or CSR)."""
    column = np.full((X.shape[0], 1), value)
    if is_sparse(X):
        import scipy.sparse as sp

        return sp.hstack([X, sp.csr_matrix(column)], format="csr")
    return np.hstack([X, column])


# ---------------------------------------------------------------------- separability
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


def separating_lp(X, t, fit_intercept: bool) -> SeparabilityResult:
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
    rows = _signed_rows(X, t, fit_intercept)
    n_free = rows.shape[1]
    A_ub = -sp.hstack([rows, sp.eye(n_samples, format="csr")], format="csc")
    cost = np.concatenate([np.zeros(n_free), np.ones(n_samples)])
    bounds = [(None, None)] * n_free + [(0, None)] * n_samples
    res = linprog(cost, A_ub=A_ub, b_ub=-np.ones(n_samples), bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"The separability LP was not solved: {res.message}")
    w = np.asarray(res.x[:n_features], dtype=np.float64)
    b = float(res.x[n_features]) if fit_intercept else 0.0
    # Trust the data, not the solver's tolerance: separable iff this hyperplane separates.
    separable = bool(np.all(t * _decision(X, w, b) > 0))
    if separable:
        return SeparabilityResult(True, w, b, 0.0, np.empty(0, dtype=np.intp))
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
    X, t = _check_Xy(X, y, "is_linearly_separable")
    return separating_lp(X, t, bool(fit_intercept))


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
    X, t = _check_Xy_lenient(X, y, "margin")
    w, b = _hyperplane(coef, intercept, X.shape[1])
    return _geometric_margin(X, t, w, b)


def _geometric_margin(X, t, w, b) -> float:
    norm = float(np.linalg.norm(w))
    if norm == 0.0:
        return -np.inf
    smallest = float(np.min(t * _decision(X, w, b)))
    return float(smallest / norm) if smallest > 0 else -np.inf


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
    rows = _signed_rows(X, t, fit_intercept).tocsc()
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
    functional = t * _decision(X, w, b)
    smallest = float(functional.min())
    if not smallest > 0:
        raise RuntimeError("The hard-margin QP returned a hyperplane that does not separate.")
    # Canonical scaling: the closest pattern has t f(x) = 1, so margin = 1/||w||.
    w, b, functional = w / smallest, b / smallest, functional / smallest
    support = np.flatnonzero(functional <= 1.0 + ACTIVE_TOLERANCE)
    return MaxMarginResult(_geometric_margin(X, t, w, b), w, b, support)


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
    X, t = _check_Xy(X, y, "max_margin")
    fit_intercept = bool(fit_intercept)
    lp = separating_lp(X, t, fit_intercept)
    if not lp:
        raise _not_separable(lp, fit_intercept, "max_margin")
    return _hard_margin_qp(X, t, fit_intercept)


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
    X = _check_X(X)
    return float(np.sqrt(np.max(_squared_norms(X))))


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
    X = _check_X(X)
    w, b = _hyperplane(coef, intercept, X.shape[1])
    return _decision(X, w, b) / _nonzero_norm(w)


def _nonzero_norm(w) -> float:
    norm = float(np.linalg.norm(w))
    if norm == 0.0:
        raise ValueError("coef is zero, so it defines no hyperplane: give a nonzero normal.")
    return norm


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
    w, b = _hyperplane(coef, intercept)
    return b / _nonzero_norm(w)


def perceptron_risk(X: MatrixLike, y: ArrayLike, coef: ArrayLike, intercept: float = 0.0) -> float:
    """The perceptron risk of the lecture notes, ``R(w) = sum_{i in V} -t_i f(x_i)``.

    ``V`` is the set of misclassified patterns, ``t_i f(x_i) < 0``. A pattern on
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
    X, t = _check_Xy_lenient(X, y, "perceptron_risk")
    w, b = _hyperplane(coef, intercept, X.shape[1])
    return float(np.sum(np.maximum(0.0, -t * _decision(X, w, b))))


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
    X, t = _check_Xy(X, y, owner)
    if fit_intercept:
        X = _augment(X, float(intercept_scaling))
    lp = separating_lp(X, t, fit_intercept=False)
    if not lp:
        raise _not_separable(lp, bool(fit_intercept), owner)
    w = _hard_margin_qp(X, t, fit_intercept=False).coef
    R2, w2 = float(np.max(_squared_norms(X))), float(w @ w)
    closest = float(np.min(t * _decision(X, w, 0.0)))  # gamma = closest / ||w||
    raw = R2 * w2 / closest**2  # (R / gamma)^2 from squares: no square root to round
    # Float rounding may put raw a few ulps off the exact value, so it is padded up by
    # BOUND_PAD: then it is never too small. Except next to an integer n: the number of
    # updates is an integer k <= (R / gamma)^2, and an exact value within BOUND_PAD of n
    # allows no more than n updates, so n is as safe a bound for k, and exact data give
    # their exact bound (the notes' modified OR problem: 9, not 9.000000009).
    n = round(raw)
    bound = float(n) if abs(raw - n) <= BOUND_PAD * raw else raw * (1.0 + BOUND_PAD)
    return _Novikoff(float(np.sqrt(R2)), closest / float(np.sqrt(w2)), bound)
