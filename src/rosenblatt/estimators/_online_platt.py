"""Online Platt scaling with calibeating (Gupta and Ramdas, ICML 2023): the map and its steps.

One map turns a classifier's score ``s`` into the probability of the positive outcome.
Online Platt scaling (OPS, the paper's Algorithm 1) keeps the sigmoid
``p = 1 / (1 + exp(-(a s + b)))`` and learns ``w = (a, b)`` by the Online Newton Step
(Hazan, Agarwal and Kale, 2007) on the log-loss of each outcome as it comes:
with ``u = (s, 1)`` and ``g = (p - y) u`` (the log-loss's gradient),

    A <- A + g g^T,    w <- w - A^{-1} g / gamma,

then ``w`` is projected back onto the ball ``|w| <= radius`` in the norm of ``A``.
It starts from ``w = (1, 0)``, the plain logistic of the score, and ``A = rho I``;
the paper's values are ``gamma = 0.1``, ``rho = 100``, ``radius = 100``.

Calibeating by tracking (the paper's TOPS, after Foster and Hart's "Calibeating"):
the OPS probability falls in one of ``n_bins`` equal bins of [0, 1], and the
forecast is the mean of the outcomes seen so far in that bin. A bin starts with one
pseudo-outcome at its midpoint, so that an empty bin forecasts its own middle and no
forecast is ever 0 or 1 (whose log-loss would be infinite).

The state of a map is plain arrays (``platt`` (2,), ``newton`` (2, 2), ``bin_sums``
and ``bin_counts`` (n_bins,)), updated in place; the arithmetic is on Python floats,
which is several times faster than numpy for 2 x 2 matrices, one sample at a time.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["bin_of", "ops_probability", "track", "update"]

#: the paper's Online Newton Step: start (a, b), A_0 = rho I, step 1 / gamma, radius
START = (1.0, 0.0)


def _expit(z: float) -> float:
    """``1 / (1 + exp(-z))`` without overflow."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def ops_probability(platt: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The OPS probabilities ``expit(a s + b)``: of ``scores`` (n,) by one map ``platt``
    (2,), or of (n, n_maps) scores by each map of ``platt`` (n_maps, 2), in float64."""
    from scipy.special import expit

    return expit(platt[..., 0] * np.asarray(scores, dtype=np.float64) + platt[..., 1])


def bin_of(probability: np.ndarray, n_bins: int) -> np.ndarray:
    """The bin (0 .. n_bins - 1) of each probability: ``floor(p n_bins)``, 1 in the last."""
    index = np.floor(np.asarray(probability, dtype=np.float64) * n_bins).astype(np.int64)
    return np.minimum(index, n_bins - 1)


def track(bin_sums: np.ndarray, bin_counts: np.ndarray, bins: np.ndarray) -> np.ndarray:
    """The tracking forecasts of ``bins``: the outcomes' mean there, with the midpoint's
    pseudo-outcome."""
    n_bins = bin_sums.shape[0]
    middle = (bins + 0.5) / n_bins
    return (middle + bin_sums[bins]) / (1.0 + bin_counts[bins])


def _project(w: tuple[float, float], A: np.ndarray, radius: float) -> tuple[float, float]:
    """``argmin_{|v| <= radius} (v - w)^T A (v - w)``: ``(A + lam I)^{-1} A w`` for the
    ``lam >= 0`` that puts it on the sphere, found by bisection in A's eigenbasis."""
    if w[0] * w[0] + w[1] * w[1] <= radius * radius:
        return w
    d, Q = np.linalg.eigh(A)  # A is symmetric positive definite
    z = Q.T @ np.array(w)

    def norm2(lam):
        return float(np.sum((d * z / (d + lam)) ** 2))

    low, high = 0.0, float(d.max())
    while norm2(high) > radius * radius:
        high *= 2.0
    for _ in range(100):  # the norm falls as lam grows
        middle = 0.5 * (low + high)
        if norm2(middle) > radius * radius:
            low = middle
        else:
            high = middle
    v = Q @ (d * z / (d + high))
    return float(v[0]), float(v[1])


def update(
    platt: np.ndarray,
    newton: np.ndarray,
    bin_sums: np.ndarray,
    bin_counts: np.ndarray,
    scores: np.ndarray,
    outcomes: np.ndarray,
    weights: np.ndarray,
    *,
    gamma: float,
    radius: float,
    tracking: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Forecast, then learn, each sample in turn; update the map in place.

    Each sample is forecast by the map as it stands before the sample's outcome, then
    the map learns the outcome: the Online Newton Step on ``(a, b)`` (its log-loss times
    the sample's weight) and, with ``tracking``, the outcome added to its bin.

    Parameters
    ----------
    platt : ndarray of shape (2,)
        ``(a, b)``.
    newton : ndarray of shape (2, 2)
        The Online Newton Step's matrix ``A``.
    bin_sums, bin_counts : ndarray of shape (n_bins,)
        Per bin of the OPS probability, the (weighted) sum and count of its outcomes.
    scores : ndarray of shape (n_samples,)
    outcomes : ndarray of shape (n_samples,)
        1 where the sample is positive, else 0.
    weights : ndarray of shape (n_samples,)
        Sample weights; a zero weight forecasts and learns nothing.
    gamma, radius : float
    tracking : bool

    Returns
    -------
    ops, forecast : ndarray of shape (n_samples,)
        Each sample's OPS probability and its forecast (the tracking one, or OPS).
    """
    a, b = float(platt[0]), float(platt[1])
    A00, A01, A11 = float(newton[0, 0]), float(newton[0, 1]), float(newton[1, 1])
    n_bins = bin_sums.shape[0]
    ops = np.empty(len(scores))
    forecast = np.empty(len(scores))
    for i, (s, y, c) in enumerate(zip(scores.tolist(), outcomes.tolist(), weights.tolist())):
        p = _expit(a * s + b)
        ops[i] = p
        k = min(int(p * n_bins), n_bins - 1)
        forecast[i] = ((k + 0.5) / n_bins + bin_sums[k]) / (1.0 + bin_counts[k]) if tracking else p
        if c == 0:
            continue
        if tracking:
            bin_sums[k] += c * y
            bin_counts[k] += c
        r = c * (p - y)
        g0, g1 = r * s, r
        A00, A01, A11 = A00 + g0 * g0, A01 + g0 * g1, A11 + g1 * g1
        det = A00 * A11 - A01 * A01
        # w - A^{-1} g / gamma, A^{-1} of the 2 x 2 in closed form
        a -= (A11 * g0 - A01 * g1) / (det * gamma)
        b -= (A00 * g1 - A01 * g0) / (det * gamma)
        if a * a + b * b > radius * radius:
            a, b = _project((a, b), np.array([[A00, A01], [A01, A11]]), radius)
    platt[:] = (a, b)
    newton[:] = ((A00, A01), (A01, A11))
    return ops, forecast
