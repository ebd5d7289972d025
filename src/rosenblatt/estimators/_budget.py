"""The budget of a kernel perceptron: its parameters checked, the state it starts with,
and the check that continued training keeps it (:func:`rosenblatt.engine.budget.budget_of`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.budget import BudgetState, budget_of


class BudgetMixin:
    """For a kernel perceptron (``KernelPerceptron``, ``Projectron``) with ``get_params``."""

    training_state_: Any
    get_params: Any

    def _check_budget_params(self) -> None:
        """The checks that need no data (those of the classes come at fit)."""
        budget_of(self.get_params(), 1)

    def _budget_state(self, n_problems: int) -> BudgetState | None:
        """The budget a new training state starts with (None: unbounded)."""
        return budget_of(self.get_params(), n_problems)

    def _check_can_grow(self, new: Any) -> None:
        """A budget is shared out among the dual problems when training starts: a new
        class would take a share the others hold. Refused."""
        if self.get_params().get("budget") is not None:
            raise ValueError(
                f"{type(self).__name__}(budget=...) shares its budget among its "
                f"{self.training_state_.n_units} dual problems; the labels "
                f"{np.asarray(new).tolist()!r} would need problems of their own. Give every "
                "class up front (partial_fit's classes), or train without a budget."
            )

    def _check_budget_kept(self) -> None:
        """Training that goes on keeps the budget its state was trained under."""
        want = self._budget_state(self.training_state_.n_units)
        have = self.training_state_.budget
        same = (want is None and have.policy is None) or (
            want is not None
            and (want.policy, want.size, want.threshold, want.plus)
            == (have.policy, have.size, have.threshold, have.plus)
        )
        if not same:
            raise ValueError(
                "The budget parameters differ from those this model was trained with; "
                "continued training (partial_fit, warm_start=True) keeps its budget. Set "
                "them back, or fit from scratch with warm_start=False."
            )
