"""The embedded demo and its command."""

from typer.testing import CliRunner

from rosenblatt.cli import app
from rosenblatt.demo import run_demo


def test_demo_rows_cover_every_algorithm_on_every_dataset():
    rows = run_demo()
    datasets = {row.dataset for row in rows}
    algorithms = {row.algorithm for row in rows}
    assert len(rows) == len(datasets) * len(algorithms) == 10
    or_rows = {row.algorithm: row for row in rows if row.dataset.startswith("modified OR")}
    assert or_rows["Perceptron (online)"].mistakes == 3
    assert or_rows["Perceptron (batch)"].epochs == 2
    cancer = [row for row in rows if row.dataset.startswith("breast cancer")]
    assert all(row.test_accuracy > 0.9 for row in cancer)


def test_demo_command_prints_the_table():
    result = CliRunner().invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "AveragedPerceptron" in result.output
    assert "breast cancer" in result.output
