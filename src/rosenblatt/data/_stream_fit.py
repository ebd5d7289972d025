"""Training an online estimator on a file chunk by chunk: :func:`fit_stream`.

Part of :mod:`rosenblatt.data.streaming`, which re-exports the public names.
"""

from __future__ import annotations

import numbers
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.config import DEFAULT_CHUNK_SIZE, DEFAULT_HASH_FEATURES, DEFAULT_STREAM_EPOCHS
from .._core.validation import Interval, check_args
from ._stream_index import StreamProgress, chunk_orders, index_file, is_text, parse_progress
from ._stream_read import RECYCLE, epoch_chunks, read_ahead
from .readers import Schema as ChunkIndex

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from .._core.typing import ArrayLike, RandomStateLike
    from ..engine.driver import EpochReport


def hashing_vectorizer(
    n_features: int = DEFAULT_HASH_FEATURES, dtype: DTypeLike = np.float64
) -> Any:
    """The vectorizer of streamed text: hashed word counts, l2-normalised, no vocabulary.

    Examples
    --------
    >>> hashing_vectorizer(2**10).transform(["free offer", "lecture notes"]).shape
    (2, 1024)
    """
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(
        n_features=int(n_features), alternate_sign=False, norm="l2", dtype=dtype
    )


def fit_stream(
    estimator: Any,
    path: str | os.PathLike[str],
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    epochs: int | None = None,
    random_state: RandomStateLike = None,
    classes: ArrayLike | None = None,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    label_column: str | int | None = None,
    dtype: DTypeLike = np.float64,
    vectorizer: Any = None,
    index: ChunkIndex | None = None,
    on_epoch: Callable[[EpochReport], Any] | None = None,
    header: bool | str = "auto",
    cache: bool | str | os.PathLike[str] | None = None,
    format: str | None = None,
    on_progress: Callable[[StreamProgress], Any] | None = None,
) -> Any:
    """Train an online estimator on a data file chunk by chunk, in bounded memory.

    The file is parsed once, by the scan, into a binary cache (a temporary
    folder unless ``cache`` names one to keep); every epoch then reads the cache,
    never the text. Every epoch visits the chunks in a fresh random order (drawn
    by :func:`chunk_orders` from ``random_state``) and presents each chunk's rows
    once, in the estimator's own order (shuffled when ``estimator.shuffle`` is
    true, from ``estimator.random_state``), through the estimator's
    ``fit_batches``: the engine's epoch driver, so training stops after the
    first epoch without a mistake (each one-vs-rest neuron after its own), or
    after ``epochs`` epochs with a ``ConvergenceWarning``, exactly as
    its ``fit`` does. The classes come from the scan unless given.

    Parameters
    ----------
    estimator : Perceptron, AveragedPerceptron, VotedPerceptron, or one calibrated online
        Trained from scratch unless ``warm_start=True`` and already fitted.
        ``calibrated(estimator, method="online")`` learns its probabilities on the
        same pass (the options that order the chunks are its estimator's).
    path : str or path-like
        ``.svm``/``.svmlight``/``.libsvm``, ``.csv`` or ``.tsv`` (label<TAB>text).
    chunk_size : int, default=10000
        Samples per chunk: memory holds about three parsed chunks.
    epochs : int, default=None
        Most passes over the file. Default: ``DEFAULT_STREAM_EPOCHS`` (5), not the
        estimator's ``max_iter``: a pass over a large file is expensive, and
        training stops earlier anyway after an epoch without a mistake.
    random_state : int, RandomState, Generator or None, default=None
        Seed of the chunk order (default: ``estimator.random_state``). With
        ``estimator.shuffle=False`` the chunks are read in file order.
    classes : array-like, default=None
        Every label (default: the labels found by the index pass).
    n_features : int, default=None
        svmlight: number of columns (default: the largest index in the file).
        text: number of hashed features (default 2**20).
    zero_based : bool or "auto", default="auto"
        svmlight: whether indices start at 0.
    label_column : str or int, default=None
        CSV: the label column (default: the last).
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
    vectorizer : transformer, default=None
        text: a stateless vectorizer to use instead of the hashing one.
    index : ChunkIndex, default=None
        A previous :func:`index_file` result for this file and chunk size (its
        cache, if it has one, is used and left alone; without one every epoch
        parses the text).
    on_epoch : callable(EpochReport), default=None
        Called after every epoch over the file, for this fit only (default: the
        estimator's own ``on_epoch``).
    header : bool or "auto", default="auto"
        CSV: whether the first record is a header.
    cache : None, False or path-like, default=None
        None: the binary cache goes to a temporary folder, deleted when the fit
        ends. A folder: the cache is kept there, and a later fit on the unchanged
        file (same size and modification time) with the same reading options
        reuses it without parsing the text. False: no cache; every epoch parses
        the text again.
    on_progress : callable(StreamProgress), default=None
        Called after every parsed block of the file and every trained chunk.
    format : {"csv", "svmlight", "tsv"}, default=None
        The file's format (default: from its extension).

    Returns
    -------
    estimator or sklearn.pipeline.Pipeline
        The fitted estimator, with ``n_iter_`` and ``mistakes_per_epoch_``
        counting epochs over the whole file; for text, a pipeline of the
        vectorizer and the estimator.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt import Perceptron
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> clf = fit_stream(Perceptron(random_state=0), path, chunk_size=2)
    >>> clf.converged_, clf.predict([[1, 1], [-1, -1]]).tolist()
    (True, [1, -1])
    """
    if not hasattr(estimator, "fit_batches"):
        raise TypeError(
            f"fit_stream trains with fit_batches, which {type(estimator).__name__} "
            "does not have; use Perceptron, AveragedPerceptron or VotedPerceptron"
        )
    epochs = DEFAULT_STREAM_EPOCHS if epochs is None else epochs
    epoch_rule = Interval(numbers.Integral, 1, None, closed="left")
    check_args("fit_stream", {"epochs": [epoch_rule]}, {"epochs": epochs})
    if cache is True:
        cache = None
    own_index = index is None
    if own_index:
        index = index_file(
            path,
            chunk_size,
            n_features=None if is_text(path, format) else n_features,
            zero_based=zero_based,
            label_column=label_column,
            header=header,
            cache=True if cache is None else cache,
            format=format,
            progress=parse_progress(path, epochs, on_progress),
        )
    try:
        return _fit_index(
            estimator,
            path,
            index,
            epochs,
            random_state,
            classes,
            n_features,
            dtype,
            vectorizer,
            on_epoch,
            on_progress,
        )
    finally:
        if own_index and index is not None:  # always set when own_index
            index.close()


def _fit_index(
    estimator,
    path,
    index,
    epochs,
    random_state,
    classes,
    n_features,
    dtype,
    vectorizer,
    on_epoch,
    on_progress,
):
    classes = index.classes if classes is None else np.asarray(classes)
    if index.format == "text" and vectorizer is None:
        vectorizer = hashing_vectorizer(n_features or DEFAULT_HASH_FEATURES, dtype)
    # what learns: the estimator, or the one an online calibration wraps (its options)
    learner = getattr(estimator, "estimator", estimator)
    if random_state is None:
        random_state = getattr(learner, "random_state", None)
    orders = chunk_orders(index.n_chunks, epochs, random_state, getattr(learner, "shuffle", True))
    total = os.path.getsize(path) if os.path.exists(path) else index.size
    epoch = [0]

    # one reader of the cache for the whole fit: its recycled arrays stay in memory from
    # epoch to epoch (fresh memory costs page faults: 0.07 s for a chunk of 24 MB here)
    reader = index.cache.open(recycle=RECYCLE) if index.cache is not None else None

    def batches():  # one epoch: every chunk, in this epoch's chunk order
        epoch[0] += 1
        start, rows = time.perf_counter(), 0
        chunks = epoch_chunks(path, index, next(orders), dtype, reader)
        for X, y in read_ahead(chunks) if reader is not None else chunks:
            yield (X if vectorizer is None else vectorizer.transform(X)), y
            rows += len(y)
            if on_progress is not None:
                seconds = time.perf_counter() - start
                on_progress(
                    StreamProgress(
                        "train", epoch[0], epochs, rows, index.n_samples, total, total, seconds
                    )
                )

    own_callback = learner.get_params().get("on_epoch")
    if on_epoch is not None:
        learner.set_params(on_epoch=on_epoch)
    try:
        estimator.fit_batches(batches, classes, max_iter=epochs, limit="epochs")
    finally:
        if on_epoch is not None:
            learner.set_params(on_epoch=own_callback)
        if reader is not None:
            reader.close()
    if vectorizer is not None:
        from sklearn.pipeline import Pipeline

        return Pipeline([("vectorizer", vectorizer), ("classifier", estimator)])
    return estimator
