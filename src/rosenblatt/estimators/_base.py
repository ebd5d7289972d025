"""What the linear perceptrons share: parameters, validation, and training through the engine.

Estimators in :mod:`rosenblatt.estimators.linear` are thin subclasses that say whether
they average (``_averaged``) or vote (``_voted``). Training goes through
:mod:`rosenblatt.engine` one way: the state lives in a
:class:`~rosenblatt.engine.primal.PrimalState` (the fitted attribute
``training_state_``), and :func:`~rosenblatt.engine.driver.train` runs a
:class:`~rosenblatt.engine.problems.PrimalProblem` (presented a batch at a time by a
:class:`~rosenblatt.engine.problems.BatchEpochs` in ``fit_batches``) under a
:class:`~rosenblatt.engine.driver.StopRule`. ``fit`` is a reset followed by the
path of ``partial_fit``, run for up to ``max_iter`` epochs.

Nothing here imports scikit-learn: the estimators add its base classes
(:mod:`rosenblatt.estimators.linear`), and the same learners without them
(:mod:`rosenblatt.estimators._bare`) train and save for ``rosenblatt train`` without
loading it (about a second and a half of imports). What needs scikit-learn beyond the
readers' input (its checks of other input, ``class_weight="balanced"``, the
early-stopping split, the ``ConvergenceWarning``) imports it where it is needed.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.config import SPARSE_INTERCEPT_SCALING
from .._core.sparse import is_sparse
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
    check_classes,
    check_fitted,
    check_not_empty,
    check_same_classes,
    is_label_matrix,
    validate,
    validate_params,
)
from ..engine.driver import RunState, StopRule, train
from ..engine.orders import labels_look_sorted, random_source, resolve_mode, splitter_seed
from ..engine.primal import (
    Batch,
    PrimalRule,
    PrimalState,
    constant_input,
    scores,
    thread_count,
)
from ..engine.problems import NO_BATCH, BatchEpochs, PrimalProblem, order_source
from ._online import OnlineLearnerMixin

if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import Self  # typing's from Python 3.11

    from .._core.typing import ArrayLike, MatrixLike, RandomStateLike
    from ..engine.driver import History

_ADVICE = "The data may not be linearly separable; raise {limit}, or use AveragedPerceptron."
# averaged and voted predictions are already the remedy for data that is not separable
_ADVICE_COMBINED = (
    "The data may not be linearly separable; raise {limit}, or keep this model: its {kind} "
    "prediction does not need convergence."
)


class BaseLinearPerceptron(OnlineLearnerMixin):
    """Machinery shared by :class:`Perceptron`, :class:`AveragedPerceptron`,
    :class:`VotedPerceptron` and :class:`PassiveAggressive` (and their learners without
    scikit-learn's base classes); not meant to be used directly."""

    _averaged = False
    _voted = False
    _average_initial = True  # the average includes the initial weights (CIML Algorithm 7)

    _parameter_constraints = {
        "eta": [Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": [BOOL],
        "intercept_scaling": [NonZero(), Options(("auto",))],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "shuffle": [BOOL, Options(("full", "block"))],
        "random_state": [RANDOM_STATE],
        "multi_class": [Options(("ovr", "multinomial"))],
        "early_stopping": [BOOL],
        "validation_fraction": [Interval(numbers.Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [NONE, Interval(numbers.Real, 0, None, closed="left")],
        "class_weight": [Options(("balanced", None)), InstanceOf((dict,))],
        "warm_start": [BOOL],
        "verbose": [Interval(numbers.Integral, 0, None, closed="left")],
        "n_jobs": [NONE, Interval(numbers.Integral, None, None)],
        "on_epoch": [NONE, CALLABLE],
    }

    def __init__(
        self,
        *,
        eta: float = 1.0,
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
        self.eta = eta
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

    # ------------------------------------------------------------------ options
    @property
    def _batch(self) -> bool:
        return getattr(self, "mode", "online") == "batch"

    @property
    def _multinomial(self) -> bool:
        return self.multi_class == "multinomial"

    def _check_params(self) -> None:
        """Cross-parameter checks, with errors that say what to do."""
        validate_params(self)
        if self.n_jobs == 0:
            raise ValueError(
                "n_jobs=0 runs nothing; use None or 1 for one thread, -1 for all cores."
            )
        if self._batch and (self._averaged or self._voted):
            raise ValueError(
                f"{type(self).__name__} learns online; mode='batch' is only for Perceptron."
            )
        if isinstance(self.class_weight, dict):
            check_class_weight(self.class_weight, type(self).__name__)

    def _scaling(self) -> float:
        """The constant input of the fitted model (``intercept_scaling`` resolved)."""
        return self.intercept_scaling_

    def _resolve_scaling(self, sparse) -> float:
        """``intercept_scaling``, with "auto" as 1.0 for dense rows and
        ``SPARSE_INTERCEPT_SCALING`` for sparse ones."""
        if self.intercept_scaling == "auto":
            return SPARSE_INTERCEPT_SCALING if sparse else 1.0
        return float(self.intercept_scaling)

    def _rule(self) -> PrimalRule:
        bias_input = constant_input(self.fit_intercept, self._scaling())
        threads = (
            1 if self._multinomial else thread_count(self.n_jobs, self.training_state_.n_units)
        )
        step, eta, C = self._step()
        return PrimalRule(float(eta), bias_input, self._batch, threads, step, float(C))

    def _step(self) -> tuple[str, float, float]:
        """The update's step (``PrimalRule.step``), its learning rate and its bound ``C``:
        Rosenblatt's, by ``eta``."""
        return "perceptron", self.eta, 1.0

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ------------------------------------------------------------------ input
    def _validate_input(self, X, y, reset):
        X, y = validate(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
            order="C",
            reset=reset,
            multi_output=is_label_matrix(y),  # a label matrix (multilabel), checked by encode
        )
        check_not_empty(X)
        X = canonical_rows(X)
        if not reset and X.dtype != self.training_state_.dtype:
            X = X.astype(self.training_state_.dtype)
        return X, y

    def _batch_of(self, X, y, sample_weight=None, *, allow_balanced=True, coding=None, growth=None):
        """The engine's :class:`~rosenblatt.engine.primal.Batch` of ``(X, y)``, its labels
        coded by ``coding`` (default: the model's; a grown one, with the ``growth`` the
        batch brings, :meth:`_coding_for`)."""
        target = self._encode(y, coding)
        weights = self._sample_weight(
            sample_weight,
            target,
            X.shape[0],
            allow_balanced=allow_balanced,
            classes=None if coding is None else coding.classes,
        )
        return Batch(X, target, weights, growth)

    def _growing_batch(self, X, y, sample_weight=None):
        """The batch of a model that learns the classes it meets: ``y``'s new labels join
        it (after every check, so that a refused batch changes nothing)."""
        coding, growth = self._coding_for(y)
        batch = self._batch_of(
            X, y, sample_weight, allow_balanced=False, coding=coding, growth=growth
        )
        self._take_classes(coding, growth)
        return batch

    # ------------------------------------------------------------------ state
    def _start(self, classes, multilabel, n_features, dtype, sparse):
        """A fresh state for ``classes`` (the columns of a label matrix when
        ``multilabel``) and ``n_features`` (what ``fit`` resets to)."""
        if multilabel:
            self._check_multilabel_allowed()
        self.classes_ = classes
        self.multilabel_ = bool(multilabel)
        self.intercept_scaling_ = self._resolve_scaling(sparse)
        self.training_state_ = PrimalState.allocate(
            classes.shape[0],
            n_features,
            dtype,
            averaged=self._averaged,
            voted=self._voted,
            multinomial=self._multinomial,
            multilabel=multilabel,
        )
        self._forget_history()

    def set_training_state(
        self,
        state: PrimalState,
        classes: ArrayLike,
        *,
        history: History | None = None,
        sparse: bool = False,
        multilabel: bool = False,
    ) -> Self:
        """Continue from ``state`` (a :class:`~rosenblatt.engine.primal.PrimalState`).

        The estimator becomes fitted with these weights: ``predict`` uses them, and
        ``partial_fit`` (or ``fit`` with ``warm_start=True``) trains on from them.
        Parameter mixing hands the mixed weights to each partition this way.

        Parameters
        ----------
        state : PrimalState
            A state of the same kind (averaged, voted, multinomial) as this estimator.
        classes : array-like of shape (n_classes,)
            The sorted class labels the state's rows stand for.
        history : rosenblatt.engine.History, default=None
            The epochs that produced the state (``n_iter_``, ``mistakes_per_epoch_``,
            ``converged_``); none by default.
        sparse : bool, default=False
            Whether the state was trained on sparse rows (what ``intercept_scaling="auto"``
            resolves by).
        multilabel : bool, default=False
            Whether the state is a layer of neurons trained on a label matrix
            (``classes`` then are its columns, ``0 .. M-1``).

        Returns
        -------
        self
        """
        self._check_params()
        classes = check_classes(np.asarray(classes), type(self).__name__)
        if multilabel:
            self._check_multilabel_allowed()
            if not np.array_equal(classes, np.arange(classes.shape[0])):
                raise ValueError(
                    f"a label matrix's classes are its columns 0 .. M-1; got {classes.tolist()!r}"
                )
        expected = PrimalState.allocate(
            classes.shape[0],
            1,
            state.dtype,
            averaged=self._averaged,
            voted=self._voted,
            multinomial=self._multinomial,
            multilabel=multilabel,
        )
        if (state.n_rows, state.multinomial, state.averaged, state.votes is not None) != (
            expected.n_rows,
            expected.multinomial,
            expected.averaged,
            expected.votes is not None,
        ):
            raise ValueError(
                f"The state does not fit a {type(self).__name__} with {classes.shape[0]} "
                f"classes and multi_class={self.multi_class!r}; pass a state trained by the "
                "same kind of estimator."
            )
        self.classes_ = classes
        self.multilabel_ = bool(multilabel)
        self.intercept_scaling_ = self._resolve_scaling(sparse)
        self.n_features_in_ = state.n_features
        self.training_state_ = state
        self._forget_history()
        if history is not None:
            self._keep_history(history)
        self._set_public_weights()
        return self

    # ------------------------------------------------------------------ training
    def _advice(self, limit: str) -> str:
        """What the ConvergenceWarning suggests (``limit``: the parameter that caps epochs)."""
        if self._averaged or self._voted:
            kind = "averaged" if self._averaged else "voted"
            return _ADVICE_COMBINED.format(limit=limit, kind=kind)
        return _ADVICE.format(limit=limit)

    def _train(self, data, rng, stop, run=None, after_batch=None):
        """Train the state on ``data`` (a Batch, or what reads each epoch's Batches) until
        ``stop`` (a StopRule) says so; the engine's History. ``run``, ``after_batch()``:
        see ``fit_batches``."""
        in_memory = isinstance(data, Batch)
        problem: Any = PrimalProblem(
            self.training_state_, self._rule(), data if in_memory else None, rng, self.shuffle
        )
        if not in_memory:  # each batch presented in its own order, the epoch counted whole
            problem = BatchEpochs(
                data, problem.present, problem=problem, run=run, after_batch=after_batch
            )
        return train(
            problem,
            stop,
            owner=type(self).__name__,
            advice=self._advice(stop.limit),
            on_epoch=self.on_epoch,
            verbose=self.verbose,
            model=self,
            run=run,
        )

    def _warn_if_sorted(self, batch):
        if resolve_mode(self.shuffle, batch.n_samples) != "block":
            return
        labels = batch.target.T.astype(np.int64) if batch.multilabel else [batch.target]
        if any(labels_look_sorted(column) for column in labels):
            warnings.warn(
                f"{type(self).__name__}: the training labels look sorted, and block "
                "shuffling (used for data this large) mixes only within blocks of "
                "neighbouring rows. Shuffle the rows once before fitting, or pass "
                "shuffle='full'.",
                UserWarning,
                stacklevel=3,
            )

    # ------------------------------------------------------------------ public API
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Train until an epoch makes no mistake, or for ``max_iter`` epochs.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training patterns; float32 input is kept in float32.
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels (at least two classes), or a 0/1 indicator matrix of
            ``n_labels >= 2`` labels (multilabel, scikit-learn's convention; dense or
            sparse): one independent neuron per label, all trained in one pass over
            the data, each exactly as a binary fit on its column would train it
            (``classes_`` becomes ``0 .. n_labels-1``, ``multilabel_`` True).
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each pattern's update step; zero-weight samples are skipped.

        Returns
        -------
        self

        Examples
        --------
        Three labels per sample (the lecture notes' layer of independent neurons):

        >>> import numpy as np
        >>> from rosenblatt import Perceptron
        >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, -1.0]])
        >>> Y = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1], [0, 0, 0]])
        >>> clf = Perceptron(random_state=0).fit(X, Y)
        >>> clf.classes_, clf.coef_.shape
        (array([0, 1, 2]), (3, 2))
        >>> clf.predict(X)
        array([[1, 0, 1],
               [0, 1, 1],
               [1, 1, 1],
               [0, 0, 0]])
        """
        self._check_params()
        continuing = self.warm_start and hasattr(self, "training_state_")
        X, y = self._validate_input(X, y, reset=not continuing)
        if not continuing:
            classes, multilabel = self._classes_of(y)
            self._start(classes, multilabel, X.shape[1], X.dtype, is_sparse(X))
        batch = self._batch_of(X, y, sample_weight)
        rng = random_source(self.random_state)
        validation_error = None
        if self.early_stopping:
            batch, validation_error = self._hold_out(batch, rng)
        self._warn_if_sorted(batch)
        history = self._train(batch, rng, StopRule.of(self, validation_error=validation_error))
        self._keep_history(history)
        self._set_public_weights()
        return self

    def partial_fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        classes: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """Run one epoch over the given batch, continuing from the current weights.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels, or a 0/1 indicator matrix (multilabel; every call the
            same ``n_labels`` columns).
        classes : array-like of shape (n_classes,), default=None
            Every label that will ever be seen, given on the first call: the classes are
            then fixed, and a label outside them is an error. Left out, the first call
            takes the labels of its ``y`` (the model ``classes=np.unique(y)`` gives) and a
            later call whose ``y`` holds a label never seen adds a class (see "Classes that
            appear" below). Given on a later call, they must hold every class of the
            model and may add new ones. For an indicator matrix ``y`` the classes are its
            columns, ``0 .. n_labels-1`` (leave it out, or pass those).
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self

        Notes
        -----
        Classes that appear: ``classes_`` stays sorted (the order of ``np.unique``), so a
        model whose classes grew has the layout of one given every class up front.
        ``multi_class="multinomial"``: a new class's row starts at zero, averaging sums
        too; the model is exactly, bit for bit, the one given every class on the first
        call in which a class can neither be predicted nor updated before the call that
        first holds its label. One-vs-rest: a new class's neuron starts at zero with no
        presentation counted, so it has missed the negatives of the calls before (it is
        the neuron a run of the calls from there on gives). Two classes grown to more:
        the one neuron, which scored the second class, becomes that class's neuron as it
        is, and the first class's neuron is its negation, exactly the neuron "first class
        against the rest" learns from the same calls; the epochs before keep the count of
        mistakes of the one neuron. A model fitted on a label matrix gains no class.

        Examples
        --------
        The classes of a stream, as they come:

        >>> import numpy as np
        >>> from rosenblatt import Perceptron
        >>> X = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.0], [0.0, -2.0]])
        >>> clf = Perceptron(shuffle=False).partial_fit(X[:2], ["east", "west"])
        >>> clf.partial_fit(X, ["east", "west", "north", "south"]).classes_.tolist()
        ['east', 'north', 'south', 'west']
        >>> clf.predict(X).tolist()
        ['east', 'west', 'north', 'south']
        """
        self._check_params()
        if self.early_stopping:
            raise ValueError(
                "early_stopping=True holds out part of the data passed to fit; partial_fit "
                "trains on exactly the batch it is given. Use early_stopping=False with "
                "partial_fit (and keep your own validation data)."
            )
        first_call = not hasattr(self, "training_state_")
        X, y = self._validate_input(X, y, reset=first_call)
        coding, growth = None, None
        if first_call:
            classes, multilabel, fixed = self._first_classes(classes, y)
            self._start(classes, multilabel, X.shape[1], X.dtype, is_sparse(X))
            self.training_state_.fixed_classes = fixed
        else:
            coding, growth = self._coding_for(y, classes)
        batch = self._batch_of(X, y, sample_weight, allow_balanced=False, coding=coding)
        self._take_classes(coding, growth)  # the batch checked: nothing refused changes
        state = self.training_state_
        rng = self._order_source(state)
        history = self._train(batch, rng, StopRule.of(self, 1, warn=False, credit=False))
        self._keep_history(history, append=True)
        self._set_public_weights()
        return self

    def fit_batches(
        self,
        batches: Callable[[], Iterable[tuple[MatrixLike, ArrayLike]]],
        classes: ArrayLike | None = None,
        *,
        max_iter: int | None = None,
        limit: str = "max_iter",
        run: RunState | None = None,
        after_batch: Callable[[Callable[[], None]], Any] | None = None,
    ) -> Self:
        """Train epoch after epoch on data that arrives in batches (``fit`` out of core).

        Every epoch calls ``batches()`` and presents each batch it yields once, in
        a fresh order of its own (``shuffle``, from ``random_state``), to the
        neurons still learning. Training stops after the first epoch without a
        mistake, or after ``max_iter`` epochs with a ``ConvergenceWarning``, as
        ``fit`` does; the history counts whole epochs. :func:`rosenblatt.fit_stream`
        trains on files this way.

        Parameters
        ----------
        batches : callable() -> iterable of (X, y)
            The batches of one epoch, in the order to present them (resumed: the
            first call gives the rest of the current epoch's).
        classes : array-like of shape (n_classes,), default=None
            Every label of the data (a label outside them is an error). None: the labels
            of the first batch, and a batch holding a label never seen adds a class, as
            ``partial_fit`` without ``classes`` does (the batch is the one in which the
            class appears; standard input streams so).
        max_iter : int, default=None
            Most epochs (default: the ``max_iter`` parameter).
        limit : str, default="max_iter"
            What the caller's users call ``max_iter`` (``fit_stream``: ``"epochs"``),
            for the ``ConvergenceWarning``.
        run : RunState, default=None
            Where the run stands, kept up to date after every batch (with the order
            source): what a checkpoint saves. One that has started (read from a
            checkpoint) is resumed: this estimator must then be the one saved with it.
        after_batch : callable(publish), default=None
            Called after every batch; ``publish()`` sets the fitted attributes to what
            the run has learnt so far, so that the estimator can be saved mid-run.

        Returns
        -------
        self
        """
        self._check_params()
        if self.early_stopping:
            raise ValueError(
                "early_stopping needs the data in memory (use fit); with "
                "batches, pass early_stopping=False."
            )
        if classes is not None:
            classes = check_classes(np.asarray(classes), type(self).__name__)
        resuming = run is not None and run.started
        continuing = resuming or (self.warm_start and hasattr(self, "training_state_"))
        if continuing and classes is not None:
            check_same_classes(classes, self.classes_, "the fitted model")
        pending = [] if resuming else [self._first_batch(batches, classes, continuing)]
        run = RunState() if run is None else run  # where units that join mid-run are kept

        def batch_of(X, y):
            if classes is None:  # the classes it meets
                return self._growing_batch(X, y)
            return self._batch_of(X, y, allow_balanced=False)

        def epoch_batches():
            if pending:  # the first epoch: its first batch is already validated
                X, y, rest = pending.pop()
                yield batch_of(X, y)
            else:
                rest = batches()
            for X, y in rest:
                X, y = self._validate_input(X, y, reset=False)
                yield batch_of(X, y)

        def publish():
            assert run is not None  # what a checkpoint saves is the run
            self._publish(run.history())

        rng = order_source(run, self.random_state)
        stop = StopRule.of(self, max_iter, limit=limit)
        each = None if after_batch is None else (lambda: after_batch(publish))
        self._publish(self._train(epoch_batches, rng, stop, run, each))
        return self

    def _first_batch(self, batches, classes, continuing):
        """The first epoch's first batch, validated (it fixes the number of features and
        the dtype of a fresh state), and the rest of that epoch's batches."""
        first_epoch = iter(batches())
        try:
            X, y = next(first_epoch)
        except StopIteration:
            raise ValueError(NO_BATCH) from None
        X, y = self._validate_input(X, y, reset=not continuing)
        if not continuing:
            if classes is None:
                classes = check_classes(y, type(self).__name__)
            self._start(classes, False, X.shape[1], X.dtype, is_sparse(X))
        return X, y, first_epoch

    def _publish(self, history):
        """The fitted attributes of the state and the record of ``history``."""
        self._keep_history(history)
        self._set_public_weights()

    def _hold_out(self, batch, rng):
        """Split off the early-stopping validation set; the training rows keep their
        order (storage order when ``shuffle=False``). Stratified by class; a label
        matrix (multilabel) has no one class per sample, and is split at random."""
        from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit

        split = ShuffleSplit if batch.multilabel else StratifiedShuffleSplit
        splitter = split(
            n_splits=1, test_size=self.validation_fraction, random_state=splitter_seed(rng)
        )
        try:
            train, val = next(splitter.split(np.zeros(batch.n_samples), batch.target))
        except ValueError as exc:
            raise ValueError(
                f"early_stopping could not hold out a stratified validation_fraction="
                f"{self.validation_fraction} of {batch.n_samples} samples ({exc}); use more "
                "data, a larger validation_fraction, or early_stopping=False."
            ) from None
        train = np.sort(train)
        X_val = batch.X[val]
        y_val = batch.target[val] if batch.multilabel else self.classes_[batch.target[val]]

        from sklearn.metrics import accuracy_score  # what ClassifierMixin.score measures

        def validation_error():  # watched by the engine's stop rule (StopRule)
            self._set_public_weights()
            return 1.0 - accuracy_score(y_val, self.predict(X_val))

        kept = Batch(batch.X[train], batch.target[train], batch.sample_weight[train])
        return kept, validation_error

    # ------------------------------------------------------------------ fitted weights
    def _classes_added(self):
        self._set_public_weights()

    def _set_public_weights(self):
        self.coef_, self.intercept_ = self.training_state_.public_weights(
            self._averaged, self._rule().bias_input, self._average_initial
        )

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Signed score of each sample: ``X @ coef_.T + intercept_``, each summed as
        training summed it (so a training pattern scores what it scored there).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
            For a model fitted on a label matrix, (n_samples, n_labels): one column
            per label's neuron.
        """
        check_fitted(self, "training_state_")
        X = validate(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        return scores(X, self.coef_, self.intercept_)
