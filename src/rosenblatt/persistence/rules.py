"""The parameter values a model file may give the classes that need their values checked.

A crafted value could make predict read other files (a vectorizer's ``input="filename"``),
hang (a catastrophic ``token_pattern``) or exhaust memory, or need fitted state a model
file does not keep. Each set below is ``{parameter: (test(value) -> bool, allowed values in
words)}``; a class's record (:mod:`.records`) names the set its values must keep.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._core.config import CALIBRATION_METHODS
from .._core.sparse import MAX_INDEX
from .invariants.checker import Plain, is_column_selector
from .invariants.transformers import MAX_POLYNOMIAL_DEGREE, polynomial_degrees

__all__ = ["SAFE_TOKEN_PATTERNS", "UNSAFE_WHY", "unsafe_parameter"]

# Token patterns a text vectorizer in a model file may use: regular expressions that run
# in linear time (a crafted pattern such as "(a+)+$" would hang predict).
SAFE_TOKEN_PATTERNS = (
    r"(?u)\b\w\w+\b",  # scikit-learn's default, and rosenblatt's (cli/train, streaming)
    r"(?u)\b\w+\b",  # the same with one-letter words
)
_MAX_STOP_WORDS = 100_000
_MAX_WORD_CHARS = 200
_MAX_NGRAM = 10


def _rule(test, allowed):
    """A parameter rule: ``test(value)`` says whether the value is safe; ``allowed`` says
    in words which values are (for messages)."""
    return test, allowed


def _one_of(*choices):
    def test(value):
        return any(type(value) is type(c) and value == c for c in choices)

    return _rule(test, " or ".join(repr(c) for c in choices))


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_real(value):
    return _is_int(value) or (isinstance(value, (float, np.floating)) and math.isfinite(value))


def _int_in(lo, hi, none=False):
    def test(value):
        return (none and value is None) or (_is_int(value) and lo <= value <= _limit(hi))

    bound = hi if isinstance(hi, int) else f"rosenblatt._core.config.{hi}"
    return _rule(test, f"{'None or ' if none else ''}an int from {lo} to {bound}")


def _limit(hi):
    if isinstance(hi, int):
        return hi
    from .._core import config as _config

    return getattr(_config, hi)


def _is_word(value):
    return isinstance(value, str) and len(value) <= _MAX_WORD_CHARS


def _codec(value):
    import codecs

    if not isinstance(value, str) or not 0 < len(value) <= 40:
        return False
    try:
        codecs.lookup(value)
        "a".encode(value)  # str.encode refuses codecs that are not text encodings (zlib)
    except (LookupError, ValueError, TypeError, UnicodeError):
        return False
    return True


def _document_frequency(value):
    if _is_int(value):
        return 0 <= value <= MAX_INDEX
    return _is_real(value) and 0.0 <= value <= 1.0


def _ngram_range(value):
    return (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(_is_int(n) and 1 <= n <= _MAX_NGRAM for n in value)
        and value[0] <= value[1]
    )


def _stop_words(value):
    if value is None or (type(value) is str and value == "english"):
        return True
    return (
        isinstance(value, (list, tuple))
        and len(value) <= _MAX_STOP_WORDS
        and all(_is_word(word) for word in value)
    )


def _vocabulary(value):
    if value is None:
        return True
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = ((word, 0) for word in value)
    else:
        return False
    return all(_is_word(k) and _is_int(v) and 0 <= v <= MAX_INDEX for k, v in items)


def _number_dtype(value):
    if not isinstance(value, np.dtype) and not (
        isinstance(value, type) and issubclass(value, np.generic)
    ):
        return False
    return np.dtype(value).kind in "fiu"


_BOOLEAN = _rule(lambda value: type(value) is bool, "True or False")
_NORM = _one_of("l2", "l1", None)


def _real_in(lo, hi, none=False):
    def test(value):
        return (none and value is None) or (
            _is_real(value) and not isinstance(value, bool) and lo <= value <= hi
        )

    return _rule(test, f"{'None or ' if none else ''}a number from {lo} to {hi}")


def _is_estimator(value):
    """An estimator: built (saving; the Writer stores only registered ones) or decoded
    (loading; _invariants checks its role)."""
    return isinstance(value, Plain) or (
        hasattr(value, "get_params") and not isinstance(value, type)
    )


def _is_part(value):
    return (type(value) is str and value in ("drop", "passthrough")) or _is_estimator(value)


def _parts(with_columns):
    """A container's list of ``(name, transformer[, columns])`` tuples, plain values."""
    size = 3 if with_columns else 2

    def test(value):
        return isinstance(value, (list, tuple)) and all(
            isinstance(part, (list, tuple))
            and len(part) == size
            and _is_word(part[0])
            and _is_part(part[1])
            and (not with_columns or is_column_selector(part[2]))
            for part in value
        )

    columns = ", columns" if with_columns else ""
    return _rule(
        test,
        f"a list of (name, transformer{columns}) tuples, each transformer 'drop', "
        "'passthrough' or one rosenblatt stores"
        + (
            ", the columns a name or an index or a list of names or of indices (not a "
            "callable, a slice or a mask)"
            if with_columns
            else ""
        ),
    )


def _weights(value):
    return value is None or (
        isinstance(value, dict)
        and all(_is_word(k) and _is_real(v) and not isinstance(v, bool) for k, v in value.items())
    )


def _missing_value(value):
    return (
        value is None
        or _is_word(value)
        or _is_real(value)
        or (type(value) is float and math.isnan(value))
    )


_NUMBER_DTYPE = _rule(_number_dtype, "a numpy float or int dtype")
_POSITIVE = _rule(
    lambda v: _is_real(v) and not isinstance(v, bool) and v > 0, "a finite positive number"
)
_SEED = _int_in(0, 2**32 - 1, none=True)
_JOBS = _int_in(-MAX_INDEX, MAX_INDEX, none=True)
_WEIGHTS = _rule(_weights, "None or a dict of transformer names to numbers")
_POWER_NORMALIZER = _one_of("auto", "QR", "LU", "none")
# The scikit-learn preprocessing a model may hold before its classifier: plain values only
# (no functions, no category or column lists given as arrays), and only the options whose
# fitted state a model file keeps (no infrequent categories, no dropped category, no
# missing-value indicator). Each class's record (.records) names its set.
ROBUST_SCALER = {
    "with_centering": _BOOLEAN,
    "with_scaling": _BOOLEAN,
    "quantile_range": _rule(
        lambda v: (
            isinstance(v, (tuple, list))
            and len(v) == 2
            and all(_is_real(q) and not isinstance(q, bool) for q in v)
            and 0 <= v[0] <= v[1] <= 100
        ),
        "a pair (low, high) of numbers with 0 <= low <= high <= 100",
    ),
    "copy": _BOOLEAN,
    "unit_variance": _BOOLEAN,
}
POLYNOMIAL_FEATURES = {
    "degree": _rule(
        lambda v: polynomial_degrees(v) is not None,
        f"an int, or a pair (low, high) of ints, from 0 to {MAX_POLYNOMIAL_DEGREE}",
    ),
    "interaction_only": _BOOLEAN,
    "include_bias": _BOOLEAN,
    "order": _one_of("C", "F"),
}
ONE_HOT_ENCODER = {
    "categories": _one_of("auto"),
    "drop": _one_of(None),
    "sparse_output": _BOOLEAN,
    "dtype": _NUMBER_DTYPE,
    "handle_unknown": _one_of("error", "ignore", "warn", "infrequent_if_exist"),
    "min_frequency": _one_of(None),
    "max_categories": _one_of(None),
    "feature_name_combiner": _one_of("concat"),
}
FUNCTION_TRANSFORMER = {  # the identity: fitted 'passthrough'
    "func": _one_of(None),
    "inverse_func": _one_of(None),
    "validate": _BOOLEAN,
    "accept_sparse": _BOOLEAN,
    "check_inverse": _BOOLEAN,
    "feature_names_out": _one_of(None, "one-to-one"),
    "kw_args": _one_of(None),
    "inv_kw_args": _one_of(None),
}
SIMPLE_IMPUTER = {
    "missing_values": _rule(_missing_value, "None, nan, a number or a str"),
    "strategy": _one_of("mean", "median", "most_frequent", "constant"),
    "fill_value": _rule(
        lambda v: v is None or _is_word(v) or _is_real(v), "None, a number or a str"
    ),
    "copy": _BOOLEAN,
    "add_indicator": _one_of(False),
    "keep_empty_features": _BOOLEAN,
}
PCA = {
    "n_components": _rule(
        lambda v: (
            v is None
            or (type(v) is str and v == "mle")
            or (_is_int(v) and 0 <= v <= MAX_INDEX)
            or (_is_real(v) and 0 < v < 1)
        ),
        "None, 'mle', an int or a float between 0 and 1",
    ),
    "copy": _BOOLEAN,
    "whiten": _BOOLEAN,
    "svd_solver": _one_of("auto", "full", "covariance_eigh", "arpack", "randomized"),
    "tol": _real_in(0, math.inf),
    "iterated_power": _rule(
        lambda v: (type(v) is str and v == "auto") or (_is_int(v) and 0 <= v <= MAX_INDEX),
        "'auto' or an int",
    ),
    "n_oversamples": _int_in(1, MAX_INDEX),
    "power_iteration_normalizer": _POWER_NORMALIZER,
    "random_state": _SEED,
}
TRUNCATED_SVD = {
    "n_components": _int_in(1, MAX_INDEX),
    "algorithm": _one_of("arpack", "randomized"),
    "n_iter": _int_in(0, MAX_INDEX),
    "n_oversamples": _int_in(1, MAX_INDEX),
    "power_iteration_normalizer": _POWER_NORMALIZER,
    "random_state": _SEED,
    "tol": _real_in(0, math.inf),
}
COLUMN_TRANSFORMER = {
    "transformers": _parts(with_columns=True),
    "remainder": _rule(
        lambda v: _is_part(v), "'drop', 'passthrough' or a transformer rosenblatt stores"
    ),
    "sparse_threshold": _real_in(0, 1),
    "n_jobs": _JOBS,
    "transformer_weights": _WEIGHTS,
    "verbose": _BOOLEAN,
    "verbose_feature_names_out": _BOOLEAN,
}
FEATURE_UNION = {
    "transformer_list": _parts(with_columns=False),
    "n_jobs": _JOBS,
    "transformer_weights": _WEIGHTS,
    "verbose": _BOOLEAN,
    "verbose_feature_names_out": _BOOLEAN,
}
_VECTORIZER_RULES = {
    "input": _one_of("content"),
    "encoding": _rule(_codec, "the name of a text encoding (codecs.lookup), 40 chars at most"),
    "decode_error": _one_of("strict", "ignore", "replace"),
    "strip_accents": _one_of(None, "ascii", "unicode"),
    "lowercase": _BOOLEAN,
    "preprocessor": _one_of(None),
    "tokenizer": _one_of(None),
    "stop_words": _rule(
        _stop_words,
        f"None, 'english' or a list of at most {_MAX_STOP_WORDS} str of at most "
        f"{_MAX_WORD_CHARS} chars",
    ),
    "token_pattern": _rule(
        lambda value: value is None or (type(value) is str and value in SAFE_TOKEN_PATTERNS),
        "None or one of rosenblatt.persistence.SAFE_TOKEN_PATTERNS "
        + ", ".join(repr(p) for p in SAFE_TOKEN_PATTERNS),
    ),
    "ngram_range": _rule(
        _ngram_range, f"a pair (lo, hi) of ints with 1 <= lo <= hi <= {_MAX_NGRAM}"
    ),
    "analyzer": _one_of("word", "char", "char_wb"),
    "binary": _BOOLEAN,
    "dtype": _rule(_number_dtype, "a numpy float or int dtype"),
}
_COUNT_RULES = {
    **_VECTORIZER_RULES,
    "max_df": _rule(_document_frequency, f"a float in [0, 1] or an int from 0 to {MAX_INDEX}"),
    "min_df": _rule(_document_frequency, f"a float in [0, 1] or an int from 0 to {MAX_INDEX}"),
    "max_features": _int_in(1, MAX_INDEX, none=True),
    "vocabulary": _rule(
        _vocabulary,
        f"None, or a dict (or list) of str of at most {_MAX_WORD_CHARS} chars to ints",
    ),
}
_IDF_RULES = {
    "norm": _NORM,
    "use_idf": _BOOLEAN,
    "smooth_idf": _BOOLEAN,
    "sublinear_tf": _BOOLEAN,
}

# The values a model file may give the parameters of the classes that read text: a
# crafted value could make predict read other files (input="filename"), hang (a
# catastrophic token_pattern) or exhaust memory; and of the preprocessing before a
# classifier (above). Loading refuses any other value, and any parameter of these classes
# not listed unless it has the constructor's default; saving refuses the same models, so
# that no file is written that would not load. {parameter: (test(value) -> bool, allowed
# values in words)}; each class's record (.records) names its set.
COUNT_VECTORIZER = _COUNT_RULES
TFIDF_VECTORIZER = {**_COUNT_RULES, **_IDF_RULES}
HASHING_VECTORIZER = {
    **_VECTORIZER_RULES,
    "n_features": _int_in(1, "MODEL_MAX_HASH_FEATURES"),
    "norm": _NORM,
    "alternate_sign": _BOOLEAN,
}
TFIDF_TRANSFORMER = _IDF_RULES
TFDF_TRANSFORMER = {"norm": _one_of("l2", None)}
CALIBRATED = {
    # the classifier is an estimator node: only registered classes are built
    "estimator": _rule(lambda value: True, "a classifier"),
    "method": _one_of(*CALIBRATION_METHODS),
    "cv": _int_in(2, MAX_INDEX, none=True),
    "n_jobs": _int_in(-MAX_INDEX, MAX_INDEX, none=True),
    "ensemble": _one_of(True, False, "auto"),
}
ONLINE_CALIBRATED = {
    # the estimator is an estimator node: only registered classes are built
    "estimator": _rule(lambda value: True, "a classifier"),
    "calibeating": _one_of("tracking", None),
    "n_bins": _int_in(1, "MAX_CALIBRATION_BINS"),
    "gamma": _POSITIVE,
    "rho": _POSITIVE,
    "radius": _POSITIVE,
    "batch_size": _int_in(1, MAX_INDEX),
}


UNSAFE_WHY = (
    "they could make predict read other files, hang, run out of memory or run code, or "
    "need fitted state that a model file does not keep"
)


def unsafe_parameter(
    rules: Mapping[str, Any], cls: Any, params: Mapping[str, Any]
) -> tuple[str, str] | None:
    """``(name, allowed)`` of the first parameter in ``params`` that ``rules`` (a class's set,
    above) refuses for the class ``cls`` (whose defaults a parameter without a rule must
    keep), or None when all are allowed."""
    defaults = None
    for name, value in params.items():
        rule = rules.get(name)
        if rule is not None:
            if not rule[0](value):
                return name, rule[1]
            continue
        if defaults is None:
            defaults = {
                p.name: p.default
                for p in inspect.signature(cls).parameters.values()
                if p.default is not inspect.Parameter.empty
            }
        default = defaults.get(name, inspect.Parameter.empty)
        if not (
            (default is None or type(default) in (bool, int, float, str))
            and type(value) is type(default)
            and value == default
        ):
            return name, f"its default {default!r:.60} (rosenblatt does not know this parameter)"
    return None
