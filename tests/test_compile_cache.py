"""Compiled loops: compiled once per machine, then loaded, also by worker processes."""

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
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    run = lambda code: _run(code, env=env)  # noqa: E731

    run(FIT_ONCE)
    compiled = _cached(tmp_path / "cache")
    assert compiled, "the first fit compiled and cached the loops"
    # the workers get read-only memmaps: they must find the variant compiled above
    assert float(run(CROSS_VALIDATE)) > 0.9
    assert _cached(tmp_path / "cache") == compiled


USER_PATHS = """
import warnings
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file
from rosenblatt import AveragedPerceptron, KernelPerceptron, Perceptron, VotedPerceptron
from rosenblatt.engine.warmup import cache_counts
from rosenblatt.data.io import read_data
from rosenblatt.data.streaming import fit_stream
warnings.simplefilter("ignore")
rng = np.random.RandomState(1)
X = rng.randn(500, 12)
y2 = (X[:, 0] > 0).astype(int)
y3 = np.digitize(X[:, 1], [-0.5, 0.5])
for data in (X, X.astype(np.float32), sp.csr_matrix(X)):
    for cls in (Perceptron, AveragedPerceptron, VotedPerceptron):
        for y in (y2, y3):
            cls(max_iter=3, random_state=0).fit(data, y).predict(data)
    Perceptron(multi_class="multinomial", max_iter=3).fit(data, y3).predict(data)
KernelPerceptron(max_iter=2, prediction="voted").fit(X, y3).predict(X)
dump_svmlight_file(X, y2, "big.svm")
dump_svmlight_file(np.tile(X, (40, 1)), np.tile(y2, 40), "large.svm")
read_data("large.svm")
fit_stream(Perceptron(), "big.svm", chunk_size=100)
print(*cache_counts())
"""


@pytest.mark.filterwarnings("ignore")
def test_after_warm_up_no_user_path_compiles(tmp_path):
    """What ``rosenblatt warmup`` (run by make test and make demo) compiles covers the paths of
    users: every estimator, dtype, layout and sparse form, the kernel perceptron, the compiled
    readers and streaming; a later process compiles nothing."""
    from rosenblatt.engine.warmup import warm_up

    warm_up()  # in this process: loads the cache, or fills it (once per machine)
    loaded, compiled = map(int, _run(USER_PATHS, cwd=tmp_path).split())
    assert loaded > 10
    assert compiled == 0
