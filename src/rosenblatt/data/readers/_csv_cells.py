"""CSV cells and records, as the scan and the parse of a block both read them.

The dialect (:mod:`csv`'s, with surrounding whitespace stripped), what a feature cell
must be (:func:`cell_problem`: what ``float()`` reads of it, finite), how an error names a
column, the records of a block of lines (:func:`records_with_error`: quoted fields across
lines, a field held to :data:`LIMIT` characters), where a quoted field opens and closes
(:func:`open_quote`, :func:`closing_quote`), the columns set aside
(:func:`aside_columns`), and the compiled parser of a block of lines without quotes
(:func:`compiled_block`, :mod:`rosenblatt.engine.kernels.textparse`). The reader itself
(its rules: :mod:`._csv`) is the scan (:mod:`._csv_scan`) and the parse of a block.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ..._core.config import CSV_FIELD_LIMIT as LIMIT
from ..._core.kernel_constants import FULL
from ...engine.kernels.loader import compiled_kernel
from ...exceptions import DataFileError
from ._common import Sizes, fail, line_of, near_names

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
    return repr(header[j]) if header and j < len(header) else str(j + 1)


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


# ---------------------------------------------------------------------- the field size limit
class LongField:
    """A record with a field of more than :data:`LIMIT` characters, at ``line`` and 0-based
    ``column``: an error whose column is named once the file's header is known."""

    code = "field"

    def __init__(self, path: str, line: int, column: int):
        self.path, self.line, self.column = path, line, column

    def error(self, header: Sequence[str] | None = None) -> DataFileError:
        return fail(
            self.path,
            self.line,
            f"a field of more than {LIMIT:,} characters, the most a CSV field may hold",
            "check the quotes (a quoted field whose closing quote is missing runs on to the "
            "next quote), or shorten the field",
            code=self.code,
            column=column_name(header, self.column),
        )


# one field as csv reads it (lines joined by "\n"): spaces skipped, then a quoted part
# (doubled quotes inside) and what follows its closing quote, or plain characters
_FIELD = re.compile(r' *(?:"([^"]*(?:""[^"]*)*)("?)([^,\n]*)|([^,\n]*))')


def _long_column(text: str) -> int | None:
    """The 0-based column of the first field of the record that ``text`` starts with that
    holds more than :data:`LIMIT` characters as :mod:`csv` stores them, or None.

    Examples
    --------
    >>> _long_column('1,"a""' + "x" * LIMIT + '",2'), _long_column('1,"' + "x" * LIMIT + '"')
    (1, None)
    """
    pos, j = 0, 0
    while True:
        match = _FIELD.match(text, pos)
        assert match is not None  # every alternative matches the empty string
        plain, inside, after = match.group(4), match.group(1), match.group(3)
        size = len(plain) if plain is not None else len(inside) - inside.count('""') + len(after)
        if size > LIMIT:
            return j
        pos = match.end()
        if pos >= len(text) or text[pos] != ",":
            return None
        pos, j = pos + 1, j + 1


#: bytes of a block scanned at a time for a field too long (:func:`plain_long_field`)
_WINDOW = 1 << 20


def plain_long_field(block: bytes, line0: int, encoding: str) -> tuple[int, int, int] | None:
    """The first field of more than :data:`LIMIT` characters of a block of lines without
    quotes: ``(line, 0-based column, offset of the line's start)``, or None.

    A window of the block at a time, so that a line of millions of fields takes no memory
    per field.

    Examples
    --------
    >>> plain_long_field(b"1,2\\n3, " + b"4" * LIMIT + b"\\n5," + b"6" * (LIMIT + 1), 7, "UTF-8")
    (9, 1, 131080)
    """
    buf = np.frombuffer(block, dtype=np.uint8)
    start = 0  # where the current field starts
    for a in range(0, buf.shape[0] + 1, _WINDOW):
        window = buf[a : a + _WINDOW]
        ends = np.flatnonzero((window == 44) | (window == 10) | (window == 13)) + a
        if a + _WINDOW >= buf.shape[0]:  # the block's last field ends with the block
            ends = np.append(ends, buf.shape[0])
        if not ends.shape[0]:
            continue
        starts = np.empty_like(ends)
        starts[0], starts[1:] = start, ends[:-1] + 1
        start = int(ends[-1]) + 1
        for k in np.flatnonzero(ends - starts > LIMIT):  # bytes: chars may be fewer
            a_k, b_k = int(starts[k]), int(ends[k])
            if len(block[a_k:b_k].decode(encoding).lstrip(" ")) > LIMIT:
                first = max(block.rfind(b"\n", 0, a_k), block.rfind(b"\r", 0, a_k)) + 1
                return line_of(block, a_k, line0), block.count(b",", first, a_k), first
    return None


def records_with_error(
    path: str, lines: Sequence[str], first_line: int, final: bool
) -> tuple[list[tuple[int, list[str]]], int | None, Any]:
    """:func:`csv_records`, with the error of a bad record returned (a
    :class:`~rosenblatt.exceptions.DataFileError`, or a :class:`LongField`) after the
    records before it."""
    feed = _Feed(lines)
    reader = csv.reader(feed, Dialect)
    records: list[tuple[int, list[str]]] = []
    while True:
        start = feed.next
        try:
            cells = next(reader)
        except StopIteration:
            return records, None, None
        except csv.Error as exc:
            column = _long_column("\n".join(lines[start:]))
            if column is not None:
                return records, None, LongField(path, first_line + start, column)
            error = fail(
                path,
                first_line + start,
                f"{exc}",
                "check the quotes and the characters of this record",
                code="csv",
            )
            return records, None, error
        if feed.ran_out:
            if not final:
                return records, start, None
            error = fail(
                path,
                first_line + start,
                "a quoted field starts on this line and is not closed",
                'a quoted field ends with " (a " inside it is written "")',
                code="csv",
            )
            return records, None, error
        if cells and max(map(len, cells)) > LIMIT:  # csv's own limit may have been raised
            column = next(j for j, cell in enumerate(cells) if len(cell) > LIMIT)
            return records, None, LongField(path, first_line + start, column)
        if not blank(cells):
            records.append((start, cells))


def csv_records(
    path: str, lines: Sequence[str], first_line: int, final: bool
) -> tuple[list[tuple[int, list[str]]], int | None]:
    """The non-blank records of ``lines``, parsed by :mod:`csv`, with the line each starts on.

    Returns ``(records, cut)``: ``records`` lists ``(k, cells)`` (``k`` the index of
    the record's first line) and ``cut`` is the index of a last record that a
    quoted field carries beyond ``lines`` (None if there is none; an error when
    ``final``). A record that cannot be read raises its error.
    """
    records, cut, error = records_with_error(path, lines, first_line, final)
    if isinstance(error, LongField):
        raise error.error()
    if error is not None:
        raise error
    return records, cut


def open_quote(data: bytes, start: int, stop: int) -> int:
    """Where a quoted field still open at ``stop`` starts in ``data`` read from ``start`` (a
    record's or a field's start), or -1: the rule of :mod:`csv` (with this module's dialect),
    a quote opens a field only at the field's start (spaces skipped), elsewhere it is a
    character; inside, a doubled quote is a quote.

    Examples
    --------
    >>> data = b'1,ab"c,2\\n3,"x\\ny",4\\n'
    >>> open_quote(data, 0, 9), open_quote(data, 0, 14), open_quote(data, 0, len(data))
    (-1, 11, -1)
    """
    pos = start
    while True:
        q = data.find(b'"', pos, stop)
        if q < 0:
            return -1
        k = q - 1
        while k >= start and data[k] == 32:
            k -= 1
        if k >= start and data[k] not in (44, 10, 13):  # inside a field: a character
            pos = q + 1
            continue
        close = closing_quote(data, q)
        if close < 0 or close > stop:
            return q
        after = _FIELD_END.search(data, close)  # the field goes on, unquoted
        pos = len(data) if after is None else after.start()


_FIELD_END = re.compile(rb"[,\r\n]")


def closing_quote(data: bytes, q: int) -> int:
    """The position after the quote that closes the quoted field opened at ``q``, or -1
    when ``data`` ends before it (a last quote of ``data`` counts as closing)."""
    p = q + 1
    while True:
        c = data.find(b'"', p)
        if c < 0:
            return -1
        if c + 1 < len(data) and data[c + 1] == 34:  # "" inside: a quote
            p = c + 2
            continue
        return c + 1


# ---------------------------------------------------------------------- the first record
class Features:
    """The feature columns of records of ``width`` fields: all but a few ``others`` (the
    label, the columns set aside), in order; without a list of millions of them."""

    def __init__(self, width: int, others: Iterable[int | None]):
        self.width = width
        self.others = sorted({o for o in others if o is not None})

    def __len__(self) -> int:
        return self.width - len(self.others)

    def __getitem__(self, k: int) -> int:
        j = k
        for other in self.others:
            if other > j:
                break
            j += 1
        return j

    def __iter__(self) -> Iterator[int]:
        skip = set(self.others)
        return (j for j in range(self.width) if j not in skip)


class First:
    """The first record of a CSV file, which the end of its scan reads as a header or as data.

    Given as its cells (records :mod:`csv` read), or as the bytes of a line without quotes
    (``raw``: ``(block, start, stop)``), which the compiled parser reads without a Python
    object per field (a line of millions of fields), and are split into cells only when
    they are needed as text (a header's names, columns set aside).
    """

    def __init__(self, line, offset, cells=None, raw=None, encoding="UTF-8"):
        self.line, self.offset, self.encoding = line, offset, encoding
        self._cells = None if cells is None else [c.strip() for c in cells]
        self.raw = raw
        if cells is not None:
            self.width = len(self._cells)
        else:
            block, a, b = raw
            self.width = block.count(b",", a, b) + 1
        self.label = None  # the label's text, once read
        self.texts: dict[int, str] = {}  # feature cells (by feature) float() read, or could not

    def cells(self) -> list[str]:
        """The record's cells, stripped (split from its bytes when first asked for)."""
        if self._cells is None:
            block, a, b = self.raw
            self._cells = [c.strip() for c in block[a:b].decode(self.encoding).split(",")]
        return self._cells

    def read(self, label: int | None, features: Features, sizes: Sizes) -> np.ndarray:
        """The feature values, a row of shape (1, features): NaN where a cell is not a
        finite number (its text in ``texts``); ``label`` gets the label's text."""
        if self.raw is not None:
            block, a, b = self.raw
            buf = np.frombuffer(block, dtype=np.uint8, count=b - a, offset=a)
            at = -1 if label is None else label
            n, flagged, n_deferred, _, X, spans, deferred = compiled_block(
                buf, self.width, at, len(features), sizes
            )
            if n == 1 and flagged < 0:
                for _, f, s, e, _ in deferred[:n_deferred]:
                    self._cell(X, int(f), bytes(buf[s:e]).decode(self.encoding).strip())
                if label is not None:
                    self.label = bytes(buf[spans[0, 0] : spans[1, 0]]).decode(self.encoding)
                return X[:1]
        cells = self.cells()
        X = np.empty((1, len(features)))
        for k, j in enumerate(features):
            self._cell(X, k, cells[j])
        self.label = None if label is None else cells[label]
        return X

    def _cell(self, X, k, text):
        value = number(text)
        if value is None or not math.isfinite(value):
            self.texts[k], value = text, np.nan
        X[0, k] = value

    def problem(self, features: Features) -> tuple[int, str, str | None] | None:
        """``(column, what, fix)`` of the first feature cell that is not a finite number."""
        for k in sorted(self.texts):
            problem = cell_problem(self.texts[k])
            if problem:
                return (features[k], *problem)
        return None


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


def plain(block: bytes) -> bool:
    """Whether a block can be read a line per record (no quotes, no NUL)."""
    return b'"' not in block and b"\0" not in block
