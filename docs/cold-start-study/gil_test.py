import sys, time, threading
import numpy as np
from routes import get
route = sys.argv[1]
f = get(route)
rng = np.random.RandomState(1)
n, d = 2000, 256
X = rng.randn(n, d); y = np.where(X[:, 0] > 0, 1.0, -1.0); sw = np.ones(n)
order = np.tile(rng.permutation(n), 2500).astype(np.int64)
def run():
    W = np.zeros(d); w0 = np.zeros(1)
    f(X, y, order, W, w0, 1.0, 1.0, sw)
run()  # warm (compile for jit)
def timed(k):
    ts = [threading.Thread(target=run) for _ in range(k)]
    t = time.perf_counter()
    for th in ts: th.start()
    for th in ts: th.join()
    return time.perf_counter() - t
one = min(timed(1) for _ in range(3)); two = min(timed(2) for _ in range(3))
print(f"{route}: 1 thread {one:.3f}s  2 threads {two:.3f}s  ratio {two/one:.2f} (1.0 = parallel, 2.0 = serialised)")
