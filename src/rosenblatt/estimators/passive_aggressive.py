"""PassiveAggressive: Crammer et al. (2006)'s online classifiers, on the perceptrons' engine."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING

from .._core.validation import BOOL, Interval, Options
from ._base import BaseLinearPerceptron

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import RandomStateLike


class PassiveAggressive(BaseLinearPerceptron):
    """The passive-aggressive classifiers PA, PA-I and PA-II (Crammer et al., 2006).

    Online, as the perceptron, but on the hinge loss ``max(0, 1 - y (w . x + b))``: a
    pattern learnt with a margin of at least 1 changes nothing (passive); any other moves
    the weights along ``y x`` just enough for the loss (aggressive), ``w += tau * y * x`` with

    - ``"pa"``: ``tau = loss / ||x||^2`` (the margin of 1 exactly reached);
    - ``"pa1"``: ``tau = min(C, loss / ||x||^2)``;
    - ``"pa2"``: ``tau = loss / (||x||^2 + 1 / (2 C))``,

    times the sample weight (and its class's weight). As for the perceptrons the bias is the
    weight of a constant input ``intercept_scaling`` appended to every pattern (the lecture
    notes' augmented input), so ``||x||^2`` counts its square too. scikit-learn's
    ``SGDClassifier(loss="hinge", learning_rate="pa1"|"pa2", penalty=None)`` keeps a separate
    intercept, outside the norm (and moves it by 1/100 of the step on sparse rows): without an
    intercept the two give the same weights to rounding; with one, they differ in the size of
    each step. Several classes: one-vs-rest (each neuron a binary PA), or
    ``multi_class="multinomial"`` with the true class and the strongest rival moved apart
    (Crammer et al., section 7: ``||x||^2`` becomes ``2 ||x||^2``).

    Training stops after the first epoch without a margin error, on the stop rule ``tol``
    (the weighted fraction of margin errors no longer falling), or after ``max_iter`` epochs
    with a ``ConvergenceWarning``. ``mistakes_per_epoch_`` counts the updates (margin errors).

    Parameters
    ----------
    C : float, default=1.0
        The aggressiveness bound of PA-I and PA-II (> 0); plain PA does not use it.
    variant : {"pa", "pa1", "pa2"}, default="pa1"
    average : bool, default=False
        Predict with the average of the weights after every presentation, ``w_1 .. w_T``
        (scikit-learn's averaged SGD; it does not include the initial zero weights, where
        :class:`~rosenblatt.estimators.linear.AveragedPerceptron` follows CIML Algorithm 7).
    fit_intercept, intercept_scaling, max_iter, shuffle, random_state, multi_class, \
early_stopping, validation_fraction, n_iter_no_change, tol, class_weight, warm_start, \
verbose, n_jobs, on_epoch
        As :class:`~rosenblatt.estimators.linear.Perceptron`'s.

    Attributes
    ----------
    coef_, intercept_, classes_, multilabel_, n_features_in_, n_iter_, n_mistakes_, \
mistakes_per_epoch_, converged_, intercept_scaling_, training_state_
        As :class:`~rosenblatt.estimators.linear.Perceptron`'s (an update is a margin error).

    Examples
    --------
    >>> import numpy as np
    >>> from rosenblatt import PassiveAggressive
    >>> X = np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]])
    >>> clf = PassiveAggressive(shuffle=False, fit_intercept=False).fit(X, [-1, -1, 1, 1])
    >>> clf.coef_, clf.n_mistakes_, clf.converged_
    (array([[0., 1.]]), 2, True)
    >>> clf.decision_function(X)
    array([-1., -1.,  1.,  1.])
    """

    _parameter_constraints = {
        **{
            name: constraint
            for name, constraint in BaseLinearPerceptron._parameter_constraints.items()
            if name != "eta"
        },
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "variant": [Options(("pa", "pa1", "pa2"))],
        "average": [BOOL],
    }
    _average_initial = False  # scikit-learn's averaged SGD: the mean of w_1 .. w_T

    def __init__(
        self,
        *,
        C: float = 1.0,
        variant: str = "pa1",
        average: bool = False,
        fit_intercept: bool = True,
        intercept_scaling: float | str = 1.0,
        max_iter: int = 1000,
        shuffle: bool | str = True,
        random_state: RandomStateLike = None,
        multi_class: str = "ovr",
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        n_iter_no_change: int = 10,
        tol: float | None = 1e-3,
        class_weight: dict | str | None = None,
        warm_start: bool = False,
        verbose: int = 0,
        n_jobs: int | None = None,
        on_epoch: Callable | None = None,
    ):
        self.C = C
        self.variant = variant
        self.average = average
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.multi_class = multi_class
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.on_epoch = on_epoch

    @property
    def _averaged(self) -> bool:  # type: ignore[override]
        return bool(self.average)

    def _step(self) -> tuple[str, float, float]:
        """The passive-aggressive step of ``variant``, bounded by ``C`` (no learning rate)."""
        return self.variant, 1.0, self.C
