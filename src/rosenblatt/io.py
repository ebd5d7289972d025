"""Public path of :mod:`rosenblatt.data.io`, which defines these names."""

from .data.io import *  # noqa: F403
from .data.io import __all__  # noqa: F401
