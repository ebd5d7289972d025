"""The lecture notes' layer of M independent neurons: a label matrix ``y`` (multilabel).

"A single layered network with N inputs and M neurons ... the outputs are mutually
independent, we can study them independently": an (n_samples, M) 0/1 indicator matrix
trains M neurons in one pass over the data, each exactly (bit for bit) the neuron a
binary fit on its column gives, and the model follows scikit-learn's multilabel
conventions (``classes_``, tags, metrics, ``partial_fit``, model files).
"""

import json
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import PROPERTY
from forging import forge
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import load_digits, make_multilabel_classification
from sklearn.metrics import accuracy_score, f1_score
from sklearn.multioutput import MultiOutputClassifier

from rosenblatt import (
    AveragedPerceptron,
    KernelPerceptron,
    ModelFileError,
    Perceptron,
    Projectron,
    VotedPerceptron,
    load,
    save,
)
from rosenblatt.engine.primal import Batch, PrimalRule, PrimalState
from rosenblatt.persistence import load_predictor

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _digits(n=500):
    """Digits with three labels each: "is even", "is > 4", "is prime"."""
    X, digit = load_digits(return_X_y=True)
    X, digit = X[:n], digit[:n]
    Y = np.column_stack([digit % 2 == 0, digit > 4, np.isin(digit, [2, 3, 5, 7])])
    return X, Y.astype(int)


X, Y = _digits()
LINEAR = {
    "Perceptron": lambda **kw: Perceptron(**kw),
    "Perceptron, batch": lambda **kw: Perceptron(mode="batch", **kw),
    "Perceptron, 2 threads": lambda **kw: Perceptron(n_jobs=2, **kw),
    "AveragedPerceptron": lambda **kw: AveragedPerceptron(**kw),
    "VotedPerceptron": lambda **kw: VotedPerceptron(**kw),
    # a thread per neuron: each trains a private copy of its row, reading its own column
    "VotedPerceptron, 3 threads": lambda **kw: VotedPerceptron(n_jobs=3, **kw),
}


def _same_neurons(layer, binaries, X_test):
    """Neuron ``m`` of ``layer`` is ``binaries[m]``, bit for bit."""
    scores = layer.decision_function(X_test)
    assert scores.shape == (X_test.shape[0], len(binaries))
    for m, binary in enumerate(binaries):
        assert np.array_equal(layer.coef_[m], binary.coef_[0])
        assert layer.intercept_[m].tobytes() == binary.intercept_[0].tobytes()
        assert np.array_equal(scores[:, m], binary.decision_function(X_test))
        assert np.array_equal(layer.predict(X_test)[:, m], binary.predict(X_test))


# ---------------------------------------------------------------------- each neuron
@pytest.mark.parametrize("name", sorted(LINEAR))
@pytest.mark.parametrize("form", ["dense", "float32", "CSR"])
def test_each_neuron_is_the_binary_fit_of_its_column(name, form):
    data = {"dense": X, "float32": X.astype(np.float32), "CSR": sp.csr_matrix(X)}[form]
    make = LINEAR[name]
    params = {"max_iter": 12, "tol": None, "random_state": 3}
    layer = make(**params).fit(data, Y)
    binaries = [make(**params).fit(data, Y[:, m]) for m in range(Y.shape[1])]
    _same_neurons(layer, binaries, data)
    # every neuron took the epochs its binary fit took, and its mistakes
    assert layer.n_mistakes_ == sum(binary.n_mistakes_ for binary in binaries)
    assert layer.n_iter_ == max(binary.n_iter_ for binary in binaries)


def test_the_voted_neurons_vote_as_their_binary_fits():
    layer = VotedPerceptron(max_iter=8, random_state=0).fit(X, Y)
    binaries = [VotedPerceptron(max_iter=8, random_state=0).fit(X, Y[:, m]) for m in range(3)]
    assert layer.n_vectors_ == [b.n_vectors_[0] for b in binaries]
    for m, binary in enumerate(binaries):
        assert np.array_equal(layer.voted_coef_[m], binary.voted_coef_)
        assert np.array_equal(layer.voted_intercept_[m], binary.voted_intercept_)
        assert np.array_equal(layer.votes_[m], binary.votes_)
    _same_neurons(layer, binaries, X)


@pytest.mark.parametrize(
    "cls, prediction",
    [(KernelPerceptron, p) for p in ("last", "averaged", "voted")]
    + [(Projectron, p) for p in ("last", "averaged")],
)
def test_each_dual_problem_is_the_binary_fit_of_its_column(cls, prediction):
    X_small, Y_small = X[:200], Y[:200]
    params = {"max_iter": 4, "prediction": prediction, "random_state": 1, "gamma": 0.002}
    layer = cls(**params).fit(X_small, Y_small)
    assert layer.multilabel_ and layer.dual_coef_.shape[0] == 3
    scores = layer.decision_function(X)
    for m in range(3):
        binary = cls(**params).fit(X_small, Y_small[:, m])
        assert np.array_equal(scores[:, m], binary.decision_function(X))
        assert np.array_equal(layer.predict(X)[:, m], binary.predict(X))
    assert layer.n_mistakes_ == sum(
        cls(**params).fit(X_small, Y_small[:, m]).n_mistakes_ for m in range(3)
    )


def test_one_pass_predicts_what_multioutputclassifier_predicts():
    """M neurons in one pass against scikit-learn's M separate fits."""
    params = {"max_iter": 20, "tol": None, "random_state": 0}
    layer = Perceptron(**params).fit(X, Y)
    separate = MultiOutputClassifier(Perceptron(**params)).fit(X, Y)
    assert np.array_equal(layer.predict(X), separate.predict(X))
    for neuron, estimator in zip(layer.coef_, separate.estimators_):
        assert np.array_equal(neuron, estimator.coef_[0])


def test_make_multilabel_classification_sparse_labels_and_a_column_of_one_value():
    data, labels = make_multilabel_classification(
        n_samples=150, n_features=8, n_classes=4, random_state=0
    )
    labels[:, 3] = 0  # a label nobody has: its neuron learns to say 0
    layer = AveragedPerceptron(max_iter=10, random_state=0).fit(data, sp.csr_matrix(labels))
    assert layer.predict(data).shape == (150, 4)
    assert not layer.predict(data)[:, 3].any()
    for m in range(3):
        binary = AveragedPerceptron(max_iter=10, random_state=0).fit(data, labels[:, m])
        assert np.array_equal(layer.coef_[m], binary.coef_[0])


# ---------------------------------------------------------------------- scikit-learn's ways
@pytest.mark.parametrize(
    "estimator",
    [Perceptron(random_state=0), VotedPerceptron(max_iter=5), KernelPerceptron(max_iter=3)],
    ids=lambda e: type(e).__name__,
)
def test_scikit_learn_multilabel_conventions(estimator):
    X_small, Y_small = X[:200], Y[:200]
    estimator.fit(X_small, Y_small.tolist())  # a list of lists is a label matrix too
    assert estimator.__sklearn_tags__().classifier_tags.multi_label
    assert estimator.multilabel_
    assert np.array_equal(estimator.classes_, np.arange(3))  # as OneVsRestClassifier
    predicted = estimator.predict(X_small)
    assert predicted.shape == Y_small.shape and predicted.dtype == np.int64
    assert set(np.unique(predicted)) <= {0, 1}
    assert estimator.decision_function(X_small).shape == (200, 3)
    # the metrics read it, and score is the subset accuracy
    assert 0.0 <= f1_score(Y_small, predicted, average="micro") <= 1.0
    assert estimator.score(X_small, Y_small) == accuracy_score(Y_small, predicted)


def test_a_zero_score_is_a_zero_as_the_binary_rule_gives_it_to_the_first_class():
    layer = Perceptron(fit_intercept=False, max_iter=1, shuffle=False)
    layer.fit(np.array([[1.0], [-1.0]]), np.array([[1, 0], [0, 1]]))
    assert layer.predict(np.array([[0.0]])).tolist() == [[0, 0]]


def test_the_multinomial_model_is_no_layer_of_independent_neurons():
    assert not Perceptron(multi_class="multinomial").__sklearn_tags__().classifier_tags.multi_label
    with pytest.raises(ValueError, match=r"multi_class='multinomial'\) picks one class per sample"):
        Perceptron(multi_class="multinomial").fit(X, Y)
    with pytest.raises(ValueError, match="multi_class='ovr'"):
        Perceptron(multi_class="multinomial").partial_fit(X, Y)


@pytest.mark.parametrize("make", [Perceptron, KernelPerceptron])
def test_class_weights_are_refused_unless_they_change_nothing(make):
    with pytest.raises(ValueError, match="class_weight='balanced'.*sample_weight"):
        make(class_weight="balanced").fit(X[:60], Y[:60])
    with pytest.raises(ValueError, match="several labels or none"):
        make(class_weight={0: 1.0, 1: 2.0}).fit(X[:60], Y[:60])
    weighted = make(class_weight={0: 1, 1: 1}, max_iter=3, random_state=0).fit(X[:60], Y[:60])
    plain = make(max_iter=3, random_state=0).fit(X[:60], Y[:60])
    assert np.array_equal(weighted.decision_function(X), plain.decision_function(X))


@pytest.mark.parametrize(
    "labels, match",
    [
        (np.column_stack([Y[:, 0], 2 * Y[:, 1]]), "not all 0 or 1.*MultiOutputClassifier"),
        (np.where(Y == 1, "yes", "no"), "not all 0 or 1"),
    ],
)
@pytest.mark.parametrize("make", [Perceptron, KernelPerceptron])
def test_a_matrix_that_is_no_label_matrix_is_refused(make, labels, match):
    with pytest.raises(ValueError, match=match):
        make().fit(X, labels)


def test_a_column_vector_is_still_a_1d_y():
    with pytest.warns(Warning, match="column-vector y"):
        model = Perceptron(max_iter=3, random_state=0).fit(X, Y[:, :1])
    assert not model.multilabel_ and model.predict(X).ndim == 1


# ---------------------------------------------------------------------- going on learning
@pytest.mark.parametrize("make", [Perceptron, AveragedPerceptron, VotedPerceptron])
def test_partial_fit_learns_each_column_as_its_binary_partial_fit(make):
    halves = (slice(0, 250), slice(250, 500))
    without = make(random_state=0)
    with_classes = make(random_state=0)
    binaries = [make(random_state=0) for _ in range(3)]
    for part in halves:
        without.partial_fit(X[part], Y[part])
        with_classes.partial_fit(X[part], Y[part], classes=np.arange(3))
        for m, binary in enumerate(binaries):
            binary.partial_fit(X[part], Y[part, m], classes=[0, 1])
    assert np.array_equal(without.coef_, with_classes.coef_)
    _same_neurons(without, binaries, X)


def test_kernel_partial_fit_learns_each_column_as_its_binary_partial_fit():
    layer = KernelPerceptron(gamma=0.002, prediction="last", random_state=0)
    binaries = [KernelPerceptron(gamma=0.002, prediction="last", random_state=0) for _ in Y.T]
    for part in (slice(0, 100), slice(100, 200)):
        layer.partial_fit(X[part], Y[part])
        for m, binary in enumerate(binaries):
            binary.partial_fit(X[part], Y[part, m], classes=[0, 1])
    for m, binary in enumerate(binaries):
        assert np.array_equal(layer.decision_function(X)[:, m], binary.decision_function(X))


@pytest.mark.parametrize("make", [Perceptron, KernelPerceptron])
def test_going_on_learning_keeps_the_kind_of_labels(make):
    layer = make(max_iter=2, random_state=0).fit(X[:50], Y[:50])
    with pytest.raises(ValueError, match=r"label matrix of 3 labels.*\(n_samples, 3\)"):
        layer.partial_fit(X[:50], Y[:50, 0])
    with pytest.raises(ValueError, match="2 label columns; the model was fitted on .* of 3"):
        layer.partial_fit(X[:50], Y[:50, :2])
    with pytest.raises(ValueError, match="classes=.*differs"):
        layer.partial_fit(X[:50], Y[:50], classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="classes=\\[0, 1\\], but y is a label matrix of 3"):
        make().partial_fit(X[:50], Y[:50], classes=[0, 1])
    classes = make(max_iter=2, random_state=0).fit(X[:50], Y[:50, 0])
    with pytest.raises(ValueError, match="fitted on class labels.*is a label matrix"):
        classes.partial_fit(X[:50], Y[:50])
    # a fresh fit learns whatever it is given
    refit = make(max_iter=2, random_state=0).fit(X[:50], Y[:50]).fit(X[:50], Y[:50, 0])
    assert not refit.multilabel_ and refit.predict(X[:5]).ndim == 1


def test_warm_start_goes_on_as_one_longer_fit():
    warm = Perceptron(max_iter=3, tol=None, shuffle=False, warm_start=True)
    warm.fit(X, Y).fit(X, Y)
    once = Perceptron(max_iter=6, tol=None, shuffle=False).fit(X, Y)
    assert np.array_equal(warm.coef_, once.coef_)


def test_early_stopping_splits_a_label_matrix_at_random():
    model = Perceptron(early_stopping=True, random_state=0, n_iter_no_change=2).fit(X, Y)
    assert model.multilabel_ and model.predict(X).shape == Y.shape


def test_the_engine_refuses_a_label_matrix_that_does_not_fit_the_state():
    order = (np.arange(4), np.empty(0, dtype=np.int64), 0)
    batch = Batch(np.ones((4, 2)), np.ones((4, 3)), np.ones(4))
    for state in (
        PrimalState.allocate(3, 2, np.float64, multilabel=False, multinomial=True),
        PrimalState.allocate(2, 2, np.float64, multilabel=True),
        PrimalState.allocate(2, 2, np.float64),
    ):
        with pytest.raises(ValueError, match="does not fit a state"):
            state.epoch(batch, PrimalRule(), order, np.ones(state.n_units, dtype=bool))
    assert PrimalState.allocate(2, 2, np.float64, multilabel=True).n_rows == 2


# ---------------------------------------------------------------------- the property
_shapes = st.tuples(st.integers(4, 25), st.integers(2, 4), st.integers(1, 4))


@PROPERTY
@given(_shapes, st.integers(0, 2**16), st.sampled_from(["Perceptron", "AveragedPerceptron"]))
def test_every_neuron_is_its_binary_fit_on_random_label_matrices(shape, seed, name):
    n, n_labels, n_features = shape
    rng = np.random.RandomState(seed)
    data = rng.randn(n, n_features)
    labels = (rng.rand(n, n_labels) < rng.rand(n_labels)).astype(int)
    make = LINEAR[name]
    params = {"max_iter": 6, "tol": None, "random_state": seed}
    layer = make(**params).fit(data, labels)
    for m in range(n_labels):
        if np.unique(labels[:, m]).shape[0] < 2:  # a binary fit needs two classes
            continue
        binary = make(**params).fit(data, labels[:, m])
        assert np.array_equal(layer.coef_[m], binary.coef_[0])
        assert layer.intercept_[m] == binary.intercept_[0]
        assert np.array_equal(layer.predict(data)[:, m], binary.predict(data))


# ---------------------------------------------------------------------- model files
@pytest.mark.parametrize(
    "estimator",
    [
        Perceptron(random_state=0),
        AveragedPerceptron(random_state=0),
        VotedPerceptron(max_iter=5, random_state=0),
        KernelPerceptron(max_iter=3, random_state=0),
        Projectron(max_iter=3, random_state=0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_layer_saves_and_loads(estimator, tmp_path):
    estimator.fit(X[:150], Y[:150])
    save(estimator, tmp_path / "layer.rbm")
    loaded = load(tmp_path / "layer.rbm")
    assert loaded.multilabel_ and np.array_equal(loaded.classes_, np.arange(3))
    assert np.array_equal(loaded.predict(X), estimator.predict(X))
    assert np.array_equal(loaded.decision_function(X), estimator.decision_function(X))
    predictor = load_predictor(tmp_path / "layer.rbm")  # numpy alone, for linear models
    assert np.array_equal(predictor.predict(X), estimator.predict(X))


def _flag(value):
    def edit(manifest, members):
        tree = json.loads(members["state.json"])
        tree["fitted"]["multilabel_"] = value
        members["state.json"] = json.dumps(tree).encode()

    return edit


@pytest.mark.parametrize(
    "estimator, labels, value, match",
    [
        (Perceptron(), Y[:, :2], False, "training_state_ has 2 rows.*need 1 rows"),
        (Perceptron(), Y[:, 0], True, "training_state_ has 1 rows.*need 2 rows"),
        (Perceptron(), Y[:, 0] + Y[:, 1] * 2 + 1, True, "classes_ must be the label columns"),
        (Perceptron(), Y, "yes", "multilabel_ must be True or False"),
        (KernelPerceptron(max_iter=2), Y[:, :2], False, "training_state_ has 2 problems"),
        (KernelPerceptron(max_iter=2), Y[:, 0], True, "training_state_ has 1 problems"),
    ],
)
def test_a_flag_that_does_not_fit_the_arrays_is_refused(tmp_path, estimator, labels, value, match):
    path = tmp_path / "crafted.rbm"
    save(estimator.set_params(random_state=0).fit(X[:80], labels[:80]), path)
    forge(path, _flag(value))
    for read in (load, load_predictor):
        with pytest.raises(ModelFileError, match=match):
            read(path)


def test_files_from_before_the_flag_learnt_class_labels(tmp_path):
    path = tmp_path / "old.rbm"
    save(Perceptron(max_iter=3, random_state=0).fit(X, Y[:, 0]), path)

    def drop(manifest, members):
        tree = json.loads(members["state.json"])
        del tree["fitted"]["multilabel_"]
        members["state.json"] = json.dumps(tree).encode()

    forge(path, drop)
    assert "multilabel_" not in json.loads(zipfile.ZipFile(path).read("state.json"))["fitted"]
    loaded = load(path)
    assert loaded.predict(X).ndim == 1 and not getattr(loaded, "multilabel_", False)


def test_a_layers_training_state_hands_over():
    layer = Perceptron(max_iter=5, random_state=0).fit(X, Y)
    state = layer.training_state_.copy()
    taken = Perceptron().set_training_state(state, np.arange(3), multilabel=True)
    assert taken.multilabel_ and np.array_equal(taken.predict(X), layer.predict(X))
    with pytest.raises(ValueError, match="columns 0 .. M-1"):
        Perceptron().set_training_state(state, np.array([1, 2, 3]), multilabel=True)
    with pytest.raises(ValueError, match="does not fit"):  # two labels need two rows
        Perceptron().set_training_state(
            PrimalState.allocate(2, X.shape[1], np.float64), np.arange(2), multilabel=True
        )


def test_the_command_line_predicts_a_label_matrix_row_by_row(tmp_path):
    """`rosenblatt predict` on a multilabel model file: one JSON list of 0/1 per row, the
    model's own predictions."""
    from conftest import run_cli

    from rosenblatt.persistence import save

    rng = np.random.RandomState(0)
    X = rng.randn(40, 3)
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] > 0]).astype(int)
    model = Perceptron(random_state=0).fit(X, Y)
    save(model, tmp_path / "layer.rbl")
    data = tmp_path / "x.csv"
    np.savetxt(data, X[:5], delimiter=",", header="a,b,c", comments="")
    result = run_cli("predict", "-m", tmp_path / "layer.rbl", data)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows == model.predict(X[:5]).tolist()
