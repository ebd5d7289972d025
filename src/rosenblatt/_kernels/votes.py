"""The compiled part of the multinomial vote (see :mod:`rosenblatt.engine.votes`)."""

import numpy as np
from numba import njit


@njit(cache=True)
def multinomial_vote(contrib, rec_true, rec_pred, counts, votes):
    """Survival-weighted vote of every intermediate multinomial weight matrix.

    ``contrib`` (n_updates, n_test) holds the score increment of update j on each
    test point (its inner product and intercept part); update j adds it to the
    true class's score and subtracts it from the rival's. ``counts`` (n_updates +
    1) are the survival counts of the initial matrix and of the matrix after each
    update. ``votes`` (n_test, n_classes) is filled with the vote weights; the
    initial scores are zero.
    """
    n_updates, n_test = contrib.shape
    n_classes = votes.shape[1]
    scores = np.zeros(n_classes)
    for q in range(n_test):
        scores[:] = 0.0
        for j in range(n_updates + 1):
            if j > 0:
                u = j - 1
                scores[rec_true[u]] += contrib[u, q]
                scores[rec_pred[u]] -= contrib[u, q]
            if counts[j] > 0:
                best = 0
                for k in range(1, n_classes):
                    if scores[k] > scores[best]:
                        best = k
                votes[q, best] += counts[j]
