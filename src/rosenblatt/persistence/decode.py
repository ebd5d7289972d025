"""Decode a model file's tree of nodes into a checked
:class:`~rosenblatt.persistence.invariants.Plain` tree, then build the estimators it describes.

Every value is checked where it is decoded (its node kind, its fields, its type, its
range), every estimator against the invariants its class declares and every training
state against the layout of its ``to_state``, so that the code the values reach (numpy,
scipy, the estimators, the compiled loops) never sees one it would fail on. What does
not fit is a ``ValueError`` (or :class:`~rosenblatt._core.validation.BrokenInvariant`, one of
them) naming it, which the loader reports as a damaged or crafted file; anything else
that decoding raises is a bug.

>>> from rosenblatt.persistence.decode import Reader
>>> reader = Reader(read_array=None)
>>> reader.value({"$": "tuple", "items": [1, {"$": "float", "value": "nan"}]})
(1, nan)
>>> reader.value({"$": "dict", "items": [[{"$": "tuple", "items": ["a", 1]}, None]]})
{('a', 1): None}
>>> reader.value({"$": "tuple", "items": 7})
Traceback (most recent call last):
...
ValueError: a 'tuple' node whose items are not a list: 7
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.random_states import from_legacy_state, rebuild
from .._core.sparse import MAX_INDEX, checked_csr
from .errors import ForeignClass, Incompatible, UnsafeParameter
from .invariants import Plain, check_model
from .policy import (
    ARRAY_KINDS,
    FITTED_PROPERTIES,
    REGISTRY,
    SCALAR_KINDS,
    SPARSE_FORMATS,
    STATE_REGISTRY,
    dtype_named,
    is_fitted_name,
    resolve,
    unsafe_parameter,
)
from .records import parameters_of, record_of


class Reader:
    """Rebuild a model from a tree of JSON nodes and the archive's arrays.

    Two steps: :meth:`plain` decodes the tree (only allow-listed classes, parameter and
    attribute names, values) and checks every estimator in it against its class's
    declared invariants (:mod:`rosenblatt.persistence.invariants`), building nothing; then
    :meth:`build` makes the estimators. The command line's predictor takes the checked
    tree of a linear model as it is, so every file :func:`load` refuses, it refuses.

    ``read_array(member)`` gives the array stored under an archive member's name.
    """

    def __init__(self, read_array: Callable[[str], np.ndarray]) -> None:
        self._read_array = read_array

    def plain(self, node: Any) -> Plain:
        """The estimator ``node`` decoded and checked, not built."""
        if not isinstance(node, dict) or node.get("$") != "estimator":
            raise ValueError("the model is not an estimator node")
        key = node.get("class")
        if not isinstance(key, str) or key not in REGISTRY:
            raise ForeignClass(key)
        params, fitted = node.get("params"), node.get("fitted")
        properties = node.get("properties", {})
        if (
            not isinstance(params, dict)
            or not isinstance(fitted, dict)
            or not isinstance(properties, dict)
        ):
            raise ValueError(f"the parameters or fitted state of a {key} are not JSON objects")
        record = record_of(key)
        unknown = sorted(set(params) - parameters_of(key))
        if unknown:
            raise Incompatible(f"the {key} installed here has no parameters {unknown!r:.200}")
        for name in fitted:
            if not is_fitted_name(name) or name not in record.fitted_names:
                raise ValueError(f"{name!r:.60} is not a fitted attribute of {key}")
        for name in properties:
            if name not in FITTED_PROPERTIES.get(key, ()):
                raise ValueError(f"{name!r:.60} is not a fitted property of {key}")
        values = {name: self.value(value) for name, value in params.items()}
        if record.rules is not None:  # the classes that read text: their class is imported
            unsafe = unsafe_parameter(record.rules, resolve(key), values)
            if unsafe is not None:
                name, allowed = unsafe
                raise UnsafeParameter(f"{key} parameter {name}={values[name]!r:.100}", allowed)
        model = Plain(
            key,
            values,
            {name: self._fitted(value) for name, value in fitted.items()},
            {name: self.value(value) for name, value in properties.items()},
        )
        check_model(model)  # before any estimator, broadcast or compiled loop sees it
        return model

    def build(self, model: Plain) -> Any:
        """The estimator a checked :meth:`plain` tree describes (the ones it holds too)."""
        cls = resolve(model.key)
        if cls is None:
            raise ForeignClass(model.key)
        # plain() checked the names against the declared table; this catches an installed
        # scikit-learn whose class has lost one of them (a version skew, not a crafted file)
        unknown = sorted(set(model.params) - set(inspect.signature(cls).parameters))
        if unknown:
            raise Incompatible(f"the {model.key} installed here has no parameters {unknown!r:.200}")
        built = cls(**{name: self._built(value) for name, value in model.params.items()})
        for name, value in (*model.fitted.items(), *model.derived.items()):
            if hasattr(cls, name):
                raise ValueError(f"{name!r:.60} is not a fitted attribute of {model.key}")
            setattr(built, name, self._built(value))
        for name, value in model.properties.items():
            setattr(built, name, self._built(value))
        private = record_of(model.key).private
        if model.fitted and private is not None:
            private(built)
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

    def value(self, node: Any) -> Any:
        """The value a JSON node describes (estimators as checked :class:`Plain` trees)."""
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.value(v) for v in node]
        if not isinstance(node, dict):
            raise ValueError(f"unexpected JSON value {node!r:.60}")
        kind = node.get("$")
        if kind == "float":
            return float(_choose(_field(node, "value"), ("nan", "inf", "-inf")))
        if kind == "tuple":
            return tuple(self.value(v) for v in _items(node))
        if kind == "slice":
            ends = _field(node, "items")
            if not (
                isinstance(ends, list)
                and len(ends) == 3
                and all(v is None or (type(v) is int and abs(v) <= MAX_INDEX) for v in ends)
            ):
                raise ValueError(f"a slice of {ends!r:.60}: not three ints or nulls")
            return slice(*ends)
        if kind == "dict":
            return dict(self._item(item) for item in _items(node))
        if kind == "scalar":
            return _scalar(self.value(_field(node, "value")), _field(node, "dtype"))
        if kind == "dtype":
            return dtype_named(_field(node, "name"), ARRAY_KINDS)
        if kind == "dtype_type":
            return dtype_named(_field(node, "name"), ARRAY_KINDS).type
        if kind == "ndarray":
            return self.array(node)
        if kind == "sparse":  # what the checks compare a value with may not be one
            raise ValueError("a sparse matrix elsewhere than as a fitted attribute")
        if kind == "random_state":  # the tuple of get_state(legacy=True)
            state = from_legacy_state(self.value(_field(node, "state")))
            return rebuild(state, "a random_state", legacy=True)
        if kind == "generator":  # its bit generator's state
            return rebuild(self.value(_field(node, "state")), "a generator")
        if kind == "state":
            return self._state(node)
        if kind == "estimator":
            return self.plain(node)
        raise ValueError(f"unknown node kind {kind!r:.40}")

    def _fitted(self, node):
        """The value of a fitted attribute: any value, or a sparse matrix (a kernel
        perceptron's support vectors), which nothing else holds."""
        if isinstance(node, dict) and node.get("$") == "sparse":
            return self._sparse(node)
        return self.value(node)

    def _item(self, item):
        """A ``[key, value]`` pair of a dict node, its key one that can be a dict's key."""
        if not (isinstance(item, list) and len(item) == 2):
            raise ValueError(f"a dict item that is not a [key, value] pair: {item!r:.60}")
        return self._key(item[0]), self.value(item[1])

    def _key(self, node):
        """A dict key as the writer stores one: a JSON scalar, a float, a numpy scalar
        or a tuple of keys (hashable, which a list, an array or an estimator is not)."""
        if isinstance(node, dict) and node.get("$") == "tuple":
            return tuple(self._key(v) for v in _items(node))
        if isinstance(node, list) or (
            isinstance(node, dict) and node.get("$") not in ("float", "scalar")
        ):
            raise ValueError(f"a dict key of {_json_kind(node)}")
        return self.value(node)

    def array(self, node: Any) -> np.ndarray:
        """The array an ``ndarray`` node names (an object array of ``str`` for one saved
        with ``"strings": "object"``)."""
        if not (isinstance(node, dict) and node.get("$") == "ndarray"):
            raise ValueError(f"an array node was expected, not {_json_kind(node)}")
        array = self._read_array(_field(node, "member"))
        strings = node.get("strings")
        if strings is None:
            return array
        _choose(strings, ("object",))
        if array.dtype.kind != "U":
            raise ValueError("an object array of str not stored as a unicode array")
        return array.astype(object)

    def _state(self, node):
        key = _field(node, "class")
        cls = resolve(key, STATE_REGISTRY)
        if cls is None:
            raise ForeignClass(key)
        meta, arrays = _field(node, "meta"), _field(node, "arrays")
        if not isinstance(meta, dict) or not isinstance(arrays, dict):
            raise ValueError(f"the meta or arrays of a {key} are not JSON objects")
        arrays = {name: self.array(part) for name, part in arrays.items()}
        record_of(key).check(meta, arrays)  # the layout from_state reads: kinds, dimensions
        state = cls.from_state(meta, arrays)
        if type(state) is not cls:
            raise ValueError(f"{key}.from_state did not return a {key}")
        return state

    def _sparse(self, node):
        import scipy.sparse as sp

        fmt = _choose(_field(node, "format"), SPARSE_FORMATS)
        shape = _field(node, "shape")
        if not isinstance(shape, list):
            raise ValueError(f"a sparse matrix of shape {shape!r:.80}: not a list of two ints")
        parts = [self.array(_field(node, p)) for p in ("data", "indices", "indptr")]
        csr = checked_csr(*parts, shape)
        _check_conversion(csr, fmt)
        value = csr if fmt == "csr" else csr.asformat(fmt)
        if node.get("array") is True:
            value = getattr(sp, f"{fmt}_array")(value)
        return value


def _field(node, name):
    """Field ``name`` of the node ``node`` (a JSON object), which every node of its kind has."""
    if name not in node:
        raise ValueError(f"a {node.get('$')!r:.40} node without its {name!r} field")
    return node[name]


def _items(node):
    """The ``items`` of a tuple or dict node: a list."""
    items = _field(node, "items")
    if not isinstance(items, list):
        raise ValueError(f"a {node['$']!r} node whose items are not a list: {items!r:.60}")
    return items


def _scalar(value, dtype_name):
    """The numpy scalar of dtype ``dtype_name`` and value ``value``, which the writer
    stores as the scalar's ``item()``: a bool, an int in the dtype's range, or a float
    (nan and infinities too) within it."""
    dtype = dtype_named(dtype_name, SCALAR_KINDS)
    if dtype.kind == "b":
        fits = type(value) is bool
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        fits = type(value) is int and info.min <= value <= info.max
    else:  # a float the dtype holds (numpy would round a larger one to infinity)
        fits = type(value) is float and not abs(value) > float(np.finfo(dtype).max)
    if not fits:
        raise ValueError(f"a numpy {dtype} scalar of value {value!r:.40}")
    return dtype.type(value)


def _check_conversion(csr, fmt):
    """Refuse a sparse matrix whose stored format would take more memory than a model
    may (a 1 x 2**31 row is a few bytes in CSR and 16 GiB of column pointers in CSC)."""
    from .._core import config as _config

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
            f"more than the {limit} a model may (rosenblatt._core.config.MODEL_MAX_TOTAL_BYTES)"
        )


def _json_kind(node) -> str:
    """What a JSON value is, for messages."""
    if isinstance(node, dict):
        return f"a {node.get('$')!r:.40} node" if "$" in node else "a JSON object"
    return f"a JSON {type(node).__name__} {node!r:.40}"


def _choose(value, allowed):
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{value!r:.40} is not one of {allowed}")
    return value
