"""Online calibration: :class:`OnlineCalibratedClassifier`, a classifier whose
probabilities follow it as it learns (online Platt scaling with calibeating, Gupta and
Ramdas, ICML 2023; the map's steps are :mod:`._online_platt`'s).

Its public path is :mod:`rosenblatt.estimators.calibration`, with the calibration on
held-out folds and :func:`~rosenblatt.estimators.calibration.calibrated`. Its epochs,
in memory (``fit``) or in batches (``fit_batches``), go through the engine's
:class:`~rosenblatt.engine.problems.BatchEpochs`: each batch one prequential pass.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._core.classes import new_classes
from .._core.config import DISPLAY_PARAMETERS, MAX_CALIBRATION_BINS
from .._core.validation import (
    InstanceOf,
    Interval,
    Options,
    check_classes,
    check_same_classes,
    check_sample_weight,
    is_label_matrix,
    validate,
    validate_params,
)
from ..engine.driver import EpochCount, History, RunState, StopRule, train
from ..engine.orders import epoch_order, random_source
from ..engine.problems import BatchEpochs, order_source
from ..engine.targets import TargetCoding
from ._online_platt import START, bin_of, ops_probability, track, update
from ._probabilities import FromProbabilities, normalised

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike, MatrixLike

__all__ = ["OnlineCalibratedClassifier"]


class OnlineCalibratedClassifier(
    FromProbabilities, ClassifierMixin, MetaEstimatorMixin, BaseEstimator
):
    """A classifier that learns online and whose probabilities follow it: online Platt
    scaling with calibeating (Gupta and Ramdas, ICML 2023).

    See :func:`calibrated` (``method="online"``). The estimator and the calibration map
    learn from the same samples, *prequentially*: each sample is scored by the estimator
    and the map as they stand before either has seen it, then the map learns the
    sample's outcome and the estimator learns the sample (``partial_fit``). So the map
    is always fitted on scores of samples the estimator had not yet learnt, like
    held-out data, and it follows the estimator as it changes, and the data as they
    drift, without a second pass or folds.

    The map is the paper's OPS+tracking: Platt's sigmoid ``expit(a s + b)`` of the
    score ``s``, ``(a, b)`` learnt by the Online Newton Step on the log-loss (the
    paper's Algorithm 1, starting from the plain logistic ``(1, 0)``), then
    calibeating by tracking (the paper's TOPS): the forecast is the mean of the
    outcomes seen so far whose OPS probability fell in the same of ``n_bins`` equal
    bins (with one pseudo-outcome at the bin's middle, so that no forecast is 0 or 1).
    With more than two classes, each class has its own map on its one-vs-rest score,
    and the probabilities are normalised to sum to 1, as in :class:`CalibratedClassifier`.

    Parameters
    ----------
    estimator : classifier with ``partial_fit`` and ``decision_function``
        Perceptron, AveragedPerceptron, VotedPerceptron, KernelPerceptron or
        Projectron (unfitted: ``fit`` trains a clone). Its ``max_iter``, ``shuffle``,
        ``random_state``, ``tol``, ``n_iter_no_change``, ``verbose`` and ``on_epoch``
        rule the epochs of ``fit``.
    calibeating : {"tracking", None}, default="tracking"
        The paper's calibeating by tracking on top of online Platt scaling, or None
        for online Platt scaling alone.
    n_bins : int, default=10
        Equal bins of [0, 1] that tracking keeps the outcomes of (the paper's 10).
    gamma : float, default=0.1
        The Online Newton Step's ``gamma``: each step is ``A^{-1} g / gamma``.
    rho : float, default=100.0
        The Online Newton Step's first matrix, ``rho`` times the identity.
    radius : float, default=100.0
        ``(a, b)`` stays in the ball of this radius.
    batch_size : int, default=100
        Samples the estimator learns at a time (a ``partial_fit`` call): each is
        scored by the estimator as it was before its batch, never after learning it,
        while the maps learn sample by sample, always. 1 updates the estimator after
        every sample; each call costs about a millisecond of checks, so 1 is about
        a hundred times slower, and on the benchmark's streams it calibrates no
        better (README, "Probabilities that follow the stream").

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimator_ : classifier
        The estimator, trained online on the same samples as the maps.
    platt_ : ndarray of shape (n_maps, 2)
        ``(a, b)`` of each map: one for two classes (the second class's), else one
        per class.
    newton_ : ndarray of shape (n_maps, 2, 2)
        The Online Newton Step's matrix of each map (the sum of the gradients' outer
        products, plus ``rho`` times the identity).
    bin_sums_, bin_counts_ : ndarray of shape (n_maps, n_bins)
        Per map and bin of its OPS probability, the (sample-weighted) sum of the
        outcomes and their number: what tracking forecasts from.
    fixed_classes_ : bool
        Present (True) when the classes were given on the first ``partial_fit``: a label
        outside them is then refused; absent, a new label adds a class.
    n_features_in_ : int
    n_iter_ : int
        Epochs run (each ``partial_fit`` call counts one).
    n_mistakes_ : int
        The estimator's updates (mistakes), or where it does not count them, its
        prequential prediction mistakes.
    mistakes_per_epoch_ : list of int
    converged_ : bool
        The last epoch made no mistake.

    References
    ----------
    C. Gupta and A. Ramdas. Online Platt Scaling with Calibeating. Proceedings of the
    40th International Conference on Machine Learning (ICML), PMLR 202, 2023.
    arXiv:2305.00070.

    Examples
    --------
    >>> import numpy as np
    >>> from rosenblatt import Perceptron, calibrated
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(400, 3)
    >>> y = (X[:, 0] + 0.5 * rng.randn(400) > 0).astype(int)
    >>> model = calibrated(Perceptron(random_state=0), method="online")
    >>> for start in range(0, 400, 100):  # a stream, a batch at a time
    ...     _ = model.partial_fit(X[start : start + 100], y[start : start + 100], classes=[0, 1])
    >>> proba = model.predict_proba(X[:3])
    >>> proba.shape, bool(np.allclose(proba.sum(axis=1), 1.0))
    ((3, 2), True)
    """

    #: what :func:`calibrated` was asked for (as ``CalibratedClassifier.method``)
    method = "online"
    mistakes_per_epoch_: list[int]

    _parameter_constraints = {
        "estimator": [InstanceOf((object,))],
        "calibeating": [Options(("tracking", None))],
        "n_bins": [Interval(numbers.Integral, 1, MAX_CALIBRATION_BINS, closed="both")],
        "gamma": [Interval(numbers.Real, 0, None, closed="neither")],
        "rho": [Interval(numbers.Real, 0, None, closed="neither")],
        "radius": [Interval(numbers.Real, 0, None, closed="neither")],
        "batch_size": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        estimator: Any,
        *,
        calibeating: str | None = "tracking",
        n_bins: int = 10,
        gamma: float = 0.1,
        rho: float = 100.0,
        radius: float = 100.0,
        batch_size: int = 100,
    ):
        self.estimator = estimator
        self.calibeating = calibeating
        self.n_bins = n_bins
        self.gamma = gamma
        self.rho = rho
        self.radius = radius
        self.batch_size = batch_size

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ------------------------------------------------------------------ checks
    def _check_params(self) -> None:
        validate_params(self)
        missing = [
            name
            for name in ("partial_fit", "decision_function")
            if not callable(getattr(self.estimator, name, None))
        ]
        if missing:
            raise ValueError(
                f"calibrated(method='online') needs an estimator that learns online and "
                f"scores (partial_fit and decision_function); {type(self.estimator).__name__} "
                f"has no {' or '.join(missing)}. Use Perceptron, AveragedPerceptron, "
                "VotedPerceptron, KernelPerceptron or Projectron (to scale the features, "
                "put the calibrated estimator last in a Pipeline)."
            )

    def _validate(self, X, y, reset):
        if is_label_matrix(y):
            raise ValueError(
                "calibrated(method='online') gives the probabilities of class labels; y is "
                "a label matrix (multilabel). Calibrate one label's column at a time."
            )
        return validate(
            self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32], reset=reset
        )

    # ------------------------------------------------------------------ state
    def _start(self, classes, fixed=False) -> None:
        """A fresh estimator and fresh maps for ``classes``; ``fixed``: they were given up
        front (a label outside them is refused; else a new label adds a class)."""
        self.__dict__.pop("fixed_classes_", None)
        if fixed:  # absent: classes that grow (every file from before it)
            self.fixed_classes_ = True
        self.classes_ = classes
        self.estimator_ = clone(self.estimator)
        # fit's epochs report, not each step's
        params = self.estimator_.get_params(deep=False)
        self.estimator_.set_params(**{k: v for k, v in DISPLAY_PARAMETERS.items() if k in params})
        n_maps = 1 if classes.shape[0] == 2 else classes.shape[0]
        self.platt_ = np.tile(np.array(START, dtype=np.float64), (n_maps, 1))
        self.newton_ = np.tile(float(self.rho) * np.eye(2), (n_maps, 1, 1))
        self.bin_sums_ = np.zeros((n_maps, self.n_bins))
        self.bin_counts_ = np.zeros((n_maps, self.n_bins))
        self._record(History(), append=False)

    def _grow(self, new) -> None:
        """Take the classes ``new`` (:func:`~rosenblatt._core.classes.new_classes`): the
        estimator adds their units (``add_classes``, refused before anything changes where
        it cannot), and each new class gets a fresh map; the maps kept keep their classes
        (two classes' one map is the second class's, so the first class's map starts fresh
        too)."""
        if hasattr(self.estimator_, "classes_"):  # else its first call gets every class
            self.estimator_.add_classes(new)
        coding, growth = TargetCoding.for_classes(self.classes_).grow(new)
        source = np.where(growth.sign < 0, -1, growth.source)
        kept, n_maps = source >= 0, source.shape[0]
        platt = np.tile(np.array(START, dtype=np.float64), (n_maps, 1))
        newton = np.tile(float(self.rho) * np.eye(2), (n_maps, 1, 1))
        bin_sums = np.zeros((n_maps, self.bin_sums_.shape[1]))
        bin_counts = np.zeros((n_maps, self.bin_sums_.shape[1]))
        for new_maps, old_maps in (
            (platt, self.platt_),
            (newton, self.newton_),
            (bin_sums, self.bin_sums_),
            (bin_counts, self.bin_counts_),
        ):
            new_maps[kept] = old_maps[source[kept]]
        self.platt_, self.newton_, self.bin_sums_, self.bin_counts_ = (
            platt,
            newton,
            bin_sums,
            bin_counts,
        )
        self.classes_ = coding.classes

    def _check_state(self) -> None:
        """A fitted model goes on learning with the bins it was fitted with."""
        if self.bin_sums_.shape[1] != self.n_bins:
            raise ValueError(
                f"n_bins={self.n_bins}, but the model was fitted with "
                f"{self.bin_sums_.shape[1]} bins; set it back, or fit again."
            )

    def _record(self, history, append) -> None:
        """The epochs' record, the estimator's too (its own calls counted each step)."""
        before: list[int] = list(self.mistakes_per_epoch_) if append else []
        self.mistakes_per_epoch_ = before + history.mistakes_per_epoch
        self.n_iter_ = len(self.mistakes_per_epoch_)
        self.n_mistakes_ = int(sum(self.mistakes_per_epoch_))
        self.converged_ = bool(history.converged)
        for name in ("n_iter_", "n_mistakes_", "mistakes_per_epoch_", "converged_"):
            if hasattr(self.estimator_, name):
                value = getattr(self, name)
                setattr(self.estimator_, name, list(value) if isinstance(value, list) else value)

    # ------------------------------------------------------------------ learning
    def _scores(self, X) -> np.ndarray:
        """The estimator's scores, one column per map; 0 before it has learnt anything
        (as a perceptron's zero weights score)."""
        n_maps = self.platt_.shape[0]
        if not hasattr(self.estimator_, "classes_"):
            return np.zeros((X.shape[0], n_maps))
        scores = np.asarray(self.estimator_.decision_function(X), dtype=np.float64)
        scores = scores.reshape(X.shape[0], -1)
        if scores.shape[1] == 2 and n_maps == 1:  # a score per class: the second's margin
            return scores[:, 1:] - scores[:, :1]
        return scores

    def _outcomes(self, y) -> np.ndarray:
        """1 where a sample is of a map's class, else 0: (n_samples, n_maps); the maps are
        the estimators' neurons (one for two classes, the second's; else one per class)."""
        coding = TargetCoding.for_classes(self.classes_)
        coding.encode(y)  # the one label check: a label outside classes_ is an error
        return (coding.signed(y).T > 0).astype(np.float64)

    def _pass(self, X, y, weights) -> tuple[EpochCount, np.ndarray]:
        """One prequential pass over the samples in their order, ``batch_size`` at a time:
        score, the maps learn the outcomes, the estimator learns the samples. Returns
        what the epoch counted and each sample's forecast by each map, made before
        anything learnt it: (n_samples, n_maps)."""
        outcomes = self._outcomes(y)
        forecasts = np.empty(outcomes.shape)
        tracking = self.calibeating == "tracking"
        estimator = self.estimator_
        counts = hasattr(estimator, "n_mistakes_") or not hasattr(estimator, "classes_")
        mistakes, step = 0, int(self.batch_size)
        for start in range(0, X.shape[0], step):
            rows = slice(start, start + step)
            scores, w = self._scores(X[rows]), weights[rows]
            for k in range(self.platt_.shape[0]):
                _, forecasts[rows, k] = update(
                    self.platt_[k],
                    self.newton_[k],
                    self.bin_sums_[k],
                    self.bin_counts_[k],
                    scores[:, k],
                    outcomes[rows, k],
                    w,
                    gamma=float(self.gamma),
                    radius=float(self.radius),
                    tracking=tracking,
                )
            if not w.any():
                continue  # nothing of any weight to learn
            before = getattr(estimator, "n_mistakes_", 0)
            if not counts:  # its prediction mistakes, from the scores it gave
                mistakes += int(np.sum((self._labels(scores) != y[rows]) & (w > 0)))
            estimator.partial_fit(
                X[rows],
                y[rows],
                classes=self.classes_,
                sample_weight=None if np.all(w == 1) else w,
            )
            if counts:
                mistakes += int(getattr(estimator, "n_mistakes_", 0) - before)
                estimator.mistakes_per_epoch_ = []  # one entry per call: keep it short
            counts = hasattr(estimator, "n_mistakes_")
        presented = int(np.count_nonzero(weights))
        count = EpochCount(
            np.array([mistakes]), presented, np.array([float(mistakes)]), float(presented)
        )
        return count, forecasts

    def _labels(self, scores):
        """The labels the estimator's scores give (two classes: the sign)."""
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _epochs(self, problem, max_epochs, limit, run=None) -> Any:
        """Run ``problem`` (a :class:`~rosenblatt.engine.problems.BatchEpochs`) through the
        engine (:func:`~rosenblatt.engine.driver.train`), with the estimator's stop rule (an
        epoch without a mistake, or its ``tol``) and its ``on_epoch`` and ``verbose``."""
        return train(
            problem,
            StopRule.of(self.estimator, int(max_epochs), credit=False, limit=limit),
            owner=type(self).__name__,
            advice=_ONLINE_ADVICE.format(limit=limit),
            on_epoch=getattr(self.estimator, "on_epoch", None),
            verbose=getattr(self.estimator, "verbose", 0),
            model=self,
            run=run,
        )

    def _presenter(self, rng) -> Callable[[Any, np.ndarray], EpochCount]:
        """What presents one batch ``(X, y, weights)`` of an epoch: its samples in a fresh
        order from ``rng`` when the estimator shuffles, in one prequential pass."""
        shuffled = getattr(self.estimator, "shuffle", False) is not False

        def present(batch, active):
            X, y, weights = batch
            order = epoch_order(rng, X.shape[0], "full" if shuffled else "none")[0]
            return self._pass(X[order], y[order], weights[order])[0]

        return present

    def fit(
        self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> OnlineCalibratedClassifier:
        """Learn online, epoch after epoch: the path of ``partial_fit`` over the data.

        A fresh estimator and fresh maps; then every epoch presents the samples once
        (in a fresh order when the estimator shuffles), each scored by the estimator
        and the maps before they learn it. Epochs stop after one without a mistake,
        when the estimator's ``tol`` says they stopped improving, or after its
        ``max_iter``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weighs each sample's update of the estimator, its log-loss in the Newton
            step and its count in its bin; a zero weight skips the sample.

        Returns
        -------
        self
        """
        self._check_params()
        X, y = self._validate(X, y, reset=True)
        self._start(check_classes(y, type(self).__name__))
        weights = check_sample_weight(sample_weight, X.shape[0], np.float64)
        present = self._presenter(random_source(getattr(self.estimator, "random_state", None)))
        problem = BatchEpochs(lambda: [(X, y, weights)], present)  # one batch: the data
        history = self._epochs(problem, int(getattr(self.estimator, "max_iter", 1)), "max_iter")
        self._record(history, append=False)
        return self

    def partial_fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        classes: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> OnlineCalibratedClassifier:
        """Score, then learn, the given samples in their order (one epoch over them).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every label that will ever be seen, given on the first call: the classes are
            then fixed, and a label outside them is an error. Left out, the first call
            takes the labels of its ``y`` and a later call whose ``y`` holds a label never
            seen adds a class (the estimator adds its unit, as its own ``partial_fit``
            says, and the class gets a fresh map; with two classes, the one map is the
            second class's, and the first class gets a fresh map too). Given on a later
            call, they must hold every class of the model and may add new ones.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from rosenblatt import Perceptron, calibrated
        >>> X = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.0], [0.0, -2.0]])
        >>> model = calibrated(Perceptron(random_state=0), method="online")
        >>> model = model.partial_fit(X[:2], [0, 1]).partial_fit(X[2:], [2, 2])
        >>> model.classes_, model.predict_proba(X).shape
        (array([0, 1, 2]), (4, 3))
        """
        self.prequential_proba(X, y, classes=classes, sample_weight=sample_weight)
        return self

    def prequential_proba(
        self,
        X: MatrixLike,
        y: ArrayLike,
        classes: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> np.ndarray:
        """Learn the samples as ``partial_fit`` does; return the probabilities each got
        before anything learnt it (progressive validation of the stream).

        Each row is what ``predict_proba`` gave the sample just before its turn: from
        the maps after every sample before it, and the estimator after every batch
        before its own (``batch_size``). Their mean log-loss is the stream's honest
        score: no sample is scored by a model that has seen it.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            As ``partial_fit``'s.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Of the classes after the call (a class that joined in it is among them).
        """
        self._check_params()
        first = not hasattr(self, "platt_")
        X, y = self._validate(X, y, reset=first)
        weights = check_sample_weight(sample_weight, X.shape[0], np.float64)
        name = type(self).__name__
        if first:
            given = y if classes is None else np.asarray(classes)
            self._start(check_classes(given, name), fixed=classes is not None)
        else:
            self._check_state()
            fixed = getattr(self, "fixed_classes_", False)
            new = new_classes(self.classes_, y, classes, fixed=fixed, owner=name)
            if new.size:
                self._grow(new)
        count, forecasts = self._pass(X, y, weights)
        mistakes = int(count.mistakes.sum())
        self._record(History([mistakes], converged=mistakes == 0), append=True)
        return self._probabilities(forecasts)

    def _probabilities(self, calibrated) -> np.ndarray:
        """(n_samples, n_classes) from each map's calibrated probability (n_samples, n_maps)."""
        proba = np.zeros((calibrated.shape[0], self.classes_.shape[0]))
        first = 1 if self.classes_.shape[0] == 2 else 0  # two classes: the second's map
        proba[:, first:] = calibrated
        return normalised(proba)

    def fit_batches(
        self,
        batches: Callable[[], Iterable[tuple[MatrixLike, ArrayLike]]],
        classes: ArrayLike | None = None,
        *,
        max_iter: int | None = None,
        limit: str = "max_iter",
        run: RunState | None = None,
        after_batch: Callable[[Callable[[], None]], Any] | None = None,
    ) -> OnlineCalibratedClassifier:
        """Learn online from data that arrive in batches (:func:`rosenblatt.fit_stream`).

        As ``fit``, every epoch calling ``batches()`` for the batches to present, each
        in a fresh order of its rows when the estimator shuffles.

        Parameters
        ----------
        batches : callable() -> iterable of (X, y)
        classes : array-like of shape (n_classes,), default=None
            Every label of the data (a label outside them is an error); None: the labels
            of the first batch, and a batch holding a label never seen adds a class, as
            ``partial_fit`` without ``classes`` does.
        max_iter : int, default=None
            Most epochs (default: the estimator's ``max_iter``).
        limit : str, default="max_iter"
            What the caller's users call ``max_iter``, for the ``ConvergenceWarning``.
        run : RunState, default=None
            As the linear perceptrons' ``fit_batches``: kept up to date after every
            batch; a started one is resumed (this model being the one saved with it).
        after_batch : callable(publish), default=None
            Called after every batch; ``publish()`` brings the epochs' record up to date.

        Returns
        -------
        self
        """
        self._check_params()
        name = type(self).__name__
        if classes is not None:
            classes = check_classes(np.asarray(classes), name)
        resuming = run is not None and run.started
        if resuming and classes is not None:
            check_same_classes(classes, self.classes_, "the fitted model")
        elif not resuming and classes is not None:
            self._start(classes)
        present = self._presenter(order_source(run, getattr(self.estimator, "random_state", None)))
        first = [not resuming]

        def epoch_batches():
            for X, y in batches():
                if first[0] and classes is None:  # the first batch's labels (as given ones)
                    self._start(check_classes(np.asarray(y), name))
                X, y = self._validate(X, y, reset=first[0])
                if not first[0] and classes is None:  # the classes it meets
                    new = new_classes(self.classes_, y, fixed=False, owner=name)
                    if new.size:
                        self._grow(new)
                first[0] = False
                yield X, y, np.ones(X.shape[0])

        def publish():
            assert run is not None  # what a checkpoint saves is the run
            self._record(run.history(), append=False)

        each = None if after_batch is None else (lambda: after_batch(publish))
        problem = BatchEpochs(epoch_batches, present, run=run, after_batch=each)
        epochs = getattr(self.estimator, "max_iter", 1) if max_iter is None else max_iter
        self._record(self._epochs(problem, int(epochs), limit, run), append=False)
        return self

    # ------------------------------------------------------------------ probabilities
    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Calibrated probabilities, rows summing to 1.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self, "platt_")
        X = validate(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        calibrated = ops_probability(self.platt_, self._scores(X))
        if self.calibeating == "tracking":
            bins = bin_of(calibrated, self.bin_sums_.shape[1])
            for k in range(calibrated.shape[1]):
                calibrated[:, k] = track(self.bin_sums_[k], self.bin_counts_[k], bins[:, k])
        return self._probabilities(calibrated)


_ONLINE_ADVICE = (
    "The data may not be linearly separable; the probabilities need no convergence, "
    "but the estimator may: raise {limit}, or keep this model."
)
