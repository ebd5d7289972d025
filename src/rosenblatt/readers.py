"""Public path of :mod:`rosenblatt.data.readers`, which defines these names."""

from .data.readers import *  # noqa: F403
from .data.readers import __all__  # noqa: F401
