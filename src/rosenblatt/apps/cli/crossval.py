"""``rosenblatt cross-validate``: accuracy of several algorithms over the same folds."""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ._common import (
    auto,
    console,
    erased_on_error,
    err_console,
    final_estimator,
    format_option,
    header_option,
    id_column_option,
    id_columns_of,
    ignore_option,
    names_option,
    parse_label_column,
    working,
    zero_based_option,
)
from .train import ALGORITHMS, make_estimator, model_for, rows_of

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

    def to_json(self) -> dict:
        """One algorithm's entry of ``--json``: what its row of the table says, and the
        accuracy of every fold.

        Examples
        --------
        >>> FoldScores("lp", [1.0, 0.5], 0.25, None).to_json()  # doctest: +NORMALIZE_WHITESPACE
        {'algorithm': 'lp', 'mean': 0.75, 'std': 0.25, 'min': 0.5, 'max': 1.0,
         'accuracy': [1.0, 0.5], 'converged_folds': None, 'seconds': 0.25}
        """
        return {
            "algorithm": self.algorithm,
            "mean": self.mean,
            "std": self.std,
            "min": min(self.accuracy),
            "max": max(self.accuracy),
            "accuracy": list(self.accuracy),
            "converged_folds": self.converged_folds,
            "seconds": self.seconds,
        }


def cross_validate(
    data_path: str | os.PathLike[str],
    *,
    algorithms: Sequence[str] = DEFAULT_ALGORITHMS,
    folds: int = 5,
    epochs: int = 100,
    eta: float = 1.0,
    seed: int = 0,
    scale: bool = True,
    label_column: str | int | None = None,
    zero_based: bool | str = "auto",
    header: bool | str = "auto",
    on_fold: Callable[[str, int, int], Any] | None = None,
    format: str | None = None,
    n_jobs: int | None = None,
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
) -> list[FoldScores]:
    """Score each algorithm on the same stratified, shuffled folds of ``data_path``.

    Each fold trains the model ``rosenblatt train`` would (text vectorised,
    numeric features standardised unless ``scale`` is False) on the other folds.
    The fits are independent: ``n_jobs`` runs that many at once (joblib's processes),
    with the same results.

    Parameters
    ----------
    data_path : str
    algorithms : sequence of str
        Names as ``--algorithm`` takes them.
    folds : int, default=5
        At least 2, and at most the size of the smallest class.
    epochs, eta, seed, scale, label_column, zero_based, header, format, id_columns, ignore
        As for ``rosenblatt train``; ``seed`` also shuffles the folds.
    on_fold : callable(str, int, int) or None
        ``on_fold(algorithm, done, folds)``: with ``done`` 0 for every algorithm once
        the data are read, then after each fold, in order (a progress counter).
    n_jobs : int or None, default=None
        Folds fitted at once (None: one; -1: one per core).

    Returns
    -------
    list of FoldScores
        One per algorithm (each named once); ``seconds``: its folds' fits and scoring,
        added up.
    """
    from joblib import Parallel, delayed
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold

    from ...data.io import read_data

    if folds < 2:
        raise ValueError(f"--folds must be at least 2; got {folds}")
    algorithms = list(dict.fromkeys(algorithms))  # the same algorithm twice: the same scores
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
        id_columns=id_columns,
        ignore=ignore,
    )
    assert data.y is not None  # read labelled
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
    splits = list(splitter.split(np.zeros(data.n_samples), data.y))  # the labels decide
    models = [model_for(data, estimator, scale=scale) for estimator in estimators]
    work = [(a, k) for a in range(len(algorithms)) for k in range(folds)]
    for algorithm in algorithms:
        if on_fold is not None:
            on_fold(algorithm, 0, folds)
    outcomes = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_fit_and_score)(clone(models[a]), data.X, data.y, *splits[k]) for a, k in work
    )
    done: list[list] = [[] for _ in algorithms]
    for (a, _), outcome in zip(work, outcomes):
        done[a].append(outcome)
        if on_fold is not None:
            on_fold(algorithms[a], len(done[a]), folds)
    results = []
    for algorithm, outcome in zip(algorithms, done):
        accuracy, seconds, converged = zip(*outcome)
        results.append(
            FoldScores(
                algorithm=algorithm,
                accuracy=list(accuracy),
                seconds=float(sum(seconds)),
                converged_folds=None if converged[0] is None else int(sum(converged)),
            )
        )
    return results


def _fit_and_score(model, X, y, train, test):
    """One fold: ``(test accuracy, seconds, converged or None)`` of ``model`` fitted on
    the ``train`` rows (run in a joblib worker when ``n_jobs`` asks for several)."""
    from sklearn.exceptions import ConvergenceWarning

    start = time.perf_counter()
    with warnings.catch_warnings():  # the table counts converged folds instead
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(rows_of(X, train), y[train])
    accuracy = float(np.mean(model.predict(rows_of(X, test)) == y[test]))
    converged = getattr(final_estimator(model), "converged_", None)
    return accuracy, time.perf_counter() - start, None if converged is None else bool(converged)


def score_table(results: Sequence[FoldScores], folds: int) -> Table:
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


# --id-column, repeatable: a list, hence a module-level default (ruff's B008)
_ID_COLUMN = id_column_option()


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
    n_jobs: int | None = typer.Option(
        None, "--n-jobs", help="Folds fitted at once, each in its own process (-1: all cores)."
    ),
    id_column: list[str] | None = _ID_COLUMN,
    ignore: str | None = ignore_option(),
    as_json: bool = typer.Option(
        False,
        "--json",
        help='Print {"folds": K, "results": [...]} as JSON instead of the table: per algorithm '
        "its mean, std, min and max test accuracy, each fold's, its converged folds (null: "
        "not iterative) and seconds.",
    ),
) -> None:
    """Mean and spread of the test accuracy of each algorithm over the same folds of DATA."""
    # standard error: a spinner while the data are read, then a fold counter per algorithm
    progress = Progress(
        TextColumn("[bold]{task.description}[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("folds"),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
    )
    tasks: dict = {}
    reading = working(f"reading {data}...")

    def on_fold(name, done, total):
        if not tasks:  # the data are read: the counters replace the spinner
            reading.stop()
            progress.start()
        if name not in tasks:
            tasks[name] = progress.add_task(name, total=total)
        progress.update(tasks[name], completed=done)

    reading.start()
    try:
        with erased_on_error(progress):
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
                on_fold=on_fold,
                n_jobs=n_jobs,
                id_columns=id_columns_of(id_column),
                ignore=names_option(ignore),
            )
    finally:
        reading.stop()
        if tasks:
            progress.stop()
    if as_json:  # the fold counters stay on standard error
        print(json.dumps({"folds": folds, "results": [r.to_json() for r in results]}))
        return
    console.print(score_table(results, folds))
