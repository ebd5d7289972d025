"""What a model file may hold: the classes it may name, the parameter values it may give
them, and the limits on both.

Loading builds only the classes of :data:`REGISTRY` (estimators, each with the invariants
:mod:`rosenblatt.persistence.invariants` declares for it) and :data:`STATE_REGISTRY` (training
states of the engine), resolved through these tables alone: a file cannot make
rosenblatt import anything else. The classes that read text, and the scikit-learn
preprocessing a model may hold, also get their parameter values checked
(:data:`PARAMETER_RULES`): a crafted value could make predict read other files, hang
or exhaust memory. Saving refuses what loading would refuse, with the same rules.

>>> from rosenblatt.persistence.policy import REGISTRY, is_fitted_name, resolve
>>> REGISTRY[0]
'rosenblatt.Perceptron'
>>> resolve(REGISTRY[0]).__name__, resolve("os.system")
('Perceptron', None)
>>> is_fitted_name("coef_"), is_fitted_name("_private_"), is_fitted_name("alpha")
(True, False, False)
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Collection
from typing import Any

import numpy as np

from .._core.lazy import import_module
from .records import RECORDS, key_of_bare, record_of
from .rules import SAFE_TOKEN_PATTERNS, UNSAFE_WHY, unsafe_parameter  # noqa: F401 (re-exported)

__all__ = [
    "CALLBACK_PARAMETERS",
    "CLASS_LOCATIONS",
    "FITTED_PROPERTIES",
    "PARAMETER_RULES",
    "REGISTRY",
    "SAFE_TOKEN_PATTERNS",
    "STATE_REGISTRY",
]

# Estimator classes a model file may contain, by "public.module.Name" (their records'
# keys). Loading resolves a name only through this table, so a file cannot make rosenblatt
# import anything else.
REGISTRY = tuple(r.key for r in RECORDS if "state" not in r.roles)

# Training-state classes (``to_state()`` / ``from_state(meta, arrays)``) a file may contain.
# A vote record is not one: it is part of a PrimalState's, rebuilt with the sizes of its
# model (VoteRecord.from_state takes them), never a node of its own.
STATE_REGISTRY = tuple(r.key for r in RECORDS if "state" in r.roles)

# Where each class of rosenblatt a model file may name lives: registry key -> (module,
# name). The keys are the file format: the classes' public import paths (``rosenblatt.X``;
# the engine's states by their module), as scikit-learn's keys are its own; the modules
# behind them may move.
CLASS_LOCATIONS = {r.key: r.location for r in RECORDS if r.location is not None}

# Fitted properties a class keeps behind a private attribute, saved beside its
# public fitted attributes and restored through the property's setter.
FITTED_PROPERTIES = {r.key: r.properties for r in RECORDS if r.properties}

# The parameter values a file may give the classes that need them checked (.rules), by key.
PARAMETER_RULES = {r.key: r.rules for r in RECORDS if r.rules is not None}


# Parameters that are training callbacks (progress bars, traces, live plots),
# never part of a model: they are saved as None.
CALLBACK_PARAMETERS = frozenset({"on_epoch"})

# The values a file may hold besides JSON's: numpy dtype kinds that np.save/np.load handle
# without pickle, scalar kinds, sparse formats (and _invariants.BIT_GENERATORS: the bit
# generators of numpy random sources).
ARRAY_KINDS = frozenset("biufcUS")
SCALAR_KINDS = frozenset("biuf")
SPARSE_FORMATS = ("csr", "csc", "coo", "lil", "dok", "bsr", "dia")
_FITTED_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*_\Z")
# A dtype as ``dtype.str`` names it ("<f8", "|b1", "<U5"): byte order, kind, bytes.
_DTYPE_NAME = re.compile(r"[<>|=]?([a-zA-Z])([0-9]{1,9})")


def dtype_named(name: Any, kinds: Collection[str]) -> np.dtype:
    """The numpy dtype ``name`` (as ``dtype.str`` gives it, which is how the writer
    stores one) if it is of one of ``kinds`` and not empty; ValueError otherwise.

    >>> dtype_named("<f8", ARRAY_KINDS), dtype_named("|b1", SCALAR_KINDS)
    (dtype('float64'), dtype('bool'))
    >>> dtype_named("<i3", ARRAY_KINDS)
    Traceback (most recent call last):
    ...
    ValueError: dtype '<i3' is not a numpy dtype
    """
    match = _DTYPE_NAME.fullmatch(name) if isinstance(name, str) else None
    if match is None or match[1] not in kinds or int(match[2]) == 0:
        raise ValueError(f"dtype {name!r:.40} is not allowed (only {''.join(sorted(kinds))})")
    try:
        return np.dtype(name)
    except TypeError:  # numpy's word for a name it has no dtype of ("<i3", "<U999999999")
        raise ValueError(f"dtype {name!r:.40} is not a numpy dtype") from None


def _location(key):
    """The ``(module, name)`` that defines the class registered as ``key``."""
    return record_of(key).module_and_name()


def resolve(key: object, registry: Collection[str] = REGISTRY) -> type | None:
    """Return the class registered as ``key``, or None if it is not registered."""
    if not isinstance(key, str) or key not in registry:
        return None
    location = _location(key)
    if location is None:
        return None
    module, name = location
    try:
        return getattr(import_module(module), name)
    except (ImportError, AttributeError):
        return None


def key_of(cls: type, registry: Collection[str] = REGISTRY) -> str | None:
    """The registry key of exactly ``cls`` (not of a subclass), or None.

    Found by class identity, never from ``cls.__module__``: a class may move between
    modules while the key a model file names it by stays. A class's learner without
    scikit-learn's base classes (``Record.bare`` of :mod:`rosenblatt.persistence.records`) is
    saved as the class (its parameters and fitted state are the class's): its key.
    """
    bare = key_of_bare(cls)
    if bare is not None:
        return bare if bare in registry else None
    for key in registry:
        location = _location(key)
        if location is not None and location[1] == cls.__name__ and resolve(key, registry) is cls:
            return key
    return None


def is_fitted_name(name: object) -> bool:
    """A public fitted attribute: ends in ``_``, does not start with ``_``."""
    return isinstance(name, str) and _FITTED_NAME.match(name) is not None


def params_of(estimator: Any) -> dict[str, Any]:
    """``estimator.get_params(deep=False)``; for a learner without scikit-learn's base classes
    (:mod:`rosenblatt.estimators._bare`), read as that reads them: every named parameter of
    its ``__init__``, sorted by name, with its value.

    Examples
    --------
    >>> from rosenblatt.estimators import _bare
    >>> from rosenblatt import Perceptron
    >>> params_of(_bare.Perceptron(eta=0.5)) == params_of(Perceptron(eta=0.5))
    True
    """
    get_params = getattr(estimator, "get_params", None)
    if get_params is not None:
        return get_params(deep=False)
    signature = inspect.signature(type(estimator).__init__)
    names = sorted(
        p.name
        for p in signature.parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
    )
    return {name: getattr(estimator, name) for name in names}
