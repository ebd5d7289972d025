"""Instructions and cache misses of one training epoch against the ``w . x`` floors, by callgrind.

Run: ``.venv/bin/python benchmarks/epoch_profile.py [--epochs M] [--ll BYTES]``
(needs ``valgrind`` on ``PATH``; about three minutes on a 2-core AMD EPYC).

What holds an epoch above :mod:`compare_sklearn`'s floors, counted rather than timed:
callgrind counts the instructions executed (the same on a busy machine as on a quiet one)
and, with ``--cache-sim=yes``, the first-level (D1) and last-level (LL) data read misses
of a simulated cache. The cases are compare_sklearn's (its data makers, its estimators
with ``max_iter`` and ``tol=None`` from :func:`compare_sklearn.pairs`, its floors from
:func:`compare_sklearn.floor_run`): dense float32 and float64 Perceptron, sparse CSR
Perceptron and AveragedPerceptron, on data small enough for callgrind (dense 40,000 x
100, sparse 20,000 x 200,000 at compare_sklearn's density), fitted with
``shuffle="block"`` (the order compare_sklearn's sizes take, and the one its shuffled floor
reads). The simulated last-level cache is ``--ll`` bytes (8 MiB: the data here are
2-4 times that, as compare_sklearn's are 1.3-4 times the host's 32 MiB L3); callgrind's
cache does not model hardware or software prefetching, so its misses are the lines a
pass must bring in, not the stalls they cost.

How one epoch is isolated: the script runs itself under::

    valgrind --tool=callgrind --cache-sim=yes --LL=<ll>,16,64 --dump-before=os_getppid \\
        --callgrind-out-file=<tmp>/cg.out python epoch_profile.py --child measure ...

and calls ``os.getppid()`` as a marker between the measured steps: callgrind writes
the counts since the previous marker to a file of their own at each one, so every step
gets its own totals, whatever library or JIT code ran in it (the floors are numba JIT
code, which has no symbol for ``--toggle-collect``; the fit's kernel is ``rb_kernel_*``
in ``librosenblatt_kernels.so``, but the fit also makes each epoch's order around it).
Each step is measured twice, once with ``M`` more epochs (or passes) than the other,
after a warm-up run; the difference over ``M`` is one epoch, free of what a fit or a
call costs once (validation, Python, ctypes). The floors are compiled (and cached in a
private ``NUMBA_CACHE_DIR``) by a first child run natively, so callgrind never runs
the compiler. ``perf stat`` cannot stand in: this machine's virtual CPUs have no
hardware counters (``perf stat -e instructions true`` says ``<not supported>``).

Valgrind (3.19) has no AVX-512, and the host build of ``librosenblatt_kernels.so`` on an
AVX-512 CPU dies under it with SIGILL; so the children run the kernels by numba's JIT
(``ROSENBLATT_KERNELS=jit``: the same ``@njit`` functions the library is built from)
compiled for x86-64-v3 (AVX2), floors included: a float64 ``<8 x double>`` takes two
registers there, one with AVX-512, so float64 counts are somewhat above the host build's.

Three more steps split an epoch: ``row_dot, shuffled`` (the epochs' own bit-exact 8-lane
dot product in the shuffled order: what exact summation costs over the fast-math floor),
``block order`` (making one epoch's block-shuffled order and stream) and the float32
Perceptron on a quarter of the rows (with the whole, the per-epoch part of an epoch, Python
and ctypes included, from the per-row part). Python's garbage collector is off while
measuring, so a collection cannot land in one run of a pair.

Columns: instructions per row and per stored value (nonzero), D1 and LL read misses
per row, and the instruction ratios to the floor and to the shuffled floor; under the
table, each step's figures per row (reads, writes, write misses) and the fits' updates
(mistakes) per row in the epochs measured.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
DENSE_SHAPE = (40_000, 100)
SPARSE_SHAPE = (20_000, 200_000)
FIRST_EPOCHS = 2  # the shorter fit's epochs; the longer one runs M more
#: valgrind runs no AVX-512: numba compiles every kernel (the JIT's, not the built library's,
#: which is the host's) and floor for x86-64-v3 (AVX2), natively, into the run's own cache
VALGRIND_CPU = {
    "NUMBA_CPU_NAME": "x86-64-v3",
    "NUMBA_CPU_FEATURES": "",
    "ROSENBLATT_KERNELS": "jit",
}
EVENTS = ("Ir", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw")


def _marker():
    """Where callgrind cuts: ``--dump-before=os_getppid`` dumps the counts so far."""
    os.getppid()


def _cached_floors(compare_sklearn):
    """Make compare_sklearn's uncached floors cached (in this run's private cache dir), so
    the callgrind child loads the machine code the native child compiled."""
    from numba import njit

    for name in ("_floor_sparse", "_floor_shuffled"):
        floor = getattr(compare_sklearn, name)
        options = {k: v for k, v in floor.targetoptions.items() if k != "nopython"}
        setattr(compare_sklearn, name, njit(cache=True, **options)(floor.py_func))


def _datasets(workdir):
    """compare_sklearn's data (made once by the native child, loaded by the other)."""
    import compare_sklearn
    import numpy as np
    import scipy.sparse as sp

    path = Path(workdir)
    if not (path / "dense.npz").exists():
        X, y = compare_sklearn.dense_problem(*DENSE_SHAPE)
        np.savez(path / "dense.npz", X=X, y=y)
        Xs, ys = compare_sklearn.sparse_problem(*SPARSE_SHAPE)
        sp.save_npz(path / "sparse_X.npz", Xs)
        np.save(path / "sparse_y.npy", ys)
    dense = np.load(path / "dense.npz")
    X, y = dense["X"], dense["y"]
    Xs = sp.load_npz(path / "sparse_X.npz").tocsr()
    ys = np.load(path / "sparse_y.npy")
    return {
        "dense float32": (X.astype(np.float32), y),
        "dense float64": (X, y),
        "sparse CSR": (Xs, ys),
    }


QUARTER = "dense f32 1/4"
CASES = (  # (data, estimator as compare_sklearn.pairs labels it)
    ("dense float32", "Perceptron"),
    ("dense float64", "Perceptron"),
    ("sparse CSR", "Perceptron"),
    ("sparse CSR", "AveragedPerceptron"),
)


def _kernel_dot_pass(X, w, order):
    """The epochs' own dense ``w . x`` (:func:`row_dot`: 8 lanes, each product rounded, then
    added; no fast-math) in an epoch's order, no prefetching: exact summation's part."""
    from numba import njit

    from rosenblatt.engine.kernels._rows import row_dot

    @njit(cache=True)
    def kernel_dot_pass(X, w, order):
        total = 0.0
        for pos in range(order.shape[0]):
            total += row_dot(X, None, order[pos], w)
        return total

    return lambda: kernel_dot_pass(X, w, order)


def _steps(data, more):
    """(label, run of a count) for every measured step: ``run(k)`` does ``k`` units
    (passes or epochs) on top of a fixed part, so two runs differ by exactly ``more``."""
    import compare_sklearn
    import numpy as np
    import scipy.sparse as sp

    from rosenblatt.engine.orders import epoch_order

    steps = []
    for name, (X, _) in data.items():
        for floor, shuffled in (("floor", False), ("shuffled floor", True)):
            one = compare_sklearn.floor_run(X, shuffled=shuffled)
            steps.append(((name, floor), lambda k, one=one: [one(0) for _ in range(1 + k)]))
        if not sp.issparse(X):
            order = epoch_order(np.random.RandomState(0), X.shape[0], "block")[0]
            dot = _kernel_dot_pass(X, np.ones(X.shape[1], X.dtype), order)
            steps.append(
                ((name, "row_dot, shuffled"), lambda k, dot=dot: [dot() for _ in range(1 + k)])
            )
    X, y = data["dense float32"]
    n = X.shape[0]
    out = np.empty(n, np.int64), np.empty(n, np.int64)
    order = lambda: epoch_order(np.random.RandomState(0), n, "block", out=out)  # noqa: E731
    steps.append((("dense float32", "block order"), lambda k: [order() for _ in range(1 + k)]))
    # a quarter of the rows: with the whole, splits an epoch into per-row and per-epoch parts
    cases = [(name, label, *data[name]) for name, label in CASES]
    cases.append((QUARTER, "Perceptron", X[: n // 4], y[: n // 4]))
    for name, label, X, y in cases:
        make = dict((lab, ours) for lab, ours, _ in compare_sklearn.pairs(sp.issparse(X)))[label]

        def fit(k, make=make, X=X, y=y):
            model = make(0).set_params(max_iter=FIRST_EPOCHS + k, shuffle="block")
            model.fit(X, y)
            return sum(model.mistakes_per_epoch_[FIRST_EPOCHS:]) / max(k, 1) / X.shape[0]

        steps.append(((name, label), fit))
    return steps


def child(args):
    """Native run ("warm": make the data, compile the floors) or the measured run."""
    sys.path.insert(0, str(HERE))
    warnings.simplefilter("ignore")  # the short fits' ConvergenceWarning, numba's pedantry
    import compare_sklearn

    _cached_floors(compare_sklearn)
    data = _datasets(args.workdir)
    steps = _steps(data, args.epochs)
    if args.child == "warm":
        for _, run in steps:
            run(0)
        return
    # no collection between markers: one landing in only one run of a pair skews the difference
    gc.collect()
    gc.disable()
    order = []  # what ran between each marker and the next (None: not measured)
    updates = {}  # the fits' updates a row in the epochs differenced
    for label, run in steps:
        run(0)  # warm-up: caches, first-call work (in the interval of no step)
        for k in (0, args.epochs):
            _marker()
            order.append([*label, k])
            result = run(k)
        _marker()
        order.append(None)
        if isinstance(result, float):
            updates[" ".join(label)] = result
    (Path(args.workdir) / "order.json").write_text(json.dumps([order, updates]))


def _counts(text):
    """An interval's totals, by event."""
    lines = text.splitlines()
    events = next(line.split()[1:] for line in lines if line.startswith("events:"))
    totals = next(line.split()[1:] for line in lines if line.startswith("totals:"))
    counts = dict(zip(events, map(int, totals)))
    return {e: counts.get(e, 0) for e in EVENTS}


def _dumps(workdir):
    """The counts of each interval between markers, in order (part 1 is the start-up)."""
    parts = {}
    for path in Path(workdir).glob("cg.out.*"):
        parts[int(path.name.rsplit(".", 1)[1])] = _counts(path.read_text())
    return [parts[p] for p in sorted(parts)][1:]


def measure(args):
    """Run the children, difference the dumps, print the table."""
    workdir = tempfile.mkdtemp(prefix="epoch_profile_")
    try:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(workdir) / "numba"), **VALGRIND_CPU)
        me = [sys.executable, str(Path(__file__).resolve()), "--workdir", workdir]
        me += ["--epochs", str(args.epochs)]
        subprocess.run([*me, "--child", "warm"], env=env, check=True)
        valgrind = [
            "valgrind",
            "--tool=callgrind",
            "--cache-sim=yes",
            f"--LL={args.ll},16,64",
            "--dump-before=os_getppid",
            f"--callgrind-out-file={workdir}/cg.out",
            "--log-file=" + f"{workdir}/valgrind.log",
        ]
        subprocess.run([*valgrind, *me, "--child", "measure"], env=env, check=True)
        order, updates = json.loads((Path(workdir) / "order.json").read_text())
        dumps = _dumps(workdir)
        if len(dumps) != len(order) - 1:  # the last interval is in the file at exit
            raise SystemExit(f"callgrind wrote {len(dumps)} intervals, expected {len(order) - 1}")
        shapes = _shapes(workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    runs = {}
    for step, counts in zip(order, dumps):
        if step is not None:
            runs.setdefault(tuple(step[:2]), []).append(counts)
    per_unit = {
        label: {e: (more[e] - base[e]) / args.epochs for e in EVENTS}
        for label, (base, more) in runs.items()
    }
    _table(per_unit, shapes, updates)


def _shapes(workdir):
    """Rows and stored values of each data set (read back from the saved data)."""
    import scipy.sparse as sp

    rows, cols = DENSE_SHAPE
    nnz = sp.load_npz(Path(workdir) / "sparse_X.npz").nnz
    return {
        "dense float32": (rows, rows * cols),
        "dense float64": (rows, rows * cols),
        QUARTER: (rows // 4, rows // 4 * cols),
        "sparse CSR": (SPARSE_SHAPE[0], nnz),
    }


def _table(per_unit, shapes, updates):
    header = (
        f"{'data':<14} {'step':<19} {'instr/row':>9} {'instr/nnz':>9} {'D1 rd/row':>9} "
        f"{'LL rd/row':>9} {'vs floor':>8} {'vs shuf':>8}"
    )
    print(header)
    print("-" * len(header))
    names = dict.fromkeys(name for name, _ in per_unit)
    for name in names:
        rows, nnz = shapes[name]
        base = "dense float32" if name == QUARTER else name  # its floors: per row the same
        floor = per_unit[(base, "floor")]["Ir"] / shapes[base][0] * rows
        shuffled = per_unit[(base, "shuffled floor")]["Ir"] / shapes[base][0] * rows
        for (data, step), counts in per_unit.items():
            if data != name:
                continue
            print(
                f"{name:<14} {step:<19} {counts['Ir'] / rows:>9.1f} {counts['Ir'] / nnz:>9.2f} "
                f"{counts['D1mr'] / rows:>9.2f} {counts['DLmr'] / rows:>9.2f} "
                f"{counts['Ir'] / floor:>7.2f}x {counts['Ir'] / shuffled:>7.2f}x"
            )
    print()
    print(f"per row{'':<27} " + " ".join(f"{e:>7}" for e in EVENTS) + "  updates")
    for (name, step), counts in per_unit.items():
        rows = shapes[name][0]
        cells = " ".join(f"{counts[e] / rows:>7.1f}" for e in EVENTS)
        rate = updates.get(f"{name} {step}")
        print(f"{name + ' ' + step:<34} {cells}" + (f"  {rate:>7.3f}" if rate else ""))
    print(
        f"rows: dense {DENSE_SHAPE[0]:,} x {DENSE_SHAPE[1]}, sparse {SPARSE_SHAPE[0]:,} x "
        f"{SPARSE_SHAPE[1]:,} ({shapes['sparse CSR'][1] / SPARSE_SHAPE[0]:.1f} nonzeros a row); "
        "epochs: shuffle='block', tol=None; Ir: instructions, D1/LL: simulated misses; "
        "updates: mistakes a row"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--epochs", type=int, default=4, help="M: epochs (and floor passes) differenced"
    )
    parser.add_argument(
        "--ll", type=int, default=8 * 2**20, help="simulated last-level cache, bytes (2^k)"
    )
    parser.add_argument("--child", choices=("warm", "measure"), help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args)
    elif shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on PATH: install it (apt-get install valgrind)")
    else:
        measure(args)


if __name__ == "__main__":
    main()
