"""The theory of the lecture notes, made executable.

Separability is decided with the linear program for separability, the largest
margin with the hard-margin quadratic program, and the perceptron's mistake
bounds (Block and Novikoff's, the notes' own proof's, and the unit-norm form)
are computed for the problem exactly as :class:`rosenblatt.Perceptron` sees it.
The 0-1 loss, its surrogates and the notes' least-squares counterexample are in
:mod:`rosenblatt.theory.losses`, re-exported here, and the notes' XOR feature map
``(x1, x2, x1 x2, x1^2, x2^2)`` is :func:`notes_feature_map`.

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

from .._core.config import BOUND_PAD
from .._core.validation import BOOL, Interval, check_args
from ..exceptions import NotSeparableError
from . import losses
from ._geometry import (
    distance_from_origin,
    margin,
    perceptron_risk,
    radius,
    signed_distance,
)
from ._inputs import (  # signed_targets: the trace checks with it
    augment,
    check_Xy,
    decision,
    finite,
    power_of_two_scale,
    scaled,
    signed_targets,  # noqa: F401
    squared_norms,
)
from ._separability import (  # separating_lp: used by baselines
    SeparabilityResult,
    is_linearly_separable,
    separating_lp,
)
from ._solvers import MaxMarginResult, SolverError, hard_margin_qp
from .feature_maps import NOTES_FEATURE_NAMES, notes_feature_map
from .losses import (
    FORMULAS,
    LOSSES,
    SURROGATES,
    LeastSquaresResult,
    hinge,
    least_squares_classifier,
    logistic,
    perceptron,
    squared,
    zero_one,
)

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike, MatrixLike

__all__ = [
    "FORMULAS",
    "LOSSES",
    "MARGINS",
    "SURROGATES",
    "LeastSquaresResult",
    "MaxMarginResult",
    "MistakeBounds",
    "NOTES_FEATURE_NAMES",
    "SeparabilityResult",
    "SolverError",
    "distance_from_origin",
    "hinge",
    "is_linearly_separable",
    "least_squares_classifier",
    "logistic",
    "losses",
    "margin",
    "max_margin",
    "mistake_bound",
    "mistake_bounds",
    "notes_feature_map",
    "perceptron",
    "perceptron_risk",
    "radius",
    "signed_distance",
    "squared",
    "zero_one",
]


#: The three margins of a separable data set, in the notes' words: key -> (name, what it
#: is, the bound it enters). ``rosenblatt inspect``, the plots and the playground name
#: every margin they show with these. On the notes' modified OR problem they are
#: ``1/sqrt(2)``, ``1/sqrt(3)`` (``R = sqrt(3)``) and ``1/3``.
MARGINS = {
    "geometric": (
        "the separator's geometric margin",
        "margin(D) = max over separators w . x + b of the distance from the line to the "
        "nearest pattern (max_margin)",
        None,
    ),
    "augmented": (
        "the augmented margin γ",
        "the margin of the best unit vector w* through the origin on the augmented "
        "patterns (x, 1), whose radius is R: Block and Novikoff's γ (mistake_bounds(...).margin)",
        "(R/γ)²",
    ),
    "unit_norm": (
        "the normalized margin γ/R",
        "γ of the augmented patterns scaled to norm at most 1, (x, 1)/R: the γ of the theorem "
        "for ||x|| <= 1 (mistake_bounds(...).unit_norm_margin)",
        "1/(γ/R)²",
    ),
}


# ---------------------------------------------------------------------- maximum margin
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
    SolverError
        If the solver fails on the data (very large or badly scaled ones).

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
    return hard_margin_qp(X, t, fit_intercept)


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
    SolverError
        If the solver fails on the data (very large or badly scaled ones).

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
    return _novikoff(X, y, fit_intercept, intercept_scaling, "mistake_bound", alone=True).novikoff


@dataclass(frozen=True)
class MistakeBounds:
    """Answer of :func:`mistake_bounds`: three bounds on the perceptron's updates, and
    what they are made of.

    ``R``, ``gamma`` and ``beta`` are those of the patterns the perceptron learns
    from: ``(x, intercept_scaling)`` with an intercept, ``x`` without (as
    :func:`mistake_bound` explains). From zero weights, the online perceptron
    makes at most ``novikoff <= notes`` updates for any ``eta > 0`` and any
    presentation order.

    Attributes
    ----------
    radius : float
        ``R = max_i ||x_i||`` of the patterns the perceptron learns from: with an
        intercept the radius of ``(x, intercept_scaling)``, larger than
        :func:`radius` of ``x`` alone (``sqrt(3)`` against ``sqrt(2)`` on the notes'
        OR points).
    margin : float
        ``gamma``, the margin of the maximum-margin unit separator through the origin.
    beta : float
        ``beta = sum_i ||x_i||^2``, the constant of the notes' convergence proof.
    novikoff : float
        Block and Novikoff's ``(R / gamma)^2``, exactly :func:`mistake_bound`: the
        tightest of the three, for any data.
    notes : float
        ``beta / gamma^2``, the lecture notes' own proof (``N <= beta / D^2``, with
        ``D`` the margin of a separating unit vector; here the largest, ``gamma``).
        As ``beta >= R^2`` it is never below ``novikoff``, and up to ``n_samples``
        times above it: the proof bounds the growth of ``||w||^2`` at an update by
        the squared norms of all the patterns rather than the largest one.
    unit_norm : float
        ``1 / gamma^2`` of the patterns scaled to norm at most 1, ``x / R``: the
        theorem as stated for ``||x|| <= 1``. Their margin is ``gamma / R``
        (``unit_norm_margin``) and the perceptron makes the same updates on them (its
        weights just scale by ``1 / R``), so this equals ``(R / gamma)^2``, the
        ``novikoff`` bound: the same theorem, written for patterns in the unit ball.
    unit_norm_margin : float
        ``gamma / R``, the margin of the scaled patterns ``x / R`` (norm at most 1),
        whose ``1 / gamma^2`` is ``unit_norm``: 1/3 on the notes' OR problem, where
        ``gamma = 1 / sqrt(3)`` and ``R = sqrt(3)``.

    Three margins describe one data set, and only the last two enter a bound:
    the geometric margin of the best affine separator ``w . x + b``
    (:func:`max_margin`, the distance from its line to the closest point: ``1 /
    sqrt(2)`` on OR), ``margin`` of the augmented patterns (the unit vector
    through the origin of ``(x, s)``, Block and Novikoff's ``gamma``: ``1 /
    sqrt(3)``) and ``unit_norm_margin`` (the same after scaling to norm 1: ``1 / 3``).
    """

    radius: float
    margin: float
    beta: float
    novikoff: float
    notes: float
    unit_norm: float
    unit_norm_margin: float


def mistake_bounds(
    X: MatrixLike, y: ArrayLike, fit_intercept: bool = True, intercept_scaling: float = 1.0
) -> MistakeBounds:
    """The perceptron's mistake bounds of the lecture notes, with ``R``, ``gamma`` and ``beta``.

    Block and Novikoff's ``(R / gamma)^2`` (:func:`mistake_bound`), the notes'
    convergence proof's ``beta / gamma^2`` with ``beta = sum_i ||x_i||^2``, and
    ``1 / gamma^2`` of the patterns scaled into the unit ball (the theorem for
    ``||x|| <= 1``, equal to ``(R / gamma)^2``); :class:`MistakeBounds` says when
    each applies. All are taken on the patterns as :class:`rosenblatt.Perceptron`
    sees them, augmented to ``(x, intercept_scaling)`` with an intercept, and
    rounded up as :func:`mistake_bound` is, so that none is ever too small.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two class labels.
    fit_intercept : bool, default=True
    intercept_scaling : float, default=1.0
        The constant input appended to each pattern; must be positive.

    Returns
    -------
    MistakeBounds

    Raises
    ------
    rosenblatt.exceptions.NotSeparableError
        If the (augmented) data are not linearly separable through the origin.
    SolverError
        If the solver fails on the data (very large or badly scaled ones).

    Examples
    --------
    The notes' modified OR problem: the patterns ``(x1, x2, 1)`` all have
    ``||x||^2 = 3``, so ``beta = 12``, and ``gamma = 1 / sqrt(3)``:

    >>> from rosenblatt.theory import mistake_bounds
    >>> bounds = mistake_bounds([[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1])
    >>> bounds.novikoff, bounds.beta, bounds.notes, bounds.unit_norm
    (9.0, 12.0, 36.0, 9.0)
    >>> round(bounds.margin, 4), round(bounds.radius, 4), round(bounds.unit_norm_margin, 4)
    (0.5774, 1.7321, 0.3333)
    """
    return _novikoff(X, y, fit_intercept, intercept_scaling, "mistake_bounds")


def _count_bound(raw: float) -> float:
    """``raw``, a bound on a number of updates, made safe from float rounding.

    Float rounding may put raw a few ulps off the exact value, so it is padded up by
    BOUND_PAD: then it is never too small. Except next to an integer n: the number of
    updates is an integer k <= the exact bound, and an exact value within BOUND_PAD of
    n allows no more than n updates, so n is as safe a bound for k, and exact data give
    their exact bound (the notes' modified OR problem: 9, not 9.000000009).
    """
    n = round(raw)
    return float(n) if abs(raw - n) <= BOUND_PAD * raw else raw * (1.0 + BOUND_PAD)


def _novikoff(X, y, fit_intercept=True, intercept_scaling=1.0, owner="mistake_bound", alone=False):
    """:func:`mistake_bounds`, for every function that names itself ``owner`` in errors
    (``alone``: only ``novikoff`` is asked for, and only it must be in the float range)."""
    check_args(
        owner,
        {
            "fit_intercept": [BOOL],
            "intercept_scaling": [Interval(numbers.Real, 0, None, closed="neither")],
        },
        locals(),
    )
    X, t = check_Xy(X, y, owner)
    # separable through the origin of (x, s) exactly when separable by some w . x + b: the
    # LP with a free intercept decides it with every column near 1, whatever s and the scale
    lp = separating_lp(X, t, fit_intercept=bool(fit_intercept))
    if not lp:
        raise _not_separable(lp, bool(fit_intercept), owner)
    if fit_intercept:
        X = augment(X, float(intercept_scaling))
    # measured on the points divided by a power of two (exact) that brings them near 1:
    # the bounds do not depend on the scale, R, gamma and beta scale back
    scale = power_of_two_scale(X)
    X = scaled(X, scale)
    w = hard_margin_qp(X, t, fit_intercept=False).coef
    norms = squared_norms(X)
    R2, beta, w2 = float(np.max(norms)), float(np.sum(norms)), float(w @ w)
    closest = float(np.min(t * decision(X, w, 0.0)))  # gamma = closest / ||w||
    # (R / gamma)^2 and beta / gamma^2 from squares: no square root to round. Float
    # rounding is monotone, so beta >= R2 keeps notes >= novikoff.
    novikoff = finite(_count_bound(R2 * w2 / closest**2), "the bound (R / gamma)^2")
    with np.errstate(over="ignore"):  # refused by `finite`, naming the quantity
        values = {
            "radius": (np.sqrt(R2) * np.float64(scale), "the radius R"),
            "margin": (closest / np.sqrt(w2) * np.float64(scale), "the margin gamma"),
            "beta": (beta * np.float64(scale) ** 2, "beta = sum_i ||x_i||^2"),
            "notes": (_count_bound(beta * w2 / closest**2), "the bound beta / gamma^2"),
        }
    return MistakeBounds(
        **{
            name: float(value) if alone else finite(float(value), what)
            for name, (value, what) in values.items()
        },
        novikoff=novikoff,
        unit_norm=novikoff,  # 1 / (gamma / R)^2 is (R / gamma)^2: see MistakeBounds
        unit_norm_margin=float(closest / np.sqrt(w2 * R2)),  # gamma / R, free of the scale
    )
