"""Route (b) on the package's REAL primal_epoch: a cfunc taking raw pointers builds the
bundles (namedtuples) in nopython mode and calls primal_epoch (dense float64, SINGLE, no record,
online, binary) -> object file -> .so via link step. Prints the build time."""
import time, sys, json
t0 = time.perf_counter()
import numpy as np
from numba import cfunc, carray, types
import llvmlite.binding as ll
from rosenblatt.engine.kernels.primal import primal_epoch
from rosenblatt.engine.kernels.bundles import Rows, Targets, Schedule, Weights, Rule, Scratch, SINGLE
f8p, i8p, I = types.CPointer(types.float64), types.CPointer(types.int64), types.int64
sig = types.int64(f8p, I, I, i8p, i8p, I, f8p, f8p, f8p, types.float64, types.float64)
t1 = time.perf_counter()

@cfunc(sig)
def c_primal(Xp, n, d, tp, op, m, Wp, w0p, swp, eta, bias):
    X = carray(Xp, (n, d)); target = carray(tp, (n,)); order = carray(op, (m,))
    W = carray(Wp, (1, d)); w0 = carray(w0p, (1,)); sw = carray(swp, (n,))
    positive = np.ones(1, dtype=np.int64)
    counts = np.zeros(1, dtype=np.int64)
    return primal_epoch(Rows(X, None), Targets(target, positive, sw),
                        Schedule(order, np.empty(0, dtype=np.int64), 0),
                        Weights(W, w0, np.zeros((1, 0)), np.zeros(0), counts), None,
                        Rule(eta, bias, False, False),
                        Scratch(np.zeros((1, 0)), np.zeros(1), np.zeros(1), np.zeros(2, dtype=np.int64), np.zeros(2)),
                        np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), SINGLE)

t2 = time.perf_counter()
lib = c_primal._library; lib._ensure_finalized()
tm = ll.Target.from_default_triple().create_target_machine(
    cpu=ll.get_host_cpu_name(), features=ll.get_host_cpu_features().flatten(), opt=3, reloc='pic', codemodel='default')
open('/tmp/aot/c_primal.o', 'wb').write(tm.emit_object(lib._final_module))
json.dump({'symbol': c_primal.native_name}, open('/tmp/aot/c_primal.json', 'w'))
t3 = time.perf_counter()
print(f"import {t1-t0:.2f}s compile {t2-t1:.2f}s emit {t3-t2:.2f}s")
