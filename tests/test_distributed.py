"""Iterative parameter mixing on a two-worker LocalCluster."""

import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from rosenblatt.distributed import ParameterMixing, mix_states  # noqa: E402
from rosenblatt.estimators.linear import AveragedPerceptron, Perceptron, VotedPerceptron  # noqa: E402
from rosenblatt.exceptions import DistributedFitError  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    )
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def _separable(n=2000, d=8, seed=0):
    rng = np.random.RandomState(seed)
    w = rng.randn(d)
    X = rng.randn(n, d)
    margin = X @ w / np.linalg.norm(w)
    keep = np.abs(margin) > 0.1
    return X[keep], (margin[keep] > 0).astype(int)


def _noisy(n, d=10, noise=0.1, seed=0):
    """A linear concept (the same w for every seed) with a fraction of labels flipped."""
    w = np.random.RandomState(0).randn(d)
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    y = (X @ w > 0).astype(int)
    flip = rng.rand(n) < noise
    y[flip] = 1 - y[flip]
    return X, y


def _dask(X, y, rows):
    return da.from_array(X, chunks=(rows, X.shape[1])), da.from_array(y, chunks=rows)


def test_separable_data_in_four_partitions_converges(client):
    X, y = _separable()
    Xd, yd = _dask(X, y, -(-len(y) // 4))
    clf = ParameterMixing(Perceptron(tol=None, random_state=0), max_rounds=100, client=client).fit(
        Xd, yd
    )
    assert clf.n_partitions_ == 4
    assert clf.converged_ and clf.mistakes_per_epoch_[-1] == 0
    assert clf.n_iter_ == len(clf.mistakes_per_epoch_) < 100
    assert all(len(m) == 4 for m in clf.mistakes_per_partition_)
    assert clf.score(X, y) == 1.0  # zero training mistakes
    assert clf.coef_.shape == (1, 8) and clf.intercept_.shape == (1,)
    np.testing.assert_array_equal(clf.classes_, [0, 1])
    np.testing.assert_array_equal(clf.predict(X), clf.estimator_.predict(X))
    np.testing.assert_array_equal(clf.predict(Xd).compute(), clf.predict(X))
    assert clf.score(Xd, yd) == 1.0


def test_large_state_travels_as_a_task_with_the_same_result(client, monkeypatch):
    import rosenblatt.distributed as module

    X, y = _separable(800, seed=10)
    Xd, yd = _dask(X, y, 200)
    inline = ParameterMixing(AveragedPerceptron(random_state=1), client=client).fit(Xd, yd)
    monkeypatch.setattr(module, "INLINE_STATE_BYTES", 0)
    as_task = ParameterMixing(AveragedPerceptron(random_state=1), client=client).fit(Xd, yd)
    np.testing.assert_array_equal(as_task.coef_, inline.coef_)
    assert as_task.mistakes_per_partition_ == inline.mistakes_per_partition_


def test_weighted_mixing_converges_and_is_reproducible(client):
    X, y = _separable(seed=1)
    Xd, yd = _dask(X, y, 500)
    fits = [
        ParameterMixing(Perceptron(random_state=2), mixing="weighted", client=client).fit(Xd, yd)
        for _ in range(2)
    ]
    assert fits[0].converged_ and fits[0].score(X, y) == 1.0
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)
    assert fits[0].mistakes_per_epoch_ == fits[1].mistakes_per_epoch_
    uniform = ParameterMixing(Perceptron(random_state=2), client=client).fit(Xd, yd)
    assert not np.array_equal(uniform.coef_, fits[0].coef_)


def test_noisy_data_accuracy_matches_single_machine(client):
    """Same number of epochs / rounds; accuracy on held-out data from the same concept."""
    X, y = _noisy(4000)
    X_test, y_test = _noisy(4000, seed=5, noise=0.0)
    Xd, yd = _dask(X, y, 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # averaged: both are stable estimates; within one point of each other
        single = AveragedPerceptron(tol=None, random_state=0, max_iter=10).fit(X, y)
        mixed = ParameterMixing(
            AveragedPerceptron(tol=None, random_state=0), max_rounds=10, client=client
        ).fit(Xd, yd)
        assert mixed.n_iter_ == single.n_iter_ == 10
        assert abs(mixed.score(X_test, y_test) - single.score(X_test, y_test)) <= 0.01
        # plain perceptron: the last weight vector of a single machine jumps around on
        # noisy data, and mixing averages it, so mixing is not worse (it is often better)
        single = Perceptron(tol=None, random_state=0, max_iter=10).fit(X, y)
        mixed = ParameterMixing(
            Perceptron(tol=None, random_state=0), max_rounds=10, client=client
        ).fit(Xd, yd)
        assert mixed.score(X_test, y_test) >= single.score(X_test, y_test) - 0.01
    assert not mixed.converged_


def test_averaged_mixing_is_the_mix_of_the_partitions_averages(client):
    X, y = _noisy(300, d=5, seed=3)
    sizes = [120, 180]  # unequal: mixing U directly would give a different average
    Xd, yd = da.from_array(X, chunks=(tuple(sizes), 5)), da.from_array(y, chunks=(tuple(sizes),))
    with pytest.warns(ConvergenceWarning):
        mixed = ParameterMixing(AveragedPerceptron(shuffle=False), max_rounds=1, client=client).fit(
            Xd, yd
        )
    parts = [
        AveragedPerceptron(shuffle=False).partial_fit(X[:120], y[:120], classes=[0, 1]),
        AveragedPerceptron(shuffle=False).partial_fit(X[120:], y[120:], classes=[0, 1]),
    ]
    np.testing.assert_allclose(mixed.coef_, (parts[0].coef_ + parts[1].coef_) / 2, rtol=1e-12)
    np.testing.assert_allclose(
        mixed.intercept_, (parts[0].intercept_ + parts[1].intercept_) / 2, rtol=1e-12
    )
    # the current (not averaged) weights mix the same way
    states = [mixed.estimator_.training_state_] + [p.training_state_ for p in parts]
    np.testing.assert_allclose(states[0].W, (states[1].W + states[2].W) / 2, rtol=1e-12)
    assert mixed.mistakes_per_epoch_ == [parts[0].n_mistakes_ + parts[1].n_mistakes_]
    assert states[0].counts.tolist() == [150]


def test_mix_states_weighted_averages():
    from rosenblatt.engine import PrimalState

    rng = np.random.RandomState(0)
    states = []
    for count in (7, 20, 3):
        W, U = rng.randn(2, 4), rng.randn(2, 4)
        states.append(PrimalState(W, rng.randn(2), U, rng.randn(2), np.array([count, count])))
    mu = np.array([3.0, 0.0, 1.0])
    mixed = mix_states(states, mu)
    mu /= mu.sum()
    # Algorithm 7's averages, w - u / c with c = T + 1
    averages = [s.W - s.U / (s.counts + 1)[:, None] for s in states]
    np.testing.assert_allclose(
        mixed.W - mixed.U / (mixed.counts + 1)[:, None], sum(m * a for m, a in zip(mu, averages))
    )
    np.testing.assert_allclose(
        mixed.weights(averaged=True)[0], sum(m * a for m, a in zip(mu, averages))
    )
    np.testing.assert_allclose(mixed.W, sum(m * s.W for m, s in zip(mu, states)))
    assert mixed.counts.tolist() == [6, 6]  # round(0.75 * 7 + 0.25 * 3)


def test_dask_dataframe_input(client):
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    X, y = _separable(600, d=3, seed=4)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=np.where(y == 1, "pos", "neg"))
    ddf = dd.from_pandas(frame, npartitions=3)
    clf = ParameterMixing(Perceptron(random_state=0), label_column="label", client=client).fit(ddf)
    assert clf.n_partitions_ == 3 and clf.converged_
    assert clf.classes_.tolist() == ["neg", "pos"]
    assert clf.score(X, frame["label"].to_numpy()) == 1.0
    # or features and a separate Series
    again = ParameterMixing(Perceptron(random_state=0), client=client).fit(
        ddf[["a", "b", "c"]], ddf["label"]
    )
    np.testing.assert_array_equal(again.coef_, clf.coef_)
    with pytest.raises(ValueError, match="label column"):
        ParameterMixing(Perceptron(), client=client).fit(ddf)


def test_sparse_blocks_and_multiclass(client):
    rng = np.random.RandomState(6)
    X = rng.randn(600, 6) * (rng.rand(600, 6) < 0.5)
    y = np.argmax(X @ rng.randn(6, 3), axis=1)
    Xd = da.from_array(X, chunks=(150, 6)).map_blocks(sp.csr_matrix)
    yd = da.from_array(y, chunks=150)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # one constant input for both: intercept_scaling="auto" gives sparse rows a smaller one
        model = Perceptron(random_state=1, multi_class="multinomial", intercept_scaling=1.0)
        sparse = ParameterMixing(model, max_rounds=5, client=client).fit(Xd, yd)
        dense = ParameterMixing(model, max_rounds=5, client=client).fit(
            da.from_array(X, chunks=(150, 6)), yd
        )
    assert sparse.coef_.shape == (3, 6) and sparse.classes_.tolist() == [0, 1, 2]
    np.testing.assert_allclose(sparse.coef_, dense.coef_)
    assert sparse.score(X, y) > 0.8


class KillOnce(Perceptron):
    """A perceptron whose first partition epoch, anywhere, kills its worker process."""

    _parameter_constraints = {}  # the test's own parameters; Perceptron's are defaults

    def __init__(self, flag="", random_state=None):
        super().__init__(random_state=random_state)
        self.flag = flag

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        if self.flag and not os.path.exists(self.flag):
            open(self.flag, "w").close()
            os._exit(1)  # the worker dies mid-task, as a crashed machine would
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)


def test_worker_killed_mid_fit_finishes_with_the_same_model(client, tmp_path):
    X, y = _separable(1200, seed=7)
    Xd, yd = _dask(X, y, 300)
    flag = tmp_path / "killed"
    reference = ParameterMixing(Perceptron(random_state=3), client=client).fit(Xd, yd)
    survived = ParameterMixing(KillOnce(str(flag), random_state=3), client=client).fit(Xd, yd)
    assert flag.exists()  # a worker really died
    np.testing.assert_array_equal(survived.coef_, reference.coef_)
    assert survived.mistakes_per_partition_ == reference.mistakes_per_partition_
    assert survived.converged_
    client.wait_for_workers(2, timeout=60)


class KillAlways(Perceptron):
    _parameter_constraints = {}

    def __init__(self, random_state=None):
        super().__init__(random_state=random_state)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        os._exit(1)


def test_worker_dying_every_time_raises_a_clear_error():
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        # a second scheduler: a random port for its HTTP server (8787 is the fixture's)
        cluster = distributed.LocalCluster(
            n_workers=1, processes=True, threads_per_worker=1, dashboard_address="127.0.0.1:0"
        )
    with cluster, distributed.Client(cluster) as own:
        clf = ParameterMixing(KillAlways(random_state=0), client=own)
        with pytest.raises(DistributedFitError, match="round 1: partition .*KilledWorker"):
            clf.fit(*_dask(*_separable(200, seed=9), 100))
    assert not hasattr(clf, "estimator_")


class FailOnWorker(Perceptron):
    _parameter_constraints = {}

    def __init__(self, random_state=None):
        super().__init__(random_state=random_state)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        raise OSError("disk full on the worker")


def test_failed_partition_raises_a_clear_error_and_fits_nothing(client):
    X, y = _separable(400, seed=8)
    clf = ParameterMixing(FailOnWorker(random_state=0), client=client)
    with pytest.raises(
        DistributedFitError, match=r"round 1: partition \d did not finish.*OSError.*disk full"
    ) as caught:
        clf.fit(*_dask(X, y, 100))
    assert not hasattr(clf, "estimator_") and not hasattr(clf, "coef_")
    assert not isinstance(caught.value, RuntimeError) and "fit again" in str(caught.value)


def test_a_failed_round_without_a_cluster_is_the_same_error(monkeypatch):
    """The local scheduler's round fails as a cluster's does: the cause chained, nothing fitted."""
    from rosenblatt import distributed as module

    monkeypatch.setattr(module, "_runner", lambda client: module._LocalRunner())
    clf = ParameterMixing(FailOnWorker(random_state=0))
    with pytest.raises(DistributedFitError, match="round 1: a partition's epoch raised OSError"):
        clf.fit(*_dask(*_separable(200, seed=8), 100))
    assert not hasattr(clf, "estimator_")


def test_a_round_returns_one_complete_state_per_partition():
    """What every round mixes, by construction: one result per partition, each with the
    partition's trained state and counts (no check at run time refuses anything else)."""
    from rosenblatt.distributed import _LocalRunner
    from rosenblatt.engine.primal import PrimalState

    X, y = _separable(300, d=3, seed=2)
    parts = [(X[:100], y[:100]), (X[100:], y[100:])]
    state = PrimalState.allocate(2, 3, np.float64, averaged=False, multinomial=False)
    template = Perceptron(random_state=0)
    results = _LocalRunner().round(template, state, parts, (np.array([0, 1]), False), [1, 2], 1)
    assert len(results) == 2
    for result, (part_X, _) in zip(results, parts):
        assert set(result) == {
            "state",
            "mistakes",
            "presented",
            "mistake_weight",
            "presented_weight",
        }
        assert isinstance(result["state"], PrimalState) and result["presented"] == len(part_X)
        assert 0 <= result["mistakes"] <= len(part_X)
        # unit weights: the weighted counts are the counts
        assert result["mistake_weight"] == result["mistakes"]
        assert result["presented_weight"] == result["presented"]


def test_refuses_voted_perceptron_and_other_input():
    with pytest.raises(TypeError, match="VotedPerceptron.*AveragedPerceptron"):
        ParameterMixing(VotedPerceptron()).fit(*_dask(*_separable(100), 50))
    with pytest.raises(TypeError, match="dask array or dask DataFrame"):
        ParameterMixing(Perceptron()).fit(*_separable(100))
    with pytest.raises(ValueError, match="'mixing' parameter"):
        ParameterMixing(Perceptron(), mixing="median").fit(*_dask(*_separable(100), 50))


def test_converged_mixing_counts_the_rounds_it_skips(client):
    """After a round without mistakes every later round only presents the rows again:
    the averaged model is what running all max_rounds gives (equal partitions of
    500 rows add 500 presentations a round to the mixed count)."""
    X, y = _separable(2000, seed=3)
    X, y = X[: len(y) - len(y) % 4], y[: len(y) - len(y) % 4]
    Xd, yd = _dask(X, y, len(y) // 4)
    short = ParameterMixing(AveragedPerceptron(random_state=0), max_rounds=100, client=client)
    short.fit(Xd, yd)
    assert short.converged_ and short.n_iter_ < 100
    exact = ParameterMixing(
        AveragedPerceptron(random_state=0), max_rounds=short.n_iter_, client=client
    ).fit(Xd, yd)
    skipped = 100 - short.n_iter_
    counts = short.estimator_.training_state_.counts
    np.testing.assert_array_equal(
        counts, exact.estimator_.training_state_.counts + skipped * (len(y) // 4)
    )
    np.testing.assert_array_equal(
        short.estimator_.training_state_.W, exact.estimator_.training_state_.W
    )
    assert short.score(X, y) == 1.0


def test_rounds_follow_the_estimators_stop_rule(client):
    """ParameterMixing's rounds stop by the estimator's tol through the one driver."""
    X, y = _noisy(2000)
    Xd, yd = _dask(X, y, 500)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # a stop by tol does not warn
        mixed = ParameterMixing(
            Perceptron(tol=0.5, n_iter_no_change=2, random_state=0), max_rounds=30, client=client
        ).fit(Xd, yd)
    assert mixed.n_iter_ == 1 + 2 and not mixed.converged_
