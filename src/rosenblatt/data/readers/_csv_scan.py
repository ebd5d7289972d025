"""The state of a CSV scan: the first record, the columns, the header decided, the labels.

:class:`_Scan` reads a file's blocks as :func:`~._csv.scan` hands them over (lines without
quotes to the compiled parser, the others to :mod:`csv`), fixes the columns and the
label's place by the first record, decides whether that record is a header
(``header="auto"``: the rules are :mod:`._csv`'s) and keeps the first problem in file
order. The cells and records it reads are :mod:`._csv_cells`'.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _labels
from ._common import (
    NUMERIC_CONTROL,
    Problems,
    Sizes,
    bad_bytes,
    compiled,
    fail,
    label_ids,
    line_starts,
    near_names,
    pieces,
    text_lines,
)
from ._csv_cells import (
    EXPECTED,
    LIMIT,
    Features,
    First,
    LongField,
    aside_columns,
    cell_problem,
    column_name,
    compiled_block,
    is_int,
    number,
    plain,
    plain_long_field,
    records_with_error,
)
from ._schema import Chunker
from ._store import Labels, NullStore, Rows

if TYPE_CHECKING:  # pragma: no cover
    from ._schema import Schema


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
        self.features = Features(0, ())  # the file's column of each feature
        self.by_name = isinstance(label_column, str) and not is_int(label_column)
        self.started = False  # whether the columns are known
        self.first = None  # the first record (a First), when these lines hold it
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
            if self.ignore or not all(map(is_int, self.id_columns)):
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
        self.features = Features(self.width, [self.label, *self.aside])
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
        self.features = Features(width, [self.label, *self.aside])

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
                value = number(cell.strip())
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
            found = plain_long_field(block[pos:stop], line, self.schema.encoding)
            if found is not None:
                self.stop(LongField(self.path, line, found[1]))
                return None
        if self.use_compiled:
            raw = (block, pos, stop)
            first = First(line, offset + pos, raw=raw, encoding=self.schema.encoding)
        else:
            text = block[pos:stop].decode(self.schema.encoding)
            first = First(line, offset + pos, cells=text.split(","))
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
        found = plain_long_field(block, line0, self.schema.encoding)
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
        parsed = compiled_block(buf, self.width, label, self.n_columns, self.sizes)
        n, flagged, n_deferred, longest, X, spans, deferred = parsed
        if flagged >= 0:
            return False
        if longest > LIMIT and self._stop_at_long_field(offset, line0, block):
            return True
        encoding = self.schema.encoding
        for r, f, a, b, k in deferred[:n_deferred]:
            cell = block[a:b].decode(encoding)
            value = number(cell.strip())
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
            self.start(First(line0 + k, start, cells=cells))
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
            column = column_name(schema.header, j)
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
            raise fail(self.path, line, what, fix, "header", column=column_name(None, j))

    def _text_label(self):
        """Whether the first record's label is text (None: it is, and the next record's
        label, not read yet, decides whether that makes the record a header)."""
        label = self.first.label
        if not (self.labelled and label and number(label) is None):
            return False
        if self.next_label is None:
            return None
        return number(self.next_label) is not None

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
            if any(number(c) is not None for c in cells):
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
        raise fail(self.path, first.line, what, fix, "header", column=column_name(None, j))


_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


# what str.strip() removes of ASCII, line breaks aside
_ASCII_BLANKS = re.compile(rb"[ \t\x0b\x0c\x1c-\x1f]*")


def _fraction(cell) -> bool:
    """A number that is not whole (no header holds one as a name)."""
    value = number(cell)
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


def _if_a_header(line):
    return f"if line {line} is a header, pass header=True"


def _names(cells, shown=6):
    """Header names for a note: the first few and how many in all (a wide file has hundreds)."""
    if len(cells) <= shown:
        return ", ".join(cells)
    return f"{', '.join(cells[:shown])}, ... {len(cells)} names in all"


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
        if carry is None and plain(block):
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
