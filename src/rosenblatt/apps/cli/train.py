"""``rosenblatt train``: fit a classifier on a data file and save it.

The command and :func:`train` (in memory) live here; beside them, one job each:
the estimator from the options (``_estimators``), streamed training
(``_train_stream``), the summary (``_train_summary``) and the progress bars
(``_train_progress``). Their names stay importable from here.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import numpy as np
import typer
from rich.markup import escape

from ..._core.config import (
    CALIBRATION_METHODS,
    DEFAULT_CHECKPOINT_ROWS,
    DEFAULT_CHUNK_SIZE,
    DEFAULT_STREAM_EPOCHS,
    ONLINE_CALIBRATION,
)
from ..._core.files import check_writable
from ._common import (
    auto,
    check_chunk_size,
    err_console,
    final_estimator,
    format_option,
    header_option,
    id_column_option,
    id_columns_of,
    ignore_option,
    jsonable,
    names_option,
    parse_label_column,
    working,
    zero_based_option,
)
from ._estimators import (
    ALGORITHMS,
    ITERATIVE,
    OPTION_USERS,
    make_estimator,
    model_for,
    text_features,
)
from ._train_progress import fit_with_epoch_progress, fit_with_stream_progress, no_stage
from ._train_stream import train_streamed
from ._train_summary import (
    VOTE_SCORE_PAIRS,
    TrainResult,
    rows_of,
    scored_rows,
    summary_json,
    summary_table,
    training_accuracy,
    vote_updates,
)
from ._words import in_option_words

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.driver import EpochReport

__all__ = [
    "ALGORITHMS",
    "ITERATIVE",
    "OPTION_USERS",
    "VOTE_SCORE_PAIRS",
    "TrainResult",
    "command",
    "make_estimator",
    "model_for",
    "name_features",
    "rows_of",
    "scored_rows",
    "summary_json",
    "summary_table",
    "text_features",
    "train",
    "train_streamed",
    "training_accuracy",
    "vote_updates",
]


def train(
    data_path: str | os.PathLike[str],
    model_path: str | os.PathLike[str],
    *,
    algorithm: str = "perceptron",
    epochs: int | None = None,
    eta: float = 1.0,
    seed: int = 0,
    label_column: str | int | None = None,
    on_epoch: Callable[[EpochReport], Any] | None = None,
    zero_based: bool | str = "auto",
    header: bool | str = "auto",
    scale: bool = True,
    options: dict[str, Any] | None = None,
    format: str | None = None,
    calibrate: str | None = None,
    evaluate: bool = True,
    stage: Callable[[str], AbstractContextManager[Any]] | None = None,
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
) -> TrainResult:
    """Read ``data_path``, fit the chosen algorithm and save the model to ``model_path``.

    A ``.tsv`` text file is vectorised first and saved together with its
    vectorizer, as a scikit-learn pipeline, so the model predicts from raw text.
    Numeric features are standardised by a ``StandardScaler`` fitted on the
    training data and saved in the same way (sparse rows are scaled, not
    centred), unless ``scale`` is False.

    Parameters
    ----------
    data_path, model_path : str
        ``model_path`` is checked before the data are read: a folder that does not
        exist or cannot be written fails at once.
    algorithm : {"perceptron", "averaged", "voted", "kernel", "projectron", "centroid", "lp"}
    epochs : int, default=None
        At most this many passes over the data (iterative algorithms; default:
        the estimator's ``max_iter``).
    eta : float
        Learning rate (iterative algorithms).
    seed : int
        Seed of the shuffling.
    label_column : str or int, default=None
        CSV only: the label column by header name or index (default: the last).
    on_epoch : callable(EpochReport), default=None
        Called after every epoch of the iterative algorithms (the perceptrons).
    zero_based : bool or "auto", default="auto"
        svmlight only: whether feature indices start at 0 (stored with the model,
        which reads its input the same way).
    header : bool or "auto", default="auto"
        CSV only: whether the first row is a header.
    scale : bool, default=True
        Standardise numeric features (each to mean 0 and variance 1 on the training
        data) before training; the scaler is part of the saved model.
    options : dict, default=None
        More estimator parameters from the command line (see :func:`make_estimator`).
    format : {"csv", "svmlight", "tsv"}, default=None
        The data's format (default: from the extension); needed for standard input (``"-"``).
    calibrate : {"sigmoid", "isotonic", "online"}, default=None
        Calibrate the model's scores into probabilities (:func:`rosenblatt.calibrated`),
        so that it has ``predict_proba``: on held-out folds (the epochs and mistakes
        of the folds' classifiers are then not reported), or ``"online"``, learnt
        with the estimator, sample by sample (after the scaler or the text features).
    evaluate : bool, default=True
        Measure the training accuracy (False: ``train_accuracy`` is None). A voted
        model is scored on at most :data:`VOTE_SCORE_PAIRS` (row, update) pairs: a
        seeded sample of the rows when all of them would take more
        (``scored_rows`` says how many).
    stage : callable(str) -> context manager, default=None
        Called with a short message before each step after training (saving,
        scoring); the step runs inside what it returns (the command line: a
        spinner).
    id_columns : sequence of str or int, default=None
        CSV only: columns (header names or 0-based indices) that identify each row: not
        features, and not among the feature names the model records, so that its input
        may carry them (``predict --id-column``).
    ignore : sequence of str, default=None
        CSV only: columns, by header name, that are neither features nor the label.

    Returns
    -------
    TrainResult
    """
    from sklearn.exceptions import ConvergenceWarning

    from ...data.io import read_data
    from ...persistence import save

    estimator = make_estimator(
        algorithm, epochs=epochs, eta=eta, seed=seed, on_epoch=on_epoch, options=options
    )
    check_writable(model_path)  # a mistyped path fails now, not after the epochs
    data = read_data(
        data_path,
        label_column=label_column,
        zero_based=zero_based,
        header=header,
        format=format,
        id_columns=id_columns,
        ignore=ignore,
    )
    from ...estimators.calibration import calibrated

    online = calibrate == ONLINE_CALIBRATION  # the estimator's: after the scaler or the text
    model = model_for(data, calibrated(estimator, "online") if online else estimator, scale=scale)
    if calibrate is not None and not online:
        model = calibrated(model, method=calibrate)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model.fit(data.X, data.y)
    seconds = time.perf_counter() - start
    warned = [
        " ".join(str(w.message).split())
        for w in caught
        if issubclass(w.category, ConvergenceWarning)
    ]
    if calibrate is not None and len(warned) > 1:  # one fit per fold: one note
        warned = [f"{warned[0]} (and so did {len(warned) - 1} more of the calibration's fits)"]
    notes = data.notes + warned
    fitted = final_estimator(model)
    n_features = int(fitted.n_features_in_)
    metadata = {
        "data_format": data.format,
        "trained_on": os.path.basename(data.path),
        "algorithm": algorithm,
        "n_samples": data.n_samples,
        "n_features": n_features,
        "classes": jsonable(model.classes_),
    }
    if calibrate is not None:
        metadata["calibrated"] = calibrate
    if calibrate is not None and not online:
        fitted = None  # the folds' classifiers each ran their own epochs
    if not data.is_text:
        metadata["scaled"] = bool(scale)
    if data.zero_based is not None:
        metadata["zero_based"] = data.zero_based
    if label_column is not None:
        metadata["label_column"] = label_column
    if data.feature_names is not None:  # predict and evaluate match columns by these names
        metadata["feature_names"] = list(data.feature_names)
        assert data.schema is not None and data.schema.header is not None  # a CSV's, named
        assert data.schema.label_index is not None
        metadata["label_name"] = data.schema.header[data.schema.label_index]
        name_features(model, data.feature_names)
    stage = stage or no_stage
    with stage(f"saving {model_path}..."):
        save(model, model_path, metadata=metadata)
    accuracy, scored = None, None
    if evaluate:
        rows = scored_rows(model, data.n_samples, seed)
        what = "all" if rows is None else f"a sample of {rows.shape[0]} of"
        assert data.y is not None  # read labelled
        with stage(f"scoring {what} {data.n_samples} training rows..."):
            accuracy, scored = training_accuracy(model, data.X, data.y, rows)
    history = getattr(fitted, "mistakes_per_epoch_", None)
    return TrainResult(
        model=model,
        model_path=os.fspath(model_path),
        algorithm=algorithm,
        data_format=data.format,
        n_samples=data.n_samples,
        n_features=n_features,
        classes=jsonable(model.classes_),
        train_accuracy=accuracy,
        seconds=seconds,
        epochs=getattr(fitted, "n_iter_", None),
        mistakes=getattr(fitted, "n_mistakes_", None),
        mistakes_per_epoch=None if history is None else [int(m) for m in history],
        converged=getattr(fitted, "converged_", None),
        notes=notes,
        scored_rows=scored,
    )


def name_features(model: Any, names: Sequence[str] | np.ndarray) -> None:
    """Give a model fitted on an array the ``feature_names_in_`` that fitting on a DataFrame
    with columns ``names`` gives (on its first step), so that it refuses other columns."""
    names = np.asarray(names, dtype=object)
    folds = getattr(model, "estimators_", None) if hasattr(model, "calibrators_") else None
    for fitted in [model, *(folds or [])]:
        steps = getattr(fitted, "steps", None)
        (steps[0][1] if steps else fitted).feature_names_in_ = names


# --id-column, repeatable: a list, hence a module-level default (ruff's B008)
_ID_COLUMN = id_column_option(
    " The model's feature names leave it out, so that `predict --id-column` reads the same file."
)


def command(
    data: str = typer.Argument(
        ...,
        metavar="DATA",
        help="Training data: .csv, .svm/.libsvm/.svmlight or .tsv (label<TAB>text); "
        "- : standard input (with --format).",
    ),
    model: str = typer.Option(..., "--model", "-m", help="Where to save the trained model."),
    algorithm: str = typer.Option(
        "perceptron",
        "--algorithm",
        "-a",
        help="perceptron, averaged, voted, kernel, projectron, centroid or lp.",
    ),
    epochs: int | None = typer.Option(
        None,
        "--max-iter",
        help="Most passes over the data, as the estimators' max_iter (default: theirs, 1000 "
        f"for the linear perceptrons and 100 for kernel; with --stream {DEFAULT_STREAM_EPOCHS}, "
        "each after the first reading the binary cache). Training stops earlier after a pass "
        "without a mistake. The voted perceptron keeps a vector per mistake: on data that are "
        "not separable, a smaller --max-iter keeps it small.",
    ),
    eta: float = typer.Option(1.0, "--eta", help="Learning rate."),
    seed: int = typer.Option(0, "--seed", help="Seed of the shuffling."),
    label_column: str | None = typer.Option(
        None,
        "--label-column",
        help="CSV: label column by header name or 0-based index (default: the last).",
    ),
    id_column: list[str] | None = _ID_COLUMN,
    ignore: str | None = ignore_option(),
    zero_based: bool | None = zero_based_option(),
    header: bool | None = header_option(),
    data_format: str | None = format_option(),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress bar, table or notes on standard error."
    ),
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Print the summary as one JSON object on standard output (the table is not "
        "shown; the progress and the notes still go to standard error).",
    ),
    stream: bool = typer.Option(
        False,
        "--stream",
        help="Train chunk by chunk, for files larger than memory (perceptron, averaged, voted).",
    ),
    chunk_size: int = typer.Option(
        DEFAULT_CHUNK_SIZE, "--chunk-size", help="Rows per chunk with --stream."
    ),
    class_weight: str | None = typer.Option(
        None, "--class-weight", help="balanced: weigh classes inversely to their size."
    ),
    intercept_scaling: str | None = typer.Option(
        None, "--intercept-scaling", help="The constant input (a number, or auto)."
    ),
    shuffle: str | None = typer.Option(
        None, "--shuffle", help="full, block or none (default: the estimator's)."
    ),
    multi_class: str | None = typer.Option(
        None, "--multi-class", help="Several classes: ovr or multinomial."
    ),
    n_jobs: int | None = typer.Option(
        None, "--n-jobs", help="Threads for one-vs-rest neurons (-1: all cores)."
    ),
    early_stopping: bool = typer.Option(
        False, "--early-stopping", help="Stop when a held-out tenth stops improving."
    ),
    tol: str | None = typer.Option(
        None,
        "--tol",
        help="Stop when the epochs' weighted mistake fraction stops improving by this much "
        "(default: the estimator's 1e-3); none: to the first error-free epoch or --max-iter.",
    ),
    kernel: str | None = typer.Option(None, "--kernel", help="rbf, poly, linear or sigmoid."),
    gamma: str | None = typer.Option(None, "--gamma", help="Kernel coefficient, scale or auto."),
    degree: int | None = typer.Option(None, "--degree", help="Degree of the poly kernel."),
    prediction: str | None = typer.Option(
        None, "--prediction", help="kernel, projectron: last, averaged (default) or voted."
    ),
    budget: int | None = typer.Option(
        None,
        "--budget",
        help="kernel, projectron: the most support vectors the model keeps "
        "(projectron: 300 by default).",
    ),
    budget_policy: str | None = typer.Option(
        None,
        "--budget-policy",
        help="kernel, with --budget: stop (default), random or forgetron; random and "
        "forgetron need --prediction last.",
    ),
    max_projection_error: str | None = typer.Option(
        None,
        "--max-projection-error",
        help="projectron: the largest squared projection error that projects (default 0.1).",
    ),
    plus: bool = typer.Option(
        False, "--plus", help="projectron: Projectron++, also learning from margin errors."
    ),
    scale: bool = typer.Option(
        True,
        "--scale/--no-scale",
        help="Standardise numeric features with a scaler fitted on DATA and saved in the "
        "model (not with --stream, which trains on the features as they are).",
    ),
    calibrate: str | None = typer.Option(
        None,
        "--calibrate",
        help="sigmoid or isotonic: calibrate the scores into probabilities on 5 held-out "
        "folds, for `predict --proba` (isotonic wants a thousand samples or more); online: "
        "learn the probabilities with the model, sample by sample (online Platt scaling "
        "with calibeating; the iterative algorithms, also with --stream).",
    ),
    checkpoint: str | None = typer.Option(
        None,
        "--checkpoint",
        help="With --stream: write a checkpoint here (atomically) every --checkpoint-every "
        "rows and when training ends; after a crash, --resume it.",
    ),
    checkpoint_every: int | None = typer.Option(
        None,
        "--checkpoint-every",
        metavar="ROWS",
        help=f"Rows between checkpoints (default {DEFAULT_CHECKPOINT_ROWS:,}).",
    ),
    resume: str | None = typer.Option(
        None,
        "--resume",
        help="With --stream: go on from this checkpoint (same DATA and options), writing "
        "the next ones to it unless --checkpoint names another file. The model is the one "
        "an uninterrupted run gives, byte for byte. Standard input cannot be resumed.",
    ),
    cache: str | None = typer.Option(
        None,
        "--cache",
        help="With --stream: keep the binary cache of the parsed file in this folder and "
        "reuse it next time, while the file and the reading options stay the same "
        "(default: a temporary cache, deleted at the end).",
    ),
) -> None:
    """Train a classifier on DATA and save it to --model."""
    label = parse_label_column(label_column)
    reading = {
        "zero_based": auto(zero_based),
        "header": auto(header),
        "format": data_format,
        "id_columns": id_columns_of(id_column),
        "ignore": names_option(ignore),
    }
    if stream:
        check_chunk_size(chunk_size)
    if cache is not None and not stream:
        raise ValueError("--cache goes with --stream (in memory, the file is read once anyway)")
    resumable = {"--checkpoint": checkpoint, "--checkpoint-every": checkpoint_every}
    for option, value in {**resumable, "--resume": resume}.items():
        if value is not None and not stream:
            raise ValueError(f"{option} goes with --stream (training in memory is not resumed)")
    if checkpoint_every is not None and checkpoint is None and resume is None:
        raise ValueError("--checkpoint-every goes with --checkpoint (or --resume)")
    if epochs is None and stream:
        epochs = DEFAULT_STREAM_EPOCHS
    options = {
        "class_weight": class_weight,
        "intercept_scaling": intercept_scaling,
        "shuffle": shuffle,
        "multi_class": multi_class,
        "n_jobs": n_jobs,
        "early_stopping": early_stopping,
        "tol": tol,
        "kernel": kernel,
        "gamma": gamma,
        "degree": degree,
        "prediction": prediction,
        "budget": budget,
        "budget_policy": budget_policy,
        "max_projection_error": max_projection_error,
        "plus": plus,
    }
    if calibrate is not None and calibrate not in (*CALIBRATION_METHODS, ONLINE_CALIBRATION):
        raise ValueError(f"--calibrate takes sigmoid, isotonic or online; got {calibrate!r}")
    if stream and calibrate in CALIBRATION_METHODS:
        raise ValueError(
            f"--calibrate {calibrate} needs the data in memory (its folds); drop --stream, "
            "or calibrate online"
        )
    if calibrate == ONLINE_CALIBRATION and algorithm not in ITERATIVE:
        raise ValueError(
            f"--calibrate online learns with the model, which {algorithm} does not do "
            f"online; use {', '.join(ITERATIVE)}, or --calibrate sigmoid"
        )
    if stream and any(v not in (None, False) for v in options.values()):
        raise ValueError("--stream takes --max-iter, --eta and --seed, not the estimator options")

    def fit(**kwargs):
        if stream:
            return train_streamed(
                data,
                model,
                chunk_size=chunk_size,
                cache=cache,
                calibrate=calibrate,
                checkpoint=checkpoint,
                checkpoint_every=checkpoint_every,
                resume=resume,
                **reading,
                **kwargs,
            )
        return train(
            data, model, scale=scale, options=options, calibrate=calibrate, **reading, **kwargs
        )

    run_options = {
        "algorithm": algorithm,
        "epochs": epochs,
        "eta": eta,
        "seed": seed,
        "label_column": label,
    }
    if stream and not quiet:
        result = fit_with_stream_progress(fit, data, _steps_after, **run_options)
    elif quiet:  # nothing shown: no training accuracy to measure, unless asked for JSON
        result = fit(**run_options, evaluate=as_json)
    elif algorithm not in ITERATIVE:  # no epochs to count: a spinner while it solves
        spinner = working(f"training {algorithm} on {data}...")
        spinner.start()
        try:
            result = fit(**run_options, stage=_steps_after(spinner.stop))
        finally:
            spinner.stop()  # a second stop does nothing
    else:  # an epoch bar
        result = fit_with_epoch_progress(fit, calibrate, _steps_after, **run_options)
    # standard output holds the result, and a model file is all there is unless asked for
    if as_json:
        print(json.dumps(summary_json(result)))
    if quiet:
        return
    if not as_json:
        err_console.print(summary_table(result), soft_wrap=False)  # its title centred
    for note in result.notes:
        err_console.print(f"[yellow]note:[/] {escape(in_option_words(note))}")


def _steps_after(stop_training_display):
    """The ``stage`` of :func:`train`: stop what training showed (one live display at
    a time on a terminal), then a spinner for each step after it."""

    def stage(message):
        stop_training_display()
        return working(message)

    return stage
