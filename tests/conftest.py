"""Helpers several test files share: import them with ``from conftest import ...``.

pytest puts this folder on ``sys.path`` (the tests are not a package), so the module it
loads as a conftest is the one those imports get.
"""

import importlib.util
import warnings
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, settings
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

ROOT = Path(__file__).resolve().parents[1]

# The modified OR of the lecture notes (seed 003): -1/+1 inputs, one negative pattern
OR_X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=float)
OR_Y = np.array([-1, 1, 1, 1])

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# scikit-learn's checks that a weight k equals k repetitions of a sample: not so online
_NOT_REPETITION = "an online update with weight k differs from k presentations of the sample"
SAMPLE_WEIGHT_IS_NOT_REPETITION = {
    "check_sample_weight_equivalence_on_dense_data": _NOT_REPETITION,
    "check_sample_weight_equivalence_on_sparse_data": _NOT_REPETITION,
}


def fit_quiet(estimator, X, y, **kwargs):
    """``estimator.fit(X, y, **kwargs)`` without the warning that it did not converge."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y, **kwargs)


def orders(seed, n, n_epochs, shuffle=True):
    """The presentation orders the estimators draw: one permutation per epoch."""
    rng = check_random_state(seed)
    return [rng.permutation(n) if shuffle else np.arange(n) for _ in range(n_epochs)]


def run_cli(*args, input=None):
    """``rosenblatt *args`` in this process; the arguments may be paths or numbers, and
    ``input`` (bytes or str) is its standard input."""
    from typer.testing import CliRunner

    from rosenblatt.apps.cli import app

    return CliRunner().invoke(app, [str(a) for a in args], input=input)


def assert_one_line_error(result, *fragments):
    """Exit status 2, one red line on stderr that says what is wrong, and no traceback."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.output


def load_example(name):
    """The module ``examples/<name>.py``, freshly executed."""
    spec = importlib.util.spec_from_file_location(
        f"example_{name}", ROOT / "examples" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
