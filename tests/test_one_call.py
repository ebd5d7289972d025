"""The epochs of a fit in one compiled call (issue 46) against the same fit epoch by epoch.

Where nothing in Python runs between epochs (no ``on_epoch``, no ``verbose``, no early
stopping, no checkpoint), a linear learner's epochs run in one compiled call
(:func:`rosenblatt.engine.kernels.primal.primal_epochs`), the orders drawn and the stop
rule applied in there; else one by one through the epoch driver. The two must give the
same fit to the bit: weights, averages, votes, intercepts, ``n_iter_``, the mistakes of
every epoch, the warning, the random source's end and the overflow refusal. The compiled
loop itself is checked against the plain-Python reference in tests/test_kernel_registry.py
(``reference.primal_epochs``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import PROPERTY
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from rosenblatt import AveragedPerceptron, PassiveAggressive, Perceptron, VotedPerceptron
from rosenblatt.engine.primal import PrimalState
from rosenblatt.exceptions import NumericOverflowError


def _every_epoch(report):
    """An ``on_epoch`` that does nothing: the fit runs its epochs one by one."""


class Paths:
    """Counts the calls of each path: ``epochs`` (a run in one compiled call) and
    ``epoch`` (one epoch, the driver's step)."""

    def __init__(self, monkeypatch):
        self.calls = {"epochs": 0, "epoch": 0}
        for name in self.calls:
            original = getattr(PrimalState, name)

            def counted(state, *args, _original=original, _name=name, **kwargs):
                self.calls[_name] += 1
                return _original(state, *args, **kwargs)

            monkeypatch.setattr(PrimalState, name, counted)


@pytest.fixture
def paths(monkeypatch):
    return Paths(monkeypatch)


def _data(seed, n=40, d=4, classes=2, separable=True, sparse=False, dtype=np.float64):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    if separable:
        y = np.argmax(X @ rng.randn(d, classes), axis=1)
    else:
        y = rng.randint(0, classes, n)
    X = X.astype(dtype)
    return (sp.csr_matrix(X) if sparse else X), y


def _fit(estimator, X, y, **fit):
    """``estimator`` fitted, with the warnings it gave (their category and message)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y, **fit)
    return estimator, [(w.category, str(w.message)) for w in caught]


def _same_fit(a, b):
    """Every fitted attribute and the whole training state, to the bit."""
    for name in ("n_iter_", "n_mistakes_", "mistakes_per_epoch_", "converged_"):
        assert getattr(a, name) == getattr(b, name), name
    for name in ("coef_", "intercept_"):
        left, right = getattr(a, name), getattr(b, name)
        assert left.dtype == right.dtype and np.array_equal(left, right), name
    meta_a, arrays_a = a.training_state_.to_state()
    meta_b, arrays_b = b.training_state_.to_state()
    assert meta_a == meta_b
    assert arrays_a.keys() == arrays_b.keys()
    for key in arrays_a:
        assert arrays_a[key].dtype == arrays_b[key].dtype, key
        assert np.array_equal(arrays_a[key], arrays_b[key]), key


def _both_paths(make, X, y, paths=None, **fit):
    """The fit in one call and epoch by epoch (``on_epoch`` set): the same, to the bit; the
    one-call fit."""
    one_call, warned = _fit(make(), X, y, **fit)
    if paths is not None:
        assert paths.calls == {"epochs": 1, "epoch": 0}, "the fit ran in one call"
    by_epoch, warned_by_epoch = _fit(make().set_params(on_epoch=_every_epoch), X, y, **fit)
    if paths is not None:
        assert paths.calls["epoch"] == by_epoch.n_iter_ and paths.calls["epochs"] == 1
    _same_fit(one_call, by_epoch)
    assert warned == warned_by_epoch
    return one_call


# every stop rule: a mistake-free epoch per unit (converged), tol's plateau, max_iter
STOPS = {
    "converges": ({"tol": None, "max_iter": 200}, True),
    "plateaus": ({"tol": 1e-3, "n_iter_no_change": 3, "max_iter": 200}, False),
    "runs to max_iter": ({"tol": None, "max_iter": 7}, False),
    "plateaus on the first change": ({"tol": 0.5, "n_iter_no_change": 1}, False),
}

LEARNERS = {
    "perceptron": lambda **p: Perceptron(random_state=3, **p),
    "averaged": lambda **p: AveragedPerceptron(random_state=3, **p),
    "voted": lambda **p: VotedPerceptron(random_state=3, **p),
    "multinomial": lambda **p: Perceptron(multi_class="multinomial", random_state=3, **p),
    "voted multinomial": lambda **p: VotedPerceptron(
        multi_class="multinomial", random_state=3, **p
    ),
    "pa1": lambda **p: PassiveAggressive(variant="pa1", C=0.5, random_state=3, **p),
    "pa2 averaged multinomial": lambda **p: PassiveAggressive(
        variant="pa2", average=True, multi_class="multinomial", random_state=3, **p
    ),
    "batch mode": lambda **p: Perceptron(mode="batch", eta=0.5, random_state=3, **p),
    "in storage order": lambda **p: Perceptron(shuffle=False, **p),
}


@pytest.mark.parametrize("stop", STOPS)
@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("classes", [2, 3])
def test_one_call_is_the_fit_epoch_by_epoch(learner, stop, classes, paths):
    params, separable = STOPS[stop]
    X, y = _data(classes, classes=classes, separable=separable)
    model = _both_paths(lambda: LEARNERS[learner](**params), X, y, paths)
    if stop == "runs to max_iter":
        assert model.n_iter_ == 7 and not model.converged_
    # (PA errs inside the margin; three classes split by argmax: one-vs-rest cannot)
    if stop == "converges" and not learner.startswith("pa"):
        assert model.converged_ == (classes == 2 or "multinomial" in learner)


@pytest.mark.parametrize(
    "form",
    ["csr", "float32", "csr float32"],
)
@pytest.mark.parametrize("learner", ["perceptron", "averaged", "voted", "multinomial"])
def test_sparse_and_float32_rows(form, learner, paths):
    X, y = _data(
        5,
        n=60,
        classes=3,
        separable=False,
        sparse="csr" in form,
        dtype=np.float32 if "float32" in form else np.float64,
    )
    model = _both_paths(lambda: LEARNERS[learner](max_iter=12, tol=None), X, y, paths)
    assert model.coef_.dtype == (np.float32 if "float32" in form else np.float64)


@pytest.mark.parametrize("learner", ["perceptron", "averaged", "voted", "pa1", "multinomial"])
def test_sample_and_class_weights(learner, paths):
    X, y = _data(8, n=50, classes=3, separable=False)
    weights = np.random.RandomState(0).choice([0.0, 0.5, 1.0, 3.0], X.shape[0])

    def make():
        return LEARNERS[learner](class_weight={0: 2.0, 1: 0.5, 2: 1.0}, n_iter_no_change=2)

    _both_paths(make, X, y, paths, sample_weight=weights)


def test_balanced_class_weights_and_a_label_matrix(paths):
    X, y = _data(9, n=50, classes=2, separable=False)
    _both_paths(lambda: Perceptron(class_weight="balanced", random_state=1), X, y, paths)
    labels = (X[:, :3] + np.random.RandomState(2).randn(50, 3) * 0.5 > 0).astype(int)
    paths.calls.update(epochs=0, epoch=0)
    _both_paths(lambda: AveragedPerceptron(random_state=1, max_iter=9), X, labels, paths)


@pytest.mark.parametrize("learner", ["perceptron", "voted", "voted multinomial"])
def test_a_run_over_several_calls_is_the_same_run(learner, paths, monkeypatch):
    """A run longer than one call takes (``RUN_EPOCHS``; the voted perceptron's record,
    ``RECORD_ENTRIES``) goes on where the last call stopped: the stop rule's plateau, the
    units still learning and the random source carry over."""
    from rosenblatt.engine import primal_epochs

    monkeypatch.setattr(primal_epochs, "RUN_EPOCHS", 3)
    monkeypatch.setattr(primal_epochs, "RECORD_ENTRIES", 100)  # 50 rows x 3 units: 1 epoch
    X, y = _data(16, n=50, classes=3, separable=False)
    for params in ({"tol": None, "max_iter": 10}, {"tol": 1e-3, "n_iter_no_change": 4}):
        paths.calls.update(epochs=0, epoch=0)
        model, _ = _fit(LEARNERS[learner](**params), X, y)
        per_call = 1 if "voted" in learner else 3
        assert paths.calls == {"epochs": -(-model.n_iter_ // per_call), "epoch": 0}
        _both_paths(lambda params=params: LEARNERS[learner](**params), X, y)


def test_the_random_source_ends_where_the_epoch_driver_leaves_it():
    X, y = _data(11, n=30, separable=False)
    sources = [np.random.RandomState(4), np.random.RandomState(4)]
    generators = [np.random.default_rng(4), np.random.default_rng(4)]
    for pair in (sources, generators):
        one_call, _ = _fit(Perceptron(random_state=pair[0], max_iter=5, tol=None), X, y)
        by_epoch, _ = _fit(
            Perceptron(random_state=pair[1], max_iter=5, tol=None, on_epoch=_every_epoch), X, y
        )
        _same_fit(one_call, by_epoch)
        assert pair[0].random() == pair[1].random()


def test_partial_fit_and_warm_start_continue_alike(paths):
    X, y = _data(12, n=30, classes=3, separable=False)
    one_call = Perceptron(random_state=5)
    by_epoch = Perceptron(random_state=5, on_epoch=_every_epoch)
    for model in (one_call, by_epoch):
        for _ in range(3):
            model.partial_fit(X, y, classes=[0, 1, 2])
    _same_fit(one_call, by_epoch)
    assert paths.calls == {"epochs": 3, "epoch": 3}
    for model in (one_call, by_epoch):
        model.set_params(warm_start=True, max_iter=4, tol=None)
        _fit(model, X, y)
    _same_fit(one_call, by_epoch)


@pytest.mark.parametrize(
    "setting",
    [
        {"on_epoch": _every_epoch},
        {"verbose": 1},
        {"early_stopping": True, "validation_fraction": 0.25},
        {"n_jobs": 2, "multi_class": "ovr"},
    ],
    ids=["on_epoch", "verbose", "early_stopping", "n_jobs"],
)
def test_a_fit_that_needs_python_between_epochs_runs_them_one_by_one(setting, paths, capsys):
    X, y = _data(13, n=40, classes=3, separable=False)
    model, _ = _fit(Perceptron(random_state=0, max_iter=6, **setting), X, y)
    assert paths.calls == {"epochs": 0, "epoch": model.n_iter_}
    if "verbose" in setting:
        assert capsys.readouterr().out.count("-- Epoch") == model.n_iter_


def test_a_fit_without_one_runs_in_one_call(paths):
    X, y = _data(13, n=40, classes=3, separable=False)
    model, _ = _fit(Perceptron(random_state=0, max_iter=6), X, y)
    assert model.n_iter_ == 6 and paths.calls == {"epochs": 1, "epoch": 0}


def _engine_run(paths, shuffle=True, n=40, **train_options):
    """A one-vs-rest problem trained by the engine's ``train``; the calls of each path."""
    from rosenblatt.engine.driver import StopRule, train
    from rosenblatt.engine.primal import Batch, PrimalRule
    from rosenblatt.engine.problems import PrimalProblem

    X, y = _data(14, n=n, classes=3, separable=False)
    state = PrimalState.allocate(3, X.shape[1], np.float64)
    problem = PrimalProblem(
        state, PrimalRule(), Batch(X, y, np.ones(n)), np.random.RandomState(0), shuffle
    )
    stop = StopRule(max_epochs=4, warn=False)
    history = train(problem, stop, owner="test", **train_options)
    return history, dict(paths.calls)


def test_a_run_kept_for_a_checkpoint_goes_epoch_by_epoch(paths):
    from rosenblatt.engine.driver import RunState

    run = RunState()
    history, calls = _engine_run(paths, run=run)
    assert calls == {"epochs": 0, "epoch": 4} and run.epochs == 4
    paths.calls.update(epochs=0, epoch=0)
    again, calls = _engine_run(paths)
    assert calls == {"epochs": 1, "epoch": 0}
    assert again.mistakes_per_epoch == history.mistakes_per_epoch


def test_orders_made_on_a_helper_thread_or_recorded_go_epoch_by_epoch(paths):
    from rosenblatt.engine.orders import recorded_orders

    history, calls = _engine_run(paths, shuffle="block")
    assert calls == {"epochs": 0, "epoch": 4}
    paths.calls.update(epochs=0, epoch=0)
    with recorded_orders() as orders:
        _, calls = _engine_run(paths)
    assert calls == {"epochs": 0, "epoch": 4} and len(orders) == 4


def test_the_trace_goes_epoch_by_epoch(paths):
    from rosenblatt import trace

    X = np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]])
    steps = trace(X, np.array([-1, 1, 1, 1]), shuffle=True, random_state=0)
    assert paths.calls == {"epochs": 0, "epoch": int(steps.epoch.max())}


def test_overflow_is_refused_with_the_same_error():
    X = np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]]) * 1e308
    y = np.array([-1, 1, 1, 1])
    messages = []
    for on_epoch in (None, _every_epoch):
        model = Perceptron(eta=1e308, random_state=0, on_epoch=on_epoch)
        with pytest.raises(NumericOverflowError, match="training overflowed") as error:
            model.fit(X, y)
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_the_convergence_warning_is_the_same():
    X, y = _data(15, n=40, classes=2, separable=False)
    _, warned = _fit(Perceptron(random_state=0, max_iter=3, tol=None), X, y)
    assert [category for category, _ in warned] == [ConvergenceWarning]
    assert "the last of max_iter=3 epochs still made" in warned[0][1]
    _both_paths(lambda: Perceptron(random_state=0, max_iter=3, tol=None), X, y)


@PROPERTY
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(2, 30),
    d=st.integers(1, 5),
    classes=st.integers(2, 4),
    kind=st.sampled_from(sorted(LEARNERS)),
    tol=st.sampled_from([None, 0.0, 1e-3, 0.05, 0.3]),
    patience=st.integers(1, 4),
    max_iter=st.integers(1, 15),
    weighted=st.booleans(),
    sparse=st.booleans(),
    float32=st.booleans(),
)
def test_property_one_call_equals_epoch_by_epoch(
    seed, n, d, classes, kind, tol, patience, max_iter, weighted, sparse, float32
):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d) * rng.choice([0.1, 1.0, 100.0])
    y = rng.randint(0, classes, n)
    y[:2] = [0, 1]  # at least two classes
    X = X.astype(np.float32 if float32 else np.float64)
    if sparse:
        X[rng.rand(n, d) < 0.4] = 0
        X = sp.csr_matrix(X)
    weights = rng.choice([0.0, 0.5, 1.0, 2.0], n)
    weights[0] = 0.5  # (all zero is refused, on both paths alike)
    fit = {"sample_weight": weights} if weighted else {}

    def make():
        return LEARNERS[kind](tol=tol, n_iter_no_change=patience, max_iter=max_iter)

    _both_paths(make, X, y, **fit)
