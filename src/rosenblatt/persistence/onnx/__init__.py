"""Models as ONNX graphs, which run without Python or rosenblatt.

:func:`to_onnx` turns a fitted classifier of the package, a scikit-learn pipeline
ending in one, a calibrated one or an ensemble holding one into an ONNX model that
onnxruntime (or any ONNX runtime, in any language) runs: a portable file that loading
never runs code from.
It needs the extra ``pip install 'rosenblatt[onnx]'`` (onnx, skl2onnx; onnxruntime
to run the graphs); ``import rosenblatt`` never imports them.

What exports, and how:

- ``Perceptron`` (binary, one-vs-rest, multinomial, a label matrix's layer of
  neurons), ``AveragedPerceptron``, ``CentroidClassifier``, ``LinearProgramClassifier``:
  ``X @ coef_.T + intercept_``;
- ``VotedPerceptron``: every kept hypothesis's running score (summed update by
  update, as the compiled vote sums it), its sign and the survival-weighted vote;
- ``KernelPerceptron`` and ``Projectron`` (named and precomputed kernels; last,
  averaged and voted predictions; budgets): the kernel values against the support
  vectors in float64, then the dual coefficients or the vote of every hypothesis.
  Not through ``ai.onnx.ml.SVMClassifier``: its support vectors and coefficients are
  float32 attributes and it computes in float32, its multi-class mode votes one
  against one, and it has no voted prediction, so it would not compute the same
  function;
- ``calibrated(...)`` models (:class:`~rosenblatt.estimators.calibration.CalibratedClassifier`):
  each fold's scores through its sigmoid or isotonic map, averaged, as ``predict_proba``;
- pipelines whose other steps skl2onnx converts (scalers, ``TfidfVectorizer``,
  ``CountVectorizer``, ``PolynomialFeatures``, ``OneHotEncoder``,
  ``ColumnTransformer``, ...) and the package's ``TfDfTransformer``;
- scikit-learn's ``VotingClassifier`` (soft and hard), ``StackingClassifier`` and
  ``CalibratedClassifierCV`` (sigmoid; around a classifier or a pipeline) holding
  them, through skl2onnx's converters (``to_onnx`` refuses, saying what to do, what
  skl2onnx would convert wrong: an isotonic ``CalibratedClassifierCV``, which it
  maps by the nearest breakpoint; weights in a list; weights with a dropped member);
- a model of a layer above that holds a fitted classifier of the package
  (``rosenblatt.distributed.ParameterMixing``): its classifier's graph, once the
  class is declared with :func:`register_export`.

The graph's outputs are ``label`` (what ``predict`` gives; for a label matrix, the
int64 indicator matrix) and ``scores`` (what ``decision_function`` gives, with its
shape), or ``label`` and ``probabilities`` (``predict_proba``) for a model that has
them, or ``label`` and ``votes`` (each class's weighted share of the votes) for a
hard ``VotingClassifier``.

``skl2onnx.to_onnx`` (after :func:`register_converters`) converts the same models by
skl2onnx's conventions for classifiers instead: the second output is an
(n_samples, n_classes) tensor (a binary classifier's scores as the two columns
``[-s, s]``; probabilities of the input's float type), and the options ``zipmap``
(``True``, the default, ``False``, ``"columns"``) and ``nocl`` apply as they do to
skl2onnx's linear classifiers (``raw_scores`` too, which changes nothing: the
classifiers' scores are raw already). A target opset below ``OPSET[""]`` is refused.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["INSTALL", "OPSET", "register_converters", "register_export", "to_onnx"]

INSTALL = "pip install 'rosenblatt[onnx]'"
# the opsets the graphs are written for: onnxruntime 1.15 and later runs them; the
# converters refuse a target opset below the first
OPSET = {"": 18, "ai.onnx.ml": 3}

# classes of the layers above that export as a fitted model they hold (register_export)
EXPORTED_AS: dict[type, Callable[[Any], Any]] = {}
_converters_registered = False


def _require_extra() -> None:
    missing = [name for name in ("onnx", "skl2onnx") if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(f"ONNX export needs {' and '.join(missing)}: {INSTALL}")


def register_converters() -> None:
    """Register the package's estimators with skl2onnx, so that ``skl2onnx.to_onnx``
    converts pipelines and ensembles holding them (:func:`to_onnx` does it by itself).

    The graphs then follow skl2onnx's conventions for classifiers (see the module's
    notes): the option ``zipmap`` (``True`` by default) zips the second output into one
    map per row; ``options={"zipmap": False}`` gives the tensors. skl2onnx's converter
    of ``StackingClassifier`` is replaced for the stacks it converts wrong: two classes
    and a member stacked by ``decision_function`` (converted as scikit-learn stacks
    them), a member stacked by its labels (refused).

    Raises
    ------
    ImportError
        Without the ``onnx`` extra (the message says how to install it).

    Examples
    --------
    >>> import numpy as np
    >>> import onnxruntime as ort
    >>> import skl2onnx
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from rosenblatt import Perceptron
    >>> from rosenblatt.persistence.onnx import register_converters
    >>> register_converters()
    >>> X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=np.float32)
    >>> pipe = make_pipeline(StandardScaler(), Perceptron(shuffle=False)).fit(X, [0, 1, 1, 1])
    >>> [output.name for output in skl2onnx.to_onnx(pipe, X).graph.output]
    ['output_label', 'output_probability']
    >>> graph = skl2onnx.to_onnx(pipe, X, options={"zipmap": False})
    >>> label, scores = ort.InferenceSession(graph.SerializeToString()).run(None, {"X": X})
    >>> label.tolist(), scores.tolist()  # a binary classifier's score s as [-s, s]
    ([0, 1, 1, 1], [[1.0, -1.0], [-1.0, 1.0], [-1.0, 1.0], [-3.0, 3.0]])
    """
    global _converters_registered
    _require_extra()
    from ._converters import register

    register()
    _converters_registered = True


def register_export(cls: type, fitted_model: Callable[[Any], Any]) -> None:
    """Declare that a fitted ``cls`` exports as the model ``fitted_model(instance)``
    gives: a class of a layer above this one (which it cannot import) that holds a
    fitted classifier of the package, as ``ParameterMixing`` holds its ``estimator_``.

    :func:`to_onnx` then converts an instance (checked fitted first) as that model, and
    skl2onnx converts it inside pipelines and ensembles once the converters are
    registered (:func:`register_converters`, before or after this call).

    Parameters
    ----------
    cls : type
        The class, a scikit-learn classifier (exactly this class, not its subclasses).
    fitted_model : callable
        Takes a fitted instance, returns the classifier of the package it predicts with.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator, ClassifierMixin
    >>> from rosenblatt import Perceptron, to_onnx
    >>> from rosenblatt.persistence.onnx import register_export
    >>> class Holder(ClassifierMixin, BaseEstimator):
    ...     def fit(self, X, y):
    ...         self.estimator_ = Perceptron(shuffle=False).fit(X, y)
    ...         self.classes_ = self.estimator_.classes_
    ...         return self
    >>> register_export(Holder, lambda holder: holder.estimator_)
    >>> X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=np.float32)
    >>> [output.name for output in to_onnx(Holder().fit(X, [0, 1, 1, 1])).graph.output]
    ['label', 'scores']
    """
    EXPORTED_AS[cls] = fitted_model
    if _converters_registered:  # skl2onnx has the others already: this one too
        register_converters()


def to_onnx(model: Any, n_features: int | None = None, dtype: Any = np.float32) -> Any:
    """A fitted model as an ONNX graph: the same labels, scores and probabilities.

    Parameters
    ----------
    model : classifier, pipeline, calibrated classifier or ensemble, fitted
        A classifier of the package, a scikit-learn ``Pipeline`` ending in one, a
        calibrated one (``rosenblatt.calibrated(...)``, or scikit-learn's
        ``CalibratedClassifierCV`` around one or a pipeline ending in one), as
        ``rosenblatt.load`` gives it back; or a scikit-learn ``VotingClassifier`` or
        ``StackingClassifier`` holding one (alone or ending a pipeline); or a
        ``ParameterMixing`` (its mixed classifier).
    n_features : int or None, default=None
        Width of the input rows; None: the model's ``n_features_in_``. Not for a
        pipeline that starts with a text vectorizer, whose input is one string per row.
    dtype : {numpy.float32, numpy.float64}, default=numpy.float32
        Type of the input rows and of the float outputs. The graph computes in the
        precision the model computes in (float64 for a model trained on float64
        data), so its labels are the model's on rows of this type.

    Returns
    -------
    onnx.ModelProto
        One input, ``X`` (rows of ``n_features`` numbers of ``dtype``) or ``text``
        (a 1-D tensor of strings); outputs ``label`` and ``scores``
        (``decision_function``, with its shape), or ``label`` and ``probabilities``
        for a model with ``predict_proba`` (a calibrated one, a soft vote, a stack
        whose final estimator has them), or ``label`` and ``votes`` for a hard
        ``VotingClassifier`` (each class's share of the weighted votes).
        ``model.SerializeToString()`` is the file's bytes.

    Raises
    ------
    ImportError
        Without the ``onnx`` extra: ``pip install 'rosenblatt[onnx]'``.
    ValueError
        For a model or step that cannot be exported (named in the message, with what
        to do), an unfitted model, or ``n_features`` other than the model's.

    Notes
    -----
    Text: the tf-idf steps run onnxruntime's ``StringNormalizer``, which needs a
    locale; the graph asks for the "C" locale, present on every machine (the
    default en_US is missing on many servers). It lowercases ASCII letters only:
    a capital outside ASCII (say "É") stays a capital, and the word is then not
    the vocabulary's. The default token pattern is written with Unicode classes,
    so words with letters outside ASCII are found as scikit-learn finds them.

    Examples
    --------
    >>> import numpy as np
    >>> import onnxruntime as ort
    >>> from rosenblatt import Perceptron, to_onnx
    >>> X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=np.float32)
    >>> clf = Perceptron(shuffle=False).fit(X, [-1, 1, 1, 1])
    >>> graph = to_onnx(clf)
    >>> session = ort.InferenceSession(graph.SerializeToString())
    >>> label, scores = session.run(None, {"X": X})
    >>> label.tolist(), scores.tolist()
    ([-1, 1, 1, 1], [-1.0, 1.0, 1.0, 3.0])
    """
    _require_extra()
    from ._export import export

    register_converters()
    return export(model, n_features, dtype)
