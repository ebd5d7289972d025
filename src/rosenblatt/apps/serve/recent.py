"""The rows of recent predictions, kept so that their labels may come later.

Every predicted row gets an id, ``"<run>-<n>"``: ``run`` names this start of the service
(ids of an earlier run are never taken for this one's), ``n`` counts the rows it
predicted. ``/learn`` may send ids with their labels instead of the rows; the rows are
kept for the last :data:`~rosenblatt._core.config.SERVE_RECENT_ROWS` rows predicted and
at most :data:`~rosenblatt._core.config.SERVE_RECENT_BYTES` of them, oldest out first, a
request's rows together. An id that has gone is refused by name, saying so.
"""

from __future__ import annotations

import bisect
import secrets
import threading
from typing import Any

import numpy as np

from .rows import RequestError, batch_bytes

__all__ = ["RecentPredictions"]


class RecentPredictions:
    """The rows of the latest predictions, by id, bounded in rows and bytes.

    Parameters
    ----------
    max_rows, max_bytes : int
        The most rows kept, and the most bytes of them; the oldest requests' rows go
        first. A request larger than either alone is not kept: its ids expire at once.

    Examples
    --------
    >>> import numpy as np
    >>> recent = RecentPredictions(max_rows=3, max_bytes=1000)
    >>> first = recent.keep(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> second = recent.keep(np.array([[5.0, 6.0], [7.0, 8.0]]))
    >>> recent.rows([second[1], second[0]])
    array([[7., 8.],
           [5., 6.]])
    >>> recent.rows(first[:1])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt.apps.serve.rows.RequestError: the prediction id "...-0" has expired: the \
service keeps its last 3 predicted rows (at most 1000 bytes of them); send the row itself \
with its label
    """

    def __init__(self, max_rows: int, max_bytes: int) -> None:
        self.max_rows, self.max_bytes = int(max_rows), int(max_bytes)
        self.run = secrets.token_hex(4)
        self._next = 0  # the number of the next row predicted
        # each kept request's first row number, its rows and their bytes, oldest first from
        # _head (lists, not deques: bisect indexes them at random)
        self._starts: list[int] = []
        self._blocks: list[tuple[Any, int]] = []
        self._head = 0
        self.rows_kept = 0
        self.bytes_kept = 0
        self._lock = threading.Lock()

    def keep(self, X: Any) -> list[str]:
        """Keep the rows ``X`` of one prediction (not copied: never changed after); their ids."""
        n, size = _length(X), batch_bytes(X)
        with self._lock:
            start = self._next
            self._next += n
            if n <= self.max_rows and size <= self.max_bytes:
                self._starts.append(start)
                self._blocks.append((X, size))
                self.rows_kept += n
                self.bytes_kept += size
                while self.rows_kept > self.max_rows or self.bytes_kept > self.max_bytes:
                    self._forget_oldest()
        prefix = f"{self.run}-"
        return [prefix + str(k) for k in range(start, start + n)]

    def _forget_oldest(self) -> None:
        X, size = self._blocks[self._head]
        self._blocks[self._head] = (None, 0)  # its rows go now
        self._head += 1
        self.rows_kept -= _length(X)
        self.bytes_kept -= size
        if self._head > 1024 and self._head * 2 > len(self._starts):  # the lists' dead half
            del self._starts[: self._head], self._blocks[: self._head]
            self._head = 0

    def rows(self, ids: Any) -> Any:
        """The rows of these prediction ids, in their order (an array, a CSR matrix or a
        list of documents, as they were predicted)."""
        if not isinstance(ids, list) or not ids:
            raise RequestError(f'"ids" is {ids!r:.40}; send a list of prediction ids')
        found = []
        with self._lock:
            for id_ in ids:
                block, k = self._locate(id_)
                found.append((block, k))
        first = found[0][0]
        if isinstance(first, list):
            return [block[k] for block, k in found]
        if hasattr(first, "indptr"):
            import scipy.sparse as sp

            return sp.vstack([block[k] for block, k in found], format="csr")
        return np.stack([block[k] for block, k in found])

    def _locate(self, id_: Any) -> tuple[Any, int]:
        run, _, number = str(id_).rpartition("-")
        if not isinstance(id_, str) or not number.isdigit() or not run:
            raise RequestError(
                f"{id_!r:.40} is not a prediction id; send the ids /predict answered with"
            )
        if run != self.run:
            raise RequestError(
                f'the prediction id "{id_:.40}" is not of this run of the service (it was '
                "restarted since, and kept no rows of the predictions before); send the row "
                "itself with its label",
                expired=[id_],
            )
        n = int(number)
        if n >= self._next:
            raise RequestError(
                f'the prediction id "{id_:.40}" was never given; send the ids /predict '
                "answered with"
            )
        at = bisect.bisect_right(self._starts, n, lo=self._head) - 1
        block = self._blocks[at][0] if at >= self._head else None
        if block is None or n - self._starts[at] >= _length(block):
            raise RequestError(
                f'the prediction id "{id_:.40}" has expired: the service keeps its last '
                f"{self.max_rows} predicted rows (at most {self.max_bytes} bytes of them); "
                "send the row itself with its label",
                expired=[id_],
            )
        return block, n - self._starts[at]


def _length(X: Any) -> int:
    return len(X) if isinstance(X, list) else int(X.shape[0])
