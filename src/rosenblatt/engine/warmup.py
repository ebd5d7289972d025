"""Compile every variant of the compiled loops ahead of time (``rosenblatt warmup``).

numba compiles a loop the first time it meets a new combination of argument
types, and caches the machine code on disk. A user can reach these variants:
float64 or float32 patterns, dense or CSR rows (int32 indices, or int64 for
more than 2**31 nonzeros), one neuron, one-vs-rest neurons or the multinomial
model, with or without the voted perceptron's record; the dual loop, the kernel
values (dense and CSR), the votes, the block shuffle, and the compiled parsers of
svmlight and CSV files (the readers). Warming up trains a
tiny problem through every one of them, so that later processes, joblib workers
and Dask workers load the cached code instead of compiling (``make demo`` and
``make test`` run it). Read-only inputs need no variant of their own: every
input reaches the loops as a read-only view.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["cache_counts", "warm_up"]


def _problems():
    rng = np.random.RandomState(0)
    X = rng.randn(40, 5)
    binary = (X[:, 0] + X[:, 1] > 0).astype(int)
    three = np.digitize(X[:, 0], [-0.4, 0.4])
    return X, binary, three


def _linear_variants():
    from ..linear import Perceptron, VotedPerceptron

    X, binary, three = _problems()
    for dtype in (np.float64, np.float32):
        for sparse in (False, True):
            data = X.astype(dtype)
            data = sp.csr_matrix(data) if sparse else data
            name = f"{np.dtype(dtype).name} {'CSR' if sparse else 'dense'}"
            for cls in (Perceptron, VotedPerceptron):
                for y, multi_class, layout in (
                    (binary, "ovr", "one neuron"),
                    (three, "ovr", "one-vs-rest"),
                    (three, "multinomial", "multinomial"),
                ):
                    estimator = cls(max_iter=2, random_state=0, multi_class=multi_class)
                    yield (
                        f"{cls.__name__}, {layout}, {name}",
                        (
                            lambda estimator=estimator, data=data, y=y: estimator.fit(
                                data, y
                            ).decision_function(data)
                        ),
                    )


def _int64_indices():
    """CSR rows with int64 indices (more than 2**31 nonzeros), on a tiny problem."""
    from .._kernels.bundles import Rows
    from .primal import Batch, PrimalRule, PrimalState

    X, binary, _ = _problems()
    for dtype in (np.float64, np.float32):
        csr = sp.csr_matrix(X.astype(dtype))
        batch = Batch(csr, binary, np.ones(X.shape[0]))
        batch.rows = Rows(
            batch.rows.X, (csr.data, csr.indices.astype(np.int64), csr.indptr.astype(np.int64))
        )
        state = PrimalState.allocate(2, X.shape[1], dtype)
        order = (np.arange(X.shape[0]), np.empty(0, dtype=np.int64), 0)
        yield (
            f"int64 CSR indices, {np.dtype(dtype).name}",
            (
                lambda state=state, batch=batch, order=order: state.epoch(
                    batch, PrimalRule(), order, np.ones(1, dtype=bool)
                )
            ),
        )


def _other_variants():
    from .._kernels.order import block_order
    from ..kernel import KernelPerceptron

    X, binary, three = _problems()
    for sparse in (False, True):
        data = sp.csr_matrix(X) if sparse else X
        for prediction in ("last", "voted"):
            for kernel in ("rbf", "poly"):
                yield (
                    f"KernelPerceptron {kernel}, {prediction}, {'CSR' if sparse else 'dense'}",
                    (
                        lambda data=data, kernel=kernel, prediction=prediction: (
                            KernelPerceptron(
                                kernel=kernel, prediction=prediction, max_iter=2, random_state=0
                            )
                            .fit(data, three)
                            .decision_function(data)
                        )
                    ),
                )
    n = 300
    yield (
        "block shuffle",
        lambda: block_order(n, 32, 4, 1, np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)),
    )


def _reader_variants():
    from ..readers import compile_parsers

    yield "svmlight and CSV parsers", compile_parsers


def cache_counts() -> tuple[int, int]:
    """Loops loaded from numba's on-disk cache and loops compiled, in this process so far.

    Returns
    -------
    (int, int)
        Cache hits and cache misses over every compiled function of the package.

    Examples
    --------
    Once the loops have run, each was either loaded or compiled:

    >>> _ = warm_up()
    >>> hits, misses = cache_counts()
    >>> hits + misses > 0
    True
    """
    import sys

    from numba.core.dispatcher import Dispatcher

    hits = misses = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("rosenblatt."):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, Dispatcher):
                stats = value.stats
                hits += sum(stats.cache_hits.values())
                misses += sum(stats.cache_misses.values())
    return hits, misses


def warm_up(
    progress: Callable[[str, float], Any] | None = None,
) -> list[tuple[str, float]]:
    """Compile (or load from the cache) every variant of the compiled loops.

    Parameters
    ----------
    progress : callable(what, seconds), default=None
        Called after each variant.

    Returns
    -------
    list of (str, float)
        What was warmed and the seconds it took (near 0 when it was cached).

    Examples
    --------
    ``progress`` hears of each variant as it is done, in order, the parsers last:

    >>> heard = []
    >>> done = warm_up(progress=lambda what, seconds: heard.append(what))
    >>> heard == [what for what, _ in done] and len(set(heard)) == len(done) > 20
    True
    >>> done[-1][0]
    'svmlight and CSV parsers'
    """
    done = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for variants in (
            _linear_variants(),
            _int64_indices(),
            _other_variants(),
            _reader_variants(),
        ):
            for what, run in variants:
                start = time.perf_counter()
                run()
                done.append((what, time.perf_counter() - start))
                if progress is not None:
                    progress(*done[-1])
    return done
