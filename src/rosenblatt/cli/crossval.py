"""``rosenblatt cross-validate``: accuracy of several algorithms over the same folds."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
import typer
from rich.table import Table

from ._common import (
    auto,
    console,
    final_estimator,
    format_option,
    header_option,
    parse_label_column,
    zero_based_option,
)
from .train import ALGORITHMS, make_estimator, model_for

DEFAULT_ALGORITHMS = ("perceptron", "averaged", "voted", "centroid")
# one shared option object: its default is a list, which ruff (B008) keeps out of signatures
_ALGORITHM_OPTION = typer.Option(
    list(DEFAULT_ALGORITHMS),
    "--algorithm",
    "-a",
    help=f"Repeat to compare several: {', '.join(ALGORITHMS)}.",
)


@dataclass
class FoldScores:
    """Test accuracy of one algorithm on each fold."""

    algorithm: str
    accuracy: list
    seconds: float
    converged_folds: int | None

    @property
    def mean(self) -> float:
        return float(np.mean(self.accuracy))

    @property
    def std(self) -> float:
        return float(np.std(self.accuracy))


def cross_validate(
    data_path,
    *,
    algorithms=DEFAULT_ALGORITHMS,
    folds=5,
    epochs=100,
    eta=1.0,
    seed=0,
    scale=True,
    label_column=None,
    zero_based="auto",
    header="auto",
    on_algorithm=None,
    format=None,
) -> list[FoldScores]:
    """Score each algorithm on the same stratified, shuffled folds of ``data_path``.

    Each fold trains the model ``rosenblatt train`` would (text vectorised,
    numeric features standardised unless ``scale`` is False) on the other folds.

    Parameters
    ----------
    data_path : str
    algorithms : sequence of str
        Names as ``--algorithm`` takes them.
    folds : int, default=5
        At least 2, and at most the size of the smallest class.
    epochs, eta, seed, scale, label_column, zero_based, header, format
        As for ``rosenblatt train``; ``seed`` also shuffles the folds.
    on_algorithm : callable(str) or None
        Called before each algorithm (a progress line).

    Returns
    -------
    list of FoldScores
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import StratifiedKFold
    from sklearn.model_selection import cross_validate as sk_cross_validate

    from ..io import read_data

    if folds < 2:
        raise ValueError(f"--folds must be at least 2; got {folds}")
    unknown = [a for a in algorithms if a not in ALGORITHMS]
    if unknown:
        raise ValueError(f"unknown algorithm {unknown[0]!r}; choose from {', '.join(ALGORITHMS)}")
    # built before reading: a bad --max-iter or --eta fails before the file is read
    estimators = [make_estimator(a, epochs=epochs, eta=eta, seed=seed) for a in algorithms]
    data = read_data(
        data_path,
        label_column=label_column,
        zero_based=zero_based,
        header=header,
        format=format,
    )
    _, counts = np.unique(data.y, return_counts=True)
    if counts.min() < folds:
        fix = (
            f"ask for at most {counts.min()} folds (--folds)"
            if counts.min() >= 2
            else "cross-validation needs at least 2 samples of every class"
        )
        raise ValueError(
            f"{data.path}: the smallest class has {counts.min()} sample(s), fewer than the "
            f"{folds} folds; {fix}"
        )
    splitter = StratifiedKFold(folds, shuffle=True, random_state=seed)
    results = []
    for algorithm, estimator in zip(algorithms, estimators):
        if on_algorithm is not None:
            on_algorithm(algorithm)
        model = model_for(data, estimator, scale=scale)
        start = time.perf_counter()
        with warnings.catch_warnings():  # the table counts converged folds instead
            warnings.simplefilter("ignore", ConvergenceWarning)
            scores = sk_cross_validate(
                model, data.X, data.y, cv=splitter, return_estimator=True, error_score="raise"
            )
        converged = [getattr(final_estimator(m), "converged_", None) for m in scores["estimator"]]
        results.append(
            FoldScores(
                algorithm=algorithm,
                accuracy=[float(a) for a in scores["test_score"]],
                seconds=time.perf_counter() - start,
                converged_folds=None if converged[0] is None else int(sum(converged)),
            )
        )
    return results


def score_table(results, folds) -> Table:
    table = Table(title=f"test accuracy over {folds} folds (the same folds for every algorithm)")
    for name in ("algorithm", "mean", "std", "min", "max", "converged folds", "seconds"):
        table.add_column(name, justify="left" if name == "algorithm" else "right")
    for r in results:
        converged = "-" if r.converged_folds is None else f"{r.converged_folds}/{folds}"
        table.add_row(
            r.algorithm,
            f"{r.mean:.4f}",
            f"{r.std:.4f}",
            f"{min(r.accuracy):.4f}",
            f"{max(r.accuracy):.4f}",
            converged,
            f"{r.seconds:.2f}",
        )
    return table


def command(
    data: str = typer.Argument(
        ..., metavar="DATA", help="Labelled data (.csv, .svm/.libsvm/.svmlight, .tsv)."
    ),
    folds: int = typer.Option(5, "--folds", help="Number of folds (stratified, shuffled)."),
    algorithm: list[str] = _ALGORITHM_OPTION,
    epochs: int = typer.Option(
        None, "--max-iter", help="Most passes over the data (default: each estimator's max_iter)."
    ),
    eta: float = typer.Option(1.0, "--eta", help="Learning rate."),
    seed: int = typer.Option(0, "--seed", help="Seed of the folds and of the shuffling."),
    scale: bool = typer.Option(
        True, "--scale/--no-scale", help="Standardise numeric features (as train does)."
    ),
    label_column: str | None = typer.Option(
        None, "--label-column", help="CSV: label column by header name or 0-based index."
    ),
    zero_based: bool | None = zero_based_option(),
    header: bool | None = header_option(),
    data_format: str | None = format_option(),
) -> None:
    """Mean and spread of the test accuracy of each algorithm over the same folds of DATA."""
    with console.status("cross-validating...") as status:
        results = cross_validate(
            data,
            algorithms=algorithm,
            folds=folds,
            epochs=epochs,
            eta=eta,
            seed=seed,
            scale=scale,
            label_column=parse_label_column(label_column),
            zero_based=auto(zero_based),
            header=auto(header),
            format=data_format,
            on_algorithm=lambda name: status.update(f"cross-validating {name} ({folds} folds)..."),
        )
    console.print(score_table(results, folds))
