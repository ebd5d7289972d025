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
