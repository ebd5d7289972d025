"""Public path of the command line, :mod:`rosenblatt.apps.cli` (``from rosenblatt.cli import
app``); the ``rosenblatt`` console script runs :func:`main`."""

from .apps.cli import app, main

__all__ = ["app", "main"]
