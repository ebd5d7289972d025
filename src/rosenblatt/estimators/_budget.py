"""The budget of a kernel perceptron: its parameters checked, the state it starts with,
and the check that continued training keeps it (:mod:`rosenblatt.engine.budget`)."""

from __future__ import annotations

from ..engine.budget import EVICTING, BudgetState


class BudgetMixin:
    """For a kernel perceptron with ``budget``, ``budget_policy`` and ``prediction``."""

    budget: int | None
    budget_policy: str
    prediction: str

    def _check_budget_params(self):
        if self.budget is not None and self.budget_policy in EVICTING:
            if self.prediction != "last":
                raise ValueError(
                    f"budget_policy={self.budget_policy!r} removes support vectors, so the "
                    f"{self.prediction} prediction, which needs every hypothesis, would need "
                    "the removed patterns too, beyond the budget. Set prediction='last', or "
                    "use budget_policy='stop'."
                )

    def _budget_state(self, n_problems: int) -> BudgetState | None:
        """The budget a new training state starts with (None: unbounded)."""
        if self.budget is None:
            return None
        size = int(self.budget) // n_problems
        if size < 1:
            raise ValueError(
                f"budget={self.budget} leaves no support vector to each of the {n_problems} "
                f"one-vs-rest problems; raise budget to at least {n_problems}."
            )
        return BudgetState(self.budget_policy, size, n_problems)

    def _check_budget_kept(self):
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
