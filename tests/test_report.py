"""rosenblatt.apps.report: tables grouped by a column, code spans instead of backticks."""

import re

import pytest

from rosenblatt.apps.report import ReportTable, render_report, write_report

COLUMNS = ["dataset", "algorithm", "test acc"]
ROWS = [
    ["OR", "Perceptron", "1.000"],
    ["XOR", "Perceptron", "0.500"],
    ["OR", "KernelPerceptron", "1.000"],
    ["XOR", "KernelPerceptron", "1.000"],
]


def grouped_page():
    table = ReportTable(
        "Scores", COLUMNS, ROWS, text_columns=("dataset", "algorithm"), group_by="dataset"
    )
    return render_report("Report", [table])


def test_rows_of_one_dataset_sit_together_under_its_name_given_once():
    page = grouped_page()
    head = re.search(r"<thead>(.*?)</thead>", page, re.S)[1]
    assert re.findall(r"<th[^>]*>(.*?)</th>", head) == ["algorithm", "test acc"]
    bodies = re.findall(r"<tbody>(.*?)</tbody>", page, re.S)
    assert len(bodies) == 2  # one per dataset, in the order they first occur
    for body, name, algorithms in zip(
        bodies, ["OR", "XOR"], [["Perceptron", "KernelPerceptron"]] * 2
    ):
        assert re.findall(r'<tr class="group"><th[^>]*colspan="2"[^>]*>(.*?)</th>', body) == [name]
        rows = re.findall(r"<tr><td[^>]*>(.*?)</td>", body)
        assert rows == algorithms  # the table's own order within a group
    for name in ("OR", "XOR"):  # each dataset named once, not on every row
        assert len(re.findall(rf">{name}<", page)) == 1
    assert page.count("<tr>") == 1 + len(ROWS)  # group headers are not data rows


def test_an_ungrouped_table_keeps_every_column_and_row():
    page = render_report("Report", [ReportTable("Scores", COLUMNS, ROWS)])
    assert page.count("<tr>") == 1 + len(ROWS) and 'class="group"' not in page
    with pytest.raises(ValueError, match="group_by='model' is not a column"):
        render_report("Report", [ReportTable("Scores", COLUMNS, ROWS, group_by="model")])


def test_backticks_are_shown_as_code_not_as_backticks(tmp_path):
    path = write_report(
        tmp_path / "r.html",
        "Report",
        [ReportTable("Scores", COLUMNS, ROWS, caption="Run `make demo` <again>.")],
        intro="See `rosenblatt plot --help`.",
        footer="Made by rosenblatt 1.0 (`rosenblatt demo`).",
    )
    page = open(path, encoding="utf-8").read()
    assert "`" not in page
    assert "<footer>Made by rosenblatt 1.0 (<code>rosenblatt demo</code>).</footer>" in page
    assert "<code>make demo</code> &lt;again&gt;" in page  # still escaped
    assert "<code>rosenblatt plot --help</code>" in page
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary file left
