"""The invariants of the random sources and training states of the engine a model file
may hold."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from .checker import MAX_INDEX, BrokenInvariant

# ---------------------------------------------------------------------- random sources
# The bit generators of the numpy random sources rosenblatt stores (in a model file, in a
# training state): the one list, which rosenblatt._core.random_states builds them from.
BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
# The int fields of their states that index their own buffers, or are flags, with the
# largest value each may take: MT19937 reads key[pos] without checking pos. Every other
# int is a 128-bit word at most (PCG64's state and increment).
_RANDOM_INTS = {"pos": 624, "has_gauss": 1, "has_uint32": 1, "uinteger": 2**32 - 1, "buffer_pos": 4}


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
    "rosenblatt.engine.dual.DualState": {
        **_ENGINE_META,
        "budget": (lambda v: v is None or isinstance(v, dict), "null or a budget", False),
    },
}
_BUDGET_META = {  # a DualState's budget (BudgetState.to_state)
    "policy": (
        lambda v: v in ("stop", "random", "forgetron", "project"),
        "a budget policy",
        True,
    ),
    "size": (lambda v: _is_count(v) or (type(v) is int and v == 2**62), "a count", True),
    "threshold": (
        lambda v: type(v) is float and math.isfinite(v) and v >= 0,
        "a finite float >= 0",
        True,
    ),
    "plus": (lambda v: type(v) is bool, "True or False", True),
}
_STATE_ARRAYS = {
    "rosenblatt.engine.primal.PrimalState": (
        (r"W|U|votes\.patterns", 2),
        (r"w0|U0|counts|votes\.\d+\.(coef|time|true|pred|pattern)", 1),
        (r"votes\.patterns\.(data|indices|indptr|shape)", 1),
    ),
    "rosenblatt.engine.dual.DualState": (
        (r"coef|coef_acc|sv", 2),
        (r"n_sv|n_seen|update_(sample|delta|time|count)|index|budget_(errors|forget_q)", 1),
        (r"budget_kinv", 3),
    ),
}


def check_state(key: str, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
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
    if meta.get("budget") is not None:
        _check_fields(meta["budget"], _BUDGET_META, f"{where} budget")
    for name, array in arrays.items():
        for pattern, ndim in _STATE_ARRAYS[key]:
            if re.fullmatch(pattern, name) and array.ndim != ndim:
                raise BrokenInvariant(
                    f"{where} array {name!r} must have {ndim} dimension(s); it has shape "
                    f"{array.shape}"
                )
    if meta.get("rng") is not None:
        random_source_state(meta["rng"], arrays, f"{where} random source")


def _check_fields(meta, fields, where):
    for name, (test, words, required) in fields.items():
        if name not in meta:
            if required:
                raise BrokenInvariant(f"{where} lacks {name!r}")
        elif not test(meta[name]):
            raise BrokenInvariant(f"{where} {name!r} must be {words}; it is {meta[name]!r:.40}")


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
    rosenblatt._core.invariants.checker.BrokenInvariant: a source must have the fields [...
    """
    kind = rng.get("kind") if isinstance(rng, Mapping) else None
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

    state = resolved(rng["state"])
    check_random_state(state, where, legacy=kind == "RandomState")
    return kind, state
