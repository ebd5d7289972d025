"""Build the kernels ahead of time into one shared library (what ``pip install`` runs).

Each signature of ``signatures.json`` becomes a C function: a numba ``cfunc`` that
takes a data pointer and a shape for every array and a value for every scalar,
rebuilds the typed bundles (:mod:`.bundles`) in nopython mode and calls the kernel's
``@njit`` function, so no rule is written twice. numba compiles each one as its
JIT would, for this CPU; its LLVM module is emitted as an object file (every symbol
but the entry point made private, so that the helpers several kernels share do not
clash), and the C compiler links the objects with numba's runtime (its allocator,
``nrt.cpp``, and the helpers of ``_helperlib.c``) into ``librosenblatt_kernels.so``.
With ``ROSENBLATT_CPU=generic`` (a wheel to share) the same is done once per
instruction-set level of the architecture (:data:`.loader.LEVELS`: x86-64's baseline,
x86-64-v3 and x86-64-v4), each level's numba optimising for and emitting that level's
CPU alone, into one library per level; the loader takes the best the running CPU has.
The manifest, written last, lists each signature's symbol (the same in every level's
library), the libraries and the digest of the sources they were built from (see
:mod:`.loader`, which loads one with ``ctypes``).

This module uses numba's compiler internals (a cfunc's code library and its final
LLVM module), which is why ``pyproject.toml`` bounds numba and llvmlite to the releases
it was tested with. The build checks itself: ``python -m
rosenblatt.engine.kernels.ahead_of_time FOLDER`` fails when any step fails, and records
why in ``FOLDER/build-failure.txt``; ``pip install`` goes on without the library (numba's
JIT then runs the kernels), and the loader names that reason
(:func:`.loader.warn_if_unused`, which ``make`` runs after ``pip install --quiet``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from . import sources_digest
from .loader import (
    BUILT,
    C_SCALARS,
    FAILURE_RECORD,
    LIBRARY_NAME,
    MANIFEST_FORMAT,
    cpu_identity,
    generic_identity,
    level_library,
    portable_levels,
)
from .signatures import Key, read_signatures

__all__ = ["build", "build_levels", "c_compilers", "cfunc_source", "target_cpu"]

#: ``ROSENBLATT_CPU``'s values: the host's instruction set (the default, as numba's JIT), or
#: the architecture's levels (:data:`.loader.LEVELS`), for a portable wheel.
TARGETS = ("host", "generic")

# numba's runtime helpers for a library loaded with ctypes: the inclusion pycc's
# modulemixin.c uses, without a Python module around it
_RUNTIME_C = r"""
#include "_numba_common.h"
#include "_pymodule.h"
#define NUMBA_EXPORT_FUNC(_rettype) VISIBILITY_HIDDEN _rettype
#define NUMBA_EXPORT_DATA(_vartype) VISIBILITY_HIDDEN _vartype
#define PYCC_COMPILING
#include "_helperlib.c"
int64_t _numba_hashsecret_siphash_k0;
int64_t _numba_hashsecret_siphash_k1;
int64_t _numba_hashsecret_djbx33a_suffix;
void NRT_MemSys_init(void);
/* the allocator of the kernels' own arrays (np.empty in nopython code): once per process */
__attribute__((visibility("default"))) void rb_runtime_init(void) {
    static int done = 0;
    if (!done) { NRT_MemSys_init(); done = 1; }
}
"""


def _expression(key: Key, params: list[tuple[str, str]]) -> str:
    """Python source that rebuilds one argument from the cfunc's parameters (appended)."""
    kind = key[0]
    if kind == "array":
        _, dtype, ndim, layout, _ = key
        if layout not in ("C", "F"):
            raise ValueError(f"no C form for {layout!r} arrays")
        pointer = f"p{len(params)}"
        params.append((pointer, "voidptr"))
        dims = []
        for _ in range(ndim):
            dims.append(f"p{len(params)}")
            params.append((dims[-1], "int64"))
        maker = "carray" if layout == "C" else "farray"
        return f"{maker}({pointer}, ({', '.join(dims)},), np.{dtype})"
    if kind == "scalar":
        name = f"p{len(params)}"
        params.append((name, C_SCALARS[key[1]][1]))
        return f"({name} != 0)" if key[1] == "bool" else name
    if kind == "none":
        return "None"
    if kind == "named":
        return f"bundles.{key[1]}({', '.join(_expression(c, params) for c in key[2])})"
    if kind == "tuple":
        return f"({''.join(_expression(c, params) + ', ' for c in key[1])})"
    raise ValueError(f"no C form for {key!r}")


def cfunc_source(args: Key, returns: Key) -> tuple[str, str, list[str]]:
    """The adapter of one signature: its Python source, the cfunc's signature, its parameters.

    Examples
    --------
    >>> source, signature, _ = cfunc_source(
    ...     (("array", "int64", 1, "C", False), ("scalar", "bool")), ("scalar", "int64")
    ... )
    >>> print(source)
    def adapter(p0, p1, p2):
        result = kernel(carray(p0, (p1,), np.int64), (p2 != 0))
        return result
    >>> signature
    'int64(voidptr, int64, int64)'
    """
    params: list[tuple[str, str]] = []
    call = f"kernel({', '.join(_expression(arg, params) for arg in args)})"
    lines = [f"    result = {call}"]
    if returns[0] == "tuple":
        result_type = "void"
        for index, child in enumerate(returns[1]):
            out = f"o{index}"
            params.append((out, "voidptr"))
            lines.append(f"    carray({out}, (1,), np.{child[1]})[0] = result[{index}]")
    elif returns[0] == "scalar":
        result_type = C_SCALARS[returns[1]][1]
        lines.append("    return result")
    elif returns[0] == "none":
        result_type = "void"
    else:
        raise ValueError(f"no C form for results of type {returns!r}")
    names = [name for name, _ in params]
    source = "\n".join([f"def adapter({', '.join(names)}):", *lines])
    signature = f"{result_type}({', '.join(kind for _, kind in params)})"
    return source, signature, names


def target_cpu() -> str:
    """The CPU the build emits code for, from ``ROSENBLATT_CPU``: ``"host"`` or ``"generic"``."""
    target = os.environ.get("ROSENBLATT_CPU", "").strip().lower() or "host"
    if target not in TARGETS:
        raise ValueError(f"ROSENBLATT_CPU={target!r}: use {' or '.join(TARGETS)}")
    return target


def build_levels(target: str) -> list[str]:
    """The levels a build of ``target`` compiles, lowest first: ``"host"`` alone, or the
    portable levels of this architecture (each named by the CPU LLVM compiles it for).

    Examples
    --------
    >>> build_levels("host")
    ['host']
    >>> import platform
    >>> build_levels("generic") == (
    ...     ["x86-64", "x86-64-v3", "x86-64-v4"] if platform.machine() == "x86_64" else ["generic"]
    ... )
    True
    """
    if target == "host":
        return ["host"]
    return [name for name, _ in portable_levels()]


def _use_cpu(level: str) -> None:
    """Make numba optimise for ``level`` (run first in each worker, before numba loads: its
    codegen reads ``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES`` once, when it loads).

    A level's features are those its CPU name implies (empty ``NUMBA_CPU_FEATURES``): by
    default numba would add every feature of the host, whatever CPU it is told.
    """
    if "numba" in sys.modules:
        raise RuntimeError(f"numba was loaded before the build for {level} could choose its CPU")
    if level == "host":
        os.environ.pop("NUMBA_CPU_NAME", None)
        os.environ.pop("NUMBA_CPU_FEATURES", None)
    else:
        os.environ["NUMBA_CPU_NAME"] = level
        os.environ["NUMBA_CPU_FEATURES"] = ""


def _compile(job: tuple[int, str, Key, Key, str, str]) -> tuple[int, str, float]:
    """Compile one signature for ``level`` into ``folder/<level>/kernel_<index>.o``; its symbol
    and seconds (in a worker whose numba :func:`_use_cpu` set to that level)."""
    index, name, args, returns, folder, level = job
    start = time.perf_counter()
    import llvmlite.binding as llvm
    import numpy as np
    from numba import carray, cfunc, farray, types
    from numba.core import config

    from . import bundles
    from .registry import kernel

    source, signature, _ = cfunc_source(args, returns)
    namespace = {
        "kernel": kernel(name).function,
        "bundles": bundles,
        "carray": carray,
        "farray": farray,
        "np": np,
    }
    exec(compile(source, f"<adapter of {name}>", "exec"), namespace)
    c_types = {
        "voidptr": types.voidptr,
        "void": types.void,
        **{name: getattr(types, name) for _, name in C_SCALARS.values()},
    }
    result_type, _, params = signature.partition("(")
    parameters = [c_types[p.strip()] for p in params.rstrip(")").split(",") if p.strip()]
    adapter = cfunc(c_types[result_type](*parameters))(namespace["adapter"])
    library = adapter._library  # type: ignore[attr-defined]  # numba's internals
    library._ensure_finalized()
    module = llvm.parse_bitcode(library._final_module.as_bitcode())  # a copy of our own
    symbol = f"rb_kernel_{index}"
    for function in module.functions:
        if function.is_declaration or function.name.startswith("llvm."):
            continue
        if function.name == adapter.native_name:
            function.name = symbol
        else:
            function.linkage = "internal"
    for variable in module.global_variables:
        if not variable.is_declaration and not variable.name.startswith("llvm."):
            variable.linkage = "internal"
    # the CPU numba's own codegen optimised for (_use_cpu): the host, or the level's alone
    # (read with getattr: numba sets them from the environment, its stubs do not declare them)
    optimised_for = (getattr(config, "CPU_NAME", None), getattr(config, "CPU_FEATURES", None))
    if optimised_for != ((None, None) if level == "host" else (level, "")):
        raise RuntimeError(f"numba optimises for {optimised_for[0]!r}, not for {level!r}")
    host = level == "host"
    machine = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name() if host else level,
        features=llvm.get_host_cpu_features().flatten() if host else "",
        opt=3,
        reloc="pic",
        codemodel="default",
    )
    Path(folder, level, f"kernel_{index}.o").write_bytes(machine.emit_object(module))
    return index, symbol, time.perf_counter() - start


def _compiler(variable: str, fallback: str) -> str:
    configured = os.environ.get(variable) or sysconfig.get_config_var(variable) or fallback
    command = str(configured).split()[0]
    if shutil.which(command) is None:
        raise FileNotFoundError(f"no C compiler: {command} (set {variable})")
    return command


def c_compilers() -> tuple[str, str]:
    """The C and C++ compilers the build uses (``CC``, ``CXX``, else Python's own, else gcc and
    g++); a ``FileNotFoundError`` names the one missing."""
    return _compiler("CC", "gcc"), _compiler("CXX", "g++")


def _runtime_objects(folder: Path) -> list[Path]:
    """numba's runtime helpers and allocator, compiled for the library."""
    import numba
    import numpy as np

    numba_dir = Path(numba.__file__).parent
    shim = folder / "runtime.c"
    shim.write_text(_RUNTIME_C)
    includes = [
        f"-I{numba_dir}",
        f"-I{numba_dir / 'core' / 'runtime'}",
        f"-I{sysconfig.get_paths()['include']}",
        f"-I{np.get_include()}",
    ]
    from numba import _helperlib

    ilp64 = int(getattr(_helperlib, "LAPACK_BUILD_ILP64", 0))
    cc, cxx = c_compilers()
    runtime, nrt = folder / "runtime.o", folder / "nrt.o"
    flags = ["-O2", "-fPIC", "-c", *includes]
    subprocess.run(
        [cc, *flags, f"-DNUMBA_LAPACK_BUILD_ILP64={ilp64}", str(shim), "-o", str(runtime)],
        check=True,
    )
    source = numba_dir / "core" / "runtime" / "nrt.cpp"
    subprocess.run([cxx, *flags, str(source), "-o", str(nrt)], check=True)
    return [runtime, nrt]


def build(
    folder: Path, jobs: int | None = None, log: Any = print, entries: list | None = None
) -> Path:
    """Build every signature of ``signatures.json`` (or of ``entries``, its form) into
    ``folder``, for each level of ``ROSENBLATT_CPU``'s target; return the manifest's path.

    The libraries and then the manifest replace the old ones only once everything built.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = target_cpu()
    levels = build_levels(target)
    entries = read_signatures() if entries is None else entries
    start = time.perf_counter()
    libraries = {
        level: LIBRARY_NAME if level == "host" else level_library(level) for level in levels
    }
    with tempfile.TemporaryDirectory(prefix="rosenblatt-kernels-") as scratch:
        runtime = _runtime_objects(Path(scratch))
        jobs = jobs or min(len(entries), os.cpu_count() or 1)
        symbols: dict[int, str] = {}
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        for level in levels:
            Path(scratch, level).mkdir()
            work = [
                (i, e["kernel"], e["args"], e["returns"], scratch, level)
                for i, e in enumerate(entries)
            ]
            # fresh workers for each level: numba reads the CPU it compiles for once, at import
            with ProcessPoolExecutor(
                jobs, mp_context=context, initializer=_use_cpu, initargs=(level,)
            ) as pool:
                for index, symbol, seconds in pool.map(_compile, work):
                    symbols[index] = symbol
                    log(f"  {level} {entries[index]['kernel']} #{index}: {seconds:.1f} s")
            objects = runtime + [Path(scratch, level, f"kernel_{i}.o") for i in range(len(work))]
            cxx = _compiler("CXX", "g++")
            subprocess.run(
                [cxx, "-shared", "-fPIC", "-o", str(Path(scratch, level, libraries[level]))]
                + [*map(str, objects), "-pthread", "-lm"],
                check=True,
            )
        manifest_path = folder / "manifest.json"
        manifest_path.unlink(missing_ok=True)  # no manifest names a half-copied library
        for old in folder.glob(f"{LIBRARY_NAME.partition('.')[0]}*"):  # another target's
            old.unlink()
        for level, name in libraries.items():
            shutil.move(str(Path(scratch, level, name)), folder / name)
    import numba

    manifest = {
        "format": MANIFEST_FORMAT,
        "sources": sources_digest(),
        "cpu": generic_identity() if target == "generic" else cpu_identity(),
        "target": target,
        "numba": numba.__version__,
        "levels": [[level, name] for level, name in libraries.items()],
        "entries": [
            {
                "kernel": e["kernel"],
                "args": e["args"],
                "returns": e["returns"],
                "symbol": symbols[i],
            }
            for i, e in enumerate(entries)
        ],
    }
    temporary = folder / "manifest.json.tmp"
    temporary.write_text(json.dumps(manifest) + "\n")
    os.replace(temporary, manifest_path)
    built = f" for {', '.join(levels)}" if target == "generic" else ""
    log(f"{len(entries)} kernel signatures built{built} in {time.perf_counter() - start:.0f} s")
    return manifest_path


def _reason(error: BaseException) -> str:
    """One line for the failure record: what failed."""
    if isinstance(error, subprocess.CalledProcessError):
        return f"the C compiler failed: {error.cmd[0]} exited with status {error.returncode}"
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0][:300] if text else ''}".rstrip(": ")


def main(folder: Path) -> None:
    """Build into ``folder``, keeping beside it a one-line record of why there is no library
    when the build fails (written first, so that a crash leaves one too)."""
    folder.mkdir(parents=True, exist_ok=True)
    record = folder / FAILURE_RECORD
    if os.environ.get("ROSENBLATT_KERNELS", "").strip().lower() == "jit":
        record.write_text("ROSENBLATT_KERNELS=jit at install: the build was skipped\n")
        print("ROSENBLATT_KERNELS=jit: the kernels are not built ahead of time", file=sys.stderr)
        return
    record.write_text("the build at install did not finish (pip install -v shows its output)\n")
    try:
        build(folder)
    except BaseException as error:
        record.write_text(f"the build at install failed: {_reason(error)}\n")
        raise
    record.unlink()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else BUILT)
