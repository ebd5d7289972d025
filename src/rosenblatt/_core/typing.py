"""Type aliases of the public API (for annotations only; nothing here runs at import)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import scipy.sparse as sp
    from numpy.typing import ArrayLike

    #: Patterns: anything array-like (lists, numpy arrays, pandas frames) or a sparse matrix.
    MatrixLike = ArrayLike | sp.spmatrix | sp.sparray
    __all__ = ["ArrayLike", "MatrixLike", "RandomStateLike"]

    #: What ``random_state`` takes.
    RandomStateLike = int | np.random.RandomState | np.random.Generator | None
