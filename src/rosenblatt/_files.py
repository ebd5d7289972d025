"""Files written whole or not at all: a temporary file beside the target, then a rename."""

from __future__ import annotations

import os
import tempfile

__all__ = ["write_atomically"]


def write_atomically(path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the new one, never half.

    The bytes go to a temporary file in the same folder, are flushed to disk,
    and replace ``path`` by a rename; on any failure the temporary file is
    removed and ``path`` is untouched. The file gets the permissions ``open``
    would give a new file (``0o666`` less the umask), not the temporary file's
    private ``0o600``.

    Examples
    --------
    >>> import os, tempfile
    >>> from rosenblatt._files import write_atomically
    >>> path = os.path.join(tempfile.mkdtemp(), "note.txt")
    >>> write_atomically(path, b"hello")
    >>> open(path, "rb").read(), sorted(os.listdir(os.path.dirname(path)))
    (b'hello', ['note.txt'])
    >>> oct(os.stat(path).st_mode & 0o777) == oct(0o666 & ~_umask())
    True
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
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise _about(exc, path) from None
        raise
    _fsync_directory(directory)


def _about(exc: OSError, path) -> OSError:
    """The error of a write, naming the file asked for, not the temporary file behind it."""
    why = exc.strerror or str(exc)
    if isinstance(exc, FileNotFoundError):
        why = f"cannot write there: no folder {os.path.dirname(os.path.abspath(path))}"
    elif isinstance(exc, IsADirectoryError) or os.path.isdir(path):
        why = "a folder has that name; give a file name"
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
