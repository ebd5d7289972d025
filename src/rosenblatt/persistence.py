"""Save and load fitted models without pickle: loading a file never runs code from it.

A model file is a zip archive:

- ``manifest.json``: the format name ``"rosenblatt-model"``, the format version,
  the library version, the model's class and parameters, optional metadata and
  the SHA-256 of every other member;
- ``state.json``: the model's attributes as a JSON tree (see below);
- ``arrays/<n>.npy``: numpy arrays, written and read with ``allow_pickle=False``.

The archive comment holds the SHA-256 of every byte before it, so a flipped or
missing byte anywhere in the file is caught before anything is decoded.

The state tree is built from an object's ``__dict__``, recursively, with an
allow-list: numbers, strings, booleans, None, lists, tuples and dicts of those,
numpy arrays and scalars of non-object dtype, scipy sparse matrices (stored as
their component arrays), numpy random states, and instances of the classes in
:data:`REGISTRY`. An object is rebuilt as ``cls.__new__(cls)`` with its
``__dict__`` restored; a class is only ever looked up in the registry, never
imported because a file names it. Anything else is refused when saving.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import struct
import tempfile
import zipfile
import zlib
from importlib import import_module

import numpy as np
import scipy.sparse as sp

from .exceptions import ModelFileError

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "REGISTRY", "load", "read_manifest", "save"]

FORMAT_NAME = "rosenblatt-model"
FORMAT_VERSION = 1

# Classes a model file may contain, by "module.QualifiedName". Loading resolves
# a name only through this table, so a file cannot make rosenblatt import anything else.
REGISTRY = (
    "rosenblatt.linear.Perceptron",
    "rosenblatt.linear.AveragedPerceptron",
    "rosenblatt.linear.VotedPerceptron",
    "rosenblatt._voting.VoteRecord",
    "rosenblatt._voting._Updates",
    "rosenblatt.kernel.KernelPerceptron",
    "rosenblatt.baselines.CentroidClassifier",
    "rosenblatt.baselines.LinearProgramClassifier",
    "rosenblatt.text.TfDfTransformer",
    "sklearn.pipeline.Pipeline",
    "sklearn.feature_extraction.text.CountVectorizer",
    "sklearn.feature_extraction.text.TfidfVectorizer",
    "sklearn.feature_extraction.text.TfidfTransformer",
    "sklearn.feature_extraction.text.HashingVectorizer",
    "sklearn.preprocessing._data.StandardScaler",
    "sklearn.preprocessing._data.MaxAbsScaler",
    "sklearn.preprocessing._data.Normalizer",
)

_MANIFEST = "manifest.json"
_STATE = "state.json"
_DIGEST_BYTES = 64  # hex SHA-256 in the archive comment
_ZIP_MAGIC = b"PK\x03\x04"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same model gives the same bytes
# numpy dtype kinds that np.save/np.load handle without pickle
_ARRAY_KINDS = frozenset("biufcUS")
_SCALAR_KINDS = frozenset("biuf")
_SPARSE_FORMATS = ("csr", "csc", "coo", "lil", "dok", "bsr", "dia")
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
# Everything a damaged archive can make zipfile, zlib, json or numpy raise.
_DAMAGE = (
    zipfile.BadZipFile, zlib.error, EOFError, KeyError, IndexError, ValueError, TypeError,
    struct.error, UnicodeDecodeError, NotImplementedError, RuntimeError, OverflowError,
    RecursionError, AttributeError,
)


def _class_key(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _resolve(key: str):
    """Return the registered class named ``key``, or None if it is not registered."""
    if key not in REGISTRY:
        return None
    module, _, name = key.rpartition(".")
    try:
        return getattr(import_module(module), name)
    except (ImportError, AttributeError):
        return None


# ---------------------------------------------------------------------- encoding
class _Encoder:
    """Turn an object graph into a JSON tree plus a list of arrays."""

    def __init__(self):
        self.arrays: list[np.ndarray] = []
        self._memo: dict[int, tuple[object, int]] = {}  # id -> (object kept alive, ref id)

    def _remember(self, value, node):
        ref = len(self._memo)
        self._memo[id(value)] = (value, ref)
        node["id"] = ref
        return node

    def _refuse(self, value, where, why=""):
        raise TypeError(
            f"Cannot save {where}: a {type(value).__module__}.{type(value).__qualname__} "
            f"{why}is not something a rosenblatt model file may hold (no pickle: only numbers, "
            "strings, lists, tuples, dicts, numpy arrays of non-object dtype, scipy sparse "
            "matrices, numpy random states and the classes in rosenblatt.persistence.REGISTRY). "
            "Convert it to one of those before saving."
        )

    def encode(self, value, where):
        if value is None or isinstance(value, (bool, str)):
            return value
        if type(value) is int:
            return value
        if type(value) is float:
            return value if math.isfinite(value) else {"$": "float", "value": repr(value)}
        if id(value) in self._memo:
            return {"$": "ref", "id": self._memo[id(value)][1]}
        if type(value) is list:
            return [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if type(value) is tuple:
            return {"$": "tuple", "items": [self.encode(v, f"{where}[{i}]")
                                            for i, v in enumerate(value)]}
        if type(value) is dict:
            items = []
            for k, v in value.items():
                key = self.encode(k, f"{where} key {k!r}")
                if isinstance(key, list) or (
                    isinstance(key, dict) and key["$"] not in ("tuple", "scalar", "float")
                ):
                    self._refuse(k, f"{where} key {k!r}", "used as a dict key ")
                items.append([key, self.encode(v, f"{where}[{k!r}]")])
            return {"$": "dict", "items": items}
        if isinstance(value, np.ndarray):
            return self._array(value, where)
        if isinstance(value, np.generic):
            if value.dtype.kind not in _SCALAR_KINDS:
                self._refuse(value, where, f"of dtype {value.dtype} ")
            return {"$": "scalar", "dtype": value.dtype.str,
                    "value": self.encode(value.item(), where)}
        if isinstance(value, np.dtype):
            return {"$": "dtype", "name": self._dtype_name(value, where)}
        if isinstance(value, type) and issubclass(value, np.generic):
            return {"$": "dtype_type", "name": self._dtype_name(np.dtype(value), where)}
        if sp.issparse(value):
            return self._sparse(value, where)
        if isinstance(value, np.random.RandomState):
            node = self._remember(value, {"$": "random_state"})
            node["state"] = self.encode(value.get_state(legacy=True), f"{where} state")
            return node
        if isinstance(value, np.random.Generator):
            bit_generator = type(value.bit_generator).__name__
            if bit_generator not in _BIT_GENERATORS:
                self._refuse(value.bit_generator, where)
            node = self._remember(value, {"$": "generator"})
            node["state"] = self.encode(value.bit_generator.state, f"{where} state")
            return node
        key = _class_key(type(value))
        if _resolve(key) is not type(value) or not hasattr(value, "__dict__"):
            self._refuse(value, where)
        node = self._remember(value, {"$": "object", "class": key})
        node["state"] = self.encode(dict(vars(value)), where)
        return node

    def _dtype_name(self, dtype, where):
        if dtype.kind not in _ARRAY_KINDS or dtype.fields is not None:
            self._refuse(dtype, where, f"({dtype}) ")
        return dtype.str

    def _array(self, value, where):
        if value.dtype.hasobject or value.dtype.kind not in _ARRAY_KINDS:
            self._refuse(value, where, f"of dtype {value.dtype} ")
        node = self._remember(value, {"$": "ndarray", "member": f"arrays/{len(self.arrays)}.npy"})
        self.arrays.append(value)
        return node

    def _sparse(self, value, where):
        fmt = value.format
        if fmt not in _SPARSE_FORMATS:
            self._refuse(value, where)
        node = self._remember(value, {"$": "sparse", "format": fmt,
                                      "array": isinstance(value, sp.sparray)})
        csr = value.tocsr()
        node["shape"] = list(csr.shape)
        for part in ("data", "indices", "indptr"):
            node[part] = self._array(np.asarray(getattr(csr, part)), f"{where}.{part}")
        return node


# ---------------------------------------------------------------------- decoding
class _Decoder:
    """Rebuild an object graph from a JSON tree and the archive's arrays."""

    def __init__(self, read_array):
        self._read_array = read_array
        self._refs: dict[int, object] = {}

    def _keep(self, node, value):
        ref = node.get("id")
        if not isinstance(ref, int) or ref in self._refs:
            raise ValueError(f"bad object id {ref!r}")
        self._refs[ref] = value
        return value

    def decode(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict):
            raise ValueError(f"unexpected JSON value {node!r:.60}")
        kind = node.get("$")
        if kind == "float":
            return float(_choose(node["value"], ("nan", "inf", "-inf")))
        if kind == "ref":
            return self._refs[node["id"]]
        if kind == "tuple":
            return tuple(self.decode(v) for v in node["items"])
        if kind == "dict":
            return {self.decode(k): self.decode(v) for k, v in node["items"]}
        if kind == "scalar":
            return _safe_dtype(node["dtype"], _SCALAR_KINDS).type(self.decode(node["value"]))
        if kind == "dtype":
            return _safe_dtype(node["name"], _ARRAY_KINDS)
        if kind == "dtype_type":
            return _safe_dtype(node["name"], _ARRAY_KINDS).type
        if kind == "ndarray":
            return self._keep(node, self._read_array(node["member"]))
        if kind == "sparse":
            return self._sparse(node)
        if kind == "random_state":
            state = self.decode(node["state"])
            if not (isinstance(state, tuple) and state and state[0] == "MT19937"):
                raise ValueError("a random state that is not MT19937")
            rs = np.random.RandomState()
            rs.set_state(state)
            return self._keep(node, rs)
        if kind == "generator":
            state = self.decode(node["state"])
            name = _choose(state["bit_generator"], _BIT_GENERATORS)
            bit_generator = getattr(np.random, name)()
            bit_generator.state = state
            return self._keep(node, np.random.Generator(bit_generator))
        if kind == "object":
            return self._object(node)
        raise ValueError(f"unknown node kind {kind!r:.40}")

    def _sparse(self, node):
        fmt = _choose(node["format"], _SPARSE_FORMATS)
        parts = [self.decode(node[p]) for p in ("data", "indices", "indptr")]
        if not all(isinstance(part, np.ndarray) and part.ndim == 1 for part in parts):
            raise ValueError("a sparse matrix whose parts are not 1-d arrays")
        shape = tuple(int(n) for n in node["shape"])
        csr = sp.csr_matrix(tuple(parts), shape=shape)
        value = csr.asformat(fmt)
        if node.get("array") is True:
            value = getattr(sp, f"{fmt}_array")(value)
        return self._keep(node, value)

    def _object(self, node):
        key = node["class"]
        cls = _resolve(key) if isinstance(key, str) else None
        if cls is None:
            raise _ForeignClass(key)
        obj = self._keep(node, cls.__new__(cls))  # before the state: it may refer back
        state = self.decode(node["state"])
        if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
            raise ValueError(f"the state of a {key} is not a dict of attributes")
        obj.__dict__.update(state)
        return obj


class _ForeignClass(Exception):
    def __init__(self, key):
        super().__init__(key)
        self.key = key


def _choose(value, allowed):
    if value not in allowed:
        raise ValueError(f"{value!r:.40} is not one of {allowed}")
    return value


def _safe_dtype(name, kinds):
    if not isinstance(name, str):
        raise ValueError("a dtype name must be a string")
    dtype = np.dtype(name)
    if dtype.kind not in kinds or dtype.hasobject or dtype.fields is not None:
        raise ValueError(f"dtype {name!r} is not allowed")
    return dtype


# ---------------------------------------------------------------------- save
def _npy_bytes(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def _describe_params(estimator) -> dict:
    """``get_params(deep=False)`` for people and tools reading the manifest (not used to load)."""
    get_params = getattr(estimator, "get_params", None)
    if get_params is None:
        return {}
    described = {}
    for name, value in get_params(deep=False).items():
        if value is None or isinstance(value, (bool, int, str)) or (
            isinstance(value, float) and math.isfinite(value)
        ):
            described[name] = value
        else:
            described[name] = repr(value)[:200]
    return described


def _archive_bytes(model, metadata) -> bytes:
    from . import __version__

    encoder = _Encoder()
    state = encoder.encode(model, type(model).__name__)
    members = {_STATE: json.dumps(state, allow_nan=False, separators=(",", ":")).encode()}
    for k, array in enumerate(encoder.arrays):
        members[f"arrays/{k}.npy"] = _npy_bytes(array)
    manifest = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "library_version": __version__,
        "class": _class_key(type(model)),
        "params": _describe_params(model),
        "metadata": metadata or {},
        "sha256": {name: hashlib.sha256(data).hexdigest() for name, data in members.items()},
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in [(_MANIFEST, json.dumps(manifest, indent=1).encode())] + list(
            members.items()
        ):
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.external_attr = 0o644 << 16  # rw-r--r-- when unzipped
            archive.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
        archive.comment = b"0" * _DIGEST_BYTES  # placeholder of the final length
    data = buffer.getvalue()
    digest = hashlib.sha256(data[:-_DIGEST_BYTES]).hexdigest().encode()
    return data[:-_DIGEST_BYTES] + digest


def save(model, path, *, metadata=None) -> None:
    """Save a fitted model to ``path`` in rosenblatt's pickle-free format.

    The file is written to a temporary file in the same directory, flushed to
    disk and renamed over ``path`` in one step, so ``path`` either keeps its old
    content or gets the complete new file; nothing is left behind on failure.

    Parameters
    ----------
    model : estimator
        A rosenblatt estimator, or a scikit-learn :class:`~sklearn.pipeline.Pipeline`
        of registered steps (for example a text vectorizer and a perceptron).
    path : str or path-like
        Where to write the model.
    metadata : dict, default=None
        JSON-serialisable notes stored in the manifest (the command line keeps
        the training data's format there); read them back with :func:`read_manifest`.

    Raises
    ------
    TypeError
        If the model holds something the format does not allow (a function, an
        object array, an unregistered class); the message names the attribute.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt import Perceptron
    >>> from rosenblatt.persistence import load, save
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> clf = Perceptron(shuffle=False).fit(X, y)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.rbm"
    >>> save(clf, path)
    >>> load(path).predict(X)
    array([-1,  1,  1,  1])
    """
    data = _archive_bytes(model, metadata)  # fails before any file is touched
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(directory)


def _fsync_directory(directory):
    """Make the rename itself durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------- load
def _fail(path, what, todo):
    return ModelFileError(f"{path}: {what}; {todo}")


_RESAVE = "re-save the model with rosenblatt.save (or `rosenblatt train`) and try again"


def _open(path):
    """Read and check a model file; return (manifest, archive, raw bytes)."""
    with open(path, "rb") as handle:
        data = handle.read()
    if not data.startswith(_ZIP_MAGIC):
        raise _fail(path, "not a rosenblatt model file (it is not a zip archive)",
                    "pass a file written by rosenblatt.save or `rosenblatt train --model`")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _DAMAGE:
        raise _fail(path, "the model file is truncated or damaged (its zip directory cannot "
                    "be read)", _RESAVE) from None
    try:
        raw_manifest = archive.read(_MANIFEST)
    except KeyError:
        raise _fail(path, "a zip archive but not a rosenblatt model (no manifest.json)",
                    "pass a file written by rosenblatt.save") from None
    except _DAMAGE:
        raise _fail(path, "the model file is damaged (manifest.json fails its checksum)",
                    _RESAVE) from None
    try:
        manifest = json.loads(raw_manifest)
    except _DAMAGE:
        raise _fail(path, "the model file is damaged (manifest.json is not valid JSON)",
                    _RESAVE) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise _fail(path, f"not a rosenblatt model (its manifest does not name the format "
                    f"{FORMAT_NAME!r})", "pass a file written by rosenblatt.save")
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _fail(path, f"the manifest has an invalid format_version {version!r}", _RESAVE)
    if version > FORMAT_VERSION:
        from . import __version__

        raise _fail(
            path,
            f"written by rosenblatt {manifest.get('library_version', '?')} in model format "
            f"version {version}, newer than this rosenblatt {__version__} reads (up to "
            f"version {FORMAT_VERSION})",
            "upgrade rosenblatt (pip install --upgrade rosenblatt) to load it",
        )
    if hashlib.sha256(data[:-_DIGEST_BYTES]).hexdigest().encode() != data[-_DIGEST_BYTES:]:
        raise _fail(path, "the model file was altered or damaged (its SHA-256 checksum does "
                    "not match)", _RESAVE)
    return manifest, archive


def read_manifest(path) -> dict:
    """Check a model file and return its manifest (format, versions, class, params, metadata).

    Nothing but the manifest is decoded, so this is a cheap way to look at a model.

    Raises
    ------
    rosenblatt.exceptions.ModelFileError
        If the file is not a model file, is damaged, or has a newer format version.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt.baselines import CentroidClassifier
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "c.rbm"
    >>> save(CentroidClassifier().fit([[0], [1]], [0, 1]), path, metadata={"note": "tiny"})
    >>> manifest = read_manifest(path)
    >>> manifest["class"], manifest["format_version"], manifest["metadata"]
    ('rosenblatt.baselines.CentroidClassifier', 1, {'note': 'tiny'})
    """
    manifest, archive = _open(path)
    archive.close()
    return manifest


def load(path):
    """Load a model saved by :func:`save`.

    Only the classes in :data:`REGISTRY` are ever instantiated, arrays are read
    with ``allow_pickle=False``, and every member is checked against its
    SHA-256 before it is decoded: loading a file cannot run code.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    estimator
        The model, predicting exactly as it did when it was saved.

    Raises
    ------
    rosenblatt.exceptions.ModelFileError
        If the file is truncated, altered (checksum mismatch), foreign (not a
        model file, or naming a class outside the registry), or written in a
        newer format version; the message says what to do.
    FileNotFoundError
        If there is no file at ``path``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt.persistence import load
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "not-a-model.rbm"
    >>> _ = path.write_text("hello")
    >>> load(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.ModelFileError: ...not a rosenblatt model file (it is not a zip...
    """
    manifest, archive = _open(path)
    with archive:
        hashes = manifest.get("sha256")
        if not isinstance(hashes, dict) or set(hashes) != set(archive.namelist()) - {_MANIFEST}:
            raise _fail(path, "the model file was altered (its members do not match the "
                        "manifest's list)", _RESAVE)

        def read(name):
            if not isinstance(name, str) or name not in hashes:
                raise ValueError(f"member {name!r:.60} is not listed in the manifest")
            data = archive.read(name)
            if hashlib.sha256(data).hexdigest() != hashes[name]:
                raise _fail(path, f"the model file was altered ({name} does not match its "
                            "SHA-256 in the manifest)", _RESAVE)
            return data

        def read_array(name):
            try:
                array = np.load(io.BytesIO(read(name)), allow_pickle=False)
            except ValueError as exc:
                if "pickle" in str(exc).lower():
                    raise _fail(path, f"{name} holds a pickled object, which rosenblatt never "
                                "loads (loading it could run code)",
                                "only load model files written by rosenblatt.save") from None
                raise
            if not isinstance(array, np.ndarray) or array.dtype.hasobject:
                raise ValueError(f"{name} is not a plain numpy array")
            return array

        try:
            state = json.loads(read(_STATE))
            model = _Decoder(read_array).decode(state)
        except ModelFileError:
            raise
        except _ForeignClass as exc:
            raise _fail(path, f"the file asks for class {exc.key!r:.120}, which rosenblatt does "
                        "not load (allowed: the classes in rosenblatt.persistence.REGISTRY)",
                        "only load model files written by rosenblatt.save") from None
        except _DAMAGE as exc:
            raise _fail(path, f"the model file is damaged ({type(exc).__name__}: {exc})",
                        _RESAVE) from None
    if _class_key(type(model)) != manifest.get("class"):
        raise _fail(path, f"the manifest names class {manifest.get('class')!r} but the state "
                    f"holds a {_class_key(type(model))}", _RESAVE)
    return model
