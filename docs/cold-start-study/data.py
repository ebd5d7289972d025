import numpy as np
def problem(n=150, d=4, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] - 0.2 > 0, 1.0, -1.0)
    order = rng.permutation(n).astype(np.int64)
    sw = np.ones(n)
    return X, y, order, sw
