"""rosenblatt: perceptron-family linear classification with the theory made executable.

The public names below are loaded on first use (PEP 562), so ``import rosenblatt``
stays cheap: numba, scikit-learn, matplotlib, Dask and the command line load only
when something needs them.
"""

import sys
import types

from ._core.lazy import import_module  # first uses, one thread at a time
from ._core.version import __version__  # noqa: F401 (in __all__)
from .exceptions import (  # noqa: F401 (in __all__)
    DataFileError,
    ModelFileError,
    NotSeparableError,
    NumericOverflowError,
)

# public name -> module that defines it
_EXPORTS = {
    "AveragedPerceptron": "estimators.linear",
    "CalibratedClassifier": "estimators.calibration",
    "CentroidClassifier": "estimators.baselines",
    "KernelPerceptron": "estimators.kernel",
    "Projectron": "estimators.projectron",
    "LinearProgramClassifier": "estimators.baselines",
    "OnlineCalibratedClassifier": "estimators.calibration",
    "ParameterMixing": "distributed",
    "PassiveAggressive": "estimators.passive_aggressive",
    "Perceptron": "estimators.linear",
    "TfDfTransformer": "estimators.text",
    "Trace": "theory.trace",
    "VotedPerceptron": "estimators.linear",
    "calibrated": "estimators.calibration",
    "fit_stream": "training.stream",
    "load": "persistence",
    "read_manifest": "persistence",
    "save": "persistence",
    "serve": "apps.serve",
    "to_onnx": "persistence.onnx",
    "trace": "theory.trace",
}
_SUBMODULES = {"datasets", "distributed", "streaming", "theory"}

__all__ = sorted(
    [
        *_EXPORTS,
        "DataFileError",
        "ModelFileError",
        "NotSeparableError",
        "NumericOverflowError",
        "__version__",
        "datasets",
        "theory",
    ]
)


def __getattr__(name):
    if name in _SUBMODULES:
        return import_module(f".{name}", __name__)
    if name in _EXPORTS:
        value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


def _alias_module(alias, target):
    """Make ``import rosenblatt.<alias>`` give a module that reads ``target`` on first use.

    ``rosenblatt.trace`` is the function (DESIGN contract); its module lives in
    :mod:`rosenblatt.theory.trace`. Importing a real submodule ``rosenblatt.trace`` would
    bind it over the function, so the old path is an entry of ``sys.modules`` (imports
    find it there and bind nothing) whose names load the target lazily (PEP 562).
    """
    module = types.ModuleType(f"{__name__}.{alias}", f"Alias of :mod:`{__name__}.{target}`.")

    def forward(name):
        return getattr(import_module(f".{target}", __name__), name)

    module.__getattr__ = forward
    sys.modules[module.__name__] = module


_alias_module("trace", "theory.trace")
