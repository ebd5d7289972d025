"""Every public entry called from many threads at once, in a fresh process.

Run as a script by ``tests/test_threads.py`` (a subprocess, so that each first use,
an import, a library's loading, a registry's filling, is really the first)::

    python tests/concurrent_calls.py FOLDER GROUP[,GROUP...] [THREADS]

For each group in the order given (``theory``, ``trace``, ``estimators``, ``readers``,
``persistence``, ``online``), its entries' calls start together behind one barrier, ``THREADS``
threads (default 32) per entry; then the main thread makes every call once more, one
after another, and each thread's result must equal that one exactly. The process
starts with nothing of the package imported but its top level (``import rosenblatt``
loads no submodule), the data are built with numpy only, and the threads look the
entries up themselves (``rosenblatt.theory.margin``), so that the lazy imports race too.

It prints one JSON line, ``{"groups": {group: {"calls": n, "seconds": s}}, "failures":
[...]}``, a failure being an
entry's name, how many of its threads failed and the first failure (an exception
with its type, or a result unequal to the sequential call); it exits 1 if any failed.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np

import rosenblatt

#: the entries' own warnings (a fit stopping at max_iter) are no failure here
warnings.simplefilter("ignore")

Entry = tuple[str, Callable[[], Any]]


# ------------------------------------------------------------------------ the data
def _problem() -> tuple[np.ndarray, np.ndarray]:
    """60 separable points in 4 dimensions (a margin, so every perceptron converges)."""
    rng = np.random.RandomState(0)
    X = rng.randn(90, 4)
    score = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3
    keep = np.abs(score) > 0.5
    return X[keep][:60], np.where(score[keep][:60] > 0, 1, -1)


X, Y = _problem()
Y3 = np.digitize(X[:, 0], [-0.5, 0.5])  # three classes: one-vs-rest
OR_X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
OR_Y = np.array([-1, 1, 1, 1])
COEF, INTERCEPT = np.array([1.0, -2.0, 0.5, 0.0]), 0.3


def plain(value: Any) -> Any:
    """A result as nested lists, tuples and arrays, comparable by :func:`same`."""
    if hasattr(value, "toarray"):  # a sparse matrix
        return ("sparse", value.toarray())
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (list, tuple)):
        return tuple(plain(item) for item in value)
    if isinstance(value, dict):
        return tuple((key, plain(item)) for key, item in sorted(value.items()))
    if isinstance(value, (np.generic, float, int, bool, str, bytes, type(None))):
        return value.item() if isinstance(value, np.generic) else value
    raise TypeError(f"no plain form of {type(value).__name__}")


def same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        nan = a.dtype.kind in "fc"
        return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=nan)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    return type(a) is type(b) and a == b


# ------------------------------------------------------------------------ the entries
def theory_entries(folder: Path) -> list[list[Entry]]:
    def separable():
        result = rosenblatt.theory.is_linearly_separable(X, Y)
        return bool(result), result.separable, result.coef, result.intercept

    def max_margin():
        result = rosenblatt.theory.max_margin(X, Y)
        return result.margin, result.coef, result.intercept, result.support

    def bounds():
        result = rosenblatt.theory.mistake_bounds(X, Y)
        return {name: getattr(result, name) for name in ("novikoff", "unit_norm", "beta")}

    def losses():
        theory = rosenblatt.theory
        z = X @ COEF * Y
        return [getattr(theory, name)(z) for name in sorted(theory.SURROGATES)]

    def least_squares():
        result = rosenblatt.theory.least_squares_classifier(X, Y)
        return result.coef, result.intercept

    return [
        [
            ("theory.is_linearly_separable", separable),
            (
                "theory.is_linearly_separable (OR, no intercept)",
                lambda: bool(
                    rosenblatt.theory.is_linearly_separable(OR_X, OR_Y, fit_intercept=False)
                ),
            ),
            ("theory.margin", lambda: rosenblatt.theory.margin(X, Y, COEF, INTERCEPT)),
            ("theory.max_margin", max_margin),
            ("theory.radius", lambda: rosenblatt.theory.radius(X)),
            ("theory.mistake_bound", lambda: rosenblatt.theory.mistake_bound(X, Y)),
            ("theory.mistake_bounds", bounds),
            ("theory.signed_distance", lambda: rosenblatt.theory.signed_distance(X, COEF, 0.3)),
            ("theory.perceptron_risk", lambda: rosenblatt.theory.perceptron_risk(X, Y, COEF)),
            ("theory losses", losses),
            ("theory.least_squares_classifier", least_squares),
        ]
    ]


def trace_entries(folder: Path) -> list[list[Entry]]:
    def online():
        run = rosenblatt.trace(OR_X, OR_Y)
        return run.weights, str(run)

    def batch():
        return rosenblatt.trace(X, Y, mode="batch", max_iter=20).weights

    def shuffled():
        return rosenblatt.trace(X, Y, shuffle=True, random_state=3, max_iter=20).weights

    return [
        [("trace (the notes' OR)", online), ("trace batch", batch), ("trace shuffled", shuffled)]
    ]


ESTIMATORS = {
    "Perceptron": dict(random_state=0),
    "AveragedPerceptron": dict(random_state=0),
    "VotedPerceptron": dict(random_state=0),
    "KernelPerceptron": dict(random_state=0, max_iter=20),
    "Projectron": dict(random_state=0, max_iter=20),
    "CentroidClassifier": {},
    "LinearProgramClassifier": {},
}
#: fitted attributes compared between the threads and the sequential calls
FITTED = (
    "coef_",
    "intercept_",
    "classes_",
    "n_iter_",
    "n_mistakes_",
    "mistakes_per_epoch_",
    "dual_coef_",
    "support_",
    "support_vectors_",
    "voted_coef_",
    "votes_",
)


def _estimator(name: str) -> Any:
    return getattr(rosenblatt, name)(**ESTIMATORS[name])


def _fitted(model: Any) -> Any:
    return {name: getattr(model, name) for name in FITTED if hasattr(model, name)}


def estimator_entries(folder: Path) -> list[list[Entry]]:
    import scipy.sparse as sp  # the test's own input; the entries import what they use

    forms = {"dense": X, "CSR": sp.csr_matrix(X)}
    names = list(ESTIMATORS)
    models: dict[str, Any] = {}  # one fitted model per estimator and form, for predict

    def fit(name, form, y, key=None):
        def call():
            model = _estimator(name).fit(forms[form], y)
            if key is not None:
                models.setdefault(key, model)
            return _fitted(model)

        return call

    def partial_fit(name, form):
        def call():
            return _fitted(_estimator(name).partial_fit(forms[form], Y, classes=[-1, 1]))

        return call

    def predict(key, form):
        def call():
            model = models[key]
            scores = model.predict_proba if hasattr(model, "predict_proba") else None
            return model.predict(forms[form]), None if scores is None else scores(forms[form])

        return call

    fits: list[Entry] = []
    predictions: list[Entry] = []
    for name in names:
        for form in forms:
            key = f"{name} {form}"
            fits.append((f"{key}: fit", fit(name, form, Y, key)))
            if hasattr(getattr(rosenblatt, name, None), "partial_fit"):
                fits.append((f"{key}: partial_fit", partial_fit(name, form)))
            predictions.append((f"{key}: predict", predict(key, form)))
    fits.append(("Perceptron dense, 3 classes: fit", fit("Perceptron", "dense", Y3)))

    def transform(form):
        def call():
            counts = abs(forms[form]) * 3
            return rosenblatt.TfDfTransformer().fit(counts).transform(counts)

        return call

    fits += [(f"TfDfTransformer {form}: fit, transform", transform(form)) for form in forms]
    return [fits, predictions]


def reader_entries(folder: Path) -> list[list[Entry]]:
    # written without the package: its readers' first use is the threads'
    csv = folder / "data.csv"
    csv.write_text(
        "x1,x2,x3,x4,label\n"
        + "".join(f"{','.join(map(str, r.tolist()))},{t}\n" for r, t in zip(X, Y))
    )
    svm = folder / "data.svm"
    svm.write_text(
        "".join(
            f"{t} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate(r.tolist()) if v) + "\n"
            for r, t in zip(X, Y)
        )
    )
    text = folder / "data.tsv"
    words = np.array(["free", "prize", "meet", "lunch", "call", "now", "win", "home"])
    text.write_text(
        "".join(
            f"{'spam' if t > 0 else 'ham'}\t{' '.join(words[np.argsort(r)[:3] * 2 % 8])}\n"
            for r, t in zip(X, Y)
        )
    )

    def read(function, path):
        def call():
            data = getattr(import_module("rosenblatt.io"), function)(path)
            return data.X, data.y

        return call

    def chunks():
        from rosenblatt.readers import iter_chunks

        return list(iter_chunks(csv, chunk_size=7))

    large = folder / "large.csv"  # long enough a scan for threads to meet in its cache
    rows = np.random.RandomState(1).randn(3000, 5).round(6)
    large.write_text("".join(f"{','.join(map(str, r))},{int(r[0] > 0)}\n" for r in rows.tolist()))

    def kept_cache():  # every thread reuses, or builds, the one cache of the folder
        from rosenblatt.readers import iter_chunks, scan

        index = scan(large, chunk_size=500, cache=folder / "cache")
        return list(iter_chunks(large, chunk_size=500, index=index))

    return [
        [
            ("io.read_csv", read("read_csv", csv)),
            ("io.read_svmlight", read("read_svmlight", svm)),
            ("io.read_text", read("read_text", text)),
            ("io.read_data", read("read_data", csv)),
            ("readers.iter_chunks", chunks),
            ("readers.scan into a kept cache", kept_cache),
        ]
    ]


def persistence_entries(folder: Path) -> list[list[Entry]]:
    import scipy.sparse as sp

    # fitted here, before the threads: the entries are save and load, whose first use
    # (the persistence package, its registry, the checks) the threads make
    models = {
        "Perceptron": rosenblatt.Perceptron(random_state=0).fit(X, Y3),
        "KernelPerceptron": rosenblatt.KernelPerceptron(random_state=0).fit(sp.csr_matrix(X), Y),
        "VotedPerceptron": rosenblatt.VotedPerceptron(random_state=0).fit(X, Y),
    }
    count = iter(range(1 << 30))
    files = {name: folder / f"{name}.rbm" for name in models}

    def save(name):
        def call():
            path = folder / f"{name}-{next(count)}.rbm"  # one file per call
            rosenblatt.save(models[name], path)
            data = path.read_bytes()
            if not files[name].exists():
                path.replace(files[name])  # load's input, as one of them wrote it
            return data

        return call

    def load(name):
        def call():
            model = rosenblatt.load(files[name])
            return _fitted(model), model.predict(X)

        return call

    def predictor(name):
        def call():
            from rosenblatt.persistence import load_predictor

            return load_predictor(files[name]).predict(X)

        return call

    return [
        [(f"save {name}", save(name)) for name in models],
        [(f"load {name}", load(name)) for name in models]
        + [(f"load_predictor {name}", predictor(name)) for name in models],
    ]


def online_entries(folder: Path) -> list[list[Entry]]:
    """Online calibration (fit, partial_fit, its probabilities) and the ONNX export."""
    models = {
        "Perceptron": rosenblatt.Perceptron(random_state=0).fit(X, Y3),
        "online calibrated": rosenblatt.calibrated(
            rosenblatt.AveragedPerceptron(random_state=0), method="online"
        ).fit(X, Y),
    }

    def calibrate(how):
        def call():
            model = rosenblatt.calibrated(
                rosenblatt.AveragedPerceptron(random_state=0), method="online"
            )
            model = model.fit(X, Y) if how == "fit" else model.partial_fit(X, Y, classes=[-1, 1])
            return model.predict(X), model.predict_proba(X)

        return call

    def export(name):
        def call():
            import onnxruntime

            graph = rosenblatt.to_onnx(models[name])
            session = onnxruntime.InferenceSession(
                graph.SerializeToString(), providers=["CPUExecutionProvider"]
            )
            feed = {session.get_inputs()[0].name: X.astype(np.float32)}
            return session.run(None, feed)

        return call

    return [
        [(f"online calibration: {how}", calibrate(how)) for how in ("fit", "partial_fit")],
        [(f"to_onnx {name}", export(name)) for name in models],
    ]


GROUPS = {
    "theory": theory_entries,
    "trace": trace_entries,
    "estimators": estimator_entries,
    "readers": reader_entries,
    "persistence": persistence_entries,
    "online": online_entries,
}


# ------------------------------------------------------------------------ the run
def _outcome(call: Callable[[], Any]) -> tuple[bool, Any]:
    try:
        return True, plain(call())
    except BaseException as error:  # noqa: BLE001 - every failure is reported
        where = traceback.extract_tb(error.__traceback__)[-1]
        return (
            False,
            f"{type(error).__name__}: {error} ({Path(where.filename).name}:{where.lineno})",
        )


def run_stage(entries: list[Entry], threads: int) -> list[dict]:
    """Every entry from ``threads`` threads at once, then once more in this thread."""
    results: dict[str, list] = {name: [None] * threads for name, _ in entries}
    barrier = threading.Barrier(len(entries) * threads)

    def worker(name, call, k):
        try:
            barrier.wait(timeout=120)
        except threading.BrokenBarrierError:
            results[name][k] = (False, "BrokenBarrierError: the threads never all started")
            return
        results[name][k] = _outcome(call)

    workers = [
        threading.Thread(target=worker, args=(name, call, k), name=f"{name} #{k}")
        for name, call in entries
        for k in range(threads)
    ]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(timeout=300)
    failures = []
    for name, call in entries:
        ok, expected = _outcome(call)
        if not ok:
            failures.append({"entry": name, "failed": "all", "first": f"sequential: {expected}"})
            continue
        wrong = [
            got if not good else "a result unlike the sequential call's"
            for good, got in (r or (False, "no result: the thread hung") for r in results[name])
            if not (good and same(got, expected))
        ]
        if wrong:
            failures.append({"entry": name, "failed": len(wrong), "first": wrong[0]})
    return failures


def main(folder: str, groups: str, threads: int = 32) -> int:
    ran, failures = {}, []
    for group in groups.split(","):
        start, calls = time.perf_counter(), 0
        for entries in GROUPS[group](Path(folder)):
            calls += len(entries) * threads
            failures += run_stage(entries, threads)
        ran[group] = {"calls": calls, "seconds": round(time.perf_counter() - start, 2)}
    print(json.dumps({"groups": ran, "failures": failures}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], *map(int, sys.argv[3:4])))
