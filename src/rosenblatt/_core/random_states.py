"""A numpy random source (a ``RandomState`` or a ``Generator``) as plain data, and back.

The one way rosenblatt stores a random source, wherever it keeps one: a training state
of the engine in its ``to_state`` (:func:`rng_to_state`: JSON and named arrays), a model
file in a ``random_state`` or ``generator`` node (:mod:`rosenblatt.persistence`, a
RandomState as its :func:`legacy_state`). Each describes the source with :func:`describe`
and gets it back with :func:`rebuild` or :func:`rng_from_state`, which check the state
against the layout of its bit generator (:func:`check_random_state`, of the bit generators
:data:`BIT_GENERATORS`) before numpy reads it: numpy's MT19937 indexes its key by the
stored position without checking it. A state that does not fit is a
:class:`~rosenblatt._core.validation.BrokenInvariant`, a ``ValueError``.

>>> rng = np.random.Generator(np.random.Philox(5))
>>> kind, state = describe(rng)
>>> kind, state["bit_generator"]
('Generator', 'Philox')
>>> bool(rebuild(state).random() == rng.random())
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .validation import BrokenInvariant, is_finite

__all__ = [
    "describe",
    "rng_from_json",
    "rng_to_json",
    "from_legacy_state",
    "legacy_state",
    "rebuild",
    "rng_from_state",
    "rng_to_state",
]

RandomSource = np.random.RandomState | np.random.Generator


def describe(rng: RandomSource) -> tuple[str, Mapping[str, Any]]:
    """``(kind, state)``: ``"RandomState"`` and its ``get_state(legacy=False)``, or
    ``"Generator"`` and its bit generator's ``state``; a nested dict of ints, floats, str
    and numpy arrays, exactly the source.

    Examples
    --------
    >>> kind, state = describe(np.random.RandomState(0))
    >>> kind, sorted(state), state["state"]["pos"]
    ('RandomState', ['bit_generator', 'gauss', 'has_gauss', 'state'], 624)
    """
    if isinstance(rng, np.random.Generator):
        return "Generator", rng.bit_generator.state
    return "RandomState", rng.get_state(legacy=False)


def rebuild(state: Any, where: str = "a random source", *, legacy: bool = False) -> RandomSource:
    """The random source whose :func:`describe` state is ``state``: a Generator, or with
    ``legacy`` a RandomState; checked first.

    Raises
    ------
    BrokenInvariant
        A ``ValueError`` naming the field of ``state`` (``where`` says whose) that a
        source of its bit generator would not have.

    Examples
    --------
    >>> state = np.random.MT19937(1).state
    >>> state["state"]["pos"] = 10**6  # numpy would read far past the key
    >>> rebuild(state, "a generator")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt._core.validation.BrokenInvariant: a generator.state.pos must be...
    """
    check_random_state(state, where, legacy=legacy)
    return _built(state, legacy)


def _built(state: Mapping[str, Any], legacy: bool) -> RandomSource:
    """The source of a checked ``state``."""
    if legacy:
        random_state = np.random.RandomState()
        random_state.set_state(dict(state))
        return random_state
    bit_generator = getattr(np.random, state["bit_generator"])()
    bit_generator.state = state
    return np.random.Generator(bit_generator)


def rng_to_state(rng: RandomSource) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(meta, arrays)``: a RandomState or Generator as JSON and arrays, exactly, as a
    training state of the engine stores it (its arrays named ``{"$array": name}``).

    Examples
    --------
    >>> rng = np.random.RandomState(3)
    >>> _ = rng.permutation(5)
    >>> meta, arrays = rng_to_state(rng)
    >>> meta["kind"], meta["state"]["state"]["key"], sorted(arrays)
    ('RandomState', {'$array': 'rng.state.key'}, ['rng.state.key'])
    >>> again = rng_from_state(meta, arrays)
    >>> bool((again.permutation(9) == rng.permutation(9)).all())
    True
    """
    kind, state = describe(rng)
    arrays = {}

    def plain(value, path):
        if isinstance(value, dict):
            return {key: plain(item, f"{path}.{key}") for key, item in value.items()}
        if isinstance(value, np.ndarray):
            arrays[path] = value
            return {"$array": path}
        return value.item() if isinstance(value, np.generic) else value

    return {"kind": kind, "state": plain(state, "rng")}, arrays


def rng_from_state(meta: Any, arrays: Mapping[str, np.ndarray]) -> RandomSource:
    """The random source :func:`rng_to_state` describes, checked first.

    Raises
    ------
    BrokenInvariant
        A ``ValueError`` naming what does not fit (an unknown kind or bit generator, an
        array it lacks, a field out of range).

    Examples
    --------
    >>> meta = {"kind": "Generator", "state": {"bit_generator": "Threefry"}}
    >>> rng_from_state(meta, {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt._core.validation.BrokenInvariant: a random source is not the state...
    """
    kind, state = random_source_state(meta, arrays, "a random source")
    return _built(state, kind == "RandomState")


def rng_to_json(rng: RandomSource) -> dict[str, Any]:
    """A random source as plain JSON, exactly: :func:`rng_to_state`'s meta, its arrays as
    lists with their dtypes (a checkpoint's metadata, which holds no arrays).

    Examples
    --------
    >>> rng = np.random.RandomState(3)
    >>> again = rng_from_json(rng_to_json(rng), "a source")
    >>> bool((again.permutation(9) == rng.permutation(9)).all())
    True
    """
    meta, arrays = rng_to_state(rng)
    lists = {name: {"dtype": str(a.dtype), "values": a.tolist()} for name, a in arrays.items()}
    return {"meta": meta, "arrays": lists}


def rng_from_json(value: Any, where: str) -> RandomSource:
    """The random source :func:`rng_to_json` describes, checked first.

    Raises
    ------
    BrokenInvariant
        Naming ``where`` and the part that does not fit, whatever JSON ``value`` is.

    Examples
    --------
    >>> rng_from_json({"meta": {}, "arrays": {"k": "1 2 3"}}, "a source")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt._core.validation.BrokenInvariant: a source's array 'k' is not a list of ...
    >>> rng_from_json(None, "a source")
    Traceback (most recent call last):
    ...
    rosenblatt._core.validation.BrokenInvariant: a source is not a random source
    """
    if not isinstance(value, Mapping) or not isinstance(value.get("arrays"), Mapping):
        raise BrokenInvariant(f"{where} is not a random source")
    arrays = {}
    for name, array in value["arrays"].items():
        dtype = array.get("dtype") if isinstance(array, Mapping) else None
        values = array.get("values") if isinstance(array, Mapping) else None
        if not (
            dtype in ("uint32", "uint64")
            and isinstance(values, list)
            and len(values) <= 1024
            and all(
                type(v) is int and 0 <= v < 2 ** (32 if dtype == "uint32" else 64) for v in values
            )
        ):
            raise BrokenInvariant(f"{where}'s array {name!r:.40} is not a list of unsigned ints")
        arrays[name] = np.array(values, dtype=dtype)
    kind, state = random_source_state(value.get("meta"), arrays, where)
    return _built(state, kind == "RandomState")


def legacy_state(state: Mapping[str, Any]) -> tuple[str, np.ndarray, int, int, float]:
    """A RandomState's :func:`describe` state as ``get_state(legacy=True)`` gives it, the
    tuple a model file's ``random_state`` node holds.

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> legacy_state(describe(rng)[1])[2:] == rng.get_state(legacy=True)[2:]
    True
    """
    return (
        state["bit_generator"],
        state["state"]["key"],
        state["state"]["pos"],
        state["has_gauss"],
        state["gauss"],
    )


def from_legacy_state(value: Any) -> dict[str, Any]:
    """The :func:`describe` state of the RandomState whose ``get_state(legacy=True)`` is
    ``value``, for :func:`rebuild` (with ``legacy=True``) to check and build.

    Raises
    ------
    ValueError
        If ``value`` is not such a tuple (its fields are :func:`rebuild`'s to check).

    Examples
    --------
    >>> state = from_legacy_state(np.random.RandomState(0).get_state(legacy=True))
    >>> rebuild(state, legacy=True).randint(100)
    44
    >>> from_legacy_state(("PCG64", 1, 2, 3, 4.0))
    Traceback (most recent call last):
    ...
    ValueError: a random state that is not a legacy MT19937 state
    """
    if not (isinstance(value, tuple) and len(value) == 5 and value[0] == "MT19937"):
        raise ValueError("a random state that is not a legacy MT19937 state")
    name, key, pos, has_gauss, gauss = value
    return {
        "bit_generator": name,
        "state": {"key": key, "pos": pos},
        "has_gauss": has_gauss,
        "gauss": gauss,
    }


# ---------------------------------------------------------------------- their checks
# The bit generators of the numpy random sources rosenblatt stores (in a model file, in a
# training state): the one list, which rebuild builds them from.
BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
# The int fields of their states that index their own buffers, or are flags, with the
# largest value each may take: MT19937 reads key[pos] without checking pos. Every other
# int is a 128-bit word at most (PCG64's state and increment).
_RANDOM_INTS = {"pos": 624, "has_gauss": 1, "has_uint32": 1, "uinteger": 2**32 - 1, "buffer_pos": 4}
_DEPTH = 3  # the nesting of the deepest state (a Generator's bit generator's, with arrays)


def check_random_state(state: Any, where: str, *, legacy: bool = False) -> None:
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
    rosenblatt._core.validation.BrokenInvariant: a generator.has_uint32 must be...
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
        if not (type(value) in (int, float) and is_finite(value)):
            raise BrokenInvariant(f"{where} must be a finite number; it is {value!r:.40}")
    else:  # an int
        high = _RANDOM_INTS.get(field, 2**128 - 1)
        if not (type(value) is int and 0 <= value <= high):
            raise BrokenInvariant(f"{where} must be an int from 0 to {high}; it is {value!r:.40}")


def random_source_state(
    rng: Any, arrays: Mapping[str, np.ndarray], where: str
) -> tuple[str, dict[str, Any]]:
    """``(kind, state)`` of a random source as the engine stores one
    (:func:`rosenblatt._core.random_states.rng_to_state`): its kind, ``"RandomState"`` or
    ``"Generator"``, and its numpy state with the arrays it names by ``{"$array": name}``
    put in, checked with :func:`check_random_state`.

    Raises
    ------
    BrokenInvariant
        If it is no such source (``where`` says whose it is).

    Examples
    --------
    >>> rng = {"kind": "Generator", "state": {"bit_generator": "SFC64"}}
    >>> random_source_state(rng, {}, "a source")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt._core.validation.BrokenInvariant: a source must have the fields [...
    """
    kind = rng.get("kind") if isinstance(rng, Mapping) else None
    if kind not in ("RandomState", "Generator") or "state" not in rng:
        raise BrokenInvariant(f"{where} is not a RandomState or a Generator")

    def resolved(value, depth):
        if isinstance(value, dict):
            if depth > _DEPTH:  # deeper than any source's state: refused before recursion fails
                raise BrokenInvariant(f"{where} is nested deeper than a random source's state")
            if set(value) == {"$array"}:
                name = value["$array"]
                if not isinstance(name, str) or name not in arrays:
                    raise BrokenInvariant(f"{where} names an array {name!r:.60} it lacks")
                return arrays[name]
            return {k: resolved(v, depth + 1) for k, v in value.items()}
        return value

    state = resolved(rng["state"], 0)
    check_random_state(state, where, legacy=kind == "RandomState")
    return kind, state
