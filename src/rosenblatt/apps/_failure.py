"""What a server says of a request it failed on: one line, never a traceback."""

from __future__ import annotations

import traceback
from pathlib import Path

__all__ = ["failure"]


def failure(error: BaseException) -> str:
    """What failed and where, in one line: the exception and its innermost frame.

    Examples
    --------
    >>> try:
    ...     {}["rows"]
    ... except KeyError as error:
    ...     failure(error)
    "KeyError: 'rows' (<doctest rosenblatt.apps._failure.failure[0]>:2)"
    """
    frames = traceback.extract_tb(error.__traceback__)
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(error).__name__}: {error}{where}"
