"""The embedded demo job: every perceptron on built-in data, as rows of a comparison table."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DemoRow:
    """One line of the demo's comparison table."""

    dataset: str
    algorithm: str
    train_accuracy: float
    test_accuracy: float
    mistakes: int
    epochs: int
    converged: bool | None  # None: the estimator has no such notion
    seconds: float


def demo_datasets():
    """Yield ``(name, X_train, X_test, y_train, y_test)`` for the demo's built-in data."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    or_X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=float)
    or_y = np.array([-1, 1, 1, 1])
    yield "modified OR (seed 003)", or_X, or_X, or_y, or_y

    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, stratify=y, random_state=0
    )
    scaler = StandardScaler().fit(X_train)
    yield "breast cancer (75/25)", scaler.transform(X_train), scaler.transform(X_test), y_train, y_test


def demo_estimators():
    """Yield ``(name, estimator)`` pairs compared by the demo, scikit-learn's as a reference."""
    from sklearn.linear_model import Perceptron as SklearnPerceptron

    from .linear import AveragedPerceptron, Perceptron, VotedPerceptron

    yield "Perceptron (online)", Perceptron(random_state=0, max_iter=100)
    yield "Perceptron (batch)", Perceptron(mode="batch", random_state=0, max_iter=100)
    yield "AveragedPerceptron", AveragedPerceptron(random_state=0, max_iter=100)
    yield "VotedPerceptron", VotedPerceptron(random_state=0, max_iter=100)
    yield "scikit-learn Perceptron", SklearnPerceptron(random_state=0, max_iter=100, tol=None)


def run_demo() -> list[DemoRow]:
    """Fit every estimator on every demo dataset and return the comparison rows.

    Examples
    --------
    >>> rows = run_demo()
    >>> [row.test_accuracy for row in rows if row.dataset.startswith("modified OR")]
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    from sklearn.exceptions import ConvergenceWarning

    rows = []
    for dataset, X_train, X_test, y_train, y_test in demo_datasets():
        for name, estimator in demo_estimators():
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                estimator.fit(X_train, y_train)
            seconds = time.perf_counter() - start
            n_mistakes = getattr(estimator, "n_mistakes_", None)
            epochs = int(np.max(estimator.n_iter_))
            converged = getattr(estimator, "converged_", None)
            rows.append(DemoRow(
                dataset=dataset,
                algorithm=name,
                train_accuracy=float(estimator.score(X_train, y_train)),
                test_accuracy=float(estimator.score(X_test, y_test)),
                mistakes=-1 if n_mistakes is None else int(n_mistakes),
                epochs=epochs,
                converged=None if converged is None else bool(converged),
                seconds=seconds,
            ))
    return rows
