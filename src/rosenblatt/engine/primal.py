"""The training state of the linear (primal) perceptrons.

A :class:`PrimalState` holds everything a linear perceptron learns, one row per
neuron: the weights ``W`` and ``w0`` (the weight of the constant input), the
averaging accumulators ``U`` and ``U0``, the presentation counts and, for the
voted perceptron, the record of every update. It can allocate and reset itself,
read off the last or the averaged weights, vote, train one epoch of the compiled
rule or a run of epochs in one compiled call (both in :mod:`.primal_epochs`), take the
credit of the presentations a converged run skips, mix with other states (parameter
mixing), and turn itself into plain arrays and JSON and back (model files, Dask).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.random_states import rng_from_state, rng_to_state
from .._core.sparse import is_sparse
from .kernels.bundles import Rows
from .overflow import check_finite, check_scores
from .primal_epochs import present, run_epochs
from .targets import Growth, TargetCoding, fixed_classes_of
from .votes import VoteRecord

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from .._core.typing import ArrayLike

__all__ = [
    "Batch",
    "constant_input",
    "PrimalRule",
    "PrimalState",
    "readonly",
    "rows_of",
    "scores",
    "thread_count",
    "worker_pool",
]

_INDEX = np.int64


@dataclass(frozen=True)
class PrimalRule:
    """The scalars of the update rule, from an estimator's parameters.

    Attributes
    ----------
    eta : float
        Learning rate.
    bias_input : float
        The constant input appended to every pattern (0 without an intercept;
        the lecture notes' worked example uses -1).
    batch : bool
        One summed update per epoch (the lecture notes' batch mode) instead of one
        per mistake.
    threads : int
        Threads training one-vs-rest neurons side by side.
    step : {"perceptron", "pa", "pa1", "pa2"}
        Rosenblatt's step (a mistake moves the weights by ``eta``), or the
        passive-aggressive family's (Crammer et al. 2006): a margin error ``y a < 1``
        moves them by ``tau = loss / ||x||^2`` (PA), at most ``C`` (PA-I), or ``loss /
        (||x||^2 + 1 / (2 C))`` (PA-II), ``x`` the augmented pattern.
    C : float
        The passive-aggressive steps' aggressiveness bound.
    """

    eta: float = 1.0
    bias_input: float = 1.0
    batch: bool = False
    threads: int = 1
    step: str = "perceptron"
    C: float = 1.0

    def fix(self) -> dict[str, float]:
        """What an overflow's message names to change: the learning rate, or the bound of a
        passive-aggressive step (which has none)."""
        return {"eta": self.eta} if self.step == "perceptron" else {"C": self.C}


class Batch:
    """Patterns ready for the compiled epoch: rows, class indices and sample weights.

    Parameters
    ----------
    X : ndarray of shape (n, d) (C order) or CSR matrix with sorted indices
    target : ndarray of int64, or of shape (n, n_labels)
        Each sample's class index into the model's classes; or, for a layer of
        independent neurons with several labels per sample (multilabel), the 0/1
        label matrix (:meth:`TargetCoding.encode`), kept as int8.
    sample_weight : ndarray of float64
    growth : Growth, default=None
        The classes that joined the model with this batch, when it is one of an epoch that
        arrives in batches (the state has grown; :class:`~.problems.BatchEpochs` grows the
        run's units the same way before presenting it).
    """

    def __init__(self, X, target, sample_weight, growth=None):
        self.growth = growth
        self.X = X
        self.rows = rows_of(X)
        target = np.asarray(target)
        dtype = np.int8 if target.ndim == 2 else _INDEX  # the loop's two target types
        self.target = readonly(np.ascontiguousarray(target, dtype=dtype))
        self.sample_weight = readonly(np.ascontiguousarray(sample_weight, dtype=np.float64))

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def multilabel(self) -> bool:
        """Whether the targets are a label matrix (several labels per sample)."""
        return self.target.ndim == 2


def constant_input(fit_intercept: bool, scaling: float) -> float:
    """The constant input appended to every pattern: the resolved ``intercept_scaling``
    with an intercept, 0 without one (the intercept is ``w0`` times it)."""
    return float(scaling) if fit_intercept else 0.0


def rows_of(X: Any) -> Rows:
    """The ``Rows`` bundle of dense rows or of a CSR matrix (sorted indices), read-only."""
    if is_sparse(X):
        index = np.int32 if X.nnz < np.iinfo(np.int32).max else np.int64
        csr = (X.data, X.indices.astype(index, copy=False), X.indptr.astype(index, copy=False))
        return Rows(readonly(np.empty((0, 0), dtype=X.dtype)), tuple(readonly(p) for p in csr))
    return Rows(readonly(X), None)


def scores(X: Any, coef: ArrayLike, intercept: ArrayLike) -> np.ndarray:
    """``X @ coef.T + intercept`` summed as training sums each activation (see
    :mod:`rosenblatt.engine.kernels.scores`): (n_samples,) for one neuron, else (n_samples, k).

    Patterns and weights meet in the wider of their two types.
    """
    from .kernels.loader import compiled_kernel

    linear_scores = compiled_kernel("scores.linear_scores")

    coef, intercept = np.asarray(coef), np.asarray(intercept)
    if coef.ndim != 2 or coef.shape[1] != X.shape[1] or intercept.shape != coef.shape[:1]:
        raise ValueError(
            f"weights of shape {coef.shape} and intercepts of shape {intercept.shape} do not "
            f"score rows of {X.shape[1]} features"
        )
    dtype = np.result_type(X.dtype, coef.dtype)
    if is_sparse(X):
        X = X.astype(dtype, copy=False).tocsr()
        X = X if X.has_sorted_indices else X.sorted_indices()
    else:
        X = np.ascontiguousarray(X, dtype=dtype)
    out = np.empty((X.shape[0], coef.shape[0]), dtype=dtype)
    linear_scores(
        rows_of(X),
        readonly(np.ascontiguousarray(coef, dtype=dtype)),
        readonly(np.ascontiguousarray(intercept, dtype=dtype)),
        out,
    )
    check_scores(out, X)
    return out.ravel() if out.shape[1] == 1 else out


def readonly(array: np.ndarray) -> np.ndarray:
    """A read-only view: the loops never write the data, and numba compiles a separate
    variant for read-only arrays (joblib's memmaps, ``mmap_mode="r"``), so every input
    reaches them read-only and one variant serves both. An unaligned buffer (Dask's
    pickled partitions can be) is copied first: the compiled loops assume aligned data,
    and only aligned variants are built at install."""
    if not array.flags.aligned:
        array = np.require(array, requirements="A")
    view = array.view()
    view.flags.writeable = False
    return view


def thread_count(n_jobs: int | None, n_units: int) -> int:
    """Threads for ``n_jobs`` (None: 1; negative: all cores and fewer), at most one
    per unit that can train on its own."""
    if n_jobs is None:
        return 1
    threads = (os.cpu_count() or 1) + 1 + n_jobs if n_jobs < 0 else n_jobs
    return max(1, min(threads, n_units))


@contextmanager
def worker_pool(threads: int) -> Iterator[ThreadPoolExecutor | None]:
    """The threads that train neuron groups beside the calling thread, kept for a
    whole fit (``None`` with one thread): starting threads every epoch delayed
    each epoch's start by about a millisecond on two cores."""
    if threads <= 1:
        yield None
        return
    with ThreadPoolExecutor(max_workers=threads - 1) as pool:
        yield pool


class PrimalState:
    """What a linear perceptron has learnt, one row per neuron.

    Parameters
    ----------
    W : ndarray of shape (n_rows, n_features)
    w0 : ndarray of shape (n_rows,)
        Weight of the constant input; the intercept is ``w0 * bias_input``.
    U, U0 : ndarray of shape (n_rows, n_features) and (n_rows,)
        Averaging accumulators (shapes (n_rows, 0) and (0,) when not averaging).
    counts : ndarray of int64
        Presentations seen by each row (one shared count when ``multinomial``).
    multinomial : bool
        One vector per class with one coupled update, instead of independent neurons.
    votes : VoteRecord or None
        Every update, for the voted perceptron.

    Attributes
    ----------
    rng : RandomState, Generator or None
        Where ``partial_fit`` draws its orders from when ``random_state`` is a
        seed, so that training continued after saving and loading sees the
        orders it would have seen (None until the first ``partial_fit``; ``fit``
        always starts from ``random_state``).
    fixed_classes : bool
        Whether the classes were given up front (``partial_fit(classes=...)``), so that
        a label outside them is refused; else a new label adds a class (:meth:`grow`).
    """

    #: 2: ``U`` sums each update times the notes' counter ``c`` (1-based, CIML Algorithm
    #: 7); version 1 summed it times the presentations before it (0-based) and averaged
    #: ``w_1 .. w_T``. A version-1 state without averaging is the same and still reads.
    VERSION = 2

    def __init__(self, W, w0, U, U0, counts, *, multinomial=False, votes=None):
        self.W, self.w0, self.U, self.U0, self.counts = W, w0, U, U0, counts
        self.multinomial = bool(multinomial)
        self.votes = votes
        self.rng = None
        self.fixed_classes = False

    @classmethod
    def allocate(
        cls,
        n_classes: int,
        n_features: int,
        dtype: DTypeLike,
        *,
        averaged: bool = False,
        voted: bool = False,
        multinomial: bool = False,
        multilabel: bool = False,
    ) -> PrimalState:
        """Zero state for ``n_classes`` classes: one neuron for two (unless
        multinomial or multilabel), else one row per class (multilabel: per label)."""
        coding = TargetCoding.for_classes(
            np.arange(n_classes), multinomial=multinomial, multilabel=multilabel
        )
        n_rows = coding.n_outputs
        averaged_columns = n_features if averaged else 0
        return cls(
            np.zeros((n_rows, n_features), dtype=dtype),
            np.zeros(n_rows, dtype=dtype),
            np.zeros((n_rows, averaged_columns), dtype=dtype),
            np.zeros(n_rows if averaged else 0, dtype=dtype),
            np.zeros(1 if multinomial else n_rows, dtype=np.int64),
            multinomial=multinomial,
            votes=VoteRecord(n_rows, multinomial) if voted else None,
        )

    # ------------------------------------------------------------------ facts
    @property
    def n_rows(self) -> int:
        return self.W.shape[0]

    @property
    def n_features(self) -> int:
        return self.W.shape[1]

    @property
    def dtype(self) -> np.dtype:
        return self.W.dtype

    @property
    def averaged(self) -> bool:
        return self.U.shape[1] > 0

    @property
    def n_units(self) -> int:
        """Parts that stop on their own: each one-vs-rest neuron, or the whole model."""
        return 1 if self.multinomial else self.n_rows

    def coding(self) -> TargetCoding:
        """The target coding of the rows, on class indices ``0 .. K-1``: binary for a
        lone neuron, else multinomial or one-vs-rest."""
        if self.n_rows == 1:
            return TargetCoding.binary(np.arange(2))
        classes = np.arange(self.n_rows)
        if self.multinomial:
            return TargetCoding.multinomial(classes)
        return TargetCoding.one_vs_rest(classes)

    def positive(self) -> np.ndarray:
        """The class index each row answers +1 for (class 1 for a lone neuron); with
        a label matrix, the column each row reads (a multilabel layer has at least
        two rows, whose indices these are, as one-vs-rest's)."""
        return self.coding().positives

    def copy(self) -> PrimalState:
        return PrimalState.from_state(*self.to_state(), copy=True)

    def grow(self, growth: Growth) -> None:
        """Take the outputs of classes that joined (:meth:`TargetCoding.grow
        <rosenblatt.engine.targets.TargetCoding.grow>`), in place: a new class's row starts
        at zero, its weights, averaging sums and (one-vs-rest) presentation count, as a row
        held at zero until now; an old row keeps all of it (a grown binary neuron's
        negation, its own); the multinomial model's one count goes on. The vote record
        follows (:meth:`VoteRecord.grow <rosenblatt.engine.votes.VoteRecord.grow>`)."""
        self.W, self.w0 = growth.rows(self.W), growth.rows(self.w0)
        self.U, self.U0 = growth.rows(self.U), growth.rows(self.U0) if self.averaged else self.U0
        if not self.multinomial:
            self.counts = growth.rows(self.counts)
        if self.votes is not None:
            self.votes.grow(growth)

    def reset(self) -> None:
        """Back to the zero state (same shapes, no updates recorded)."""
        for part in (self.W, self.w0, self.U, self.U0, self.counts):
            part[...] = 0
        if self.votes is not None:
            self.votes = VoteRecord(self.n_rows, self.multinomial)

    # ------------------------------------------------------------------ read-off
    def weights(
        self, averaged: bool = False, initial: bool = True
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(W, w0)``: the last weights, or the average of ``w_0 .. w_T`` (with
        ``initial=False``, of ``w_1 .. w_T``: scikit-learn's averaged SGD's).

        The average is CIML Algorithm 7's return value ``w - u / c``: ``U`` holds
        every update times the notes' example counter ``c`` at that presentation
        (1-based), and after ``T`` presentations ``c = T + 1``. It is the mean of the
        ``T + 1`` weight vectors ``w_0`` (the initial one) .. ``w_T``; from zero weights,
        ``T / (T + 1)`` times the mean of ``w_1 .. w_T``, so the same predictions.

        Examples
        --------
        The notes' modified OR problem after two epochs (``T = 8``, ``c = 9``):

        >>> from rosenblatt import AveragedPerceptron
        >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
        >>> state = AveragedPerceptron(shuffle=False, max_iter=2).fit(X, y).training_state_
        >>> W, w0 = state.weights(averaged=True)
        >>> (W * 9).tolist(), (w0 * 9).tolist(), state.counts.tolist()
        ([[9.0, 7.0]], [5.0], [8])

        A state starts from zero weights, so the mean of ``w_1 .. w_T`` is ``(c W - U) / T``:

        >>> W, w0 = state.weights(averaged=True, initial=False)
        >>> (W * 8).tolist(), (w0 * 8).tolist()
        ([[9.0, 7.0]], [5.0])
        """
        if not averaged:
            return self.W, self.w0
        c = (self.counts + 1).astype(np.float64)  # Algorithm 7's counter: T + 1
        if self.multinomial:
            c = np.repeat(c, self.n_rows)
        if initial:
            W = self.W - self.U / c[:, None]
            w0 = self.w0 - self.U0 / c
        else:  # without w_0 = 0: (sum of w_0 .. w_T) / T, T presentations at least one
            T = np.maximum(c - 1.0, 1.0)
            W = (c[:, None] * self.W - self.U) / T[:, None]
            w0 = (c * self.w0 - self.U0) / T
        return W.astype(self.dtype), w0

    def public_weights(
        self, averaged: bool, bias_input: float, initial: bool = True
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(coef_, intercept_)`` of an estimator trained on this state: the last or
        averaged weights (``initial``: see :meth:`weights`), the intercept ``w0 *
        bias_input``, and for a multinomial model of two classes the one binary row
        ``class 1 - class 0``."""
        W, w0 = self.weights(averaged=averaged, initial=initial)
        intercept = (w0 * bias_input + 0.0).astype(W.dtype)  # + 0.0: a zero prints 0., not -0.
        if self.multinomial and self.n_rows == 2:
            W = W[1:] - W[:1]  # the binary decision function of the two class vectors
            intercept = intercept[1:] - intercept[:1]
        return np.array(W, copy=True), np.array(intercept, copy=True)

    def vote(self, X: Any, n_classes: int) -> np.ndarray:
        """The survival-weighted vote of every weight vector passed through
        (:meth:`VoteRecord.decision`)."""
        return self.votes.decision(X, self.counts, n_classes)

    def credit(self, epochs_left: ArrayLike, presented: int) -> None:
        """Count ``epochs_left`` more epochs of ``presented`` patterns for each unit
        without an update: what a converged run skips (see :func:`.driver.train`)."""
        self.counts += np.asarray(epochs_left, dtype=np.int64) * int(presented)

    def check_finite(self, **context: Any) -> None:
        """Refuse weights or averaging sums beyond the float range
        (:func:`.overflow.check_finite`; ``context`` names the learning rate)."""
        check_finite({"weights": self.W, "bias weights": self.w0}, **context)
        check_finite({"averaging sums": self.U, "averaging sums of the bias": self.U0}, **context)

    # ------------------------------------------------------------------ training
    # one epoch, and a run of epochs in one compiled call: the state's methods, written in
    # their own module (:mod:`.primal_epochs`)
    epoch = present
    epochs = run_epochs

    # ------------------------------------------------------------------ plain form
    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """``(meta, arrays)``: JSON-ready facts and named numpy arrays, enough for
        :meth:`from_state` to rebuild this state exactly."""
        meta = {
            "kind": "primal",
            "version": self.VERSION,
            "multinomial": self.multinomial,
            "votes": None,
        }
        if self.fixed_classes:  # absent: classes that grow (every file from before it)
            meta["fixed_classes"] = True
        arrays = {"W": self.W, "w0": self.w0, "U": self.U, "U0": self.U0, "counts": self.counts}
        if self.votes is not None:
            meta["votes"], vote_arrays = self.votes.to_state()
            arrays.update(vote_arrays)
        if self.rng is not None:
            meta["rng"], rng_arrays = rng_to_state(self.rng)
            arrays.update(rng_arrays)
        return meta, arrays

    @classmethod
    def from_state(
        cls, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray], *, copy: bool = False
    ) -> PrimalState:
        """Rebuild a state from :meth:`to_state`'s output (arrays copied when ``copy``);
        ``ValueError`` naming the part that does not fit."""
        try:
            return cls._from_state(meta, arrays, copy)
        except KeyError as exc:
            raise ValueError(f"the training state lacks {exc}") from None

    @classmethod
    def _from_state(cls, meta, arrays, copy):
        if meta.get("kind") != "primal" or meta.get("version") not in (1, cls.VERSION):
            raise ValueError(
                f"not a primal training state of version {cls.VERSION}: "
                f"{meta.get('kind')!r} version {meta.get('version')!r}"
            )
        W, w0, U, U0, counts = (
            np.array(arrays[name]) if copy else np.asarray(arrays[name])
            for name in ("W", "w0", "U", "U0", "counts")
        )
        if meta["version"] == 1 and U.ndim == 2 and U.shape[1]:
            raise ValueError(
                "an averaged perceptron's training state of version 1, which averaged the "
                "weights w_1 .. w_T; this rosenblatt averages w_0 .. w_T as CIML Algorithm 7 "
                "does (version 2): train the model again"
            )
        multinomial = bool(meta["multinomial"])
        if W.ndim != 2 or W.dtype not in (np.float32, np.float64):
            raise ValueError(f"W must be a 2-D float array; got {W.dtype} of shape {W.shape}")
        n_rows, n_features = W.shape
        expected = {
            "w0": (w0, (n_rows,)),
            "counts": (counts, (1 if multinomial else n_rows,)),
            "U": (U, (n_rows, U.shape[1] if U.ndim == 2 else -1)),
            "U0": (U0, (n_rows if U.ndim == 2 and U.shape[1] else 0,)),
        }
        for name, (part, shape) in expected.items():
            if part.shape != shape:
                raise ValueError(f"{name} has shape {part.shape}, expected {shape}")
        if U.shape[1] not in (0, n_features) or counts.dtype.kind not in "iu" or np.any(counts < 0):
            raise ValueError("the averaging accumulators or the counts do not fit the weights")
        if multinomial and n_rows < 2:
            raise ValueError(f"a multinomial state has one row per class; got {n_rows} row")
        for name, part in (("W", W), ("w0", w0), ("U", U), ("U0", U0)):
            if part.dtype.kind != "f" or not np.all(np.isfinite(part)):
                raise ValueError(f"{name} must hold finite floats; got {part.dtype}")
        votes = None
        if meta.get("votes") is not None:
            votes = VoteRecord.from_state(
                meta["votes"],
                arrays,
                1 if multinomial else n_rows,
                n_features=n_features,
                n_classes=n_rows if multinomial else 2,
                counts=counts,
                dtype=W.dtype,
            )
        state = cls(
            W,
            w0.astype(W.dtype),
            U.astype(W.dtype),
            U0.astype(W.dtype),
            counts.astype(np.int64),
            multinomial=multinomial,
            votes=votes,
        )
        if meta.get("rng") is not None:
            state.rng = rng_from_state(meta["rng"], arrays)
        state.fixed_classes = fixed_classes_of(meta)
        return state

    # ------------------------------------------------------------------ mixing
    @classmethod
    def mix(cls, states: Sequence[PrimalState], weights: ArrayLike) -> PrimalState:
        """Mix states with non-negative ``weights`` (iterative parameter mixing).

        The weights mix linearly, ``W = sum_i mu_i W_i``. For the averaged
        perceptron the averaged weights mix the same way, ``A = sum_i mu_i A_i``
        with ``A_i = W_i - U_i / c_i`` (Algorithm 7's counter ``c_i = T_i + 1``), and
        the count mixes too, ``T = round(sum_i mu_i T_i)``; so ``U = c sum_i mu_i U_i /
        c_i`` with ``c = T + 1``. Mixing ``U`` directly would make ``A`` a different,
        size-dependent mix.

        Examples
        --------
        >>> a = PrimalState(np.array([[2.0]]), np.array([0.0]), np.array([[3.0]]),
        ...                 np.array([0.0]), np.array([2]))
        >>> b = PrimalState(np.array([[4.0]]), np.array([1.0]), np.array([[0.0]]),
        ...                 np.array([0.0]), np.array([4]))
        >>> mixed = PrimalState.mix([a, b], [1, 1])
        >>> mixed.W, mixed.counts
        (array([[3.]]), array([3]))
        >>> mixed.weights(averaged=True)[0]  # the mean of the averages 1 and 4
        array([[2.5]])
        """
        mu = np.asarray(weights, dtype=np.float64)
        mu = mu / mu.sum()
        first = states[0]

        def mix(values):
            return sum(m * np.asarray(v, dtype=np.float64) for m, v in zip(mu, values))

        W = mix(s.W for s in states).astype(first.dtype)
        w0 = mix(s.w0 for s in states).astype(first.dtype)
        U, U0, counts = first.U.copy(), first.U0.copy(), first.counts.copy()
        if first.averaged:
            seen = [s.counts.astype(np.float64) for s in states]
            total = np.rint(mix(seen))
            # Algorithm 7's counters c = T + 1, per row
            c_of = [np.repeat(t + 1, first.n_rows) if first.multinomial else t + 1 for t in seen]
            c = np.repeat(total + 1, first.n_rows) if first.multinomial else total + 1
            # U / c of the mix = mix of the U_i / c_i: the averages mix like the weights
            U = (c[:, None] * mix(s.U / t[:, None] for s, t in zip(states, c_of))).astype(
                first.dtype
            )
            U0 = (c * mix(s.U0 / t for s, t in zip(states, c_of))).astype(first.dtype)
            counts = total.astype(np.int64)
        return cls(W, w0, U, U0, counts, multinomial=first.multinomial)
