"""The old public paths of moved packages, for their submodules too.

``rosenblatt.playground`` is a thin module standing for
:mod:`rosenblatt.apps.playground`; :func:`forward` makes
``import rosenblatt.playground.runs`` import ``rosenblatt.apps.playground.runs`` and
bind that same module object under the old name (one module, never a second copy
with classes of its own), on first use, as the thin modules load everything else.
"""

from __future__ import annotations

import sys
from importlib import import_module
from importlib.machinery import ModuleSpec
from importlib.util import find_spec
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # pragma: no cover
    from importlib.abc import Loader  # importing it costs importlib.resources: types only

__all__ = ["forward"]


class _Forwarder:
    """A finder and loader on ``sys.meta_path`` for the submodules of the old paths."""

    def __init__(self) -> None:
        self.targets: dict[str, str] = {}  # old package name -> where it lives now

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        for old, new in self.targets.items():
            if fullname.startswith(old + "."):
                real = new + fullname[len(old) :]
                if find_spec(real) is None:
                    return None  # no such module: the usual ModuleNotFoundError
                return ModuleSpec(fullname, cast("Loader", self), origin=real)
        return None

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        # the module itself; the import system leaves its own name and spec as they are
        assert spec.origin is not None  # set by find_spec
        return import_module(spec.origin)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: :meth:`create_module` imported the module where it lives."""


_FORWARDER = _Forwarder()


def forward(old: str, new: str) -> None:
    """Make ``import old.x`` import the module ``new.x`` (the package ``old`` stands for ``new``).

    ``old`` must be imported (it is the calling alias module); it becomes a package
    without a folder of its own.

    Examples
    --------
    >>> import rosenblatt.playground.presets
    >>> from rosenblatt.apps.playground import presets
    >>> rosenblatt.playground.presets is presets
    True
    """
    sys.modules[old].__path__ = []  # a package: Python looks its submodules up
    _FORWARDER.targets[old] = new
    if _FORWARDER not in sys.meta_path:
        # first: a submodule of a forwarded module must not load a second time as a file
        sys.meta_path.insert(0, _FORWARDER)
