"""The scan of a streamed file, its progress reports and each epoch's chunk order.

Part of :mod:`rosenblatt.data.streaming` (its module docstring tells the whole story),
which re-exports the public names.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.config import DEFAULT_CHUNK_SIZE
from .._core.validation import CHUNK_SIZE, check_args
from ..engine.orders import random_source
from .readers import Schema as ChunkIndex
from .readers import check_file, format_of, scan

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import RandomStateLike


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
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
) -> ChunkIndex:
    """Read a data file once and record where every chunk of ``chunk_size`` samples starts.

    :func:`rosenblatt.data.readers.scan` with chunks and, by default, a binary cache of
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
    id_columns, ignore : sequence, default=None
        CSV: columns that are neither features nor label (identifiers by header name or
        0-based index, ignored columns by name), as in :func:`~rosenblatt.data.readers.scan`.

    Returns
    -------
    ChunkIndex
        The file's :class:`rosenblatt.data.readers.Schema`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> index = index_file(path, chunk_size=3)
    >>> index.n_chunks, index.n_rows.tolist(), index.classes.tolist(), index.n_features
    (2, [3, 1], [-1, 1], 2)
    """
    # before scan's own check, which takes None too (a file read whole): an index has chunks
    check_args("index_file", {"chunk_size": [CHUNK_SIZE]}, {"chunk_size": chunk_size})
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
        id_columns=id_columns,
        ignore=ignore,
    )


@dataclass(frozen=True)
class StreamProgress:
    """What the ``on_progress`` callback of
    :func:`~rosenblatt.training.stream.fit_stream` gets.

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


def chunk_orders(
    n_chunks: int, epochs: int, random_state: RandomStateLike, shuffle: bool = True
) -> Iterator[np.ndarray]:
    """The chunk order of each epoch, as
    :func:`~rosenblatt.training.stream.fit_stream` draws them.

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
        yield next_chunk_order(rng, n_chunks, shuffle)


def next_chunk_order(rng: Any, n_chunks: int, shuffle: bool = True) -> np.ndarray:
    """The next epoch's chunk order from ``rng``: a permutation, or file order when
    ``shuffle`` is False (nothing drawn)."""
    return rng.permutation(n_chunks) if shuffle is not False else np.arange(n_chunks)


def parse_progress(
    path: str | os.PathLike[str],
    epochs: int,
    on_progress: Callable[[StreamProgress], Any] | None,
) -> Callable[[int, int], None] | None:
    """The scan's ``progress`` callback that reports to ``on_progress`` (None: none)."""
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


def is_text(path: str | os.PathLike[str], format: str | None = None) -> bool:
    """Whether the file reads as text documents (``.tsv``): streamed through a vectorizer."""
    return format_of(check_file(path), format) == "text"  # a folder is named as one
