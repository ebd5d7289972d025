"""The flattened perceptron epoch: the package's SINGLE-layout binary online loop
(no bundles, no record, dense rows), reusing the package's real row_dot / row_axpy
overloads (8-lane SIMD intrinsic dot, axpy) with csr=None."""
from rosenblatt.engine.kernels._rows import row_dot, row_axpy


def epoch(X, y, order, W, w0, eta, bias_input, sample_weight):
    """X (n, d) float64 C; y (n,) float64 +-1; order (m,) int64; W (d,); w0 (1,)."""
    n = order.shape[0]
    mistakes = 0
    for pos in range(n):
        i = order[pos]
        if sample_weight[i] == 0.0:
            continue
        a = y[i] * (row_dot(X, None, i, W) + w0[0] * bias_input)
        if a <= 0.0:
            coef = eta * sample_weight[i] * y[i]
            row_axpy(coef, X, None, i, W)
            w0[0] += coef * bias_input
            mistakes += 1
    return mistakes
