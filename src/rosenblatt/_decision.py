"""From scores to labels, the same way for every classifier of the library."""

import numpy as np
from sklearn.utils.extmath import safe_sparse_dot


def linear_scores(X, coef, intercept):
    """``X @ coef.T + intercept``: (n_samples,) for one row of ``coef``, else (n_samples, k)."""
    scores = safe_sparse_dot(X, coef.T, dense_output=True) + intercept
    return scores.ravel() if scores.shape[1] == 1 else scores


def labels_from_scores(classes, scores):
    """Class labels: a binary score > 0 picks ``classes[1]`` (a zero score is the first
    class, as the update rule counts it wrong for the second); else the argmax."""
    if scores.ndim == 1:
        return classes[(scores > 0).astype(np.intp)]
    return classes[np.argmax(scores, axis=1)]
