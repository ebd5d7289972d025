"""One validation language and one random-state path (issue 24).

``fit_stream`` draws its chunk orders through the engine's ``random_source``, as
``fit`` does; ``ParameterMixing`` declares ``_parameter_constraints`` like the
estimators; the command line's option errors come from the estimator's own check.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from typer.testing import CliRunner

from rosenblatt import Perceptron
from rosenblatt._core.validation import NONE, Options, check_args, check_option
from rosenblatt.apps.cli import app
from rosenblatt.distributed import ParameterMixing
from rosenblatt.streaming import chunk_orders, fit_stream


@pytest.fixture
def svm_file(tmp_path):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 3)).round(3)
    y = np.where(X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=60) > 0, 1, -1)
    lines = [f"{t} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate(row)) for row, t in zip(X, y)]
    path = tmp_path / "data.svm"
    path.write_text("\n".join(lines) + "\n")
    return path


def _stream(path, random_state):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # noisy labels: 3 epochs
        return fit_stream(Perceptron(random_state=random_state), path, chunk_size=7, epochs=3)


# ---------------------------------------------------------------------- fit_stream
def test_fit_stream_takes_a_generator_as_fit_does(svm_file):
    first = _stream(svm_file, np.random.default_rng(0))
    again = _stream(svm_file, np.random.default_rng(0))
    assert first.n_iter_ == 3 and np.array_equal(first.coef_, again.coef_)
    orders = list(chunk_orders(5, 2, np.random.default_rng(1)))
    assert [sorted(o.tolist()) for o in orders] == [[0, 1, 2, 3, 4]] * 2


def test_fit_stream_seeds_as_before(svm_file):
    """An int seed trains the model it did before the change (pinned); a RandomState,
    shared by the chunk orders and the rows' shuffles, and None train too."""
    seeded = _stream(svm_file, 3)
    np.testing.assert_array_equal(seeded.coef_, [[3.4810000000000008, -5.037, -0.9200000000000006]])
    assert seeded.intercept_.tolist() == [1.0] and seeded.mistakes_per_epoch_ == [14, 8, 7]
    state = _stream(svm_file, np.random.RandomState(3))
    np.testing.assert_array_equal(state.coef_, _stream(svm_file, np.random.RandomState(3)).coef_)
    assert _stream(svm_file, None).n_iter_ == 3


# ---------------------------------------------------------------------- ParameterMixing
def test_parameter_mixing_declares_its_constraints_as_the_estimators_do():
    assert set(ParameterMixing._parameter_constraints) == {"max_rounds", "mixing"}
    assert not hasattr(ParameterMixing, "_constraints")
    for params, fragment in (
        ({"mixing": "median"}, "'mixing' parameter of ParameterMixing must be one of"),
        ({"max_rounds": 0}, "'max_rounds' parameter of ParameterMixing must be an int"),
    ):
        with pytest.raises(ValueError, match=fragment):
            ParameterMixing(Perceptron(), **params).fit(None)  # before the data are looked at


# ---------------------------------------------------------------------- the command line
@pytest.mark.parametrize(
    "args, line",
    [
        (["--eta", "0"], "error: --eta must be positive; got 0.0"),
        (["--max-iter", "0"], "error: --max-iter must be at least 1; got 0"),
        (["--tol", "-1"], "error: --tol must be none or at least 0; got -1.0"),
        (["--intercept-scaling", "0"], "--intercept-scaling must be a finite non-zero number"),
        (["--algorithm", "kernel", "--gamma", "-1"], "--gamma must be none or one of"),
        (["--algorithm", "kernel", "--degree", "-1"], "--degree must be at least 0; got -1"),
        (["--multi-class", "both"], "--multi-class must be one of 'ovr', 'multinomial'"),
        (["--stream", "--eta", "0"], "error: --eta must be positive; got 0.0"),
        (["--stream", "--max-iter", "0"], "error: --max-iter must be at least 1; got 0"),
    ],
)
def test_an_option_the_estimator_refuses_is_one_line_before_the_data_are_read(tmp_path, args, line):
    data = tmp_path / "bad.svm"
    data.write_text("1 1:1\n-1 1:x\n")  # reading it would fail on line 2
    result = CliRunner().invoke(
        app, ["train", str(data), "--model", str(tmp_path / "m.rbm"), *args]
    )
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and line in lines[0], result.stderr
    assert "line 2" not in lines[0] and not (tmp_path / "m.rbm").exists()


# ---------------------------------------------------------------------- one rule for a chunk size
@pytest.mark.parametrize(
    "command",
    [
        ["train", "--model", "m.rbm", "--stream"],
        ["predict", "-m", "m.rbm"],
        ["evaluate", "-m", "m.rbm"],
    ],
)
def test_every_chunk_size_option_keeps_the_readers_rule_in_one_line(tmp_path, command):
    """``--chunk-size`` is checked by ``CHUNK_SIZE``, the rule the readers keep, before
    anything is read: the same line from every command (not typer's own range error)."""
    data = tmp_path / "bad.svm"
    data.write_text("1 1:1\n-1 1:x\n")
    name, *options = command
    args = [name, str(data), *(str(tmp_path / o) if o == "m.rbm" else o for o in options)]
    for size in ("0", "-5"):
        result = CliRunner().invoke(app, [*args, "--chunk-size", size])
        assert result.exit_code == 2, result.output
        assert result.stderr.strip() == f"error: --chunk-size must be at least 1; got {size}"


def test_the_readers_refuse_a_chunk_size_by_the_same_rule():
    from rosenblatt._core.validation import CHUNK_SIZE
    from rosenblatt.data.readers import check_options

    with pytest.raises(ValueError) as caught:
        check_args("scan", {"chunk_size": [CHUNK_SIZE, NONE]}, {"chunk_size": 0})
    with pytest.raises(ValueError) as reader:
        check_options("csv", "d.csv", 0, "auto", "auto", None, None, "scan")
    assert str(reader.value) == str(caught.value)


# ---------------------------------------------------------------------- the language itself
def test_options_match_values_of_their_own_kind_only():
    signs, switch = Options((1, -1)), Options((True, False, "auto"))
    assert signs.accepts(1) and signs.accepts(-1.0) and signs.accepts(np.int64(1))
    assert not signs.accepts(True) and not signs.accepts(0.5) and not signs.accepts("1")
    assert switch.accepts(np.True_) and switch.accepts("auto")
    assert not switch.accepts(1) and not switch.accepts(0.0) and not switch.accepts(None)
    assert str(signs) == "one of 1, -1"


def test_the_command_line_words_a_parameters_refusal_as_check_option_words_its_own():
    """An estimator's refusal is in Python's words; the command line's boundary words the same
    refusal with the option that set the parameter, as ``check_option`` words the options
    a command checks itself."""
    from rosenblatt.apps.cli._words import describe

    with pytest.raises(ValueError) as own:
        check_option("--eta", Perceptron._parameter_constraints["eta"], 0.0)
    with pytest.raises(ValueError) as estimator:
        Perceptron(eta=0.0).fit([[0.0], [1.0]], [0, 1])
    assert str(estimator.value).startswith("The 'eta' parameter of Perceptron must be")
    assert str(own.value) == describe(estimator.value) == "--eta must be positive; got 0.0"


def test_a_field_keeps_its_own_name():
    constraints = {"eta": Perceptron._parameter_constraints["eta"]}
    with pytest.raises(ValueError, match="^The 'eta' setting of a request"):
        check_args("a request", constraints, {"eta": 0}, "setting")


# ---------------------------------------------------------------------- input taken as it is
# (issue 46) `validate` takes the readers' arrays without scikit-learn's validate_data, to the
# same effect: each case runs both on copies of one estimator and compares what they return
# (the same objects), what they leave on the estimator, what they warn and what they raise.
def _dense(order="C", dtype=np.float64):
    return np.asarray(np.arange(12.0).reshape(4, 3) - 5, dtype=dtype, order=order)


def _csr(fmt="csr"):
    import scipy.sparse as sp

    return sp.random(4, 3, density=0.5, format=fmt, random_state=0)


_ESTIMATOR = {"accept_sparse": "csr", "dtype": [np.float64, np.float32], "order": "C"}
_Y = np.array([0, 1, 1, 0])
VALIDATE_CASES = {
    # the readers' arrays, taken as they are
    "dense": (_dense(), _Y, _ESTIMATOR, {}),
    "dense, predicting": (_dense(), "no_validation", {**_ESTIMATOR, "reset": False}, "fitted"),
    "dense, string labels": (_dense(), np.array(["a", "b", "b", "a"]), _ESTIMATOR, {}),
    "dense, whole float labels": (_dense(), np.array([0.0, 2, 2, 0]), _ESTIMATOR, {}),
    "csr": (_csr(), _Y, _ESTIMATOR, {}),
    "refit drops the feature names": (_dense(), _Y, _ESTIMATOR, "named"),
    "named model, rows without names": (
        _dense(),
        "no_validation",
        {**_ESTIMATOR, "reset": False},
        "named",
    ),
    "float64 alone": (_dense(), _Y, {"accept_sparse": "csr", "dtype": np.float64}, {}),
    "F-ordered, no order asked": (_dense("F"), "no_validation", {"accept_sparse": "csr"}, {}),
    # everything else goes to validate_data
    "F-ordered, C asked": (_dense("F"), _Y, _ESTIMATOR, {}),
    "float32": (_dense(dtype=np.float32), _Y, _ESTIMATOR, {}),
    "integers": (_dense(dtype=np.int64), _Y, _ESTIMATOR, {}),
    "csc": (_csr("csc"), _Y, _ESTIMATOR, {}),
    "a list": (_dense().tolist(), _Y, _ESTIMATOR, {}),
    "nan": (np.where(_dense() > 0, np.nan, _dense()), _Y, _ESTIMATOR, {}),
    "nan labels": (_dense(), np.array([0.0, np.nan, 1, 0]), _ESTIMATOR, {}),
    "a column of labels": (_dense(), _Y[:, None], _ESTIMATOR, {}),
    "too few labels": (_dense(), _Y[:3], _ESTIMATOR, {}),
    "no rows": (np.zeros((0, 3)), np.zeros(0), _ESTIMATOR, {}),
    "other features": (_dense()[:, :2], "no_validation", {**_ESTIMATOR, "reset": False}, "fitted"),
    "a label matrix": (_dense(), np.eye(4, 2, dtype=int), {**_ESTIMATOR, "multi_output": True}, {}),
}
TAKEN_AS_IS = list(VALIDATE_CASES)[:9]


def _validated(check, case):
    X, y, options, state = VALIDATE_CASES[case]
    estimator = Perceptron()
    if state in ("fitted", "named"):
        estimator.n_features_in_ = 3
    if state == "named":
        estimator.feature_names_in_ = np.array(["a", "b", "c"], dtype=object)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = check(estimator, X, y, **options)
        except Exception as exc:  # what each raises is compared below
            out = exc
    left = {name: value for name, value in vars(estimator).items() if name.endswith("_")}
    return X, out, left, [(w.category, str(w.message)) for w in caught]


def _same(a, b):
    if isinstance(a, Exception):
        return type(a) is type(b) and str(a) == str(b)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and all(_same(u, v) for u, v in zip(a, b))
    if hasattr(a, "toarray"):
        a, b = a.toarray(), b.toarray()
    return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)


@pytest.mark.parametrize("case", list(VALIDATE_CASES))
def test_validate_does_what_validate_data_does(case):
    from sklearn.utils.validation import validate_data

    from rosenblatt._core.validation import validate

    X, ours, our_state, our_warnings = _validated(validate, case)
    _, theirs, their_state, their_warnings = _validated(validate_data, case)
    assert _same(ours, theirs), (ours, theirs)
    first = ours[0] if isinstance(ours, tuple) else ours
    their_first = theirs[0] if isinstance(theirs, tuple) else theirs
    assert (first is X) == (their_first is X)  # a copy where scikit-learn copies, else X
    assert our_state.keys() == their_state.keys()
    assert all(np.array_equal(our_state[k], their_state[k]) for k in our_state)
    assert our_warnings == their_warnings


@pytest.mark.parametrize("case", TAKEN_AS_IS)
def test_the_readers_arrays_never_reach_validate_data(case, monkeypatch):
    import sklearn.utils.validation

    from rosenblatt._core.validation import validate

    def refuse(*args, **kwargs):
        raise AssertionError("validate_data was called")

    monkeypatch.setattr(sklearn.utils.validation, "validate_data", refuse)
    X, out, _, _ = _validated(validate, case)
    assert (out[0] if isinstance(out, tuple) else out) is X


def test_a_learner_without_scikit_learns_base_classes_takes_only_the_readers_input():
    from rosenblatt.estimators import _bare

    X = np.array([[0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    with pytest.raises(TypeError) as refused:
        _bare.Perceptron().fit(X, [0, 1])
    assert str(refused.value) == (
        "rosenblatt.estimators._bare.Perceptron takes the readers' input (float64 rows of "
        "finite numbers, 1-D labels); use the estimator for any other."
    )
    assert _bare.Perceptron().fit(X.astype(np.float64), np.array([0, 1])).n_iter_ == 2
