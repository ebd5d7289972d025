"""KernelPerceptron: the perceptron in its dual form (seed 003, remarks 3-4).

The estimator validates its input and parameters; the training state, the
kernel values and the epochs belong to the engine (:mod:`rosenblatt.engine.dual`,
:func:`rosenblatt.engine.run_epochs`).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import gen_batches
from sklearn.utils.validation import check_is_fitted, validate_data

from ._config import PREDICT_BLOCK_ELEMENTS
from ._decision import labels_from_scores
from ._validation import (
    BOOL,
    CALLABLE,
    NONE,
    RANDOM_STATE,
    InstanceOf,
    Interval,
    Options,
    check_class_weight,
    check_classes,
    check_not_empty,
    check_sample_weight,
    class_weighted,
    label_indices,
    validate_params,
)
from .engine.driver import run_epochs
from .engine.dual import DualState, Kernel, KernelTable, decision_scores, vote_scores
from .engine.orders import epoch_order, random_source

if TYPE_CHECKING:  # pragma: no cover
    from ._typing import ArrayLike, MatrixLike, RandomStateLike

_KERNELS = ("linear", "poly", "rbf", "sigmoid", "precomputed")
# The parameters each named kernel takes.
_KERNEL_PARAMS = {
    "linear": (),
    "poly": ("gamma", "degree", "coef0"),
    "rbf": ("gamma",),
    "sigmoid": ("gamma", "coef0"),
    "precomputed": (),
}
_MB = 1024 * 1024
_ADVICE = (
    "The data may not be separable in the kernel's feature space; raise max_iter (--max-iter on "
    "the command line), or try another kernel (or gamma)."
)


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
        The named kernels are computed one pair at a time, each dot product or
        squared distance summed in feature order, so that prediction sees the
        very kernel values training saw. A callable is called on each pair of
        rows and returns a float (scikit-learn's ``pairwise_kernels``
        convention), with ``kernel_params`` as keyword arguments. With
        ``"precomputed"``, ``X`` is the kernel matrix: (n_samples, n_samples) in
        ``fit``, (n_test, n_samples) against the training samples later.
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
        ``rng.permutation(n_samples)`` with ``rng`` from ``random_state``.
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
    on_epoch : callable or None, default=None
        Called after every epoch with an :class:`~rosenblatt.engine.EpochReport`;
        not stored in model files.
    class_weight : dict, "balanced" or None, default=None
        Multiplies each sample's update step by its class's weight, as in the
        linear perceptrons; "balanced" weighs classes inversely to their size.

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
        The averaged and voted predictions then count the presentations of the
        remaining epochs up to ``max_iter`` too, as running them would (they
        change nothing else).
    n_presented_ : ndarray of shape (n_problems,)
        Presentations made to each problem (the averaging denominator).
    update_ptr_, update_support_, update_coef_, update_time_ : ndarray
        The updates of problem ``p`` are ``update_ptr_[p]:update_ptr_[p + 1]``:
        the position in ``support_`` of the sample, ``eta * sample_weight * y``,
        and the number of presentations before the update. The voted prediction
        rebuilds every hypothesis and its survival count from them.
    n_features_in_ : int
    training_state_ : rosenblatt.engine.DualState
        The coefficients of every training sample, their accumulators and every
        update, per problem.

    See Also
    --------
    rosenblatt.linear.Perceptron : The primal form, for explicit features.
    sklearn.svm.SVC : The maximum-margin classifier with the same kernels.

    Notes
    -----
    A presentation costs one kernel sum over the current support vectors, so an
    epoch is ``O(n_samples * n_support)`` once the kernel values are known.
    ``decision_function`` sums over the support vectors in the order training
    did, so a model that converged classifies every training point correctly.
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
        "kernel": [Options(_KERNELS), CALLABLE],
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
        "on_epoch": [NONE, CALLABLE],
        "class_weight": [NONE, Options(("balanced",)), InstanceOf((dict,))],
    }

    def __init__(
        self,
        kernel: str | Callable = "rbf",
        *,
        degree: int = 3,
        gamma: float | str | None = None,
        coef0: float = 1.0,
        kernel_params: dict | None = None,
        prediction: str = "averaged",
        eta: float = 1.0,
        max_iter: int = 100,
        shuffle: bool = True,
        random_state: RandomStateLike = None,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        cache_size: float = 512,
        on_epoch: Callable | None = None,
        class_weight: dict | str | None = None,
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
        self.on_epoch = on_epoch
        self.class_weight = class_weight

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # ------------------------------------------------------------------ options
    def _check_params(self):
        """Cross-parameter checks, with errors that say what to do."""
        validate_params(self)
        if isinstance(self.class_weight, dict):
            check_class_weight(self.class_weight, type(self).__name__)
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

    def _kernel_function(self):
        if callable(self.kernel) or self.kernel == "precomputed":
            return Kernel(self.kernel, params=self.kernel_params)
        return Kernel(self.kernel, gamma=self.gamma_, coef0=self.coef0, degree=self.degree)

    # ------------------------------------------------------------------ fit
    def fit(
        self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> KernelPerceptron:
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
        target = label_indices(self.classes_, y)
        sample_weight = class_weighted(sample_weight, self.class_weight, self.classes_, target)
        if np.unique(y[sample_weight > 0]).shape[0] < 2:
            raise ValueError(
                f"{name} needs samples of at least two classes with a positive "
                "sample_weight; the weights leave only one class."
            )
        self.gamma_ = self._resolve_gamma(X)
        Y = self._targets(y)
        state = DualState.allocate(Y.shape[0], n)
        table = KernelTable(
            self._kernel_function().training_rows(X), n, float(self.cache_size) * _MB
        )
        rng = random_source(self.random_state)
        eta, s2 = float(self.eta), self._s2

        def epoch(active):
            order = epoch_order(rng, n, "full" if self.shuffle else "none")[0]
            return state.epoch(table, order, Y, sample_weight, eta, s2, active)

        history = run_epochs(
            epoch,
            n_units=Y.shape[0],
            max_epochs=self.max_iter,
            owner=name,
            advice=_ADVICE,
            credit=state.credit,
            on_epoch=self.on_epoch,
            model=self,
        )
        self.mistakes_per_epoch_ = history.mistakes_per_epoch
        self.n_iter_ = history.n_iter
        self.n_mistakes_ = history.n_mistakes
        self.converged_ = history.converged
        self._set_fitted(X, state)
        return self

    def _targets(self, y):
        """±1 targets, one row per dual problem."""
        if self.classes_.shape[0] == 2:
            return np.where(y == self.classes_[1], 1.0, -1.0)[np.newaxis, :]
        return np.where(y[np.newaxis, :] == self.classes_[:, np.newaxis], 1.0, -1.0)

    def _set_fitted(self, X, state):
        self.training_state_ = state
        self.support_ = state.support()
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = X[self.support_]
        coef = state.coefficients(averaged=self.prediction == "averaged")
        self.dual_coef_ = coef[:, self.support_]
        self.intercept_ = self._s2 * self.dual_coef_.sum(axis=1)
        self.n_presented_ = state.n_seen.copy()
        position = np.full(X.shape[0], -1, dtype=np.int64)
        position[self.support_] = np.arange(self.support_.shape[0])
        samples, self.update_coef_, self.update_time_, counts = state.updates()
        self.update_support_ = position[samples]
        self.update_ptr_ = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)

    # ------------------------------------------------------------------ predict
    def _summation_order(self):
        """Per problem, the columns of ``dual_coef_`` in the order they became support
        vectors (their first update): the order training summed scores in."""
        ptr, columns = [0], []
        for p in range(self.dual_coef_.shape[0]):
            updated = self.update_support_[self.update_ptr_[p] : self.update_ptr_[p + 1]]
            _, first = np.unique(updated, return_index=True)
            columns.append(updated[np.sort(first)])
            ptr.append(ptr[-1] + first.shape[0])
        columns = np.concatenate(columns) if columns else np.empty(0)
        return np.asarray(ptr, dtype=np.int64), columns.astype(np.int64)

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Score of each sample; its sign (two classes) or argmax gives the class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Patterns, or for ``kernel="precomputed"`` their (n_samples,
            n_training_samples) kernel values against the training samples.

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
            ``f(x)``, summed over the support vectors in training's order, or for
            ``prediction="voted"`` the survival-weighted vote normalised to ``[-1, 1]``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        n_problems = self.dual_coef_.shape[0]
        scores = np.empty((X.shape[0], n_problems))
        kernel = self._kernel_function()
        order = None if self.prediction == "voted" else self._summation_order()
        rows = max(1, PREDICT_BLOCK_ELEMENTS // max(1, self.support_.shape[0]))
        for batch in gen_batches(X.shape[0], rows):
            K = kernel.against(X[batch], self.support_vectors_, self.support_)
            if order is None:
                scores[batch] = vote_scores(
                    K,
                    self.update_ptr_,
                    self.update_support_,
                    self.update_coef_,
                    self.update_time_,
                    self.n_presented_,
                    self._s2,
                )
            else:
                scores[batch] = decision_scores(K, self.dual_coef_, *order, self._s2)
        return scores.ravel() if n_problems == 1 else scores

    def predict(self, X: MatrixLike) -> np.ndarray:
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
