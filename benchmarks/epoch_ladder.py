"""What each part of a training epoch costs over reading the rows, timed rung by rung.

Run: ``.venv/bin/python benchmarks/epoch_ladder.py [--repeats R]`` (about a minute).

``epoch_profile.py`` counts an epoch's instructions under callgrind; this script times it
natively, built up from the floor one part at a time, so that what holds an epoch above
``compare_sklearn.py``'s shuffled floor can be read off as the step each part adds. Every
rung is one compiled loop over the same block-shuffled orders (the engine's, made once),
on ``compare_sklearn``'s dense rows (160,000 x 100, float32 and float64) and its CSR rows
(80,000 x 200,000), starting from zero weights:

1. ``w . x``: the training loops' own dot product (:func:`row_dot`, 8 exact lanes) in the
   epoch's order, with their prefetching of the next block: the shuffled floor.
2. ``+ label``: each sample's class read and turned into its sign ``y``.
3. ``+ sample weight``: each sample's weight read, a zero weight skipped, the
   presentations' weight summed (the labels and weights read in the block's order).
4. ``+ prefetched``: the labels and weights of the next block prefetched with its rows
   (what :func:`~rosenblatt.engine.kernels.primal.primal_epoch` does).
5. ``+ mistake test``: ``y (w . x + w0)``, its overflow check, the mistakes counted.
6. ``+ update``: Rosenblatt's online rule on every mistake (``w += eta y x``).
7. ``+ averaging``: the averaged perceptron's running sums updated in the same pass.
8. ``primal_epoch``: the library's epoch itself (the built library where it is loaded),
   Perceptron and AveragedPerceptron, on the same orders.

Rungs 6 and 7 train the very weights ``primal_epoch`` trains (the script checks that, bit
for bit), so the difference between them and rung 8 is what the library's loop pays for
its generality (one-vs-rest and multinomial layouts, the passive-aggressive rules, batch
mode, records), and the difference between rungs 5 and 6 is the rule itself: a mistake
is a branch the CPU cannot predict (on these data the Perceptron errs on about one row in
six), and the next row's ``w . x`` waits for the weights the update writes.

Times: per epoch, the least of ``--repeats`` passes of 5 epochs each (the least, not the
median: a shared machine only ever adds time), the rungs taken in rounds (every rung once
a round, so a busy spell slows them all alike); ratios to rung 1.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare_sklearn import dense_problem, sparse_problem  # noqa: E402

from rosenblatt.engine.kernels._prefetch import prefetch  # noqa: E402
from rosenblatt.engine.kernels._rows import (  # noqa: E402
    EXTENT_AHEAD,
    prefetch_extent,
    prefetch_row,
    row_axpy,
    row_axpy2,
    row_dot,
)
from rosenblatt.engine.kernels.bundles import (  # noqa: E402
    PERCEPTRON,
    SINGLE,
    Rows,
    Rule,
    Schedule,
    Scratch,
    Tally,
    Targets,
    Weights,
)
from rosenblatt.engine.kernels.loader import compiled_kernel  # noqa: E402
from rosenblatt.engine.orders import epoch_order  # noqa: E402

EPOCHS = 5
LIBRARY, LIBRARY_AVERAGED = "8 primal_epoch", "8 primal_epoch, averaged"
# the rungs: (name, the parts switched on)
PARTS = ("LABEL", "WEIGHT", "PREFETCH", "TEST", "UPDATE", "AVERAGE")
RUNGS = (
    ("1 w . x (shuffled floor)", ()),
    ("2 + label", ("LABEL",)),
    ("3 + sample weight", ("LABEL", "WEIGHT")),
    ("4 + prefetched", ("LABEL", "WEIGHT", "PREFETCH")),
    ("5 + mistake test", ("LABEL", "WEIGHT", "PREFETCH", "TEST")),
    ("6 + update", ("LABEL", "WEIGHT", "PREFETCH", "TEST", "UPDATE")),
    ("7 + averaging", ("LABEL", "WEIGHT", "PREFETCH", "TEST", "UPDATE", "AVERAGE")),
)

# One source, compiled once per rung with its parts as constants (numba folds the parts
# switched off away). The rule written as primal_epoch writes it for one neuron, online.
_SOURCE = """
def epoch(X, csr, target, weight, order, stream, lookahead, w, w0, u, u0, counts, tally):
    n = order.shape[0]
    total = 0.0
    presented = 0
    presented_weight = 0.0
    mistakes = 0
    for pos in range(n):
        if lookahead > 0:
            if pos + lookahead < n:
                prefetch_row(X, csr, order[pos + lookahead])
            if pos + 2 * lookahead < n:
                prefetch_extent(csr, order[pos + 2 * lookahead])
        if stream[pos] >= 0:
            prefetch_row(X, csr, stream[pos])
            if PREFETCH:
                prefetch(target, stream[pos])
                prefetch(weight, stream[pos])
        if csr is not None:
            if pos + EXTENT_AHEAD < n and stream[pos + EXTENT_AHEAD] >= 0:
                prefetch_extent(csr, stream[pos + EXTENT_AHEAD])
        i = order[pos]
        sw = 1.0
        if WEIGHT:
            sw = weight[i]
            if sw == 0.0:
                continue
        y = 1.0
        if LABEL:
            y = 1.0 if target[i] == 1 else -1.0
        if TEST:
            a = y * (row_dot(X, csr, i, w) + w0[0] * 1.0)
            if not math.isfinite(a):
                tally[1] += 1
            if a <= 0.0:
                mistakes += 1
                coef = 1.0 * sw * y
                if UPDATE:
                    now = counts[0] + presented
                    if AVERAGE:
                        row_axpy2(coef, coef * (now + 1), X, csr, i, w, u)
                        w0[0] += coef * 1.0
                        u0[0] += coef * (now + 1) * 1.0
                    else:
                        row_axpy(coef, X, csr, i, w)
                        w0[0] += coef * 1.0
        else:
            total += y * row_dot(X, csr, i, w)
        presented += 1
        presented_weight += sw
    tally[0] += mistakes
    counts[0] += presented
    return total + presented_weight
"""


def rung(parts):
    """The loop of ``_SOURCE`` with ``parts`` switched on, compiled by numba's JIT."""
    names = {
        "math": math,
        "prefetch": prefetch,
        "prefetch_row": prefetch_row,
        "prefetch_extent": prefetch_extent,
        "row_dot": row_dot,
        "row_axpy": row_axpy,
        "row_axpy2": row_axpy2,
        "EXTENT_AHEAD": EXTENT_AHEAD,
    }
    names.update({part: part in parts for part in PARTS})
    exec(_SOURCE, names)  # noqa: S102 (this file's own source, compiled per rung)
    return njit(names["epoch"])


def datasets():
    X, y = dense_problem(200_000, 100)
    Xs, ys = sparse_problem(100_000, 200_000)
    return {
        "dense float32": (X[:160_000].astype(np.float32), y[:160_000]),
        "dense float64": (X[:160_000], y[:160_000]),
        "sparse CSR": (Xs[:80_000], ys[:80_000]),
    }


def _state(X, averaged):
    n_features, dtype = X.shape[1], X.dtype
    return (
        np.zeros(n_features, dtype),
        np.zeros(1, dtype),
        np.zeros(n_features if averaged else 0, dtype),
        np.zeros(1 if averaged else 0, dtype),
        np.zeros(1, np.int64),
    )


def _one_pass(fresh, step, orders):
    """Seconds per epoch of one pass of ``step(state, order, stream, lookahead)`` over the
    orders from a ``fresh()`` state (zero weights: the same work every pass), and the state
    it left."""
    state = fresh()
    start = time.perf_counter()
    for order, stream, lookahead in orders:
        step(state, order, stream, lookahead)
    return (time.perf_counter() - start) / len(orders), state


def _library_step(X, rows, target, weight, averaged):
    """One epoch of primal_epoch (the built library where it is loaded) for one neuron."""
    primal_epoch = compiled_kernel("primal.primal_epoch")
    positive = np.array([1])
    rule = Rule(1.0, 1.0, False, averaged, PERCEPTRON, 1.0)

    def step(state, order, stream, lookahead):
        w, w0, u, u0, counts = state
        primal_epoch(
            Rows(*rows),
            Targets(target, positive, weight),
            Schedule(order, stream, lookahead),
            Weights(w[None, :], w0, u[None, :], u0, counts),
            None,
            rule,
            Scratch(
                np.zeros((1, 0), X.dtype),
                np.zeros(1),
                np.zeros(1),
                np.zeros(2, np.int64),
                np.zeros(2),
            ),
            np.zeros(1, np.int64),
            Tally(np.zeros(1, np.int64), np.zeros(1), np.zeros(1), np.zeros(1, np.int64)),
            SINGLE,
        )

    return step


def measure(X, y, repeats):
    """Seconds per epoch of every rung and of the library's epochs; checks that rungs 6
    and 7 train primal_epoch's weights, bit for bit."""
    sparse = sp.issparse(X)
    rows = (np.empty((0, 0), X.dtype), (X.data, X.indices, X.indptr)) if sparse else (X, None)
    target = (y == 1).astype(np.int64)
    weight = np.ones(X.shape[0])
    rng = np.random.RandomState(0)
    orders = []
    for _ in range(EPOCHS):  # fresh buffers for each (epoch_order may reuse its own)
        order, stream, lookahead = epoch_order(rng, X.shape[0], "block", sparse=sparse)
        orders.append((order.copy(), stream.copy(), lookahead))
    cases = {}  # name: (fresh, step)
    for name, parts in RUNGS:
        loop = rung(parts)

        def step(state, order, stream, lookahead, loop=loop):
            loop(*rows, target, weight, order, stream, lookahead, *state, np.zeros(2, np.int64))

        cases[name] = (partial(_state, X, "AVERAGE" in parts), step)
    for averaged, label in ((False, LIBRARY), (True, LIBRARY_AVERAGED)):
        step = _library_step(X, rows, target, weight, averaged)
        cases[label] = (partial(_state, X, averaged), step)
    for fresh, step in cases.values():  # compiled (or loaded) before timing
        step(fresh(), *orders[0])
    # in rounds, every case once a round: a busy spell slows them all alike
    seconds = dict.fromkeys(cases, math.inf)
    states = {}
    for _ in range(repeats):
        for name, (fresh, step) in cases.items():
            elapsed, states[name] = _one_pass(fresh, step, orders)
            seconds[name] = min(seconds[name], elapsed)
    for ladder, library in ((RUNGS[5][0], LIBRARY), (RUNGS[6][0], LIBRARY_AVERAGED)):
        for ours, theirs in zip(states[ladder], states[library]):
            if not np.array_equal(ours, theirs):
                raise AssertionError(f"{ladder!r} trains other weights than {library!r}")
    return seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    for data, (X, y) in datasets().items():
        seconds = measure(X, y, args.repeats)
        floor = seconds[RUNGS[0][0]]
        print(f"{data}: ms per epoch, and x rung 1")
        for name, value in seconds.items():
            print(f"  {name:<28} {value * 1e3:8.2f} {value / floor:6.2f}x")


if __name__ == "__main__":
    main()
