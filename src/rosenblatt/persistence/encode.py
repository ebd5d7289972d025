"""Encode a fitted model as a tree of JSON nodes and a list of numpy arrays.

The model is stored from its parameters and its fitted state, never from its
``__dict__``: an estimator of :data:`~rosenblatt.persistence.REGISTRY` (or its learner
without scikit-learn's base classes) as its class, its
``get_params(deep=False)`` and its public fitted attributes (and the fitted properties of
:data:`~rosenblatt.persistence.FITTED_PROPERTIES`); a training state of the engine as its
``to_state()``; values as JSON or as the typed nodes the package docstring lists. Anything
else (a function, an object array of more than str, an unregistered class, a parameter
value the rules refuse) is refused with the attribute named, and what is about to be
written is decoded with the loader's checks first (:func:`encode`): no file is written
that would not load.

>>> from rosenblatt.persistence.encode import _Writer
>>> writer = _Writer()
>>> writer.value({"a": (1, float("inf"))}, "x")
{'$': 'dict', 'items': [['a', {'$': 'tuple', 'items': [1, {'$': 'float', 'value': 'inf'}]}]]}
>>> writer.value(print, "x.callback")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
TypeError: Cannot save x.callback: a builtins.builtin_function_or_method is not something...
"""

from __future__ import annotations

import json
import math
from typing import Any, NoReturn

import numpy as np

from .._core.random_states import BIT_GENERATORS, describe, legacy_state
from .._core.sparse import is_sparse
from .._core.validation import BrokenInvariant
from .decode import Reader
from .policy import (
    ARRAY_KINDS,
    CALLBACK_PARAMETERS,
    FITTED_PROPERTIES,
    REGISTRY,
    SCALAR_KINDS,
    SPARSE_FORMATS,
    STATE_REGISTRY,
    UNSAFE_WHY,
    is_fitted_name,
    key_of,
    params_of,
    unsafe_parameter,
)
from .records import record_of

__all__ = ["encode"]


def encode(model: object) -> tuple[str, dict[str, Any], list[np.ndarray]]:
    """``(key, tree, arrays)``: the registry key of ``model``, its tree of JSON nodes
    and the arrays the tree's ``arrays/<n>.npy`` members name, checked as load() would
    check them.

    Raises
    ------
    TypeError
        If the model holds something a model file may not (the message names it).
    ValueError
        If a parameter value is one loading refuses, or the model breaks what its class
        declares (rosenblatt.persistence.invariants).
    """
    key = key_of(type(model))
    if key is None:
        _refuse(model, type(model).__name__, "(the model itself) ")
    writer = _Writer()
    tree = writer.estimator(model, key, type(model).__name__)
    _check_written(model, tree, writer.arrays)
    return key, tree, writer.arrays


def _check_written(model, tree, arrays):
    """Decode what is about to be written with load()'s checks: no file is written that
    would not load back."""

    def read_array(member):
        return arrays[int(member.removeprefix("arrays/").removesuffix(".npy"))]

    try:
        Reader(read_array).plain(tree)
    except BrokenInvariant as exc:
        raise ValueError(
            f"Cannot save {type(model).__name__}: {exc}, and load() refuses a model file "
            "whose values break what its class declares (rosenblatt.persistence.invariants). "
            "Save a model as fit left it (a classifier of rosenblatt, or a pipeline of "
            "transformers ending in one), without setting its fitted attributes by hand."
        ) from None


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


def _refuse(value: object, where: str, why: str = "") -> NoReturn:
    raise TypeError(
        f"Cannot save {where}: a {_type_name(value)} {why}is not something a rosenblatt "
        "model file may hold. It holds numbers, strings, lists, tuples, dicts, numpy arrays "
        "(of dtype object only when they hold str), scipy sparse matrices, numpy random "
        f"states and the classes of rosenblatt.persistence.REGISTRY: {_storable_classes()}. "
        "Convert it to one of those before saving. Pickle-based tools (pickle, joblib, "
        "skops with untrusted types) store anything, but never load a file of theirs that "
        "someone else wrote: loading it can run any code."
    )


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
            given = params_of(obj)
            for name, value in given.items():
                if name in CALLBACK_PARAMETERS:
                    continue
                if callable(value) and not isinstance(value, type):
                    raise TypeError(_callable_parameter(obj, name, value, where))
            # before encoding: a rule says best what is wrong (a callable column selector)
            rules = record_of(key).rules
            unsafe = None if rules is None else unsafe_parameter(rules, type(obj), given)
            if unsafe is not None:
                name, allowed = unsafe
                raise ValueError(
                    f"Cannot save {where}: its parameter {name}={given[name]!r:.100} is "
                    f"not one a rosenblatt model file may hold (allowed: {allowed}), because "
                    f"loading refuses other values of it: {UNSAFE_WHY}. Set it to an "
                    f"allowed value (set_params({name}=...)), fit again and save; see "
                    "rosenblatt.persistence.PARAMETER_RULES."
                )
            params = {
                # a training callback is not part of the model
                name: None if name in CALLBACK_PARAMETERS else self.value(value, f"{where}.{name}")
                for name, value in given.items()
            }
            saving = record_of(key).saving  # fitted state the format cannot see, refused
            if saving is not None:
                saving(obj, where)
            # what the record says a file holds; the rest is rebuilt from it on load (the
            # public weights of an engine state): nothing is stored twice
            derived = record_of(key).derived_names
            fitted = {
                name: self.value(value, f"{where}.{name}")
                for name, value in vars(obj).items()
                if is_fitted_name(name) and name not in derived
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
            if value.dtype.kind not in SCALAR_KINDS:
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
        if isinstance(value, (np.random.RandomState, np.random.Generator)):
            return self._random_source(value, where)
        key = key_of(type(value), STATE_REGISTRY)
        if key is not None:
            return self.state(value, key, where)
        key = key_of(type(value))
        if key is not None:
            return self.estimator(value, key, f"{where} ({type(value).__name__})")
        _refuse(value, where)

    def _random_source(self, value, where):
        """A RandomState as its legacy state (a tuple), a Generator as its bit generator's
        state: the one description of rosenblatt._core.random_states."""
        if isinstance(value, np.random.Generator):
            if type(value.bit_generator).__name__ not in BIT_GENERATORS:
                _refuse(value.bit_generator, where)
        kind, state = describe(value)
        if kind == "RandomState":
            return {"$": "random_state", "state": self.value(legacy_state(state), f"{where} state")}
        return {"$": "generator", "state": self.value(state, f"{where} state")}

    def _slice_end(self, value, where):
        if value is not None and type(value) is not int:
            _refuse(value, where, "in a slice ")
        return value

    def _dtype_name(self, dtype, where):
        if dtype.kind not in ARRAY_KINDS or dtype.fields is not None:
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
        elif value.dtype.hasobject or value.dtype.kind not in ARRAY_KINDS:
            _refuse(value, where, f"of dtype {value.dtype} ")
        self.arrays.append(value)
        return node

    def _sparse(self, value, where):
        import scipy.sparse as sp  # loaded: value is one of its matrices

        fmt = value.format
        if fmt not in SPARSE_FORMATS:
            _refuse(value, where)
        csr = value.tocsr()
        return {
            "$": "sparse",
            "format": fmt,
            "array": isinstance(value, sp.sparray),
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
