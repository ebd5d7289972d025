"""The invariants of the random sources and training states of the engine a model file
may hold."""

from __future__ import annotations

import math
import re

import numpy as np

from .checker import MAX_INDEX, BrokenInvariant

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
    rosenblatt._core.invariants.checker.BrokenInvariant: a generator.has_uint32 must be...
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
    return type(value) is int and 0 <= value <= MAX_INDEX


_VOTE_META = {  # a PrimalState's vote record (VoteRecord.to_state)
    "multinomial": (lambda v: type(v) is bool, "True or False", True),
    "bias_input": (
        lambda v: type(v) in (int, float) and math.isfinite(v),
        "a finite number",
        True,
    ),
    "n_voters": (_is_count, f"an int from 0 to {MAX_INDEX}", True),
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
    rosenblatt._core.invariants.checker.BrokenInvariant: PrimalState meta 'votes' must be...
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
