"""One pass for M neurons against M passes: a label matrix against MultiOutputClassifier.

Run: ``.venv/bin/python benchmarks/multilabel.py [--quick] [--repeats N]``

The lecture notes' layer of M independent neurons: ``Perceptron().fit(X, Y)`` with an
(n_samples, M) 0/1 indicator matrix ``Y`` trains the M neurons in one pass over the
data (each pattern read once for all of them), where scikit-learn's
``MultiOutputClassifier(Perceptron())`` fits M binary perceptrons, one pass over the
data each. Both give the same neurons, bit for bit (checked here on every problem:
the predictions and the weights must be equal); the ratio is MultiOutputClassifier's
seconds over the one pass's (> 1: the one pass is faster).

Every fit runs a fixed number of shuffled epochs (``tol=None``, data that no neuron
separates in that many epochs), on one thread, after one warm-up fit of each (the
compiled loops are cached). Each row is the median of ``--repeats`` fits, timed in
rounds (both ways once per round) so that a busy spell on a shared machine slows
both alike.

Problems: scikit-learn's digits with three labels, "is even", "is > 4", "is prime"
(1797 x 64), and ``make_multilabel_classification`` (dense, float64; float32 and CSR
forms too, unless ``--quick``).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
import warnings

import numpy as np
import scipy.sparse as sp
from _machine import cpu_name
from sklearn.datasets import load_digits, make_multilabel_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.multioutput import MultiOutputClassifier

from rosenblatt import AveragedPerceptron, Perceptron


def digits():
    X, digit = load_digits(return_X_y=True)
    Y = np.column_stack([digit % 2 == 0, digit > 4, np.isin(digit, [2, 3, 5, 7])])
    return X, Y.astype(int)


def synthetic(n_samples, n_features, n_labels):
    X, Y = make_multilabel_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_classes=n_labels,
        n_labels=3,
        random_state=0,
    )
    return X.astype(np.float64), Y


def timed(fit):
    start = time.perf_counter()
    model = fit()
    return time.perf_counter() - start, model


def compare(name, X, Y, cls, epochs, repeats):
    params = {"max_iter": epochs, "tol": None, "random_state": 0}

    def one_pass():
        return cls(**params).fit(X, Y)

    def separate():
        return MultiOutputClassifier(cls(**params)).fit(X, Y)

    layer, outputs = one_pass(), separate()  # warm-up, and the check
    if not np.array_equal(layer.predict(X), outputs.predict(X)) or not all(
        np.array_equal(layer.coef_[m], e.coef_[0]) for m, e in enumerate(outputs.estimators_)
    ):
        raise AssertionError(f"{name}: the one pass and the M fits differ")
    ours, theirs = [], []
    for _ in range(repeats):
        ours.append(timed(one_pass)[0])
        theirs.append(timed(separate)[0])
    a, b = statistics.median(ours), statistics.median(theirs)
    print(
        f"{name:<44} {cls.__name__:<19} M={Y.shape[1]:<3} {epochs:>3} ep  "
        f"one pass {a * 1e3:9.1f} ms   M passes {b * 1e3:9.1f} ms   ratio {b / a:5.2f}x   "
        "equal: yes"
    )
    return b / a


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer problems, fewer repeats")
    parser.add_argument("--repeats", type=int, default=None, help="timed fits per row")
    args = parser.parse_args(argv)
    repeats = args.repeats or (3 if args.quick else 7)
    warnings.simplefilter("ignore", ConvergenceWarning)
    print(f"{cpu_name()}, Python {platform.python_version()}, one thread, median of {repeats}")
    X, Y = digits()
    compare("digits: even, > 4, prime (1797 x 64)", X, Y, Perceptron, 20, repeats)
    compare("digits: even, > 4, prime (1797 x 64)", X, Y, AveragedPerceptron, 20, repeats)
    n = 20_000 if args.quick else 50_000
    X, Y = synthetic(n, 100, 10)
    shape = f"({n} x 100)"
    compare(f"make_multilabel_classification {shape}", X, Y, Perceptron, 10, repeats)
    if not args.quick:
        compare(f"  float32 {shape}", X.astype(np.float32), Y, Perceptron, 10, repeats)
        compare(f"  CSR {shape}", sp.csr_matrix(X), Y, Perceptron, 10, repeats)
        X, Y = synthetic(n, 100, 30)
        compare(f"make_multilabel_classification {shape}", X, Y, Perceptron, 10, repeats)


if __name__ == "__main__":
    main()
