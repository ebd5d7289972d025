"""Class labels, the same rules for every format, in memory and streamed.

A scan collects the distinct label strings of a file (each with the first line it
is on) and :func:`decide` turns them into classes once, for the whole file:

- numbers that are equal are one class (``1``, ``1.0`` and ``+1``), kept as int64;
- a number that is not whole (``0.5``), not finite (``nan``, ``inf``) or not below
  2**53 in magnitude is an error: a classifier needs class labels;
- text labels stay strings; a file mixing numbers and text is an error naming a
  line of each;
- with ``names`` (a fixed list of labels) each label must be one of them and is
  read as its position in the list.

Every error names the first line that shows the problem.
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
    """Classes from the distinct labels of a file.

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
    """
    if not first_lines:
        return INT, {}, np.empty(0, dtype=np.int64)
    empty = [line for label, line in first_lines.items() if not label]
    if empty:
        raise fail(path, min(empty), "empty label", "give every sample a label", code="label")
    if names is not None:
        return _named(path, first_lines, names)
    values = {label: _number(label) for label in first_lines}
    texts = [label for label, value in values.items() if value is None]
    if texts:
        text = min(texts, key=first_lines.__getitem__)
        if numbers_only:
            raise fail(
                path,
                first_lines[text],
                f"the label {show(text)} is not a number",
                "svmlight labels are numbers (use a .csv or .tsv file for text labels)",
                code="label",
            )
        if len(texts) < len(values):
            numbers = [label for label in values if values[label] is not None]
            number = min(numbers, key=first_lines.__getitem__)
            raise fail(
                path,
                first_lines[text],
                f"the label {show(text)} is text, but line {first_lines[number]} has "
                f"the number {show(number)}",
                "labels must be all numbers or all text",
                code="label",
            )
        mapping = {label: label for label in values}
        return TEXT, mapping, np.array(sorted(mapping), dtype=str)
    problems = []
    # messages do not depend on reading order
    in_order = sorted(values, key=first_lines.__getitem__)
    for label, value in values.items():
        what = _numeric_problem(label, value, in_order)
        if what:
            problems.append((first_lines[label], what))
    if problems:
        line, what = min(problems)
        raise fail(path, line, what, code="label")
    mapping = {label: int(value) for label, value in values.items()}
    return INT, mapping, np.array(sorted(set(mapping.values())), dtype=np.int64)


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


def _named(path, first_lines, names):
    position = {name: k for k, name in enumerate(names)}
    unknown = [label for label in first_lines if label not in position]
    if unknown:
        label = min(unknown, key=first_lines.get)
        raise fail(
            path,
            first_lines[label],
            f"unknown label {show(label)}",
            f"expected one of {', '.join(map(str, names))}",
            code="label",
        )
    mapping = {label: position[label] for label in first_lines}
    return NAMES, mapping, np.arange(len(names), dtype=np.int64)


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
