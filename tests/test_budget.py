"""Kernel perceptrons on a budget (Stoptron, Randomized Budget Perceptron, Forgetron)
and the Projectron: the support set stays within its bound, the projection is the
least-squares one, and mistakes are counted as predictions, not updates.

The compiled rule of every policy is checked against ``tests/reference.py`` exactly
in ``test_kernel_registry.py``; these tests check what a user relies on."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import fit_quiet
from hypothesis import given, settings
from hypothesis import strategies as st

from rosenblatt import KernelPerceptron, Projectron
from rosenblatt.persistence import load, save


def _noisy(n=600, seed=0, flip=0.1):
    """The DOGMA demo's problem: x ~ N(0, I_2), labels of a random hyperplane, some flipped."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 2)
    y = np.sign(X @ rng.randn(2))
    flipped = rng.permutation(n)[: int(flip * n)]
    y[flipped] *= -1
    return X, y.astype(int)


POLICIES = ("stop", "random", "forgetron")

# noisy data is not separable: the ConvergenceWarning is expected
pytestmark = pytest.mark.filterwarnings("ignore:.*did not converge")


@settings(max_examples=15, deadline=None)
@given(
    policy=st.sampled_from(POLICIES),
    budget=st.integers(1, 25),
    seed=st.integers(0, 10_000),
    epochs=st.integers(1, 4),
)
def test_the_support_set_never_exceeds_the_budget(policy, budget, seed, epochs):
    """Epoch after epoch (a warm start goes on from the last one), and at the end."""
    X, y = _noisy(200, seed)
    clf = KernelPerceptron(
        gamma=1.0,
        budget=budget,
        budget_policy=policy,
        prediction="last",
        max_iter=1,
        tol=None,
        random_state=np.random.RandomState(seed),
        warm_start=True,
    )
    for _ in range(epochs):
        clf.fit(X, y)
        assert len(clf.support_) <= budget
        assert clf.training_state_.n_sv.max() <= budget
    assert clf.n_mistakes_ >= 1


@pytest.mark.parametrize("policy", POLICIES)
def test_partial_fit_batches_keep_the_budget_and_learn(policy):
    X, y = _noisy(900, 3)
    clf = KernelPerceptron(
        gamma=1.0, budget=30, budget_policy=policy, prediction="last", random_state=0
    )
    for start in range(0, 600, 100):
        clf.partial_fit(X[start : start + 100], y[start : start + 100], classes=[-1, 1])
        assert len(clf.support_) <= 30
        assert clf.support_vectors_.shape[0] == len(clf.support_)


@pytest.mark.parametrize(
    "make",
    [
        lambda: KernelPerceptron(budget=30, budget_policy="stop", prediction="last"),
        lambda: KernelPerceptron(budget=30, budget_policy="stop", prediction="voted"),
        lambda: KernelPerceptron(budget=30, budget_policy="forgetron", prediction="last"),
        lambda: Projectron(max_projection_error=0.1),
        lambda: Projectron(max_projection_error=0.1, plus=True, prediction="last"),
    ],
    ids=["stop", "stop-voted", "forgetron", "projectron", "projectron++"],
)
def test_batches_in_order_give_one_fit_epoch_exactly(make):
    """The Forgetron reads f at its oldest support vector, an earlier batch's row."""
    X, y = _noisy(600, 3)
    online = make().set_params(gamma=1.0, shuffle=False)
    for start in range(0, 600, 100):
        online.partial_fit(X[start : start + 100], y[start : start + 100], classes=[-1, 1])
    whole = make().set_params(gamma=1.0, shuffle=False, max_iter=1).fit(X, y)
    np.testing.assert_array_equal(online.decision_function(X), whole.decision_function(X))
    assert sum(online.mistakes_per_epoch_) == whole.mistakes_per_epoch_[0]


def test_without_a_budget_the_support_set_grows_with_the_noise():
    X, y = _noisy(600, 1)
    full = KernelPerceptron(gamma=1.0, max_iter=1, shuffle=False).fit(X, y)
    capped = KernelPerceptron(
        gamma=1.0, max_iter=1, shuffle=False, budget=20, budget_policy="random",
        prediction="last", random_state=0,
    ).fit(X, y)  # fmt: skip
    assert len(full.support_) > 60 and len(capped.support_) == 20


def test_mistakes_are_prediction_mistakes_not_updates():
    """A full Stoptron keeps erring without updating: its mistakes are counted."""
    X, y = _noisy(400, 2)
    clf = KernelPerceptron(
        gamma=1.0, budget=5, budget_policy="stop", max_iter=1, shuffle=False
    ).fit(X, y)
    n_updates = len(clf.update_coef_)
    assert clf.mistakes_per_epoch_[0] > n_updates
    # the online error rate is the mistakes over the samples, as DOGMA counts it
    assert 0 < clf.mistakes_per_epoch_[0] / len(y) < 1


def test_an_unbudgeted_mistake_count_equals_its_updates():
    X, y = _noisy(300, 4)
    clf = KernelPerceptron(gamma=1.0, max_iter=2, tol=None, random_state=0).fit(X, y)
    assert clf.n_mistakes_ == len(clf.update_coef_)


@pytest.mark.parametrize("prediction", ["averaged", "voted"])
@pytest.mark.parametrize("policy", ["random", "forgetron"])
def test_evicting_policies_refuse_predictions_that_need_every_hypothesis(policy, prediction):
    X, y = _noisy(50, 0)
    clf = KernelPerceptron(budget=10, budget_policy=policy, prediction=prediction)
    with pytest.raises(ValueError, match="prediction='last'"):
        clf.fit(X, y)


def test_the_stoptron_keeps_every_prediction():
    X, y = _noisy(200, 5)
    for prediction in ("last", "averaged", "voted"):
        clf = KernelPerceptron(
            gamma=1.0, budget=15, budget_policy="stop", prediction=prediction, random_state=0
        ).fit(X, y)
        assert len(clf.support_) <= 15 and clf.score(X, y) > 0.5


def test_a_budget_smaller_than_the_classes_is_refused():
    rng = np.random.RandomState(0)
    X, y = rng.randn(30, 2), np.repeat([0, 1, 2], 10)
    with pytest.raises(ValueError, match="give budget=3 or more"):
        KernelPerceptron(budget=2, budget_policy="stop").fit(X, y)


def test_several_classes_share_the_budget():
    rng = np.random.RandomState(0)
    X, y = rng.randn(300, 2), rng.randint(0, 3, 300)
    clf = KernelPerceptron(
        budget=31, budget_policy="random", prediction="last", random_state=0
    ).fit(X, y)
    assert len(clf.support_) <= 31
    assert clf.training_state_.n_sv.max() <= 10  # 31 // 3 each


def test_continued_training_keeps_its_budget():
    X, y = _noisy(100, 0)
    clf = KernelPerceptron(budget=10, budget_policy="stop", warm_start=True, max_iter=2)
    clf.fit(X, y)
    clf.set_params(budget=20)
    with pytest.raises(ValueError, match="keeps its budget"):
        clf.fit(X, y)


# ---------------------------------------------------------------------- the Projectron
def test_the_projection_is_the_least_squares_projection():
    """With the linear kernel the feature space is the input space: a projected mistake
    moves the weights by eta * y * (the least-squares projection of x on the span of
    the support vectors), exactly what np.linalg.lstsq finds."""
    V = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])  # two support vectors: span = xy-plane
    x = np.array([[-2.0, -3.0, 0.1]])  # close to the plane: projection error 0.01
    clf = Projectron(
        kernel="linear", fit_intercept=False, max_projection_error=0.05, shuffle=False,
        prediction="last",
    )  # fmt: skip
    clf.partial_fit(V, [1, 1], classes=[0, 1])
    before = clf.dual_coef_ @ clf.support_vectors_
    assert len(clf.support_) == 2
    clf.partial_fit(x, [1])  # w . x = -5 < 0: a mistake, projected, not added
    assert len(clf.support_) == 2
    after = clf.dual_coef_ @ clf.support_vectors_
    d, *_ = np.linalg.lstsq(V.T, x[0], rcond=None)
    np.testing.assert_allclose(after - before, (d @ V)[np.newaxis], atol=1e-12)
    np.testing.assert_allclose(after - before, [[-2.0, -3.0, 0.0]], atol=1e-12)


def test_a_pattern_far_from_the_span_joins_the_support():
    V = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    clf = Projectron(kernel="linear", fit_intercept=False, max_projection_error=0.05)
    clf.partial_fit(V, [1, 1], classes=[0, 1])
    clf.partial_fit(np.array([[-2.0, -3.0, 1.0]]), [1])  # error 1.0 > 0.05: joins
    assert len(clf.support_) == 3


def test_the_inverse_kernel_matrix_is_the_inverse():
    X, y = _noisy(400, 6)
    clf = Projectron(gamma=1.0, max_projection_error=0.05, max_iter=2, random_state=0)
    clf.fit(X, y)
    state = clf.training_state_
    m = state.n_sv[0]
    joined = state.sv[0, :m]
    K = clf._kernel_function().values(X[joined], X[joined]) + clf._s2
    np.testing.assert_allclose(state.budget.kinv[0, :m, :m] @ K, np.eye(m), atol=1e-6)


def test_projectron_keeps_far_fewer_support_vectors_at_the_kernel_perceptrons_accuracy():
    X, y = _noisy(4000, 7)
    train, test = slice(0, 2000), slice(2000, None)
    common = dict(gamma=1.0, max_iter=1, shuffle=False, fit_intercept=False)
    kp = KernelPerceptron(**common).fit(X[train], y[train])
    pj = Projectron(max_projection_error=0.01, **common).fit(X[train], y[train])
    pp = Projectron(max_projection_error=0.01, plus=True, **common).fit(X[train], y[train])
    assert len(pj.support_) < len(kp.support_) / 5
    assert pj.score(X[test], y[test]) > kp.score(X[test], y[test]) - 0.03
    # Projectron++ learns from margin errors too: fewer online mistakes (DOGMA's demo)
    assert pp.mistakes_per_epoch_[0] < kp.mistakes_per_epoch_[0]


@pytest.mark.parametrize(
    "model",
    [
        KernelPerceptron(gamma=1.0, budget=12, budget_policy="forgetron", prediction="last"),
        KernelPerceptron(gamma=1.0, budget=12, budget_policy="random", prediction="last"),
        KernelPerceptron(gamma=1.0, budget=12, budget_policy="stop"),
        Projectron(gamma=1.0, max_projection_error=0.2, plus=True),
    ],
    ids=["forgetron", "random", "stop", "projectron++"],
)
def test_model_files_keep_the_budget_and_training_goes_on_the_same(model, tmp_path):
    X, y = _noisy(300, 8)
    model.set_params(shuffle=False, random_state=np.random.RandomState(0))
    model.partial_fit(X[:100], y[:100], classes=[-1, 1])
    save(model, tmp_path / "m.rbl")
    loaded = load(tmp_path / "m.rbl")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    for clf in (model, loaded):
        clf.partial_fit(X[100:200], y[100:200])
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert len(loaded.support_) <= 12 or isinstance(model, Projectron)


def test_fit_stream_learns_a_file_online_within_the_budget(tmp_path):
    from rosenblatt import fit_stream

    X, y = _noisy(600, 9)
    path = tmp_path / "noisy.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt="%.17g")
    clf = KernelPerceptron(
        gamma=1.0, budget=25, budget_policy="forgetron", prediction="last", random_state=0
    )
    clf = fit_stream(clf, path, chunk_size=64, epochs=2)
    assert len(clf.support_) <= 25
    assert clf.n_iter_ == 2 and len(clf.mistakes_per_epoch_) == 2
    assert sum(clf.mistakes_per_epoch_) == clf.n_mistakes_ > 0


@pytest.mark.parametrize(
    "change, why",
    [
        (lambda t: t["params"].update(budget=50), "budget other than the parameters"),
        (lambda t: t["params"].update(budget=None), "budget other than the parameters"),
        (
            lambda t: t["fitted"]["training_state_"]["meta"]["budget"].update(size=2),
            "more than its budget",
        ),
        (
            lambda t: t["fitted"]["training_state_"]["meta"]["budget"].update(policy="grow"),
            "budget policy",
        ),
        (lambda t: t["params"].update(prediction="voted", budget_policy="random"), "removes"),
    ],
    ids=["bigger", "unbounded", "state-over-budget", "unknown-policy", "voted-evicting"],
)
def test_a_file_whose_budget_does_not_fit_is_refused(change, why, tmp_path):
    from forging import edit_tree, forge

    from rosenblatt.exceptions import ModelFileError

    X, y = _noisy(80, 0)
    path = tmp_path / "m.rbl"
    save(KernelPerceptron(gamma=1.0, budget=5, budget_policy="stop").fit(X, y), path)
    forge(path, edit_tree(change))
    with pytest.raises(ModelFileError, match=why):
        load(path)


def test_the_command_line_trains_budgeted_and_projectron_models(tmp_path):
    from conftest import run_cli

    X, y = _noisy(400, 10)
    data = tmp_path / "noisy.csv"
    np.savetxt(data, np.column_stack([X, y]), delimiter=",", fmt="%.17g")
    budgeted, projectron = tmp_path / "b.rbl", tmp_path / "p.rbl"
    result = run_cli(
        "train", str(data), "-m", str(budgeted), "-a", "kernel", "--budget", "20",
        "--budget-policy", "forgetron", "--prediction", "last", "-q",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert len(load(budgeted)[-1].support_) <= 20
    result = run_cli(
        "train", str(data), "-m", str(projectron), "-a", "projectron", "--plus",
        "--max-projection-error", "0.2", "-q",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    model = load(projectron)[-1]
    assert isinstance(model, Projectron) and model.plus and model.max_projection_error == 0.2
    refused = run_cli("train", str(data), "-m", str(budgeted), "-a", "kernel", "--budget", "20",
                      "--budget-policy", "random")  # fmt: skip
    assert refused.exit_code == 2 and "last" in refused.output
    assert "--prediction last" in refused.output  # the command line's words, not Python's
    assert "Traceback" not in refused.output


@pytest.mark.parametrize(
    "make",
    [
        lambda: KernelPerceptron(budget=20, budget_policy="stop", prediction="voted"),
        lambda: KernelPerceptron(budget=20, budget_policy="random", prediction="last"),
        lambda: KernelPerceptron(budget=20, budget_policy="forgetron", prediction="last"),
        lambda: Projectron(max_projection_error=0.05, plus=True),
    ],
    ids=["stop", "random", "forgetron", "projectron++"],
)
@pytest.mark.parametrize("sparse", [False, True])
def test_blocks_of_presentations_give_the_cached_gram_matrix_model(make, sparse):
    """Under a budget, a Gram matrix too large for the cache is replaced by the support
    vectors' values against a block of presentations at a time: the same numbers, so the
    same model, bit for bit (fit over several epochs, then partial_fit batches)."""
    import scipy.sparse as sp

    X, y = _noisy(700, 11)
    X = sp.csr_matrix(X) if sparse else X
    models = []
    for cache_size in (512, 0.5):  # the Gram matrix fits; it does not (3.9 MB)
        clf = make().set_params(gamma=1.0, cache_size=cache_size, random_state=3, max_iter=4)
        clf.fit(X[:500], y[:500])
        clf.partial_fit(X[500:600], y[500:600]).partial_fit(X[600:], y[600:])
        models.append(clf)
    cached, blocked = models
    np.testing.assert_array_equal(cached.support_, blocked.support_)
    np.testing.assert_array_equal(cached.dual_coef_, blocked.dual_coef_)
    np.testing.assert_array_equal(cached.decision_function(X), blocked.decision_function(X))
    assert cached.mistakes_per_epoch_ == blocked.mistakes_per_epoch_


@settings(max_examples=15, deadline=None)
@given(
    budget=st.integers(1, 25),
    seed=st.integers(0, 10_000),
    epochs=st.integers(1, 4),
    plus=st.booleans(),
    threshold=st.sampled_from([0.01, 0.1, 0.5]),
)
def test_the_projectron_never_exceeds_its_budget(budget, seed, epochs, plus, threshold):
    """Epoch after epoch, and at the end; a full support set still learns (by projecting)."""
    X, y = _noisy(200, seed, flip=0.2)
    clf = Projectron(
        gamma=1.0,
        budget=budget,
        max_projection_error=threshold,
        plus=plus,
        max_iter=1,
        tol=None,
        random_state=np.random.RandomState(seed),
        warm_start=True,
    )
    for _ in range(epochs):
        clf.fit(X, y)
        assert len(clf.support_) <= budget
        assert clf.training_state_.n_sv.max() <= budget
        assert clf.training_state_.budget.kinv.shape[1] <= max(16, budget)


def test_a_full_projectron_projects_instead_of_adding():
    X, y = _noisy(600, 2, flip=0.2)
    free = Projectron(gamma=1.0, max_projection_error=0.01, max_iter=3, tol=None, random_state=0)
    capped = Projectron(
        gamma=1.0, max_projection_error=0.01, max_iter=3, tol=None, random_state=0, budget=15
    )
    free.fit(X, y)
    capped.fit(X, y)
    assert len(free.support_) > 15 and len(capped.support_) == 15
    # the first 15 support vectors joined as they did without the cap, then mistakes projected
    assert set(capped.support_) <= set(free.support_)
    assert capped.score(X, y) > 0.7


@pytest.mark.parametrize("partial", [False, True])
def test_projectron_classes_share_the_budget(partial):
    rng = np.random.RandomState(0)
    X = rng.randn(300, 2)
    y = rng.randint(0, 3, 300)
    clf = Projectron(gamma=2.0, max_projection_error=0.01, budget=30, random_state=0)
    if partial:
        for start in range(0, 300, 100):
            clf.partial_fit(X[start : start + 100], y[start : start + 100], classes=[0, 1, 2])
    else:
        fit_quiet(clf, X, y)
    assert clf.training_state_.n_sv.max() <= 10
    with pytest.raises(ValueError, match="budget=2 leaves no support vector"):
        Projectron(budget=2).fit(X, y)


def test_projectron_budget_is_kept_through_model_files_and_continued_training(tmp_path):
    X, y = _noisy(300, 4, flip=0.2)
    clf = Projectron(gamma=1.0, max_projection_error=0.01, budget=12, random_state=0)
    clf.partial_fit(X[:150], y[:150], classes=[-1, 1])
    save(clf, tmp_path / "p.rbl")
    again = load(tmp_path / "p.rbl")
    assert again.budget == 12 and again.training_state_.budget.size == 12
    again.partial_fit(X[150:], y[150:])
    assert len(again.support_) <= 12
    with pytest.raises(ValueError, match="budget parameters differ"):
        again.set_params(budget=20).partial_fit(X[:10], y[:10])
