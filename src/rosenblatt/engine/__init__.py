"""The training engine: state objects, one epoch driver, presentation orders.

Everything that trains in rosenblatt goes through here, so every path (``fit``,
``partial_fit``, streaming from files, parameter mixing on Dask, the
step-by-step trace, the command line) gives the same answer:

- :class:`PrimalState` (:mod:`.primal`): what a linear perceptron learns, and
  one epoch of the compiled rule on it;
- :class:`DualState` (:mod:`.dual`): the same for the kernel perceptron;
- :func:`run_epochs` (:mod:`.driver`): the stop rule, the convergence warning,
  the credit of the presentations a converged run skips, the ``on_epoch``
  callback (:class:`EpochReport`), from what each epoch counted
  (:class:`EpochCount`);
- :class:`EpochOrders` (:mod:`.orders`): the order of every epoch.

The names are loaded on first use, so importing the package stays cheap.
"""

import importlib

__all__ = [
    "DualState",
    "EpochCount",
    "EpochOrders",
    "EpochReport",
    "History",
    "PrimalRule",
    "PrimalState",
    "run_epochs",
]

_HOMES = {
    "DualState": "dual",
    "EpochCount": "driver",
    "EpochOrders": "orders",
    "EpochReport": "driver",
    "History": "driver",
    "PrimalRule": "primal",
    "PrimalState": "primal",
    "run_epochs": "driver",
}


def __getattr__(name):
    if name in _HOMES:
        value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
