"""Numbers at the edges of the float range: every answer true, or refused naming the fix.

One rule, in the engine (:mod:`rosenblatt.engine.overflow`): a score, a weight or a bound that
becomes inf or NaN stops the run with a :class:`~rosenblatt.exceptions.NumericOverflowError`
naming the learning rate and the features' scale, whichever path trains (fit, partial_fit,
fit_batches, the trace, the playground, the command line). Tiny numbers (1e-308) are no
overflow: they train as the float arithmetic says. The theory solves and measures points of
any scale (divided by a power of two first), and refuses a result beyond the range.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import assert_one_line_error, run_cli
from sklearn.exceptions import ConvergenceWarning

from rosenblatt import (
    AveragedPerceptron,
    CentroidClassifier,
    KernelPerceptron,
    Perceptron,
    Projectron,
    VotedPerceptron,
    theory,
    trace,
)
from rosenblatt._core.json_input import MAX_DEPTH, JSONInputError, loads
from rosenblatt.exceptions import NumericOverflowError

OR_X = np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]])
OR_Y = np.array([-1, 1, 1, 1])
THREE = np.array([[0.0, 1.0], [1.0, 0.0], [-1.0, -1.0], [0.5, 0.5], [-0.5, 1.0], [1.0, -0.5]])
THREE_Y = np.array([0, 1, 2, 0, 0, 1])

LEARNERS = [
    Perceptron(shuffle=False),
    Perceptron(mode="batch", shuffle=False),
    AveragedPerceptron(shuffle=False),
    VotedPerceptron(shuffle=False),
    KernelPerceptron(kernel="linear", shuffle=False),
    Projectron(kernel="linear", shuffle=False),
]
MULTICLASS = [
    Perceptron(shuffle=False),
    Perceptron(multi_class="multinomial", shuffle=False),
    AveragedPerceptron(multi_class="multinomial", shuffle=False),
]


def _name(estimator):
    return repr(estimator)


# ---------------------------------------------------------------------- training refuses
@pytest.mark.parametrize("estimator", LEARNERS, ids=_name)
@pytest.mark.parametrize(
    "eta, scale",
    [(1e308, 1.0), (1.0, 1e308), (1e-308, 1e308), (1.0, 1e200)],
    ids=["eta 1e308", "x 1e308", "mixed", "x 1e200"],
)
def test_fit_that_overflows_is_refused_naming_the_fix(estimator, eta, scale):
    estimator = estimator.set_params(eta=eta)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy RuntimeWarning on the way
        with pytest.raises(NumericOverflowError, match="training overflowed") as error:
            estimator.fit(OR_X * scale, OR_Y)
    message = str(error.value)
    assert "inf or NaN" in message and f"eta (now {eta:g})" in message
    assert "smaller scale" in message


@pytest.mark.parametrize("estimator", MULTICLASS, ids=_name)
def test_multiclass_overflow_is_refused(estimator):
    with pytest.raises(NumericOverflowError, match="training overflowed"):
        estimator.set_params(eta=1e308).fit(THREE, THREE_Y)


def test_overflow_is_refused_for_sparse_and_float32_rows_and_partial_fit():
    with pytest.raises(NumericOverflowError):
        Perceptron(shuffle=False).fit(sp.csr_matrix(OR_X * 1e308), OR_Y)
    with pytest.raises(NumericOverflowError):  # float32 overflows at 3.4e38
        Perceptron(shuffle=False).fit((OR_X * 1e30).astype(np.float32), OR_Y)
    learner = Perceptron(shuffle=False).partial_fit(OR_X, OR_Y, classes=[-1, 1])
    with pytest.raises(NumericOverflowError):
        learner.partial_fit(OR_X * 1e308, OR_Y)


def test_a_weight_no_later_score_reads_is_refused_when_the_run_ends():
    # one sparse row whose update overflows a weight no other row reads: no score ever is
    # inf, but the model would hold one, so the run's end refuses it
    X = sp.csr_matrix(np.array([[1e308, 0.0], [0.0, 1.0]]))
    with pytest.raises(NumericOverflowError, match="the weights became inf or NaN"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # refused before the ConvergenceWarning
            Perceptron(shuffle=False, eta=10.0, max_iter=1, tol=None).fit(X, [1, -1])


def test_averaging_sums_that_overflow_are_refused_before_any_warning():
    # one point with both labels: the weights swing between 0 and 1e307 (scores of 1e306),
    # while the averaging sums (steps times presentation counts) grow past the float range
    learner = AveragedPerceptron(
        eta=1e308, fit_intercept=False, shuffle=False, max_iter=100, tol=None
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the refusal comes first: no ConvergenceWarning
        with pytest.raises(NumericOverflowError, match="the averaging sums became inf"):
            learner.fit(np.array([[0.1], [0.1]]), [1, -1])


def test_tiny_numbers_are_no_overflow_and_train_exactly():
    # 1e-308 is a normal float: the run is the float arithmetic's, no refusal
    clf = Perceptron(shuffle=False, eta=1e-308, tol=None).fit(OR_X, OR_Y)
    assert clf.converged_ and np.all(np.isfinite(clf.coef_))
    assert clf.coef_.tolist() == [[1e-308, 1e-308]] and clf.predict(OR_X).tolist() == [-1, 1, 1, 1]
    # points of 1e-300: the weights are 1e-300, their scores 1e-600 round to 0, and a zero
    # score is a mistake: the run is honest about it (a warning, finite weights)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        tiny = Perceptron(shuffle=False, tol=None, max_iter=5).fit(OR_X * 1e-300, OR_Y)
    assert not tiny.converged_ and np.all(np.isfinite(tiny.coef_))


def test_the_trace_refuses_instead_of_calling_inf_converged():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(NumericOverflowError, match=r"eta \(now 1e\+308\)"):
            trace(OR_X, OR_Y, eta=1e308)
    assert trace(OR_X, OR_Y, eta=1e-308).converged


# ---------------------------------------------------------------------- prediction refuses
@pytest.mark.parametrize(
    "estimator",
    [
        Perceptron(shuffle=False),
        AveragedPerceptron(shuffle=False),
        VotedPerceptron(shuffle=False),
        VotedPerceptron(shuffle=False, multi_class="multinomial"),
        KernelPerceptron(kernel="linear", shuffle=False),
        KernelPerceptron(kernel="linear", shuffle=False, prediction="voted"),
        CentroidClassifier(),
    ],
    ids=_name,
)
def test_scores_beyond_the_float_range_are_refused_at_prediction(estimator):
    estimator.fit(OR_X, OR_Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(NumericOverflowError, match="scoring overflowed"):
            estimator.predict(OR_X * 1e308)
    assert estimator.predict(OR_X).tolist() == OR_Y.tolist()


def test_the_centroid_method_refuses_features_whose_squares_overflow():
    with pytest.raises(NumericOverflowError, match="centroid method squares the features"):
        CentroidClassifier().fit(OR_X * 1e200, OR_Y)


# ---------------------------------------------------------------------- the theory
@pytest.mark.parametrize("scale", [2.0**-700, 1e-200, 1e-10, 1e10, 1e200, 2.0**700])
def test_the_theory_gives_the_same_answers_at_any_scale(scale):
    X = OR_X * scale
    lp = theory.is_linearly_separable(X, OR_Y)
    assert lp.separable and np.all(OR_Y * (X @ lp.coef + lp.intercept) > 0)
    xor = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]) * scale
    assert not theory.is_linearly_separable(xor, [0, 1, 1, 0])
    result = theory.max_margin(X, OR_Y)
    assert result.margin == pytest.approx(np.sqrt(0.5) * scale, rel=1e-6)
    assert theory.radius(X) == pytest.approx(np.sqrt(2) * scale, rel=1e-12)
    # (R / gamma)^2 does not depend on the scale: R = sqrt(2) gamma through the origin
    assert theory.mistake_bound(X, [1, 1, -1, -1], fit_intercept=False) == 2.0


def test_ordinary_points_are_solved_exactly_as_before():
    # no rescaling between 2**-20 and 2**20: the notes' numbers stay the notes'
    bounds = theory.mistake_bounds(OR_X, OR_Y)
    assert (bounds.novikoff, bounds.beta, bounds.notes, bounds.unit_norm) == (9.0, 12.0, 36.0, 9.0)


def test_a_radius_beyond_the_float_range_is_refused():
    X = np.array([[1.5e308, 1.5e308]])  # ||x|| = 2.1e308: no float holds it
    with pytest.raises(NumericOverflowError, match="the radius R"):
        theory.radius(X)
    assert theory.radius(np.array([[1e308, 0.0]])) == 1e308


# ---------------------------------------------------------------------- labels, one rule
@pytest.mark.parametrize("label", [2**53, -(2**53), 2**63 - 1])
def test_an_integer_label_beyond_2_53_is_refused_as_a_file_s_label_is(label, tmp_path):
    with pytest.raises(ValueError, match=r"too large for a class label \(below 2\*\*53"):
        Perceptron().fit(OR_X, [0, label, 0, label])
    path = tmp_path / "labels.csv"
    path.write_text(
        "a,b,y\n" + "".join(f"{x[0]},{x[1]},{y}\n" for x, y in zip(OR_X, [0, label] * 2))
    )
    result = run_cli("train", path, "-m", tmp_path / "m.rbl", "-q")
    assert_one_line_error(result, "too large for a class label (below 2**53")
    assert Perceptron().fit(OR_X, [0, 2**53 - 1, 0, 2**53 - 1]).classes_[1] == 2**53 - 1


# ---------------------------------------------------------------------- the command line
def _csv(path, X, y):
    path.write_text("x1,x2,y\n" + "".join(f"{a!r},{b!r},{t}\n" for (a, b), t in zip(X.tolist(), y)))
    return path


def test_cli_train_and_trace_refuse_an_overflowing_eta_naming_the_option(tmp_path):
    data = _csv(tmp_path / "or.csv", OR_X, OR_Y)
    for command in (["train", data, "-m", tmp_path / "m.rbl", "-q"], ["trace", data]):
        result = run_cli(*command, "--eta", "1e308")
        assert_one_line_error(result, "training overflowed", "--eta (now 1e+308)")
    assert not (tmp_path / "m.rbl").exists()


def test_cli_refuses_features_whose_squares_overflow_before_scaling(tmp_path):
    data = _csv(tmp_path / "big.csv", OR_X * 1e308, OR_Y)
    result = run_cli("train", data, "-m", tmp_path / "m.rbl", "-q")
    assert_one_line_error(result, "Standardising (StandardScaler) squares the features")
    result = run_cli("train", data, "-m", tmp_path / "m.rbl", "-q", "--no-scale")
    assert_one_line_error(result, "training overflowed", "the largest |x| is 1e+308")


def test_cli_predict_refuses_rows_whose_scores_overflow(tmp_path):
    model = tmp_path / "m.rbl"
    assert run_cli("train", _csv(tmp_path / "or.csv", OR_X, OR_Y), "-m", model, "-q").exit_code == 0
    result = run_cli("predict", "-m", model, _csv(tmp_path / "big.csv", OR_X * 1e308, OR_Y))
    assert result.exit_code == 2 and "scoring overflowed" in result.stderr
    assert "Traceback" not in result.output


# ---------------------------------------------------------------------- the playground
@pytest.fixture(scope="module")
def playground():
    from rosenblatt.apps.playground.server import serve_in_thread

    server, url = serve_in_thread()
    yield url
    server.shutdown()
    server.server_close()


def _post(url, body):
    request = urllib.request.Request(
        url + "api/run", data=body, headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            status, raw = reply.status, reply.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()

    def no_constant(name):
        raise AssertionError(f"the answer holds {name}, which is no JSON")

    return status, json.loads(raw, parse_constant=no_constant)  # strict JSON, every time


def _run(points, **settings):
    return json.dumps({"points": points, "labels": OR_Y.tolist(), **settings}).encode()


@pytest.mark.parametrize(
    "body, fragment",
    [
        (_run(OR_X.tolist(), eta=1e308), "training overflowed"),
        (_run(OR_X.tolist(), eta=1e308, algorithm="averaged"), "training overflowed"),
        (_run(OR_X.tolist(), eta=1e308, algorithm="kernel"), "training overflowed"),
        (_run((OR_X * 1e308).tolist()), "training overflowed"),
        (_run(OR_X.tolist(), eta=1e308, compare=["perceptron", "voted"]), "overflowed"),
        (b'{"points": [[1e400, 1]], "labels": [1]}', "beyond the float range"),
        (b'{"points": [[1' + b"0" * 400 + b', 1]], "labels": [1]}', "beyond the float range"),
        (b'{"points": [[1, 1]], "labels": [1], "eta": Infinity}', "Infinity is not a JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nested 100000 deep"),
        (b'{"a": ' * 40 + b"1" + b"}" * 40, f"at most {MAX_DEPTH} levels"),
    ],
    ids=[
        "eta",
        "eta averaged",
        "eta kernel",
        "points",
        "compare",
        "1e400",
        "10**400",
        "Infinity",
        "deep",
        "deep objects",
    ],
)
def test_the_playground_refuses_with_400_and_valid_json(playground, body, fragment):
    status, answer = _post(playground, body)
    assert status == 400 and fragment in answer["error"], answer


def test_the_playground_runs_tiny_numbers_and_answers_valid_json(playground):
    status, answer = _post(playground, _run((OR_X * 1e-300).tolist(), epochs=5))
    assert status == 200 and answer["epoch_ends"][-1] == 20  # scores round to 0: no convergence
    # the bound's QP cannot solve (x, -1) at 1e-300: the run is shown, the bound says why not
    theory = answer["theory"]
    assert theory["separable"] and theory["bound"] is None and "QP" in theory["bound_error"]


def test_the_json_reader_keeps_strings_with_brackets_and_refuses_bad_text():
    assert loads(b'{"name": "[[[[", "x": [1]}') == {"name": "[[[[", "x": [1]}
    with pytest.raises(JSONInputError, match="not JSON"):
        loads(b'{"x": ')
    with pytest.raises(JSONInputError, match="not UTF-8"):
        loads(b'{"x": "\xff"}')


@pytest.mark.parametrize("number", ["1.8e308", "1E+0400", "-2e308", "0.1e310", "9" * 309 + ".5"])
def test_the_json_reader_refuses_every_float_beyond_the_range_whichever_way_it_is_written(
    number,
):
    with pytest.raises(JSONInputError, match="is beyond the float range"):
        loads(f'{{"rows": [[{number}]]}}'.encode())


def test_the_json_reader_reads_floats_as_python_does_with_or_without_a_huge_one_near():
    """Bodies without a number near the range's end are read by json's own C parser: the
    same values as the checked reading, to the bit."""
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.normal(size=300), 10.0 ** rng.uniform(-300, 300, size=300)])
    text = json.dumps(values.tolist())
    fast = loads(text.encode())
    checked = loads(f'{{"x": {text}, "pad": "e100"}}'.encode())["x"]  # "e100": checked path
    assert np.array_equal(fast, values) and np.array_equal(checked, values)
    assert loads(b"[1e308, 1e-400, 10e99]") == [1e308, 0.0, 1e100]
    nested = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH  # the bound itself, counted quickly
    assert loads(nested) is not None and loads(b'["[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["]')
