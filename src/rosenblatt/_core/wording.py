"""Advice in the words of whoever reads it: a parameter in Python, an option on the command line.

Messages that name a fix (an error's remedy, a warning's advice, a reader's note)
give both spellings once, to :func:`spelled` (or a parameter's name to
:func:`parameter_name`); the command line's group sets the flag for the length of a
command (:func:`command_line`), so ``rosenblatt`` says ``--no-header`` where Python
says ``header=False``, and never both.

A process-wide switch rather than a context variable: the warnings of a fit come from
whatever thread runs the epochs, and one process runs one command. It counts the
blocks open (under a lock) rather than saving and restoring a flag, so that blocks
entered and left by several threads at once, in any order, leave it off at the end.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["command_line", "parameter_name", "spelled"]

#: The command line's option for each parameter a message may name.
OPTIONS = {
    "max_iter": "--max-iter",
    "epochs": "--max-iter",  # fit_stream's name for the epochs: train --stream --max-iter
    "format": "--format",
    # the estimator parameters `train` sets from options of their own name, so the
    # estimator's constraint check words its error for the command line
    "eta": "--eta",
    "random_state": "--seed",
    "intercept_scaling": "--intercept-scaling",
    "multi_class": "--multi-class",
    "n_jobs": "--n-jobs",
    "tol": "--tol",
    "kernel": "--kernel",
    "gamma": "--gamma",
    "degree": "--degree",
}

_open_blocks = 0  # command_line() blocks being run, in any thread
_lock = threading.Lock()


def spelled(python: str, command_line: str) -> str:
    """``python`` from the library, ``command_line`` while a ``rosenblatt`` command runs.

    Examples
    --------
    >>> spelled("header=False", "--no-header")
    'header=False'
    >>> with command_line():
    ...     spelled("header=False", "--no-header")
    '--no-header'
    """
    return command_line if _open_blocks else python


def parameter_name(parameter: str) -> str:
    """A parameter's name, or its option (:data:`OPTIONS`) on the command line.

    Examples
    --------
    >>> parameter_name("max_iter")
    'max_iter'
    >>> with command_line():
    ...     parameter_name("max_iter"), parameter_name("max_rounds")
    ('--max-iter', 'max_rounds')
    """
    return spelled(parameter, OPTIONS.get(parameter, parameter))


@contextmanager
def command_line() -> Iterator[None]:
    """Word messages for the command line while the ``with`` block runs."""
    global _open_blocks
    with _lock:
        _open_blocks += 1
    try:
        yield
    finally:
        with _lock:
            _open_blocks -= 1
