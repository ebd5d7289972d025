"""The accuracy of a fitted model on a file read chunk by chunk: :func:`score_stream`.

Part of :mod:`rosenblatt.data.streaming`, which re-exports it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.config import DEFAULT_CHUNK_SIZE
from ._stream_index import index_file, is_text
from .readers import Schema as ChunkIndex
from .readers import iter_chunks

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike


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
    >>> from rosenblatt.streaming import fit_stream
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> clf = fit_stream(Perceptron(random_state=0), path, chunk_size=2)
    >>> score_stream(clf, path, chunk_size=3)
    1.0
    """
    if index is None:
        width = None if is_text(path, format) else getattr(_final(model), "n_features_in_", None)
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
