"""The invariants of the transformers a pipeline may hold (scikit-learn's steps, the
text transformers, the containers) and the widths they output."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._core.validation import is_finite
from .checker import (
    MAX_INDEX,
    Checker,
    Plain,
    column_indices,
    is_column_selector,
    is_index,
)
from .roles import plays, the


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


def check_standard_scaler(c: Checker) -> None:
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


def check_min_max_scaler(c: Checker) -> None:
    _flags(c, "clip", "copy")
    bounds = c.param("feature_range", (0, 1))
    if not (
        isinstance(bounds, (tuple, list))
        and len(bounds) == 2
        and all(type(v) in (int, float) and is_finite(v) for v in bounds)
        and bounds[0] < bounds[1]
    ):
        c.fail("feature_range", "must be two finite numbers (low, high) with low < high")
    _per_feature(c, "min_", "scale_", "data_min_", "data_max_", "data_range_")


def check_max_abs_scaler(c: Checker) -> None:
    _flags(c, "clip", "copy")
    _per_feature(c, "max_abs_", "scale_", positive=("scale_",))


def check_normalizer(c: Checker) -> None:
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


def check_count_vectorizer(c: Checker) -> None:
    _analyzer(c)
    _vocabulary(c)


def check_tfidf_vectorizer(c: Checker) -> None:
    _analyzer(c)
    n = _vocabulary(c)
    if n is not None and c.param("use_idf") is not False:
        if "idf_" not in c.values:
            c.fail("idf_", "is missing although use_idf=True")
        c.array("idf_", shape=(n,), positive=True)


def check_tfidf_transformer(c: Checker) -> None:
    if not c.fitted("n_features_in_"):
        return
    n = c.n_features()
    if c.param("use_idf") is not False:
        if "idf_" not in c.values:
            c.fail("idf_", "is missing although use_idf=True")
        c.array("idf_", shape=(n,), positive=True)


def check_tfdf_transformer(c: Checker) -> None:
    if c.fitted("n_features_in_", "df_"):
        c.array("df_", shape=(c.n_features(),), low=0.0)


def check_hashing_vectorizer(c: Checker) -> None:
    _analyzer(c)  # stateless: its other parameters are persistence.PARAMETER_RULES's


def check_robust_scaler(c: Checker) -> None:
    _flags(c, "with_centering", "with_scaling", "copy", "unit_variance")
    optional = ("center_",) * (not c.param("with_centering", True))
    optional += ("scale_",) * (not c.param("with_scaling", True))
    _per_feature(c, "center_", "scale_", positive=("scale_",), optional=optional)


MAX_POLYNOMIAL_DEGREE = 10  # PolynomialFeatures: 11 features of degree 10 are already 352716


def polynomial_degrees(degree: Any) -> tuple[int, int] | None:
    """``(min_degree, max_degree)`` of a PolynomialFeatures ``degree`` (an int, or a pair
    of them), or None when it is no degree a model file may hold."""
    if is_index(degree) and 0 <= degree <= MAX_POLYNOMIAL_DEGREE:
        return 0, int(degree)
    if (
        isinstance(degree, (tuple, list))
        and len(degree) == 2
        and all(is_index(d) for d in degree)
        and 0 <= degree[0] <= degree[1] <= MAX_POLYNOMIAL_DEGREE
    ):
        return int(degree[0]), int(degree[1])
    return None


def polynomial_width(
    n_features: int, low: int, high: int, interaction_only: bool, include_bias: bool
) -> int:
    """How many features PolynomialFeatures makes of ``n_features``, counted as
    scikit-learn counts them (without listing the monomials)."""
    if interaction_only:
        width = sum(math.comb(n_features, d) for d in range(max(1, low), min(high, n_features) + 1))
    else:
        width = math.comb(n_features + high, high) - 1
        if low > 0:
            width -= math.comb(n_features + low - 1, low - 1) - 1
    return width + bool(include_bias)


def check_polynomial_features(c: Checker) -> None:
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
    if width > MAX_INDEX:
        c.fail("n_output_features_", f"would be {width}, more than {MAX_INDEX} features")
    c.same("n_output_features_", width)


# the fitted attributes of a decomposition (PCA, TruncatedSVD)
COMPONENTS = "components_ explained_variance_ explained_variance_ratio_ singular_values_"


def _components(c, n_features):
    """A decomposition's ``components_`` (k rows of ``n_features``) and the k finite,
    non-negative variances and singular values that go with them; k."""
    k = c.array("components_", shape=(None, n_features)).shape[0]
    for name in ("explained_variance_", "explained_variance_ratio_", "singular_values_"):
        c.array(name, shape=(k,), low=0.0)
    return k


def check_pca(c: Checker) -> None:
    _flags(c, "copy", "whiten")
    required = ("n_features_in_", "mean_", "n_components_", "n_samples_", "noise_variance_")
    if not c.fitted(*required, *COMPONENTS.split()):
        return
    n = c.n_features()
    k = _components(c, n)
    c.array("mean_", shape=(n,))
    if c.integer("n_components_") != k:
        c.fail("n_components_", f"must be {k}, the rows of components_")
    c.integer("n_samples_", 1)
    c.number("noise_variance_")


def check_truncated_svd(c: Checker) -> None:
    if not c.fitted("n_features_in_", *COMPONENTS.split()):
        return
    k = _components(c, c.n_features())
    if k != c.param("n_components", 2):
        c.fail("components_", f"must have n_components={c.param('n_components', 2)!r:.20} rows")


def check_one_hot_encoder(c: Checker) -> None:
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


def check_simple_imputer(c: Checker) -> None:
    _flags(c, "copy", "add_indicator", "keep_empty_features")
    if not c.fitted("n_features_in_", "statistics_"):
        return
    n = c.n_features()
    statistics = c.array("statistics_", shape=(n,), kinds="fiuO", missing=True)
    if statistics.dtype.kind == "O" and not all(isinstance(v, str) for v in statistics):
        c.fail("statistics_", "holds objects that are not str")
    if c.values.get("indicator_") is not None:  # PARAMETER_RULES: add_indicator=False
        c.fail("indicator_", "must be None: a model file keeps imputers without indicator")


def check_function_transformer(c: Checker) -> None:
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
        and all(isinstance(w, (int, float)) and is_finite(w) for w in weights.values())
    ):
        c.fail("transformer_weights", "must be None or a dict of its names to finite numbers")
    return parts


def _is_fitted(model) -> bool:
    """Whether a checked model is fitted (a container: every transformer in it)."""
    if plays(model.key, "pipeline"):
        return all(_is_fitted(step) for _, step in model.params["steps"])
    if plays(model.key, "union"):
        parts = [t for _, t in model.params["transformer_list"] if isinstance(t, Plain)]
        return all(_is_fitted(t) for t in parts) and "passthrough" not in [
            t for _, t in model.params["transformer_list"]
        ]
    return bool(model.fitted) or plays(model.key, "stateless")


def check_column_transformer(c: Checker) -> None:
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
    wanted = the("identity") if isinstance(given, str) else given.key
    if transformer.key != wanted:
        c.fail(where, f"must be a {wanted.rpartition('.')[2]}, as the parameters give")
    if not indices:
        return  # no columns: left unfitted, never called
    if not _is_fitted(transformer):
        c.fail(where, "is not fitted")
    if plays(transformer.key, "vectorizer"):
        if isinstance(columns, (list, tuple)):
            c.fail(where, "must give its text vectorizer one column (a name or an index)")
    elif (takes := output_width(transformer, inputs=True)) is not None and takes != len(indices):
        c.fail(where, f"takes {takes} features but its columns select {len(indices)}")


def _entry_width(transformer, indices):
    """The features one checked ColumnTransformer entry gives (None: it does not say)."""
    return 0 if transformer == "drop" or not indices else output_width(transformer)


def check_feature_union(c: Checker) -> None:
    parts = _parts(c, "transformer_list", with_columns=False)
    used = [t for _, t in parts if isinstance(t, Plain)]
    fitted = [_is_fitted(t) for t in used]
    if any(fitted) and not (all(fitted) and "passthrough" not in [t for _, t in parts]):
        c.fail("transformer_list", "holds fitted and unfitted transformers")
    takes = {w for t in used if (w := output_width(t, inputs=True)) is not None}
    if len(takes) > 1:
        c.fail("transformer_list", f"holds transformers that take {sorted(takes)} features")


def check_pipeline(c: Checker) -> None:
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
    if not all(plays(step.key, "transformer") for _, step in steps[:-1]):
        c.fail("steps", "must be transformers followed by one final estimator")
    if any(plays(step.key, "vectorizer") for _, step in steps[1:]):
        c.fail("steps", "may turn documents into features only in the first step")
    final = steps[-1][1]
    if not (plays(final.key, "final") or plays(final.key, "transformer")):
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


def output_width(model: Plain, inputs: bool = False) -> int | None:
    """The features a checked, fitted model takes (``inputs=True``) or gives; None when it
    does not say (text in, or a stateless step)."""
    if plays(model.key, "pipeline"):
        steps = [step for _, step in model.params["steps"]]
        if inputs:
            return output_width(steps[0], inputs=True)
        return output_width(steps[-1]) if plays(steps[-1].key, "transformer") else None
    if plays(model.key, "union"):
        return _union_width(model, inputs)
    values = model.fitted
    if plays(model.key, "vectorizer"):  # documents in
        return None if inputs else hashed_width(model, values)
    if not inputs and "n_features_in_" in values:
        from ..records import record_of

        width = record_of(model.key).width  # the transformers that change the count
        if width is not None:
            return width(model, values)
    return values.get("n_features_in_")


def hashed_width(model: Plain, values: dict[str, Any]) -> int | None:
    """The features a vectorizer gives: its vocabulary's, or the hashing one's ``n_features``."""
    if "vocabulary_" in values:
        return len(values["vocabulary_"])
    return model.params.get("n_features", 2**20)  # HashingVectorizer's default


def _union_width(model, inputs):
    """A FeatureUnion takes what each of its transformers takes, and gives them all."""
    parts = [t for _, t in model.params["transformer_list"] if t != "drop"]
    takes = {output_width(t, inputs=True) for t in parts if isinstance(t, Plain)} - {None}
    takes = takes.pop() if takes else None
    if inputs:
        return takes
    widths = [output_width(t) if isinstance(t, Plain) else takes for t in parts]
    return None if None in widths else sum(widths)


# What the transformers that change the number of features give (the others give what
# they take), from their checked fitted state: each one's record names its function.
def polynomial_width_of(model: Plain, values: dict[str, Any]) -> int | None:
    """PolynomialFeatures: its output count."""
    return values["n_output_features_"]


def one_hot_width(model: Plain, values: dict[str, Any]) -> int | None:
    """OneHotEncoder: a column per category."""
    return sum(len(c) for c in values["categories_"])


def imputed_width(model: Plain, values: dict[str, Any]) -> int | None:
    """SimpleImputer: the columns it keeps."""
    statistics = values["statistics_"]
    if model.params.get("keep_empty_features", False) or statistics.dtype.kind != "f":
        return statistics.shape[0]
    return int(np.count_nonzero(~np.isnan(statistics)))  # columns never seen are dropped


def components_width(model: Plain, values: dict[str, Any]) -> int | None:
    """PCA and TruncatedSVD: a feature per component."""
    return values["components_"].shape[0]


def column_width(model: Plain, values: dict[str, Any]) -> int | None:
    """ColumnTransformer: the sum of its parts' widths (None where one is unknown)."""
    n, names = values["n_features_in_"], values.get("feature_names_in_")
    widths = [
        _entry_width(transformer, column_indices(columns, n, names))
        for _, transformer, columns in values["transformers_"]
    ]
    return None if None in widths else sum(widths)
