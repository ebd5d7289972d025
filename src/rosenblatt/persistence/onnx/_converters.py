"""The package's estimators registered with skl2onnx: parsers, shape calculators, converters.

skl2onnx converts a scikit-learn model step by step, each class through the parser
that declares its outputs, the shape calculator that types them and the converter
that writes its nodes. Registering ours (:func:`register`) lets skl2onnx convert any
pipeline or ensemble whose other parts it knows, ``skl2onnx.to_onnx`` as well as
:func:`rosenblatt.persistence.onnx.to_onnx`.

The classifiers follow skl2onnx's conventions for classifiers, which its converters of
ensembles (``VotingClassifier``, ``StackingClassifier``, ``CalibratedClassifierCV``)
rely on when they declare the classifiers they hold:

- two outputs: ``label`` (1-D, what ``predict`` gives; with the option ``nocl``, the
  index of the class) and an (n_samples, n_classes) tensor: ``scores`` (a binary
  classifier's score ``s`` as the two columns ``[-s, s]``, as skl2onnx's linear
  classifiers give raw scores, so that the largest column is the predicted class) or
  ``probabilities`` for a calibrated model; of the input's float type (float32 for
  integers), or of the type the converter that declares the classifier asks for;
- the option ``zipmap``: ``True`` (skl2onnx's default) zips the second output into
  one map per row (``output_label``, ``output_probability``; ONNX's ZipMap holds
  float32 values, so float64 ones are cast), ``"columns"`` gives one output per class,
  ``False`` leaves the two tensors;
- ``raw_scores`` (set by skl2onnx's converters of ``CalibratedClassifierCV`` and
  ``StackingClassifier``) changes nothing: the scores are raw already.

A model trained on a label matrix gives the (n_samples, n_labels) indicator matrix and
its scores; ``nocl`` and ``zipmap="columns"`` are refused for it and ``zipmap=True`` is
ignored with a warning, as skl2onnx's ``MultiOutputClassifier`` ignores it.

skl2onnx's ``StackingClassifier`` converter stacks two columns of a binary classifier
stacked by ``decision_function`` where scikit-learn stacks one (and keeps both
columns of a binary ``predict_proba`` unless every member has it): its graph then
fails at run time. It stacks a member's scores where scikit-learn stacks its labels
(``stack_method="predict"``). :func:`register` converts the first stacks itself, as
scikit-learn's ``StackingClassifier.transform`` stacks them, and refuses the second;
every other stack stays skl2onnx's.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

import numpy as np
from onnx import TensorProto
from skl2onnx import get_model_alias, update_registered_converter
from skl2onnx.common._registration import get_converter, register_converter
from skl2onnx.common.data_types import (
    BooleanTensorType,
    DoubleTensorType,
    FloatTensorType,
    Int64TensorType,
    StringTensorType,
)
from sklearn.ensemble import StackingClassifier
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.pipeline import Pipeline

from ..records import scored_as
from . import EXPORTED_AS, OPSET, _calibration, _scores
from ._graph import Graph

__all__ = [
    "ALIASES",
    "EXPORT_CONVERTERS",
    "EXPORT_SHAPES",
    "STACKED_BY_LABELS",
    "check_opset",
    "fitted_model",
    "register",
]

#: The kinds of graph (a record's ``scoring``) the package converts itself
_KINDS = (*_scores.SCORINGS, "calibrated", "online-calibrated", "tf-df")
# skl2onnx's name of each registered class (every class whose record says how it scores)
ALIASES: dict[type, str] = {
    record.load(): f"Rosenblatt{record.name}" for record in scored_as(*_KINDS)
}
# the options of the classifiers (those of skl2onnx's linear classifiers that apply) and
# of the calibrated ones (as skl2onnx's CalibratedClassifierCV, which has no raw_scores)
_OPTIONS = {"zipmap": [True, False, "columns"], "nocl": [False, True], "raw_scores": [False, True]}
_CALIBRATED_OPTIONS = {"zipmap": [True, False, "columns"], "nocl": [False, True]}


def _alias(cls: type) -> str:
    return ALIASES.get(cls) or f"Rosenblatt{cls.__name__}"


def fitted_model(model: Any) -> Any:
    """The model that ``model`` exports as: itself, or for a class declared with
    :func:`~rosenblatt.persistence.onnx.register_export`, the fitted model it holds."""
    held = EXPORTED_AS.get(type(model))
    if held is None:
        return model
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model)
    return held(model)


def check_opset(target_opset: Any) -> None:
    """Refuse a target opset of the ONNX main domain (an int, or a dict of domains)
    below the one the graphs need."""
    floor = OPSET[""]
    if isinstance(target_opset, dict):
        target_opset = target_opset.get("")
    if target_opset is not None and int(target_opset) < floor:
        raise ValueError(
            f"target_opset={target_opset}: rosenblatt's graphs need opset {floor} or later "
            f"of the ONNX main domain (onnxruntime 1.15 and later run it); convert with "
            f"target_opset={floor} or more, or leave it None"
        )


def _float_type(variable: Any) -> type:
    """The tensor type a step's float output takes: its input's, float if not a float."""
    return DoubleTensorType if isinstance(variable.type, DoubleTensorType) else FloatTensorType


def _second_type(operator: Any) -> type:
    """The float type of a classifier's second output: float32 for skl2onnx's ZipMap;
    the type the converter of an ensemble declared it with (it computes in that type:
    a VotingClassifier weighs the probabilities in its own output's type, typed when
    its input was not yet); float64 where ours asked for it (a calibrated model's
    folds); else the input's (our parser's guess, typed before the input was)."""
    declared = operator.outputs[1].type
    if getattr(operator, "zipmap_float32", False):
        return FloatTensorType
    ours = getattr(operator, "parsed_here", False)
    if isinstance(declared, DoubleTensorType) or (
        not ours and isinstance(declared, FloatTensorType)
    ):
        return type(declared)
    return _float_type(operator.inputs[0])


def _numpy_float(variable: Any) -> Any:
    return np.float64 if isinstance(variable.type, DoubleTensorType) else np.float32


def _label_type(model: Any, nocl: bool = False, zipped: bool = False) -> type:
    """The label output's tensor type: the classes' (int64, float64, bool or string);
    int64 for indices (``nocl``, a label matrix), and for float and bool classes that
    skl2onnx's ZipMap takes (it gives them as int64)."""
    if nocl or getattr(model, "multilabel_", False):
        return Int64TensorType
    kind = _scores.label_values(np.asarray(model.classes_)).dtype.kind
    if zipped and kind in "fb":
        return Int64TensorType
    return {"i": Int64TensorType, "f": DoubleTensorType, "b": BooleanTensorType}.get(
        kind, StringTensorType
    )


def _label_output(g: Graph, operator: Any, label: str) -> None:
    """``label`` as the operator's label output, cast where that is declared int64 and
    the labels are not (float or bool classes zipped by skl2onnx's ZipMap)."""
    kind = _scores.label_values(np.asarray(fitted_model(operator.raw_operator).classes_)).dtype
    zipped_floats = getattr(operator, "zipped", False) and kind.kind in "fb"
    if zipped_floats and isinstance(operator.outputs[0].type, Int64TensorType):
        label = g.cast(label, np.int64)
    g.op("Identity", label, output=operator.outputs[0].full_name)


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


# ---------------------------------------------------------------------- options
def _options(store: Any, raw: Any) -> dict:
    """The options given for ``raw`` (scope's at parsing, container's at conversion),
    checked against what the model's graph can give."""
    options = store.get_options(raw, {"zipmap": True, "nocl": False})
    model = fitted_model(raw)
    name = type(raw).__name__
    if getattr(model, "multilabel_", False):
        if options["nocl"]:
            raise ValueError(
                f"option nocl=True does not apply to {name} trained on a label matrix: its "
                "label output is the indicator matrix, not class names; leave nocl False"
            )
        if options["zipmap"] == "columns":
            raise ValueError(
                f"option zipmap='columns' does not apply to {name} trained on a label "
                "matrix: it has one score per label, not per class; use zipmap=False"
            )
    return options


def _declare(scope: Any, raw: Any, inputs: list, name: str) -> tuple[Any, Any]:
    """The operator of a classifier or calibrated model, its outputs ``label`` and ``name``
    declared (the second of the input's float type), and the checked options."""
    options = _options(scope, raw)
    operator = scope.declare_local_operator(_alias(type(raw)), raw)
    operator.inputs = inputs
    model = fitted_model(raw)
    # for the shape calculators (_label_type, _second_type) and the converters: what
    # skl2onnx's ZipMap will take, float32 values only
    operator.parsed_here = True
    operator.zipped = options["zipmap"] is not False and not getattr(model, "multilabel_", False)
    operator.zipmap_float32 = operator.zipped and options["zipmap"] is True
    label_type = _label_type(model, options["nocl"], operator.zipped)
    label = scope.declare_local_variable("label", label_type())
    tensor = FloatTensorType if operator.zipmap_float32 else _float_type(inputs[0])
    operator.outputs.append(label)
    operator.outputs.append(scope.declare_local_variable(name, tensor()))
    return operator, options


def _zipped(scope: Any, operator: Any, options: dict) -> list:
    """The outputs as the option zipmap asks (skl2onnx's ZipMap), as skl2onnx's parser of
    classifiers gives them."""
    from skl2onnx._parse import _apply_zipmap

    raw = operator.raw_operator
    zipmap = options["zipmap"]
    if zipmap is False:
        return list(operator.outputs)
    if getattr(fitted_model(raw), "multilabel_", False):  # zipmap=True, as skl2onnx ignores
        warnings.warn(  # it for a MultiOutputClassifier
            f"option zipmap=True is ignored for {type(raw).__name__} trained on a label "
            "matrix (one score per label, no classes to map); set zipmap=False to remove "
            "this warning",
            UserWarning,
            stacklevel=2,
        )
        return list(operator.outputs)
    second = operator.outputs[1]
    return _apply_zipmap(zipmap, scope, raw, second.type, list(operator.outputs))


# ---------------------------------------------------------------------- classifiers
def _parse_classifier(scope: Any, model: Any, inputs: list, custom_parsers: Any = None) -> list:
    check_opset(scope.target_opset)
    operator, options = _declare(scope, model, inputs, "scores")
    return _zipped(scope, operator, options)


def _n_columns(model: Any) -> int:
    """Columns of the second output: one per class (two for a binary classifier's one
    score), or per label of a label matrix."""
    columns = _scores.n_score_columns(model)
    return columns if getattr(model, "multilabel_", False) or columns > 1 else 2


def _classifier_shapes(operator: Any) -> None:
    model = fitted_model(operator.raw_operator)
    n = operator.inputs[0].get_first_dimension()
    options = operator.scope_inst.get_options(operator.raw_operator, {"nocl": False})
    columns = _n_columns(model)
    multilabel = getattr(model, "multilabel_", False)
    label_type = _label_type(model, options["nocl"], getattr(operator, "zipped", False))
    operator.outputs[0].type = label_type([n, columns] if multilabel else [n])
    operator.outputs[1].type = _second_type(operator)([n, columns])


def _convert_classifier(scope: Any, operator: Any, container: Any) -> None:
    check_opset(container.target_opset)
    options = _options(container, operator.raw_operator)
    model = fitted_model(operator.raw_operator)
    g = Graph(scope, container, _alias(type(operator.raw_operator)))
    x, dtype = _features(g, operator)
    scores, score_dtype = _scores.decision(g, x, dtype, model)
    if options["nocl"]:  # the class's index, not its name
        label = _scores.label_index(g, scores, score_dtype, model)
    else:
        label = _scores.labels(g, scores, score_dtype, model)
    _label_output(g, operator, label)
    if _scores.n_score_columns(model) == 1 and not getattr(model, "multilabel_", False):
        column = g.column(scores)  # skl2onnx's two columns of a binary classifier
        scores = g.op("Concat", g.op("Neg", column), column, axis=1)
    out = operator.outputs[1]
    if _numpy_float(out) == score_dtype:
        g.op("Identity", scores, output=out.full_name)
    else:
        g.cast(scores, _numpy_float(out), output=out.full_name)


# ---------------------------------------------------------------------- calibration
def _parse_calibrated(scope: Any, model: Any, inputs: list, custom_parsers: Any = None) -> list:
    check_opset(scope.target_opset)
    operator, options = _declare(scope, model, inputs, "probabilities")
    return _zipped(scope, operator, options)


def _calibrated_shapes(operator: Any) -> None:
    model = operator.raw_operator
    n = operator.inputs[0].get_first_dimension()
    options = operator.scope_inst.get_options(model, {"nocl": False})
    label_type = _label_type(model, options["nocl"], getattr(operator, "zipped", False))
    operator.outputs[0].type = label_type([n])
    operator.outputs[1].type = _second_type(operator)([n, len(model.classes_)])


def _fold_scores(scope: Any, estimator: Any, inputs: list) -> str:
    """A fold's classifier (or pipeline) declared on the calibrated model's inputs, as
    skl2onnx's converters declare the models they hold: its scores (n, n_classes) in
    float64, as ``predict_proba`` calibrates them (not rounded to the input's type)."""
    from skl2onnx._parse import _parse_sklearn

    final = estimator.steps[-1][1] if isinstance(estimator, Pipeline) else estimator
    scope.add_options(id(final), {"zipmap": False, "nocl": False})
    scores = _parse_sklearn(scope, estimator, list(inputs))[1]
    scores.type = DoubleTensorType()
    return scores.full_name


def _convert_calibrated(scope: Any, operator: Any, container: Any) -> None:
    check_opset(container.target_opset)
    options = _options(container, operator.raw_operator)
    model = operator.raw_operator
    fold_scores = [
        _fold_scores(scope, estimator, operator.inputs) for estimator in model.estimators_
    ]
    g = Graph(scope, container, _alias(type(model)))
    proba = _calibration.probabilities(g, fold_scores, model)
    _probability_outputs(g, operator, proba, options["nocl"])


def _probability_outputs(g: Graph, operator: Any, proba: str, nocl: bool) -> None:
    """A calibrated model's outputs: the most probable class (its index with ``nocl``)
    and the probabilities."""
    model = operator.raw_operator
    index = g.op("ArgMax", proba, axis=1, keepdims=0)
    if nocl:
        g.op("Identity", index, output=operator.outputs[0].full_name)
    else:
        classes = g.const(_scores.label_values(np.asarray(model.classes_)), "classes")
        _label_output(g, operator, g.gather(classes, index))
    g.cast(proba, _numpy_float(operator.outputs[1]), output=operator.outputs[1].full_name)


def _convert_online(scope: Any, operator: Any, container: Any) -> None:
    check_opset(container.target_opset)
    options = _options(container, operator.raw_operator)
    model = operator.raw_operator
    scores = _fold_scores(scope, model.estimator_, operator.inputs)
    g = Graph(scope, container, _alias(type(model)))
    proba = _calibration.online_probabilities(g, scores, model)
    _probability_outputs(g, operator, proba, options["nocl"])


# ---------------------------------------------------------------------- stacking
STACKED_BY_LABELS = (
    "a member stacked by its labels (stack_method 'predict') has no graph; stack it by "
    "decision_function or predict_proba (stack_method='auto')"
)


def _skl2onnx_stacks_it_wrong(model: Any) -> bool:
    """Whether skl2onnx's converter would stack this model otherwise than scikit-learn:
    two classes and a member stacked by ``decision_function`` (two columns where
    scikit-learn stacks one), or a member stacked by its labels (it stacks scores)."""
    methods = model.stack_method_
    return "predict" in methods or (len(model.classes_) == 2 and "decision_function" in methods)


def _convert_stacking(scope: Any, operator: Any, container: Any) -> None:
    """A ``StackingClassifier`` of two classes as scikit-learn stacks it: the last column
    of each member's second output (the second class's probability, or the score of
    one stacked by ``decision_function``), the input if ``passthrough``, then the final
    estimator; skl2onnx's converter for the stacks it converts right."""
    from skl2onnx.common.utils_classifier import _finalize_converter_classes
    from skl2onnx.operator_converters.stacking import _fetch_scores

    model = operator.raw_operator
    if not _skl2onnx_stacks_it_wrong(model):
        _SKL2ONNX_STACKING(scope, operator, container)
        return
    if "predict" in model.stack_method_:
        raise ValueError(f"cannot convert {type(model).__name__}: {STACKED_BY_LABELS}")
    g = Graph(scope, container, "RosenblattStacking")
    x = operator.inputs[0]
    columns = []
    for estimator, method in zip(model.estimators_, model.stack_method_):
        if estimator == "drop":
            continue
        output = _fetch_scores(
            scope, container, estimator, x, raw_scores=method == "decision_function"
        )
        last = g.op("Slice", output, *(g.axes(v) for v in (-1, np.iinfo(np.int64).max, 1)))
        columns.append(last)
    if model.passthrough:
        columns.append(x.full_name)
    stacked = scope.declare_local_variable(
        "stack_merge_proba", x.type.__class__([None, model.final_estimator_.n_features_in_])
    )
    g.op("Concat", *columns, axis=1, output=stacked.full_name)
    raw_scores = container.get_options(model, {"raw_scores": False})["raw_scores"]
    final = _fetch_scores(scope, container, model.final_estimator_, stacked, raw_scores=raw_scores)
    g.op("Identity", final, output=operator.outputs[1].full_name)
    index = g.op("ArgMax", final, axis=1)
    _finalize_converter_classes(
        scope, index, operator.outputs[0].full_name, container, model.classes_, TensorProto.DOUBLE
    )


_SKL2ONNX_STACKING: Any = None


# ---------------------------------------------------------------------- tf/df
def _tfdf_shapes(operator: Any) -> None:
    n = operator.inputs[0].get_first_dimension()
    operator.outputs[0].type = DoubleTensorType([n, operator.raw_operator.df_.shape[0]])


def _convert_tfdf(scope: Any, operator: Any, container: Any) -> None:
    """``tf / df``, then each row over its Euclidean length, in float64: scikit-learn's
    transform of the integer counts a ``CountVectorizer`` gives."""
    model = operator.raw_operator
    g = Graph(scope, container, _alias(type(model)))
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

_registered: set[type] = set()
_registering = threading.Lock()  # threads exporting at once register once


def register() -> None:
    """Register the package's estimators with skl2onnx, and the classes declared with
    :func:`~rosenblatt.persistence.onnx.register_export` (each once per process)."""
    with _registering:
        _register()


def _register() -> None:
    global _SKL2ONNX_STACKING
    if not _registered:
        # each kind of graph its shape calculator, converter, parser and options
        kinds = {
            **dict.fromkeys(
                _scores.SCORINGS,
                (_classifier_shapes, _convert_classifier, _parse_classifier, _OPTIONS),
            ),
            "calibrated": (
                _calibrated_shapes,
                _convert_calibrated,
                _parse_calibrated,
                _CALIBRATED_OPTIONS,
            ),
            "online-calibrated": (
                _calibrated_shapes,
                _convert_online,
                _parse_calibrated,
                _CALIBRATED_OPTIONS,
            ),
            "tf-df": (_tfdf_shapes, _convert_tfdf, None, None),
        }
        for record in scored_as(*_KINDS):
            cls = record.load()
            shapes, convert, parser, options = kinds[str(record.scoring)]
            update_registered_converter(
                cls, ALIASES[cls], shapes, convert, parser=parser, options=options
            )
        # skl2onnx's converter of stacks stays for every stack it converts right
        alias = get_model_alias(StackingClassifier)
        _SKL2ONNX_STACKING = get_converter(alias)
        register_converter(
            alias,
            _convert_stacking,
            overwrite=True,
            options=_SKL2ONNX_STACKING.get_allowed_options(),
        )
        _registered.add(StackingClassifier)
    for holder in set(EXPORTED_AS) - _registered:  # as the classifier each one holds
        update_registered_converter(
            holder,
            _alias(holder),
            _classifier_shapes,
            _convert_classifier,
            parser=_parse_classifier,
            options=_OPTIONS,
        )
        _registered.add(holder)
