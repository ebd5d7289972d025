"""The compiled row dot products (vector-lane intrinsics) against the plain-Python sums."""

import numpy as np
import reference
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numba import njit

from rosenblatt.engine.kernels._rows import row_axpy, row_axpy2, row_dot


@njit
def _dense_dot(X, i, w):
    return row_dot(X, None, i, w)


@njit
def _sparse_dot(csr, i, w):
    return row_dot(X_EMPTY, csr, i, w)


X_EMPTY = np.empty((0, 0))


@njit
def _dense_axpy(coef, X, i, w):
    row_axpy(coef, X, None, i, w)


@njit
def _axpy2(coef, coef2, X, csr, i, w, u):
    row_axpy2(coef, coef2, X, csr, i, w, u)


def _lane_sums_in(dtype, x, w):
    """The 8 interleaved partial sums, combined pairwise, in ``dtype`` arithmetic."""
    partial = [dtype(0)] * 8
    for j in range(len(x)):
        partial[j % 8] = dtype(partial[j % 8] + dtype(x[j]) * dtype(w[j]))
    p = partial
    return dtype(
        dtype(dtype(p[0] + p[1]) + dtype(p[2] + p[3]))
        + dtype(dtype(p[4] + p[5]) + dtype(p[6] + p[7]))
    )


values = st.floats(-1e3, 1e3, allow_nan=False, width=32)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 41).flatmap(
        lambda n: st.tuples(
            arrays(np.float64, n, elements=values),
            arrays(np.float64, n, elements=values),
            arrays(np.bool_, n),
        )
    )
)
def test_dense_and_sparse_dot_equal_the_reference_bit_for_bit(case):
    x, w, keep = case
    x = np.where(keep, x, 0.0)  # zeros, so the CSR row skips some columns
    expected = reference._dot(list(w) + [0.0], list(x) + [0.0])
    X = x[np.newaxis, :]
    csr = sp.csr_matrix(X)
    assert _dense_dot(X, 0, w) == expected
    assert _sparse_dot((csr.data, csr.indices, csr.indptr), 0, w) == expected


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 41).flatmap(
        lambda n: st.tuples(
            arrays(np.float32, n, elements=values), arrays(np.float32, n, elements=values)
        )
    )
)
def test_float32_rows_are_summed_in_float32_lanes(case):
    x, w = case
    expected = _lane_sums_in(np.float32, x, w)
    X = x[np.newaxis, :]
    csr = sp.csr_matrix(X)
    assert _dense_dot(X, 0, w) == expected
    assert _sparse_dot((csr.data, csr.indices, csr.indptr), 0, w) == expected


def test_sparse_dot_reads_only_its_row():
    X = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0], [4.0, 5.0, 6.0]]))
    csr = (X.data, X.indices, X.indptr)
    w = np.array([1.0, 10.0, 100.0])
    assert [_sparse_dot(csr, i, w) for i in range(3)] == [201.0, 30.0, 654.0]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([np.float64, np.float32]),
    st.floats(-8, 8, allow_nan=False),
    st.integers(1, 41).flatmap(
        lambda n: st.tuples(
            arrays(np.float64, n, elements=values), arrays(np.float64, n, elements=values)
        )
    ),
)
def test_dense_axpy_rounds_each_element_as_the_scalar_loop(dtype, coef, case):
    x, w = (part.astype(dtype) for part in case)
    expected = w.copy()
    step = dtype(coef)
    for j in range(len(x)):  # multiply, round, add, round: no fused multiply-add
        expected[j] = dtype(expected[j] + dtype(step * x[j]))
    _dense_axpy(coef, x[np.newaxis, :], 0, w)
    np.testing.assert_array_equal(w, expected)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([np.float64, np.float32]),
    st.floats(-8, 8, allow_nan=False),
    st.floats(-1e3, 1e3, allow_nan=False),
    st.integers(1, 41).flatmap(
        lambda n: st.tuples(
            *(arrays(np.float64, n, elements=values) for _ in range(3)), arrays(np.bool_, n)
        )
    ),
)
def test_the_averaged_update_gives_each_array_what_its_own_axpy_gives(dtype, coef, coef2, case):
    """``row_axpy2`` (the weights and the averaging sums in one pass over the row) rounds every
    element of each as the scalar loop of ``row_axpy`` does, dense and CSR rows alike (a CSR
    row adds nothing where it stores nothing)."""
    x, w, u, keep = case
    x = np.where(keep, x, 0.0).astype(dtype)
    w, u = w.astype(dtype), u.astype(dtype)
    X = x[np.newaxis, :]
    csr = sp.csr_matrix(X)
    layouts = (
        (X, None, range(len(x))),
        (np.empty((0, 0), dtype), (csr.data, csr.indices, csr.indptr), csr.indices),
    )
    for rows, csr_part, columns in layouts:
        want_w, want_u = w.copy(), u.copy()
        step, step2 = dtype(coef), dtype(coef2)
        for j in columns:  # multiply, round, add, round: no fused multiply-add
            want_w[j] = dtype(want_w[j] + dtype(step * x[j]))
            want_u[j] = dtype(want_u[j] + dtype(step2 * x[j]))
        got_w, got_u = w.copy(), u.copy()
        _axpy2(coef, coef2, rows, csr_part, 0, got_w, got_u)
        assert got_w.tobytes() == want_w.tobytes() and got_u.tobytes() == want_u.tobytes()


def test_the_epoch_ladder_trains_what_primal_epoch_trains():
    """``benchmarks/epoch_ladder.py`` times Rosenblatt's rule written out part by part against
    the library's epoch; its reading (what the rule costs, what the loop's generality costs)
    holds only while its top rungs train the library's weights, which ``measure`` asserts:
    here on small dense float32 rows (odd width: the dot product's tail) and CSR rows."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        import epoch_ladder
    finally:
        sys.path.pop(0)
    rng = np.random.RandomState(0)
    X = rng.standard_normal((600, 37)).astype(np.float32)
    y = np.where(X @ rng.standard_normal(37) + 0.3 * rng.standard_normal(600) > 0, 1, -1)
    seconds = epoch_ladder.measure(X, y, repeats=1)
    assert set(seconds) == {name for name, _ in epoch_ladder.RUNGS} | {
        epoch_ladder.LIBRARY,
        epoch_ladder.LIBRARY_AVERAGED,
    }
    Xs = sp.random(400, 300, density=0.05, format="csr", random_state=1)
    epoch_ladder.measure(Xs, np.where(Xs.sum(axis=1).A1 > Xs.sum() / 400, 1, -1), repeats=1)
