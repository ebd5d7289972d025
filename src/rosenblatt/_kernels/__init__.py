"""numba-compiled training loops: pure functions of arrays and scalars, cached on disk."""
