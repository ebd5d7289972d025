"""Train from an svmlight file larger than memory should allow, and show memory stays bounded.

1. Writes a synthetic svmlight file (default 2 GB) into a temporary directory
   under /tmp, a block of rows at a time with vectorised byte formatting.
2. Trains on it with :func:`rosenblatt.streaming.fit_stream` in a fresh child
   process and reports that process's peak resident memory (``ru_maxrss``),
   against a limit (default 500 MB). The index pass parses the text once into
   a temporary binary cache, which every epoch reads.
3. Checks on a smaller file (default 20 MB, which fits in memory) that
   streaming gives exactly the model of in-memory ``partial_fit`` calls in the
   same chunk order and row order.
4. Deletes the files (unless ``--keep``).

Usage::

    python benchmarks/streaming_memory.py              # 2 GB, 2 epochs
    python benchmarks/streaming_memory.py --size-gb 0.2 --epochs 1
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

N_FEATURES = 1000
NNZ = 40  # one feature in each of 40 bins of 25: sorted and unique by construction
TOKEN = 11  # " iiii:0.ddd"


def _block(rng, w, rows):
    """``rows`` svmlight lines as bytes: '+1 0007:0.123 0031:0.904 ...\\n'."""
    bins = N_FEATURES // NNZ
    index = np.arange(NNZ) * bins + rng.randint(bins, size=(rows, NNZ)) + 1  # 1-based
    value = rng.randint(1, 1000, size=(rows, NNZ))
    margin = (w[index - 1] * value).sum(axis=1)
    line = np.empty((rows, 2 + NNZ * TOKEN + 1), dtype=np.uint8)
    line[:, 0] = np.where(margin > 0, ord("+"), ord("-"))
    line[:, 1] = ord("1")
    tokens = line[:, 2:-1].reshape(rows, NNZ, TOKEN)
    tokens[:, :, 0] = ord(" ")
    for k, power in enumerate((1000, 100, 10, 1)):
        tokens[:, :, 1 + k] = ord("0") + index // power % 10
    tokens[:, :, 5] = ord(":")
    tokens[:, :, 6] = ord("0")
    tokens[:, :, 7] = ord(".")
    for k, power in enumerate((100, 10, 1)):
        tokens[:, :, 8 + k] = ord("0") + value // power % 10
    line[:, -1] = ord("\n")
    return line.tobytes()


def write_file(path, size_bytes, seed=0, block_rows=20_000):
    rng = np.random.RandomState(seed)
    w = rng.randn(N_FEATURES)
    written = 0
    with open(path, "wb") as handle:
        while written < size_bytes:
            data = _block(rng, w, block_rows)
            handle.write(data)
            written += len(data)
    return written


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def train_child(path, chunk_size, epochs, seed):
    """Runs in the child process: warm up, then stream; print a JSON report."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from rosenblatt.estimators.linear import Perceptron
    from rosenblatt.streaming import fit_stream, index_file

    # compile the kernels first, so the baseline includes the JIT's memory
    Perceptron(random_state=0).partial_fit(np.eye(2), [0, 1], classes=[0, 1])
    baseline = _peak_rss_mb()
    start = time.perf_counter()
    index = index_file(path, chunk_size)
    indexed = time.perf_counter() - start
    epoch_times = []
    last = [time.perf_counter()]

    def on_epoch(report):
        now = time.perf_counter()
        epoch_times.append(now - last[0])
        last[0] = now

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = fit_stream(
            Perceptron(random_state=seed), path, epochs=epochs, index=index, on_epoch=on_epoch
        )
    print(
        json.dumps(
            {
                "n_samples": index.n_samples,
                "n_chunks": index.n_chunks,
                "n_features": index.n_features,
                "index_seconds": indexed,
                "epoch_seconds": epoch_times,
                "mistakes_per_epoch": clf.mistakes_per_epoch_,
                "baseline_rss_mb": baseline,
                "peak_rss_mb": _peak_rss_mb(),
            }
        )
    )


def check_equal_to_in_memory(path, chunk_size, epochs, seed):
    """Streaming equals in-memory partial_fit replayed in the same chunk and row order."""
    import warnings

    from sklearn.datasets import load_svmlight_file
    from sklearn.exceptions import ConvergenceWarning

    from rosenblatt.estimators.linear import AveragedPerceptron, Perceptron
    from rosenblatt.streaming import fit_stream

    X, y = load_svmlight_file(path, n_features=N_FEATURES)
    y = y.astype(int)
    n_chunks = -(-X.shape[0] // chunk_size)
    results = {}
    for cls in (Perceptron, AveragedPerceptron):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            streamed = fit_stream(
                cls(random_state=seed), path, chunk_size=chunk_size, epochs=epochs
            )
        memory = cls(random_state=seed)
        rng = np.random.RandomState(seed)  # fit_stream's chunk order: the estimator's seed
        for _ in range(streamed.n_iter_):
            for c in rng.permutation(n_chunks):
                rows = slice(c * chunk_size, (c + 1) * chunk_size)
                memory.partial_fit(X[rows], y[rows], classes=[-1, 1])
        results[cls.__name__] = bool(
            np.array_equal(streamed.coef_, memory.coef_)
            and np.array_equal(streamed.intercept_, memory.intercept_)
        )
    return X.shape[0], results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-gb", type=float, default=2.0, help="size of the big file")
    parser.add_argument(
        "--small-mb", type=float, default=20.0, help="size of the file for the equality check"
    )
    parser.add_argument("--chunk-size", type=int, default=20_000)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--limit-mb", type=float, default=500.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tmpdir", default="/tmp")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--train-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.train_child:
        return train_child(args.train_child, args.chunk_size, args.epochs, args.seed)

    workdir = tempfile.mkdtemp(prefix="rosenblatt-stream-", dir=args.tmpdir)
    try:
        big = os.path.join(workdir, "big.svmlight")
        start = time.perf_counter()
        size = write_file(big, int(args.size_gb * 1e9), seed=args.seed)
        print(f"wrote {big}: {size / 1e9:.2f} GB in {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        child = subprocess.run(
            [
                sys.executable,
                __file__,
                "--train-child",
                big,
                "--chunk-size",
                str(args.chunk_size),
                "--epochs",
                str(args.epochs),
                "--seed",
                str(args.seed),
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - start
        report = json.loads(child.stdout.strip().splitlines()[-1])
        in_memory_gb = report["n_samples"] * NNZ * 12 / 1e9  # CSR: float64 + int32 per nnz
        print(
            f"samples {report['n_samples']:,}  features {report['n_features']}  "
            f"chunks {report['n_chunks']} x {args.chunk_size:,} rows"
        )
        print(
            f"index pass (parse into the binary cache) {report['index_seconds']:.1f} s; epochs "
            + ", ".join(f"{s:.1f} s" for s in report["epoch_seconds"])
            + f"; mistakes per epoch {report['mistakes_per_epoch']}; wall {wall:.1f} s"
        )
        print(
            f"peak RSS {report['peak_rss_mb']:.0f} MB (after imports and JIT: "
            f"{report['baseline_rss_mb']:.0f} MB); the data in memory as CSR would take "
            f"{in_memory_gb:.1f} GB"
        )
        ok = report["peak_rss_mb"] < args.limit_mb
        print(f"peak RSS < {args.limit_mb:.0f} MB: {'yes' if ok else 'NO'}")
        os.remove(big)

        small = os.path.join(workdir, "small.svmlight")
        write_file(small, int(args.small_mb * 1e6), seed=args.seed + 1, block_rows=5_000)
        n, equal = check_equal_to_in_memory(small, 5_000, 3, args.seed)
        print(
            f"equality check on a {os.path.getsize(small) / 1e6:.0f} MB file ({n:,} samples, "
            f"chunks of 5,000, 3 epochs): streamed == in-memory partial_fit in the same "
            f"order: {equal}"
        )
        if not (ok and all(equal.values())):
            sys.exit(1)
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
