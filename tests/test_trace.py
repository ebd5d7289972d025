"""rosenblatt.trace: seed 003's modified OR tables cell for cell, and agreement with Perceptron."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from rosenblatt.trace import Trace, trace
from sklearn.exceptions import ConvergenceWarning

from rosenblatt.estimators.linear import AveragedPerceptron, Perceptron

# Seed 003, "Example (modified OR problem)": patterns 2, 3, 4 -> t = 1, pattern 1 -> t = -1,
# threshold input x_0 = -1, epsilon = 1, no shuffling.
OR_X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=float)
OR_Y = np.array([-1, 1, 1, 1])

# a/a, w_1, w_2, w_0, tx_1, tx_2, tx_0, t w.x, Update, dw_1, dw_2, dw_0
SEED_ONLINE = [
    [1, 0, 0, 0, 1, 1, 1, 0, "YES", 1, 1, 1],
    [2, 1, 1, 1, 1, -1, -1, -1, "YES", 1, -1, -1],
    [3, 2, 0, 0, -1, 1, -1, -2, "YES", -1, 1, -1],
    [4, 1, 1, -1, 1, 1, -1, 3, "NO", 0, 0, 0],
    [1, 1, 1, -1, 1, 1, 1, 1, "NO", 0, 0, 0],
    [2, 1, 1, -1, 1, -1, -1, 1, "NO", 0, 0, 0],
    [3, 1, 1, -1, -1, 1, -1, 1, "NO", 0, 0, 0],
    [4, 1, 1, -1, 1, 1, -1, 3, "NO", 0, 0, 0],
]
# the batch table leaves w and dw blank (None) except on an epoch's first row
SEED_BATCH = [
    [1, 0, 0, 0, 1, 1, 1, 0, "YES", 2, 2, -2],
    [2, None, None, None, 1, -1, -1, 0, "YES", None, None, None],
    [3, None, None, None, -1, 1, -1, 0, "YES", None, None, None],
    [4, None, None, None, 1, 1, -1, 0, "YES", None, None, None],
    [1, 2, 2, -2, 1, 1, 1, 2, "NO", 0, 0, 0],
    [2, None, None, None, 1, -1, -1, 2, "NO", None, None, None],
    [3, None, None, None, -1, 1, -1, 2, "NO", None, None, None],
    [4, None, None, None, 1, 1, -1, 6, "NO", None, None, None],
]


def seed_trace(mode):
    return trace(OR_X, OR_Y, mode=mode, eta=1.0, bias_input=-1.0, shuffle=False)


def printed_rows(tr):
    """Data rows of the printed table as token lists (blank cells vanish)."""
    lines = str(tr).splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("a/a"))
    return [line.split() for line in lines[start + 1 :]]


# ---------------------------------------------------------------------- seed 003
def test_online_trace_reproduces_seed_003_cell_for_cell():
    tr = seed_trace("online")
    assert tr.step.shape[0] == len(SEED_ONLINE) == tr.n_steps
    for r, row in enumerate(SEED_ONLINE):
        a, w, tx, act, upd, dw = row[0], row[1:4], row[4:7], row[7], row[8], row[9:12]
        assert tr.pattern[r] + 1 == a
        np.testing.assert_array_equal(tr.weights[tr.step[r] - 1], w)
        np.testing.assert_array_equal(tr.tx[r], tx)
        assert tr.activation[r] == act
        assert tr.updated[r] == (upd == "YES")
        np.testing.assert_array_equal(tr.delta_w[tr.step[r] - 1], dw)
    np.testing.assert_array_equal(tr.weights[-1], [1, 1, -1])
    assert tr.weights.shape == (9, 3)
    assert (tr.n_updates, tr.n_epochs, tr.converged) == (3, 2, True)
    assert tr.mistakes_per_epoch.tolist() == [3, 0]
    np.testing.assert_array_equal(tr.coef, [1, 1])
    assert tr.intercept == 1.0  # w_0 * bias_input = -1 * -1: the line x_1 + x_2 + 1 = 0
    assert tr.epoch.tolist() == [1, 1, 1, 1, 2, 2, 2, 2]


def test_the_defaults_are_the_notes_conventions():
    """trace(X, y) is the notes' table, as `rosenblatt trace` prints it: bias input -1 by
    default; an explicit value behaves as before (w_0 flips its sign, the line does not)."""
    from rosenblatt import trace as public_trace
    from rosenblatt.apps.cli.tracing import trace_data

    default = public_trace(OR_X, OR_Y)
    assert default.bias_input == -1.0
    for mode in ("online", "batch"):
        np.testing.assert_array_equal(
            trace(OR_X, OR_Y, mode=mode).weights, seed_trace(mode).weights
        )
    assert str(default) == str(seed_trace("online"))
    plus = trace(OR_X, OR_Y, bias_input=1.0)
    np.testing.assert_array_equal(plus.weights[:, -1], -default.weights[:, -1])
    assert plus.intercept == default.intercept == 1.0
    import inspect

    cli_default = inspect.signature(trace_data).parameters["bias_input"].default
    assert cli_default == inspect.signature(trace).parameters["bias_input"].default == -1.0


def test_no_negative_zero_is_printed():
    tr = trace([[1.0, 0.0], [-1.0, 0.0]], [1, -1])  # w_0 stays 0: 0 * -1 is no -0.
    assert tr.weights[-1, -1] == 0.0 and not np.signbit(tr.intercept)
    assert "-0" not in str(tr) and repr(tr.intercept) == "0.0"


def test_batch_trace_reproduces_seed_003_cell_for_cell():
    tr = seed_trace("batch")
    np.testing.assert_array_equal(tr.weights, [[0, 0, 0], [2, 2, -2], [2, 2, -2]])
    np.testing.assert_array_equal(tr.delta_w, [[2, 2, -2], [0, 0, 0]])
    assert tr.n_steps == 2 and tr.step.tolist() == [1, 1, 1, 1, 2, 2, 2, 2]
    for r, row in enumerate(SEED_BATCH):
        assert tr.pattern[r] + 1 == row[0]
        np.testing.assert_array_equal(tr.tx[r], row[4:7])
        assert tr.activation[r] == row[7]
        assert tr.updated[r] == (row[8] == "YES")
        if row[1] is not None:  # the epoch's first row carries w and its update
            np.testing.assert_array_equal(tr.weights[tr.step[r] - 1], row[1:4])
            np.testing.assert_array_equal(tr.delta_w[tr.step[r] - 1], row[9:12])
    assert (tr.n_updates, tr.n_epochs, tr.converged) == (4, 2, True)
    np.testing.assert_array_equal(tr.coef, [2, 2])
    assert tr.intercept == 2.0


@pytest.mark.parametrize("mode, seed_rows", [("online", SEED_ONLINE), ("batch", SEED_BATCH)])
def test_printed_table_holds_the_seed_rows(mode, seed_rows):
    tr = seed_trace(mode)
    text = str(tr)
    header = next(line for line in text.splitlines() if line.lstrip().startswith("a/a"))
    assert header.split() == [
        "a/a",
        "w_1",
        "w_2",
        "w_0",
        "tx_1",
        "tx_2",
        "tx_0",
        "t",
        "w.x",
        "Update",
        "Δw_1",
        "Δw_2",
        "Δw_0",
    ]
    expected = [[str(c) for c in row if c is not None] for row in seed_rows]
    assert printed_rows(tr) == expected
    assert f"{mode} mode" in text and ("converged" in text)


def test_to_frame_columns_and_values():
    frame = seed_trace("online").to_frame()
    assert list(frame.columns) == [
        "epoch",
        "step",
        "pattern",
        "w_1",
        "w_2",
        "w_0",
        "tx_1",
        "tx_2",
        "tx_0",
        "t w.x",
        "updated",
        "dw_1",
        "dw_2",
        "dw_0",
    ]
    assert len(frame) == 8
    np.testing.assert_array_equal(
        frame[["w_1", "w_2", "w_0"]].to_numpy(), [row[1:4] for row in SEED_ONLINE]
    )
    assert frame["updated"].tolist() == [row[8] == "YES" for row in SEED_ONLINE]
    batch = seed_trace("batch").to_frame()
    # a batch epoch's dw rows add up to its update
    sums = batch.groupby("epoch")[["dw_1", "dw_2", "dw_0"]].sum().to_numpy()
    np.testing.assert_array_equal(sums, [[2, 2, -2], [0, 0, 0]])
    np.testing.assert_array_equal(batch[["w_1", "w_2", "w_0"]].to_numpy()[4:], [[2, 2, -2]] * 4)


def test_to_frame_numbers_the_patterns_as_the_printed_table():
    """Pattern numbers from 1, the notes' numbering and the printed a/a column."""
    tr = trace(OR_X, OR_Y, shuffle=True, random_state=3, max_iter=50, bias_input=-1)
    frame = tr.to_frame()
    assert frame["pattern"].tolist() == [int(row[0]) for row in printed_rows(tr)]
    assert frame["pattern"].tolist()[:4] == (tr.pattern[:4] + 1).tolist()
    assert seed_trace("online").to_frame()["pattern"].tolist() == [r[0] for r in SEED_ONLINE]


@pytest.mark.parametrize("mode, seed_rows", [("online", SEED_ONLINE), ("batch", SEED_BATCH)])
def test_to_latex_shows_the_numbers_of_the_printed_table(mode, seed_rows):
    tr = seed_trace(mode)
    lines = tr.to_latex().splitlines()
    assert lines[0] == r"\begin{tabular}{" + "r" * 12 + "}" and lines[-1] == r"\end{tabular}"
    assert lines[2].startswith(r"a/a & $w_{1}$ & $w_{2}$ & $w_{0}$ & $tx_{1}$")
    assert r"$\Delta w_{0}$ \\" in lines[2]
    body = [line.removesuffix(r" \\").split(" & ") for line in lines[4:-2]]
    expected = [["" if c is None else str(c) for c in row] for row in seed_rows]
    assert [[cell.strip("$") for cell in row] for row in body] == expected
    assert "0.000000" not in tr.to_latex()
    halves = trace(OR_X, OR_Y, eta=0.5, bias_input=-1).to_latex()
    assert "$0.5$ & $0.5$ & $0.5$ \\\\" in halves  # the first update, eta * t * x


def test_trace_invariants_and_repr():
    tr = trace(OR_X, OR_Y, eta=0.5, bias_input=2.0)
    assert isinstance(tr, Trace)
    np.testing.assert_allclose(np.diff(tr.weights, axis=0), tr.delta_w)
    # an update is exactly eta * t * x on the rows that erred, zero elsewhere
    np.testing.assert_allclose(tr.delta_w[tr.updated], 0.5 * tr.tx[tr.updated])
    assert not tr.delta_w[~tr.updated].any()
    assert np.all(tr.updated == (tr.activation <= 0))
    np.testing.assert_array_equal(tr.tx[:, -1], np.where(OR_Y[tr.pattern] == 1, 2.0, -2.0))
    assert repr(tr).startswith("Trace(mode='online'")
    assert tr.intercept == tr.weights[-1, -1] * 2.0


def test_trace_without_intercept_has_no_w0_column():
    X = np.array([[2.0, 1.0], [-1.0, -2.0], [1.0, 3.0]])
    tr = trace(X, [1, 0, 1], fit_intercept=False)
    assert tr.weights.shape[1] == 2 and tr.tx.shape[1] == 2
    assert tr.intercept == 0.0
    assert "w_0" not in str(tr) and "no intercept" in str(tr)
    assert list(tr.to_frame().columns)[3:5] == ["w_1", "w_2"]


def test_inseparable_data_stops_at_max_iter():
    tr = trace(OR_X, [-1, 1, 1, -1], max_iter=7)  # XOR
    assert tr.n_epochs == 7 and not tr.converged
    assert tr.mistakes_per_epoch.shape == (7,) and tr.mistakes_per_epoch[-1] > 0


def test_shuffle_draws_one_permutation_per_epoch():
    tr = trace(OR_X, OR_Y, shuffle=True, random_state=3, max_iter=50)
    rng = np.random.RandomState(3)
    for ep in range(1, tr.n_epochs + 1):
        np.testing.assert_array_equal(tr.pattern[tr.epoch == ep], rng.permutation(4))


def test_sparse_and_string_labels():
    tr = trace(sp.csr_matrix(OR_X), np.array(["no", "yes", "yes", "yes"]), bias_input=-1)
    np.testing.assert_array_equal(tr.weights, seed_trace("online").weights)
    assert tr.classes.tolist() == ["no", "yes"]


# ---------------------------------------------------------------------- bad input
def test_bad_input_gives_clear_errors():
    with pytest.raises(ValueError, match="two classes; y has 3"):
        trace(OR_X, [0, 1, 2, 1])
    with pytest.raises(ValueError, match="only one class"):
        trace(OR_X, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="'mode'"):
        trace(OR_X, OR_Y, mode="minibatch")
    with pytest.raises(ValueError, match="'eta'"):
        trace(OR_X, OR_Y, eta=0)
    with pytest.raises(ValueError, match="nonzero bias_input"):
        trace(OR_X, OR_Y, bias_input=0.0)
    with pytest.raises(ValueError, match="'max_iter'"):
        trace(OR_X, OR_Y, max_iter=0)
    with pytest.raises(ValueError, match="NaN"):
        trace([[np.nan, 1.0], [1.0, 1.0]], [0, 1])


# ---------------------------------------------------------------------- agreement
def fit_perceptron(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return Perceptron(**{"tol": None, **params}).fit(X, y)


@pytest.mark.parametrize("mode", ["online", "batch"])
def test_seed_example_agrees_with_perceptron(mode):
    # Perceptron's constant input must be positive; bias_input -1 only flips the sign of w_0,
    # so the hyperplane (coef, intercept = w_0 * bias_input) is the one of bias_input +1.
    tr = seed_trace(mode)
    clf = Perceptron(mode=mode, eta=1.0, shuffle=False, intercept_scaling=1.0).fit(OR_X, OR_Y)
    np.testing.assert_array_equal(clf.coef_.ravel(), tr.coef)
    assert clf.intercept_[0] == tr.intercept
    assert clf.n_mistakes_ == tr.n_updates
    assert clf.n_iter_ == tr.n_epochs
    assert list(clf.mistakes_per_epoch_) == tr.mistakes_per_epoch.tolist()


@st.composite
def small_problems(draw):
    """Integer-valued patterns and dyadic steps: every sum is exact, so results compare exactly."""
    n = draw(st.integers(2, 15))
    d = draw(st.integers(1, 4))
    X = draw(arrays(np.float64, (n, d), elements=st.integers(-5, 5).map(float)))
    y = draw(arrays(np.int64, n, elements=st.integers(0, 1)))
    y[0], y[1] = 0, 1
    return X, y


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    small_problems(),
    st.sampled_from(["online", "batch"]),
    st.sampled_from([0.25, 1.0, 2.5]),
    st.sampled_from([0.5, 1.0, 2.5]),
    st.booleans(),
    st.booleans(),
    st.integers(0, 1000),
)
def test_trace_agrees_with_perceptron(problem, mode, eta, bias_input, fit_intercept, shuffle, seed):
    X, y = problem
    tr = trace(
        X,
        y,
        mode=mode,
        eta=eta,
        bias_input=bias_input,
        fit_intercept=fit_intercept,
        shuffle=shuffle,
        random_state=seed,
        max_iter=30,
    )
    clf = fit_perceptron(
        X,
        y,
        mode=mode,
        eta=eta,
        intercept_scaling=bias_input,
        fit_intercept=fit_intercept,
        shuffle=shuffle,
        random_state=seed,
        max_iter=30,
    )
    np.testing.assert_array_equal(clf.coef_.ravel(), tr.coef)
    assert clf.intercept_[0] == tr.intercept
    assert clf.n_mistakes_ == tr.n_updates
    assert clf.n_iter_ == tr.n_epochs
    assert clf.converged_ == tr.converged


def test_trace_refuses_runs_too_long_to_keep():
    """Every presentation is a row: a huge max_iter is refused before any work, not run."""
    with pytest.raises(ValueError, match="more than 2,000,000 rows. Lower max_iter"):
        trace([[-1, -1], [1, -1], [-1, 1], [1, 1]], [0, 1, 1, 0], max_iter=10**9)


@pytest.mark.parametrize("mode", ["online", "batch"])
@pytest.mark.parametrize("shuffle", [False, True])
def test_trace_shows_the_engines_weights_on_inexact_sums(mode, shuffle):
    # steps and patterns whose sums round: the table's weights are still the engine's own
    rng = np.random.default_rng(5)
    X = rng.normal(size=(12, 3))
    y = np.where(X @ [0.3, -1.1, 0.7] + 0.1 * rng.normal(size=12) > 0, 1, -1)
    kw = dict(mode=mode, eta=0.1, shuffle=shuffle, random_state=2, max_iter=7)
    tr = trace(X, y, bias_input=0.3, **kw)
    clf = fit_perceptron(X, y, intercept_scaling=0.3, **kw)
    np.testing.assert_array_equal(tr.coef, clf.coef_.ravel())
    assert tr.intercept == clf.intercept_[0] and tr.n_updates == clf.n_mistakes_
    # each step's change is the update the engine logged: eta t x of the pattern shown
    rows = np.flatnonzero(tr.updated)
    t = np.where(y == tr.classes[1], 1.0, -1.0)[tr.pattern[rows], None]
    expected = (0.1 * t) * np.column_stack([X, np.full(12, 0.3)])[tr.pattern[rows]]
    if mode == "online":
        np.testing.assert_array_equal(tr.delta_w[rows], expected)
        assert not tr.delta_w[~tr.updated].any()
    else:
        assert tr.averaged is None


def test_trace_average_and_vote_are_the_estimators():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 2))
    y = np.where(X[:, 0] - X[:, 1] > 0.2, 1, -1)
    tr = trace(X, y, eta=0.5, bias_input=1.0, max_iter=40)
    assert tr.converged and tr.n_epochs < 40  # AveragedPerceptron credits the rest
    avg = AveragedPerceptron(eta=0.5, max_iter=40, shuffle=False, tol=None).fit(X, y)
    np.testing.assert_array_equal(tr.averaged[-1, :2], avg.coef_.ravel())
    assert tr.averaged[-1, 2] * 1.0 == avg.intercept_[0]
    # any earlier cursor: Algorithm 7's mean of w_0 .. w_c, the weights so far
    for c in (1, 7, tr.step.shape[0] - 1):
        np.testing.assert_allclose(tr.averaged[c], tr.weights[: c + 1].mean(axis=0))
    # the vote at any cursor: every presentation's weights vote once, 0 votes against
    c = 9
    Xa = np.column_stack([X, np.ones(10)])
    plus = (Xa @ tr.weights[1 : c + 1].T > 0).sum(axis=1)
    np.testing.assert_array_equal(tr.tally(X, np.full(10, c)), np.column_stack([plus, c - plus]))
    with pytest.raises(ValueError, match="presentations"):
        tr.tally(X, np.full(10, tr.step.shape[0] + 1))


def test_the_public_paths_of_trace():
    """``rosenblatt.trace`` is the function, also after ``import rosenblatt.trace``."""
    import importlib

    import rosenblatt
    import rosenblatt.theory.trace as module

    alias = importlib.import_module("rosenblatt.trace")
    from rosenblatt.trace import Trace, trace

    assert rosenblatt.trace is module.trace and trace is module.trace
    assert alias.Trace is module.Trace and Trace is module.Trace
