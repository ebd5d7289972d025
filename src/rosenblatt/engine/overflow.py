"""The one rule for numbers beyond the float range in training: refuse, naming cause and fix.

A score ``w . x + b`` that is inf or NaN answers no mistake test truly (``nan <= 0``
is false), so a run that went on would count updates it never made and report
convergence it never reached. The compiled epochs count such scores
(``Tally.overflow``, ``Updates.overflow``); the states check their weights once a
run ends (an update can overflow a weight that no later score reads). Either way
the run stops here with a :class:`~rosenblatt.exceptions.NumericOverflowError`
that names what overflowed and the two fixes: a smaller learning rate, features
on a smaller scale. Every path that trains (``fit``, ``partial_fit``, streams,
the trace, the playground, the command line) goes through the engine, so all say
the same.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

import numpy as np

from ..exceptions import NumericOverflowError

__all__ = [
    "SQUARE_LIMIT",
    "check_finite",
    "check_scores",
    "check_squares",
    "check_vote_range",
    "largest_magnitude",
    "refuse_overflow",
]

#: Beyond this magnitude a number's square leaves the float64 range (about 1.8e308)
SQUARE_LIMIT = 1.34e154


def largest_magnitude(X: Any) -> float:
    """The largest ``|x|`` of a dense array or sparse matrix (0 when empty).

    Examples
    --------
    >>> largest_magnitude(np.array([[1.0, -3.0], [2.0, 0.5]]))
    3.0
    """
    values = X.data if hasattr(X, "tocsr") else np.asarray(X)
    return float(np.max(np.abs(values))) if values.size else 0.0


def refuse_overflow(
    what: str,
    *,
    eta: float | None = None,
    X: Any = None,
    kernel: bool = False,
    C: float | None = None,
) -> NoReturn:
    """Raise the overflow error: ``what`` went beyond the float range.

    Parameters
    ----------
    what : str
        What was not finite, e.g. ``"3 scores w . x + b"``.
    eta : float or None
        The learning rate, named in the fix.
    X : array or sparse matrix or None
        The features, whose largest magnitude the fix names.
    kernel : bool
        The scores are a kernel expansion: the fix names the kernel's parameters too.
    C : float or None
        The bound of passive-aggressive steps (which have no learning rate), named in the fix.

    Examples
    --------
    >>> refuse_overflow("1 score w . x + b", eta=1e308)
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.NumericOverflowError: training overflowed: 1 score w . x + b became \
inf or NaN, beyond the float range, where no mistake test is true. Lower the learning rate \
eta (now 1e+308), or put the features on a smaller scale (e.g. with StandardScaler).
    """
    fixes = [f"Lower the learning rate eta (now {eta:g})" if eta is not None else ""]
    if C is not None:
        fixes.append(f"lower the step bound C (now {C:g}) or the sample and class weights")
    scale = "put the features on a smaller scale (e.g. with StandardScaler)"
    if X is not None:
        scale += f"; the largest |x| is {largest_magnitude(X):g}"
    fixes.append(scale)
    if kernel:
        fixes.append("choose kernel parameters whose values stay smaller (gamma, degree)")
    fix = ", or ".join(part for part in fixes if part)
    raise NumericOverflowError(
        f"training overflowed: {what} became inf or NaN, beyond the float range, where no "
        f"mistake test is true. {fix[0].upper()}{fix[1:]}."
    )


def check_finite(arrays: dict[str, np.ndarray], **context: Any) -> None:
    """Refuse (:func:`refuse_overflow`) if any of the named ``arrays`` holds an inf or NaN.

    One summed pass per array, in float64 and without a copy: a sum is finite exactly when
    every term is (short of a sum beyond 1e308 of finite terms, which is the edge of the
    range anyway).

    Examples
    --------
    >>> check_finite({"weights": np.array([1.0, 2.0])}, eta=1.0)
    >>> check_finite({"weights": np.array([1.0, np.inf])}, eta=1.0)
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.NumericOverflowError: training overflowed: the weights became inf \
or NaN, beyond the float range, where no mistake test is true. Lower the learning rate eta \
(now 1), or put the features on a smaller scale (e.g. with StandardScaler).
    """
    for name, values in arrays.items():
        with np.errstate(over="ignore", invalid="ignore"):  # the refusal says it, once
            total = np.sum(values, dtype=np.float64)
        if values.size and not math.isfinite(total):
            refuse_overflow(f"the {name}", **context)


def check_squares(X: Any, what: str) -> None:
    """Refuse features whose squares leave the float range, for ``what`` squares them (a
    variance, a norm): it would answer inf or NaN.

    Examples
    --------
    >>> check_squares(np.array([[1e200]]), "Standardising")
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.NumericOverflowError: Standardising squares the features, and they \
reach 1e+200, whose square is beyond the float range. Put the features on a smaller scale \
first (e.g. divide them by a power of ten).
    """
    largest = largest_magnitude(X)
    if largest > SQUARE_LIMIT:
        raise NumericOverflowError(
            f"{what} squares the features, and they reach {largest:g}, whose square is beyond "
            "the float range. Put the features on a smaller scale first (e.g. divide them by "
            "a power of ten)."
        )


def check_scores(scores: np.ndarray, X: Any = None) -> np.ndarray:
    """``scores``, refused if any is inf or NaN: no label can be read off such a score (the
    rows are beyond the scale the model's weights can score in the float range).

    Examples
    --------
    >>> check_scores(np.array([1.0, -2.0]))
    array([ 1., -2.])
    >>> check_scores(np.array([1.0, np.inf]))
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.NumericOverflowError: scoring overflowed: 1 score(s) became inf or \
NaN, beyond the float range, where no label can be read off them. Put the rows' features \
on the scale the model was trained on.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.sum(scores, dtype=np.float64)
    if not math.isfinite(total):
        bad = int(np.count_nonzero(~np.isfinite(scores)))
        if bad:
            where = "" if X is None else f" (the largest |x| here is {largest_magnitude(X):g})"
            raise NumericOverflowError(
                f"scoring overflowed: {bad} score(s) became inf or NaN, beyond the float "
                "range, where no label can be read off them. Put the rows' features on the "
                f"scale the model was trained on{where}."
            )
    return scores


def check_vote_range(inner: np.ndarray, coef: np.ndarray, s2: float = 0.0) -> None:
    """Refuse a vote whose running scores could leave the float range.

    A vote sums, update after update, ``coef_u (inner[:, pattern_u] + s2)``; every running
    score is at most ``sum_u |coef_u| * (max |inner| + s2)`` in magnitude, so when that is
    finite (the inner products and the bound are checked) no score overflows and every
    sign the vote counts is true.

    Examples
    --------
    >>> check_vote_range(np.array([[1.0, 2.0]]), np.array([0.5, -1.0]))
    >>> check_vote_range(np.array([[1e308, 2.0]]), np.array([2.0, -1.0]))
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.NumericOverflowError: scoring overflowed: the vote's running scores \
reach beyond the float range, where no label can be read off them. Put the rows' features \
on the scale the model was trained on.
    """
    if not inner.size or not coef.size:
        return
    with np.errstate(over="ignore", invalid="ignore"):
        bound = float(np.sum(np.abs(coef))) * (float(np.max(np.abs(inner))) + abs(s2))
    if not bound < np.finfo(np.float64).max:
        raise NumericOverflowError(
            "scoring overflowed: the vote's running scores reach beyond the float range, "
            "where no label can be read off them. Put the rows' features on the scale the "
            "model was trained on."
        )
