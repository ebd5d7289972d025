"""svmlight / libsvm: ``label [qid:n] index:value ...`` per line, parsed into CSR matrices.

Indices increase along a line; ``#`` starts a comment; blank lines are skipped.
Tokens are split at ASCII whitespace; an index is what ``int()`` reads and a value
what ``float()`` reads, as in scikit-learn's ``load_svmlight_file``. Blocks of
lines are parsed by the compiled parser of :mod:`rosenblatt.engine.kernels.textparse`
(values exactly as ``float()`` gives them), or, for small files and for lines
the compiled parser leaves to Python, line by line in Python, with the same
result.

The index base is fixed for the whole file: ``zero_based="auto"`` reads the
file as zero-based when an index 0 occurs anywhere in it, else as one-based.

Errors: a line that cannot be read (a token that is not ``index:value``, indices
that do not increase, a missing or infinite value) stops the scan there. After
the whole file come the checks that need its index base (an index below the
first index, or beyond ``n_features``: the first such line) and then the labels.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.config import SVMLIGHT_MAX_FEATURES
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
    fail,
    label_ids,
    line_starts,
    pieces,
    show,
)
from ._store import Labels, NullStore, Rows, sparse

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from ._schema import Chunker, Schema

EXPECTED = "expected lines of label index:value ..."
_QID = b"qid:"
_SKLEARN_ZERO = re.compile(rb"#[^\n]*Column indices are (zero|one)-based")
_INT32 = 2**31
MAX_FEATURES_ENV = "ROSENBLATT_MAX_FEATURES"
NO_FIRST = np.iinfo(np.int64).max
NO_LAST = np.iinfo(np.int64).min


def _bad_token(token):
    return (
        f"{show(token)} is not index:value",
        "write each feature as index:value, e.g. 3:0.5",
        "token",
    )


def _index(token):
    """The index of an ``index:value`` token, or None when it is not one."""
    head, colon, _ = token.partition(b":")
    if not colon:
        return None
    try:
        return int(head)
    except ValueError:
        return None


def _below(index, base):
    if base == 1 and index == 0:
        return (
            "feature index 0 is below 1, the first index of a one-based file",
            "pass zero_based=True if the indices start at 0",
            "index-zero",
        )
    return (
        f"feature index {index} is below {base}, the first index of a "
        f"{'zero' if base == 0 else 'one'}-based file",
        f"indices are whole numbers from {base}",
        "index-below",
    )


def _beyond(index, base, n_features):
    return (
        f"feature index {index} is beyond n_features={n_features} (read "
        f"{'zero' if base == 0 else 'one'}-based, the indices go up to "
        f"{n_features - 1 + base})",
        "pass a larger n_features, or none to use the file's",
        "index-beyond",
    )


def _too_large(index):
    return (
        f"feature index {index} is too large (indices go up to {_INT32 - 1})",
        "number the features with smaller indices",
        "index-large",
    )


def _split_line(content, labelled):
    """``(label token or None, feature tokens)`` of a line, comment and qid dropped; None
    for a line with no token."""
    tokens = content.split(b"#", 1)[0].split()
    if not tokens:
        return None
    label = None
    if labelled:
        label, tokens = tokens[0], tokens[1:]
    if tokens and tokens[0].startswith(_QID):
        tokens = tokens[1:]
    return label, tokens


def _pair(token):
    """``(index, value)`` of an ``index:value`` token, or None if it is not one."""
    head, colon, value = token.partition(b":")
    try:
        return (int(head), float(value)) if colon else None
    except ValueError:
        return None


def _line_problem(content, labelled, base=None, n_features=None, dtype=np.float64, label=True):
    """``(what, fix, code)`` of the first problem of one line, token by token, or None.

    ``base=None`` and ``n_features=None`` skip the checks that need them; ``label=False``
    skips the label's (the scan decides the labels of the whole file at its end).
    """
    parts = _split_line(content, labelled)
    if parts is None:
        return None
    first, tokens = parts
    if first is not None and label:
        try:
            float(first)
        except ValueError:
            return (
                f"the label {show(first)} is not a number",
                "svmlight labels are numbers (use a .csv or .tsv file for text labels)",
                "label",
            )
    previous = None
    for token in tokens:
        pair = _pair(token)
        if pair is None:
            return _bad_token(token)
        index, number = pair
        if base is not None and index < base:
            return _below(index, base)
        if not -_INT32 <= index < _INT32:
            return _too_large(index)
        if previous is not None and index <= previous:
            return (
                f"feature index {index} after {previous}; indices must increase along a line",
                "sort the features of each line by index, each index once",
                "order",
            )
        with np.errstate(over="ignore"):
            finite = np.isfinite(dtype(number))  # 1e39 overflows float32
        if not finite:
            return (
                f"{show(token)} holds a missing or infinite value",
                "fill in or drop missing values",
                "value",
            )
        if n_features is not None and index - base >= n_features:
            return _beyond(index, base, n_features)
        previous = index
    return None


# ---------------------------------------------------------------------- one block
class Block(Rows):
    """The records of a block of lines: CSR arrays, labels, each row's first and last index.

    ``label_keys`` holds the block's distinct labels (bytes), ``label_ids`` each row's
    position among them and ``label_lines`` the first line of each; ``first`` and
    ``last`` each row's first and last index (``NO_FIRST``/``NO_LAST`` without features).
    """

    __slots__ = ("label_keys", "label_ids", "label_lines", "first", "last", "raw", "offset")


def _line_content(raw, start):
    """The bytes of the line starting at ``start`` of ``raw``, without its line break."""
    stop = len(raw)
    for brk in (b"\n", b"\r"):
        at = raw.find(brk, start, stop)
        if at >= 0:
            stop = at
    return raw[start:stop]


def read_block(
    raw: bytes,
    offset: int,
    line0: int,
    labelled: bool | None,
    path: str,
    use_compiled: bool | None = None,
    sizes: Sizes | None = None,
) -> Any:  # a Block
    """Parse a block of whole lines starting at byte ``offset`` and line ``line0``.

    Raises the error of the first line that cannot be read (see the module).
    ``sizes``: what the blocks before held (:class:`._common.Sizes`).
    """
    if use_compiled is None:
        use_compiled = compiled(len(raw))
    if use_compiled:
        block = _compiled_block(raw, offset, line0, labelled, path, sizes or Sizes())
        if block is not None:
            return block
    return _python_block(raw, offset, line0, labelled, path)


def _raise_line(raw, line0, k, labelled, path):
    content = raw.splitlines()[k]
    problem = _line_problem(content, labelled, label=False)
    if problem is None:  # cannot happen: the line was found wrong
        problem = ("the line cannot be read", None, "line")
    raise fail(path, line0 + k, *problem)


def block_bounds(raw: bytes) -> tuple[int, int]:
    """``(records, nonzeros)`` that a block of svmlight lines holds at most, as the
    compiled parser counts them: a record is a line of its own (a line ends at
    ``\\n``, ``\\r`` or both) and every nonzero is stored at its own ``:``.

    Examples
    --------
    >>> block_bounds(b"1 1:0.5 3:2\\n-1 qid:7 2:1\\r\\n")
    (4, 4)
    """
    return raw.count(b"\n") + raw.count(b"\r") + 1, raw.count(b":")


def _parse_block(buf, labelled, records, tokens):
    """:func:`.textparse.svmlight_block` into arrays with room for ``records`` records and
    ``tokens`` nonzeros: its four counts, then ``indptr, indices, values, rows, deferred``."""
    svmlight_block = compiled_kernel("textparse.svmlight_block")
    indptr = np.empty(records + 1, dtype=np.int64)
    indices = np.empty(tokens, dtype=np.int32)
    values = np.empty(tokens, dtype=np.float64)
    rows = np.empty((6, records), dtype=np.int64)
    deferred = np.empty((tokens, 4), dtype=np.int64)
    counts = svmlight_block(buf, bool(labelled), indptr, indices, values, *rows, deferred)
    return (*counts, indptr, indices, values, rows, deferred)


def _compiled_block(raw, offset, line0, labelled, path, sizes):
    """The block by the compiled parser; None when Python must read it."""
    buf = np.frombuffer(raw, dtype=np.uint8)
    size = len(raw)
    # first what earlier blocks suggest; when that is too small, room for what the block
    # can hold at most, which always suffices (see block_bounds)
    parsed = _parse_block(buf, labelled, *sizes.guess(size))
    if parsed[2] == FULL:
        parsed = _parse_block(buf, labelled, *block_bounds(raw))
    n, nnz, flagged, n_deferred, indptr, indices, values, rows, deferred = parsed
    sizes.learn(size, n, nnz)
    bad = None  # the first line that cannot be read
    for position, start, stop, k in deferred[:n_deferred]:
        try:
            value = float(raw[start:stop])
        except ValueError:
            value = np.nan
        if not np.isfinite(value):
            bad = k
            break
        values[position] = value
    if flagged >= 0 and bad is None:
        if _line_problem(raw.splitlines()[flagged], labelled, label=False) is None:
            return None  # a line only Python reads (an index like 1_0): Python reads the block
        bad = flagged
    if bad is not None:
        _raise_line(raw, line0, int(bad), labelled, path)
    row_line, row_start, label_start, label_end, first, last = (r[:n] for r in rows)
    block = Block(
        n,
        row_start + offset,
        row_line + line0,
        indptr=indptr[: n + 1],
        indices=indices[:nnz],
        values=values[:nnz],
    )
    block.first, block.last, block.raw, block.offset = first, last, raw, offset
    if labelled:
        ids, firsts = label_ids(buf, label_start, label_end)
        block.label_ids = ids
        block.label_keys = [raw[label_start[r] : label_end[r]] for r in firsts]
        block.label_lines = block.lines[firsts]
    return block


def _python_block(raw, offset, line0, labelled, path):
    """The block read line by line in Python (the reference of the compiled parser)."""
    indptr, indices, values = [0], [], []
    starts, lines, firsts, lasts, label_ids = [], [], [], [], []
    keys = {}
    position = 0
    for k, line in enumerate(raw.splitlines(True)):
        start, position = position, position + len(line)
        parts = _split_line(line, labelled)
        if parts is None:
            continue
        label, tokens = parts
        if labelled:
            if label not in keys:
                keys[label] = (len(keys), line0 + k)
            label_ids.append(keys[label][0])
        previous = None
        for token in tokens:
            pair = _pair(token)
            index, number = pair if pair is not None else (0, None)
            if (
                number is None
                or not np.isfinite(number)
                or not -_INT32 <= index < _INT32
                or (previous is not None and index <= previous)
            ):
                _raise_line(raw, line0, k, labelled, path)
            indices.append(index)
            values.append(number)
            previous = index
        indptr.append(len(indices))
        starts.append(offset + start)
        lines.append(line0 + k)
        row = indices[indptr[-2] :]
        firsts.append(row[0] if row else NO_FIRST)
        lasts.append(row[-1] if row else NO_LAST)
    block = Block(
        len(lines),
        np.array(starts, dtype=np.int64),
        np.array(lines, dtype=np.int64),
        indptr=np.array(indptr, dtype=np.int64),
        indices=np.array(indices, dtype=np.int32),
        values=np.array(values, dtype=np.float64),
    )
    block.first = np.array(firsts, dtype=np.int64)
    block.last = np.array(lasts, dtype=np.int64)
    block.raw, block.offset = raw, offset
    if labelled:
        block.label_ids = np.array(label_ids, dtype=np.int32)
        block.label_keys = list(keys)
        block.label_lines = np.array([line for _, line in keys.values()], dtype=np.int64)
    return block


def _first_row(mask):
    where = np.flatnonzero(mask)
    return int(where[0]) if where.size else None


def _content_of(block, r):
    return _line_content(block.raw, int(block.starts[r] - block.offset))


def _detect_labelled(raw):
    """Whether lines start with a label (not ``index:value``); None: no sample line."""
    for content in raw.splitlines():
        parts = content.split(b"#", 1)[0].split(None, 1)
        if parts:
            return _index(parts[0]) is None
    return None


def max_features() -> int:
    """The most features a file may make without ``n_features=``: ``ROSENBLATT_MAX_FEATURES``
    or :data:`rosenblatt._core.config.SVMLIGHT_MAX_FEATURES`."""
    text = os.environ.get(MAX_FEATURES_ENV, "")
    try:
        return int(text) if text.strip() else SVMLIGHT_MAX_FEATURES
    except ValueError:
        raise ValueError(f"{MAX_FEATURES_ENV} must be a whole number; got {text!r}") from None


def _check_feature_count(path, many, base, highest):
    """A huge index would make a weight vector of gigabytes: the error of the first row
    with an index beyond the limit (``many[base]``: its line and last index), or None."""
    if many[base] is None:
        return None
    limit = max_features()
    line, index = many[base]
    n_features = index + 1 - base
    total = highest[0] + 1 - base
    return fail(
        path,
        line,
        f"feature index {index} makes {n_features:,} features, more than the {limit:,} "
        f"read without asking (the weights alone would take {8 * n_features / 2**30:.1f} GiB)",
        "number the features with smaller indices, or raise the limit: " + f"n_features={total}",
        "index-many",
    )


def _read_until_bad(raw, offset, line0, labelled, path, use_compiled, sizes):
    """``(block, error)``: the lines of ``raw`` before the first one that cannot be read
    (:func:`read_block`), and that line's error (None: every line reads)."""
    try:
        return read_block(raw, offset, line0, labelled, path, use_compiled, sizes), None
    except DataFileError as error:
        k = error.line - line0
        cut = int(line_starts(0, raw)[k])
        return read_block(raw[:cut], offset, line0, labelled, path, use_compiled, sizes), error


# ---------------------------------------------------------------------- scan and parse
def scan(
    schema: Schema,
    handle: Any,
    chunks: Chunker,
    store: NullStore,
    *,
    labelled: bool | None = True,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    extra_features: str = "error",
    labels: Labels | None = None,
    first_line: int = 1,
    **_: Any,
) -> tuple[int, Chunker, list[Any]]:
    """Read the whole file once: records, labels, index range and base, chunk boundaries.

    The scan stops at the first line that cannot be read; the checks of the lines before
    it that need the whole file (its index base, its labels) come at the end, and the
    error of the first bad line is raised. ``extra_features="ignore"``: indices beyond
    ``n_features`` are dropped, and ``schema.extra_rows`` counts the rows that held one.
    ``labels``: the labels of a stream's blocks before this one (added to);
    ``first_line``: the number of the first line.
    """
    path = schema.path
    use_compiled = compiled(schema.size)
    sizes = Sizes()
    registry = Labels() if labels is None else labels
    lowest: tuple[int, int] | None = None  # (index, line)
    highest: tuple[int, int] | None = None
    zero = None  # first line with index 0
    # for each base: the first (line, content) with an index below it, and beyond n_features;
    # the first (line, index) beyond the features read without asking; rows beyond n_features
    below: dict[int, tuple[int, Any] | None] = {0: None, 1: None}
    over: dict[int, tuple[int, Any] | None] = {0: None, 1: None}
    many: dict[int, tuple[int, int] | None] = {0: None, 1: None}
    extra = {0: 0, 1: 0}
    limit = max_features() if n_features is None else 0  # (given: no limit)
    ignore = extra_features == "ignore" and n_features is not None
    said = None  # what a scikit-learn header comment says of the base
    stopped = None
    end = 0
    for offset, line0, raw in pieces(handle, line=first_line):
        end = offset + len(raw)
        cut, stopped = bad_bytes(path, raw, line0, NUMERIC_CONTROL)
        raw = raw[:cut]  # the lines before a bad byte are read before it is said
        if said is None:
            match = _SKLEARN_ZERO.search(raw)
            said = match.group(1).decode() if match else ""
        if labelled is None:
            labelled = _detect_labelled(raw)
        block = None
        if labelled is not None:
            block, error = _read_until_bad(raw, offset, line0, labelled, path, use_compiled, sizes)
            stopped = error or stopped
        if block is not None and block.n:
            first, last = block.first, block.last
            low, high = int(first.argmin()), int(last.argmax())
            if first[low] != NO_FIRST and (lowest is None or first[low] < lowest[0]):
                lowest = (int(first[low]), int(block.lines[low]))
            if last[high] != NO_LAST and (highest is None or last[high] > highest[0]):
                highest = (int(last[high]), int(block.lines[high]))
            if zero is None and lowest is not None and lowest[0] <= 0:
                r = _first_row(first == 0)
                zero = None if r is None else int(block.lines[r])
            for base in (0, 1):
                if below[base] is None and lowest is not None and lowest[0] < base:
                    r = _first_row(first < base)
                    below[base] = (int(block.lines[r]), _content_of(block, r))
                if n_features is not None:
                    beyond = last >= n_features + base
                    extra[base] += int(np.count_nonzero(beyond))
                    if over[base] is None and not ignore:
                        r = _first_row(beyond)
                        if r is not None:
                            over[base] = (int(block.lines[r]), _content_of(block, r))
                elif many[base] is None:
                    r = _first_row(last >= limit + base)
                    if r is not None:
                        many[base] = (int(block.lines[r]), int(last[r]))
            if labelled:
                block.labels = registry.add(block.label_keys, block.label_lines)[block.label_ids]
            block.raw = block.first = block.last = None  # a memory store keeps the block
            store.add(block)
            chunks.add(block.starts, block.lines)
        if stopped is not None:
            break
    if zero_based == "auto":
        zero_based = zero is not None
        schema.notes.append(_base_note(zero, lowest, said))
    base = 0 if zero_based else 1
    problems = Problems()  # ranks: what of a line comes first
    problems.add(stopped, 3)
    for where in (below[base], over[base]):
        if where is not None:
            line, content = where
            problem = _line_problem(content, labelled, base, n_features, label=False)
            problems.add(fail(path, line, *problem), 1)
    if n_features is None:
        problems.add(_check_feature_count(path, many, base, highest), 2)
    decided = problems.attempt(0, _labels.decide, path, registry.first_lines, numbers_only=True)
    problems.raise_first()
    schema.label_kind, schema.label_map, schema.classes = decided
    if not chunks.count:
        raise fail(path, None, f"no samples ({EXPECTED})", code="empty")
    if n_features is None:
        n_features = max(highest[0] + 1 - base if highest else 0, 1)
    schema.labelled = bool(labelled)
    schema.zero_based, schema.n_features = bool(zero_based), int(n_features)
    schema.extra_features, schema.extra_rows = extra_features, extra[base] if ignore else 0
    schema.follow = dict(labelled=schema.labelled, labels=registry)
    return end, chunks, registry.keys


def _base_note(zero, lowest, said):
    if zero is not None:
        return f"svmlight feature indices read as zero-based: line {zero} has index 0"
    where = f"the smallest is {lowest[0]}, on line {lowest[1]}" if lowest else "no features"
    hint = " (the file's comment says its column indices are zero-based)" if said == "zero" else ""
    return (
        f"svmlight feature indices read as one-based: no index 0 in the file ({where}); "
        "if the file is zero-based (as scikit-learn's dump_svmlight_file writes by "
        f"default){hint}, pass zero_based=True"
    )


def parse(
    schema: Schema, raw: bytes, first_line: int, dtype: DTypeLike = np.float64
) -> tuple[Any, np.ndarray | None]:
    """``(X, y)`` of a block of whole lines starting at ``first_line``: CSR ``X``, int64 ``y``."""
    path, labelled = schema.path, schema.labelled
    base, n_features = (0 if schema.zero_based else 1), schema.n_features
    assert n_features is not None  # set by the scan
    block = read_block(raw, 0, first_line, labelled, path)
    ignore = schema.extra_features == "ignore"
    bad = block.first < base
    if not ignore:
        bad |= block.last >= n_features + base
    r = _first_row(bad)
    if r is not None:
        content = _content_of(block, r)
        raise fail(path, int(block.lines[r]), *_line_problem(content, labelled, base, n_features))
    X = sparse(block.indptr, block.indices, block.values, base, n_features, dtype, ignore)
    if dtype != np.float64 and not np.all(np.isfinite(X.data)):
        r = int(np.searchsorted(block.indptr, np.flatnonzero(~np.isfinite(X.data))[0], "right"))
        content = _content_of(block, r - 1)
        problem = _line_problem(content, labelled, base, n_features, dtype)
        raise fail(path, int(block.lines[r - 1]), *problem)
    if not labelled:
        return X, None
    try:
        values = np.array([schema.label_map[key] for key in block.label_keys], dtype=np.int64)
    except KeyError:
        k = next(k for k, key in enumerate(block.label_keys) if key not in schema.label_map)
        raise _labels.changed(path, int(block.label_lines[k]), block.label_keys[k]) from None
    return X, values[block.label_ids]
