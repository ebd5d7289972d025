"""A numpy random source (a ``RandomState`` or a ``Generator``) as plain data, and back.

The one way rosenblatt stores a random source, wherever it keeps one: a training state
of the engine in its ``to_state`` (:func:`rng_to_state`: JSON and named arrays), a model
file in a ``random_state`` or ``generator`` node (:mod:`rosenblatt.persistence`, a
RandomState as its :func:`legacy_state`). Each describes the source with
:func:`describe` and gets it back with :func:`rebuild` or :func:`rng_from_state`, which
check the state against the layout of its bit generator
(:func:`~rosenblatt._core.invariants.check_random_state`, of the bit generators
:data:`~rosenblatt._core.invariants.BIT_GENERATORS`) before numpy reads it: numpy's
MT19937 indexes its key by the stored position without checking it. A state that does
not fit is a :class:`~rosenblatt._core.invariants.BrokenInvariant`, a ``ValueError``.

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

from .invariants import check_random_state, random_source_state

__all__ = [
    "describe",
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
    rosenblatt._core.invariants.checker.BrokenInvariant: a generator.state.pos must be...
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
    rosenblatt._core.invariants.checker.BrokenInvariant: a random source is not the state...
    """
    kind, state = random_source_state(meta, arrays, "a random source")
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
