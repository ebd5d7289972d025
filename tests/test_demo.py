"""The embedded demo: the comparison rows, and the command with its HTML report."""

import re

from typer.testing import CliRunner

from rosenblatt.apps.cli import app
from rosenblatt.apps.demo import demo_table, run_demo

DATASETS = ["modified OR", "XOR", "SMS spam", "breast cancer", "digits"]
ALGORITHMS = [
    "Perceptron (online)",
    "Perceptron (batch)",
    "AveragedPerceptron",
    "VotedPerceptron",
    "KernelPerceptron (rbf)",
    "CentroidClassifier",
    "LinearProgramClassifier",
    "scikit-learn Perceptron",
]


def test_demo_rows_on_the_seed_problems():
    rows = run_demo(datasets=["modified OR", "XOR"])
    assert [r.algorithm for r in rows] == ALGORITHMS * 2
    or_rows = {row.algorithm: row for row in rows if row.dataset.startswith("modified OR")}
    assert or_rows["Perceptron (online)"].mistakes == 3
    assert or_rows["Perceptron (batch)"].epochs == 2
    assert or_rows["CentroidClassifier"].mistakes is None
    xor = {row.algorithm: row for row in rows if row.dataset == "XOR"}
    assert xor["Perceptron (online)"].converged is False
    assert xor["KernelPerceptron (rbf)"].converged is True
    columns, cells = demo_table(rows)
    assert len(columns) == len(cells[0]) == 8 and cells[5][4:7] == ["-", "-", "-"]


def test_demo_command_prints_the_table_and_writes_a_self_contained_report(tmp_path):
    result = CliRunner().invoke(app, ["demo", "--output-dir", str(tmp_path / "report")])
    assert result.exit_code == 0, result.output
    for name in DATASETS + ALGORITHMS:
        assert name in result.output
    assert f"report: {tmp_path / 'report' / 'index.html'}" in result.output.replace("\n", "")
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    sources = re.findall(r'src="([^"]*)"', page)
    assert len(sources) == 6 and all(s.startswith("data:image/") for s in sources)
    assert sum(s.startswith("data:image/gif") for s in sources) == 2
    assert page.count("<tr>") == 1 + len(DATASETS) * len(ALGORITHMS)
    # grouped by dataset: each name once, over its rows; the footer's code is code
    assert page.count('<tr class="group">') == len(DATASETS)
    assert "`" not in page and "<code>rosenblatt demo</code>" in page
    files = sorted(p.name for p in (tmp_path / "report").iterdir())
    assert files == [
        "index.html",
        "mistakes_breast_cancer.png",
        "or_boundary.png",
        "or_training_batch.gif",
        "or_training_online.gif",
        "test_accuracy.png",
        "xor_boundaries.png",
    ]
    cancer = [
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in result.output.splitlines()
        if "breast cancer" in line
    ]
    assert len(cancer) == len(ALGORITHMS)
    assert all(float(cells[3]) > 0.9 for cells in cancer)  # test accuracy
