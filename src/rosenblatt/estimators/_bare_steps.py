"""The steps around a learner that ``rosenblatt train`` fits, without importing scikit-learn.

By default ``rosenblatt train`` standardises numeric columns: its model is scikit-learn's
``Pipeline([("scaler", StandardScaler()), ("classifier", learner)])``. Importing
scikit-learn's base classes costs the command line more than a second (see
:mod:`._bare`), so on dense rows it fits the two stand-ins here instead: they compute what
scikit-learn's classes compute, with the same numpy operations in the same order (a
scaler's ``mean_``, ``var_`` and ``scale_`` to the bit), and they are saved under
scikit-learn's names (:attr:`rosenblatt.persistence.records.Record.bare`): the model file is
the one scikit-learn's pipeline writes, byte for byte, and :func:`rosenblatt.load` reads it
back as scikit-learn's ``Pipeline`` and ``StandardScaler``. ``tests/test_bare.py`` checks the
bytes and the fitted values against scikit-learn's, on every data shape the command line
reads densely. The scaler's arithmetic follows scikit-learn 1.9 (``pyproject.toml`` pins
the version the bytes were checked against).

They do only what the command line asks of them: a scaler that centres and scales dense
float64 rows of finite numbers (what the readers give), and a pipeline that fits and
predicts; anything else is scikit-learn's.

>>> import numpy as np
>>> X = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 1.0]])
>>> scaler = StandardScaler().fit(X)
>>> scaler.mean_, scaler.scale_
(array([2., 1.]), array([1.63299316, 1.        ]))
>>> scaler.transform(X)[:, 0]
array([-1.22474487,  0.        ,  1.22474487])
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Pipeline", "StandardScaler"]


class StandardScaler:
    """scikit-learn's ``StandardScaler()`` on dense float64 rows, without scikit-learn.

    Parameters
    ----------
    copy, with_mean, with_std : bool, default=True
        scikit-learn's, kept for the model file; only the defaults are implemented.

    Attributes
    ----------
    n_features_in_ : int
    n_samples_seen_ : numpy.float64
        As scikit-learn 1.9 keeps it for dense rows without missing values.
    mean_, var_, scale_ : ndarray of shape (n_features,)
        The columns' means, variances and scales (1 for a constant column).
    """

    def __init__(self, *, copy: bool = True, with_mean: bool = True, with_std: bool = True):
        self.with_mean = with_mean
        self.with_std = with_std
        self.copy = copy

    def fit(self, X: Any, y: Any = None) -> StandardScaler:
        """Learn the columns' means and scales, as ``StandardScaler.partial_fit`` does on a
        first call (its attributes set in its order: a model file lists them so)."""
        if not (self.copy and self.with_mean and self.with_std):
            raise ValueError("the stand-in scaler implements StandardScaler() only")
        X = _dense_rows(X)
        mean, var, count = _mean_and_var(X)
        scale = np.sqrt(var)
        scale[_is_constant_feature(var, mean, count)] = 1.0
        self.n_features_in_ = X.shape[1]
        self.n_samples_seen_ = count
        self.mean_, self.var_, self.scale_ = mean, var, scale
        return self

    def transform(self, X: Any) -> np.ndarray:
        """``(X - mean_) / scale_``, in a copy, as scikit-learn computes it."""
        X = np.array(_dense_rows(X), dtype=np.float64, copy=True)
        X -= self.mean_
        X /= self.scale_
        return X

    def fit_transform(self, X: Any, y: Any = None) -> np.ndarray:
        return self.fit(X, y).transform(X)


class Pipeline:
    """scikit-learn's ``Pipeline`` of stand-in steps: fits each step on the output of the one
    before and the last on the labels; predicts through them.

    Parameters
    ----------
    steps : list of (str, estimator)
    transform_input, memory, verbose
        scikit-learn's, kept for the model file (their defaults only).
    """

    def __init__(
        self,
        steps: list[tuple[str, Any]],
        *,
        transform_input: Any = None,
        memory: Any = None,
        verbose: bool = False,
    ):
        self.steps = steps
        self.transform_input = transform_input
        self.memory = memory
        self.verbose = verbose

    def fit(self, X: Any, y: Any) -> Pipeline:
        if self.transform_input is not None or self.memory is not None or self.verbose:
            raise ValueError("the stand-in pipeline implements Pipeline(steps) only")
        for _, step in self.steps[:-1]:
            X = step.fit_transform(X, y)
        self.steps[-1][1].fit(X, y)
        return self

    def _transformed(self, X: Any) -> Any:
        for _, step in self.steps[:-1]:
            X = step.transform(X)
        return X

    def predict(self, X: Any) -> np.ndarray:
        return self.steps[-1][1].predict(self._transformed(X))

    def decision_function(self, X: Any) -> np.ndarray:
        return self.steps[-1][1].decision_function(self._transformed(X))

    @property
    def classes_(self) -> np.ndarray:
        return self.steps[-1][1].classes_

    @property
    def n_features_in_(self) -> int:
        return self.steps[0][1].n_features_in_


def _dense_rows(X: Any) -> np.ndarray:
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype != np.float64:
        raise TypeError("the stand-in steps take dense float64 rows (what the readers give)")
    return X


# scikit-learn 1.9's sklearn.utils.extmath._incremental_mean_and_var on a first call (no
# earlier mean, variance or count) without sample weights or missing values (the readers give
# none), as StandardScaler keeps it: the same operations on the same values in the same order,
# so that every result has scikit-learn's bits; the terms of its earlier sums, all zero, are left
# out where adding them changes no bit
def _mean_and_var(X):
    count = np.float64(X.shape[0])  # StandardScaler's n_samples_seen_, one count for all
    counts = np.full(X.shape[1], count)
    new_sum = np.sum(X, axis=0)
    mean = (new_sum + 0.0) / counts  # + the zero earlier sum: a -0.0 sum gives a 0.0 mean
    temp = X - new_sum / counts
    correction = np.sum(temp, axis=0)
    temp **= 2
    unnormalized = np.sum(temp, axis=0)
    unnormalized -= correction**2 / counts
    return mean, unnormalized / counts, count


# scikit-learn 1.9's sklearn.preprocessing._data._is_constant_feature
def _is_constant_feature(var, mean, n_samples):
    eps = np.finfo(np.float64).eps
    upper_bound = n_samples * eps * var + (n_samples * mean * eps) ** 2
    return var <= upper_bound
