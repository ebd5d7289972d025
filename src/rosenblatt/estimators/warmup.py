"""Run every variant of the compiled loops once (``rosenblatt warmup``).

The library built at install (:mod:`rosenblatt.engine.kernels.loader`) holds every
variant, and they load in milliseconds. Without it, numba compiles a loop the first
time it meets a new combination of argument types, and caches the machine code on
disk. A user can reach these variants:
float64 or float32 patterns, dense or CSR rows (int32 indices, or int64 for
more than 2**31 nonzeros), one neuron, one-vs-rest neurons or the multinomial
model, with or without the voted perceptron's record; the dual loop, the kernel
values (dense and CSR), the votes, the block shuffle, and the compiled parsers of
svmlight and CSV files (the readers). Warming up trains a
tiny problem through every one of them, so that later processes, joblib workers
and Dask workers load the cached code instead of compiling (``make demo`` and
``make test`` run it). Read-only inputs need no variant of their own: every
input reaches the loops as a read-only view.

:data:`VARIANTS` gives, for each kernel of the registry
(:data:`rosenblatt.engine.kernels.registry.KERNELS`), the variants that compile it: a
variant often compiles several kernels (fitting a voted perceptron runs the epoch, the
scores and the vote), so a variant shared by several kernels has one name and runs once.
They live here, above the engine, because they run the estimators and the readers.

``python -m rosenblatt.estimators.warmup`` writes the signatures the variants compile
(``engine/kernels/signatures.json``, what the library built at install holds): run it with
``ROSENBLATT_KERNELS=jit`` after adding a variant or changing a kernel's arguments.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.kernels.signatures import SIGNATURES_FILE, jit_signatures

__all__ = ["VARIANTS", "cache_counts", "warm_up", "write_signatures"]

#: ``(what, run)``: a name for ``rosenblatt warmup``'s progress, and a call that runs it.
Variant = tuple[str, Callable[[], Any]]


# ---------------------------------------------------------------------- the variants
def _problems():
    rng = np.random.RandomState(0)
    X = rng.randn(40, 5)
    binary = (X[:, 0] + X[:, 1] > 0).astype(int)
    three = np.digitize(X[:, 0], [-0.4, 0.4])
    return X, binary, three


def _labels(X):
    """A label matrix of three labels (multilabel): several labels per sample."""
    return (X[:, :3] > 0).astype(int)


def _fit(estimator: Any, data: Any, y: Any) -> Any:
    """Fit ``estimator`` and score ``data``: training and prediction both compile."""
    return estimator.fit(data, y).decision_function(data)


def _every_epoch(report: Any) -> None:
    """An ``on_epoch`` that does nothing: a fit with one runs its epochs one by one."""


def _linear_variants(
    classes=("Perceptron", "VotedPerceptron"), one_by_one: bool = False
) -> Iterator[Variant]:
    """Every estimator (plain, voted: no record and record), dtype, layout, target (class
    indices, a label matrix) and dense/CSR form; ``one_by_one``: with an ``on_epoch``, so
    that the epochs run one by one (``primal_epoch``), not in one call (``primal_epochs``)."""
    import scipy.sparse as sp

    from . import linear

    X, binary, three = _problems()
    callback = _every_epoch if one_by_one else None
    how = ", epoch by epoch" if one_by_one else ""
    for dtype in (np.float64, np.float32):
        for sparse in (False, True):
            data = X.astype(dtype)
            data = sp.csr_matrix(data) if sparse else data
            name = f"{np.dtype(dtype).name} {'CSR' if sparse else 'dense'}"
            for cls in (linear.Perceptron, linear.VotedPerceptron):
                if cls.__name__ not in classes:
                    continue
                for y, multi_class, threads, layout in (
                    (binary, "ovr", None, "one neuron"),
                    (three, "ovr", None, "one-vs-rest"),
                    (three, "multinomial", None, "multinomial"),
                    (_labels(X), "ovr", None, "multilabel"),
                    # a thread per neuron (epoch by epoch): the one-neuron layout reading a
                    # label matrix
                    (_labels(X), "ovr", 3, "multilabel, a neuron per thread"),
                ):
                    if threads and not one_by_one:
                        continue
                    estimator = cls(
                        max_iter=2,
                        random_state=0,
                        multi_class=multi_class,
                        n_jobs=threads,
                        on_epoch=callback,
                    )
                    yield (
                        f"{cls.__name__}, {layout}, {name}{how}",
                        partial(_fit, estimator, data, y),
                    )


def _int64_indices(one_by_one: bool = True) -> Iterator[Variant]:
    """CSR rows with int64 indices (more than 2**31 nonzeros), on a tiny problem: one epoch,
    or (not ``one_by_one``) a run of them in one call."""
    import scipy.sparse as sp

    from ..engine.kernels.bundles import Rows
    from ..engine.primal import Batch, PrimalRule, PrimalState

    X, binary, _ = _problems()
    for dtype in (np.float64, np.float32):
        csr = sp.csr_matrix(X.astype(dtype))
        batch = Batch(csr, binary, np.ones(X.shape[0]))
        batch.rows = Rows(
            batch.rows.X, (csr.data, csr.indices.astype(np.int64), csr.indptr.astype(np.int64))
        )
        state = PrimalState.allocate(2, X.shape[1], dtype)
        if one_by_one:
            order = (np.arange(X.shape[0]), np.empty(0, dtype=np.int64), 0)
            run = partial(state.epoch, batch, PrimalRule(), order, np.ones(1, dtype=bool))
            yield f"int64 CSR indices, {np.dtype(dtype).name}", run
            continue
        yield (
            f"int64 CSR indices, {np.dtype(dtype).name}, in one call",
            partial(_in_one_call, state, batch),
        )


def _in_one_call(state: Any, batch: Any) -> Any:
    """Two epochs of ``batch`` in one call, shuffled, as a fit without callbacks runs them."""
    from ..engine.kernels.bundles import Limits, Progress
    from ..engine.orders import compiled_orders
    from ..engine.primal import PrimalRule

    found = compiled_orders(np.random.RandomState(0), batch.n_samples, "full")
    assert found is not None  # a RandomState's orders are drawn in compiled code
    start = np.zeros(state.n_units, dtype=np.int64)
    progress = Progress(start == 0, start, np.array([np.inf]), np.zeros(1, dtype=np.int64))
    with found.lock:
        return state.epochs(
            batch, PrimalRule(), found.draws, progress, Limits(0.0, 5, True, False), 2
        )


def _primal_variants() -> Iterator[Variant]:
    yield from _linear_variants(one_by_one=True)
    yield from _int64_indices()


def _one_call_variants() -> Iterator[Variant]:
    yield from _linear_variants()
    yield from _int64_indices(one_by_one=False)


def _voted_variants() -> Iterator[Variant]:
    yield from _linear_variants(classes=("VotedPerceptron",))


def _kernel_variants(predictions=("last", "voted")) -> Iterator[Variant]:
    """The kernel perceptron: dense and CSR patterns, rbf and poly, last and voted."""
    import scipy.sparse as sp

    from .kernel import KernelPerceptron

    X, _, three = _problems()
    for sparse in (False, True):
        data = sp.csr_matrix(X) if sparse else X
        for prediction in ("last", "voted"):
            if prediction not in predictions:
                continue
            for kind in ("rbf", "poly"):
                estimator = KernelPerceptron(
                    kernel=kind, prediction=prediction, max_iter=2, random_state=0
                )
                yield (
                    f"KernelPerceptron {kind}, {prediction}, {'CSR' if sparse else 'dense'}",
                    partial(_fit, estimator, data, three),
                )


def _last_kernel_variants() -> Iterator[Variant]:
    yield from _kernel_variants(predictions=("last",))


def _voted_kernel_variants() -> Iterator[Variant]:
    yield from _kernel_variants(predictions=("voted",))


def _block_shuffle() -> Iterator[Variant]:
    from ..engine.kernels.loader import compiled_kernel

    block_order = compiled_kernel("order.block_order")
    n = 300
    yield (
        "block shuffle",
        lambda: block_order(n, 32, 4, 1, np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)),
    )


def _numbers() -> Iterator[Variant]:
    """The number converter on its own, as the tests (and a program) call it: a read-only buffer."""
    from ..engine.kernels.loader import compiled_kernel

    number = compiled_kernel("textparse.number")
    buf = np.frombuffer(b"-1.25e-3", dtype=np.uint8)
    yield "decimal numbers", lambda: number(buf, 0, buf.shape[0])


def _parsers() -> Iterator[Variant]:
    from ..data.readers import compile_parsers

    yield "svmlight and CSV parsers", compile_parsers


#: What compiles each kernel of the registry, by its name, in warm-up order (the parsers last).
VARIANTS: dict[str, Callable[[], Iterator[Variant]]] = {
    "primal.primal_epoch": _primal_variants,
    "primal.primal_epochs": _one_call_variants,
    "scores.linear_scores": _linear_variants,
    "votes.binary_vote": _voted_variants,
    "votes.multinomial_vote": _voted_variants,
    "dual.dual_epoch": _kernel_variants,
    "gram.dense_block": _kernel_variants,
    "gram.sparse_block": _kernel_variants,
    "gram.squared_norms": _kernel_variants,
    "dual.ordered_scores": _last_kernel_variants,
    "dual.voted_scores": _voted_kernel_variants,
    "order.block_order": _block_shuffle,
    "textparse.number": _numbers,
    "textparse.svmlight_block": _parsers,
    "textparse.csv_block": _parsers,
    "textparse.dedupe": _parsers,
}


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
    done: list[tuple[str, float]] = []
    seen = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for variants in VARIANTS.values():
            for what, run in variants():
                if what in seen:  # already run for an earlier kernel
                    continue
                seen.add(what)
                start = time.perf_counter()
                run()
                done.append((what, time.perf_counter() - start))
                if progress is not None:
                    progress(*done[-1])
    return done


def cache_counts() -> tuple[int, int]:
    """Loops loaded from numba's on-disk cache and loops compiled, in this process so far.

    Returns
    -------
    (int, int)
        Cache hits and cache misses over every compiled function of the package.

    Examples
    --------
    Zero and zero where the library built at install runs the loops (numba compiles
    nothing then); through numba's JIT, each loop that ran was loaded or compiled:

    >>> hits, misses = cache_counts()
    >>> hits >= 0 and misses >= 0
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


def write_signatures(path: Path = SIGNATURES_FILE) -> list[dict[str, Any]]:
    """Run every warm-up variant with numba's JIT and write the signatures it compiled.

    Run it (``python -m rosenblatt.estimators.warmup``) with ``ROSENBLATT_KERNELS=jit``
    after adding a variant or changing a kernel's arguments.
    """
    warm_up()
    found = jit_signatures()
    path.write_text("[\n" + ",\n".join(json.dumps(entry) for entry in found) + "\n]\n")
    return found


if __name__ == "__main__":  # pragma: no cover - the maintainers' command
    print(f"{len(write_signatures())} signatures written to {SIGNATURES_FILE}")
