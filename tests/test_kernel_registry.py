"""Every compiled kernel against its plain-Python reference, through the registry.

:data:`rosenblatt.engine.kernels.registry.KERNELS` lists every ``@njit`` function the
package calls from Python with the name of its reference in ``tests/reference.py``;
each check below runs the kernel and the reference on small random inputs, in the
same example order, and asks for the very same numbers (no tolerance anywhere).
A new ``@njit`` function must join the registry (with a reference and a check
here) or the named list of helpers compiled into other kernels.
"""

from __future__ import annotations

import ast
import ctypes
from pathlib import Path

import numpy as np
import pytest
import reference
import scipy.sparse as sp

from rosenblatt.engine.budget import BudgetState
from rosenblatt.engine.kernels import registry
from rosenblatt.engine.kernels.bundles import (
    MULTINOMIAL,
    ONE_VS_REST,
    SINGLE,
    STEPS,
    Coefficients,
    Draws,
    DualRule,
    Limits,
    Problems,
    Progress,
    Record,
    Rule,
    Schedule,
    Scratch,
    Table,
    Tally,
    Targets,
    Updates,
    Weights,
)
from rosenblatt.engine.kernels.stop_rule import CONVERGED, PLATEAUED, RUNNING
from rosenblatt.engine.primal import Batch, readonly, rows_of

KERNELS_DIR = Path(registry.__file__).parent


def _njit_functions():
    """``module.function`` of every function decorated with ``njit`` in the package: every
    one lives in ``engine/kernels/`` (the readers' parsers too)."""
    found = set()
    for path in sorted(KERNELS_DIR.parents[1].rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = (
                    target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                )
                if name == "njit":
                    assert path.parent == KERNELS_DIR, f"{path}: a compiled kernel outside it"
                    found.add(f"{path.stem}.{node.name}")
    return found


def test_every_njit_function_is_registered_or_a_named_helper():
    registered = {kernel.name for kernel in registry.KERNELS}
    assert len(registered) == len(registry.KERNELS), "a kernel registered twice"
    assert not registered & set(registry.INLINED_HELPERS)
    assert _njit_functions() == registered | set(registry.INLINED_HELPERS)
    assert all(reason for reason in registry.INLINED_HELPERS.values())


def test_every_kernel_names_a_reference_a_check_and_variants():
    from numba.core.dispatcher import Dispatcher

    from rosenblatt.estimators.warmup import VARIANTS

    assert set(CHECKS) == {kernel.name for kernel in registry.KERNELS}
    for kernel in registry.KERNELS:
        module, name = kernel.reference.split(".")
        assert module == "reference" and callable(getattr(reference, name)), kernel
        assert isinstance(kernel.function, Dispatcher), kernel
        assert list(VARIANTS[kernel.name]()), kernel
    assert list(VARIANTS) == [kernel.name for kernel in registry.KERNELS]
    assert registry.kernel("primal.primal_epoch").reference == "reference.primal_epoch"


# ---------------------------------------------------------------------- the checks
def _patterns(rng, n=30, d=11, sparse=False):
    """Rows with some zeros (``d`` not a multiple of 8: the partial sums' tail)."""
    X = rng.randn(n, d)
    X[rng.rand(n, d) < 0.3] = 0.0
    return (sp.csr_matrix(X) if sparse else X), X


def _primal_case(
    kernel, ref, rng, sparse, layout, batch, average, record, scale=1.0, step="perceptron", C=1.0
):
    n_rows = {"single": 1, "ovr": 3, "multinomial": 3, "multilabel": 3, "label": 1}[layout]
    multinomial = layout == "multinomial"
    X, dense = _patterns(rng, sparse=sparse)
    X, dense = X * scale, dense * scale  # 1e200: the scores overflow (inf, and NaN)
    n, d = dense.shape
    target = rng.randint(0, max(n_rows, 2), n)
    positive = np.array([1]) if n_rows == 1 else np.arange(n_rows)
    if layout in ("multilabel", "label"):
        # a label matrix of 4 columns; the rows read some of them, in another order
        # (a thread's group of neurons), or one (a group of one: the SINGLE layout)
        target = (rng.rand(n, 4) < 0.4).astype(np.int8)
        positive = np.array([3, 0, 2]) if layout == "multilabel" else np.array([2])
    sw = rng.choice([0.0, 0.5, 1.0, 2.0], n)
    patterns = Batch(X, target, sw)
    slots = np.arange(n_rows)
    state = reference.zero_state(n_rows, d, average=average, multinomial=multinomial)
    eta, bias_input = 0.5, 2.0
    kind = MULTINOMIAL if multinomial else SINGLE if n_rows == 1 else ONE_VS_REST
    overflowed = 0
    for _ in range(3):  # later epochs start from trained weights and counts
        order = rng.permutation(n)
        (
            want,
            want_mistakes,
            want_presented,
            want_updates,
            want_activation,
            want_mistake_weight,
            want_presented_weight,
            want_overflow,
        ) = ref(
            dense,
            target,
            positive,
            sw,
            order,
            state,
            slots,
            eta,
            bias_input,
            batch,
            average,
            multinomial,
            step,
            C,
        )
        size = n * n_rows
        rec = None
        if record:
            rec = Record(
                np.zeros(n_rows, dtype=np.int64),
                np.empty(size, dtype=np.int64),
                np.empty(size),
                np.empty(size, dtype=np.int64),
                np.empty(size if multinomial else 0, dtype=np.int64),
                np.empty(size if multinomial else 0, dtype=np.int64),
                np.empty(n if n_rows == 1 else 0),
            )
        tally = Tally(
            np.zeros(n_rows, dtype=np.int64), np.zeros(n_rows), np.zeros(1), np.zeros(1, np.int64)
        )
        presented = kernel(
            patterns.rows,
            Targets(patterns.target, positive, patterns.sample_weight),
            Schedule(order, np.empty(0, dtype=np.int64), 0),
            Weights(*state),
            rec,
            Rule(eta, bias_input, batch, average, STEPS[step], C),
            Scratch(
                np.zeros((n_rows, d if batch else 0)),
                np.zeros(n_rows),
                np.zeros(n_rows),
                np.zeros(max(n_rows, 2), dtype=np.int64),
                np.zeros(max(n_rows, 2)),
            ),
            slots,
            tally,
            kind,
        )
        assert presented == want_presented
        for got, expected in zip(state, want):
            assert got.shape == expected.shape and np.array_equal(got, expected)
        assert tally.mistakes[: len(want_mistakes)].tolist() == want_mistakes
        # the weighted counters of the stop rule (the weights are 0, 0.5, 1 and 2: they matter)
        assert tally.mistake_weight[: len(want_mistakes)].tolist() == want_mistake_weight
        assert tally.presented_weight.tolist() == [want_presented_weight]
        assert tally.overflow.tolist() == [want_overflow]
        overflowed += want_overflow
        if rec is None:
            continue
        got_updates = []
        for s in range(n_rows):
            for slot in range(s * n, s * n + rec.n_rec[s]):
                entry = (s, rec.sample[slot], rec.coef[slot], rec.time[slot])
                if multinomial:
                    entry += (rec.true[slot], rec.pred[slot])
                got_updates.append(entry)
        by_row = sorted(want_updates, key=lambda update: update[0])  # stable: order kept
        assert [tuple(map(float, u)) for u in got_updates] == [tuple(map(float, u)) for u in by_row]
        if n_rows == 1:  # (NaN where the scores overflow: equal as arrays)
            np.testing.assert_array_equal(rec.activation[:presented], want_activation)
    return overflowed


def check_primal_epoch(kernel, ref):
    rng = np.random.RandomState(0)
    for sparse in (False, True):
        for layout in ("single", "ovr", "multinomial", "multilabel", "label"):
            for batch, average, record in (
                (False, False, False),
                (False, True, True),
                (True, False, False),
            ):
                _primal_case(kernel, ref, rng, sparse, layout, batch, average, record)
    # the passive-aggressive steps (margin errors, the step from the loss and the norm)
    for sparse in (False, True):
        for layout in ("single", "ovr", "multinomial", "multilabel"):
            for step, C in (("pa", 1.0), ("pa1", 0.3), ("pa2", 0.3)):
                _primal_case(kernel, ref, rng, sparse, layout, False, True, True, step=step, C=C)
    # scores beyond the float range: the overflow count (and the weights) as the reference's
    for sparse in (False, True):
        for layout in ("single", "ovr", "multinomial"):
            with np.errstate(over="ignore", invalid="ignore"):
                assert _primal_case(
                    kernel, ref, rng, sparse, layout, False, True, True, scale=1e200
                )


def _run_case(kernel, ref, seed, layout, sparse, record, shuffle, stop, step="perceptron"):
    """A run of at most 8 epochs in one call against the reference: the state, each epoch's
    mistakes, how the run ended, the units, the updates, and where the random source
    ends (it drew each order as numpy's shuffle draws it)."""
    rng = np.random.RandomState(seed)
    n_rows = {"single": 1, "ovr": 3, "multinomial": 3, "multilabel": 3}[layout]
    multinomial = layout == "multinomial"
    X, dense = _patterns(rng, n=24, d=5, sparse=sparse)
    n, d = dense.shape
    # a separable target (the run can converge) or noise (it runs on, or plateaus)
    target = np.argmax(dense @ rng.randn(d, max(n_rows, 2)), axis=1) if seed % 2 else None
    if target is None:
        target = rng.randint(0, max(n_rows, 2), n)
    positive = np.array([1]) if n_rows == 1 else np.arange(n_rows)
    if layout == "multilabel":
        target = (dense[:, :3] + rng.randn(n, 3) * 0.3 > 0).astype(np.int8)
    sw = rng.choice([0.0, 0.5, 1.0, 2.0], n)
    patterns = Batch(X, target, sw)
    average = record  # (the voted perceptron's record, and averaging: both on or both off)
    state = reference.zero_state(n_rows, d, average=average, multinomial=multinomial)
    tol, patience = stop
    epochs, n_units = 8, 1 if multinomial else n_rows
    source = np.random.RandomState(seed)
    orders = []
    for _ in range(epochs):  # what the epoch driver's rng.shuffle gives
        order = np.arange(n)
        if shuffle:
            source.shuffle(order)
        orders.append(order)
    rule = {"eta": 0.5, "bias_input": 2.0, "average": average, "step": step, "C": 0.5}
    want = ref(
        dense,
        target,
        positive,
        sw,
        orders,
        state,
        unit_stops=not multinomial,
        tol=tol,
        patience=patience,
        multinomial=multinomial,
        **rule,
    )
    bits = np.random.RandomState(seed)
    bit_generator = bits._bit_generator
    c = bit_generator.ctypes
    draws = Draws(
        np.empty(n, dtype=np.int64),
        np.empty(0, dtype=np.int64),
        4,
        ctypes.cast(c.next_uint32, ctypes.c_void_p).value if shuffle else 0,
        c.state_address if shuffle else 0,
    )
    size = n * n_rows
    rec = None
    if record:
        rec = Record(
            np.zeros((epochs, n_rows), dtype=np.int64),
            np.empty(epochs * size, dtype=np.int64),
            np.empty(epochs * size),
            np.empty(epochs * size, dtype=np.int64),
            np.empty(epochs * size if multinomial else 0, dtype=np.int64),
            np.empty(epochs * size if multinomial else 0, dtype=np.int64),
            np.empty(0),
        )
    progress = Progress(
        np.ones(n_units, dtype=bool),
        np.zeros(n_units, dtype=np.int64),
        np.array([np.inf]),
        np.zeros(1, dtype=np.int64),
    )
    history = np.zeros(epochs, dtype=np.int64)
    tally = Tally(
        np.zeros(n_rows, dtype=np.int64), np.zeros(n_rows), np.zeros(1), np.zeros(1, np.int64)
    )
    ran, presented, status = kernel(
        patterns.rows,
        Targets(patterns.target, positive, patterns.sample_weight),
        draws,
        Weights(*state),
        rec,
        Rule(0.5, 2.0, False, average, STEPS[step], 0.5),
        Scratch(
            np.zeros((n_rows, 0)),
            np.zeros(n_rows),
            np.zeros(n_rows),
            np.zeros(max(n_rows, 2), dtype=np.int64),
            np.zeros(max(n_rows, 2)),
        ),
        np.zeros(n_rows, dtype=np.int64),
        tally,
        MULTINOMIAL if multinomial else SINGLE if n_rows == 1 else ONE_VS_REST,
        progress,
        Limits(0.0 if tol is None else tol, patience, not multinomial, tol is not None),
        history,
    )
    codes = {"running": RUNNING, "converged": CONVERGED, "plateaued": PLATEAUED}
    assert (ran, status) == (len(want["mistakes"]), codes[want["status"]])
    assert history[:ran].tolist() == want["mistakes"] and presented == want["presented"]
    for got, expected in zip(state, want["state"]):
        assert got.shape == expected.shape and np.array_equal(got, expected)
    assert progress.active.tolist() == want["active"]
    assert progress.trained.tolist() == want["trained"]
    if shuffle:  # the source ends where the epochs' shuffles leave it (drawn: `ran` orders)
        again = np.random.RandomState(seed)
        for _ in range(ran):
            again.shuffle(np.arange(n))
        assert bits.randint(2**30) == again.randint(2**30)
    if rec is not None:
        for epoch, changes in enumerate(want["updates"]):
            got = []
            for s in range(n_rows):
                start = epoch * size + s * n
                for slot in range(start, start + rec.n_rec[epoch, s]):
                    entry = (s, rec.sample[slot], rec.coef[slot], rec.time[slot])
                    if multinomial:
                        entry += (rec.true[slot], rec.pred[slot])
                    got.append(entry)
            by_row = sorted(changes, key=lambda update: update[0])
            assert [tuple(map(float, u)) for u in got] == [tuple(map(float, u)) for u in by_row]
    return want["status"]


def check_primal_epochs(kernel, ref):
    """Every layout, dense and CSR, with and without the record, shuffled and in storage
    order, under each stop rule: to a mistake-free epoch (per unit), ``tol`` plateaus,
    the most epochs; and the passive-aggressive steps."""
    ends = set()
    seed = 0
    for layout in ("single", "ovr", "multinomial", "multilabel"):
        for sparse in (False, True):
            for record in (False, True):
                for shuffle in (True, False):
                    for stop in ((None, 3), (0.05, 2), (1e-3, 3)):
                        seed += 1
                        case = (layout, sparse, record, shuffle, stop)
                        ends.add(_run_case(kernel, ref, seed, *case))
        for step in ("pa1", "pa2"):
            ends.add(_run_case(kernel, ref, 7, layout, False, True, True, (0.01, 2), step))
    assert ends == {"running", "converged", "plateaued"}


def check_linear_scores(kernel, ref):
    rng = np.random.RandomState(1)
    for sparse in (False, True):
        X, dense = _patterns(rng, sparse=sparse)
        coef, intercept = rng.randn(3, dense.shape[1]), rng.randn(3)
        out = np.empty((dense.shape[0], 3))
        kernel(rows_of(X), readonly(coef), readonly(intercept), out)
        assert np.array_equal(out, ref(dense, coef, intercept))


def _record(rng, n_updates=25, n_patterns=7):
    pattern = rng.randint(0, n_patterns, n_updates).astype(np.int64)
    coef, bias = rng.randn(n_updates), rng.randn(n_updates)
    weights = rng.randint(0, 4, n_updates + 1).astype(np.float64)
    inner = np.ascontiguousarray(rng.randn(6, n_patterns))
    return inner, pattern, coef, bias, weights


def check_binary_vote(kernel, ref):
    inner, pattern, coef, bias, weights = _record(np.random.RandomState(2))
    out = np.empty(inner.shape[0])
    kernel(inner, pattern, coef, bias, weights, out)
    assert np.array_equal(out, ref(inner, pattern, coef, bias, weights))


def check_multinomial_vote(kernel, ref):
    rng = np.random.RandomState(3)
    inner, pattern, coef, bias, weights = _record(rng)
    true = rng.randint(0, 3, coef.shape[0]).astype(np.int64)
    pred = ((true + rng.randint(1, 3, coef.shape[0])) % 3).astype(np.int64)
    votes = np.zeros((inner.shape[0], 3))
    kernel(inner, pattern, coef, bias, true, pred, weights, votes)
    assert np.array_equal(votes, ref(inner, pattern, coef, bias, true, pred, weights, 3))


# every budget policy of the dual rule, with a budget small enough to fill (or a threshold
# that both projects and adds)
_BUDGETS = [
    None,
    {"policy": "stop", "size": 4},
    {"policy": "random", "size": 4},
    {"policy": "forgetron", "size": 4},
    {"policy": "project", "threshold": 0.3, "plus": False},
    {"policy": "project", "threshold": 0.3, "plus": True},
    {"policy": "project", "threshold": 0.05, "plus": False, "size": 4},  # full: projects
    {"policy": "project", "threshold": 0.05, "plus": True, "size": 4},
]


def check_dual_epoch(kernel, ref):
    for budget in _BUDGETS:
        _check_dual_epoch_under(kernel, ref, budget)
    # kernel values at the edge of the float range: the scores overflow (inf, and NaN)
    with np.errstate(over="ignore", invalid="ignore"):
        assert _check_dual_epoch_under(kernel, ref, None, scale=1e308)


def _check_dual_epoch_under(kernel, ref, budget, scale=1.0):
    """The compiled dual rule against the reference, three epochs of two problems, under
    ``budget`` (a policy of rosenblatt.engine.budget, or None), with the kernel values
    times ``scale``; returns how many scores were not finite."""
    rng = np.random.RandomState(4)
    n, n_problems = 25, 2
    A = rng.randn(n, 4)
    # (scaled: the linear kernel, whose values grow with the points' scale as the features')
    K = reference.gram_block(A, A, 2 if scale == 1.0 else 0, gamma=0.5) * scale
    overflowed = 0
    Y = np.where(rng.rand(n_problems, n) > 0.5, 1.0, -1.0)
    sw = rng.choice([0.0, 0.5, 1.0, 2.0], n)
    shape = (n_problems, n)
    state = Coefficients(
        np.zeros(shape),
        np.zeros(shape),
        np.zeros(shape, dtype=np.int64),
        np.zeros(n_problems, dtype=np.int64),
        np.zeros(n_problems, dtype=np.int64),
    )
    policy = None if budget is None else budget["policy"]
    carried = BudgetState(
        policy,
        budget.get("size", n) if budget else 2**62,
        n_problems,
        budget.get("threshold", 0.0) if budget else 0.0,
        budget.get("plus", False) if budget else False,
    )
    if policy == "project":
        carried.kinv = np.zeros((n_problems, n, n))
    mirror = dict(budget or {"policy": None, "size": 2**62})
    mirror.update(
        size=carried.size,
        errors=[0] * n_problems,
        forget_q=[0.0] * n_problems,
        kinv=[[] for _ in range(n_problems)],
        plus=carried.plus,
        threshold=carried.threshold,
    )
    every = np.arange(n, dtype=np.int64)
    table = Table(K, every, every, n)  # every sample owns a slot and a row
    rule = DualRule(0.5, 1.5)
    for _ in range(3):
        order = rng.permutation(n).astype(np.int64)
        draws = rng.rand(n)
        mirror["draws"] = draws
        for p in range(n_problems):
            sv = [list(state.sv[q, : state.n_sv[q]]) for q in range(n_problems)]
            want = ref(
                K, Y, sw, order, p, state.coef, state.coef_acc, sv, state.n_seen, 0.5, 1.5, mirror
            )
            updates = Updates(
                np.zeros(n_problems, dtype=np.int64),
                np.zeros(n_problems),
                np.zeros(n_problems),
                np.zeros(shape, dtype=np.int64),
                np.zeros(shape),
                np.zeros(shape, dtype=np.int64),
                np.zeros(n_problems, dtype=np.int64),
                np.full(shape, np.nan),  # every presentation's y f, as a trace asks
                np.full((n_problems, n, n), np.nan),  # and the coefficients after it
                np.zeros(n_problems, dtype=np.int64),
            )
            bundle = carried.bundle(draws)
            got = kernel(table, order, 0, p, Problems(Y, sw), state, updates, rule, bundle)
            assert got == n, policy
            coef, coef_acc, want_sv, n_seen, want_updates, want_mistakes, want_act = want[:7]
            history, want_mistake_weight, want_presented_weight, want_overflow = want[7:]
            wanted = np.array([np.nan if a is None else a for a in want_act])
            np.testing.assert_array_equal(updates.activation[p], wanted, err_msg=str(policy))
            np.testing.assert_array_equal(updates.history[p], np.array(history), str(policy))
            assert np.array_equal(state.coef, coef), policy
            assert np.array_equal(state.coef_acc, coef_acc), policy
            assert [list(state.sv[q, : state.n_sv[q]]) for q in range(n_problems)] == want_sv
            assert all(len(row) <= carried.size for row in want_sv), policy
            assert state.n_seen.tolist() == n_seen
            k = updates.n_upd[p]
            got = list(zip(updates.sample[p, :k], updates.delta[p, :k], updates.time[p, :k]))
            assert [tuple(map(float, u)) for u in got] == [
                tuple(map(float, u)) for u in want_updates
            ], policy
            assert updates.mistakes[p] == want_mistakes, policy
            assert updates.overflow[p] == want_overflow, policy
            overflowed += want_overflow
            assert updates.mistake_weight[p] == want_mistake_weight, policy
            assert updates.presented_weight[p] == want_presented_weight, policy
            assert updates.mistake_weight[1 - p] == updates.presented_weight[1 - p] == 0.0
            assert carried.errors.tolist() == mirror["errors"], policy
            assert carried.forget_q.tolist() == mirror["forget_q"], policy
            for q in range(n_problems):
                m = state.n_sv[q]
                if policy == "project":
                    assert np.array_equal(
                        carried.kinv[q, :m, :m], np.array(mirror["kinv"][q]).reshape(m, m)
                    )
    return overflowed


_GRAM_KINDS = [(0, 1.0, 0.0, 1), (1, 0.3, 0.5, 3), (2, 0.7, 0.0, 1), (3, 0.2, -0.4, 1)]


def check_dense_block(kernel, ref):
    rng = np.random.RandomState(5)
    A, B = rng.randn(6, 11), rng.randn(4, 11)
    for kind, gamma, coef0, degree in _GRAM_KINDS:
        out = np.empty((6, 4))
        kernel(readonly(A), readonly(np.ascontiguousarray(B.T)), kind, gamma, coef0, degree, out)
        assert np.array_equal(out, ref(A, B, kind, gamma, coef0, degree)), kind


def check_sparse_block(kernel, ref):
    from rosenblatt.engine.kernels.gram import squared_norms

    rng = np.random.RandomState(6)
    (a, A), (b, B) = _patterns(rng, 6, 11, sparse=True), _patterns(rng, 4, 11, sparse=True)
    norms = [np.empty(m.shape[0]) for m in (a, b)]
    for m, norm in zip((a, b), norms):
        squared_norms(m.data, m.indptr, norm)
    for kind, gamma, coef0, degree in _GRAM_KINDS:
        out = np.empty((6, 4))
        kernel(
            a.data, a.indices, a.indptr, norms[0], b.data, b.indices, b.indptr, norms[1],
            11, kind, gamma, coef0, degree, out,
        )  # fmt: skip
        assert np.array_equal(out, ref(A, B, kind, gamma, coef0, degree, sparse=True)), kind


def check_squared_norms(kernel, ref):
    m, dense = _patterns(np.random.RandomState(7), sparse=True)
    out = np.empty(m.shape[0])
    kernel(m.data, m.indptr, out)
    assert np.array_equal(out, ref(dense))


def check_ordered_scores(kernel, ref):
    rng = np.random.RandomState(8)
    # read-only operands, as the engine passes them (engine.dual.ordered_scores)
    K, coef = readonly(np.ascontiguousarray(rng.randn(5, 8))), readonly(rng.randn(2, 8))
    columns = np.concatenate([rng.permutation(8)[:3], rng.permutation(8)[:6]]).astype(np.int64)
    ptr = np.array([0, 3, 9], dtype=np.int64)
    out = np.empty((5, 2))
    kernel(K, coef, ptr, columns, 1.5, out)
    want = ref(K, coef, [columns[ptr[p] : ptr[p + 1]] for p in range(2)], 1.5)
    assert np.array_equal(out, want)


def check_voted_scores(kernel, ref):
    rng = np.random.RandomState(9)
    K = np.ascontiguousarray(rng.randn(5, 8))
    column = readonly(rng.randint(0, 8, 12).astype(np.int64))  # as engine.dual passes them
    delta, weights = readonly(rng.randn(12)), rng.randint(0, 4, 13).astype(np.float64)
    out = np.empty(5)
    kernel(K, column, delta, weights, 1.5, out)
    assert np.array_equal(out, ref(K, column, delta, weights, 1.5))


def check_block_order(kernel, ref):
    for n, chunk_rows, chunks_per_block, seed in (
        (300, 32, 4, 1),
        (1000, 7, 3, 12345),
        (5, 2, 1, 0),
    ):
        order, stream = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        kernel(n, chunk_rows, chunks_per_block, seed, order, stream)
        assert (order.tolist(), stream.tolist()) == ref(n, chunk_rows, chunks_per_block, seed)


def check_number(kernel, ref):
    rng = np.random.RandomState(10)
    texts = ["abc", "1e", "inf", "nan", "1_0", "--1", ".", "1e400", "0", "-0.0", ".5", "7."]
    for _ in range(300):
        mantissa = "".join(rng.choice(list("0123456789"), rng.randint(1, 16)))
        cut = rng.randint(0, len(mantissa) + 1)
        text = rng.choice(["", "-", "+"]) + mantissa[:cut] + "." + mantissa[cut:]
        texts.append(text + (f"e{rng.randint(-330, 310)}" if rng.rand() < 0.5 else ""))
    for text in texts:
        buf = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
        status, value = kernel(buf, 0, buf.shape[0])
        want_status, want = ref(text)
        assert status == want_status, text
        if status == 0:
            assert np.float64(value).tobytes() == np.float64(want).tobytes(), text


def _lines(rng, n_rows=20):
    labels = [str(v) for v in rng.choice([-1, 1, 2, 7], n_rows)]
    numbers = [f"{v:.6g}" for v in rng.randn(n_rows * 4)]
    return labels, numbers


def check_svmlight_block(kernel, ref):
    rng = np.random.RandomState(11)
    labels, numbers = _lines(rng)
    lines = []
    for r, label in enumerate(labels):
        columns = sorted(rng.choice(np.arange(1, 12), rng.randint(1, 5), replace=False))
        lines.append(label + "".join(f" {j}:{numbers[4 * r + k]}" for k, j in enumerate(columns)))
        if r % 7 == 3:
            lines.append("")
    text = "\n".join(lines) + "\n"
    raw = text.encode("ascii")
    buf, size = np.frombuffer(raw, dtype=np.uint8), len(raw)
    records, tokens = size // 2 + 1, (size + 1) // 3 + 1
    indptr = np.empty(records + 1, dtype=np.int64)
    indices = np.empty(tokens, dtype=np.int32)
    values = np.empty(tokens, dtype=np.float64)
    rows = np.empty((6, records), dtype=np.int64)
    deferred = np.empty((tokens, 4), dtype=np.int64)
    n, nnz, flagged, n_deferred = kernel(buf, True, indptr, indices, values, *rows, deferred)
    want = ref(text)
    assert (n, nnz, flagged, n_deferred) == (len(want), sum(len(w[1]) for w in want), -1, 0)
    row_line, _, label_start, label_end, first, last = rows
    for r, (label, want_indices, want_values, line) in enumerate(want):
        part = slice(indptr[r], indptr[r + 1])
        assert indices[part].tolist() == want_indices and values[part].tolist() == want_values
        assert raw[label_start[r] : label_end[r]].decode() == label and row_line[r] == line
        assert (first[r], last[r]) == (want_indices[0], want_indices[-1])


def check_csv_block(kernel, ref):
    rng = np.random.RandomState(12)
    labels, numbers = _lines(rng)
    lines = [f"{numbers[3 * r]},{label},{numbers[3 * r + 1]}" for r, label in enumerate(labels)]
    text = "\n".join(lines[:9] + [""] + lines[9:]) + "\n"
    raw = text.encode("ascii")
    buf = np.frombuffer(raw, dtype=np.uint8)
    rows = len(lines) + 1
    X = np.empty((rows, 2))
    spans = np.empty((4, rows), dtype=np.int64)
    deferred = np.empty((rows * 2 + 3, 5), dtype=np.int64)
    n, flagged, n_deferred, _ = kernel(buf, 3, 1, X, *spans, deferred)
    want = ref(text, label_column=1)
    assert (n, flagged, n_deferred) == (len(want), -1, 0)
    label_start, label_end, row_line, _ = spans
    for r, (label, cells, line) in enumerate(want):
        assert X[r].tolist() == cells and row_line[r] == line
        assert raw[label_start[r] : label_end[r]].decode() == label


def check_dedupe(kernel, ref):
    rng = np.random.RandomState(13)
    strings = [f"class{v}" for v in rng.randint(0, 50, 200)]  # grows past the first tables
    raw = "".join(strings).encode("ascii")
    ends = np.cumsum([len(s) for s in strings]).astype(np.int64)
    starts = (ends - [len(s) for s in strings]).astype(np.int64)
    ids = np.empty(len(strings), dtype=np.int32)
    firsts = np.full(len(strings), -1, dtype=np.int64)
    count = kernel(np.frombuffer(raw, dtype=np.uint8), starts, ends, ids, firsts)
    assert (ids.tolist(), firsts[:count].tolist()) == ref(strings)
    assert (firsts[count:] == -1).all()  # nothing written past the ids found


CHECKS = {
    "primal.primal_epoch": check_primal_epoch,
    "primal.primal_epochs": check_primal_epochs,
    "scores.linear_scores": check_linear_scores,
    "votes.binary_vote": check_binary_vote,
    "votes.multinomial_vote": check_multinomial_vote,
    "dual.dual_epoch": check_dual_epoch,
    "gram.dense_block": check_dense_block,
    "gram.sparse_block": check_sparse_block,
    "gram.squared_norms": check_squared_norms,
    "dual.ordered_scores": check_ordered_scores,
    "dual.voted_scores": check_voted_scores,
    "order.block_order": check_block_order,
    "textparse.number": check_number,
    "textparse.svmlight_block": check_svmlight_block,
    "textparse.csv_block": check_csv_block,
    "textparse.dedupe": check_dedupe,
}


@pytest.mark.parametrize("kernel", registry.KERNELS, ids=lambda kernel: kernel.name)
def test_kernel_matches_its_reference(kernel):
    """numba's JIT of the kernel: what runs when the library is not built (or not for a call)."""
    CHECKS[kernel.name](kernel.function, getattr(reference, kernel.reference.split(".")[1]))


@pytest.mark.parametrize("kernel", registry.KERNELS, ids=lambda kernel: kernel.name)
def test_kernel_built_at_install_matches_its_reference(kernel):
    """The same checks through the library ``pip install`` built (what the engine calls);
    at least one call of each check takes the library, not the JIT."""
    from rosenblatt.engine.kernels.loader import compiled_kernel, library_status

    if not library_status().startswith("built at install"):
        pytest.skip(f"the library is {library_status()} (test_compiled_kernels says if it must be)")
    compiled = compiled_kernel(kernel.name)
    before = compiled.built_calls
    CHECKS[kernel.name](compiled, getattr(reference, kernel.reference.split(".")[1]))
    assert compiled.built_calls > before, f"no call of the check reached the library: {kernel}"
