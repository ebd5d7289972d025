"""The budget policies on scikit-learn's real data sets, beside SVC: what chose the default.

Run: ``.venv/bin/python benchmarks/budget_policies.py``

Breast cancer, wine and digits, standardised, three stratified 75/25 splits
(``random_state=0``), every KernelPerceptron at its defaults (RBF, gamma "scale")
with a budget of 10 support vectors per class; the policies that evict support
vectors run with ``prediction="last"``, which they need. Printed: mean test accuracy.
"""

from __future__ import annotations

import platform
import warnings

import numpy as np
from _machine import cpu_name
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from rosenblatt import KernelPerceptron

DATASETS = {"breast cancer": load_breast_cancer, "wine": load_wine, "digits": load_digits}


def models(budget: int) -> dict[str, object]:
    """Row name -> estimator, for a budget of ``budget`` support vectors."""
    kw = dict(budget=budget, random_state=0)
    return {
        "scikit-learn SVC": SVC(),
        "KernelPerceptron, no budget": KernelPerceptron(random_state=0),
        "stop (averaged, the default)": KernelPerceptron(budget_policy="stop", **kw),
        "stop (last)": KernelPerceptron(budget_policy="stop", prediction="last", **kw),
        "random (last)": KernelPerceptron(budget_policy="random", prediction="last", **kw),
        "forgetron (last)": KernelPerceptron(budget_policy="forgetron", prediction="last", **kw),
    }


def main() -> None:
    print(f"{cpu_name()}, Python {platform.python_version()}; mean test accuracy, 3 splits")
    for name, load in DATASETS.items():
        X, y = load(return_X_y=True)
        X = StandardScaler().fit_transform(X)
        budget = 10 * np.unique(y).shape[0]
        scores: dict[str, list[float]] = {}
        splits = StratifiedShuffleSplit(3, test_size=0.25, random_state=0)
        for train, test in splits.split(X, y):
            for row, model in models(budget).items():
                with warnings.catch_warnings():  # budgeted runs rarely converge
                    warnings.simplefilter("ignore")
                    model.fit(X[train], y[train])
                scores.setdefault(row, []).append(model.score(X[test], y[test]))
        print(f"\n{name} (budget {budget})")
        for row, values in scores.items():
            print(f"  {row:30} {np.mean(values):.3f}")


if __name__ == "__main__":
    main()
