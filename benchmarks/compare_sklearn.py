"""Seconds per epoch of rosenblatt's perceptrons against scikit-learn's, measured side by side.

Run: ``.venv/bin/python benchmarks/compare_sklearn.py [--quick]``

Every row: 10 shuffled epochs, no early stop, on both sides; the median of
``--repeats`` fits after one warm-up fit, fitted in rounds (every estimator once
per round, dense float64 and float32 in the same rounds) so that a busy spell on
a shared machine slows all of them alike; the ratio is scikit-learn's seconds per
epoch over ours (> 1: we are faster). Accuracies are means over the timed fits,
each with its own shuffling seed, the same seeds on both sides. The floor is one
pass computing ``w . x`` over all rows in storage order, in the data's type: for
dense rows vectorised in any order, for CSR rows with the training loops' own dot
product (the fastest we have); the least an epoch can cost. The shuffled floor is the
same pass in a shuffled epoch's order (the engine's block order, with the training
loops' prefetching): what reading the rows in that order costs, before any training.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np
import scipy.sparse as sp
from numba import njit
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import normalize

from rosenblatt import AveragedPerceptron, Perceptron
from rosenblatt.engine.kernels._rows import EXTENT_AHEAD, prefetch_extent, prefetch_row, row_dot
from rosenblatt.engine.orders import epoch_order

EPOCHS = 10


def dense_problem(n_samples, n_features, flip=0.05, seed=0):
    """Labels from a random hyperplane, ``flip`` of them flipped."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features))
    w = rng.standard_normal(n_features)
    y = np.where(X @ w > 0, 1, -1)
    flipped = rng.random(n_samples) < flip
    y[flipped] = -y[flipped]
    return X, y


def sparse_problem(n_samples, n_features, nnz_per_row=50, flip=0.05, seed=0):
    """tf-idf-like CSR rows: Zipf-distributed columns, l2-normalised, hyperplane labels."""
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n_samples), nnz_per_row)
    cols = (rng.zipf(1.3, size=n_samples * nnz_per_row) - 1) % n_features
    cols = rng.permutation(n_features)[cols]  # frequent words spread over the columns
    vals = rng.random(n_samples * nnz_per_row) + 0.1
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n_samples, n_features))
    X.sum_duplicates()
    X = normalize(X)
    w = rng.standard_normal(n_features)
    scores = X @ w
    y = np.where(scores > np.median(scores), 1, -1)
    flipped = rng.random(n_samples) < flip
    y[flipped] = -y[flipped]
    return X, y


@njit(cache=True, fastmath=True)
def _floor_dense(X, w):
    # fastmath lets LLVM sum in any order (vector lanes), in the data's type: the
    # pass is then limited by memory, not by the latency of one chain of additions
    total = 0.0
    for i in range(X.shape[0]):
        acc = w.dtype.type(0)
        for j in range(X.shape[1]):
            acc += X[i, j] * w[j]
        total += acc
    return total


@njit  # not cached: numba's cache would keep an old row_dot after the package changes
def _floor_sparse(data, indices, indptr, w):
    # the training loops' own CSR dot product (8 lanes in one vector register):
    # faster than a plain or fastmath loop over the nonzeros, which chains every
    # addition of a row, so only this one is a floor under the epochs
    csr = (data, indices, indptr)
    empty = np.empty((0, 0), dtype=data.dtype)
    total = 0.0
    for i in range(indptr.shape[0] - 1):
        total += row_dot(empty, csr, i, w)
    return total


@njit(fastmath=True)  # not cached, as _floor_sparse
def _floor_shuffled(X, csr, w, order, stream, lookahead):
    # the floor's w . x (dense: in any order; CSR: row_dot) in an epoch's order, prefetching as
    # primal_epoch does (the stream of the next block, and for CSR rows the lookahead)
    n = order.shape[0]
    total = 0.0
    for pos in range(n):
        if lookahead > 0:
            if pos + lookahead < n:
                prefetch_row(X, csr, order[pos + lookahead])
            if pos + 2 * lookahead < n:
                prefetch_extent(csr, order[pos + 2 * lookahead])
        if stream.shape[0] > 0:
            if stream[pos] >= 0:
                prefetch_row(X, csr, stream[pos])
            if csr is not None:
                if pos + EXTENT_AHEAD < n and stream[pos + EXTENT_AHEAD] >= 0:
                    prefetch_extent(csr, stream[pos + EXTENT_AHEAD])
        i = order[pos]
        if csr is not None:
            total += row_dot(X, csr, i, w)
        else:
            acc = w.dtype.type(0)
            for j in range(X.shape[1]):
                acc += X[i, j] * w[j]
            total += acc
    return total


def floor_run(X, shuffled=False):
    """A case for ``round_robin``: one storage-order pass of ``w . x`` over every row
    (the least an epoch can cost), timed; ``shuffled``: the same pass in the order of a
    shuffled epoch (block-shuffled, as ours and these sizes take)."""
    w = np.ones(X.shape[1], dtype=X.dtype)
    sparse = sp.issparse(X)
    if shuffled:
        order, stream, lookahead = epoch_order(
            np.random.RandomState(0), X.shape[0], "block", sparse=sparse
        )
        rows = (np.empty((0, 0), X.dtype), (X.data, X.indices, X.indptr)) if sparse else (X, None)
        run = lambda: _floor_shuffled(*rows, w, order, stream, lookahead)  # noqa: E731
    elif sparse:
        run = lambda: _floor_sparse(X.data, X.indices, X.indptr, w)  # noqa: E731
    else:
        run = lambda: _floor_dense(X, w)  # noqa: E731

    def timed(seed):
        start = time.perf_counter()
        run()
        return time.perf_counter() - start, np.nan, np.nan

    return timed


def timed_fit(make, seed, X_train, y_train, X_test, y_test):
    """Seconds per epoch of one fit, and its train and test accuracy."""
    model = make(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        model.fit(X_train, y_train)
        elapsed = time.perf_counter() - start
    return (
        elapsed / int(np.max(model.n_iter_)),
        model.score(X_train, y_train),
        model.score(X_test, y_test),
    )


def round_robin(cases, repeats):
    """Median seconds and mean accuracies of every case, run in rounds.

    ``cases`` maps a key to a function of a seed returning ``(seconds per epoch,
    train accuracy, test accuracy)``. After one warm-up run each, every round runs
    every case once (seed = the round), so a busy spell on a shared machine slows
    all of them alike and the ratios hold. Each fit has its own seed: one
    shuffling seed says little about a last iterate on noisy data.
    """
    for run in cases.values():
        run(0)
    runs = {key: [] for key in cases}
    for seed in range(1, repeats + 1):
        for key, run in cases.items():
            runs[key].append(run(seed))
    return {
        key: (
            statistics.median(r[0] for r in fits),
            np.mean([r[1] for r in fits]),
            np.mean([r[2] for r in fits]),
        )
        for key, fits in runs.items()
    }


def pairs(sparse):
    """(label, ours, scikit-learn's) estimator factories of a seed: the same model on both
    sides, with the same epochs (no early stop) and shuffling.

    On sparse rows ours takes ``intercept_scaling="auto"`` (0.1: the intercept moves by
    0.01 per update), the counterpart of scikit-learn's intercept decay for sparse input;
    a further row (the name with a ``*``) gives ours at its default (1.0) beside the same
    scikit-learn figures (``None`` for scikit-learn's factory: the row above's are reused,
    not timed again).
    """
    scaling = {"intercept_scaling": "auto"} if sparse else {}
    ours = {"max_iter": EPOCHS, "tol": None}
    yield (
        "Perceptron",
        lambda seed: Perceptron(**ours, **scaling, random_state=seed),
        lambda seed: SkPerceptron(max_iter=EPOCHS, tol=None, random_state=seed),
    )
    if sparse:
        yield (
            "Perceptron*",
            lambda seed: Perceptron(**ours, random_state=seed),
            None,
        )
    yield (
        "AveragedPerceptron",
        lambda seed: AveragedPerceptron(**ours, **scaling, random_state=seed),
        lambda seed: SGDClassifier(
            loss="perceptron",
            learning_rate="constant",
            eta0=1,
            penalty=None,
            average=True,
            max_iter=EPOCHS,
            tol=None,
            random_state=seed,
        ),
    )
    if sparse:
        yield (
            "AveragedPerceptron*",
            lambda seed: AveragedPerceptron(**ours, random_state=seed),
            None,
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the data")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    scale = 10 if args.quick else 1

    X, y = dense_problem(200_000 // scale, 100)
    Xs, ys = sparse_problem(100_000 // scale, 200_000 // scale)
    # float64 and float32 are timed in the same rounds, so their ratio is as fair
    # as the ratios to scikit-learn
    groups = [
        [("dense float64", X, y), ("dense float32", X.astype(np.float32), y)],
        [("sparse CSR", Xs, ys)],
    ]
    header = (
        f"{'data':<15} {'estimator':<19} {'ours s/ep':>10} {'sklearn s/ep':>12} "
        f"{'ratio':>6} {'vs floor':>8} {'train acc':>15} {'test acc':>15}"
    )
    print(header)
    print("-" * len(header))
    results = {}
    for group in groups:
        cases = {}
        for name, X_all, y_all in group:
            X_tr, X_te, y_tr, y_te = train_test_split(X_all, y_all, test_size=0.2, random_state=0)
            data = (X_tr, y_tr, X_te, y_te)
            cases[(name, "floor")] = floor_run(X_tr)
            cases[(name, "shuffled floor")] = floor_run(X_tr, shuffled=True)
            for label, ours, theirs in pairs(sp.issparse(X_all)):
                for side, make in (("ours", ours), ("sklearn", theirs)):
                    if make is None:
                        continue
                    cases[(name, label, side)] = lambda seed, make=make, data=data: timed_fit(
                        make, seed, *data
                    )
        measured = round_robin(cases, args.repeats)
        floors = {name: measured[(name, "floor")][0] for name, _, _ in group}
        for name, X_all, _ in group:
            for label, _, theirs in pairs(sp.issparse(X_all)):
                t_ours, train_ours, test_ours = measured[(name, label, "ours")]
                if theirs is not None:  # else the row above's scikit-learn figures
                    t_sk, train_sk, test_sk = measured[(name, label, "sklearn")]
                results[(name, label)] = t_ours
                print(
                    f"{name:<15} {label:<19} {t_ours:>10.4f} {t_sk:>12.4f} "
                    f"{t_sk / t_ours:>5.1f}x {t_ours / floors[name]:>7.1f}x "
                    f"{train_ours:>7.3f}/{train_sk:<7.3f} {test_ours:>7.3f}/{test_sk:<7.3f}"
                )
            print(f"{name:<15} {'floor (w . x)':<19} {floors[name]:>10.4f}")
            shuffled = measured[(name, "shuffled floor")][0]
            print(
                f"{name:<15} {'shuffled floor':<19} {shuffled:>10.4f} {'':>12} {'':>6} "
                f"{shuffled / floors[name]:>7.1f}x"
            )
    for label in ("Perceptron", "AveragedPerceptron"):
        ratio = results[("dense float64", label)] / results[("dense float32", label)]
        print(f"float32 speed-up over float64, {label}: {ratio:.2f}x")
    print("accuracy columns: ours/scikit-learn, mean over the timed fits (seeds 1..repeats)")
    print(
        'sparse rows: ours with intercept_scaling="auto" (scikit-learn\'s sparse intercept '
        "decay); *: ours at its default intercept_scaling=1.0, against the same scikit-learn fits"
    )


if __name__ == "__main__":
    main()
