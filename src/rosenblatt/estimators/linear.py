"""Perceptron, AveragedPerceptron and VotedPerceptron: thin estimators over the compiled epochs.

Each is the learner of the same name in :mod:`rosenblatt.estimators._bare` (its
parameters, training and predictions) with scikit-learn's base classes added.
"""

from __future__ import annotations

from sklearn.base import BaseEstimator, ClassifierMixin

from . import _bare

_SHARED_PARAMETERS = """
    eta : float, default=1.0
        Learning rate (> 0): an update adds ``eta * y * x`` (times the sample weight).
        With zero initial weights it only scales the weights, never the predictions.
    fit_intercept : bool, default=True
        Learn a bias as the weight of a constant input appended to every pattern.
    intercept_scaling : float or "auto", default=1.0
        That constant input, ``s``, any finite non-zero number: the bias weight moves
        by ``eta * y * s`` per update and ``intercept_ = w_0 * s`` (so the intercept
        moves by ``eta * y * s**2``). ``-1`` is the lecture notes' threshold input:
        ``Perceptron(intercept_scaling=-1, shuffle=False, tol=None)`` runs their worked
        example step for step. The default 1.0 trains dense and CSR copies of the same
        data alike; on real text (SMS spam, tf-idf bigrams, 5 splits) it scored 0.986
        against 0.978 for the earlier sparse default 0.1 (``benchmarks/defaults.py``).
        ``"auto"``: that earlier rule, 1.0 for dense rows and 0.1 for sparse ones.
        Any value keeps the bias trick and the mistake bound of the augmented problem
        (see :func:`rosenblatt.theory.mistake_bound`'s ``intercept_scaling``).
    max_iter : int, default=1000
        Maximum number of epochs (passes over the training data).
    shuffle : bool, "full" or "block", default=True
        Present the patterns in a fresh random order every epoch. ``"full"``: a
        uniform permutation, ``check_random_state(random_state).permutation(n)``.
        ``"block"``: blocks of neighbouring rows in random order, rows shuffled
        inside each block, read at streaming speed. ``True``: "full" while the data
        fits in 16 MiB, "block" above. ``False``: storage order.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling and of the early-stopping split.
    multi_class : {"ovr", "multinomial"}, default="ovr"
        ``"ovr"``: one independent binary neuron per class (a single layer of M
        neurons, as in the lecture notes); each neuron stops after its first
        error-free epoch.
        ``"multinomial"``: one weight vector per class, prediction by argmax; a
        mistake adds ``eta * x`` to the true class's vector and subtracts it from
        the highest-scoring other class's.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the data (stratified) and stop when the
        validation accuracy has not improved by more than ``tol`` for
        ``n_iter_no_change`` epochs. The weights of the last epoch are kept.
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=10
        Epochs without improvement that stop training (``tol``, ``early_stopping``);
        10 rather than scikit-learn's 5: on iris, 5 stopped the one-vs-rest neurons
        after 9 epochs at 0.82 test accuracy, 10 after 32 at 0.94
        (``benchmarks/defaults.py``).
    tol : float or None, default=1e-3
        The stop rule for data that are not separable (with ``early_stopping=False``):
        training ends, without a warning, when the weighted mistake fraction (the
        summed weight of the presentations that made a mistake, summed over the
        one-vs-rest neurons, over the summed weight presented; a presentation weighs
        its sample weight times its class weight, the factors of its update) has not
        fallen by more than ``tol`` below its best for ``n_iter_no_change`` epochs in
        a row; without weights, the fraction of presentations that made a mistake.
        The mistakes and their weights are what the perceptron's own rule counts, so
        the rule needs no pass of its own. An error-free epoch still ends training first (and sets
        ``converged_``). ``None``: run to the first error-free epoch or ``max_iter``,
        as the lecture notes' algorithm does (their traces and bounds use that).
    class_weight : dict, "balanced" or None, default=None
        Multiplies the update step of each class's samples (not with a label
        matrix ``y``, whose samples may have several labels: use ``sample_weight``).
    warm_start : bool, default=False
        Continue from the previous fit's state (weights, averages, vote record).
    verbose : int, default=0
        Print the mistakes of every epoch.
    n_jobs : int or None, default=None
        Threads training one-vs-rest neurons side by side (None: 1, -1: all cores).
        Results do not depend on it.
    on_epoch : callable or None, default=None
        Called after every epoch with an :class:`~rosenblatt.engine.EpochReport`
        (epoch number, mistakes, presentations, seconds, the estimator): progress
        bars, live plots, logging. Not stored in model files.
"""

_FITTED_ATTRIBUTES = """
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
        The class labels; for a label matrix ``y``, its columns ``0 .. n_labels-1``
        (as scikit-learn's multilabel classifiers set it).
    multilabel_ : bool
        Whether ``y`` was a label matrix: one neuron per label, ``predict`` gives the
        (n_samples, n_labels) indicator matrix.
    n_features_in_ : int
    n_iter_ : int
        Epochs run.
    n_mistakes_ : int
        Total number of updates (over all neurons).
    mistakes_per_epoch_ : list of int
        Updates in each epoch run.
    converged_ : bool
        Whether the last epoch made no mistake (training stops there).
    intercept_scaling_ : float
        The constant input used (``intercept_scaling`` with "auto" resolved).
    training_state_ : rosenblatt.engine.PrimalState
        Everything training learnt (weights, averaging accumulators, presentation
        counts, the update record of the voted perceptron); ``partial_fit``,
        ``warm_start``, model files and parameter mixing continue from it.
"""


class Perceptron(_bare.Perceptron, ClassifierMixin, BaseEstimator):
    __doc__ = f"""Rosenblatt's perceptron, online (incremental) or batch.

    An update happens when ``y * (w . x + b) <= 0``: the weights move by
    ``eta * y * x`` (online) or, once per epoch, by ``eta`` times the sum of
    ``y * x`` over the misclassified patterns (batch). Training stops after the
    first epoch without a mistake, or after ``max_iter`` epochs with a
    ``ConvergenceWarning``.

    A 0/1 indicator matrix ``y`` of shape (n_samples, n_labels) (multilabel) trains
    the lecture notes' layer of independent neurons, one per label, in one pass
    over the data; each is the neuron a binary fit on its column gives.

    Parameters
    ----------
    mode : {{"online", "batch"}}, default="online"
        When the weights change: after each misclassified pattern, or once per epoch.
    {_SHARED_PARAMETERS}
    Attributes
    ----------
    {_FITTED_ATTRIBUTES}
    Examples
    --------
    Rosenblatt's modified OR problem (the lecture notes' worked example):

    >>> import numpy as np
    >>> from rosenblatt import Perceptron
    >>> X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]])
    >>> y = np.array([-1, 1, 1, 1])
    >>> clf = Perceptron(shuffle=False).fit(X, y)
    >>> clf.coef_, clf.intercept_, clf.n_mistakes_, clf.n_iter_
    (array([[1., 1.]]), array([1.]), 3, 2)
    >>> clf.predict([[0.5, 0.5], [-2, -2]])
    array([ 1, -1])
    """


class AveragedPerceptron(_bare.AveragedPerceptron, ClassifierMixin, BaseEstimator):
    __doc__ = f"""The averaged perceptron (Freund & Schapire; CIML Algorithm 7).

    Trains like the online :class:`Perceptron` and predicts with CIML Algorithm 7's
    return value ``w - u / c``: the notes' example counter ``c`` starts at 1 and
    counts every presentation (across epochs, ``partial_fit`` calls and warm
    starts), each update ``delta`` also adds ``c * delta`` to the cached weights
    ``u``, and after ``T`` presentations ``c = T + 1``. That is the average of the
    ``T + 1`` weight vectors ``w_0`` (the initial, zero one) .. ``w_T`` over all
    ``max_iter`` epochs, ``(1 / (T + 1)) * sum_t w_t``, kept without bookkeeping on
    correct predictions. From zero weights it is ``T / (T + 1)`` times the average
    of ``w_1 .. w_T``: the same direction and the same predictions. A run that
    converges stops early; the epochs it skips would present the patterns to the
    final vector without a change, and ``c`` counts them. So after convergence the
    average depends on ``max_iter`` (the notes' OR example: ``max_iter=2`` gives
    coef (1, 7/9), intercept 5/9, 1000 gives (1, 3999/4001), 3997/4001); for the
    average over the epochs actually run, fit again with ``max_iter`` set to the
    first fit's ``n_iter_``. A run stopped by ``tol`` (data that are not separable)
    counts only the epochs it ran.

    A 0/1 indicator matrix ``y`` (multilabel) trains one averaged neuron per label
    in one pass over the data, each the one a binary fit on its column gives.

    Parameters
    ----------
    {_SHARED_PARAMETERS}
    Attributes
    ----------
    {_FITTED_ATTRIBUTES}
    Examples
    --------
    >>> import numpy as np
    >>> from rosenblatt import AveragedPerceptron
    >>> X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]])
    >>> y = np.array([-1, 1, 1, 1])
    >>> clf = AveragedPerceptron(shuffle=False, max_iter=2).fit(X, y)
    >>> clf.coef_ * 9, clf.intercept_ * 9  # the notes' (1, 0.778) and 0.556: (9, 7) / 9, 5 / 9
    (array([[9., 7.]]), array([5.]))

    Training stops after the first error-free epoch (here the second), and the
    final vector counts for every presentation of the epochs up to ``max_iter``,
    as running them would give (Freund & Schapire run all of them):

    >>> clf = AveragedPerceptron(shuffle=False, max_iter=100).fit(X, y)
    >>> clf.n_iter_, clf.coef_ * 401, clf.intercept_ * 401
    (2, array([[401., 399.]]), array([397.]))
    """


class VotedPerceptron(_bare.VotedPerceptron, ClassifierMixin, BaseEstimator):
    __doc__ = f"""The voted perceptron (Freund & Schapire, 1999).

    Keeps every weight vector ``w_k`` the online perceptron passes through,
    with its survival count ``c_k`` (the number of presentations after which it
    was the current vector), and predicts ``sign(sum_k c_k sign(w_k . x + b_k))``.
    As in Freund & Schapire's algorithm the counts run over all ``max_iter``
    epochs: when training converges earlier, the final (consistent) vector
    survives every remaining presentation.
    Only the updates are stored, so memory grows with the number of mistakes.
    ``coef_`` / ``intercept_`` hold the last weight vector; ``decision_function``
    returns the vote normalised by the total count, in ``[-1, 1]``.
    A 0/1 indicator matrix ``y`` (multilabel) trains one voting neuron per label in
    one pass over the data, each voting as a binary fit on its column would.

    Parameters
    ----------
    {_SHARED_PARAMETERS}
    Attributes
    ----------
    {_FITTED_ATTRIBUTES}
    n_vectors_ : list of int
        Number of weight vectors the perceptron passed through, per neuron: the
        initial zero vector and one per update.
    voted_coef_ : ndarray of shape (K, n_features), or list of them
        The lecture notes' table ``(w_k, b_k, c_k)`` of the vectors that voted,
        read-only and computed from ``training_state_`` on each access (keep it in
        a variable; it takes ``K * n_features`` floats). Row ``k`` is the weight
        vector ``w_k``, in the order the run passed through them: the initial zero
        vector, then the vector after each update. A vector that never survived a
        presentation casts no vote and is not in the table (the zero vector when
        the first presentation is a mistake), so ``K`` is ``n_vectors_[0]`` or one
        less. One-vs-rest: a list, one entry per class (neuron). Multinomial: shape
        (K, n_classes, n_features), the successive weight matrices (also for two
        classes).
    voted_intercept_ : ndarray of shape (K,), or list of them
        ``b_k = w0_k * intercept_scaling_``, the intercept as ``intercept_`` is
        (0 without ``fit_intercept``; never ``-0.0``). Multinomial: shape
        (K, n_classes).
    votes_ : ndarray of int64, shape (K,), or list of them
        ``c_k``: the survival count of each vector, the presentations after which
        it was the current one (at least 1); they sum to the presentations seen
        (every one of the ``max_iter`` epochs).

        For one neuron, with ``s_k(X) = +1`` where
        ``X @ voted_coef_[k] + voted_intercept_[k] > 0``, else ``-1`` (a zero
        score votes -1, as in training)::

            decision_function(X) == sum_k votes_[k] * s_k(X) / sum(votes_)

        and column ``j`` of a one-vs-rest ``decision_function`` is the same with
        the ``j``-th entries of the lists. Multinomial: column ``c`` of
        ``decision_function`` is the summed ``votes_[k]`` of the matrices whose
        largest score ``X @ voted_coef_[k].T + voted_intercept_[k]`` is class
        ``c`` (the lowest index on ties), over ``sum(votes_)``; the prediction is
        the class with the largest such survival-weighted count of argmax votes
        (for two classes ``decision_function`` is column 1 minus column 0). The
        compiled vote sums each score update by update, so a score computed from
        the table may differ from it in the last bits.

    Examples
    --------
    >>> import numpy as np
    >>> from rosenblatt import VotedPerceptron
    >>> X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]])
    >>> y = np.array([-1, 1, 1, 1])
    >>> clf = VotedPerceptron(shuffle=False, intercept_scaling=-1, max_iter=2).fit(X, y)
    >>> clf.n_vectors_, clf.predict(X)
    ([4], array([-1,  1,  1,  1]))

    The table, as a class computes it by hand over the notes' two epochs (bias
    input -1): the zero vector errs on the first presentation and never votes;
    then one vector per mistake of the first epoch, the last one, consistent,
    surviving the rest of the 8 presentations:

    >>> clf.voted_coef_
    array([[1., 1.],
           [2., 0.],
           [1., 1.]])
    >>> clf.voted_intercept_, clf.votes_
    (array([-1.,  0.,  1.]), array([1, 1, 6]))
    >>> s = np.where(X @ clf.voted_coef_.T + clf.voted_intercept_ > 0, 1, -1)
    >>> np.allclose(s @ clf.votes_ / clf.votes_.sum(), clf.decision_function(X))
    True

    With the default ``max_iter=1000`` the last vector also survives the epochs a
    converged run skips: ``votes_`` is ``[1, 1, 3998]``.
    """
