"""``rosenblatt warmup``: run every variant of the compiled loops once, so no later run waits."""

from __future__ import annotations

import sys
import time

from ._common import err_console


def command() -> None:
    """Run every variant of the compiled loops once, and say where they come from.

    The library built at install holds them: they load in milliseconds. Without it
    (no C compiler at install, or ROSENBLATT_KERNELS=jit), numba compiles them now
    and caches them on disk for later processes, joblib and Dask workers.

    Run once after installing or upgrading; make demo and make test do.
    """
    from ...engine.kernels.loader import library_status
    from ...estimators.warmup import warm_up

    start = time.perf_counter()
    with err_console.status("Loading the training loops...") as status:  # not a result

        def progress(what, seconds):
            status.update(f"Loading the training loops... {what} ({seconds:.1f} s)")

        done = warm_up(progress)
    seconds = time.perf_counter() - start
    err_console.print(
        f"compiled kernels: {library_status()}", markup=False, highlight=False, soft_wrap=True
    )
    summary = f"{len(done)} variants ready in {seconds:.1f} s"
    if "numba" in sys.modules:  # some ran through numba's JIT
        from ...estimators.warmup import cache_counts

        loaded, compiled = cache_counts()
        summary += f": numba compiled {compiled} loops and loaded {loaded} from its cache"
    err_console.print(summary)
