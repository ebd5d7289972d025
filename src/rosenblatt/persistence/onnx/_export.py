"""What :func:`rosenblatt.persistence.onnx.to_onnx` does: check, type the input, convert."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import StackingClassifier, VotingClassifier
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.utils.validation import check_is_fitted

from ..._core.version import __version__
from ...estimators.calibration import CalibratedClassifier, OnlineCalibratedClassifier
from . import OPSET, _scores
from ._converters import STACKED_BY_LABELS, fitted_model

__all__ = ["export"]

# the models whose outputs to_onnx gives: a classifier of the package, a calibrated
# model or an ensemble (at the end of a pipeline or alone)
_CALIBRATED = (CalibratedClassifierCV, OnlineCalibratedClassifier)
_ENSEMBLES = (VotingClassifier, StackingClassifier)


def _name(model: Any) -> str:
    return type(model).__name__


def _last(model: Any) -> Any:
    """The last step of a pipeline (the model itself if it is none), as skl2onnx meets it."""
    while isinstance(model, Pipeline):
        model = model.steps[-1][1]
    return model


def _members(model: Any) -> list[tuple[str, Any]]:
    """``(name, member)`` of an ensemble: the estimators a voting or stacking classifier
    fitted (not those dropped), and a stack's final estimator last."""
    names = [name for name, estimator in model.estimators if estimator != "drop"]
    members = list(zip(names, model.estimators_))
    if isinstance(model, StackingClassifier):
        members.append(("final_estimator_", model.final_estimator_))
    return members


def _parts(model: Any) -> list[tuple[str, Any]]:
    """``(how to name it, part)`` of the models a model holds, one level down."""
    if isinstance(model, Pipeline):
        steps = [(name, step) for name, step in model.steps]
        return [(f"step {n!r}", s) for n, s in steps if s is not None and s != "passthrough"]
    if isinstance(model, ColumnTransformer):
        return [
            (f"transformer {n!r}", s) for n, s, _ in model.transformers_ if not isinstance(s, str)
        ]
    if isinstance(model, FeatureUnion):
        return [
            (f"transformer {n!r}", s) for n, s in model.transformer_list if not isinstance(s, str)
        ]
    if isinstance(model, CalibratedClassifier):
        return [(f"the classifier of fold {k}", e) for k, e in enumerate(model.estimators_)]
    if isinstance(model, OnlineCalibratedClassifier):
        return [("the estimator", model.estimator_)]
    if isinstance(model, CalibratedClassifierCV):
        folds = model.calibrated_classifiers_
        return [(f"the classifier of fold {k}", fold.estimator) for k, fold in enumerate(folds)]
    if isinstance(model, _ENSEMBLES):
        return [(f"estimator {name!r}", member) for name, member in _members(model)]
    return []


def _steps(model: Any, where: str):
    """``(step, where)`` for every model ``model`` holds and itself (the containers of
    steps, pipelines and column transformers, left out), depth first, with how to name it."""
    check_is_fitted(model)  # a model of a layer above (register_export) too
    model = fitted_model(model)
    if not isinstance(model, (Pipeline, ColumnTransformer, FeatureUnion)):
        yield model, where
    for how, part in _parts(model):
        yield from _steps(part, f"{how} ({_name(part)}) of {where}")


def _first(model: Any) -> Any:
    """The first model that sees the input rows."""
    model = fitted_model(model)
    parts = _parts(model)
    if parts and not isinstance(model, (ColumnTransformer, FeatureUnion)):
        return _first(parts[0][1])
    return model


def _why_not(step: Any) -> str | None:
    """Why a step of a model has no graph here (None: it has one)."""
    from skl2onnx import get_model_alias

    reason = _scores.why_not(step)
    if reason is not None or isinstance(step, _scores.CLASSIFIERS):
        return reason
    if isinstance(step, CalibratedClassifierCV) and not isinstance(step, CalibratedClassifier):
        if step.method == "isotonic":
            return (
                "skl2onnx's converter of CalibratedClassifierCV(method='isotonic') maps each "
                "score to the nearest breakpoint instead of interpolating between them, as "
                "scikit-learn does; calibrate with rosenblatt.calibrated(estimator, "
                "method='isotonic') instead"
            )
    if isinstance(step, VotingClassifier):
        return _why_not_voting(step)
    if isinstance(step, StackingClassifier) and "predict" in step.stack_method_:
        return STACKED_BY_LABELS
    try:
        get_model_alias(type(step))
    except (KeyError, RuntimeError):
        return "skl2onnx has no converter for it"
    return None


def _why_not_voting(model: VotingClassifier) -> str | None:
    """What skl2onnx's converter of VotingClassifier cannot convert, or converts wrong."""
    if model.flatten_transform:
        return (
            "skl2onnx converts a VotingClassifier with flatten_transform=False only (it "
            "shapes transform's output, not predict's or predict_proba's): "
            "set_params(flatten_transform=False) first"
        )
    if model.weights is None:
        return None
    if not isinstance(model.weights, np.ndarray):
        return (
            "skl2onnx reads its weights as a numpy array: "
            "set_params(weights=numpy.asarray(weights)) first"
        )
    if any(estimator == "drop" for _, estimator in model.estimators):
        return (
            "skl2onnx pairs its weights with the estimators left after those set to "
            "'drop' by position, so they would weigh the wrong ones: leave the dropped "
            "estimators and their weights out"
        )
    return None


def _check(model: Any) -> None:
    """Refuse, naming it, a model or step that has no graph (before any conversion)."""
    steps = list(_steps(model, _name(model)))
    last = fitted_model(_last(model))
    ours = any(isinstance(step, _scores.CLASSIFIERS) for step, _ in steps)
    if not ours or not isinstance(last, (*_scores.CLASSIFIERS, *_CALIBRATED, *_ENSEMBLES)):
        raise ValueError(
            f"cannot export {_name(model)}: to_onnx exports rosenblatt's classifiers, and "
            "pipelines, calibrated models and ensembles (VotingClassifier, "
            f"StackingClassifier) that end in or hold one, not {_name(last)}; convert other "
            "models with skl2onnx.to_onnx"
        )
    for step, where in steps:
        reason = _why_not(step)
        if reason is not None:
            raise ValueError(f"cannot export {where} to ONNX: {reason}")


def _input_type(model: Any, n_features: int | None, dtype: Any) -> list:
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType, StringTensorType

    first = _first(model)
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


def _second_output(last: Any) -> tuple[str, int | None, bool]:
    """The name of the graph's second output, its columns (None: any) and whether it is
    ``decision_function``'s one score of two classes (the last of skl2onnx's columns)."""
    n_classes = len(last.classes_)
    if hasattr(last, "predict_proba"):  # not a hard VotingClassifier: it raises
        return "probabilities", n_classes, False
    if isinstance(last, VotingClassifier):
        return "votes", n_classes, False
    scorer = fitted_model(last.final_estimator_ if isinstance(last, StackingClassifier) else last)
    if isinstance(scorer, _scores.CLASSIFIERS) and getattr(scorer, "multilabel_", False):
        return "scores", _scores.n_score_columns(scorer), False
    return "scores", None if n_classes == 2 else n_classes, n_classes == 2


def _final_parser(parser: Any, dtype: Any) -> Any:
    """``parser`` of the model whose outputs are the graph's, with the option
    zipmap=False (given this way rather than as convert_sklearn's options, which make
    skl2onnx walk every attribute of the model, a vocabulary's each word), and its
    second output in float64 where the graph's is (a model of the package computes it
    in float64 then, whatever its input: one of text is typed float32)."""
    from skl2onnx.common.data_types import DoubleTensorType

    def parse(scope: Any, model: Any, inputs: list, custom_parsers: Any = None) -> list:
        scope.add_options(id(model), {"zipmap": False})
        outputs = parser(scope, model, inputs, custom_parsers=custom_parsers)
        if dtype == np.float64:
            outputs[1].type = DoubleTensorType()
        return outputs

    return parse


def _last_column(graph: Any, name: str) -> None:
    """The graph's output ``name`` (n, k) replaced by its last column (n,)."""
    from onnx import helper, numpy_helper

    columns, last = f"{name}_columns", f"{name}_last"
    for node in graph.graph.node:
        node.output[:] = [columns if output == name else output for output in node.output]
    graph.graph.initializer.append(numpy_helper.from_array(np.array(-1, np.int64), last))
    graph.graph.node.append(
        helper.make_node("Gather", [columns, last], [name], axis=1, name=f"{name}_last_column")
    )
    output = next(output for output in graph.graph.output if output.name == name)
    del output.type.tensor_type.shape.dim[1:]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def export(model: Any, n_features: int | None, dtype: Any) -> Any:
    """See :func:`rosenblatt.persistence.onnx.to_onnx`."""
    from onnx import helper, shape_inference
    from skl2onnx import convert_sklearn
    from skl2onnx._parse import sklearn_parsers_map
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType

    from ._converters import EXPORT_CONVERTERS, EXPORT_SHAPES

    try:
        dtype = np.dtype(dtype)
    except TypeError:
        dtype = None
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be numpy.float32 or numpy.float64; got {dtype!r}")
    _check(model)
    held = fitted_model(model)  # the classifier that a model of a layer above holds
    initial = _input_type(held, n_features, dtype)
    last = _last(held)
    name, columns, last_column = _second_output(fitted_model(last))
    floats = FloatTensorType if dtype == np.float32 else DoubleTensorType
    outputs = [("label", None), (name, floats([None, columns]))]
    # the vectorizers get their options in their converters (EXPORT_CONVERTERS)
    parser = sklearn_parsers_map.get(type(last))
    parsers = None if parser is None else {type(last): _final_parser(parser, dtype)}
    try:
        graph = convert_sklearn(
            held,
            initial_types=initial,
            target_opset=OPSET,
            final_types=outputs,
            custom_conversion_functions=EXPORT_CONVERTERS,
            custom_shape_calculators=EXPORT_SHAPES,
            custom_parsers=parsers,
        )
    except (RuntimeError, NotImplementedError) as exc:
        raise ValueError(
            f"cannot export {_name(model)} to ONNX: skl2onnx: {_first_line(exc)}"
        ) from None
    if last_column:  # decision_function's one score of two classes: (n,), not (n, 2)
        _last_column(graph, name)
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
