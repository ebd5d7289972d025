"""The SMS Spam Collection, shipped as package data, and its reader (the ``.tsv`` reader)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import resources

import numpy as np
from sklearn.utils import Bunch

_SMS_FILE = "sms_spam_collection.tsv"
_SMS_LABELS = ("ham", "spam")

_SMS_DESCR = """\
SMS Spam Collection v.1
-----------------------

5,574 SMS messages in English, each labelled ham (legitimate, 4,827) or spam
(747), collected by Tiago A. Almeida and Jose Maria Gomez Hidalgo (2011) and
published in the UCI Machine Learning Repository.

:Number of instances: 5574
:Classes: 2 (target 0 = ham, 1 = spam)
:Licence: Creative Commons Attribution 4.0 International (CC BY 4.0)

The file ships unchanged with rosenblatt (see datasets/data/README.md).

Citation: T. A. Almeida, J. M. Gomez Hidalgo, A. Yamakami. Contributions to the
Study of SMS Spam Filtering: New Collection and Results. Proceedings of the 2011
ACM Symposium on Document Engineering (DOCENG'11), 2011.
"""


def read_labelled_text(
    path: str | os.PathLike[str], labels: Sequence[str] = _SMS_LABELS, encoding: str = "utf-8"
) -> tuple[list[str], np.ndarray]:
    """Read a file of ``label<TAB>text`` records, one per line.

    The text runs from the first tab to the end of the line (later tabs are
    kept); ``\\n``, ``\\r\\n`` and ``\\r`` line endings are accepted and blank lines
    skipped. This is the ``.tsv`` reader of :mod:`rosenblatt.data.readers`, with a
    fixed list of labels.

    Parameters
    ----------
    path : str or path-like
        The file to read (``.gz`` is decompressed).
    labels : sequence of str, default=("ham", "spam")
        The allowed labels; a record's target is its label's position here.
    encoding : str, default="utf-8"

    Returns
    -------
    texts : list of str
    target : ndarray of shape (n_records,), dtype int64

    Raises
    ------
    ValueError
        A :class:`~rosenblatt.exceptions.DataFileError` for the first malformed
        record -- no tab, a label not in ``labels``, empty text, or bytes that are
        not valid in ``encoding`` -- naming the file and the 1-based line number;
        also for a file without records.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.tsv"
    >>> _ = path.write_text("ham\\tSee you at 5\\nspam\\tWIN a prize now\\n", encoding="utf-8")
    >>> read_labelled_text(path)
    (['See you at 5', 'WIN a prize now'], array([0, 1]))
    >>> _ = path.write_text("ham\\tok\\nspam WIN\\n", encoding="utf-8")
    >>> read_labelled_text(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: ...tiny.tsv, line 2: no tab between label and text...
    """
    from ..readers import read

    data = read(path, format="text", names=tuple(labels), encoding=encoding)
    assert data.y is not None  # read labelled
    return data.X, data.y


def load_sms_spam(*, return_X_y: bool = False) -> Bunch | tuple[list[str], np.ndarray]:
    """Load the SMS Spam Collection (5,574 messages, 747 spam; CC BY 4.0).

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (list of str, the messages), ``target`` (ndarray, 1 = spam,
        0 = ham), ``target_names`` (``array(['ham', 'spam'])``) and ``DESCR``
        (description, licence and citation).

    Examples
    --------
    >>> from rosenblatt.data.datasets import load_sms_spam
    >>> sms = load_sms_spam()
    >>> len(sms.data), int(sms.target.sum()), sms.target_names.tolist()
    (5574, 747, ['ham', 'spam'])
    >>> sms.data[2][:21]
    'Free entry in 2 a wkl'
    """
    source = resources.files(__package__) / "data" / _SMS_FILE
    with resources.as_file(source) as path:
        texts, target = read_labelled_text(path, labels=_SMS_LABELS)
    if return_X_y:
        return texts, target
    return Bunch(
        data=texts,
        target=target,
        target_names=np.array(_SMS_LABELS),
        DESCR=_SMS_DESCR,
    )
