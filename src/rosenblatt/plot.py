"""Public path of :mod:`rosenblatt.apps.plot`, which defines these names."""

from .apps.plot import *  # noqa: F403
from .apps.plot import __all__  # noqa: F401
