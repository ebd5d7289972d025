"""The training engine: state objects, one epoch driver, presentation orders.

Everything that trains in rosenblatt goes through here, so every path (``fit``,
``partial_fit``, streaming from files, parameter mixing on Dask, the
step-by-step trace, the command line) gives the same answer:

- :class:`PrimalState` (:mod:`.primal`): what a linear perceptron learns, and
  one epoch of the compiled rule on it;
- :class:`DualState` (:mod:`.dual`): the same for the kernel perceptron;
- :func:`train` (:mod:`.driver`): the one way in for training. A problem
  (:class:`PrimalProblem`, :class:`DualProblem`, :mod:`.problems`: what an epoch
  presents to which state; :class:`BatchEpochs`: an epoch that arrives in batches, each
  presented by the learner's own function, with the one resume of a started epoch) and
  a :class:`StopRule` (``max_iter``, ``tol``, ``n_iter_no_change``, early stopping) go
  in; the state is trained in place and the :class:`History` and the per-epoch reports
  (the ``on_epoch`` callback, :class:`EpochReport`, from what each epoch counted,
  :class:`EpochCount`) come out, with the convergence warning and the credit of the
  presentations a converged run skips;
- :class:`EpochOrders` (:mod:`.orders`): the order of every epoch.

The names are loaded on first use, so importing the package stays cheap.
"""

import importlib

__all__ = [
    "BatchEpochs",
    "DualState",
    "EpochCount",
    "EpochOrders",
    "EpochReport",
    "History",
    "DualProblem",
    "EpochLog",
    "PrimalProblem",
    "PrimalRule",
    "PrimalState",
    "StopRule",
    "train",
]

_HOMES = {
    "BatchEpochs": "problems",
    "DualState": "dual",
    "EpochCount": "driver",
    "EpochOrders": "orders",
    "EpochReport": "driver",
    "History": "driver",
    "DualProblem": "problems",
    "EpochLog": "problems",
    "PrimalProblem": "problems",
    "PrimalRule": "primal",
    "PrimalState": "primal",
    "StopRule": "driver",
    "train": "driver",
}


def __getattr__(name):
    if name in _HOMES:
        value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
