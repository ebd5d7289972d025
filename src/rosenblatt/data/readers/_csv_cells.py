"""CSV cells and records, as both the scan and the parse of a block read them.

The dialect (:mod:`csv`'s, with surrounding whitespace stripped), what a feature cell
must be (:func:`cell_problem`: what ``float()`` reads of it, finite), how an error names a
column, the records of a block of lines (:func:`csv_records`, quoted fields across lines),
the columns set aside (:func:`aside_columns`), and the compiled parser of a block of
lines without quotes (:func:`compiled_block`, :mod:`rosenblatt.engine.kernels.textparse`).
The reader itself, the scan and the parse, is :mod:`._csv`.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.kernel_constants import FULL
from ...engine.kernels.loader import compiled_kernel
from ...exceptions import DataFileError
from ._common import fail, near_names

if TYPE_CHECKING:  # pragma: no cover
    from ._common import Sizes


EXPECTED = "expected comma-separated numbers"


class Dialect(csv.excel):
    """RFC 4180 as :mod:`csv` reads it, spaces after a comma skipped, never strict."""

    skipinitialspace = True  # "1, 2" and '1, "2"'; trailing spaces are stripped after
    strict = False


def number(text: str) -> float | None:
    """``float(text)``, or None where it is no number."""
    try:
        return float(text)
    except ValueError:
        return None


def cell_problem(cell: str) -> tuple[str, str | None] | None:
    """``(what, fix)`` of a feature cell that is not a finite number, or None.

    The same rule as the conversion of whole blocks (``float`` of the stripped cell).

    Examples
    --------
    >>> cell_problem(" 1.5 "), cell_problem("1.x")
    (None, ("'1.x' is not a number", None))
    """
    cell = cell.strip()
    if not cell:
        return "an empty (missing) value", "fill in or drop missing values"
    value = number(cell)
    if value is None:
        return f"{cell!r} is not a number", None
    if not math.isfinite(value):
        return f"{cell!r} is a missing or infinite value", "fill in or drop missing values"
    return None


def column_name(header: Sequence[str] | None, j: int) -> str:
    """How an error names column ``j`` (0-based) of a file: by its name when the file has a
    ``header``, else by its 1-based position; the one rule, whatever block the error is in."""
    return repr(header[j]) if header else str(j + 1)


def is_int(text: Any) -> bool:
    """Whether ``int()`` reads ``text`` (a column given by its index)."""
    try:
        int(text)
    except (TypeError, ValueError):
        return False
    return True


def blank(cells: Sequence[str]) -> bool:
    """Whether a record is a blank line."""
    return len(cells) <= 1 and not (cells and cells[0].strip())


class _Feed:
    """Lines for :func:`csv.reader`, noting when the reader asked beyond the last one."""

    def __init__(self, lines):
        self.lines, self.next, self.ran_out = lines, 0, False

    def __iter__(self):
        return self

    def __next__(self):
        if self.next >= len(self.lines):
            self.ran_out = True
            raise StopIteration
        self.next += 1
        return self.lines[self.next - 1] + "\n"


def csv_records(
    path: str, lines: Sequence[str], first_line: int, final: bool
) -> tuple[list[tuple[int, list[str]]], int | None]:
    """The non-blank records of ``lines``, parsed by :mod:`csv`, with the line each starts on.

    Returns ``(records, cut)``: ``records`` lists ``(k, cells)`` (``k`` the index of
    the record's first line) and ``cut`` is the index of a last record that a
    quoted field carries beyond ``lines`` (None if there is none; an error when
    ``final``).
    """
    feed = _Feed(lines)
    reader = csv.reader(feed, Dialect)
    records: list[tuple[int, list[str]]] = []
    while True:
        start = feed.next
        try:
            cells = next(reader)
        except StopIteration:
            return records, None
        except csv.Error as exc:
            raise fail(
                path,
                first_line + start,
                f"{exc}",
                "check the quotes and the characters of this record",
                code="csv",
            ) from None
        if feed.ran_out:
            if not final:
                return records, start
            raise fail(
                path,
                first_line + start,
                "a quoted field starts on this line and is not closed",
                'a quoted field ends with " (a " inside it is written "")',
                code="csv",
            )
        if not blank(cells):
            records.append((start, cells))


def aside_columns(
    path: str,
    cells: Sequence[str],
    id_columns: Sequence[str | int],
    ignore: Sequence[str],
    header: bool | str = "auto",
    line: int = 1,
) -> list[int]:
    """The 0-based columns that ``id_columns`` (header names or 0-based indices, negative
    from the end) and ``ignore`` (header names) set aside, found in a file's first record
    ``cells`` (on ``line``): the one column selector of :func:`scan` and of
    :class:`~rosenblatt.data.readers.Stream`.

    A name needs a header (``header`` not False). A name the header lacks, an index out
    of range, or a column given twice (by name or by index) is an error.

    Examples
    --------
    >>> aside_columns("d.csv", ["id", "x", "note", "y"], ["id"], ["note"])
    [0, 2]
    >>> aside_columns("d.csv", ["id", "x", "y"], ["id", 0], [])
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: d.csv: column 'id' is set aside twice \
(id_columns='id' and id_columns=0); give each column once
    """
    # (option, value, by name): ignore takes names only, whatever they look like
    given = [("id_columns", c, not is_int(c)) for c in id_columns]
    given += [("ignore", str(c), True) for c in ignore]
    named = [(option, c) for option, c, by_name in given if by_name]
    if named and header is False:
        option, column = named[0]
        raise DataFileError(
            f"{path}: {option}={column!r} names a column, but header=False; give its 0-based "
            "index, or let line 1 be the header"
        )
    width = len(cells)
    found: list[int] = []
    by: dict[int, str] = {}  # how each column found was given
    for option, column, by_name in given:
        if by_name:
            name = str(column)
            if name not in cells:
                raise DataFileError(
                    f"{path}, line {line}: {option}={name!r} names no column "
                    f"({near_names(name, cells)}); give a header name or a 0-based index"
                )
            j = list(cells).index(name)
        elif not -width <= int(column) < width:
            raise DataFileError(
                f"{path}: {option}={int(column)} is out of range for {width} columns; give "
                f"a 0-based index below {width}"
            )
        else:
            j, column = int(column) % width, int(column)
        if j in by:
            raise DataFileError(
                f"{path}: column {cells[j]!r} is set aside twice ({by[j]} and "
                f"{option}={column!r}); give each column once"
            )
        by[j] = f"{option}={column!r}"
        found.append(j)
    return found


def block_bounds(size: int, width: int, n_features: int) -> tuple[int, int]:
    """``(records, cells)`` of room that the compiled parser never outgrows on a block of
    ``size`` bytes, records of ``width`` fields and ``n_features`` feature columns.

    A record it stores takes ``width - 1`` commas and a line break (one field: a character
    and a line break), so a block holds at most ``(size + 1) // max(width, 2)`` of them;
    every feature cell may be left to ``float()``; and the parser wants a free row, and
    room for a record's ``width`` cells, to start on a line: hence one record more and
    ``+ width``.

    Examples
    --------
    >>> block_bounds(len(b"1,2,a\\n3,4,b\\n"), 3, 2)
    (5, 13)
    """
    records = (size + 1) // max(width, 2) + 1
    return records, records * max(n_features, 1) + width


def parse_block(
    buf: np.ndarray, width: int, label: int, n_features: int, records: int, cells: int
) -> tuple[Any, ...]:
    """:func:`.textparse.csv_block` into arrays with room for ``records`` records and
    ``cells`` deferred cells: its four results, then ``X``, the spans and the deferred
    cells."""
    csv_block = compiled_kernel("textparse.csv_block")
    X = np.empty((records, n_features))
    spans = np.empty((4, records), dtype=np.int64)
    deferred = np.empty((cells, 5), dtype=np.int64)
    counts = csv_block(buf, width, label, X, *spans, deferred)
    return (*counts, X, spans, deferred)


def compiled_block(
    buf: np.ndarray, width: int, label: int, n_features: int, sizes: Sizes
) -> tuple[Any, ...]:
    """The compiled parser on a block, with arrays sized by ``sizes`` (``_common.Sizes``).

    Returns its four results, then ``X``, the spans and the deferred cells.
    """
    size = buf.shape[0]
    bounds = block_bounds(size, width, n_features)
    # first what earlier blocks suggest, but never more than the block can hold: the guess
    # counts records by bytes alone, and times the columns of a wide file it could ask
    # for gigabytes for a block of a few long rows; when that is too small, room for what
    # the block can hold at most, which always suffices (see block_bounds)
    guess = tuple(min(g, b) for g, b in zip(sizes.guess(size), bounds))
    parsed = parse_block(buf, width, label, n_features, *guess)
    if parsed[1] == FULL:
        parsed = parse_block(buf, width, label, n_features, *bounds)
    sizes.learn(size, parsed[0], parsed[2])
    return parsed
