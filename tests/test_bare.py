"""The linear learners without scikit-learn's base classes (issue 46): what `rosenblatt train`
fits without importing scikit-learn. Each public class is its learner with ClassifierMixin
and BaseEstimator added; the learner trains, predicts and saves exactly as the class does, and
loads back as the class."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning

import rosenblatt
from rosenblatt.estimators import _bare, _bare_steps
from rosenblatt.persistence import load, model_bytes
from rosenblatt.persistence.policy import key_of, params_of
from rosenblatt.persistence.records import RECORDS, key_of_bare

BARE = {r.key: r for r in RECORDS if r.bare is not None and r.bare[0] == _bare.__name__}

# (key, parameters) trained on both kinds of rows; every class, and what sets it apart
CASES = [
    ("rosenblatt.Perceptron", {}),
    ("rosenblatt.Perceptron", {"mode": "batch", "eta": 0.5}),
    ("rosenblatt.Perceptron", {"multi_class": "multinomial", "shuffle": "block"}),
    ("rosenblatt.AveragedPerceptron", {"class_weight": {0: 2.0, 1: 1.0, 2: 0.5}}),
    ("rosenblatt.VotedPerceptron", {"max_iter": 20}),
    ("rosenblatt.VotedPerceptron", {"multi_class": "multinomial", "max_iter": 20}),
    ("rosenblatt.PassiveAggressive", {"variant": "pa2", "C": 0.1, "average": True}),
    ("rosenblatt.Perceptron", {"early_stopping": True, "n_iter_no_change": 3}),
]


def _data(sparse):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(90, 4))
    y = np.digitize(X @ np.array([1.0, -2.0, 0.5, 1.0]) + 0.3 * rng.normal(size=90), [-1, 1])
    return (sp.csr_matrix(X) if sparse else X), y


def test_every_linear_learner_has_one_and_is_its_class_without_scikit_learns_bases():
    others = {r.key: r.bare for r in RECORDS if r.bare is not None and r.key not in BARE}
    assert others == {  # and the command line's scaled model: scikit-learn's two steps
        "sklearn.pipeline.Pipeline": (_bare_steps.__name__, "Pipeline"),
        "sklearn.preprocessing.StandardScaler": (_bare_steps.__name__, "StandardScaler"),
    }
    for key, (_, name) in others.items():
        assert key_of(getattr(_bare_steps, name)) == key
    assert sorted(BARE) == [
        "rosenblatt.AveragedPerceptron",
        "rosenblatt.PassiveAggressive",
        "rosenblatt.Perceptron",
        "rosenblatt.VotedPerceptron",
    ]
    for key, record in BARE.items():
        public, bare = record.load(), record.load_bare()
        assert bare is getattr(_bare, public.__name__) and bare.__name__ == public.__name__
        assert public.__mro__[1:3] == (bare, bare.__mro__[1])  # the learner, then its base
        assert issubclass(public, (BaseEstimator, ClassifierMixin))
        assert not issubclass(bare, (BaseEstimator, ClassifierMixin))
        assert key_of(bare) == key_of_bare(bare) == key_of(public) == key
        assert params_of(bare(random_state=3)) == public(random_state=3).get_params(deep=False)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("key, params", CASES, ids=[f"{k[11:]}{p}" for k, p in CASES])
def test_the_learner_fits_predicts_and_saves_as_its_class(key, params, sparse):
    X, y = _data(sparse)
    record = BARE[key]
    fitted = []
    for cls in (record.load(), record.load_bare()):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = cls(random_state=0, **params).fit(X, y)
        fitted.append((model, [(w.category, str(w.message)) for w in caught]))
    (public, public_warnings), (bare, bare_warnings) = fitted
    assert bare_warnings == public_warnings
    assert list(vars(bare)) == list(vars(public))  # the same attributes, set in the same order
    assert np.array_equal(bare.coef_, public.coef_) and bare.n_iter_ == public.n_iter_
    assert np.array_equal(bare.predict(X), public.predict(X))
    assert np.array_equal(bare.decision_function(X), public.decision_function(X))
    data = model_bytes(bare, metadata={"case": key})
    assert data == model_bytes(public, metadata={"case": key})  # the same model file


def test_a_saved_learner_loads_as_its_class(tmp_path):
    X, y = _data(False)
    bare = _bare.VotedPerceptron(random_state=0, max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        bare.fit(X, y)
    rosenblatt.save(bare, tmp_path / "v.rbl")
    loaded = load(tmp_path / "v.rbl")
    assert type(loaded) is rosenblatt.VotedPerceptron
    assert np.array_equal(loaded.predict(X), bare.predict(X))
    assert loaded.n_vectors_ == bare.n_vectors_ and clone(loaded).max_iter == 5


def test_the_learner_warns_as_its_class_does():
    X, y = _data(False)
    with pytest.warns(ConvergenceWarning, match=r"^Perceptron did not converge: the last of "):
        _bare.Perceptron(random_state=0, max_iter=2, tol=None).fit(X, y)


# trains, scores and saves each learner; prints the scikit-learn modules it loaded
WITHOUT_SKLEARN = """
import json, sys
import numpy as np
from rosenblatt.estimators import _bare, _bare_steps
from rosenblatt.persistence import model_bytes
X = np.array([[-1.0, -1], [1, -1], [-1, 1], [1, 1]])
y = np.array(["no", "yes", "yes", "yes"])
for name in _bare.__all__:
    model = getattr(_bare, name)(random_state=0).fit(X, y)
    assert (model.predict(X) == y).all(), name
    model_bytes(model)
    steps = [("scaler", _bare_steps.StandardScaler()), ("classifier", model)]
    model_bytes(_bare_steps.Pipeline(steps).fit(X, y))
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("sklearn", "pandas"))))
"""


def test_the_learners_train_and_save_without_importing_scikit_learn():
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_SKLEARN], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


# what `train` refuses, as it refuses it with the estimator: (file's rows, train's arguments)
REFUSED = {
    "one class": ("1,2,x\n3,4,x\n", {}),
    "eta": ("1,2,x\n3,4,y\n1,1,y\n", {"eta": 0}),
    "C": ("1,2,x\n3,4,y\n1,1,y\n", {"algorithm": "pa2", "options": {"C": -1.0}}),
    "early stopping": ("1,2,x\n3,4,y\n1,1,y\n", {"options": {"early_stopping": True}}),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_train_refuses_with_the_learner_as_with_the_estimator(tmp_path, case):
    from rosenblatt.apps.cli.train import train

    rows, arguments = REFUSED[case]
    path = tmp_path / "data.csv"
    path.write_text("a,b,label\n" + rows)
    refused = []
    for bare in (True, False):
        with pytest.raises(ValueError) as error:
            train(path, tmp_path / "m.rbl", scale=False, bare=bare, **arguments)
        refused.append((type(error.value), str(error.value)))
    assert refused[0] == refused[1]
    assert not (tmp_path / "m.rbl").exists()
    if case == "eta":
        assert refused[0][1] == (
            "The 'eta' parameter of Perceptron must be a float in the range (0, inf) (finite); "
            "got 0."
        )


def test_train_fits_the_learner_only_where_the_model_needs_nothing_of_scikit_learn(tmp_path):
    from rosenblatt.apps.cli.train import train

    path = tmp_path / "data.csv"
    path.write_text("a,b,label\n1,2,x\n3,4,y\n1,1,y\n-1,0,x\n")
    text = tmp_path / "messages.tsv"
    text.write_text("spam\twin cash now\nham\tsee you at noon\nspam\tcash prize\nham\tnoon\n")
    fitted = {
        name: type(train(data, tmp_path / f"{name}.rbl", bare=True, **arguments).model)
        for name, data, arguments in [
            ("alone", path, {"scale": False}),
            ("scaled", path, {"scale": True}),
            ("text", text, {"scale": False}),
            ("calibrated", path, {"scale": False, "calibrate": "online"}),
            ("kernel", path, {"scale": False, "algorithm": "kernel"}),
        ]
    }
    assert fitted["alone"] is _bare.Perceptron
    assert fitted["scaled"] is _bare_steps.Pipeline
    assert fitted["text"].__name__ == "Pipeline" and fitted["text"] is not _bare_steps.Pipeline
    assert type(rosenblatt.load(tmp_path / "text.rbl").steps[-1][1]) is rosenblatt.Perceptron
    assert fitted["calibrated"].__module__ != _bare.__name__
    assert fitted["kernel"] is rosenblatt.KernelPerceptron


# columns a scaler meets: ordinary, constant (its scale 1), shifted far from 0 (the
# corrected two-pass variance's case), tiny, huge, integers, negative zeros, one row
finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=64)


@st.composite
def scaler_columns(draw):
    n = draw(st.integers(1, 30))
    columns = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["any", "constant", "shifted", "tiny", "integers", "zeros"]))
        if kind == "any":
            column = draw(st.lists(finite, min_size=n, max_size=n))
        elif kind == "constant":
            column = [draw(finite)] * n
        elif kind == "shifted":
            base = draw(st.sampled_from([1e8, -3e9, 1e12]))
            column = [base + v for v in draw(st.lists(st.floats(-1, 1), min_size=n, max_size=n))]
        elif kind == "tiny":
            column = [v * 1e-300 for v in draw(st.lists(finite, min_size=n, max_size=n))]
        elif kind == "integers":
            column = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
        else:
            column = [draw(st.sampled_from([0.0, -0.0])) for _ in range(n)]
        columns.append(column)
    return np.array(columns, dtype=np.float64).T.copy()


@settings(max_examples=300, deadline=None)
@given(scaler_columns())
def test_the_scaler_stand_in_computes_scikit_learns_values_to_the_bit(X):
    from sklearn.preprocessing import StandardScaler

    ours, theirs = _bare_steps.StandardScaler().fit(X), StandardScaler().fit(X)
    assert list(vars(ours)) == list(vars(theirs))  # a model file lists them in this order
    for name, value in vars(theirs).items():
        mine = getattr(ours, name)
        assert type(mine) is type(value), name
        assert np.array_equal(mine, value) and np.array_equal(np.signbit(mine), np.signbit(value))
    out, expected = ours.transform(X), theirs.transform(X)
    assert np.array_equal(out, expected, equal_nan=True)
    assert np.array_equal(np.signbit(out), np.signbit(expected))


# (file's rows, train's arguments): scaled models the command line fits without scikit-learn
SCALED = {
    "perceptron": ("a,b,c,label\n1,2,0,x\n3,4,0,y\n1,1,0,y\n-1,0,0,x\n2,5,0,z\n", {}),
    "averaged": ("1,2,x\n3,4e9,y\n1,1,y\n-1,0,x\n", {"algorithm": "averaged", "seed": 3}),
    "voted": ("0.5,-2,1\n0.25,4,-1\n1,1,1\n-1,0,-1\n", {"algorithm": "voted", "epochs": 7}),
    "pa1": ("1,2,x\n3,4,y\n1,1,y\n-1,0,x\n", {"algorithm": "pa1", "options": {"C": 0.5}}),
}


@pytest.mark.parametrize("case", list(SCALED))
def test_train_scaled_without_scikit_learn_writes_scikit_learns_file(tmp_path, case):
    """The stand-ins for the scaler and the pipeline write the file scikit-learn's write, byte
    for byte (feature names from a header included), and it loads as scikit-learn's."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from rosenblatt.apps.cli.train import train
    from rosenblatt.data.io import read_data

    rows, arguments = SCALED[case]
    path = tmp_path / "data.csv"
    path.write_text(rows)
    fitted = {
        bare: train(path, tmp_path / f"{bare}.rbl", bare=bare, **arguments).model
        for bare in (True, False)
    }
    assert type(fitted[True]) is _bare_steps.Pipeline and type(fitted[False]) is Pipeline
    assert (tmp_path / "True.rbl").read_bytes() == (tmp_path / "False.rbl").read_bytes()
    loaded = load(tmp_path / "True.rbl")
    assert type(loaded) is Pipeline and type(loaded.steps[0][1]) is StandardScaler
    X = read_data(path).X
    with warnings.catch_warnings():  # named features, given an array
        warnings.filterwarnings("ignore", message="X does not have valid feature names")
        assert np.array_equal(loaded.predict(X), fitted[True].predict(X))
        scores = [model.decision_function(X) for model in (fitted[True], fitted[False], loaded)]
    assert np.array_equal(scores[0], scores[1]) and np.array_equal(scores[0], scores[2])
