"""The graphs of the calibrated models' ``predict_proba``.

:class:`~rosenblatt.estimators.calibration.CalibratedClassifier`: each fold's scores
through its calibration maps, the folds averaged. It follows
``estimators.calibration._fold_proba`` step by step, in float64: Platt's sigmoid
``1 / (1 + exp(a s + b))`` or the isotonic fit's breakpoints interpolated as
``np.interp`` does (clipped at both ends).

:class:`~rosenblatt.estimators.calibration.OnlineCalibratedClassifier`: the score
through the online Platt map ``1 / (1 + exp(-(a s + b)))`` and, with tracking, the
forecast of the bin that probability falls in (``floor(p n_bins)``, the last bin
holding 1), looked up in a table of the bins' forecasts computed as
``estimators._online_platt.track`` computes them.

Both then as ``estimators._probabilities.normalised``: two classes: the map is the
second class's and the first gets the rest; more: one-vs-rest maps normalised to
sum to 1 (all zero: uniform); values rounded just above 1 set to 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...estimators._online_platt import track
from ._scores import decision_from_columns, n_score_columns

if TYPE_CHECKING:  # pragma: no cover
    from ._graph import Graph

__all__ = ["online_probabilities", "probabilities"]


def _sigmoid(g: Graph, score: str, a: float, b: float) -> str:
    # expit(-(a s + b)), as scikit-learn's _SigmoidCalibration predicts
    linear = g.op("Add", g.op("Mul", score, g.const(np.array(a), "a")), g.const(np.array(b), "b"))
    return g.op("Sigmoid", g.op("Neg", linear))


def _interpolate(g: Graph, score: str, x: np.ndarray, y: np.ndarray) -> str:
    """``np.interp(score, x, y)`` for increasing breakpoints ``x``: the segment
    ``x[j] <= s < x[j + 1]``, ``slope * (s - x[j]) + y[j]``; ``y[0]`` below ``x[0]``
    and ``y[-1]`` from ``x[-1]`` on."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape[0] == 1:
        return g.op("Add", g.op("Mul", score, g.const(np.array(0.0), "zero")), g.const(y[0], "y"))
    slopes = np.diff(y) / np.diff(x)  # as np.interp divides
    column = g.column(score)
    # breakpoints at or below each score, less one: the segment, kept inside 0 .. m-2
    below = g.cast(g.op("LessOrEqual", g.const(x, "x"), column), np.float64)
    segment = g.op("Sub", g.sum(below, axis=1), g.const(np.array(1.0), "one"))
    segment = g.op(
        "Clip", segment, g.const(np.array(0.0), "lo"), g.const(np.array(x.shape[0] - 2.0), "hi")
    )
    segment = g.cast(segment, np.int64)
    start = g.gather(g.const(x[:-1], "x0"), segment)
    inside = g.op(
        "Add",
        g.op("Mul", g.gather(g.const(slopes, "slope"), segment), g.op("Sub", score, start)),
        g.gather(g.const(y[:-1], "y0"), segment),
    )
    last = g.where(
        g.op("GreaterOrEqual", score, g.const(x[-1], "x_last")), g.const(y[-1], "y_last"), inside
    )
    return g.where(g.op("Less", score, g.const(x[0], "x_first")), g.const(y[0], "y_first"), last)


def _calibrate(g: Graph, score: str, mapping: dict) -> str:
    if set(mapping) == {"a", "b"}:
        return _sigmoid(g, score, float(mapping["a"]), float(mapping["b"]))
    return _interpolate(g, score, mapping["x"], mapping["y"])


def _fold(g: Graph, scores: str, estimator: Any, maps: list, classes: np.ndarray) -> str:
    """One fold's probabilities (n, n_classes) from its classifier's ``scores`` (float64,
    in skl2onnx's form: a column per class)."""
    n_classes = classes.shape[0]
    scores = decision_from_columns(g, scores, estimator)
    one_column = len(maps) == 1
    if n_classes == 2:
        positive = _calibrate(g, scores if one_column else g.flat(scores), maps[0])
        proba = _binary(g, positive)
    else:
        calibrated = {}
        for k, (label, mapping) in enumerate(zip(estimator.classes_, maps)):
            column = scores if one_column else g.flat(g.gather(scores, [k], axis=1))
            calibrated[int(np.searchsorted(classes, label))] = _calibrate(g, column, mapping)
        for c in set(range(n_classes)) - set(calibrated):  # a class the fold never saw: 0
            calibrated[c] = g.op("Mul", scores, g.const(np.zeros(()), "zero"))
            calibrated[c] = calibrated[c] if one_column else g.flat(g.gather(calibrated[c], [0], 1))
        proba = _normalised(g, [calibrated[c] for c in range(n_classes)])
    return _rounded(g, proba)


def _normalised(g: Graph, columns: list[str]) -> str:
    """One-vs-rest probabilities (n,) side by side, each row over its sum (0: uniform)."""
    proba = g.op("Concat", *[g.column(c) for c in columns], axis=1)
    total = g.sum(proba, axis=1, keepdims=True)
    nonzero = g.op("Not", g.op("Equal", total, g.const(np.array(0.0), "zero")))
    uniform = g.const(np.array(1.0 / len(columns)), "uniform")
    return g.where(nonzero, g.op("Div", proba, total), uniform)


def _rounded(g: Graph, proba: str) -> str:
    """Rounding just above 1, set to 1 (as the estimators' ``normalised``)."""
    above = g.op("Greater", proba, g.const(np.array(1.0), "one"))
    close = g.op("LessOrEqual", proba, g.const(np.array(1.0 + 1e-5), "tolerance"))
    return g.where(g.op("And", above, close), g.const(np.array(1.0), "one"), proba)


def probabilities(g: Graph, fold_scores: list[str], model: Any) -> str:
    """``model.predict_proba``: the mean of the folds' probabilities, float64."""
    classes = np.asarray(model.classes_)
    total = None
    for scores, estimator, maps in zip(fold_scores, model.estimators_, model.calibrators_):
        proba = _fold(g, scores, _final(estimator), maps, classes)
        total = proba if total is None else g.op("Add", total, proba)
    assert total is not None  # a fitted model has a fold
    return g.op("Div", total, g.const(np.array(float(len(fold_scores))), "folds"))


def _final(estimator):
    steps = getattr(estimator, "steps", None)
    return steps[-1][1] if steps else estimator


def _binary(g: Graph, positive: str) -> str:
    """Two classes: the second's probability (n,), the first's the rest."""
    negative = g.op("Sub", g.const(np.array(1.0), "one"), positive)
    return g.op("Concat", g.column(negative), g.column(positive), axis=1)


def online_probabilities(g: Graph, scores: str, model: Any) -> str:
    """``model.predict_proba`` of an online calibrated model from its estimator's
    ``scores`` (float64, in skl2onnx's form: a column per class)."""
    scores = decision_from_columns(g, scores, _final(model.estimator_))
    n_maps, n_bins = model.bin_sums_.shape
    columns = _scores_columns(g, scores, model)
    calibrated = []
    for k in range(n_maps):
        a, b = (float(v) for v in model.platt_[k])
        scaled = g.op("Mul", columns[k], g.const(np.array(a), "a"))
        p = g.op("Sigmoid", g.op("Add", scaled, g.const(np.array(b), "b")))
        if model.calibeating == "tracking":
            # the bin of p, floor(p n_bins) kept below n_bins, and its forecast
            index = g.op("Floor", g.op("Mul", p, g.const(np.array(float(n_bins)), "n_bins")))
            index = g.op(
                "Clip", index, g.const(np.array(0.0), "lo"), g.const(np.array(n_bins - 1.0), "hi")
            )
            table = track(model.bin_sums_[k], model.bin_counts_[k], np.arange(n_bins))
            p = g.gather(g.const(table, "forecasts"), g.cast(index, np.int64))
        calibrated.append(p)
    if n_maps == 1:
        return _rounded(g, _binary(g, calibrated[0]))
    return _rounded(g, _normalised(g, calibrated))


def _scores_columns(g: Graph, scores: str, model: Any) -> list[str]:
    """The (n,) score of each map, as ``OnlineCalibratedClassifier._scores`` reads them:
    a binary estimator's one score, or its two classes' margin, or each class's."""
    n_maps = model.platt_.shape[0]
    width = n_score_columns(_final(model.estimator_))
    if width == 1:
        return [scores]
    columns = [g.flat(g.gather(scores, [k], axis=1)) for k in range(width)]
    if n_maps == 1:  # two classes, a score each: the second's margin
        return [g.op("Sub", columns[1], columns[0])]
    return columns
