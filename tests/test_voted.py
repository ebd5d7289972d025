"""The voted perceptron's table (voted_coef_, voted_intercept_, votes_) and its cost on
the command line (the training summary's bounded scoring, the steps after training)."""

import io

import numpy as np
import pytest
import reference
import scipy.sparse as sp
from conftest import OR_X, OR_Y, fit_quiet, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state

from rosenblatt import VotedPerceptron
from rosenblatt.apps.cli import _train_summary as summary_module
from rosenblatt.apps.cli import train as train_module
from rosenblatt.engine.votes import survival_counts

PROPERTY = settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def sign(scores):
    """+1 where the score is positive, else -1: a zero score votes -1, as in training."""
    return np.where(scores > 0, 1.0, -1.0)


def binary_vote(W, b, c, X):
    """``sum_k c_k s_k(X) / sum_k c_k`` from one neuron's table."""
    return sign(np.asarray(X @ W.T) + b) @ c / c.sum()


def multinomial_vote(W, b, c, X):
    """Each matrix's survival count on the class it scores highest (lowest index on
    ties), over the total count."""
    votes = np.zeros((X.shape[0], W.shape[1]))
    for W_k, b_k, c_k in zip(W, b, c):
        best = np.argmax(np.asarray(X @ W_k.T) + b_k, axis=1)
        votes[np.arange(X.shape[0]), best] += c_k
    return votes / c.sum()


def explicit_vote(clf, X):
    """decision_function from the three public attributes alone."""
    W, b, c = clf.voted_coef_, clf.voted_intercept_, clf.votes_
    if clf.multi_class == "multinomial":
        shares = multinomial_vote(W, b, c, X)
        return shares[:, 1] - shares[:, 0] if shares.shape[1] == 2 else shares
    if isinstance(W, list):
        return np.column_stack([binary_vote(*table, X) for table in zip(W, b, c)])
    return binary_vote(W, b, c, X)


def labels_of(clf, decision):
    if decision.ndim == 1:
        return clf.classes_[(decision > 0).astype(int)]
    return clf.classes_[np.argmax(decision, axis=1)]


def check_identity(clf, X):
    """decision_function is the vote of the table (close: the table's vectors are
    cumulative sums, the compiled vote sums each score update by update), and the
    predictions are the same."""
    expected = explicit_vote(clf, X)
    got = clf.decision_function(X)
    assert got.shape == expected.shape
    assert np.allclose(got, expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(X), labels_of(clf, expected))


def voted(clf, k):
    """How many of neuron k's vectors voted: n_vectors_ less those that survived no
    presentation (the zero vector, when the first presentation was a mistake)."""
    state = clf.training_state_
    counts = survival_counts(state.votes.updates(k)["time"], state.counts[k])
    assert counts.shape == (clf.n_vectors_[k],)
    return int((counts > 0).sum())


def check_shapes(clf):
    """K vectors that voted, one table per neuron (one-vs-rest), integer counts of at
    least 1 summing to the presentations, the last vector the model's coef_ / intercept_,
    no -0.0."""
    state = clf.training_state_
    W, b, c = clf.voted_coef_, clf.voted_intercept_, clf.votes_
    n_classes, n_features = clf.classes_.shape[0], clf.n_features_in_
    if clf.multi_class == "multinomial":
        K = voted(clf, 0)
        assert W.shape == (K, n_classes, n_features) and b.shape == (K, n_classes)
        assert c.shape == (K,) and c.dtype == np.int64 and c.min() >= 1
        assert c.sum() == state.counts[0] and not np.signbit(b[b == 0]).any()
        np.testing.assert_allclose(W[-1], state.W, atol=1e-9)
        return
    tables = list(zip(W, b, c)) if isinstance(W, list) else [(W, b, c)]
    assert len(tables) == len(clf.n_vectors_) == clf.coef_.shape[0]
    for k, (W_k, b_k, c_k) in enumerate(tables):
        K = voted(clf, k)
        assert K == clf.n_vectors_[k] - 1  # from zero weights the first presentation errs
        assert W_k.shape == (K, n_features) and b_k.shape == (K,) and c_k.shape == (K,)
        assert c_k.dtype == np.int64 and c_k.min() >= 1 and c_k.sum() == state.counts[k]
        assert not np.signbit(b_k[b_k == 0]).any()
        np.testing.assert_allclose(W_k[-1], clf.coef_[k], atol=1e-9)
        np.testing.assert_allclose(b_k[-1], clf.intercept_[k], atol=1e-9)


# ---------------------------------------------------------------- the lecture notes' example
def test_modified_or_lists_one_vector_per_mistake():
    clf = VotedPerceptron(shuffle=False, tol=None).fit(OR_X, OR_Y)
    # three mistakes in the first epoch, none in the second: four vectors passed through
    assert clf.n_vectors_ == [4] and clf.mistakes_per_epoch_ == [3, 0] and clf.n_iter_ == 2
    # the zero vector errs on the first presentation: it never votes and is not listed
    np.testing.assert_array_equal(clf.voted_coef_, [[1, 1], [2, 0], [1, 1]])
    np.testing.assert_array_equal(clf.voted_intercept_, [-1, 0, 1])
    # the last survives the rest of the 1000 epochs of 4 presentations
    assert clf.votes_.dtype == np.int64
    np.testing.assert_array_equal(clf.votes_, [1, 1, 4 * 1000 - 3 + 1])
    np.testing.assert_array_equal(clf.voted_coef_[-1], clf.coef_[0])
    check_identity(clf, np.array([[0.5, 0.5], [-2, -2], [1, -1], [0.1, -0.3]]))


def test_the_notes_two_epochs_by_hand():
    """What a class computes over the notes' two epochs with bias input -1: integer
    counts, and a zero intercept printed 0., not -0."""
    clf = VotedPerceptron(shuffle=False, intercept_scaling=-1, max_iter=2).fit(OR_X, OR_Y)
    assert clf.votes_.tolist() == [1, 1, 6] and clf.votes_.dtype == np.int64
    assert clf.voted_coef_.tolist() == [[1.0, 1.0], [2.0, 0.0], [1.0, 1.0]]
    assert repr(clf.voted_intercept_) == "array([-1.,  0.,  1.])"
    assert "-0." not in repr(clf.intercept_) + repr(clf.coef_)
    check_identity(clf, OR_X)


def test_a_vector_is_listed_exactly_when_it_survived_a_presentation():
    """The record's table: the zero vector votes when the first update comes after a
    correct presentation, and is left out when it came at once."""
    from rosenblatt.engine.primal import Batch
    from rosenblatt.engine.votes import VoteRecord

    batch = Batch(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, 0]), np.ones(2))
    for times, expected in (([1, 3], [1, 2, 1]), ([0, 3], [3, 1])):
        record = VoteRecord(1, multinomial=False, bias_input=-1.0)
        record.add(0, batch, np.array([0, 1]), np.array([1.0, -1.0]), np.array(times))
        W, b, c = record.vectors(0, 2, np.array([4]))
        assert c.tolist() == expected and c.dtype == np.int64
        assert W.shape == (len(expected), 2) and b.shape == (len(expected),)
        assert not np.signbit(b[b == 0]).any()  # w0 = 0 times the input -1: 0., not -0.
        if len(expected) == 3:
            np.testing.assert_array_equal(W[0], 0.0)


def test_the_threshold_input_and_no_intercept():
    """b_k = w0_k * s with the notes' s = -1 (w0 = -1 at the end, b = +1); zero
    without an intercept."""
    notes = VotedPerceptron(shuffle=False, tol=None, intercept_scaling=-1.0).fit(OR_X, OR_Y)
    np.testing.assert_array_equal(notes.voted_intercept_, [-1, 0, 1])
    assert notes.training_state_.w0[0] == -1.0
    check_identity(notes, OR_X)
    plain = fit_quiet(VotedPerceptron(shuffle=False, tol=None, fit_intercept=False), OR_X, OR_Y)
    np.testing.assert_array_equal(plain.voted_intercept_, 0.0)
    check_identity(plain, OR_X)


def test_table_unfolds_into_the_reference_history():
    """Vector k repeated votes_[k] times is the weight vector after every presentation
    of the plain reference run (integer data: exact)."""
    X, y = make_classification(n_samples=40, n_features=3, n_redundant=0, random_state=1)
    X = np.round(X * 3)
    labels = np.where(y == 1, 1, -1)
    clf = fit_quiet(VotedPerceptron(random_state=4, max_iter=7, tol=None), X, labels)
    rng = check_random_state(4)
    run = reference.online(X, labels, [rng.permutation(40) for _ in range(7)])
    unfolded = np.repeat(
        np.column_stack([clf.voted_coef_, clf.voted_intercept_]),
        clf.votes_,
        axis=0,
    )
    np.testing.assert_array_equal(unfolded, run["history"])


# ---------------------------------------------------------------- the identity, every layout
def _data(n_classes, sparse):
    X, y = make_classification(
        n_samples=150,
        n_features=8,
        n_informative=4,
        n_classes=n_classes,
        n_clusters_per_class=1,
        flip_y=0.1,
        random_state=n_classes,
    )
    if sparse:
        X[np.random.RandomState(0).rand(*X.shape) < 0.5] = 0.0
        X = sp.csr_matrix(X)
    return X, y


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize(
    "n_classes, multi_class",
    [(2, "ovr"), (3, "ovr"), (3, "multinomial"), (2, "multinomial")],
    ids=["binary", "ovr-3", "multinomial-3", "multinomial-2"],
)
def test_decision_function_is_the_vote_of_the_table(n_classes, multi_class, sparse):
    X, y = _data(n_classes, sparse)
    clf = fit_quiet(
        VotedPerceptron(multi_class=multi_class, max_iter=12, tol=None, random_state=0), X, y
    )
    assert not clf.converged_  # noisy labels: many vectors vote
    check_shapes(clf)
    if multi_class == "ovr" and n_classes == 3:
        assert isinstance(clf.voted_coef_, list) and len(clf.votes_) == 3
    check_identity(clf, X)
    X_test, _ = _data(n_classes, sparse)
    check_identity(clf, X_test[::-1] * 1.5)


def test_float32_table_and_a_model_file(tmp_path):
    from rosenblatt import load, save

    X, y = _data(3, sparse=False)
    clf = fit_quiet(VotedPerceptron(max_iter=5, tol=None, random_state=0), X.astype(np.float32), y)
    assert all(W.dtype == np.float32 for W in clf.voted_coef_)
    path = tmp_path / "voted.rbl"
    save(clf, path)
    loaded = load(path)
    assert not {"voted_coef_", "voted_intercept_", "votes_"} & set(vars(loaded))  # not stored
    for a, b in zip(loaded.voted_coef_ + loaded.votes_, clf.voted_coef_ + clf.votes_):
        np.testing.assert_array_equal(a, b)


def test_unfitted_model_has_no_table_and_warm_start_extends_it():
    clf = VotedPerceptron(max_iter=2, tol=None, warm_start=True, random_state=0)
    with pytest.raises(NotFittedError):
        _ = clf.votes_
    assert not hasattr(clf, "voted_coef_")
    X, y = _data(2, sparse=False)
    fit_quiet(clf, X, y)
    first = clf.voted_coef_
    fit_quiet(clf, X, y)
    assert clf.voted_coef_.shape[0] == voted(clf, 0) > first.shape[0]
    np.testing.assert_array_equal(clf.voted_coef_[: first.shape[0]], first)
    check_identity(clf, X)


@st.composite
def small_problems(draw):
    n_classes = draw(st.sampled_from([2, 3]))
    n = draw(st.integers(6, 20))
    d = draw(st.integers(1, 4))
    X = draw(arrays(np.float64, (n, d), elements=st.integers(-5, 5).map(float)))
    y = draw(arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    y[:n_classes] = np.arange(n_classes)  # every class present
    return X, y


@PROPERTY
@given(
    small_problems(),
    st.sampled_from(["ovr", "multinomial"]),
    st.booleans(),
    st.integers(0, 1000),
)
def test_property_decision_function_is_the_explicit_vote(problem, multi_class, sparse, seed):
    X, y = problem
    clf = fit_quiet(
        VotedPerceptron(multi_class=multi_class, max_iter=4, tol=None, random_state=seed), X, y
    )
    X_test = np.random.RandomState(seed).randint(-6, 7, size=(10, X.shape[1])).astype(float)
    if sparse:
        X_test = sp.csr_matrix(X_test)
    check_shapes(clf)
    check_identity(clf, X_test)


# ---------------------------------------------------------------- the command line
@pytest.fixture
def noisy_csv(tmp_path):
    """Labels a line cannot separate: the voted perceptron keeps a vector per mistake."""
    rng = np.random.RandomState(0)
    X = rng.randn(200, 4)
    y = ((X[:, 0] + 0.8 * rng.randn(200)) > 0).astype(int)
    path = tmp_path / "noisy.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt=["%.5f"] * 4 + ["%d"])
    return path


def test_quiet_train_does_not_score(noisy_csv, tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("-q shows no accuracy: nothing to score")

    monkeypatch.setattr(train_module, "training_accuracy", refuse)
    monkeypatch.setattr(VotedPerceptron, "decision_function", refuse)
    result = run_cli("train", noisy_csv, "-m", tmp_path / "v.rbl", "-a", "voted", "-q")
    assert result.exit_code == 0, result.output
    assert result.output == ""
    assert (tmp_path / "v.rbl").is_file()


def test_summary_scores_a_bounded_sample_of_a_voted_model(noisy_csv, tmp_path, monkeypatch):
    scored = []
    measure, vote_updates = train_module.training_accuracy, train_module.vote_updates

    def spy(model, X, y, rows=None):
        accuracy, n = measure(model, X, y, rows)
        scored.append((vote_updates(model), n))
        return accuracy, n

    monkeypatch.setattr(train_module, "training_accuracy", spy)
    monkeypatch.setattr(summary_module, "VOTE_SCORE_PAIRS", 5_000)  # scored_rows reads it there
    model = tmp_path / "v.rbl"
    result = run_cli("train", noisy_csv, "-m", model, "-a", "voted", "--max-iter", "20")
    assert result.exit_code == 0, result.output
    [(updates, n)] = scored
    assert updates > 100  # so that 200 rows would take more than the budget
    assert n == 5_000 // updates and n * updates <= 5_000
    assert f"on a sample of {n} rows" in result.stderr  # the summary: on standard error
    # the whole training set when it fits, and other models always
    monkeypatch.setattr(summary_module, "VOTE_SCORE_PAIRS", 200 * updates)
    scored.clear()
    result = run_cli("train", noisy_csv, "-m", model, "-a", "voted", "--max-iter", "20")
    assert result.exit_code == 0 and scored == [(updates, 200)]
    assert "on a sample" not in result.stderr
    scored.clear()
    result = run_cli("train", noisy_csv, "-m", model, "-a", "averaged", "--max-iter", "20")
    assert result.exit_code == 0 and scored == [(0, 200)]


def test_sampled_rows_are_seeded_and_distinct():
    clf = VotedPerceptron(max_iter=3, tol=None, random_state=0)
    X, y = _data(2, sparse=False)
    fit_quiet(clf, X, y)
    updates = train_module.vote_updates(clf)
    assert updates == clf.n_vectors_[0] - 1 > 10
    assert train_module.scored_rows(clf, 150) is None  # the default budget covers them all
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(summary_module, "VOTE_SCORE_PAIRS", 10 * updates + 1)
        rows = train_module.scored_rows(clf, 150, seed=3)
        again = train_module.scored_rows(clf, 150, seed=3)
    assert rows.shape == (10,) and np.unique(rows).shape == (10,)
    np.testing.assert_array_equal(rows, again)


def test_steps_after_training_show_a_spinner_on_a_terminal_only(noisy_csv, tmp_path, monkeypatch):
    from rich.console import Console

    from rosenblatt.apps.cli import _common

    shown = []
    real_working = train_module.working

    def spy(message):
        shown.append(message)
        return real_working(message)

    monkeypatch.setattr(train_module, "working", spy)
    terminal = io.StringIO()
    monkeypatch.setattr(_common, "err_console", Console(file=terminal, force_terminal=True))
    result = run_cli("train", noisy_csv, "-m", tmp_path / "v.rbl", "-a", "voted", "--max-iter", "5")
    assert result.exit_code == 0, result.output
    assert [m.split()[0] for m in shown] == ["saving", "scoring"], shown
    assert "saving" in terminal.getvalue() and "scoring all 200" in terminal.getvalue()
    assert "saving" not in result.stderr and "Trained VotedPerceptron" in result.stderr
    assert result.stdout == ""  # train's result is the model file
    # not a terminal: no spinner, only the summary on standard error
    monkeypatch.setattr(_common, "err_console", Console(stderr=True, force_terminal=False))
    result = run_cli("train", noisy_csv, "-m", tmp_path / "v.rbl", "-a", "voted", "--max-iter", "5")
    assert result.exit_code == 0, result.output
    assert "Trained VotedPerceptron" in result.stderr
    assert "saving" not in result.stderr and "scoring all" not in result.stderr
    # a model without epochs: the one spinner says each step in turn
    terminal = io.StringIO()
    monkeypatch.setattr(_common, "err_console", Console(file=terminal, force_terminal=True))
    result = run_cli("train", noisy_csv, "-m", tmp_path / "c.rbl", "-a", "centroid")
    assert result.exit_code == 0, result.output
    assert "training centroid" in terminal.getvalue()
    assert "scoring all 200" in terminal.getvalue()


# ---------------------------------------------------------------- the kept patterns
def test_each_training_row_is_kept_once_however_many_epochs_run():
    """Updates refer to the rows they added: after 60 epochs on data no line separates,
    the record holds at most one pattern per training row, and the vote is unchanged."""
    rng = np.random.RandomState(0)
    X = rng.randn(120, 5)
    y = (X[:, 0] + 0.8 * rng.randn(120) > 0).astype(int)
    for rows in (X, sp.csr_matrix(X)):
        clf = fit_quiet(VotedPerceptron(max_iter=60, tol=None, random_state=0), rows, y)
        record = clf.training_state_.votes
        assert clf.n_vectors_[0] - 1 > 10 * X.shape[0]  # many more updates than rows
        assert record.patterns.n <= X.shape[0]
        kept = record.patterns.rows
        kept = kept.toarray() if sp.issparse(kept) else kept
        # each kept pattern is a training row, and no row is kept twice
        assert np.unique(kept, axis=0).shape[0] == kept.shape[0]
        assert all(np.any(np.all(X == row, axis=1)) for row in kept)
        check_identity(clf, X[:30])


def test_each_partial_fit_batch_keeps_its_own_patterns():
    """Rows are known by their batch, never compared: the same rows given to two
    partial_fit calls are kept twice, and the vote is still the table's."""
    X, y = _data(2, sparse=False)
    clf = VotedPerceptron(random_state=0)
    clf.partial_fit(X, y, classes=np.unique(y))
    first = clf.training_state_.votes.patterns.n
    clf.partial_fit(X, y)
    record = clf.training_state_.votes
    updates = clf.n_vectors_[0] - 1
    assert first <= record.patterns.n <= min(2 * X.shape[0], updates)
    check_identity(clf, X)


def test_a_model_file_with_one_row_per_update_is_refused(tmp_path):
    """Each voter's rows, one per update (what earlier, unreleased commits wrote before the
    patterns were kept once), are not a layout this version reads: a clear error."""
    import json
    import shutil

    from forging import forge

    from rosenblatt import ModelFileError, load, save

    X, y = _data(3, sparse=False)
    clf = fit_quiet(VotedPerceptron(max_iter=5, tol=None, random_state=0), X, y)
    path = tmp_path / "new.rbl"
    save(clf, path)
    old = tmp_path / "old.rbl"
    shutil.copy(path, old)

    def one_row_per_update(manifest, members):
        tree = json.loads(members["state.json"])
        arrays = tree["fitted"]["training_state_"]["arrays"]
        patterns = np.load(io.BytesIO(members[arrays.pop("votes.patterns")["member"]]))
        for k in range(3):
            pattern = np.load(io.BytesIO(members[arrays.pop(f"votes.{k}.pattern")["member"]]))
            buffer = io.BytesIO()
            np.save(buffer, patterns[pattern], allow_pickle=False)
            members[f"arrays/old-{k}.npy"] = buffer.getvalue()
            arrays[f"votes.{k}.rows"] = {"$": "ndarray", "member": f"arrays/old-{k}.npy"}
        members["state.json"] = json.dumps(tree).encode()

    forge(old, one_row_per_update)
    with pytest.raises(ModelFileError, match="votes"):
        load(old)
    np.testing.assert_array_equal(load(path).decision_function(X), clf.decision_function(X))
