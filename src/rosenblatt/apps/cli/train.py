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
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
from rich.markup import escape

from ..._core.config import (
    CALIBRATION_METHODS,
    DEFAULT_CHUNK_SIZE,
    DEFAULT_STDIN_EPOCHS,
    DEFAULT_STREAM_EPOCHS,
    ONLINE_CALIBRATION,
)
from ..._core.files import check_writable
from ..._core.validation import check_classes
from ._common import (
    auto,
    err_console,
    final_estimator,
    id_columns_of,
    jsonable,
    names_option,
    parse_label_column,
    working,
)
from ._estimators import (
    ALGORITHMS,
    ITERATIVE,
    OPTION_USERS,
    make_estimator,
    model_for,
    text_features,
)
from ._options import (
    Aggressiveness,
    Algorithm,
    Budget,
    BudgetPolicy,
    Cache,
    Calibrate,
    Checkpoint,
    CheckpointEvery,
    ChunkSize,
    ClassWeight,
    Data,
    Degree,
    EarlyStopping,
    Eta,
    Format,
    Gamma,
    Header,
    IdColumn,
    Ignore,
    InterceptScaling,
    Json,
    Kernel,
    LabelColumn,
    MaxIter,
    MaxProjectionError,
    Model,
    MultiClass,
    NFeatures,
    NJobs,
    Plus,
    Prediction,
    Quiet,
    Resume,
    Scale,
    Seed,
    ShuffleOrder,
    Stream,
    Tol,
    ZeroBased,
    more_help,
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
    bare: bool = False,
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
    bare : bool, default=False
        Train a linear learner on numeric columns without calibration, alone or after the
        scaler of a CSV's columns (a model that needs nothing of scikit-learn), without
        importing scikit-learn, as the command line does: ``model`` is then the learner
        without scikit-learn's base classes (:mod:`rosenblatt.estimators._bare`; the same
        fit, fitted attributes and predictions), after the stand-ins for scikit-learn's
        ``StandardScaler`` and ``Pipeline`` (:mod:`rosenblatt.estimators._bare_steps`; the
        same values) when scaled, saved as their classes, so that the model file is the same,
        byte for byte, and :func:`rosenblatt.load` reads scikit-learn's classes back.

    Returns
    -------
    TrainResult
    """
    from ..._core.lazy import is_convergence_warning
    from ...data.io import read_data
    from ...persistence import save

    # nothing around the learner needs scikit-learn: no text features or calibration, and no
    # scaler or one of a CSV's dense columns (the stand-in of estimators/_bare_steps fits it)
    kind = _format_kind(data_path, format)
    bare = bare and calibrate is None and kind != "text" and (not scale or kind == "csv")
    estimator = make_estimator(
        algorithm, epochs=epochs, eta=eta, seed=seed, on_epoch=on_epoch, options=options, bare=bare
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
    # the labels first, as the learner checks them: a file of one class is refused before
    # anything is fitted (a scaler on a row of millions of fields holds copies of it first)
    if data.y is not None:
        check_classes(data.y, type(estimator).__name__)
    online = calibrate == ONLINE_CALIBRATION  # the estimator's: after the scaler or the text
    if calibrate is not None:
        from ...estimators.calibration import calibrated

        estimator = calibrated(estimator, "online") if online else estimator
    model = model_for(data, estimator, scale=scale, bare=bare)
    if calibrate is not None and not online:
        model = calibrated(model, method=calibrate)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        # every ConvergenceWarning, one per calibration fold (scikit-learn's: a UserWarning)
        warnings.simplefilter("always", UserWarning)
        model.fit(data.X, data.y)
    seconds = time.perf_counter() - start
    warned = [
        " ".join(str(w.message).split()) for w in caught if is_convergence_warning(w.category)
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


def _format_kind(data_path: str | os.PathLike[str], format: str | None) -> str | None:
    """The format the data will be read in ("csv", "svmlight" or "text": vectorised by
    scikit-learn's steps); None for a path or format that names none (reading the file
    says what is wrong with it)."""
    from ...data.readers import format_of

    try:
        return format_of(data_path, format)
    except ValueError:
        return None


def name_features(model: Any, names: Sequence[str] | np.ndarray) -> None:
    """Give a model fitted on an array the ``feature_names_in_`` that fitting on a DataFrame
    with columns ``names`` gives (on its first step), so that it refuses other columns."""
    names = np.asarray(names, dtype=object)
    folds = getattr(model, "estimators_", None) if hasattr(model, "calibrators_") else None
    for fitted in [model, *(folds or [])]:
        steps = getattr(fitted, "steps", None)
        (steps[0][1] if steps else fitted).feature_names_in_ = names


# train's own words on the options it shares
_Data = Annotated[
    str,
    more_help(
        Data,
        "The training data; - needs --format, and reads standard input: with --stream once, "
        "as it comes (cat big.csv | rosenblatt train --stream - -m m.rbl --format csv).",
    ),
]
_Model = Annotated[str, more_help(Model, "Where to save the trained model.")]
_MaxIter = Annotated[
    int | None,
    more_help(
        MaxIter,
        "As the estimators' max_iter (default: theirs, 1000 for the linear perceptrons and 100 "
        f"for kernel; with --stream {DEFAULT_STREAM_EPOCHS}, each after the first reading the "
        f"binary cache, and {DEFAULT_STDIN_EPOCHS} for standard input, read once: more write "
        "its rows to a cache as they come). Training stops earlier after a pass without a "
        "mistake. The voted "
        "perceptron keeps a vector per mistake: on data that are not separable, a smaller "
        "--max-iter keeps it small.",
    ),
]
_IdColumn = Annotated[
    list[str] | None,
    more_help(
        IdColumn,
        "The model's feature names leave it out, so that `predict --id-column` reads the same "
        "file.",
    ),
]
_Json = Annotated[
    bool,
    more_help(
        Json,
        "The summary (the table is not shown; the progress and the notes still go to standard "
        "error).",
    ),
]
_ChunkSize = Annotated[
    int, more_help(ChunkSize, "Only with --stream, which trains on one block at a time.")
]
_NJobs = Annotated[int | None, more_help(NJobs, "Threads for one-vs-rest neurons.")]
_Scale = Annotated[
    bool,
    more_help(
        Scale,
        "A scaler fitted on DATA is saved in the model (not with --stream, which trains on the "
        "features as they are).",
    ),
]
_LabelColumn = Annotated[str | None, more_help(LabelColumn, "Default: the last.")]


def command(
    data: _Data,
    model: _Model,
    algorithm: Algorithm = "perceptron",
    epochs: _MaxIter = None,
    eta: Eta = 1.0,
    seed: Seed = 0,
    label_column: _LabelColumn = None,
    id_column: _IdColumn = None,
    ignore: Ignore = None,
    zero_based: ZeroBased = None,
    header: Header = None,
    data_format: Format = None,
    quiet: Quiet = False,
    as_json: _Json = False,
    stream: Stream = False,
    chunk_size: _ChunkSize = DEFAULT_CHUNK_SIZE,
    class_weight: ClassWeight = None,
    intercept_scaling: InterceptScaling = None,
    shuffle: ShuffleOrder = None,
    multi_class: MultiClass = None,
    n_jobs: _NJobs = None,
    early_stopping: EarlyStopping = False,
    tol: Tol = None,
    kernel: Kernel = None,
    gamma: Gamma = None,
    degree: Degree = None,
    prediction: Prediction = None,
    budget: Budget = None,
    budget_policy: BudgetPolicy = None,
    max_projection_error: MaxProjectionError = None,
    plus: Plus = False,
    C: Aggressiveness = None,  # noqa: N803 (the option names the notes' and scikit-learn's C)
    scale: _Scale = True,
    calibrate: Calibrate = None,
    checkpoint: Checkpoint = None,
    checkpoint_every: CheckpointEvery = None,
    resume: Resume = None,
    cache: Cache = None,
    n_features: NFeatures = None,
) -> None:
    """Train a classifier on DATA and save it to --model."""
    _run(**locals())


def _run(
    data: str,
    model: str,
    *,
    algorithm: str,
    epochs: int | None,
    eta: float,
    seed: int,
    label_column: str | None,
    id_column: list[str] | None,
    ignore: str | None,
    zero_based: bool | None,
    header: bool | None,
    data_format: str | None,
    quiet: bool,
    as_json: bool,
    stream: bool,
    chunk_size: int,
    scale: bool,
    calibrate: str | None,
    checkpoint: str | None,
    checkpoint_every: int | None,
    resume: str | None,
    cache: str | None,
    n_features: int | None,
    **options: Any,
) -> None:
    """What ``rosenblatt train`` does with its options: check them together, train in
    memory or streamed, showing the progress, then tell what was done. ``options``: the
    estimators' (:data:`OPTION_USERS`), as the command line gave them."""
    label = parse_label_column(label_column)
    reading = {
        "zero_based": auto(zero_based),
        "header": auto(header),
        "format": data_format,
        "id_columns": id_columns_of(id_column),
        "ignore": names_option(ignore),
    }
    if cache is not None and not stream:
        raise ValueError("--cache goes with --stream (in memory, the file is read once anyway)")
    if n_features is not None and not stream:
        raise ValueError("--n-features goes with --stream (in memory, the file gives its width)")
    resumable = {"--checkpoint": checkpoint, "--checkpoint-every": checkpoint_every}
    for option, value in {**resumable, "--resume": resume}.items():
        if value is not None and not stream:
            raise ValueError(f"{option} goes with --stream (training in memory is not resumed)")
    if checkpoint_every is not None and checkpoint is None and resume is None:
        raise ValueError("--checkpoint-every goes with --checkpoint (or --resume)")
    if epochs is None and stream:
        epochs = DEFAULT_STDIN_EPOCHS if data == "-" else DEFAULT_STREAM_EPOCHS
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
                n_features=n_features,
                **reading,
                **kwargs,
            )
        return train(
            data,
            model,
            scale=scale,
            options=options,
            calibrate=calibrate,
            bare=True,  # scikit-learn only where the model needs it
            **reading,
            **kwargs,
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
