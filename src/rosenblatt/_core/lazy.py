"""The package's lazy imports, one thread at a time.

``import rosenblatt`` stays cheap: its public names (and the classes a model file names) are
imported on first use. On Python 3.11, two threads whose first uses import two modules at once
import what those share side by side (scikit-learn, for the estimators), and one of them can
find a module the other has half made: an ``ImportError`` naming a "partially initialized
module", or a ``_DeadlockError`` (CPython gh-83065; a thread importing a package's submodule
does not wait for the package itself to finish). :func:`import_module` makes those imports
one after another. It is re-entrant, and nothing of the package calls it while importing a
module of its own.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType

__all__ = ["import_module", "is_convergence_warning"]

_LOCK = threading.RLock()


def import_module(name: str, package: str | None = None) -> ModuleType:
    """``importlib.import_module(name, package)``, the first import of each module made by
    one thread at a time.

    Examples
    --------
    >>> import_module(".validation", "rosenblatt._core").__name__
    'rosenblatt._core.validation'
    """
    full = importlib.util.resolve_name(name, package) if name.startswith(".") else name
    # always under the lock: a module another thread is making is already in sys.modules
    # (half made); an uncontended lock and a made module cost a microsecond
    with _LOCK:
        return importlib.import_module(full)


def is_convergence_warning(category: type[Warning]) -> bool:
    """Whether a warning of ``category`` is the ``ConvergenceWarning`` the engine's fits warn
    with (scikit-learn's), without importing scikit-learn: no warning is one before
    ``sklearn.exceptions`` is loaded (a fit that converged never loads it).

    Examples
    --------
    >>> is_convergence_warning(UserWarning)
    False
    """
    exceptions = sys.modules.get("sklearn.exceptions")
    return exceptions is not None and issubclass(category, exceptions.ConvergenceWarning)
