"""Files checked before they are used, and files written whole or not at all.

:func:`check_readable` and :func:`check_writable` say at once why a path cannot be
read or written (a folder where a file is expected, a missing folder); writing goes
to a temporary file beside the target, then a rename.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

__all__ = ["check_readable", "check_writable", "open_atomically", "write_atomically"]

# why a path cannot be written, as check_writable and write_atomically's errors say it
_A_FOLDER = "a folder has that name; give a file name"
_NO_FOLDER = "cannot write there: no folder {}; create it first, or give another path"
_NOT_A_FOLDER = "cannot write there: {} is not a folder; give another path"
_READ_ONLY = "cannot write there: {} is not writable; give a path in a folder you can write to"
# why a path cannot be read, as check_readable's errors say it
_IS_A_FOLDER = "a folder, not a {0}; give the {0}'s own path"
_MISSING = "no such {0}"


def check_readable(path: str | os.PathLike[str], *, what: str = "file", fix: str = "") -> None:
    """Raise the error that reading ``path`` as a file would raise, naming a folder as one.

    Every command calls it on the files it reads (data, models) before it reads
    them, so a folder given where a file is expected is named as a folder, and a
    path that does not exist as missing, in the same words for every option and
    argument. Anything else that exists is left to the reader: a pipe or a device
    may be read as a file.

    Parameters
    ----------
    path : str or path-like
    what : str, default="file"
        What the file is, as the error names it (``"data file"``, ``"model file"``).
    fix : str, default=""
        What to do about a missing file, added to its error.

    Raises
    ------
    OSError
        ``IsADirectoryError`` or ``FileNotFoundError``, whose ``filename`` is
        ``path`` and whose ``strerror`` says what is wrong and what to do.

    Examples
    --------
    >>> import tempfile
    >>> from rosenblatt._core.files import check_readable
    >>> folder = tempfile.mkdtemp()
    >>> check_readable(folder, what="model file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    IsADirectoryError: [Errno 21] a folder, not a model file; give the model file's own path: '...'
    >>> check_readable(os.path.join(folder, "none.csv"), what="data file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileNotFoundError: [Errno 2] no such data file: '...none.csv'
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, _IS_A_FOLDER.format(what), path)
    if not os.path.exists(path):
        why = _MISSING.format(what) + (f"; {fix}" if fix else "")
        raise FileNotFoundError(errno.ENOENT, why, path)


def check_writable(path: str | os.PathLike[str], *, folder: bool = False) -> None:
    """Raise the error that writing ``path`` would raise, without writing anything.

    Commands call it on their outputs before they read any data, so a typing mistake
    fails at once instead of after the training. A file needs an existing, writable
    folder and must not be a folder itself; a ``folder`` (created with its parents
    when written) needs to be a writable folder, or its nearest existing parent to be
    one. Permissions are asked of the system (``os.access``), which grants a
    superuser every folder on a writable file system.

    Raises
    ------
    OSError
        ``FileNotFoundError``, ``IsADirectoryError``, ``NotADirectoryError`` or
        ``PermissionError``, whose ``filename`` is ``path`` and whose ``strerror``
        says what to do.

    Examples
    --------
    >>> import tempfile
    >>> from rosenblatt._core.files import check_writable
    >>> folder = tempfile.mkdtemp()
    >>> check_writable(os.path.join(folder, "model.rbl"))
    >>> check_writable(folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    IsADirectoryError: [Errno 21] a folder has that name; give a file name: '...'
    >>> check_writable(os.path.join(folder, "new", "report"), folder=True)
    """
    path = os.fspath(path)
    if folder:
        existing = os.path.abspath(path)
        while not os.path.exists(existing):  # written with os.makedirs: parents and all
            existing = os.path.dirname(existing)
        if not os.path.isdir(existing):
            raise NotADirectoryError(errno.ENOTDIR, _NOT_A_FOLDER.format(existing), path)
        directory = existing
    else:
        if os.path.isdir(path):
            raise IsADirectoryError(errno.EISDIR, _A_FOLDER, path)
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise FileNotFoundError(errno.ENOENT, _NO_FOLDER.format(directory), path)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, _READ_ONLY.format(directory), path)


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the new one, never half.

    The bytes go to a temporary file in the same folder, are flushed to disk,
    and replace ``path`` by a rename; on any failure the temporary file is
    removed and ``path`` is untouched. The file gets the permissions ``open``
    would give a new file (``0o666`` less the umask), not the temporary file's
    private ``0o600``.

    Examples
    --------
    >>> import os, tempfile
    >>> from rosenblatt._core.files import write_atomically
    >>> path = os.path.join(tempfile.mkdtemp(), "note.txt")
    >>> write_atomically(path, b"hello")
    >>> open(path, "rb").read(), sorted(os.listdir(os.path.dirname(path)))
    (b'hello', ['note.txt'])
    >>> oct(os.stat(path).st_mode & 0o777) == oct(0o666 & ~_umask())
    True
    """
    with open_atomically(path) as handle:
        handle.write(data)


@contextmanager
def open_atomically(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write ``path`` with, bit by bit, appearing whole or not at all.

    What :func:`write_atomically` does for bytes at hand, for output written as it
    is made (``rosenblatt predict -o``): the temporary file replaces ``path`` when
    the ``with`` block ends; an error in the block removes it and leaves ``path``
    untouched.

    Examples
    --------
    >>> import os, tempfile
    >>> from rosenblatt._core.files import open_atomically
    >>> path = os.path.join(tempfile.mkdtemp(), "labels.txt")
    >>> with open_atomically(path) as handle:
    ...     _ = handle.write(b"1\\n")
    ...     os.path.exists(path)
    False
    >>> open(path, "rb").read()
    b'1\\n'
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(
            dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp"
        )
    except OSError as exc:
        raise _about(exc, path) from None
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError) and exc.filename in (tmp, path, None):
            raise _about(exc, path) from None
        raise
    _fsync_directory(directory)


def remove_leftovers(path: str | os.PathLike[str]) -> list[str]:
    """Remove the temporary files that atomic writes of ``path`` left behind when their
    process was killed mid-write (SIGKILL runs no clean-up); the names removed.

    Only for a file one process writes at a time (a checkpoint that is being resumed):
    another writer's temporary file would go too.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> _ = open(os.path.join(folder, ".run.ckpt.x1y2.tmp"), "wb")
    >>> remove_leftovers(os.path.join(folder, "run.ckpt")), os.listdir(folder)
    (['.run.ckpt.x1y2.tmp'], [])
    """
    directory = os.path.dirname(os.path.abspath(path))
    prefix = f".{os.path.basename(os.fspath(path))}."
    removed = []
    for name in sorted(os.listdir(directory)):
        if name.startswith(prefix) and name.endswith(".tmp"):
            try:
                os.unlink(os.path.join(directory, name))
                removed.append(name)
            except FileNotFoundError:
                pass
    return removed


def _about(exc: OSError, path) -> OSError:
    """The error of a write, naming the file asked for, not the temporary file behind it."""
    why = exc.strerror or str(exc)
    if isinstance(exc, FileNotFoundError):
        why = _NO_FOLDER.format(os.path.dirname(os.path.abspath(path)))
    elif isinstance(exc, IsADirectoryError) or os.path.isdir(path):
        why = _A_FOLDER
    return type(exc)(exc.errno, why, path)


def _umask() -> int:
    """The process's umask (reading it means setting it; it is set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_directory(directory):
    """Make the rename itself durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
