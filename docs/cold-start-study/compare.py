"""Bitwise comparison of the weights after 5 epochs: JIT (flat) vs pycc (generic, host)
vs ctypes .so (host, generic) vs the package's own primal_epoch (JIT, SINGLE layout)."""
import ctypes, importlib, json
import numpy as np
import jitmod
import ctypes_epoch
from rosenblatt.engine.kernels.primal import primal_epoch
from rosenblatt.engine.kernels.bundles import Rows, Targets, Schedule, Weights, Rule, Scratch, SINGLE

def ctypes_variant(path):
    lib = ctypes.CDLL(path); f = lib[json.load(open('/tmp/aot/c_epoch.json'))['symbol']]
    f.argtypes, f.restype = ctypes_epoch._f.argtypes, ctypes.c_int64
    def run(X, y, order, W, w0, eta, b, sw):
        n, d = X.shape
        return f(X.ctypes.data, n, d, y.ctypes.data, order.ctypes.data, order.shape[0],
                 W.ctypes.data, w0.ctypes.data, eta, b, sw.ctypes.data)
    return run

def package(X, y, order, W, w0, eta, b, sw):
    tgt = (y > 0).astype(np.int64); Wm = W.reshape(1, -1)
    return primal_epoch(Rows(X, None), Targets(tgt, np.array([1], dtype=np.int64), sw),
        Schedule(order, np.empty(0, dtype=np.int64), 0),
        Weights(Wm, w0, np.zeros((1, 0)), np.zeros(0), np.zeros(1, dtype=np.int64)), None,
        Rule(eta, b, False, False),
        Scratch(np.zeros((1, 0)), np.zeros(1), np.zeros(1), np.zeros(2, dtype=np.int64), np.zeros(2)),
        np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), SINGLE)

routes = {
    'jit': jitmod.epoch,
    'pycc generic': importlib.import_module('aot_epoch').epoch,
    'pycc host': importlib.import_module('aot_epoch_host').epoch,
    'ctypes host': ctypes_variant('/tmp/aot/libc_epoch_host.so'),
    'ctypes generic': ctypes_variant('/tmp/aot/libc_epoch_generic.so'),
    'package primal_epoch (jit)': package,
}
all_same = True
for (n, d, seed) in [(150, 4, 0), (500, 13, 1), (1000, 64, 2), (300, 257, 3), (2000, 100, 4)]:
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d); y = np.where(X @ rng.randn(d) + 0.3 * rng.randn(n) > 0, 1.0, -1.0)
    sw = rng.rand(n) + 0.5; sw[::17] = 0.0
    res = {}
    for name, f in routes.items():
        W = np.zeros(d); w0 = np.zeros(1); r = np.random.RandomState(seed)
        for ep in range(5):
            order = r.permutation(n).astype(np.int64)
            f(X, y, order, W, w0, 0.7, 1.0, sw)
        res[name] = np.concatenate([W, w0]).tobytes()
    same = {k: v == res['jit'] for k, v in res.items()}
    all_same &= all(same.values())
    print(f"n={n} d={d}: " + ", ".join(f"{k}={'==' if s else 'DIFF'}" for k, s in same.items()))
print("ALL BIT-IDENTICAL" if all_same else "SOME DIFFER")
