"""The kernel learners at their defaults, on real data, against SVC and Nystroem + averaged SGD.

Run: ``.venv/bin/python benchmarks/kernel_defaults.py [--only DATASET] [--estimators KEY,...]
[--set NAME=VALUE] [--splits N]``

Estimators (``--estimators``, comma-separated keys): ``kernel``
(``KernelPerceptron()``), ``kernel-budget`` (``KernelPerceptron(budget=500)``),
``projectron`` (``Projectron()``), ``svc`` (``SVC()``) and ``nystroem``
(``Nystroem()`` then ``SGDClassifier(average=True)``, scikit-learn's usual
approximate kernel machine), each at its defaults with ``random_state`` set to the
split's index. ``--set NAME=VALUE`` (repeatable, read by ``ast.literal_eval``)
overrides a parameter of every rosenblatt learner that has it, to try candidate
defaults in the same run as SVC.

Data (``--only``, repeatable): ``digits`` and ``breast-cancer`` (scikit-learn's
copies), ``spambase`` (``../shared/data/spambase55.csv`` beside the repository),
``synthetic`` (``make_classification(10000, 20, flip_y=0.05, random_state=1)``),
each standardised by a ``StandardScaler`` fitted on the training part of
``StratifiedShuffleSplit(n_splits=3, test_size=0.25, random_state=0)``.

The splits are the rounds (every estimator fitted once per round, so that a busy
spell on a shared machine slows all of them alike); after one untimed warm-up fit
of the rosenblatt learners on a small set (numba's compilation or cache load is not
counted). Per estimator and data set: the mean test accuracy, the median seconds of
``fit``, that median over SVC's measured in the same round (``x SVC``), the median
number of support vectors (``len(support_)``, or the Nystroem components) and of
epochs (``n_iter_``). Targets: ``x SVC <= 10`` for every rosenblatt learner, and the
budgeted learners within 0.03 of SVC's accuracy (a miss is printed, not hidden).
"""

from __future__ import annotations

import argparse
import ast
import statistics
import time
import warnings
from pathlib import Path

import numpy as np
import sklearn
from _machine import cpu_name
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import rosenblatt
from rosenblatt import KernelPerceptron, Projectron

SPAMBASE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "spambase55.csv"
TIME_FACTOR = 10.0
ACCURACY_SLACK = 0.03


def _spambase():
    table = np.loadtxt(SPAMBASE, delimiter=",", skiprows=1)
    return table[:, :-1], table[:, -1].astype(int)


DATASETS = {
    "digits": lambda: load_digits(return_X_y=True),
    "breast-cancer": lambda: load_breast_cancer(return_X_y=True),
    "spambase": _spambase,
    "synthetic": lambda: make_classification(10000, 20, flip_y=0.05, random_state=1),
}

# key -> (label, factory, rosenblatt's, budgeted)
ESTIMATORS = {
    "kernel": ("KernelPerceptron()", KernelPerceptron, True, False),
    "kernel-budget": (
        "KernelPerceptron(budget=500)",
        lambda: KernelPerceptron(budget=500),
        True,
        True,
    ),
    "projectron": ("Projectron()", Projectron, True, True),
    "svc": ("SVC()", SVC, False, False),
    "nystroem": (
        "Nystroem + SGD(average=True)",
        lambda: make_pipeline(Nystroem(), SGDClassifier(average=True)),
        False,
        False,
    ),
}


def build(key, seed, overrides):
    model = ESTIMATORS[key][1]()
    params = model.get_params()
    wanted = {k: v for k, v in overrides.items() if ESTIMATORS[key][2] and k in params}
    for name in params:
        if name == "random_state" or name.endswith("__random_state"):
            wanted[name] = seed
    return model.set_params(**wanted)


def support(model):
    if hasattr(model, "support_"):
        return len(model.support_)
    return model[0].n_components


def epochs(model):
    n_iter = getattr(model, "n_iter_", None)
    if n_iter is None and hasattr(model, "steps"):
        n_iter = getattr(model[-1], "n_iter_", None)
    return None if n_iter is None else int(np.max(n_iter))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=sorted(DATASETS))
    parser.add_argument("--estimators", default=",".join(ESTIMATORS))
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--splits", type=int, default=3)
    args = parser.parse_args()
    overrides = {}
    for item in args.set:
        name, _, text = item.partition("=")
        try:
            overrides[name] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            overrides[name] = text
    keys = [k for k in args.estimators.split(",") if k]
    keys = ["svc"] + [k for k in keys if k != "svc"]  # the ratios: to SVC's time in the round
    print(
        f"rosenblatt {rosenblatt.__version__}, scikit-learn {sklearn.__version__}, "
        f"numpy {np.__version__}; CPU: {cpu_name()}"
    )
    print(f"overrides: {overrides or 'none (defaults)'}; {args.splits} stratified splits\n")
    warm_X, warm_y = make_classification(200, 5, random_state=0)
    for key in keys:  # untimed: numba's compilation or cache load
        if ESTIMATORS[key][2]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                build(key, 0, overrides).fit(warm_X, warm_y)
    misses = []
    for name in args.only or list(DATASETS):
        X, y = DATASETS[name]()
        cv = StratifiedShuffleSplit(n_splits=args.splits, test_size=0.25, random_state=0)
        rows = {
            k: {"acc": [], "sec": [], "ratio": [], "sv": [], "ep": [], "warned": 0} for k in keys
        }
        for seed, (train, test) in enumerate(cv.split(X, y)):
            scaler = StandardScaler().fit(X[train])
            X_train, X_test = scaler.transform(X[train]), scaler.transform(X[test])
            svc_seconds = None
            for key in keys:
                model = build(key, seed, overrides)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", ConvergenceWarning)
                    start = time.perf_counter()
                    model.fit(X_train, y[train])
                    seconds = time.perf_counter() - start
                row = rows[key]
                row["warned"] += any(issubclass(w.category, ConvergenceWarning) for w in caught)
                row["acc"].append(model.score(X_test, y[test]))
                row["sec"].append(seconds)
                svc_seconds = seconds if key == "svc" else svc_seconds
                row["ratio"].append(seconds / svc_seconds)
                row["sv"].append(support(model))
                row["ep"].append(epochs(model))
        print(f"{name}: {X.shape[0]} rows, {X.shape[1]} features, {len(np.unique(y))} classes")
        print(f"  {'estimator':34s} {'accuracy':>8s} {'fit s':>8s} {'x SVC':>7s} "
              f"{'support':>8s} {'epochs':>6s} {'warned':>6s}")  # fmt: skip
        svc_accuracy = float(np.mean(rows["svc"]["acc"]))
        for key in keys:
            row = rows[key]
            accuracy, ratio = float(np.mean(row["acc"])), statistics.median(row["ratio"])
            ep = [e for e in row["ep"] if e is not None]
            print(
                f"  {ESTIMATORS[key][0]:34s} {accuracy:8.3f} {statistics.median(row['sec']):8.2f} "
                f"{ratio:7.1f} {statistics.median(row['sv']):8.0f} "
                f"{statistics.median(ep) if ep else '-':>6} {row['warned']:>6d}"
            )
            if ESTIMATORS[key][2] and ratio > TIME_FACTOR:
                misses.append(f"{name}: {ESTIMATORS[key][0]} fits in {ratio:.1f} x SVC's time")
            if ESTIMATORS[key][3] and accuracy < svc_accuracy - ACCURACY_SLACK:
                misses.append(
                    f"{name}: {ESTIMATORS[key][0]} scores {accuracy:.3f}, "
                    f"{svc_accuracy - accuracy:.3f} below SVC's {svc_accuracy:.3f}"
                )
        print()
    print("TARGETS: " + ("all met" if not misses else "missed:\n  " + "\n  ".join(misses)))


if __name__ == "__main__":
    main()
