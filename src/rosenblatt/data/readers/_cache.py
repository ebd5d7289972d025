"""The binary cache of a scanned file: parse the text once, read chunks back as arrays.

Like Vowpal Wabbit's cache file: the scan that fixes a file's schema parses every
record anyway, so it writes the parsed records to a folder of flat binary files,
and every later pass over the file reads those instead of the text. A chunk is a
range of rows, read with plain reads into fresh arrays (no memory map, whose
touched pages would count as resident memory).

The folder holds, row ``k`` being the ``k``-th record of the file:

==============  ===========  ================================================
file            dtype        content
==============  ===========  ================================================
``labels``      int32        each row's label id (absent without labels)
``indptr``      int64        svmlight: CSR row pointers, ``n_rows + 1`` of them
``indices``     int32        svmlight: feature indices as written in the file
``values``      float64      svmlight: the nonzero values
``X``           float64      CSV: the feature cells, row after row
``text``        UTF-8        text: the documents, each ended by a newline
``ends``        int64        text: the byte offset after each document
``manifest``    JSON         the schema, the value of every label id, and the
                             source file (path, size, mtime) and the options it
                             was read with
==============  ===========  ================================================

``manifest.json`` is written last: a folder without one is not a cache. A kept
cache (``cache=<folder>``) is reused when the source file has the same size and
modification time and the reading options are the same; otherwise it is
rebuilt. A temporary cache lives in a fresh folder under the system's temporary
directory, removed when its schema is closed or garbage collected, or at exit.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.config import CACHE_FORMAT_VERSION, CACHE_TEMP_PREFIX, CACHE_WRITE_BYTES
from ..._core.files import check_writable
from ._store import NullStore, label_values

if TYPE_CHECKING:  # pragma: no cover
    from ._schema import Schema

MANIFEST = "manifest.json"
DTYPES = {
    "labels": np.int32,
    "indptr": np.int64,
    "indices": np.int32,
    "values": np.float64,
    "X": np.float64,
    "text": np.uint8,
    "ends": np.int64,
}
FILES = {
    "svmlight": ("indptr", "indices", "values"),
    "csv": ("X",),
    "text": ("text", "ends"),
}


def _files(kind, labelled):
    return FILES[kind] + (("labels",) if labelled else ())


def clear(folder: str | os.PathLike[str]) -> None:
    """Delete the cache files of ``folder`` (only those: the folder may hold others)."""
    for name in (MANIFEST, *DTYPES):
        try:
            os.remove(os.path.join(folder, name))
        except FileNotFoundError:
            pass


def new_folder() -> str:
    return tempfile.mkdtemp(prefix=CACHE_TEMP_PREFIX)


class CacheWriter(NullStore):
    """A store that appends every block's records to the cache files of ``folder``."""

    def __init__(self, folder, kind, labelled, key, temporary):
        super().__init__()
        self.folder, self.kind, self.key, self.temporary = folder, kind, key, temporary
        check_writable(folder, folder=True)  # a file of that name: said as every command says it
        os.makedirs(folder, exist_ok=True)
        clear(folder)
        self.handles = {}
        self.labelled = labelled
        self._open(labelled)
        self.nnz = 0
        self.text_bytes = 0
        self.skip = 0
        self.first_label = None
        if kind == "svmlight":
            self.handles["indptr"].write(np.zeros(1, np.int64).tobytes())

    def _open(self, labelled):
        for name in _files(self.kind, labelled):
            if name not in self.handles:
                path = os.path.join(self.folder, name)
                self.handles[name] = open(path, "wb", buffering=CACHE_WRITE_BYTES)

    def _write(self, name, array):
        self.handles[name].write(memoryview(np.ascontiguousarray(array, dtype=DTYPES[name])))

    def add(self, rows: Any) -> None:
        super().add(rows)
        if rows.labels is not None:
            if not self.labelled:  # decided on the way (labelled=None)
                self.labelled = True
                self._open(True)
            self._write("labels", rows.labels)
        if self.kind == "svmlight":
            self._write("indptr", rows.indptr[1:] + self.nnz)
            self._write("indices", rows.indices)
            self._write("values", rows.values)
            self.nnz += int(rows.indptr[-1])
        elif self.kind == "csv":
            self._write("X", rows.X)
        else:
            blob = ("\n".join(rows.documents) + "\n").encode("utf-8") if rows.n else b""
            breaks = np.flatnonzero(np.frombuffer(blob, dtype=np.uint8) == 10) + 1
            self._write("ends", breaks + self.text_bytes)
            self.handles["text"].write(blob)
            self.text_bytes += len(blob)

    def set_first(self, label: Any) -> None:
        self.first_label = label

    def skip_first(self) -> None:
        self.skip = 1

    def finish(self, schema: Schema, keys: Sequence[Any]) -> None:
        if self.first_label is not None:  # a CSV's first record, data after all: its label
            self.handles["labels"].seek(0)
            self._write("labels", np.array([self.first_label]))
        for handle in self.handles.values():
            handle.close()
        values = label_values(schema, keys)
        manifest = {
            "key": self.key,
            "rows": self.count,
            "skip": self.skip,
            "schema": _schema_to_json(schema),
            "label_values": None if values is None else values.tolist(),
        }
        temporary = os.path.join(self.folder, MANIFEST + ".part")
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(manifest, handle)
        os.replace(temporary, os.path.join(self.folder, MANIFEST))
        schema.cache = Cache(self.folder, manifest, values, self.temporary)
        if self.temporary:
            schema.remove_source_with_self(schema.cache.remove)

    def abort(self) -> None:
        for handle in self.handles.values():
            handle.close()
        if self.temporary:
            shutil.rmtree(self.folder, ignore_errors=True)
        else:
            clear(self.folder)


class Cache:
    """A finished cache folder: open it to read rows back."""

    def __init__(self, folder, manifest, values, temporary):
        self.folder, self.temporary = folder, temporary
        self.rows, self.skip = manifest["rows"], manifest["skip"]
        self.kind = manifest["schema"]["format"]
        self.labelled = manifest["schema"]["labelled"]
        self.n_features = manifest["schema"]["n_features"]
        self.values = values

    def open(self, recycle: int = 0) -> CacheReader:
        """A :class:`CacheReader`; ``recycle``: see there."""
        return CacheReader(self, recycle)

    def remove(self) -> None:
        """Delete the cache: the whole folder if it is temporary, else its cache files."""
        if self.temporary:
            shutil.rmtree(self.folder, ignore_errors=True)
        else:
            clear(self.folder)

    @property
    def nbytes(self) -> int:
        """Bytes of the cache files."""
        total = 0
        for name in _files(self.kind, self.labelled):
            total += os.path.getsize(os.path.join(self.folder, name))
        return total


class CacheReader:
    """Open cache files; :meth:`rows` reads a range of rows into arrays.

    The arrays are fresh unless ``recycle=k``: then the arrays of a call take the
    memory of the ``k``-th call before it (for a reader that uses each chunk
    before it asks for the ``k``-th next one: no new pages to fault in per chunk).
    """

    def __init__(self, cache, recycle=0):
        self.cache = cache
        self.handles = {
            name: open(os.path.join(cache.folder, name), "rb", buffering=0)
            for name in _files(cache.kind, cache.labelled)
        }
        self.pool = [{} for _ in range(recycle)]
        self.calls = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        for handle in self.handles.values():
            handle.close()

    def _read(self, name, start, stop):
        """Elements ``start:stop`` of a cache file, in an array of its own."""
        dtype = np.dtype(DTYPES[name])
        size = max(stop - start, 0)
        if self.pool:
            buffers = self.pool[self.calls % len(self.pool)]
            buffer = buffers.get(name)
            if buffer is None or buffer.shape[0] < size:
                buffer = buffers[name] = np.empty(size + size // 8, dtype=dtype)
            out = buffer[:size]
        else:
            out = np.empty(size, dtype=dtype)
        view = memoryview(out).cast("B")
        handle = self.handles[name]
        handle.seek(start * dtype.itemsize)
        done = 0
        while done < len(view):
            got = handle.readinto(view[done:])
            if not got:
                raise OSError(f"{handle.name}: the cache file is shorter than its manifest says")
            done += got
        return out

    def rows(self, start: int, stop: int) -> tuple[Any, np.ndarray | None]:
        """``(payload, label ids)`` of rows ``start:stop`` (see ``_store.assemble``)."""
        kind, n_features = self.cache.kind, self.cache.n_features
        if kind == "svmlight":
            indptr = self._read("indptr", start, stop + 1)
            first, last = int(indptr[0]), int(indptr[-1])
            if first:
                indptr -= first
            payload = (
                indptr,
                self._read("indices", first, last),
                self._read("values", first, last),
            )
        elif kind == "csv":
            payload = self._read("X", start * n_features, stop * n_features).reshape(
                stop - start, n_features
            )
        else:
            ends = self._read("ends", max(start - 1, 0), stop)
            first = int(ends[0]) if start else 0
            blob = self._read("text", first, int(ends[-1]) if len(ends) else first)
            payload = blob.tobytes().decode("utf-8").split("\n")[:-1]
        ids = self._read("labels", start, stop) if self.cache.labelled else None
        self.calls += 1
        return payload, ids


# ---------------------------------------------------------------------- manifest
def _key_json(value):
    """``value`` as JSON gives it back (numpy integers as ints, tuples as lists)."""
    if isinstance(value, dict):
        return {key: _key_json(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_key_json(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def cache_key(
    path: str | os.PathLike[str],
    stat: os.stat_result,
    kind: str,
    chunk_size: int | None,
    options: dict[str, Any],
) -> Any:
    """What a kept cache must match to be reused: the file as it was and the options."""
    return _key_json(
        {
            "version": CACHE_FORMAT_VERSION,
            "path": os.path.abspath(path),
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "format": kind,
            "chunk_size": chunk_size,
            **{name: options.get(name) for name in sorted(options)},
        }
    )


def _text_key(key):
    return ["b", key.decode("latin-1")] if isinstance(key, bytes) else ["s", key]


def _from_text_key(pair):
    kind, text = pair
    return text.encode("latin-1") if kind == "b" else text


def _schema_to_json(schema):
    classes = schema.classes
    return {
        "path": schema.path,
        "format": schema.format,
        "chunk_size": schema.chunk_size,
        "offsets": schema.offsets.tolist(),
        "first_lines": schema.first_lines.tolist(),
        "n_rows": schema.n_rows.tolist(),
        "classes": classes.tolist(),
        "classes_kind": classes.dtype.kind,
        "n_features": schema.n_features,
        "zero_based": schema.zero_based,
        "label_index": schema.label_index,
        "header": schema.header,
        "n_columns": schema.n_columns,
        "aside": schema.aside,
        "size": schema.size,
        "mtime_ns": schema.mtime_ns,
        "notes": list(schema.notes),
        "labelled": schema.labelled,
        "label_kind": schema.label_kind,
        "label_map": [[_text_key(k), v] for k, v in schema.label_map.items()],
        "encoding": schema.encoding,
        "extra_features": schema.extra_features,
        "extra_rows": schema.extra_rows,
    }


def _schema_from_json(data, schema_type):
    fields = dict(data)
    kind = fields.pop("classes_kind")
    fields["classes"] = np.array(fields["classes"], dtype=str if kind == "U" else np.int64)
    for name in ("offsets", "first_lines", "n_rows"):
        fields[name] = np.array(fields[name], dtype=np.int64)
    fields["label_map"] = {_from_text_key(k): v for k, v in fields["label_map"]}
    fields["source"] = fields["path"]
    return schema_type(**fields)


def load(folder: str | os.PathLike[str], key: Any, schema_type: type[Schema]) -> Schema | None:
    """The schema of a finished cache in ``folder`` made with ``key``, or None."""
    try:
        with open(os.path.join(folder, MANIFEST), encoding="utf-8") as handle:
            manifest = json.load(handle)
    except (OSError, ValueError):
        return None
    if manifest.get("key") != key:
        return None
    try:
        schema = _schema_from_json(manifest["schema"], schema_type)
        for name in _files(schema.format, schema.labelled):
            if not os.path.isfile(os.path.join(folder, name)):
                return None
    except (KeyError, TypeError, ValueError):
        return None
    values = manifest["label_values"]
    if values is not None:
        values = np.array(values, dtype=str if schema.label_kind == "text" else np.int64)
    schema.cache = Cache(folder, manifest, values, temporary=False)
    return schema
