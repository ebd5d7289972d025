"""``rosenblatt warmup``: compile every variant of the training loops ahead of time."""

from __future__ import annotations

import time

from ._common import console


def command() -> None:
    """Compile (or load) every variant of the compiled loops, so no later run waits for it.

    Later processes, joblib and Dask workers load numba's on-disk cache.

    Run once after installing or upgrading; make demo and make test do.
    """
    from ..engine.warmup import warm_up

    start = time.perf_counter()
    compiled = []

    with console.status("Compiling the training loops...") as status:

        def progress(what, seconds):
            compiled.append(seconds > 0.05)
            status.update(f"Compiling the training loops... {what} ({seconds:.1f} s)")

        done = warm_up(progress)
    seconds = time.perf_counter() - start
    console.print(
        f"{len(done)} variants ready in {seconds:.1f} s: {sum(compiled)} compiled, "
        f"{len(done) - sum(compiled)} already in the cache"
    )
