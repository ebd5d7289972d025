"""Save and load fitted models without pickle: loading a file never runs code from it.

A model file is a zip archive:

- ``manifest.json``: the format name ``"rosenblatt-model"``, the format version,
  the library version, the versions of rosenblatt, numpy, scipy and
  scikit-learn that wrote the file, the model's class and parameters, optional
  metadata and the SHA-256 of every other member;
- ``state.json``: the model as a tree of nodes (below);
- ``arrays/<n>.npy``: numpy arrays, written and read with ``allow_pickle=False``.

The archive comment holds the SHA-256 of every byte before it, so a flipped or
missing byte anywhere in the file is caught before anything is decoded.

The model is stored from its parameters and its fitted state, never from its
``__dict__`` (format version 2; files of version 1 are refused with what to do):

- an **estimator** node ``{"$": "estimator", "class", "params", "fitted",
  "properties"}`` names a class of :data:`REGISTRY` and holds its constructor
  parameters (``get_params(deep=False)``; the steps of a Pipeline are estimator
  nodes in turn) and its fitted state: the public fitted attributes (names that
  end in ``_`` and do not start with ``_``, as scikit-learn defines them) and,
  for the few classes that keep one behind a private attribute, the fitted
  properties of :data:`FITTED_PROPERTIES`. Loading calls ``cls(**params)`` and
  sets the attributes, then the properties (through their setters);
- a **state** node ``{"$": "state", "class", "meta", "arrays"}`` holds a training
  state of the engine (a class of :data:`STATE_REGISTRY`) as its ``to_state()``
  gives it: JSON facts and named arrays, rebuilt with ``from_state()``;
- values: JSON numbers, strings, booleans, null and lists; ``float`` (nan and
  infinities), ``tuple``, ``slice`` (of ints), ``dict`` (keys of any of these kinds),
  ``scalar`` (a numpy scalar), ``dtype`` and ``dtype_type``, ``ndarray`` (an archive member; an
  object array of ``str``, such as the ``feature_names_in_`` of a DataFrame or
  string labels from pandas, is stored as a unicode array with ``"strings":
  "object"`` and comes back as an object array of ``str``), ``sparse`` (the CSR
  parts of a scipy sparse matrix), ``random_state`` and ``generator`` (numpy
  random sources given as ``random_state``).

Only classes on these lists are ever built, and a class is only looked up in
them, never imported because a file names it. Anything else (a function, an
object array that holds more than strings, an unregistered class) is refused
when saving, with the attribute named. Training callbacks (the ``on_epoch``
parameter) are not part of a model: they are saved as None.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import json
import math
import os
import platform
import re
import stat
import struct
import sys
import zipfile
import zlib
from importlib import import_module

import numpy as np

from ._config import CALIBRATION_METHODS
from ._files import write_atomically
from ._invariants import (
    FITTED,
    INVARIANTS,
    MAX_POLYNOMIAL_DEGREE,
    PARAMETERS,
    BrokenInvariant,
    Plain,
    check_model,
    checked_csr,
    is_column_selector,
    is_sparse,
    polynomial_degrees,
)
from ._sklearn_derived import DERIVED_STATE
from .exceptions import ModelFileError

__all__ = [
    "CALLBACK_PARAMETERS",
    "FITTED_PROPERTIES",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "LINEAR_CLASSES",
    "PARAMETER_RULES",
    "REGISTRY",
    "SAFE_TOKEN_PATTERNS",
    "STATE_REGISTRY",
    "load",
    "load_predictor",
    "read_manifest",
    "save",
]

FORMAT_NAME = "rosenblatt-model"
FORMAT_VERSION = 2
# Format 1 rebuilt objects from their __dict__, before the training engine: not loaded.
_OLDEST_READABLE = 2

# Estimator classes a model file may contain, by "public.module.Name". Loading
# resolves a name only through this table, so a file cannot make rosenblatt
# import anything else.
REGISTRY = tuple(INVARIANTS)  # each declares what its fitted state must be (_invariants)

# Training-state classes (``to_state()`` / ``from_state(meta, arrays)``) a file may contain.
STATE_REGISTRY = (
    "rosenblatt.engine.primal.PrimalState",
    "rosenblatt.engine.dual.DualState",
    "rosenblatt.engine.votes.VoteRecord",
)

# Fitted properties a class keeps behind a private attribute, saved beside its
# public fitted attributes and restored through the property's setter.
FITTED_PROPERTIES = {
    "sklearn.feature_extraction.text.TfidfVectorizer": ("idf_",),
}


# Parameters that are training callbacks (progress bars, traces, live plots),
# never part of a model: they are saved as None.
CALLBACK_PARAMETERS = frozenset({"on_epoch"})

# Token patterns a text vectorizer in a model file may use: regular expressions that run
# in linear time (a crafted pattern such as "(a+)+$" would hang predict).
SAFE_TOKEN_PATTERNS = (
    r"(?u)\b\w\w+\b",  # scikit-learn's default, and rosenblatt's (cli/train, streaming)
    r"(?u)\b\w+\b",  # the same with one-letter words
)
_MAX_STOP_WORDS = 100_000
_MAX_WORD_CHARS = 200
_MAX_NGRAM = 10
_MAX_INDEX = 2**31 - 1


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

    bound = hi if isinstance(hi, int) else f"rosenblatt._config.{hi}"
    return _rule(test, f"{'None or ' if none else ''}an int from {lo} to {bound}")


def _limit(hi):
    if isinstance(hi, int):
        return hi
    from . import _config

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
        return 0 <= value <= _MAX_INDEX
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
    return all(_is_word(k) and _is_int(v) and 0 <= v <= _MAX_INDEX for k, v in items)


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
_SEED = _int_in(0, 2**32 - 1, none=True)
_JOBS = _int_in(-_MAX_INDEX, _MAX_INDEX, none=True)
_WEIGHTS = _rule(_weights, "None or a dict of transformer names to numbers")
_POWER_NORMALIZER = _one_of("auto", "QR", "LU", "none")
# The scikit-learn preprocessing a model may hold before its classifier: plain values only
# (no functions, no category or column lists given as arrays), and only the options whose
# fitted state a model file keeps (no infrequent categories, no dropped category, no
# missing-value indicator).
_PREPROCESSING_RULES = {
    "sklearn.preprocessing.RobustScaler": {
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
    },
    "sklearn.preprocessing.PolynomialFeatures": {
        "degree": _rule(
            lambda v: polynomial_degrees(v) is not None,
            f"an int, or a pair (low, high) of ints, from 0 to {MAX_POLYNOMIAL_DEGREE}",
        ),
        "interaction_only": _BOOLEAN,
        "include_bias": _BOOLEAN,
        "order": _one_of("C", "F"),
    },
    "sklearn.preprocessing.OneHotEncoder": {
        "categories": _one_of("auto"),
        "drop": _one_of(None),
        "sparse_output": _BOOLEAN,
        "dtype": _NUMBER_DTYPE,
        "handle_unknown": _one_of("error", "ignore", "warn", "infrequent_if_exist"),
        "min_frequency": _one_of(None),
        "max_categories": _one_of(None),
        "feature_name_combiner": _one_of("concat"),
    },
    "sklearn.preprocessing.FunctionTransformer": {  # the identity: fitted 'passthrough'
        "func": _one_of(None),
        "inverse_func": _one_of(None),
        "validate": _BOOLEAN,
        "accept_sparse": _BOOLEAN,
        "check_inverse": _BOOLEAN,
        "feature_names_out": _one_of(None, "one-to-one"),
        "kw_args": _one_of(None),
        "inv_kw_args": _one_of(None),
    },
    "sklearn.impute.SimpleImputer": {
        "missing_values": _rule(_missing_value, "None, nan, a number or a str"),
        "strategy": _one_of("mean", "median", "most_frequent", "constant"),
        "fill_value": _rule(
            lambda v: v is None or _is_word(v) or _is_real(v), "None, a number or a str"
        ),
        "copy": _BOOLEAN,
        "add_indicator": _one_of(False),
        "keep_empty_features": _BOOLEAN,
    },
    "sklearn.decomposition.PCA": {
        "n_components": _rule(
            lambda v: (
                v is None
                or (type(v) is str and v == "mle")
                or (_is_int(v) and 0 <= v <= _MAX_INDEX)
                or (_is_real(v) and 0 < v < 1)
            ),
            "None, 'mle', an int or a float between 0 and 1",
        ),
        "copy": _BOOLEAN,
        "whiten": _BOOLEAN,
        "svd_solver": _one_of("auto", "full", "covariance_eigh", "arpack", "randomized"),
        "tol": _real_in(0, math.inf),
        "iterated_power": _rule(
            lambda v: (type(v) is str and v == "auto") or (_is_int(v) and 0 <= v <= _MAX_INDEX),
            "'auto' or an int",
        ),
        "n_oversamples": _int_in(1, _MAX_INDEX),
        "power_iteration_normalizer": _POWER_NORMALIZER,
        "random_state": _SEED,
    },
    "sklearn.decomposition.TruncatedSVD": {
        "n_components": _int_in(1, _MAX_INDEX),
        "algorithm": _one_of("arpack", "randomized"),
        "n_iter": _int_in(0, _MAX_INDEX),
        "n_oversamples": _int_in(1, _MAX_INDEX),
        "power_iteration_normalizer": _POWER_NORMALIZER,
        "random_state": _SEED,
        "tol": _real_in(0, math.inf),
    },
    "sklearn.compose.ColumnTransformer": {
        "transformers": _parts(with_columns=True),
        "remainder": _rule(
            lambda v: _is_part(v), "'drop', 'passthrough' or a transformer rosenblatt stores"
        ),
        "sparse_threshold": _real_in(0, 1),
        "n_jobs": _JOBS,
        "transformer_weights": _WEIGHTS,
        "verbose": _BOOLEAN,
        "verbose_feature_names_out": _BOOLEAN,
    },
    "sklearn.pipeline.FeatureUnion": {
        "transformer_list": _parts(with_columns=False),
        "n_jobs": _JOBS,
        "transformer_weights": _WEIGHTS,
        "verbose": _BOOLEAN,
        "verbose_feature_names_out": _BOOLEAN,
    },
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
    "max_df": _rule(_document_frequency, f"a float in [0, 1] or an int from 0 to {_MAX_INDEX}"),
    "min_df": _rule(_document_frequency, f"a float in [0, 1] or an int from 0 to {_MAX_INDEX}"),
    "max_features": _int_in(1, _MAX_INDEX, none=True),
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
# classifier (_PREPROCESSING_RULES). Loading refuses any other value, and
# any parameter of these classes not listed unless it has the constructor's default;
# saving refuses the same models, so that no file is written that would not load.
# {class: {parameter: (test(value) -> bool, allowed values in words)}}
PARAMETER_RULES = {
    "sklearn.feature_extraction.text.CountVectorizer": _COUNT_RULES,
    "sklearn.feature_extraction.text.TfidfVectorizer": {**_COUNT_RULES, **_IDF_RULES},
    "sklearn.feature_extraction.text.HashingVectorizer": {
        **_VECTORIZER_RULES,
        "n_features": _int_in(1, "MODEL_MAX_HASH_FEATURES"),
        "norm": _NORM,
        "alternate_sign": _BOOLEAN,
    },
    "sklearn.feature_extraction.text.TfidfTransformer": _IDF_RULES,
    "rosenblatt.text.TfDfTransformer": {"norm": _one_of("l2", None)},
    "rosenblatt.calibration.CalibratedClassifier": {
        # the classifier is an estimator node: only registered classes are built
        "estimator": _rule(lambda value: True, "a classifier"),
        "method": _one_of(*CALIBRATION_METHODS),
        "cv": _int_in(2, _MAX_INDEX, none=True),
        "n_jobs": _int_in(-_MAX_INDEX, _MAX_INDEX, none=True),
        "ensemble": _one_of(True, False, "auto"),
    },
    **_PREPROCESSING_RULES,
}


_UNSAFE_WHY = (
    "they could make predict read other files, hang, run out of memory or run code, or "
    "need fitted state that a model file does not keep"
)


def _unsafe_parameter(key, cls, params):
    """``(name, allowed)`` of the first parameter in ``params`` that :data:`PARAMETER_RULES`
    refuses for the class ``key``, or None when all are allowed."""
    rules = PARAMETER_RULES.get(key)
    if rules is None:
        return None
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


_MANIFEST = "manifest.json"
_STATE = "state.json"
_DIGEST_BYTES = 64  # hex SHA-256 in the archive comment
_ZIP_MAGIC = b"PK\x03\x04"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same model gives the same bytes
# numpy dtype kinds that np.save/np.load handle without pickle
_ARRAY_KINDS = frozenset("biufcUS")
_SCALAR_KINDS = frozenset("biuf")
_SPARSE_FORMATS = ("csr", "csc", "coo", "lil", "dok", "bsr", "dia")
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_FITTED_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*_\Z")
_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")
# Everything a damaged archive can make zipfile, zlib, json, numpy or a constructor raise.
_DAMAGE = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    KeyError,
    IndexError,
    ValueError,
    TypeError,
    struct.error,
    UnicodeDecodeError,
    NotImplementedError,
    RuntimeError,
    OverflowError,
    RecursionError,
    AttributeError,
    MemoryError,
)
_NPY_MAGIC = b"\x93NUMPY"
_READ_PIECE = 1 << 20  # bytes inflated at a time


def _resolve(key, registry=REGISTRY):
    """Return the class registered as ``key``, or None if it is not registered."""
    if not isinstance(key, str) or key not in registry:
        return None
    module, _, name = key.rpartition(".")
    try:
        return getattr(import_module(module), name)
    except (ImportError, AttributeError):
        return None


def _key_of(cls, registry=REGISTRY):
    """The registry key of exactly ``cls`` (not of a subclass), or None."""
    for key in registry:
        if key.rpartition(".")[2] == cls.__name__ and _resolve(key, registry) is cls:
            return key
    return None


def _is_fitted_name(name) -> bool:
    """A public fitted attribute: ends in ``_``, does not start with ``_``."""
    return isinstance(name, str) and _FITTED_NAME.match(name) is not None


def _type_name(value) -> str:
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__}"


def _storable_classes() -> str:
    """The classes of :data:`REGISTRY` by name, rosenblatt's then scikit-learn's."""
    names: dict[str, set] = {"rosenblatt": set(), "scikit-learn": set()}
    for key in REGISTRY:
        package = "rosenblatt" if key.startswith("rosenblatt.") else "scikit-learn"
        names[package].add(key.rpartition(".")[2])
    return "; ".join(f"from {p}, {', '.join(sorted(n))}" for p, n in names.items())


def _refuse(value, where, why=""):
    raise TypeError(
        f"Cannot save {where}: a {_type_name(value)} {why}is not something a rosenblatt "
        "model file may hold. It holds numbers, strings, lists, tuples, dicts, numpy arrays "
        "(of dtype object only when they hold str), scipy sparse matrices, numpy random "
        f"states and the classes of rosenblatt.persistence.REGISTRY: {_storable_classes()}. "
        "Convert it to one of those before saving. Pickle-based tools (pickle, joblib, "
        "skops with untrusted types) store anything, but never load a file of theirs that "
        "someone else wrote: loading it can run any code."
    )


# ---------------------------------------------------------------------- encoding
class _Writer:
    """Turn a model into a tree of JSON nodes plus a list of arrays."""

    def __init__(self):
        self.arrays: list[np.ndarray] = []
        self._open: set[int] = set()  # estimators being written (one that contains itself)

    # ------------------------------------------------------------------ estimators
    def estimator(self, obj, key, where):
        if id(obj) in self._open:
            raise TypeError(f"Cannot save {where}: the {type(obj).__name__} contains itself.")
        self._open.add(id(obj))
        try:
            given = obj.get_params(deep=False)
            for name, value in given.items():
                if name in CALLBACK_PARAMETERS:
                    continue
                if callable(value) and not isinstance(value, type):
                    raise TypeError(_callable_parameter(obj, name, value, where))
            # before encoding: a rule says best what is wrong (a callable column selector)
            unsafe = _unsafe_parameter(key, type(obj), given)
            if unsafe is not None:
                name, allowed = unsafe
                raise ValueError(
                    f"Cannot save {where}: its parameter {name}={given[name]!r:.100} is "
                    f"not one a rosenblatt model file may hold (allowed: {allowed}), because "
                    f"loading refuses other values of it: {_UNSAFE_WHY}. Set it to an "
                    f"allowed value (set_params({name}=...)), fit again and save; see "
                    "rosenblatt.persistence.PARAMETER_RULES."
                )
            params = {
                # a training callback is not part of the model
                name: None if name in CALLBACK_PARAMETERS else self.value(value, f"{where}.{name}")
                for name, value in given.items()
            }
            _check_fitted_parts(obj, key, where)
            fitted = {
                name: self.value(value, f"{where}.{name}")
                for name, value in vars(obj).items()
                if _is_fitted_name(name)
            }
            properties = {}
            for name in FITTED_PROPERTIES.get(key, ()):
                try:
                    value = getattr(obj, name)
                except (AttributeError, ValueError):  # not fitted (NotFittedError is both)
                    continue
                properties[name] = self.value(value, f"{where}.{name}")
        finally:
            self._open.discard(id(obj))
        return {
            "$": "estimator",
            "class": key,
            "params": params,
            "fitted": fitted,
            "properties": properties,
        }

    def state(self, value, key, where):
        meta, arrays = value.to_state()
        try:
            meta = json.loads(json.dumps(meta, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"Cannot save {where}: the meta of its to_state() is not plain JSON ({exc})."
            ) from None
        nodes = {}
        for name, array in arrays.items():
            if not isinstance(name, str) or type(array) is not np.ndarray:
                _refuse(array, f"{where} (to_state array {name!r})")
            nodes[name] = self.array(array, f"{where} (to_state array {name!r})")
        return {"$": "state", "class": key, "meta": meta, "arrays": nodes}

    # ------------------------------------------------------------------ values
    def value(self, value, where):
        if value is None or isinstance(value, (bool, str)):
            return value
        if type(value) is int:
            return value
        if type(value) is float:
            return value if math.isfinite(value) else {"$": "float", "value": repr(value)}
        if type(value) is list:
            return [self.value(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if type(value) is tuple:
            return {
                "$": "tuple",
                "items": [self.value(v, f"{where}[{i}]") for i, v in enumerate(value)],
            }
        if type(value) is dict:
            items = []
            for k, v in value.items():
                key = self.value(k, f"{where} key {k!r}")
                if isinstance(key, list) or (
                    isinstance(key, dict) and key["$"] not in ("tuple", "scalar", "float")
                ):
                    _refuse(k, f"{where} key {k!r}", "used as a dict key ")
                items.append([key, self.value(v, f"{where}[{k!r}]")])
            return {"$": "dict", "items": items}
        if type(value) is np.ndarray:
            return self.array(value, where)
        if type(value) is slice:  # where a ColumnTransformer's parts lie in its output
            return {
                "$": "slice",
                "items": [self._slice_end(v, where) for v in (value.start, value.stop, value.step)],
            }
        if isinstance(value, np.generic):
            if value.dtype.kind not in _SCALAR_KINDS:
                _refuse(value, where, f"of dtype {value.dtype} ")
            return {
                "$": "scalar",
                "dtype": value.dtype.str,
                "value": self.value(value.item(), where),
            }
        if isinstance(value, np.dtype):
            return {"$": "dtype", "name": self._dtype_name(value, where)}
        if isinstance(value, type) and issubclass(value, np.generic):
            return {"$": "dtype_type", "name": self._dtype_name(np.dtype(value), where)}
        if is_sparse(value):
            return self._sparse(value, where)
        if isinstance(value, np.random.RandomState):
            return {
                "$": "random_state",
                "state": self.value(value.get_state(legacy=True), f"{where} state"),
            }
        if isinstance(value, np.random.Generator):
            if type(value.bit_generator).__name__ not in _BIT_GENERATORS:
                _refuse(value.bit_generator, where)
            return {
                "$": "generator",
                "state": self.value(value.bit_generator.state, f"{where} state"),
            }
        key = _key_of(type(value), STATE_REGISTRY)
        if key is not None:
            return self.state(value, key, where)
        key = _key_of(type(value))
        if key is not None:
            return self.estimator(value, key, f"{where} ({type(value).__name__})")
        _refuse(value, where)

    def _slice_end(self, value, where):
        if value is not None and type(value) is not int:
            _refuse(value, where, "in a slice ")
        return value

    def _dtype_name(self, dtype, where):
        if dtype.kind not in _ARRAY_KINDS or dtype.fields is not None:
            _refuse(dtype, where, f"({dtype}) ")
        return dtype.str

    def array(self, value, where):
        node = {"$": "ndarray", "member": f"arrays/{len(self.arrays)}.npy"}
        if value.dtype == np.dtype(object):
            odd = [v for v in value.ravel() if not isinstance(v, str) or v.endswith("\x00")]
            if odd:
                what = (
                    f"a {_type_name(odd[0])}"
                    if not isinstance(odd[0], str)
                    else "a str that ends in NUL (unicode arrays cannot keep it)"
                )
                _refuse(
                    value,
                    where,
                    f"of dtype object holding {what} (object arrays may only hold str) ",
                )
            value = value.astype(str)
            node["strings"] = "object"
        elif value.dtype.hasobject or value.dtype.kind not in _ARRAY_KINDS:
            _refuse(value, where, f"of dtype {value.dtype} ")
        self.arrays.append(value)
        return node

    def _sparse(self, value, where):
        fmt = value.format
        if fmt not in _SPARSE_FORMATS:
            _refuse(value, where)
        csr = value.tocsr()
        return {
            "$": "sparse",
            "format": fmt,
            "array": isinstance(value, sys.modules["scipy.sparse"].sparray),
            "shape": list(csr.shape),
            **{
                part: self.array(np.asarray(getattr(csr, part)), f"{where}.{part}")
                for part in ("data", "indices", "indptr")
            },
        }


def _callable_parameter(obj, name, value, where):
    owner = type(obj).__name__
    what = getattr(value, "__qualname__", _type_name(value))
    if owner == "KernelPerceptron" and name == "kernel":
        todo = (
            "Use a named kernel ('linear', 'poly', 'rbf' or 'sigmoid'), or compute the "
            "kernel matrices with your function and use kernel='precomputed'; then fit "
            "again and save."
        )
    else:
        todo = (
            f"Set {name} to a value that is not a function (set_params({name}=...)) and "
            "fit again, or rebuild the model in code instead of saving it."
        )
    return (
        f"Cannot save {where}: its parameter {name!r} is a callable ({what}), and a "
        f"rosenblatt model file stores no code. {todo}"
    )


def _check_fitted_parts(obj, key, where):
    """Refuse fitted state that lives only in private attributes the format cannot see."""
    if (
        key == "sklearn.feature_extraction.text.TfidfVectorizer"
        and not obj.use_idf
        and hasattr(obj, "vocabulary_")
    ):
        raise TypeError(
            f"Cannot save {where}: a fitted TfidfVectorizer(use_idf=False) keeps its "
            "transformer in a private attribute that a model file does not store. Use "
            "CountVectorizer followed by TfidfTransformer(use_idf=False) instead (the same "
            "features), fit again and save."
        )


# ---------------------------------------------------------------------- decoding
class _Reader:
    """Rebuild a model from a tree of JSON nodes and the archive's arrays.

    Two steps: :meth:`plain` decodes the tree (only allow-listed classes, parameter and
    attribute names, values) and checks every estimator in it against its class's
    declared invariants (:mod:`rosenblatt._invariants`), building nothing; then
    :meth:`build` makes the estimators. The command line's predictor takes the checked
    tree of a linear model as it is, so every file :func:`load` refuses, it refuses.
    """

    def __init__(self, read_array):
        self._read_array = read_array

    def plain(self, node) -> Plain:
        """The estimator ``node`` decoded and checked, not built."""
        if not isinstance(node, dict) or node.get("$") != "estimator":
            raise ValueError("the model is not an estimator node")
        key = node.get("class")
        if not isinstance(key, str) or key not in REGISTRY:
            raise _ForeignClass(key)
        params, fitted = node.get("params"), node.get("fitted")
        properties = node.get("properties", {})
        if (
            not isinstance(params, dict)
            or not isinstance(fitted, dict)
            or not isinstance(properties, dict)
        ):
            raise ValueError(f"the parameters or fitted state of a {key} are not JSON objects")
        unknown = sorted(set(params) - PARAMETERS[key])
        if unknown:
            raise _Incompatible(f"the {key} installed here has no parameters {unknown!r:.200}")
        for name in fitted:
            if not _is_fitted_name(name) or name not in FITTED[key]:
                raise ValueError(f"{name!r:.60} is not a fitted attribute of {key}")
        for name in properties:
            if name not in FITTED_PROPERTIES.get(key, ()):
                raise ValueError(f"{name!r:.60} is not a fitted property of {key}")
        values = {name: self.value(value) for name, value in params.items()}
        if key in PARAMETER_RULES:  # the classes that read text: their class is imported
            unsafe = _unsafe_parameter(key, _resolve(key), values)
            if unsafe is not None:
                name, allowed = unsafe
                raise _UnsafeParameter(f"{key} parameter {name}={values[name]!r:.100}", allowed)
        model = Plain(
            key,
            values,
            {name: self.value(value) for name, value in fitted.items()},
            {name: self.value(value) for name, value in properties.items()},
        )
        check_model(model)  # before any estimator, broadcast or compiled loop sees it
        return model

    def build(self, model: Plain):
        """The estimator a checked :meth:`plain` tree describes (the ones it holds too)."""
        cls = _resolve(model.key)
        if cls is None:
            raise _ForeignClass(model.key)
        # plain() checked the names against the declared table; this catches an installed
        # scikit-learn whose class has lost one of them (a version skew, not a crafted file)
        unknown = sorted(set(model.params) - set(inspect.signature(cls).parameters))
        if unknown:
            raise _Incompatible(
                f"the {model.key} installed here has no parameters {unknown!r:.200}"
            )
        built = cls(**{name: self._built(value) for name, value in model.params.items()})
        for name, value in model.fitted.items():
            if hasattr(cls, name):
                raise ValueError(f"{name!r:.60} is not a fitted attribute of {model.key}")
            setattr(built, name, self._built(value))
        for name, value in model.properties.items():
            setattr(built, name, self._built(value))
        if model.fitted and model.key in DERIVED_STATE:
            DERIVED_STATE[model.key](built)
        return built

    def _built(self, value):
        """``value`` with every :class:`Plain` estimator in it built."""
        if isinstance(value, Plain):
            return self.build(value)
        if type(value) in (list, tuple):
            return type(value)(self._built(v) for v in value)
        if type(value) is dict:
            return {k: self._built(v) for k, v in value.items()}
        return value

    def value(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.value(v) for v in node]
        if not isinstance(node, dict):
            raise ValueError(f"unexpected JSON value {node!r:.60}")
        kind = node.get("$")
        if kind == "float":
            return float(_choose(node["value"], ("nan", "inf", "-inf")))
        if kind == "tuple":
            return tuple(self.value(v) for v in node["items"])
        if kind == "slice":
            ends = node["items"]
            if not (
                isinstance(ends, list)
                and len(ends) == 3
                and all(v is None or (type(v) is int and abs(v) <= _MAX_INDEX) for v in ends)
            ):
                raise ValueError(f"a slice of {ends!r:.60}: not three ints or nulls")
            return slice(*ends)
        if kind == "dict":
            return {self.value(k): self.value(v) for k, v in node["items"]}
        if kind == "scalar":
            value = self.value(node["value"])
            if not isinstance(value, (bool, int, float)):
                raise ValueError("a numpy scalar that is not a number")
            return _safe_dtype(node["dtype"], _SCALAR_KINDS).type(value)
        if kind == "dtype":
            return _safe_dtype(node["name"], _ARRAY_KINDS)
        if kind == "dtype_type":
            return _safe_dtype(node["name"], _ARRAY_KINDS).type
        if kind == "ndarray":
            return self.array(node)
        if kind == "sparse":
            return self._sparse(node)
        if kind == "random_state":
            state = self.value(node["state"])
            if not (isinstance(state, tuple) and state and state[0] == "MT19937"):
                raise ValueError("a random state that is not MT19937")
            random_state = np.random.RandomState()
            random_state.set_state(state)
            return random_state
        if kind == "generator":
            state = self.value(node["state"])
            name = _choose(state["bit_generator"], _BIT_GENERATORS)
            bit_generator = getattr(np.random, name)()
            bit_generator.state = state
            return np.random.Generator(bit_generator)
        if kind == "state":
            return self._state(node)
        if kind == "estimator":
            return self.plain(node)
        raise ValueError(f"unknown node kind {kind!r:.40}")

    def array(self, node):
        if not (isinstance(node, dict) and node.get("$") == "ndarray"):
            raise ValueError(f"an array node was expected, not {_json_kind(node)}")
        array = self._read_array(node["member"])
        strings = node.get("strings")
        if strings is None:
            return array
        _choose(strings, ("object",))
        if array.dtype.kind != "U":
            raise ValueError("an object array of str not stored as a unicode array")
        return array.astype(object)

    def _state(self, node):
        key = node["class"]
        cls = _resolve(key, STATE_REGISTRY)
        if cls is None:
            raise _ForeignClass(key)
        meta, arrays = node["meta"], node["arrays"]
        if not isinstance(meta, dict) or not isinstance(arrays, dict):
            raise ValueError(f"the meta or arrays of a {key} are not JSON objects")
        arrays = {name: self.array(part) for name, part in arrays.items()}
        state = cls.from_state(meta, arrays)
        if type(state) is not cls:
            raise ValueError(f"{key}.from_state did not return a {key}")
        return state

    def _sparse(self, node):
        import scipy.sparse as sp

        fmt = _choose(node["format"], _SPARSE_FORMATS)
        shape = node["shape"]
        if not isinstance(shape, list):
            raise ValueError(f"a sparse matrix of shape {shape!r:.80}: not a list of two ints")
        parts = [self.array(node[p]) for p in ("data", "indices", "indptr")]
        csr = checked_csr(*parts, shape)
        _check_conversion(csr, fmt)
        value = csr if fmt == "csr" else csr.asformat(fmt)
        if node.get("array") is True:
            value = getattr(sp, f"{fmt}_array")(value)
        return value


def _check_conversion(csr, fmt):
    """Refuse a sparse matrix whose stored format would take more memory than a model
    may (a 1 x 2**31 row is a few bytes in CSR and 16 GiB of column pointers in CSC)."""
    from . import _config

    rows, columns = csr.shape
    if fmt == "csc":
        needed = 8 * (columns + 1)
    elif fmt == "dia":
        offsets = csr.indices - np.repeat(np.arange(rows), np.diff(csr.indptr))
        needed = 8 * np.unique(offsets).shape[0] * columns
    elif fmt == "lil":
        needed = 128 * rows  # two lists per row
    else:  # coo, dok, bsr: about the entries themselves
        needed = 32 * csr.nnz
    limit = _config.MODEL_MAX_TOTAL_BYTES
    if needed > limit:
        raise ValueError(
            f"a {rows} x {columns} sparse matrix stored as {fmt} would take {needed} bytes, "
            f"more than the {limit} a model may (rosenblatt._config.MODEL_MAX_TOTAL_BYTES)"
        )


class _Incompatible(Exception):
    """The file fits the format but not the classes installed here (other versions)."""


class _UnsafeParameter(Exception):
    """A parameter value outside :data:`PARAMETER_RULES`."""


class _ForeignClass(Exception):
    def __init__(self, key):
        super().__init__(key)
        self.key = key


def _json_kind(node) -> str:
    """What a JSON value is, for messages."""
    if isinstance(node, dict):
        return f"a {node.get('$')!r:.40} node" if "$" in node else "a JSON object"
    return f"a JSON {type(node).__name__} {node!r:.40}"


def _choose(value, allowed):
    if value not in allowed:
        raise ValueError(f"{value!r:.40} is not one of {allowed}")
    return value


def _safe_dtype(name, kinds):
    if not isinstance(name, str):
        raise ValueError("a dtype name must be a string")
    dtype = np.dtype(name)
    if dtype.kind not in kinds or dtype.hasobject or dtype.fields is not None:
        raise ValueError(f"dtype {name!r} is not allowed")
    return dtype


# ---------------------------------------------------------------------- save
def _npy_bytes(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def _describe_params(estimator) -> dict:
    """``get_params(deep=False)`` for people and tools reading the manifest (not used to load)."""
    get_params = getattr(estimator, "get_params", None)
    if get_params is None:
        return {}
    described: dict = {}
    for name, value in get_params(deep=False).items():
        if name in CALLBACK_PARAMETERS:
            described[name] = None
        elif (
            value is None
            or isinstance(value, (bool, int, str))
            or (isinstance(value, float) and math.isfinite(value))
        ):
            described[name] = value
        else:  # without memory addresses: the same model gives the same bytes
            described[name] = _ADDRESS.sub("", repr(value))[:200]
    return described


def _versions() -> dict:
    """The versions of what wrote a file (scikit-learn only when it is loaded)."""
    from . import __version__

    sklearn = sys.modules.get("sklearn")
    return {
        "rosenblatt": __version__,
        "numpy": np.__version__,
        "scipy": import_module("scipy").__version__,
        "scikit-learn": getattr(sklearn, "__version__", None),
        "python": platform.python_version(),
    }


def _check_written(model, tree, arrays):
    """Decode what is about to be written with load()'s checks: no file is written that
    would not load back."""

    def read_array(member):
        return arrays[int(member.removeprefix("arrays/").removesuffix(".npy"))]

    try:
        _Reader(read_array).plain(tree)
    except BrokenInvariant as exc:
        raise ValueError(
            f"Cannot save {type(model).__name__}: {exc}, and load() refuses a model file "
            "whose values break what its class declares (rosenblatt._invariants). Save a "
            "model as fit left it (a classifier of rosenblatt, or a pipeline of transformers "
            "ending in one), without setting its fitted attributes by hand."
        ) from None


def _archive_bytes(model, metadata) -> bytes:
    from . import __version__

    key = _key_of(type(model))
    if key is None:
        _refuse(model, type(model).__name__, "(the model itself) ")
    writer = _Writer()
    state = writer.estimator(model, key, type(model).__name__)
    _check_written(model, state, writer.arrays)
    members = {_STATE: json.dumps(state, allow_nan=False, separators=(",", ":")).encode()}
    for k, array in enumerate(writer.arrays):
        members[f"arrays/{k}.npy"] = _npy_bytes(array)
    manifest = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "library_version": __version__,
        "versions": _versions(),
        "class": key,
        "params": _describe_params(model),
        "metadata": metadata or {},
        "sha256": {name: hashlib.sha256(data).hexdigest() for name, data in members.items()},
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in [(_MANIFEST, json.dumps(manifest, indent=1).encode())] + list(
            members.items()
        ):
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.external_attr = 0o644 << 16  # rw-r--r-- when unzipped
            archive.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
        archive.comment = b"0" * _DIGEST_BYTES  # placeholder of the final length
    data = buffer.getvalue()
    digest = hashlib.sha256(data[:-_DIGEST_BYTES]).hexdigest().encode()
    return data[:-_DIGEST_BYTES] + digest


def save(model, path, *, metadata=None) -> None:
    """Save a fitted model to ``path`` in rosenblatt's pickle-free format.

    The model is stored from its constructor parameters and its fitted state
    (public fitted attributes, and the engine's training state through its
    ``to_state``), so ``predict``, ``decision_function``, ``partial_fit`` and
    ``warm_start`` carry on after :func:`load`. The ``on_epoch`` training
    callback is not part of the model and is saved as None.

    The file is written to a temporary file in the same directory, flushed to
    disk and renamed over ``path`` in one step, so ``path`` either keeps its old
    content or gets the complete new file; nothing is left behind on failure.

    Parameters
    ----------
    model : estimator
        A rosenblatt estimator, or a scikit-learn :class:`~sklearn.pipeline.Pipeline`
        of registered steps (for example a text vectorizer and a perceptron).
    path : str or path-like
        Where to write the model.
    metadata : dict, default=None
        JSON-serialisable notes stored in the manifest (the command line keeps
        the training data's format there); read them back with :func:`read_manifest`.

    Raises
    ------
    TypeError
        If the model holds something the format does not allow: a callable
        parameter (say a callable ``kernel``; the message says what to use
        instead), a function, an object array that holds more than strings, an
        unregistered class. The message names the attribute; no file is written.
    ValueError
        If a text step has a parameter value that :func:`load` refuses (see
        :data:`PARAMETER_RULES`: say a custom ``token_pattern`` or
        ``input="filename"``). The message names the parameter; no file is written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt import Perceptron
    >>> from rosenblatt.persistence import load, save
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> clf = Perceptron(shuffle=False).fit(X, y)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.rbm"
    >>> save(clf, path)
    >>> load(path).predict(X)
    array([-1,  1,  1,  1])
    """
    data = _archive_bytes(model, metadata)  # fails before any file is touched
    write_atomically(path, data)


# ---------------------------------------------------------------------- load
def _fail(path, what, todo):
    # one line, whatever a crafted value's repr spans (an array's has line breaks)
    return ModelFileError(f"{path}: {' '.join(str(what).split())}; {todo}")


_RESAVE = "re-save the model with rosenblatt.save (or `rosenblatt train`) and try again"
_RETRAIN = (
    "re-train the model and save it again (rosenblatt.save(model, path), or "
    "`rosenblatt train DATA --model PATH`)"
)


def _writers(manifest) -> str:
    """What wrote a file, from its manifest (for messages)."""
    versions = manifest.get("versions")
    if isinstance(versions, dict) and versions:
        return ", ".join(
            f"{name} {version}"
            for name, version in versions.items()
            if name != "python" and isinstance(version, str)
        )
    return f"rosenblatt {manifest.get('library_version', '?')}"


def _read_bytes(path, limit):
    """``(size, data)``: the file's size and its bytes (none past ``limit + 1``)."""
    with open(path, "rb") as handle:
        status = os.fstat(handle.fileno())
        size = status.st_size
        if size > limit:
            return size, b""
        if stat.S_ISREG(status.st_mode):
            return size, handle.read(size + 1)  # +1: a file that grew since is caught
        # a pipe or a device (/dev/zero): its size says nothing, read it in pieces
        pieces, got = [], 0
        while got <= limit:
            piece = handle.read(min(_READ_PIECE, limit + 1 - got))
            if not piece:
                break
            pieces.append(piece)
            got += len(piece)
        return size, b"".join(pieces)


def _open(path):
    """Read and check a model file; return (manifest, archive)."""
    from . import _config

    limit = _config.MODEL_MAX_TOTAL_BYTES
    size, data = _read_bytes(path, limit)
    if size > limit or len(data) > limit:
        raise _fail(
            path,
            f"the model file is larger than {limit} bytes, the most rosenblatt reads "
            "(rosenblatt._config.MODEL_MAX_TOTAL_BYTES)",
            "if you trust the file, raise that limit (rosenblatt._config."
            "MODEL_MAX_TOTAL_BYTES = ...) and load it again",
        )
    if not data.startswith(_ZIP_MAGIC):
        raise _fail(
            path,
            "not a rosenblatt model file (it is not a zip archive)",
            "pass a file written by rosenblatt.save or `rosenblatt train --model`",
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _DAMAGE:
        raise _fail(
            path,
            "the model file is truncated or damaged (its zip directory cannot be read)",
            _RESAVE,
        ) from None
    _check_sizes(path, archive)
    try:
        raw_manifest = _inflate(path, archive, _MANIFEST)
    except KeyError:
        raise _fail(
            path,
            "a zip archive but not a rosenblatt model (no manifest.json)",
            "pass a file written by rosenblatt.save",
        ) from None
    except ModelFileError:
        raise
    except _DAMAGE:
        raise _fail(
            path, "the model file is damaged (manifest.json fails its checksum)", _RESAVE
        ) from None
    try:
        manifest = json.loads(raw_manifest)
    except _DAMAGE:
        raise _fail(
            path, "the model file is damaged (manifest.json is not valid JSON)", _RESAVE
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise _fail(
            path,
            f"not a rosenblatt model (its manifest does not name the format {FORMAT_NAME!r})",
            "pass a file written by rosenblatt.save",
        )
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _fail(path, f"the manifest has an invalid format_version {version!r}", _RESAVE)
    if version > FORMAT_VERSION:
        from . import __version__

        raise _fail(
            path,
            f"written by rosenblatt {manifest.get('library_version', '?')} in model format "
            f"version {version}, newer than this rosenblatt {__version__} reads (up to "
            f"version {FORMAT_VERSION})",
            "upgrade rosenblatt (pip install --upgrade rosenblatt) to load it",
        )
    if hashlib.sha256(data[:-_DIGEST_BYTES]).hexdigest().encode() != data[-_DIGEST_BYTES:]:
        raise _fail(
            path,
            "the model file was altered or damaged (its SHA-256 checksum does not match)",
            _RESAVE,
        )
    return manifest, archive


def _check_sizes(path, archive):
    """Refuse, before inflating anything, members that declare more bytes than the limits."""
    from . import _config

    member_limit, total_limit = _config.MODEL_MAX_MEMBER_BYTES, _config.MODEL_MAX_TOTAL_BYTES
    total = 0
    for info in archive.infolist():
        if info.file_size > member_limit:
            raise _fail(
                path,
                f"its member {info.filename!r:.80} inflates to {info.file_size} bytes, more "
                f"than the {member_limit} a member may (rosenblatt._config."
                "MODEL_MAX_MEMBER_BYTES): a zip bomb, or a very large model",
                "if you trust the file, raise that limit (rosenblatt._config."
                "MODEL_MAX_MEMBER_BYTES = ...) and load it again",
            )
        total += info.file_size
    if total > total_limit:
        raise _fail(
            path,
            f"its members inflate to {total} bytes in all, more than the {total_limit} a "
            "model may (rosenblatt._config.MODEL_MAX_TOTAL_BYTES): a zip bomb, or a very "
            "large model",
            "if you trust the file, raise that limit (rosenblatt._config."
            "MODEL_MAX_TOTAL_BYTES = ...) and load it again",
        )


def _inflate(path, archive, name):
    """The bytes of member ``name``, inflated a piece at a time and never past the size its
    zip entry declares (which :func:`_check_sizes` has bounded)."""
    info = archive.getinfo(name)
    pieces, got = [], 0
    with archive.open(info) as member:
        while got <= info.file_size:
            piece = member.read(min(_READ_PIECE, info.file_size + 1 - got))
            if not piece:
                break
            pieces.append(piece)
            got += len(piece)
    if got > info.file_size:
        raise _fail(
            path,
            f"the model file is damaged or crafted (its member {name!r:.80} inflates to more "
            f"than the {info.file_size} bytes its zip entry declares)",
            _RESAVE,
        )
    return b"".join(pieces)


def _npy_array(path, name, data):
    """Decode an ``.npy`` member, checking its header (dtype, shape, size) before numpy
    allocates anything."""
    if not data.startswith(_NPY_MAGIC):
        return np.load(io.BytesIO(data), allow_pickle=False)  # refuses pickles (below)
    stream = io.BytesIO(data)
    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
    else:
        raise ValueError(f"{name} is in npy format {version}, which rosenblatt never writes")
    if dtype.hasobject:
        raise ValueError(f"{name} holds a pickled object (allow_pickle=False)")
    if not all(isinstance(n, int) and 0 <= n <= _MAX_INDEX for n in shape):
        raise ValueError(
            f"{name} declares an array of shape {shape!r:.80}: each dimension must be "
            f"an int from 0 to {_MAX_INDEX}"
        )
    expected = math.prod(shape) * dtype.itemsize
    held = len(data) - stream.tell()
    if expected != held:
        raise ValueError(
            f"{name} declares an array of shape {shape!r:.80} and dtype {dtype} "
            f"({expected} bytes) but holds {held} bytes"
        )
    return np.load(io.BytesIO(data), allow_pickle=False)


def read_manifest(path) -> dict:
    """Check a model file and return its manifest (format, versions, class, params, metadata).

    Nothing but the manifest is decoded, so this is a cheap way to look at a
    model; it also reads the manifest of a file :func:`load` no longer loads
    (format version 1).

    Raises
    ------
    rosenblatt.exceptions.ModelFileError
        If the file is not a model file, is damaged, or has a newer format version.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt.baselines import CentroidClassifier
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "c.rbm"
    >>> save(CentroidClassifier().fit([[0], [1]], [0, 1]), path, metadata={"note": "tiny"})
    >>> manifest = read_manifest(path)
    >>> manifest["class"], manifest["format_version"], manifest["metadata"]
    ('rosenblatt.baselines.CentroidClassifier', 2, {'note': 'tiny'})
    >>> sorted(manifest["versions"])
    ['numpy', 'python', 'rosenblatt', 'scikit-learn', 'scipy']
    """
    manifest, archive = _open(path)
    archive.close()
    return manifest


def _read(path, build):
    """Open and check a model file, decode its tree and check every estimator in it
    against its class's invariants; return the manifest and ``build(plain, reader)``,
    what a builder makes of the checked tree (:class:`~rosenblatt._invariants.Plain`)."""
    manifest, archive = _open(path)
    with archive:
        if manifest["format_version"] < _OLDEST_READABLE:
            from . import __version__

            raise _fail(
                path,
                f"written by rosenblatt {manifest.get('library_version', '?')} in model format "
                f"{manifest['format_version']}, from before the training engine, which this "
                f"rosenblatt {__version__} no longer loads (it reads formats {_OLDEST_READABLE} "
                f"to {FORMAT_VERSION})",
                _RETRAIN,
            )
        hashes = manifest.get("sha256")
        if not isinstance(hashes, dict) or set(hashes) != set(archive.namelist()) - {_MANIFEST}:
            raise _fail(
                path,
                "the model file was altered (its members do not match the manifest's list)",
                _RESAVE,
            )

        def read(name):
            if not isinstance(name, str) or name not in hashes:
                raise ValueError(f"member {name!r:.60} is not listed in the manifest")
            data = _inflate(path, archive, name)
            if hashlib.sha256(data).hexdigest() != hashes[name]:
                raise _fail(
                    path,
                    f"the model file was altered ({name} does not match its "
                    "SHA-256 in the manifest)",
                    _RESAVE,
                )
            return data

        def read_array(name):
            try:
                array = _npy_array(path, name, read(name))
            except ValueError as exc:
                if "pickle" in str(exc).lower():
                    raise _fail(
                        path,
                        f"{name} holds a pickled object, which rosenblatt never "
                        "loads (loading it could run code)",
                        "only load model files written by rosenblatt.save",
                    ) from None
                raise
            if not isinstance(array, np.ndarray) or array.dtype.hasobject:
                raise ValueError(f"{name} is not a plain numpy array")
            return array

        try:
            tree = json.loads(read(_STATE))
            reader = _Reader(read_array)
            plain = reader.plain(tree)
            if plain.key != manifest.get("class"):
                raise _fail(
                    path,
                    f"the manifest names class {manifest.get('class')!r:.120} but the state "
                    f"holds a {plain.key}",
                    _RESAVE,
                )
            built = build(plain, reader)
        except ModelFileError:
            raise
        except BrokenInvariant as exc:
            raise _fail(
                path, f"the model file is damaged or crafted: {exc!s:.300}", _RESAVE
            ) from None
        except _Incompatible as exc:
            raise _fail(
                path,
                f"written by {_writers(manifest)}: {exc}",
                "load it where those versions are installed, or re-train the model "
                "and save it again here",
            ) from None
        except _UnsafeParameter as exc:
            what, allowed = exc.args
            raise _fail(
                path,
                f"the file gives the {what}, which rosenblatt does not load (allowed: "
                f"{allowed}; other values {_UNSAFE_WHY.removeprefix('they ')}: see "
                "rosenblatt.persistence.PARAMETER_RULES)",
                "only load model files written by rosenblatt.save; if you wrote this one, "
                "set that parameter to an allowed value, fit again and save",
            ) from None
        except _ForeignClass as exc:
            raise _fail(
                path,
                f"the file asks for class {exc.key!r:.120}, which rosenblatt does "
                "not load (allowed: the classes in rosenblatt.persistence.REGISTRY "
                "and STATE_REGISTRY)",
                "only load model files written by rosenblatt.save",
            ) from None
        except _DAMAGE as exc:
            raise _fail(
                path,
                f"the model file is damaged or crafted ({type(exc).__name__}: {exc!s:.300})",
                _RESAVE,
            ) from None
    return manifest, built


def load(path):
    """Load a model saved by :func:`rosenblatt.save`.

    Only the classes in :data:`REGISTRY` and :data:`STATE_REGISTRY` are ever
    instantiated (``cls(**params)``, then the fitted attributes are set, and
    training states are rebuilt with ``from_state``), arrays are read with
    ``allow_pickle=False``, and every member is checked against its SHA-256
    before it is decoded: loading a file cannot run code.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    estimator
        The model, predicting exactly as it did when it was saved. A saved
        ``on_epoch`` callback comes back as None.

    Raises
    ------
    rosenblatt.exceptions.ModelFileError
        If the file is truncated, altered (checksum mismatch), foreign (not a
        model file, or naming a class outside the registry), written in a
        newer format version, or in format version 1 (before the training
        engine: re-train and save again); the message says what to do.
    FileNotFoundError
        If there is no file at ``path``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt.persistence import load
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "not-a-model.rbm"
    >>> _ = path.write_text("hello")
    >>> load(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.ModelFileError: ...not a rosenblatt model file (it is not a zip...
    """
    _, model = _read(path, lambda plain, reader: reader.build(plain))
    return model


# Classes whose prediction is ``labels_from_scores(linear_scores(X, coef_, intercept_))``,
# and the preprocessing a LinearPredictor can apply before them.
LINEAR_CLASSES = (
    "rosenblatt.linear.Perceptron",
    "rosenblatt.linear.AveragedPerceptron",
    "rosenblatt.baselines.CentroidClassifier",
    "rosenblatt.baselines.LinearProgramClassifier",
)
_SCALER = "sklearn.preprocessing.StandardScaler"


def load_predictor(path):
    """Load a model as cheaply as it can predict.

    A linear model (``Perceptron``, ``AveragedPerceptron``, ``CentroidClassifier``,
    ``LinearProgramClassifier``), alone or in a Pipeline after a ``StandardScaler``,
    comes back as a :class:`~rosenblatt._decision.LinearPredictor`: its coefficients
    and the standardisation, applied with numpy alone, so that predicting imports
    neither scikit-learn nor scipy nor numba and gives exactly the estimator's
    predictions. Any other model is :func:`load`-ed.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    LinearPredictor or estimator

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt import Perceptron
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.rbm"
    >>> save(Perceptron(shuffle=False).fit(X, y), path)
    >>> predictor = load_predictor(path)
    >>> type(predictor).__name__, predictor.predict(X)
    ('LinearPredictor', array([-1,  1,  1,  1]))
    """
    _, predictor = _read(path, _predictor)
    return predictor


def _predictor(model, reader):
    """A LinearPredictor for a checked linear model (alone or after a StandardScaler),
    else the estimator itself, built."""
    from ._decision import LinearPredictor

    steps = [model]
    if model.key == "sklearn.pipeline.Pipeline":
        steps = [step for _, step in model.params["steps"]]
    *before, final = steps
    if (
        final.key not in LINEAR_CLASSES
        or len(before) > 1
        or any(step.key != _SCALER for step in before)
        or "coef_" not in final.fitted  # not fitted: the estimator says so in its words
    ):
        return reader.build(model)
    fitted = final.fitted
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
    )
