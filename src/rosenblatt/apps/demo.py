"""The embedded demo: every algorithm on built-in data, a comparison table and an HTML report.

:func:`run_demo` returns the table's rows; :func:`write_demo_report` draws the
figures and writes them, with the table, into a self-contained ``index.html``.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.config import DEMO_EPOCHS

if TYPE_CHECKING:  # pragma: no cover
    from .report import ReportFigure

OR_X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=float)
OR_Y = np.array([-1, 1, 1, 1])  # Rosenblatt's modified OR (the lecture notes' worked example)
XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
XOR_Y = np.array([0, 1, 1, 0])


@dataclass(frozen=True)
class DemoRow:
    """One line of the demo's comparison table."""

    dataset: str
    algorithm: str
    train_accuracy: float
    test_accuracy: float
    mistakes: int | None  # None: the estimator does not learn from mistakes
    epochs: int | None  # None: not an iterative method
    converged: bool | None  # None: the estimator has no such notion
    seconds: float


def _split(X, y):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)


def demo_datasets() -> Iterator[tuple[str, Any, Any, np.ndarray, np.ndarray]]:
    """Yield ``(name, X_train, X_test, y_train, y_test)`` for the demo's built-in data.

    The lecture notes' modified OR and XOR (trained and tested on their four
    points), the SMS Spam Collection (tf-idf; ``examples/spam_filter.py`` compares
    it with the notes' tf/df weighting, which scores lower), breast cancer
    (standardised) and digits (pixels scaled to [0, 1]), each split 75/25.
    """
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import StandardScaler

    from ..data.datasets import load_sms_spam

    yield "modified OR (lecture notes)", OR_X, OR_X, OR_Y, OR_Y
    yield "XOR", XOR_X, XOR_X, XOR_Y, XOR_Y

    sms = load_sms_spam()
    texts_train, texts_test, y_train, y_test = _split(np.array(sms.data, dtype=object), sms.target)
    vectorizer = TfidfVectorizer()
    X_train = vectorizer.fit_transform(texts_train)
    X_test = vectorizer.transform(texts_test)
    yield "SMS spam (tf-idf, 75/25)", X_train, X_test, y_train, y_test

    X_train, X_test, y_train, y_test = _split(*load_breast_cancer(return_X_y=True))
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    yield "breast cancer (75/25)", X_train, X_test, y_train, y_test

    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = _split(X / 16.0, y)
    yield "digits (75/25)", X_train, X_test, y_train, y_test


def demo_estimators() -> Iterator[tuple[str, Any]]:
    """Yield ``(name, estimator)`` pairs compared by the demo, scikit-learn's as a reference."""
    from sklearn.linear_model import Perceptron as SklearnPerceptron

    from ..estimators.baselines import CentroidClassifier, LinearProgramClassifier
    from ..estimators.kernel import KernelPerceptron
    from ..estimators.linear import AveragedPerceptron, Perceptron, VotedPerceptron

    yield "Perceptron (online)", Perceptron(random_state=0, max_iter=DEMO_EPOCHS)
    yield "Perceptron (batch)", Perceptron(mode="batch", random_state=0, max_iter=DEMO_EPOCHS)
    yield "AveragedPerceptron", AveragedPerceptron(random_state=0, max_iter=DEMO_EPOCHS)
    yield "VotedPerceptron", VotedPerceptron(random_state=0, max_iter=DEMO_EPOCHS)
    yield "KernelPerceptron (rbf)", KernelPerceptron(random_state=0, max_iter=DEMO_EPOCHS)
    yield "CentroidClassifier", CentroidClassifier()
    yield "LinearProgramClassifier", LinearProgramClassifier()
    yield (
        "scikit-learn Perceptron",
        SklearnPerceptron(random_state=0, max_iter=DEMO_EPOCHS, tol=None),
    )


def _row(dataset, name, estimator, X_train, X_test, y_train, y_test):
    """Fit twice and time the second fit: the first one may load (or compile) the
    compiled loops, a once-per-process (or once-per-machine) cost, not the fit's."""
    from sklearn.base import clone
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clone(estimator).fit(X_train, y_train)  # warm-up
        start = time.perf_counter()
        estimator.fit(X_train, y_train)
        seconds = time.perf_counter() - start
    n_mistakes = getattr(estimator, "n_mistakes_", None)
    n_iter = getattr(estimator, "n_iter_", None)
    converged = getattr(estimator, "converged_", None)
    return DemoRow(
        dataset=dataset,
        algorithm=name,
        train_accuracy=float(estimator.score(X_train, y_train)),
        test_accuracy=float(estimator.score(X_test, y_test)),
        mistakes=None if n_mistakes is None else int(n_mistakes),
        epochs=None if n_iter is None else int(np.max(n_iter)),
        converged=None if converged is None else bool(converged),
        seconds=seconds,
    )


def run_demo(datasets: Sequence[str] | None = None) -> list[DemoRow]:
    """Fit every estimator on every demo dataset and return the comparison rows.

    Parameters
    ----------
    datasets : list of str, default=None
        Only the datasets whose names start with one of these (all when None).

    Examples
    --------
    >>> rows = run_demo(datasets=["modified OR", "XOR"])
    >>> [row.test_accuracy for row in rows if row.dataset.startswith("modified OR")]
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    >>> xor = {row.algorithm: row for row in rows if row.dataset == "XOR"}
    >>> xor["Perceptron (online)"].converged, xor["KernelPerceptron (rbf)"].test_accuracy
    (False, 1.0)
    """
    rows = []
    for dataset, X_train, X_test, y_train, y_test in demo_datasets():
        if datasets is not None and not dataset.startswith(tuple(datasets)):
            continue
        for name, estimator in demo_estimators():
            rows.append(_row(dataset, name, estimator, X_train, X_test, y_train, y_test))
    return rows


# ---------------------------------------------------------------------- report
def demo_table(rows: Iterable[DemoRow]) -> tuple[list[str], list[list[str]]]:
    """The comparison table as column names and formatted cells (shared by CLI and report)."""
    columns = [
        "dataset",
        "algorithm",
        "train acc",
        "test acc",
        "mistakes",
        "epochs",
        "converged",
        "fit (s)",
    ]
    cells = [
        [
            row.dataset,
            row.algorithm,
            f"{row.train_accuracy:.3f}",
            f"{row.test_accuracy:.3f}",
            "-" if row.mistakes is None else str(row.mistakes),
            "-" if row.epochs is None else str(row.epochs),
            {True: "yes", False: "no", None: "-"}[row.converged],
            f"{row.seconds:.3f}",
        ]
        for row in rows
    ]
    return columns, cells


def demo_figures(directory: str | os.PathLike[str]) -> list[ReportFigure]:
    """Draw the demo's figures into ``directory``; return them as ReportFigure objects."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import StandardScaler

    from ..estimators.kernel import KernelPerceptron
    from ..estimators.linear import Perceptron
    from .plot import (
        animate_training,
        new_figure,
        plot_decision_boundary,
        plot_mistakes,
        save_figure,
    )
    from .report import ReportFigure

    path = lambda name: os.path.join(directory, name)  # noqa: E731
    figures = []

    or_model = Perceptron(shuffle=False).fit(OR_X, OR_Y)
    ax = plot_decision_boundary(
        or_model, OR_X, OR_Y, title="Modified OR: the perceptron's line and the margin"
    )
    figures.append(
        ReportFigure(
            "Modified OR: decision boundary and margin",
            save_figure(ax.figure, path("or_boundary.png")),
            "The online perceptron (patterns in the lecture notes' order) stops after 3 updates at "
            "w = (1, 1), b = 1. Dotted: parallel lines through the closest pattern of each "
            "class. Green: the maximum-margin hyperplane with its margin band; circled: its "
            "support patterns.",
        )
    )
    for mode in ("online", "batch"):
        name = f"or_training_{mode}.gif"
        animate_training(OR_X, OR_Y, path(name), mode=mode, bias_input=-1.0)
        figures.append(
            ReportFigure(
                f"Modified OR: training in {mode} mode (the lecture notes' worked example)",
                path(name),
                "Successive changes of the separating straight line (threshold input -1, eta = 1), "
                "each side shaded in the colour of the class it predicts (class +1 blue "
                "circles, class -1 orange squares, as in every figure and the playground); "
                "the black arrow points at the pattern responsible for the change"
                + (" (every misclassified pattern of the epoch)." if mode == "batch" else "."),
            )
        )

    fig, axes = new_figure(11.0, 4.5, ncols=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        linear = Perceptron(random_state=0, max_iter=DEMO_EPOCHS).fit(XOR_X, XOR_Y)
    kernel = KernelPerceptron(random_state=0).fit(XOR_X, XOR_Y)
    plot_decision_boundary(
        linear,
        XOR_X,
        XOR_Y,
        ax=axes[0],
        title=f"Perceptron: {linear.score(XOR_X, XOR_Y):.0%} after {linear.n_iter_} epochs",
    )
    plot_decision_boundary(
        kernel,
        XOR_X,
        XOR_Y,
        ax=axes[1],
        title=f"KernelPerceptron (rbf): {kernel.score(XOR_X, XOR_Y):.0%}",
    )
    figures.append(
        ReportFigure(
            "XOR: no line separates it, a kernel does",
            save_figure(fig, path("xor_boundaries.png")),
            "Left: the linear perceptron never converges on XOR. Right: the kernel perceptron "
            "separates the four points with a curved boundary (the dual, kernel form).",
        )
    )

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    _, ax = new_figure(7.0, 4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for label, model in (
            ("online", Perceptron(random_state=0, max_iter=50)),
            ("batch", Perceptron(mode="batch", random_state=0, max_iter=50)),
        ):
            plot_mistakes(model.fit(X, y), ax=ax, label=label)
    ax.set_yscale("log")  # batch mode's first epoch misclassifies all 569 patterns (w = 0)
    ax.set_ylim(5, 1000)
    ax.set_title("Breast cancer (standardised, all 569 samples): mistakes per epoch")
    figures.append(
        ReportFigure(
            "Mistakes per epoch on breast cancer",
            save_figure(ax.figure, path("mistakes_breast_cancer.png")),
            "The data are not linearly separable, so neither mode ever has an epoch without a "
            "mistake and both run all 50 epochs. Online mode counts the updates made pattern by "
            "pattern; batch mode counts the patterns misclassified by the weights of the epoch's "
            "start. (The averaged and voted perceptrons make exactly the online updates.)",
        )
    )
    return figures


def _score_figure(rows, directory):
    from .plot import plot_scores, save_figure
    from .report import ReportFigure

    datasets = list(dict.fromkeys(row.dataset for row in rows))
    algorithms = list(dict.fromkeys(row.algorithm for row in rows))
    scores = np.full((len(datasets), len(algorithms)), np.nan)
    for row in rows:
        scores[datasets.index(row.dataset), algorithms.index(row.algorithm)] = row.test_accuracy
    ax = plot_scores(
        [d.split(" (")[0] for d in datasets],
        algorithms,
        scores,
        title="Test accuracy of every algorithm on every dataset",
    )
    path = save_figure(ax.figure, os.path.join(directory, "test_accuracy.png"))
    return ReportFigure(
        "Test accuracy",
        path,
        "One group of bars per dataset; OR and XOR are tested on their training points.",
    )


def write_demo_report(directory: str | os.PathLike[str], rows: Sequence[DemoRow]) -> str:
    """Write the demo's figures and a self-contained ``index.html`` into ``directory``.

    Returns
    -------
    str
        The path of ``index.html``; the figure files sit beside it.
    """
    from .._core.version import __version__
    from .report import ReportTable, write_report

    os.makedirs(directory, exist_ok=True)
    columns, cells = demo_table(rows)
    table = ReportTable(
        "Every algorithm on built-in data",
        columns,
        cells,
        text_columns=("dataset", "algorithm", "converged"),
        group_by="dataset",
        caption="Mistakes are the updates made in training (over all one-vs-rest "
        "neurons); epochs are passes over the training data (at most 100); fit is the "
        "seconds of a second fit of each model, after a warm-up fit (the first fit of a "
        "process loads the compiled loops).",
    )
    figures = [_score_figure(rows, directory)] + demo_figures(directory)
    return write_report(
        os.path.join(directory, "index.html"),
        "rosenblatt demo report",
        [table],
        figures,
        intro="Perceptron-family classifiers from the lecture notes on linear classification, "
        "run on the data that ships with rosenblatt and scikit-learn.",
        footer=f"Made by rosenblatt {__version__} (`rosenblatt demo`).",
    )
