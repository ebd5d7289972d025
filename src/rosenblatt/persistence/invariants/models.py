"""The invariants of a decoded model, by its class's record: :func:`check_model` checks a
model against the check its record (:mod:`rosenblatt.persistence.records`) declares."""

from __future__ import annotations

from .checker import Checker, Plain

__all__ = ["check_model"]


def check_model(model: Plain) -> None:
    """Check ``model`` against its class's declared invariants (the estimators it holds
    have been checked as they were read), and keep in ``model.derived`` what the check
    rebuilt from the checked values (the attributes a file does not hold).

    Raises
    ------
    BrokenInvariant
        Naming the class, the attribute and what is wrong.
    """
    from ..records import record_of

    check = record_of(model.key).check
    if check is not None:
        model.derived = check(Checker(model)) or {}
