"""KernelPerceptron: the perceptron in its dual form (seed 003, remarks 3-4).

The estimator validates, computes kernel values with scikit-learn's
:func:`~sklearn.metrics.pairwise.pairwise_kernels`, and drives the compiled
epochs of :mod:`rosenblatt._kernels.dual`.
"""

from __future__ import annotations

import numbers
import warnings
from collections import OrderedDict

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils import check_random_state, gen_batches
from sklearn.utils.validation import check_is_fitted, validate_data

from ._kernels.dual import dual_epoch, voted_scores
from ._decision import labels_from_scores
from ._validation import (
    BOOL,
    NONE,
    RANDOM_STATE,
    InstanceOf,
    Interval,
    Options,
    check_classes,
    check_not_empty,
    check_sample_weight,
    validate_params,
)
from ._voting import survival_counts

_KERNELS = ("linear", "poly", "rbf", "sigmoid", "precomputed")
# The parameters pairwise_kernels takes for each named kernel.
_KERNEL_PARAMS = {
    "linear": (),
    "poly": ("gamma", "degree", "coef0"),
    "rbf": ("gamma",),
    "sigmoid": ("gamma", "coef0"),
    "precomputed": (),
}
# Kernel rows are computed a block of training samples at a time, over fixed
# blocks [0, B), [B, 2B), ...: BLAS sums a dot product differently for different
# matrix shapes, so a blocking that depends only on n_samples is what makes a
# kernel value bit-identical whether the Gram matrix is cached or computed on the
# fly. A block holds about 2**20 values (8 MB): few calls for the cached Gram
# matrix, little waste when one support vector needs its row on the fly.
_BLOCK_VALUES = 1 << 20


def _block_rows(n_samples):
    return int(min(max(_BLOCK_VALUES // max(n_samples, 1), 16), 1024))


_MB = 1024 * 1024
# Test kernel values held at once by decision_function (32 MB). Fixed rather than
# taken from cache_size, so the prediction does not depend on the training budget.
_PREDICT_BLOCK_ELEMENTS = 1 << 22


class _CallableConstraint:
    """Accepts any callable (for the ``kernel`` parameter)."""

    def accepts(self, value) -> bool:
        return callable(value)

    def __str__(self) -> str:
        return "a callable"


class _KernelTable:
    """Kernel values between training samples, laid out for :func:`dual_epoch`.

    ``table[i, slot_of[j]] = K(x_j, x_i)``. When the whole Gram matrix fits in
    ``cache_bytes`` every sample owns a slot from the start (slot ``j``);
    otherwise a sample gets a slot (a column) when it first becomes a support
    vector, and recently computed row blocks are kept within the budget.
    """

    def __init__(self, rows, n_samples, cache_bytes):
        self._rows = rows  # rows(a, b) -> (b - a, n_samples) float64 array
        self._n = n_samples
        self._block = _block_rows(n_samples)
        self.cached = 8 * n_samples * n_samples <= cache_bytes
        if self.cached:
            self.table = np.empty((n_samples, n_samples))
            for a in range(0, n_samples, self._block):
                b = min(a + self._block, n_samples)
                self.table[:, a:b] = rows(a, b).T
            self.slot_of = np.arange(n_samples, dtype=np.int64)
            self.n_slots = n_samples
        else:
            self.table = np.empty((n_samples, min(16, n_samples)))
            self.slot_of = np.full(n_samples, -1, dtype=np.int64)
            self.n_slots = 0
            self._blocks = OrderedDict()
            self._max_blocks = max(1, int(cache_bytes // (8 * self._block * n_samples)))

    def add(self, j):
        """Give training sample ``j`` a slot holding ``K(x_j, x_i)`` for every ``i``."""
        a = (j // self._block) * self._block
        block = self._blocks.pop(a, None)
        if block is None:
            block = self._rows(a, min(a + self._block, self._n))
        self._blocks[a] = block  # most recently used last
        while len(self._blocks) > self._max_blocks:
            self._blocks.popitem(last=False)
        if self.n_slots == self.table.shape[1]:
            grown = np.empty((self._n, min(2 * self.table.shape[1], self._n)))
            grown[:, : self.n_slots] = self.table
            self.table = grown
        self.table[:, self.n_slots] = block[j - a]
        self.slot_of[j] = self.n_slots
        self.n_slots += 1


class KernelPerceptron(ClassifierMixin, BaseEstimator):
    """The kernel perceptron: Rosenblatt's rule run on the dual variables.

    The weight vector of a perceptron started at zero is always a combination
    of the training patterns, ``w = sum_j alpha_j y_j phi(x_j)`` (seed 003,
    remark 3). Learning the counts ``alpha_j`` instead of ``w`` needs the patterns
    only through inner products ``K(x_j, x) = phi(x_j) . phi(x)``, so a kernel
    gives the perceptron a nonlinear decision boundary (remark 4):
    ``f(x) = sum_j alpha_j y_j K'(x_j, x)``. On a mistake, ``y_i f(x_i) <= 0``,
    ``alpha_i += eta * sample_weight_i``. The intercept is the weight of a constant
    input ``s = intercept_scaling`` appended to ``phi(x)``, as in the linear
    :class:`~rosenblatt.linear.Perceptron`; in the dual that is the kernel
    ``K'(x, z) = K(x, z) + s**2``. With ``kernel="linear"`` and
    ``prediction="last"`` the model is the linear perceptron, mistake for mistake.

    Multi-class problems are learnt one-vs-rest: one dual problem per class,
    all presented the same sequence of orders; each stops after its first
    error-free epoch.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, \
default="rbf"
        Computed by :func:`sklearn.metrics.pairwise.pairwise_kernels`. A callable
        is called on each pair of rows and returns a float (the
        ``pairwise_kernels`` convention), with ``kernel_params`` as keyword
        arguments. With ``"precomputed"``, ``X`` is the kernel matrix: (n_samples,
        n_samples) in ``fit``, (n_test, n_samples) against the training samples
        later.
    degree : int, default=3
        Degree of the ``"poly"`` kernel ``(gamma x.z + coef0) ** degree``.
    gamma : float, {"scale", "auto"} or None, default=None
        Coefficient of ``"poly"``, ``"rbf"`` (``exp(-gamma |x - z|**2)``) and
        ``"sigmoid"`` (``tanh(gamma x.z + coef0)``). None or ``"scale"`` means
        ``1 / (n_features * X.var())`` over the training data (1 when the variance
        is 0), scikit-learn's ``"scale"``: it makes ``gamma |x - z|**2`` of order 1
        whatever the units of the features. ``"auto"`` means ``1 / n_features``.
    coef0 : float, default=1.0
        Constant of the ``"poly"`` and ``"sigmoid"`` kernels. The default 1 keeps
        the lower-degree monomials in the polynomial feature map.
    kernel_params : dict or None, default=None
        Keyword arguments of a callable kernel.
    prediction : {"last", "averaged", "voted"}, default="averaged"
        ``"last"``: the final dual coefficients. ``"averaged"``: the average of the
        dual coefficients after every presentation (Freund & Schapire 1999; CIML
        Algorithm 7), less sensitive to the last few updates. ``"voted"``: every
        intermediate hypothesis ``f_k`` votes ``sign(f_k(x))`` with its survival
        count ``c_k``; ``decision_function`` returns the vote normalised to
        ``[-1, 1]``.
    eta : float, default=1.0
        Learning rate (> 0). From zero coefficients it only scales ``f``.
    max_iter : int, default=100
        Maximum number of epochs. An epoch costs one kernel sum per
        presentation, ``O(n_samples * n_support)``, far more than a linear epoch;
        the averaged and voted predictions settle well before 100 epochs on
        data that is not separable in the kernel's feature space.
    shuffle : bool, default=True
        Present the samples in a fresh random order every epoch,
        ``check_random_state(random_state).permutation(n_samples)``.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the shuffling.
    fit_intercept : bool, default=True
        Learn a bias as the weight of the constant input ``intercept_scaling``.
    intercept_scaling : float, default=1.0
        The constant input ``s``; the kernel becomes ``K + s**2``.
    cache_size : float, default=512
        Memory budget in MB (2**20 bytes) for kernel values. When the Gram
        matrix (``8 * n_samples**2`` bytes) fits, it is computed once and cached;
        otherwise a sample's kernel values are computed when it first becomes a
        support vector, and only those are kept (``8 * n_samples * n_support``
        bytes). Both paths give identical results.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_problems, n_support)
        ``alpha_j y_j`` of each support vector in each dual problem (one problem
        for two classes, else one per class), last or averaged as ``prediction``
        says (for ``"voted"``: the last hypothesis).
    intercept_ : ndarray of shape (n_problems,)
        ``s**2 * dual_coef_.sum(axis=1)``: the part of ``f`` due to the constant
        input, so ``f(x) = K(x, support_vectors_) @ dual_coef_.T + intercept_``.
    support_ : ndarray of shape (n_support,)
        Indices of the training samples that were updated on, in any problem.
    support_vectors_ : ndarray or sparse matrix of shape (n_support, n_features)
        Those samples (empty for a precomputed kernel).
    gamma_ : float or None
        The gamma used (None for kernels without one).
    n_iter_ : int
        Epochs run.
    n_mistakes_ : int
        Total number of updates, over all problems.
    mistakes_per_epoch_ : list of int
        Updates in each epoch run, over all problems.
    converged_ : bool
        Whether every problem had an error-free epoch (training stops there).
    n_presented_ : ndarray of shape (n_problems,)
        Presentations made to each problem (the averaging denominator).
    update_ptr_, update_support_, update_coef_, update_time_ : ndarray
        The updates of problem ``p`` are ``update_ptr_[p]:update_ptr_[p + 1]``:
        the position in ``support_`` of the sample, ``eta * sample_weight * y``,
        and the number of presentations before the update. The voted prediction
        rebuilds every hypothesis and its survival count from them.
    n_features_in_ : int

    See Also
    --------
    rosenblatt.linear.Perceptron : The primal form, for explicit features.
    sklearn.svm.SVC : The maximum-margin classifier with the same kernels.

    Notes
    -----
    A presentation costs one kernel sum over the current support vectors, so an
    epoch is ``O(n_samples * n_support)`` once the kernel values are known.
    Patterns are converted to float64 and kernel values are held in float64.
    Sample weights multiply the update step; they are not equivalent to
    repeating samples, which would be presented (and could err) several times.

    Examples
    --------
    XOR is not linearly separable, but it is with the degree-2 monomials:

    >>> import numpy as np
    >>> from rosenblatt.kernel import KernelPerceptron
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> y = np.array([0, 1, 1, 0])
    >>> clf = KernelPerceptron(kernel="poly", degree=2, random_state=0).fit(X, y)
    >>> clf.predict(X)
    array([0, 1, 1, 0])
    >>> clf.converged_, clf.support_
    (True, array([0, 1, 2, 3]))
    """

    _parameter_constraints = {
        "kernel": [Options(_KERNELS), _CallableConstraint()],
        "degree": [Interval(numbers.Integral, 0, None)],
        "gamma": [NONE, Options(("scale", "auto")), Interval(numbers.Real, 0, None, "neither")],
        "coef0": [Interval(numbers.Real, None, None)],
        "kernel_params": [NONE, InstanceOf((dict,))],
        "prediction": [Options(("last", "averaged", "voted"))],
        "eta": [Interval(numbers.Real, 0, None, "neither")],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "shuffle": [BOOL],
        "random_state": [RANDOM_STATE],
        "fit_intercept": [BOOL],
        "intercept_scaling": [Interval(numbers.Real, 0, None, "neither")],
        "cache_size": [Interval(numbers.Real, 0, None, "neither")],
    }

    def __init__(
        self,
        kernel="rbf",
        *,
        degree=3,
        gamma=None,
        coef0=1.0,
        kernel_params=None,
        prediction="averaged",
        eta=1.0,
        max_iter=100,
        shuffle=True,
        random_state=None,
        fit_intercept=True,
        intercept_scaling=1.0,
        cache_size=512,
    ):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.prediction = prediction
        self.eta = eta
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.cache_size = cache_size

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # ------------------------------------------------------------------ options
    def _check_params(self):
        """Cross-parameter checks, with errors that say what to do."""
        validate_params(self)
        if self.kernel_params is not None and not callable(self.kernel):
            raise ValueError(
                f"kernel_params is only passed to a callable kernel; for kernel="
                f"{self.kernel!r} set gamma, degree and coef0 instead, or leave "
                "kernel_params=None."
            )

    @property
    def _s2(self):
        return float(self.intercept_scaling) ** 2 if self.fit_intercept else 0.0

    def _resolve_gamma(self, X):
        if callable(self.kernel) or "gamma" not in _KERNEL_PARAMS[self.kernel]:
            return None
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        if self.gamma is None or self.gamma == "scale":
            if sp.issparse(X):
                variance = X.multiply(X).mean() - X.mean() ** 2
            else:
                variance = X.var()
            return 1.0 / (X.shape[1] * variance) if variance > 0 else 1.0
        return float(self.gamma)

    def _kernel(self, X, Y):
        """Kernel matrix between the rows of ``X`` and ``Y``, as a float64 array."""
        if callable(self.kernel):
            K = pairwise_kernels(X, Y, metric=self.kernel, **(self.kernel_params or {}))
        else:
            params = {"gamma": self.gamma_, "degree": self.degree, "coef0": self.coef0}
            names = _KERNEL_PARAMS[self.kernel]
            K = pairwise_kernels(X, Y, metric=self.kernel, **{k: params[k] for k in names})
        return np.asarray(K, dtype=np.float64)

    def _training_rows(self, X):
        """rows(a, b): kernel values of training samples a..b-1 against all of them."""
        if self.kernel == "precomputed":
            if sp.issparse(X):
                return lambda a, b: X[a:b].toarray().astype(np.float64, copy=False)
            return lambda a, b: np.asarray(X[a:b], dtype=np.float64)
        return lambda a, b: self._kernel(X[a:b], X)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None):
        """Run the dual perceptron until an epoch makes no mistake, or ``max_iter`` epochs.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training patterns, or the (n_samples, n_samples) kernel matrix when
            ``kernel="precomputed"``.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each sample's update step; zero-weight samples are skipped.

        Returns
        -------
        self
        """
        self._check_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_not_empty(X)
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"With kernel='precomputed', X must be the square kernel matrix of the "
                f"training samples; got a matrix of shape {X.shape}."
            )
        name = type(self).__name__
        self.classes_ = check_classes(y, name)
        n = X.shape[0]
        sample_weight = check_sample_weight(sample_weight, n, np.float64)
        if np.unique(y[sample_weight > 0]).shape[0] < 2:
            raise ValueError(
                f"{name} needs samples of at least two classes with a positive "
                "sample_weight; the weights leave only one class."
            )
        self.gamma_ = self._resolve_gamma(X)
        Y = self._targets(y)

        state = _DualState(Y.shape[0], n)
        table = _KernelTable(self._training_rows(X), n, float(self.cache_size) * _MB)
        rng = (
            self.random_state
            if isinstance(self.random_state, np.random.Generator)
            else check_random_state(self.random_state)
        )
        active = np.ones(Y.shape[0], dtype=bool)
        self.mistakes_per_epoch_ = []
        for _ in range(self.max_iter):
            order = rng.permutation(n) if self.shuffle else np.arange(n)
            order = order.astype(np.int64)
            for p in np.flatnonzero(active):
                state.run_epoch(table, order, p, Y, sample_weight, float(self.eta), self._s2)
            self.mistakes_per_epoch_.append(int(state.mistakes.sum()))
            active &= state.mistakes > 0  # a problem with an error-free epoch is done
            if not active.any():
                break
        self.n_iter_ = len(self.mistakes_per_epoch_)
        self.n_mistakes_ = int(sum(self.mistakes_per_epoch_))
        self.converged_ = not active.any()
        if not self.converged_:
            warnings.warn(
                f"{name} did not converge: the last of max_iter={self.max_iter} epochs "
                f"still made {self.mistakes_per_epoch_[-1]} mistake(s). The data may not be "
                "separable in the kernel's feature space; raise max_iter, or try another "
                "kernel (or gamma).",
                ConvergenceWarning,
            )
        self._set_fitted(X, state)
        return self

    def _targets(self, y):
        """±1 targets, one row per dual problem."""
        if self.classes_.shape[0] == 2:
            return np.where(y == self.classes_[1], 1.0, -1.0)[np.newaxis, :]
        return np.where(y[np.newaxis, :] == self.classes_[:, np.newaxis], 1.0, -1.0)

    def _set_fitted(self, X, state):
        self.support_ = np.flatnonzero(np.any(state.coef != 0.0, axis=0))
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = X[self.support_]
        coef = state.coef
        if self.prediction == "averaged":
            presented = np.maximum(state.n_seen, 1).astype(np.float64)
            coef = coef - state.coef_acc / presented[:, np.newaxis]
        self.dual_coef_ = coef[:, self.support_]
        self.intercept_ = self._s2 * self.dual_coef_.sum(axis=1)
        self.n_presented_ = state.n_seen.copy()
        position = np.full(X.shape[0], -1, dtype=np.int64)
        position[self.support_] = np.arange(self.support_.shape[0])
        samples, self.update_coef_, self.update_time_, counts = state.updates()
        self.update_support_ = position[samples]
        self.update_ptr_ = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)

    # ------------------------------------------------------------------ predict
    def _test_kernel(self, X):
        if self.kernel == "precomputed":
            K = X[:, self.support_]
            return K.toarray() if sp.issparse(K) else np.asarray(K, dtype=np.float64)
        return self._kernel(X, self.support_vectors_)

    def decision_function(self, X):
        """Score of each sample; its sign (two classes) or argmax gives the class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Patterns, or for ``kernel="precomputed"`` their (n_samples,
            n_training_samples) kernel values against the training samples.

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
            ``f(x)``, or for ``prediction="voted"`` the survival-weighted vote
            normalised to ``[-1, 1]``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        n_problems = self.dual_coef_.shape[0]
        scores = np.empty((X.shape[0], n_problems))
        rows = max(1, _PREDICT_BLOCK_ELEMENTS // max(1, self.support_.shape[0]))
        for batch in gen_batches(X.shape[0], rows):
            K = self._test_kernel(X[batch])
            if self.prediction == "voted":
                scores[batch] = self._vote(K)
            else:
                scores[batch] = K @ self.dual_coef_.T + self.intercept_
        return scores.ravel() if n_problems == 1 else scores

    def _vote(self, K):
        K = np.ascontiguousarray(K)  # one compiled signature for every kernel
        votes = np.empty((K.shape[0], self.dual_coef_.shape[0]))
        out = np.empty(K.shape[0])
        for p in range(votes.shape[1]):
            part = slice(self.update_ptr_[p], self.update_ptr_[p + 1])
            weights = survival_counts(self.update_time_[part], self.n_presented_[p])
            voted_scores(
                K, self.update_support_[part], self.update_coef_[part], weights, self._s2, out
            )
            votes[:, p] = out / max(weights.sum(), 1.0)
        return votes

    def predict(self, X):
        """Predict class labels (a zero score goes to the first class, as in training).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)  # checks the model is fitted first
        return labels_from_scores(self.classes_, scores)


class _DualState:
    """Training state of the dual problems and the driver of one epoch."""

    def __init__(self, n_problems, n_samples):
        shape = (n_problems, n_samples)
        self.coef = np.zeros(shape)
        self.coef_acc = np.zeros(shape)
        self.sv = np.zeros(shape, dtype=np.int64)
        self.n_sv = np.zeros(n_problems, dtype=np.int64)
        self.n_seen = np.zeros(n_problems, dtype=np.int64)
        self.mistakes = np.zeros(n_problems, dtype=np.int64)
        # one epoch's updates per problem (at most one per sample), then kept in lists
        self._upd_sample = np.zeros(shape, dtype=np.int64)
        self._upd_delta = np.zeros(shape)
        self._upd_time = np.zeros(shape, dtype=np.int64)
        self._n_upd = np.zeros(n_problems, dtype=np.int64)
        self._kept = [[] for _ in range(n_problems)]

    def run_epoch(self, table, order, p, Y, sample_weight, eta, s2):
        self.mistakes[p] = 0
        self._n_upd[p] = 0
        pos = 0
        while True:
            pos = dual_epoch(
                table.table, table.slot_of, order, pos, p, Y, sample_weight, eta, s2,
                self.coef, self.coef_acc, self.sv, self.n_sv, self.n_seen, self.mistakes,
                self._upd_sample, self._upd_delta, self._upd_time, self._n_upd,
            )
            if pos == order.shape[0]:
                break
            table.add(order[pos])  # on the fly: a new support vector needs its kernel values
        k = self._n_upd[p]
        if k:
            self._kept[p].append(
                (self._upd_sample[p, :k].copy(), self._upd_delta[p, :k].copy(),
                 self._upd_time[p, :k].copy())
            )

    def updates(self):
        """All updates, problem after problem: samples, deltas, times, and counts."""
        parts = [part for kept in self._kept for part in kept]
        counts = [sum(part[0].shape[0] for part in kept) for kept in self._kept]
        if not parts:
            empty = np.empty(0)
            return empty.astype(np.int64), empty, empty.astype(np.int64), counts
        samples, deltas, times = (np.concatenate(column) for column in zip(*parts))
        return samples, deltas, times, counts
