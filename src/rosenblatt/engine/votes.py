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

import numpy as np

from .._config import VOTE_BLOCK_ELEMENTS
from .._invariants import checked_csr, is_sparse

__all__ = ["VoteRecord", "survival_counts"]


def survival_counts(times, n_presented):
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


class _Voter:
    """The updates of one voter: a one-vs-rest neuron, or the multinomial model."""

    _COLUMNS = ("coef", "time", "true", "pred")

    def __init__(self):
        self._blocks = []
        self._columns = {name: [] for name in self._COLUMNS}

    def add(self, rows, coef, time, true=None, pred=None):
        self._blocks.append(rows)
        for name, values in zip(self._COLUMNS, (coef, time, true, pred)):
            if values is not None:
                self._columns[name].append(np.array(values, copy=True))

    def column(self, name):
        parts = self._columns[name]
        dtype = np.float64 if name == "coef" else np.int64
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.empty(0, dtype)

    @property
    def rows(self):
        """The patterns of every update, stacked (None before the first update)."""
        if not self._blocks:
            return None
        if len(self._blocks) > 1:
            self._blocks = [_stack(self._blocks)]
        return self._blocks[0]

    def to_arrays(self, prefix):
        arrays = {f"{prefix}{name}": self.column(name) for name in self._COLUMNS}
        rows = self.rows
        if is_sparse(rows):
            csr = rows.tocsr()
            arrays.update(
                {
                    f"{prefix}rows.data": csr.data,
                    f"{prefix}rows.indices": csr.indices,
                    f"{prefix}rows.indptr": csr.indptr,
                    f"{prefix}rows.shape": np.array(csr.shape, dtype=np.int64),
                }
            )
        elif rows is not None:
            arrays[f"{prefix}rows"] = rows
        return arrays

    @classmethod
    def from_arrays(cls, arrays, prefix, *, n_features, n_classes, presented, multinomial, dtype):
        """The voter :meth:`to_arrays` describes, checked against the model it votes in:
        rows of ``n_features`` features and of the model's ``dtype``, classes below
        ``n_classes``, update times in order and at most ``presented`` (``ValueError``
        naming what does not fit)."""
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
        coef, time, true, pred = columns
        labelled = n if multinomial else 0
        if time.shape[0] != n or true.shape[0] != labelled or pred.shape[0] != labelled:
            raise ValueError(f"{where}: the columns do not have one entry per update")
        if not np.all(np.isfinite(coef)):
            raise ValueError(f"{where}: update coefficients that are not finite")
        if n and (time[0] < 0 or np.any(np.diff(time) < 0) or time[-1] > presented):
            raise ValueError(f"{where}: update times out of order or beyond {presented}")
        _check_classes(np.concatenate((true, pred)), n_classes, where)
        if f"{prefix}rows.data" in arrays:
            shape = np.asarray(arrays[f"{prefix}rows.shape"])
            if shape.shape != (2,) or shape.dtype.kind not in "iu":
                raise ValueError(f"{where}: the rows' shape is not two ints")
            rows = checked_csr(
                arrays[f"{prefix}rows.data"],
                arrays[f"{prefix}rows.indices"],
                arrays[f"{prefix}rows.indptr"],
                tuple(int(v) for v in shape),
            )
            if not rows.has_canonical_format:  # training rows: sorted, each column once
                raise ValueError(f"{where}: rows whose column indices are not sorted and unique")
        else:
            rows = arrays.get(f"{prefix}rows")
            if rows is not None:
                rows = np.asarray(rows)
                if rows.ndim != 2 or not np.all(np.isfinite(rows)):
                    raise ValueError(f"{where}: the rows are not a 2-D array of finite floats")
        if rows is not None and rows.dtype != dtype:
            raise ValueError(f"{where}: rows of {rows.dtype}, not the model's {dtype}")
        if rows is not None and rows.shape != (n, n_features):
            raise ValueError(
                f"{where}: rows of shape {rows.shape} for {n} updates of {n_features} features"
            )
        if n:
            if rows is None:
                raise ValueError(f"{where}: {n} updates without their rows")
            voter.add(rows, coef, time, true if labelled else None, pred if labelled else None)
        return voter


class VoteRecord:
    """Every update of a voted perceptron, per one-vs-rest neuron or for the
    multinomial model (one shared voter), with the constant input ``bias_input``
    the updates were made with."""

    def __init__(self, n_voters, multinomial, bias_input=0.0):
        self.multinomial = bool(multinomial)
        self.bias_input = float(bias_input)
        self.voters = [_Voter() for _ in range(1 if multinomial else n_voters)]

    def add(self, k, rows, coef, time, true=None, pred=None):
        """Keep voter ``k``'s updates: their patterns (rows), coefficients and times."""
        if coef.shape[0]:
            self.voters[k].add(rows, coef, time, true, pred)

    def n_vectors(self):
        """Number of distinct weight vectors of each voter (updates + 1)."""
        return [v.column("coef").shape[0] + 1 for v in self.voters]

    def _inner_products(self, voter, X):
        """Blocks of test points with their inner products against every update's
        pattern: ``(start, stop, inner)``, ``inner`` (stop - start, n_updates)."""
        rows = voter.rows
        n_updates = 0 if rows is None else rows.shape[0]
        step = max(1, VOTE_BLOCK_ELEMENTS // max(n_updates, 1))
        for start in range(0, X.shape[0], step):
            stop = min(start + step, X.shape[0])
            if n_updates == 0:
                yield start, stop, np.zeros((stop - start, 0))
                continue
            inner = X[start:stop] @ rows.T
            inner = inner.toarray() if is_sparse(inner) else np.asarray(inner)
            yield start, stop, np.ascontiguousarray(inner, dtype=np.float64)

    def decision(self, X, counts, n_classes):
        """Normalised vote: (n_samples, n_voters) in [-1, 1], or (n_samples, n_classes)
        vote shares for the multinomial model. ``counts`` are the presentations each
        voter has seen, so the last vector survives until the end."""
        from .._kernels.votes import binary_vote, multinomial_vote

        if len(counts) != len(self.voters):
            raise ValueError(f"{len(counts)} counts for {len(self.voters)} voters")
        for voter in self.voters:  # what the compiled votes index by
            rows = voter.rows
            if rows is not None and rows.shape[1] != X.shape[1]:
                raise ValueError(f"rows of {X.shape[1]} features; the votes have {rows.shape[1]}")
            labels = np.concatenate((voter.column("true"), voter.column("pred")))
            _check_classes(labels, n_classes, "vote record")
        s2 = self.bias_input**2
        if self.multinomial:
            voter = self.voters[0]
            weights = survival_counts(voter.column("time"), counts[0])
            coef = voter.column("coef")
            true, pred = voter.column("true"), voter.column("pred")
            votes = np.zeros((X.shape[0], n_classes))
            for start, stop, inner in self._inner_products(voter, X):
                multinomial_vote(inner, coef, coef * s2, true, pred, weights, votes[start:stop])
            return votes / max(weights.sum(), 1.0)
        out = np.zeros((X.shape[0], len(self.voters)))
        for k, voter in enumerate(self.voters):
            weights = survival_counts(voter.column("time"), counts[k])
            coef = voter.column("coef")
            part = np.empty(X.shape[0])
            for start, stop, inner in self._inner_products(voter, X):
                binary_vote(inner, coef, coef * s2, weights, part[start:stop])
            out[:, k] = part / max(weights.sum(), 1.0)
        return out

    # ------------------------------------------------------------------ the table
    def vectors(self, k, n_features, counts, dtype=np.float64, *, n_classes=None, coef=True):
        """Voter ``k``'s table of hypotheses ``(coef, intercept, votes)``, in order.

        Vector 0 is the initial zero vector, vector ``j + 1`` the one after update
        ``j``: the cumulative sums of the updates (of their dense or CSR rows).

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
            model's ``intercept_`` is.
        votes : ndarray of float64, shape (K,)
            Survival counts (:func:`survival_counts`), summing to ``counts[k]``.

        Notes
        -----
        :meth:`decision` sums each score update by update instead, so a vector's
        score from this table may differ from the vote's in the last bits.

        Examples
        --------
        >>> record = VoteRecord(1, multinomial=False, bias_input=1.0)
        >>> record.add(0, np.array([[-1.0, -1.0], [1.0, -1.0]]), np.array([-1.0, 1.0]),
        ...            np.array([0, 1]))
        >>> W, b, c = record.vectors(0, 2, np.array([4]))
        >>> W.tolist(), b.tolist(), c.tolist()
        ([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]], [0.0, -1.0, 0.0], [0.0, 1.0, 3.0])
        """
        voter = self.voters[k]
        step = voter.column("coef")
        votes = survival_counts(voter.column("time"), int(counts[k]))
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
        intercept = (w0 * self.bias_input).astype(dtype, copy=False)
        if not coef:
            return None, intercept, votes
        W = np.zeros((*shape, n_features))
        rows = voter.rows
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
        return W.astype(dtype, copy=False), intercept, votes

    # ------------------------------------------------------------------ plain form
    def to_state(self):
        """``(meta, arrays)``: JSON-ready facts and the arrays of every voter."""
        meta = {
            "multinomial": self.multinomial,
            "bias_input": self.bias_input,
            "n_voters": len(self.voters),
        }
        arrays = {}
        for k, voter in enumerate(self.voters):
            arrays.update(voter.to_arrays(f"votes.{k}."))
        return meta, arrays

    @classmethod
    def from_state(cls, meta, arrays, n_voters, *, n_features, n_classes, counts, dtype):
        """The record :meth:`to_state` describes, for a model with ``n_voters`` voters of
        ``n_features`` features (rows of ``dtype``) and ``n_classes`` classes that has
        seen ``counts`` presentations per voter (``ValueError`` if it does not add up)."""
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
        record.voters = [
            _Voter.from_arrays(
                arrays,
                f"votes.{k}.",
                n_features=n_features,
                n_classes=n_classes,
                presented=int(counts[k]),
                multinomial=multinomial,
                dtype=dtype,
            )
            for k in range(n_voters)
        ]
        return record
