"""The teaching commands start fast: each imports only what it uses.

Importing scikit-learn costs more than `trace`, `inspect` or an animation's whole
computation (most of it scipy.stats and pandas, which scikit-learn imports), so
these commands must not load it; nor matplotlib where nothing is drawn, nor pydantic. Each
command runs in a fresh interpreter, which reports ``sys.modules`` as it exits.
"""

import importlib.util
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import rosenblatt
import rosenblatt.engine.kernels.loader

OR_CSV = "x1,x2,label\n-1,-1,-1\n1,-1,1\n-1,1,1\n1,1,1\n"

# runs `rosenblatt ARGS...` as the console script does; the modules loaded by the end
# (an exit included) go to the file named by the first argument
PROBE = """
import atexit, json, runpy, sys

out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["rosenblatt", *sys.argv[2:]]
runpy.run_module("rosenblatt", run_name="__main__")
"""

# scikit-learn, and what makes it slow to import; pydantic, which typer 0.29 imports to coerce
# every parameter (0.15 s a command: pyproject.toml keeps typer below it)
NEVER = ("sklearn", "scipy.stats", "pydantic")
# the training loops come from the library built at install, without numba (when built)
_BUILT = rosenblatt.engine.kernels.loader.library_status().startswith("built at install")
_NUMBA = ("numba",) if _BUILT else ()


def loaded_modules(tmp_path, *args):
    """The command's standard output and the modules it imported."""
    out = tmp_path / "modules.json"
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *map(str, args)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout, set(json.loads(out.read_text()))


def assert_none_of(packages, modules, command):
    found = [p for p in packages if any(m == p or m.startswith(p + ".") for m in modules)]
    assert not found, f"`rosenblatt {command}` imports {', '.join(found)}"


@pytest.fixture
def or_csv(tmp_path):
    path = tmp_path / "or.csv"
    path.write_text(OR_CSV)
    return path


def test_trace_imports_the_engine_and_numpy_only(tmp_path, or_csv):
    stdout, modules = loaded_modules(tmp_path, "trace", or_csv, "--bias-input", "-1")
    assert "3 update(s) in 2 epoch(s), converged" in stdout
    assert "rosenblatt.engine.kernels.loader" in modules  # the probe sees what the run loads
    assert_none_of((*NEVER, "matplotlib", "scipy.optimize", *_NUMBA), modules, "trace")


def test_inspect_imports_the_lp_solver_and_numpy_only(tmp_path, or_csv):
    stdout, modules = loaded_modules(tmp_path, "inspect", or_csv, "--json")
    assert json.loads(stdout)["problems"][0]["separable"] is True
    assert "scipy.optimize" in modules
    assert_none_of((*NEVER, "matplotlib"), modules, "inspect")


def test_plot_animation_imports_matplotlib_and_the_engine_only(tmp_path, or_csv):
    gif = tmp_path / "or.gif"
    _, modules = loaded_modules(tmp_path, "plot", or_csv, "-o", gif, "--bias-input", "-1")
    assert gif.stat().st_size > 0 and "matplotlib" in modules
    assert_none_of(NEVER, modules, "plot (an animation)")


# a numeric CSV with a header (the model keeps its feature names), three classes that overlap
def _numeric_csv(path):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 3)).round(2)
    y = np.digitize(X @ [1.0, -1.0, 0.5] + 0.5 * rng.normal(size=60), [-0.5, 0.5])
    rows = [",".join(map(str, row)) + f",c{label}" for row, label in zip(X, y)]
    path.write_text("\n".join(["a,b,c,label", *rows]) + "\n")
    return path


@pytest.mark.parametrize(
    "data, options",
    [
        ("numeric.csv", ["-q"]),
        ("numeric.csv", ["-a", "voted"]),  # the summary scores the named model's rows
        ("numeric.csv", ["-a", "pa2", "--json", "--multi-class", "multinomial"]),
        ("or.svm", ["-a", "averaged", "--json"]),
    ],
)
def test_train_of_a_linear_learner_imports_no_sklearn(tmp_path, data, options):
    """Issue 46: a learner of the package on numeric columns, nothing around it (--no-scale),
    is trained and saved without scikit-learn (whose import took longer than the command's
    whole run), and loads back as the estimator."""
    path = _numeric_csv(tmp_path / data) if data.endswith(".csv") else tmp_path / data
    if data == "or.svm":
        path.write_text("-1 1:-1 2:-1\n1 1:1 2:-1\n1 1:-1 2:1\n1 1:1 2:1\n")
    model = tmp_path / "m.rbl"
    stdout, modules = loaded_modules(tmp_path, "train", path, "-m", model, "--no-scale", *options)
    assert "rosenblatt.estimators._bare" in modules  # the probe sees what the run loads
    assert_none_of((*NEVER, "pandas", "matplotlib"), modules, "train --no-scale")
    name = {"-q": "Perceptron", "voted": "VotedPerceptron", "pa2": "PassiveAggressive"}
    expected = next((name[o] for o in options if o in name), "AveragedPerceptron")
    loaded = rosenblatt.load(model)
    assert type(loaded) is getattr(rosenblatt, expected)  # the estimator, not the learner
    assert loaded.n_features_in_ == (2 if "svm" in data else 3)
    if "--json" in options:
        assert json.loads(stdout)["estimator"] == expected


def test_a_learner_that_does_not_converge_warns_as_the_estimator_does(tmp_path):
    """The ConvergenceWarning is scikit-learn's: a run that ends without converging loads it
    then (only then), and the command line notes it in the same words as the estimator's."""
    path = _numeric_csv(tmp_path / "numeric.csv")
    errors = []
    for scale in ("--no-scale", "--scale"):
        result = subprocess.run(
            [sys.executable, "-c", PROBE, str(tmp_path / "modules.json"), "train", str(path)]
            + ["-m", str(tmp_path / "m.rbl"), "--max-iter", "2", "--tol", "none", scale],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        errors.append(" ".join(result.stderr.split()))
    note = "note: Perceptron did not converge: the last of --max-iter=2 epochs still made "
    assert errors[0].count("note:") == errors[1].count("note:") == 1
    assert errors[0].endswith(
        f"{note}26 mistake(s). The data may not be linearly separable; raise --max-iter, or "
        "use --algorithm averaged."
    )
    assert note in errors[1]  # the estimator in the scaler's pipeline


def test_train_scales_a_csv_without_sklearn_and_saves_sklearns_pipeline(tmp_path):
    """By default a CSV's columns are standardised: the scaler and the pipeline are the
    stand-ins of estimators/_bare_steps (scikit-learn's values, not its import) and the file
    loads as scikit-learn's Pipeline; sparse rows (svmlight) get scikit-learn's own scaler."""
    from sklearn.preprocessing import StandardScaler

    model = tmp_path / "m.rbl"
    path = _numeric_csv(tmp_path / "numeric.csv")
    _, modules = loaded_modules(tmp_path, "train", path, "-m", model, "-q")
    assert "rosenblatt.estimators._bare_steps" in modules
    assert_none_of((*NEVER, "pandas", "matplotlib"), modules, "train")
    loaded = rosenblatt.load(model)
    assert [name for name, _ in loaded.steps] == ["scaler", "classifier"]
    assert type(loaded.steps[0][1]) is StandardScaler
    assert type(loaded.steps[-1][1]) is rosenblatt.Perceptron
    sparse = tmp_path / "or.svm"
    sparse.write_text("-1 1:-1 2:-1\n1 1:1 2:-1\n1 1:-1 2:1\n1 1:1 2:1\n")
    _, modules = loaded_modules(tmp_path, "train", sparse, "-m", model, "-q")
    assert "sklearn.preprocessing" in modules


@pytest.mark.parametrize("options", [{}, {"algorithm": "voted", "epochs": 50}])
def test_train_without_sklearn_writes_the_file_the_estimator_writes(tmp_path, options):
    """The command line's model file, written without scikit-learn loaded, is byte for byte
    the one ``train`` writes from the estimator itself (scikit-learn loaded)."""
    from rosenblatt.apps.cli.train import train

    path = _numeric_csv(tmp_path / "numeric.csv")
    flags = [["--algorithm", options["algorithm"], "--max-iter", "50"]] if options else [[]]
    _, modules = loaded_modules(tmp_path, "train", path, "-m", "cli.rbl", "--no-scale", *flags[0])
    assert_none_of(NEVER, modules, "train --no-scale")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = train(path, tmp_path / "estimator.rbl", scale=False, **options)
    assert type(result.model) is type(rosenblatt.load(tmp_path / "cli.rbl"))  # the estimator
    assert (tmp_path / "cli.rbl").read_bytes() == (tmp_path / "estimator.rbl").read_bytes()


def test_predict_with_a_linear_model_imports_numpy_only(tmp_path, or_csv):
    X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]])  # the rows of OR_CSV
    rosenblatt.save(rosenblatt.Perceptron().fit(X, [-1, 1, 1, 1]), tmp_path / "or.rbm")
    stdout, modules = loaded_modules(tmp_path, "predict", "-m", tmp_path / "or.rbm", or_csv)
    assert stdout.split() == ["-1", "1", "1", "1"]
    assert_none_of((*NEVER, "matplotlib", "numba", "scipy"), modules, "predict")


def star_import_modules() -> set[str]:
    """The modules ``from rosenblatt import *`` loads, in a fresh interpreter."""
    every_name = (
        "from rosenblatt import *; import json, sys; print(json.dumps(sorted(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", every_name], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout))


# the optional extra of rosenblatt.to_onnx and `rosenblatt export`
ONNX = ("onnx", "onnxruntime", "skl2onnx")


def test_the_onnx_extra_loads_only_for_an_export(tmp_path, or_csv):
    """Every public name, and training, without onnx: the extra stays optional."""
    modules = star_import_modules()
    assert "rosenblatt.persistence.onnx" in modules  # to_onnx, loaded by the star import
    assert_none_of(ONNX, modules, "from rosenblatt import *")
    model = tmp_path / "or.rbl"
    _, modules = loaded_modules(tmp_path, "train", or_csv, "--model", model, "-q")
    assert_none_of(ONNX, modules, "train")
    if importlib.util.find_spec("skl2onnx") is not None:  # the export itself loads them
        _, modules = loaded_modules(tmp_path, "export", "--model", model, "--onnx", "or.onnx")
        assert "skl2onnx" in modules and (tmp_path / "or.onnx").stat().st_size > 0


# the optional extra of rosenblatt.serve and `rosenblatt serve`
SERVE = ("uvicorn", "starlette", "httptools")


def test_the_serve_extra_loads_only_to_serve(tmp_path, or_csv):
    """Every public name (rosenblatt.serve among them), and the other commands, without the
    web server: the extra stays optional, and loads only when a model is served."""
    modules = star_import_modules()
    assert "rosenblatt.apps.serve" in modules  # serve, loaded by the star import
    assert_none_of(SERVE, modules, "from rosenblatt import *")
    _, modules = loaded_modules(tmp_path, "train", or_csv, "--model", tmp_path / "or.rbl", "-q")
    assert_none_of(SERVE, modules, "train")
    _, modules = loaded_modules(tmp_path, "predict", "-m", tmp_path / "or.rbl", or_csv)
    assert_none_of(SERVE, modules, "predict")
