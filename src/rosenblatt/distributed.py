"""Train on a Dask cluster by iterative parameter mixing (McDonald, Hall & Mann, 2010).

Each *round*, every partition of the data runs one epoch of the ordinary
compiled perceptron (``partial_fit`` of a clone of the estimator) starting from
the current mixed weights; the driver then mixes the partitions' new weights
into the next round's starting point. Training stops after a round in which no
partition made a mistake (the mixed weights then separate all the data), or
after ``max_rounds`` rounds.

Mixing
------
``"uniform"``: ``w = (1/S) sum_i w_i`` over the ``S`` partitions.
``"weighted"``: ``w = sum_i (k_i / k) w_i`` with ``k_i`` the mistakes partition
``i`` made this round and ``k`` their sum (McDonald et al.'s error-weighted
mixing): a partition that made no mistake did not move, and adds nothing.

On linearly separable data both keep the perceptron's guarantee (McDonald et
al., Theorem 3): ``sum over rounds of sum_i mu_i k_i <= (R / gamma)**2``. So
error-weighted mixing converges within ``(R / gamma)**2`` rounds and uniform
mixing within ``S (R / gamma)**2``; neither is guaranteed to converge on
inseparable data. See ``docs/distributed.md``.

The averaged perceptron
-----------------------
Its state is ``(W, U, T)``: the current weights, the accumulator and the number
of presentations, with averaged weights ``A = W - U / T`` (see
:class:`~rosenblatt.AveragedPerceptron`). The mix is defined so that the mixed
*averaged* weights are the same mix of the partitions' averaged weights,
``A = sum_i mu_i A_i``, while the current weights mix as above,
``W = sum_i mu_i W_i``, and the count mixes the same way, ``T = round(sum_i
mu_i T_i)``; then ``U = T (W - A) = T sum_i mu_i U_i / T_i``. ``T`` is how many
presentations the mixed history stands for: with uniform mixing of equal
partitions it grows by ``n / S`` per round, so the next round's presentations
weigh against the history as a single machine's next epoch would. Mixing ``U``
directly instead would make ``A`` a different, size-dependent mix.

Dask is imported only here, and only when a model is fitted.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from ._core.config import INLINE_STATE_BYTES
from ._core.validation import Interval, Options, validate_params
from .engine.driver import EpochCount, StopRule, train
from .engine.orders import draw_seeds, random_source
from .engine.primal import PrimalState
from .exceptions import DistributedFitError
from .persistence.onnx import register_export

if TYPE_CHECKING:  # pragma: no cover
    from ._core.typing import ArrayLike

__all__ = ["ParameterMixing", "mix_states"]

_ADVICE = (
    "The data may not be linearly separable (mixing is then not guaranteed to "
    "converge); raise max_rounds, or use AveragedPerceptron."
)


class _Rounds:
    """Parameter mixing as a training problem of the engine: an epoch is a round, in which
    every partition trains an epoch from the mixed state and the results are mixed again
    (the model errs and stops as a whole)."""

    n_units = 1
    unit_stops = False

    def __init__(self, mixing, template, runner, parts, mixed, classes_sparse):
        self.mixing, self.template, self.runner, self.parts = mixing, template, runner, parts
        self.mixed, self.classes_sparse = mixed, classes_sparse
        self.rng = random_source(template.random_state)
        self.per_partition: list = []
        self.presented = [0] * len(parts)
        self.number = 0

    def running(self, max_epochs):
        return nullcontext(self)

    def epoch(self, active):
        self.number += 1
        seeds = draw_seeds(self.rng, len(self.parts))
        results = self.runner.round(
            self.template, self.mixed, self.parts, self.classes_sparse, seeds, self.number
        )
        mistakes = np.array([r["mistakes"] for r in results], dtype=np.int64)
        self.presented = [r["presented"] for r in results]
        # the round's weighted mistake fraction (what tol watches): over every partition
        mistake_weight = sum(r["mistake_weight"] for r in results)
        presented_weight = sum(r["presented_weight"] for r in results)
        self.per_partition.append(mistakes.tolist())
        weighted = self.mixing.mixing == "weighted" and mistakes.sum() > 0
        self.mixed = PrimalState.mix(
            [r["state"] for r in results], mistakes if weighted else np.ones(len(results))
        )
        return EpochCount(
            np.array([mistakes.sum()]),
            sum(self.presented),
            np.array([mistake_weight]),
            presented_weight,
        )

    def credit(self, rounds_left, presented):
        # a converged round changes no weights, but each partition presents its rows
        # again and the mix of the counts moves the averages: replay that
        for _ in range(int(rounds_left[0])):
            copies = []
            for n in self.presented:
                copy = self.mixed.copy()
                copy.credit(np.ones(copy.counts.shape[0], dtype=np.int64), n)
                copies.append(copy)
            self.mixed = PrimalState.mix(copies, np.ones(len(copies)))


class ParameterMixing(ClassifierMixin, BaseEstimator):
    """Iterative parameter mixing of a perceptron over the partitions of a Dask collection.

    Parameters
    ----------
    estimator : Perceptron or AveragedPerceptron, default=None
        The model each partition trains (default ``Perceptron()``); its
        parameters (``eta``, ``fit_intercept``, ``multi_class``, ``shuffle``,
        ``random_state`` ...) apply to every partition's epoch.
        ``random_state`` seeds the per-round, per-partition row orders, so a fit
        is reproducible and a retried task computes the same result.
    max_rounds : int, default=100
        Most rounds (one epoch per partition each).
    mixing : {"uniform", "weighted"}, default="uniform"
        Average the partitions' weights equally, or in proportion to the
        mistakes each made this round.
    client : distributed.Client, default=None
        The cluster to use. None: the current client (``distributed.get_client()``)
        if there is one, else the default Dask scheduler in this process.
    label_column : str, default=None
        The label column when ``fit`` gets a Dask DataFrame and no ``y``.
    verbose : int, default=0
        Print the mistakes of every round.

    Attributes
    ----------
    estimator_ : Perceptron or AveragedPerceptron
        The fitted model with the mixed weights (save it with
        :func:`rosenblatt.save`); the attributes below are its.
        :func:`rosenblatt.to_onnx` exports a fitted ``ParameterMixing`` as this model,
        and skl2onnx converts it so inside pipelines (``register_converters``).
    coef_, intercept_, classes_, n_features_in_
    n_iter_ : int
        Rounds run.
    mistakes_per_epoch_ : list of int
        Mistakes of each round, over all partitions.
    mistakes_per_partition_ : list of list of int
        Mistakes of each partition in each round.
    n_mistakes_ : int
    converged_ : bool
        Whether the last round made no mistake.
    n_partitions_ : int
        Partitions trained (empty ones are skipped).

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from rosenblatt import Perceptron
    >>> from rosenblatt.distributed import ParameterMixing
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(4_000, 5)
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> X[:, 0] += np.where(y == 1, 0.2, -0.2)  # a margin, so the perceptron converges
    >>> X, y = da.from_array(X, chunks=(1_000, 5)), da.from_array(y, chunks=1_000)

    On a cluster (here a local one; see docs/distributed.md for a real one):

    >>> client = Client(LocalCluster(n_workers=2))  # doctest: +SKIP
    >>> clf = ParameterMixing(Perceptron(random_state=0), client=client).fit(X, y)  # doctest: +SKIP

    Without a client, the partitions train on the default (threaded) scheduler:

    >>> clf = ParameterMixing(Perceptron(random_state=0), max_rounds=50).fit(X, y)
    >>> clf.n_partitions_, clf.converged_, clf.score(X, y)
    (4, True, 1.0)
    """

    # as the estimators declare theirs (checked by ``validate_params``); ``estimator``,
    # ``client`` and ``label_column`` are checked where they are used
    _parameter_constraints = {
        "max_rounds": [Interval(numbers.Integral, 1, None, closed="left")],
        "mixing": [Options(("uniform", "weighted"))],
    }

    def __init__(
        self,
        estimator=None,
        *,
        max_rounds=100,
        mixing="uniform",
        client=None,
        label_column=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.max_rounds = max_rounds
        self.mixing = mixing
        self.client = client
        self.label_column = label_column
        self.verbose = verbose

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: ArrayLike | None = None) -> ParameterMixing:
        """Train by iterative parameter mixing over the partitions of ``X``.

        Parameters
        ----------
        X : dask.array.Array or dask.dataframe.DataFrame
            One partition per block of rows; dense blocks or scipy.sparse blocks
            (e.g. ``X.map_blocks(scipy.sparse.csr_matrix)``).
        y : dask.array.Array or dask.dataframe.Series, default=None
            Labels, partitioned like ``X``. None: ``X`` is a DataFrame holding
            them in ``label_column``.

        Returns
        -------
        self

        Raises
        ------
        rosenblatt.exceptions.DistributedFitError
            A partition's task raised, or kept losing its worker; nothing was fitted.
        """
        validate_params(self)
        template = _check_estimator(self.estimator)
        runner = _runner(self.client)
        parts = runner.load(_partitions(X, y, self.label_column))
        try:
            self._train(template, runner, parts)
        finally:
            runner.release(parts)
        return self

    def _train(self, template, runner, parts):
        described = runner.map(_describe, parts)
        keep = [i for i, d in enumerate(described) if d["n_samples"] > 0]
        parts, described = [parts[i] for i in keep], [described[i] for i in keep]
        if not parts:
            raise ValueError("ParameterMixing got no samples: every partition is empty.")
        widths = {d["n_features"] for d in described}
        if len(widths) > 1:
            raise ValueError(
                f"The partitions have different numbers of features "
                f"{sorted(widths)}; every block of X needs all the columns."
            )
        n_features = widths.pop()
        dtype = np.float32 if all(d["dtype"] == "float32" for d in described) else np.float64
        # one constant input for every partition: intercept_scaling="auto" resolves by this
        sparse = any(d["sparse"] for d in described)
        classes = _check_classes(
            np.unique(np.concatenate([d["classes"] for d in described])), template
        )
        mixed = PrimalState.allocate(
            classes.shape[0],
            n_features,
            dtype,
            averaged=_averages(template),
            multinomial=template.multi_class == "multinomial",
        )
        rounds = _Rounds(self, template, runner, parts, mixed, (classes, sparse))
        # the estimator's tol, over the rounds' weighted mistakes
        stop = StopRule.of(template, self.max_rounds, limit="max_rounds", unit="Round")
        history = train(
            rounds, stop, owner="ParameterMixing", advice=_ADVICE, verbose=self.verbose, model=self
        )
        mixed, per_partition = rounds.mixed, rounds.per_partition
        self.estimator_ = clone(template).set_training_state(
            mixed, classes, history=history, sparse=sparse
        )
        self.mistakes_per_partition_ = per_partition
        self.n_partitions_ = len(parts)
        for name in (
            "classes_",
            "coef_",
            "intercept_",
            "n_features_in_",
            "n_iter_",
            "n_mistakes_",
            "mistakes_per_epoch_",
            "converged_",
        ):
            setattr(self, name, getattr(self.estimator_, name))

    # ------------------------------------------------------------------ predict
    def decision_function(self, X: Any) -> Any:
        """Scores of the mixed model; a Dask array in, a Dask array out."""
        check_is_fitted(self)
        if _is_dask_array(X):
            if self.coef_.shape[0] == 1:
                return X.map_blocks(
                    self.estimator_.decision_function, drop_axis=1, dtype=self.coef_.dtype
                )
            return X.map_blocks(
                self.estimator_.decision_function,
                dtype=self.coef_.dtype,
                chunks=(X.chunks[0], (self.coef_.shape[0],)),
            )
        return self.estimator_.decision_function(X)

    def predict(self, X: Any) -> Any:
        """Class labels from the mixed model; a Dask array in, a Dask array out."""
        check_is_fitted(self)
        if _is_dask_array(X):
            return X.map_blocks(self.estimator_.predict, drop_axis=1, dtype=self.classes_.dtype)
        return self.estimator_.predict(X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy; Dask inputs are computed chunk by chunk."""
        check_is_fitted(self)
        if _is_dask_array(X):
            import dask

            y = y.rechunk((X.chunks[0],)) if _is_dask_array(y) else y
            right = self.predict(X) == y
            if sample_weight is not None:
                return float(dask.compute((right * sample_weight).sum() / sample_weight.sum())[0])
            return float(dask.compute(right.mean())[0])
        return self.estimator_.score(X, y, sample_weight=sample_weight)


def _mixed_estimator(mixing: ParameterMixing) -> Any:
    """The fitted model a ParameterMixing predicts with, which its ONNX graph is."""
    return mixing.estimator_


register_export(ParameterMixing, _mixed_estimator)


# ---------------------------------------------------------------------- estimator state
def _check_estimator(estimator):
    from .estimators.linear import AveragedPerceptron, Perceptron

    if estimator is None:
        return Perceptron()
    if not isinstance(estimator, (Perceptron, AveragedPerceptron)):
        name = type(estimator).__name__
        why = (
            "it keeps every intermediate weight vector with its vote, and a vote record "
            "has no mix; use AveragedPerceptron, its deterministic approximation"
            if name == "VotedPerceptron"
            else "only linear weights can be mixed"
        )
        raise TypeError(
            f"ParameterMixing trains Perceptron or AveragedPerceptron, not {name}: {why}."
        )
    if getattr(estimator, "early_stopping", False):
        raise ValueError(
            "ParameterMixing runs one epoch per partition and round; "
            "early_stopping does not apply. Use early_stopping=False."
        )
    if getattr(estimator, "class_weight", None) == "balanced":
        raise ValueError(
            "class_weight='balanced' needs the whole class distribution; pass a "
            "dict of class weights to the estimator instead."
        )
    return clone(estimator)


def _check_classes(classes, estimator):
    from ._core.validation import check_classes

    return check_classes(classes, f"ParameterMixing({type(estimator).__name__})")


def _averages(estimator) -> bool:
    from .estimators.linear import AveragedPerceptron

    return isinstance(estimator, AveragedPerceptron)


def mix_states(states: Sequence[PrimalState], weights: ArrayLike) -> PrimalState:
    """Mix the training states of several partitions (see ``rosenblatt.engine.PrimalState.mix``).

    Parameters
    ----------
    states : list of rosenblatt.engine.PrimalState
    weights : array-like of shape (len(states),)
        Non-negative; normalised to sum to one.

    Returns
    -------
    PrimalState

    Examples
    --------
    >>> from rosenblatt.engine import PrimalState
    >>> a = PrimalState.allocate(2, 1, np.float64)
    >>> b = PrimalState.allocate(2, 1, np.float64)
    >>> a.W[:], b.W[:] = 2.0, 4.0
    >>> mix_states([a, b], [1, 3]).W
    array([[3.5]])
    """
    return PrimalState.mix(states, weights)


# ---------------------------------------------------------------------- worker tasks
def _partition_epoch(template, state, part, labels, seed):
    """One epoch of a fresh clone on one partition, from the mixed state (runs on a worker)."""
    X, y = part
    estimator = clone(template).set_params(random_state=int(seed))
    classes, sparse = labels  # the classes, and whether the data is sparse anywhere
    estimator.set_training_state(state.copy(), classes, sparse=sparse)
    reports, own = [], estimator.on_epoch  # the user's callback still hears every epoch

    def keep(report):
        reports.append(report)
        if own is not None:
            own(report)

    # the attribute, not set_params: a subclass (the tests' failing ones) may not list it
    estimator.on_epoch = keep
    estimator.partial_fit(X, y)
    trained = estimator.training_state_
    return {
        "state": trained,
        "mistakes": int(estimator.mistakes_per_epoch_[-1]),
        "presented": int(np.max(trained.counts - state.counts)),
        # what the compiled rule counted: the weights of the epoch's mistakes and patterns
        "mistake_weight": reports[-1].mistake_weight,
        "presented_weight": reports[-1].presented_weight,
    }


def _describe(part):
    X, y = part
    return {
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "dtype": str(X.dtype),
        "sparse": sp.issparse(X),
        "classes": np.unique(y),
    }


def _as_xy(X, y, index):
    """A partition's (X, y) as the estimators take them: CSR or a dense float array."""
    if hasattr(X, "to_numpy"):  # a pandas block
        X = X.to_numpy(dtype=np.float64)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
    else:
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y).ravel()
    if X.shape[0] != y.shape[0]:
        raise ValueError(
            f"Partition {index}: X has {X.shape[0]} rows but y has "
            f"{y.shape[0]}; partition X and y alike."
        )
    return X, y


def _split_frame(frame, label_column, index):
    if label_column not in frame.columns:
        raise ValueError(
            f"No column {label_column!r} in the DataFrame; its columns are {list(frame.columns)}."
        )
    return _as_xy(frame.drop(columns=[label_column]), frame[label_column], index)


# ---------------------------------------------------------------------- input
def _is_dask_array(x) -> bool:
    return hasattr(x, "to_delayed") and hasattr(x, "chunks") and hasattr(x, "map_blocks")


def _is_dask_frame(x) -> bool:
    return hasattr(x, "to_delayed") and hasattr(x, "npartitions") and not _is_dask_array(x)


def _partitions(X, y, label_column):
    """One delayed ``(X_block, y_block)`` per row block."""
    from dask import delayed

    pair = delayed(_as_xy, pure=True)
    if _is_dask_frame(X) and hasattr(X, "columns"):
        frames = X.to_delayed()
        if y is None:
            if label_column is None:
                raise ValueError(
                    "fit got a DataFrame and no y: give y, or the label column "
                    "as ParameterMixing(label_column=...)."
                )
            split = delayed(_split_frame, pure=True)
            return [split(f, label_column, i) for i, f in enumerate(frames)]
        return [pair(f, b, i) for i, (f, b) in enumerate(zip(frames, _blocks_of(y, len(frames))))]
    if not _is_dask_array(X):
        raise TypeError(
            f"ParameterMixing.fit takes a dask array or dask DataFrame, not "
            f"{type(X).__name__}; wrap in-memory data with "
            "dask.array.from_array(X, chunks=(rows_per_partition, -1))."
        )
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D; got {X.ndim} dimensions.")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})  # a partition holds whole rows
    if y is None:
        raise ValueError("fit needs y with a dask array X.")
    if (
        _is_dask_array(y)
        and not any(np.isnan(c) for c in y.chunks[0])
        and not any(np.isnan(c) for c in X.chunks[0])
    ):
        y = y.rechunk((X.chunks[0],))
    blocks = X.to_delayed().ravel().tolist()
    return [pair(xb, yb, i) for i, (xb, yb) in enumerate(zip(blocks, _blocks_of(y, len(blocks))))]


def _blocks_of(y, n_blocks):
    if not (_is_dask_array(y) or _is_dask_frame(y)):
        raise TypeError(
            f"y must be a dask array or Series partitioned like X, not {type(y).__name__}."
        )
    blocks = y.to_delayed()
    blocks = blocks.ravel().tolist() if hasattr(blocks, "ravel") else list(blocks)
    if len(blocks) != n_blocks:
        raise ValueError(
            f"X has {n_blocks} partitions but y has {len(blocks)}; partition them alike."
        )
    return blocks


# ---------------------------------------------------------------------- schedulers
def _runner(client):
    if client is None:
        try:
            from distributed import get_client

            client = get_client()
        except (ImportError, ValueError):
            return _LocalRunner()
    return _ClientRunner(client)


class _ClientRunner:
    """Partitions live on the workers as futures; each round ships only the weights."""

    def __init__(self, client):
        self.client = client

    def load(self, parts):
        return self.client.compute(parts)

    def release(self, parts):
        self.client.cancel(parts)

    def map(self, function, parts):
        futures = [self.client.submit(function, p, pure=False) for p in parts]
        return self._gather(futures, "reading the data")

    def round(self, template, state, parts, labels, seeds, round_):
        # The mixed state travels inside the tasks (small) or as one task's result
        # (large), never as scattered data: should every worker holding it die, the
        # scheduler can still recompute it.
        shared = state
        if sum(v.nbytes for v in state.to_state()[1].values()) > INLINE_STATE_BYTES:
            shared = self.client.submit(_identity, state, pure=False)
        futures = [
            self.client.submit(_partition_epoch, template, shared, p, labels, int(s), pure=False)
            for p, s in zip(parts, seeds)
        ]
        try:  # one result per partition, each _partition_epoch's complete state
            return self._gather(futures, f"round {round_}")
        finally:
            self.client.cancel([f for f in (shared, *futures) if hasattr(f, "cancel")])

    def _gather(self, futures, stage):
        from distributed import wait

        try:
            wait(futures)
            failure = None
        except Exception as exc:  # e.g. futures cancelled when data could not be recovered
            failure = exc
        for i, future in enumerate(futures):
            if future.status != "finished":
                cause = future.exception() if future.status == "error" else failure
                raise DistributedFitError(
                    f"ParameterMixing failed in {stage}: partition {i} did not finish "
                    f"({future.status}: {type(cause).__name__} {cause}). No partial mix was "
                    "applied and the model was not fitted. Dask reruns a task whose worker "
                    "died, up to distributed.scheduler.allowed-failures times; remove the "
                    "cause (the workers' logs tell more) and fit again."
                ) from cause
        try:
            return self.client.gather(futures)
        except Exception as exc:
            raise DistributedFitError(
                f"ParameterMixing failed in {stage}: collecting the partitions' results "
                f"raised {type(exc).__name__} {exc}; the model was not fitted. Check that "
                "the client still reaches the scheduler and its workers, and fit again."
            ) from exc


def _identity(value):
    return value


class _LocalRunner:
    """No cluster: partitions in this process, epochs on the default Dask scheduler."""

    def load(self, parts):
        import dask

        return list(dask.compute(*parts))

    def release(self, parts):
        pass

    def map(self, function, parts):
        return [function(p) for p in parts]

    def round(self, template, state, parts, labels, seeds, round_):
        import dask
        from dask import delayed

        epoch = delayed(_partition_epoch, pure=False)
        tasks = [epoch(template, state, p, labels, int(s)) for p, s in zip(parts, seeds)]
        try:  # one result per partition, each _partition_epoch's complete state
            return list(dask.compute(*tasks))
        except Exception as exc:
            raise DistributedFitError(
                f"ParameterMixing failed in round {round_}: a partition's epoch raised "
                f"{type(exc).__name__} {exc}; the model was not fitted. Remove the cause "
                "and fit again."
            ) from exc
