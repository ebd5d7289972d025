"""numba's JIT, the kernels' second path (no library built at install, or a signature it lacks):
each loop is compiled once per machine and cached, then loaded, also by worker processes.

The library built at install has its tests in ``test_compiled_kernels.py``; here
``ROSENBLATT_KERNELS=jit`` makes the fresh processes take the JIT.
"""

import os
import subprocess
import sys
import textwrap

import pytest

FIT_ONCE = """
import warnings
import numpy as np
from rosenblatt import Perceptron
warnings.simplefilter("ignore")
rng = np.random.RandomState(0)
X = rng.randn(3000, 60)
y = (X[:, 0] > 0).astype(int)
Perceptron(max_iter=3, random_state=0).fit(X, y).score(X, y)
"""

CROSS_VALIDATE = """
import warnings
import numpy as np
from sklearn.model_selection import cross_val_score
from rosenblatt import Perceptron
warnings.simplefilter("ignore")
rng = np.random.RandomState(0)
X = rng.randn(3000, 60)  # 1.4 MB: joblib hands it to the workers as a read-only memmap
y = (X[:, 0] > 0).astype(int)
print(cross_val_score(Perceptron(max_iter=3, random_state=0), X, y, cv=3, n_jobs=2).mean())
"""


def _run(code, **options):
    """The standard output of ``code`` run in a fresh Python process."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=600,
        **options,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _cached(folder):
    return sorted(
        os.path.relpath(os.path.join(root, name), folder)
        for root, _, names in os.walk(folder)
        for name in names
        if name.endswith(".nbc")
    )


@pytest.mark.filterwarnings("ignore")
def test_worker_processes_load_the_cache_instead_of_compiling(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "ROSENBLATT_KERNELS": "jit"}
    run = lambda code: _run(code, env=env)  # noqa: E731

    run(FIT_ONCE)
    compiled = _cached(tmp_path / "cache")
    assert compiled, "the first fit compiled and cached the loops"
    # the workers get read-only memmaps: they must find the variant compiled above
    assert float(run(CROSS_VALIDATE)) > 0.9
    assert _cached(tmp_path / "cache") == compiled
