"""Projectron and Projectron++: kernel perceptrons whose support set stays small by projection.

Orabona, Keshet and Caputo, "Bounded Kernel-Based Online Learning" (JMLR 2009). The
rule is the kernel perceptron's (:mod:`rosenblatt.engine.dual`), with the budget
policy ``"project"`` of :mod:`rosenblatt.engine.budget`.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING

from .._core.validation import BOOL, Interval, Options
from .kernel import KernelPerceptron

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import RandomStateLike

__all__ = ["Projectron"]

_NOT_HERE = ("budget_policy", "prediction")


class Projectron(KernelPerceptron):
    """The Projectron: a kernel perceptron that projects instead of growing.

    On a mistake on ``x``, the Projectron measures how far ``phi(x)`` lies from the
    span of its support vectors in the kernel's feature space: the squared
    projection error ``|delta|^2 = K'(x, x) - k^T K^-1 k`` (``K`` the kernel matrix
    of the support vectors, ``k`` their kernel values with ``x``). When it is at
    most ``max_projection_error``, the update uses the projection of ``phi(x)``
    instead of ``phi(x)`` itself, which changes the coefficients of the support
    vectors (by ``eta * y * K^-1 k``) and adds none; otherwise ``x`` joins them,
    as in the kernel perceptron, and ``K^-1`` grows by a rank-one update. The
    support set then stays bounded whatever the amount of data, with a mistake
    bound close to the perceptron's (Orabona, Keshet and Caputo 2009).

    With ``plus=True`` (Projectron++) a margin error, ``0 < y f(x) < eta``, also
    updates, along the projection only and by the step of the paper that keeps
    its mistake bound: ``tau = min(loss / |P phi(x)|^2, 1, 2 (loss -
    |delta|^2 / max_projection_error) / |P phi(x)|^2)`` with ``loss = 1 - y f(x) /
    eta``, and only when ``loss > |delta|^2 / max_projection_error``. The
    threshold compares the squared error, as the authors' DOGMA library does.

    Like every perceptron of the package it takes ``y`` as an (n_samples, M) indicator
    matrix too: M independent Projectrons, one per column.

    ``mistakes_per_epoch_`` counts prediction mistakes (``y f(x) <= 0``), not
    updates, so with ``max_iter=1, shuffle=False`` on two classes
    ``mistakes_per_epoch_[0] / n_samples`` is the online error rate.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, \
default="rbf"
        As for :class:`~rosenblatt.estimators.kernel.KernelPerceptron`.
    degree, gamma, coef0, kernel_params :
        The kernel's parameters, as for ``KernelPerceptron``.
    max_projection_error : float, default=0.1
        The largest squared projection error ``|delta|^2`` (> 0) for which a
        mistake projects rather than adds a support vector: larger values keep
        fewer support vectors (DOGMA's ``eta``; here ``eta`` keeps meaning the
        learning rate).
    plus : bool, default=False
        Projectron++: also learn from margin errors.
    budget : int or None, default=300
        The most support vectors the model keeps (``len(support_) <= budget``, with
        several classes ``budget // n_classes`` per one-vs-rest problem, as for
        ``KernelPerceptron``). Once the support set is full, every mistake updates
        along its projection on the span of the support vectors, however far from it
        the pattern lies. None: the projection error alone bounds the support set,
        which on noisy data grows with the data, and a mistake costs
        ``O(n_support**2)``: without a budget, 10,000 noisy rows took minutes and
        kept 3,000 support vectors; with 300, seconds, within 0.03 of ``SVC``'s
        accuracy on digits, spambase and those rows (``benchmarks/kernel_defaults.py``).
    prediction : {"last", "averaged"}, default="averaged"
        The last dual coefficients, or their average over every presentation (the
        support set never shrinks, so the average needs no other pattern).
    eta, max_iter, tol, n_iter_no_change, shuffle, random_state, fit_intercept, \
intercept_scaling, cache_size, on_epoch, class_weight, warm_start, verbose :
        As for ``KernelPerceptron``.

    Attributes
    ----------
    The attributes of :class:`~rosenblatt.estimators.kernel.KernelPerceptron`; the
    update record lists the updates that added support vectors (a projection
    changes every coefficient).

    Examples
    --------
    Circles, learnt with a handful of support vectors:

    >>> import numpy as np
    >>> from rosenblatt.estimators.projectron import Projectron
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(400, 2)
    >>> y = (np.hypot(X[:, 0], X[:, 1]) > 1.2).astype(int)
    >>> clf = Projectron(gamma=1.0, max_projection_error=0.3, random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.9), bool(len(clf.support_) < 60)
    (True, True)
    """

    _parameter_constraints = {
        **{
            name: rule
            for name, rule in KernelPerceptron._parameter_constraints.items()
            if name not in _NOT_HERE
        },
        "max_projection_error": [Interval(numbers.Real, 0, None, closed="neither")],
        "plus": [BOOL],
        "prediction": [Options(("last", "averaged"))],
    }

    def __init__(
        self,
        kernel: str | Callable = "rbf",
        *,
        degree: int = 3,
        gamma: float | str | None = None,
        coef0: float = 1.0,
        kernel_params: dict | None = None,
        max_projection_error: float = 0.1,
        plus: bool = False,
        budget: int | None = 300,
        prediction: str = "averaged",
        eta: float = 1.0,
        max_iter: int = 100,
        tol: float | None = 1e-3,
        n_iter_no_change: int = 5,
        shuffle: bool = True,
        random_state: RandomStateLike = None,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        cache_size: float = 512,
        on_epoch: Callable | None = None,
        class_weight: dict | str | None = None,
        warm_start: bool = False,
        verbose: int = 0,
    ):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.max_projection_error = max_projection_error
        self.plus = plus
        self.budget = budget
        self.prediction = prediction
        self.eta = eta
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.cache_size = cache_size
        self.on_epoch = on_epoch
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose
