"""The record behind the voted perceptron: every update, and so every intermediate
weight vector with its survival count (Freund & Schapire, 1999).

Only the updates are stored (the pattern, its coefficient and when it happened);
the k-th weight vector is the sum of the first k updates, so its score on a test
point is a cumulative sum of per-update inner products. Memory grows with the
number of mistakes, not with the number of presentations.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._kernels.linear import multinomial_vote

# Bound on the (updates x test points) score block held at once, in elements.
_BLOCK_ELEMENTS = 4_000_000


def _stack(blocks):
    if not blocks:
        return None
    if sp.issparse(blocks[0]):
        return sp.vstack(blocks, format="csr")
    return np.vstack(blocks)


def survival_counts(times, n_presented):
    """Survival counts of the initial vector and of the vector after each update.

    ``times[j]`` is the number of presentations before update ``j``; the vector
    after update ``j`` is the one in force after presentations ``times[j] + 1`` up
    to ``times[j + 1]``.
    """
    return np.diff(np.concatenate(([0], times, [n_presented]))).astype(np.float64)


class _Updates:
    """Updates of one voter (a one-vs-rest neuron, or the multinomial model)."""

    def __init__(self):
        self.blocks, self.coef, self.time, self.true, self.pred = [], [], [], [], []
        self._rows = None

    def add(self, rows, coef, time, true=None, pred=None):
        self.blocks.append(rows)
        self.coef.append(coef)
        self.time.append(time)
        if true is not None:
            self.true.append(true)
            self.pred.append(pred)
        self._rows = None

    @property
    def rows(self):
        if self._rows is None:
            self._rows = _stack(self.blocks)
            if self._rows is not None:
                self.blocks = [self._rows]
        return self._rows

    def arrays(self, name):
        parts = getattr(self, name)
        return np.concatenate(parts) if parts else np.empty(0)


class VoteRecord:
    """All updates of a voted perceptron, by neuron (one-vs-rest) or shared (multinomial)."""

    def __init__(self, n_neurons, multinomial):
        self.multinomial = multinomial
        self.voters = [_Updates() for _ in range(1 if multinomial else n_neurons)]
        self.bias_input = 0.0

    def add_neuron(self, k, X, samples, coefs, times, bias_input):
        self.bias_input = bias_input
        if samples.size:
            self.voters[k].add(X[samples], coefs.copy(), times.copy())

    def add_multinomial(self, X, samples, coefs, times, true, pred, bias_input):
        self.bias_input = bias_input
        if samples.size:
            self.voters[0].add(X[samples], coefs.copy(), times.copy(), true.copy(), pred.copy())

    def n_vectors(self):
        """Number of distinct weight vectors of each voter (updates + 1)."""
        return [v.arrays("coef").size + 1 for v in self.voters]

    def _contributions(self, voter, X):
        """Per-update score increments ``coef_j * (x_{i_j} . x) + coef_j * s**2``, in blocks."""
        coef = voter.arrays("coef")
        if coef.size == 0:
            yield 0, X.shape[0], np.zeros((0, X.shape[0]))
            return
        rows = voter.rows
        step = max(1, _BLOCK_ELEMENTS // coef.size)
        bias = coef * self.bias_input**2
        for start in range(0, X.shape[0], step):
            stop = min(start + step, X.shape[0])
            inner = rows @ X[start:stop].T
            inner = inner.toarray() if sp.issparse(inner) else np.asarray(inner)
            yield start, stop, inner.astype(np.float64) * coef[:, None] + bias[:, None]

    def decision(self, X, counts, n_classes):
        """Normalised vote: (n_samples,) in [-1, 1] per neuron, or (n_samples, n_classes)."""
        if self.multinomial:
            voter = self.voters[0]
            weights = survival_counts(voter.arrays("time"), counts[0])
            true = voter.arrays("true").astype(np.int64)
            pred = voter.arrays("pred").astype(np.int64)
            votes = np.zeros((X.shape[0], n_classes))
            for start, stop, contrib in self._contributions(voter, X):
                block = np.zeros((stop - start, n_classes))
                multinomial_vote(contrib, true, pred, weights, block)
                votes[start:stop] = block
            return votes / max(weights.sum(), 1.0)
        out = np.zeros((X.shape[0], len(self.voters)))
        for k, voter in enumerate(self.voters):
            weights = survival_counts(voter.arrays("time"), counts[k])
            for start, stop, contrib in self._contributions(voter, X):
                scores = np.cumsum(contrib, axis=0)
                # the initial (zero) vector scores 0 and, like any a <= 0, votes -1
                signs = np.where(scores > 0, 1.0, -1.0)
                out[start:stop, k] = weights[1:] @ signs - weights[0]
            out[:, k] /= max(weights.sum(), 1.0)
        return out
