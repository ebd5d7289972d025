"""What a pycc export does with arguments of the wrong type (no dispatcher in front); argv[1] picks the case."""
import sys, numpy as np, aot_epoch
from data import problem
X, y, order, sw = problem()
cases = {
    'float32_X': (X.astype(np.float32), y, order, np.zeros(4), np.zeros(1), 1.0, 1.0, sw),
    'int32_order': (X, y, order.astype(np.int32), np.zeros(4), np.zeros(1), 1.0, 1.0, sw),
    'F_order_X': (np.asfortranarray(X), y, order, np.zeros(4), np.zeros(1), 1.0, 1.0, sw),
    '1d_X': (X.ravel(), y, order, np.zeros(4), np.zeros(1), 1.0, 1.0, sw),
    'list_y': (X, list(y), order, np.zeros(4), np.zeros(1), 1.0, 1.0, sw),
    'readonly_W': (X, y, order, np.zeros(4), np.zeros(1), 1.0, 1.0, sw),
}
args = cases[sys.argv[1]]
if sys.argv[1] == 'readonly_W':
    args[3].flags.writeable = False
try:
    print(sys.argv[1], '-> returned', aot_epoch.epoch(*args), flush=True)
except Exception as e:
    print(sys.argv[1], '-> raises', type(e).__name__, str(e)[:150], flush=True)
