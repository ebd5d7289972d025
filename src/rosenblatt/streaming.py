"""Public path of :mod:`rosenblatt.data.streaming`, which defines these names."""

from .data.streaming import *  # noqa: F403
from .data.streaming import __all__  # noqa: F401
