"""``rosenblatt train``: fit a classifier on a data file and save it."""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np
import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .._config import CALIBRATION_METHODS, DEFAULT_CHUNK_SIZE, DEFAULT_STREAM_EPOCHS
from .._files import check_writable
from .._validation import validate_params
from ._common import (
    auto,
    erased_on_error,
    err_console,
    final_estimator,
    format_option,
    header_option,
    jsonable,
    parse_label_column,
    working,
    zero_based_option,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.driver import EpochReport
    from ..readers import Data
    from ..streaming import StreamProgress

ALGORITHMS = ("perceptron", "averaged", "voted", "kernel", "centroid", "lp")
ITERATIVE = ("perceptron", "averaged", "voted", "kernel")

#: Most (row, stored update) pairs the summary's training accuracy of a voted model
#: may score. A voted model scores a row against every update it stored, so all n
#: training rows cost n * updates, and the updates grow with the epochs: 1000 epochs
#: on spambase (4601 rows, 522,621 updates) made 2.4e9 pairs, 23 s after 0.4 s of
#: training on two cores. Training knows only the mistakes of the vector in force
#: at each presentation, not how the vote does on the training rows; so the summary
#: scores a seeded random sample of the rows within this budget and says how many
#: (there 95 rows in 0.4 s, as long as the epochs took), and all of them whenever
#: they fit (spambase with the default tol: 4601 rows x 6545 updates).
VOTE_SCORE_PAIRS = 50_000_000


@dataclass
class TrainResult:
    """What :func:`train` did."""

    model: Any
    model_path: str
    algorithm: str
    data_format: str
    n_samples: int
    n_features: int
    classes: list
    train_accuracy: float | None
    seconds: float
    epochs: int | None = None
    mistakes: int | None = None
    mistakes_per_epoch: list | None = None
    converged: bool | None = None
    notes: list = field(default_factory=list)
    scored_rows: int | None = None
    """Rows the training accuracy was measured on (None: not measured); fewer than
    ``n_samples`` for a voted model with many updates (:data:`VOTE_SCORE_PAIRS`)."""


# the options of `train` beyond the common ones, and the algorithms each applies to
_LINEAR = ("perceptron", "averaged", "voted")
OPTION_USERS = {
    "class_weight": (*_LINEAR, "kernel"),
    "intercept_scaling": (*_LINEAR, "kernel"),
    "shuffle": (*_LINEAR, "kernel"),
    "multi_class": _LINEAR,
    "n_jobs": _LINEAR,
    "early_stopping": _LINEAR,
    "tol": (*_LINEAR, "kernel"),
    "kernel": ("kernel",),
    "gamma": ("kernel",),
    "degree": ("kernel",),
}


def _option_value(name, value, algorithm):
    """A command-line option's text as the estimator's parameter value."""
    if name == "class_weight" and value != "balanced":
        raise ValueError(f"--class-weight takes 'balanced'; got {value!r}")
    if name == "shuffle":
        if value not in ("full", "block", "none"):
            raise ValueError(f"--shuffle takes full, block or none; got {value!r}")
        if algorithm == "kernel":
            if value == "block":
                raise ValueError("the kernel perceptron shuffles fully or not at all: full, none")
            return value == "full"
        return False if value == "none" else value
    if name == "tol" and value == "none":
        return None  # the notes' rule: to the first error-free epoch or --max-iter
    if name in ("intercept_scaling", "gamma", "tol") and value not in ("auto", "scale"):
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"--{name.replace('_', '-')} takes a number; got {value!r}") from None
    return value


def make_estimator(
    algorithm: str = "perceptron",
    *,
    epochs: int | None = None,
    eta: float = 1.0,
    seed: int = 0,
    on_epoch: Callable[[EpochReport], Any] | None = None,
    options: dict[str, Any] | None = None,
) -> Any:
    """The estimator behind ``--algorithm`` (``on_epoch`` goes to the iterative ones).

    ``options`` maps estimator parameters to the command line's values (None: not
    given); each applies to the algorithms :data:`OPTION_USERS` lists. ``epochs``
    None keeps the estimator's own ``max_iter``, so the command line and the
    Python API train alike by default.

    Examples
    --------
    >>> make_estimator("averaged", epochs=5)
    AveragedPerceptron(max_iter=5, random_state=0)
    >>> make_estimator("kernel", options={"kernel": "poly", "degree": 2, "gamma": "0.5"})
    KernelPerceptron(degree=2, gamma=0.5, kernel='poly', random_state=0)
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    params = {}
    for name, value in (options or {}).items():
        if value is None or value is False and name == "early_stopping":
            continue
        if algorithm not in OPTION_USERS[name]:
            flag = "--" + name.replace("_", "-")
            raise ValueError(
                f"{flag} applies to --algorithm {' or '.join(OPTION_USERS[name])}, not {algorithm}"
            )
        params[name] = _option_value(name, value, algorithm)
    if epochs is not None:
        params["max_iter"] = epochs
    if algorithm == "centroid":
        from ..baselines import CentroidClassifier

        return CentroidClassifier()
    if algorithm == "lp":
        from ..baselines import LinearProgramClassifier

        return LinearProgramClassifier()
    if algorithm == "kernel":
        from ..kernel import KernelPerceptron

        cls: Any = KernelPerceptron
    else:
        from ..linear import AveragedPerceptron, Perceptron, VotedPerceptron

        cls = {"perceptron": Perceptron, "averaged": AveragedPerceptron, "voted": VotedPerceptron}[
            algorithm
        ]
    estimator = cls(eta=eta, random_state=seed, on_epoch=on_epoch, **params)
    # the estimator's own constraints, now rather than at fit (after the data are read);
    # on the command line its error names the option (``_wording.OPTIONS``)
    validate_params(estimator)
    return estimator


def text_features() -> list[tuple[str, Any]]:
    """The vectorizer steps of a text model: tf-idf word weights.

    tf-idf rather than the lecture notes' tf/df weights (term frequency over document
    frequency): on the SMS spam corpus it scores about four points higher
    (``examples/spam_filter.py`` compares both).
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    return [("vectorizer", TfidfVectorizer())]


def model_for(data: Data, estimator: Any, *, scale: bool = True) -> Any:
    """The unfitted model that ``train`` fits on ``data`` (a :class:`rosenblatt.io.Data`).

    Text gets the vectorizer steps before ``estimator``; numeric features get a
    ``StandardScaler`` (scaling sparse rows without centring them) unless ``scale``
    is False; the result is a scikit-learn ``Pipeline``, or ``estimator`` alone.
    """
    if not data.is_text and not scale:
        return estimator
    from sklearn.pipeline import Pipeline

    if data.is_text:
        return Pipeline(text_features() + [("classifier", estimator)])
    import scipy.sparse as sp
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler(with_mean=not sp.issparse(data.X))
    return Pipeline([("scaler", scaler), ("classifier", estimator)])


def train_streamed(
    data_path: str | os.PathLike[str],
    model_path: str | os.PathLike[str],
    *,
    algorithm: str = "perceptron",
    epochs: int | None = None,
    eta: float = 1.0,
    seed: int = 0,
    label_column: str | int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    on_epoch: Callable[[EpochReport], Any] | None = None,
    zero_based: bool | str = "auto",
    header: bool | str = "auto",
    cache: str | os.PathLike[str] | None = None,
    on_progress: Callable[[StreamProgress], Any] | None = None,
    format: str | None = None,
    evaluate: bool = True,
    stage: Callable[[str], AbstractContextManager[Any]] | None = None,
) -> TrainResult:
    """Train chunk by chunk on a file too large for memory and save the model.

    The file is parsed once into a binary cache (a temporary folder, or ``cache``
    to keep it for the next run); each epoch visits the chunks in a fresh random
    order and shuffles the rows inside each chunk
    (:func:`rosenblatt.streaming.train_stream`); text is hashed (no vocabulary
    pass). Only the online perceptrons can learn this way. ``epochs`` defaults to
    ``DEFAULT_STREAM_EPOCHS`` (5), fewer when an epoch makes no mistake;
    ``on_progress`` gets a :class:`~rosenblatt.streaming.StreamProgress` as the
    file is parsed and after every chunk. ``evaluate``: stream the file once more
    for the training accuracy, except for the voted perceptron, whose vote over
    every update of every row has no bound (``train_accuracy`` None); ``stage`` as
    for :func:`train`. An algorithm that cannot stream, or a ``model_path`` that
    cannot be written, fails before the file is read.
    """
    from ..persistence import save
    from ..streaming import train_stream

    check_writable(model_path)
    stage = stage or _no_stage
    start = time.perf_counter()
    model, summary = train_stream(
        data_path,
        algorithm,
        chunk_size,
        epochs,
        seed,
        evaluate=evaluate and algorithm != "voted",
        eta=eta,
        label_column=label_column,
        on_epoch=on_epoch,
        zero_based=zero_based,
        header=header,
        cache=cache,
        on_progress=on_progress,
        format=format,
    )
    seconds = time.perf_counter() - start
    metadata: dict[str, Any] = {
        key: summary[key]
        for key in (
            "data_format",
            "trained_on",
            "n_samples",
            "n_features",
            "classes",
            "zero_based",
            "label_column",
        )
        if key in summary
    }
    metadata["algorithm"] = algorithm
    with stage(f"saving {model_path}..."):
        save(model, model_path, metadata=metadata)
    accuracy = summary["train_accuracy"]
    return TrainResult(
        model=model,
        model_path=os.fspath(model_path),
        algorithm=algorithm,
        data_format=summary["data_format"],
        n_samples=summary["n_samples"],
        n_features=summary["n_features"],
        classes=summary["classes"],
        train_accuracy=None if accuracy is None else float(accuracy),
        seconds=seconds,
        epochs=summary["epochs"],
        mistakes=summary["mistakes"],
        mistakes_per_epoch=summary["mistakes_per_epoch"],
        converged=summary["converged"],
        notes=summary["notes"],
        scored_rows=None if accuracy is None else summary["n_samples"],
    )


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
    algorithm : {"perceptron", "averaged", "voted", "kernel", "centroid", "lp"}
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
    calibrate : {"sigmoid", "isotonic"}, default=None
        Calibrate the model's scores into probabilities on held-out folds
        (:func:`rosenblatt.calibrated`), so that it has ``predict_proba``; the
        epochs and mistakes of the folds' classifiers are then not reported.
    evaluate : bool, default=True
        Measure the training accuracy (False: ``train_accuracy`` is None). A voted
        model is scored on at most :data:`VOTE_SCORE_PAIRS` (row, update) pairs: a
        seeded sample of the rows when all of them would take more
        (``scored_rows`` says how many).
    stage : callable(str) -> context manager, default=None
        Called with a short message before each step after training (saving,
        scoring); the step runs inside what it returns (the command line: a
        spinner).

    Returns
    -------
    TrainResult
    """
    from sklearn.exceptions import ConvergenceWarning

    from ..io import read_data
    from ..persistence import save

    estimator = make_estimator(
        algorithm, epochs=epochs, eta=eta, seed=seed, on_epoch=on_epoch, options=options
    )
    check_writable(model_path)  # a mistyped path fails now, not after the epochs
    data = read_data(
        data_path, label_column=label_column, zero_based=zero_based, header=header, format=format
    )
    model = model_for(data, estimator, scale=scale)
    if calibrate is not None:
        from ..calibration import calibrated

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
    stage = stage or _no_stage
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


def _no_stage(message):
    return nullcontext()


def vote_updates(model: Any) -> int:
    """The stored updates a voted model scores each row against, over every voter
    (and every calibration fold): its ``n_vectors_`` less the zero vectors; 0 for a
    model that does not vote."""
    parts = getattr(model, "estimators_", None) if hasattr(model, "calibrators_") else None
    total = 0
    for part in parts or [model]:
        total += sum(n - 1 for n in getattr(final_estimator(part), "n_vectors_", []))
    return total


def scored_rows(model: Any, n_samples: int, seed: int = 0) -> np.ndarray | None:
    """The training rows the summary scores: None for all of them, else a sorted
    seeded random sample of as many as :data:`VOTE_SCORE_PAIRS` allows (at least
    one). Random rather than the first rows: data files often come grouped by class.

    Examples
    --------
    >>> scored_rows(make_estimator("perceptron"), 10) is None
    True
    """
    updates = vote_updates(model)
    if updates * n_samples <= VOTE_SCORE_PAIRS:
        return None
    n_rows = max(1, VOTE_SCORE_PAIRS // updates)
    return np.sort(np.random.default_rng(seed).choice(n_samples, n_rows, replace=False))


def name_features(model: Any, names: Sequence[str] | np.ndarray) -> None:
    """Give a model fitted on an array the ``feature_names_in_`` that fitting on a DataFrame
    with columns ``names`` gives (on its first step), so that it refuses other columns."""
    names = np.asarray(names, dtype=object)
    folds = getattr(model, "estimators_", None) if hasattr(model, "calibrators_") else None
    for fitted in [model, *(folds or [])]:
        steps = getattr(fitted, "steps", None)
        (steps[0][1] if steps else fitted).feature_names_in_ = names


def training_accuracy(
    model: Any, X: Any, y: np.ndarray, rows: np.ndarray | None = None
) -> tuple[float, int]:
    """``(accuracy, rows scored)`` of ``model`` on the training data, or on ``rows``."""
    if rows is not None:
        X, y = rows_of(X, rows), y[rows]
    with warnings.catch_warnings():  # a model given column names (name_features): X is its own
        warnings.filterwarnings("ignore", message="X does not have valid feature names")
        return float(np.mean(model.predict(X) == y)), len(y)


def rows_of(X: Any, rows: np.ndarray) -> Any:
    """The ``rows`` (indices) of features read by :func:`rosenblatt.io.read_data`: an
    array, a sparse matrix or a list of texts."""
    return [X[i] for i in rows] if isinstance(X, list) else X[rows]


def summary_table(result: TrainResult) -> Table:
    title = f"Trained {type(final_estimator(result.model)).__name__}"
    if hasattr(result.model, "calibrators_"):
        title += f" (calibrated: {result.model.method})"
    table = Table(title=title, show_header=False)
    table.add_column(style="bold")
    table.add_column()
    classes = ", ".join(str(c) for c in result.classes[:10])
    if len(result.classes) > 10:
        classes += f", ... ({len(result.classes)} in all)"
    rows = [
        (
            "data",
            f"{result.n_samples} samples x {result.n_features} features ({result.data_format})",
        ),
        ("classes", classes),
        ("epochs", "-" if result.epochs is None else str(result.epochs)),
        ("mistakes", "-" if result.mistakes is None else str(result.mistakes)),
        ("converged", {True: "yes", False: "no", None: "-"}[result.converged]),
        ("training accuracy", _accuracy_text(result)),
        ("time", f"{result.seconds:.3f} s"),
        ("model", result.model_path),
    ]
    for name, value in rows:
        table.add_row(name, value)
    return table


def _accuracy_text(result: TrainResult) -> str:
    if result.train_accuracy is None:
        if result.algorithm == "voted":  # streamed: see train_streamed
            return "- (voted, streamed: `rosenblatt evaluate` scores it)"
        return "-"
    text = f"{result.train_accuracy:.4f}"
    if result.scored_rows is not None and result.scored_rows < result.n_samples:
        text += f" on a sample of {result.scored_rows} rows (voting costs a pass over every update)"
    return text


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
        help="perceptron, averaged, voted, kernel, centroid or lp.",
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
        help="Stop when the epochs' mistakes stop improving by this much (default: the "
        "estimator's 1e-3); none: to the first error-free epoch or --max-iter.",
    ),
    kernel: str | None = typer.Option(None, "--kernel", help="rbf, poly, linear or sigmoid."),
    gamma: str | None = typer.Option(None, "--gamma", help="Kernel coefficient, scale or auto."),
    degree: int | None = typer.Option(None, "--degree", help="Degree of the poly kernel."),
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
        "folds, for `predict --proba` (isotonic wants a thousand samples or more).",
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
    reading = {"zero_based": auto(zero_based), "header": auto(header), "format": data_format}
    if stream and chunk_size < 1:
        raise ValueError(f"--chunk-size must be at least 1; got {chunk_size}")
    if cache is not None and not stream:
        raise ValueError("--cache goes with --stream (in memory, the file is read once anyway)")
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
    }
    if calibrate is not None and calibrate not in CALIBRATION_METHODS:
        raise ValueError(f"--calibrate takes sigmoid or isotonic; got {calibrate!r}")
    if stream and calibrate is not None:
        raise ValueError("--calibrate needs the data in memory (its folds); drop --stream")
    if stream and any(v not in (None, False) for v in options.values()):
        raise ValueError("--stream takes --max-iter, --eta and --seed, not the estimator options")

    def fit(**kwargs):
        if stream:
            return train_streamed(
                data, model, chunk_size=chunk_size, cache=cache, **reading, **kwargs
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
        result = _fit_with_stream_progress(fit, data, **run_options)
    elif quiet:  # nothing shown: no training accuracy to measure, unless asked for JSON
        result = fit(**run_options, evaluate=as_json)
    elif algorithm not in ITERATIVE:  # no epochs to count: a spinner while it solves
        spinner = working(f"training {algorithm} on {data}...")
        spinner.start()
        try:
            result = fit(**run_options, stage=_steps_after(spinner.stop))
        finally:
            spinner.stop()  # a second stop does nothing
    else:
        progress = Progress(
            TextColumn("[bold]training[/]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("epochs, last epoch: {task.fields[mistakes]} mistakes"),
            TimeElapsedColumn(),
            console=err_console,
            transient=False,
        )
        task = progress.add_task("train", total=epochs or 1, mistakes="-", start=False)
        bar = {"started": False, "stopped": False, "last": None}

        def on_epoch(report):
            if not bar["started"]:  # started by the first epoch: a bad file fails before any bar
                bar["started"] = True
                progress.start()
                progress.start_task(task)
            bar["last"] = report
            progress.update(
                task, total=report.max_epochs, completed=report.epoch, mistakes=report.mistakes
            )

        def stop_bar(trained=False):
            """The epoch bar's last state, before the steps after training show theirs."""
            if bar["started"] and not bar["stopped"]:
                bar["stopped"] = True
                fitted = bar["last"].model  # its fitted attributes: the finished run's
                if trained and calibrate is None and getattr(fitted, "converged_", False):
                    progress.update(task, total=fitted.n_iter_, completed=fitted.n_iter_)
                progress.stop()

        try:
            with erased_on_error(progress):
                result = fit(
                    **run_options,
                    on_epoch=on_epoch,
                    stage=_steps_after(lambda: stop_bar(trained=True)),
                )
        finally:
            stop_bar()
    # standard output holds the result, and a model file is all there is unless asked for
    if as_json:
        print(json.dumps(summary_json(result)))
    if quiet:
        return
    if not as_json:
        err_console.print(summary_table(result), soft_wrap=False)  # its title centred
    for note in result.notes:
        err_console.print(f"[yellow]note:[/] {escape(note)}")


def summary_json(result: TrainResult) -> dict:
    """What ``train --json`` prints: every field of ``result`` but the model itself,
    and the classifier's class name (``estimator``)."""
    summary = {
        f.name: jsonable(getattr(result, f.name)) for f in fields(result) if f.name != "model"
    }
    summary["estimator"] = type(final_estimator(result.model)).__name__
    calibrated = hasattr(result.model, "calibrators_")
    summary["calibrated"] = result.model.method if calibrated else None
    return summary


def _steps_after(stop_training_display):
    """The ``stage`` of :func:`train`: stop what training showed (one live display at
    a time on a terminal), then a spinner for each step after it."""

    def stage(message):
        stop_training_display()
        return working(message)

    return stage


def _fit_with_stream_progress(fit, data, **kwargs):
    """``fit`` (a streamed one) with a bar: the parse (bytes), then the epochs (rows)."""
    from rich.progress import TaskProgressColumn

    progress = Progress(
        TextColumn("[bold]{task.description}[/]"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[where]}"),
        TextColumn("{task.fields[speed]}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
    )
    size = max(os.path.getsize(data) if os.path.isfile(data) else 0, 1)  # else: the scan says why
    parse = progress.add_task("parsing", total=size, where="", speed="")
    train = progress.add_task("training", total=1, where="", speed="", visible=False)
    state = {"started": False, "mistakes": "-"}

    def on_progress(report):
        if not state["started"]:  # a bad option fails before any bar
            state["started"] = True
            progress.start()
        speed = f"{report.rows_per_second:,.0f} rows/s"
        if report.stage == "parse":
            progress.update(
                parse,
                completed=min(report.bytes_read, size),
                where=f"{report.rows:,} rows",
                speed=speed,
            )
            return
        n = report.n_samples
        if not state.get("parsed"):  # the parse bar's last word: the rows the scan kept
            state["parsed"] = True
            scanned = progress.tasks[parse].fields["where"]  # counts a header row too
            where = f"{n:,} rows" if scanned else "none: the kept cache holds the file"
            progress.update(parse, completed=size, where=where)
        progress.update(
            train,
            visible=True,
            total=report.max_epochs * n,
            completed=(report.epoch - 1) * n + report.rows,
            where=f"epoch {report.epoch}/{report.max_epochs}, last epoch "
            f"{state['mistakes']} mistakes",
            speed=speed,
        )

    def on_epoch(report):
        state["mistakes"] = report.mistakes
        state["epoch"] = report.epoch

    def stop_bar(trained=False):
        """The bars' last state, before the steps after training show theirs."""
        if state["started"] and not state.get("stopped"):
            state["stopped"] = True
            if trained and "epoch" in state:  # the bar is complete (stopped early or not)
                task = progress.tasks[train]
                progress.update(
                    train,
                    total=task.completed or 1,
                    completed=task.completed or 1,
                    where=f"epoch {state['epoch']}/{kwargs['epochs']}, last epoch "
                    f"{state['mistakes']} mistakes",
                )
            progress.stop()

    try:
        with erased_on_error(progress):  # the parse bar starts before the file is checked
            result = fit(
                on_epoch=on_epoch,
                on_progress=on_progress,
                stage=_steps_after(lambda: stop_bar(trained=True)),
                **kwargs,
            )
    finally:
        stop_bar()
    return result
