"""``rosenblatt train --stream``: train chunk by chunk on a file too large for memory."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.config import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_STDIN_EPOCHS,
    DEFAULT_STREAM_EPOCHS,
    STDIN_CACHE_PREFIX,
)
from ..._core.files import check_writable
from ._estimators import ONLINE, make_estimator
from ._train_progress import no_stage
from ._train_summary import TrainResult

if TYPE_CHECKING:  # pragma: no cover
    from ...data.streaming import StreamProgress
    from ...engine.driver import EpochReport


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
    calibrate: str | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: int | None = None,
    resume: str | os.PathLike[str] | None = None,
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
    n_features: int | None = None,
) -> TrainResult:
    """Train chunk by chunk on a file too large for memory and save the model.

    The file is parsed once into a binary cache (a temporary folder, or ``cache``
    to keep it for the next run); each epoch visits the chunks in a fresh random
    order and shuffles the rows inside each chunk
    (:func:`train_stream`); text is hashed (no vocabulary
    pass). Only the online perceptrons can learn this way. ``epochs`` defaults to
    ``DEFAULT_STREAM_EPOCHS`` (5), fewer when an epoch makes no mistake;
    ``on_progress`` gets a :class:`~rosenblatt.data.streaming.StreamProgress` as the
    file is parsed and after every chunk. ``evaluate``: stream the file once more
    for the training accuracy, except for the voted perceptron, whose vote over
    every update of every row has no bound (``train_accuracy`` None); ``stage`` as
    for :func:`train`. ``calibrate="online"``: the probabilities are learnt on the
    same pass (:func:`rosenblatt.calibrated`). ``checkpoint``, ``checkpoint_every``
    and ``resume``: as :func:`rosenblatt.fit_stream`'s. ``id_columns`` and ``ignore``: as
    for :func:`~rosenblatt.apps.cli.train.train`. An algorithm that cannot
    stream, or a ``model_path`` that cannot be written, fails before the file is read.

    Standard input (``data_path`` ``"-"``) is read once (:func:`train_stream`); the cache
    that more than one epoch needs goes to a temporary folder beside the model (removed at
    the end) unless ``cache`` names one to keep it in.
    """
    from ...persistence import save

    check_writable(model_path)
    stage = stage or no_stage
    start = time.perf_counter()
    beside = None
    stdin = os.fspath(data_path) == "-"
    if stdin and cache is None and (epochs or DEFAULT_STDIN_EPOCHS) > 1:
        folder = os.path.dirname(os.path.abspath(model_path))
        cache = beside = tempfile.mkdtemp(prefix=STDIN_CACHE_PREFIX, dir=folder)
    try:
        model, summary = train_stream(
            data_path,
            algorithm,
            chunk_size,
            epochs,
            seed,
            evaluate=evaluate and algorithm != "voted",
            eta=eta,
            n_features=n_features,
            label_column=label_column,
            on_epoch=on_epoch,
            zero_based=zero_based,
            header=header,
            cache=cache,
            on_progress=on_progress,
            format=format,
            calibrate=calibrate,
            checkpoint=checkpoint,
            checkpoint_every=checkpoint_every,
            resume=resume,
            id_columns=id_columns,
            ignore=ignore,
        )
    finally:
        if beside is not None:
            shutil.rmtree(beside, ignore_errors=True)
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
            "feature_names",
            "label_name",
        )
        if key in summary
    }
    metadata["algorithm"] = algorithm
    if calibrate is not None:
        metadata["calibrated"] = calibrate
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


def train_stream(
    path: str | os.PathLike[str],
    algorithm: str = "perceptron",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    epochs: int | None = None,
    seed: int = 0,
    *,
    eta: float = 1.0,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    label_column: str | int | None = None,
    header: bool | str = "auto",
    evaluate: bool = True,
    on_epoch: Callable[[EpochReport], Any] | None = None,
    cache: str | os.PathLike[str] | None = None,
    on_progress: Callable[[StreamProgress], Any] | None = None,
    format: str | None = None,
    calibrate: str | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: int | None = None,
    resume: str | os.PathLike[str] | None = None,
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
) -> tuple[Any, dict[str, Any]]:
    """Train on a data file too large for memory, as ``rosenblatt train --stream`` does.

    The file is parsed once into a binary cache (see :func:`fit_stream`), which the
    epochs and the accuracy pass read. Standard input (``path`` ``"-"``, with ``format``)
    is read once as it comes (:class:`~rosenblatt.data.streaming.InputChunks`): one epoch
    by default, trained as it is read; more write a cache of its rows (in ``cache``, else a
    temporary folder), which the later epochs and the accuracy pass read. Read once
    without a cache, it has no training accuracy (a note says so).

    Parameters
    ----------
    path : str or path-like
    algorithm : {"perceptron", "averaged", "voted"}, default="perceptron"
        The online algorithms (the others need the whole data set at once).
    chunk_size : int, default=10000
    epochs : int, default=None
        Most passes over the file (default: ``DEFAULT_STREAM_EPOCHS``, 5; fewer when
        an epoch makes no mistake; standard input: ``DEFAULT_STDIN_EPOCHS``, 1).
    seed : int, default=0
        Seed of the chunk order and of the row order inside chunks.
    eta : float, default=1.0
    n_features : int, default=None
        svmlight: columns (default: from the file; standard input needs it); text: hashed
        features (2**20).
    zero_based : bool or "auto", default="auto"
    label_column : str or int, default=None
    header : bool or "auto", default="auto"
        CSV: whether the first record is a header.
    evaluate : bool, default=True
        Stream the file once more (from the cache) to measure the training accuracy.
    on_epoch : callable(EpochReport), default=None
    cache : None or path-like, default=None
        None: a temporary cache, deleted at the end. A folder: keep the cache
        there and reuse it while the file and the options stay the same.
    on_progress : callable(StreamProgress), default=None
        Called as the file is parsed and after every trained chunk.
    format : {"csv", "svmlight", "tsv"}, default=None
        The file's format (default: from its extension).
    calibrate : {"online"}, default=None
        Learn the probabilities on the same pass (``calibrated(estimator,
        method="online")``): the model then has ``predict_proba``.
    checkpoint, checkpoint_every, resume
        Checkpoints of the run, and the one to go on from (:func:`rosenblatt.fit_stream`).
    id_columns, ignore : sequence, default=None
        CSV: columns that are neither features nor label, left out of ``feature_names``
        (:func:`~rosenblatt.data.streaming.index_file`).

    Returns
    -------
    model : estimator or Pipeline
        A pipeline with the hashing vectorizer for text files.
    summary : dict
        JSON-ready: ``data_format``, ``trained_on``, ``algorithm``, ``n_samples``,
        ``n_features``, ``n_chunks``, ``chunk_size``, ``classes``, ``epochs``,
        ``mistakes``, ``mistakes_per_epoch``, ``converged``, ``train_accuracy``
        (None unless ``evaluate``), ``seconds``, ``notes`` (what the scan decided,
        then convergence), and ``zero_based``, ``label_column``, ``feature_names`` /
        ``label_name`` where they apply (keep them as model metadata).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> model, summary = train_stream(path, "averaged", chunk_size=2, epochs=10)
    >>> summary["converged"], summary["n_chunks"], summary["train_accuracy"]
    (True, 2, 1.0)
    """
    from sklearn.exceptions import ConvergenceWarning

    from ...data._stream_index import is_text, parse_progress
    from ...data.streaming import InputChunks, index_file, score_stream
    from ...training.checkpoint import CheckpointPlan
    from ...training.stream import fit_stream

    if algorithm not in ONLINE:
        raise ValueError(
            f"--stream trains the online algorithms {', '.join(ONLINE)}; "
            f"{algorithm!r} needs the whole data set in memory"
        )
    stdin = os.fspath(path) == "-"
    if epochs is None:
        epochs = DEFAULT_STDIN_EPOCHS if stdin else DEFAULT_STREAM_EPOCHS
    # the estimator of `train`, checked before the file is read (a bad eta or epochs)
    estimator = make_estimator(algorithm, epochs=epochs, eta=eta, seed=seed, on_epoch=on_epoch)
    if calibrate is not None:
        from ...estimators.calibration import calibrated

        estimator = calibrated(estimator, method=calibrate)
    text = is_text(path, format)
    # a checkpoint that does not fit, or an input that cannot be resumed, fails before the scan
    plan = CheckpointPlan.prepare(
        estimator,
        path,
        checkpoint=checkpoint,
        checkpoint_every=checkpoint_every,
        resume=resume,
        epochs=epochs,
        random_state=seed,
        classes=None,
        n_features=n_features,
        dtype=np.float64,
        vectorizer=None,
    )
    index: Any
    temporary = None
    reading: dict[str, Any] = dict(  # the same rows from standard input as from a file
        n_features=None if text else n_features,
        zero_based=zero_based,
        label_column=label_column,
        header=header,
        id_columns=id_columns,
        ignore=ignore,
    )
    if stdin:  # read as training goes; a cache for the epochs after the first
        if cache is None and epochs > 1:
            cache = temporary = tempfile.mkdtemp(prefix=STDIN_CACHE_PREFIX)
        index = InputChunks(format, chunk_size, cache=cache, keep=True, **reading)
    else:
        index = index_file(
            path,
            chunk_size,
            cache=True if cache is None else cache,
            progress=parse_progress(path, epochs, on_progress),
            format=format,
            **reading,
        )
    try:
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            model = fit_stream(
                estimator,
                path,
                epochs=epochs,
                random_state=seed,
                index=index,
                n_features=n_features,
                on_progress=on_progress,
                checkpoint=None if stdin else plan,
                format=format,
            )
        # resumed, the model is the checkpoint's (the estimator above gave its options)
        estimator = model[-1] if hasattr(model, "steps") else model
        seconds = time.perf_counter() - start
        if stdin:
            index = index.schema  # what was read: the scan of a file
        read_again = not stdin or index.cache is not None
        accuracy = score_stream(model, path, index=index) if evaluate and read_again else None
    finally:
        index.close()
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
    summary = {
        "data_format": index.format,
        "trained_on": os.path.basename(index.path),
        "algorithm": algorithm,
        "n_samples": index.n_samples,
        "n_features": int(estimator.n_features_in_),
        "n_chunks": index.n_chunks,
        "chunk_size": index.chunk_size,
        "classes": estimator.classes_.tolist(),
        "epochs": estimator.n_iter_,
        "mistakes": estimator.n_mistakes_,
        "mistakes_per_epoch": [int(m) for m in estimator.mistakes_per_epoch_],
        "converged": bool(estimator.converged_),
        "train_accuracy": accuracy,
        "seconds": seconds,
        "notes": list(index.notes)
        + _resumed_note(plan)
        + ([_READ_ONCE] if evaluate and not read_again else [])
        + [
            " ".join(str(w.message).split())
            for w in caught
            if issubclass(w.category, ConvergenceWarning)
        ],
    }
    if index.zero_based is not None:
        summary["zero_based"] = index.zero_based
    if label_column is not None:
        summary["label_column"] = label_column
    if index.feature_names is not None:  # a CSV's header: its input is matched by name
        assert index.header is not None and index.label_index is not None  # named, labelled
        summary["feature_names"] = list(index.feature_names)
        summary["label_name"] = index.header[index.label_index]
    return model, summary


_READ_ONCE = (
    "standard input was read once, without a cache: no training accuracy (--max-iter 2 or "
    "more, or --cache, keeps its rows to measure it)"
)


def _resumed_note(plan: Any) -> list[str]:
    """What a resumed run says about where it went on from."""
    resumed = plan.resumed
    if resumed is None:
        return []
    if resumed.finished:
        return ["the checkpoint is of a finished run: its model, not trained again"]
    position = resumed.position
    return [
        f"resumed from the checkpoint: epoch {position['epoch']}, after "
        f"{position['done']} of {len(position['order'])} chunks"
    ]
