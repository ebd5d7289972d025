"""What a sparse matrix is, and a CSR matrix made from parts read from outside, checked.

Lower layers ask :func:`is_sparse` without importing scipy for a value that cannot be a
sparse matrix; model files and the engine's saved states build their CSR matrices through
:func:`checked_csr`, which checks every part before scipy or a compiled loop indexes by it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sp
    from numpy.typing import ArrayLike

#: The largest count, index or dimension a file may give (the compiled loops index by int32
#: and int64; a larger one is refused before anything is allocated).
MAX_INDEX = 2**31 - 1


def is_sparse(value: object) -> bool:
    """A scipy sparse matrix or array, without importing scipy for anything else.

    Only an object of a class from ``scipy.sparse`` can be one, and scipy is imported
    once there is one; the import statement then costs a look-up, and waits (under the
    import system's lock) while another thread is still importing scipy, where a look in
    ``sys.modules`` would see the module half made. Other values import nothing: the
    commands that never meet a sparse matrix (``predict`` with a linear model) start
    without scipy (about 0.3 s).
    """
    if not any(kind.__module__.startswith("scipy.sparse") for kind in type(value).__mro__):
        return False
    import scipy.sparse

    return scipy.sparse.issparse(value)


def checked_csr(
    data: ArrayLike, indices: ArrayLike, indptr: ArrayLike, shape: Any
) -> sp.csr_matrix:
    """A CSR matrix from parts read from outside, after the full format check.

    Every index in range, row pointers in order and consistent with the parts'
    lengths, numbers finite: the compiled loops and scipy index by them without
    checking. The index arrays keep their saved integer types (scipy may narrow them).

    Raises
    ------
    ValueError
        Naming what does not fit.
    """
    import scipy.sparse as sp

    parts = [np.asarray(part) for part in (data, indices, indptr)]
    if not all(part.ndim == 1 for part in parts):
        raise ValueError("a sparse matrix whose parts are not 1-d arrays")
    data, indices, indptr = parts
    if not (
        isinstance(shape, (tuple, list))
        and len(shape) == 2
        and all(
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) and 0 <= n <= MAX_INDEX
            for n in shape
        )
    ):
        raise ValueError(
            f"a sparse matrix of shape {shape!r:.80}: a shape must be two ints from 0 "
            f"to {MAX_INDEX}"
        )
    shape = tuple(int(n) for n in shape)
    if indices.dtype.kind not in "iu" or indptr.dtype.kind not in "iu":
        raise ValueError("a sparse matrix whose indices are not integers")
    if data.dtype.kind not in "biuf":
        raise ValueError(f"a sparse matrix of {data.dtype} values")
    if data.dtype.kind == "f" and not np.all(np.isfinite(data)):
        raise ValueError("a sparse matrix with values that are not finite")
    if len(indptr) != shape[0] + 1 or len(indices) != len(data):
        raise ValueError(
            f"a sparse matrix of shape {shape} with {len(indptr)} row pointers (not "
            f"{shape[0] + 1}), {len(indices)} column indices and {len(data)} values"
        )
    if len(indptr) and (indptr[0] != 0 or indptr[-1] != len(indices)):
        raise ValueError("a sparse matrix whose row pointers do not span its indices")
    csr = sp.csr_matrix((data, indices, indptr), shape=shape)
    csr.check_format(full_check=True)  # indices in range: compiled loops trust them
    if csr.indices.dtype != indices.dtype or csr.indptr.dtype != indptr.dtype:
        csr.indices, csr.indptr = indices, indptr  # scipy narrowed them: keep the saved
    return csr
