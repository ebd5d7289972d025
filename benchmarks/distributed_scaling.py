"""Iterative parameter mixing on a LocalCluster: rounds and wall time as partitions grow.

For 1, 2, 4 and 8 partitions it trains :class:`~rosenblatt.distributed.ParameterMixing`
(uniform and error-weighted mixing) and prints the rounds to convergence, the
mistakes over all rounds, the time to put the data on the workers (``load``,
once per partitioning), the wall time of ``fit`` on the workers' data and the
training accuracy, next to single-machine
``Perceptron.fit`` on the same data (epochs, mistakes, time). A second table
does the same on noisy data for a fixed number of rounds with the averaged
perceptron, and reports held-out accuracy.

Usage::

    python benchmarks/distributed_scaling.py
    python benchmarks/distributed_scaling.py --samples 400000 --workers 4
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def separable(n, d, margin, seed=0):
    rng = np.random.RandomState(seed)
    w = rng.randn(d)
    w /= np.linalg.norm(w)
    X = rng.randn(n, d)
    side = np.where(X @ w > 0, 1, -1)
    X += np.outer(side * margin, w)  # push every point to distance >= margin
    return X, side


def noisy(n, d, noise, seed):
    w = np.random.RandomState(0).randn(d)
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    y = np.where(X @ w > 0, 1, -1)
    flip = rng.rand(n) < noise
    y[flip] = -y[flip]
    return X, y


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200_000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--margin", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=10, help="rounds of the noisy run")
    parser.add_argument("--partitions", type=int, nargs="+", default=[1, 2, 4, 8])
    args = parser.parse_args()

    import dask.array as da
    import distributed
    from distributed import Client, LocalCluster
    from sklearn.exceptions import ConvergenceWarning

    from rosenblatt.distributed import ParameterMixing
    from rosenblatt.estimators.linear import AveragedPerceptron, Perceptron

    warnings.simplefilter("ignore", ConvergenceWarning)
    # persisting in-memory arrays ships them inside the graph, which is what we time as "load"
    warnings.filterwarnings("ignore", message="Sending large graph")
    cluster = LocalCluster(
        n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = Client(cluster)
    n, d = args.samples, args.features
    print(f"LocalCluster: {args.workers} workers x 1 thread; data {n:,} x {d} dense float64")

    X, y = separable(n, d, args.margin)
    # compile (or load the cached kernels) here and on every worker before timing
    for cls in (Perceptron, AveragedPerceptron):
        cls(random_state=0).fit(X[:100], y[:100])
        ParameterMixing(cls(random_state=0), max_rounds=2, client=client).fit(
            da.from_array(X[:400], chunks=(100, d)), da.from_array(y[:400], chunks=100)
        )

    def on_cluster(X, y, parts):
        """The data held by the workers, as a user's persisted collection would be."""
        start = time.perf_counter()
        rows = -(-X.shape[0] // parts)
        Xd, yd = client.persist([da.from_array(X, chunks=(rows, d)), da.from_array(y, chunks=rows)])
        distributed.wait([Xd, yd])
        return Xd, yd, time.perf_counter() - start

    start = time.perf_counter()
    single = Perceptron(random_state=0, max_iter=1000).fit(X, y)
    single_s = time.perf_counter() - start
    print(
        f"\nSeparable data (margin {args.margin}); single machine: {single.n_iter_} epochs, "
        f"{single.n_mistakes_:,} mistakes, {single_s:.2f} s, "
        f"accuracy {single.score(X, y):.4f}"
    )
    print(
        f"{'partitions':>10} {'load s':>7} {'mixing':>9} {'rounds':>7} {'mistakes':>10} "
        f"{'fit s':>7} {'s/round':>8} {'accuracy':>9}"
    )
    for parts in args.partitions:
        Xd, yd, load = on_cluster(X, y, parts)
        for mixing in ("uniform", "weighted"):
            start = time.perf_counter()
            clf = ParameterMixing(
                Perceptron(random_state=0), max_rounds=1000, mixing=mixing, client=client
            ).fit(Xd, yd)
            seconds = time.perf_counter() - start
            print(
                f"{parts:>10} {load:>7.2f} {mixing:>9} {clf.n_iter_:>7} {clf.n_mistakes_:>10,} "
                f"{seconds:>7.2f} {seconds / clf.n_iter_:>8.3f} {clf.score(X, y):>9.4f}"
                + ("" if clf.converged_ else "  (not converged)")
            )

    X, y = noisy(n, d, 0.1, seed=1)
    X_test, y_test = noisy(50_000, d, 0.0, seed=2)
    start = time.perf_counter()
    single = AveragedPerceptron(random_state=0, max_iter=args.rounds).fit(X, y)
    single_s = time.perf_counter() - start
    print(
        f"\nNoisy data (10% labels flipped), AveragedPerceptron, {args.rounds} epochs/rounds; "
        f"single machine: {single_s:.2f} s, held-out accuracy "
        f"{single.score(X_test, y_test):.4f}"
    )
    print(f"{'partitions':>10} {'mixing':>9} {'fit s':>7} {'held-out acc':>13} {'diff':>7}")
    for parts in args.partitions:
        Xd, yd, _ = on_cluster(X, y, parts)
        for mixing in ("uniform", "weighted"):
            start = time.perf_counter()
            clf = ParameterMixing(
                AveragedPerceptron(random_state=0),
                max_rounds=args.rounds,
                mixing=mixing,
                client=client,
            ).fit(Xd, yd)
            seconds = time.perf_counter() - start
            accuracy = clf.score(X_test, y_test)
            print(
                f"{parts:>10} {mixing:>9} {seconds:>7.2f} {accuracy:>13.4f} "
                f"{accuracy - single.score(X_test, y_test):>+7.4f}"
            )
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
