"""Every compiled kernel, as the engine calls it: from the library built at install, or numba's JIT.

``pip install`` builds the kernels' signatures (``signatures.json``) ahead of time into
one shared library beside this module (``_built/``, see :mod:`.ahead_of_time`), from
the very ``@njit`` functions numba would compile. A fresh process then calls machine
code it loads in milliseconds, without importing numba. :func:`compiled_kernel` gives
the callable the engine uses: a call whose argument types (:func:`.signatures.flatten`)
were built goes to the library through ``ctypes`` (which releases the GIL, so the
one-vs-rest threads still run side by side); any other call goes to numba's JIT,
which compiles it (or loads it from its disk cache) as before.

The library is used only when it is the one built from these sources for this CPU:
its manifest keeps the digest of the kernels' sources (the files ``sources.txt`` lists)
and what CPU it was built for. By default the code uses the host's instruction set, as
numba's JIT does, and only that CPU takes it; a portable build (``ROSENBLATT_CPU=generic``
at install, for wheels) uses only the architecture's baseline and is taken by any CPU of
that architecture. When it is missing (the build failed at install: its reason is kept
beside it, and :func:`warn_if_unused` prints it), stale (an editable install whose kernels
changed since; ``pip install -e .`` rebuilds it) or foreign, every call takes the JIT, and
:func:`library_status` says why.
``ROSENBLATT_KERNELS=jit`` forces the JIT; ``ROSENBLATT_KERNELS=built`` makes a call
the library cannot take an error (the tests use it to show the library covers every
signature users reach).

Examples
--------
>>> import numpy as np
>>> order = compiled_kernel("order.block_order")
>>> out = np.empty(8, dtype=np.int64), np.empty(8, dtype=np.int64)
>>> order(8, 2, 2, 7, *out)
>>> sorted(out[0].tolist())
[0, 1, 2, 3, 4, 5, 6, 7]
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib
import json
import os
import platform
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import sources_digest
from .signatures import Key, flatten, from_json

__all__ = [
    "BUILT",
    "C_SCALARS",
    "FAILURE_RECORD",
    "LIBRARY_NAME",
    "MANIFEST_FORMAT",
    "CompiledKernel",
    "compiled_kernel",
    "cpu_identity",
    "generic_identity",
    "library_status",
    "warn_if_unused",
]

#: Where ``pip install`` puts the library and its manifest.
BUILT = Path(__file__).with_name("_built")
LIBRARY_NAME = "librosenblatt_kernels.so"
#: Bumped when the calling convention of the built functions changes.
MANIFEST_FORMAT = 1
#: Beside the library: one line saying why the last build made none (written by the build).
FAILURE_RECORD = "build-failure.txt"

#: How a scalar of each dtype crosses into a built function, as an argument or a result: its
#: ctypes type here and its numba type in the cfunc (:mod:`.ahead_of_time`). A bool goes as an
#: int64 0 or 1, which has one C calling convention everywhere.
C_SCALARS = {
    "bool": (ctypes.c_int64, "int64"),
    "int64": (ctypes.c_int64, "int64"),
    "int32": (ctypes.c_int32, "int32"),
    "float64": (ctypes.c_double, "float64"),
    "float32": (ctypes.c_float, "float32"),
}


def cpu_identity() -> str:
    """What the library's machine code was built for: the CPU's model and instruction sets."""
    text = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            text = handle.read(1 << 16)
    except OSError:
        pass
    return _identity(text)


def _identity(cpuinfo: str) -> str:
    """:func:`cpu_identity` of the text of ``/proc/cpuinfo`` (empty where there is none).

    The model is the one ``cpuinfo`` names; only a system whose ``cpuinfo`` names none asks
    ``platform.processor()``, which runs ``uname -p`` in a subprocess: the first kernel call
    checks the library holding ``_LOCK``, and every other thread's first call waits for it.
    """
    lines = {}
    for line in cpuinfo.split("\n\n")[0].splitlines():
        name, _, value = line.partition(":")
        lines[name.strip()] = value.strip()
    model = lines["model name"] if "model name" in lines else platform.processor()
    wanted = [platform.machine(), model]
    wanted.append(" ".join(sorted(lines.get("flags", lines.get("Features", "")).split())))
    return hashlib.sha256("\n".join(wanted).encode()).hexdigest()


def generic_identity() -> str:
    """What a portable library (``ROSENBLATT_CPU=generic``) was built for: any CPU of this
    system and architecture.

    Examples
    --------
    >>> generic_identity().startswith("generic ")
    True
    """
    return f"generic {sys.platform} {platform.machine()}"


@dataclass
class _Entry:
    """One built signature: its C function and how results come back."""

    function: Any
    returns: Key
    outs: tuple[np.dtype, ...] = ()


@dataclass
class _Library:
    """The loaded library (or why there is none) and its signatures."""

    status: str
    entries: dict[tuple[str, Key], _Entry] = field(default_factory=dict)
    path: Path | None = None


_LOCK = threading.Lock()
_LOADED: list[_Library] = []


def _free_lock_in_child() -> None:
    """A fork copies ``_LOCK`` as it is: held, when another thread was loading the library at
    that moment, by a thread the child does not have; its first kernel call would wait for
    ever. The child gets a free lock (``_LOADED`` holds a whole library or none: one append)."""
    global _LOCK
    _LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):  # POSIX: Windows has no fork
    os.register_at_fork(after_in_child=_free_lock_in_child)


def _mode() -> str:
    mode = os.environ.get("ROSENBLATT_KERNELS", "auto").strip().lower() or "auto"
    if mode not in ("auto", "jit", "built"):
        raise ValueError(f"ROSENBLATT_KERNELS={mode!r}: use auto, jit or built")
    return mode


def _argtypes(key: Key, into: list[Any]) -> None:
    """The C parameters of one argument, in the order :func:`.signatures.flatten` gives them."""
    kind = key[0]
    if kind == "array":
        into.append(ctypes.c_void_p)
        into.extend([ctypes.c_int64] * key[2])
    elif kind == "scalar":
        into.append(C_SCALARS[key[1]][0])
    elif kind in ("named", "tuple"):
        for child in key[-1]:
            _argtypes(child, into)


def _failure(folder: Path) -> str | None:
    """Why the last build made no library, as it recorded it (None: it did not fail)."""
    try:
        return (folder / FAILURE_RECORD).read_text(errors="replace").strip() or None
    except OSError:
        return None


def _open(folder: Path = BUILT) -> _Library:
    """Load the library if it is the one built from these sources for this CPU."""
    library = _load(folder)
    failure = _failure(folder)
    if library.entries or failure is None:
        return library
    if library.status.startswith("not built"):
        return _Library(f"not built: {failure}")
    return _Library(f"not built: {failure}; the library there is {library.status}")


def _load(folder: Path) -> _Library:
    manifest_path = folder / "manifest.json"
    if not manifest_path.exists():
        return _Library("not built: no library beside the package (pip install did not build it)")
    try:
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("format") != MANIFEST_FORMAT:
            return _Library("stale: built by another version; run pip install again")
        if manifest.get("sources") != sources_digest():
            return _Library("stale: the kernels changed since the build; run pip install again")
        if manifest.get("cpu") not in (cpu_identity(), generic_identity()):
            return _Library("built for another CPU; run pip install on this machine")
        path = folder / manifest["library"]
        library = ctypes.CDLL(str(path))
        library.rb_runtime_init.restype = None
        library.rb_runtime_init()
        entries = {}
        for entry in manifest["entries"]:
            args, returns = from_json(entry["args"]), from_json(entry["returns"])
            function = library[entry["symbol"]]
            argtypes: list[Any] = []
            for arg in args:
                _argtypes(arg, argtypes)
            outs: tuple[np.dtype, ...] = ()
            if returns[0] == "tuple":
                outs = tuple(np.dtype(child[1]) for child in returns[1])
                argtypes.extend([ctypes.c_void_p] * len(outs))
                function.restype = None
            else:
                function.restype = C_SCALARS[returns[1]][0] if returns[0] == "scalar" else None
            function.argtypes = argtypes
            entries[(entry["kernel"], args)] = _Entry(function, returns, outs)
    except (OSError, KeyError, TypeError, ValueError, AttributeError) as error:
        return _Library(f"could not be loaded ({error}); numba's JIT runs the kernels")
    status = f"built at install: {len(entries)} signatures in {path}"
    if manifest["cpu"] == generic_identity():
        status += f" (portable: any {platform.machine()} CPU)"
    return _Library(status, entries, path)


def _library() -> _Library:
    if not _LOADED:
        with _LOCK:
            if not _LOADED:
                if _mode() == "jit":
                    _LOADED.append(_Library("not used: ROSENBLATT_KERNELS=jit"))
                else:
                    _LOADED.append(_open())
    return _LOADED[0]


def library_status() -> str:
    """Whether the kernels run from the library built at install, and if not, why.

    Examples
    --------
    >>> library_status().split(":")[0] in ("built at install", "not built", "not used", "stale")
    True
    """
    return _library().status


def _unused_line(status: str) -> str | None:
    """The line that says the library is not in use and why; None when it is, or when the JIT
    was asked for (``ROSENBLATT_KERNELS=jit``, now or at install)."""
    if status.startswith("built at install") or "ROSENBLATT_KERNELS=jit" in status:
        return None
    return (
        f"rosenblatt: the compiled kernels' library is not in use ({status}); "
        "numba's JIT compiles the kernels on first use instead (slower to start)"
    )


def warn_if_unused() -> None:
    """Print one line to standard error when the library is not in use, saying why.

    ``make demo`` and ``make test`` run it after ``pip install --quiet``, which hides the
    build's own output.
    """
    line = _unused_line(library_status())
    if line is not None:
        print(line, file=sys.stderr)


class CompiledKernel:
    """A compiled kernel, called as its ``@njit`` function is.

    Parameters
    ----------
    name : str
        ``module.function``, as :data:`.registry.KERNELS` names it.

    Attributes
    ----------
    built_calls, jit_calls : int
        The calls this process made through the library and through the JIT.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.built_calls = 0
        self.jit_calls = 0
        self._jit: Any = None

    def __repr__(self) -> str:
        return f"CompiledKernel({self.name!r})"

    @property
    def jit(self) -> Any:
        """numba's dispatcher of the kernel (importing it loads numba)."""
        if self._jit is None:
            from .registry import kernel

            self._jit = kernel(self.name).function
        return self._jit

    def __call__(self, *args: Any) -> Any:
        library = _library()
        flat: list[Any] = []
        key = tuple(flatten(arg, flat) for arg in args)
        entry = library.entries.get((self.name, key))
        if entry is None:
            if _mode() == "built":
                raise TypeError(
                    f"ROSENBLATT_KERNELS=built: {self.name} was not built for {key} "
                    f"(library: {library.status})"
                )
            self.jit_calls += 1
            return self.jit(*args)
        self.built_calls += 1
        if entry.outs:
            outs = [np.zeros(1, dtype=dtype) for dtype in entry.outs]
            entry.function(*flat, *(out.ctypes.data for out in outs))
            return tuple(out[0].item() for out in outs)
        result = entry.function(*flat)
        if entry.returns == ("scalar", "bool"):
            return bool(result)
        return result


_KERNELS: dict[str, CompiledKernel] = {}


def compiled_kernel(name: str) -> CompiledKernel:
    """The callable that runs kernel ``name`` (``module.function``), one per process."""
    found = _KERNELS.get(name)
    if found is None:
        importlib.import_module(f"{__package__}.registry").kernel(name)  # a KeyError if unknown
        found = _KERNELS.setdefault(name, CompiledKernel(name))
    return found
