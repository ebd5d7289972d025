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

The variants come from the registry of compiled kernels
(:data:`rosenblatt.engine.kernels.registry.KERNELS`): each kernel lists the variants
that compile it, and a variant shared by several kernels runs once.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["cache_counts", "warm_up"]


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
    from .kernels.registry import KERNELS

    done: list[tuple[str, float]] = []
    seen = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kernel in KERNELS:
            for what, run in kernel.variants():
                if what in seen:  # already run for an earlier kernel
                    continue
                seen.add(what)
                start = time.perf_counter()
                run()
                done.append((what, time.perf_counter() - start))
                if progress is not None:
                    progress(*done[-1])
    return done
