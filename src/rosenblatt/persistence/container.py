"""The model file as a container: a zip archive of a manifest, the state's tree and
``.npy`` arrays, its checksums and limits, written atomically.

- ``manifest.json``: the format name :data:`FORMAT_NAME` and version
  :data:`FORMAT_VERSION`, the versions of what wrote the file, the model's class and
  parameters (for people and tools; loading does not use them), the metadata and the
  SHA-256 of every other member;
- ``state.json``: the model's tree of nodes (:mod:`~rosenblatt.persistence.encode`);
- ``arrays/<n>.npy``: numpy arrays, written and read with ``allow_pickle=False``, their
  headers checked (dtype, shape, size) before numpy allocates anything.

The archive comment holds the SHA-256 of every byte before it, so a flipped or missing
byte anywhere in the file is caught before anything is decoded. Before a member is
inflated, what its zip entry declares is held to ``rosenblatt._core.config``'s
``MODEL_MAX_MEMBER_BYTES`` and ``MODEL_MAX_TOTAL_BYTES`` (a zip bomb is refused
unread), and inflating never goes past it. The same model always gives the same bytes.

>>> import io, numpy as np
>>> from rosenblatt.persistence.container import npy_array, _npy_bytes
>>> npy_array("m.rbm", "arrays/0.npy", _npy_bytes(np.arange(3)))
array([0, 1, 2])
>>> npy_array("m.rbm", "arrays/0.npy", _npy_bytes(np.arange(3))[:-8])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: arrays/0.npy declares an array of shape (3,) and dtype int64 (24 bytes) but holds...
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import io
import json
import math
import os
import platform
import re
import stat
import struct
import sys
import zipfile
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .._core.files import write_atomically
from .._core.sparse import MAX_INDEX
from ..exceptions import ModelFileError
from .errors import RESAVE, RETRAIN, ZIP_DAMAGE, fail
from .policy import ARRAY_KINDS, CALLBACK_PARAMETERS, dtype_named, params_of
from .records import key_of_bare

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "write_atomically"]

FORMAT_NAME = "rosenblatt-model"
# Only files of this version load: the package was never released, so nothing reads the
# layouts that earlier commits wrote (format 1 rebuilt objects from their __dict__; format 2
# changed as the engine grew; format 3 held the engine's learners' public weights beside their
# state, where format 4 holds the state alone and rebuilds the weights from it); such a file
# gets the message to re-train.
FORMAT_VERSION = 4

MANIFEST_MEMBER = "manifest.json"
STATE_MEMBER = "state.json"
_DIGEST_BYTES = 64  # hex SHA-256 in the archive comment
_ZIP_MAGIC = b"PK\x03\x04"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same model gives the same bytes
# What a member may be: stored or deflated (the writer deflates), neither encrypted
# (flag bit 0), nor patched (bit 5), nor strongly encrypted (bit 6).
_COMPRESSIONS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_UNREADABLE_FLAGS = 0x1 | 0x20 | 0x40
_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")
_NPY_MAGIC = b"\x93NUMPY"
_NPY_VERSIONS = {(1, 0): "<H", (2, 0): "<I"}  # the header length's format, as numpy writes
_NPY_HEADER_CHARS = 10_000  # numpy's own bound on a header it parses safely
_READ_PIECE = 1 << 20  # bytes inflated at a time


# ---------------------------------------------------------------------- writing
def _npy_bytes(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def describe_params(estimator: Any) -> dict:
    """``get_params(deep=False)`` for people and tools reading the manifest (not used to load)."""
    return {
        name: None if name in CALLBACK_PARAMETERS else described(value)
        for name, value in params_of(estimator).items()
    }


def described(value: Any) -> Any:
    """A value as a manifest (or a checkpoint's record) shows it: plain JSON values as they
    are, anything else as text (:func:`_text`: an estimator by its class and the parameters
    it changes, without its training callbacks), without memory addresses (the same model
    gives the same bytes, however its training was shown) and cut at 200 characters.

    Examples
    --------
    >>> from rosenblatt import Perceptron
    >>> described(0.5), described(object())
    (0.5, '<object object>')
    >>> described(Perceptron(eta=0.5, on_epoch=print))
    'Perceptron(eta=0.5)'
    >>> described([("a", Perceptron()), ("b", None)])
    "[('a', Perceptron()), ('b', None)]"
    """
    if (
        value is None
        or isinstance(value, (bool, int, str))
        or (isinstance(value, float) and math.isfinite(value))
    ):
        return value
    return _ADDRESS.sub("", _text(value))[:200]


def is_estimator(value: Any) -> bool:
    """An estimator object (not a class): what has ``get_params``."""
    return hasattr(value, "get_params") and not isinstance(value, type)


def _text(value: Any) -> str:
    """``repr(value)``, except that an estimator in it (it, an item of a list or tuple of
    them: a Pipeline's steps, a parameter of one) is written as scikit-learn writes a short
    one, ``Name(changed=value, ...)``: its parameters that differ from its class's defaults,
    training callbacks left out, on one line. The same text for scikit-learn's classes and
    for the command line's stand-ins for them (:mod:`rosenblatt.estimators._bare_steps`,
    the learners of :mod:`rosenblatt.estimators._bare`), which have no scikit-learn repr:
    the model file is the same either way."""
    if isinstance(value, list):
        return "[" + ", ".join(_text(item) for item in value) + "]"
    if isinstance(value, tuple):
        items = [_text(item) for item in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, type) or not (is_estimator(value) or key_of_bare(type(value))):
        return repr(value)
    defaults = {
        parameter.name: parameter.default
        for parameter in inspect.signature(type(value).__init__).parameters.values()
        if parameter.default is not parameter.empty
    }
    changed = [
        f"{name}={_text(given)}"
        for name, given in params_of(value).items()
        if name not in CALLBACK_PARAMETERS
        and (name not in defaults or _text(given) != _text(defaults[name]))
    ]
    return f"{type(value).__name__}({', '.join(changed)})"


def _versions() -> dict:
    """The versions of what wrote a file."""
    import scipy

    from .._core.version import __version__

    return {
        "rosenblatt": __version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": _sklearn_version(),
        "python": platform.python_version(),
    }


def _sklearn_version() -> str:
    """The installed scikit-learn's version: its ``__version__`` once it is loaded, else its
    package's (a learner saved without scikit-learn's base classes, ``rosenblatt train``,
    does not load it: importing it takes longer than that command's whole run)."""
    sklearn = sys.modules.get("sklearn")
    if sklearn is not None:
        return str(sklearn.__version__)
    from importlib.metadata import version

    return version("scikit-learn")


def model_file_bytes(
    model: object,
    key: str,
    tree: Mapping[str, Any],
    arrays: Sequence[np.ndarray],
    metadata: Mapping[str, Any] | None,
) -> bytes:
    """The bytes of the model file of ``model`` (registry ``key``), whose encoded ``tree``
    names ``arrays``, with ``metadata`` in its manifest."""
    from .._core.version import __version__

    members = {STATE_MEMBER: json.dumps(tree, allow_nan=False, separators=(",", ":")).encode()}
    for k, array in enumerate(arrays):
        members[f"arrays/{k}.npy"] = _npy_bytes(array)
    manifest = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "library_version": __version__,
        "versions": _versions(),
        "class": key,
        "params": describe_params(model),
        "metadata": metadata or {},
        "sha256": {name: hashlib.sha256(data).hexdigest() for name, data in members.items()},
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in [(MANIFEST_MEMBER, json.dumps(manifest, indent=1).encode())] + list(
            members.items()
        ):
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.external_attr = 0o644 << 16  # rw-r--r-- when unzipped
            archive.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
        archive.comment = b"0" * _DIGEST_BYTES  # placeholder of the final length
    data = buffer.getvalue()
    digest = hashlib.sha256(data[:-_DIGEST_BYTES]).hexdigest().encode()
    return data[:-_DIGEST_BYTES] + digest


# ---------------------------------------------------------------------- reading
def _read_bytes(path, limit):
    """``(size, data)``: the file's size and its bytes (none past ``limit + 1``)."""
    with open(path, "rb") as handle:
        status = os.fstat(handle.fileno())
        size = status.st_size
        if size > limit:
            return size, b""
        if stat.S_ISREG(status.st_mode):
            return size, handle.read(size + 1)  # +1: a file that grew since is caught
        # a pipe or a device (/dev/zero): its size says nothing, read it in pieces
        pieces, got = [], 0
        while got <= limit:
            piece = handle.read(min(_READ_PIECE, limit + 1 - got))
            if not piece:
                break
            pieces.append(piece)
            got += len(piece)
        return size, b"".join(pieces)


def open_model(path: str | os.PathLike[str]) -> tuple[dict[str, Any], zipfile.ZipFile]:
    """Read and check a model file; return (manifest, archive)."""
    from .._core import config as _config

    limit = _config.MODEL_MAX_TOTAL_BYTES
    size, data = _read_bytes(path, limit)
    if size > limit or len(data) > limit:
        raise fail(
            path,
            f"the model file is larger than {limit} bytes, the most rosenblatt reads "
            "(rosenblatt._core.config.MODEL_MAX_TOTAL_BYTES)",
            "if you trust the file, raise that limit (rosenblatt._core.config."
            "MODEL_MAX_TOTAL_BYTES = ...) and load it again",
        )
    if not data.startswith(_ZIP_MAGIC):
        raise fail(
            path,
            "not a rosenblatt model file (it is not a zip archive)",
            "pass a file written by rosenblatt.save or `rosenblatt train --model`",
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except ZIP_DAMAGE:
        raise fail(
            path,
            "the model file is truncated or damaged (its zip directory cannot be read)",
            RESAVE,
        ) from None
    _check_sizes(path, archive)
    if MANIFEST_MEMBER not in archive.namelist():
        raise fail(
            path,
            "a zip archive but not a rosenblatt model (no manifest.json)",
            "pass a file written by rosenblatt.save",
        )
    raw_manifest = _inflate(path, archive, MANIFEST_MEMBER)
    try:
        manifest = json.loads(raw_manifest)
    except (ValueError, RecursionError):  # not JSON (or not UTF-8), or nested past reason
        raise fail(
            path, "the model file is damaged (manifest.json is not valid JSON)", RESAVE
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise fail(
            path,
            f"not a rosenblatt model (its manifest does not name the format {FORMAT_NAME!r})",
            "pass a file written by rosenblatt.save",
        )
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise fail(path, f"the manifest has an invalid format_version {version!r}", RESAVE)
    if version > FORMAT_VERSION:
        from .._core.version import __version__

        raise fail(
            path,
            f"written by rosenblatt {manifest.get('library_version', '?')} in model format "
            f"version {version}, newer than this rosenblatt {__version__} reads (up to "
            f"version {FORMAT_VERSION})",
            "upgrade rosenblatt (pip install --upgrade rosenblatt) to load it",
        )
    if hashlib.sha256(data[:-_DIGEST_BYTES]).hexdigest().encode() != data[-_DIGEST_BYTES:]:
        raise fail(
            path,
            "the model file was altered or damaged (its SHA-256 checksum does not match)",
            RESAVE,
        )
    return manifest, archive


def _check_sizes(path, archive):
    """Refuse, before inflating anything, members that declare more bytes than the limits."""
    from .._core import config as _config

    member_limit, total_limit = _config.MODEL_MAX_MEMBER_BYTES, _config.MODEL_MAX_TOTAL_BYTES
    total = 0
    for info in archive.infolist():
        if info.file_size > member_limit:
            raise fail(
                path,
                f"its member {info.filename!r:.80} inflates to {info.file_size} bytes, more "
                f"than the {member_limit} a member may (rosenblatt._core.config."
                "MODEL_MAX_MEMBER_BYTES): a zip bomb, or a very large model",
                "if you trust the file, raise that limit (rosenblatt._core.config."
                "MODEL_MAX_MEMBER_BYTES = ...) and load it again",
            )
        total += info.file_size
    if total > total_limit:
        raise fail(
            path,
            f"its members inflate to {total} bytes in all, more than the {total_limit} a "
            "model may (rosenblatt._core.config.MODEL_MAX_TOTAL_BYTES): a zip bomb, or a very "
            "large model",
            "if you trust the file, raise that limit (rosenblatt._core.config."
            "MODEL_MAX_TOTAL_BYTES = ...) and load it again",
        )


def _inflate(path, archive, name):
    """The bytes of member ``name``, inflated a piece at a time and never past the size its
    zip entry declares (which :func:`_check_sizes` has bounded)."""
    info = archive.getinfo(name)
    if info.compress_type not in _COMPRESSIONS or info.flag_bits & _UNREADABLE_FLAGS:
        raise fail(
            path,
            f"the model file is damaged or crafted (its member {name!r:.80} is compressed "
            f"with method {info.compress_type} and flagged {info.flag_bits:#x}; rosenblatt "
            "reads members stored or deflated, unencrypted)",
            RESAVE,
        )
    pieces, got = [], 0
    try:
        with archive.open(info) as member:
            while got <= info.file_size:
                piece = member.read(min(_READ_PIECE, info.file_size + 1 - got))
                if not piece:
                    break
                pieces.append(piece)
                got += len(piece)
    except ZIP_DAMAGE as exc:
        raise fail(
            path,
            f"the model file is damaged ({name} cannot be inflated: {exc!s:.200})",
            RESAVE,
        ) from None
    if got > info.file_size:
        raise fail(
            path,
            f"the model file is damaged or crafted (its member {name!r:.80} inflates to more "
            f"than the {info.file_size} bytes its zip entry declares)",
            RESAVE,
        )
    return b"".join(pieces)


def members(
    path: str | os.PathLike[str], manifest: Mapping[str, Any], archive: zipfile.ZipFile
) -> Callable[[str], bytes]:
    """``read(name)``: the bytes of the archive's member ``name``, checked against its
    SHA-256 in the manifest, after checking that the file is of a format version this
    rosenblatt loads and that its members are those the manifest lists."""
    if manifest["format_version"] < FORMAT_VERSION:
        from .._core.version import __version__

        raise fail(
            path,
            f"written by rosenblatt {manifest.get('library_version', '?')} in model format "
            f"{manifest['format_version']}, an earlier layout that this rosenblatt {__version__} "
            f"does not load (it reads format {FORMAT_VERSION})",
            RETRAIN,
        )
    hashes = manifest.get("sha256")
    if not isinstance(hashes, dict) or set(hashes) != set(archive.namelist()) - {MANIFEST_MEMBER}:
        raise fail(
            path,
            "the model file was altered (its members do not match the manifest's list)",
            RESAVE,
        )

    def read(name):
        if not isinstance(name, str) or name not in hashes:
            raise ValueError(f"member {name!r:.60} is not listed in the manifest")
        data = _inflate(path, archive, name)
        if hashlib.sha256(data).hexdigest() != hashes[name]:
            raise fail(
                path,
                f"the model file was altered ({name} does not match its SHA-256 in the manifest)",
                RESAVE,
            )
        return data

    return read


def npy_array(path: str | os.PathLike[str], name: str, data: bytes) -> np.ndarray:
    """Decode the ``.npy`` member ``name``, checking its header (dtype, shape, size)
    before numpy allocates anything: a plain array of a kind rosenblatt writes, else a
    ``ValueError`` (a :class:`~rosenblatt.exceptions.ModelFileError` for a pickle)."""
    if not data.startswith(_NPY_MAGIC):
        if data and not data.startswith(_ZIP_MAGIC):  # what np.load would unpickle
            raise _pickled(path, name)
        raise ValueError(f"{name} is not an .npy array")
    shape, dtype, offset = _npy_header(path, name, data)
    if not all(type(n) is int and 0 <= n <= MAX_INDEX for n in shape):
        raise ValueError(
            f"{name} declares an array of shape {shape!r:.80}: each dimension must be "
            f"an int from 0 to {MAX_INDEX}"
        )
    expected = math.prod(shape) * dtype.itemsize
    held = len(data) - offset
    if expected != held:
        raise ValueError(
            f"{name} declares an array of shape {shape!r:.80} and dtype {dtype} "
            f"({expected} bytes) but holds {held} bytes"
        )
    return np.load(io.BytesIO(data), allow_pickle=False)


def _npy_header(path, name, data):
    """``(shape, dtype, offset)`` from the header of the ``.npy`` bytes ``data`` (a dict
    literal of ``descr``, ``fortran_order`` and ``shape``, which numpy would parse and
    trust), checked before numpy sees it; the array's bytes begin at ``offset``."""
    version = tuple(data[len(_NPY_MAGIC) : len(_NPY_MAGIC) + 2])
    if version not in _NPY_VERSIONS:
        raise ValueError(f"{name} is in npy format {version}, which rosenblatt never writes")
    length_at = len(_NPY_MAGIC) + 2
    start = length_at + struct.calcsize(_NPY_VERSIONS[version])
    if len(data) < start:
        raise ValueError(f"{name} ends inside its header")
    (length,) = struct.unpack_from(_NPY_VERSIONS[version], data, length_at)
    text = data[start : start + length]
    if length > _NPY_HEADER_CHARS or len(text) != length or not text.endswith(b"\n"):
        raise ValueError(f"{name} has a header of {length} bytes that it does not hold")
    try:
        header = ast.literal_eval(text.decode("latin1"))
    # what literal_eval raises on text that is not a literal (the Python documentation)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        raise ValueError(f"{name} has a header that is not a Python literal") from None
    if not (isinstance(header, dict) and set(header) == {"descr", "fortran_order", "shape"}):
        raise ValueError(f"{name} has a header that is not numpy's")
    descr, shape = header["descr"], header["shape"]
    if isinstance(descr, str) and descr.lstrip("<>|=").startswith("O"):
        raise _pickled(path, name)
    if type(header["fortran_order"]) is not bool or not isinstance(shape, tuple):
        raise ValueError(f"{name} has a header that is not numpy's")
    return shape, dtype_named(descr, ARRAY_KINDS), start + length


def _pickled(path, name) -> ModelFileError:
    return fail(
        path,
        f"{name} holds a pickled object, which rosenblatt never loads (loading it could run code)",
        "only load model files written by rosenblatt.save",
    )
