"""Public path of :mod:`rosenblatt.data.streaming`, which defines these names, and of
:func:`~rosenblatt.persistence.stream_training.fit_stream`, which trains on a stream."""

from .data.streaming import *  # noqa: F403
from .data.streaming import __all__ as _data_names
from .persistence.stream_training import fit_stream  # noqa: F401 (in __all__)

__all__ = sorted([*_data_names, "fit_stream"])
