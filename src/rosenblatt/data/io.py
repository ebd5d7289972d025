"""Read the data files the command line works on: CSV, svmlight/libsvm and labelled text.

The format follows the file's extension (``.gz`` files are decompressed, by the
extension before it), or ``format=`` names it (standard input, ``"-"``, needs it):

- ``.csv``: numeric features and a label column (the last, unless ``label_column``
  names another one by header name or 0-based index); a header row is optional
  (``header="auto"`` detects it); RFC 4180 quoting.
- ``.svm``, ``.libsvm``, ``.svmlight``: ``label index:value ...`` lines, sparse;
  ``zero_based="auto"`` reads indices from 0 when an index 0 occurs in the file.
- ``.tsv``: labelled text, ``label<TAB>text`` per line (documents for a text model).

These are thin wrappers over :mod:`rosenblatt.data.readers`, which streaming
(:mod:`rosenblatt.data.streaming`) and the bundled datasets use too, so a file reads
the same everywhere. Every reader returns a :class:`~rosenblatt.data.readers.Data`.
For prediction the label may be missing: ``labelled=None`` decides per file (a
CSV by its number of columns, given the model's ``n_features``; svmlight by
whether lines start with ``index:value``; text by whether lines hold a tab). A
malformed file raises :class:`~rosenblatt.exceptions.DataFileError` naming the
file and the 1-based line.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .readers import FORMATS, Data, data_format, read

__all__ = ["FORMATS", "Data", "data_format", "read_csv", "read_data", "read_svmlight", "read_text"]


def read_data(
    path: str | os.PathLike[str],
    *,
    label_column: str | int | None = None,
    labelled: bool | None = True,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    header: bool | str = "auto",
    format: str | None = None,
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
) -> Data:
    """Read a data file, choosing the reader by its extension (or by ``format``).

    Parameters
    ----------
    path : str or path-like
        The file; ``"-"`` reads standard input (``format`` then says what it holds).
    label_column : str or int, default=None
        CSV only: the label's column, by header name or index (default: the last).
    labelled : bool or None, default=True
        Whether the file has labels; None detects it (for prediction).
    n_features : int, default=None
        The number of features a model expects; checked (CSV, svmlight) and
        used to tell a CSV's label column from a feature.
    zero_based : bool or "auto", default="auto"
        svmlight only: whether feature indices start at 0 ("auto": at 0 when
        some index in the file is 0). Give the training file's value when predicting.
    header : bool or "auto", default="auto"
        CSV only: whether the first row is a header ("auto": when it cannot be data).
    format : {"csv", "svmlight", "tsv"}, default=None
        The file's format, for standard input and names like ``iris.data`` or
        ``a9a.txt`` (default: from the extension; "libsvm" is svmlight too).
    id_columns : sequence of str or int, default=None
        CSV only: columns (header names or 0-based indices) that identify each sample:
        not features (nor in ``feature_names``); their cells are in ``aside``, as text.
    ignore : sequence of str, default=None
        CSV only: columns, by header name, that are neither features nor label.

    Returns
    -------
    Data

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.csv"
    >>> _ = path.write_text("x1,x2,label\\n-1,-1,no\\n1,-1,yes\\n-1,1,yes\\n1,1,yes\\n")
    >>> data = read_data(path)
    >>> data.X.shape, data.y.tolist(), data.feature_names
    ((4, 2), ['no', 'yes', 'yes', 'yes'], ['x1', 'x2'])
    >>> _ = path.write_text("id,x1,x2,label\\nm1,-1,-1,no\\nm2,1,-1,yes\\n")
    >>> data = read_data(path, id_columns=["id"])
    >>> data.X.shape, data.feature_names, data.aside
    ((2, 2), ['x1', 'x2'], [['m1'], ['m2']])
    """
    return read(
        path,
        format=format,
        label_column=label_column,
        labelled=labelled,
        n_features=n_features,
        zero_based=zero_based,
        header=header,
        id_columns=id_columns,
        ignore=ignore,
    )


def read_csv(
    path: str | os.PathLike[str],
    *,
    label_column: str | int | None = None,
    labelled: bool | None = True,
    n_features: int | None = None,
    header: bool | str = "auto",
) -> Data:
    """Read a CSV file of numeric features and a label column.

    Parameters
    ----------
    path : str or path-like
    label_column : str or int, default=None
        Header name or 0-based index (negative counts from the end) of the
        label; default the last column.
    labelled : bool or None, default=True
        None: labelled when the rows have ``n_features + 1`` fields, unlabelled
        when they have ``n_features``.
    n_features : int, default=None
    header : bool or "auto", default="auto"
        "auto": the first row is a header when it cannot be data (a feature field
        that is not a number, or a text label over numeric labels) and looks like names.

    Returns
    -------
    Data

    Raises
    ------
    DataFileError
        Naming the file and line (of the first bad row): ragged rows, a field that is
        not a number, a missing (empty, NaN) or infinite value, an empty label, a field
        of more than 131,072 characters (``CSV_FIELD_LIMIT``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "bad.csv"
    >>> _ = path.write_text("1,2,0\\n3,oops,1\\n")
    >>> read_csv(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: ...bad.csv, line 2, column 2: 'oops' is not a number
    """
    return read(
        path,
        format="csv",
        label_column=label_column,
        labelled=labelled,
        n_features=n_features,
        header=header,
    )


def read_svmlight(
    path: str | os.PathLike[str],
    *,
    labelled: bool | None = True,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
) -> Data:
    """Read an svmlight / libsvm file (``label index:value ...`` per line) into a CSR matrix.

    Parameters
    ----------
    path : str or path-like
    labelled : bool or None, default=True
        None: the file is unlabelled when its first line starts with ``index:value``.
    n_features : int, default=None
        Number of columns of ``X`` (a model's ``n_features_in_``); a larger
        index is an error.
    zero_based : bool or "auto", default="auto"
        "auto" takes indices as 0-based when some index in the file is 0, else as
        1-based, and says so in ``notes``.

    Returns
    -------
    Data
        ``X`` is a CSR matrix; ``zero_based`` records the indexing used.

    Raises
    ------
    DataFileError
        Naming the file and line of the first malformed line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> data = read_svmlight(path)
    >>> data.X.toarray()[0], data.y.tolist(), data.zero_based
    (array([-1., -1.]), [-1, 1, 1, 1], False)
    """
    return read(
        path, format="svmlight", labelled=labelled, n_features=n_features, zero_based=zero_based
    )


def read_text(path: str | os.PathLike[str], *, labelled: bool | None = True) -> Data:
    """Read labelled text: ``label<TAB>text`` per line (the text may hold more tabs).

    Blank lines are skipped. Unlabelled files (``labelled=False``, for
    prediction) hold one document per line.

    Parameters
    ----------
    path : str or path-like
    labelled : bool or None, default=True
        None: labelled when the first non-blank line holds a tab (then every line needs
        one); unlabelled when it holds none (then a line with a tab is an error).

    Returns
    -------
    Data
        ``X`` is the list of documents.

    Raises
    ------
    DataFileError
        For a line without a tab, an empty label or an empty text, naming the line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sms.tsv"
    >>> _ = path.write_text("ham\\tsee you at 5\\nspam\\tWIN a prize now\\n")
    >>> data = read_text(path)
    >>> data.X, data.y.tolist()
    (['see you at 5', 'WIN a prize now'], ['ham', 'spam'])
    """
    return read(path, format="text", labelled=labelled)
