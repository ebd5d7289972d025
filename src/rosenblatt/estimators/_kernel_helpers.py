"""The kernel perceptron's helpers: its kernels' parameters, gamma, the rows of
growing training data, and the blocked prediction scores.

:class:`~rosenblatt.estimators.kernel.KernelPerceptron` stays defined in
:mod:`rosenblatt.estimators.kernel`; what it needs beyond its own state lives here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import gen_batches

from .._core.config import BUDGET_BLOCK, PREDICT_BLOCK_ELEMENTS
from ..engine.dual import (
    BlockTable,
    DualState,
    KernelTable,
    as_float64,
    decision_scores,
    vote_scores,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.dual import Kernel
    from .kernel import KernelPerceptron

KERNELS = ("linear", "poly", "rbf", "sigmoid", "precomputed")
# The parameters each named kernel takes.
KERNEL_PARAMS = {
    "linear": (),
    "poly": ("gamma", "degree", "coef0"),
    "rbf": ("gamma",),
    "sigmoid": ("gamma", "coef0"),
    "precomputed": (),
}
MB = 1024 * 1024


def advice() -> str:
    """What the ConvergenceWarning suggests."""
    return (
        "The data may not be separable in the kernel's feature space; raise max_iter, "
        "or try another kernel (or gamma)."
    )


def kernel_can_grow(estimator: KernelPerceptron) -> bool:
    """Whether ``partial_fit`` is available: a new batch needs its kernel values
    against the support vectors so far, which a precomputed matrix cannot give."""
    if estimator.kernel == "precomputed":
        raise ValueError(
            "partial_fit needs a named or callable kernel: with kernel='precomputed' a "
            "new batch would need its kernel values against every earlier support vector. "
            "Use a named kernel ('linear', 'poly', 'rbf', 'sigmoid') or a callable, or fit "
            "once on the kernel matrix of all the data."
        )
    return True


def stacked(first: Any, second: Any) -> Any:
    """The rows of ``first`` then those of ``second`` (CSR when either is sparse)."""
    if sp.issparse(first) or sp.issparse(second):
        return sp.vstack([first, second], format="csr")
    return np.concatenate((first, second))


def same_rows(a: Any, b: Any) -> bool:
    """Whether two dense or sparse matrices hold the same numbers."""
    if a.shape != b.shape:
        return False
    if sp.issparse(a) or sp.issparse(b):
        return (sp.csr_matrix(a) != sp.csr_matrix(b)).nnz == 0
    return np.array_equal(a, b)


def resolve_gamma(kernel: str | Callable, gamma: float | str | None, X: Any) -> float | None:
    """The ``gamma`` a named kernel uses on training data ``X`` (None when it takes none)."""
    if callable(kernel) or "gamma" not in KERNEL_PARAMS[kernel]:
        return None
    if gamma == "auto":
        return 1.0 / X.shape[1]
    if gamma is None or gamma == "scale":
        X = as_float64(X)  # float32 data: the gamma of the float64 numbers it holds
        if sp.issparse(X):
            variance = X.multiply(X).mean() - X.mean() ** 2
        else:
            variance = X.var()
        return 1.0 / (X.shape[1] * variance) if variance > 0 else 1.0
    return float(gamma)


def summation_order(
    dual_coef: np.ndarray, update_ptr: np.ndarray, update_support: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per problem, the columns of ``dual_coef`` in the order they became support
    vectors (their first update): the order training summed scores in."""
    ptr, columns = [0], []
    for p in range(dual_coef.shape[0]):
        updated = update_support[update_ptr[p] : update_ptr[p + 1]]
        _, first = np.unique(updated, return_index=True)
        columns.append(updated[np.sort(first)])
        ptr.append(ptr[-1] + first.shape[0])
    joined = np.concatenate(columns) if columns else np.empty(0)
    return np.asarray(ptr, dtype=np.int64), joined.astype(np.int64)


def dual_scores(model: Any, kernel: Kernel, s2: float, X: Any) -> np.ndarray:
    """A fitted kernel perceptron's scores of validated patterns ``X``, shape (n_samples,
    n_problems), computed a block of rows at a time so that the kernel values fit in memory.

    ``kernel`` is the model's kernel function and ``s2`` its squared constant input."""
    n_problems = model.dual_coef_.shape[0]
    scores = np.empty((X.shape[0], n_problems))
    order = (
        None
        if model.prediction == "voted"
        else summation_order(model.dual_coef_, model.update_ptr_, model.update_support_)
    )
    rows = max(1, PREDICT_BLOCK_ELEMENTS // max(1, model.support_.shape[0]))
    for batch in gen_batches(X.shape[0], rows):
        K = kernel.against(X[batch], model.support_vectors_, model.support_)
        if order is None:
            scores[batch] = vote_scores(
                K,
                model.update_ptr_,
                model.update_support_,
                model.update_coef_,
                model.update_time_,
                model.n_presented_,
                s2,
            )
        else:
            order_ptr, order_columns = order
            scores[batch] = decision_scores(K, model.dual_coef_, order_ptr, order_columns, s2)
    return scores


def kernel_table(
    kernel: Kernel, state: DualState, patterns: Any, n: int, cache_size: float
) -> KernelTable | BlockTable:
    """The kernel values the epochs read, for ``state`` presenting its first ``n``
    samples: the whole Gram matrix when it fits ``cache_size`` (MB); else, under a
    budget, the support vectors against a block of presentations at a time (their number
    is bounded, the data's is not); else a column per support vector."""
    cache_bytes = float(cache_size) * MB
    policy = state.budget.policy
    forgetron = policy == "forgetron"  # it reads f at its oldest support vector: its row
    rows = state.n_samples if forgetron else n
    if policy is not None and 8 * rows * state.n_samples > cache_bytes:
        return BlockTable(kernel, patterns, BUDGET_BLOCK, support_rows=forgetron)
    return KernelTable(
        kernel.training_rows(patterns, rows),
        state.n_samples,
        cache_bytes,
        n_rows=rows,
        support=state.support(),
    )
