"""What a valid fitted model is: the invariants of every class a model file may hold.

A model file is a trust boundary. Its checksums catch damage, and its decoder builds
only allow-listed values, but a crafted file can still give a class values that do
not agree with each other (weights narrower than the features, a training state of
another kind, class indices past the end of an array) and the compiled loops trust
the shapes they are given. So every class that :func:`rosenblatt.load` can build
declares here what its fitted state must satisfy: shapes that agree with each other
and with ``n_features_in_`` and ``classes_``, dtypes, finite values, index ranges,
sorted breakpoints, flags that match the arrays, and, where the public attributes are
read off a training state of the engine, that they are exactly what the state gives.

The checks run on the decoded file (:class:`Plain`), before any estimator is built, so
no estimator method, numpy broadcast or compiled loop sees a value that breaks them;
the command line's numpy-only predictor runs the very same checks. A violation is a
:class:`BrokenInvariant` naming the class, the attribute and what is wrong, which the
loader reports as a :class:`~rosenblatt.exceptions.ModelFileError`.

This module imports numpy alone (scipy only to check a sparse matrix), so that
reading a model for prediction imports neither scikit-learn nor numba.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, field
from typing import NoReturn

import numpy as np

__all__ = [
    "BIT_GENERATORS",
    "FITTED",
    "INVARIANTS",
    "PARAMETERS",
    "BrokenInvariant",
    "Plain",
    "check_model",
    "check_random_state",
    "check_state",
    "checked_csr",
    "is_sparse",
    "output_width",
]

_MAX_INDEX = 2**31 - 1


class BrokenInvariant(ValueError):
    """A value of a model that breaks an invariant its class declares."""


@dataclass
class Plain:
    """An estimator as a model file describes it, decoded but not built.

    Attributes
    ----------
    key : str
        The class, as ``rosenblatt.persistence.REGISTRY`` names it.
    params : dict
        Constructor parameters (nested estimators are :class:`Plain` too).
    fitted : dict
        Fitted attributes (names ending in ``_``).
    properties : dict
        Fitted properties set through a setter (``TfidfVectorizer.idf_``).
    """

    key: str
    params: dict
    fitted: dict
    properties: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.key.rpartition(".")[2]


def is_sparse(value) -> bool:
    """A scipy sparse matrix or array, without importing scipy (none exists before it is)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(value)


def checked_csr(data, indices, indptr, shape):
    """A CSR matrix from parts read from outside, after the full format check.

    Every index in range, row pointers in order and consistent with the parts'
    lengths, numbers finite: the compiled loops and scipy index by them without
    checking. The index arrays keep their saved integer types (scipy may narrow them).

    Raises
    ------
    ValueError
        Naming what does not fit.
    """
    import scipy.sparse as sp

    parts = [np.asarray(part) for part in (data, indices, indptr)]
    if not all(part.ndim == 1 for part in parts):
        raise ValueError("a sparse matrix whose parts are not 1-d arrays")
    data, indices, indptr = parts
    if not (
        isinstance(shape, (tuple, list))
        and len(shape) == 2
        and all(
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) and 0 <= n <= _MAX_INDEX
            for n in shape
        )
    ):
        raise ValueError(
            f"a sparse matrix of shape {shape!r:.80}: a shape must be two ints from 0 "
            f"to {_MAX_INDEX}"
        )
    shape = tuple(int(n) for n in shape)
    if indices.dtype.kind not in "iu" or indptr.dtype.kind not in "iu":
        raise ValueError("a sparse matrix whose indices are not integers")
    if data.dtype.kind not in "biuf":
        raise ValueError(f"a sparse matrix of {data.dtype} values")
    if data.dtype.kind == "f" and not np.all(np.isfinite(data)):
        raise ValueError("a sparse matrix with values that are not finite")
    if len(indptr) != shape[0] + 1 or len(indices) != len(data):
        raise ValueError(
            f"a sparse matrix of shape {shape} with {len(indptr)} row pointers (not "
            f"{shape[0] + 1}), {len(indices)} column indices and {len(data)} values"
        )
    if len(indptr) and (indptr[0] != 0 or indptr[-1] != len(indices)):
        raise ValueError("a sparse matrix whose row pointers do not span its indices")
    csr = sp.csr_matrix((data, indices, indptr), shape=shape)
    csr.check_format(full_check=True)  # indices in range: compiled loops trust them
    if csr.indices.dtype != indices.dtype or csr.indptr.dtype != indptr.dtype:
        csr.indices, csr.indptr = indices, indptr  # scipy narrowed them: keep the saved
    return csr


def _is_index(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_column_selector(value) -> bool:
    """A column selector a model file may hold: a column name or index, or a list (or
    tuple) of names or of indices; never a callable, a slice or a mask."""
    items = value if isinstance(value, (list, tuple)) else [value]
    return all(isinstance(v, str) for v in items) or all(_is_index(v) for v in items)


def column_indices(selector, n_features, names=None) -> list:
    """The indices of the input columns ``selector`` picks (see :func:`is_column_selector`).

    Raises
    ------
    ValueError
        If it is no such selector, names a column that ``names`` (the fitted
        ``feature_names_in_``, or None) does not hold, or an index past ``n_features``.
    """
    if not is_column_selector(selector):
        raise ValueError("must select columns by name or index (a str, an int or a list)")
    items = selector if isinstance(selector, (list, tuple)) else [selector]
    if items and isinstance(items[0], str):
        if names is None:
            raise ValueError("selects columns by name, but the model has no feature_names_in_")
        position = {name: k for k, name in enumerate(names)}
        unknown = [name for name in items if name not in position]
        if unknown:
            raise ValueError(f"selects columns the input does not have: {unknown!r:.80}")
        return [position[name] for name in items]
    beyond = [int(k) for k in items if not -n_features <= k < n_features]
    if beyond:
        raise ValueError(f"selects columns {beyond!r:.80} beyond the {n_features} of the input")
    return [int(k) % n_features for k in items]


# ---------------------------------------------------------------------- what a file may name
_LINEAR_PARAMETERS = (
    "class_weight early_stopping eta fit_intercept intercept_scaling max_iter multi_class "
    "n_iter_no_change n_jobs on_epoch random_state shuffle tol validation_fraction verbose "
    "warm_start"
)
_COUNT_PARAMETERS = (
    "analyzer binary decode_error dtype encoding input lowercase max_df max_features min_df "
    "ngram_range preprocessor stop_words strip_accents token_pattern tokenizer vocabulary"
)
_IDF_PARAMETERS = "norm smooth_idf sublinear_tf use_idf"
# The constructor parameters of each class, as this rosenblatt and the scikit-learn it
# supports name them: a file naming another is refused before anything is built, by
# load() and by the command line's predictor alike (tests/test_invariants.py checks
# these against the installed signatures).
PARAMETERS = {
    key: frozenset(names.split())
    for key, names in {
        "rosenblatt.linear.Perceptron": _LINEAR_PARAMETERS + " mode",
        "rosenblatt.linear.AveragedPerceptron": _LINEAR_PARAMETERS,
        "rosenblatt.linear.VotedPerceptron": _LINEAR_PARAMETERS,
        "rosenblatt.kernel.KernelPerceptron": (
            "cache_size class_weight coef0 degree eta fit_intercept gamma intercept_scaling "
            "kernel kernel_params max_iter n_iter_no_change on_epoch prediction random_state "
            "shuffle tol warm_start"
        ),
        "rosenblatt.baselines.CentroidClassifier": "multi_class",
        "rosenblatt.baselines.LinearProgramClassifier": "fit_intercept",
        "rosenblatt.calibration.CalibratedClassifier": "cv ensemble estimator method n_jobs",
        "rosenblatt.text.TfDfTransformer": "norm",
        "sklearn.pipeline.Pipeline": "memory steps transform_input verbose",
        "sklearn.feature_extraction.text.CountVectorizer": _COUNT_PARAMETERS,
        "sklearn.feature_extraction.text.TfidfVectorizer": (
            _COUNT_PARAMETERS + " " + _IDF_PARAMETERS
        ),
        "sklearn.feature_extraction.text.TfidfTransformer": _IDF_PARAMETERS,
        "sklearn.feature_extraction.text.HashingVectorizer": (
            "alternate_sign analyzer binary decode_error dtype encoding input lowercase "
            "n_features ngram_range norm preprocessor stop_words strip_accents token_pattern "
            "tokenizer"
        ),
        "sklearn.preprocessing.StandardScaler": "copy with_mean with_std",
        "sklearn.preprocessing.MinMaxScaler": "clip copy feature_range",
        "sklearn.preprocessing.MaxAbsScaler": "clip copy",
        "sklearn.preprocessing.Normalizer": "copy norm",
        "sklearn.preprocessing.RobustScaler": (
            "copy quantile_range unit_variance with_centering with_scaling"
        ),
        "sklearn.preprocessing.PolynomialFeatures": "degree include_bias interaction_only order",
        "sklearn.preprocessing.OneHotEncoder": (
            "categories drop dtype feature_name_combiner handle_unknown max_categories "
            "min_frequency sparse_output"
        ),
        "sklearn.preprocessing.FunctionTransformer": (
            "accept_sparse check_inverse feature_names_out func inv_kw_args inverse_func "
            "kw_args validate"
        ),
        "sklearn.impute.SimpleImputer": (
            "add_indicator copy fill_value keep_empty_features missing_values strategy"
        ),
        "sklearn.decomposition.PCA": (
            "copy iterated_power n_components n_oversamples power_iteration_normalizer "
            "random_state svd_solver tol whiten"
        ),
        "sklearn.decomposition.TruncatedSVD": (
            "algorithm n_components n_iter n_oversamples power_iteration_normalizer "
            "random_state tol"
        ),
        "sklearn.compose.ColumnTransformer": (
            "n_jobs remainder sparse_threshold transformer_weights transformers verbose "
            "verbose_feature_names_out"
        ),
        "sklearn.pipeline.FeatureUnion": (
            "n_jobs transformer_list transformer_weights verbose verbose_feature_names_out"
        ),
    }.items()
}

_EPOCHS = "n_iter_ n_mistakes_ mistakes_per_epoch_ converged_"
_INPUT = "n_features_in_ feature_names_in_"
_COMPONENTS = "components_ explained_variance_ explained_variance_ratio_ singular_values_"
_LINEAR_FITTED = f"{_INPUT} classes_ intercept_scaling_ training_state_ coef_ intercept_ {_EPOCHS}"
# The fitted attributes each class may have (those it sets in fit; a fitted model has
# all that its invariants require): any other name is refused, as above.
FITTED = {
    key: frozenset(names.split())
    for key, names in {
        "rosenblatt.linear.Perceptron": _LINEAR_FITTED,
        "rosenblatt.linear.AveragedPerceptron": _LINEAR_FITTED,
        "rosenblatt.linear.VotedPerceptron": _LINEAR_FITTED + " n_vectors_",
        "rosenblatt.kernel.KernelPerceptron": (
            f"{_INPUT} classes_ gamma_ training_state_ support_ support_vectors_ dual_coef_ "
            "intercept_ n_presented_ update_support_ update_coef_ update_time_ update_ptr_ "
            + _EPOCHS
        ),
        "rosenblatt.baselines.CentroidClassifier": f"{_INPUT} classes_ centroids_ coef_ intercept_",
        "rosenblatt.baselines.LinearProgramClassifier": (
            f"{_INPUT} classes_ coef_ intercept_ total_slack_ separable_"
        ),
        "rosenblatt.calibration.CalibratedClassifier": (
            f"{_INPUT} classes_ estimators_ calibrators_"
        ),
        "rosenblatt.text.TfDfTransformer": f"{_INPUT} df_",
        "sklearn.pipeline.Pipeline": "",
        "sklearn.feature_extraction.text.CountVectorizer": "vocabulary_ fixed_vocabulary_",
        "sklearn.feature_extraction.text.TfidfVectorizer": "vocabulary_ fixed_vocabulary_ idf_",
        "sklearn.feature_extraction.text.TfidfTransformer": f"{_INPUT} idf_",
        "sklearn.feature_extraction.text.HashingVectorizer": "",
        "sklearn.preprocessing.StandardScaler": f"{_INPUT} n_samples_seen_ mean_ var_ scale_",
        "sklearn.preprocessing.MinMaxScaler": (
            f"{_INPUT} n_samples_seen_ scale_ min_ data_min_ data_max_ data_range_"
        ),
        "sklearn.preprocessing.MaxAbsScaler": f"{_INPUT} n_samples_seen_ max_abs_ scale_",
        "sklearn.preprocessing.Normalizer": _INPUT,
        "sklearn.preprocessing.RobustScaler": f"{_INPUT} center_ scale_",
        "sklearn.preprocessing.PolynomialFeatures": f"{_INPUT} n_output_features_",
        "sklearn.preprocessing.OneHotEncoder": f"{_INPUT} categories_ drop_idx_",
        "sklearn.preprocessing.FunctionTransformer": _INPUT,
        "sklearn.impute.SimpleImputer": f"{_INPUT} statistics_ indicator_",
        "sklearn.decomposition.PCA": (
            f"{_INPUT} {_COMPONENTS} mean_ n_components_ n_samples_ noise_variance_"
        ),
        "sklearn.decomposition.TruncatedSVD": f"{_INPUT} {_COMPONENTS}",
        "sklearn.compose.ColumnTransformer": (
            f"{_INPUT} transformers_ sparse_output_ output_indices_"
        ),
        "sklearn.pipeline.FeatureUnion": "",  # its transformers hold the fitted state
    }.items()
}


# ---------------------------------------------------------------------- vocabulary
class _Checker:
    """The fitted values of one model under check, and the words of the checks; every
    failure names the class and the attribute."""

    def __init__(self, model: Plain):
        self.model = model
        self.values = {**model.fitted, **model.properties}

    def fail(self, name, what) -> NoReturn:
        raise BrokenInvariant(f"{self.model.name}.{name} {what}")

    def param(self, name, default=None):
        return self.model.params.get(name, default)

    def fitted(self, *required) -> bool:
        """Whether the model is fitted: all of ``required`` present (True) or none of the
        fitted attributes at all (False, an unfitted model); anything between fails."""
        if not self.values:
            return False
        for name in required:
            if name not in self.values:
                self.fail(name, "is missing, though the model holds other fitted attributes")
        return True

    def array(
        self,
        name,
        *,
        value=None,
        ndim=None,
        shape=None,
        kinds="f",
        finite=True,
        missing=False,
        low=None,
        positive=False,
        increasing=False,
    ):
        """The array ``name`` (or ``value``), checked: dimensions, shape (None entries
        free), dtype kinds, finite (``missing``: NaN allowed, as the mark of a missing
        value, infinities never), ``>= low``, ``> 0``, non-decreasing (NaN ignored)."""
        array = self.values.get(name) if value is None else value
        if not isinstance(array, np.ndarray):
            self.fail(name, f"must be an array; it is a {type(array).__name__}")
        if array.dtype.kind not in kinds:
            self.fail(name, f"must be an array of kind {kinds!r}; it is {array.dtype}")
        if ndim is not None and array.ndim != ndim:
            self.fail(name, f"must have {ndim} dimension(s); it has shape {array.shape}")
        if shape is not None and (
            array.ndim != len(shape)
            or any(want is not None and have != want for have, want in zip(array.shape, shape))
        ):
            wanted = tuple("any" if n is None else n for n in shape)
            self.fail(name, f"must have shape {wanted}; it has shape {array.shape}")
        if array.dtype.kind in "fiu" and array.size:
            if missing and array.dtype.kind == "f":
                if np.any(np.isinf(array)):
                    self.fail(name, "holds infinite values")
                present = array[~np.isnan(array)]
            else:
                present = array
                if finite and array.dtype.kind == "f" and not np.all(np.isfinite(array)):
                    self.fail(name, "holds values that are not finite (NaN or infinity)")
            if low is not None and present.size and np.min(present) < low:
                self.fail(name, f"holds values below {low}")
            if positive and present.size and np.min(present) <= 0:
                self.fail(name, "holds values that are not positive")
            if increasing and np.any(np.diff(present) < 0):
                self.fail(name, "is not sorted in increasing order")
        return array

    def integer(self, name, low=0, high=_MAX_INDEX, *, value=None) -> int:
        value = self.values.get(name) if value is None else value
        if (
            not isinstance(value, (int, np.integer))
            or isinstance(value, (bool, np.bool_))
            or not low <= value <= high
        ):
            self.fail(name, f"must be an int from {low} to {high}; it is {value!r:.40}")
        return int(value)

    def number(self, name, *, nonzero=False) -> float:
        value = self.values.get(name)
        if (
            not isinstance(value, (int, float, np.integer, np.floating))
            or isinstance(value, (bool, np.bool_))
            or not math.isfinite(value)
            or (nonzero and value == 0)
        ):
            kind = "a finite non-zero number" if nonzero else "a finite number"
            self.fail(name, f"must be {kind}; it is {value!r:.40}")
        return float(value)

    def boolean(self, name) -> bool:
        value = self.values.get(name)
        if not isinstance(value, (bool, np.bool_)):
            self.fail(name, f"must be True or False; it is {value!r:.40}")
        return bool(value)

    def counts(self, name):
        """A list of ints >= 0 (epoch records)."""
        value = self.values.get(name)
        if not isinstance(value, list) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0 for v in value
        ):
            self.fail(name, "must be a list of counts (ints >= 0)")
        return value

    def classes(self, name="classes_"):
        """Class labels: 1-D, at least two, sorted and distinct (as ``np.unique`` gives)."""
        classes = self.labels(name)
        if classes.shape[0] < 2:
            self.fail(name, f"must hold at least two classes; it holds {classes.shape[0]}")
        return classes

    def labels(self, name, *, value=None, missing=False):
        """Distinct labels in sorted order, as ``np.unique`` gives them: numbers or str
        (``missing``: a float NaN may come last, where ``np.unique`` puts it)."""
        labels = self.array(name, value=value, ndim=1, kinds="biufUO", missing=missing)
        if labels.dtype.kind == "O" and not all(isinstance(v, str) for v in labels):
            self.fail(name, "holds objects that are not str")
        present = labels
        if missing and labels.dtype.kind == "f" and labels.size:
            if np.any(np.isnan(labels[:-1])):
                self.fail(name, "holds NaN elsewhere than last")
            present = labels[:-1] if np.isnan(labels[-1]) else labels
        if not np.all(present[1:] > present[:-1]):
            self.fail(name, "must hold distinct labels in sorted order")
        return labels

    def n_features(self) -> int:
        """``n_features_in_``, and ``feature_names_in_`` (if any) of that length."""
        n = self.integer("n_features_in_", 1)
        if self.values.get("feature_names_in_") is not None:
            names = self.array("feature_names_in_", shape=(n,), kinds="O")
            if not all(isinstance(v, str) for v in names):
                self.fail("feature_names_in_", "holds objects that are not str")
            if len(set(names)) != n:
                self.fail("feature_names_in_", "holds a name twice")
        return n

    def same(self, name, expected):
        """The attribute is exactly ``expected`` (the value its training state gives)."""
        value = self.values.get(name)
        if isinstance(expected, np.ndarray):
            agrees = (
                isinstance(value, np.ndarray)
                and value.dtype == expected.dtype
                and value.shape == expected.shape
                and np.array_equal(value, expected, equal_nan=False)
            )
        else:
            agrees = type(value) is type(expected) and value == expected
        if not agrees:
            self.fail(name, "differs from what the model's training state gives")

    def estimator(self, value, name, keys=None, role="a classifier of rosenblatt or a pipeline"):
        """A nested estimator, of one of the classes ``keys`` (its ``role`` in words)."""
        if not isinstance(value, Plain) or (keys is not None and value.key not in keys):
            what = "an estimator" if keys is None else role
            self.fail(name, f"must be {what}; it is {_what(value)}")
        return value

    def columns(self, name, selector, n_features, names=None) -> list:
        """The input columns a column selector picks, as indices: a column name (of
        ``feature_names_in_``) or index, or a list of names or of indices."""
        try:
            return column_indices(selector, n_features, names)
        except ValueError as exc:
            self.fail(name, str(exc))

    def part(self, value, name):
        """A container's transformer: one rosenblatt stores, or a pipeline of them."""
        self.estimator(value, name, _PARTS, "a transformer rosenblatt stores")
        if value.key == _PIPELINE and _final(value).key not in _TRANSFORMERS:
            self.fail(name, "must be a pipeline of transformers, without a classifier")
        return value


def _what(value) -> str:
    """What a value is, for messages (a class name, never a repr)."""
    return value.name if isinstance(value, Plain) else f"a {type(value).__name__}"


def _rows_for(n_classes, multinomial=False):
    """One neuron for two classes (unless multinomial), else one per class."""
    return n_classes if (multinomial or n_classes > 2) else 1


# ---------------------------------------------------------------------- classifiers
_EPOCH_RECORD = ("n_iter_", "n_mistakes_", "mistakes_per_epoch_", "converged_")


def _epoch_record(c):
    c.integer("n_iter_")
    c.integer("n_mistakes_", high=2**63 - 1)
    c.counts("mistakes_per_epoch_")
    c.boolean("converged_")


def _linear_perceptron(c, *, averaged, voted):
    # intercept_scaling_ may be missing: files written before it existed use the parameter
    required = ("classes_", "n_features_in_", "training_state_", "coef_", "intercept_")
    required += _EPOCH_RECORD
    if not c.fitted(*required, *(("n_vectors_",) if voted else ())):
        return
    from ..engine.primal import PrimalState, constant_input

    classes = c.classes()
    n_features = c.n_features()
    state = c.values["training_state_"]
    if type(state) is not PrimalState:
        c.fail("training_state_", f"must be a PrimalState; it is a {type(state).__name__}")
    multinomial = c.param("multi_class") == "multinomial"
    if state.multinomial != multinomial:
        c.fail("training_state_", f"is {'not ' * multinomial}multinomial, unlike multi_class")
    rows = _rows_for(classes.shape[0], multinomial)
    if state.n_rows != rows or state.n_features != n_features:
        c.fail(
            "training_state_",
            f"has {state.n_rows} rows of {state.n_features} features; {classes.shape[0]} "
            f"classes of {n_features} features need {rows} rows",
        )
    if state.averaged != averaged or (state.votes is not None) != voted:
        c.fail("training_state_", "is not the state of this kind of perceptron")
    if "intercept_scaling_" in c.values:
        scaling = c.number("intercept_scaling_", nonzero=True)
    else:
        scaling = c.param("intercept_scaling")
        if isinstance(scaling, bool) or not isinstance(scaling, (int, float)):
            c.fail("intercept_scaling_", "is missing and intercept_scaling is not a number")
        scaling = float(scaling)
        if not math.isfinite(scaling) or scaling == 0:
            c.fail("intercept_scaling", "must be a finite non-zero number")
    fit_intercept = c.param("fit_intercept")
    if not isinstance(fit_intercept, bool):
        c.fail("fit_intercept", "must be True or False")
    coef, intercept = state.public_weights(averaged, constant_input(fit_intercept, scaling))
    c.same("coef_", coef)
    c.same("intercept_", intercept)
    _epoch_record(c)
    if voted:
        c.same("n_vectors_", state.votes.n_vectors())
        if state.votes.bias_input != constant_input(fit_intercept, scaling):
            c.fail("training_state_", "votes with another constant input than the model's")


def _kernel_perceptron(c):
    required = (
        "classes_",
        "n_features_in_",
        "training_state_",
        "gamma_",
        "support_",
        "support_vectors_",
        "dual_coef_",
        "intercept_",
        "n_presented_",
        "update_support_",
        "update_coef_",
        "update_time_",
        "update_ptr_",
        *_EPOCH_RECORD,
    )
    if not c.fitted(*required):
        return
    from ..engine.dual import DualState
    from ..engine.primal import constant_input

    classes = c.classes()
    n_features = c.n_features()
    state = c.values["training_state_"]
    if type(state) is not DualState:
        c.fail("training_state_", f"must be a DualState; it is a {type(state).__name__}")
    problems = _rows_for(classes.shape[0])
    if state.n_units != problems:
        c.fail("training_state_", f"has {state.n_units} problems; {classes.shape[0]} classes")
    _kernel_parameters(c)
    prediction = c.param("prediction")
    fit_intercept = c.param("fit_intercept")
    if prediction not in ("last", "averaged", "voted") or not isinstance(fit_intercept, bool):
        c.fail("prediction", "or fit_intercept is not one of the values the class takes")
    scaling = c.param("intercept_scaling")
    if fit_intercept and (not isinstance(scaling, (int, float)) or not math.isfinite(scaling)):
        c.fail("intercept_scaling", "must be a finite number")
    s2 = constant_input(fit_intercept, scaling) ** 2
    slots, derived = state.fitted(prediction == "averaged", s2)
    if np.any(derived["update_support_"] < 0):
        c.fail("training_state_", "records updates on samples that are not support vectors")
    for name, value in derived.items():
        c.same(name, value)
    support = derived["support_"]
    vectors = c.values["support_vectors_"]
    if c.param("kernel") == "precomputed":
        c.array("support_vectors_", shape=(0, 0))
        if support.size and support.max() >= n_features:
            c.fail("support_", f"indexes kernel columns beyond the {n_features} training samples")
    elif is_sparse(vectors):
        if vectors.format != "csr" or vectors.shape != (support.shape[0], n_features):
            c.fail("support_vectors_", f"must be CSR of shape ({support.shape[0]}, {n_features})")
        if not vectors.has_canonical_format:  # as fit keeps them: sorted, no duplicates
            c.fail("support_vectors_", "must have sorted column indices, each once per row")
        c.array("support_vectors_", value=vectors.data)
    else:
        c.array("support_vectors_", shape=(support.shape[0], n_features))
    _epoch_record(c)


def _kernel_parameters(c):
    """The class's own parameter constraints (prediction computes the kernel from them),
    a named kernel (a file holds no code), and ``gamma_`` a float exactly where it has one."""
    from ..estimators.kernel import KERNEL_PARAMS, KernelPerceptron
    from .validation import check_args

    constraints = KernelPerceptron._parameter_constraints
    params = {name: value for name, value in c.model.params.items() if name in constraints}
    try:
        check_args("KernelPerceptron", {n: constraints[n] for n in params}, params, "parameter")
    except ValueError as exc:
        raise BrokenInvariant(str(exc)) from None
    kernel = c.param("kernel", "rbf")
    if not isinstance(kernel, str):
        c.fail("kernel", "must name a kernel: a model file holds no functions")
    gamma = c.values["gamma_"]
    if "gamma" in KERNEL_PARAMS[kernel]:
        if not isinstance(gamma, (float, np.floating)) or not math.isfinite(gamma):
            c.fail("gamma_", f"must be the finite float gamma of the {kernel} kernel")
    elif gamma is not None:
        c.fail("gamma_", f"must be None: the {kernel} kernel has no gamma")


def _one_vs_rest_linear(c, rows):
    """``coef_`` (rows, n_features) and ``intercept_`` (rows,), finite floats."""
    n_features = c.n_features()
    c.array("coef_", shape=(rows, n_features))
    c.array("intercept_", shape=(rows,))


def _centroid(c):
    if not c.fitted("classes_", "n_features_in_", "centroids_", "coef_", "intercept_"):
        return
    classes = c.classes()
    n_features = c.n_features()
    centroids = c.array("centroids_", shape=(classes.shape[0], n_features))
    nearest = c.param("multi_class") == "nearest" and classes.shape[0] > 2
    _one_vs_rest_linear(c, classes.shape[0] if nearest else _rows_for(classes.shape[0]))
    if nearest:  # the nearest class mean, written as linear scores
        c.same("coef_", centroids.copy())
        c.same("intercept_", -0.5 * np.einsum("kj,kj->k", centroids, centroids))


def _linear_program(c):
    required = ("classes_", "n_features_in_", "coef_", "intercept_", "total_slack_")
    if not c.fitted(*required, "separable_"):
        return
    rows = _rows_for(c.classes().shape[0])
    _one_vs_rest_linear(c, rows)
    c.array("total_slack_", shape=(rows,), low=0.0)
    c.boolean("separable_")


# (the roles of the classes, _FINAL_STEPS and _CLASSIFIERS, are set with INVARIANTS below)


def _calibrated(c):
    if not c.fitted("classes_", "estimators_", "calibrators_"):
        return
    classes = c.classes()
    # documents in (a text pipeline calibrated) have no feature count
    n_features = c.n_features() if "n_features_in_" in c.values else None
    folds, maps = c.values["estimators_"], c.values["calibrators_"]
    if not isinstance(folds, list) or not folds:
        c.fail("estimators_", "must be a non-empty list of fitted classifiers")
    if not isinstance(maps, list) or len(maps) != len(folds):
        c.fail("calibrators_", f"must hold one list of maps per fold ({len(folds)})")
    method = c.param("method")
    if "estimator" in c.model.params and c.param("estimator") is not None:
        c.estimator(c.param("estimator"), "estimator", _CLASSIFIERS)
    for k, (fold, fold_maps) in enumerate(zip(folds, maps)):
        where = f"estimators_[{k}]"
        fold = c.estimator(fold, where, _CLASSIFIERS)
        fold_classes = _final(fold).fitted.get("classes_")
        if not isinstance(fold_classes, np.ndarray) or not np.isin(fold_classes, classes).all():
            c.fail(where, "is not fitted on the model's classes")
        if n_features is not None and output_width(fold, inputs=True) != n_features:
            c.fail(where, f"does not take the model's {n_features} features")
        expected = 1 if classes.shape[0] == 2 else fold_classes.shape[0]
        if not isinstance(fold_maps, list) or len(fold_maps) != expected:
            c.fail(f"calibrators_[{k}]", f"must hold {expected} calibration map(s)")
        for j, mapping in enumerate(fold_maps):
            _calibration_map(c, f"calibrators_[{k}][{j}]", mapping, method)


def _calibration_map(c, name, mapping, method):
    if method == "sigmoid" and isinstance(mapping, dict) and set(mapping) == {"a", "b"}:
        for part in ("a", "b"):
            value = mapping[part]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                c.fail(f"{name}[{part!r}]", "must be a number")
            if not math.isfinite(value):
                c.fail(f"{name}[{part!r}]", "must be finite")
        return
    if method == "isotonic" and isinstance(mapping, dict) and set(mapping) == {"x", "y"}:
        x = c.array(f"{name}['x']", value=mapping["x"], ndim=1, increasing=True)
        c.array(f"{name}['y']", value=mapping["y"], shape=(max(x.shape[0], 1),), low=0.0)
        if mapping["y"].max() > 1.0:
            c.fail(f"{name}['y']", "holds probabilities above 1")
        return
    wanted = "{'a', 'b'} (sigmoid)" if method == "sigmoid" else "{'x', 'y'} (isotonic)"
    c.fail(name, f"must be a calibration map {wanted} for method={method!r}")


# ---------------------------------------------------------------------- scikit-learn steps
def _per_feature(c, *names, positive=(), optional=()):
    """Scaler statistics: one finite value per feature (None allowed for the ``optional``
    ones, where a parameter turned that part off)."""
    if not c.fitted("n_features_in_", *names):
        return None
    n = c.n_features()
    for name in names:
        if c.values[name] is not None or name not in optional:
            c.array(name, shape=(n,), positive=name in positive)
    return n


def _flags(c, *names):
    """Parameters that must be True or False where the file gives them."""
    for name in names:
        if name in c.model.params and not isinstance(c.param(name), bool):
            c.fail(name, "must be True or False")


def _standard_scaler(c):
    _flags(c, "with_mean", "with_std", "copy")
    with_mean, with_std = c.param("with_mean", True), c.param("with_std", True)
    # as scikit-learn fits it: no variance or scale without std, no mean without either
    optional = ("scale_", "var_") * (not with_std) + ("mean_",) * (not (with_mean or with_std))
    n = _per_feature(c, "mean_", "var_", "scale_", positive=("scale_",), optional=optional)
    if n is None:
        return
    if isinstance(c.values.get("n_samples_seen_"), np.ndarray):  # per feature, with NaNs
        c.array("n_samples_seen_", shape=(n,), kinds="iuf", low=0)
    elif "n_samples_seen_" in c.values:  # a count, or a sum of sample weights
        c.number("n_samples_seen_")


def _min_max_scaler(c):
    _flags(c, "clip", "copy")
    bounds = c.param("feature_range", (0, 1))
    if not (
        isinstance(bounds, (tuple, list))
        and len(bounds) == 2
        and all(type(v) in (int, float) and math.isfinite(v) for v in bounds)
        and bounds[0] < bounds[1]
    ):
        c.fail("feature_range", "must be two finite numbers (low, high) with low < high")
    _per_feature(c, "min_", "scale_", "data_min_", "data_max_", "data_range_")


def _max_abs_scaler(c):
    _flags(c, "clip", "copy")
    _per_feature(c, "max_abs_", "scale_", positive=("scale_",))


def _normalizer(c):
    _flags(c, "copy")
    if c.param("norm", "l2") not in ("l1", "l2", "max"):
        c.fail("norm", "must be 'l1', 'l2' or 'max'")
    if c.fitted("n_features_in_"):
        c.n_features()


def _vocabulary(c):
    """A fitted vocabulary maps distinct words to the columns 0 .. n - 1."""
    if not c.fitted("vocabulary_"):
        return None
    vocabulary = c.values["vocabulary_"]
    if (
        not isinstance(vocabulary, dict)
        or not vocabulary
        or not all(isinstance(word, str) for word in vocabulary)
        or not all(type(column) in (int, np.int64, np.int32) for column in vocabulary.values())
    ):
        c.fail("vocabulary_", "must be a non-empty dict of words (str) to columns (int)")
    columns = sorted(int(column) for column in vocabulary.values())
    if columns != list(range(len(vocabulary))):
        c.fail("vocabulary_", f"must number its {len(vocabulary)} words 0 to {len(vocabulary) - 1}")
    if "fixed_vocabulary_" in c.values:
        c.boolean("fixed_vocabulary_")
    return len(vocabulary)


def _analyzer(c):
    """Words are cut by the token pattern: without one, the analyzer has none to cut by."""
    if c.param("analyzer", "word") == "word" and "token_pattern" in c.model.params:
        if c.param("token_pattern") is None:
            c.fail("token_pattern", "must be a pattern when analyzer='word'")


def _count_vectorizer(c):
    _analyzer(c)
    _vocabulary(c)


def _tfidf_vectorizer(c):
    _analyzer(c)
    n = _vocabulary(c)
    if n is not None and c.param("use_idf") is not False:
        if "idf_" not in c.values:
            c.fail("idf_", "is missing although use_idf=True")
        c.array("idf_", shape=(n,), positive=True)


def _tfidf_transformer(c):
    if not c.fitted("n_features_in_"):
        return
    n = c.n_features()
    if c.param("use_idf") is not False:
        if "idf_" not in c.values:
            c.fail("idf_", "is missing although use_idf=True")
        c.array("idf_", shape=(n,), positive=True)


def _tfdf_transformer(c):
    if c.fitted("n_features_in_", "df_"):
        c.array("df_", shape=(c.n_features(),), low=0.0)


def _hashing_vectorizer(c):
    _analyzer(c)  # stateless: its other parameters are persistence.PARAMETER_RULES's


def _robust_scaler(c):
    _flags(c, "with_centering", "with_scaling", "copy", "unit_variance")
    optional = ("center_",) * (not c.param("with_centering", True))
    optional += ("scale_",) * (not c.param("with_scaling", True))
    _per_feature(c, "center_", "scale_", positive=("scale_",), optional=optional)


MAX_POLYNOMIAL_DEGREE = 10  # PolynomialFeatures: 11 features of degree 10 are already 352716


def polynomial_degrees(degree):
    """``(min_degree, max_degree)`` of a PolynomialFeatures ``degree`` (an int, or a pair
    of them), or None when it is no degree a model file may hold."""
    if _is_index(degree) and 0 <= degree <= MAX_POLYNOMIAL_DEGREE:
        return 0, int(degree)
    if (
        isinstance(degree, (tuple, list))
        and len(degree) == 2
        and all(_is_index(d) for d in degree)
        and 0 <= degree[0] <= degree[1] <= MAX_POLYNOMIAL_DEGREE
    ):
        return int(degree[0]), int(degree[1])
    return None


def polynomial_width(n_features, low, high, interaction_only, include_bias) -> int:
    """How many features PolynomialFeatures makes of ``n_features``, counted as
    scikit-learn counts them (without listing the monomials)."""
    if interaction_only:
        width = sum(math.comb(n_features, d) for d in range(max(1, low), min(high, n_features) + 1))
    else:
        width = math.comb(n_features + high, high) - 1
        if low > 0:
            width -= math.comb(n_features + low - 1, low - 1) - 1
    return width + bool(include_bias)


def _polynomial_features(c):
    _flags(c, "interaction_only", "include_bias")
    degrees = polynomial_degrees(c.param("degree", 2))
    if degrees is None:
        c.fail(
            "degree",
            f"must be an int, or a pair (low, high) of ints, from 0 to {MAX_POLYNOMIAL_DEGREE}",
        )
    if degrees[1] == 0 and not c.param("include_bias", True):
        c.fail("degree", "is 0 and include_bias False: no features at all")
    if not c.fitted("n_features_in_", "n_output_features_"):
        return
    width = polynomial_width(
        c.n_features(), *degrees, c.param("interaction_only", False), c.param("include_bias", True)
    )
    if width > _MAX_INDEX:
        c.fail("n_output_features_", f"would be {width}, more than {_MAX_INDEX} features")
    c.same("n_output_features_", width)


def _components(c, n_features):
    """A decomposition's ``components_`` (k rows of ``n_features``) and the k finite,
    non-negative variances and singular values that go with them; k."""
    k = c.array("components_", shape=(None, n_features)).shape[0]
    for name in ("explained_variance_", "explained_variance_ratio_", "singular_values_"):
        c.array(name, shape=(k,), low=0.0)
    return k


def _pca(c):
    _flags(c, "copy", "whiten")
    required = ("n_features_in_", "mean_", "n_components_", "n_samples_", "noise_variance_")
    if not c.fitted(*required, *_COMPONENTS.split()):
        return
    n = c.n_features()
    k = _components(c, n)
    c.array("mean_", shape=(n,))
    if c.integer("n_components_") != k:
        c.fail("n_components_", f"must be {k}, the rows of components_")
    c.integer("n_samples_", 1)
    c.number("noise_variance_")


def _truncated_svd(c):
    if not c.fitted("n_features_in_", *_COMPONENTS.split()):
        return
    k = _components(c, c.n_features())
    if k != c.param("n_components", 2):
        c.fail("components_", f"must have n_components={c.param('n_components', 2)!r:.20} rows")


def _one_hot_encoder(c):
    if not c.fitted("n_features_in_", "categories_"):
        return
    n = c.n_features()
    categories = c.values["categories_"]
    if not isinstance(categories, list) or len(categories) != n:
        c.fail("categories_", f"must be a list of one array per feature ({n})")
    for j, values in enumerate(categories):
        if c.labels(f"categories_[{j}]", value=values, missing=True).shape[0] == 0:
            c.fail(f"categories_[{j}]", "holds no category")
    if c.values.get("drop_idx_") is not None:  # PARAMETER_RULES: drop=None
        c.fail("drop_idx_", "must be None: a model file keeps encoders that drop nothing")


def _simple_imputer(c):
    _flags(c, "copy", "add_indicator", "keep_empty_features")
    if not c.fitted("n_features_in_", "statistics_"):
        return
    n = c.n_features()
    statistics = c.array("statistics_", shape=(n,), kinds="fiuO", missing=True)
    if statistics.dtype.kind == "O" and not all(isinstance(v, str) for v in statistics):
        c.fail("statistics_", "holds objects that are not str")
    if c.values.get("indicator_") is not None:  # PARAMETER_RULES: add_indicator=False
        c.fail("indicator_", "must be None: a model file keeps imputers without indicator")


def _function_transformer(c):
    """Only the identity (``func=None``, PARAMETER_RULES): the fitted form of 'passthrough'."""
    _flags(c, "validate", "accept_sparse", "check_inverse")
    for name in ("func", "inverse_func"):
        if c.param(name) is not None:
            c.fail(name, "must be None: a model file holds no functions")
    if c.fitted("n_features_in_"):
        c.n_features()


def _parts(c, name, with_columns):
    """A container's ``(name, transformer[, columns])`` list: distinct names without
    '__', each transformer 'drop', 'passthrough' or one rosenblatt stores; the parts."""
    parts = c.param(name)
    size = 3 if with_columns else 2
    if not isinstance(parts, (list, tuple)):
        c.fail(name, f"must be a list of {size}-tuples")
    for k, part in enumerate(parts):
        if not (isinstance(part, (tuple, list)) and len(part) == size and isinstance(part[0], str)):
            c.fail(
                f"{name}[{k}]", f"must be a tuple (name, transformer{', columns' * with_columns})"
            )
        if not (isinstance(part[1], str) and part[1] in ("drop", "passthrough")):
            c.part(part[1], f"{name}[{k}]")
        if with_columns and not is_column_selector(part[2]):
            c.fail(f"{name}[{k}]", "must select columns by name or index (a str, an int or a list)")
    names = [part[0] for part in parts]
    if len(set(names)) != len(names) or any("__" in n or not n for n in names):
        c.fail(name, "must have distinct, non-empty names without '__'")
    weights = c.param("transformer_weights")
    if weights is not None and not (
        isinstance(weights, dict)
        and set(weights) <= set(names)
        and all(isinstance(w, (int, float)) and math.isfinite(w) for w in weights.values())
    ):
        c.fail("transformer_weights", "must be None or a dict of its names to finite numbers")
    return parts


def _is_fitted(model) -> bool:
    """Whether a checked model is fitted (a container: every transformer in it)."""
    if model.key == _PIPELINE:
        return all(_is_fitted(step) for _, step in model.params["steps"])
    if model.key == _UNION:
        parts = [t for _, t in model.params["transformer_list"] if isinstance(t, Plain)]
        return all(_is_fitted(t) for t in parts) and "passthrough" not in [
            t for _, t in model.params["transformer_list"]
        ]
    return bool(model.fitted) or not FITTED[model.key]


def _column_transformer(c):
    parts = _parts(c, "transformers", with_columns=True)
    remainder = c.param("remainder", "drop")
    if not (isinstance(remainder, str) and remainder in ("drop", "passthrough")):
        c.part(remainder, "remainder")
    if not c.fitted("n_features_in_", "transformers_", "sparse_output_", "output_indices_"):
        return
    n = c.n_features()
    names = c.values.get("feature_names_in_")
    fitted = c.values["transformers_"]
    if not isinstance(fitted, list) or len(fitted) not in (len(parts), len(parts) + 1):
        c.fail("transformers_", f"must list the {len(parts)} transformers (and the remainder)")
    taken, widths = set(), {}
    for k, entry in enumerate(fitted):
        where = f"transformers_[{k}]"
        if not (isinstance(entry, tuple) and len(entry) == 3):
            c.fail(where, "must be a tuple (name, transformer, columns)")
        name, transformer, columns = entry
        given = parts[k] if k < len(parts) else ("remainder", remainder, None)
        if name != given[0] or (k < len(parts) and columns != given[2]):
            c.fail(where, f"is not the transformer {given[0]!r:.40} on the columns it was given")
        indices = c.columns(where, columns, n, names)
        if k < len(parts):
            taken.update(indices)
        elif indices != sorted(set(range(n)) - taken):
            c.fail(where, "must select exactly the columns no transformer selects")
        _fitted_part(c, where, given[1], transformer, indices, columns)
        widths[name] = _entry_width(transformer, indices)
    if (len(fitted) > len(parts)) != bool(set(range(n)) - taken):
        c.fail("transformers_", "must end with the remainder exactly when columns remain")
    c.boolean("sparse_output_")
    if None not in widths.values():  # where each transformer's output lies, as fit records it
        start, expected = 0, {}
        for name, width in widths.items():
            if width:
                expected[name] = slice(start, start + width)
                start += width
        for name in [part[0] for part in parts] + ["remainder"]:
            expected.setdefault(name, slice(0, 0))
        c.same("output_indices_", expected)


def _fitted_part(c, where, given, transformer, indices, columns):
    """The fitted transformer of one ColumnTransformer entry, checked against what the
    parameters gave and the columns it takes."""
    if isinstance(given, str) and given == "drop":
        if transformer != "drop":
            c.fail(where, "must be 'drop', as the parameters give")
        return
    c.part(transformer, where)
    wanted = _IDENTITY if isinstance(given, str) else given.key
    if transformer.key != wanted:
        c.fail(where, f"must be a {wanted.rpartition('.')[2]}, as the parameters give")
    if not indices:
        return  # no columns: left unfitted, never called
    if not _is_fitted(transformer):
        c.fail(where, "is not fitted")
    if transformer.key in _VECTORIZERS:
        if isinstance(columns, (list, tuple)):
            c.fail(where, "must give its text vectorizer one column (a name or an index)")
    elif (takes := output_width(transformer, inputs=True)) is not None and takes != len(indices):
        c.fail(where, f"takes {takes} features but its columns select {len(indices)}")


def _entry_width(transformer, indices):
    """The features one checked ColumnTransformer entry gives (None: it does not say)."""
    return 0 if transformer == "drop" or not indices else output_width(transformer)


def _feature_union(c):
    parts = _parts(c, "transformer_list", with_columns=False)
    used = [t for _, t in parts if isinstance(t, Plain)]
    fitted = [_is_fitted(t) for t in used]
    if any(fitted) and not (all(fitted) and "passthrough" not in [t for _, t in parts]):
        c.fail("transformer_list", "holds fitted and unfitted transformers")
    takes = {w for t in used if (w := output_width(t, inputs=True)) is not None}
    if len(takes) > 1:
        c.fail("transformer_list", f"holds transformers that take {sorted(takes)} features")


def _pipeline(c):
    steps = c.param("steps")
    if not isinstance(steps, list) or not steps:
        c.fail("steps", "must be a non-empty list of (name, estimator) pairs")
    names = []
    for k, step in enumerate(steps):
        if not (isinstance(step, tuple) and len(step) == 2 and isinstance(step[0], str)):
            c.fail(f"steps[{k}]", "must be a (name, estimator) pair")
        c.estimator(step[1], f"steps[{k}]")
        names.append(step[0])
    if len(set(names)) != len(names) or any("__" in name or not name for name in names):
        c.fail("steps", "must have distinct, non-empty names without '__'")
    if not all(step.key in _TRANSFORMERS for _, step in steps[:-1]):
        c.fail("steps", "must be transformers followed by one final estimator")
    if any(step.key in _VECTORIZERS for _, step in steps[1:]):
        c.fail("steps", "may turn documents into features only in the first step")
    final = steps[-1][1]
    if final.key not in _FINAL_STEPS and final.key not in _TRANSFORMERS:
        c.fail(
            "steps",
            "must end with a classifier of rosenblatt (or, inside a container, a transformer)",
        )
    if _is_fitted(final) and not all(_is_fitted(step) for _, step in steps):
        c.fail("steps", "must all be fitted, as the last one is")
    width = None  # what the step before gives: the next one must take that many features
    for k, (_, step) in enumerate(steps):
        takes = output_width(step, inputs=True)
        if width is not None and takes is not None and takes != width:
            c.fail(f"steps[{k}]", f"takes {takes} features but the step before gives {width}")
        width = output_width(step)


def _final(model: Plain) -> Plain:
    """A pipeline's last step (the classifier), else the model itself."""
    if model.key == _PIPELINE:
        return model.params["steps"][-1][1]
    return model


def output_width(model: Plain, inputs=False):
    """The features a checked, fitted model takes (``inputs=True``) or gives; None when it
    does not say (text in, or a stateless step)."""
    if model.key == _PIPELINE:
        steps = [step for _, step in model.params["steps"]]
        if inputs:
            return output_width(steps[0], inputs=True)
        return output_width(steps[-1]) if steps[-1].key in _TRANSFORMERS else None
    if model.key == _UNION:
        return _union_width(model, inputs)
    values = model.fitted
    if not inputs and "vocabulary_" in values:
        return len(values["vocabulary_"])
    if not inputs and model.key.endswith("HashingVectorizer"):
        return model.params.get("n_features", 2**20)  # HashingVectorizer's default
    if model.key.rpartition(".")[0] == "sklearn.feature_extraction.text" and inputs:
        if "TfidfTransformer" not in model.key:
            return None  # documents in
    if not inputs and "n_features_in_" in values and model.key in _OUTPUT_WIDTHS:
        return _OUTPUT_WIDTHS[model.key](model, values)
    return values.get("n_features_in_")


def _union_width(model, inputs):
    """A FeatureUnion takes what each of its transformers takes, and gives them all."""
    parts = [t for _, t in model.params["transformer_list"] if t != "drop"]
    takes = {output_width(t, inputs=True) for t in parts if isinstance(t, Plain)} - {None}
    takes = takes.pop() if takes else None
    if inputs:
        return takes
    widths = [output_width(t) if isinstance(t, Plain) else takes for t in parts]
    return None if None in widths else sum(widths)


def _imputed_width(model, values):
    statistics = values["statistics_"]
    if model.params.get("keep_empty_features", False) or statistics.dtype.kind != "f":
        return statistics.shape[0]
    return int(np.count_nonzero(~np.isnan(statistics)))  # columns never seen are dropped


# What the transformers that change the number of features give (the others give what
# they take), from their checked fitted state.
_OUTPUT_WIDTHS = {
    "sklearn.preprocessing.PolynomialFeatures": lambda m, v: v["n_output_features_"],
    "sklearn.preprocessing.OneHotEncoder": lambda m, v: sum(len(c) for c in v["categories_"]),
    "sklearn.impute.SimpleImputer": _imputed_width,
    "sklearn.decomposition.PCA": lambda m, v: v["components_"].shape[0],
    "sklearn.decomposition.TruncatedSVD": lambda m, v: v["components_"].shape[0],
    "sklearn.compose.ColumnTransformer": lambda m, v: _column_width(v),
}


def _column_width(values):
    n, names = values["n_features_in_"], values.get("feature_names_in_")
    widths = [
        _entry_width(transformer, column_indices(columns, n, names))
        for _, transformer, columns in values["transformers_"]
    ]
    return None if None in widths else sum(widths)


# Each class a model file may hold, by its registry key and its role in a model, and what
# its fitted state must be. persistence.REGISTRY is these keys.
_CLASSIFIER_INVARIANTS = {
    "rosenblatt.linear.Perceptron": lambda c: _linear_perceptron(c, averaged=False, voted=False),
    "rosenblatt.linear.AveragedPerceptron": lambda c: _linear_perceptron(
        c, averaged=True, voted=False
    ),
    "rosenblatt.linear.VotedPerceptron": lambda c: _linear_perceptron(
        c, averaged=False, voted=True
    ),
    "rosenblatt.kernel.KernelPerceptron": _kernel_perceptron,
    "rosenblatt.baselines.CentroidClassifier": _centroid,
    "rosenblatt.baselines.LinearProgramClassifier": _linear_program,
    "rosenblatt.calibration.CalibratedClassifier": _calibrated,
}
_VECTORIZER_INVARIANTS = {  # documents in, features out: only a pipeline's first step
    "sklearn.feature_extraction.text.CountVectorizer": _count_vectorizer,
    "sklearn.feature_extraction.text.TfidfVectorizer": _tfidf_vectorizer,
    "sklearn.feature_extraction.text.HashingVectorizer": _hashing_vectorizer,
}
_TRANSFORMER_INVARIANTS = {  # features in, features out
    "rosenblatt.text.TfDfTransformer": _tfdf_transformer,
    "sklearn.feature_extraction.text.TfidfTransformer": _tfidf_transformer,
    "sklearn.preprocessing.StandardScaler": _standard_scaler,
    "sklearn.preprocessing.MinMaxScaler": _min_max_scaler,
    "sklearn.preprocessing.MaxAbsScaler": _max_abs_scaler,
    "sklearn.preprocessing.Normalizer": _normalizer,
    "sklearn.preprocessing.RobustScaler": _robust_scaler,
    "sklearn.preprocessing.PolynomialFeatures": _polynomial_features,
    "sklearn.preprocessing.OneHotEncoder": _one_hot_encoder,
    "sklearn.preprocessing.FunctionTransformer": _function_transformer,
    "sklearn.impute.SimpleImputer": _simple_imputer,
    "sklearn.decomposition.PCA": _pca,
    "sklearn.decomposition.TruncatedSVD": _truncated_svd,
    # containers: transformers of their own, whose parts are _PARTS
    "sklearn.compose.ColumnTransformer": _column_transformer,
    "sklearn.pipeline.FeatureUnion": _feature_union,
}
_PIPELINE = "sklearn.pipeline.Pipeline"
_UNION = "sklearn.pipeline.FeatureUnion"
_IDENTITY = "sklearn.preprocessing.FunctionTransformer"  # what fit makes of 'passthrough'
INVARIANTS = {
    **_CLASSIFIER_INVARIANTS,
    _PIPELINE: _pipeline,
    **_VECTORIZER_INVARIANTS,
    **_TRANSFORMER_INVARIANTS,
}
_FINAL_STEPS = tuple(_CLASSIFIER_INVARIANTS)  # what a pipeline may end with
# what a calibrated model's folds may be: a classifier, or a pipeline ending in one
_CLASSIFIERS = tuple(k for k in _FINAL_STEPS if not k.endswith("CalibratedClassifier")) + (
    _PIPELINE,
)
_VECTORIZERS = tuple(_VECTORIZER_INVARIANTS)
_TRANSFORMERS = _VECTORIZERS + tuple(_TRANSFORMER_INVARIANTS)
# what a ColumnTransformer or FeatureUnion may hold: a transformer, or a pipeline of them
_PARTS = (*_TRANSFORMERS, _PIPELINE)


def check_model(model: Plain) -> None:
    """Check ``model`` against its class's declared invariants (the estimators it holds
    have been checked as they were read).

    Raises
    ------
    BrokenInvariant
        Naming the class, the attribute and what is wrong.
    """
    INVARIANTS[model.key](_Checker(model))


# ---------------------------------------------------------------------- random sources
# The bit generators of the numpy random sources a model file may hold.
BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
# The int fields of their states that index their own buffers, or are flags, with the
# largest value each may take: MT19937 reads key[pos] without checking pos. Every other
# int is a 128-bit word at most (PCG64's state and increment).
_RANDOM_INTS = {"pos": 624, "has_gauss": 1, "has_uint32": 1, "uinteger": 2**32 - 1, "buffer_pos": 4}


def check_random_state(state, where, *, legacy=False) -> None:
    """Check the state of a numpy random source before numpy reads it: the layout of a
    new one of the same bit generator (the same fields, arrays of the same dtype and
    shape, ints in range, finite floats), ``state`` as ``bit_generator.state`` gives it,
    or with ``legacy`` as ``RandomState.get_state(legacy=False)`` does.

    Raises
    ------
    BrokenInvariant
        Naming the field that does not fit (``where`` says whose state it is).

    Examples
    --------
    >>> state = np.random.PCG64(0).state
    >>> check_random_state(state, "a generator")
    >>> state["has_uint32"] = 7
    >>> check_random_state(state, "a generator")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt._core.invariants.BrokenInvariant: a generator.has_uint32 must be an int from 0...
    """
    name = state.get("bit_generator") if isinstance(state, dict) else None
    if not isinstance(name, str) or name not in (("MT19937",) if legacy else BIT_GENERATORS):
        raise BrokenInvariant(f"{where} is not the state of a numpy random source")
    if legacy:
        fresh = np.random.RandomState().get_state(legacy=False)
    else:
        fresh = getattr(np.random, name)().state
    _check_layout(state, fresh, where, "")


def _check_layout(value, reference, where, field):
    if isinstance(reference, dict):
        if not isinstance(value, dict) or set(value) != set(reference):
            raise BrokenInvariant(f"{where} must have the fields {sorted(reference)}")
        for key, expected in reference.items():
            _check_layout(value[key], expected, f"{where}.{key}", key)
    elif isinstance(reference, np.ndarray):
        if not (
            isinstance(value, np.ndarray)
            and value.dtype == reference.dtype
            and value.shape == reference.shape
        ):
            raise BrokenInvariant(
                f"{where} must be a {reference.dtype} array of shape {reference.shape}"
            )
    elif isinstance(reference, str):
        if not (isinstance(value, str) and value == reference):
            raise BrokenInvariant(f"{where} must be {reference!r}")
    elif isinstance(reference, float):
        if not (type(value) in (int, float) and math.isfinite(value)):
            raise BrokenInvariant(f"{where} must be a finite number; it is {value!r:.40}")
    else:  # an int
        high = _RANDOM_INTS.get(field, 2**128 - 1)
        if not (type(value) is int and 0 <= value <= high):
            raise BrokenInvariant(f"{where} must be an int from 0 to {high}; it is {value!r:.40}")


# ---------------------------------------------------------------------- training states
# The training states of the engine a model file may hold (persistence.STATE_REGISTRY),
# as their to_state() gives them: what their from_state reads before it checks anything,
# so that it gets what it indexes by. The fields of the meta: {name: (test, in words,
# required)}; the dimensions of the arrays by name (a pattern); a random source ("rng")
# as check_random_state has it. from_state checks the rest: the version, shapes that
# agree, ranges, the order of the updates.
def _is_count(value) -> bool:
    return type(value) is int and 0 <= value <= _MAX_INDEX


_VOTE_META = {  # a PrimalState's vote record (VoteRecord.to_state)
    "multinomial": (lambda v: type(v) is bool, "True or False", True),
    "bias_input": (
        lambda v: type(v) in (int, float) and math.isfinite(v),
        "a finite number",
        True,
    ),
    "n_voters": (_is_count, f"an int from 0 to {_MAX_INDEX}", True),
}
_ENGINE_META = {
    "kind": (lambda v: isinstance(v, str), "a str", True),
    "version": (_is_count, "an int", True),
    "rng": (lambda v: v is None or isinstance(v, dict), "null or a random source", False),
}
_STATE_META = {
    "rosenblatt.engine.primal.PrimalState": {
        **_ENGINE_META,
        "multinomial": (lambda v: type(v) is bool, "True or False", True),
        "votes": (lambda v: v is None or isinstance(v, dict), "null or a vote record", False),
    },
    "rosenblatt.engine.dual.DualState": _ENGINE_META,
}
_STATE_ARRAYS = {
    "rosenblatt.engine.primal.PrimalState": (
        (r"W|U|votes\.patterns|votes\.\d+\.rows", 2),
        (r"w0|U0|counts|votes\.\d+\.(coef|time|true|pred|pattern)", 1),
        (r"votes\.(patterns|\d+\.rows)\.(data|indices|indptr|shape)", 1),
    ),
    "rosenblatt.engine.dual.DualState": (
        (r"coef|coef_acc|sv", 2),
        (r"n_sv|n_seen|update_(sample|delta|time|count)|index", 1),
    ),
}


def check_state(key, meta, arrays) -> None:
    """Check the ``(meta, arrays)`` of a training state of class ``key`` before its
    ``from_state`` reads them: the meta's fields of the declared JSON kinds (a vote
    record's, a random source's too), the arrays of the declared dimensions.

    Raises
    ------
    BrokenInvariant
        Naming the state, the field or array and what is wrong.

    Examples
    --------
    >>> meta = {"kind": "primal", "version": 1, "multinomial": False, "votes": 7}
    >>> check_state("rosenblatt.engine.primal.PrimalState", meta, {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt._core.invariants.BrokenInvariant: PrimalState meta 'votes' must be null or a vote...
    """
    where = key.rpartition(".")[2]
    _check_fields(meta, _STATE_META[key], f"{where} meta")
    if meta.get("votes") is not None:
        _check_fields(meta["votes"], _VOTE_META, f"{where} vote record")
    for name, array in arrays.items():
        for pattern, ndim in _STATE_ARRAYS[key]:
            if re.fullmatch(pattern, name) and array.ndim != ndim:
                raise BrokenInvariant(
                    f"{where} array {name!r} must have {ndim} dimension(s); it has shape "
                    f"{array.shape}"
                )
    if meta.get("rng") is not None:
        _check_random_source(meta["rng"], arrays, f"{where} random source")


def _check_fields(meta, fields, where):
    for name, (test, words, required) in fields.items():
        if name not in meta:
            if required:
                raise BrokenInvariant(f"{where} lacks {name!r}")
        elif not test(meta[name]):
            raise BrokenInvariant(f"{where} {name!r} must be {words}; it is {meta[name]!r:.40}")


def _check_random_source(rng, arrays, where):
    """A random source as the engine stores one (orders.rng_to_state): its kind, and its
    numpy state with the arrays named by ``{"$array": name}``."""
    kind = rng.get("kind")
    if kind not in ("RandomState", "Generator") or "state" not in rng:
        raise BrokenInvariant(f"{where} is not a RandomState or a Generator")

    def resolved(value):
        if isinstance(value, dict):
            if set(value) == {"$array"}:
                name = value["$array"]
                if not isinstance(name, str) or name not in arrays:
                    raise BrokenInvariant(f"{where} names an array {name!r:.60} it lacks")
                return arrays[name]
            return {k: resolved(v) for k, v in value.items()}
        return value

    check_random_state(resolved(rng["state"]), where, legacy=kind == "RandomState")
