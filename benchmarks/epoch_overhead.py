"""The Python around one epoch: a fit of k epochs against one of k + K on tiny data.

Run: ``.venv/bin/python benchmarks/epoch_overhead.py [--epochs K] [--repeats R]``

On data of 8 rows of 2 features that no line separates (XOR, twice), a ``Perceptron``
with ``tol=None`` runs every epoch it is allowed; an epoch's compiled work is then a few
dozen nanoseconds, and what a fit of ``1 + K`` epochs costs over one of 1 epoch, divided
by ``K``, is the cost of one more epoch: all but nothing of it arithmetic, the rest the
code around the epoch. Two paths, as a fit takes them (issue 46):

- **one call**: no ``on_epoch``, no ``verbose``, no early stopping: the epochs run in
  one compiled call (:func:`rosenblatt.engine.kernels.primal.primal_epochs`), the orders
  drawn and the stop rule applied in there;
- **epoch by epoch**: the same fit with an ``on_epoch`` that does nothing: the epoch
  driver runs each epoch from Python (the compiled ``primal_epoch``, the epoch's order
  and checks, the stop rule, the callback's report).

Each figure is the median of ``R`` fits (the two paths and both lengths alternating, so
that a busy spell on a shared machine slows them alike; each timed fit right after an
untimed one of the same kind, so that it does not pay for what the fit before left behind:
a fit of 1,001 epochs one by one leaves the garbage collector work that the next fit would
do); the fit of 1 epoch is the fixed cost of a fit of this size (the checks of the
arguments, the state, the public weights).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np
from _machine import cpu_name
from sklearn.exceptions import ConvergenceWarning

from rosenblatt import Perceptron

X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 2, dtype=float) * 2 - 1
Y = np.array([0, 1, 1, 0] * 2)


def _nothing(report):
    """An ``on_epoch`` that does nothing: the epochs run one by one."""


def _fit_seconds(epochs: int, one_call: bool) -> float:
    model = Perceptron(max_iter=epochs, tol=None, random_state=0)
    if not one_call:
        model.set_params(on_epoch=_nothing)
    start = time.perf_counter()
    model.fit(X, Y)
    seconds = time.perf_counter() - start
    assert model.n_iter_ == epochs
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=1000, help="K, the epochs added")
    parser.add_argument("--repeats", type=int, default=101, help="fits per figure")
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    paths = {"one call": True, "epoch by epoch": False}
    lengths = (1, 1 + args.epochs)
    times: dict[tuple[str, int], list[float]] = {(p, k): [] for p in paths for k in lengths}
    for path in paths:  # warm-up: the kernels loaded, numpy's and the package's caches filled
        for k in lengths:
            _fit_seconds(k, paths[path])
    for _ in range(args.repeats):
        for path in paths:
            for k in lengths:
                _fit_seconds(k, paths[path])  # untimed: what ran before (caches, the
                times[path, k].append(_fit_seconds(k, paths[path]))  # collector) left alike
    print(f"CPU: {cpu_name()}; {args.repeats} fits per figure, medians; data 8 x 2 (XOR)")
    print(f"| path | fit of 1 epoch | fit of {lengths[1]} epochs | one more epoch |")
    print("|---|---|---|---|")
    for path in paths:
        one, many = (statistics.median(times[path, k]) for k in lengths)
        per_epoch = (many - one) / args.epochs
        print(f"| {path} | {one * 1e6:.0f} us | {many * 1e3:.2f} ms | {per_epoch * 1e6:.2f} us |")


if __name__ == "__main__":
    main()
