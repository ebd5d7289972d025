"""One pass over a data file or standard input, block by block, for prediction.

:func:`rosenblatt.data.readers.scan` reads a file twice (a scan fixes the schema, then
chunks are read); prediction needs neither a second pass nor a seekable input:
:class:`Stream` cuts its input into blocks of whole lines and reads each block as
a file of its own (the same readers, checks and messages as
:func:`rosenblatt.data.readers.read`, line numbers counted from the input's start).
The first block with a record fixes what later blocks are read with: the CSV
header, columns and label column, and whether the input holds labels. The
svmlight index base must be known beforehand (``zero_based`` True or False; a
model's input is read as its training file was). So memory stays that of one
block, whatever the input's size.

Standard input is read as it arrives: a block ends after ``chunk_size`` lines or
where the input pauses (the complete lines read so far), so a program reading
the results line by line gets each answer before the input ends.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import sys
import zlib
from collections.abc import Sequence

import numpy as np

from ..._core.config import SCAN_BLOCK_BYTES
from ..._core.validation import CHUNK_SIZE, check_args
from ...exceptions import DataFileError
from ._common import (
    BOM,
    GZIP_MAGIC,
    NUMERIC_CONTROL,
    SNIFF_LINES,
    STDIN,
    bad_bytes,
    check_file,
    count_lines,
    format_by_content,
    format_of,
    gzip_error,
    is_gzip,
    near_names,
    shown_name,
    text_lines,
)

__all__ = ["Stream", "check_aside", "sniff_format"]


class _Input:
    """Bytes of a file or of standard input, as they come (``read`` gives b"" at the end).

    ``head``: bytes of standard input read before (by :func:`sniff_format`), given
    first; ``kept`` (when ``keep``): every byte read, as it came; ``source``: the input's
    bytes at hand (a request's body), read instead of a file, ``name`` only naming them.
    """

    def __init__(self, name, head=b"", keep=False, source=None):
        self.name, self.fd, self.inflate = name, None, None
        self.head = head if name == STDIN else b""  # a file is read again from its start
        self.kept = bytearray() if keep else None
        self.own = name != STDIN or source is not None  # a handle this closes (not stdin's)
        if source is not None:
            self.handle = io.BytesIO(source)
            self.first = True  # gzipped bytes are told by their first bytes, as stdin's
        elif name == STDIN:
            buffer = sys.stdin.buffer
            try:
                self.fd = buffer.fileno()
            except (AttributeError, OSError, ValueError):  # not a real file (tests' input)
                self.handle = buffer
            self.first = True  # gzipped input is told by its first bytes
        else:
            self.handle = gzip.open(name, "rb") if is_gzip(name) else open(name, "rb")
            self.first = False

    def read(self) -> bytes:
        try:
            while True:
                block = self._raw()
                if self.inflate is None:
                    return block
                if not block:  # the end: a gzip stream cut short is refused as read() does
                    if not self.inflate.eof:
                        raise EOFError("compressed data ended before the end-of-stream marker")
                    return b""
                block = self._inflated(block)
                if block:  # else the bytes so far give no output yet: read on
                    return block
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise gzip_error(shown_name(self.name), exc) from None

    def _raw(self) -> bytes:
        """The next bytes as they come (gzipped standard input told by its first two)."""
        block = self._next()
        if self.first and block:
            self.first = False
            while len(block) < len(GZIP_MAGIC) and GZIP_MAGIC.startswith(block):
                more = self._next()  # one byte so far: the next tells
                if not more:
                    break
                block += more
            if block[:2] == GZIP_MAGIC:
                self.inflate = zlib.decompressobj(wbits=31)
        return block

    def _next(self) -> bytes:
        if self.head:
            block, self.head = self.head, b""
        elif self.fd is not None:
            block = os.read(self.fd, SCAN_BLOCK_BYTES)  # what is there, up to a block
        else:
            block = self.handle.read(SCAN_BLOCK_BYTES)
        if self.kept is not None:
            self.kept += block
        return block

    def _inflated(self, block: bytes) -> bytes:
        """``block`` decompressed, across the members of a gzip file (as gzip reads them)."""
        out = self.inflate.decompress(block)
        while self.inflate.eof and self.inflate.unused_data:
            rest = self.inflate.unused_data
            self.inflate = zlib.decompressobj(wbits=31)
            out += self.inflate.decompress(rest)
        return out

    def waiting(self) -> bool:
        """Whether more input can be read at once (a file: always; a pipe: if it holds bytes)."""
        if self.fd is None or self.head:
            return True
        import select

        try:
            return bool(select.select([self.fd], [], [], 0)[0])
        except (OSError, ValueError):  # select cannot wait on it: read as a file
            return True

    def close(self):
        if self.fd is None and self.own:
            self.handle.close()


def sniff_format(path: str | os.PathLike[str]) -> tuple[str, bytes]:
    """The format of a data file or of standard input, told by its first lines.

    For input whose name does not tell (standard input has none): the first
    lines are read, as far as they come at once (a pipe is not waited on for
    more than one line), and :func:`~._common.format_by_content` decides.

    Returns
    -------
    format : {"csv", "svmlight", "text"}
    head : bytes
        Standard input: the bytes read to tell, to hand to :class:`Stream`
        (``head=``) so that it reads them first; a file: ``b""`` (it is read again).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "iris.data"
    >>> _ = path.write_text("5.1,3.5,1.4,0.2,setosa\\n")
    >>> sniff_format(path)
    ('csv', b'')
    """
    name = check_file(path)
    source = _Input(name, keep=name == STDIN)
    text, ended = b"", False
    lines: list[str] = []
    try:
        while not ended and len(lines) < SNIFF_LINES and len(text) < SCAN_BLOCK_BYTES:
            block = source.read()
            ended = not block
            text += block
            whole = text if ended else text[: text.rfind(b"\n") + 1]  # whole lines
            lines = [line for line in text_lines(whole.decode("utf-8", "replace"))]
            if any(line.strip() for line in lines) and not source.waiting():
                break  # a pipe that pauses: decide by what came
    finally:
        source.close()
    if not any(line.strip() for line in lines):  # one long line, or lines ending in \r
        lines = text_lines(text.decode("utf-8", "replace"))
    kind = format_by_content(shown_name(name), lines)
    return kind, b"" if source.kept is None else bytes(source.kept)


# a line ends at "\n", "\r\n", or a "\r" before anything else (one at the end of what
# was read so far may be the start of "\r\n")
_BREAK = re.compile(rb"\r\n|\n|\r(?=[^\n])")


def _ends(data, start):
    """The positions just after each line break of ``data[start:]``."""
    if data.find(b"\r", start) < 0:
        view = np.frombuffer(data, np.uint8)[start:]
        return np.flatnonzero(view == 10) + (start + 1)
    return np.array([m.end() for m in _BREAK.finditer(data, start)], dtype=np.int64)


def _blocks(source, chunk_size, quoted):
    """Blocks of whole lines: ``chunk_size`` lines each, fewer where the input pauses.

    ``quoted`` (CSV): a block never ends inside a quoted field, which may hold line
    breaks (:func:`._csv_cells.open_quote`: where :mod:`csv` sees one, a quote inside an unquoted
    field being a character), unless the field runs past the most a field may hold: the
    block's read then says so.
    """
    pending = bytearray()  # read and not handed over: whole lines, then a partial line
    ends = np.zeros(0, dtype=np.int64)  # where each whole line of ``pending`` ends
    ended = False
    skip = len(BOM)  # the input's start, where a byte order mark is no field's
    while not ended:
        block = source.read()
        ended = not block
        counted = int(ends[-1]) if ends.shape[0] else 0
        pending += block
        ends = np.concatenate([ends, _ends(pending, counted)])
        while pending:
            if ends.shape[0] >= chunk_size:
                k = chunk_size - 1
            elif ended:
                k = None  # the rest, its last line without a break too
            elif ends.shape[0] and not source.waiting():
                k = ends.shape[0] - 1  # the input pauses: what came so far
            else:
                break
            if quoted:  # never inside a quoted field: on to the line its closing quote is on
                start = skip if pending.startswith(BOM) else 0
                k = _whole_records(pending, ends, k, ended, start)
                if k == -1:
                    break  # its closing quote has not come yet
            cut = len(pending) if k is None else int(ends[k])
            skip = 0
            yield bytes(pending[:cut])
            del pending[:cut]
            ends = ends[k + 1 :] - cut if k is not None else ends[:0]


def _whole_records(data, ends, k, ended, start=0):
    """The first line (its index in ``ends``, at or after ``k``) that ends outside every
    quoted field of ``data`` (its first record starting at ``start``); None: all of
    ``data`` (``k`` None, or the input ended inside a quoted field); -1: a quoted field
    runs on beyond what was read."""
    from ._csv_cells import LIMIT, closing_quote, open_quote

    while True:
        stop = len(data) if k is None else int(ends[k])
        q = open_quote(data, start, stop)
        if q < 0:
            return k
        if ends.shape[0] and int(ends[-1]) - q - 1 > 4 * (LIMIT + 1):
            return ends.shape[0] - 1  # more characters than a field may hold: said so
        close = closing_quote(data, q)
        k = None if close < 0 else int(np.searchsorted(ends, close, side="right"))
        if k is None or k >= ends.shape[0]:
            return None if ended else -1
        start = q


class Stream:
    """Read a data file (or standard input, ``"-"``) once, a block of lines at a time.

    Iterating gives a :class:`~rosenblatt.data.readers.Data` per block (``X`` and ``y``
    as :func:`~rosenblatt.data.readers.read` gives them); after the first,
    ``labelled``, ``notes`` and ``feature_names`` describe the input, and ``schema`` is the
    first block's (its header and label column).

    Parameters
    ----------
    path : str or path-like
    chunk_size : int
        Lines per block (a CSV field in quotes may carry a block on a few lines).
    format, labelled, n_features, header, label_column, encoding
        As in :func:`rosenblatt.data.readers.scan`.
    zero_based : bool
        svmlight: whether feature indices start at 0 (no "auto": that needs the
        whole file).
    columns : sequence of str, default=None
        CSV: the feature columns wanted, by name and in this order (a model's
        ``feature_names_in_``). A file whose first record names them is read by
        name: its columns in any order, ``X``'s in this one; a column missing or
        one too many is an error naming them. A file without such a header is
        read by position.
    label_name : str, default=None
        CSV with ``columns``: the label column's name; a file may lack it (for
        prediction). Without it, a last column that is not a feature is the label.
    id_columns : sequence of str or int, default=None
        CSV: columns (header names, or 0-based indices) that identify a sample:
        no features; each block's ``aside`` holds their cells as text, a list per
        sample, and ``id_names`` their header names (None without a header).
    ignore : sequence of str, default=None
        CSV: columns, by header name, that are neither features nor label.
    head : bytes, default=b""
        Standard input: bytes already read from it (by :func:`sniff_format`),
        read before the rest.
    source : bytes, default=None
        The input itself, at hand (a request's body): read instead of a file, ``path``
        only naming it in messages (``format`` must then be given).
    extra_features : {"error", "ignore"}, default="error"
        svmlight: whether an index beyond ``n_features`` is an error, or its entry is
        left out (each block's ``schema.extra_rows`` counts the rows that held one).

    Every block is read as the rest of the same file (its lines numbered as in the
    input, with what the lines before it decided), so the input reads, and fails, the
    same whatever ``chunk_size``: the error is that of its first bad row.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> _ = path.write_text("b,y,a\\n2,no,1\\n4,yes,3\\n6,no,5\\n")
    >>> stream = Stream(path, 2, columns=["a", "b"], label_name="y")
    >>> [(d.X.tolist(), d.y.tolist()) for d in stream]
    [([[1.0, 2.0]], ['no']), ([[3.0, 4.0], [5.0, 6.0]], ['yes', 'no'])]
    >>> body = Stream("request body", 10, format="csv", source=b"1,2,no\\n3,x,yes\\n")
    >>> list(body)
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: request body, line 2, column 2: 'x' is not a number
    """

    def __init__(
        self,
        path,
        chunk_size,
        *,
        format=None,
        labelled=None,
        n_features=None,
        zero_based=None,
        header="auto",
        label_column=None,
        columns=None,
        label_name=None,
        encoding="UTF-8",
        id_columns=None,
        ignore=None,
        head=b"",
        extra_features="error",
        source=None,
    ):
        from . import check_options

        check_args("Stream", {"chunk_size": [CHUNK_SIZE]}, {"chunk_size": chunk_size})
        if source is not None and format is None:
            raise ValueError("bytes at hand (source) have no extension to tell their format")
        self.name = os.fspath(path) if source is not None else check_file(path)
        self.path = shown_name(self.name)
        self.kind = format_of(self.name, format)
        self.source = source
        base = "auto" if zero_based is None else zero_based
        check_options(
            self.kind,
            self.path,
            None,
            base,
            header,
            label_column,
            None,
            "Stream",
            extra_features,
        )
        if self.kind == "svmlight" and zero_based not in (True, False):
            raise ValueError("a stream of svmlight lines needs zero_based True or False")
        self.chunk_size, self.encoding = int(chunk_size), encoding
        self.columns = None if columns is None else [str(c) for c in columns]
        self.label_name = label_name
        self.head = head
        self.id_columns = [] if id_columns is None else list(id_columns)
        self.ignore = [] if ignore is None else [str(c) for c in ignore]
        check_aside(self.kind, self.path, self.id_columns, self.ignore)
        self.id_names = None
        self.options = dict(
            labelled=labelled,
            n_features=n_features,
            zero_based=zero_based if self.kind == "svmlight" else "auto",
            header=header,
            label_column=label_column,
            encoding=encoding,
            extra_features=extra_features,
        )
        self.labelled = None
        self.schema = None  # the first block's: what it decided (header, label column)
        self.notes, self.feature_names = [], None
        self._named = False  # whether the header was matched to ``columns`` by name
        self._order = None  # the file's column of each of X's, when not in that order
        self._first_at = 1  # the line of the input's first record

    def __iter__(self):
        source = _Input(self.name, self.head, source=self.source)
        try:
            yield from self._read(source)
        finally:
            source.close()

    def _read(self, source):
        from . import parse_bytes

        line, held, held_at, fixed = 1, b"", 1, False
        at_hand = self.source is not None
        for raw in _blocks(source, self.chunk_size, self.kind == "csv"):
            first, line = line, line + count_lines(raw)
            if not fixed:
                if held:  # what could not be read alone, read again with the lines after it
                    raw, first, held = held + raw, held_at, b""
                if self.kind == "csv" and (self.columns or self.id_columns or self.ignore):
                    cells, self._first_at = _first_record(self.path, raw, self.encoding, first)
                    self._aside(cells, self._first_at)
                    self._by_name(cells, self._first_at)
            try:
                data = parse_bytes(
                    self.name,
                    self.kind,
                    raw,
                    dict(self.options, first_line=first, final=fixed),
                    at_hand=at_hand,
                )
            except DataFileError as error:
                code = getattr(error, "code", None)
                if code not in ("empty", "undecided"):
                    raise
                if not fixed:  # no record yet, or a first record the next one decides
                    held, held_at = raw, first
                continue  # blank lines (or comments)
            yield self._deliver(data, fixed)
            fixed = True
        if not fixed:  # the input ended: what was held is all of it (or none: the error)
            data = parse_bytes(
                self.name, self.kind, held, dict(self.options, first_line=held_at), at_hand=at_hand
            )
            yield self._deliver(data, fixed)

    def _deliver(self, data, fixed):
        """A block's data, in the columns asked for; the first fixes how the next are read."""
        if not fixed:
            self._fix(data.schema)
        if self._order is not None:
            data.X = data.X[:, self._order]
        if data.aside is not None:  # the identifiers come first, the ignored after
            data.aside = [cells[: len(self.id_columns)] for cells in data.aside]
            data.aside_names = self.id_names
        return data

    def _fix(self, schema):
        """What the first block decided holds for the blocks after it."""
        if self.columns is not None and schema.header is not None and not self._named:
            names = schema.header  # a header, none of whose names is a model's column
            raise DataFileError(
                _mismatch(self.path, self.columns, names, [], self.columns, self._first_at)
            )
        self.labelled, self.notes, self.schema = schema.labelled, list(schema.notes), schema
        if self.id_columns and schema.header is not None:
            ids = self.options.get("aside", [])[: len(self.id_columns)]
            self.id_names = [schema.header[j] for j in ids]
        self.feature_names = list(self.columns) if self._named else schema.feature_names
        self.options.update(schema.follow)  # the next blocks are read as the rest of the file

    def _aside(self, cells, line):
        """CSV with ``id_columns`` or ``ignore``: the columns they name in the first record
        (``cells``, on ``line``; None: no record yet) are set aside; names imply a header."""
        if not (self.id_columns or self.ignore) or cells is None:
            return
        from ._csv_cells import aside_columns

        header = self.options["header"]
        self.options["aside"] = aside_columns(
            self.path, cells, self.id_columns, self.ignore, header, line
        )
        if self.ignore or not all(map(_is_int, self.id_columns)):
            self.options["header"] = True

    def _by_name(self, cells, line):
        """CSV with ``columns``: a first record (``cells``, on ``line``) that names columns
        fixes them by name."""
        if self.columns is None or self.options["header"] is False:
            return
        known = set(self.columns) | {self.label_name}
        if not cells or not (set(cells) & known) or all(_number(c) for c in cells):
            return  # data, or a header of other names: by position
        aside = self.options.get("aside", [])
        used = [cells[j] for j in aside if cells[j] in self.columns]
        if used:
            raise DataFileError(
                f"{self.path}, line {line}: the model uses column {used[0]!r}, which "
                f"{_given(self, used[0], cells)} sets aside; identifiers and ignored "
                "columns must be columns the model does not use"
            )
        label = self._label(cells)
        features = [c for j, c in enumerate(cells) if j != label and j not in aside]
        missing = [c for c in self.columns if c not in features]
        extra = [c for c in features if c not in self.columns]
        twice = sorted({c for c in features if features.count(c) > 1})
        if missing or extra or twice:
            raise DataFileError(_mismatch(self.path, missing, extra, twice, self.columns, line))
        self._named = True
        order = [features.index(c) for c in self.columns]
        self._order = None if order == list(range(len(order))) else np.array(order)
        self.options.update(
            header=True, label_column=label, labelled=label is not None, n_features=len(features)
        )

    def _label(self, cells):
        """The label's column among the header's ``cells`` (None: no label column)."""
        given = self.options["label_column"]
        if isinstance(given, str) and not _is_int(given):
            if given not in cells:
                raise DataFileError(
                    f"{self.path}: no column named {given!r} ({near_names(given, cells)}); "
                    "give the label column's header name or its 0-based index"
                )
            return cells.index(given)
        if self.label_name in cells:  # before an index: the columns may be in another order
            return cells.index(self.label_name)
        if self.label_name is not None:
            return None  # the file has no labels
        if given is not None:
            return int(given) % len(cells)
        aside = self.options.get("aside", [])
        spare = [j for j, c in enumerate(cells) if c not in self.columns and j not in aside]
        return spare[0] if spare == [len(cells) - 1] else None


def check_aside(
    kind: str, path: str, id_columns: Sequence[str | int] | None, ignore: Sequence[str] | None
) -> None:
    """Refuse ``id_columns`` or ``ignore`` for a file of ``kind`` other than CSV.

    Examples
    --------
    >>> check_aside("svmlight", "d.svm", ["id"], None)
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: d.svm: columns set aside (id_columns, ignore) only \
apply to CSV files, and this is a svmlight file; give CSV data, or leave them out
    """
    if (id_columns or ignore) and kind != "csv":
        raise DataFileError(
            f"{path}: columns set aside (id_columns, ignore) only apply to CSV files, "
            f"and this is a {kind} file; give CSV data, or leave them out"
        )


def _given(stream, column, cells=None):
    """How a message names the option that gave ``column`` (a name, or the name at an
    index of the header ``cells``)."""
    if column in stream.ignore:
        return f"ignore={column!r}"
    if cells is not None and column not in stream.id_columns:
        column = next(c for c in stream.id_columns if _is_int(c) and cells[int(c)] == column)
    return f"id_columns={column!r}"


def _first_record(path, raw, encoding, first_line=1):
    """``(cells, line)`` of the first non-blank record of a CSV block starting at
    ``first_line`` (a byte order mark at the input's start skipped, as the readers skip
    it), or ``(None, first_line)`` when the lines before a bad byte or a record that
    cannot be read hold none: the read of the block then says what is wrong."""
    from ._csv_cells import records_with_error

    if first_line == 1 and raw.startswith(BOM):
        raw = raw[len(BOM) :]
    cut, _ = bad_bytes(path, raw, first_line, NUMERIC_CONTROL, encoding)
    lines = text_lines(raw[:cut].decode(encoding))
    records = records_with_error(path, lines, first_line, final=False)[0]
    if not records:
        return None, first_line
    k, cells = records[0]
    return [c.strip() for c in cells], first_line + k


def _number(cell) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _is_int(text) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _mismatch(path, missing, extra, twice, columns, line=1):
    """The one-line error of a header whose names are not the model's columns."""
    said = []
    if missing:
        said.append(f"no column {', '.join(map(repr, missing))}")
    if extra:
        said.append(f"unexpected column {', '.join(map(repr, extra))}")
    if twice:
        said.append(f"column {', '.join(map(repr, twice))} twice")
    shown = ", ".join(columns[:12])
    if len(columns) > 12:
        shown += f", ... ({len(columns)} in all)"
    fix = f"give the columns it was trained on, in any order: {shown}"
    if extra and not missing:  # columns beside the model's: they may be set aside
        fix = f"drop the columns the model does not use with ignore={extra!r}, or {fix}"
    return (
        f"{path}, line {line}: the header does not match the model's columns: "
        f"{'; '.join(said)}; {fix}"
    )
