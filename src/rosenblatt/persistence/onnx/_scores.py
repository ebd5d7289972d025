"""The graphs of the package's classifiers: from input rows to ``decision_function``, then labels.

Each graph computes what the estimator's ``decision_function`` computes, in the same
precision: the linear perceptrons in the wider of the input's and their weights'
types (``engine.primal.scores``), the baselines in float64, the kernels and the
votes in float64 (``engine.dual``, ``engine.votes``). Where the estimator sums in a
fixed order that decides a sign (a vote's running scores), the graph sums in that
order too (``CumSum``), so the votes are those of the compiled loops.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from ...engine.primal import constant_input
from ...engine.votes import survival_counts
from ..records import record_of_class, scored_as

if TYPE_CHECKING:  # pragma: no cover
    from ._graph import Graph

__all__ = [
    "CLASSIFIERS",
    "decision",
    "decision_from_columns",
    "label_index",
    "label_values",
    "labels",
    "n_score_columns",
    "why_not",
]

#: How each kind of classifier scores, as its record says (the graph below per kind)
SCORINGS = ("linear", "voted", "dual")
# the classifiers with a graph here: those whose records score one of these ways
CLASSIFIERS = tuple(record.load() for record in scored_as(*SCORINGS))


def scoring(model: Any) -> str | None:
    """How ``model`` scores (its record's ``scoring``), None for a class without a record."""
    record = record_of_class(type(model))
    return None if record is None else record.scoring


def why_not(model: Any) -> str | None:
    """Why a fitted classifier of the package has no graph (None: it has one)."""
    if scoring(model) == "dual":
        if callable(model.kernel):
            return (
                "its kernel is a Python function, which an ONNX graph cannot call; "
                "train with a named kernel ('linear', 'poly', 'rbf', 'sigmoid')"
            )
        if not model.support_.shape[0]:
            return "it has no support vectors (no sample was learnt from); fit it on data"
    return None


def n_score_columns(model: Any) -> int:
    """Columns of ``decision_function`` (1: it returns a vector)."""
    kind = scoring(model)
    if kind == "dual":
        return int(model.dual_coef_.shape[0])
    if kind == "voted":
        record = model.training_state_.votes
        n_classes = model.classes_.shape[0]
        return (1 if n_classes == 2 else n_classes) if record.multinomial else len(record.voters)
    return int(model.coef_.shape[0])


def decision(g: Graph, x: str, input_dtype: Any, model: Any) -> tuple[str, Any]:
    """``model.decision_function`` of rows ``x`` (of ``input_dtype``): the name of the
    scores, (n,) or (n, k) as the estimator returns them, and their dtype."""
    kind = scoring(model)
    if kind == "dual":
        scores = _kernel_scores(g, g.cast(x, np.float64), model)
        dtype: Any = np.float64
    elif kind == "voted":
        scores, dtype = _vote_scores(g, x, input_dtype, model), np.float64
    else:  # linear: in the wider of the two types (the baselines' weights are float64)
        coef = np.asarray(model.coef_)
        dtype = np.result_type(input_dtype, coef.dtype)
        x = x if dtype == input_dtype else g.cast(x, dtype)
        product = g.op("MatMul", x, g.const(coef.T.astype(dtype), "coef"))
        scores = g.op("Add", product, g.const(np.asarray(model.intercept_, dtype), "intercept"))
    if n_score_columns(model) == 1:
        scores = g.flat(scores)
    return scores, dtype


def label_index(g: Graph, scores: str, dtype: Any, model: Any) -> str:
    """The index in ``classes_`` of the class ``predict`` gives from ``scores`` of
    ``dtype`` (the rule of :func:`rosenblatt.engine.numpy_decision.labels_from_scores`),
    int64 (n,); for a label matrix, the int64 indicator matrix: 1 where a score is > 0."""
    if getattr(model, "multilabel_", False) or n_score_columns(model) == 1:
        # a score > 0 is the second class, 0 and below the first
        return g.cast(g.op("Greater", scores, g.const(np.zeros((), dtype), "zero")), np.int64)
    return g.op("ArgMax", scores, axis=1, keepdims=0)  # the first of the largest, as numpy's


def labels(g: Graph, scores: str, dtype: Any, model: Any) -> str:
    """The labels ``predict`` gives from ``scores`` of ``dtype``."""
    index = label_index(g, scores, dtype, model)
    if getattr(model, "multilabel_", False):
        return index
    return g.gather(g.const(label_values(np.asarray(model.classes_)), "classes"), index)


def decision_from_columns(g: Graph, columns: str, model: Any) -> str:
    """``decision_function``'s scores from a classifier's second output in skl2onnx's
    form (n, n_classes): a binary classifier's one score is its second column."""
    if n_score_columns(model) == 1 and not getattr(model, "multilabel_", False):
        return g.flat(g.gather(columns, [1], axis=1))
    return columns


def label_values(classes: np.ndarray) -> np.ndarray:
    """The classes as an ONNX tensor holds them: int64, float64, bool or str."""
    kind = classes.dtype.kind
    if kind in "iu":
        return classes.astype(np.int64)
    if kind in "fb":
        return classes.astype(np.float64 if kind == "f" else bool)
    return np.array([str(c) for c in classes], dtype=object)


# ---------------------------------------------------------------------- votes
def _running_vote(g: Graph, steps: str, weights: np.ndarray) -> str:
    """A binary voter's normalised vote from its steps (n, K): hypothesis ``k`` scores
    the running sum of the first ``k`` steps (summed in order, as the compiled vote
    does) and votes its survival count ``weights[k]``, +1 when that score is > 0."""
    running = g.op("CumSum", steps, g.const(np.array(1, dtype=np.int64), "axis"))
    positive = g.op("Greater", running, g.const(np.zeros((), np.float64), "zero"))
    sign = g.where(positive, g.const(np.ones(()), "plus"), g.const(-np.ones(()), "minus"))
    vote = g.op("MatMul", sign, g.const(weights, "votes"))  # sums of integers: exact
    return g.op("Div", vote, g.const(np.array(max(weights.sum(), 1.0)), "total"))


def _with_initial(values: np.ndarray, first: Any = 0) -> np.ndarray:
    """``values`` after a first entry for the initial, zero hypothesis (a step of 0)."""
    return np.concatenate((np.asarray([first], dtype=values.dtype), values))


def _vote_scores(g: Graph, x: str, input_dtype: Any, model: Any) -> str:
    """The voted perceptron's ``decision_function``: for each voter, the running score of
    every hypothesis it passed through, its sign, and the survival-weighted vote."""
    state = model.training_state_
    record = state.votes
    n_classes = model.classes_.shape[0]
    rows = record.patterns.rows
    if rows is None:  # no update yet: one zero pattern for the initial hypothesis
        rows = np.zeros((1, state.n_features), dtype=state.dtype)
    # the inner products of the rows with every distinct pattern, as X @ rows.T (sparse
    # patterns, of text, are stored sparse)
    wide = np.result_type(input_dtype, rows.dtype)
    x = x if wide == input_dtype else g.cast(x, wide)
    inner = g.op("MatMul", x, g.const(rows.T, "patterns", dtype=wide))
    inner = inner if wide == np.float64 else g.cast(inner, np.float64)
    s2 = record.bias_input**2
    columns = []
    for k in range(len(record.voters)):
        updates = record.updates(k)
        coef = _with_initial(updates["coef"])
        weights = survival_counts(updates["time"], int(state.counts[k]))
        # step j adds inner[pattern[j]] * coef[j] + coef[j] * s2, as the compiled vote
        chosen = g.gather(inner, _with_initial(updates["pattern"]), axis=1)
        steps = g.op("Add", g.op("Mul", chosen, g.const(coef, "step")), g.const(coef * s2, "bias"))
        if not record.multinomial:
            columns.append(g.column(_running_vote(g, steps, weights)))
            continue
        # each update adds its step to the true class and takes it from the rival
        moves = np.zeros((coef.shape[0], n_classes))
        moves[np.arange(1, coef.shape[0]), updates["true"]] += 1.0
        moves[np.arange(1, coef.shape[0]), updates["pred"]] -= 1.0
        per_class = g.op("Mul", g.op("Unsqueeze", steps, g.axes(2)), g.const(moves, "moves"))
        running = g.op("CumSum", per_class, g.const(np.array(1, dtype=np.int64), "axis"))
        best = g.op("ArgMax", running, axis=2, keepdims=0)  # (n, K): the lowest on ties
        every = g.const(np.arange(n_classes, dtype=np.int64), "classes")
        chosen_class = g.cast(g.op("Equal", g.op("Unsqueeze", best, g.axes(2)), every), np.float64)
        # each hypothesis's count on its class, summed (integers: exact). Not as a
        # Transpose then MatMul: onnxruntime 1.32's optimiser fuses those wrongly here
        tally = g.op("Mul", chosen_class, g.const(weights[:, np.newaxis], "votes"))
        votes = g.sum(tally, axis=1)
        votes = g.op("Div", votes, g.const(np.array(max(weights.sum(), 1.0)), "total"))
        if n_classes == 2:  # one column: the second class's share minus the first's
            first, second = (g.gather(votes, [c], axis=1) for c in (0, 1))
            votes = g.op("Sub", second, first)
        columns.append(votes)
    return columns[0] if len(columns) == 1 else g.op("Concat", *columns, axis=1)


# ---------------------------------------------------------------------- kernels
def _kernel_values(g: Graph, x: str, model: Any) -> str:
    """``K(x, v)`` for every support vector ``v``, float64 (n, n_support), as
    :class:`rosenblatt.engine.dual.Kernel` computes them."""
    if model.kernel == "precomputed":  # x holds the kernel values against the training rows
        return g.gather(x, np.asarray(model.support_, dtype=np.int64), axis=1)
    vectors = model.support_vectors_  # sparse (text) ones stored sparse
    dot = g.op("MatMul", x, g.const(vectors.T, "support_vectors", dtype=np.float64))
    gamma = 0.0 if model.gamma_ is None else float(model.gamma_)
    if model.kernel == "linear":
        return dot
    if model.kernel == "rbf":  # |x - v|^2 = |x|^2 + |v|^2 - 2 x.v, never below 0
        norms = g.sum(g.op("Mul", x, x), axis=1, keepdims=True)
        twice = g.op("Mul", dot, g.const(np.array(2.0), "two"))
        wide = vectors.astype(np.float64)
        squares = np.asarray(
            wide.multiply(wide).sum(axis=1) if sp.issparse(wide) else (wide**2).sum(axis=1)
        )
        distance = g.op("Sub", g.op("Add", norms, g.const(squares.ravel(), "norms")), twice)
        distance = g.op("Max", distance, g.const(np.array(0.0), "zero"))
        return g.op("Exp", g.op("Mul", distance, g.const(np.array(-gamma), "gamma")))
    inner = g.op(
        "Add",
        g.op("Mul", dot, g.const(np.array(gamma), "gamma")),
        g.const(np.array(float(model.coef0)), "coef0"),
    )
    if model.kernel == "sigmoid":
        return g.op("Tanh", inner)
    # poly: repeated products, as the compiled kernel raises to the power
    power = g.op(
        "Add", g.op("Mul", dot, g.const(np.array(0.0), "zero")), g.const(np.ones(()), "one")
    )
    for _ in range(int(model.degree)):
        power = g.op("Mul", power, inner)
    return power


def _kernel_scores(g: Graph, x: str, model: Any) -> str:
    """``f(x) = sum_v coef_v (K(x, v) + s2)`` per problem, or the voted prediction's
    survival-weighted vote of every hypothesis (``engine.dual.vote_scores``)."""
    s2 = constant_input(model.fit_intercept, model.intercept_scaling) ** 2
    shifted = g.op("Add", _kernel_values(g, x, model), g.const(np.array(s2), "s2"))
    if model.prediction != "voted":
        return g.op("MatMul", shifted, g.const(np.asarray(model.dual_coef_).T, "dual_coef"))
    columns = []
    ptr = model.update_ptr_
    for p in range(model.n_presented_.shape[0]):
        part = slice(ptr[p], ptr[p + 1])
        support = model.update_support_[part]
        delta = _with_initial(np.asarray(model.update_coef_[part], dtype=np.float64))
        weights = survival_counts(model.update_time_[part], int(model.n_presented_[p]))
        chosen = g.gather(shifted, _with_initial(support.astype(np.int64)), axis=1)
        steps = g.op("Mul", chosen, g.const(delta, "delta"))
        columns.append(g.column(_running_vote(g, steps, weights)))
    return columns[0] if len(columns) == 1 else g.op("Concat", *columns, axis=1)
