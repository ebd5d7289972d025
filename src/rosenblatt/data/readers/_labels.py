"""Class labels, the same rules for every format, in memory and streamed.

A scan collects the distinct label strings of a file (each with the first line it
is on) and :func:`decide` turns them into classes, for the whole file (or for the
lines read so far, when a stream reads it a block at a time):

- numbers that are equal are one class (``1``, ``1.0`` and ``+1``), kept as int64;
- a number that is not whole (``0.5``), not finite (``nan``, ``inf``) or not below
  2**53 in magnitude is an error: a classifier needs class labels;
- text labels stay strings; the first label makes the file's labels numbers or
  text, and a label of the other kind is an error naming the first label's line;
- with ``names`` (a fixed list of labels) each label must be one of them and is
  read as its position in the list.

The labels are checked in file order, each against those before it, so every
error names the first row with a bad label, whatever comes after it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..._core.validation import label_too_large, label_too_large_message
from ...exceptions import DataFileError
from ._common import fail, show

#: What the label set turned out to be.
INT, TEXT, NAMES = "int", "text", "names"


def _number(label):
    try:
        return float(label)
    except ValueError:
        return None


def decide(
    path: str,
    first_lines: dict,
    *,
    numbers_only: bool = False,
    names: Sequence[str] | None = None,
) -> tuple[str, dict[Any, Any], np.ndarray]:
    """Classes from the distinct labels of a file (or of its lines read so far).

    The labels are checked in the order of their first lines, each against the ones
    before it, so the error is that of the first row with a bad label, and a file read
    a block at a time (the labels of the blocks before given too) fails as the whole
    file does: an empty label; with ``names``, a label not in them; a label of the
    other kind than the first label (text among numbers, or a number among text); a
    number that is no class label (see the module).

    Parameters
    ----------
    path : str
        For messages.
    first_lines : dict
        Each distinct label (str, or bytes for svmlight), stripped, and the first line it is on.
    numbers_only : bool, default=False
        Labels must be numbers (svmlight).
    names : sequence of str, default=None
        The allowed labels; a label is read as its position here.

    Returns
    -------
    kind : {"int", "text", "names"}
    mapping : dict
        Each distinct label to its value (an int, a str, or a position in ``names``).
    classes : ndarray
        The sorted class values (int64 or str).

    Examples
    --------
    >>> kind, mapping, classes = decide("d.csv", {"1": 2, "1.0": 3, "-1": 4})
    >>> kind, mapping, classes.tolist()
    ('int', {'1': 1, '1.0': 1, '-1': -1}, [-1, 1])
    >>> decide("d.csv", {"0": 1, "0.5": 2})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: d.csv, line 2: the labels look continuous: ...
    >>> decide("d.tsv", {"ham": 1, "2": 5})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: d.tsv, line 5: the label '2' is a number, but line 1 \
has the text 'ham'; ...
    """
    if not first_lines:
        return INT, {}, np.empty(0, dtype=np.int64)
    in_order = sorted(first_lines, key=first_lines.__getitem__)
    position = None if names is None else {name: k for k, name in enumerate(names)}
    values: dict[Any, Any] = {}
    first = None  # the first label: its kind is the file's
    for k, label in enumerate(in_order):
        line = first_lines[label]
        if not label:
            raise fail(path, line, "empty label", "give every sample a label", code="label")
        if position is not None:
            if label not in position:
                raise fail(
                    path,
                    line,
                    f"unknown label {show(label)}",
                    f"expected one of {', '.join(map(str, names or ()))}",
                    code="label",
                )
            values[label] = position[label]
            continue
        value = values[label] = _number(label)
        if value is None and numbers_only:
            raise fail(
                path,
                line,
                f"the label {show(label)} is not a number",
                "svmlight labels are numbers (use a .csv or .tsv file for text labels)",
                code="label",
            )
        if first is None:
            first = label
        elif (value is None) != (values[first] is None):
            raise fail(path, line, _mixed(label, first, first_lines[first]), _MIXED, code="label")
        if value is not None:
            what = _numeric_problem(label, value, in_order[: k + 1])
            if what:
                raise fail(path, line, what, code="label")
    if position is not None:
        return NAMES, values, np.arange(len(position), dtype=np.int64)
    if values[first] is None:
        mapping = {label: label for label in values}
        return TEXT, mapping, np.array(sorted(mapping), dtype=str)
    mapping = {label: int(value) for label, value in values.items()}
    return INT, mapping, np.array(sorted(set(mapping.values())), dtype=np.int64)


_MIXED = "labels must be all numbers or all text"


def _mixed(label, first, line):
    """What is wrong with ``label``, of the other kind than ``first`` (on ``line``)."""
    if _number(label) is None:
        return f"the label {show(label)} is text, but line {line} has the number {show(first)}"
    return f"the label {show(label)} is a number, but line {line} has the text {show(first)}"


def _numeric_problem(label, value, labels):
    if not math.isfinite(value):
        return f"the label {show(label)} is not a finite number; every sample needs a class label"
    if not value.is_integer():
        examples = ", ".join(show(v) for v in labels[:4])
        return (
            f"the labels look continuous: {show(label)} is not a whole number "
            f"(labels: {examples}{', ...' if len(labels) > 4 else ''}); a classifier "
            "needs class labels, such as 0/1, -1/+1 or names: round or bin the target, "
            "or use a regression model"
        )
    if label_too_large(value):
        return label_too_large_message(show(label))
    return None


def convert(
    labels: Sequence[Any],
    kind: str,
    mapping: Mapping[Any, Any],
    unknown: Callable[[int], Exception],
) -> np.ndarray:
    """The values of a block's labels (strings stripped as the scan stripped them).

    ``unknown(k)`` makes the error for the ``k``-th label when the scan did not see
    it (the file changed since).
    """
    try:
        values = [mapping[label] for label in labels]
    except KeyError:
        raise unknown(next(k for k, label in enumerate(labels) if label not in mapping)) from None
    return np.array(values, dtype=str if kind == TEXT else np.int64)


def changed(path: str, line: int, label: Any) -> DataFileError:
    """The error of a label that was not in the file when it was scanned."""
    return fail(
        path,
        line,
        f"the label {show(label)} was not in the file when it was scanned",
        "the file changed; read it again",
        code="changed",
    )
