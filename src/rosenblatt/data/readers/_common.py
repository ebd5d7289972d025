"""What every format's reader shares: errors, formats, file bytes (gzip too), lines, text.

Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (old Mac files), in every format
and in every line number a message gives; a UTF-8 byte order mark at the start of
a file is skipped.
"""

from __future__ import annotations

import gzip
import os
import re
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..._core.config import (
    COMPILED_PARSE_MIN_BYTES,
    GZIP_COPY_BYTES,
    GZIP_TEMP_PREFIX,
    SCAN_BLOCK_BYTES,
)
from ..._core.files import check_readable
from ...exceptions import DataFileError

FORMATS = {
    ".csv": "csv",
    ".svm": "svmlight",
    ".libsvm": "svmlight",
    ".svmlight": "svmlight",
    ".tsv": "text",
}
# What ``format=`` (``--format``) accepts: the formats' names and their usual aliases.
FORMAT_NAMES = {
    "csv": "csv",
    "svmlight": "svmlight",
    "libsvm": "svmlight",
    "svm": "svmlight",
    "tsv": "text",
    "text": "text",
}
GZIP_SUFFIX = ".gz"
GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"
# The path that means standard input, and how messages name it.
STDIN = "-"
STDIN_NAME = "<stdin>"


def fail(
    path: str,
    line: int | None,
    what: str,
    fix: str | None = None,
    code: str | None = None,
    column: int | str | None = None,
) -> DataFileError:
    """A :class:`DataFileError` reading ``"<path>, line N[, column C]: <what>; <fix>"``.

    The parts are kept as attributes (``path``, ``line``, ``column``, ``what``,
    ``fix``, ``code``) so that a caller can say what to do in its own terms.

    Examples
    --------
    >>> error = fail("d.csv", 3, "'x' is not a number", "fix the cell", "number", column=2)
    >>> str(error), error.line, error.code
    ("d.csv, line 3, column 2: 'x' is not a number; fix the cell", 3, 'number')
    """
    where = f"{path}, line {line}" if line else f"{path}"
    if column is not None:
        where += f", column {column}"
    error = DataFileError(f"{where}: {what}" + (f"; {fix}" if fix else ""))
    error.path, error.line, error.column = path, line, column
    error.what, error.fix, error.code = what, fix, code
    return error


def near_names(name: str, header: Sequence[str], most: int = 3) -> str:
    """What a message says of a column ``name`` that ``header`` lacks: the few names nearest
    to it (:func:`difflib.get_close_matches`, case aside; of equally near ones, the first in
    the header), never the whole header, which a wide file makes hundreds of names long.

    Examples
    --------
    >>> near_names("ID", ["id", "x1", "x2", "class"])
    "the header's nearest name: 'id'"
    >>> near_names("x", ["id", "x1", "x2", "y1"])
    "the header's nearest names: 'x1', 'x2'"
    >>> near_names("key", ["id", "x1", "x2", "class"])
    "none of the header's 4 names is near it"
    """
    import difflib

    lowered: dict[str, str] = {}  # each name in lower case: the first with it
    for column in map(str, header):
        lowered.setdefault(column.lower(), column)
    key = str(name).lower()
    close = difflib.get_close_matches(key, list(lowered), n=len(lowered))  # all near enough
    if not close:
        return f"none of the header's {len(header)} names is near it"
    order = {c: k for k, c in enumerate(lowered)}
    score = {c: difflib.SequenceMatcher(None, key, c).ratio() for c in close}
    close = sorted(close, key=lambda c: (-score[c], order[c]))[:most]
    shown = ", ".join(repr(lowered[c]) for c in close)
    return f"the header's nearest name{'s' if len(close) > 1 else ''}: {shown}"


class Problems:
    """What a scan found wrong, each error at its line: :meth:`raise_first` raises the first
    in file order (on one line, the lowest ``rank``: what of a row is checked first), so a
    file fails with its first bad row's error whatever the blocks it is read in.

    Examples
    --------
    >>> problems = Problems()
    >>> problems.add(fail("d.csv", 5, "ragged"), 3)
    >>> problems.attempt(1, int, "x") is None  # an error that is no DataFileError passes on
    Traceback (most recent call last):
    ...
    ValueError: invalid literal for int() with base 10: 'x'
    >>> problems.add(fail("d.csv", 2, "a bad label"), 2)
    >>> problems.raise_first()
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: d.csv, line 2: a bad label
    """

    def __init__(self) -> None:
        self.found: list[tuple[int, int, DataFileError]] = []

    def add(self, error: DataFileError | None, rank: int) -> None:
        if error is not None:
            self.found.append((error.line or 0, rank, error))

    def attempt(self, rank: int, check: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``check(*args, **kwargs)``, or None when it raised a DataFileError (added)."""
        try:
            return check(*args, **kwargs)
        except DataFileError as error:
            self.add(error, rank)
            return None

    def raise_first(self) -> None:
        if self.found:
            raise min(self.found, key=lambda item: item[:2])[2]


def show(value: Any, limit: int = 60) -> str:
    """A token or line for a message: quoted, bytes decoded, long ones cut."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return repr(value[:limit])


# how to name a data's format (the command line says it with its option)
FORMAT_FIX = "format='csv' (or 'svmlight', 'tsv')"


def data_format(path: str | os.PathLike[str]) -> str:
    """Name the format of a data file from its extension (``.gz`` looks at the one before).

    Examples
    --------
    >>> data_format("train.libsvm"), data_format("spam.TSV"), data_format("big.csv.gz")
    ('svmlight', 'text', 'csv')
    """
    name = os.fspath(path)
    stem = name[: -len(GZIP_SUFFIX)] if name.lower().endswith(GZIP_SUFFIX) else name
    ext = os.path.splitext(stem)[1].lower()
    if ext not in FORMATS:
        raise DataFileError(
            f"{name}: unknown data format {ext or '(no extension)'!r}; use "
            f"{', '.join(FORMATS)} (CSV, svmlight/libsvm, or label<TAB>text), optionally "
            f"gzipped (.csv.gz, ...), or name the format: {FORMAT_FIX}"
        )
    return FORMATS[ext]


def format_of(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The format to read ``path`` in: ``format`` when given, else from the extension.

    Examples
    --------
    >>> format_of("iris.data", "csv"), format_of("a9a.txt", "libsvm"), format_of("sms.tsv")
    ('csv', 'svmlight', 'text')
    >>> format_of("-")
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: <stdin>: standard input has no extension to tell its \
format; name it: format='csv' (or 'svmlight', 'tsv')
    """
    if format is not None:
        kind = FORMAT_NAMES.get(str(format).lower())
        if kind is None:
            raise ValueError(
                f"unknown data format {format!r}; use one of {', '.join(FORMAT_NAMES)}"
            )
        return kind
    if os.fspath(path) == STDIN:
        raise DataFileError(
            f"{STDIN_NAME}: standard input has no extension to tell its format; name it: "
            + FORMAT_FIX
        )
    return data_format(path)


#: Lines that :func:`format_by_content` looks at, at most.
SNIFF_LINES = 20
_FEATURE = re.compile(r"(?:qid:\S+|[+-]?\d+:\S+)")
_NAMES = {"csv": "CSV", "svmlight": "svmlight", "text": "label<TAB>text"}


def _formats_of(line: str, first: bool) -> set[str]:
    """The formats a line of a data file can be in (``first``: it may be a CSV header)."""
    kinds = set()
    tokens = line.split("#", 1)[0].split()
    if not tokens:  # a comment: svmlight's alone
        return {"svmlight"}
    if not (set(":,") & set(tokens[0])) and all(_FEATURE.fullmatch(t) for t in tokens[1:]):
        kinds.add("svmlight")
    label, tab, text = line.partition("\t")
    if tab and label.strip() and "," not in label and text.strip():
        kinds.add("text")
    cells = [cell.strip().strip('"') for cell in line.split(",")]
    numbers = sum(_is_number(cell) for cell in cells)
    if len(cells) == 1 and numbers:  # one number: a CSV of one column, as well
        kinds.add("csv")
    elif len(cells) > 1 and (
        numbers >= len(cells) - 1 or (first and all(c and "\t" not in c for c in cells))
    ):
        kinds.add("csv")  # numbers but for the label, or a header's names
    return kinds


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def format_by_content(name: str, lines: list[str]) -> str:
    """The format that the first ``lines`` of a data file are in, for a file whose name
    does not tell (standard input): ``"csv"``, ``"svmlight"`` or ``"text"``.

    Each line is matched against the three formats (comma-separated numbers or a
    header; ``label index:value ...``; ``label<TAB>text``); the format every line
    fits is the file's. Lines that fit svmlight and label<TAB>text alike (a tab
    between index:value tokens) are svmlight. Otherwise there is no telling:
    the error says why (no line, or lines of different formats, or lines that fit
    several) and asks for the format.

    Examples
    --------
    >>> format_by_content("-", ["a,b,label", "1.5,2,yes"])
    'csv'
    >>> format_by_content("-", ["1 3:0.5 7:1", "-1 2:1"]), format_by_content("-", ["ham\\tok"])
    ('svmlight', 'text')
    >>> format_by_content("<stdin>", ["1.5,2", "-1 2:1"])
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: <stdin>: cannot tell its format by its first lines: \
line 1 is CSV, line 2 svmlight; name it: format='csv' (or 'svmlight', 'tsv')
    """
    fix = "name it: " + FORMAT_FIX
    possible = {"csv", "svmlight", "text"}
    first, seen = True, list[int]()  # seen: the numbers of the lines read
    for number, line in enumerate(lines[:SNIFF_LINES], 1):
        if not line.strip():
            continue
        kinds = _formats_of(line, first)
        first = first and line.lstrip().startswith("#")  # a header comes before the data
        if not kinds:
            why = f"line {number} ({show(line)}) is in none of them"
            raise fail(name, None, f"cannot tell its format by its first lines: {why}", fix)
        if not possible & kinds:
            was = " or ".join(_NAMES[k] for k in sorted(possible))
            now = " or ".join(_NAMES[k] for k in sorted(kinds))
            why = f"line {seen[0]} is {was}, line {number} {now}"
            raise fail(name, None, f"cannot tell its format by its first lines: {why}", fix)
        possible &= kinds
        seen.append(number)
    if not seen:
        raise fail(name, None, "no data lines to tell its format by", fix, code="empty")
    if {"svmlight", "text"} <= possible:  # index:value tokens after a tab are no text
        possible.discard("text")
    if len(possible) > 1:
        can = " or ".join(_NAMES[k] for k in sorted(possible))
        why = f"they can be {can}"
        raise fail(name, None, f"cannot tell its format by its first lines: {why}", fix)
    return possible.pop()


def is_gzip(path: str | os.PathLike[str]) -> bool:
    return os.fspath(path).lower().endswith(GZIP_SUFFIX)


def check_file(path: str | os.PathLike[str]) -> str:
    """``path`` as a string, once it is known to name a data file (or standard input).

    A folder and a missing path are refused as every command refuses them
    (:func:`rosenblatt._core.files.check_readable`); so is a pipe or a device, which
    a reader may need to read twice: standard input is ``"-"``.

    Examples
    --------
    >>> import tempfile
    >>> check_file(tempfile.mkdtemp())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: ...: a folder, not a data file; give the data \
file's own path
    """
    name = os.fspath(path)
    if name == STDIN:
        return name
    try:
        check_readable(name, what="data file")
    except OSError as exc:
        raise DataFileError(f"{name}: {exc.strerror}") from None
    if not os.path.isfile(name):
        raise DataFileError(
            f"{name}: not a regular file (a pipe or a device); give a data file, or - to "
            "read standard input"
        )
    return name


def shown_name(path: str | os.PathLike[str]) -> str:
    """How messages name a data file: its path, or ``<stdin>``."""
    name = os.fspath(path)
    return STDIN_NAME if name == STDIN else name


def gzip_error(path: str, exc: BaseException) -> DataFileError:
    """The error for a file named ``.gz`` that gzip cannot read.

    Parameters
    ----------
    path : str
        The file's name, as shown to users.
    exc : Exception
        What gzip raised.

    Returns
    -------
    DataFileError
    """
    return fail(
        path,
        None,
        f"not a readable gzip file ({exc})",
        "decompress it to check it, or give the uncompressed file",
    )


def read_bytes(path: str) -> bytes:
    """The whole content of a data file, decompressed when it is gzipped.

    ``"-"`` reads standard input to its end (gzipped data is recognised by its
    first bytes, as there is no extension to go by).
    """
    if os.fspath(path) == STDIN:
        import sys

        raw = sys.stdin.buffer.read()
        gzipped = raw[:2] == GZIP_MAGIC
    else:
        with open(path, "rb") as handle:
            raw = handle.read()
        gzipped = is_gzip(path)
    if gzipped:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise gzip_error(shown_name(path), exc) from None
    return raw


class GzipCopy:
    """A file-like reader of a gzip file that copies what it reads to a temporary file.

    Streaming reads chunks in a random order; a gzip stream can only be read
    from the start, so the scan decompresses the file once, into ``name``
    (removed by :meth:`remove`, which the scan result calls when it goes away).
    """

    def __init__(self, path):
        self.path = path
        self._source = gzip.open(path, "rb")
        handle, self.name = tempfile.mkstemp(
            prefix=GZIP_TEMP_PREFIX, suffix=os.path.splitext(path[:-3])[1]
        )
        self._copy = os.fdopen(handle, "wb", buffering=GZIP_COPY_BYTES)

    def read(self, size: int = -1) -> bytes:
        try:
            block = self._source.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise gzip_error(self.path, exc) from None
        self._copy.write(block)
        return block

    def close(self) -> None:
        self._source.close()
        self._copy.close()

    def remove(self) -> None:
        self.close()
        remove_file(self.name)


def remove_file(name: str) -> None:
    try:
        os.remove(name)
    except FileNotFoundError:
        pass


def pieces(
    handle: Any, block_bytes: int | None = None, line: int = 1
) -> Iterator[tuple[int, int, bytes]]:
    """Split a binary stream into blocks of whole lines.

    Parameters
    ----------
    handle : binary file
    block_bytes : int, default=None
        Bytes read at a time (default: ``_config.SCAN_BLOCK_BYTES``).
    line : int, default=1
        The number of the stream's first line: a block of a file's lines read as a file
        of its own (:class:`~rosenblatt.data.readers.Stream`) numbers them as the file
        does. A byte order mark is skipped only at the start of a file (line 1).

    Yields
    ------
    offset : int
        Byte offset of the block's first line.
    first_line : int
        1-based number of that line.
    block : bytes
        Whole lines, each with its line break (the file's last line may have none).

    Examples
    --------
    >>> import io
    >>> list(pieces(io.BytesIO(b"a\\r\\nb\\rc"), block_bytes=2))
    [(0, 1, b'a\\r\\n'), (3, 2, b'b\\r'), (5, 3, b'c')]
    """
    block_bytes = block_bytes or SCAN_BLOCK_BYTES
    offset, carry = 0, b""
    head = handle.read(len(BOM))
    if head == BOM and line == 1:
        offset, head = len(BOM), b""
    while True:
        block = handle.read(block_bytes)
        if head:
            block, head = head + block, b""
        if not block:
            break
        block = carry + block if carry else block
        # whole lines end at the last "\n", or at a "\r" that is not the block's last
        # byte (that one may be the start of "\r\n")
        cut = max(block.rfind(b"\n"), block.rfind(b"\r", 0, len(block) - 1)) + 1
        block, carry = (block[:cut], block[cut:]) if cut < len(block) else (block, b"")
        if block:
            yield offset, line, block
            offset += len(block)
            line += count_lines(block)
    if carry:
        yield offset, line, carry


def count_lines(block: bytes) -> int:
    """Lines in a block of whole lines (the last may lack its line break).

    Examples
    --------
    >>> count_lines(b"a\\r\\nb\\rc\\n\\n"), count_lines(b"a\\nb")
    (4, 2)
    """
    breaks = block.count(b"\n")
    if b"\r" in block:
        breaks += block.count(b"\r") - block.count(b"\r\n")
    return breaks + (not block.endswith((b"\n", b"\r")))


def line_starts(offset: int, block: bytes | list[bytes]) -> np.ndarray:
    """The byte offset of each line of a block of whole lines starting at ``offset``.

    ``block``: bytes, or its lines with their line breaks.

    Examples
    --------
    >>> line_starts(10, b"ab\\n\\r\\nc").tolist()
    [10, 13, 15]
    """
    lines = block.splitlines(True) if isinstance(block, bytes) else block
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    starts = np.empty_like(lengths)
    starts[0] = offset
    np.cumsum(lengths[:-1], out=starts[1:])
    starts[1:] += offset
    return starts


def normalize(text: str) -> str:
    """Every line break as ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def text_lines(text: str) -> list:
    """Split text at ``\\n``, ``\\r\\n`` and ``\\r`` only, as :meth:`bytes.splitlines` does.

    (:meth:`str.splitlines` would also split at form feeds and Unicode separators.)

    Examples
    --------
    >>> text_lines("a\\r\\nb\\x0cc\\rd\\n")
    ['a', 'b\\x0cc', 'd']
    """
    lines = normalize(text).split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def line_of(raw: bytes, position: int, first_line: int) -> int:
    """The line number of byte ``position`` in a block starting at line ``first_line``."""
    head = raw[:position]
    return first_line + head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n")


#: bytes that no numeric line holds: NUL (a binary or UTF-16 file), vertical tab, form feed
NUMERIC_CONTROL = b"\x00\x0b\x0c"
#: text lines may hold form feeds; a NUL still means a binary or UTF-16 file
TEXT_CONTROL = b"\x00"
_CONTROL_NAMES = {0: "a NUL byte", 11: "a vertical tab", 12: "a form feed"}


def bad_bytes(
    path: str, raw: bytes, first_line: int, forbidden: bytes, encoding: str | None = None
) -> tuple[int, DataFileError | None]:
    """The first bytes of a block of whole lines that no line may hold: ``(cut, error)``.

    ``error`` names the line of the first forbidden control byte or (given ``encoding``)
    the first byte that is not valid in it, whichever comes first, and ``cut`` is where
    that line starts in ``raw``: the lines before it can be read, so that a scan reports
    a problem on an earlier line first (the first bad row of the file, whatever the
    blocks it is read in). ``(len(raw), None)`` when every byte is good.

    Examples
    --------
    >>> cut, error = bad_bytes("d.svm", b"1 1:2\\n0 2:1\\x0c3:1\\n", 7, NUMERIC_CONTROL)
    >>> cut, error.line, error.what
    (6, 8, 'a form feed inside a line')
    """
    found = [p for p in (raw.find(bytes([b])) for b in forbidden) if p >= 0]
    position = min(found) if found else len(raw)
    head = raw if position == len(raw) else raw[:position]  # (a whole block: no copy)
    invalid = None
    if encoding is not None and not head.isascii():  # ASCII is valid in every encoding read
        try:
            head.decode(encoding)
        except UnicodeDecodeError as exc:
            position, invalid = exc.start, exc.reason
        except LookupError:
            raise ValueError(f"unknown text encoding {encoding!r}") from None
    if position == len(raw):
        return position, None
    line = line_of(raw, position, first_line)
    cut = max(raw.rfind(b"\n", 0, position), raw.rfind(b"\r", 0, position)) + 1
    if invalid is not None:
        error = fail(
            path,
            line,
            f"not valid {encoding} ({invalid})",
            f"save the file as {encoding}",
            code="encoding",
        )
        return cut, error
    name = _CONTROL_NAMES[raw[position]]
    fix = (
        "the file may be binary or UTF-16: save it as UTF-8 text"
        if raw[position] == 0
        else "separate values with spaces, tabs or commas only"
    )
    return cut, fail(path, line, f"{name} inside a line", fix, "control")


def decode(path: str, raw: bytes, first_line: int, encoding: str) -> str:
    """Decode a block of lines, naming the line of the first invalid byte."""
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = line_of(raw, exc.start, first_line)
        raise fail(
            path,
            line,
            f"not valid {encoding} ({exc.reason})",
            f"save the file as {encoding}",
            code="encoding",
        ) from None
    except LookupError:
        raise ValueError(f"unknown text encoding {encoding!r}") from None


#: :func:`forcing_compiled` in this thread: a switch of its own, so that a warm-up in one
#: thread leaves the readers of the others as they were
_forced = threading.local()


def compiled(size: int) -> bool:
    """Whether to parse ``size`` bytes with the compiled parsers (see ``_config``)."""
    return size >= COMPILED_PARSE_MIN_BYTES or getattr(_forced, "on", False)


@contextmanager
def forcing_compiled() -> Iterator[None]:
    """Parse with the compiled parsers whatever the size, in this thread, in the block."""
    before, _forced.on = getattr(_forced, "on", False), True
    try:
        yield
    finally:
        _forced.on = before


class Sizes:
    """How many records (and tokens) a block of bytes holds: a guess learnt block by block.

    The compiled parsers fill arrays the caller allocates; sized by the worst case
    (a record every two bytes) they would be mostly empty, and numpy asks for huge
    pages for large arrays, so touching their first bytes would take megabytes of
    memory. So the arrays are sized by what the previous blocks held, with room to
    spare; a parser that runs out of room says so, and the block is parsed again
    with the worst case.
    """

    def __init__(self, per_record=64.0, per_token=8.0):
        self.per_record, self.per_token = per_record, per_token

    def guess(self, size: int) -> tuple[int, int]:
        """``(records, tokens)`` to allocate for a block of ``size`` bytes."""
        return int(size / self.per_record * 1.25) + 64, int(size / self.per_token * 1.25) + 64

    def learn(self, size: int, records: int, tokens: int) -> None:
        if records:
            self.per_record = max(min(self.per_record, size / records), 1.0)
        if tokens:
            self.per_token = max(min(self.per_token, size / tokens), 1.0)


def label_ids(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, Any]:
    """Each row's label id, in order of first appearance, and the first row of each id.

    ``buf[starts[r]:ends[r]]`` is row ``r``'s label; the compiled ``textparse.dedupe``
    gives equal byte strings one id.
    """
    from ...engine.kernels.loader import compiled_kernel

    n = starts.shape[0]
    ids = np.empty(n, dtype=np.int32)
    firsts = np.empty(n, dtype=np.int64)
    return ids, firsts[: compiled_kernel("textparse.dedupe")(buf, starts, ends, ids, firsts)]
