"""The classes a model file may hold by the role each plays in a model, read off their
records (:mod:`rosenblatt.persistence.records`): what a pipeline may end with, what a
calibrated model's folds may be, what turns documents into features, what transforms
features, what a container may hold.

The checks ask a nested model's role here when they run (the records import the checks,
so these are read at call time, not at import).

>>> [plays(the("pipeline"), role) for role in ("final", "classifier")]
[False, True]
"""

from __future__ import annotations

from functools import cache

__all__ = ["keys", "parts", "plays", "the", "with_role"]


@cache
def with_role(role: str) -> tuple[str, ...]:
    """The keys of the classes that play ``role``, in the records' order."""
    from ..records import keys_with

    return keys_with(role)


def plays(key: str, role: str) -> bool:
    """Whether the class registered as ``key`` plays ``role``."""
    return key in with_role(role)


def the(role: str) -> str:
    """The one class that plays ``role`` (the pipeline, the identity, ...)."""
    (key,) = with_role(role)
    return key


@cache
def parts() -> tuple[str, ...]:
    """What a ColumnTransformer or FeatureUnion may hold: a transformer, or a pipeline."""
    return (*with_role("transformer"), the("pipeline"))


@cache
def keys() -> tuple[str, ...]:
    """Every estimator class a model file may hold (the engine's states are not)."""
    from ..records import RECORDS

    return tuple(r.key for r in RECORDS if "state" not in r.roles)
