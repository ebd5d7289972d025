"""Timings beyond the per-epoch comparison: threads, the Gram cache, compile cache, import.

Run: ``.venv/bin/python benchmarks/timings.py``

- one-vs-rest on 10 classes, 1 thread against all cores (``n_jobs``);
- KernelPerceptron (RBF, 5,000 x 20) per epoch with the Gram matrix cached and
  with kernel values computed on the fly;
- the first fit in a fresh process with an empty numba cache, and in a second process
  (with the library built at install nothing compiles; with ``ROSENBLATT_KERNELS=jit``
  numba compiles, then loads its disk cache);
- ``import rosenblatt`` in a fresh interpreter;
- refusing a zip-bomb model file (a 200 MB member over a 10 MB limit), per reader
  (``tests/test_persistence_hostile.py`` checks that it is refused, in bounded memory);
- the playground's largest request (voted and kernel) answered over HTTP
  (``tests/test_playground_api.py`` checks the answer).

Each figure is the median of ``--repeats`` runs (one-vs-rest: at least 7, the 1-thread and
all-core fits alternating).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning

FIRST_FIT = """
import time, numpy as np
t0 = time.perf_counter()
from rosenblatt import Perceptron
X = np.random.default_rng(0).standard_normal((1000, 10)); y = (X[:, 0] > 0).astype(int)
t1 = time.perf_counter()
Perceptron(max_iter=5).fit(X, y)
print(time.perf_counter() - t1)
"""


def median_time(run, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def quiet(run):
    def wrapped():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return run()

    return wrapped


def one_vs_rest(repeats):
    from rosenblatt import Perceptron

    X, y = make_classification(100_000, 100, n_informative=40, n_classes=10, random_state=0)
    fit = {
        jobs: quiet(
            lambda jobs=jobs: Perceptron(max_iter=10, random_state=0, n_jobs=jobs).fit(X, y)
        )
        for jobs in (1, -1)
    }
    fit[1]()  # warm-up (compile)
    # alternate the two so that a busy spell of the machine slows both alike
    times = {jobs: [] for jobs in fit}
    for _ in range(repeats):
        for jobs, run in fit.items():
            times[jobs].append(median_time(run, 1))
    single, every = (statistics.median(times[jobs]) for jobs in (1, -1))
    cores = os.cpu_count()
    print(
        f"one-vs-rest, 10 classes, 100,000 x 100, 10 epochs: 1 thread {single:.3f} s, "
        f"{cores} threads {every:.3f} s, speed-up {single / every:.2f}x"
    )


def gram_cache(repeats):
    from rosenblatt import KernelPerceptron

    X, y = make_classification(5_000, 20, flip_y=0.05, random_state=0)
    for label, cache_size in (("cached Gram matrix", 1024), ("on the fly", 1)):
        model = KernelPerceptron(kernel="rbf", max_iter=5, random_state=0, cache_size=cache_size)
        fit = quiet(lambda model=model: model.fit(X, y))
        fit()
        seconds = median_time(fit, repeats)
        print(
            f"KernelPerceptron RBF 5,000 x 20, {label}: {seconds / model.n_iter_:.3f} s "
            f"per epoch ({model.n_iter_} epochs, {model.support_.shape[0]} support vectors)"
        )


def compile_cache():
    """First fit in a process with an empty numba cache, then in a second process."""

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        run = [sys.executable, "-c", FIRST_FIT]
        cold = float(
            subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout
        )
        warm = float(
            subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout
        )
    print(
        f"first fit, fresh process, empty compile cache: {cold:.2f} s; "
        f"second process (cache hit): {warm:.3f} s"
    )


def import_time(repeats):
    run = [
        sys.executable,
        "-c",
        "import time; t = time.perf_counter(); import rosenblatt; print(time.perf_counter() - t)",
    ]
    times = [
        float(subprocess.run(run, capture_output=True, text=True, check=True).stdout)
        for _ in range(repeats)
    ]
    print(f"import rosenblatt: {statistics.median(times) * 1000:.1f} ms")


def zip_bomb_refusal(repeats):
    """Seconds each model reader takes to refuse a member that inflates past the limit."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "tests"))
    from forging import MiB, Zeros, forge

    from rosenblatt import ModelFileError, Perceptron
    from rosenblatt._core import config as _config
    from rosenblatt.persistence import load, load_predictor, read_manifest, save

    X, y = make_classification(60, 4, random_state=0)

    def add_bomb(manifest, members):
        members["arrays/0.npy"] = Zeros(200 * MiB)

    limit = _config.MODEL_MAX_MEMBER_BYTES
    _config.MODEL_MAX_MEMBER_BYTES = 10 * MiB
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "bomb.rbm"
            save(quiet(lambda: Perceptron(random_state=0).fit(X, y))(), path)
            forge(path, add_bomb)
            for reader in (load, load_predictor, read_manifest):

                def refuse(reader=reader):
                    try:
                        reader(path)
                    except ModelFileError:
                        return
                    raise AssertionError(f"{reader.__name__} read a zip bomb")

                seconds = median_time(refuse, repeats)
                print(
                    f"zip bomb (200 MB member, 10 MB limit) refused by {reader.__name__}: "
                    f"{seconds * 1000:.1f} ms"
                )
    finally:
        _config.MODEL_MAX_MEMBER_BYTES = limit


def playground_largest_request(repeats):
    """Seconds the playground server takes to answer its largest request (noise: no stop)."""
    import json
    import urllib.request

    import numpy as np

    from rosenblatt.apps.playground.runs import MAX_KERNEL_CELLS, MAX_POINTS, MAX_PRESENTATIONS
    from rosenblatt.apps.playground.server import serve_in_thread

    rng = np.random.default_rng(0)
    X = rng.uniform(-2.5, 2.5, size=(MAX_POINTS, 2))
    y = np.where(rng.random(MAX_POINTS) < 0.5, 1, -1)
    server, url = serve_in_thread()
    try:
        for algorithm in ("voted", "kernel"):
            body = {"points": X.tolist(), "labels": y.tolist(), "algorithm": algorithm}
            epochs = MAX_PRESENTATIONS // MAX_POINTS
            if algorithm == "kernel":  # the page's cap on a kernel run's coefficients
                epochs = min(epochs, max(1, MAX_KERNEL_CELLS // MAX_POINTS**2))
            body["epochs"], body["feature_map"] = epochs, True
            data = json.dumps(body).encode()

            def post(data=data):
                request = urllib.request.Request(
                    url + "api/run", data=data, headers={"Content-Type": "application/json"}
                )
                with urllib.request.urlopen(request, timeout=600) as reply:
                    json.load(reply)

            seconds = median_time(post, repeats)
            print(
                f"playground, largest request ({MAX_POINTS:,} points, {algorithm}): {seconds:.2f} s"
            )
    finally:
        server.shutdown()
        server.server_close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    import_time(max(args.repeats, 5))
    compile_cache()
    one_vs_rest(max(args.repeats, 7))
    gram_cache(args.repeats)
    zip_bomb_refusal(args.repeats)
    playground_largest_request(args.repeats)


if __name__ == "__main__":
    main()
