"""Reading the chunks of one streamed epoch: from the binary cache, a chunk ahead.

Part of :mod:`rosenblatt.data.streaming`.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from .readers import Schema, iter_chunks, read_chunk

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

T = TypeVar("T")


def epoch_chunks(
    path: str | os.PathLike[str],
    index: Schema,
    order: np.ndarray,
    dtype: DTypeLike,
    reader: Any,
) -> Generator[tuple[Any, Any], None, None]:
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


#: Chunks whose arrays the cache reader cycles through (see :func:`epoch_chunks`).
RECYCLE = 3


def read_ahead(chunks: Generator[T, None, None]) -> Iterator[T]:
    """The items of ``chunks``, each read by a helper thread while the previous one is used.

    File reads release the GIL, so reading the next chunk overlaps training on
    this one; memory holds three chunks (the one in training, the next one, the one
    being read). An error of the reader is raised here.
    """
    ready: queue.Queue[tuple[Any, BaseException | None]] = queue.Queue(maxsize=1)
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
