"""The numpy decision rule: from scores to labels, the same way for every classifier of the
library (the estimators, through the engine's target coding, and the fast predictor).

Also :class:`LinearPredictor`: what a saved linear model needs to predict, with
numpy alone, so that ``rosenblatt predict`` loads neither scikit-learn nor scipy
nor numba (it predicts exactly what the estimator itself predicts: the same
products, in the same order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.kernel_constants import LANES  # the compiled loops' partial sums
from .overflow import check_scores

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import MatrixLike


def _combine(lanes):
    """The eight partial sums added pairwise, as the compiled loops add them."""
    return ((lanes[:, 0] + lanes[:, 1]) + (lanes[:, 2] + lanes[:, 3])) + (
        (lanes[:, 4] + lanes[:, 5]) + (lanes[:, 6] + lanes[:, 7])
    )


def _lane_dot_dense(X, w, dtype, block=8192):
    groups = -(-X.shape[1] // LANES)
    padded = np.zeros(groups * LANES, dtype=dtype)
    padded[: X.shape[1]] = w
    padded = padded.reshape(groups, LANES)
    out = np.empty(X.shape[0], dtype=dtype)
    for start in range(0, X.shape[0], block):
        rows = X[start : start + block]
        if X.shape[1] % LANES:  # zeros in the tail's empty lanes add nothing
            full = np.zeros((rows.shape[0], groups * LANES), dtype=dtype)
            full[:, : X.shape[1]] = rows
            rows = full
        # a sum over the middle axis adds its terms in order: each lane in feature order
        lanes = (rows.reshape(-1, groups, LANES) * padded).sum(axis=1, dtype=dtype)
        out[start : start + block] = _combine(lanes)
    return out


def _lane_dot_sparse(X, w, dtype):
    X = X.tocsr()
    if not X.has_sorted_indices:
        X = X.sorted_indices()
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    products = (X.data * w[X.indices]).astype(dtype)
    if dtype == np.float64:  # bincount adds in input order too, several times faster
        cells = rows * LANES + X.indices % LANES
        lanes = np.bincount(cells, weights=products, minlength=X.shape[0] * LANES)
        return _combine(lanes.reshape(X.shape[0], LANES))
    lanes = np.zeros((X.shape[0], LANES), dtype=dtype)
    # unbuffered, in order: each (row, lane) adds its products in column order
    np.add.at(lanes, (rows, X.indices % LANES), products)
    return _combine(lanes)


def linear_scores(X: Any, coef: np.ndarray, intercept: np.ndarray | float) -> np.ndarray:
    """``X @ coef.T + intercept``: (n_samples,) for one row of ``coef``, else (n_samples, k).

    Each score is summed exactly as the compiled training loops sum ``w . x`` (eight
    interleaved partial sums in feature order, added pairwise), then the intercept,
    with numpy alone: the same bits as :func:`rosenblatt.engine.primal.scores`, the
    compiled form the perceptrons use, at a few times its cost. Dense and CSR rows
    score the same bits.
    """
    dtype = np.result_type(X.dtype, coef.dtype)
    lane_dot = _lane_dot_sparse if hasattr(X, "tocsr") else _lane_dot_dense
    scores = np.empty((X.shape[0], coef.shape[0]), dtype=dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # refused below, in one message
        for k in range(coef.shape[0]):
            scores[:, k] = lane_dot(X, coef[k], dtype)
        scores = scores + intercept
    check_scores(scores, X)
    return scores.ravel() if scores.shape[1] == 1 else scores


def labels_from_scores(
    classes: np.ndarray, scores: np.ndarray, *, multilabel: bool = False
) -> np.ndarray:
    """Class labels: a binary score > 0 picks ``classes[1]`` (a zero score is the first
    class, as the update rule counts it wrong for the second); else the argmax.

    ``multilabel``: each column is a binary neuron of its own, read by the same rule:
    the (n_samples, M) indicator matrix, 1 where a score is > 0 and 0 elsewhere (int64,
    as scikit-learn's multilabel classifiers predict).

    Examples
    --------
    >>> labels_from_scores(np.array(["no", "yes"]), np.array([0.5, 0.0])).tolist()
    ['yes', 'no']
    >>> labels_from_scores(np.arange(2), np.array([[0.5, 0.0]]), multilabel=True)
    array([[1, 0]])
    """
    if multilabel:
        if scores.ndim != 2 or scores.shape[1] != classes.shape[0]:
            raise ValueError(
                f"scores of shape {scores.shape} do not score the {classes.shape[0]} labels"
            )
        return (scores > 0).astype(np.int64)
    if scores.ndim == 1:
        return classes[(scores > 0).astype(np.intp)]
    return classes[np.argmax(scores, axis=1)]


class LinearPredictor:
    """A fitted linear classifier reduced to its decision function, for numpy alone.

    ``decision_function(X) = scale(X) @ coef.T + intercept`` where ``scale`` is an
    optional standardisation ``(X - mean) / std`` (a scikit-learn
    ``StandardScaler`` step before the classifier); ``predict`` turns scores into
    labels as every classifier of the package does.

    Parameters
    ----------
    coef, intercept, classes : ndarray
    n_features_in : int
    feature_names_in : ndarray of str or None
    mean, scale : ndarray or None
        The standardisation, if any (None: that part is not applied).
    estimator : str
        The class it came from, for messages.
    multilabel : bool, default=False
        A layer of independent neurons (``multilabel_``): ``predict`` gives the
        indicator matrix.

    Examples
    --------
    >>> p = LinearPredictor(np.array([[1.0, 1.0]]), np.array([1.0]), np.array([-1, 1]), 2)
    >>> p.predict(np.array([[-1.0, -1.0], [1.0, -1.0]]))
    array([-1,  1])
    """

    def __init__(
        self,
        coef,
        intercept,
        classes,
        n_features_in,
        feature_names_in=None,
        mean=None,
        scale=None,
        estimator="linear classifier",
        multilabel=False,
    ):
        self.coef_, self.intercept_, self.classes_ = coef, intercept, classes
        self.multilabel_ = bool(multilabel)
        self.n_features_in_ = int(n_features_in)
        self.feature_names_in_ = feature_names_in
        self.mean_, self.scale_ = mean, scale
        self.estimator = estimator

    def _check(self, X):
        columns = getattr(X, "columns", None)  # a DataFrame: its names, as scikit-learn checks
        if self.feature_names_in_ is not None and columns is not None:
            names = [str(name) for name in columns]
            if names != list(self.feature_names_in_):
                raise ValueError(
                    f"The feature names should match those that were passed during fit: "
                    f"{self.estimator} was fitted on {list(self.feature_names_in_)[:6]} "
                    f"and X has {names[:6]}; give the columns in the order of training."
                )
        sparse = hasattr(X, "tocsr")
        if not sparse:
            X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[-1] if X.ndim else 0} features, but {self.estimator} is "
                f"expecting {self.n_features_in_} features as input."
            )
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        if sparse:  # as scikit-learn's StandardScaler scales sparse rows
            if self.mean_ is not None:
                raise ValueError(
                    "Cannot center sparse matrices: the model's scaler subtracts the mean; "
                    "give dense data."
                )
            if self.scale_ is None:
                return X
            X = X.tocsr()  # each value times 1 / scale, as X.multiply(1 / scale_) gives it
            data = X.data * (1 / self.scale_)[X.indices]
            scaled = type(X)((data, X.indices, X.indptr), shape=X.shape)
            scaled.has_sorted_indices = X.has_sorted_indices
            return scaled
        if self.mean_ is not None:
            X = X - self.mean_
        if self.scale_ is not None:
            X = X / self.scale_
        return X

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Signed score of each sample, as the estimator computes it."""
        return linear_scores(self._check(X), self.coef_, self.intercept_)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """Class labels, as the estimator predicts them."""
        scores = self.decision_function(X)
        return labels_from_scores(self.classes_, scores, multilabel=self.multilabel_)
