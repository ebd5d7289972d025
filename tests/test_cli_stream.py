"""``rosenblatt train --stream``: the progress bar, the default epochs, the kept cache."""

import re

import numpy as np
import pytest
from typer.testing import CliRunner

from rosenblatt import Perceptron, load
from rosenblatt.apps.cli import app


@pytest.fixture
def noisy_csv(tmp_path):
    rng = np.random.RandomState(0)
    X = rng.randn(300, 3)
    y = (X @ [1.0, -2.0, 0.5] + 0.5 * rng.randn(300) > 0).astype(int)
    path = tmp_path / "train.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt=["%.6f"] * 3 + ["%d"])
    return path, X, y


def _train(*args):
    result = CliRunner().invoke(app, ["train", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


def test_stream_shows_a_bar_with_rows_per_second(tmp_path, noisy_csv):
    path, X, y = noisy_csv
    output = _train(path, "--model", tmp_path / "m.rbl", "--stream", "--chunk-size", "64")
    parsing = next(line for line in output.splitlines() if line.startswith("parsing"))
    training = next(line for line in output.splitlines() if line.startswith("training"))
    assert "300 rows" in parsing and re.search(r"[\d,]+ rows/s", parsing)
    assert re.search(r"epoch 5/5, last epoch \d+ mistakes", training)
    assert re.search(r"[\d,]+ rows/s", training)
    assert "100%" in training


def test_stream_defaults_to_five_epochs_and_memory_to_the_api_max_iter(tmp_path, noisy_csv):
    """The CLI's defaults are the API's: fit_stream's 5 epochs, the estimators' max_iter."""
    path, X, y = noisy_csv
    streamed = _train(path, "-m", tmp_path / "s.rbl", "--stream", "--chunk-size", "64")
    assert re.search(r"epochs\s+│\s+5\s", streamed)
    assert "the last of --max-iter=5 epochs" in " ".join(streamed.split())
    memory = _train(path, "-m", tmp_path / "m.rbl")
    # noisy data: the API's stop rule (tol) ends training well before max_iter, silently
    epochs = int(re.search(r"epochs\s+│\s+(\d+)\s", memory).group(1))
    assert 10 < epochs < 1000 and "did not converge" not in memory, memory
    assert load(tmp_path / "m.rbl").steps[-1][1].max_iter == Perceptron().max_iter == 1000
    explicit = _train(path, "-m", tmp_path / "e.rbl", "--stream", "--max-iter", "2", "-q")
    assert explicit == "" and load(tmp_path / "e.rbl").n_iter_ == 2
    # the option has one name: the API's (the package was never released with another)
    former = CliRunner().invoke(
        app, ["train", str(path), "-m", str(tmp_path / "f.rbl"), "--stream", "--epochs=3"]
    )
    assert former.exit_code == 2 and "--epochs" in former.output
    assert not (tmp_path / "f.rbl").exists()


def test_stream_keeps_the_cache_where_asked(tmp_path, noisy_csv):
    path, X, y = noisy_csv
    cache = tmp_path / "cache"
    first = _train(path, "-m", tmp_path / "a.rbl", "--stream", "--cache", cache, "-q")
    assert first == "" and (cache / "manifest.json").is_file() and (cache / "X").is_file()
    output = _train(path, "-m", tmp_path / "b.rbl", "--stream", "--cache", cache)
    assert "the kept cache holds the file" in output
    np.testing.assert_array_equal(load(tmp_path / "a.rbl").coef_, load(tmp_path / "b.rbl").coef_)
    refused = CliRunner().invoke(app, ["train", str(path), "-m", "c.rbl", "--cache", str(cache)])
    assert refused.exit_code == 2 and "--cache goes with --stream" in refused.output
