"""Model files whose values do not agree with each other: every loaded state is checked
against its class's declared invariants (rosenblatt.persistence.invariants) before any estimator
method, numpy broadcast or compiled loop sees it, by rosenblatt.load and by the command
line's numpy-only predictor alike.

Every file here is re-signed after it is crafted (tests/forging.py), so only the checks
of the content stand between it and the reader. The cases are those a review found on
466a990: two wrote out of bounds (the process died by a signal), the rest predicted
something other than the saved model or failed with a raw exception.
"""

import inspect
import io
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from forging import forge
from sklearn.datasets import make_classification
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from rosenblatt import (
    AveragedPerceptron,
    KernelPerceptron,
    ModelFileError,
    PassiveAggressive,
    Perceptron,
    Projectron,
    VotedPerceptron,
    calibrated,
)
from rosenblatt.engine.primal import Batch, PrimalRule, PrimalState, scores
from rosenblatt.persistence import (
    FITTED_PROPERTIES,
    REGISTRY,
    _is_fitted_name,
    _resolve,
    load,
    load_predictor,
    save,
)

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

X2, Y2 = make_classification(n_samples=40, n_features=2, n_redundant=0, random_state=0)
X3, Y3 = make_classification(
    n_samples=60, n_features=4, n_informative=3, n_redundant=0, n_classes=3, random_state=1
)


class Crafted:
    """The decoded tree of a model file and its arrays, to edit (see :func:`craft`)."""

    def __init__(self, members):
        self.members = members

    def array(self, node):
        return np.load(io.BytesIO(self.members[node["member"]]), allow_pickle=False)

    def put(self, node, array):
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(array), allow_pickle=False)
        self.members[node["member"]] = buffer.getvalue()


def craft(path, change):
    """Rewrite the model file at ``path`` after ``change(tree, crafted)``, re-signed."""

    def edit(manifest, members):
        tree = json.loads(members["state.json"])
        change(tree, Crafted(members))
        members["state.json"] = json.dumps(tree).encode()

    forge(path, edit)
    return path


def saved(model, tmp_path, name="model.rbm"):
    path = tmp_path / name
    save(model, path)
    return path


def refused(path, match):
    """load and the command line's predictor both refuse the file, with one message."""
    with pytest.raises(ModelFileError, match=match) as by_load:
        load(path)
    with pytest.raises(ModelFileError) as by_predictor:
        load_predictor(path)
    assert str(by_load.value) == str(by_predictor.value)
    assert "\n" not in str(by_load.value)


def scaled_pipeline():
    return make_pipeline(StandardScaler(), Perceptron(random_state=0)).fit(X2, Y2)


# ---------------------------------------------------------------------- memory safety
def _run_predict(model_path, data_path):
    """``rosenblatt predict`` in a subprocess (a signal must not kill the test run)."""
    return subprocess.run(
        [sys.executable, "-m", "rosenblatt", "predict", "-m", str(model_path), str(data_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ROSENBLATT_TRACEBACK": ""},
    )


def test_vote_rows_with_column_indices_out_of_range_are_refused(tmp_path):
    model = VotedPerceptron(max_iter=5, random_state=0).fit(sp.csr_matrix(X2), Y2)
    path = saved(model, tmp_path)

    def change(tree, crafted):
        node = tree["fitted"]["training_state_"]["arrays"]["votes.patterns.indices"]
        indices = crafted.array(node)
        indices[0] = 1_000_000
        crafted.put(node, indices)

    craft(path, change)
    refused(path, r"damaged or crafted.*(index|indices)")
    data = tmp_path / "data.csv"
    np.savetxt(data, np.column_stack([X2, Y2]), delimiter=",", header="a,b,y", comments="")
    result = _run_predict(path, data)
    assert result.returncode == 2, result
    assert "damaged or crafted" in result.stderr and "unexpected" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_one_vs_rest_state_flagged_multinomial_never_reaches_partial_fit(tmp_path):
    path = saved(Perceptron(max_iter=5, random_state=0).fit(X2, Y2), tmp_path)

    def change(tree, crafted):
        tree["fitted"]["training_state_"]["meta"]["multinomial"] = True

    craft(path, change)
    refused(path, r"multinomial state has one row per class")


def test_the_engine_checks_the_shapes_its_loops_rely_on():
    state = PrimalState.allocate(2, 3, np.float64)
    with pytest.raises(ValueError, match="do not score rows of 4 features"):
        scores(np.ones((2, 4)), state.W, state.w0)
    batch = Batch(np.ones((2, 4)), np.zeros(2), np.ones(2))
    order = (np.arange(2), np.empty(0, dtype=np.int64), 0)
    with pytest.raises(ValueError, match="does not fit a state of 3 features"):
        state.epoch(batch, PrimalRule(), order, np.ones(1, dtype=bool))
    batch = Batch(np.ones((2, 3)), np.array([0, 5]), np.ones(2))
    with pytest.raises(ValueError, match="class indices outside"):
        state.epoch(batch, PrimalRule(), order, np.ones(1, dtype=bool))


# ---------------------------------------------------------------------- linear models
def _fitted_array(name, edit):
    def change(tree, crafted):
        node = tree["fitted"][name]
        crafted.put(node, edit(crafted.array(node)))

    return change


def _state_array(name, edit):
    def change(tree, crafted):
        node = tree["fitted"]["training_state_"]["arrays"][name]
        crafted.put(node, edit(crafted.array(node)))

    return change


def _fitted_value(name, node):
    def change(tree, crafted):
        tree["fitted"][name] = node

    return change


LINEAR_CASES = {
    "W narrower than n_features_in_": (_state_array("W", lambda W: W[:, :1]), "training_state_"),
    "W wider than n_features_in_": (
        _state_array("W", lambda W: np.hstack([W, W])),
        "training_state_|U has shape",
    ),
    # format 4 holds no public weights: they are rebuilt from the state, and a file that
    # holds them anyway is refused (they could disagree with it)
    "coef_ in the file": (
        _fitted_value("coef_", [[1.0, 2.0]]),
        r"'coef_' is not a fitted attribute of rosenblatt.Perceptron",
    ),
    "intercept_ in the file": (
        _fitted_value("intercept_", {"$": "float", "value": "nan"}),
        r"'intercept_' is not a fitted attribute",
    ),
    "NaN in the weights": (
        _state_array("W", lambda W: np.full_like(W, np.nan)),
        r"W must hold finite floats",
    ),
    "three classes for one row": (
        _fitted_array("classes_", lambda c: np.array([0, 1, 2])),
        r"training_state_ has 1 rows",
    ),
    "one class": (
        _fitted_array("classes_", lambda c: c[:1]),
        r"classes_ must hold at least two classes",
    ),
    "duplicated classes": (
        _fitted_array("classes_", lambda c: np.array([c[0], c[0]])),
        r"classes_ must hold distinct labels in sorted order",
    ),
    "2-D classes": (
        _fitted_array("classes_", lambda c: c.reshape(1, -1)),
        r"classes_ must have 1 dimension",
    ),
}


@pytest.mark.parametrize("case", sorted(LINEAR_CASES))
def test_linear_states_that_disagree_are_refused(tmp_path, case):
    change, match = LINEAR_CASES[case]
    path = craft(saved(Perceptron(max_iter=5, random_state=0).fit(X2, Y2), tmp_path), change)
    refused(path, match)


def test_a_dual_state_given_to_a_perceptron_is_refused(tmp_path):
    kernel = saved(KernelPerceptron(max_iter=3, random_state=0).fit(X2, Y2), tmp_path, "k.rbm")
    with open(kernel, "rb") as handle:
        import zipfile

        with zipfile.ZipFile(handle) as archive:
            kernel_tree = json.loads(archive.read("state.json"))
            kernel_members = {n: archive.read(n) for n in archive.namelist()}
    path = saved(Perceptron(max_iter=5, random_state=0).fit(X2, Y2), tmp_path)

    def edit(manifest, members):
        tree = json.loads(members["state.json"])
        dual = kernel_tree["fitted"]["training_state_"]
        for k, node in enumerate(dual["arrays"].values()):
            name = f"arrays/dual{k}.npy"
            members[name] = kernel_members[node["member"]]
            node["member"] = name
        tree["fitted"]["training_state_"] = dual
        members["state.json"] = json.dumps(tree).encode()

    forge(path, edit)
    refused(path, r"training_state_ must be a PrimalState; it is a DualState")


def test_voted_vote_times_beyond_the_presentations_are_refused(tmp_path):
    path = saved(VotedPerceptron(max_iter=5, random_state=0).fit(X2, Y2), tmp_path)
    craft(path, _state_array("votes.0.time", lambda t: t * 0 + 10**9))
    refused(path, r"update times out of order or beyond")


# ---------------------------------------------------------------------- kernel models
def test_kernel_support_vectors_that_disagree_with_the_state_are_refused(tmp_path):
    model = KernelPerceptron(max_iter=3, prediction="voted", random_state=0).fit(X3, Y3)
    path = craft(saved(model, tmp_path), _fitted_array("support_vectors_", lambda v: v[:, :1]))
    refused(path, r"support_vectors_ must have shape")


def test_kernel_support_that_is_not_the_state_s_is_refused(tmp_path):
    model = KernelPerceptron(max_iter=3, prediction="voted", random_state=0).fit(X3, Y3)
    path = craft(saved(model, tmp_path), _fitted_array("support_", lambda s: s[::-1]))
    refused(path, r"support_ differs")


@pytest.mark.parametrize("name", ["dual_coef_", "update_support_", "n_presented_"])
def test_kernel_attributes_rebuilt_from_the_state_are_refused_in_a_file(tmp_path, name):
    model = KernelPerceptron(max_iter=3, prediction="voted", random_state=0).fit(X3, Y3)
    path = craft(saved(model, tmp_path), _fitted_value(name, [1]))
    refused(path, rf"'{name}' is not a fitted attribute of rosenblatt.KernelPerceptron")


def test_a_dual_state_whose_support_list_runs_past_its_coefficients_is_refused(tmp_path):
    path = saved(KernelPerceptron(max_iter=3, random_state=0).fit(X2, Y2), tmp_path)
    # the epoch appends a new support vector at n_sv: n_sv = n_samples would write past sv
    craft(path, _state_array("n_sv", lambda n: n * 0 + X2.shape[0]))
    refused(path, r"support vectors \(sv, n_sv\) are not the samples of non-zero")


# ---------------------------------------------------------------------- pipelines
def _step_array(index, name, edit):
    def change(tree, crafted):
        step = tree["params"]["steps"][index]["items"][1]
        node = step["fitted"][name]
        crafted.put(node, edit(crafted.array(node)))

    return change


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (_step_array(0, "mean_", lambda m: m[:1]), r"StandardScaler.mean_ must have shape"),
        (_step_array(0, "scale_", lambda s: s * 0), r"StandardScaler.scale_ holds values that"),
        (
            lambda tree, crafted: tree["params"].__setitem__("steps", "scaler"),
            r"Pipeline.steps must be a non-empty list",
        ),
    ],
    ids=["mean of one feature", "zero scale", "steps a string"],
)
def test_pipeline_steps_that_disagree_are_refused(tmp_path, change, match):
    path = craft(saved(scaled_pipeline(), tmp_path), change)
    refused(path, match)


def test_a_vocabulary_beyond_the_features_is_refused(tmp_path):
    docs = ["free prize now", "see you at lunch", "free cash now", "lunch at noon"]
    model = make_pipeline(CountVectorizer(), Perceptron(random_state=0)).fit(docs, [1, 0, 1, 0])
    path = saved(model, tmp_path)

    def change(tree, crafted):
        vocabulary = tree["params"]["steps"][0]["items"][1]["fitted"]["vocabulary_"]
        vocabulary["items"][0][1] = 10_000

    craft(path, change)
    refused(path, r"CountVectorizer.vocabulary_ must number its")


# ---------------------------------------------------------------------- calibrated models
def _calibrated(method):
    return calibrated(AveragedPerceptron(max_iter=5, random_state=0), method=method, cv=2).fit(
        X2, Y2
    )


def _first_map(tree):
    return tree["fitted"]["calibrators_"][0][0]


def _nan_slope(tree, crafted):
    a = next(item for item in _first_map(tree)["items"] if item[0] == "a")
    a[1] = {"$": "float", "value": "nan"}


def _reversed_breakpoints(tree, crafted):
    x = next(item for item in _first_map(tree)["items"] if item[0] == "x")
    crafted.put(x[1], crafted.array(x[1])[::-1])


def _no_folds(tree, crafted):
    tree["fitted"]["estimators_"] = []
    tree["fitted"]["calibrators_"] = []


@pytest.mark.parametrize(
    ("method", "change", "match"),
    [
        ("sigmoid", _nan_slope, r"calibrators_\[0\]\[0\]\['a'\] must be finite"),
        ("isotonic", _reversed_breakpoints, r"\['x'\] is not sorted in increasing order"),
        ("sigmoid", _no_folds, r"estimators_ must be a non-empty list"),
    ],
    ids=["NaN slope", "reversed breakpoints", "no folds"],
)
def test_calibrations_that_cannot_be_applied_are_refused(tmp_path, method, change, match):
    path = craft(saved(_calibrated(method), tmp_path), change)
    refused(path, match)


# ---------------------------------------------------------------------- one reader
def _foreign_fitted(tree, crafted):
    tree["fitted"]["n_iter_"] = {"$": "estimator", "class": "os.system", "params": {}, "fitted": {}}


def _unknown_param(tree, crafted):
    tree["params"]["steal"] = 1


def _dunder_fitted(tree, crafted):
    tree["fitted"]["__class__"] = 1


def _huge_float(tree, crafted):
    tree["fitted"]["intercept_scaling_"] = {"$": "float", "value": "1e999"}


def _object_node(tree, crafted):
    tree["fitted"]["n_iter_"] = {"$": "object", "class": "builtins.eval", "state": {}}


def _pickled_state_array(tree, crafted):
    node = tree["fitted"]["training_state_"]["arrays"]["counts"]
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    crafted.members[node["member"]] = buffer.getvalue()


def _foreign_state(tree, crafted):
    tree["fitted"]["training_state_"]["class"] = "rosenblatt.engine.primal.Batch"


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (_foreign_fitted, r"asks for class 'os.system'"),
        (_unknown_param, r"has no parameters \['steal'\]"),
        (_dunder_fitted, r"'__class__' is not a fitted attribute"),
        (_huge_float, r"damaged or crafted"),
        (_object_node, r"unknown node kind 'object'"),
        (_pickled_state_array, r"pickled object"),
        (_foreign_state, r"asks for class 'rosenblatt.engine.primal.Batch'"),
    ],
    ids=lambda value: getattr(value, "__name__", "match").strip("_"),
)
def test_the_predictor_refuses_every_file_load_refuses(tmp_path, change, match):
    path = craft(saved(Perceptron(max_iter=5, random_state=0).fit(X2, Y2), tmp_path), change)
    refused(path, match)


def test_manifest_and_state_must_name_the_same_class(tmp_path):
    path = saved(Perceptron(max_iter=5, random_state=0).fit(X2, Y2), tmp_path)

    def edit(manifest, members):
        manifest["class"] = "rosenblatt.AveragedPerceptron"

    forge(path, edit)
    refused(
        path,
        r"manifest names class 'rosenblatt.AveragedPerceptron' but the state holds a "
        r"rosenblatt.Perceptron",
    )


@pytest.mark.parametrize("stored", ["csc", "dia"])
def test_a_huge_sparse_matrix_stored_in_another_format_is_refused_cheaply(tmp_path, stored):
    model = KernelPerceptron(max_iter=3, random_state=0).fit(sp.csr_matrix(X2), Y2)
    path = saved(model, tmp_path)

    def change(tree, crafted):
        node = tree["fitted"]["support_vectors_"]
        node["format"] = stored
        node["shape"] = [1, 2**31 - 1]
        crafted.put(node["indptr"], np.array([0, 1]))
        crafted.put(node["indices"], np.array([5], dtype=np.int32))
        crafted.put(node["data"], np.array([1.0]))

    craft(path, change)
    refused(path, rf"stored as {stored} would take \d+ bytes, more than")


# ---------------------------------------------------------------------- the declarations
def test_every_class_a_file_may_hold_has_one_record_with_its_invariants():
    from rosenblatt.persistence.records import RECORDS, parameters_of

    estimators = [r for r in RECORDS if "state" not in r.roles]
    assert tuple(r.key for r in estimators) == REGISTRY
    assert all(r.check is not None and parameters_of(r.key) for r in estimators)


@pytest.mark.parametrize("key", REGISTRY)
def test_declared_parameters_are_the_installed_ones(key):
    from rosenblatt.persistence.records import parameters_of

    # the generated list (rosenblatt.persistence.records.write_parameters) is the signature's
    assert parameters_of(key) == set(inspect.signature(_resolve(key)).parameters)


def test_declared_fitted_attributes_cover_what_fit_sets():
    from rosenblatt.persistence.records import record_of

    docs = ["free prize now", "see you at lunch", "free cash now", "lunch at noon"] * 3
    labels = [1, 0, 1, 0] * 3
    from sklearn.compose import ColumnTransformer
    from sklearn.decomposition import PCA, TruncatedSVD
    from sklearn.feature_extraction.text import (
        HashingVectorizer,
        TfidfTransformer,
        TfidfVectorizer,
    )
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import FeatureUnion
    from sklearn.preprocessing import (
        MaxAbsScaler,
        MinMaxScaler,
        Normalizer,
        OneHotEncoder,
        PolynomialFeatures,
        RobustScaler,
    )

    from rosenblatt import CentroidClassifier, LinearProgramClassifier
    from rosenblatt.estimators.text import TfDfTransformer

    frame = pd.DataFrame({"colour": ["red", "blue"] * 20, "a": X2[:, 0], "b": X2[:, 1]})
    columns = ColumnTransformer(
        [("colour", OneHotEncoder(), ["colour"]), ("a", RobustScaler(), ["a"])],
        remainder="passthrough",  # fitted: a FunctionTransformer
    )
    union = FeatureUnion(
        [("pca", PCA(1)), ("svd", TruncatedSVD(1)), ("poly", PolynomialFeatures(2))]
    )

    models = [
        Perceptron(max_iter=5).fit(X3, Y3),
        AveragedPerceptron(max_iter=5).fit(X3, Y3),
        VotedPerceptron(max_iter=5).fit(X3, Y3),
        PassiveAggressive(max_iter=5, average=True).fit(X3, Y3),
        KernelPerceptron(max_iter=3).fit(X3, Y3),
        Projectron(max_iter=3).fit(X3, Y3),
        CentroidClassifier().fit(X3, Y3),
        LinearProgramClassifier().fit(X3, Y3),
        _calibrated("sigmoid"),
        calibrated(Perceptron(max_iter=3), method="online").fit(X3, Y3),
        make_pipeline(
            StandardScaler(), MinMaxScaler(), MaxAbsScaler(), Normalizer(), Perceptron()
        ).fit(X2, Y2),
        make_pipeline(CountVectorizer(), TfDfTransformer(), Perceptron()).fit(docs, labels),
        make_pipeline(TfidfVectorizer(), Perceptron()).fit(docs, labels),
        make_pipeline(HashingVectorizer(n_features=64), TfidfTransformer(), Perceptron()).fit(
            docs, labels
        ),
        make_pipeline(columns, Perceptron()).fit(frame, Y2),
        make_pipeline(SimpleImputer(), union, Perceptron()).fit(X2, Y2),
    ]

    def parts(model):  # the model and the estimators it holds, at any depth
        yield model
        held = [step for _, step in getattr(model, "steps", [])]
        held += [part for _, part, _ in getattr(model, "transformers_", [])]
        held += [part for _, part in getattr(model, "transformer_list", [])]
        for part in held:
            if not isinstance(part, str):
                yield from parts(part)

    seen = set()
    for model in models:
        for part in parts(model):
            key = next(k for k in REGISTRY if _resolve(k) is type(part))
            names = {name for name in vars(part) if _is_fitted_name(name)}
            names |= set(FITTED_PROPERTIES.get(key, ()))
            record = record_of(key)
            fitted = record.fitted_names | record.derived_names  # stored, or rebuilt on load
            assert names <= fitted, (key, names - fitted)
            assert not record.fitted_names & record.derived_names, key
            seen.add(key)
    assert seen == set(REGISTRY)


def test_a_broken_invariant_names_the_class_and_the_attribute():
    from rosenblatt._core.validation import BrokenInvariant
    from rosenblatt.persistence.invariants import Plain, check_model

    model = Plain("rosenblatt.LinearProgramClassifier", {}, {"coef_": np.ones(2)})
    with pytest.raises(BrokenInvariant, match=r"LinearProgramClassifier.classes_ is missing"):
        check_model(model)


# ---------------------------------------------------------------------- found by the fuzzer
def _kernel_fitted(name, node):
    def change(tree, crafted):
        tree["fitted"][name] = node

    return change


def _kernel_param(name, value):
    def change(tree, crafted):
        tree["params"][name] = value

    return change


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (_kernel_fitted("gamma_", None), r"gamma_ must be the finite float gamma"),
        (
            _kernel_fitted("gamma_", {"$": "scalar", "dtype": "|u1", "value": 0}),
            r"gamma_ must be the finite float gamma",
        ),
        (_kernel_param("degree", [3]), r"'degree' parameter of KernelPerceptron must be"),
        (
            _kernel_param("coef0", {"$": "float", "value": "inf"}),
            r"'coef0' parameter of KernelPerceptron must be",
        ),
        (
            _kernel_param("kernel", {"$": "dtype_type", "name": "<f8"}),
            r"kernel must name a kernel",
        ),
    ],
    ids=["gamma_ null", "gamma_ an int", "degree a list", "coef0 infinite", "kernel callable"],
)
def test_kernel_parameters_prediction_depends_on_are_checked(tmp_path, change, match):
    model = KernelPerceptron(kernel="poly", max_iter=3, random_state=0).fit(X2, Y2)
    refused(craft(saved(model, tmp_path), change), match)


def test_vote_rows_of_another_dtype_or_out_of_order_are_refused(tmp_path):
    model = VotedPerceptron(max_iter=5, random_state=0).fit(sp.csr_matrix(X2), Y2)
    as_int = craft(saved(model, tmp_path, "a.rbm"), _state_array("votes.patterns.data", np.int64))
    refused(as_int, r"rows of int64, not the model's float64")
    unsorted = craft(
        saved(model, tmp_path, "b.rbm"), _state_array("votes.patterns.indices", lambda i: i[::-1])
    )
    refused(unsorted, r"column indices are not sorted and unique")


def test_votes_adding_patterns_that_were_never_kept_are_refused(tmp_path):
    """The compiled vote indexes the kept patterns by each update's ``pattern``."""
    model = VotedPerceptron(max_iter=5, random_state=0).fit(X2, Y2)
    beyond = craft(
        saved(model, tmp_path, "a.rbm"), _state_array("votes.0.pattern", lambda p: p + 10**6)
    )
    refused(beyond, r"damaged or crafted.*patterns outside")
    negative = craft(
        saved(model, tmp_path, "b.rbm"), _state_array("votes.0.pattern", lambda p: -p - 1)
    )
    refused(negative, r"damaged or crafted.*patterns outside")


def test_votes_with_another_constant_input_than_the_model_are_refused(tmp_path):
    path = saved(VotedPerceptron(max_iter=5, random_state=0).fit(X2, Y2), tmp_path)

    def change(tree, crafted):
        tree["fitted"]["training_state_"]["meta"]["votes"]["bias_input"] = 2.0

    refused(craft(path, change), r"votes with another constant input")


def test_text_steps_in_the_wrong_order_are_refused(tmp_path):
    from rosenblatt.estimators.text import TfDfTransformer

    docs = ["free prize now", "see you at lunch", "free cash now", "lunch at noon"]
    model = make_pipeline(CountVectorizer(), TfDfTransformer(), Perceptron(random_state=0))
    path = saved(model.fit(docs, [1, 0, 1, 0]), tmp_path)

    def change(tree, crafted):
        steps = tree["params"]["steps"]
        steps[0], steps[1] = steps[1], steps[0]

    refused(craft(path, change), r"documents into features only in the first step")


def test_a_vocabulary_entry_that_is_not_a_column_is_refused_quietly(tmp_path, recwarn):
    docs = ["free prize now", "see you at lunch", "free cash now", "lunch at noon"]
    model = make_pipeline(CountVectorizer(), Perceptron(random_state=0)).fit(docs, [1, 0, 1, 0])

    def change(tree, crafted):
        vocabulary = tree["params"]["steps"][0]["items"][1]["fitted"]["vocabulary_"]
        vocabulary["items"][0][1] = tree["params"]["steps"][1]["items"][1]["fitted"]["classes_"]

    refused(craft(saved(model, tmp_path), change), r"vocabulary_ must be a non-empty dict")
    assert not [w for w in recwarn if "Sparse" in type(w.message).__name__]


def test_a_word_analyzer_without_a_token_pattern_is_refused(tmp_path):
    from rosenblatt.streaming import hashing_vectorizer

    docs = ["free prize now", "see you at lunch", "free cash now", "lunch at noon"]
    model = make_pipeline(hashing_vectorizer(2**8), Perceptron(random_state=0))
    path = saved(model.fit(docs, [1, 0, 1, 0]), tmp_path)

    def change(tree, crafted):
        tree["params"]["steps"][0]["items"][1]["params"]["token_pattern"] = None

    refused(craft(path, change), r"token_pattern must be a pattern when analyzer='word'")


def test_both_loaders_read_a_scaler_the_same_way(tmp_path):
    path = saved(scaled_pipeline(), tmp_path)

    def change(tree, crafted):  # a parameter left out: both use the class's default
        tree["params"]["steps"][0]["items"][1]["params"].pop("with_mean")

    craft(path, change)
    X = X2 + 3.0
    assert np.array_equal(load(path).predict(X), load_predictor(path).predict(X))
    assert np.array_equal(load(path).predict(X), scaled_pipeline().predict(X))

    def flag(tree, crafted):
        tree["params"]["steps"][0]["items"][1]["params"]["with_std"] = [True]

    refused(craft(path, flag), r"StandardScaler.with_std must be True or False")


def test_duplicated_feature_names_are_refused_and_names_are_checked_by_both(tmp_path):
    import pandas as pd

    frame = pd.DataFrame(X2, columns=["a", "b"])
    path = saved(Perceptron(max_iter=5, random_state=0).fit(frame, Y2), tmp_path)
    reordered = frame[["b", "a"]]
    for model in (load(path), load_predictor(path)):
        with pytest.raises(ValueError, match="feature names should match"):
            model.predict(reordered)
    twice = craft(
        path, _fitted_array("feature_names_in_", lambda names: np.array(["a", "a"], dtype=str))
    )
    refused(twice, r"feature_names_in_ holds a name twice")


@pytest.mark.parametrize(
    ("with_mean", "with_std"), [(True, True), (False, True), (True, False), (False, False)]
)
def test_scalers_with_parts_turned_off_save_and_load(tmp_path, with_mean, with_std):
    scaler = StandardScaler(with_mean=with_mean, with_std=with_std)
    model = make_pipeline(scaler, Perceptron(random_state=0)).fit(X2, Y2)
    path = saved(model, tmp_path)
    for loaded in (load(path), load_predictor(path)):
        assert np.array_equal(loaded.predict(X2), model.predict(X2))

    def no_scale(tree, crafted):  # the scale a fitted with_std=True scaler needs
        tree["params"]["steps"][0]["items"][1]["fitted"]["scale_"] = None

    if with_std:
        refused(craft(path, no_scale), r"StandardScaler.scale_ must be an array")
