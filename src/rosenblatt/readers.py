"""Public path of :mod:`rosenblatt.data.readers`, which defines these names (and whose
modules import by their old names too: ``import rosenblatt.readers.textparse``)."""

from ._core.aliases import forward
from .data.readers import *  # noqa: F403
from .data.readers import __all__  # noqa: F401

forward(__name__, "rosenblatt.data.readers")
