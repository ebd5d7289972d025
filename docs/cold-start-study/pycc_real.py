"""Try numba.pycc on the package's real primal_epoch with the signature a binary
dense float64 Perceptron.fit compiles."""
import time, traceback
import numpy as np
from rosenblatt import Perceptron
from rosenblatt.engine.kernels.primal import primal_epoch
X = np.random.RandomState(0).rand(150, 4); y = (X[:, 0] > 0.5).astype(int)
Perceptron().fit(X, y)
sigs = primal_epoch.signatures
print("signatures compiled:", len(sigs))
for a in sigs[0]:
    print("   ", a)
from numba.pycc import CC
from numba import types
cc = CC('aot_primal'); cc.output_dir = '/tmp/aot'
sig = primal_epoch.nopython_signatures[0]
print("signature:", sig)
try:
    cc.export('primal_epoch', sig)(primal_epoch.py_func)
    t = time.perf_counter(); cc.compile(); print(f"compiled in {time.perf_counter()-t:.2f}s")
except Exception as e:
    traceback.print_exc(limit=3)
    print("FAILED:", type(e).__name__, str(e)[:3000])
