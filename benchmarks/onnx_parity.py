"""ONNX export parity: onnxruntime against the model, for everything that exports.

Run: ``.venv/bin/python benchmarks/onnx_parity.py`` (needs ``pip install -e '.[onnx]'``)

Prints README's table: for each model of ``tests/onnx_cases.py`` (every classifier of
the package and the pipelines, calibrated models and ensembles around them, fitted on
three quarters of spambase, the SMS spam corpus, the digits or the lecture notes' OR),
run on the held-out quarter by onnxruntime from ``rosenblatt.to_onnx(model, dtype=...)``:

- labels: how many of onnxruntime's labels are the model's ``predict`` (rows of a label
  matrix: all of the row's labels), in float32 and in float64;
- the largest difference of the graph's second output from the model's
  (``decision_function``; ``predict_proba`` for a model with probabilities; each class's
  share of the votes for a hard ``VotingClassifier``) relative to its largest value,
  ``max |onnx - model| / max |model|``, with rows of float32 and of float64 given to both.

Not a timing: the figures are the same on any machine with the same library versions
(printed at the top). Cases whose data are missing (spambase lives in ../shared/data)
are listed as skipped.
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import onnx_cases  # noqa: E402


def main() -> None:
    libraries = ("rosenblatt", "scikit-learn", "skl2onnx", "onnx", "onnxruntime")
    print(", ".join(f"{name} {version(name)}" for name in libraries))
    print()
    print(
        "| model | data | labels, float32 | labels, float64 | max rel. diff, float32 "
        "| max rel. diff, float64 |"
    )
    print("|---|---|---|---|---|---|")
    worst = {np.float32: 0.0, np.float64: 0.0}
    disagreements = 0
    for case in onnx_cases.CASES:
        fitted = onnx_cases.fitted(case)
        if fitted is None:
            print(f"| {case.name} | {case.data} | skipped: no ../shared/data | | | |")
            continue
        model, X_test, _ = fitted
        results = {dtype: onnx_cases.parity(model, X_test, dtype) for dtype in case.dtypes}
        cells = []
        for dtype in (np.float32, np.float64):
            result = results.get(dtype)
            cells.append("-" if result is None else f"{result.same_labels}/{result.n}")
        for dtype in (np.float32, np.float64):
            result = results.get(dtype)
            cells.append("-" if result is None else f"{result.difference:.1e}")
            if result is not None:
                worst[dtype] = max(worst[dtype], result.difference)
                disagreements += result.n - result.same_labels
        print(f"| {case.name} | {case.data} | " + " | ".join(cells) + " |")
    print()
    print(
        f"largest relative difference: {worst[np.float32]:.1e} (float32), "
        f"{worst[np.float64]:.1e} (float64); labels that differ: {disagreements}"
    )


if __name__ == "__main__":
    main()
