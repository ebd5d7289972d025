"""Train from data files larger than memory, one chunk of samples at a time.

A *scan* (:func:`index_file`, which is :func:`rosenblatt.data.readers.scan`) reads the
file once and fixes what holds for the whole file -- header, columns, svmlight
index base and width, the label set (for one-pass class discovery) -- and where
every chunk of ``chunk_size`` samples starts (always between records, also when
a quoted CSV field spans lines). To check the file it parses every record, and,
as Vowpal Wabbit does, it writes them to a *binary cache* (flat arrays: CSR
``indptr``/``indices``/``values`` or dense rows, label ids; see
:mod:`rosenblatt.data.readers._cache`), in a temporary folder by default, so the text
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

Files are read by :mod:`rosenblatt.data.readers`, the reader in-memory reading uses
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

The code lives in private modules beside this one, one job each: the scan, the
progress reports and the chunk orders (``_stream_index``), reading an epoch's
chunks (``_stream_read``), training (``_stream_fit``) and scoring
(``_stream_score``); this module gathers their public names and holds
:func:`train_stream`, the command line's entry.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sklearn.exceptions import ConvergenceWarning

from .._core.config import DEFAULT_CHUNK_SIZE, DEFAULT_STREAM_EPOCHS
from .._core.validation import validate_params
from ._stream_fit import fit_stream, hashing_vectorizer
from ._stream_index import StreamProgress, chunk_orders, index_file, is_text, parse_progress
from ._stream_score import score_stream
from .readers import Schema as ChunkIndex
from .readers import iter_chunks, read_chunk

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import RandomStateLike
    from ..engine.driver import EpochReport

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

# The public home of the names defined beside this module: the reference documents
# them here, and the docstrings' ``rosenblatt.fit_stream`` resolves to it.
_DEFINED_BESIDE = (StreamProgress, chunk_orders, fit_stream, hashing_vectorizer, index_file)
for _public in (*_DEFINED_BESIDE, score_stream):
    _public.__module__ = __name__


# ---------------------------------------------------------------------- CLI hook: train --stream
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
    from ..estimators.linear import AveragedPerceptron, Perceptron, VotedPerceptron

    if algorithm not in STREAM_ALGORITHMS:
        raise ValueError(
            "train_stream trains the online algorithms "
            f"{', '.join(STREAM_ALGORITHMS)}; "
            f"{algorithm!r} needs the whole data set in memory"
        )
    cls = {"perceptron": Perceptron, "averaged": AveragedPerceptron, "voted": VotedPerceptron}[
        algorithm
    ]
    epochs = DEFAULT_STREAM_EPOCHS if epochs is None else epochs
    estimator = cls(max_iter=epochs, eta=eta, random_state=seed, on_epoch=on_epoch)
    validate_params(estimator)  # a bad eta or epochs fails before the file is read
    text = is_text(path, format)
    index = index_file(
        path,
        chunk_size,
        n_features=None if text else n_features,
        zero_based=zero_based,
        label_column=label_column,
        header=header,
        cache=True if cache is None else cache,
        progress=parse_progress(path, epochs, on_progress),
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
