"""svmlight / libsvm: ``label [qid:n] index:value ...`` per line, parsed into CSR matrices.

Indices increase along a line; ``#`` starts a comment; blank lines are skipped.
Blocks are parsed by :func:`sklearn.datasets.load_svmlight_file`; when it fails
(its messages name no line), the block is checked line by line against the rules
of :func:`_line_problem` to say which line is wrong and why.

The index base is fixed for the whole file: ``zero_based="auto"`` reads the
file as zero-based when an index 0 occurs anywhere in it, else as one-based.
"""

from __future__ import annotations

import io
import re

import numpy as np

from . import _labels
from ._common import fail, pieces, show

EXPECTED = "expected lines of label index:value ..."
_QID = b"qid:"
_SKLEARN_ZERO = re.compile(rb"#[^\n]*Column indices are (zero|one)-based")
_FEATURES_FIRST = re.compile(rb"(?m)^(?=[ \t\f\v]*[^\s#])")  # lines that hold a sample


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
            "pass zero_based=True (--zero-based) if the indices start at 0",
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


def scan(schema, handle, chunks, *, labelled=True, n_features=None, zero_based="auto", **_):
    """Read the whole file once: labels, index range and base, chunk boundaries.

    Indices increase along a line, so its first and last index bound the others
    (a line where they do not is an error of the parse).
    """
    path = schema.path
    first_lines = {}
    lowest = highest = None  # (index, line)
    zero = None  # first line with index 0
    over = {0: None, 1: None}  # first (index, line) beyond n_features, read with each base
    said = None  # what a scikit-learn header comment says of the base
    end = 0
    for offset, line0, block in pieces(handle):
        end = offset + len(block)
        if said is None:
            match = _SKLEARN_ZERO.search(block)
            said = match.group(1).decode() if match else ""
        keep, firsts, lasts, where = [], [], [], []
        lines = block.splitlines(True)
        for k, content in enumerate(lines):
            if b"#" in content:
                content = content[: content.index(b"#")]
            parts = content.split(None, 1)
            if not parts:
                continue
            keep.append(k)
            if labelled is None:
                labelled = _index(parts[0]) is None
            if labelled:
                if parts[0] not in first_lines:
                    first_lines[parts[0]] = line0 + k
                if len(parts) == 1:
                    continue
                content = parts[1]
            features = content.split(None, 1)
            if features[0].startswith(_QID):
                if len(features) == 1:
                    continue
                content = features[1]
                features = content.split(None, 1)
            head = features[0]
            tail = content.rsplit(None, 1)[-1] if len(features) > 1 else head
            try:
                first, last = int(head[: head.index(b":")]), int(tail[: tail.index(b":")])
            except ValueError:  # no colon, or not an int before it
                token = head if _index(head) is None else tail
                raise fail(path, line0 + k, *_bad_token(token)) from None
            if first == 0 and zero_based is False:
                raise fail(path, line0 + k, *_below(0, 1))
            firsts.append(first)
            lasts.append(last)
            where.append(line0 + k)
        if firsts:
            firsts, lasts = np.array(firsts), np.array(lasts)
            lasts = np.maximum(firsts, lasts)  # when indices do not increase, the parse says so
            low, high = int(firsts.argmin()), int(lasts.argmax())
            if lowest is None or firsts[low] < lowest[0]:
                lowest = (int(firsts[low]), where[low])
            if highest is None or lasts[high] > highest[0]:
                highest = (int(lasts[high]), where[high])
            if zero is None and firsts[low] == 0:
                zero = where[int(np.argmax(firsts == 0))]
            for base in (0, 1) if n_features is not None else ():
                beyond = np.flatnonzero(lasts - base >= n_features)
                if over[base] is None and beyond.size:
                    over[base] = (int(lasts[beyond[0]]), where[beyond[0]])
        chunks.add_lines(offset, line0, lines, keep)
    if not chunks.count:
        raise fail(path, None, f"no samples ({EXPECTED})", code="empty")
    if zero_based == "auto":
        zero_based = zero is not None
        schema.notes.append(_base_note(zero, lowest, said))
    base = 0 if zero_based else 1
    if n_features is None:
        n_features = max(highest[0] + 1 - base if highest else 0, 1)
    elif over[base] is not None:
        index, line = over[base]
        raise fail(path, line, *_beyond(index, base, n_features))
    schema.labelled = bool(labelled)
    schema.zero_based, schema.n_features = bool(zero_based), int(n_features)
    schema.label_kind, schema.label_map, schema.classes = _labels.decide(
        path, first_lines, numbers_only=True
    )
    return end, chunks


def _base_note(zero, lowest, said):
    if zero is not None:
        return f"svmlight feature indices read as zero-based: line {zero} has index 0"
    where = f"the smallest is {lowest[0]}, on line {lowest[1]}" if lowest else "no features"
    hint = " (the file's comment says its column indices are zero-based)" if said == "zero" else ""
    return (
        f"svmlight feature indices read as one-based: no index 0 in the file ({where}); "
        "if the file is zero-based (as scikit-learn's dump_svmlight_file writes by "
        f"default){hint}, pass zero_based=True (--zero-based)"
    )


def parse(schema, raw, first_line, dtype=np.float64):
    """``(X, y)`` of a block of whole lines starting at ``first_line``: CSR ``X``, int64 ``y``."""
    from sklearn.datasets import load_svmlight_file

    block = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in raw else raw
    if not schema.labelled:
        block = _FEATURES_FIRST.sub(b"0 ", block)
    try:
        X, y = load_svmlight_file(
            io.BytesIO(block),
            n_features=schema.n_features,
            zero_based=schema.zero_based,
            dtype=dtype,
        )
    except ValueError as exc:
        raise _locate(schema, raw, first_line, dtype, exc) from None
    if not np.all(np.isfinite(X.data)):
        raise _locate(schema, raw, first_line, dtype, "a missing or infinite value")
    return X, (y.astype(np.int64) if schema.labelled else None)


def _line_problem(content, labelled, base, n_features, dtype):
    """``(what, fix, code)`` of what is wrong with one line, or None."""
    tokens = content.split(b"#", 1)[0].split()
    if labelled and tokens:
        try:
            float(tokens[0])
        except ValueError:
            return (
                f"the label {show(tokens[0])} is not a number",
                "svmlight labels are numbers (use a .csv or .tsv file for text labels)",
                "label",
            )
        tokens = tokens[1:]
    if tokens and tokens[0].startswith(_QID):
        tokens = tokens[1:]
    previous = None
    for token in tokens:
        head, colon, value = token.partition(b":")
        try:
            index, number = int(head), float(value)
            if not colon:
                raise ValueError
        except ValueError:
            return _bad_token(token)
        if index < base:
            return _below(index, base)
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
        if index - base >= n_features:
            return _beyond(index, base, n_features)
        previous = index
    return None


def _locate(schema, raw, first_line, dtype, fallback):
    """The error of the first bad line of a block (scikit-learn's messages name no line)."""
    from sklearn.datasets import load_svmlight_file

    base = 0 if schema.zero_based else 1
    lines = raw.splitlines()
    for k, content in enumerate(lines):
        problem = _line_problem(content, schema.labelled, base, schema.n_features, dtype)
        if problem:
            return fail(schema.path, first_line + k, *problem)
    for k, content in enumerate(lines):  # a rule of scikit-learn's that ours lack
        if not schema.labelled:
            content = _FEATURES_FIRST.sub(b"0 ", content)
        try:
            load_svmlight_file(
                io.BytesIO(content),
                n_features=schema.n_features,
                zero_based=schema.zero_based,
                dtype=dtype,
            )
        except ValueError as exc:
            return fail(schema.path, first_line + k, str(exc), code="sklearn")
    return fail(schema.path, first_line, str(fallback), code="sklearn")
