"""How a kernel perceptron keeps its support set within a budget.

The kernel perceptron keeps every pattern it errs on, so on noisy data its memory
and its cost per prediction grow with the data. A budget policy bounds the support
set of each dual problem; the one dual rule (:func:`rosenblatt.engine.kernels.dual.
dual_epoch`) applies it on every mistake:

``"stop"``
    The Stoptron: once the budget is full, mistakes on new patterns change nothing
    (the support vectors already kept still learn).
``"random"``
    The Randomized Budget Perceptron (Cavallanti, Cesa-Bianchi and Gentile 2007): a
    new support vector takes the place of one drawn uniformly at random.
``"forgetron"``
    The self-tuned Forgetron (Dekel, Shalev-Shwartz and Singer 2008): a new support
    vector over the budget shrinks every coefficient by the largest factor that keeps
    the accumulated damage within 15/32 of the mistakes made, then removes the oldest.
``"project"``
    The Projectron (Orabona, Keshet and Caputo 2009): a mistaken pattern whose
    squared distance from the span of the support vectors (in feature space) is at
    most ``threshold`` is replaced by its projection on that span, which changes the
    coefficients of the support vectors instead of adding one; ``plus`` (Projectron++)
    also learns from margin errors. With a ``size``, a full support set projects
    every mistake, however far (the Stoptron's bound, keeping what the projection
    can learn). The inverse kernel matrix of the support vectors
    is kept up to date by rank-one updates.

:class:`BudgetState` holds what the policies carry from one mistake to the next.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .kernels.bundles import Budget

__all__ = ["POLICIES", "BudgetState", "budget_of"]

#: The policies, by the code the compiled rule knows them by (kernels.dual).
POLICIES = {None: 0, "stop": 1, "random": 2, "forgetron": 3, "project": 4}
# the policies that take support vectors away: the average and the vote of every
# hypothesis would need the evicted patterns too, beyond the budget
EVICTING = ("random", "forgetron")


def budget_of(params: Mapping[str, Any], n_problems: int) -> BudgetState | None:
    """The budget a kernel perceptron's parameters give its ``n_problems`` dual problems.

    ``params`` as ``get_params()`` gives them: a ``Projectron``'s
    (``max_projection_error``, ``plus``, ``budget``) or a ``KernelPerceptron``'s
    (``budget``, ``budget_policy``, ``prediction``). None: no budget. The estimators and the model
    files' checks ask this one function.

    Raises
    ------
    ValueError
        If the budget leaves no support vector to a problem, or a policy that removes
        support vectors is asked for a prediction that needs every hypothesis.

    Examples
    --------
    >>> budget_of({"budget": 10, "budget_policy": "stop", "prediction": "voted"}, 3).size
    3
    >>> budget_of({"max_projection_error": 0.1, "plus": True}, 1).policy
    'project'
    >>> budget_of({"max_projection_error": 0.1, "budget": 100}, 2).size
    50
    """
    budget = params.get("budget")
    if budget is not None and int(budget) // n_problems < 1:
        raise ValueError(
            f"budget={budget} leaves no support vector to each of the {n_problems} "
            f"one-vs-rest problems; give budget={n_problems} or more."
        )
    size = 2**62 if budget is None else int(budget) // n_problems
    if "max_projection_error" in params:
        threshold, plus = float(params["max_projection_error"]), bool(params.get("plus", False))
        return BudgetState("project", size, n_problems, threshold, plus)
    if budget is None:
        return None
    policy, prediction = params.get("budget_policy", "stop"), params.get("prediction")
    if policy in EVICTING and prediction != "last":
        raise ValueError(
            f"budget_policy={policy!r} removes support vectors, so the {prediction} "
            "prediction, which needs every hypothesis, would need the removed patterns too, "
            "beyond the budget. Set prediction='last', or use budget_policy='stop'."
        )
    return BudgetState(policy, size, n_problems)


class BudgetState:
    """A budget policy and what it carries across mistakes, one entry per dual problem.

    Parameters
    ----------
    policy : {None, "stop", "random", "forgetron", "project"}
        None: no budget (the kernel perceptron keeps every mistaken pattern).
    size : int
        Support vectors each dual problem may keep (``2**62``: unbounded).
    n_problems : int
    threshold : float, default=0.0
        ``"project"``: the largest squared projection error that projects.
    plus : bool, default=False
        ``"project"``: also learn from margin errors (Projectron++).

    Attributes
    ----------
    errors : ndarray of int64, shape (n_problems,)
        Prediction mistakes so far (the Forgetron's ``M``).
    forget_q : ndarray of float64, shape (n_problems,)
        The Forgetron's accumulated damage ``Q``.
    kinv : ndarray of float64, shape (n_problems, capacity, capacity)
        ``"project"``: the inverse kernel matrix of each problem's support vectors,
        in the order they joined (its leading ``n_sv[p]`` block).

    Examples
    --------
    >>> state = BudgetState("random", 10, n_problems=2)
    >>> state.bundle(np.zeros(3)).policy, state.errors
    (2, array([0, 0]))
    """

    def __init__(
        self,
        policy: str | None,
        size: int,
        n_problems: int,
        threshold: float = 0.0,
        plus: bool = False,
        errors: np.ndarray | None = None,
        forget_q: np.ndarray | None = None,
        kinv: np.ndarray | None = None,
    ):
        if policy not in POLICIES:
            raise ValueError(f"unknown budget policy {policy!r}")
        self.policy, self.size = policy, int(size)
        self.threshold, self.plus = float(threshold), bool(plus)
        self.errors = np.zeros(n_problems, dtype=np.int64) if errors is None else errors
        self.forget_q = np.zeros(n_problems) if forget_q is None else forget_q
        width = 16 if policy == "project" else 0
        self.kinv = np.zeros((n_problems, width, width)) if kinv is None else kinv

    @property
    def evicts(self) -> bool:
        """Whether support vectors may leave the support set."""
        return self.policy in EVICTING

    def bundle(self, draws: np.ndarray) -> Budget:
        """The compiled rule's ``Budget`` bundle; ``draws`` holds a uniform number per
        position of the epoch's order (``"random"``'s evictions)."""
        return Budget(
            POLICIES[self.policy],
            self.size,
            draws,
            self.kinv,
            np.empty(2 * self.kinv.shape[1]),  # the projection d and the kernel column k
            self.forget_q,
            self.errors,
            self.threshold,
            self.plus,
        )

    def grow(self, n_samples: int) -> None:
        """Double the room of ``kinv`` (at most ``n_samples`` support vectors, or the
        budget's ``size``: the memory stays within the budget)."""
        width = self.kinv.shape[1]
        wider = min(max(2 * width, 16), max(min(n_samples, self.size), width + 1))
        grown = np.zeros((self.kinv.shape[0], wider, wider))
        grown[:, :width, :width] = self.kinv
        self.kinv = grown

    def grow_problems(self, growth: Any) -> None:
        """Follow the dual problems of classes that joined (a
        :class:`~rosenblatt.engine.targets.Growth`): a new problem starts with nothing
        carried, an old one (a grown binary problem's negation too, whose mistakes and
        support set are its source's) keeps what it carried. Only an unbounded size is
        shared out unchanged among more problems (see the estimators' check)."""
        self.errors = growth.rows(self.errors)
        self.forget_q = growth.rows(self.forget_q, signed=False)
        self.kinv = growth.rows(self.kinv, signed=False)

    def copy(self) -> BudgetState:
        """An independent copy (the same policy and what it carries)."""
        return BudgetState(
            self.policy,
            self.size,
            self.errors.shape[0],
            self.threshold,
            self.plus,
            self.errors.copy(),
            self.forget_q.copy(),
            self.kinv.copy(),
        )

    # ------------------------------------------------------------------ model files
    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """``(meta, arrays)`` for a model file; :meth:`from_state` rebuilds it."""
        meta = {
            "policy": self.policy,
            "size": self.size,
            "threshold": self.threshold,
            "plus": self.plus,
        }
        arrays = {
            "budget_errors": self.errors,
            "budget_forget_q": self.forget_q,
            "budget_kinv": self.kinv,
        }
        return meta, arrays

    @classmethod
    def from_state(
        cls, meta: Mapping[str, Any], arrays: Mapping[str, Any], n_problems: int, n_sv: np.ndarray
    ) -> BudgetState:
        """Rebuild a budget from :meth:`to_state`'s output, after checking it fits
        ``n_problems`` problems with ``n_sv`` support vectors each (``ValueError`` if not)."""
        policy, size = meta.get("policy"), meta.get("size")
        threshold, plus = meta.get("threshold"), meta.get("plus")
        if (
            policy not in POLICIES
            or type(size) is not int
            or size < 1
            or type(threshold) is not float
            or not np.isfinite(threshold)
            or threshold < 0
            or type(plus) is not bool
        ):
            raise ValueError("the budget's policy, size, threshold or plus is not one it can be")
        errors = np.asarray(arrays["budget_errors"])
        forget_q = np.asarray(arrays["budget_forget_q"])
        kinv = np.asarray(arrays["budget_kinv"])
        width = kinv.shape[1] if kinv.ndim == 3 else -1
        if (
            errors.shape != (n_problems,)
            or errors.dtype != np.int64
            or np.any(errors < 0)
            or forget_q.shape != (n_problems,)
            or forget_q.dtype != np.float64
            or kinv.dtype != np.float64
            or kinv.shape != (n_problems, width, width)
            or not (np.all(np.isfinite(forget_q)) and np.all(np.isfinite(kinv)))
        ):
            raise ValueError("the budget's arrays do not fit its dual problems")
        if policy == "project" and np.any(n_sv > width):
            raise ValueError("the budget's inverse kernel matrix is smaller than its support")
        if np.any(n_sv > size):
            raise ValueError(f"a dual problem holds more than its budget of {size} support vectors")
        return cls(policy, size, n_problems, threshold, plus, errors, forget_q, kinv)
