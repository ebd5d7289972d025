"""Presentation orders: full and block shuffling, and their use by the estimators."""

import numpy as np
import pytest
import reference
import scipy.sparse as sp
from conftest import fit_quiet
from sklearn.datasets import make_classification
from sklearn.utils import check_random_state

from rosenblatt import AveragedPerceptron, Perceptron, VotedPerceptron
from rosenblatt.engine.orders import (
    CHUNK_ROWS,
    CHUNKS_PER_BLOCK,
    FULL_SHUFFLE_MAX_SAMPLES,
    LOOKAHEAD,
    EpochOrders,
    epoch_order,
    labels_look_sorted,
    resolve_mode,
)


def test_full_mode_is_numpy_permutation():
    order, stream, lookahead = epoch_order(check_random_state(3), 50, "full")
    np.testing.assert_array_equal(order, np.random.RandomState(3).permutation(50))
    assert stream.size == 0 and lookahead > 0


@pytest.mark.parametrize("n", [1, 7, 8, 9, 127, 128, 129, 1000, 4099])
def test_block_order_is_a_permutation_built_from_chunks(n):
    order, stream, _ = epoch_order(check_random_state(0), n, "block")
    np.testing.assert_array_equal(np.sort(order), np.arange(n))
    block = CHUNK_ROWS * CHUNKS_PER_BLOCK
    position = np.empty(n, dtype=int)
    position[order] = np.arange(n)
    hinted = stream[stream >= 0]
    # each row outside the first block is prefetched at most once, from the block before
    # its own; a block holding the short last chunk hints up to CHUNK_ROWS - 1 rows fewer
    assert len(np.unique(hinted)) == len(hinted)
    assert n - block - CHUNK_ROWS < len(hinted) <= max(0, n - block + CHUNK_ROWS)
    where = np.flatnonzero(stream >= 0)
    ahead = position[stream[where]] - where
    assert np.all(ahead > 0) and np.all(ahead < 2 * block)
    # rows of one chunk stay within one block
    first_chunk_positions = position[: min(n, CHUNK_ROWS)]
    assert np.ptp(first_chunk_positions) < block


def test_block_orders_differ_between_epochs_and_repeat_with_the_seed():
    rng_a, rng_b = check_random_state(1), check_random_state(1)
    first = epoch_order(rng_a, 5000, "block")[0]
    second = epoch_order(rng_a, 5000, "block")[0]
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(first, epoch_order(rng_b, 5000, "block")[0])


def test_csr_rows_only_change_the_block_lookahead():
    dense = epoch_order(check_random_state(2), 3000, "block")
    sparse = epoch_order(check_random_state(2), 3000, "block", sparse=True)
    np.testing.assert_array_equal(dense[0], sparse[0])
    np.testing.assert_array_equal(dense[1], sparse[1])
    assert (dense[2], sparse[2]) == (0, LOOKAHEAD)
    with EpochOrders(check_random_state(2), 3000, "block", sparse=True) as orders:
        first = orders()
    np.testing.assert_array_equal(first[0], sparse[0])
    assert first[2] == LOOKAHEAD


def test_shuffle_true_switches_to_blocks_for_many_samples():
    assert resolve_mode(True, FULL_SHUFFLE_MAX_SAMPLES) == "full"
    assert resolve_mode(True, FULL_SHUFFLE_MAX_SAMPLES + 1) == "block"
    assert resolve_mode(False, 10**9) == "none"
    assert resolve_mode("full", 10**9) == "full"


@pytest.mark.parametrize("estimator", [Perceptron, AveragedPerceptron])
def test_block_shuffled_training_equals_the_reference(estimator):
    X, y = make_classification(700, 5, n_informative=4, n_redundant=0, flip_y=0.1, random_state=0)
    clf = fit_quiet(estimator(shuffle="block", random_state=5, max_iter=4), X, y)
    rng = check_random_state(5)
    orders = [epoch_order(rng, 700, "block")[0] for _ in range(4)]
    run = reference.averaged(X, np.where(y == 1, 1, -1), orders)
    expected = run["average"] if estimator is AveragedPerceptron else run["w"]
    np.testing.assert_allclose(clf.coef_[0], expected[:-1], rtol=1e-12, atol=1e-12)
    assert clf.mistakes_per_epoch_ == run["mistakes"]


def test_block_shuffling_keeps_dense_equal_to_sparse():
    X, y = make_classification(3000, 20, flip_y=0.05, random_state=1)
    X[np.abs(X) < 0.7] = 0.0
    # one constant input for both: intercept_scaling="auto" gives sparse rows a smaller one
    params = dict(shuffle="block", random_state=0, max_iter=5, intercept_scaling=1.0)
    dense = fit_quiet(Perceptron(**params), X, y)
    sparse = fit_quiet(Perceptron(**params), sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.coef_, sparse.coef_)
    np.testing.assert_array_equal(dense.intercept_, sparse.intercept_)


def test_block_shuffling_accuracy_matches_full_shuffling():
    X, y = make_classification(6000, 20, n_informative=10, flip_y=0.05, random_state=2)
    X_test, y_test = X[5000:], y[5000:]
    scores = {
        mode: np.mean(
            [
                fit_quiet(
                    AveragedPerceptron(shuffle=mode, random_state=s, max_iter=10),
                    X[:5000],
                    y[:5000],
                ).score(X_test, y_test)
                for s in range(3)
            ]
        )
        for mode in ("full", "block")
    }
    assert abs(scores["full"] - scores["block"]) < 0.01, scores


def test_sorted_labels_warn_under_block_shuffling():
    y = np.repeat([0, 1], 1000)
    assert labels_look_sorted(y)
    assert not labels_look_sorted(np.random.RandomState(0).permutation(y))
    X = np.random.RandomState(0).randn(2000, 3) + y[:, None]
    with pytest.warns(UserWarning, match="labels look sorted"):
        fit_quiet(Perceptron(shuffle="block", max_iter=2), X, y)


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: Perceptron(**kw),
        lambda **kw: AveragedPerceptron(**kw),
        lambda **kw: VotedPerceptron(**kw),
        lambda **kw: Perceptron(mode="batch", **kw),
    ],
)
@pytest.mark.parametrize("shuffle", ["full", "block"])
def test_threads_do_not_change_one_vs_rest_results(make, shuffle):
    # threaded fits make their block orders in the training thread, single-threaded
    # ones on a helper thread: both must present the same orders
    X, y = make_classification(1500, 8, n_informative=6, n_classes=5, random_state=3)
    fits = [
        fit_quiet(make(random_state=0, max_iter=6, shuffle=shuffle, n_jobs=jobs), X, y)
        for jobs in (None, 2, 3, -1)
    ]
    # one constant input for dense and CSR rows ("auto" gives sparse rows a smaller one)
    fits = [
        fit_quiet(
            make(random_state=0, max_iter=6, shuffle=shuffle, n_jobs=jobs, intercept_scaling=1.0),
            X,
            y,
        )
        for jobs in (None, 2, 3, -1)
    ]
    fits.append(
        fit_quiet(
            make(random_state=0, max_iter=6, shuffle=shuffle, n_jobs=2, intercept_scaling=1.0),
            sp.csr_matrix(X),
            y,
        )
    )
    for threaded in fits[1:]:
        np.testing.assert_array_equal(fits[0].coef_, threaded.coef_)
        np.testing.assert_array_equal(fits[0].intercept_, threaded.intercept_)
        np.testing.assert_array_equal(fits[0].predict(X), threaded.predict(X))
        assert fits[0].mistakes_per_epoch_ == threaded.mistakes_per_epoch_


def test_threads_do_not_change_partial_fit():
    X, y = make_classification(600, 8, n_informative=6, n_classes=4, random_state=5)
    one, two = (AveragedPerceptron(random_state=0, n_jobs=jobs) for jobs in (None, 2))
    for batch in np.array_split(np.arange(600), 3):
        for model in (one, two):
            model.partial_fit(X[batch], y[batch], classes=np.arange(4))
    np.testing.assert_array_equal(one.coef_, two.coef_)
    assert one.mistakes_per_epoch_ == two.mistakes_per_epoch_


def test_n_jobs_zero_is_refused():
    with pytest.raises(ValueError, match="n_jobs=0"):
        Perceptron(n_jobs=0).fit([[0.0], [1.0]], [0, 1])
