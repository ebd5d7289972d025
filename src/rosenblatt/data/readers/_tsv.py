"""Labelled text: ``label<TAB>text`` per line.

The text runs from the first tab to the end of the line (later tabs are kept);
the label is stripped of surrounding whitespace; blank lines are skipped. A file
without labels (for prediction) holds one document per line.

Whether a file holds labels (``labelled=None``, for prediction) is decided by its
first non-blank line, wherever it is read from (whole, in chunks, or a stream's
blocks): with a tab, the file is ``label<TAB>text`` and every line needs a tab;
without one, every line is a document and no line may hold a tab (a tab there
means a labelled line in a file whose first line lacks its label). With
``labelled=False`` documents may hold tabs.

The scan stops at the first line it cannot read (a bad byte, a line without its
tab, an empty label or text); the labels of the lines before it are checked
first, so the error is that of the first bad line of the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...exceptions import DataFileError
from . import _labels
from ._common import (
    TEXT_CONTROL,
    Problems,
    bad_bytes,
    decode,
    fail,
    line_starts,
    pieces,
    show,
    text_lines,
)
from ._store import Labels, NullStore, Rows

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from ._schema import Chunker, Schema

EXPECTED = "expected lines of label<TAB>text"


def _split(path, line, text):
    """The label and the document of one record."""
    label, tab, document = text.partition("\t")
    if not tab:
        raise fail(
            path,
            line,
            f"no tab between label and text: {show(text)}",
            "write each record as label<TAB>text",
            code="record",
        )
    label = label.strip()
    if not label:
        raise fail(
            path, line, "empty label before the tab", "give every record a label", code="label"
        )
    if not document.strip():
        raise fail(
            path,
            line,
            f"empty text after label {label!r}",
            "give every record a text, or drop the line",
            code="record",
        )
    return label, document


def _records(path, lines, first_line, labelled=True, decided=None):
    """The non-blank lines' indices, labels and documents (checked as :func:`_split` does),
    up to the first bad line, and its error (None: none).

    ``labelled=False`` with ``decided`` (the line that decided it): a line with a tab is
    an error.
    """
    if not labelled:
        keep = [k for k, text in enumerate(lines) if text.strip()]
        bad = None
        if decided is not None:
            bad = next((k for k in keep if "\t" in lines[k]), None)
        if bad is None:
            return keep, [], [lines[k] for k in keep], None
        error = fail(
            path,
            first_line + bad,
            f"a tab, but line {decided} has none: the file is read as documents, one a "
            "line, as its first line has no tab",
            "give every line a label and a tab (label<TAB>text), or no line a tab",
            code="record",
        )
        keep = [k for k in keep if k < bad]
        return keep, [], [lines[k] for k in keep], error
    # the common case (no blank line, every line good) without a container per line
    tabs = [text.find("\t") for text in lines]
    if tabs and min(tabs) >= 0:
        labels = [text[:tab].strip() for text, tab in zip(lines, tabs)]
        documents = [text[tab + 1 :] for text, tab in zip(lines, tabs)]
        if all(labels) and all(documents) and not any(map(str.isspace, documents)):
            return list(range(len(lines))), labels, documents, None
    keep, labels, documents = [], [], []
    for k, text in enumerate(lines):
        if not text.strip():
            continue
        try:
            label, document = _split(path, first_line + k, text)
        except DataFileError as error:
            return keep, labels, documents, error
        keep.append(k)
        labels.append(label)
        documents.append(document)
    return keep, labels, documents, None


def scan(
    schema: Schema,
    handle: Any,
    chunks: Chunker,
    store: NullStore,
    *,
    labelled: bool | None = True,
    names: Sequence[str] | None = None,
    labels: Labels | None = None,
    decided: int | None = None,
    first_line: int = 1,
    **_: Any,
) -> tuple[int, Chunker, list[Any]]:
    """Read the whole file once: records, labels, chunk boundaries (see :func:`..scan`).

    ``labels``: the labels of a stream's blocks before this one (added to);
    ``decided``: the line whose tab (or none) decided ``labelled`` in the blocks before;
    ``first_line``: the number of the first line.
    """
    path = schema.path
    registry = Labels() if labels is None else labels
    stopped = None
    end = 0
    for offset, line0, block in pieces(handle, line=first_line):
        end = offset + len(block)
        cut, stopped = bad_bytes(path, block, line0, TEXT_CONTROL, schema.encoding)
        block = block[:cut]  # the lines before a bad byte are read before it is said
        lines = text_lines(block.decode(schema.encoding))
        if labelled is None:
            k = next((k for k, text in enumerate(lines) if text.strip()), None)
            if k is not None:
                labelled, decided = "\t" in lines[k], line0 + k
        keep, labels_, documents, error = _records(path, lines, line0, labelled, decided)
        stopped = error or stopped
        ids = None
        if labelled and keep:
            distinct: dict[Any, int] = {}
            ids = np.fromiter(
                (distinct.setdefault(label, len(distinct)) for label in labels_),
                dtype=np.int32,
                count=len(labels_),
            )
            # each label's first line: the last assignment of a key wins, so go backwards
            seen = dict(zip(reversed(labels_), reversed(keep)))
            lines_of = [line0 + seen[label] for label in distinct]
            ids = registry.add(list(distinct), lines_of)[ids]
        if keep:
            keep = np.asarray(keep, dtype=np.int64)
            rows = Rows(
                len(keep),
                line_starts(offset, block)[keep],
                line0 + keep,
                ids,
                documents=documents,
            )
            store.add(rows)
            chunks.add(rows.starts, rows.lines)
        if stopped is not None:
            break
    problems = Problems()
    problems.add(stopped, 1)
    labels_are = problems.attempt(0, _labels.decide, path, registry.first_lines, names=names)
    problems.raise_first()
    schema.label_kind, schema.label_map, schema.classes = labels_are
    if not chunks.count:
        raise fail(path, None, f"no records ({EXPECTED})", code="empty")
    schema.labelled = bool(labelled)
    schema.labelled_by = decided
    schema.follow = dict(labelled=schema.labelled, decided=decided, labels=registry)
    return end, chunks, registry.keys


def parse(
    schema: Schema, raw: bytes, first_line: int, dtype: DTypeLike | None = None
) -> tuple[list[str], np.ndarray | None]:
    """The documents and labels of a block of whole records starting at ``first_line``."""
    lines = text_lines(decode(schema.path, raw, first_line, schema.encoding))
    if not schema.labelled:
        return [text for text in lines if text.strip()], None
    keep, labels, documents, error = _records(schema.path, lines, first_line)
    if error is not None:
        raise error
    return assemble(schema, [(first_line, keep, labels, documents)])


def assemble(
    schema: Schema, records: Sequence[tuple[int, Sequence[int], list[Any], list[str]]]
) -> tuple[list[str], np.ndarray | None]:
    """``(X, y)`` from the ``(first_line, keep, labels, documents)`` of consecutive blocks."""
    documents = [document for *_, block in records for document in block]
    if not schema.labelled:
        return documents, None
    labels = [label for _, _, block, _ in records for label in block]
    lines = [line0 + k for line0, keep, _, _ in records for k in keep]
    y = _labels.convert(
        labels,
        schema.label_kind,
        schema.label_map,
        lambda k: _labels.changed(schema.path, lines[k], labels[k]),
    )
    return documents, y
