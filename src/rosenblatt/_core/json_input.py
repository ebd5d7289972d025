"""JSON from a client, read with bounds: the one reader the HTTP services share.

``json.loads`` alone recurses once per level of nesting, so a body of 100,000 ``[``
ends in a ``RecursionError``, and it reads ``NaN`` and ``Infinity``, which are not
JSON. :func:`loads` refuses both with a :class:`JSONInputError` (a ``ValueError``:
the service answers 400 with its message) before anything else reads the body.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

__all__ = ["MAX_DEPTH", "JSONInputError", "loads"]

#: The deepest nesting of arrays and objects a request may hold (a run request needs 3)
MAX_DEPTH = 32

_LARGEST = float(np.finfo(np.float64).max)
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
# Where a number may be beyond the float range: an exponent of three digits or more (e100,
# E+100), or 309 digits in a row. A body without either is read by json's own float parser
# (C), with the same values: only a body with one (or such text in a string) needs each float
# checked in Python. The body's shape (digits as 9, e and E as e, + kept, anything else a
# space) shows them to plain substring searches, which are quicker than a regex.
_SHAPE = bytes(
    ord("9") if b in b"0123456789" else ord("e") if b in b"eE" else b if b == ord("+") else 32
    for b in range(256)
)
_HUGE = (b"e999", b"e+999", b"9" * 309)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


class JSONInputError(ValueError):
    """A request body that is not JSON, or JSON the service does not read."""


def _depth(body: bytes, max_depth: int) -> int:
    """The deepest nesting of ``[`` and ``{`` in ``body``, outside strings (at most the
    number of openers: a body of few needs no closer look)."""
    openers = body.count(b"[") + body.count(b"{")
    if openers <= max_depth:
        return openers
    brackets = _STRING.sub(b'""', body).translate(None, _NOT_BRACKETS)  # [ ] { } alone, in order
    marks = np.frombuffer(brackets, dtype=np.uint8)
    steps = (marks == ord("[")).astype(np.int64) + (marks == ord("{"))
    steps -= (marks == ord("]")).astype(np.int64) + (marks == ord("}"))
    return int(np.cumsum(steps).max(initial=0))


def _no_constant(name: str) -> Any:
    raise JSONInputError(f"{name} is not a JSON number; send finite numbers only.")


def _beyond(text: str) -> JSONInputError:
    return JSONInputError(
        f"the number {text[:40]} is beyond the float range (about 1.8e308); send smaller numbers."
    )


def _finite(text: str) -> float:
    value = float(text)
    if value in (np.inf, -np.inf):  # 1e400 is JSON, but no float
        raise _beyond(text)
    return value


def _int(text: str) -> int:
    value = int(text)
    if abs(value) > _LARGEST:  # 10**400 is JSON too, and no float holds it
        raise _beyond(text)
    return value


def loads(body: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of ``body``: nested at most ``max_depth`` deep, without NaN or
    Infinity.

    Raises
    ------
    JSONInputError
        Naming what is wrong: the nesting, a number beyond the float range (``1e400``,
        ``NaN``, ``Infinity``), the JSON syntax or the text encoding.

    Examples
    --------
    >>> loads(b'{"eta": 0.5, "points": [[1, 2]]}')
    {'eta': 0.5, 'points': [[1, 2]]}
    >>> loads(b"[" * 1000 + b"]" * 1000)
    Traceback (most recent call last):
    ...
    rosenblatt._core.json_input.JSONInputError: the JSON is nested 1000 deep; at most 32 \
levels are read.
    >>> loads(b'{"eta": Infinity}')
    Traceback (most recent call last):
    ...
    rosenblatt._core.json_input.JSONInputError: Infinity is not a JSON number; send finite \
numbers only.
    >>> loads(b'{"eta": 1e400}')
    Traceback (most recent call last):
    ...
    rosenblatt._core.json_input.JSONInputError: the number 1e400 is beyond the float range \
(about 1.8e308); send smaller numbers.
    """
    depth = _depth(body, max_depth)
    if depth > max_depth:
        raise JSONInputError(
            f"the JSON is nested {depth} deep; at most {max_depth} levels are read."
        )
    try:
        shape = body.translate(_SHAPE)
        if not any(huge in shape for huge in _HUGE):
            return json.loads(body, parse_constant=_no_constant)
        return json.loads(body, parse_constant=_no_constant, parse_float=_finite, parse_int=_int)
    except JSONInputError:
        raise
    except UnicodeDecodeError as error:
        raise JSONInputError(f"the body is not UTF-8 text: {error}") from None
    except ValueError as error:  # json.JSONDecodeError
        raise JSONInputError(f"the body is not JSON: {error}") from None
