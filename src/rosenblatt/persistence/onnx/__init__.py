"""Models as ONNX graphs, which run without Python or rosenblatt.

:func:`to_onnx` turns a fitted classifier of the package, a scikit-learn pipeline
ending in one, or a calibrated one into an ONNX model that onnxruntime (or any ONNX
runtime, in any language) runs: a portable file that loading never runs code from.
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
  ``ColumnTransformer``, ...) and the package's ``TfDfTransformer``.

The graph's outputs are ``label`` (what ``predict`` gives; for a label matrix, the
int64 indicator matrix) and ``scores`` (what ``decision_function`` gives, with its
shape), or for a calibrated model ``label`` and ``probabilities`` (``predict_proba``).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

__all__ = ["INSTALL", "OPSET", "register_converters", "to_onnx"]

INSTALL = "pip install 'rosenblatt[onnx]'"
# the opsets the graphs are written for: onnxruntime 1.15 and later runs them
OPSET = {"": 18, "ai.onnx.ml": 3}


def _require_extra() -> None:
    missing = [name for name in ("onnx", "skl2onnx") if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(f"ONNX export needs {' and '.join(missing)}: {INSTALL}")


def register_converters() -> None:
    """Register the package's estimators with skl2onnx, so that ``skl2onnx.to_onnx``
    converts pipelines holding them (:func:`to_onnx` does it by itself).

    Raises
    ------
    ImportError
        Without the ``onnx`` extra (the message says how to install it).

    Examples
    --------
    >>> import numpy as np
    >>> import skl2onnx
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from rosenblatt import Perceptron
    >>> from rosenblatt.persistence.onnx import register_converters
    >>> register_converters()
    >>> X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=np.float32)
    >>> pipe = make_pipeline(StandardScaler(), Perceptron(shuffle=False)).fit(X, [0, 1, 1, 1])
    >>> graph = skl2onnx.to_onnx(pipe, X)
    >>> [output.name for output in graph.graph.output]
    ['label', 'scores']
    """
    _require_extra()
    from ._converters import register

    register()


def to_onnx(model: Any, n_features: int | None = None, dtype: Any = np.float32) -> Any:
    """A fitted model as an ONNX graph: the same labels, scores and probabilities.

    Parameters
    ----------
    model : classifier, pipeline or calibrated classifier of the package, fitted
        A classifier of the package, a scikit-learn ``Pipeline`` ending in one, or a
        calibrated one (``rosenblatt.calibrated(...)``, or scikit-learn's
        ``CalibratedClassifierCV`` around one), as ``rosenblatt.load`` gives it back.
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
        (a 1-D tensor of strings); outputs ``label`` and ``scores``, or ``label`` and
        ``probabilities`` for a calibrated model. ``model.SerializeToString()`` is the
        file's bytes.

    Raises
    ------
    ImportError
        Without the ``onnx`` extra: ``pip install 'rosenblatt[onnx]'``.
    ValueError
        For a model or step that cannot be exported (named in the message), an
        unfitted model, or ``n_features`` other than the model's.

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
