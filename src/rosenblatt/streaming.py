"""Train from data files larger than memory, one chunk of samples at a time.

A *scan* (:func:`index_file`, which is :func:`rosenblatt.readers.scan`) reads the
file once and fixes what holds for the whole file -- header, columns, svmlight
index base and width, the label set (for one-pass class discovery) -- and where
every chunk of ``chunk_size`` samples starts (always between records, also when
a quoted CSV field spans lines). To check the file it parses every record, and,
as Vowpal Wabbit does, it writes them to a *binary cache* (flat arrays: CSR
``indptr``/``indices``/``values`` or dense rows, label ids; see
:mod:`rosenblatt.readers._cache`), in a temporary folder by default, so the text
is parsed once: every epoch reads the cache, never the text. Each epoch visits
the chunks in a fresh random order, reading each one with plain reads into fresh
arrays (the next one while the current one trains), and hands it to the
estimator (``fit_batches``, the engine's epoch driver), which runs one pass over
the chunk in its own shuffled order (``shuffle=True``: a fresh permutation of the
chunk's rows, drawn from the estimator's ``random_state``). So an epoch presents
every sample once, in a random order that is random at two levels: which chunk
comes next, and which row inside the chunk. Memory holds a parse block or three
chunks, and the weights; the cache takes about 12 bytes per svmlight nonzero
(8 per CSV cell) on disk.

Streamed training runs a few epochs by default (``DEFAULT_STREAM_EPOCHS``, 5),
stopping earlier after an epoch without a mistake: a pass over a file too large
for memory is expensive, and the estimator's ``max_iter`` (meant for data in
memory) is not what bounds it.

Files are read by :mod:`rosenblatt.readers`, the reader in-memory reading uses
too, so a file streams exactly as it reads in memory (same ``X``, ``y``, classes,
and the same error for a malformed line). Formats follow the file extension:

- ``.svm``, ``.svmlight``, ``.libsvm``: ``label index:value ...`` per line,
  parsed by a compiled parser (values exactly as ``float()`` reads them).
- ``.csv``: comma-separated numbers, an optional header, the label in the last
  column or in ``label_column``; RFC 4180 quoting.
- ``.tsv``: ``label<TAB>text`` per line. Documents are hashed by a
  :class:`~sklearn.feature_extraction.text.HashingVectorizer`
  (``alternate_sign=False``, l2 norm), which needs no vocabulary pass; the
  fitted result is a pipeline of that vectorizer and the estimator, so it
  predicts on raw text.
- any of them gzipped (``.csv.gz``, ...): the scan decompresses the file once
  (into the cache, or without one into a temporary copy that chunks are read
  from, removed with the index, or at exit).

A malformed line raises :class:`~rosenblatt.exceptions.DataFileError` naming the
file and the 1-based line.
"""

from __future__ import annotations

import os
import queue
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._config import DEFAULT_CHUNK_SIZE, DEFAULT_HASH_FEATURES, DEFAULT_STREAM_EPOCHS
from ._validation import validate_params
from ._wording import spelled
from .engine.orders import random_source
from .readers import Schema as ChunkIndex
from .readers import format_of, iter_chunks, read_chunk, scan

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from ._typing import ArrayLike, RandomStateLike
    from .engine.driver import EpochReport

__all__ = [
    "DEFAULT_STREAM_EPOCHS",
    "ChunkIndex",
    "StreamProgress",
    "chunk_orders",
    "fit_stream",
    "hashing_vectorizer",
    "index_file",
    "iter_chunks",
    "read_chunk",
    "score_stream",
    "train_stream",
]


# ---------------------------------------------------------------------- scan
def index_file(
    path: str | os.PathLike[str],
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    *,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    label_column: str | int | None = None,
    header: bool | str = "auto",
    cache: bool | str | os.PathLike[str] = True,
    progress: Callable[[int, int], Any] | None = None,
    format: str | None = None,
) -> ChunkIndex:
    """Read a data file once and record where every chunk of ``chunk_size`` samples starts.

    :func:`rosenblatt.readers.scan` with chunks and, by default, a binary cache of
    the parsed records that chunks are then read from; see there for the options.

    Parameters
    ----------
    path : str or path-like
        A ``.svm``/``.svmlight``/``.libsvm``, ``.csv`` or ``.tsv`` file (or ``.gz``).
    chunk_size : int, default=10000
        Samples per chunk.
    n_features : int, default=None
        svmlight: the number of columns (default: from the largest index found);
        a larger index in the file is an error.
    zero_based : bool or "auto", default="auto"
        svmlight: whether indices start at 0 ("auto": when some index is 0).
    label_column : str or int, default=None
        CSV: the label column by header name or 0-based index (default: the last).
    header : bool or "auto", default="auto"
        CSV: whether the first record is a header.
    cache : bool or path-like, default=True
        True: a binary cache in a temporary folder, deleted by ``index.close()``,
        when the index is garbage collected, or at exit. A folder: the cache is
        kept there and reused by a later scan of the unchanged file with the same
        options. False: no cache; every chunk read parses the text again.
    progress : callable(bytes_read, records), default=None
        Called as the scan reads the file.
    format : {"csv", "svmlight", "tsv"}, default=None
        The file's format (default: from its extension).

    Returns
    -------
    ChunkIndex
        The file's :class:`rosenblatt.readers.Schema`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> index = index_file(path, chunk_size=3)
    >>> index.n_chunks, index.n_rows.tolist(), index.classes.tolist(), index.n_features
    (2, [3, 1], [-1, 1], 2)
    """
    if not (isinstance(chunk_size, (int, np.integer)) and chunk_size >= 1):
        raise ValueError(f"chunk_size must be a positive int; got {chunk_size!r}")
    return scan(
        path,
        chunk_size,
        n_features=n_features,
        zero_based=zero_based,
        label_column=label_column,
        header=header,
        cache=cache,
        progress=progress,
        format=format,
    )


# ---------------------------------------------------------------------- training
@dataclass(frozen=True)
class StreamProgress:
    """What the ``on_progress`` callback of :func:`fit_stream` gets.

    During the scan (``stage="parse"``) after every block of the file; during
    training (``stage="train"``) after every chunk.

    Attributes
    ----------
    stage : {"parse", "train"}
    epoch : int
        The epoch being trained (1-based); 0 during the parse.
    max_epochs : int
    rows : int
        Records parsed so far (parse), or samples presented so far in this epoch.
    n_samples : int or None
        Samples in the file (None until the parse is done).
    bytes_read : int
        Bytes of the file read so far (parse).
    total_bytes : int
        The file's size (compressed, for a ``.gz`` file).
    seconds : float
        Time since this stage (the parse, or this epoch) started.
    """

    stage: str
    epoch: int
    max_epochs: int
    rows: int
    n_samples: int | None
    bytes_read: int
    total_bytes: int
    seconds: float

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.seconds if self.seconds > 0 else 0.0


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


def chunk_orders(
    n_chunks: int, epochs: int, random_state: RandomStateLike, shuffle: bool = True
) -> Iterator[np.ndarray]:
    """The chunk order of each epoch, as :func:`fit_stream` draws them.

    One generator, ``random_source(random_state)`` as an estimator's ``fit`` draws from (an
    int seeds a ``RandomState``; a ``Generator`` or ``RandomState`` is used as it
    is), draws ``permutation(n_chunks)`` per epoch; with ``shuffle=False`` every
    epoch reads the chunks in file order.

    Examples
    --------
    >>> orders = chunk_orders(4, 2, random_state=0)
    >>> [sorted(o.tolist()) for o in orders]
    [[0, 1, 2, 3], [0, 1, 2, 3]]
    """
    rng = random_source(random_state)
    for _ in range(epochs):
        yield rng.permutation(n_chunks) if shuffle is not False else np.arange(n_chunks)


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
    estimator : Perceptron, AveragedPerceptron or VotedPerceptron
        Trained from scratch unless ``warm_start=True`` and already fitted.
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
    if not (isinstance(epochs, (int, np.integer)) and epochs >= 1):
        raise ValueError(f"epochs must be a positive int; got {epochs!r}")
    if cache is True:
        cache = None
    own_index = index is None
    if own_index:
        index = index_file(
            path,
            chunk_size,
            n_features=None if _is_text(path, format) else n_features,
            zero_based=zero_based,
            label_column=label_column,
            header=header,
            cache=True if cache is None else cache,
            format=format,
            progress=_parse_progress(path, epochs, on_progress),
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


def _parse_progress(path, epochs, on_progress):
    if on_progress is None:
        return None
    # a missing file (or "-") is left to the scan, which says what is wrong
    total = os.path.getsize(path) if os.path.isfile(path) else 0
    start = time.perf_counter()

    def progress(done, rows):
        on_progress(
            StreamProgress("parse", 0, epochs, rows, None, done, total, time.perf_counter() - start)
        )

    return progress


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
    if random_state is None:
        random_state = getattr(estimator, "random_state", None)
    orders = chunk_orders(index.n_chunks, epochs, random_state, getattr(estimator, "shuffle", True))
    total = os.path.getsize(path) if os.path.exists(path) else index.size
    epoch = [0]

    # one reader of the cache for the whole fit: its recycled arrays stay in memory from
    # epoch to epoch (fresh memory costs page faults: 0.07 s for a chunk of 24 MB here)
    reader = index.cache.open(recycle=_RECYCLE) if index.cache is not None else None

    def batches():  # one epoch: every chunk, in this epoch's chunk order
        epoch[0] += 1
        start, rows = time.perf_counter(), 0
        chunks = _chunks(path, index, next(orders), dtype, reader)
        for X, y in _read_ahead(chunks) if reader is not None else chunks:
            yield (X if vectorizer is None else vectorizer.transform(X)), y
            rows += len(y)
            if on_progress is not None:
                seconds = time.perf_counter() - start
                on_progress(
                    StreamProgress(
                        "train", epoch[0], epochs, rows, index.n_samples, total, total, seconds
                    )
                )

    own_callback = estimator.get_params().get("on_epoch")
    if on_epoch is not None:
        estimator.set_params(on_epoch=on_epoch)
    try:
        estimator.fit_batches(batches, classes, max_iter=epochs, limit="epochs")
    finally:
        if on_epoch is not None:
            estimator.set_params(on_epoch=own_callback)
        if reader is not None:
            reader.close()
    if vectorizer is not None:
        from sklearn.pipeline import Pipeline

        return Pipeline([("vectorizer", vectorizer), ("classifier", estimator)])
    return estimator


def _chunks(path, index, order, dtype, reader):
    """The chunks of one epoch, in ``order``: from the cache into ``reader``'s recycled
    arrays, or parsed from the text.

    fit_batches trains each chunk before it asks for the next, and the read-ahead
    holds one more while it reads a third: the arrays of a chunk are reused three
    chunks later, when fit_batches is done with it.
    """
    if reader is None:
        yield from iter_chunks(path, order=order, index=index, dtype=dtype)
        return
    for c in order:
        yield read_chunk(index, int(c), dtype=dtype, handle=reader)


_RECYCLE = 3


def _read_ahead(chunks):
    """The items of ``chunks``, each read by a helper thread while the previous one is used.

    File reads release the GIL, so reading the next chunk overlaps training on
    this one; memory holds three chunks (the one in training, the next one, the one
    being read). An error of the reader is raised here.
    """
    ready = queue.Queue(maxsize=1)
    stop = threading.Event()
    done = object()

    def put(item):
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def read():
        try:
            for item in chunks:
                if not put((item, None)):
                    return
            put((done, None))
        except BaseException as exc:  # handed to the consumer
            put((done, exc))
        finally:
            chunks.close()

    reader = threading.Thread(target=read, name="rosenblatt-read-ahead", daemon=True)
    reader.start()
    try:
        while True:
            item, error = ready.get()
            if item is done:
                if error is not None:
                    raise error
                return
            yield item
    finally:
        stop.set()
        reader.join()


def _is_text(path, format=None) -> bool:
    return format_of(path, format) == "text"


def score_stream(
    model: Any,
    path: str | os.PathLike[str],
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    zero_based: bool | str = "auto",
    label_column: str | int | None = None,
    index: ChunkIndex | None = None,
    dtype: DTypeLike = np.float64,
    header: bool | str = "auto",
    format: str | None = None,
) -> float:
    """Accuracy of a fitted model on a data file, read chunk by chunk.

    For svmlight the model's ``n_features_in_`` fixes the chunks' width.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt import Perceptron
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> clf = fit_stream(Perceptron(random_state=0), path, chunk_size=2)
    >>> score_stream(clf, path, chunk_size=3)
    1.0
    """
    if index is None:
        width = None if _is_text(path, format) else getattr(_final(model), "n_features_in_", None)
        index = index_file(
            path,
            chunk_size,
            n_features=width,
            zero_based=zero_based,
            label_column=label_column,
            header=header,
            cache=False,
            format=format,
        )
    right = total = 0
    for X, y in iter_chunks(path, index=index, dtype=dtype):
        assert y is not None  # read labelled
        right += int(np.sum(model.predict(X) == y))
        total += len(y)
    return right / total


def _final(model):
    return model.steps[-1][1] if hasattr(model, "steps") else model


# ---------------------------------------------------------------------- CLI hook
STREAM_ALGORITHMS = ("perceptron", "averaged", "voted")


def train_stream(
    path: str | os.PathLike[str],
    algorithm: str = "perceptron",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    epochs: int | None = None,
    seed: RandomStateLike = 0,
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
) -> tuple[Any, dict[str, Any]]:
    """Train on a data file too large for memory; what ``rosenblatt train --stream`` runs.

    The file is parsed once into a binary cache (see :func:`fit_stream`), which the
    epochs and the accuracy pass read.

    Parameters
    ----------
    path : str or path-like
    algorithm : {"perceptron", "averaged", "voted"}, default="perceptron"
        The online algorithms (the others need the whole data set at once).
    chunk_size : int, default=10000
    epochs : int, default=None
        Most passes over the file (default: ``DEFAULT_STREAM_EPOCHS``, 5; fewer when
        an epoch makes no mistake).
    seed : int, default=0
        Seed of the chunk order and of the row order inside chunks.
    eta : float, default=1.0
    n_features : int, default=None
        svmlight: columns (default: from the file); text: hashed features (2**20).
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

    Returns
    -------
    model : estimator or Pipeline
        A pipeline with the hashing vectorizer for text files.
    summary : dict
        JSON-ready: ``data_format``, ``trained_on``, ``algorithm``, ``n_samples``,
        ``n_features``, ``n_chunks``, ``chunk_size``, ``classes``, ``epochs``,
        ``mistakes``, ``mistakes_per_epoch``, ``converged``, ``train_accuracy``
        (None unless ``evaluate``), ``seconds``, ``notes`` (what the scan decided,
        then convergence), and ``zero_based`` /
        ``label_column`` where they apply (keep them as model metadata).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> model, summary = train_stream(path, "averaged", chunk_size=2, epochs=10)
    >>> summary["converged"], summary["n_chunks"], summary["train_accuracy"]
    (True, 2, 1.0)
    """
    from .linear import AveragedPerceptron, Perceptron, VotedPerceptron

    if algorithm not in STREAM_ALGORITHMS:
        raise ValueError(
            f"{spelled('train_stream', '--stream')} trains the online algorithms "
            f"{', '.join(STREAM_ALGORITHMS)}; "
            f"{algorithm!r} needs the whole data set in memory"
        )
    cls = {"perceptron": Perceptron, "averaged": AveragedPerceptron, "voted": VotedPerceptron}[
        algorithm
    ]
    epochs = DEFAULT_STREAM_EPOCHS if epochs is None else epochs
    estimator = cls(max_iter=epochs, eta=eta, random_state=seed, on_epoch=on_epoch)
    validate_params(estimator)  # a bad eta or epochs fails before the file is read
    text = _is_text(path, format)
    index = index_file(
        path,
        chunk_size,
        n_features=None if text else n_features,
        zero_based=zero_based,
        label_column=label_column,
        header=header,
        cache=True if cache is None else cache,
        progress=_parse_progress(path, epochs, on_progress),
        format=format,
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
            )
        seconds = time.perf_counter() - start
        accuracy = score_stream(model, path, index=index) if evaluate else None
    finally:
        index.close()
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
    return model, summary
