"""KernelPerceptron: the perceptron's dual form (lecture notes, remarks 3-4 on the perceptron).

The estimator validates its input and parameters; the training state, the
kernel values and the epochs belong to the engine (:mod:`rosenblatt.engine.dual`,
:func:`rosenblatt.engine.train`).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if

from .._core.validation import (
    BOOL,
    CALLABLE,
    NONE,
    RANDOM_STATE,
    InstanceOf,
    Interval,
    NonZero,
    Options,
    canonical_rows,
    check_class_weight,
    check_not_empty,
    is_label_matrix,
    validate,
    validate_params,
)
from ..engine.driver import EpochCount, StopRule, train
from ..engine.dual import DualState
from ..engine.orders import random_source
from ..engine.problems import BatchEpochs, DualProblem
from ._budget import BudgetMixin
from ._kernel_expansion import KernelExpansionMixin
from ._kernel_helpers import (
    KERNEL_PARAMS,  # noqa: F401  (the parameters each named kernel takes; _invariants reads it)
    KERNELS,
    advice,
    kernel_can_grow,
    kernel_table,
)
from ._online import OnlineLearnerMixin

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike, MatrixLike, RandomStateLike
    from ..engine.driver import EpochReport


class KernelPerceptron(
    KernelExpansionMixin, BudgetMixin, OnlineLearnerMixin, ClassifierMixin, BaseEstimator
):
    """The kernel perceptron: Rosenblatt's rule run on the dual variables.

    The weight vector of a perceptron started at zero is always a combination
    of the training patterns, ``w = sum_j alpha_j y_j phi(x_j)``: the perceptron's
    dual form (lecture notes, remarks 3-4 on the perceptron). Learning the counts
    ``alpha_j`` instead of ``w`` needs the patterns only through inner products
    ``K(x_j, x) = phi(x_j) . phi(x)``, so a kernel gives the perceptron a
    nonlinear decision boundary:
    ``f(x) = sum_j alpha_j y_j K'(x_j, x)``. On a mistake, ``y_i f(x_i) <= 0``,
    ``alpha_i += eta * sample_weight_i``. The intercept is the weight of a constant
    input ``s = intercept_scaling`` appended to ``phi(x)``, as in the linear
    :class:`~rosenblatt.estimators.linear.Perceptron`; in the dual that is the kernel
    ``K'(x, z) = K(x, z) + s**2``. With ``kernel="linear"`` and
    ``prediction="last"`` the model is the linear perceptron, mistake for mistake.

    Multi-class problems are learnt one-vs-rest: one dual problem per class,
    all presented the same sequence of orders; each stops after its first
    error-free epoch. A 0/1 indicator matrix ``y`` of shape (n_samples, n_labels)
    (multilabel) is learnt the same way, one dual problem per label, each the one
    a binary fit on its column gives; ``predict`` then gives the indicator matrix.
    ``partial_fit`` learns online, a batch at a time.

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
        ``fit``, (n_test, n_samples) against the training samples later
        (``partial_fit`` needs a named or callable kernel).
    degree : int, default=3
        Degree of the ``"poly"`` kernel ``(gamma x.z + coef0) ** degree``.
    gamma : float, {"scale", "auto"} or None, default=None
        Coefficient of ``"poly"``, ``"rbf"`` (``exp(-gamma |x - z|**2)``) and
        ``"sigmoid"`` (``tanh(gamma x.z + coef0)``). None or ``"scale"`` means
        ``1 / (n_features * X.var())`` over the training data (1 when the variance
        is 0), scikit-learn's ``"scale"``: it makes ``gamma |x - z|**2`` of order 1
        whatever the units of the features. ``"auto"`` means ``1 / n_features``.
        The value is resolved once (``gamma_``), on the data of the first ``fit``
        or the first ``partial_fit`` batch, and kept while training goes on.
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
    tol : float or None, default=1e-3
        Training ends, without a warning, when the weighted mistake fraction (the
        summed weight, sample weight times class weight, of the presentations that
        made a mistake over that of every presentation) has not fallen by more than
        ``tol`` below its best for ``n_iter_no_change`` epochs in a row (the linear
        perceptrons' rule); an
        error-free epoch ends it first. ``None``: run to the first error-free epoch
        or ``max_iter``.
    n_iter_no_change : int, default=5
        Half the linear perceptrons' 10: a kernel epoch costs far more, and on
        digits, spambase and 10,000 noisy rows (``benchmarks/kernel_defaults.py``)
        the five epochs more changed the accuracy by less than 0.01.
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
        linear perceptrons; "balanced" weighs classes inversely to their size
        (not with ``partial_fit``, which never sees the whole distribution).
    budget : int or None, default=None
        The most support vectors the model keeps (``len(support_) <= budget``
        during ``fit``, ``partial_fit`` and streaming). None: every pattern the
        perceptron errs on is kept, so memory and the cost of a prediction grow
        with noisy data. With several classes each one-vs-rest problem gets an
        equal share, ``budget // n_classes``.
    budget_policy : {"stop", "random", "forgetron"}, default="stop"
        What a mistake does once the budget is full. ``"stop"``: nothing, unless the
        pattern is a support vector already (the Stoptron). ``"random"``: the
        pattern replaces a support vector drawn uniformly at random (the Randomized
        Budget Perceptron, Cavallanti, Cesa-Bianchi and Gentile 2007; draws from
        ``random_state``). ``"forgetron"``: every coefficient shrinks by the
        largest factor that keeps the Forgetron's damage bound, and the oldest
        support vector leaves (the self-tuned Forgetron, Dekel, Shalev-Shwartz and
        Singer 2008; its coefficients are measured in units of ``eta``). The two
        policies that remove support vectors need ``prediction="last"``: the
        average or the vote of every hypothesis would need the removed patterns.
        The default, the Stoptron with the averaged prediction, was the most
        accurate policy on breast cancer, wine and digits (three splits each, a
        budget of 10 per class) and on 100,000 noisy rows (``benchmarks/budget.py``).
    warm_start : bool, default=False
        Let ``fit`` go on from the previous fit's dual coefficients, their
        averages and update record (the linear perceptrons' warm start). On the
        same training data (the support vectors are the same rows of ``X``) the
        samples keep their coefficients, and ``fit(max_iter=3)`` then
        ``fit(max_iter=2)`` is ``fit(max_iter=5)`` when the epochs see the same
        orders (``shuffle=False``, or one ``RandomState`` passed as
        ``random_state``; a seed starts its orders again, as in the linear
        perceptrons). On other data the earlier support vectors keep their
        coefficients and the new samples are learnt against them, as
        ``partial_fit`` does, for up to ``max_iter`` epochs over the new samples.
        With ``kernel="precomputed"``, ``X`` must be the kernel matrix of the same
        training samples.
    verbose : int, default=0
        Print the mistakes of every epoch (as the linear perceptrons do).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels; for a label matrix ``y``, its columns ``0 .. n_labels-1``.
    multilabel_ : bool
        Whether ``y`` was a label matrix (one dual problem per label).
    dual_coef_ : ndarray of shape (n_problems, n_support)
        ``alpha_j y_j`` of each support vector in each dual problem (one problem
        for two classes, else one per class), last or averaged as ``prediction``
        says (for ``"voted"``: the last hypothesis).
    intercept_ : ndarray of shape (n_problems,)
        ``s**2 * dual_coef_.sum(axis=1)``: the part of ``f`` due to the constant
        input, so ``f(x) = K(x, support_vectors_) @ dual_coef_.T + intercept_``.
    support_ : ndarray of shape (n_support,)
        Indices of the training samples that were updated on, in any problem:
        rows of ``fit``'s ``X``. When training went on with new samples
        (``partial_fit``, a warm-started ``fit`` on other data), the samples are
        numbered through every batch, in the order given (the second batch's
        first sample comes after the first batch's last).
    support_vectors_ : ndarray or sparse matrix of shape (n_support, n_features)
        Those samples (empty for a precomputed kernel), float32 when the training
        data was.
    gamma_ : float or None
        The gamma used (None for kernels without one).
    n_iter_ : int
        Epochs run by the last ``fit``, plus one per ``partial_fit`` call since.
    n_mistakes_ : int
        Total number of prediction mistakes (``y f(x) <= 0``) in those epochs, over
        all problems.
    mistakes_per_epoch_ : list of int
        Prediction mistakes in each of those epochs, over all problems: with
        ``max_iter=1, shuffle=False`` on two classes, ``mistakes_per_epoch_[0] /
        n_samples`` is the online error rate. Without a budget every mistake is
        an update; a full Stoptron errs without updating.
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
        rebuilds every hypothesis and its survival count from them. Under a budget
        that removes support vectors, the updates of the current support vectors.
    n_features_in_ : int
    training_state_ : rosenblatt.engine.DualState
        The coefficients of every training sample, their accumulators and every
        update, per problem; ``partial_fit``, ``warm_start`` and model files go on
        from it.

    See Also
    --------
    rosenblatt.estimators.linear.Perceptron : The primal form, for explicit features.
    sklearn.svm.SVC : The maximum-margin classifier with the same kernels.

    Notes
    -----
    A presentation costs one kernel sum over the current support vectors, so an
    epoch is ``O(n_samples * n_support)`` once the kernel values are known.
    ``decision_function`` sums over the support vectors in the order training
    did, so a model that converged classifies every training point correctly.
    Float32 patterns stay float32 (``support_vectors_``, half the memory of
    float64); kernel values are computed in float64 from them, converting a
    block of rows at a time, and held in float64, so float32 data gives the
    model its float64 copy would give. Other patterns are converted to float64.
    Continued training (``partial_fit``, ``warm_start``) keeps the first data's
    dtype and must keep the kernel parameters.
    Sample weights multiply the update step; they are not equivalent to
    repeating samples, which would be presented (and could err) several times.

    Examples
    --------
    XOR is not linearly separable, but it is with the degree-2 monomials:

    >>> import numpy as np
    >>> from rosenblatt.estimators.kernel import KernelPerceptron
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> y = np.array([0, 1, 1, 0])
    >>> clf = KernelPerceptron(kernel="poly", degree=2, random_state=0).fit(X, y)
    >>> clf.predict(X)
    array([0, 1, 1, 0])
    >>> clf.converged_, clf.support_
    (True, array([0, 1, 2, 3]))

    With ``warm_start=True`` a second ``fit`` goes on from the first one's
    coefficients, which already separate the data:

    >>> warm = KernelPerceptron(kernel="poly", degree=2, random_state=0, warm_start=True)
    >>> warm.fit(X, y).n_iter_, warm.fit(X, y).n_iter_
    (7, 1)
    """

    _parameter_constraints = {
        "kernel": [Options(KERNELS), CALLABLE],
        "degree": [Interval(numbers.Integral, 0, None)],
        "gamma": [NONE, Options(("scale", "auto")), Interval(numbers.Real, 0, None, "neither")],
        "coef0": [Interval(numbers.Real, None, None)],
        "kernel_params": [NONE, InstanceOf((dict,))],
        "prediction": [Options(("last", "averaged", "voted"))],
        "eta": [Interval(numbers.Real, 0, None, "neither")],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [NONE, Interval(numbers.Real, 0, None, closed="left")],
        "n_iter_no_change": [Interval(numbers.Integral, 1, None, closed="left")],
        "shuffle": [BOOL],
        "random_state": [RANDOM_STATE],
        "fit_intercept": [BOOL],
        "intercept_scaling": [NonZero()],
        "cache_size": [Interval(numbers.Real, 0, None, "neither")],
        "on_epoch": [NONE, CALLABLE],
        "class_weight": [NONE, Options(("balanced",)), InstanceOf((dict,))],
        "budget": [NONE, Interval(numbers.Integral, 1, None)],
        "budget_policy": [Options(("stop", "random", "forgetron"))],
        "warm_start": [BOOL],
        "verbose": [Interval(numbers.Integral, 0, None, closed="left")],
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
        tol: float | None = 1e-3,
        n_iter_no_change: int = 5,
        shuffle: bool = True,
        random_state: RandomStateLike = None,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        cache_size: float = 512,
        on_epoch: Callable | None = None,
        class_weight: dict | str | None = None,
        budget: int | None = None,
        budget_policy: str = "stop",
        warm_start: bool = False,
        verbose: int = 0,
    ):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.kernel_params = kernel_params
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
        self.budget = budget
        self.budget_policy = budget_policy
        self.warm_start = warm_start
        self.verbose = verbose

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
        self._check_budget_params()
        if self.kernel_params is not None and not callable(self.kernel):
            raise ValueError(
                f"kernel_params is only passed to a callable kernel; for kernel="
                f"{self.kernel!r} set gamma, degree and coef0 instead, or leave "
                "kernel_params=None."
            )

    # ------------------------------------------------------------------ input
    def _validate_input(self, X, y, reset):
        X, y = validate(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
            reset=reset,
            multi_output=is_label_matrix(y),  # a label matrix (multilabel), checked by encode
        )
        check_not_empty(X)
        X = canonical_rows(X)
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"With kernel='precomputed', X must be the square kernel matrix of the "
                f"training samples; got a matrix of shape {X.shape}."
            )
        if not reset and self.kernel != "precomputed":
            X = X.astype(self.support_vectors_.dtype, copy=False)  # one dtype per model
        return X, y

    # ------------------------------------------------------------------ training
    def _train(self, state, patterns, Y, sample_weight, rng, stop, on_epoch, verbose):
        """Train the dual problems on the first ``Y.shape[1]`` samples of ``state`` (the new
        ones; ``patterns`` holds every sample's pattern, or the kernel matrix) until
        ``stop`` (a StopRule) says so, shown through ``on_epoch`` and ``verbose``; the
        engine's History."""
        table = kernel_table(self._kernel_function(), state, patterns, Y.shape[1], self.cache_size)
        problem = DualProblem(
            state, table, Y, sample_weight, self.eta, self._s2, rng, bool(self.shuffle)
        )
        return train(
            problem,
            stop,
            owner=type(self).__name__,
            advice=advice(),
            on_epoch=on_epoch,
            verbose=verbose,
            model=self,
        )

    def fit_batches(
        self,
        batches: Callable[[], Iterable[tuple[MatrixLike, ArrayLike]]],
        classes: ArrayLike | None = None,
        *,
        max_iter: int | None = None,
        limit: str = "max_iter",
    ) -> KernelPerceptron:
        """Learn online from data that arrives in batches (:func:`rosenblatt.fit_stream`).

        Every epoch calls ``batches()`` and learns each batch it yields as
        ``partial_fit`` does: a batch's samples are new to the kernel expansion, so over
        several epochs a pattern may join the support vectors again (with a ``budget``
        the support set, hence memory, stays bounded however long the stream). The
        engine runs the epochs under the model's stop rule (an epoch without a mistake,
        ``tol``, or ``max_iter`` with a ``ConvergenceWarning``), as for the linear
        perceptrons; ``mistakes_per_epoch_`` counts whole epochs.

        Parameters
        ----------
        batches : callable() -> iterable of (X, y)
        classes : array-like of shape (n_classes,), default=None
            Every label of the data (a label outside them is an error); None: the labels
            of the first batch, and a batch holding a label never seen adds a class, as
            ``partial_fit`` without ``classes`` does.
        max_iter : int, default=None
            Most epochs (default: the ``max_iter`` parameter); each is one pass, online.
        limit : str, default="max_iter"
            What the caller's users call ``max_iter`` (``fit_stream``: ``"epochs"``), for
            the ``ConvergenceWarning``.

        Returns
        -------
        self
        """
        if not (self.warm_start and hasattr(self, "training_state_")):
            self.__dict__.pop("training_state_", None)  # a fresh fit starts online anew
        history = train(
            BatchEpochs(batches, lambda batch, active: self._learn(batch, classes)),
            StopRule.of(self, max_iter, credit=False, limit=limit),
            owner=type(self).__name__,
            advice=advice(),
            on_epoch=self.on_epoch,
            verbose=self.verbose,
            model=self,
        )
        self._keep_history(history)
        return self

    def _learn(self, batch: tuple[Any, Any], classes: Any) -> EpochCount:
        """One batch ``(X, y)`` of ``fit_batches``, learnt as ``partial_fit`` learns it but quietly
        (the caller's callback and lines hear whole epochs, from the engine); what its
        epoch counted, for the model as a whole."""
        kernel_can_grow(self)  # partial_fit's condition: a precomputed kernel cannot grow
        reports: list[EpochReport] = []
        # classes given to the run hold for its batches; the model's classes stay open after
        self._partial_fit(*batch, classes, None, reports.append, 0, fixes=False)
        (report,) = reports  # one epoch
        return EpochCount(
            np.array([report.mistakes], dtype=np.int64),
            report.presented,
            np.array([report.mistake_weight]),
            report.presented_weight,
        )

    # ------------------------------------------------------------------ fit
    def fit(
        self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> KernelPerceptron:
        """Run the dual perceptron until an epoch makes no mistake, or ``max_iter`` epochs.

        With ``warm_start=True`` and a fitted model, training goes on from its
        coefficients (see ``warm_start``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training patterns (float32 input is kept in float32), or the
            (n_samples, n_samples) kernel matrix when ``kernel="precomputed"``.
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels (at least two classes), or a 0/1 indicator matrix of
            ``n_labels >= 2`` labels (multilabel): one dual problem per label, each
            the one a binary fit on its column gives.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each sample's update step; zero-weight samples are skipped.

        Returns
        -------
        self
        """
        self._check_params()
        continuing = self.warm_start and hasattr(self, "training_state_")
        X, y = self._validate_input(X, y, reset=not continuing)
        if continuing:
            self._check_gamma_kept()
            self._check_budget_kept()
        else:
            self.classes_, self.multilabel_ = self._classes_of(y)
        target = self._encode(y)
        sample_weight = self._sample_weight(sample_weight, target, X.shape[0])
        if continuing:
            state, patterns = self._continued(X)
        else:
            if not self._multilabel:  # a label may be all 0 or all 1: its neuron learns that
                self._check_two_classes_weighted(target, sample_weight)
            self.gamma_ = self._resolve_gamma(X)
            budget = self._budget_state(self._n_problems)
            state, patterns = DualState.allocate(self._n_problems, X.shape[0], budget), X
        history = self._train(
            state,
            patterns,
            self._targets(target),
            sample_weight,
            random_source(self.random_state),
            StopRule.of(self),
            self.on_epoch,
            self.verbose,
        )
        self._keep_history(history)
        self._set_fitted(patterns, state)
        return self

    def _check_two_classes_weighted(self, target, sample_weight):
        if np.unique(target[sample_weight > 0]).shape[0] < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least two classes with a "
                "positive sample_weight; the weights leave only one class."
            )

    @available_if(kernel_can_grow)
    def partial_fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        classes: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> KernelPerceptron:
        """Run one epoch over the given batch, continuing from the current model (online).

        The model is a kernel expansion over its support vectors, so the batch
        is learnt against the support vectors so far plus the batch itself: only
        the batch is presented (in a fresh order when ``shuffle``), and its
        samples that are updated on join the support vectors; the averages and
        the vote record go on counting presentations. Calls on the batches of a
        data set, in order, with ``shuffle=False``, give the model of one ``fit``
        epoch over the whole data set (``max_iter=1``), for every
        ``prediction``, when gamma is a number: ``gamma`` is resolved on the
        first batch (``"scale"``: its variance) and kept. Not available with
        ``kernel="precomputed"``: ``X`` would have to hold the new batch's kernel
        values against every earlier support vector.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Float32 input is kept in float32 (later batches take the first one's dtype).
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels, or a 0/1 indicator matrix (multilabel; every call the
            same ``n_labels`` columns).
        classes : array-like of shape (n_classes,), default=None
            Every label that will ever be seen, given on the first call: the classes are
            then fixed, and a label outside them is an error. Left out, the first call
            takes the labels of its ``y`` and a later call whose ``y`` holds a label never
            seen adds a class: a dual problem starting at zero (one-vs-rest, as
            :meth:`Perceptron.partial_fit
            <rosenblatt.estimators.linear.Perceptron.partial_fit>` says; not with a
            ``budget``, which is shared out among the problems when training starts).
            Given on a later call, they must hold every class of the model and may add new
            ones. For an indicator matrix ``y``: its columns (leave it out, or
            pass ``0 .. n_labels-1``).
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self

        Examples
        --------
        XOR in two batches:

        >>> import numpy as np
        >>> from rosenblatt.estimators.kernel import KernelPerceptron
        >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
        >>> y = np.array([0, 1, 1, 0])
        >>> clf = KernelPerceptron(gamma=1.0, prediction="last", shuffle=False)
        >>> clf = clf.partial_fit(X[:2], y[:2]).partial_fit(X[2:], y[2:])
        >>> clf.predict(X), clf.support_, clf.mistakes_per_epoch_
        (array([0, 1, 1, 0]), array([0, 1, 2, 3]), [2, 2])

        A batch is always new data: presented again, the four patterns are
        samples 4 to 7, and would become support vectors of their own if they
        were misclassified (they are not). To run epochs over the same data,
        use ``fit`` with ``warm_start=True``.

        >>> clf.partial_fit(X, y).support_, clf.mistakes_per_epoch_
        (array([0, 1, 2, 3]), [2, 2, 0])

        A label never seen adds a class:

        >>> clf.partial_fit([[2, 2]], [2]).classes_, clf.dual_coef_.shape[0]
        (array([0, 1, 2]), 3)
        """
        self._partial_fit(X, y, classes, sample_weight, self.on_epoch, self.verbose)
        return self

    def _partial_fit(self, X, y, classes, sample_weight, on_epoch, verbose, fixes=True):
        """``partial_fit``, its epoch shown through ``on_epoch`` and ``verbose``; ``fixes``:
        whether ``classes`` given on the first call fix the model's classes."""
        self._check_params()
        first_call = not hasattr(self, "training_state_")
        X, y = self._validate_input(X, y, reset=first_call)
        coding, growth, fixed = None, None, False
        if first_call:
            self.classes_, self.multilabel_, fixed = self._first_classes(classes, y)
            self._forget_history()
        else:
            self._check_gamma_kept()
            self._check_budget_kept()
            coding, growth = self._coding_for(y, classes)
        target = self._encode(y, coding)
        sample_weight = self._sample_weight(
            sample_weight,
            target,
            X.shape[0],
            allow_balanced=False,
            classes=None if coding is None else coding.classes,
        )
        if first_call:
            self.gamma_ = self._resolve_gamma(X)
            budget = self._budget_state(self._n_problems)
            state, patterns = DualState.allocate(self._n_problems, X.shape[0], budget), X
            state.fixed_classes = fixed and fixes
        else:
            self._take_classes(coding, growth)  # the batch checked: nothing refused changes
            state, patterns = self._grown(X)
        rng = self._order_source(state)
        once = StopRule.of(self, 1, warn=False, credit=False)  # one epoch, no more
        Y = self._targets(target)
        history = self._train(state, patterns, Y, sample_weight, rng, once, on_epoch, verbose)
        self._keep_history(history, append=True)
        self._set_fitted(patterns, state)
