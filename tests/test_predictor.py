"""Predicting with a saved linear model: numpy alone, exactly the estimator's answers."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris, make_classification
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, StandardScaler

from rosenblatt import (
    AveragedPerceptron,
    CentroidClassifier,
    KernelPerceptron,
    LinearProgramClassifier,
    Perceptron,
    VotedPerceptron,
    load,
    save,
)
from rosenblatt.engine.numpy_decision import LinearPredictor
from rosenblatt.persistence import load_predictor

X3, Y3 = load_iris(return_X_y=True)
X2, Y2 = make_classification(80, 5, random_state=0)

LINEAR = {
    "perceptron": lambda: Perceptron(random_state=0, max_iter=20),
    "averaged float32": lambda: AveragedPerceptron(random_state=0, max_iter=20),
    "multinomial": lambda: Perceptron(multi_class="multinomial", random_state=0, max_iter=20),
    "centroid": CentroidClassifier,
    "lp": LinearProgramClassifier,
    "scaled": lambda: make_pipeline(StandardScaler(), Perceptron(random_state=0, max_iter=20)),
    "scaled without mean": lambda: make_pipeline(
        StandardScaler(with_mean=False), AveragedPerceptron(random_state=0, max_iter=20)
    ),
}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", sorted(LINEAR))
@pytest.mark.parametrize("X, y", [(X3, Y3), (X2, np.where(Y2 == 1, "spam", "ham"))])
def test_linear_models_predict_exactly_as_loaded(name, X, y, tmp_path):
    data = X.astype(np.float32) if "float32" in name else X
    model = LINEAR[name]().fit(data, y)
    save(model, tmp_path / "m.rbm")
    predictor = load_predictor(tmp_path / "m.rbm")
    assert isinstance(predictor, LinearPredictor)
    full = load(tmp_path / "m.rbm")
    np.testing.assert_array_equal(predictor.decision_function(X), full.decision_function(X))
    np.testing.assert_array_equal(predictor.predict(X), full.predict(X))
    assert predictor.n_features_in_ == X.shape[1]


def test_feature_names_come_with_the_predictor(tmp_path):
    frame = pd.DataFrame(X2, columns=list("abcde"))
    save(Perceptron(random_state=0).fit(frame, Y2), tmp_path / "m.rbm")
    assert load_predictor(tmp_path / "m.rbm").feature_names_in_.tolist() == list("abcde")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    "model",
    [
        VotedPerceptron(max_iter=5),
        KernelPerceptron(max_iter=5),
        make_pipeline(MaxAbsScaler(), Perceptron(max_iter=5)),
    ],
)
def test_other_models_load_whole(model, tmp_path):
    model.fit(X2, Y2)
    save(model, tmp_path / "m.rbm")
    loaded = load_predictor(tmp_path / "m.rbm")
    assert not isinstance(loaded, LinearPredictor)
    np.testing.assert_array_equal(loaded.predict(X2), model.predict(X2))


def test_wrong_width_is_refused_like_the_estimator(tmp_path):
    save(Perceptron().fit(X3, Y3), tmp_path / "m.rbm")
    with pytest.raises(ValueError, match="X has 3 features, but Perceptron is expecting 4"):
        load_predictor(tmp_path / "m.rbm").predict(X3[:, :3])


def test_sparse_rows_score_like_dense_ones(tmp_path):
    save(Perceptron(random_state=0).fit(X2, Y2), tmp_path / "m.rbm")
    predictor = load_predictor(tmp_path / "m.rbm")
    np.testing.assert_allclose(
        predictor.decision_function(sp.csr_matrix(X2)), predictor.decision_function(X2)
    )


def test_cli_predict_imports_neither_sklearn_nor_scipy_nor_numba(tmp_path):
    data = tmp_path / "iris.csv"
    data.write_text(
        "a,b,c,d,label\n" + "".join(",".join(map(str, r)) + f",{t}\n" for r, t in zip(X3, Y3))
    )
    save(make_pipeline(StandardScaler(), Perceptron(random_state=0)).fit(X3, Y3), tmp_path / "m")
    script = (
        "import sys\n"
        "from rosenblatt.apps.cli import main\n"
        f"sys.argv = ['rosenblatt', 'predict', '--model', {str(tmp_path / 'm')!r}, "
        f"{str(data)!r}, '--output', {str(tmp_path / 'out.txt')!r}]\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
        "print(sorted(m for m in ('sklearn', 'scipy', 'numba') if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[]"
    labels = np.array((tmp_path / "out.txt").read_text().split(), dtype=int)
    np.testing.assert_array_equal(labels, load(tmp_path / "m").predict(X3))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", sorted(LINEAR))
def test_a_fitted_model_object_gets_the_same_predictor_as_its_file(name, tmp_path):
    """live_predictor (what the service predicts with) keeps build_predictor's rule: the
    models whose file loads as a LinearPredictor get one, with the same answers."""
    from rosenblatt.persistence.predictor import live_predictor

    y = np.where(Y2 == 1, "spam", "ham")
    model = LINEAR[name]().fit(X2, y)
    predictor = live_predictor(model)
    assert isinstance(predictor, LinearPredictor)
    np.testing.assert_array_equal(predictor.decision_function(X2), model.decision_function(X2))
    np.testing.assert_array_equal(predictor.predict(X2), model.predict(X2))
    save(model, tmp_path / "m.rbm")
    from_file = load_predictor(tmp_path / "m.rbm")
    assert (predictor.mean_ is None) == (from_file.mean_ is None)
    assert (predictor.scale_ is None) == (from_file.scale_ is None)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_other_model_objects_predict_as_themselves():
    from rosenblatt.persistence.predictor import live_predictor

    for model in (
        VotedPerceptron(max_iter=5).fit(X2, Y2),
        make_pipeline(MaxAbsScaler(), Perceptron(max_iter=5)).fit(X2, Y2),
        Perceptron(),  # not fitted: the estimator says so in its words
    ):
        assert live_predictor(model) is model
