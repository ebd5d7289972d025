"""The argument types of a compiled call, written without numba: one grammar for the library
built at install and for the calls that look it up.

A call's *key* is a nested tuple with one node per argument, the same type numba's
``typeof`` would give it:

- ``("array", dtype, ndim, layout, readonly)``: ``layout`` is ``"C"``, ``"F"`` or
  ``"A"`` (numba's rule: C-contiguous first, then Fortran-contiguous, else any);
- ``("scalar", dtype)``: a Python ``bool``, ``int`` or ``float`` is ``bool``, ``int64``
  or ``float64``; a numpy scalar is its dtype;
- ``("none",)``;
- ``("named", class_name, children)``: one of the bundles of :mod:`.bundles`;
- ``("tuple", children)``.

``signatures.json`` (beside this module) lists every key the warm-up variants of
:mod:`.registry` reach, with its return type: the signatures built ahead of time
(:mod:`.ahead_of_time`). ``tests/test_compiled_kernels.py`` checks that list against
the signatures numba compiles for the same variants, so it cannot go stale.

Examples
--------
>>> import numpy as np
>>> from rosenblatt.engine.kernels.bundles import Rows
>>> key_of(Rows(np.zeros((2, 3)), None))
('named', 'Rows', (('array', 'float64', 2, 'C', False), ('none',)))
>>> key_of((1.5, True, np.float32(2)))
('tuple', (('scalar', 'float64'), ('scalar', 'bool'), ('scalar', 'float32')))
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "SIGNATURES_FILE",
    "Key",
    "flatten",
    "from_json",
    "key_of",
    "key_of_type",
    "read_signatures",
]

#: The signatures built ahead of time, per kernel (written by :func:`write_signatures`).
SIGNATURES_FILE = Path(__file__).with_name("signatures.json")

Key = tuple[Any, ...]

_PYTHON_SCALARS = {bool: "bool", int: "int64", float: "float64"}


#: Each dtype's name, as flatten has met them (every call flattens about 20 arrays).
_DTYPE_NAMES: dict[np.dtype, str] = {}


def flatten(value: Any, flat: list[Any]) -> Key:
    """The key of ``value`` (one argument, or a tuple of them), appending to ``flat`` the C
    values a built function takes for it: each array's data pointer and shape, each scalar."""
    kind = type(value)
    if kind is np.ndarray or isinstance(value, np.ndarray):  # memmaps too, as numba types them
        flags = value.flags
        layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
        if not flags.aligned:
            layout = "unaligned"  # never built: such a call goes to the JIT
        flat.append(value.ctypes.data)
        flat.extend(value.shape)
        dtype = value.dtype
        name = _DTYPE_NAMES.get(dtype)
        if name is None:  # numpy works a dtype's name out in Python, 3 us each time
            name = _DTYPE_NAMES.setdefault(dtype, dtype.name)
        return ("array", name, value.ndim, layout, not flags.writeable)
    if value is None:
        return ("none",)
    if kind in _PYTHON_SCALARS:
        flat.append(int(value) if kind is bool else value)
        return ("scalar", _PYTHON_SCALARS[kind])
    if isinstance(value, np.generic):
        flat.append(value.item())
        return ("scalar", value.dtype.name)
    if isinstance(value, tuple):
        children = tuple(flatten(item, flat) for item in value)
        if hasattr(kind, "_fields"):
            return ("named", kind.__name__, children)
        return ("tuple", children)
    return ("other", kind.__name__)


def key_of(value: Any) -> Key:
    """The key of one argument (or of a tuple of arguments) as numba would type it."""
    return flatten(value, [])


def key_of_type(numba_type: Any) -> Key:
    """The key of a numba type (what :func:`key_of` gives a value of that type)."""
    from numba.core import types

    if isinstance(numba_type, types.Array):
        layout, dtype = numba_type.layout, np.dtype(str(numba_type.dtype)).name
        return ("array", dtype, numba_type.ndim, layout, not numba_type.mutable)
    if isinstance(numba_type, types.NoneType):
        return ("none",)
    if isinstance(numba_type, types.Boolean):
        return ("scalar", "bool")
    if isinstance(numba_type, types.Number):
        return ("scalar", np.dtype(str(numba_type)).name)
    members: Any = numba_type  # numba's tuple types, untyped for mypy
    if isinstance(numba_type, types.BaseNamedTuple):
        children = tuple(key_of_type(item) for item in members.types)
        return ("named", members.instance_class.__name__, children)
    if isinstance(numba_type, types.BaseTuple):
        return ("tuple", tuple(key_of_type(item) for item in members.types))
    raise TypeError(f"no key for the numba type {numba_type}")


def from_json(node: Any) -> Any:
    """A key read back from JSON: lists become tuples, all the way down."""
    if isinstance(node, list):
        return tuple(from_json(item) for item in node)
    return node


def read_signatures(path: Path = SIGNATURES_FILE) -> list[dict[str, Any]]:
    """The entries of ``signatures.json``: ``kernel``, ``args`` (a key) and ``returns``."""
    entries = json.loads(path.read_text())
    return [
        {"kernel": e["kernel"], "args": from_json(e["args"]), "returns": from_json(e["returns"])}
        for e in entries
    ]


def jit_signatures() -> list[dict[str, Any]]:
    """Every signature numba has compiled so far in this process for the registry's kernels."""
    from .registry import KERNELS

    found = []
    for kernel in KERNELS:
        dispatcher = kernel.function
        for signature in dispatcher.signatures:
            returns = dispatcher.overloads[signature].signature.return_type
            found.append(
                {
                    "kernel": kernel.name,
                    "args": tuple(key_of_type(t) for t in signature),
                    "returns": key_of_type(returns),
                }
            )
    return sorted(found, key=lambda e: (e["kernel"], repr(e["args"])))
