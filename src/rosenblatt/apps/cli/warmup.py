"""``rosenblatt warmup``: compile every variant of the training loops ahead of time."""

from __future__ import annotations

import time

from ._common import err_console


def command() -> None:
    """Compile (or load) every variant of the compiled loops, so no later run waits for it.

    Later processes, joblib and Dask workers load numba's on-disk cache.

    Run once after installing or upgrading; make demo and make test do.
    """
    from ...engine.warmup import cache_counts, warm_up

    start = time.perf_counter()
    with err_console.status("Compiling the training loops...") as status:  # not a result

        def progress(what, seconds):
            status.update(f"Compiling the training loops... {what} ({seconds:.1f} s)")

        done = warm_up(progress)
    seconds = time.perf_counter() - start
    loaded, compiled = cache_counts()
    err_console.print(
        f"{len(done)} variants ready in {seconds:.1f} s: {compiled} compiled loops, "
        f"{loaded} loaded from the cache"
    )
