"""The training engine: one driver, one rule, the same answer on every path."""

import ast
import contextlib
import importlib.util
import pathlib
import warnings

import numpy as np
import pytest
import reference
import scipy.sparse as sp
from conftest import PROPERTY, orders
from conftest import fit_quiet as quiet
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.datasets import make_blobs, make_classification
from sklearn.exceptions import ConvergenceWarning

from rosenblatt import AveragedPerceptron, KernelPerceptron, Perceptron, VotedPerceptron
from rosenblatt.engine import EpochCount, EpochReport, PrimalState, StopRule, train

AND_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
AND_Y = np.array([1, 0, 0, 0])


# ---------------------------------------------------------------- fit = reset + partial_fit
ESTIMATORS = [
    (Perceptron, {}),
    (Perceptron, {"mode": "batch"}),
    (Perceptron, {"multi_class": "multinomial"}),
    (AveragedPerceptron, {}),
    (AveragedPerceptron, {"multi_class": "multinomial"}),
    (VotedPerceptron, {}),
    (VotedPerceptron, {"multi_class": "multinomial"}),
]


@pytest.mark.parametrize("separable", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("estimator, params", ESTIMATORS)
@pytest.mark.parametrize("sparse", [False, True])
def test_fit_equals_partial_fit_epoch_by_epoch(estimator, params, n_classes, sparse, separable):
    if separable:  # blobs on a circle: each class is cut off from the others by a line
        angles = 2 * np.pi * np.arange(n_classes) / n_classes
        centers = np.zeros((n_classes, 5))
        centers[:, 0], centers[:, 1] = 6 * np.cos(angles), 6 * np.sin(angles)
        X, y = make_blobs(80, centers=centers, cluster_std=0.5, random_state=4)
    else:
        X, y = make_classification(
            80, 5, n_informative=4, n_redundant=0, n_classes=n_classes, flip_y=0.05, random_state=4
        )
    X = sp.csr_matrix(X) if sparse else X
    max_iter = 15
    fitted = quiet(estimator(random_state=3, max_iter=max_iter, tol=None, **params), X, y)
    stepped = estimator(random_state=3, **params)
    for _ in range(max_iter):
        stepped.partial_fit(X, y, classes=np.unique(y))
    # every neuron trained every epoch on the partial_fit path; after an error-free
    # epoch nothing changes, so the weights, averages and votes are those of fit
    np.testing.assert_array_equal(stepped.coef_, fitted.coef_)
    np.testing.assert_array_equal(stepped.intercept_, fitted.intercept_)
    np.testing.assert_array_equal(stepped.decision_function(X), fitted.decision_function(X))
    assert stepped.mistakes_per_epoch_[: fitted.n_iter_] == fitted.mistakes_per_epoch_
    # the separable data converge within max_iter, the noisy ones do not: both branches run
    assert fitted.converged_ == separable
    if separable:  # the epochs fit did not run are error-free on the partial_fit path
        assert fitted.n_iter_ < max_iter
        assert stepped.mistakes_per_epoch_[fitted.n_iter_ :] == [0] * (max_iter - fitted.n_iter_)
    else:
        assert fitted.n_iter_ == max_iter and all(stepped.mistakes_per_epoch_)


def test_fit_batches_equals_partial_fit_per_batch():
    X, y = make_classification(90, 4, n_informative=3, n_redundant=0, flip_y=0.3, random_state=5)
    chunks = [(X[i : i + 30], y[i : i + 30]) for i in range(0, 90, 30)]
    chunk_orders = [[2, 0, 1], [1, 2, 0], [0, 2, 1]]
    epochs = iter(chunk_orders)

    def batches():
        return [chunks[c] for c in next(epochs)]

    with pytest.warns(ConvergenceWarning):
        batched = AveragedPerceptron(random_state=1).fit_batches(batches, [0, 1], max_iter=3)
    stepped = AveragedPerceptron(random_state=1)
    for order in chunk_orders:
        for c in order:
            stepped.partial_fit(*chunks[c], classes=[0, 1])
    np.testing.assert_array_equal(batched.coef_, stepped.coef_)
    assert batched.n_iter_ == 3
    assert batched.mistakes_per_epoch_ == [
        sum(stepped.mistakes_per_epoch_[k : k + 3]) for k in (0, 3, 6)
    ]


# ---------------------------------------------------------------- epochs in batches
def _odd_counter(seen):
    """A learner's present-one-batch function: one unit that errs on every odd number."""

    def present(batch, active):
        seen.append(list(batch))
        mistakes = sum(n % 2 for n in batch)
        return EpochCount(np.array([mistakes]), len(batch), np.array([2.0 * mistakes]), 1.5)

    return present


def test_batch_epochs_count_each_epoch_and_keep_it_after_every_batch():
    """The epoch's count is the sum of its batches'; after every batch ``run.partial`` holds
    the count so far when after_batch is called, and a finished epoch clears it."""
    from rosenblatt.engine.driver import RunState
    from rosenblatt.engine.problems import BatchEpochs

    run, seen, at_each_batch, reports = RunState(), [], [], []

    def after_batch():
        mistakes, presented, weight, presented_weight = run.partial
        at_each_batch.append((mistakes.tolist(), presented, weight.tolist(), presented_weight))

    problem = BatchEpochs(
        lambda: [[1, 2], [3, 5, 6]], _odd_counter(seen), run=run, after_batch=after_batch
    )
    stop = StopRule(max_epochs=2, warn=False)
    history = train(problem, stop, owner="odd", on_epoch=reports.append, run=run)
    assert history.mistakes_per_epoch == [3, 3] and seen == [[1, 2], [3, 5, 6]] * 2
    assert at_each_batch == [([1], 2, [2.0], 1.5), ([3], 5, [6.0], 3.0)] * 2
    assert [(r.mistakes, r.presented, r.mistake_weight, r.presented_weight) for r in reports] == [
        (3, 5, 6.0, 3.0)
    ] * 2
    assert run.epochs == 2 and run.partial is None


def test_batch_epochs_resume_inside_an_epoch_from_its_count():
    """An epoch resumed inside (``run.partial`` from a checkpoint, ``batches()`` giving the
    rest of its batches) counts on from the count kept: the history of an uninterrupted run."""
    from rosenblatt.engine.driver import RunState
    from rosenblatt.engine.problems import BatchEpochs

    whole = train(
        BatchEpochs(lambda: [[1, 2], [3, 5, 6]], _odd_counter([])),
        StopRule(max_epochs=3, warn=False),
        owner="odd",
    )
    run = RunState.from_state(
        {
            "version": 1,
            "epochs": 1,
            "mistakes_per_epoch": [3],
            "active": [True],
            "trained": [1],
            "presented": 5,
            "best": None,
            "stale": 0,
            "partial": {
                "mistakes": [1],
                "presented": 2,
                "mistake_weight": [2.0],
                "presented_weight": 1.5,
            },
            "rng": None,
        }
    )
    epochs = iter([[[3, 5, 6]], [[1, 2], [3, 5, 6]]])  # the rest of epoch 2, then epoch 3
    seen, reports = [], []
    resumed = train(
        BatchEpochs(lambda: next(epochs), _odd_counter(seen), run=run),
        StopRule(max_epochs=3, warn=False),
        owner="odd",
        on_epoch=reports.append,
        run=run,
    )
    assert resumed.mistakes_per_epoch == whole.mistakes_per_epoch == [3, 3, 3]
    assert seen == [[3, 5, 6], [1, 2], [3, 5, 6]]
    assert [(r.epoch, r.mistake_weight, r.presented_weight) for r in reports] == [
        (2, 6.0, 3.0),
        (3, 6.0, 3.0),
    ]


def test_batch_epochs_refuse_a_first_epoch_without_batches_unless_resumed():
    from rosenblatt.engine.driver import RunState
    from rosenblatt.engine.problems import NO_BATCH, BatchEpochs

    with pytest.raises(ValueError, match=r"^fit_batches: batches\(\) gave no batch; give at "):
        train(BatchEpochs(lambda: [], _odd_counter([])), StopRule(max_epochs=2), owner="odd")
    assert NO_BATCH.startswith("fit_batches: batches() gave no batch")
    # resumed after the last batch of an epoch: its rest is empty, its count is kept
    run = RunState(epochs=0, active=np.array([True]), trained=np.array([0]))
    run.partial = EpochCount(np.array([2]), 4, np.array([4.0]), 3.0)
    epochs = iter([[], [[2, 4]]])
    history = train(
        BatchEpochs(lambda: next(epochs), _odd_counter([]), run=run),
        StopRule(max_epochs=2, warn=False),
        owner="odd",
        run=run,
    )
    assert history.mistakes_per_epoch == [2, 0] and history.converged


def test_every_learner_refuses_batches_that_give_none():
    """The linear, kernel and online-calibrated learners' fit_batches say the same."""
    from rosenblatt import calibrated

    for learner in (
        Perceptron(),
        KernelPerceptron(),
        calibrated(AveragedPerceptron(), method="online"),
    ):
        with pytest.raises(ValueError) as caught:
            learner.fit_batches(lambda: iter(()), classes=[0, 1])
        assert str(caught.value) == (
            "fit_batches: batches() gave no batch; give at least one (X, y) per epoch."
        ), type(learner).__name__


# ---------------------------------------------------------------- converged = run to the end
def test_voted_and_after_convergence_predicts_its_training_data():
    """The issue's case: converged at once, then outvoted by earlier vectors."""
    clf = VotedPerceptron(eta=0.01, max_iter=100, random_state=42).fit(AND_X, AND_Y)
    assert clf.converged_
    np.testing.assert_array_equal(clf.predict(AND_X), AND_Y)


@PROPERTY
@given(
    st.integers(4, 20),
    st.integers(1, 4),
    st.integers(0, 10_000),
    st.sampled_from([VotedPerceptron, AveragedPerceptron]),
)
def test_converged_run_equals_the_reference_run_to_max_iter(n, d, seed, estimator):
    rng = np.random.RandomState(seed)
    X = rng.randint(-5, 6, size=(n, d)).astype(float)
    w = rng.randint(-3, 4, size=d)
    labels = np.where(X @ w + 0.5 > 0, 1, -1)  # |X @ w + 0.5| >= 0.5: a margin
    assume(len(np.unique(labels)) == 2)
    clf = quiet(estimator(random_state=seed, max_iter=30, tol=None), X, labels)
    run = reference.online(X, labels, orders(seed, n, 30), stop=False)
    if estimator is VotedPerceptron:
        X_test = rng.randint(-6, 7, size=(10, d)).astype(float)
        np.testing.assert_allclose(
            clf.decision_function(X_test),
            reference.voted_decision(run["history"], X_test),
            atol=1e-12,
        )
    else:  # CIML Algorithm 7 run through all 30 epochs, bit for bit
        literal = reference.algorithm7(X, labels, orders(seed, n, 30))
        np.testing.assert_array_equal(clf.coef_[0], literal["average"][:-1])
        assert clf.intercept_[0] == literal["average"][-1]
        average = np.vstack([np.zeros((1, d + 1)), run["history"]]).mean(axis=0)
        np.testing.assert_allclose(literal["average"], average, rtol=1e-12, atol=1e-12)


def test_kernel_averaged_converged_counts_every_presentation():
    clf = KernelPerceptron(kernel="poly", degree=2, max_iter=40, random_state=0).fit(AND_X, AND_Y)
    assert clf.converged_ and clf.n_iter_ < 40
    assert clf.n_presented_.tolist() == [40 * 4]


# ---------------------------------------------------------------- kernel: converged = separated
@PROPERTY
@given(
    arrays(np.float64, (6, 2), elements=st.sampled_from([-1.0, -0.5, 0.0, 0.5, 1.0]), unique=False),
    st.lists(st.booleans(), min_size=6, max_size=6),
    st.sampled_from([0.5, 5.0, 50.0]),
    st.sampled_from(["rbf", "poly", "sigmoid"]),
    st.booleans(),
    st.integers(0, 50),
)
def test_converged_kernel_perceptron_classifies_its_training_data(
    X, labels, gamma, kernel, fit_intercept, seed
):
    y = np.array(labels, dtype=int)
    assume(len(np.unique(y)) == 2)
    # duplicate points with different labels cannot be separated by any kernel
    assume(len({tuple(x) for x in X}) == len({(tuple(x), t) for x, t in zip(X, y)}))
    clf = quiet(
        KernelPerceptron(
            kernel=kernel,
            gamma=gamma,
            prediction="last",
            fit_intercept=fit_intercept,
            random_state=seed,
            max_iter=200,
        ),
        X,
        y,
    )
    if clf.converged_:  # the guarantee of convergence: every training point is right
        assert clf.score(X, y) == 1.0


def test_kernel_rbf_or_without_intercept_at_rounding_level():
    """The issue's case: scores at rounding level decided differently in prediction."""
    X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=float)
    y = np.array([-1, 1, 1, 1])
    for seed in range(60):
        clf = KernelPerceptron(
            kernel="rbf", gamma=50, fit_intercept=False, prediction="last", random_state=seed
        ).fit(X, y)
        assert clf.converged_ and clf.score(X, y) == 1.0, seed


# ---------------------------------------------------------------- the semantic fixes
def test_generator_random_state_is_accepted_everywhere():
    X, y = make_classification(60, 4, random_state=0)
    for estimator in (
        Perceptron(),
        AveragedPerceptron(early_stopping=True, max_iter=20),
        KernelPerceptron(max_iter=5),
    ):
        estimator.set_params(random_state=np.random.default_rng(0))
        quiet(estimator, X, y)
        assert estimator.n_iter_ >= 1


@pytest.mark.parametrize(
    "estimator, params, name",
    [
        (Perceptron, {"eta": float("nan")}, "eta"),
        (Perceptron, {"eta": float("inf")}, "eta"),
        (Perceptron, {"intercept_scaling": float("nan")}, "intercept_scaling"),
        (Perceptron, {"intercept_scaling": 0.0}, "intercept_scaling"),
        (Perceptron, {"validation_fraction": float("nan")}, "validation_fraction"),
        (KernelPerceptron, {"gamma": float("nan")}, "gamma"),
        (KernelPerceptron, {"gamma": -1.0}, "gamma"),
        (KernelPerceptron, {"coef0": float("inf")}, "coef0"),
        (KernelPerceptron, {"eta": float("inf")}, "eta"),
    ],
)
def test_non_finite_or_negative_parameters_are_refused(estimator, params, name):
    with pytest.raises(ValueError, match=f"'{name}' parameter of {estimator.__name__} must be"):
        estimator(**params).fit(AND_X, AND_Y)


@pytest.mark.parametrize("weight", [float("nan"), float("inf"), -1.0, "2"])
def test_bad_class_weights_are_refused(weight):
    with pytest.raises(ValueError, match="class_weight .* for class 1"):
        Perceptron(class_weight={0: 1.0, 1: weight}).fit(AND_X, AND_Y)


@pytest.mark.parametrize("weight", [float("nan"), -1.0])
def test_bad_sample_weights_are_refused(weight):
    for estimator in (Perceptron(), KernelPerceptron()):
        with pytest.raises(ValueError, match="sample_weight"):
            estimator.fit(AND_X, AND_Y, sample_weight=[1.0, 1.0, weight, 1.0])


def test_early_stopping_without_shuffle_trains_in_storage_order():
    X, y = make_classification(200, 4, flip_y=0.2, random_state=3)
    clf = Perceptron(
        early_stopping=True, shuffle=False, random_state=0, max_iter=4, n_iter_no_change=10
    )
    quiet(clf, X, y)
    # the held-out rows are those of the same stratified split; the rest keep their order
    from sklearn.model_selection import StratifiedShuffleSplit

    train, _ = next(StratifiedShuffleSplit(n_splits=1, test_size=0.1, random_state=0).split(X, y))
    train = np.sort(train)
    run = reference.online(
        X[train], np.where(y[train] == 1, 1, -1), [np.arange(train.shape[0])] * 4
    )
    np.testing.assert_array_equal(clf.coef_[0], run["w"][:-1])


def test_partial_fit_refuses_early_stopping():
    with pytest.raises(ValueError, match="early_stopping=False with partial_fit"):
        Perceptron(early_stopping=True).partial_fit(AND_X, AND_Y, classes=[0, 1])


# ---------------------------------------------------------------- the driver and on_epoch
def test_on_epoch_reports_every_epoch():
    reports = []
    X, y = make_classification(100, 4, flip_y=0.2, random_state=1)
    clf = quiet(Perceptron(max_iter=6, random_state=0, on_epoch=reports.append), X, y)
    assert [r.epoch for r in reports] == list(range(1, clf.n_iter_ + 1))
    assert [r.mistakes for r in reports] == clf.mistakes_per_epoch_
    assert all(
        isinstance(r, EpochReport) and r.presented == 100 and r.max_epochs == 6 and r.model is clf
        for r in reports
    )
    kernel_reports = []
    quiet(KernelPerceptron(max_iter=3, random_state=0, on_epoch=kernel_reports.append), X, y)
    assert len(kernel_reports) >= 1 and kernel_reports[0].presented == 100


class _Scripted:
    """A training problem of two units whose mistakes per epoch are given (the engine's
    entry takes any problem: parameter mixing brings its own)."""

    n_units, unit_stops = 2, True

    def __init__(self, mistakes):
        self.mistakes, self.number, self.credited, self.opened = mistakes, 0, [], []

    @contextlib.contextmanager
    def running(self, max_epochs):
        self.opened.append(max_epochs)
        yield self
        self.opened.append("closed")

    def epoch(self, active):
        e = self.number
        self.number += 1
        out = np.array(
            [self.mistakes[u][e] if active[u] and e < len(self.mistakes[u]) else 0 for u in (0, 1)]
        )
        return EpochCount(out, 10, out.astype(float), 10.0)

    def credit(self, left, presented):
        self.credited.append((left.tolist(), presented))


def test_the_engine_stops_each_unit_and_credits_the_rest():
    problem = _Scripted({0: [3, 0], 1: [2, 1, 1]})  # unit 0 converges in epoch 2, unit 1 never
    with pytest.warns(ConvergenceWarning, match="the last of max_iter=3 epochs still made 1"):
        history = train(problem, StopRule(3), owner="T", advice="x")
    assert history.mistakes_per_epoch == [5, 1, 1] and not history.converged
    assert problem.credited == [([1, 0], 10)]  # unit 0 skipped epoch 3
    assert problem.opened == [3, "closed"]
    # a single partial_fit epoch: no warning, no credit
    quiet_run = _Scripted({0: [3, 0], 1: [2, 1, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        once = train(quiet_run, StopRule(1, warn=False, credit=False), owner="T")
    assert once.mistakes_per_epoch == [5] and quiet_run.credited == []


def test_the_stop_rule_is_made_in_one_place():
    """tol, n_iter_no_change and early stopping become a StopRule, which watches the
    weighted mistake fraction, or the validation error when there is one."""
    assert StopRule.of(Perceptron(tol=None)).plateau() is None
    plateau = StopRule.of(Perceptron(tol=0.01, n_iter_no_change=2)).plateau()
    assert [plateau.update(v) for v in (0.5, 0.3, 0.295, 0.31)] == [False] * 3 + [True]
    errors = iter([0.5, 0.4, 0.45, 0.45])
    early = StopRule.of(Perceptron(tol=None, n_iter_no_change=2), validation_error=lambda: 0)
    assert early.plateau().tol == 0.0  # tol=None: any improvement counts
    problem = _Scripted({0: [1] * 9, 1: [1] * 9})
    stop = StopRule(9, tol=0.0, n_iter_no_change=2, validation_error=lambda: next(errors))
    history = train(problem, stop, owner="T")
    assert history.n_iter == 4 and history.stopped_early and not history.plateaued


def test_state_round_trips_through_plain_arrays():
    X, y = make_classification(60, 4, n_classes=3, n_informative=3, n_redundant=0, random_state=2)
    for estimator in (
        VotedPerceptron(random_state=0, max_iter=5),
        AveragedPerceptron(random_state=0, multi_class="multinomial", max_iter=5),
    ):
        quiet(estimator, X, y)
        state = estimator.training_state_
        again = PrimalState.from_state(*state.to_state())
        for name in ("W", "w0", "U", "U0", "counts"):
            np.testing.assert_array_equal(getattr(again, name), getattr(state, name))
        copy = type(estimator)(**estimator.get_params()).set_training_state(
            again, estimator.classes_
        )
        np.testing.assert_array_equal(copy.decision_function(X), estimator.decision_function(X))


# ---------------------------------------------------------------- nobody reaches into privates
# scikit-learn's protocol: each estimator class declares its _parameter_constraints,
# and the validator reads them (as scikit-learn's own does)
ALLOWED = {"_parameter_constraints"}
# The one module that writes scikit-learn's private attributes: what its transformers'
# transform reads and a model file never stores, derived again after loading
SKLEARN_PRIVATE_WRITERS = {"persistence/sklearn_derived.py"}


def _private_reads(path):
    """Attribute accesses ``name._private`` where ``name`` is not self/cls/a module."""
    tree = ast.parse(path.read_text())
    modules = {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and node.attr not in ALLOWED
            and isinstance(node.value, ast.Name)
            and node.value.id not in {"self", "cls"} | modules
        ):
            found.append(f"{path.name}:{node.lineno} {node.value.id}.{node.attr}")
        # getattr(x, "_name"), hasattr, setattr, delattr, and loops over such names
        names = []
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"getattr", "hasattr", "setattr", "delattr"}
        ):
            names = node.args[1:2]
        elif isinstance(node, (ast.Tuple, ast.List)):
            names = node.elts
        for name in names:
            if (
                isinstance(name, ast.Constant)
                and isinstance(name.value, str)
                and name.value.startswith("_")
                and not name.value.startswith("__")
            ):
                found.append(f"{path.name}:{node.lineno} {name.value!r}")
    return found


def test_modules_outside_the_engine_touch_no_private_attributes():
    """Every module but the engine's own (engine/, with its compiled loops) uses public names
    only."""
    root = pathlib.Path(__file__).parents[1] / "src" / "rosenblatt"
    paths = [
        path
        for path in sorted(root.rglob("*.py"))
        if not path.relative_to(root).as_posix().startswith("engine/")
        and path.relative_to(root).as_posix() not in SKLEARN_PRIVATE_WRITERS
    ]
    assert len(paths) > 30
    found = [hit for path in paths for hit in _private_reads(path)]
    assert found == []


def test_the_private_attribute_check_sees_what_it_looks_for(tmp_path):
    module = tmp_path / "bad.py"
    module.write_text(
        "import numpy as np\n"
        "def f(est, self):\n"
        "    est._W[0] = np._NoValue\n"
        "    for name in ('_rng',):\n"
        "        delattr(est, '_counts')\n"
        "    return self._own, est._parameter_constraints\n"
    )
    assert sorted(_private_reads(module)) == [
        "bad.py:3 est._W",
        "bad.py:4 '_rng'",
        "bad.py:5 '_counts'",
    ]


def _private_name_imports(path, root):
    """``from X import _name`` where ``_name`` is a name defined in X, not a module of X.

    ``root`` is the package's folder: relative imports and imports of the package itself
    are resolved in its files, others by the import system.
    """
    package = path.parent.relative_to(root.parent).parts
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        parts = list(package[: len(package) + 1 - node.level]) if node.level else []
        parts += node.module.split(".") if node.module else []
        for alias in node.names:
            name = alias.name
            if not name.startswith("_") or name.startswith("__"):
                continue
            if parts[0] == root.name:
                folder = root.parent.joinpath(*parts)
                is_module = (folder / f"{name}.py").is_file() or (folder / name).is_dir()
            else:
                try:
                    is_module = importlib.util.find_spec(".".join([*parts, name])) is not None
                except ModuleNotFoundError:
                    is_module = False
            if not is_module:
                where = path.relative_to(root).as_posix()
                found.append(f"{where}:{node.lineno} {'.'.join(parts)}.{name}")
    return found


def test_no_module_imports_another_modules_private_names():
    """``from X import _name`` couples to X's insides: X gives a public name instead.

    Importing a private module (``from . import _config``) or public names from it is fine.
    """
    root = pathlib.Path(__file__).parents[1] / "src" / "rosenblatt"
    paths = sorted(root.rglob("*.py"))
    assert len(paths) > 30
    found = [hit for path in paths for hit in _private_name_imports(path, root)]
    # skl2onnx has no public way for a converter to convert the models it holds, or to
    # finish a classifier's outputs as its own converters do: its documentation's custom
    # converters import these (skl2onnx is pinned below 2, and tests/test_onnx.py runs them)
    allowed = {
        "skl2onnx._parse._apply_zipmap",
        "skl2onnx._parse._parse_sklearn",
        "skl2onnx.common.utils_classifier._finalize_converter_classes",
        "skl2onnx.operator_converters.stacking._fetch_scores",
    }
    found = [hit for hit in found if hit.split()[1] not in allowed]
    assert found == []


def test_the_private_import_check_sees_what_it_looks_for(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "_mod.py").write_text("PUBLIC = 1\n_hidden = 2\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "_part.py").write_text("")
    module = root / "sub" / "bad.py"
    module.write_text(
        "from __future__ import annotations\n"
        "from .. import _mod\n"  # a private module: fine
        "from .._mod import PUBLIC, _hidden\n"
        "from . import _part, _helper\n"
        "from pkg._mod import _hidden as hidden\n"
        "from numpy import _NoValue\n"
        "from numpy import _core, __version__\n"  # a module and a dunder: fine
    )
    assert _private_name_imports(module, root) == [
        "sub/bad.py:3 pkg._mod._hidden",
        "sub/bad.py:4 pkg.sub._helper",
        "sub/bad.py:5 pkg._mod._hidden",
        "sub/bad.py:6 numpy._NoValue",
    ]


# ---------------------------------------------------------------- the run, step by step
def _recorded_run(n_classes=2, epochs=3):
    """A state trained averaged and voted on inexact data, with the orders it presented."""
    from rosenblatt.engine.orders import EpochOrders, random_source, recorded_orders
    from rosenblatt.engine.primal import Batch, PrimalRule

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    target = rng.integers(0, n_classes, size=40)
    state = PrimalState.allocate(n_classes, 3, np.float64, averaged=True, voted=True)
    rule = PrimalRule(eta=0.3, bias_input=0.7)
    batch = Batch(X, target, np.ones(40))
    with recorded_orders() as orders, EpochOrders(random_source(5), 40, "full") as draw:
        for _ in range(epochs):
            state.epoch(batch, rule, draw(), np.ones(state.n_rows, dtype=bool))
    return X, target, state, orders


def test_record_gives_the_update_log_with_samples():
    X, target, state, orders = _recorded_run()
    log = state.votes.updates(0)
    assert len(orders) == 3 and all(sorted(o) == list(range(40)) for o in orders)
    presented = np.concatenate(orders)
    # each update's sample is the row presented then, its coefficient eta * t
    np.testing.assert_array_equal(log["sample"], presented[log["time"]])
    t = np.where(target[log["sample"]] == 1, 1.0, -1.0)
    np.testing.assert_array_equal(log["coef"], 0.3 * t)
    np.testing.assert_array_equal(state.votes.patterns.rows[log["pattern"]], X[log["sample"]])
    # a record read back has no batch to point into: samples unknown
    meta, arrays = state.to_state()
    back = PrimalState.from_state(meta, arrays).votes.updates(0)
    assert (back["sample"] == -1).all() and back["sample"].shape == log["sample"].shape


def test_record_weights_after_any_presentation_are_the_states():
    _, _, state, _ = _recorded_run()
    end = int(state.counts[0])
    W, w0 = state.votes.after(0, [end], 3)
    np.testing.assert_array_equal(W[0], state.W[0])
    np.testing.assert_array_equal(w0[0], state.w0[0])
    A, a0 = state.votes.after(0, [end], 3, averaged=True)
    W_avg, w0_avg = state.weights(averaged=True)
    np.testing.assert_array_equal(A[0], W_avg[0])  # AveragedPerceptron's own arithmetic
    np.testing.assert_array_equal(a0[0], w0_avg[0])
    # any cursor: Algorithm 7's mean of w_0 (zero) .. w_c, the c + 1 weights so far
    c = np.arange(1, end + 1)
    every_W, every_w0 = state.votes.after(0, c, 3)
    A, a0 = state.votes.after(0, c, 3, averaged=True)
    np.testing.assert_allclose(A, np.cumsum(every_W, axis=0) / (c + 1)[:, None], atol=1e-12)
    np.testing.assert_allclose(a0, np.cumsum(every_w0) / (c + 1), atol=1e-12)


def test_record_tally_at_the_end_is_the_vote():
    X, _, state, _ = _recorded_run()
    end = int(state.counts[0])
    tally = state.votes.tally(0, X, np.arange(40), np.full(40, end))
    assert (tally.sum(axis=1) == end).all()
    vote = state.vote(X, 2)[:, 0] * end
    np.testing.assert_array_equal(tally[:, 0] - tally[:, 1], np.rint(vote))
    # earlier: the weights after presentations 1..c, each voting once
    W, w0 = state.votes.after(0, np.arange(1, 31), 3)
    scores = X[:5] @ W.T + w0 * 0.7
    plus = (scores > 0).sum(axis=1)
    np.testing.assert_array_equal(state.votes.tally(0, X, np.arange(5), np.full(5, 30))[:, 0], plus)
    vector, count = state.votes.in_force(0, [0, end])
    assert vector.tolist() == [0, state.votes.n_vectors()[0] - 1] and count[0] == 0


def test_recorded_orders_keeps_block_orders_and_nothing_outside():
    from rosenblatt.engine.orders import EpochOrders, epoch_order, random_source, recorded_orders

    with recorded_orders() as orders, EpochOrders(random_source(1), 300, "block") as draw:
        handed = [draw()[0].copy() for _ in range(3)]
    assert [o.tolist() for o in orders] == [h.tolist() for h in handed]
    epoch_order(random_source(1), 5, "full")  # outside the block: not kept
    assert len(orders) == 3


def test_parameter_mixing_stops_on_the_rounds_weighted_mistake_fraction():
    """A round's signal sums every partition's weighted mistakes over the weight the
    partitions presented, each counted by the compiled rule (issue 32)."""
    da = pytest.importorskip("dask.array")
    pytest.importorskip("distributed")
    from rosenblatt.distributed import ParameterMixing

    X, y = make_classification(200, 4, n_informative=3, n_redundant=0, flip_y=0.2, random_state=1)
    Xd, yd = da.from_array(X, chunks=(50, 4)), da.from_array(y, chunks=50)
    class_weight = {0: 4.0, 1: 0.5}

    def mixing(rounds, **params):
        template = Perceptron(random_state=0, class_weight=class_weight, **params)
        return ParameterMixing(template, max_rounds=rounds)  # no client: in this process

    reports = []  # the partitions' epochs, four a round (their own on_epoch)
    quiet(mixing(30, tol=None, on_epoch=reports.append), Xd, yd)
    rounds = [reports[k : k + 4] for k in range(0, len(reports), 4)]
    assert len(rounds) == 30
    steps = np.where(y == 1, 0.5, 4.0)
    assert all(sum(r.presented_weight for r in epochs) == steps.sum() for epochs in rounds)
    weighted = [
        sum(r.mistake_weight for r in epochs) / sum(r.presented_weight for r in epochs)
        for epochs in rounds
    ]
    unweighted = [sum(r.mistakes for r in epochs) / 200 for epochs in rounds]
    stop = reference.plateau_stop(weighted, 1e-3, 3)
    assert stop < reference.plateau_stop(unweighted, 1e-3, 3)
    stopped = mixing(30, n_iter_no_change=3).fit(Xd, yd)
    assert stopped.n_iter_ == stop and not stopped.converged_
    short = quiet(mixing(stop, tol=None), Xd, yd)
    np.testing.assert_array_equal(stopped.coef_, short.coef_)


def test_states_of_the_average_before_algorithm_7_are_refused_with_what_to_do():
    """Version 1 summed the updates times the presentations before them (an average of
    w_1 .. w_T); read as Algorithm 7's sums they would give neither average."""
    from rosenblatt.engine.dual import DualState

    X, y = np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]]), [-1, 1, 1, 1]
    averaged = AveragedPerceptron(shuffle=False, max_iter=2).fit(X, y).training_state_
    meta, arrays = averaged.to_state()
    assert meta["version"] == PrimalState.VERSION == 2
    with pytest.raises(
        ValueError,
        match=r"version 1, which averaged the weights w_1 \.\. w_T.*"
        r"CIML Algorithm 7.*train the model again",
    ):
        PrimalState.from_state({**meta, "version": 1}, arrays)
    # without averaging nothing changed: a version-1 state still reads
    last = Perceptron(shuffle=False).fit(X, y).training_state_
    meta, arrays = last.to_state()
    again = PrimalState.from_state({**meta, "version": 1}, arrays)
    np.testing.assert_array_equal(again.W, last.W)
    dual = KernelPerceptron(kernel="linear", shuffle=False).fit(X, y).training_state_
    meta, arrays = dual.to_state()
    assert meta["version"] == DualState.VERSION == 2
    with pytest.raises(
        ValueError,
        match=r"version 1, whose averaging sums count from 0.*"
        r"train the model again",
    ):
        DualState.from_state({**meta, "version": 1}, arrays)
