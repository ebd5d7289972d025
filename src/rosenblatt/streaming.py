"""Public path of :mod:`rosenblatt.data.streaming`, which defines these names, and of
:func:`~rosenblatt.training.stream.fit_stream`, which trains on a stream."""

from .data.streaming import *  # noqa: F403
from .data.streaming import __all__ as _data_names
from .training.stream import fit_stream  # noqa: F401 (in __all__)

__all__ = sorted([*_data_names, "fit_stream"])
