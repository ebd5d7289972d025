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
numba's JIT does, and only that CPU takes it. A portable build (``ROSENBLATT_CPU=generic``
at install, for wheels) holds one library per instruction-set level of the architecture
(:data:`LEVELS`: on x86-64 its baseline, x86-64-v3 and x86-64-v4; elsewhere the baseline
alone), and any CPU of that architecture takes the highest level whose every instruction set
its ``/proc/cpuinfo`` lists (:func:`best_level`), never one it lacks;
``ROSENBLATT_CPU_LEVEL`` caps the choice (a lower level, to compare or to work around a fault).
When it is missing (the build failed at install: its reason is kept
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
    "LEVELS",
    "LIBRARY_NAME",
    "MANIFEST_FORMAT",
    "CompiledKernel",
    "best_level",
    "compiled_kernel",
    "cpu_flags",
    "cpu_identity",
    "generic_identity",
    "level_library",
    "library_status",
    "portable_levels",
    "warn_if_unused",
]

#: Where ``pip install`` puts the library and its manifest.
BUILT = Path(__file__).with_name("_built")
LIBRARY_NAME = "librosenblatt_kernels.so"
#: Bumped when the calling convention of the built functions or the manifest's layout changes
#: (2: a library per instruction-set level).
MANIFEST_FORMAT = 2
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


# The x86-64 psABI's micro-architecture levels as LLVM compiles for them (its CPUs ``x86-64-v2``
# .. ``x86-64-v4``), each as the flags Linux lists in /proc/cpuinfo for the instruction sets it
# adds (pni: SSE3; abm: LZCNT; lahf_lm: LAHF/SAHF in 64-bit mode)
_X86_64_V2 = frozenset({"cx16", "lahf_lm", "pni", "popcnt", "sse4_1", "sse4_2", "ssse3"})
_X86_64_V3 = _X86_64_V2 | {"abm", "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave"}
_X86_64_V4 = _X86_64_V3 | {"avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl"}

#: The instruction-set levels a portable build holds, per architecture (``platform.machine()``),
#: lowest first: each level's name is the CPU LLVM compiles its library for, with the
#: ``/proc/cpuinfo`` flags a CPU must list to run that library. x86-64's baseline (SSE2) runs
#: everywhere; v3 (AVX2, FMA, Haswell and Zen on) and v4 (AVX-512) give the sparse rows' lane
#: selects the speed of a host build. An architecture not named holds its baseline alone.
LEVELS: dict[str, tuple[tuple[str, frozenset[str]], ...]] = {
    "x86_64": (("x86-64", frozenset()), ("x86-64-v3", _X86_64_V3), ("x86-64-v4", _X86_64_V4)),
}
_BASELINE_ONLY: tuple[tuple[str, frozenset[str]], ...] = (("generic", frozenset()),)


def portable_levels(machine: str | None = None) -> tuple[tuple[str, frozenset[str]], ...]:
    """The levels a portable build holds on ``machine`` (this one's by default), lowest first.

    Examples
    --------
    >>> [name for name, _ in portable_levels("x86_64")]
    ['x86-64', 'x86-64-v3', 'x86-64-v4']
    >>> [name for name, _ in portable_levels("aarch64")]
    ['generic']
    """
    return LEVELS.get(machine or platform.machine(), _BASELINE_ONLY)


def best_level(
    flags: frozenset[str] | set[str],
    built: list[str] | tuple[str, ...],
    machine: str | None = None,
    cap: str | None = None,
) -> str | None:
    """The highest level of ``built`` a CPU listing ``flags`` runs (None: none of them).

    A level runs where the CPU lists every flag its instructions need (:data:`LEVELS`); a name
    this architecture's levels do not hold is never taken, and none above ``cap`` (a name of
    them) is.

    Examples
    --------
    >>> built = ["x86-64", "x86-64-v3", "x86-64-v4"]
    >>> best_level(frozenset(), built, "x86_64")
    'x86-64'
    >>> haswell = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"}
    >>> best_level(haswell, built, "x86_64")  # but no SSE3..SSE4.2 flags: not v3 either
    'x86-64'
    >>> v2 = {"cx16", "lahf_lm", "pni", "popcnt", "sse4_1", "sse4_2", "ssse3"}
    >>> best_level(haswell | v2, built, "x86_64")
    'x86-64-v3'
    >>> best_level(haswell | v2, ["x86-64-v4"], "x86_64") is None
    True
    """
    levels = portable_levels(machine)
    top = len(levels) - 1 if cap is None else _cap_index(cap, machine)
    runnable = [
        name for name, needs in levels[: top + 1] if name in built and needs <= frozenset(flags)
    ]
    return runnable[-1] if runnable else None


def _cap_index(cap: str, machine: str | None = None) -> int:
    """Where level ``cap`` stands among ``machine``'s; a ``ValueError`` names them if nowhere."""
    names = [name for name, _ in portable_levels(machine)]
    if cap not in names:
        raise ValueError(f"ROSENBLATT_CPU_LEVEL={cap!r}: use {', '.join(names)}")
    return names.index(cap)


def level_library(level: str) -> str:
    """The file name of a portable build's library of ``level``.

    Examples
    --------
    >>> level_library("x86-64-v3")
    'librosenblatt_kernels.x86-64-v3.so'
    """
    stem, _, suffix = LIBRARY_NAME.rpartition(".")
    return f"{stem}.{level}.{suffix}"


def _cpuinfo() -> str:
    """The first 64 KiB of ``/proc/cpuinfo`` (empty where there is none)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            return handle.read(1 << 16)
    except OSError:
        return ""


def _cpuinfo_fields(cpuinfo: str) -> dict[str, str]:
    """The fields of the first processor ``cpuinfo`` describes."""
    fields = {}
    for line in cpuinfo.split("\n\n")[0].splitlines():
        name, _, value = line.partition(":")
        fields[name.strip()] = value.strip()
    return fields


def _flags(fields: dict[str, str]) -> frozenset[str]:
    return frozenset(fields.get("flags", fields.get("Features", "")).split())


def cpu_flags() -> frozenset[str]:
    """The instruction sets this CPU lists in ``/proc/cpuinfo`` (none where there is none: such
    a system takes only a portable build's baseline)."""
    return _flags(_cpuinfo_fields(_cpuinfo()))


def cpu_identity() -> str:
    """What the library's machine code was built for: the CPU's model and instruction sets."""
    return _identity(_cpuinfo())


def _identity(cpuinfo: str) -> str:
    """:func:`cpu_identity` of the text of ``/proc/cpuinfo`` (empty where there is none).

    The model is the one ``cpuinfo`` names; only a system whose ``cpuinfo`` names none asks
    ``platform.processor()``, which runs ``uname -p`` in a subprocess: the first kernel call
    checks the library holding ``_LOCK``, and every other thread's first call waits for it.
    """
    fields = _cpuinfo_fields(cpuinfo)
    model = fields["model name"] if "model name" in fields else platform.processor()
    wanted = [platform.machine(), model, " ".join(sorted(_flags(fields)))]
    return hashlib.sha256("\n".join(wanted).encode()).hexdigest()


def generic_identity() -> str:
    """What a portable build (``ROSENBLATT_CPU=generic``) was built for: any CPU of this
    system and architecture (each takes the best of its levels).

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
    cap = _level_cap()  # a wrong value is an error, as a wrong ROSENBLATT_KERNELS is
    manifest_path = folder / "manifest.json"
    if not manifest_path.exists():
        return _Library("not built: no library beside the package (pip install did not build it)")
    try:
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("format") != MANIFEST_FORMAT:
            return _Library("stale: built by another version; run pip install again")
        if manifest.get("sources") != sources_digest():
            return _Library("stale: the kernels changed since the build; run pip install again")
        levels = dict(manifest["levels"])  # level: library file
        portable = manifest.get("cpu") == generic_identity()
        if portable:
            built = list(levels)
            level = best_level(cpu_flags(), built, cap=cap)
            if level is None:
                return _Library(
                    f"built for other CPUs: this one lacks the instruction sets of every level "
                    f"built ({', '.join(built)}); run pip install on this machine"
                )
        elif manifest.get("cpu") == cpu_identity():
            level = "host"
        else:
            return _Library("built for another CPU; run pip install on this machine")
        path = folder / levels[level]
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
    if portable and len(levels) == 1:
        status += f" (portable: any {platform.machine()} CPU)"
    elif portable:
        status += f" (portable: {level} of {', '.join(levels)})"
    return _Library(status, entries, path)


def _level_cap() -> str | None:
    """The highest level a portable build may take, from ``ROSENBLATT_CPU_LEVEL`` (None: any);
    a ``ValueError`` names the levels when it is none of them."""
    cap = os.environ.get("ROSENBLATT_CPU_LEVEL", "").strip().lower() or None
    if cap is not None:
        _cap_index(cap)
    return cap


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
