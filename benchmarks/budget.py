"""Kernel perceptrons on a budget against scikit-learn's kernel machines, side by side.

One synthetic task a new user might try: ``make_classification`` with 20 features
(10 informative), 5 % of the labels flipped, a stratified 75/25 split, at each
size asked for. Rows: scikit-learn's ``SVC`` (RBF), ``Nystroem`` (300 components)
followed by ``Perceptron`` or ``SGDClassifier`` (hinge loss), the unbudgeted
``KernelPerceptron``, the three budget policies and the Projectron, every one with
the RBF kernel and gamma = 1 / (n_features * X.var()) ("scale"). Printed per row:
test accuracy, fit seconds, predict seconds (the test set), support vectors (or
components). The quadratic learners (SVC, the unbudgeted kernel perceptron) are
skipped above ``--quadratic-limit`` rows, and say so.

Run with ``python benchmarks/budget.py [--sizes 10000 100000] [--budget 500]``.
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings

import numpy as np
from _machine import cpu_name
from sklearn.datasets import make_classification
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from rosenblatt import KernelPerceptron, Projectron


def learners(budget: int, gamma: float, epochs: int) -> dict[str, tuple[object, bool]]:
    """Row name -> (estimator, quadratic in the rows)."""
    kernel = dict(kernel="rbf", gamma=gamma)
    ours = dict(max_iter=epochs, random_state=0, **kernel)
    return {
        "sklearn SVC": (SVC(**kernel), True),
        "sklearn Nystroem(300) + Perceptron": (
            make_pipeline(
                Nystroem(n_components=300, random_state=0, **kernel),
                SklearnPerceptron(random_state=0),
            ),
            False,
        ),  # fmt: skip
        "sklearn Nystroem(300) + SGDClassifier": (
            make_pipeline(
                Nystroem(n_components=300, random_state=0, **kernel), SGDClassifier(random_state=0)
            ),
            False,
        ),  # fmt: skip
        "KernelPerceptron (no budget)": (KernelPerceptron(**ours), True),
        f"KernelPerceptron budget={budget} stop": (
            KernelPerceptron(budget=budget, budget_policy="stop", **ours),
            False,
        ),  # fmt: skip
        f"KernelPerceptron budget={budget} random": (
            KernelPerceptron(budget=budget, budget_policy="random", prediction="last", **ours),
            False,
        ),
        f"KernelPerceptron budget={budget} forgetron": (
            KernelPerceptron(budget=budget, budget_policy="forgetron", prediction="last", **ours),
            False,
        ),
        "Projectron (0.1)": (Projectron(max_projection_error=0.1, **ours), False),
        "Projectron++ (0.1)": (Projectron(max_projection_error=0.1, plus=True, **ours), False),
    }


def support_size(model: object) -> int:
    last = model[-1] if hasattr(model, "steps") else model
    if hasattr(last, "support_"):
        return len(last.support_)
    return model[0].n_components if hasattr(model, "steps") else -1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--budget", type=int, default=500)
    parser.add_argument("--quadratic-limit", type=int, default=20_000)
    parser.add_argument(
        "--epochs", type=int, default=10, help="max_iter of the perceptrons (default 10)"
    )
    args = parser.parse_args(argv)
    print(f"{cpu_name()}, Python {platform.python_version()}")
    for n in args.sizes:
        X, y = make_classification(
            n_samples=n, n_features=20, n_informative=10, flip_y=0.05, random_state=0
        )
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.25, stratify=y, random_state=0
        )
        gamma = 1.0 / (X_train.shape[1] * X_train.var())
        print(
            f"\n{n:,} rows x 20 features (train {len(y_train):,}, test {len(y_test):,}), "
            f"perceptrons: max_iter={args.epochs}"
        )
        print(f"{'learner':40} {'accuracy':>8} {'fit s':>8} {'predict s':>9} {'SVs':>7}")
        for name, (model, quadratic) in learners(args.budget, gamma, args.epochs).items():
            if quadratic and n > args.quadratic_limit:
                print(f"{name:40} skipped: quadratic in the rows above {args.quadratic_limit:,}")
                continue
            with warnings.catch_warnings():  # noisy data: the perceptrons do not converge
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                model.fit(X_train, y_train)
                fit_s = time.perf_counter() - start
            start = time.perf_counter()
            accuracy = float(np.mean(model.predict(X_test) == y_test))
            predict_s = time.perf_counter() - start
            print(
                f"{name:40} {accuracy:8.3f} {fit_s:8.2f} {predict_s:9.2f} {support_size(model):7d}"
            )


if __name__ == "__main__":
    main()
