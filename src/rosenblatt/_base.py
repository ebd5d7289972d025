"""The shared driver of the linear perceptrons: validate -> epochs of a kernel -> attributes.

Estimators in :mod:`rosenblatt.linear` are thin subclasses that say which
accumulators they need (``_averaged``, ``_voted``) and how the fitted weights
are read off the training state.
"""

from __future__ import annotations

import numbers
import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import check_is_fitted, validate_data

from ._decision import labels_from_scores, linear_scores
from ._kernels.linear import multinomial_epoch, ovr_epoch
from ._shuffle import EpochOrders, labels_look_sorted, resolve_mode
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
    label_indices,
    validate_params,
)
from ._voting import VoteRecord

_INDEX_DTYPE = np.int64


def kernel_arrays(X):
    """The ``(X, csr)`` pair the kernels take: ``(X, None)`` dense, ``(empty, arrays)`` CSR."""
    if sp.issparse(X):
        index_dtype = np.int32 if X.nnz < np.iinfo(np.int32).max else np.int64
        csr = (X.data, X.indices.astype(index_dtype, copy=False),
               X.indptr.astype(index_dtype, copy=False))
        return np.empty((0, 0), dtype=X.dtype), csr
    return X, None


class BaseLinearPerceptron(ClassifierMixin, BaseEstimator):
    """Machinery shared by :class:`Perceptron`, :class:`AveragedPerceptron` and
    :class:`VotedPerceptron`; not meant to be used directly."""

    _averaged = False
    _voted = False

    _parameter_constraints = {
        "eta": [Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": [BOOL],
        "intercept_scaling": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "shuffle": [BOOL, Options(("full", "block"))],
        "random_state": [RANDOM_STATE],
        "multi_class": [Options(("ovr", "multinomial"))],
        "early_stopping": [BOOL],
        "validation_fraction": [Interval(numbers.Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(numbers.Integral, 1, None, closed="left")],
        "class_weight": [Options(("balanced", None)), InstanceOf((dict,))],
        "warm_start": [BOOL],
        "verbose": [Interval(numbers.Integral, 0, None, closed="left")],
        "n_jobs": [NONE, Interval(numbers.Integral, None, None)],
    }

    def __init__(
        self,
        *,
        eta=1.0,
        fit_intercept=True,
        intercept_scaling=1.0,
        max_iter=1000,
        shuffle=True,
        random_state=None,
        multi_class="ovr",
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        class_weight=None,
        warm_start=False,
        verbose=0,
        n_jobs=None,
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
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ options
    @property
    def _batch(self) -> bool:
        return getattr(self, "mode", "online") == "batch"

    @property
    def _bias_input(self) -> float:
        return float(self.intercept_scaling) if self.fit_intercept else 0.0

    def _check_params(self) -> None:
        """Cross-parameter checks, with errors that say what to do."""
        validate_params(self)
        if self.n_jobs == 0:
            raise ValueError("n_jobs=0 runs nothing; use None or 1 for one thread, -1 for all cores.")
        if self._batch and (self._averaged or self._voted):
            raise ValueError(
                f"{type(self).__name__} learns online; mode='batch' is only for Perceptron."
            )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ------------------------------------------------------------------ input
    def _validate_input(self, X, y, reset):
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
            order="C",
            reset=reset,
        )
        check_not_empty(X)
        if sp.issparse(X) and not X.has_sorted_indices:
            X = X.sorted_indices()
        return X, y

    def _encode(self, y):
        """Map labels to class indices, refusing labels outside ``classes_``."""
        target = label_indices(self.classes_, y)
        if np.any(target < 0):
            unknown = np.unique(np.asarray(y)[target < 0])
            raise ValueError(
                f"y contains labels {unknown.tolist()!r} that are not in classes_ "
                f"{self.classes_.tolist()!r}; pass every label in `classes` on the first "
                "partial_fit call, or refit."
            )
        return target.astype(_INDEX_DTYPE)

    def _sample_weight(self, sample_weight, target, n_samples, *, allow_balanced=True):
        sample_weight = check_sample_weight(sample_weight, n_samples, np.float64)
        if self.class_weight is None:
            return sample_weight
        if self.class_weight == "balanced" and not allow_balanced:
            raise ValueError(
                "class_weight='balanced' needs the whole class distribution, which "
                "partial_fit does not see; pass a dict of class weights instead."
            )
        labels = self.classes_[target]
        weights = compute_class_weight(self.class_weight, classes=self.classes_, y=labels)
        return sample_weight * weights[target]

    # ------------------------------------------------------------------ state
    @property
    def _multinomial(self) -> bool:
        return self.multi_class == "multinomial"

    def _init_state(self, classes, n_features, dtype):
        self.classes_ = classes
        n_classes = classes.shape[0]
        n_neurons = n_classes if (self._multinomial or n_classes > 2) else 1
        self._W = np.zeros((n_neurons, n_features), dtype=dtype)
        self._w0 = np.zeros(n_neurons, dtype=dtype)
        accumulated = n_features if self._averaged else 0
        self._U = np.zeros((n_neurons, accumulated), dtype=dtype)
        self._U0 = np.zeros(n_neurons if self._averaged else 0, dtype=dtype)
        self._counts = np.zeros(1 if self._multinomial else n_neurons, dtype=np.int64)
        self._votes = VoteRecord(n_neurons, self._multinomial) if self._voted else None
        self._reset_history()

    def _reset_history(self):
        self.n_iter_ = 0
        self.n_mistakes_ = 0
        self.mistakes_per_epoch_ = []
        self.converged_ = False

    # ------------------------------------------------------------------ epochs
    def _positive_classes(self):
        """The class each one-vs-rest neuron answers +1 for (class 1 for a lone neuron)."""
        n_neurons = self._W.shape[0]
        return np.array([1]) if n_neurons == 1 else np.arange(n_neurons)

    def _threads(self) -> int:
        """Threads that train one-vs-rest neurons, at most one per neuron.

        None: 1; negative: all cores and fewer. Always 1 for the multinomial model,
        which has one coupled update per pattern.
        """
        if self.n_jobs is None or self._multinomial:
            return 1
        if self.n_jobs < 0:
            threads = (os.cpu_count() or 1) + 1 + self.n_jobs
        else:
            threads = self.n_jobs
        return max(1, min(threads, self._W.shape[0]))

    @contextmanager
    def _workers(self):
        """The threads that train neuron groups beside the calling thread, kept for the
        whole fit (``None`` with one thread): starting threads every epoch delayed
        each epoch's start by about a millisecond on two cores."""
        threads = self._threads()
        if threads <= 1:
            yield None
            return
        with ThreadPoolExecutor(max_workers=threads - 1) as pool:
            yield pool

    def _run_epoch(self, arrays, target, sample_weight, schedule, active, X, workers=None):
        """Run one epoch; return the mistakes of each neuron (or of the whole model).

        ``workers`` (from ``_workers``) train groups of one-vs-rest neurons beside
        the calling thread, which trains the first group.
        """
        if self._multinomial:
            order, stream, lookahead = schedule
            record = self._voted
            common = (self._W, self._w0, self._bias_input, float(self.eta), self._batch)
            size = order.shape[0] if record else 0
            rec_sample, rec_true, rec_pred = (np.empty(size, dtype=_INDEX_DTYPE) for _ in range(3))
            rec_coef = np.empty(size, dtype=np.float64)
            rec_time = np.empty(size, dtype=np.int64)
            n_wrong, n_rec = multinomial_epoch(
                *arrays, target, sample_weight, order, stream, lookahead, *common,
                self._averaged, self._U, self._U0, self._counts,
                record, rec_true, rec_pred, rec_sample, rec_coef, rec_time,
            )
            if record:
                self._votes.add_multinomial(
                    X, rec_sample[:n_rec], rec_coef[:n_rec], rec_time[:n_rec],
                    rec_true[:n_rec], rec_pred[:n_rec], self._bias_input,
                )
            return np.array([n_wrong])
        trained = np.flatnonzero(active)
        threads = 1 if workers is None else min(self._threads(), trained.shape[0])
        if threads <= 1:
            mistakes, updates = self._train_neurons(arrays, target, sample_weight, schedule,
                                                    trained, shared=True)
        else:
            # neurons are independent: each thread trains a group of them (nogil kernel)
            def train(group):
                return self._train_neurons(arrays, target, sample_weight, schedule, group,
                                           shared=False)

            first, *rest = np.array_split(trained, threads)
            running = [workers.submit(train, group) for group in rest]
            results = [train(first)] + [future.result() for future in running]
            mistakes = np.zeros(self._W.shape[0], dtype=np.int64)
            updates = []
            for group_mistakes, group_updates in results:
                mistakes += group_mistakes
                updates += group_updates
        for k, rows, coef, time in updates:  # empty unless voting
            self._votes.add_neuron(k, X, rows, coef, time, self._bias_input)
        return mistakes

    def _train_neurons(self, arrays, target, sample_weight, schedule, neurons, shared):
        """One epoch of the one-vs-rest ``neurons``; their mistakes and recorded updates
        (an empty list unless voting).

        ``shared=False`` trains private copies of the neurons' state and writes
        them back at the end: threads updating neighbouring rows of shared arrays
        would keep stealing each other's cache lines (false sharing).
        """
        order, stream, lookahead = schedule
        n = order.shape[0]
        state = (self._W, self._w0, self._U, self._U0, self._counts)
        if shared:
            slots = neurons
        else:
            slots = np.arange(neurons.shape[0])
            state = tuple(part[neurons] if part.shape[0] else part for part in state)
        W, w0, U, U0, counts = state
        size = n * W.shape[0] if self._voted else 0
        rec_sample = np.empty(size, dtype=_INDEX_DTYPE)
        rec_coef = np.empty(size, dtype=np.float64)
        rec_time = np.empty(size, dtype=np.int64)
        n_rec = np.zeros(W.shape[0], dtype=np.int64)
        mistakes = np.zeros(W.shape[0], dtype=np.int64)
        ovr_epoch(
            *arrays, target, self._positive_classes(), neurons, slots, sample_weight, order,
            stream, lookahead,
            W, w0, self._bias_input, float(self.eta), self._batch,
            self._averaged, U, U0, counts,
            self._voted, n_rec, rec_sample, rec_coef, rec_time, mistakes,
        )
        all_mistakes = np.zeros(self._W.shape[0], dtype=np.int64)
        all_mistakes[neurons] = mistakes[slots]
        if not shared:
            for own, part in zip(state, (self._W, self._w0, self._U, self._U0, self._counts)):
                if part.shape[0]:
                    part[neurons] = own
        if not self._voted:
            return all_mistakes, []
        return all_mistakes, [
            (k, rec_sample[s * n:s * n + n_rec[s]], rec_coef[s * n:s * n + n_rec[s]],
             rec_time[s * n:s * n + n_rec[s]]) for k, s in zip(neurons, slots)]

    def _schedule(self, X, target, rng, ahead):
        """The epochs' (order, stream, lookahead), drawn from ``rng`` (an ``EpochOrders``)."""
        mode = resolve_mode(self.shuffle, X.shape[0])
        if mode == "block" and labels_look_sorted(target):
            warnings.warn(
                f"{type(self).__name__}: the training labels look sorted, and block "
                "shuffling (used for data this large) mixes only within blocks of "
                "neighbouring rows. Shuffle the rows once before fitting, or pass "
                "shuffle='full'.",
                UserWarning,
            )
        return EpochOrders(rng, X.shape[0], mode, ahead=ahead, sparse=sp.issparse(X))

    # ------------------------------------------------------------------ public API
    def fit(self, X, y, sample_weight=None):
        """Train until an epoch makes no mistake, or for ``max_iter`` epochs.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training patterns; float32 input is kept in float32.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each pattern's update step; zero-weight samples are skipped.

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight=None, on_epoch=None):
        self._check_params()
        continuing = self.warm_start and hasattr(self, "_W")
        X, y = self._validate_input(X, y, reset=not continuing)
        if continuing:
            if X.dtype != self._W.dtype:
                X = X.astype(self._W.dtype)
            self._reset_history()
        else:
            classes = check_classes(y, type(self).__name__)
            self._init_state(classes, X.shape[1], X.dtype)
        target = self._encode(y)
        sample_weight = self._sample_weight(sample_weight, target, X.shape[0])
        rng = check_random_state(self.random_state)
        X_val = y_val = None
        if self.early_stopping:
            X, target, sample_weight, X_val, y_val = self._split_validation(
                X, target, sample_weight, rng
            )
        arrays = kernel_arrays(X)
        active = np.ones(self._W.shape[0], dtype=np.bool_)
        # with every core training, a helper thread making the next epoch's order
        # would take a core from them (one-vs-rest on 2 threads was about 8 % slower)
        ahead = self._threads() == 1
        with self._schedule(X, target, rng, ahead) as schedule, self._workers() as workers:
            stopped_early = self._epochs(arrays, target, sample_weight, schedule, workers,
                                         active, X, X_val, y_val, on_epoch)
        if not (self.converged_ or stopped_early):
            warnings.warn(
                f"{type(self).__name__} did not converge: the last of max_iter={self.max_iter} "
                f"epochs still made {self.mistakes_per_epoch_[-1]} mistake(s). The data may "
                "not be linearly separable; raise max_iter, or use early_stopping.",
                ConvergenceWarning,
            )
        self._set_public_weights()
        return self

    def _epochs(self, arrays, target, sample_weight, schedule, workers, active, X, X_val,
                y_val, on_epoch):
        """Train epoch after epoch until convergence, an early stop or ``max_iter``;
        return whether early stopping ended it."""
        best_score, epochs_without_gain = -np.inf, 0
        for _ in range(self.max_iter):
            mistakes = self._run_epoch(arrays, target, sample_weight, schedule(), active, X,
                                       workers)
            self._record_epoch(int(mistakes.sum()))
            if not self._multinomial:
                active &= mistakes > 0  # a neuron with an error-free epoch is done
            if on_epoch is not None:
                on_epoch(self.n_iter_, int(mistakes.sum()))
            if mistakes.sum() == 0:
                self.converged_ = True
                return False
            if self.early_stopping:
                self._set_public_weights()
                score = self.score(X_val, y_val)
                if score > best_score:
                    best_score, epochs_without_gain = score, 0
                else:
                    epochs_without_gain += 1
                if epochs_without_gain >= self.n_iter_no_change:
                    return True
        return False

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Run one epoch over the given batch, continuing from the current weights.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every label that will ever be seen; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        first_call = not hasattr(self, "_W")
        self._check_params()
        X, y = self._validate_input(X, y, reset=first_call)
        if first_call:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit: give every "
                    "label the model will see, e.g. classes=np.unique(y_all)."
                )
            classes = check_classes(np.asarray(classes), type(self).__name__)
            self._init_state(classes, X.shape[1], X.dtype)
            self._rng = check_random_state(self.random_state)
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(
                f"classes={np.unique(classes).tolist()!r} differs from the classes of the "
                f"first partial_fit call {self.classes_.tolist()!r}."
            )
        if X.dtype != self._W.dtype:
            X = X.astype(self._W.dtype)
        target = self._encode(y)
        sample_weight = self._sample_weight(
            sample_weight, target, X.shape[0], allow_balanced=False
        )
        if not hasattr(self, "_rng"):
            self._rng = check_random_state(self.random_state)
        active = np.ones(self._W.shape[0], dtype=np.bool_)
        with self._schedule(X, target, self._rng, ahead=False) as schedule, \
                self._workers() as workers:
            mistakes = self._run_epoch(kernel_arrays(X), target, sample_weight, schedule(),
                                       active, X, workers)
        self._record_epoch(int(mistakes.sum()))
        self.converged_ = bool(mistakes.sum() == 0)
        self._set_public_weights()
        return self

    def _record_epoch(self, n_wrong):
        self.n_iter_ += 1
        self.n_mistakes_ += n_wrong
        self.mistakes_per_epoch_.append(n_wrong)
        if self.verbose:
            print(f"-- Epoch {self.n_iter_}: {n_wrong} mistake(s)")

    def _split_validation(self, X, target, sample_weight, rng):
        splitter = StratifiedShuffleSplit(
            n_splits=1, test_size=self.validation_fraction, random_state=rng
        )
        try:
            train, val = next(splitter.split(np.zeros(target.shape[0]), target))
        except ValueError as exc:
            raise ValueError(
                f"early_stopping could not hold out a stratified validation_fraction="
                f"{self.validation_fraction} of {target.shape[0]} samples ({exc}); use more "
                "data, a larger validation_fraction, or early_stopping=False."
            ) from None
        return (X[train], target[train], sample_weight[train], X[val], self.classes_[target[val]])

    # ------------------------------------------------------------------ fitted weights
    def _weights(self):
        """Return (W, w0) of the model's linear decision function, one row per neuron."""
        return self._W, self._w0

    def _set_public_weights(self):
        W, w0 = self._weights()
        intercept = (w0 * self._bias_input).astype(W.dtype)
        if self._multinomial and self.classes_.shape[0] == 2:
            W = W[1:] - W[:1]  # the binary decision function of the two class vectors
            intercept = intercept[1:] - intercept[:1]
        self.coef_ = np.array(W, copy=True)
        self.intercept_ = np.array(intercept, copy=True)

    def decision_function(self, X):
        """Signed score of each sample: ``X @ coef_.T + intercept_``.

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32],
                          reset=False)
        return linear_scores(X, self.coef_, self.intercept_)

    def predict(self, X):
        """Predict class labels (a zero score goes to the first class, as in training)."""
        scores = self.decision_function(X)  # checks the model is fitted first
        return labels_from_scores(self.classes_, scores)
