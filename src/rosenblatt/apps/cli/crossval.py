"""``rosenblatt cross-validate``: accuracy of several algorithms over the same folds."""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ._common import (
    auto,
    console,
    erased_on_error,
    err_console,
    final_estimator,
    id_columns_of,
    names_option,
    parse_label_column,
    working,
)
from ._options import (
    Algorithms,
    Data,
    Eta,
    Folds,
    Format,
    Header,
    IdColumn,
    Ignore,
    Json,
    LabelColumn,
    MaxIter,
    NJobs,
    Scale,
    Seed,
    ZeroBased,
    more_help,
)
from .train import ALGORITHMS, make_estimator, model_for, rows_of

DEFAULT_ALGORITHMS = ("perceptron", "averaged", "voted", "centroid")
# --algorithm's default: a list, which ruff (B006) keeps out of the signature itself
_DEFAULT_ALGORITHM_LIST = list(DEFAULT_ALGORITHMS)


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
    epochs: int | None = 100,
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


# cross-validate's own words on the options it shares
_Data = Annotated[str, more_help(Data, "Labelled.")]
_MaxIter = Annotated[int | None, more_help(MaxIter, "Default: each estimator's max_iter.")]
_Seed = Annotated[int, more_help(Seed, "Also of the folds.")]
_Scale = Annotated[bool, more_help(Scale, "As train does.")]
_NJobs = Annotated[int | None, more_help(NJobs, "Folds fitted at once, each in its own process.")]
_Json = Annotated[
    bool,
    more_help(
        Json,
        'It is {"folds": K, "results": [...]}, instead of the table: per algorithm its mean, '
        "std, min and max test accuracy, each fold's, its converged folds (null: not "
        "iterative) and seconds.",
    ),
]


def command(
    data: _Data,
    folds: Folds = 5,
    algorithm: Algorithms = _DEFAULT_ALGORITHM_LIST,
    epochs: _MaxIter = None,
    eta: Eta = 1.0,
    seed: _Seed = 0,
    scale: _Scale = True,
    label_column: LabelColumn = None,
    zero_based: ZeroBased = None,
    header: Header = None,
    data_format: Format = None,
    n_jobs: _NJobs = None,
    id_column: IdColumn = None,
    ignore: Ignore = None,
    as_json: _Json = False,
) -> None:
    """Mean and spread of the test accuracy of each algorithm over the same folds of DATA."""
    _run(**locals())


def _run(
    data: str,
    *,
    folds: int,
    algorithm: list[str],
    epochs: int | None,
    eta: float,
    seed: int,
    scale: bool,
    label_column: str | None,
    zero_based: bool | None,
    header: bool | None,
    data_format: str | None,
    n_jobs: int | None,
    id_column: list[str] | None,
    ignore: str | None,
    as_json: bool,
) -> None:
    """What ``rosenblatt cross-validate`` does with its options: cross-validate, counting
    the folds on standard error, then print the table (or ``as_json``)."""
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
