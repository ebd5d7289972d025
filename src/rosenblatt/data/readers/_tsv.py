"""Labelled text: ``label<TAB>text`` per line.

The text runs from the first tab to the end of the line (later tabs are kept);
the label is stripped of surrounding whitespace; blank lines are skipped. A file
without labels (for prediction) holds one document per line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _labels
from ._common import (
    TEXT_CONTROL,
    decode,
    fail,
    line_starts,
    pieces,
    refuse_control_bytes,
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


def _records(path, lines, first_line):
    """The non-blank lines' indices, labels and documents (checked as :func:`_split` does)."""
    # the common case (no blank line, every line good) without a container per line
    tabs = [text.find("\t") for text in lines]
    if tabs and min(tabs) >= 0:
        labels = [text[:tab].strip() for text, tab in zip(lines, tabs)]
        documents = [text[tab + 1 :] for text, tab in zip(lines, tabs)]
        if all(labels) and all(documents) and not any(map(str.isspace, documents)):
            return list(range(len(lines))), labels, documents
    keep = [k for k, text in enumerate(lines) if text.strip()]
    records = [_split(path, first_line + k, lines[k]) for k in keep]  # raises if one is bad
    return keep, [label for label, _ in records], [document for _, document in records]


def scan(
    schema: Schema,
    handle: Any,
    chunks: Chunker,
    store: NullStore,
    *,
    labelled: bool | None = True,
    names: Sequence[str] | None = None,
    **_: Any,
) -> tuple[int, Chunker, list[Any]]:
    """Read the whole file once: records, labels, chunk boundaries (see :func:`..scan`)."""
    path = schema.path
    registry = Labels()
    end = 0
    for offset, line0, block in pieces(handle):
        end = offset + len(block)
        refuse_control_bytes(path, block, line0, TEXT_CONTROL)
        lines = text_lines(decode(path, block, line0, schema.encoding))
        if labelled is None:
            labelled = next(("\t" in text for text in lines if text.strip()), None)
        ids = None
        if labelled:
            keep, labels, documents = _records(path, lines, line0)
            distinct: dict[Any, int] = {}
            ids = np.fromiter(
                (distinct.setdefault(label, len(distinct)) for label in labels),
                dtype=np.int32,
                count=len(labels),
            )
            # each label's first line: the last assignment of a key wins, so go backwards
            seen = dict(zip(reversed(labels), reversed(keep)))
            lines_of = [line0 + seen[label] for label in distinct]
            ids = registry.add(list(distinct), lines_of)[ids] if len(ids) else ids
        else:
            keep = [k for k, text in enumerate(lines) if text.strip()]
            documents = [lines[k] for k in keep]
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
    if not chunks.count:
        raise fail(path, None, f"no records ({EXPECTED})", code="empty")
    schema.labelled = bool(labelled)
    schema.label_kind, schema.label_map, schema.classes = _labels.decide(
        path, registry.first_lines, names=names
    )
    return end, chunks, registry.keys


def parse(
    schema: Schema, raw: bytes, first_line: int, dtype: DTypeLike | None = None
) -> tuple[list[str], np.ndarray | None]:
    """The documents and labels of a block of whole records starting at ``first_line``."""
    lines = text_lines(decode(schema.path, raw, first_line, schema.encoding))
    if not schema.labelled:
        return [text for text in lines if text.strip()], None
    return assemble(schema, [(first_line, *_records(schema.path, lines, first_line))])


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
