"""The invariants of the random sources and training states of the engine a model file
may hold."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..._core.random_states import random_source_state
from ..._core.sparse import MAX_INDEX
from ..._core.validation import BrokenInvariant, is_finite


# ---------------------------------------------------------------------- training states
# The training states of the engine a model file may hold (their records name their checks),
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
        lambda v: type(v) in (int, float) and is_finite(v),
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
_PRIMAL_META = {
    **_ENGINE_META,
    "multinomial": (lambda v: type(v) is bool, "True or False", True),
    "votes": (lambda v: v is None or isinstance(v, dict), "null or a vote record", False),
}
_DUAL_META = {
    **_ENGINE_META,
    "budget": (lambda v: v is None or isinstance(v, dict), "null or a budget", False),
}
_BUDGET_META = {  # a DualState's budget (BudgetState.to_state)
    "policy": (
        lambda v: v in ("stop", "random", "forgetron", "project"),
        "a budget policy",
        True,
    ),
    "size": (lambda v: _is_count(v) or (type(v) is int and v == 2**62), "a count", True),
    "threshold": (
        lambda v: type(v) is float and is_finite(v) and v >= 0,
        "a finite float >= 0",
        True,
    ),
    "plus": (lambda v: type(v) is bool, "True or False", True),
}
_PRIMAL_ARRAYS = (
    (r"W|U|votes\.patterns", 2),
    (r"w0|U0|counts|votes\.\d+\.(coef|time|true|pred|pattern)", 1),
    (r"votes\.patterns\.(data|indices|indptr|shape)", 1),
)
_DUAL_ARRAYS = (
    (r"coef|coef_acc|sv", 2),
    (r"n_sv|n_seen|update_(sample|delta|time|count)|index|budget_(errors|forget_q)", 1),
    (r"budget_kinv", 3),
)


def check_primal_state(meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
    """:func:`check_state` for a ``PrimalState`` (its record's check)."""
    check_state("PrimalState", _PRIMAL_META, _PRIMAL_ARRAYS, meta, arrays)


def check_dual_state(meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
    """:func:`check_state` for a ``DualState`` (its record's check)."""
    check_state("DualState", _DUAL_META, _DUAL_ARRAYS, meta, arrays)


def check_state(
    where: str,
    fields: Mapping[str, Any],
    dimensions: tuple[tuple[str, int], ...],
    meta: Mapping[str, Any],
    arrays: Mapping[str, np.ndarray],
) -> None:
    """Check the ``(meta, arrays)`` of a training state (named ``where``) before its
    ``from_state`` reads them: the meta's ``fields`` of the declared JSON kinds (a vote
    record's, a random source's too), the arrays of the declared ``dimensions`` (name
    patterns and their number of dimensions).

    Raises
    ------
    BrokenInvariant
        Naming the state, the field or array and what is wrong.

    Examples
    --------
    >>> meta = {"kind": "primal", "version": 1, "multinomial": False, "votes": 7}
    >>> check_primal_state(meta, {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt._core.validation.BrokenInvariant: PrimalState meta 'votes' must be...
    """
    _check_fields(meta, fields, f"{where} meta")
    if meta.get("votes") is not None:
        _check_fields(meta["votes"], _VOTE_META, f"{where} vote record")
    if meta.get("budget") is not None:
        _check_fields(meta["budget"], _BUDGET_META, f"{where} budget")
    for name, array in arrays.items():
        for pattern, ndim in dimensions:
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
