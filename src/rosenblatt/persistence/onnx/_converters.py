"""The package's estimators registered with skl2onnx: parsers, shape calculators, converters.

skl2onnx converts a scikit-learn model step by step, each class through the parser
that declares its outputs, the shape calculator that types them and the converter
that writes its nodes. Registering ours (:func:`register`) lets skl2onnx convert any
pipeline whose other steps it knows, ``skl2onnx.to_onnx`` as well as
:func:`rosenblatt.persistence.onnx.to_onnx`.

A classifier gives two outputs: ``label`` (what ``predict`` gives) and ``scores``
(what ``decision_function`` gives, of the input's float type). With skl2onnx's
option ``raw_scores`` (which its ``CalibratedClassifierCV`` converter sets on the
classifier it calibrates) a binary classifier's scores are the two columns
``[-s, s]``, as skl2onnx's own linear classifiers give them. A
:class:`~rosenblatt.estimators.calibration.CalibratedClassifier` or
:class:`~rosenblatt.estimators.calibration.OnlineCalibratedClassifier` gives ``label``
and ``probabilities`` (``predict_proba``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from skl2onnx import get_model_alias, update_registered_converter
from skl2onnx.common._registration import get_converter
from skl2onnx.common.data_types import (
    BooleanTensorType,
    DoubleTensorType,
    FloatTensorType,
    Int64TensorType,
    StringTensorType,
)
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

from ...estimators.calibration import CalibratedClassifier, OnlineCalibratedClassifier
from ...estimators.projectron import Projectron
from ...estimators.text import TfDfTransformer
from . import _calibration, _scores
from ._graph import Graph

__all__ = ["ALIASES", "EXPORT_CONVERTERS", "EXPORT_SHAPES", "register"]

# skl2onnx's name of each registered class
ALIASES = {
    cls: f"Rosenblatt{cls.__name__}"
    for cls in (
        *_scores.CLASSIFIERS,
        Projectron,
        CalibratedClassifier,
        OnlineCalibratedClassifier,
        TfDfTransformer,
    )
}
# the classifiers' options: zipmap is set by skl2onnx's pipelines (there are no
# probabilities to zip: it changes nothing), raw_scores as described above
_OPTIONS = {"zipmap": [True, False, "columns"], "raw_scores": [False, True]}


def _float_type(variable: Any) -> type:
    """The tensor type a step's float output takes: its input's, float if not a float."""
    return DoubleTensorType if isinstance(variable.type, DoubleTensorType) else FloatTensorType


def _numpy_float(variable: Any) -> Any:
    return np.float64 if isinstance(variable.type, DoubleTensorType) else np.float32


def _label_type(model: Any) -> type:
    if getattr(model, "multilabel_", False):
        return Int64TensorType
    kind = _scores.label_values(np.asarray(model.classes_)).dtype.kind
    return {"i": Int64TensorType, "f": DoubleTensorType, "b": BooleanTensorType}.get(
        kind, StringTensorType
    )


def _features(g: Graph, operator: Any) -> tuple[str, Any]:
    """The name and numpy dtype of the operator's rows: its inputs side by side, in a
    float type (integers as float32, as skl2onnx's linear models take them)."""
    dtype = (
        np.float64
        if any(isinstance(v.type, DoubleTensorType) for v in operator.inputs)
        else np.float32
    )
    names = []
    for variable in operator.inputs:
        if isinstance(variable.type, StringTensorType):
            raise ValueError(
                f"{type(operator.raw_operator).__name__} takes numbers, not strings; put a "
                "vectorizer before it"
            )
        same = isinstance(
            variable.type, DoubleTensorType if dtype == np.float64 else FloatTensorType
        )
        names.append(variable.full_name if same else g.cast(variable.full_name, dtype))
    return (names[0] if len(names) == 1 else g.op("Concat", *names, axis=1)), dtype


def _raw_scores(operator: Any) -> bool:
    model = operator.raw_operator
    options = operator.scope_inst.get_options(model, {"raw_scores": False}, fail=False) or {}
    return bool(options.get("raw_scores")) and _scores.n_score_columns(model) == 1


# ---------------------------------------------------------------------- classifiers
def _parse_classifier(scope: Any, model: Any, inputs: list, custom_parsers: Any = None) -> list:
    operator = scope.declare_local_operator(ALIASES[type(model)], model)
    operator.inputs = inputs
    operator.outputs.append(scope.declare_local_variable("label", _label_type(model)()))
    operator.outputs.append(scope.declare_local_variable("scores", _float_type(inputs[0])()))
    return operator.outputs


def _classifier_shapes(operator: Any) -> None:
    model = operator.raw_operator
    n = operator.inputs[0].get_first_dimension()
    columns = _scores.n_score_columns(model)
    multilabel = getattr(model, "multilabel_", False)
    operator.outputs[0].type = _label_type(model)([n, columns] if multilabel else [n])
    if _raw_scores(operator):
        columns = 2
    score_shape = [n] if columns == 1 else [n, columns]
    # float64 scores stay so (a calibrated model's folds ask for them), else the input's type
    scores = operator.outputs[1]
    tensor = DoubleTensorType if isinstance(scores.type, DoubleTensorType) else None
    scores.type = (tensor or _float_type(operator.inputs[0]))(score_shape)


def _convert_classifier(scope: Any, operator: Any, container: Any) -> None:
    model = operator.raw_operator
    g = Graph(scope, container, ALIASES[type(model)])
    x, dtype = _features(g, operator)
    scores, score_dtype = _scores.decision(g, x, dtype, model)
    label, out = operator.outputs[0].full_name, operator.outputs[1].full_name
    g.op("Identity", _scores.labels(g, scores, score_dtype, model), output=label)
    if _raw_scores(operator):  # skl2onnx's two columns of a binary classifier
        column = g.column(scores)
        scores = g.op("Concat", g.op("Neg", column), column, axis=1)
    out_dtype = _numpy_float(operator.outputs[1])
    if out_dtype == score_dtype:
        g.op("Identity", scores, output=out)
    else:
        g.cast(scores, out_dtype, output=out)


# ---------------------------------------------------------------------- calibration
def _parse_calibrated(scope: Any, model: Any, inputs: list, custom_parsers: Any = None) -> list:
    # skl2onnx parses a nested model (a fold's classifier or pipeline) as its own parsers
    # of pipelines do, through _parse._parse_sklearn: it has no public name for it
    from skl2onnx import _parse as skl2onnx_parse

    try:
        parse = skl2onnx_parse._parse_sklearn
    except AttributeError:  # pragma: no cover (skl2onnx 1.17 to 1.20 have it)
        raise ValueError(
            "this skl2onnx cannot convert the folds of a calibrated model; install "
            "skl2onnx 1.17 to 1.20 (pip install 'rosenblatt[onnx]')"
        ) from None
    fold_scores = []
    for estimator in model.estimators_:
        scores = parse(scope, estimator, inputs, custom_parsers=custom_parsers)[1]
        scores.type = DoubleTensorType()  # as predict_proba calibrates them, not rounded
        fold_scores.append(scores)
    operator = scope.declare_local_operator(ALIASES[CalibratedClassifier], model)
    operator.inputs = fold_scores
    operator.outputs.append(scope.declare_local_variable("label", _label_type(model)()))
    operator.outputs.append(scope.declare_local_variable("probabilities", _float_type(inputs[0])()))
    return operator.outputs


def _calibrated_shapes(operator: Any) -> None:
    model = operator.raw_operator
    n = operator.inputs[0].get_first_dimension()
    operator.outputs[0].type = _label_type(model)([n])
    operator.outputs[1].type = _float_type(operator.inputs[0])([n, len(model.classes_)])


def _convert_calibrated(scope: Any, operator: Any, container: Any) -> None:
    model = operator.raw_operator
    g = Graph(scope, container, ALIASES[CalibratedClassifier])
    proba = _calibration.probabilities(g, [v.full_name for v in operator.inputs], model)
    _probability_outputs(g, operator, proba)


def _probability_outputs(g: Graph, operator: Any, proba: str) -> None:
    """A calibrated model's outputs: the most probable class and the probabilities."""
    model = operator.raw_operator
    index = g.op("ArgMax", proba, axis=1, keepdims=0)
    classes = g.const(_scores.label_values(np.asarray(model.classes_)), "classes")
    g.op("Identity", g.gather(classes, index), output=operator.outputs[0].full_name)
    g.cast(proba, _numpy_float(operator.outputs[1]), output=operator.outputs[1].full_name)


def _parse_online(scope: Any, model: Any, inputs: list, custom_parsers: Any = None) -> list:
    from skl2onnx import _parse as skl2onnx_parse  # as _parse_calibrated

    scores = skl2onnx_parse._parse_sklearn(
        scope, model.estimator_, inputs, custom_parsers=custom_parsers
    )[1]
    scores.type = DoubleTensorType()  # as predict_proba calibrates them, not rounded
    operator = scope.declare_local_operator(ALIASES[OnlineCalibratedClassifier], model)
    operator.inputs = [scores]
    operator.outputs.append(scope.declare_local_variable("label", _label_type(model)()))
    operator.outputs.append(scope.declare_local_variable("probabilities", _float_type(inputs[0])()))
    return operator.outputs


def _convert_online(scope: Any, operator: Any, container: Any) -> None:
    model = operator.raw_operator
    g = Graph(scope, container, ALIASES[OnlineCalibratedClassifier])
    proba = _calibration.online_probabilities(g, operator.inputs[0].full_name, model)
    _probability_outputs(g, operator, proba)


# ---------------------------------------------------------------------- tf/df
def _tfdf_shapes(operator: Any) -> None:
    n = operator.inputs[0].get_first_dimension()
    operator.outputs[0].type = DoubleTensorType([n, operator.raw_operator.df_.shape[0]])


def _convert_tfdf(scope: Any, operator: Any, container: Any) -> None:
    """``tf / df``, then each row over its Euclidean length, in float64: scikit-learn's
    transform of the integer counts a ``CountVectorizer`` gives."""
    model = operator.raw_operator
    g = Graph(scope, container, ALIASES[TfDfTransformer])
    x, dtype = _features(g, operator)
    x = g.cast(x, np.float64) if dtype != np.float64 else x
    inverse = np.zeros_like(model.df_)
    np.divide(1.0, model.df_, out=inverse, where=model.df_ > 0)
    weighted = g.op("Mul", x, g.const(inverse, "inverse_df"))
    out = _normalized(g, weighted, model.norm, np.float64)
    g.op("Identity", out, output=operator.outputs[0].full_name)


# ---------------------------------------------------------------------- tf-idf in float64
def _tfidf_vectorizer_shapes(operator: Any) -> None:
    model = operator.raw_operator
    n = operator.inputs[0].get_first_dimension()
    tensor = DoubleTensorType if np.dtype(model.dtype) == np.float64 else FloatTensorType
    operator.outputs[0].type = tensor([n, len(model.vocabulary_)])


def _convert_tfidf_vectorizer(scope: Any, operator: Any, container: Any) -> None:
    """A ``TfidfVectorizer``: skl2onnx's word counts (exact in float32), then the tf-idf
    weights in the vectorizer's dtype (float64 by default), as scikit-learn computes them.

    skl2onnx's own converter weighs in float32, and a model whose scores hang on the
    last bits (a vote of hypotheses scoring 0 up to rounding) then scores otherwise.
    """
    model = operator.raw_operator
    keep = set(CountVectorizer().get_params())
    counter = CountVectorizer(**{k: v for k, v in model.get_params().items() if k in keep})
    counter.vocabulary_ = model.vocabulary_
    # the vectorizer's options (locale, token pattern) for the counter that stands for it
    container.add_options(id(counter), _text_options(container, model))
    columns = len(model.vocabulary_)
    counts = scope.declare_local_variable("counts", FloatTensorType([None, columns]))
    counting = scope.declare_local_operator(get_model_alias(CountVectorizer), counter)
    counting.inputs = operator.inputs
    counting.outputs.append(counts)
    g = Graph(scope, container, "RosenblattTfidf")
    dtype = np.dtype(model.dtype)
    tf = g.cast(counts.full_name, dtype)
    if model.sublinear_tf:  # 1 + log(tf) where a word occurs
        ones = g.const(np.ones((), dtype), "one")
        logged = g.op("Add", g.op("Log", tf), ones)
        tf = g.where(g.op("Greater", tf, g.const(np.zeros((), dtype), "zero")), logged, tf)
    if model.use_idf:
        tf = g.op("Mul", tf, g.const(model.idf_.astype(dtype), "idf"))
    g.op("Identity", _normalized(g, tf, model.norm, dtype), output=operator.outputs[0].full_name)


def _normalized(g: Graph, x: str, norm: str | None, dtype: Any) -> str:
    """Rows over their l2 (or l1) length, rows of length 0 kept: sklearn's normalize."""
    if norm is None:
        return x
    if norm == "l1":
        length = g.sum(g.op("Abs", x), axis=1, keepdims=True)
    else:
        length = g.op("Sqrt", g.sum(g.op("Mul", x, x), axis=1, keepdims=True))
    zero = g.op("Equal", length, g.const(np.zeros((), dtype), "zero"))
    return g.op("Div", x, g.where(zero, g.const(np.ones((), dtype), "one"), length))


# scikit-learn's default token pattern, and the same words in classes onnxruntime's
# regular expressions (RE2) read as Unicode: RE2's \w is ASCII only
DEFAULT_TOKENS = r"(?u)\b\w\w+\b"
UNICODE_TOKENS = r"[\pL\pN_]{2,}"


def _text_options(container: Any, model: Any) -> dict:
    """skl2onnx's options of a vectorizer, with what runs on every machine where they are
    not given: the "C" locale (onnxruntime's default, en_US, is missing on many servers)
    and the default token pattern in Unicode classes."""
    defaults = {"separators": "DEFAULT", "tokenexp": None, "nan": False, "locale": None}
    options = container.get_options(model, {**defaults, "keep_empty_string": False})
    if options["locale"] is None:
        options["locale"] = "C"
    default_split = options["tokenexp"] is None and options["separators"] == "DEFAULT"
    if default_split and model.analyzer == "word" and model.token_pattern == DEFAULT_TOKENS:
        options["tokenexp"] = UNICODE_TOKENS
    return options


def _convert_count_vectorizer(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx's converter of a ``CountVectorizer``, run with :func:`_text_options`."""
    model = operator.raw_operator
    container.add_options(id(model), _text_options(container, model))
    get_converter(get_model_alias(CountVectorizer))(scope, operator, container)


# what to_onnx converts its own way, given to skl2onnx for one conversion (not registered:
# skl2onnx.to_onnx keeps its converters of these classes)
EXPORT_CONVERTERS = {
    TfidfVectorizer: _convert_tfidf_vectorizer,
    CountVectorizer: _convert_count_vectorizer,
}
EXPORT_SHAPES = {TfidfVectorizer: _tfidf_vectorizer_shapes}

_registered = False


def register() -> None:
    """Register the package's estimators with skl2onnx (once per process)."""
    global _registered
    if _registered:
        return
    for cls in (*_scores.CLASSIFIERS, Projectron):
        update_registered_converter(
            cls,
            ALIASES[cls],
            _classifier_shapes,
            _convert_classifier,
            parser=_parse_classifier,
            options=_OPTIONS,
        )
    update_registered_converter(
        CalibratedClassifier,
        ALIASES[CalibratedClassifier],
        _calibrated_shapes,
        _convert_calibrated,
        parser=_parse_calibrated,
        options={"zipmap": [True, False, "columns"]},
    )
    update_registered_converter(
        OnlineCalibratedClassifier,
        ALIASES[OnlineCalibratedClassifier],
        _calibrated_shapes,
        _convert_online,
        parser=_parse_online,
        options={"zipmap": [True, False, "columns"]},
    )
    update_registered_converter(
        TfDfTransformer, ALIASES[TfDfTransformer], _tfdf_shapes, _convert_tfdf
    )
    _registered = True
