"""rosenblatt: perceptron-family linear classification with the theory made executable.

The public names below are loaded on first use (PEP 562), so ``import rosenblatt``
stays cheap: numba, scikit-learn, matplotlib, Dask and the command line load only
when something needs them.
"""

import importlib
import sys
import types

from .exceptions import DataFileError, ModelFileError, NotSeparableError  # noqa: F401 (in __all__)

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {
    "AveragedPerceptron": "estimators.linear",
    "CalibratedClassifier": "estimators.calibration",
    "CentroidClassifier": "estimators.baselines",
    "KernelPerceptron": "estimators.kernel",
    "LinearProgramClassifier": "estimators.baselines",
    "ParameterMixing": "distributed",
    "Perceptron": "estimators.linear",
    "TfDfTransformer": "estimators.text",
    "Trace": "trace",
    "VotedPerceptron": "estimators.linear",
    "calibrated": "estimators.calibration",
    "fit_stream": "streaming",
    "load": "persistence",
    "read_manifest": "persistence",
    "save": "persistence",
    "trace": "trace",
}
_SUBMODULES = {"datasets", "distributed", "plot", "streaming", "theory"}

__all__ = sorted(
    [
        *_EXPORTS,
        "DataFileError",
        "ModelFileError",
        "NotSeparableError",
        "__version__",
        "datasets",
        "theory",
    ]
)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """Keeps ``rosenblatt.trace`` the function when the ``rosenblatt.trace`` module loads.

    Importing a submodule binds it as an attribute of its package; the public
    name ``trace`` is the function (DESIGN contract), which lives in the module
    of the same name. ``from rosenblatt.trace import ...`` still reaches the module.
    """

    def __setattr__(self, name, value):
        if name == "trace" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
