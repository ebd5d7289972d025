import sys, time
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import ctypes_primal
t2 = time.perf_counter()
from data import problem
X, y, order, sw = problem()
W = np.zeros((1, 4)); w0 = np.zeros(1); tgt = (y > 0).astype(np.int64)
t3 = time.perf_counter()
for _ in range(5):
    ctypes_primal.epoch(X, tgt, order, W, w0, sw, 1.0, 1.0)
t4 = time.perf_counter()
assert 'numba' not in sys.modules
print(f"RESULT import_mod={t2-t1:.4f} first5={t4-t3:.5f} total={t4-t0:.4f}")
