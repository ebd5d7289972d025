"""The record behind the voted perceptron: every update, and so every intermediate
weight vector with its survival count (Freund & Schapire, 1999).

Only the updates are stored (the pattern, its coefficient and when it happened);
the k-th weight vector is the sum of the first k updates, so its score on a test
point is a running sum of per-update inner products: those come from one matrix
product per block of test points, and a compiled pass sums them and counts the
votes (no array of every hypothesis's scores). Memory grows with the number of
mistakes, not with the number of presentations.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.config import VOTE_BLOCK_ELEMENTS
from .._core.sparse import checked_csr, is_sparse
from .overflow import check_vote_range

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike, DTypeLike

__all__ = ["VoteRecord", "survival_counts"]


def survival_counts(times: np.ndarray, n_presented: int) -> np.ndarray:
    """Survival counts of the initial vector and of the vector after each update.

    ``times[j]`` is the number of presentations before update ``j``; the vector
    after update ``j`` is the one in force after presentations ``times[j] + 1`` up
    to ``times[j + 1]``, the last one up to ``n_presented``.

    Examples
    --------
    >>> survival_counts(np.array([0, 1, 2]), 8).tolist()
    [0.0, 1.0, 1.0, 6.0]
    """
    return np.diff(np.concatenate(([0], times, [n_presented]))).astype(np.float64)


def _check_classes(labels, n_classes, where):
    """The class indices of multinomial updates, which the compiled vote indexes by."""
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        raise ValueError(f"{where}: classes outside 0..{n_classes - 1}")


def _stack(blocks):
    if is_sparse(blocks[0]):
        import scipy.sparse as sp

        return sp.vstack(blocks, format="csr")
    return np.vstack(blocks)


def _checked_rows(arrays, key, *, n_features, dtype, where):
    """The dense or CSR rows stored under ``key`` (None when absent), checked: finite,
    canonical CSR, ``n_features`` wide, of the model's ``dtype``."""
    if f"{key}.data" in arrays:
        shape = np.asarray(arrays[f"{key}.shape"])
        if shape.shape != (2,) or shape.dtype.kind not in "iu":
            raise ValueError(f"{where}: the rows' shape is not two ints")
        rows = checked_csr(
            arrays[f"{key}.data"],
            arrays[f"{key}.indices"],
            arrays[f"{key}.indptr"],
            tuple(int(v) for v in shape),
        )
        if not rows.has_canonical_format:  # training rows: sorted, each column once
            raise ValueError(f"{where}: rows whose column indices are not sorted and unique")
    else:
        rows = arrays.get(key)
        if rows is None:
            return None
        rows = np.asarray(rows)
        if rows.ndim != 2 or rows.dtype.kind != "f" or not np.all(np.isfinite(rows)):
            raise ValueError(f"{where}: the rows are not a 2-D array of finite floats")
    if rows.dtype != dtype:
        raise ValueError(f"{where}: rows of {rows.dtype}, not the model's {dtype}")
    if rows.shape[1] != n_features:
        raise ValueError(f"{where}: rows of {rows.shape[1]} features; the model has {n_features}")
    return rows


def _rows_to_arrays(rows, key):
    if is_sparse(rows):
        csr = rows.tocsr()
        return {
            f"{key}.data": csr.data,
            f"{key}.indices": csr.indices,
            f"{key}.indptr": csr.indptr,
            f"{key}.shape": np.array(csr.shape, dtype=np.int64),
        }
    return {key: rows}


class _Patterns:
    """The distinct patterns the updates were made with, each kept once.

    Every update is the pattern of a training row, and the same rows come back epoch
    after epoch: keeping each once (an update refers to it by index) bounds the
    record's rows, and the cost of a vote per test point, by the training rows,
    however many epochs ran. A row is known by its batch and its index there, so two
    equal rows of different batches (``partial_fit`` calls, stream chunks) are kept
    twice: equality is never tested, only identity.
    """

    def __init__(self):
        self._blocks = []
        self.n = 0
        # per batch (while it lives): the pattern index of each of its rows, -1 if none
        self._index = weakref.WeakKeyDictionary()

    def of(self, batch, samples):
        """The pattern index of rows ``samples`` of ``batch``, keeping the new ones."""
        index = self._index.get(batch)
        if index is None:
            index = self._index[batch] = np.full(batch.n_samples, -1, dtype=np.int64)
        new = np.unique(samples[index[samples] < 0])
        if new.size:
            index[new] = np.arange(self.n, self.n + new.size)
            self.add(batch.X[new])
        return index[samples]

    def __getstate__(self):  # which rows of a live batch are kept only matters in training
        return {"_blocks": self._blocks, "n": self.n}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._index = weakref.WeakKeyDictionary()

    def add(self, rows):
        self._blocks.append(rows)
        self.n += rows.shape[0]

    @property
    def rows(self):
        """Every pattern, stacked (None before the first update)."""
        if not self._blocks:
            return None
        if len(self._blocks) > 1:
            self._blocks = [_stack(self._blocks)]
        return self._blocks[0]


class _Voter:
    """The updates of one voter: a one-vs-rest neuron, or the multinomial model. Update
    ``j`` added ``coef[j]`` times pattern ``pattern[j]`` of the record's patterns, made
    with row ``sample[j]`` of its batch (-1: unknown, a record read from a file)."""

    _COLUMNS = ("coef", "time", "true", "pred", "pattern")  # the saved ones

    def __init__(self):
        self._columns = {name: [] for name in (*self._COLUMNS, "sample")}

    def add(self, pattern, coef, time, true=None, pred=None, sample=None):
        if sample is None:  # rows of batches that are gone (a saved record)
            sample = np.full(np.shape(coef)[0], -1)
        columns = (coef, time, true, pred, pattern, sample)
        for name, values in zip((*self._COLUMNS, "sample"), columns):
            if values is not None:
                self._columns[name].append(np.array(values, copy=True))

    def carried(self, sign=1.0, class_map=None):
        """A copy of this voter for a grown model: its coefficients times ``sign`` (a
        negated neuron's), a multinomial update's classes by their new indices."""
        voter = _Voter()
        for name, parts in self._columns.items():
            kept = [np.array(part, copy=True) for part in parts]
            if name == "coef" and sign < 0:
                kept = [-part + 0.0 for part in kept]
            elif name in ("true", "pred") and class_map is not None:
                kept = [class_map[part] for part in kept]
            voter._columns[name] = kept
        return voter

    def column(self, name):
        parts = self._columns[name]
        dtype = np.float64 if name == "coef" else np.int64
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.empty(0, dtype)

    def to_arrays(self, prefix):
        return {f"{prefix}{name}": self.column(name) for name in self._COLUMNS}

    @classmethod
    def from_arrays(cls, arrays, prefix, *, n_patterns, n_classes, presented, multinomial):
        """The voter :meth:`to_arrays` describes, checked against the model it votes in:
        patterns below ``n_patterns``, classes below ``n_classes``, update times in
        order and at most ``presented`` (``ValueError`` naming what does not fit)."""
        voter = cls()
        columns = [np.asarray(arrays[f"{prefix}{name}"]) for name in cls._COLUMNS]
        n = columns[0].shape[0]
        where = f"vote record {prefix!r}"
        if (
            any(c.ndim != 1 for c in columns)
            or columns[0].dtype.kind != "f"
            or any(c.dtype.kind not in "iu" for c in columns[1:])
        ):
            raise ValueError(f"{where}: the update columns are not 1-D numbers")
        coef, time, true, pred, pattern = columns
        labelled = n if multinomial else 0
        if (
            time.shape[0] != n
            or pattern.shape[0] != n
            or true.shape[0] != labelled
            or pred.shape[0] != labelled
        ):
            raise ValueError(f"{where}: the columns do not have one entry per update")
        if not np.all(np.isfinite(coef)):
            raise ValueError(f"{where}: update coefficients that are not finite")
        if n and (time[0] < 0 or np.any(np.diff(time) < 0) or time[-1] > presented):
            raise ValueError(f"{where}: update times out of order or beyond {presented}")
        _check_classes(np.concatenate((true, pred)), n_classes, where)
        _check_patterns(pattern, n_patterns, where)
        if n:
            voter.add(pattern, coef, time, true if labelled else None, pred if labelled else None)
        return voter


def _check_patterns(pattern, n_patterns, where):
    """The pattern indices of updates, which the compiled vote indexes by."""
    if pattern.size and (pattern.min() < 0 or pattern.max() >= n_patterns):
        raise ValueError(f"{where}: patterns outside 0..{n_patterns - 1}")


class VoteRecord:
    """Every update of a voted perceptron, per one-vs-rest neuron or for the
    multinomial model (one shared voter), with the constant input ``bias_input``
    the updates were made with; the patterns they added are kept once, shared by
    the voters."""

    def __init__(self, n_voters, multinomial, bias_input=0.0):
        self.multinomial = bool(multinomial)
        self.bias_input = float(bias_input)
        self.voters = [_Voter() for _ in range(1 if multinomial else n_voters)]
        self.patterns = _Patterns()

    def add(
        self,
        k: int,
        batch: Any,
        samples: np.ndarray,
        coef: np.ndarray,
        time: np.ndarray,
        true: np.ndarray | None = None,
        pred: np.ndarray | None = None,
    ) -> None:
        """Keep voter ``k``'s updates: rows ``samples`` of ``batch``, with their
        coefficients and times."""
        if coef.shape[0]:
            pattern = self.patterns.of(batch, samples)
            self.voters[k].add(pattern, coef, time, true, pred, sample=samples)

    def grow(self, growth: Any) -> None:
        """Follow the outputs of classes that joined (a
        :class:`~rosenblatt.engine.targets.Growth`): one-vs-rest, a voter per output (a new
        class's without updates, a grown binary neuron's negation with its updates negated);
        multinomial, the one voter's classes renumbered."""
        if self.multinomial:
            self.voters = [self.voters[0].carried(class_map=growth.class_map)]
            return
        self.voters = [
            _Voter() if k < 0 else self.voters[k].carried(sign)
            for k, sign in zip(growth.source.tolist(), growth.sign.tolist())
        ]

    def rows(self, k: int) -> Any:
        """Voter ``k``'s update patterns, one row per update (None before any)."""
        pattern = self.voters[k].column("pattern")
        return None if pattern.size == 0 else self.patterns.rows[pattern]

    def n_vectors(self) -> list[int]:
        """Number of distinct weight vectors of each voter (updates + 1)."""
        return [v.column("coef").shape[0] + 1 for v in self.voters]

    def _inner_products(self, X, width=0):
        """Blocks of test points with their inner products against every pattern:
        ``(start, stop, inner)``, ``inner`` (stop - start, n_patterns); blocks small
        enough for arrays of ``width`` columns per point too."""
        rows = self.patterns.rows
        n_patterns = 0 if rows is None else rows.shape[0]
        step = max(1, VOTE_BLOCK_ELEMENTS // max(n_patterns, width, 1))
        for start in range(0, X.shape[0], step):
            stop = min(start + step, X.shape[0])
            if n_patterns == 0:
                yield start, stop, np.zeros((stop - start, 0))
                continue
            with np.errstate(over="ignore", invalid="ignore"):  # refused by the vote
                inner = X[start:stop] @ rows.T
            inner = inner.toarray() if is_sparse(inner) else np.asarray(inner)
            yield start, stop, np.ascontiguousarray(inner, dtype=np.float64)

    def decision(self, X: Any, counts: Sequence[int] | np.ndarray, n_classes: int) -> np.ndarray:
        """Normalised vote: (n_samples, n_voters) in [-1, 1], or (n_samples, n_classes)
        vote shares for the multinomial model. ``counts`` are the presentations each
        voter has seen, so the last vector survives until the end.

        The inner products of each test point with the distinct patterns come from one
        matrix product per block; each voter's running scores then cost one addition
        per update: O(n_patterns * n_features + n_updates) per test point, with at
        most one pattern per training row however many epochs ran.
        """
        from .kernels.loader import compiled_kernel

        binary_vote = compiled_kernel("votes.binary_vote")
        multinomial_vote = compiled_kernel("votes.multinomial_vote")

        if len(counts) != len(self.voters):
            raise ValueError(f"{len(counts)} counts for {len(self.voters)} voters")
        rows = self.patterns.rows
        if rows is not None and rows.shape[1] != X.shape[1]:
            raise ValueError(f"rows of {X.shape[1]} features; the votes have {rows.shape[1]}")
        # what the compiled votes index by
        for voter in self.voters:
            labels = np.concatenate((voter.column("true"), voter.column("pred")))
            _check_classes(labels, n_classes, "vote record")
            _check_patterns(voter.column("pattern"), self.patterns.n, "vote record")
        s2 = self.bias_input**2
        columns = [
            (v.column("pattern"), v.column("coef"), survival_counts(v.column("time"), c))
            for v, c in zip(self.voters, counts)
        ]
        if self.multinomial:
            (pattern, coef, weights), voter = columns[0], self.voters[0]
            true, pred = voter.column("true"), voter.column("pred")
            votes = np.zeros((X.shape[0], n_classes))
            for start, stop, inner in self._inner_products(X):
                check_vote_range(inner, coef, s2)
                multinomial_vote(
                    inner, pattern, coef, coef * s2, true, pred, weights, votes[start:stop]
                )
            return votes / max(weights.sum(), 1.0)
        out = np.zeros((X.shape[0], len(self.voters)))
        part = np.empty(X.shape[0])
        for start, stop, inner in self._inner_products(X):
            for k, (pattern, coef, weights) in enumerate(columns):
                check_vote_range(inner, coef, s2)
                binary_vote(inner, pattern, coef, coef * s2, weights, part[start:stop])
                out[start:stop, k] = part[start:stop]
        for k, (_, _, weights) in enumerate(columns):
            out[:, k] /= max(weights.sum(), 1.0)
        return out

    # ------------------------------------------------------------------ the table
    def vectors(
        self,
        k: int,
        n_features: int,
        counts: Sequence[int] | np.ndarray,
        dtype: DTypeLike = np.float64,
        *,
        n_classes: int | None = None,
        coef: bool = True,
    ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
        """Voter ``k``'s table of the hypotheses that voted, ``(coef, intercept, votes)``, in
        order: the lecture notes' ``(w_k, b_k, c_k)``.

        The weight vectors the run passed through are the initial zero vector and the
        one after each update: the cumulative sums of the updates (of their dense or CSR
        rows). A vector that never survived a presentation (the zero vector when the
        first presentation is a mistake) casts no vote and is not in the table.

        Parameters
        ----------
        k : int
            The voter: a one-vs-rest neuron, or 0 for the multinomial model.
        n_features : int
            The model's features (the width of a voter without updates).
        counts : array of int
            Presentations seen by each voter, as :meth:`decision` takes them.
        dtype : dtype, default=float64
            Of ``coef`` and ``intercept`` (the sums run in float64).
        n_classes : int or None
            Classes of a multinomial record (needed there, else unused).
        coef : bool, default=True
            False: skip the weight vectors (``coef`` comes back None).

        Returns
        -------
        coef : ndarray of shape (K, n_features), or (K, n_classes, n_features) multinomial
        intercept : ndarray of shape (K,), or (K, n_classes) multinomial
            ``w0 * bias_input``: the constant input's weight times that input, as a
            model's ``intercept_`` is (never ``-0.0``).
        votes : ndarray of int64, shape (K,)
            Survival counts (:func:`survival_counts`), each at least 1, summing to
            ``counts[k]``.

        Notes
        -----
        :meth:`decision` sums each score update by update instead, so a vector's
        score from this table may differ from the vote's in the last bits.

        Examples
        --------
        >>> from rosenblatt.engine.primal import Batch
        >>> batch = Batch(np.array([[-1.0, -1.0], [1.0, -1.0]]), np.array([0, 1]), np.ones(2))
        >>> record = VoteRecord(1, multinomial=False, bias_input=1.0)
        >>> record.add(0, batch, np.array([0, 1]), np.array([-1.0, 1.0]), np.array([0, 1]))
        >>> W, b, c = record.vectors(0, 2, np.array([4]))  # the zero vector never voted
        >>> W.tolist(), b.tolist(), c.tolist()
        ([[1.0, 1.0], [2.0, 0.0]], [-1.0, 0.0], [1, 3])
        """
        voter = self.voters[k]
        votes = survival_counts(voter.column("time"), int(counts[k])).astype(np.int64)
        voted = votes > 0
        W, w0 = self._sums(k, n_features, voter.column("coef"), n_classes, coef)
        intercept = (w0[voted] * self.bias_input + 0.0).astype(dtype, copy=False)  # no -0.0
        W = None if W is None else W[voted].astype(dtype, copy=False)
        return W, intercept, votes[voted]

    def _sums(self, k, n_features, step, n_classes=None, coef=True):
        """``(W, w0)`` in float64: row 0 zero, row ``j + 1`` the sum of ``step[i]`` times
        the pattern of voter ``k``'s update ``i`` (and ``step[i] * bias_input``) for
        ``i <= j``, summed in update order; ``W`` None without ``coef``."""
        voter = self.voters[k]
        n = step.shape[0]
        if self.multinomial:
            if n_classes is None or n_classes < 2:
                raise ValueError(f"a multinomial vote table needs its classes; got {n_classes}")
            true, pred = voter.column("true"), voter.column("pred")
            # each update moves the true class by +step and its rival by -step (two
            # writes that add up; neither touches an entry twice)
            targets = ((true, 1.0), (pred, -1.0))
            shape = (n + 1, n_classes)
        else:
            targets = ((None, 1.0),)
            shape = (n + 1,)
        after = np.arange(1, n + 1)
        w0 = np.zeros(shape)
        for rows_class, sign in targets:
            where = (after,) if rows_class is None else (after, rows_class)
            w0[where] += sign * step * self.bias_input
        np.cumsum(w0, axis=0, out=w0)
        if not coef:
            return None, w0
        W = np.zeros((*shape, n_features))
        rows = self.rows(k)
        if n:
            if is_sparse(rows):
                csr = rows.tocsr()
                if not csr.has_canonical_format:  # the writes below take each column once
                    csr = csr.copy()
                    csr.sum_duplicates()
                update = np.repeat(np.arange(n), np.diff(csr.indptr))
                values = csr.data.astype(np.float64) * step[update]
                for rows_class, sign in targets:
                    where = (
                        (after[update],)
                        if rows_class is None
                        else (after[update], rows_class[update])
                    )
                    W[(*where, csr.indices)] += sign * values
            else:
                values = np.asarray(rows, dtype=np.float64) * step[:, None]
                for rows_class, sign in targets:
                    where = (after,) if rows_class is None else (after, rows_class)
                    W[where] += sign * values
        np.cumsum(W, axis=0, out=W)
        return W, w0

    # ------------------------------------------------------------------ the run, step by step
    def updates(self, k: int) -> dict[str, np.ndarray]:
        """Voter ``k``'s update log, in order.

        Returns
        -------
        dict of ndarray, one entry per update
            ``time``: presentations before it (its presentation's 0-based index);
            ``sample``: the row of its batch it was made with (-1 in a record read
            from a file); ``pattern``: that row's index into ``patterns.rows``;
            ``coef``: the coefficient it added the pattern with; ``true`` and
            ``pred``: the classes it moved (multinomial; else empty: a one-vs-rest
            voter ``k`` is class ``k``'s neuron).
        """
        voter = self.voters[k]
        return {
            name: voter.column(name)
            for name in ("time", "sample", "pattern", "coef", "true", "pred")
        }

    def in_force(self, k: int, presented: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Which of voter ``k``'s vectors (0: the initial one, ``j + 1``: the one after
        update ``j``) is in force after each of ``presented`` presentations, and for how
        many of them it has been: the survival counts of :func:`survival_counts` so far.

        Examples
        --------
        >>> from rosenblatt.engine.primal import Batch
        >>> batch = Batch(np.array([[1.0], [-1.0]]), np.array([1, 0]), np.ones(2))
        >>> record = VoteRecord(1, multinomial=False)
        >>> record.add(0, batch, np.array([0, 1]), np.array([1.0, -1.0]), np.array([0, 3]))
        >>> [v.tolist() for v in record.in_force(0, np.array([0, 1, 3, 4, 6]))]
        [[0, 1, 1, 2, 2], [0, 1, 3, 1, 3]]
        """
        time = self.voters[k].column("time")
        presented = np.asarray(presented, dtype=np.int64)
        vector = np.searchsorted(time, presented, side="left")  # updates made before
        since = np.concatenate(([1], time + 1))[vector]  # its first presentation, 1-based
        return vector, presented - since + 1

    def after(
        self, k: int, presented: ArrayLike, n_features: int, *, averaged: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Voter ``k``'s weights ``(W, w0)`` after each of ``presented`` presentations.

        The last weights then (the cumulative sums of the updates, as online training
        adds them), or with ``averaged`` the mean of ``w_0 .. w_T`` after ``T``
        presentations as the averaged perceptron computes it, CIML Algorithm 7's ``w -
        u / c``: ``u`` the updates weighted by the notes' counter ``c`` at each (its
        1-based presentation), ``c = T + 1`` (:meth:`PrimalState.weights`). One-vs-rest
        or binary voters; float64, shape ``(len(presented), n_features)`` and
        ``(len(presented),)``.
        """
        if self.multinomial:
            raise ValueError("the weights step by step are those of a binary voter")
        presented = np.asarray(presented, dtype=np.int64)
        vector, _ = self.in_force(k, presented)
        voter = self.voters[k]
        W, w0 = self._sums(k, n_features, voter.column("coef"))
        W, w0 = W[vector], w0[vector]
        if averaged:
            # the compiled epoch's U += (coef * c) x, U0 += coef * c * bias_input, c = now + 1
            step = voter.column("coef") * (voter.column("time") + 1)
            U, U0 = self._sums(k, n_features, step)
            c = (presented + 1).astype(np.float64)
            W = W - U[vector] / c[:, None]
            w0 = w0 - U0[vector] / c
        return W, w0

    def tally(self, k: int, X: Any, point: ArrayLike, presented: ArrayLike) -> np.ndarray:
        """Voter ``k``'s vote on ``X[point[q]]`` after ``presented[q]`` presentations:
        ``(n_pairs, 2)`` int64, the votes for class 1 and against, every presentation's
        weights voting once (a zero score votes against, as in training): the vote
        :meth:`decision` takes at the end, at any point of the run.

        The scores are :meth:`decision`'s running sums, in the same order, so the
        vote after the last presentation is the one :meth:`decision` counts.
        """
        if self.multinomial:
            raise ValueError("a tally step by step is that of a binary voter")
        point = np.asarray(point, dtype=np.int64)
        presented = np.asarray(presented, dtype=np.int64)
        voter = self.voters[k]
        pattern, coef, time = voter.column("pattern"), voter.column("coef"), voter.column("time")
        full = np.diff(np.concatenate(([0], time)))  # survival of each vector but the last
        vector, count = self.in_force(k, presented)
        plus = np.zeros(point.shape[0], dtype=np.int64)
        n = coef.shape[0]
        for start, stop, inner in self._inner_products(X, width=n + 1):
            pairs = np.flatnonzero((point >= start) & (point < stop))
            if not pairs.size:
                continue
            # score of vector j + 1: binary_vote's f += inner * coef + coef * s2
            scores = np.cumsum(inner[:, pattern] * coef + coef * self.bias_input**2, axis=1)
            positive = np.zeros((stop - start, n + 1), dtype=np.int64)
            positive[:, 1:] = scores > 0.0  # the zero vector scores 0: a vote against
            done = np.zeros_like(positive)  # votes of the vectors before each, for class 1
            np.cumsum(positive[:, :-1] * full, axis=1, out=done[:, 1:])
            rows, v = point[pairs] - start, vector[pairs]
            plus[pairs] = done[rows, v] + count[pairs] * positive[rows, v]
        return np.column_stack([plus, presented - plus])

    # ------------------------------------------------------------------ plain form
    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """``(meta, arrays)``: JSON-ready facts, the patterns and every voter's updates."""
        meta = {
            "multinomial": self.multinomial,
            "bias_input": self.bias_input,
            "n_voters": len(self.voters),
        }
        arrays = {}
        if self.patterns.rows is not None:
            arrays.update(_rows_to_arrays(self.patterns.rows, "votes.patterns"))
        for k, voter in enumerate(self.voters):
            arrays.update(voter.to_arrays(f"votes.{k}."))
        return meta, arrays

    @classmethod
    def from_state(
        cls,
        meta: dict[str, Any],
        arrays: Mapping[str, Any],
        n_voters: int,
        *,
        n_features: int,
        n_classes: int,
        counts: np.ndarray,
        dtype: DTypeLike,
    ) -> VoteRecord:
        """The record :meth:`to_state` describes, for a model with ``n_voters`` voters of
        ``n_features`` features (rows of ``dtype``) and ``n_classes`` classes that has
        seen ``counts`` presentations per voter (``ValueError`` if it does not add up).
        """
        multinomial = meta["multinomial"]
        if type(multinomial) is not bool or meta["n_voters"] != n_voters:
            raise ValueError(
                f"the vote record has {meta['n_voters']!r:.20} voters; the model has {n_voters}"
            )
        if multinomial and n_voters != 1:
            raise ValueError("a multinomial vote record has one voter")
        bias_input = meta["bias_input"]
        if not isinstance(bias_input, (int, float)) or not np.isfinite(bias_input):
            raise ValueError(f"the vote record's bias_input {bias_input!r:.20} is not finite")
        if counts.shape != (n_voters,):
            raise ValueError(f"{counts.shape[0]} presentation counts for {n_voters} voters")
        record = cls(n_voters, multinomial, float(bias_input))
        checked = {"n_features": n_features, "dtype": dtype}
        rows = _checked_rows(arrays, "votes.patterns", where="vote record", **checked)
        if rows is not None:
            record.patterns.add(rows)
        record.voters = [
            _Voter.from_arrays(
                arrays,
                f"votes.{k}.",
                n_patterns=record.patterns.n,
                n_classes=n_classes,
                presented=int(counts[k]),
                multinomial=multinomial,
            )
            for k in range(n_voters)
        ]
        return record
