"""The epochs of a streamed fit: each one's chunks, in its order, and where the fit stands.

Part of :mod:`rosenblatt.data.streaming`, which re-exports the public names;
:func:`rosenblatt.fit_stream` trains an estimator on a :class:`StreamEpochs`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.config import DEFAULT_HASH_FEATURES
from .._core.random_states import rng_from_json, rng_to_json
from .._core.validation import hold
from ..engine.orders import random_source
from ._stream_index import StreamProgress, next_chunk_order
from ._stream_read import RECYCLE, epoch_chunks, read_ahead

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from .._core.typing import RandomStateLike
    from .readers import Schema as ChunkIndex


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


class StreamEpochs:
    """The batches of every epoch of a streamed fit, and the position a checkpoint saves.

    Calling it gives the next epoch's ``(X, y)`` chunks (``fit_batches``' ``batches``):
    every chunk once, in a fresh order drawn from ``random_state``
    (:func:`~rosenblatt.data.streaming.chunk_orders`' draw; file order when
    ``shuffle`` is False), read from the index's cache (one reader for the whole fit,
    the next chunk read while one trains) or parsed from the text. Text goes through
    ``vectorizer``. After a chunk is handed out, :meth:`position` counts it as done:
    the caller trains a chunk before it asks for the next.

    Parameters
    ----------
    path : str or path-like
    index : ChunkIndex
    epochs : int
    random_state : int, RandomState, Generator or None
        The source of the chunk orders.
    shuffle : bool
    dtype : numpy dtype
    vectorizer : transformer or None
    on_progress : callable(StreamProgress) or None
    position : dict, default=None
        A :meth:`position` to resume from: the epoch it was in goes on with the chunks
        it had not yet handed out, in that epoch's order.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        index: ChunkIndex,
        epochs: int,
        random_state: RandomStateLike,
        shuffle: bool,
        dtype: DTypeLike,
        vectorizer: Any,
        on_progress: Callable[[StreamProgress], Any] | None,
        position: dict[str, Any] | None = None,
    ) -> None:
        self.path, self.index, self.epochs, self.shuffle = path, index, epochs, shuffle
        self.dtype, self.vectorizer, self.on_progress = dtype, vectorizer, on_progress
        self.total = os.path.getsize(path) if os.path.isfile(path) else index.size
        self.epoch, self.order, self.done, self.rows = 0, np.arange(0), 0, 0
        self.rows_handed_out = 0  # by this object, over every epoch (not a position)
        self._resumed = position is not None
        if position is None:
            self.rng = random_source(random_state)
        else:
            self._restore(position)
        self._reader: Any = None

    # ------------------------------------------------------------------ reading
    def __enter__(self) -> StreamEpochs:
        # one reader of the cache for the whole fit: its recycled arrays stay in memory
        # from epoch to epoch (fresh memory costs page faults: 0.07 s for 24 MB here)
        if self.index.cache is not None:
            self._reader = self.index.cache.open(recycle=RECYCLE)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def __call__(self) -> Iterator[tuple[Any, Any]]:
        """The next epoch's chunks (resumed: the rest of the epoch it stood in)."""
        if self._resumed:
            self._resumed = False
        else:
            self.epoch += 1
            self.order = next_chunk_order(self.rng, self.index.n_chunks, self.shuffle)
            self.done, self.rows = 0, 0
        return self._chunks(self.order[self.done :])

    def _chunks(self, order: np.ndarray) -> Iterator[tuple[Any, Any]]:
        start = time.perf_counter()
        chunks = epoch_chunks(self.path, self.index, order, self.dtype, self._reader)
        for X, y in read_ahead(chunks) if self._reader is not None else chunks:
            self.done += 1  # handed out: trained before the next one is asked for
            self.rows += len(y)
            self.rows_handed_out += len(y)
            yield (X if self.vectorizer is None else self.vectorizer.transform(X)), y
            if self.on_progress is not None:
                self.on_progress(
                    StreamProgress(
                        "train",
                        self.epoch,
                        self.epochs,
                        self.rows,
                        self.index.n_samples,
                        self.total,
                        self.total,
                        time.perf_counter() - start,
                    )
                )

    # ------------------------------------------------------------------ position
    def position(self) -> dict[str, Any]:
        """Where the fit stands, as plain JSON: the epoch (1-based), its chunk order, the
        chunks and rows of it done, and the chunk orders' random source (after this
        epoch's draw)."""
        return {
            "epoch": self.epoch,
            "order": self.order.tolist(),
            "done": self.done,
            "rows": self.rows,
            "rng": rng_to_json(self.rng),
        }

    def _restore(self, position: Any) -> None:
        """Take up ``position``, every field checked against this index first."""
        n_chunks = self.index.n_chunks

        def need(ok, what):
            hold(ok, f"the stream position's {what}")

        need(isinstance(position, dict), "must be a JSON object")
        epoch, order, done, rows = (position.get(k) for k in ("epoch", "order", "done", "rows"))
        need(type(epoch) is int and 1 <= epoch <= self.epochs, f"epoch must be 1..{self.epochs}")
        need(
            isinstance(order, list)
            and all(type(c) is int for c in order)
            and sorted(order) == list(range(n_chunks)),
            f"order must be a permutation of the {n_chunks} chunks",
        )
        need(type(done) is int and 0 <= done <= n_chunks, f"done must be 0..{n_chunks}")
        need(
            type(rows) is int and 0 <= rows <= self.index.n_samples,
            f"rows must be 0..{self.index.n_samples}",
        )
        self.rng = rng_from_json(position.get("rng"), "the stream position's rng")
        self.epoch, self.order = epoch, np.array(order, dtype=np.int64)
        self.done, self.rows = done, rows
