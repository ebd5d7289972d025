"""Public path of the command line, :mod:`rosenblatt.apps.cli` (``from rosenblatt.cli import
app``); the ``rosenblatt`` console script runs :func:`main`. Its modules import by their
old names too (``import rosenblatt.cli.train``)."""

from ._core.aliases import forward
from .apps.cli import app, main

__all__ = ["app", "main"]

forward(__name__, "rosenblatt.apps.cli")
