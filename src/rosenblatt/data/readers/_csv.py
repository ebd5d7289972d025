"""CSV: numeric features and a label column, one sample per record, an optional header.

Records follow RFC 4180 (:mod:`csv`): a quoted field may hold commas, doubled
quotes and line breaks (a quote opens a field only at its start: elsewhere it is a
character); surrounding whitespace is stripped; blank lines are skipped; every
record has as many fields as the first. A feature cell is what ``float()`` reads
of it, surrounding whitespace stripped. A field holds at most
:data:`~rosenblatt._core.config.CSV_FIELD_LIMIT` characters (131,072, Python's csv
module's limit), quoted or not; a longer one is an error naming its line and column
(most often a quoted field whose closing quote is missing).

``header="auto"`` takes the first record as a header only when it cannot be data
and looks like names:

- it cannot be data when a feature cell is not a finite number, or when its label
  is text while the next record's label is a number (``1,2,label`` over numeric
  labels);
- it looks like names when no cell is empty and none is a number with a fraction
  (names may be whole numbers: ``0,1,2,label``);
- a first record that cannot be data and does not look like names (``1.5,,0``,
  ``1.5,1.x,0``) is an error at its line naming the column.

A label column named by its header name implies a header.

Blocks of lines without quotes are parsed by the compiled parser of
:mod:`rosenblatt.engine.kernels.textparse` (numbers exactly as ``float()`` reads them;
a line of millions of fields without a Python object per field); blocks with
quotes, small files and lines the compiled parser leaves to Python go through
:mod:`csv`, with the same result.

Every check of a record looks at it and at the records before it (the first
record's at the one after it), so the error is the first bad row's in file order,
whatever the blocks the file is read in: the scan stops at a record it cannot read
(broken quotes, a field too long, the wrong number of fields, a bad byte); then the
header is decided, and the first of the records before it with a bad feature cell
or label (its cells before its label) is said, else the record the scan stopped at.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.config import CSV_FIELD_LIMIT as LIMIT
from ..._core.kernel_constants import FULL
from ...engine.kernels.loader import compiled_kernel
from ...exceptions import DataFileError
from . import _labels
from ._common import (
    NUMERIC_CONTROL,
    Problems,
    Sizes,
    bad_bytes,
    compiled,
    decode,
    fail,
    label_ids,
    line_of,
    line_starts,
    near_names,
    normalize,
    pieces,
    text_lines,
)
from ._schema import Chunker
from ._store import Labels, NullStore, Rows

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from ._schema import Schema

EXPECTED = "expected comma-separated numbers"


class _Dialect(csv.excel):
    skipinitialspace = True  # "1, 2" and '1, "2"'; trailing spaces are stripped after
    strict = False


def _number(text):
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
    value = _number(cell)
    if value is None:
        return f"{cell!r} is not a number", None
    if not math.isfinite(value):
        return f"{cell!r} is a missing or infinite value", "fill in or drop missing values"
    return None


def _column(header, j):
    """How an error names column ``j`` (0-based) of a file: by its name when the file has a
    ``header``, else by its 1-based position; the one rule, whatever block the error is in."""
    return repr(header[j]) if header and j < len(header) else str(j + 1)


def _is_int(text) -> bool:
    try:
        int(text)
    except (TypeError, ValueError):
        return False
    return True


def _blank(cells) -> bool:
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
            column=_column(header, self.column),
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


#: bytes of a block scanned at a time for a field too long (:func:`_plain_long_field`)
_WINDOW = 1 << 20


def _plain_long_field(block: bytes, line0: int, encoding: str) -> tuple[int, int, int] | None:
    """The first field of more than :data:`LIMIT` characters of a block of lines without
    quotes: ``(line, 0-based column, offset of the line's start)``, or None.

    A window of the block at a time, so that a line of millions of fields takes no memory
    per field.

    Examples
    --------
    >>> _plain_long_field(b"1,2\\n3, " + b"4" * LIMIT + b"\\n5," + b"6" * (LIMIT + 1), 7, "UTF-8")
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
    reader = csv.reader(feed, _Dialect)
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
        if not _blank(cells):
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
class _Features:
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


class _First:
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
        if self._cells is None:
            block, a, b = self.raw
            self._cells = [c.strip() for c in block[a:b].decode(self.encoding).split(",")]
        return self._cells

    def read(self, label, features, sizes) -> np.ndarray:
        """The feature values, a row of shape (1, features): NaN where a cell is not a
        finite number (its text in ``texts``); ``label`` gets the label's text."""
        if self.raw is not None:
            block, a, b = self.raw
            buf = np.frombuffer(block, dtype=np.uint8, count=b - a, offset=a)
            at = -1 if label is None else label
            n, flagged, n_deferred, _, X, spans, deferred = _csv_block(
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
        value = _number(text)
        if value is None or not math.isfinite(value):
            self.texts[k], value = text, np.nan
        X[0, k] = value

    def problem(self, features) -> tuple[int, str, str | None] | None:
        """``(column, what, fix)`` of the first feature cell that is not a finite number."""
        for k in sorted(self.texts):
            problem = cell_problem(self.texts[k])
            if problem:
                return (features[k], *problem)
        return None


class _Scan:
    """The state of a CSV scan (see :func:`scan`).

    The scan stops at the first record it cannot read (:meth:`stop`); what the records
    before it decide (the header, the labels, their cells) is checked at the end
    (:meth:`finish`), and the error of the first bad row in file order is raised.
    """

    def __init__(
        self,
        schema,
        chunks,
        store,
        labelled,
        n_features,
        header,
        label_column,
        aside=((), (), ()),
        labels=None,
        final=True,
    ):
        self.schema, self.path, self.store = schema, schema.path, store
        self.labelled, self.n_features = labelled, n_features
        self.header, self.label_column = header, label_column
        # columns that are no features, kept as text: ``(indices, id_columns, ignore)``, the
        # latter two to find in the first record (the indices: a Stream found them already)
        self.aside, self.id_columns, self.ignore = (list(given) for given in aside)
        self.features = _Features(0, ())  # the file's column of each feature
        self.by_name = isinstance(label_column, str) and not _is_int(label_column)
        self.started = False  # whether the columns are known
        self.first = None  # the first record (a _First), when these lines hold it
        self.first_line = 0  # the line of the file's first record
        self.width = self.label = None
        # labels of the records after the first (a stream's: of the blocks before, too)
        self.labels = Labels() if labels is None else labels
        self.next_label = None  # the label of the record after the first
        self.final = final  # False: more lines may follow (a stream's first block)
        self.stopped: Any = None  # the error of the first record that cannot be read
        self.bad = None  # (line, column, cell) of the first feature cell that is not a number
        self.as_data = chunks  # chunks if the first record is data ...
        self.after_header = Chunker(chunks.chunk_size)  # ... and if it is a header
        self.use_compiled = compiled(schema.size) and not any(aside)  # Python keeps text
        self.sizes = Sizes()

    @property
    def n_columns(self):
        """Feature columns."""
        return len(self.features)

    def stop(self, error):
        """The scan ends at a record that cannot be read: ``error`` (the first one counts)."""
        if self.stopped is None:
            self.stopped = error

    def start(self, first):
        """The first record fixes the columns and the label's place."""
        self.first, self.started = first, True
        self.width, self.first_line = first.width, first.line
        line = first.line
        if self.id_columns or self.ignore:
            self.aside = aside_columns(
                self.path, first.cells(), self.id_columns, self.ignore, self.header, line
            )
            if self.ignore or not all(map(_is_int, self.id_columns)):
                self.header = True  # names imply a header
        self.aside = [_position(self.path, line, j, self.width, "column") for j in self.aside]
        if self.labelled is None:
            width = self.width - len(set(self.aside))
            self.labelled = _labelled(self.path, line, width, self.n_features)
        if self.by_name:
            cells = first.cells()
            if self.header is False:
                raise fail(
                    self.path,
                    line,
                    f"label_column={self.label_column!r} names a column, but header=False",
                    "give the label column's 0-based index, or let line 1 be the header",
                    code="option",
                )
            if self.label_column not in cells:
                raise fail(
                    self.path,
                    line,
                    f"no column named {self.label_column!r} "
                    f"({near_names(self.label_column, cells)})",
                    "give the label column's header name or its 0-based index",
                    code="option",
                )
            self.header = True
            self.label = cells.index(self.label_column)
        elif self.labelled:
            self.label = _position(self.path, line, self.label_column, self.width)
        self.features = _Features(self.width, [self.label, *self.aside])
        # the first row: the scan keeps it if the record is data, or skips it
        X = first.read(self.label, self.features, self.sizes)
        starts, lines = np.array([first.offset], np.int64), np.array([line], np.int64)
        self.as_data.add(starts, lines)
        aside = [[first.cells()[j] for j in self.aside]] if self.aside else None
        labels = np.full(1, -1, np.int32) if self.labelled else None
        self.store.add(Rows(1, starts, lines, labels, X=X, aside=aside))

    def resume(self, line, width):
        """Lines after the first record of their file (a stream's later block): its header,
        if any, is known, and so are the columns (the first record is on ``line``, with
        ``width`` fields)."""
        self.started, self.header = True, False
        self.width, self.first_line = width, line
        self.label = None if not self.labelled else int(self.label_column)
        self.features = _Features(width, [self.label, *self.aside])

    def ragged(self, line, n):
        return fail(
            self.path,
            line,
            f"{n} fields, but line {self.first_line} has {self.width}",
            "every row needs the same columns",
            code="ragged",
        )

    def column(self, k):
        """The column of feature ``k``."""
        return self.features[k]

    def add_rows(self, rows, keys, key_lines, ids):
        """A block's records: labels to ids, to the store and the chunks."""
        if self.labelled:
            if self.next_label is None and rows.n:
                self.next_label = keys[int(ids[0])]
            rows.labels = self.labels.add(keys, key_lines)[ids] if rows.n else ids
        self.store.add(rows)
        self.as_data.add(rows.starts, rows.lines)
        self.after_header.add(rows.starts, rows.lines)

    def add_cells(self, offset, line0, block, records):
        """Records split into cells (``(k, cells)``, ``k`` its first line's index), in Python;
        the scan stops at a record of another width than the first."""
        width = self.width
        ragged = next((r for r, (_, cells) in enumerate(records) if len(cells) != width), None)
        if ragged is not None:
            k, cells = records[ragged]
            self.stop(self.ragged(line0 + k, len(cells)))
            records = records[:ragged]
        if not records:
            return
        starts = line_starts(offset, block)
        n, label = len(records), self.label
        X = np.empty((n, self.n_columns))
        lines = np.empty(n, dtype=np.int64)
        at = np.empty(n, dtype=np.int64)
        keys, key_lines, ids = {}, [], np.empty(n, dtype=np.int32)
        aside = [] if self.aside else None
        for r, (k, cells) in enumerate(records):
            line = line0 + k
            lines[r], at[r] = line, starts[k]
            if self.labelled:
                key = cells[label].strip()
                if key not in keys:
                    keys[key] = len(keys)
                    key_lines.append(line)
                ids[r] = keys[key]
            if aside is not None:
                aside.append([cells[j].strip() for j in self.aside])
                cells = [cells[j] for j in self.features]
            elif self.labelled:
                del cells[label]
            for f, cell in enumerate(cells):
                value = _number(cell.strip())
                if value is None or not math.isfinite(value):
                    if self.bad is None:
                        self.bad = (line, self.column(f), cell)
                    value = np.nan
                X[r, f] = value
        self.add_rows(Rows(n, at, lines, X=X, aside=aside), list(keys), key_lines, ids)

    def add_lines(self, offset, line0, block):
        """A block of lines without quotes: a record per line, the first one aside."""
        if not self.started:
            rest = self._first_plain(offset, line0, block)
            if rest is None or self.stopped is not None:
                return
            offset, line0, block = rest
        if block:
            self.add_plain(offset, line0, block)

    def _first_plain(self, offset, line0, block):
        """Start at the first non-blank line of a block without quotes; ``(offset, line,
        block)`` of the lines after it, or None when the block holds no record."""
        pos, line = 0, line0
        while pos < len(block):
            match = _LINE_BREAK.search(block, pos)
            stop, following = (match.start(), match.end()) if match else (len(block),) * 2
            lead = _ASCII_BLANKS.match(block, pos).end()
            if lead < stop and (block[lead] < 128 or self._text(block[pos:stop]).strip()):
                break
            pos, line = following, line + 1
        else:
            return None
        if stop - pos > LIMIT:
            found = _plain_long_field(block[pos:stop], line, self.schema.encoding)
            if found is not None:
                self.stop(LongField(self.path, line, found[1]))
                return None
        if self.use_compiled:
            raw = (block, pos, stop)
            first = _First(line, offset + pos, raw=raw, encoding=self.schema.encoding)
        else:
            text = block[pos:stop].decode(self.schema.encoding)
            first = _First(line, offset + pos, cells=text.split(","))
        self.start(first)
        return offset + following, line + 1, block[following:]

    def _text(self, raw):
        return raw.decode(self.schema.encoding)

    def add_plain(self, offset, line0, block):
        """A block of lines without quotes (and past the first record): a record per line."""
        if self.use_compiled and self._add_compiled(offset, line0, block):
            return
        if len(block) > LIMIT and self._stop_at_long_field(offset, line0, block):
            return
        lines = text_lines(block.decode(self.schema.encoding))
        records = [(k, text.split(",")) for k, text in enumerate(lines) if text.strip()]
        self.add_cells(offset, line0, block, records)

    def _stop_at_long_field(self, offset, line0, block):
        """Whether a field of the block is too long: if so, the records before it are read
        and the scan stops there."""
        found = _plain_long_field(block, line0, self.schema.encoding)
        if found is None:
            return False
        line, column, cut = found
        if cut:
            self.add_plain(offset, line0, block[:cut])
        self.stop(LongField(self.path, line, column))
        return True

    def _add_compiled(self, offset, line0, block):
        """The block by the compiled parser; False when Python must read it."""
        buf = np.frombuffer(block, dtype=np.uint8)
        label = -1 if self.label is None else self.label
        parsed = _csv_block(buf, self.width, label, self.n_columns, self.sizes)
        n, flagged, n_deferred, longest, X, spans, deferred = parsed
        if flagged >= 0:
            return False
        if longest > LIMIT and self._stop_at_long_field(offset, line0, block):
            return True
        encoding = self.schema.encoding
        for r, f, a, b, k in deferred[:n_deferred]:
            cell = block[a:b].decode(encoding)
            value = _number(cell.strip())
            if value is None or not math.isfinite(value):
                if self.bad is None:
                    self.bad = (line0 + int(k), self.column(int(f)), cell)
                value = np.nan
            X[r, f] = value
        label_start, label_end, row_line, row_start = (s[:n] for s in spans)
        keys, key_lines, ids = [], [], None
        if self.labelled:
            ids, firsts = label_ids(buf, label_start, label_end)
            keys = [block[label_start[r] : label_end[r]].decode(encoding) for r in firsts]
            key_lines = row_line[firsts] + line0
        rows = Rows(n, row_start + offset, row_line + line0, X=X[:n])
        self.add_rows(rows, keys, key_lines, ids)
        return True

    def add_quoted(self, offset, line0, block, carry, final):
        """A block of lines with quotes, after the lines of a record carried on from the
        block before (``carry``); the carry of this one (a record a quoted field carries
        beyond it), or None."""
        lines = text_lines(block.decode(self.schema.encoding))
        if carry is not None:
            offset, line0, block, lines = (carry[0], carry[1], carry[2] + block, carry[3] + lines)
        records, cut, error = records_with_error(self.path, lines, line0, final)
        carry = None
        if cut is not None:
            at = int(line_starts(offset, block)[cut]) - offset
            carry = (offset + at, line0 + cut, block[at:], lines[cut:])
            block = block[:at]
        if records and not self.started:
            k, cells = records.pop(0)
            start = int(line_starts(offset, block)[k])
            self.start(_First(line0 + k, start, cells=cells))
        if records:
            self.add_cells(offset, line0, block, records)
        if error is not None:
            self.stop(error)
        return carry

    def finish(self, schema, names):
        """Decide the header, check the columns, decide the labels; the chunks to use.

        Raises the error of the first bad row in file order: the first record's (as a
        header or as data), then whichever comes first of a row's columns, cells and
        label and the record the scan stopped at.
        """
        stopped = self.stopped
        if not self.started:
            if isinstance(stopped, LongField):
                stopped = stopped.error(schema.header)
            if stopped is not None:
                raise stopped
            raise fail(self.path, None, f"no data rows ({EXPECTED})", code="empty")
        chunks = self.as_data
        header = False
        if self.first is not None:
            header = self.header
            if header == "auto":
                header = self.header_auto()
            elif not header:  # data by request: say so before the labels' verdict
                self.check_first()
            if header:
                chunks, schema.header = self.after_header, self.first.cells()
        if isinstance(stopped, LongField):  # the header, if any, names its column
            stopped = stopped.error(schema.header)
        if not chunks.count:  # a header alone, or blank lines after a file's first record
            if stopped is not None:
                raise stopped
            what = "a header row but no data rows" if header else f"no data rows ({EXPECTED})"
            raise fail(self.path, None, what, code="empty")
        if header:
            self.store.skip_first()
        elif self.first is not None:
            first = self.first
            label = self.labels.add([first.label], [first.line])[0] if self.labelled else None
            self.store.set_first(label)
        problems = Problems()  # ranks: what of a row comes first
        n_features = self.n_columns
        if self.n_features is not None and n_features != self.n_features and chunks.count:
            first_data = int(chunks.first_lines[0])
            what = f"{n_features} feature columns, but the model expects {self.n_features}"
            problems.add(fail(self.path, first_data, what, code="columns"), 0)
        schema.labelled = bool(self.labelled)
        schema.n_columns, schema.n_features = self.width, n_features
        schema.label_index = self.label if self.labelled else None
        schema.aside = sorted(set(self.aside)) or None
        if self.labelled:
            labels_are = problems.attempt(
                2, _labels.decide, self.path, self.labels.first_lines, names=names
            )
            if labels_are is not None:
                schema.label_kind, schema.label_map, schema.classes = labels_are
        if self.bad is not None:
            line, j, cell = self.bad
            column = _column(schema.header, j)
            problems.add(fail(self.path, line, *cell_problem(cell), "cell", column=column), 1)
        problems.add(stopped, 3)
        problems.raise_first()
        schema.follow = dict(
            header=False,
            header_names=schema.header,
            label_column=schema.label_index,
            labelled=schema.labelled,
            resume=(self.first_line, self.width),
            labels=self.labels,
        )
        return chunks, self.labels.keys

    def check_first(self):
        """Refuse a first record given as data that holds something other than numbers."""
        problem = self.first.problem(self.features)
        if problem:
            j, what, fix = problem
            line = self.first.line
            fix = (f"{fix}; " if fix else "") + _if_a_header(line)
            raise fail(self.path, line, what, fix, "header", column=_column(None, j))

    def _text_label(self):
        """Whether the first record's label is text (None: it is, and the next record's
        label, not read yet, decides whether that makes the record a header)."""
        label = self.first.label
        if not (self.labelled and label and _number(label) is None):
            return False
        if self.next_label is None:
            return None
        return _number(self.next_label) is not None

    def header_auto(self):
        """Whether the first record is a header (``header="auto"``, see the module)."""
        first = self.first
        problem = first.problem(self.features)
        text_label = self._text_label()
        if problem is None and text_label is None and not self.final and self.stopped is None:
            raise fail(
                self.path,
                first.line,
                "the first record's label is text: the next record's label tells whether it "
                "is a header",
                code="undecided",
            )
        if problem is None and not text_label:
            return False
        cells = first.cells()
        label = first.label
        if all(c and not _fraction(c) for c in cells):
            # a note only where the guess could be wrong: a plain header of names cannot be data
            if any(_number(c) is not None for c in cells):
                why = (
                    f"its label {label!r} is text, where the next row's label is a number"
                    if problem is None
                    else "it holds names, not numbers"
                )
                self.schema.notes.append(
                    f"line {first.line} read as a header ({_names(cells)}): {why}; pass "
                    "header=False to read it as data"
                )
            return True
        j, what, fix = problem or (
            self.label,
            f"the label {label!r} is text, where the next row's label is a number",
            None,
        )
        fix = _if_a_header(first.line) + (f"; if not, {fix}" if fix else "")
        raise fail(self.path, first.line, what, fix, "header", column=_column(None, j))


_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
# what str.strip() removes of ASCII, line breaks aside
_ASCII_BLANKS = re.compile(rb"[ \t\x0b\x0c\x1c-\x1f]*")


def _fraction(cell) -> bool:
    """A number that is not whole (no header holds one as a name)."""
    value = _number(cell)
    return value is not None and not (math.isfinite(value) and value.is_integer())


def _labelled(path, line, width, n_features):
    """Whether a prediction file holds labels: by its columns and the model's features."""
    if n_features is None or width == n_features + 1:
        return True
    if width == n_features:
        return False
    raise fail(
        path,
        line,
        f"{width} columns, but the model expects {n_features} features "
        f"(or {n_features} features and a label)",
        code="columns",
    )


def _position(path, line, label_column, width, what="label column"):
    """The 0-based index of a column given by its index (negative: from the end)."""
    if label_column is None:
        return width - 1
    index = int(label_column)
    if not -width <= index < width:
        raise fail(path, line, f"{what} {index} is out of range for {width} columns", code="option")
    return index % width


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
    given = [("id_columns", c, not _is_int(c)) for c in id_columns]
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


def _parse_block(buf, width, label, n_features, records, cells):
    """:func:`.textparse.csv_block` into arrays with room for ``records`` records and
    ``cells`` deferred cells: its four results, then ``X``, the spans and the deferred
    cells."""
    csv_block = compiled_kernel("textparse.csv_block")
    X = np.empty((records, n_features))
    spans = np.empty((4, records), dtype=np.int64)
    deferred = np.empty((cells, 5), dtype=np.int64)
    counts = csv_block(buf, width, label, X, *spans, deferred)
    return (*counts, X, spans, deferred)


def _csv_block(buf, width, label, n_features, sizes):
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
    parsed = _parse_block(buf, width, label, n_features, *guess)
    if parsed[1] == FULL:
        parsed = _parse_block(buf, width, label, n_features, *bounds)
    sizes.learn(size, parsed[0], parsed[2])
    return parsed


def _plain(block) -> bool:
    """Whether a block can be read a line per record (no quotes, no NUL)."""
    return b'"' not in block and b"\0" not in block


def scan(
    schema: Schema,
    handle: Any,
    chunks: Chunker,
    store: NullStore,
    *,
    labelled: bool | None = True,
    n_features: int | None = None,
    header: bool | str = "auto",
    label_column: str | int | None = None,
    names: Sequence[str] | None = None,
    header_names: Sequence[str] | None = None,
    aside: Sequence[int] = (),
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
    labels: Labels | None = None,
    resume: tuple[int, int] | None = None,
    final: bool = True,
    first_line: int = 1,
    **_: Any,
) -> tuple[int, Chunker, list[Any]]:
    """Read the whole file once: header, columns, records, labels, chunk boundaries.

    ``header_names``: the header of the file these lines come from, when they are a
    block after it (:class:`~rosenblatt.data.readers.Stream`), so that an error names
    a column as it would in the whole file; ``resume``: ``(line, width)`` of that
    file's first record (the block's records are all data, of that width), and
    ``labels``: the labels of the blocks before (:class:`._store.Labels`, added to).
    ``aside``: columns (0-based indices) that are no features; their cells are kept as
    text (the store's ``aside`` rows). ``id_columns`` and ``ignore``: such columns by
    name or index, found in the first record (:func:`aside_columns`). ``final=False``:
    more lines may follow, so a first record that only the next record's label can tell
    a header from data is an error with the code ``"undecided"``. ``first_line``: the
    number of the first line (a stream's block is numbered as in its file).
    """
    path = schema.path
    if header_names is not None:
        schema.header = list(header_names)
    given = (aside, id_columns or (), ignore or ())
    state = _Scan(
        schema, chunks, store, labelled, n_features, header, label_column, given, labels, final
    )
    if resume is not None:
        state.resume(*resume)
    carry = None  # (offset, line, block, lines) of a record that a quoted field carries on
    end = 0
    for offset, line0, block in pieces(handle, line=first_line):
        end = offset + len(block)
        cut, problem = bad_bytes(path, block, line0, NUMERIC_CONTROL, schema.encoding)
        block = block[:cut]  # the lines before a bad byte are read before it is said
        if carry is None and _plain(block):
            state.add_lines(offset, line0, block)
        else:
            carry = state.add_quoted(offset, line0, block, carry, final=False)
        if problem is not None:
            state.stop(problem)
        if state.stopped is not None:
            carry = None
            break
    if carry is not None:
        state.add_quoted(carry[0], carry[1], b"", carry, final=True)
    chunks, keys = state.finish(schema, names)
    return end, chunks, keys


def parse(
    schema: Schema, raw: bytes, first_line: int, dtype: DTypeLike = np.float64
) -> tuple[np.ndarray, np.ndarray | None]:
    """``(X, y)`` of a block of whole records starting at ``first_line``: dense ``X``."""
    if compiled(len(raw)) and _plain(raw) and not schema.aside:
        parsed = _parse_compiled(schema, raw)
        if parsed is not None:
            X, y = parsed
            return np.ascontiguousarray(X, dtype=dtype), y
    return _parse_python(schema, raw, first_line, dtype)


def _parse_compiled(schema, raw):
    """The block by the compiled parser; None if it holds anything else than good rows."""
    if not raw.isascii():
        try:
            raw.decode(schema.encoding)
        except (UnicodeDecodeError, LookupError):
            return None
    buf = np.frombuffer(raw, dtype=np.uint8)
    width, label = schema.n_columns, schema.label_index
    parsed = _csv_block(buf, width, -1 if label is None else label, schema.n_features, Sizes())
    n, flagged, n_deferred, _, X, spans, deferred = parsed
    if flagged >= 0:  # (the scan held every field to the size limit)
        return None
    for r, f, a, b, _ in deferred[:n_deferred]:
        value = _number(raw[a:b].decode(schema.encoding).strip())
        if value is None or not math.isfinite(value):
            return None
        X[r, f] = value
    if label is None:
        return X[:n], None
    label_start, label_end = spans[0, :n], spans[1, :n]
    ids, firsts = label_ids(buf, label_start, label_end)
    keys = [raw[label_start[r] : label_end[r]].decode(schema.encoding) for r in firsts]
    if any(key not in schema.label_map for key in keys):
        return None
    values = _labels.convert(keys, schema.label_kind, schema.label_map, None)
    return X[:n], values[ids]


def _parse_python(schema, raw, first_line, dtype):
    """The block by :mod:`csv`; a bad record raises its error (:func:`_locate`)."""
    text = normalize(decode(schema.path, raw, first_line, schema.encoding))
    rows = [
        cells for cells in csv.reader(io.StringIO(text, newline=""), _Dialect) if not _blank(cells)
    ]
    width, label = schema.n_columns, schema.label_index
    if any(len(cells) != width for cells in rows):
        raise _locate(schema, text, first_line)
    if schema.aside:  # the columns set aside are neither features nor label: left out
        keep = [j for j in range(width) if j == label or j not in schema.aside]
        rows = [[cells[j] for j in keep] for cells in rows]
        width, label = len(keep), None if label is None else keep.index(label)
    try:
        if label is None:
            X = np.array(rows, dtype=np.float64).reshape(len(rows), width)
            y = None
        elif schema.label_kind == _labels.INT:  # numbers throughout: convert in one go
            table = np.array(rows, dtype=np.float64).reshape(len(rows), width)
            X = np.delete(table, label, axis=1) if label != width - 1 else table[:, :-1]
            y = table[:, label].astype(np.int64)
        else:  # take the labels out of the rows (no copy of every row)
            labels = [cells.pop(label).strip() for cells in rows]
            X = np.array(rows, dtype=np.float64).reshape(len(rows), width - 1)
            y = _labels.convert(
                labels,
                schema.label_kind,
                schema.label_map,
                lambda k: _locate(schema, text, first_line),
            )
    except ValueError:
        raise _locate(schema, text, first_line) from None
    if not np.all(np.isfinite(X)):
        raise _locate(schema, text, first_line)
    return np.ascontiguousarray(X, dtype=dtype), y


def _locate(schema, text, first_line):
    """The error of the first bad cell of a block, naming its line and column."""
    path, width, label = schema.path, schema.n_columns, schema.label_index
    aside = schema.aside or ()
    reader = csv.reader(io.StringIO(text, newline=""), _Dialect)
    previous = 0
    for cells in reader:
        line, previous = first_line + previous, reader.line_num
        if _blank(cells):
            continue
        if len(cells) != width:
            return fail(
                path,
                line,
                f"{len(cells)} fields, but the data rows have {width}",
                "every row needs the same columns",
                code="ragged",
            )
        for j, cell in enumerate(cells):
            problem = cell_problem(cell) if j != label and j not in aside else None
            if problem:
                return fail(path, line, *problem, "cell", column=_column(schema.header, j))
        if label is not None and cells[label].strip() not in schema.label_map:
            return _labels.changed(path, line, cells[label].strip())
    return fail(
        path,
        first_line,
        "the block does not parse as it did when the file was scanned",
        "the file changed; read it again",
        code="changed",
    )


def _if_a_header(line):
    return f"if line {line} is a header, pass header=True"


def _names(cells, shown=6):
    """Header names for a note: the first few and how many in all (a wide file has hundreds)."""
    if len(cells) <= shown:
        return ", ".join(cells)
    return f"{', '.join(cells[:shown])}, ... {len(cells)} names in all"
