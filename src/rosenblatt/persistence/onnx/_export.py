"""What :func:`rosenblatt.persistence.onnx.to_onnx` does: check, type the input, convert."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.utils.validation import check_is_fitted

from ..._core.version import __version__
from ...estimators.calibration import CalibratedClassifier, OnlineCalibratedClassifier
from . import OPSET, _scores

__all__ = ["export"]


def _name(model: Any) -> str:
    return type(model).__name__


def _final(model: Any) -> Any:
    """The classifier a model ends in (inside a calibrated one: its first fold's)."""
    if isinstance(model, Pipeline):
        return _final(model.steps[-1][1])
    if isinstance(model, CalibratedClassifier):
        return _final(model.estimators_[0])
    if isinstance(model, OnlineCalibratedClassifier):
        return _final(model.estimator_)
    if isinstance(model, CalibratedClassifierCV):
        return _final(model.calibrated_classifiers_[0].estimator)
    return model


def _steps(model: Any, where: str):
    """``(step, where)`` for every step of ``model``, depth first, with how to name it."""
    if isinstance(model, Pipeline):
        for name, step in model.steps:
            if step is not None and step != "passthrough":
                yield from _steps(step, f"step {name!r} ({_name(step)}) of {where}")
        return
    if isinstance(model, ColumnTransformer):
        for name, step, _ in model.transformers_:
            if not isinstance(step, str):  # "drop", "passthrough"
                yield from _steps(step, f"transformer {name!r} ({_name(step)}) of {where}")
        return
    if isinstance(model, FeatureUnion):
        for name, step in model.transformer_list:
            if not isinstance(step, str):
                yield from _steps(step, f"transformer {name!r} ({_name(step)}) of {where}")
        return
    if isinstance(model, CalibratedClassifier):
        yield model, where
        for k, fold in enumerate(model.estimators_):
            yield from _steps(fold, f"the classifier of fold {k} of {where}")
        return
    if isinstance(model, OnlineCalibratedClassifier):
        yield model, where
        yield from _steps(model.estimator_, f"the estimator of {where}")
        return
    if isinstance(model, CalibratedClassifierCV):
        yield model, where
        for k, fold in enumerate(model.calibrated_classifiers_):
            yield from _steps(fold.estimator, f"the classifier of fold {k} of {where}")
        return
    yield model, where


def _check(model: Any) -> None:
    """Refuse, naming it, a model or step that has no graph (before any conversion)."""
    from skl2onnx import get_model_alias

    final = _final(model)
    if not isinstance(final, _scores.CLASSIFIERS):
        raise ValueError(
            f"cannot export {_name(model)}: to_onnx exports rosenblatt's classifiers, "
            f"and pipelines or calibrated models ending in one, not {_name(final)}; "
            "convert other models with skl2onnx.to_onnx"
        )
    for step, where in _steps(model, _name(model)):
        check_is_fitted(step)
        reason = _scores.why_not(step)
        if isinstance(step, CalibratedClassifierCV) and not isinstance(step, CalibratedClassifier):
            if any(isinstance(fold.estimator, Pipeline) for fold in step.calibrated_classifiers_):
                reason = (
                    "skl2onnx's converter of CalibratedClassifierCV calibrates a classifier, "
                    "not a pipeline; calibrate with rosenblatt.calibrated instead"
                )
        if reason is None and not isinstance(step, _scores.CLASSIFIERS):
            try:
                get_model_alias(type(step))
            except (KeyError, RuntimeError):
                reason = "skl2onnx has no converter for it"
        if reason is not None:
            raise ValueError(f"cannot export {where} to ONNX: {reason}")


def _input_type(model: Any, n_features: int | None, dtype: Any) -> list:
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType, StringTensorType

    first = model
    while isinstance(first, (Pipeline, CalibratedClassifier)):
        first = first.steps[0][1] if isinstance(first, Pipeline) else first.estimators_[0]
    if isinstance(first, CountVectorizer):  # TfidfVectorizer too: one string per row
        if n_features is not None:
            raise ValueError(
                f"n_features={n_features!r} does not apply: the model starts with "
                f"{_name(first)}, which takes one string per row; leave it None"
            )
        return [("text", StringTensorType([None]))]
    fitted = getattr(model, "n_features_in_", None)
    if n_features is None:
        if fitted is None:
            raise ValueError(f"{_name(model)} does not say its input's width: give n_features")
        n_features = int(fitted)
    elif fitted is not None and int(n_features) != int(fitted):
        raise ValueError(
            f"n_features={n_features!r}, but {_name(model)} was fitted on {fitted} features; "
            "leave n_features None"
        )
    if (
        not isinstance(n_features, (int, np.integer))
        or isinstance(n_features, bool)
        or n_features < 1
    ):
        raise ValueError(f"n_features must be a positive int or None; got {n_features!r}")
    tensor = {np.dtype(np.float32): FloatTensorType, np.dtype(np.float64): DoubleTensorType}
    return [("X", tensor[np.dtype(dtype)]([None, int(n_features)]))]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def export(model: Any, n_features: int | None, dtype: Any) -> Any:
    """See :func:`rosenblatt.persistence.onnx.to_onnx`."""
    from onnx import helper, shape_inference
    from skl2onnx import convert_sklearn
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType

    from ._converters import EXPORT_CONVERTERS, EXPORT_SHAPES

    try:
        dtype = np.dtype(dtype)
    except TypeError:
        dtype = None
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be numpy.float32 or numpy.float64; got {dtype!r}")
    _check(model)
    initial = _input_type(model, n_features, dtype)
    last = model  # the last step: a calibrated model gives probabilities
    while isinstance(last, Pipeline):
        last = last.steps[-1][1]
    calibrated = isinstance(last, (CalibratedClassifierCV, OnlineCalibratedClassifier))
    # the vectorizers get their options in their converters (EXPORT_CONVERTERS): options
    # given here make skl2onnx walk every attribute of the model, a vocabulary's each word
    theirs = calibrated and not isinstance(last, CalibratedClassifier)  # skl2onnx's converter
    options = {id(last): {"zipmap": False}} if theirs else None
    floats = FloatTensorType if dtype == np.float32 else DoubleTensorType
    if calibrated:
        outputs = [("label", None), ("probabilities", floats([None, len(last.classes_)]))]
    else:
        columns = _scores.n_score_columns(_final(model))
        outputs = [("label", None), ("scores", floats([None] if columns == 1 else [None, columns]))]
    try:
        graph = convert_sklearn(
            model,
            initial_types=initial,
            target_opset=OPSET,
            options=options,
            final_types=outputs,
            custom_conversion_functions=EXPORT_CONVERTERS,
            custom_shape_calculators=EXPORT_SHAPES,
        )
    except (RuntimeError, NotImplementedError) as exc:
        raise ValueError(
            f"cannot export {_name(model)} to ONNX: skl2onnx: {_first_line(exc)}"
        ) from None
    try:  # a graph whose types do not add up fails here, not when a runtime loads it
        shape_inference.infer_shapes(graph, check_type=True, strict_mode=True)
    except shape_inference.InferenceError as exc:
        raise ValueError(
            f"cannot export {_name(model)} to ONNX with dtype={dtype.name}: the graph skl2onnx "
            f"wrote does not type-check ({_first_line(exc)})"
            + ("; try dtype=numpy.float32" if dtype == np.float64 else "")
        ) from None
    graph.producer_name, graph.producer_version = "rosenblatt", __version__
    helper.set_model_props(
        graph,
        {
            "estimator": _name(model),
            "classes": repr(np.asarray(model.classes_).tolist()),
        },
    )
    return graph
