"""The compiled votes of the voted perceptron (see :mod:`rosenblatt.engine.votes`).

Both take ``inner`` (n_test, n_patterns): the inner product of each test point
with each distinct pattern, from one matrix product; update ``j`` adds
``inner[q, pattern[j]] * coef[j] + bias[j]`` to the score of test point ``q`` (its
pattern's part and its constant input's part). The caller checks that every
``pattern[j]`` is a column of ``inner``. Each score is summed update by
update in order, and each intermediate hypothesis casts its survival count
(``weights[0]`` for the initial, zero one) in one pass, with no (n_updates x
n_test) arrays of scores or signs in memory.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def binary_vote(inner, pattern, coef, bias, weights, out):
    """``out[q]``: the sum of the survival counts of the hypotheses scoring test point
    ``q`` positive minus those of the others (a zero score votes -1, as in training)."""
    n_test = inner.shape[0]
    n_updates = coef.shape[0]
    for q in range(n_test):
        f = 0.0
        vote = -weights[0]
        for j in range(n_updates):
            f += inner[q, pattern[j]] * coef[j] + bias[j]
            if f > 0.0:
                vote += weights[j + 1]
            else:
                vote -= weights[j + 1]
        out[q] = vote


@njit(cache=True, nogil=True)
def multinomial_vote(inner, pattern, coef, bias, rec_true, rec_pred, weights, votes):
    """Survival-weighted vote of every intermediate multinomial weight matrix.

    Update ``j`` adds its increment to the true class's score and subtracts it from
    the rival's; ``votes`` (n_test, n_classes) gets each hypothesis's survival count
    on the class it scores highest (the lowest index on ties).
    """
    n_test = inner.shape[0]
    n_updates = coef.shape[0]
    n_classes = votes.shape[1]
    scores = np.zeros(n_classes)
    for q in range(n_test):
        scores[:] = 0.0
        for j in range(n_updates + 1):
            if j > 0:
                u = j - 1
                step = inner[q, pattern[u]] * coef[u] + bias[u]
                scores[rec_true[u]] += step
                scores[rec_pred[u]] -= step
            if weights[j] > 0:
                best = 0
                for k in range(1, n_classes):
                    if scores[k] > scores[best]:
                        best = k
                votes[q, best] += weights[j]
