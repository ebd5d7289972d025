"""Classes that appear mid-stream (issue 44): ``partial_fit`` without ``classes``.

The rule, checked here against ``tests/reference.py``: ``classes_`` stays sorted; a model
whose classes appear as the calls come equals, bit for bit, the model given every class up
front in which a class can neither be predicted nor updated before the call that first
holds its label (``reference.partial_fits``, the masked run). Multinomial: a new class's
row starts at zero. One-vs-rest: a new class's neuron starts at zero and has missed the
negatives of the calls before. Two classes grown to more: the one neuron is the second
class's, its negation the first class's.
"""

from __future__ import annotations

import numpy as np
import pytest
import reference
from conftest import PROPERTY
from hypothesis import given
from hypothesis import strategies as st

from rosenblatt import (
    AveragedPerceptron,
    KernelPerceptron,
    PassiveAggressive,
    Perceptron,
    Projectron,
    VotedPerceptron,
)

#: the class labels of the streams: sorted, so that a class's row is its index here
LABELS = np.array([3, 7, 11, 20, 42])

LEARNERS = {
    "perceptron": (Perceptron, {"eta": 0.5}, {"eta": 0.5}),
    "averaged": (AveragedPerceptron, {}, {"average": True}),
    "pa": (PassiveAggressive, {"variant": "pa", "C": 1.0}, {"step": "pa"}),
    "pa1": (PassiveAggressive, {"variant": "pa1", "C": 0.3}, {"step": "pa1", "C": 0.3}),
    "pa2-averaged": (
        PassiveAggressive,
        {"variant": "pa2", "C": 0.7, "average": True},
        {"step": "pa2", "C": 0.7, "average": True},
    ),
}


@st.composite
def streams(draw):
    """``(batches, n_classes, seed)``: batches ``(X, index)`` of small whole numbers whose
    classes (indices into LABELS) first appear in random calls, two at least in the first."""
    n_classes = draw(st.integers(3, 5))
    n_batches = draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2**31 - 1))
    d = draw(st.integers(1, 4))
    rng = np.random.RandomState(seed)
    first = rng.randint(0, n_batches, size=n_classes)
    first[rng.choice(n_classes, 2, replace=False)] = 0
    batches = []
    for b in range(n_batches):
        new = np.flatnonzero(first == b)
        size = max(draw(st.integers(2, 10)), new.shape[0])
        target = rng.choice(np.flatnonzero(first <= b), size=size)
        target[: new.shape[0]] = new  # each class first holds its label here
        rng.shuffle(target)
        batches.append((rng.randint(-4, 5, size=(size, d)).astype(float), target))
    return batches, n_classes, seed


def _orders(seed, batches):
    """The orders ``partial_fit`` draws from ``random_state=seed``: one per call."""
    rng = np.random.RandomState(seed)
    return [rng.permutation(len(target)) for _, target in batches]


def _grown(estimator, batches):
    """``partial_fit`` on each batch, without classes; the mistakes of each call."""
    for X, target in batches:
        estimator.partial_fit(X, LABELS[target])
    return estimator


def _assert_equals_masked(state, ref_state, present):
    """The grown state's rows are the masked run's rows of the classes present; the rows
    of classes not yet seen stayed at zero there."""
    absent = np.setdiff1d(np.arange(ref_state[0].shape[0]), present)
    for part, ref in zip((state.W, state.w0, state.U, state.U0), ref_state[:4]):
        if ref.shape[0]:
            np.testing.assert_array_equal(part, ref[present])
            assert not np.any(ref[absent])
    return absent


@PROPERTY
@given(streams(), st.sampled_from(sorted(LEARNERS)))
def test_multinomial_classes_that_appear_equal_the_masked_run(stream, learner):
    batches, n_classes, seed = stream
    cls, params, rule = LEARNERS[learner][0], LEARNERS[learner][1], dict(LEARNERS[learner][2])
    clf = _grown(cls(multi_class="multinomial", random_state=seed, **params), batches)
    average = rule.pop("average", False)
    ref_state, mistakes = reference.partial_fits(
        batches, n_classes, _orders(seed, batches), multinomial=True, average=average, **rule
    )
    present = np.unique(np.concatenate([t for _, t in batches]))
    np.testing.assert_array_equal(clf.classes_, LABELS[present])
    _assert_equals_masked(clf.training_state_, ref_state, present)
    np.testing.assert_array_equal(clf.training_state_.counts, ref_state[4])
    assert clf.mistakes_per_epoch_ == mistakes


@PROPERTY
@given(streams(), st.sampled_from(sorted(LEARNERS)))
def test_one_vs_rest_classes_that_appear_equal_the_masked_run(stream, learner):
    """A new neuron starts at zero with no presentation counted: the masked run's neuron,
    not trained before its class's call. Two classes first: their one neuron is the second
    class's, its negation the first's, as the masked run's two neurons are."""
    batches, n_classes, seed = stream
    cls, params, rule = LEARNERS[learner][0], LEARNERS[learner][1], dict(LEARNERS[learner][2])
    clf = _grown(cls(random_state=seed, **params), batches)
    average = rule.pop("average", False)
    ref_state, mistakes = reference.partial_fits(
        batches, n_classes, _orders(seed, batches), average=average, **rule
    )
    present = np.unique(np.concatenate([t for _, t in batches]))
    state = clf.training_state_
    if present.shape[0] == 2:  # still two classes: the one neuron of the second
        for part, ref in zip((state.W, state.w0, state.U, state.U0), ref_state[:4]):
            if ref.shape[0]:
                np.testing.assert_array_equal(part[0], ref[present[1]])
                np.testing.assert_array_equal(-ref[present[0]] + 0.0, ref[present[1]])
        return
    _assert_equals_masked(state, ref_state, present)
    np.testing.assert_array_equal(state.counts, ref_state[4][present])
    # calls while the model had two classes count its one neuron's mistakes; the masked
    # run's two neurons (one the other's negation) erred twice as often
    seen = [
        len(np.unique(np.concatenate([t for _, t in batches[: b + 1]])))
        for b in range(len(batches))
    ]
    expected = [m // 2 if k == 2 else m for m, k in zip(mistakes, seen)]
    assert clf.mistakes_per_epoch_ == expected


def test_a_fixed_stream_bit_for_bit():
    """One stream written out: ham and spam first, then eggs (between them), then bacon
    (first of all); the multinomial averaged perceptron against the masked run."""
    X = np.array(
        [[1.0, 2.0], [-1.0, 0.5], [0.0, -1.0], [2.0, 1.0], [-2.0, -1.0], [1.5, -0.5]]
        + [[0.5, 0.5], [-0.5, 2.0], [1.0, -2.0], [-1.5, 1.0]]
    )
    y = np.array(["ham", "spam", "ham", "spam", "eggs", "eggs", "bacon", "ham", "spam", "bacon"])
    calls = [slice(0, 4), slice(4, 6), slice(6, 10)]
    clf = AveragedPerceptron(multi_class="multinomial", shuffle=False)
    classes_after = []
    for part in calls:
        clf.partial_fit(X[part], y[part])
        classes_after.append(clf.classes_.tolist())
    assert classes_after == [
        ["ham", "spam"],
        ["eggs", "ham", "spam"],
        ["bacon", "eggs", "ham", "spam"],
    ]
    every = np.unique(y)
    target = np.searchsorted(every, y)
    batches = [(X[part], target[part]) for part in calls]
    orders = [np.arange(len(t)) for _, t in batches]
    ref_state, mistakes = reference.partial_fits(batches, 4, orders, multinomial=True, average=True)
    state = clf.training_state_
    for part, ref in zip((state.W, state.w0, state.U, state.U0, state.counts), ref_state):
        np.testing.assert_array_equal(part, ref)
    assert clf.mistakes_per_epoch_ == mistakes == [4, 2, 4]
    # bacon, first of all, came last: its row holds only the last call's updates
    np.testing.assert_array_equal(state.W[0], [-1.5, 1.5])


def test_a_new_one_vs_rest_neuron_missed_the_earlier_negatives():
    """Grown, a neuron is the one a run from its class's first call on gives: here
    "eggs against the rest" trained on the last call alone."""
    rng = np.random.RandomState(3)
    X = rng.randint(-3, 4, size=(30, 3)).astype(float)
    y = np.array(["ham", "spam", "bacon"])[np.r_[rng.randint(0, 2, 20), rng.randint(0, 3, 10)]]
    y[22], y[25] = "eggs", "bacon"
    clf = Perceptron(shuffle=False)
    for part in (slice(0, 10), slice(10, 20), slice(20, 30)):
        clf.partial_fit(X[part], y[part])
    assert clf.classes_.tolist() == ["bacon", "eggs", "ham", "spam"]
    for k, label in ((0, "bacon"), (1, "eggs")):
        alone = reference.online(
            X[20:], np.where(y[20:] == label, 1, -1), [np.arange(10)], stop=False
        )
        np.testing.assert_array_equal(clf.coef_[k], alone["w"][:-1])
        assert clf.intercept_[k] == alone["w"][-1]
        assert clf.training_state_.counts[k] == 10  # the presentations it saw


@pytest.mark.parametrize("cls", [Perceptron, AveragedPerceptron, VotedPerceptron])
def test_two_classes_grown_to_three_keep_the_one_neurons_meaning(cls):
    """The binary neuron scored the second class: it becomes that class's neuron, and the
    first class's is its negation (averaged weights too); the new class starts at zero,
    so the model answers what the binary one answered wherever it scored not exactly 0."""
    rng = np.random.RandomState(0)
    X = rng.randn(40, 3)
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 5, 1)
    binary = cls(random_state=0).partial_fit(X, y)
    coef, intercept = binary.coef_.copy(), binary.intercept_.copy()
    before = binary.predict(X)
    grown = binary.add_classes([9])
    assert grown.classes_.tolist() == [1, 5, 9]
    np.testing.assert_array_equal(grown.coef_[1], coef[0])
    np.testing.assert_array_equal(grown.coef_[0], -coef[0] + 0.0)
    np.testing.assert_array_equal(grown.intercept_[:2], [-intercept[0] + 0.0, intercept[0]])
    np.testing.assert_array_equal(grown.coef_[2], 0.0)
    assert grown.training_state_.counts.tolist()[:2] == [40, 40]
    np.testing.assert_array_equal(grown.predict(X), before)
    if cls is VotedPerceptron:  # the record's voters: the negated one votes the other way
        votes = grown.decision_function(X)
        np.testing.assert_array_equal(votes[:, 0], -votes[:, 1])
        np.testing.assert_array_equal(votes[:, 2], 0.0)  # no presentation: no vote yet


def test_a_multinomial_vote_record_follows_the_class_indices():
    """The multinomial voted perceptron's updates name their classes: grown, by the new
    indices, so that the last hypothesis of the record is the grown weights."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [1.0, 1.0]])
    clf = VotedPerceptron(multi_class="multinomial", shuffle=False)
    clf.partial_fit(X[:3], [2, 4, 2]).partial_fit(X, [2, 4, 2, 0, 4])
    state = clf.training_state_
    W, _, _ = state.votes.vectors(0, 2, state.counts, n_classes=3)
    np.testing.assert_array_equal(W[-1], state.W)
    assert clf.classes_.tolist() == [0, 2, 4]


def test_classes_given_up_front_stay_fixed_until_added():
    X = np.eye(3)
    clf = Perceptron().partial_fit(X, [0, 1, 1], classes=[0, 1])
    with pytest.raises(ValueError, match=r"labels \[2\] that are not among the classes \[0, 1\]"):
        clf.partial_fit(X, [0, 1, 2])
    assert clf.classes_.tolist() == [0, 1] and clf.n_iter_ == 1  # refused: nothing learnt
    clf.partial_fit(X, [0, 1, 2], classes=[0, 1, 2])  # declared: added
    assert clf.classes_.tolist() == [0, 1, 2] and clf.training_state_.fixed_classes
    with pytest.raises(ValueError, match=r"labels \[3\]"):
        clf.partial_fit(X, [0, 3, 2])
    clf.add_classes([3])
    clf.partial_fit(X, [0, 3, 2])
    assert clf.coef_.shape == (4, 3)
    with pytest.raises(ValueError, match=r"classes=\[0, 1\] differs from the classes of the"):
        clf.partial_fit(X, [0, 1, 1], classes=[0, 1])
    with pytest.raises(ValueError, match="y holds the label 'ham', text, but the classes"):
        Perceptron().partial_fit(X, [0, 1, 1]).partial_fit(X, ["ham", "ham", "ham"])


def test_a_refused_batch_adds_no_class():
    clf = Perceptron().partial_fit(np.eye(2), [0, 1])
    with pytest.raises(ValueError, match="sample_weight contains negative values"):
        clf.partial_fit(np.eye(2), [0, 2], sample_weight=[1.0, -1.0])
    assert clf.classes_.tolist() == [0, 1] and clf.coef_.shape == (1, 2)


def test_a_label_matrix_gains_no_class():
    Y = np.array([[1, 0], [0, 1], [1, 1]])
    clf = Perceptron().partial_fit(np.eye(3), Y)
    with pytest.raises(ValueError, match="a label matrix's classes are its columns"):
        clf.add_classes([2])


def test_the_kernel_perceptron_grows_a_dual_problem():
    """A binary kernel perceptron's problem becomes the second class's, negated the first
    class's; a new class's problem starts at zero: trained on the next call, it is the
    problem a binary run on that call alone gives (the support vectors before have no
    coefficient in it)."""
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    clf = KernelPerceptron(gamma=1.0, prediction="last", shuffle=False)
    clf.partial_fit(X, [0, 1, 1, 0])
    binary = clf.dual_coef_.copy()
    clf.add_classes([2])
    np.testing.assert_array_equal(clf.dual_coef_, [-binary[0] + 0.0, binary[0], 0.0 * binary[0]])
    X2 = np.array([[2.0, 2.0], [0.5, 0.5], [2.0, 1.5]])
    clf.partial_fit(X2, [2, 0, 2])
    alone = KernelPerceptron(gamma=1.0, prediction="last", shuffle=False).partial_fit(X2, [1, 0, 1])
    new = clf.training_state_.coef[2]
    np.testing.assert_array_equal(new[:3], alone.training_state_.coef[0])
    assert not np.any(new[3:])  # no coefficient on the support vectors before
    assert clf.training_state_.n_seen.tolist() == [7, 7, 3]


def test_a_budget_shared_among_the_problems_takes_no_new_class():
    X = np.eye(3)
    for clf in (KernelPerceptron(budget=10), Projectron(budget=20)):
        clf.partial_fit(X, [0, 1, 1])
        with pytest.raises(ValueError, match=r"shares its budget among its 1 dual problems"):
            clf.partial_fit(X, [0, 2, 1])
        assert clf.classes_.tolist() == [0, 1]
    grown = Projectron(budget=None).partial_fit(X, [0, 1, 1]).partial_fit(X, [0, 2, 1])
    assert grown.classes_.tolist() == [0, 1, 2]


@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
def test_fit_batches_learns_the_classes_it_meets(multi_class):
    """``fit_batches`` without classes: each batch is a call; one epoch equals the calls
    of ``partial_fit`` (the same order source), classes joining with their batch. Its
    epoch counts every unit's mistakes, a grown binary neuron's before the growth for both
    the neurons it became (as the model given every class counts them); the first call of
    ``partial_fit``, the one neuron's."""
    rng = np.random.RandomState(4)
    X = rng.randint(-3, 4, size=(60, 3)).astype(float)
    y = np.r_[rng.randint(0, 2, 20), rng.randint(0, 4, 40)]
    parts = [slice(0, 20), slice(20, 40), slice(40, 60)]
    kw = {"multi_class": multi_class, "random_state": 7}
    streamed = AveragedPerceptron(**kw).fit_batches(
        lambda: [(X[p], y[p]) for p in parts], max_iter=1
    )
    calls = AveragedPerceptron(**kw)
    for p in parts:
        calls.partial_fit(X[p], y[p])
    np.testing.assert_array_equal(streamed.coef_, calls.coef_)
    np.testing.assert_array_equal(streamed.training_state_.counts, calls.training_state_.counts)
    binary = calls.mistakes_per_epoch_[0] if multi_class == "ovr" else 0
    assert streamed.n_mistakes_ == calls.n_mistakes_ + binary
    # more epochs: every unit goes on (the new ones learning from their batch on)
    again = AveragedPerceptron(**kw).fit_batches(lambda: [(X[p], y[p]) for p in parts], max_iter=4)
    assert again.classes_.tolist() == [0, 1, 2, 3] and again.n_iter_ == 4
    with pytest.raises(ValueError, match=r"labels \[3\] that are not among the classes"):
        Perceptron().fit_batches(lambda: [(X[p], y[p]) for p in parts], [0, 1, 2])


def test_units_that_stopped_stay_stopped_when_a_class_joins():
    """A neuron that made no mistake in an epoch stops; a class joining in a later epoch
    brings a unit that learns from there, the stopped ones staying as they were. Here class
    0 is learnt in one epoch, classes 1 and 2 share a point (never learnt), and class 3
    comes in the third epoch."""
    X = np.array([[10.0, 0.0], [-1.0, 0.0], [-1.0, 0.0], [0.0, 10.0]])
    y = np.array([0, 1, 2, 3])
    epochs = iter([[(X[:3], y[:3])], [(X[:3], y[:3])], [(X, y)], [(X, y)]])
    reports = []
    clf = Perceptron(shuffle=False, tol=None, on_epoch=reports.append)
    with pytest.warns(Warning, match="did not converge"):
        clf.fit_batches(lambda: next(epochs), max_iter=4)
    assert clf.classes_.tolist() == [0, 1, 2, 3]
    assert [r.mistakes_by_unit.tolist() for r in reports][1:] == [
        [0, 1, 1],
        [0, 1, 1, 4],
        [0, 1, 1, 2],
    ]
    # class 0's neuron stopped after the second epoch: D, which it scores +1, taught it nothing
    np.testing.assert_array_equal(clf.coef_[0], [10.0, 0.0])
    assert clf.intercept_[0] == 1.0
    # presentations: class 3's neuron the last two epochs' (none owed for those before it
    # joined); class 0's two, and the credit of the two it skipped (of four each)
    assert clf.training_state_.counts.tolist() == [3 + 3 + 2 * 4, 14, 14, 4 + 4]


# ---------------------------------------------------------------------- model files
def _stream_of_three():
    rng = np.random.RandomState(5)
    X = rng.randn(90, 4)
    y = np.array(["b", "c", "a"])[np.r_[rng.randint(0, 2, 30), rng.randint(0, 3, 60)]]
    return X, y, [slice(0, 30), slice(30, 60), slice(60, 90)]


GROWN = [
    pytest.param(lambda: Perceptron(random_state=0), id="perceptron"),
    pytest.param(
        lambda: AveragedPerceptron(multi_class="multinomial", random_state=0), id="multinomial"
    ),
    pytest.param(lambda: VotedPerceptron(random_state=0), id="voted"),
    pytest.param(lambda: PassiveAggressive(average=True, random_state=0), id="pa"),
    pytest.param(lambda: KernelPerceptron(random_state=0), id="kernel"),
    pytest.param(lambda: Projectron(budget=None, random_state=0), id="projectron"),
]


@pytest.mark.parametrize("make", GROWN)
def test_a_grown_model_saves_loads_and_grows_on_as_if_never_saved(make, tmp_path):
    from rosenblatt import load, save

    X, y, calls = _stream_of_three()
    kept = make().partial_fit(X[calls[0]], y[calls[0]])
    saved = make().partial_fit(X[calls[0]], y[calls[0]])
    save(saved, tmp_path / "binary.rbm")
    loaded = load(tmp_path / "binary.rbm")
    for model in (kept, loaded):
        model.partial_fit(X[calls[1]], y[calls[1]])  # "a" joins after the load
    save(loaded, tmp_path / "grown.rbm")
    again = load(tmp_path / "grown.rbm")
    save(again, tmp_path / "again.rbm")
    assert (tmp_path / "grown.rbm").read_bytes() == (tmp_path / "again.rbm").read_bytes()
    save(kept, tmp_path / "kept.rbm")
    assert (tmp_path / "kept.rbm").read_bytes() == (tmp_path / "grown.rbm").read_bytes()
    assert again.classes_.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(again.decision_function(X), kept.decision_function(X))


def test_fixed_classes_are_kept_in_the_model_file(tmp_path):
    from rosenblatt import calibrated, load, save

    X, y, calls = _stream_of_three()
    for model in (
        Perceptron().partial_fit(X[:30], y[:30], classes=["b", "c"]),
        KernelPerceptron().partial_fit(X[:30], y[:30], classes=["b", "c"]),
        calibrated(Perceptron(), method="online").partial_fit(X[:30], y[:30], classes=["b", "c"]),
    ):
        save(model, tmp_path / "fixed.rbm")
        with pytest.raises(ValueError, match=r"labels \['a'\] that are not among the classes"):
            load(tmp_path / "fixed.rbm").partial_fit(X[30:], y[30:])
