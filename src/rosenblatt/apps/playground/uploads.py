"""Students' own data: a CSV file (or the notes' pattern table) read into the playground.

:func:`read_points` takes the text of a file and returns the page's points and
labels, read by the package's CSV reader (:func:`rosenblatt.data.io.read_data`),
so a file the page refuses is refused as ``rosenblatt train`` would refuse it, in
one line that names the row. Accepted:

- CSV: two feature columns and a label column (the last, or one named ``label``,
  ``t``, ``y``, ``class`` or ``target``), with or without a header; commas,
  semicolons, tabs or spaces between the cells;
- the notes' pattern table (seed 003's modified OR): a header ``a/a x_1 x_2 x_0 t``
  where ``a/a`` numbers the patterns and ``x_0`` is the constant threshold input,
  both left out.

Labels of two classes become the page's -1 and +1 (the smaller label -1, as the
estimators order them; labels that are already -1 and 1 stay). Points outside the
plot's box are scaled into it by a power of ten, which the answer's note says.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass

import numpy as np

from ...engine.targets import TargetCoding
from .presets import VIEW
from .runs import MAX_POINTS, PlaygroundError

__all__ = ["MAX_UPLOAD_BYTES", "UploadedPoints", "read_points"]

#: the largest file the page sends (2,000 points of a few numbers each fit easily)
MAX_UPLOAD_BYTES = 512 * 1024
#: header names of the label column
LABEL_NAMES = ("label", "t", "y", "class", "target")
#: columns of the notes' pattern table that are neither features nor label
NOTES_COLUMNS = ("a/a", "x_0", "x0")


@dataclass(frozen=True)
class UploadedPoints:
    """Points read from a file: ``points`` (n, 2), ``labels`` (+1 / -1), and ``note``,
    what the reading decided (which label is which, a scale), for the page to show."""

    points: list
    labels: list
    note: str


def _as_csv(text: str) -> str:
    """The text with commas between the cells, line for line (so line numbers hold):
    semicolons, tabs and runs of spaces become commas in a file without commas."""
    lines = text.splitlines()
    if any("," in line for line in lines):
        return "\n".join(lines) + "\n"
    sep = re.compile(r"\s*;\s*|\t+|\s+")
    return "\n".join(sep.sub(",", line.strip()) for line in lines) + "\n"


def _header(first: str) -> list[str]:
    return [cell.strip().strip('"').lower() for cell in first.split(",")]


def read_points(content: str | bytes, name: str = "upload.csv") -> UploadedPoints:
    """Read a file's text into the page's points and labels.

    Parameters
    ----------
    content : str or bytes
        The file's content (UTF-8).
    name : str, default="upload.csv"
        The file's name, for the messages.

    Returns
    -------
    UploadedPoints

    Raises
    ------
    PlaygroundError
        One line: the file's name, the row and what is wrong with it, or why the page
        cannot draw the file (not two features, not two classes, too many points).

    Examples
    --------
    >>> read_points("x1,x2,label\\n-1,-1,no\\n1,1,yes\\n").labels
    [-1, 1]
    >>> table = "a/a x_1 x_2 x_0 t\\n1 -1 -1 -1 -1\\n2 1 -1 -1 1\\n3 -1 1 -1 1\\n4 1 1 -1 1\\n"
    >>> read_points(table).points
    [[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]]
    >>> try:
    ...     read_points("x1,x2,label\\n1,2,a\\n3,x,b\\n", "mine.csv")
    ... except PlaygroundError as error:
    ...     print(error)
    mine.csv, line 3, column 'x2': 'x' is not a number
    """
    from ...data.io import read_data
    from ...exceptions import DataFileError

    base = os.path.basename(str(name)) or "upload.csv"
    if isinstance(content, bytes):
        if len(content) > MAX_UPLOAD_BYTES:
            raise PlaygroundError(
                f"{base}: {len(content):,} bytes is more than the page reads "
                f"({MAX_UPLOAD_BYTES:,}); keep at most {MAX_POINTS} points."
            )
        try:
            content = content.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise PlaygroundError(
                f"{base}: byte {error.start + 1} is not UTF-8 text; save the file as a UTF-8 CSV."
            ) from None
    text = _as_csv(content)
    if not text.strip():
        raise PlaygroundError(f"{base}: the file is empty; give rows of x1, x2 and a label.")
    first = _header(text.splitlines()[0])
    ignore = [cell for cell in first if cell in NOTES_COLUMNS]
    label = next((cell for cell in first if cell in LABEL_NAMES), None)
    stem = re.sub(r"[^\w.-]", "_", os.path.splitext(base)[0]) or "upload"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, stem + ".csv")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        try:
            data = read_data(
                path,
                label_column=label,
                ignore=ignore or None,
                header=True if (ignore or label) else "auto",
            )
        except (DataFileError, ValueError) as error:
            message = " ".join(str(error).replace(path, base).replace(folder + os.sep, "").split())
            raise PlaygroundError(message) from None
    X = data.X.toarray() if hasattr(data.X, "toarray") else np.asarray(data.X)
    if data.is_text or X.shape[1] != 2:
        names = ", ".join(map(str, data.feature_names or [])) or f"{X.shape[1]} columns"
        raise PlaygroundError(
            f"{base}: the page draws two features and a label; the file has "
            f"{X.shape[1]} feature column(s) ({names}). Keep two, and the label last."
        )
    if X.shape[0] > MAX_POINTS:
        raise PlaygroundError(
            f"{base}: {X.shape[0]} rows is more than the playground draws ({MAX_POINTS})."
        )
    assert data.y is not None  # read labelled
    classes = np.unique(data.y)
    if classes.shape[0] != 2:
        shown = ", ".join(map(str, classes[:5].tolist()))
        raise PlaygroundError(
            f"{base}: the page draws two classes; the labels are {classes.shape[0]} "
            f"({shown}{', ...' if classes.shape[0] > 5 else ''})."
        )
    notes = []
    labels = TargetCoding.binary(classes).signed(data.y)[0]  # the one coding: classes[1] is +1
    if not (classes.tolist() == [-1, 1]):
        notes.append(f"label {classes[0]} is class −1, {classes[1]} is class +1")
    # into the plot's box by a power of ten, so the numbers keep their digits
    reach = float(np.max(np.abs(X))) if X.size else 0.0
    inside = 0.95 * min(abs(v) for v in VIEW)
    if reach > inside:
        power = int(np.ceil(np.log10(reach / inside)))
        X = X / 10.0**power
        notes.append(f"coordinates divided by {10**power:g} to fit the plot")
    note = f"{base}: {X.shape[0]} points" + (f" ({'; '.join(notes)})" if notes else "")
    return UploadedPoints(np.round(X, 6).tolist(), labels.astype(int).tolist(), note)
