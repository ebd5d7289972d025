"""The service's learning log: every learn request, on disk before it is acknowledged.

The log belongs to the served model file. It is a sequence of records, each framed as
``b"RBLG"``, its length and its CRC-32 (little-endian 32-bit numbers), then its payload:
the length of a JSON header, the header, and the bytes of the arrays it describes, in
order (``dtype`` and ``shape``, as ``.npy`` files have them; never pickle). Records:

- ``start``: the SHA-256 of the model file the log continues, and the model's version;
- ``learn``: a group of learn requests, each its rows (an array, the parts of a CSR
  matrix, or documents) and its labels, exactly as the model learnt them; the writer
  appends a group in one write and ``fsync`` s it before any of its requests is answered;
- ``saved``: written before the served file is replaced by a model whose bytes have that
  SHA-256 (after the learning above it), so that a restart knows where the new file
  stands in the log whichever step a kill interrupted.

A restart reads the log, finds the last record that names the model file's SHA-256 and
learns every request after it, in order: the model of every acknowledged request. A
record cut short by a kill (its frame longer than the file, or a last record whose CRC
fails) was never acknowledged: it is dropped. Damage anywhere else stops the start with
the byte where it is.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._core.files import write_atomically

__all__ = [
    "FORMAT",
    "Journal",
    "LogError",
    "LoggedLog",
    "learn_record",
    "point_record",
    "read_log",
    "replay_plan",
    "sha256_of",
]

#: The version of the log's layout (the ``start`` record says it)
FORMAT = 1
_MAGIC = b"RBLG"
_FRAME = struct.Struct("<4sII")  # magic, payload length, CRC-32 of the payload
_HEADER = struct.Struct("<I")  # the JSON header's length, in the payload
#: The kinds of arrays a log holds (numbers, and labels as text): nothing that needs pickle
_KINDS = "biufU"


class LogError(ValueError):
    """A log the service cannot continue: damaged, or another model file's."""


def sha256_of(data: bytes) -> str:
    """The hex SHA-256 of a model file's bytes (how the log names a model file)."""
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------- encoding
def _array_spec(array: np.ndarray, parts: list[bytes]) -> dict:
    array = np.ascontiguousarray(array)
    if array.dtype.kind not in _KINDS:
        raise TypeError(f"a log holds arrays of numbers or text, not {array.dtype}")
    parts.append(array.tobytes())
    return {"dtype": array.dtype.str, "shape": list(array.shape)}


def _rows_spec(X: Any, parts: list[bytes]) -> dict:
    if isinstance(X, list):
        return {"documents": X}
    if hasattr(X, "indptr"):
        return {
            "csr": {
                "shape": list(X.shape),
                "data": _array_spec(X.data, parts),
                "indices": _array_spec(X.indices, parts),
                "indptr": _array_spec(X.indptr, parts),
            }
        }
    return {"array": _array_spec(X, parts)}


def _record(header: dict, parts: list[bytes] | None = None) -> bytes:
    head = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    payload = b"".join([_HEADER.pack(len(head)), head, *(parts or [])])
    return _FRAME.pack(_MAGIC, len(payload), zlib.crc32(payload)) + payload


def learn_record(requests: list[tuple[Any, Any]]) -> bytes:
    """One record of a group of learn requests, each ``(X, y)`` as the model learnt it."""
    parts: list[bytes] = []
    specs = [{"X": _rows_spec(X, parts), "y": _array_spec(y, parts)} for X, y in requests]
    return _record({"kind": "learn", "requests": specs}, parts)


def point_record(kind: str, sha256: str, version: int) -> bytes:
    """A ``start`` or ``saved`` record: the model file of these bytes is at this version."""
    return _record({"kind": kind, "format": FORMAT, "model_sha256": sha256, "version": version})


# ---------------------------------------------------------------------- decoding
class _Payload:
    """The arrays of one record's payload, read in order."""

    def __init__(self, data: memoryview) -> None:
        self.data, self.at = data, 0

    def array(self, spec: Any) -> np.ndarray:
        dtype = np.dtype(spec["dtype"])
        if dtype.kind not in _KINDS or dtype.hasobject:
            raise ValueError(f"an array of {dtype}")
        shape = tuple(int(n) for n in spec["shape"])
        size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if self.at + size > len(self.data):
            raise ValueError("an array beyond the record")
        array = np.frombuffer(
            self.data, dtype=dtype, count=size // max(dtype.itemsize, 1), offset=self.at
        )
        self.at += size
        return array.reshape(shape).copy()  # writable, and free of the log's buffer

    def rows(self, spec: Any) -> Any:
        if "documents" in spec:
            documents = spec["documents"]
            if not isinstance(documents, list) or not all(isinstance(d, str) for d in documents):
                raise ValueError("documents that are not text")
            return documents
        if "csr" in spec:
            import scipy.sparse as sp

            csr = spec["csr"]
            parts = (self.array(csr["data"]), self.array(csr["indices"]), self.array(csr["indptr"]))
            return sp.csr_matrix(parts, shape=tuple(csr["shape"]))
        return self.array(spec["array"])


def _decode(payload: memoryview) -> dict:
    (length,) = _HEADER.unpack_from(payload)
    header = json.loads(bytes(payload[_HEADER.size : _HEADER.size + length]))
    if not isinstance(header, dict) or header.get("kind") not in ("start", "learn", "saved"):
        raise ValueError("a record of no known kind")
    if header["kind"] == "learn":
        arrays = _Payload(payload[_HEADER.size + length :])
        header["requests"] = [
            (arrays.rows(spec["X"]), arrays.array(spec["y"])) for spec in header["requests"]
        ]
    elif header.get("format") != FORMAT:
        raise ValueError(f"a log of format {header.get('format')!r} (this service writes {FORMAT})")
    return header


@dataclass
class LoggedLog:
    """What a log holds: its records (``start``/``saved``: a dict; ``learn``: a dict whose
    ``requests`` are ``(X, y)`` pairs), the bytes that hold them, and whether a record cut
    short followed (``torn``: the bytes past ``valid_bytes``)."""

    records: list[dict]
    valid_bytes: int
    torn: bool


def read_log(path: str | os.PathLike[str]) -> LoggedLog:
    """Read a log; a record cut short at its end is left out (``torn``).

    Raises
    ------
    LogError
        Damage before the last record, naming the byte where it starts.
    """
    with open(path, "rb") as handle:
        data = memoryview(handle.read())
    records: list[dict] = []
    at, torn = 0, False
    while at < len(data):
        problem = None
        if len(data) - at < _FRAME.size:
            problem = "cut"
        else:
            magic, length, crc = _FRAME.unpack_from(data, at)
            end = at + _FRAME.size + length
            if magic != _MAGIC:
                problem = "not a record"
            elif end > len(data):
                problem = "cut"
            elif zlib.crc32(data[at + _FRAME.size : end]) != crc:
                problem = "cut" if end == len(data) else "its checksum fails"
            else:
                try:
                    records.append(_decode(data[at + _FRAME.size : end]))
                except (ValueError, KeyError, TypeError, struct.error) as error:
                    problem = f"unreadable ({error})"
        if problem is not None and not records:
            break  # not even a first record: not a log (below)
        if problem == "cut":  # the last write, which a kill cut short: never answered
            torn = True
            break
        if problem is not None:
            raise LogError(
                f"{os.fspath(path)}: the learning log is damaged at byte {at} (record "
                f"{len(records) + 1}: {problem}); what it holds from there cannot be learnt. "
                "Move it aside to serve the model file alone (without what the log held "
                "past that byte), or restore it"
            )
        at = end
    if not records or records[0]["kind"] != "start":  # begin writes it whole, atomically
        raise LogError(
            f"{os.fspath(path)}: not a learning log of rosenblatt serve (it does not begin "
            "with a start record); give another log file, or move it aside"
        )
    return LoggedLog(records, at, torn)


def replay_plan(log: LoggedLog, sha256: str, log_name: str, model_name: str) -> tuple[int, list]:
    """``(version, requests)``: the model file's version (its bytes ``sha256``) and the
    learn requests logged after it, in order, that a restart learns.

    Raises
    ------
    LogError
        When no record names the model file: the log continues another model.
    """
    for i in range(len(log.records) - 1, -1, -1):
        record = log.records[i]
        if record["kind"] != "learn" and record["model_sha256"] == sha256:
            requests = [
                r
                for later in log.records[i + 1 :]
                if later["kind"] == "learn"
                for r in later["requests"]
            ]
            return int(record["version"]) + len(requests), requests
    named = [r["model_sha256"][:12] for r in log.records if r["kind"] != "learn"]
    raise LogError(
        f"{log_name} is the learning log of another model file (it continues a file whose "
        f"SHA-256 starts {named[0] if named else '(none)'}, and {model_name}'s starts "
        f"{sha256[:12]}); serve the model file it was written for, give another log file, "
        "or move it aside to serve this file alone"
    )


# ---------------------------------------------------------------------- writing
class Journal:
    """The learning log of one served model file, appended to by the service's one writer.

    Parameters
    ----------
    path : path-like
        The log's file (created when the first request is learnt).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._fd: int | None = None

    def begin(self, sha256: str, version: int) -> None:
        """Start the log afresh, atomically: a ``start`` record of the model file whose
        bytes have ``sha256``, at ``version``; appends go after it."""
        self.close()
        write_atomically(self.path, point_record("start", sha256, version))
        self._open()

    def resume(self, valid_bytes: int) -> None:
        """Append to the existing log after its first ``valid_bytes`` bytes (a record cut
        short past them goes)."""
        self.close()
        self._fd = os.open(self.path, os.O_WRONLY)
        if os.fstat(self._fd).st_size != valid_bytes:
            os.ftruncate(self._fd, valid_bytes)
            _sync(self._fd)
        os.lseek(self._fd, 0, os.SEEK_END)

    @property
    def open(self) -> bool:
        return self._fd is not None

    def _open(self) -> None:
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)

    def append(self, record: bytes) -> None:
        """Write a record and make it durable (one write, one ``fsync``)."""
        assert self._fd is not None, "begin or resume the log first"
        view = memoryview(record)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        _sync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _sync(fd: int) -> None:
    """The file's data (and its size) on disk."""
    getattr(os, "fdatasync", os.fsync)(fd)
