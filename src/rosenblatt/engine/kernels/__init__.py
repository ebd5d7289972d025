"""numba-compiled training loops: pure functions of arrays and scalars, cached on disk.

The sources compiled into the kernels (and into the library built at install) are listed
once, in ``sources.txt`` beside this file: the loader's digest of the library, the cache check
below and the Makefile's dependencies all read that list.

numba keys each cached function on the file that defines it, not on the helpers
it inlines or the constants it reads: after an update that changed only
``_rows.py``, ``_simd.py``, ``_prefetch.py`` or ``rosenblatt/_core/kernel_constants.py``
(a ``git pull`` in an editable install touches only those), the loops of ``primal.py``
and the parsers of ``engine/kernels/textparse.py`` would load from the cache with the old
code compiled in. So the first import drops the cache of every listed module when any
listed source has changed since the cache was stamped.
"""

import hashlib
from functools import lru_cache
from pathlib import Path

__all__ = ["library_sources", "sources_digest"]

_PACKAGE = Path(__file__).resolve().parents[2]  # src/rosenblatt
#: The list of the library's sources, relative to the package.
SOURCES_LIST = "engine/kernels/sources.txt"


def library_sources(package: Path = _PACKAGE) -> tuple[str, ...]:
    """The library's sources, as ``sources.txt`` lists them (paths relative to the package).

    Examples
    --------
    >>> "engine/kernels/primal.py" in library_sources()
    True
    """
    lines = (line.strip() for line in (package / SOURCES_LIST).read_text().splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


@lru_cache(maxsize=4)
def sources_digest(package: Path = _PACKAGE) -> str:
    """SHA-256 of the library's sources: their names and contents, in the list's order."""
    digest = hashlib.sha256()
    for name in library_sources(package):
        digest.update(name.encode() + b"\0" + (package / name).read_bytes())
    return digest.hexdigest()


def _drop_stale_cache(package: Path = _PACKAGE) -> None:
    """Delete numba's cache of the listed modules if any listed source changed since the stamp."""
    digest = sources_digest(package)
    stamp = package / "engine" / "kernels" / "__pycache__" / "library-sources.sha256"
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    try:
        for name in library_sources(package):
            source = package / name
            if source.suffix == ".py":
                for stale in source.parent.glob(f"__pycache__/{source.stem}.*.nb[ic]"):
                    stale.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only install: its sources do not change
        pass


_drop_stale_cache()
