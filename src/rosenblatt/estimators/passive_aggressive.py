"""PassiveAggressive: Crammer et al. (2006)'s online classifiers, on the perceptrons' engine."""

from __future__ import annotations

from sklearn.base import BaseEstimator, ClassifierMixin

from . import _bare


class PassiveAggressive(_bare.PassiveAggressive, ClassifierMixin, BaseEstimator):
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
