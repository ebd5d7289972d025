"""``rosenblatt train --stream``: train chunk by chunk on a file too large for memory."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from ..._core.config import DEFAULT_CHUNK_SIZE
from ..._core.files import check_writable
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
) -> TrainResult:
    """Train chunk by chunk on a file too large for memory and save the model.

    The file is parsed once into a binary cache (a temporary folder, or ``cache``
    to keep it for the next run); each epoch visits the chunks in a fresh random
    order and shuffles the rows inside each chunk
    (:func:`rosenblatt.data.streaming.train_stream`); text is hashed (no vocabulary
    pass). Only the online perceptrons can learn this way. ``epochs`` defaults to
    ``DEFAULT_STREAM_EPOCHS`` (5), fewer when an epoch makes no mistake;
    ``on_progress`` gets a :class:`~rosenblatt.data.streaming.StreamProgress` as the
    file is parsed and after every chunk. ``evaluate``: stream the file once more
    for the training accuracy, except for the voted perceptron, whose vote over
    every update of every row has no bound (``train_accuracy`` None); ``stage`` as
    for :func:`train`. An algorithm that cannot stream, or a ``model_path`` that
    cannot be written, fails before the file is read.
    """
    from ...data.streaming import train_stream
    from ...persistence import save

    check_writable(model_path)
    stage = stage or no_stage
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
