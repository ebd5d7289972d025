"""Safe under threads: every public entry from 32 threads at once, at first use.

A library used from a web service's threads or joblib's threading backend meets its
first use (a lazy import, a library's loading, a registry's filling) in many threads at
once; a half-made state seen by one of them fails a call that works alone (issue 37:
``is_sparse`` once looked for scipy in ``sys.modules`` and found it half imported). Each
round runs ``concurrent_calls.py`` in a fresh interpreter, so that its first uses are
really first, in another order of the groups each time: races are rare events.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from rosenblatt._core.sparse import is_sparse
from rosenblatt.data.readers import _common, compile_parsers

PROBE = Path(__file__).with_name("concurrent_calls.py")

#: the groups in the order each round makes their first use, all 32 threads per entry
ROUNDS = {
    "theory first": "theory,trace,readers,persistence,estimators,online",
    "estimators first": "estimators,persistence,readers,trace,theory",
    "persistence first": "persistence,online,readers,trace,theory",
}


@pytest.mark.parametrize("groups", ROUNDS.values(), ids=list(ROUNDS))
def test_every_entry_from_32_threads_at_first_use_equals_the_calls_one_by_one(tmp_path, groups):
    result = subprocess.run(
        [sys.executable, str(PROBE), str(tmp_path), groups, "32"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.stdout.strip(), result.stderr[-3000:]
    report = json.loads(result.stdout.splitlines()[-1])
    failures = "\n".join(
        f"{f['entry']}: {f['failed']} of 32 threads failed, e.g. {f['first']}"
        for f in report["failures"]
    )
    assert not report["failures"] and result.returncode == 0, failures or result.stderr[-3000:]
    assert list(report["groups"]) == groups.split(",")
    assert all(group["calls"] >= 32 * 3 for group in report["groups"].values())


def test_compile_parsers_forces_the_compiled_parsers_in_its_own_thread_only():
    """The warm-up once lowered a module-wide size threshold (restored out of order by two
    warm-ups at once, it stayed lowered for every reader); its switch is the thread's now."""
    threshold = _common.COMPILED_PARSE_MIN_BYTES
    seen = []
    with _common.forcing_compiled():
        assert _common.compiled(1)
        other = threading.Thread(target=lambda: seen.append(_common.compiled(1)))
        other.start()
        other.join(10)
    assert seen == [False] and not _common.compiled(1)
    assert compile_parsers() == {"svmlight": 2, "csv": 1}
    assert _common.COMPILED_PARSE_MIN_BYTES == threshold and not _common.compiled(1)


def test_is_sparse_imports_scipy_only_for_a_sparse_matrix():
    code = (
        "import sys, numpy as np\n"
        "from rosenblatt._core.sparse import is_sparse\n"
        "assert not is_sparse(np.eye(2)) and not is_sparse([[1.0]]) and not is_sparse(None)\n"
        "print('scipy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
    import scipy.sparse as sp

    class Subclass(sp.csr_matrix):
        pass

    assert is_sparse(sp.csr_matrix(np.eye(2))) and is_sparse(sp.coo_array(np.eye(2)))
    assert is_sparse(Subclass(np.eye(2)))  # a class of scipy.sparse among its bases
    assert not is_sparse(np.eye(2)) and not is_sparse(sp.linalg.aslinearoperator(np.eye(2)))


#: Another thread holds one of our locks when the process forks (as a fork-context
#: multiprocessing pool does); the child, which has no such thread, then takes the lock itself.
_HOLD_AND_FORK = """
import os, sys, threading, time
{setup}
held, release = threading.Event(), threading.Event()

def hold():
    with {lock}:
        held.set()
        release.wait()

threading.Thread(target=hold, daemon=True).start()
held.wait()
pid = os.fork()
if pid == 0:
    {call}
    os._exit(0)
deadline = time.monotonic() + 10
while time.monotonic() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        print("child exit", os.waitstatus_to_exitcode(status))
        break
    time.sleep(0.02)
else:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    print("child still waiting for the lock after 10 s")
release.set()
"""

_FORKED_LOCKS = {
    "the library's loading": (
        "from rosenblatt.engine.kernels import loader",
        "loader._LOCK",
        "loader.library_status()",
    ),
    "a kept cache's folder": (
        "from rosenblatt.data.readers import _folder_lock, scan\n"
        "with open('data.csv', 'w') as f:\n"
        "    f.write('a,b,label\\n1,2,0\\n3,4,1\\n')",
        "_folder_lock('cache')",
        "assert scan('data.csv', cache='cache').n_samples == 2",
    ),
}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX only")
@pytest.mark.parametrize("setup, lock, call", _FORKED_LOCKS.values(), ids=list(_FORKED_LOCKS))
def test_a_child_forked_while_another_thread_holds_our_lock_takes_it(tmp_path, setup, lock, call):
    """Issue 42: a fork copies a lock as it is, held by a thread the child does not have; the
    child's first kernel call (or its scan into that cache folder) waited for ever."""
    code = _HOLD_AND_FORK.format(setup=setup, lock=lock, call=call)
    result = subprocess.run(
        [sys.executable, "-W", "ignore::DeprecationWarning", "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.strip() == "child exit 0", result.stdout + result.stderr[-3000:]


_TWO_FIRST_USES = """
import threading
import rosenblatt

barrier, errors = threading.Barrier(2), []

def use(name):
    barrier.wait()
    try:
        getattr(rosenblatt, name)()
    except Exception as error:  # the race shows as an ImportError or a _DeadlockError
        errors.append(f"{name}: {type(error).__name__}: {error}")

threads = [threading.Thread(target=use, args=(n,)) for n in ("Perceptron", "KernelPerceptron")]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(60)
print(errors or "both built")
"""


@pytest.mark.parametrize("round_", range(3))
def test_two_threads_first_using_two_estimators_see_scikit_learn_whole(round_):
    """Python 3.11 lets two threads import sklearn.base side by side (CPython gh-83065): the
    estimators package imports it whole first, so neither sees it half made."""
    result = subprocess.run(
        [sys.executable, "-c", _TWO_FIRST_USES], capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "both built", result.stdout + result.stderr
