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


def _predicts_linearly(final: str, before: list[str], fitted: bool) -> bool:
    """Whether a LinearPredictor predicts for a model of these class keys: a fitted linear
    classifier (``final``), alone or after one standardiser (``before``)."""
    return (
        final in LINEAR_CLASSES
        and len(before) <= 1
        and all(plays(key, "standardizer") for key in before)
        and fitted  # not fitted: the estimator says so in its words
    )


def build_predictor(model: Plain, reader: Reader) -> Any:
    """A LinearPredictor for a checked linear model (alone or after a StandardScaler),
    else the estimator itself, built by ``reader`` (a
    :class:`~rosenblatt.persistence.decode.Reader`)."""
    from ..engine.numpy_decision import LinearPredictor

    steps = [model]
    if plays(model.key, "pipeline"):
        steps = [step for _, step in model.params["steps"]]
    *before, final = steps
    if not _predicts_linearly(final.key, [step.key for step in before], bool(final.fitted)):
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


def live_predictor(model: Any) -> Any:
    """A LinearPredictor for a fitted model object by :func:`build_predictor`'s rule (a
    linear classifier, alone or after a StandardScaler), else the model itself.

    The predictor holds the model's own arrays, not copies: it predicts as the model does
    until the model learns again (the service learns on a copy, never on a model that
    predicts).

    Examples
    --------
    >>> import numpy as np
    >>> from rosenblatt import Perceptron
    >>> X = np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]])
    >>> clf = Perceptron(shuffle=False).fit(X, [-1, 1, 1, 1])
    >>> predictor = live_predictor(clf)
    >>> type(predictor).__name__, predictor.predict(X)
    ('LinearPredictor', array([-1,  1,  1,  1]))
    """
    from ..engine.numpy_decision import LinearPredictor
    from .policy import key_of

    def key(estimator):
        return key_of(type(estimator)) or ""

    steps = [model]
    if plays(key(model), "pipeline"):
        steps = [step for _, step in model.steps]
    *before, final = steps
    if not _predicts_linearly(key(final), [key(s) for s in before], hasattr(final, "coef_")):
        return model
    first = before[0] if before else final
    scaler = before[0] if before else None
    return LinearPredictor(
        final.coef_,
        final.intercept_,
        final.classes_,
        first.n_features_in_,
        getattr(first, "feature_names_in_", None),
        scaler.mean_ if scaler is not None and scaler.with_mean else None,
        scaler.scale_ if scaler is not None and scaler.with_std else None,
        type(final).__name__,
        multilabel=bool(getattr(final, "multilabel_", False)),
    )
