"""Route (b) consumer of the REAL primal_epoch (.so from a numba cfunc); no numba import.
NRT_MemSys_init() must run once: the cfunc allocates scratch with np.zeros (NRT)."""
import ctypes, json, os, sys
import numpy as np
_lib = ctypes.CDLL('/tmp/aot/libc_primal.so')
_lib.rb_nrt_init.restype = None
_lib.rb_nrt_init()
_f = _lib[json.load(open('/tmp/aot/c_primal.json'))['symbol']]
_P, _I, _D = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double
_f.argtypes = [_P, _I, _I, _P, _P, _I, _P, _P, _P, _D, _D]; _f.restype = ctypes.c_int64

def epoch(X, target, order, W, w0, sw, eta, bias):
    for a, dt in ((X, np.float64), (target, np.int64), (order, np.int64), (W, np.float64), (w0, np.float64), (sw, np.float64)):
        assert a.dtype == dt and a.flags.c_contiguous
    n, d = X.shape
    return _f(X.ctypes.data, n, d, target.ctypes.data, order.ctypes.data, order.shape[0],
              W.ctypes.data, w0.ctypes.data, sw.ctypes.data, eta, bias)

if __name__ == '__main__':
    import time
    from data import problem
    X, y, order, sw = problem()
    W = np.zeros((1, 4)); w0 = np.zeros(1); tgt = (y > 0).astype(np.int64)
    for _ in range(5):
        p = epoch(X, tgt, order, W, w0, sw, 1.0, 1.0)
    print('numba loaded:', 'numba' in sys.modules, 'presented', p)
    print("W", [v.hex() for v in W.ravel()], "w0", w0[0].hex())
