"""numba-compiled training loops: pure functions of arrays and scalars, cached on disk.

numba keys each cached function on the file that defines it, not on the helpers
it inlines or the constants it reads: after an update that changed only
``_rows.py``, ``_simd.py``, ``_prefetch.py`` or the tuning constants in
``rosenblatt/_core/config.py`` (a ``git pull`` in an editable install touches only
those), the loops of ``primal.py`` would load from the cache with the old code
compiled in. So the first import drops the cache when those sources have changed
since it was written.
"""

import hashlib
from pathlib import Path

_HERE = Path(__file__).parent
_INLINED_HELPERS = ("_rows.py", "_simd.py", "_prefetch.py")
_CONSTANTS = _HERE.parents[1] / "_core" / "config.py"


def _drop_stale_cache(folder=_HERE, constants=_CONSTANTS):
    """Delete the cached loops in ``folder/__pycache__`` if the helpers changed."""
    sources = [folder / name for name in _INLINED_HELPERS] + [constants]
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in sources)).hexdigest()
    cache = folder / "__pycache__"
    stamp = cache / "inlined-helpers.sha256"
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    try:
        for stale in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:
            stale.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only install: numba cannot cache there either
        pass


_drop_stale_cache()
