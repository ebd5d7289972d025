"""The numpy-only predictor of a linear model, made from the checked tree of its file.

A linear model (one of :data:`LINEAR_CLASSES`), alone or in a Pipeline after a
``StandardScaler``, predicts ``labels_from_scores(linear_scores(X, coef_, intercept_))``
after the standardisation (the indicator matrix of a model fitted on one,
``multilabel_``): :func:`build_predictor` takes these arrays from the decoded and
checked :class:`~rosenblatt.persistence.invariants.Plain` tree (the very checks :func:`load` runs,
so every file it refuses, this refuses) into a
:class:`~rosenblatt.engine.numpy_decision.LinearPredictor`, without building an estimator, so that
predicting imports neither scikit-learn nor scipy nor numba. Any other model is built.

>>> import numpy as np
>>> from rosenblatt.persistence.invariants import Plain
>>> from rosenblatt.persistence.predictor import LINEAR_CLASSES, build_predictor
>>> LINEAR_CLASSES[:2]
('rosenblatt.Perceptron', 'rosenblatt.AveragedPerceptron')
>>> fitted = {"coef_": np.array([[1.0, -1.0]]), "intercept_": np.array([0.5]),
...           "classes_": np.array([0, 1]), "n_features_in_": 2}
>>> predictor = build_predictor(Plain(LINEAR_CLASSES[0], {}, fitted), reader=None)
>>> predictor.predict(np.array([[0.0, 1.0], [1.0, 0.0]]))
array([0, 1])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .invariants.roles import plays
from .records import RECORDS

if TYPE_CHECKING:  # pragma: no cover
    from .decode import Reader
    from .invariants import Plain

__all__ = ["LINEAR_CLASSES"]

# Classes whose prediction is ``labels_from_scores(linear_scores(X, coef_, intercept_))``
# (their records score "linear"), and the preprocessing a LinearPredictor can apply before them.
LINEAR_CLASSES = tuple(r.key for r in RECORDS if r.scoring == "linear")


def build_predictor(model: Plain, reader: Reader) -> Any:
    """A LinearPredictor for a checked linear model (alone or after a StandardScaler),
    else the estimator itself, built by ``reader`` (a
    :class:`~rosenblatt.persistence.decode.Reader`)."""
    from ..engine.numpy_decision import LinearPredictor

    steps = [model]
    if plays(model.key, "pipeline"):
        steps = [step for _, step in model.params["steps"]]
    *before, final = steps
    if (
        final.key not in LINEAR_CLASSES
        or len(before) > 1
        or any(not plays(step.key, "standardizer") for step in before)
        or not final.fitted  # not fitted: the estimator says so in its words
    ):
        return reader.build(model)
    fitted = {**final.fitted, **final.derived}  # the weights, rebuilt from a state
    first = before[0].fitted if before else fitted
    mean = scale = None
    if before:
        scaler = before[0]
        if scaler.params.get("with_mean", True):  # the defaults, as load() builds it
            mean = scaler.fitted["mean_"]
        if scaler.params.get("with_std", True):
            scale = scaler.fitted["scale_"]
    return LinearPredictor(
        fitted["coef_"],
        fitted["intercept_"],
        fitted["classes_"],
        first["n_features_in_"],
        first.get("feature_names_in_"),
        mean,
        scale,
        final.name,
        multilabel=bool(fitted.get("multilabel_", False)),  # checked against the rows
    )
